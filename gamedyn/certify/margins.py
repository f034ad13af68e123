"""Margins and exact max-margin oracles with weak-duality certificates.

``A`` is the ``n x d`` matrix whose rows are ``a_i = y_i x_i`` (spec section 1). The margin of a
direction ``w`` is ``min_i (A w)_i``; the l2 max margin is

    gamma = max_{||w||_2 <= 1} min_i (A w)_i = min_{pi in simplex} ||A^T pi||_2,

and for ``q`` in (1, 2] with ``1/p + 1/q = 1`` the q-norm max margin is

    gamma_q = max_{||w||_q <= 1} min_i (A w)_i = min_{pi in simplex} ||A^T pi||_p.

Both oracles return a certified bracket: the lower end is attained by an explicit direction of
unit norm, the upper end is the dual objective at an explicit distribution ``pi`` (weak duality).
Scipy sparse input is densified (the oracles factorise small dense systems); float32 input is
computed in float64.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import attrs
import numpy as np
import scipy.linalg
import scipy.sparse as sp

from gamedyn.core.numerics import pnorm_link, safe_norm
from gamedyn.core.validation import check_matrix, check_q, check_vector

_EPS = np.finfo(np.float64).eps

__all__ = [
    "MaxMargin", "QNormMargin", "NotSeparableError", "MarginUndecidedError", "margin", "normalized_margin",
    "max_margin", "max_margin_q", "scaled_to_unit_rows",
]


def _dense64(A) -> np.ndarray:
    A = check_matrix(A)
    if sp.issparse(A):
        A = A.toarray()
    return np.asarray(A, dtype=np.float64)


def _margins(A, w) -> np.ndarray:
    """``A w`` in float64 for a validated dense or CSR ``A``."""
    return np.asarray(A.astype(np.float64, copy=False) @ w, dtype=np.float64).ravel()


def margin(A, w) -> float:
    """The margin ``gamma(w) = min_i (A w)_i`` of ``w`` on the rows of ``A`` (spec section 1).

    >>> margin([[1.0, 2.0], [3.0, -1.0]], [1.0, 1.0])
    2.0
    """
    A = check_matrix(A)
    w = check_vector(w, "w", size=A.shape[1])
    return float(np.min(_margins(A, w)))


def normalized_margin(A, w) -> float:
    """The normalised margin ``min_i (A w)_i / ||w||_2`` (the paper's bar-gamma in Theorem 4)."""
    A = check_matrix(A)
    w = check_vector(w, "w", size=A.shape[1])
    norm = safe_norm(w)
    if norm == 0.0:
        raise ValueError("w is the zero vector, whose normalised margin is undefined; pass a nonzero w.")
    return float(np.min(_margins(A, w)) / norm)


@attrs.frozen
class MaxMargin:
    """Certified l2 max margin: ``gamma <= gamma_max <= upper`` (up to floating-point rounding).

    Attributes:
        gamma: attained lower value ``min_i (A direction)_i``; a valid margin with ``w* = direction``.
        upper: ``||A^T dual||_2``, an upper bound on the max margin by weak duality (never below
            ``gamma``: the two agree to rounding once the gap closes, and the larger is kept).
        gap: ``upper - gamma`` (non-negative in exact arithmetic).
        direction: unit l2 vector attaining ``gamma``.
        dual: distribution on the n rows (the min-norm point of conv{a_i} is ``A^T dual``).
        support: indices of the rows with positive dual weight (the support vectors).
    """

    gamma: float
    upper: float
    gap: float
    direction: np.ndarray
    dual: np.ndarray
    support: np.ndarray


@attrs.frozen
class QNormMargin:
    """Certified bracket ``lower <= gamma_q <= upper`` for the q-norm max margin.

    Attributes:
        q: the primal norm exponent, in (1, 2].
        p: the dual exponent ``q / (q - 1)``.
        lower: ``min_i (A direction)_i``, attained.
        upper: ``||A^T dual||_p`` at the feasible distribution ``dual`` (never below ``lower``).
        direction: vector with ``||direction||_q = 1`` attaining ``lower``.
        dual: distribution on the n rows attaining ``upper``.
    """

    q: float
    p: float
    lower: float
    upper: float
    direction: np.ndarray
    dual: np.ndarray

    @property
    def width(self) -> float:
        """``upper - lower``."""
        return self.upper - self.lower


class NotSeparableError(ValueError):
    """The rows are proved not separable through the origin: 0 lies in their convex hull.

    Raised only with a proof (:func:`gamedyn.certify.certificates.gordan_proof`: a distribution ``lambda``
    with ``sum_i lambda_i a_i = 0`` checked exactly for the float64 rows), so by Gordan's theorem no
    w has ``A w > 0``. ``upper`` is ``||A^T lambda||`` for the float64 ``lambda`` (on the caller's
    scale; at the rounding level), ``dual`` that ``lambda``.
    """

    def __init__(self, message: str, upper: float, dual: np.ndarray | None = None):
        super().__init__(message)
        self.upper, self.dual = upper, dual


class MarginUndecidedError(ValueError):
    """float64 cannot decide whether the rows are separable: no direction is certified to have a
    positive margin, yet no exact proof that 0 lies in the hull was found (a margin below the
    rounding level, or a support beyond the caps of :mod:`gamedyn.certify.certificates`).

    ``lower`` (an attained margin, possibly <= 0) and ``upper`` (a weak-duality bound) bracket the
    max margin on the caller's scale; ``direction`` attains ``lower`` (None when no direction was found).
    """

    def __init__(self, message: str, lower: float, upper: float, direction: np.ndarray | None):
        super().__init__(message)
        self.lower, self.upper, self.direction = lower, upper, direction


def _not_separable(n: int, upper: float, rows: int) -> str:
    return (
        f"A is not separable: the min-norm point of the convex hull of its {n} rows is 0 (proved exactly: "
        f"a distribution on {rows} rows with sum_i lambda_i a_i = 0 for the float64 rows; its float64 "
        f"rounding has ||A^T lambda|| = {upper:.3g}), so there is no w with min_i (A w)_i > 0 (Gordan's "
        "theorem) and the max margin is <= 0. Check that the rows are y_i x_i with labels in {-1, +1}, "
        "that the data are separable by a hyperplane through the origin (add a constant feature for a "
        "bias), and that no row is zero."
    )


def _gordan_error(A_input: np.ndarray, dual) -> NotSeparableError | None:
    """The NotSeparableError with its proof, when Gordan's alternative is proved for the caller's rows
    (the NNLS dual's support first, then the LP of :func:`gamedyn.certify.certificates.certify_not_separable`
    ordered by the dual); None without a proof."""
    from gamedyn.certify import gordan

    n = A_input.shape[0]
    lam = None
    if dual is not None:
        support = np.flatnonzero(dual > 0)
        found = gordan.gordan_proof(A_input[support], dual[support])
        if found is not None:
            lam = np.zeros(n)
            lam[support] = found
    if lam is None:
        order = np.argsort(-(dual if dual is not None else np.ones(n)), kind="stable")
        lam = gordan.find_witness(A_input, order)
    if lam is None:
        return None
    upper = safe_norm(A_input.T @ lam)
    return NotSeparableError(_not_separable(n, upper, int(np.count_nonzero(lam))), upper, lam)


def _rounding_factor(k: int) -> float:
    """``gamma_k = k u / (1 - k u)``: a sum of ``k`` products in float64 is within ``gamma_k`` times
    the sum of their absolute values of the exact sum, in any summation order (Higham, Thm 3.1)."""
    unit = _EPS / 2.0
    return k * unit / (1.0 - k * unit)


def scaled_to_unit_rows(A: np.ndarray):
    """``(A 2^-e, e)`` with the largest row norm of ``A 2^-e`` in [1/2, 1) (``e = None`` if ``A = 0``).

    Scaling by a power of two is exact (barring subnormal entries), so every margin of the scaled
    rows is the original margin times ``2^-e`` exactly, and thresholds on the scaled rows are
    relative to the largest row norm. The largest |entry| is brought to [1/2, 1) first, so the
    norms neither overflow nor underflow.
    """
    largest = float(np.max(np.abs(A))) if A.size else 0.0
    if largest == 0.0:
        return A, None
    first = math.frexp(largest)[1]
    A = np.ldexp(A, -first)
    second = math.frexp(float(np.max(np.linalg.norm(A, axis=1))))[1]
    return np.ldexp(A, -second), first + second


def _certified_positive(A: np.ndarray, direction: np.ndarray) -> bool:
    """True when every exact ``a_i . direction`` is > 0: the computed value exceeds its rounding bound."""
    bound = _rounding_factor(A.shape[1]) * (np.abs(A) @ np.abs(direction))
    return bool(np.min(A @ direction - bound) > 0.0)


def _polish(A_S: np.ndarray) -> list:
    """Candidates ``(w, lam)``: minimum-norm ``w`` with ``A_S w = 1`` and multipliers ``lam >= 0`` with
    ``A_S^T lam = w``.

    One QR factorisation ``A_S^T = Q R`` gives both: ``w = Q R^{-T} 1`` and ``lam = R^{-1} R^{-T} 1``
    (triangular solves stay accurate on graded supports such as a tiny margin next to unit rows).
    Least squares (and NNLS for the multipliers) is a second candidate, for rank-deficient supports.
    Every candidate is certified afterwards, so a poor one costs nothing.
    """
    import scipy.optimize  # here, not at import: a first import loads no optimiser
    k = A_S.shape[0]
    candidates = []
    if k <= A_S.shape[1]:
        Q, R = scipy.linalg.qr(A_S.T, mode="economic")
        diagonal = np.abs(np.diag(R))
        if np.min(diagonal) > 0:
            with np.errstate(all="ignore"):
                y = scipy.linalg.solve_triangular(R, np.ones(k), trans="T")
                if np.all(np.isfinite(y)):  # a tiny diagonal overflows y (then solve_triangular refuses it)
                    candidates.append((Q @ y, scipy.linalg.solve_triangular(R, y)))
        if k == A_S.shape[1]:  # square support: LU with partial pivoting is exact on graded rows
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", scipy.linalg.LinAlgWarning)
                    w = scipy.linalg.solve(A_S, np.ones(k))
                    candidates.append((w, scipy.linalg.solve(A_S.T, w)))
            except (scipy.linalg.LinAlgError, ValueError):
                pass
    w = np.linalg.lstsq(A_S, np.ones(k), rcond=None)[0]
    lam = np.linalg.lstsq(A_S.T, w, rcond=None)[0]
    if np.min(lam) < 0:
        lam = scipy.optimize.nnls(A_S.T, w)[0]
    return candidates + [(w, lam)]


def max_margin(A, *, tol: float = 0.0) -> MaxMargin:
    """Exact l2 max margin by least-distance programming (spec section 10), scale-invariant.

    The rows are first scaled by a power of two ``2^-e`` (exact) so that the largest row norm lies in
    [1/2, 1); every threshold below is relative to it, so ``max_margin(c A)`` is ``c max_margin(A)``
    for any ``c > 0`` (exactly when ``c`` is a power of two). On the scaled rows it solves
    ``min ||w||_2 s.t. A w >= 1`` with the LDP theorem: Lawson-Hanson NNLS on
    ``min_{u >= 0} ||E u - f||`` with ``E = [A^T; 1^T]`` and ``f = e_{d+1}``; then
    ``w = -r_{1:d} / r_{d+1}`` with ``r = E u - f`` (so ``w = A^T u / (1 - 1^T u)``) and the dual is
    ``pi = u / 1^T u``. The solution is polished on the support ``S`` of ``u``: the minimum-norm
    solution of ``A_S w = 1`` (which lies in the row space of ``A_S``) and the matching multipliers
    ``A_S^T lambda = w``, both from one QR factorisation of ``A_S^T``; the direction ``A^T pi`` (the
    min-norm point, normalised) is a third candidate. Whichever certificate is sharper is kept,
    separately for the lower and the upper end. Measured gap: <= 1e-14 (spec section 10).

    Verdict (no absolute threshold): the data are separable when the kept direction's computed
    margins exceed their rounding bound ``gamma_d sum_j |a_ij| |w_j|`` (so the exact margins are
    > 0); they are not separable only when Gordan's alternative is proved: when no direction is
    certified, the dual's support (then the LP of :func:`gamedyn.certify.certificates.certify_not_separable`)
    is checked exactly by :func:`gamedyn.certify.certificates.gordan_proof`. Otherwise float64 cannot decide and
    :class:`MarginUndecidedError` reports the certified bracket; separable data are never called
    "not separable", whatever their scale or margin (1e-300 relative included).

    Scipy sparse ``A`` is densified; float32 is computed in float64.

    ``tol`` (default 0: the polished solution, gap <= 1e-14): a certified relative gap at which to
    stop early. When the NNLS solution's own bracket already has ``(upper - gamma) <= tol * upper``
    and its direction is certified positive, the polish (QR, least squares) is skipped: on small
    problems that is most of the time (iris: 0.08 ms of NNLS against 0.7 ms in all).

    Raises:
        NotSeparableError: (a ``ValueError``) if the rows are proved not separable through the origin.
        MarginUndecidedError: (a ``ValueError``) if float64 cannot decide; it carries the bracket.

    >>> from gamedyn.io.datasets import signed_rows, symmetric_pair
    >>> result = max_margin(signed_rows(*symmetric_pair(0.3)))
    >>> round(result.gamma, 14), result.support.tolist(), result.gap <= 1e-14
    (0.3, [0, 1], True)
    >>> max_margin(signed_rows(*symmetric_pair(1e-8))).gamma  # far below sqrt(machine epsilon)
    1e-08
    """
    import scipy.optimize  # here, not at import: a first import loads no optimiser
    if not (isinstance(tol, (int, float)) and not isinstance(tol, bool) and 0.0 <= tol < 1.0):
        raise ValueError(f"tol must be a relative gap in [0, 1), got {tol!r}; e.g. tol=0.01 (0 = the polished solution).")
    A_input = _dense64(A)
    A, exponent = scaled_to_unit_rows(A_input)
    if exponent is None:  # every row is 0: each is its own proof
        raise NotSeparableError(_not_separable(A.shape[0], 0.0, 1), 0.0, np.eye(A.shape[0], 1).ravel())
    n, d = A.shape
    E = np.vstack([A.T, np.ones((1, n))])
    f = np.zeros(d + 1)
    f[d] = 1.0
    u, _ = scipy.optimize.nnls(E, f, maxiter=max(50 * n, 1000))
    r = E @ u - f
    lower, upper, direction, dual = -np.inf, np.inf, None, None

    def consider(w, pi):
        """Keep the sharper ends: the margin of ``w`` (attained) and ``||A^T pi||`` (weak duality)."""
        nonlocal lower, upper, direction, dual
        largest = float(np.max(np.abs(w))) if np.all(np.isfinite(w)) else 0.0
        if largest > 0.0:
            candidate = w / largest  # overflow-safe normalisation
            candidate = candidate / np.linalg.norm(candidate)
            value = float(np.min(A @ candidate))
            if value > lower:
                lower, direction = value, candidate
        if np.all(np.isfinite(pi)) and np.min(pi) >= 0 and np.sum(pi) > 0:
            candidate = pi / np.sum(pi)
            value = safe_norm(A.T @ candidate)  # (a plain norm underflows at 1e-154: upper 0 < gamma)
            if value < upper:
                upper, dual = value, candidate

    if np.all(np.isfinite(u)) and np.sum(u) > 0:
        if r[d] < 0:
            consider(-r[:d] / r[d], u)
        consider(A.T @ (u / np.sum(u)), u)  # the min-norm point's direction
        early = (tol > 0 and direction is not None and dual is not None and upper - lower <= tol * upper
                 and _certified_positive(A, direction))
        if not early:
            support = np.flatnonzero(u > 0)
            for w_polished, lam in _polish(A[support]):
                pi = np.zeros(n)
                pi[support] = lam
                consider(w_polished, pi)
    certified = direction is not None and _certified_positive(A, direction)
    if not certified:  # "not separable" only with its proof (the dual's support first, then the LP)
        error = _gordan_error(A_input, dual)
        if error is not None:
            raise error
    if not certified or direction is None or dual is None:  # (certified implies a direction; no dual: no bound)
        lower_out, upper_out = math.ldexp(lower, exponent), math.ldexp(max(upper, lower), exponent)
        raise MarginUndecidedError(
            "float64 could not decide whether A is separable: no direction was certified to have a positive "
            f"margin (the best found has margin {lower_out:.3g}) and no exact proof that 0 lies in the convex "
            f"hull was found; the min-norm point of the hull found has norm {upper_out:.3g} ({upper:.3g} of the "
            f"largest row norm). Certified: max margin <= {upper_out:.3g}. Check the labels and near-duplicate "
            "rows with opposite signs.",
            lower_out, upper_out, direction,
        )
    upper = max(upper, lower)  # both ends agree to rounding once the gap closes: keep gamma <= upper
    gamma, upper = math.ldexp(lower, exponent), math.ldexp(upper, exponent)
    if not math.isfinite(upper):
        raise ValueError("the max margin of A exceeds the float64 range; divide A by a constant (the margin scales linearly).")
    return MaxMargin(
        gamma=gamma,
        upper=upper,
        gap=upper - gamma,
        direction=direction,
        dual=dual,
        support=np.flatnonzero(dual > 0),
    )


def _pnorm(z: np.ndarray, p: float) -> float:
    """``||z||_p`` computed on ``z / max|z|`` so that large ``p`` neither overflows nor underflows."""
    scale = float(np.max(np.abs(z)))
    return 0.0 if scale == 0.0 else scale * float(np.linalg.norm(z / scale, ord=p))


def max_margin_q(A, q) -> QNormMargin:
    """Certified bracket for the q-norm max margin ``gamma_q`` (spec sections 1, 8 and 10).

    ``gamma_q = max_{||w||_q <= 1} min_i (A w)_i = min_{pi in simplex} ||A^T pi||_p``. The dual
    ``min_{pi in simplex} phi(A^T pi)``, ``phi(z) = (1/2)||z||_p^2`` (gradient ``f_p``, the p-norm
    link of spec section 8), is solved by an active-set method in the style of Wolfe's min-norm-point
    algorithm, started from the l2 max-margin dual: on the current support ``S``, damped Newton steps
    on the affine hull ``{1^T pi_S = 1}`` (the KKT system ``A_S f_p(A_S^T pi_S) = c 1``), stopping at
    the simplex boundary and dropping the rows whose weight reaches 0; then the row with the most
    violated optimality condition ``(A f_p(z))_i >= ||z||_p^2`` (``z = A^T pi``) joins ``S``.

    Certificate: ``w = f_p(z) / ||z||_p`` with ``z = A^T pi`` has ``||w||_q = 1`` and
    ``<w, z> = ||z||_p``; ``lower = min_i (A w)_i`` is attained by ``w`` and ``upper = ||A^T pi||_p``
    is the dual value at a feasible ``pi``, so ``lower <= gamma_q <= upper`` (up to rounding) by weak
    duality, whatever the solver's accuracy. The best ends over all iterates are kept, and the l2
    max-margin direction (scaled to ``||w||_q = 1``) is a candidate for the lower end too. Measured
    relative width: 1e-16 to 1e-12. For ``q = 2``, :func:`max_margin` is the exact oracle.

    The rows are scaled by a power of two to a largest norm in [1/2, 1) first (as in
    :func:`max_margin`), so ``max_margin_q(c A, q)`` is ``c max_margin_q(A, q)`` and every threshold is
    relative. Scipy sparse ``A`` is densified; float32 is computed in float64.

    Raises:
        NotSeparableError, MarginUndecidedError: (``ValueError``) as :func:`max_margin`.

    A single row ``a`` has ``gamma_q = ||a||_p`` (Hoelder); here ``q = 4/3``, ``p = 4``:

    >>> result = max_margin_q([[1.0, 1.0]], q=4 / 3)
    >>> round(result.lower, 12), round(result.upper, 12), round(2 ** 0.25, 12)
    (1.189207115003, 1.189207115003, 1.189207115003)
    """
    q = check_q(q)
    p = q / (q - 1.0)
    A, exponent = scaled_to_unit_rows(_dense64(A))  # exact power-of-two scaling: thresholds are relative
    n, d = A.shape
    l2 = max_margin(A)  # raises for non-separable data (also for A = 0)
    start = l2.dual
    best: dict[str, Any] = {"lower": -np.inf, "upper": np.inf, "w": None, "pi": None}
    l2_direction = l2.direction / _pnorm(l2.direction, q)  # feasible: ||w||_q = 1
    best["lower"], best["w"] = float(np.min(A @ l2_direction)), l2_direction

    def certify(pi):
        """Record the certificate of ``pi``; return ``(A w, ||A^T pi||_p)`` for its direction ``w``."""
        z = A.T @ pi
        upper = _pnorm(z, p)
        w = pnorm_link(z, p)
        w = w / _pnorm(w, q)
        values = A @ w
        if upper < best["upper"]:
            best["upper"], best["pi"] = upper, pi
        if np.min(values) > best["lower"]:
            best["lower"], best["w"] = float(np.min(values)), w
        return values, upper

    support = np.flatnonzero(start > 0)
    x = start[support]
    for _ in range(10 * (n + d)):
        support, x = _newton_on_support(A, p, support, x)
        pi = np.zeros(n)
        pi[support] = x
        values, upper = certify(pi)
        # Optimality: (A w)_i >= ||z||_p for every row, where (A w)_i = (A f_p(z))_i / ||z||_p.
        outside = np.setdiff1d(np.arange(n), support)
        if outside.size == 0 or best["upper"] - best["lower"] <= _EPS * best["upper"]:
            break
        j = outside[np.argmin(values[outside])]
        if values[j] >= upper * (1.0 - 1e-13):
            break
        support, x = np.append(support, j), np.append(x, 0.0)
    upper = max(best["upper"], best["lower"])  # the ends agree to rounding once the width closes
    return QNormMargin(q=q, p=p, lower=math.ldexp(best["lower"], exponent), upper=math.ldexp(upper, exponent),
                       direction=best["w"], dual=best["pi"])


def _phi_derivatives(z: np.ndarray, p: float):
    """``phi(z) = (1/2)||z||_p^2``, its gradient ``f_p(z)`` and its Hessian.

    The Hessian ``(p-1) N^(2-p) diag(|z|^(p-2)) + (2-p) N^(2-2p) g g^T`` (``N = ||z||_p``,
    ``g = sign(z)|z|^(p-1)``) is 0-homogeneous, so it is evaluated at ``z / max|z|``.
    """
    u = z / np.max(np.abs(z))
    norm = np.linalg.norm(u, ord=p)
    g = np.sign(u) * np.abs(u) ** (p - 1.0)
    hessian = (p - 1.0) * norm ** (2.0 - p) * np.diag(np.abs(u) ** (p - 2.0))
    hessian += (2.0 - p) * norm ** (2.0 - 2.0 * p) * np.outer(g, g)
    return 0.5 * _pnorm(z, p) ** 2, pnorm_link(z, p), hessian


def _newton_on_support(A: np.ndarray, p: float, support: np.ndarray, x: np.ndarray, steps: int = 100):
    """Minimise ``phi(A_S^T x)`` over ``{x >= 0, 1^T x = 1}`` by damped Newton steps on the affine hull,
    dropping the indices that reach 0. Returns the new ``(support, x)``."""
    for _ in range(steps):
        A_S = A[support]
        k = len(support)
        value, gradient_z, hessian = _phi_derivatives(A_S.T @ x, p)
        gradient = A_S @ gradient_z
        kkt = np.block([[A_S @ hessian @ A_S.T, np.ones((k, 1))], [np.ones((1, k)), np.zeros((1, 1))]])
        step = np.linalg.lstsq(kkt, np.concatenate([-gradient, [1.0 - np.sum(x)]]), rcond=None)[0][:k]
        slope = float((gradient - np.mean(gradient)) @ step)  # centred: sum(step) = 0 up to rounding
        if not np.all(np.isfinite(step)) or slope >= 0 or np.max(np.abs(step)) <= 4 * _EPS * np.max(x):
            break
        shrinking = np.flatnonzero(step < 0)
        ratios = x[shrinking] / -step[shrinking]
        limit = float(np.min(ratios)) if shrinking.size else np.inf  # the step that reaches a face
        t = min(1.0, limit)
        # Armijo backtracking while the decrease is resolvable; near the optimum (Newton decrement
        # below 1e-10 of the value, where rounding hides the decrease) full steps converge quadratically.
        while -slope > 1e-10 * value and t > 1e-12:
            if 0.5 * _pnorm(A_S.T @ (x + t * step), p) ** 2 <= value + 1e-4 * t * slope:
                break
            t *= 0.5
        x = np.clip(x + t * step, 0.0, None)
        if t == limit:
            x[shrinking[np.argmin(ratios)]] = 0.0
        keep = x > 0
        if not np.all(keep):
            support, x = support[keep], x[keep]
        x = x / np.sum(x)
        if t == 1.0 and -slope <= 1e-24 * value:  # converged: the next step is below rounding
            break
    return support, x
