r"""Measured rates of the Fenchel-game recipes: Frank-Wolfe O(1/T), accelerated gradient O(1/T^2).

Test objectives with known minimisers:

* :func:`quadratic_objective` :math:`f(x)=\tfrac12x^\top Hx-b^\top x`, :math:`L=\lambda_{\max}(H)`,
  :math:`x^\star=H^{-1}b` on :math:`\mathbb R^d`;
* :func:`distance_objective` :math:`f(x)=\tfrac12\|x-c\|^2`, whose minimiser over the simplex is
  the exact projection of c (on a face of the simplex when c lies outside it: the case where
  Frank-Wolfe zigzags at its O(1/T) rate);
* :func:`worst_case_quadratic`, Nesterov's function on which order 1/T^2 is exact;
* :func:`logistic_objective` :math:`f(x)=\frac1n\sum_i\log(1+e^{-a_i^\top x})+\tfrac\lambda2\|x\|^2`,
  :math:`L=\|A\|_2^2/(4n)+\lambda`, computed with ``logaddexp`` (no overflow); its minimiser by Newton's method;
* :func:`huber_objective` :math:`f(x)=\sum_i h_\delta(x_i)` (quadratic on :math:`|x_i|\le\delta`, linear
  outside, L = 1), the instance on which accelerated gradient's bound is nearly attained (below);
* :func:`sparse_simplex_objective`, Jaggi's lower-bound instance :math:`\tfrac12\|x\|^2` on the d-simplex
  (every point with at most T nonzeros has :math:`f\ge1/(2T)`), and :func:`steep_vertex_objective`.

Instances on which the stated bounds are nearly tight, so that a plausible wrong algorithm fails them:

* **Accelerated gradient, Huber from far away.** From :math:`x_0=\rho\gg\delta` the gradient is the
  constant :math:`\delta` until the iterates reach the kink, so with :math:`\gamma=1/(4L)` the similar-triangles
  iterate is :math:`\bar x_T\approx\rho-\gamma\delta T^2/4` and :math:`(f(\bar x_T)-f^\star)/(4L\rho^2/(T(T+1)))
  \approx4a(\rho-a)/\rho^2` with :math:`a=\gamma\delta T^2/4`: equal to 1 at :math:`\rho=2a=\delta T^2/8`. The row
  starts from :math:`\rho_k=\delta T(T+1)/8\cdot2^{-k/2}` (:data:`HUBER_STARTS` of them) and checks the bound
  at every round t <= T: measured, at most 0.99 of it at T = 160. A step half as large as stated gives
  1.98, gradient descent 9.9, heavy ball (the non-optimistic pair) 1.23.
* **Frank-Wolfe, Jaggi's instance.** :math:`f=\tfrac12\|x\|^2` on the simplex of dimension
  d >= T: from the centre, every step adds a new vertex, so :math:`\bar x_T` puts weight
  :math:`c_t\prod_{s>t}(1-c_s)` on the t-th vertex; with :math:`c_t=2/(t+1)` that is :math:`2t/(T(T+1))` and
  :math:`f(x_T)=(2T+1)/(3T(T+1))` exactly, between Jaggi's lower bound :math:`1/(2T)` and the stated
  :math:`2LD^2/(T+2)`. Any other step rule gives another value (1/t: :math:`1/(2T)`), and
  :math:`c_t=1/\sqrt t` breaks the bound itself by T = 1000.
* **Frank-Wolfe, the steep vertex.** :math:`f(x)=Gx_2+\tfrac12\|x\|^2` on the 2-simplex from
  :math:`x_0=e_2` (:math:`x^\star=e_1`, :math:`G=` :data:`STEEP_SLOPE`): the first step :math:`c_1=1` leaves
  :math:`x_0` at once; a rule with :math:`c_1<1` (:math:`1/(t+1)`, :math:`2/(t+2)`) keeps a weight on
  it that decays like 1/T or 1/T^2 and pays G for it, far above :math:`2LD^2/(T+2)`.

:func:`fenchel_claims` gives the two ``gamedyn reproduce`` rows (group ``fenchel``).
"""

from __future__ import annotations

import math
from typing import TypeVar

import numpy as np

from gamedyn.games.fenchel.game import Objective

__all__ = [
    "AG_HORIZONS", "FW_HORIZONS", "HUBER_STARTS", "STEEP_SLOPE", "accelerated_gradient_table",
    "accelerated_gradient_tight_table", "distance_objective", "fenchel_claims", "fitted_slope", "frank_wolfe_table",
    "frank_wolfe_tight_table", "huber_objective", "logistic_minimizer", "logistic_objective", "quadratic_objective",
    "sparse_simplex_objective", "steep_vertex_objective", "worst_case_quadratic",
]

