r"""Measured rates of the Fenchel-game recipes: Frank-Wolfe O(1/T), accelerated gradient O(1/T^2).

Test objectives with known minimisers:

* :func:`quadratic_objective` :math:`f(x)=\tfrac12x^\top Hx-b^\top x`, :math:`L=\lambda_{\max}(H)`,
  :math:`x^\star=H^{-1}b` on :math:`\mathbb R^d`;
* :func:`distance_objective` :math:`f(x)=\tfrac12\|x-c\|^2`, whose minimiser over the simplex is
  the exact projection of c (on a face of the simplex when c lies outside it: the case where
  Frank-Wolfe zigzags at its O(1/T) rate);
* :func:`worst_case_quadratic`, Nesterov's function on which order 1/T^2 is exact;
* :func:`logistic_objective` :math:`f(x)=\frac1n\sum_i\log(1+e^{-a_i^\top x})+\tfrac\lambda2\|x\|^2`,
  :math:`L=\|A\|_2^2/(4n)+\lambda`, computed with ``logaddexp`` (no overflow); its minimiser by Newton's method.

:func:`fenchel_claims` gives the two ``gamedyn reproduce`` rows (group ``fenchel``).
"""

from __future__ import annotations

import math

import numpy as np

from gamedyn.fenchel import Objective

__all__ = [
    "AG_HORIZONS", "FW_HORIZONS", "accelerated_gradient_table", "distance_objective", "fenchel_claims",
    "fitted_slope", "frank_wolfe_table", "logistic_minimizer", "logistic_objective", "quadratic_objective",
    "worst_case_quadratic",
]

FW_HORIZONS = {"quick": (10, 30, 100, 300), "default": (10, 30, 100, 300, 1000, 3000),
               "full": (10, 30, 100, 300, 1000, 3000, 10000)}
AG_HORIZONS = {"quick": (5, 10, 20, 40), "default": (5, 10, 20, 40, 80, 160), "full": (5, 10, 20, 40, 80, 160, 320)}
FW_SLOPE_AT_MOST = -0.9
AG_SLOPE_AT_MOST = -1.8


def quadratic_objective(H, b) -> Objective:
    """f(x) = x^T H x / 2 - b^T x with H symmetric positive semidefinite; L = largest eigenvalue."""
    H, b = np.asarray(H, dtype=np.float64), np.asarray(b, dtype=np.float64)
    smoothness = float(np.linalg.eigvalsh(H).max())
    return Objective(lambda x: 0.5 * float(x @ H @ x) - float(b @ x), lambda x: H @ x - b,
                     smoothness=smoothness, dimension=b.size)


def distance_objective(c) -> Objective:
    """f(x) = ||x - c||^2 / 2 (L = 1)."""
    c = np.asarray(c, dtype=np.float64)
    return Objective(lambda x: 0.5 * float((x - c) @ (x - c)), lambda x: x - c, smoothness=1.0, dimension=c.size)


def logistic_objective(A, ridge: float = 0.0) -> Objective:
    """f(x) = mean_i log(1 + exp(-a_i^T x)) + ridge/2 ||x||^2 (rows a_i of A)."""
    A = np.asarray(A, dtype=np.float64)
    n = A.shape[0]
    smoothness = float(np.linalg.norm(A, 2) ** 2 / (4 * n) + ridge)

    def value(x):
        return float(np.mean(np.logaddexp(0.0, -(A @ x)))) + 0.5 * ridge * float(x @ x)

    def gradient(x):
        sigma = np.exp(-np.logaddexp(0.0, A @ x))  # 1 / (1 + e^{a x}), without overflow
        return -(A.T @ sigma) / n + ridge * x

    return Objective(value, gradient, smoothness=smoothness, dimension=A.shape[1])