FW_HORIZONS = {"quick": (10, 30, 100, 300), "default": (10, 30, 100, 300, 1000, 3000),
               "full": (10, 30, 100, 300, 1000, 3000, 10000)}
AG_HORIZONS = {"quick": (5, 10, 20, 40), "default": (5, 10, 20, 40, 80, 160), "full": (5, 10, 20, 40, 80, 160, 320)}
FW_SLOPE_AT_MOST = -0.9
AG_SLOPE_AT_MOST = -1.8
HUBER_STARTS = 21  # x_0 = delta T(T+1)/8 * 2^(-k/2), k = 0..20
STEEP_SLOPE = 100.0  # G of steep_vertex_objective
CLOSED_FORM_TOLERANCE = 1e-10  # relative, f(x_T) on Jaggi's instance against (2T+1)/(3T(T+1))
BOUND_TOLERANCE = 1e-12  # relative, for rounding in an error that sits near its bound


_Stated = TypeVar("_Stated")


def _stated(value: _Stated | None) -> _Stated:
    """The smoothness L or dimension an objective built in this module states (each of them does)."""
    if value is None:
        raise ValueError("this table needs the objective's smoothness and dimension; build it with "
                         "Objective(..., smoothness=L, dimension=d).")
    return value


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
        if np.linalg.norm(step) <= 1e-15 * max(1.0, float(np.linalg.norm(x))):
            break
    return x


def fitted_slope(horizons, values) -> float:
    """Least-squares slope of log(value) against log(T)."""
    return float(np.polyfit(np.log(horizons), np.log(values), 1)[0])


def frank_wolfe_table(horizons, dimension: int = 10, seed: int = 0) -> list:
    """(T, f(x_T) - f*, 2 L D^2/(T+2), Theorem 2 bound) for FW on the simplex, f = ||x - c||^2/2,
    c outside the simplex (so x* = the projection of c lies on a face)."""
    from gamedyn.core.domains import Simplex
    from gamedyn.recipes import frank_wolfe

    rng = np.random.default_rng(seed)
    c = rng.normal(size=dimension)
    objective = distance_objective(c)
    optimum = objective.value(Simplex.project(c))
    diameter_squared = 2.0  # l2 diameter of the simplex: ||e_i - e_j||^2
    rows = []
    for T in horizons:
        result = frank_wolfe(objective, T, domain=Simplex(), regrets=True)  # the bound needs the regrets
        rows.append((int(T), result.value - optimum, 2 * _stated(objective.smoothness) * diameter_squared / (T + 2),
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
            x0 = np.zeros(_stated(case.dimension))
            distance = float((x0 - point) @ (x0 - point))
            result = accelerated_gradient(case, T, x0=x0)
            rows.append((name, int(T), result.value - case.value(point), 4 * _stated(case.smoothness) * distance / (T * (T + 1))))
    return rows


def huber_objective(delta: float = 1.0, dimension: int = 1) -> Objective:
    """f(x) = sum_i h(x_i), h(u) = u^2/2 on |u| <= delta and delta |u| - delta^2/2 outside (L = 1, x* = 0, f* = 0)."""
    def value(x):
        a = np.abs(x)
        return float(np.sum(np.where(a <= delta, 0.5 * a * a, delta * a - 0.5 * delta**2)))

    return Objective(value, lambda x: np.clip(x, -delta, delta), smoothness=1.0, dimension=dimension)


def sparse_simplex_objective(dimension: int) -> Objective:
    """Jaggi's lower-bound instance f(x) = ||x||^2/2 on the simplex (L = 1; min f = 1/(2d) at the centre)."""
    return Objective(lambda x: 0.5 * float(x @ x), lambda x: np.array(x, dtype=np.float64), smoothness=1.0,
                     dimension=dimension)


def steep_vertex_objective(slope: float = STEEP_SLOPE) -> Objective:
    """f(x) = G x_2 + ||x||^2/2 on the 2-simplex (L = 1): x* = e_1, f* = 1/2, f(e_2) - f* = G."""
    G = float(slope)
    return Objective(lambda x: G * float(x[1]) + 0.5 * float(x @ x), lambda x: np.array([0.0, G]) + x,
                     smoothness=1.0, dimension=2)


def _recipe_averages(objective, T, x0):
    """The accelerated gradient recipe's output after each round t = 1..T (its running average of the
    x-plays, read from the runner's sums by a callback), as a (T, d) array."""
    from gamedyn.recipes import accelerated_gradient

    collected: list[np.ndarray] = []
    result = accelerated_gradient(objective, T, x0=x0,
                                  callback=lambda state: collected.append(np.array(state.p_sum) / state.p_weight_total))
    outputs = np.array(collected)
    if outputs.shape[0] != T or np.max(np.abs(outputs[-1] - result.x)) > 1e-12 * max(1.0, np.max(np.abs(outputs))):
        raise RuntimeError("the outputs read after each round do not end at the recipe's output")
    return outputs


def accelerated_gradient_tight_table(T: int, method=None, delta: float = 1.0) -> list:
    r"""``(rho, t, f(x_bar_t) - f*, 4L||x_0 - x*||^2/(t(t+1)))`` on :func:`huber_objective` from every start
    :math:`
ho_k=\delta T(T+1)/8\cdot2^{-k/2}`, at every round t = 1..T.

    ``method(objective, T, x0) -> (T, d) array`` of the output after each round (default: the recipe,
    :func:`gamedyn.recipes.accelerated_gradient`); tests pass heavy ball or gradient descent to show
    that they fail the bound here.
    """
    method = _recipe_averages if method is None else method
    objective = huber_objective(delta)
    rows = []
    for k in range(HUBER_STARTS):
        rho = delta * T * (T + 1) / 8 * 2.0 ** (-k / 2)
        averages = method(objective, T, np.array([rho]))
        for t in range(1, T + 1):
            rows.append((rho, t, objective.value(averages[t - 1]), 4 * _stated(objective.smoothness) * rho**2 / (t * (t + 1))))
    return rows


def frank_wolfe_tight_table(horizons, method=None) -> list:
    r"""``(instance, T, f(x_T) - f*, 2LD^2/(T+2), lower bound, f(x_T), closed form of f(x_T))`` on Jaggi's
    instance (d = 2 max T, from the centre) and on the steep vertex (from :math:`e_2`); the lower bound and
    the closed form are None for the steep vertex.

    ``method(objective, domain, T, x0) -> x_T`` (default: :func:`gamedyn.recipes.frank_wolfe`); tests pass
    Frank-Wolfe with other step rules.
    """
    from gamedyn.core.domains import Simplex
    from gamedyn.recipes import frank_wolfe

    if method is None:
        def method(objective, domain, T, x0):
            return frank_wolfe(objective, T, domain=domain, x0=x0).x

    d = 2 * max(horizons)
    sparse, steep = sparse_simplex_objective(d), steep_vertex_objective()
    rows: list[tuple] = []
    for T in horizons:
        T = int(T)
        value = sparse.value(method(sparse, Simplex(), T, np.full(d, 1.0 / d)))
        rows.append(("Jaggi's instance", T, value - 0.5 / d, 4 * _stated(sparse.smoothness) / (T + 2), 0.5 / T - 0.5 / d,
                     value, (2 * T + 1) / (3 * T * (T + 1))))
        value = steep.value(method(steep, Simplex(), T, np.array([0.0, 1.0])))
        rows.append(("steep vertex", T, value - 0.5, 4 * _stated(steep.smoothness) / (T + 2), None, value, None))
    return rows


def _frank_wolfe_measurement(rows, tight_rows) -> tuple:
    """(slope, passed, detail) of the Frank-Wolfe row from its tables."""
    slope = fitted_slope([row[0] for row in rows], [row[1] for row in rows])
    within = all(0 <= row[1] <= row[2] and row[1] <= row[3] for row in rows)
    within_tight = all(excess <= bound * (1 + BOUND_TOLERANCE) and (lower is None or lower <= excess)
                       for _, _, excess, bound, lower, _, _ in tight_rows)
    jaggi = [row for row in tight_rows if row[0] == "Jaggi's instance"]
    closed = max(abs(value - form) / form for *_, value, form in jaggi)
    ratio = max(row[2] / row[3] for row in jaggi)
    steep = max(row[2] / row[3] for row in tight_rows if row[0] == "steep vertex")
    listing = ", ".join(f"T={T}: {excess:.2e} (bound {bound:.2e})" for T, excess, bound, _ in rows)
    passed = bool(math.isfinite(slope) and slope <= FW_SLOPE_AT_MOST and within and within_tight
                  and closed <= CLOSED_FORM_TOLERANCE)
    detail = (f"f = ||x - c||^2/2 on the 10-simplex, x* on a face; f(x_T) - f*: {listing}; within 2LD^2/(T+2) "
              f"and the Theorem 2 bound at every T: {'yes' if within else 'NO'}; Jaggi's instance (f = ||x||^2/2, "
              f"d = {2 * max(row[1] for row in jaggi)}): f(x_T) against (2T+1)/(3T(T+1)) max rel err {closed:.1e} "
              f"(<= {CLOSED_FORM_TOLERANCE:g}), largest (f - f*)/bound {ratio:.3f}, above Jaggi's lower bound "
              f"1/(2T) - 1/(2d); steep vertex (G = {STEEP_SLOPE:g}) largest (f - f*)/bound {steep:.3g}; every tight "
              f"instance within its bounds: {'yes' if within_tight else 'NO'}")
    return slope, passed, detail


def _accelerated_measurement(rows, tight_rows) -> tuple:
    """(slope, passed, detail) of the accelerated gradient row from its tables."""
    worst_rows = [row for row in rows if row[0] == "worst quadratic"]
    slope = fitted_slope([row[1] for row in worst_rows], [row[2] for row in worst_rows])
    tolerance = 1e-12  # f(x) - f* at rounding level may be a few ulp below 0
    within = all(-tolerance * max(1.0, abs(row[3])) <= row[2] <= row[3] for row in rows)
    ratios = {name: max(row[2] / row[3] for row in rows if row[0] == name)
              for name in ("worst quadratic", "random quadratic", "logistic")}
    tight_ratio, rho, t = max((excess / bound, rho, t) for rho, t, excess, bound in tight_rows)
    tight_within = tight_ratio <= 1 + BOUND_TOLERANCE
    T = max(row[1] for row in tight_rows)
    detail = (f"slope on Nesterov's worst quadratic {slope:.2f}; largest (f - f*) / (4L||x0 - x*||^2/(T(T+1))): "
              + ", ".join(f"{name} {ratio:.3f}" for name, ratio in ratios.items())
              + f"; within the bound at every T: {'yes' if within else 'NO'}; Huber (delta = 1, L = 1) from "
              f"{HUBER_STARTS} starts x0 = T(T+1)/8 * 2^(-k/2), T = {T}, the bound at every round t: largest ratio "
              f"{tight_ratio:.3f} (x0 = {rho:.4g}, t = {t}), within it: {'yes' if tight_within else 'NO'}")
    passed = bool(math.isfinite(slope) and slope <= AG_SLOPE_AT_MOST and within and tight_within)
    return slope, passed, detail


def fenchel_claims() -> list:
    """The ``gamedyn reproduce`` rows: Frank-Wolfe O(1/T) on the simplex, accelerated gradient O(1/T^2)."""
    from gamedyn.paper.claims import Claim, Measurement

    def frank_wolfe_check(context) -> Measurement:
        horizons = FW_HORIZONS.get(context.profile.name, FW_HORIZONS["default"])
        rows = context.cached("fenchel frank-wolfe", lambda: frank_wolfe_table(horizons))
        tight = context.cached("fenchel frank-wolfe tight", lambda: frank_wolfe_tight_table(horizons))
        slope, passed, detail = _frank_wolfe_measurement(rows, tight)
        return Measurement(slope, FW_SLOPE_AT_MOST, passed, detail)

    def accelerated_check(context) -> Measurement:
        horizons = AG_HORIZONS.get(context.profile.name, AG_HORIZONS["default"])
        rows = context.cached("fenchel accelerated", lambda: accelerated_gradient_table(horizons))
        tight = context.cached("fenchel accelerated tight", lambda: accelerated_gradient_tight_table(max(horizons)))
        slope, passed, detail = _accelerated_measurement(rows, tight)
        return Measurement(slope, AG_SLOPE_AT_MOST, passed, detail)

    return [
        Claim("Frank-Wolfe: O(1/T)", "FTL vs best response, alpha_t = t (= Frank-Wolfe, c_t = 2/(t+1)): "
              "f(x_T) - f* <= 2LD^2/(T+2); on Jaggi's lower-bound instance f(x_T) = (2T+1)/(3T(T+1)), above "
              "1/(2T)", "fenchel", ("frank_wolfe", "Abernethy & Wang 2017"),
              "slope", "<=", frank_wolfe_check),
        Claim("Accelerated gradient: O(1/T^2)", "optimistic FTL vs OMD, alpha_t = t, gamma = 1/(4L) (= Nesterov): "
              "f(x_bar_t) - f* <= 4L||x0 - x*||^2/(t(t+1)); nearly attained on a Huber function", "fenchel",
              ("accelerated_gradient", "Wang & Abernethy 2018"), "slope", "<=", accelerated_check),
    ]