def logistic_minimizer(A, ridge: float, iterations: int = 100):
    """The minimiser of :func:`logistic_objective` by Newton's method (ridge > 0 or non-separable data)."""
    A = np.asarray(A, dtype=np.float64)
    n, d = A.shape
    objective = logistic_objective(A, ridge)
    x = np.zeros(d)
    for _ in range(iterations):
        z = A @ x
        weights = np.exp(-np.logaddexp(0.0, z) - np.logaddexp(0.0, -z))  # sigma (1 - sigma)
        hessian = (A.T * weights) @ A / n + ridge * np.eye(d)
        step = np.linalg.solve(hessian, objective.gradient(x))
        x = x - step
        if np.linalg.norm(step) <= 1e-15 * max(1.0, np.linalg.norm(x)):
            break
    return x


def fitted_slope(horizons, values) -> float:
    """Least-squares slope of log(value) against log(T)."""
    return float(np.polyfit(np.log(horizons), np.log(values), 1)[0])


def frank_wolfe_table(horizons, dimension: int = 10, seed: int = 0) -> list:
    """(T, f(x_T) - f*, 2 L D^2/(T+2), Theorem 2 bound) for FW on the simplex, f = ||x - c||^2/2,
    c outside the simplex (so x* = the projection of c lies on a face)."""
    from gamedyn import Simplex
    from gamedyn.recipes import frank_wolfe

    rng = np.random.default_rng(seed)
    c = rng.normal(size=dimension)
    objective = distance_objective(c)
    optimum = objective.value(Simplex.project(c))
    diameter_squared = 2.0  # l2 diameter of the simplex: ||e_i - e_j||^2
    rows = []
    for T in horizons:
        result = frank_wolfe(objective, Simplex(), T)
        rows.append((int(T), result.value - optimum, 2 * objective.smoothness * diameter_squared / (T + 2),
                     result.game.theorem2_bound))
    return rows


def worst_case_quadratic(dimension: int, smoothness: float = 1.0):
    r"""Nesterov's worst function (Nesterov 2004, section 2.1.2): :math:`f(x)=\tfrac L8(x_1^2+
    \sum_i(x_i-x_{i+1})^2+x_d^2)-\tfrac L4x_1`, on which no first-order method beats
    :math:`3L\|x_0-x^\star\|^2/(32(T+1)^2)` for :math:`T\le(d-1)/2`. Returns (objective, x*)."""
    H = (smoothness / 4) * (2 * np.eye(dimension) - np.eye(dimension, k=1) - np.eye(dimension, k=-1))
    b = np.zeros(dimension)
    b[0] = smoothness / 4
    objective = quadratic_objective(H, b)
    objective = Objective(objective.value, objective.gradient, smoothness=smoothness, dimension=dimension)
    return objective, np.linalg.solve(H, b)


def accelerated_gradient_table(horizons, seed: int = 0) -> list:
    """(objective, T, f(x_bar_T) - f*, 4 L ||x_0 - x*||^2/(T(T+1))) for Nesterov's method from x_0 = 0 on
    Nesterov's worst quadratic (d = 2T + 1 for each T, scaled to ||x_0 - x*|| = 1: the error is exactly order 1/T^2), an
    ill-conditioned random quadratic (d = 30, condition 10^4) and logistic regression (n = 200, d = 20,
    non-separable labels)."""
    from gamedyn.recipes import accelerated_gradient

    rng = np.random.default_rng(seed)
    d = 30
    Q, _ = np.linalg.qr(rng.normal(size=(d, d)))
    H = Q @ np.diag(np.logspace(-4, 0, d)) @ Q.T
    b = rng.normal(size=d)
    A = rng.normal(size=(200, 20)) * rng.choice([-1.0, 1.0], size=(200, 1))
    fixed = [("random quadratic", quadratic_objective(H, b), np.linalg.solve(H, b)),
             ("logistic", logistic_objective(A), logistic_minimizer(A, 0.0))]
    rows = []
    for T in horizons:
        # the worst function in dimension 2T + 1, scaled so that ||x_0 - x*|| = 1: then f - f* is order 1/T^2
        objective, minimizer = worst_case_quadratic(2 * T + 1)
        scale = float(np.linalg.norm(minimizer))
        objective = Objective(lambda x, f=objective, s=scale: f.value(s * x) / s**2,
                              lambda x, f=objective, s=scale: f.gradient(s * x) / s, smoothness=1.0, dimension=2 * T + 1)
        for name, case, point in [("worst quadratic", objective, minimizer / scale)] + fixed:
            x0 = np.zeros(case.dimension)
            distance = float((x0 - point) @ (x0 - point))
            result = accelerated_gradient(case, T, x0=x0)
            rows.append((name, int(T), result.value - case.value(point), 4 * case.smoothness * distance / (T * (T + 1))))
    return rows


def fenchel_claims() -> list:
    """The ``gamedyn reproduce`` rows: Frank-Wolfe O(1/T) on the simplex, accelerated gradient O(1/T^2)."""
    from gamedyn.reproduce import Claim, Measurement

    def frank_wolfe_check(context) -> Measurement:
        horizons = FW_HORIZONS.get(context.profile.name, FW_HORIZONS["default"])
        rows = context.cached("fenchel frank-wolfe", lambda: frank_wolfe_table(horizons))
        slope = fitted_slope([row[0] for row in rows], [row[1] for row in rows])
        within = all(0 <= row[1] <= row[2] and row[1] <= row[3] for row in rows)
        listing = ", ".join(f"T={T}: {excess:.2e} (bound {bound:.2e})" for T, excess, bound, _ in rows)
        detail = (f"f = ||x - c||^2/2 on the 10-simplex, x* on a face; f(x_T) - f*: {listing}; within 2LD^2/(T+2) "
                  f"and the Theorem 2 bound at every T: {'yes' if within else 'NO'}")
        return Measurement(slope, FW_SLOPE_AT_MOST, bool(math.isfinite(slope) and slope <= FW_SLOPE_AT_MOST and within),
                           detail)

    def accelerated_check(context) -> Measurement:
        horizons = AG_HORIZONS.get(context.profile.name, AG_HORIZONS["default"])
        rows = context.cached("fenchel accelerated", lambda: accelerated_gradient_table(horizons))
        worst_rows = [row for row in rows if row[0] == "worst quadratic"]
        slope = fitted_slope([row[1] for row in worst_rows], [row[2] for row in worst_rows])
        tolerance = 1e-12  # f(x) - f* at rounding level may be a few ulp below 0
        within = all(-tolerance * max(1.0, abs(row[3])) <= row[2] <= row[3] for row in rows)
        ratios = {name: max(row[2] / row[3] for row in rows if row[0] == name)
                  for name in ("worst quadratic", "random quadratic", "logistic")}
        detail = (f"slope on Nesterov's worst quadratic {slope:.2f}; largest (f - f*) / (4L||x0 - x*||^2/(T(T+1))): "
                  + ", ".join(f"{name} {ratio:.3f}" for name, ratio in ratios.items())
                  + f"; within the bound at every T: {'yes' if within else 'NO'}")
        return Measurement(slope, AG_SLOPE_AT_MOST, bool(math.isfinite(slope) and slope <= AG_SLOPE_AT_MOST and within),
                           detail)

    return [
        Claim("Frank-Wolfe: O(1/T)", "FTL vs best response, alpha_t = t (= Frank-Wolfe, c_t = 2/(t+1)): "
              "f(x_T) - f* <= 2LD^2/(T+2)", "fenchel", ("frank_wolfe", "Abernethy & Wang 2017"),
              "slope", "<=", frank_wolfe_check),
        Claim("Accelerated gradient: O(1/T^2)", "optimistic FTL vs OMD, alpha_t = t, gamma = 1/(4L) (= Nesterov): "
              "f(x_bar_T) - f* <= 4L||x0 - x*||^2/(T(T+1))", "fenchel", ("accelerated_gradient", "Wang & Abernethy 2018"),
              "slope", "<=", accelerated_check),
    ]
