r"""The exact soft-margin oracle for small problems, with a certified bracket (issue 19, item 2).

``A`` is the ``n x d`` matrix of signed rows ``a_i = y_i x_i``; ``c`` in ``[1/n, 1]`` the cap
(``c = 1 / (nu n)`` for the nu-SVM). The soft margin is the distance from 0 to the reduced convex
hull ``RCH_c = {A^T p : p in Delta_c}`` (Crisp & Burges 2000; Bennett & Bredensteiner 2000):

.. math::

    \gamma_c^* = \min_{p\in\Delta_c}\|A^\top p\|_2 ,

the QP :func:`soft_margin` solves exactly (an active-set method on the box-and-simplex constraints).

**Duality, exactly** (theory.md, section 1). For every ``w != 0`` and every ``p in Delta_c``,

.. math::

    \frac{\mathrm{CVaR}_c(Aw)}{\|w\|}\ \le\ \rho_c^*\ \le\ \gamma_c^*\ \le\ \|A^\top p\| ,
    \qquad \mathrm{CVaR}_c(z) = \min_{q\in\Delta_c} q^\top z ,

where ``rho* = max_{||w|| = 1} CVaR_c(Aw)`` is the best signed soft margin of a direction. The
first and last inequalities are the definitions; the middle one is ``CVaR_c(A w) <= q^T A w <=
||A^T q|| ||w||`` at the minimiser ``q`` of ``||A^T q||`` (Cauchy-Schwarz). Strong duality: if
``gamma* > 0`` then ``rho* = gamma*``, attained at ``w = A^T p* / ||A^T p*||``; if ``gamma* = 0``
(0 lies in the reduced hull: no direction has a positive CVaR of its margins, the nu-SVM's
solution is ``w = 0``) then ``rho* <= 0`` and is minus the depth of 0 inside the hull, so no
bracket ``[CVaR/||w||, ||A^T p||]`` can close: the oracle then reports ``lower = 0`` (a valid bound,
``gamma* >= 0``), ``upper ~ 0``, and the verdict ``"zero"``.

**Certificate.** The solver's ``p`` gives ``upper = ||A^T p||`` and the direction ``w = A^T p``;
``lower = max(0, CVaR_c(A w) / ||w||)``. At the optimum both equal ``gamma*`` (the KKT conditions
say exactly that ``p`` minimises ``q -> q^T A A^T p`` over Delta_c, i.e. ``p^T A w = CVaR_c(A w)``
and ``||w||^2 = CVaR_c(A w)``), so the bracket closes to rounding. The active set's last face is
refined from correctly rounded residuals; measured relative gap: 1e-16 .. 1e-13, up to ~1e-11
when the margin is 1e-4 of the row norms and the bounded rows' terms cancel in ``p^T A A^T p``.

**Verdict**, as :func:`gamedyn.certify.margins.max_margin` gives one: ``"positive"`` when the direction's
CVaR, from correctly rounded margins (exact products, ``math.fsum``), exceeds its rounding bound
(half an ulp on each margin, CVaR being monotone and 1-Lipschitz in the max norm), so
``gamma* >= rho* > 0`` for certain; ``"zero"`` when 0 is proved to lie in the
reduced hull (proved: :func:`reduced_hull_proof`, an exact check in rational arithmetic
of a point ``p in Delta_c`` with ``A^T p = 0``; only then); ``"undecided"`` otherwise, with the bracket.

The rows are scaled by a power of two first (exact), so every threshold is relative to the largest
row norm and ``soft_margin(2^k A) = 2^k soft_margin(A)`` exactly. Scipy sparse input is densified;
float32 is computed in float64.
"""

from __future__ import annotations

import math
from fractions import Fraction

import attrs
import numpy as np
import scipy.linalg
import scipy.sparse as sp

from gamedyn.certify.gordan import resolved_columns
from gamedyn.core.capped_simplex import (
    cap_from_nu,
    check_cap,
    cvar,
    smallest_cap,
    two_product,
)
from gamedyn.core.numerics import safe_norm
from gamedyn.core.validation import real_array

__all__ = ["SoftMargin", "reduced_hull_proof", "reduced_hulls_point", "soft_margin", "weak_duality_bracket"]

# the exact proof's budget: rows times columns of the rational system it solves (beyond: undecided)
EXACT_HULL_SIZE_CAP = 200_000

_EPS = float(np.finfo(np.float64).eps)
_FREE, _ZERO, _CAP = 0, 1, 2


def _rounding_factor(k: int) -> float:
    """``gamma_k = k u / (1 - k u)`` (Higham, Thm 3.1): a k-term dot product's relative rounding bound."""
    unit = _EPS / 2.0
    return k * unit / (1.0 - k * unit)


@attrs.frozen
class SoftMargin:
    """A certified bracket ``lower <= gamma_c* <= upper`` for the soft margin (up to rounding).

    Attributes
    ----------
    cap, nu : float
        The cap ``c`` and ``nu = 1 / (c n)``.
    lower : float
        ``max(0, cvar_margin)``: a lower bound on ``gamma*`` (weak duality; ``gamma* >= 0``).
    upper : float
        ``||A^T dual||``: an upper bound on ``gamma*`` (``dual`` is a point of Delta_c).
    cvar_margin : float
        ``CVaR_c(A direction)``, the signed soft margin of ``direction`` (``<= rho* <= gamma*``);
        ``nan`` when ``A^T dual = 0``.
    direction : ndarray or None
        A unit direction attaining ``cvar_margin``: ``A^T dual / ||A^T dual||`` or the same point
        solved on the dual's face (the sharper; None when ``A^T dual = 0``).
    dual : ndarray
        The solver's ``p in Delta_c``.
    verdict : {"positive", "zero", "undecided"}
        See the module docstring.
    iterations : int
        Active-set iterations.
    converged : bool
        Whether the KKT conditions held to rounding when the solver stopped.
    """

    cap: float
    nu: float
    lower: float
    upper: float
    cvar_margin: float
    direction: np.ndarray | None = attrs.field(repr=False)
    dual: np.ndarray = attrs.field(repr=False)
    verdict: str
    iterations: int
    converged: bool

    @property
    def gap(self) -> float:
        """``upper - lower``."""
        return self.upper - self.lower

    @property
    def relative_gap(self) -> float:
        """``(upper - lower) / upper`` (0 when ``upper = 0``)."""
        return 0.0 if self.upper == 0.0 else self.gap / self.upper

    @property
    def support(self) -> np.ndarray:
        """Rows with positive dual weight (the support vectors)."""
        return np.flatnonzero(self.dual > 0)

    @property
    def bounded(self) -> np.ndarray:
        """Rows at the cap (the bounded support vectors: margin at most the soft margin)."""
        return np.flatnonzero(self.dual >= self.cap)


def _dense_rows(A) -> np.ndarray:
    if sp.issparse(A):
        if np.dtype(A.dtype).kind not in "fiu":
            raise TypeError(f"A must be a real numeric 2-D array, got dtype {A.dtype}.")
        A = A.toarray()
    try:  # the one check of numbers (digit strings, booleans, complex, ragged lists refused by name)
        A = real_array(A, "A")
    except TypeError as error:
        raise TypeError(f"A must be a real numeric 2-D array: {error}") from None
    A = np.asarray(A, dtype=np.float64)
    if A.ndim != 2 or A.shape[0] < 1 or A.shape[1] < 1:
        raise ValueError(f"A must have a 2-D shape (n, d) with n, d >= 1, got {A.shape}.")
    if not np.all(np.isfinite(A)):
        raise ValueError("A contains NaN or infinite entries; remove or impute them first.")
    return A


def _scaled_rows(A: np.ndarray):
    """``(A 2^-e, e)`` with the largest row norm of ``A 2^-e`` in [1/2, 1) (``e = None`` for ``A = 0``)."""
    largest = float(np.max(np.abs(A)))
    if largest == 0.0:
        return A, None
    first = math.frexp(largest)[1]
    A = np.ldexp(A, -first)
    second = math.frexp(float(np.max(np.linalg.norm(A, axis=1))))[1]
    return np.ldexp(A, -second), first + second


def _householder_basis_products(B: np.ndarray):
    """For ``B`` (d x k), return ``(B N, apply)`` where the columns of ``N`` (k x (k-1)) are an
    orthonormal basis of ``{s : sum s = 0}`` (a Householder reflector sending 1 to -sqrt(k) e_1, its
    last k - 1 columns) and ``apply(y) = N y``."""
    k = B.shape[1]
    v = np.ones(k)
    v[0] += math.sqrt(k)
    scale = 2.0 / float(v @ v)
    BN = (B - scale * np.outer(B @ v, v))[:, 1:]

    def apply(y):
        full = np.concatenate([[0.0], y])
        return full - scale * v * float(v @ full)

    return BN, apply


def _active_set(A: np.ndarray, cap, max_iter: int, blocks: np.ndarray | None = None, start: np.ndarray | None = None):
    """Primal active-set method for ``min (1/2)||A^T p||^2`` over Delta_cap, or over a product of capped
    simplices: ``blocks`` (ints, one per row) splits the rows, each block's weights summing to 1 under its
    rows' caps (``cap`` a number, or one per row).

    The working set fixes coordinates at 0 or at the cap; on the free set ``F`` the equality-constrained
    subproblem ``min ||A^T p + A_F^T s||`` s.t. ``sum s = 0`` on each block is a least-squares problem in a
    basis of those sums' null space (a Householder basis per block; its minimum-norm solution when the free
    rows are affinely dependent). A step to its minimiser stops at the first bound it meets (which joins the
    working set); at a subproblem minimiser the multipliers ``g_i - tau_b`` (``g = A A^T p``, ``tau_b`` the
    common value of ``g`` on the block's free rows) decide: a coordinate at 0 with ``g_i < tau_b`` or at the
    cap with ``g_i > tau_b`` is released (the most violated first; a block with no free row releases its
    largest ``g`` at the cap and its smallest at 0 when they are out of order). Stops when none is violated
    beyond rounding. ``start``: a first point of the domain (its rows strictly inside free), default each
    block's centre.
    """
    n, d = A.shape
    caps = np.broadcast_to(np.asarray(cap, dtype=np.float64), (n,))
    blocks = np.zeros(n, dtype=np.int64) if blocks is None else np.asarray(blocks)
    members = [np.flatnonzero(blocks == b) for b in np.unique(blocks)]
    if start is None:
        p = np.empty(n)
        for rows in members:
            p[rows] = 1.0 / rows.size
    else:
        p = np.clip(np.asarray(start, dtype=np.float64), 0.0, caps)
    state = np.full(n, _FREE)
    state[p <= 0.0], state[p >= caps] = _ZERO, _CAP
    solved = False
    iterations = 0
    converged = False
    for iterations in range(1, max_iter + 1):
        z = A.T @ p
        free = np.flatnonzero(state == _FREE)
        if not solved:
            step = np.zeros(free.size)
            groups = [np.flatnonzero(blocks[free] == blocks[rows[0]]) for rows in members]
            groups = [group for group in groups if group.size >= 2]
            if groups:
                bases = [_householder_basis_products(A[free[group]].T) for group in groups]
                y = np.linalg.lstsq(np.hstack([basis for basis, _ in bases]), -z, rcond=None)[0]
                offset = 0
                for group, (basis, apply) in zip(groups, bases):
                    step[group] = apply(y[offset:offset + basis.shape[1]])
                    offset += basis.shape[1]
            if not groups or np.max(np.abs(step)) <= 4 * _EPS * max(float(np.max(caps[free])), float(np.max(p[free]))):
                solved = True
                continue
            current = p[free]
            ratios = np.full(free.size, np.inf)
            down, up = step < 0, step > 0
            ratios[down] = current[down] / -step[down]
            ratios[up] = (caps[free][up] - current[up]) / step[up]
            blocking = int(np.argmin(ratios))
            alpha = min(1.0, float(ratios[blocking]))
            p[free] = np.clip(current + alpha * step, 0.0, caps[free])
            if alpha < 1.0:
                index = free[blocking]
                if step[blocking] < 0:
                    p[index], state[index] = 0.0, _ZERO
                else:
                    p[index], state[index] = caps[index], _CAP
                solved = False
            else:
                solved = True
            _snap(p, state, caps)
            _restore_sum(p, state, caps, members)
            continue
        # a subproblem minimiser: check the multipliers, block by block
        g = A @ z
        scale = float(np.linalg.norm(z)) + _EPS
        tolerance = 8 * (d + 2) * _EPS * scale
        worst, release = tolerance, None
        for rows in members:
            free_rows = rows[state[rows] == _FREE]
            zeros, at_caps = rows[state[rows] == _ZERO], rows[state[rows] == _CAP]
            if free_rows.size:
                tau = float(np.mean(g[free_rows]))
                if zeros.size and tau - float(np.min(g[zeros])) > worst:  # raising p_i from 0 lowers the objective
                    worst, release = tau - float(np.min(g[zeros])), [zeros[int(np.argmin(g[zeros]))]]
                if at_caps.size and float(np.max(g[at_caps])) - tau > worst:  # lowering p_i from c lowers it
                    worst, release = float(np.max(g[at_caps])) - tau, [at_caps[int(np.argmax(g[at_caps]))]]
            elif zeros.size and at_caps.size:  # a vertex of the block: optimal iff max g at the cap <= min g at 0
                gap = float(np.max(g[at_caps])) - float(np.min(g[zeros]))
                if gap > worst:
                    worst, release = gap, [at_caps[int(np.argmax(g[at_caps]))], zeros[int(np.argmin(g[zeros]))]]
        if release is None:
            converged = True
            break
        state[release] = _FREE
        solved = False
    return p, iterations, converged


def _accurate_matvec(M: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``M v`` with every entry correctly rounded: exact products (Dekker) summed by ``math.fsum``
    (rows of ``M`` scaled to norms below 1, so no product overflows; small problems only)."""
    out = np.empty(M.shape[0])
    for i in range(M.shape[0]):
        product, error = two_product(M[i], v)
        out[i] = math.fsum(np.concatenate([product, error]).tolist())
    return out


def _refine(A: np.ndarray, cap: float, p: np.ndarray, rounds: int = 3) -> np.ndarray:
    """Iterative refinement on the final face: the subproblem's correction from the correctly rounded
    residual ``A^T p``, kept while it stays inside the face and does not raise ``||A^T p||``."""
    free = np.flatnonzero((p > 0) & (p < cap))
    if free.size < 2:
        return p
    BN, apply = _householder_basis_products(A[free].T)
    best = safe_norm(_accurate_matvec(A.T, p))
    for _ in range(rounds):
        z = _accurate_matvec(A.T, p)
        candidate = p.copy()
        candidate[free] += apply(np.linalg.lstsq(BN, -z, rcond=None)[0])
        drift = math.fsum(candidate) - 1.0
        candidate[free] -= drift / free.size
        if np.any(candidate[free] <= 0) or np.any(candidate[free] >= cap):
            break
        value = safe_norm(_accurate_matvec(A.T, candidate))
        if value > best:
            break
        p, best = candidate, value
    return p


def _complete_vertex(A: np.ndarray, cap: float, p: np.ndarray) -> np.ndarray:
    """A vertex with every coordinate at a bound whose caps leave ``r = 1 - |U| c > 0`` (``1/c`` not an
    integer in exact arithmetic, e.g. ``c = fl(1/3)``, ``r = 2^-54``): ``r`` goes to the row at 0 with
    the smallest ``g_i = (A A^T p)_i``, as the linear minimiser of ``g`` over Delta_c places it."""
    if np.any((p > 0) & (p < cap)):
        return p
    at_cap = np.flatnonzero(p >= cap)
    remainder = float(1 - at_cap.size * Fraction(cap))
    zeros = np.flatnonzero(p <= 0)
    if remainder <= 0.0 or zeros.size == 0:
        return p
    g = A[zeros] @ (A.T @ p)
    p = p.copy()
    p[zeros[int(np.argmin(g))]] = remainder
    return p


def _snap(p: np.ndarray, state: np.ndarray, caps: np.ndarray) -> None:
    """Free coordinates within rounding of a bound join it: a step that blocks on one coordinate
    can take others to a bound too in exact arithmetic (at c = 1 reaching the cap empties the rest)."""
    free = np.flatnonzero(state == _FREE)
    if free.size == 0:
        return
    level = 8 * _EPS * max(float(np.max(caps[free])), float(np.max(p[free])))
    low = free[p[free] <= level]
    high = free[p[free] >= caps[free] - level]
    p[low], state[low] = 0.0, _ZERO
    p[high], state[high] = caps[high], _CAP


def _polished_directions(A: np.ndarray, cap: float, p: np.ndarray) -> list:
    """Directions for the lower end solved on the final face itself, not formed as ``A^T p``.

    At the optimum ``w* = A^T p*`` has equal margins ``a_i . w* = tau`` on the free rows ``F`` and
    ``w* - b`` in their span, ``b = c sum_{U} a_u`` (the rows at the cap), so with ``A_F^T = Q R``:
    ``w* = (I - Q Q^T) b + tau Q R^{-T} 1`` and ``tau = (1 - |U| c + 1^T R^{-1} Q^T b) / ||R^{-T} 1||^2``
    (the weights' sum). Triangular solves keep the direction accurate when the margin is small
    against the rows (``A^T p`` then cancels; this is the hard-margin oracle's polish, generalised).
    Empty when the free rows are affinely dependent (more than ``d``) or none is free.
    """
    d = A.shape[1]
    free = np.flatnonzero((p > 0) & (p < cap))
    at_cap = np.flatnonzero(p >= cap)
    if not 1 <= free.size <= d:
        return []
    Q, R = scipy.linalg.qr(A[free].T, mode="economic")
    if np.min(np.abs(np.diag(R))) == 0.0:
        return []
    with np.errstate(all="ignore"):
        y = scipy.linalg.solve_triangular(R, np.ones(free.size), trans="T")
        u = Q @ y  # the minimum-norm solution of A_F u = 1
        if at_cap.size == 0:
            return [u]
        b = cap * _accurate_matvec(A[at_cap].T, np.ones(at_cap.size))
        qb = Q.T @ b
        mass = float(1 - at_cap.size * Fraction(cap))
        tau = (mass + float(np.sum(scipy.linalg.solve_triangular(R, qb)))) / float(y @ y)
        return [u, (b - Q @ qb) + tau * u]


def _restore_sum(p: np.ndarray, state: np.ndarray, caps: np.ndarray, members: list) -> None:
    """Spread the rounding drift of each block's sum over its free coordinates, staying in [0, cap]."""
    for rows in members:
        free = rows[state[rows] == _FREE]
        if free.size == 0:
            continue
        drift = math.fsum(p[rows]) - 1.0
        if drift != 0.0:
            p[free] = np.clip(p[free] - drift / free.size, 0.0, caps[free])


def soft_margin(A, nu=None, *, cap=None, max_iter: int | None = None) -> SoftMargin:
    r"""The exact soft margin ``gamma_c* = min_{p in Delta_c} ||A^T p||`` with a certified bracket.

    Parameters
    ----------
    A : array_like or scipy sparse, shape (n, d)
        Signed rows ``a_i = y_i x_i`` (densified; float32 computed in float64).
    nu : float in [1/n, 1], optional
        The nu of the nu-SVM; the cap is ``cap_from_nu(nu, n) = 1 / (nu n)``. ``nu = 1/n`` is the
        hard margin (``c = 1``), ``nu = 1`` the centroid ``A^T u_n``.
    cap : float in [1/n, 1], optional
        The cap directly (instead of ``nu``).
    max_iter : int, optional
        Active-set iterations (default ``20 (n + d) + 100``).

    Returns
    -------
    SoftMargin
        ``lower <= gamma* <= upper`` up to rounding, the direction, the dual, the verdict.

    Raises
    ------
    ValueError
        For a non-finite or empty ``A``, both or neither of ``nu`` and ``cap``, a ``nu`` or ``cap``
        out of range.
    TypeError
        For a non-numeric ``A`` or ``nu``.

    Examples
    --------
    Two rows ``(1, 0)`` and ``(0, 1)``: the hard margin is the distance to the segment, 1/sqrt(2);
    at ``nu = 1`` the reduced hull is the midpoint, the same point here.

    >>> result = soft_margin([[1.0, 0.0], [0.0, 1.0]], nu=1.0)
    >>> round(result.lower, 14), round(result.upper, 14), result.verdict
    (0.70710678118655, 0.70710678118655, 'positive')

    Opposite rows: 0 is in every reduced hull.

    >>> soft_margin([[1.0, 2.0], [-1.0, -2.0]], nu=1.0).verdict
    'zero'
    """
    A_input = _dense_rows(A)
    n, d = A_input.shape
    if (nu is None) == (cap is None):
        raise ValueError("pass exactly one of nu (in [1/n, 1]) and cap (in [1/n, 1]); e.g. soft_margin(A, nu=0.1).")
    if cap is None:
        cap = cap_from_nu(nu, n)
    else:
        cap = check_cap(cap)
        if cap < smallest_cap(n):
            raise ValueError(f"cap={cap!r} is below 1/n for n={n}: the capped simplex is empty; use cap >= "
                             f"{smallest_cap(n)!r}.")
    nu_value = 1.0 / (cap * n)
    if max_iter is None:
        max_iter = 20 * (n + d) + 100
    A, exponent = _scaled_rows(A_input)
    if exponent is None:  # A = 0: every point of the hull is 0
        dual = np.full(n, 1.0 / n)
        return SoftMargin(cap, nu_value, 0.0, 0.0, math.nan, None, dual, "zero", 0, True)
    dual, iterations, converged = _active_set(A, cap, max_iter)
    dual = _refine(A, cap, _complete_vertex(A, cap, dual))
    z = _accurate_matvec(A.T, dual)  # A^T p, each entry correctly rounded
    upper = safe_norm(z)  # the hypot way: z is as small as the margin (1e-200 of the rows does not underflow)
    if upper == 0.0:
        proved = reduced_hull_proof(A_input, cap)
        if proved is not None:  # gamma* = 0 exactly: the bracket [0, 0]
            return SoftMargin(cap, nu_value, 0.0, 0.0, math.nan, None, proved, "zero", iterations, converged)
        bound = _ldexp_rounded(_certified_upper(0.0, dual, cap, d), exponent, +1)  # (dual's distance from Delta_c)
        return SoftMargin(cap, nu_value, 0.0, bound, math.nan, None, dual, "undecided", iterations, converged)
    direction = z / upper
    margins = _accurate_matvec(A, direction)  # correctly rounded margins of the float direction
    value = cvar(margins, cap)
    for candidate in _polished_directions(A, cap, dual):
        norm = safe_norm(candidate)
        if not (math.isfinite(norm) and norm > 0.0):
            continue
        candidate = candidate / norm
        candidate_margins = _accurate_matvec(A, candidate)
        candidate_value = cvar(candidate_margins, cap)
        if candidate_value > value:
            direction, margins, value = candidate, candidate_margins, candidate_value
    # rigorous: each computed margin is within half an ulp (eps/2 relative) of the exact margin of
    # ``direction``; CVaR is monotone and 1-Lipschitz in the max norm; cvar is correctly rounded
    error = _EPS * float(np.max(np.abs(margins)))
    certified_positive = value * (1.0 - 2 * _EPS) - error > 0.0
    if certified_positive:
        verdict = "positive"
    elif reduced_hull_proof(A_input, cap) is not None:
        verdict = "zero"  # proved: an exact point of Delta_c with A^T p = 0
    else:
        verdict = "undecided"
    # The certified rounding step (issue 30: lower exceeded upper by up to 5.9e-16 relative, both being
    # rounded values of ends that meet at the optimum): the lower end rounded down by the margins' and
    # the direction's norm's rounding, the upper end rounded up by the norm's and the dual's distance
    # from Delta_c, so that lower <= gamma* <= upper for the rows' exact values, hence lower <= upper.
    lower = _certified_lower(value, error, direction)
    upper = _certified_upper(upper, dual, cap, d)
    return SoftMargin(
        cap=cap, nu=nu_value,
        lower=_ldexp_rounded(lower, exponent, -1), upper=_ldexp_rounded(upper, exponent, +1),
        cvar_margin=math.ldexp(value, exponent), direction=direction, dual=dual,
        verdict=verdict, iterations=iterations, converged=converged,
    )


def reduced_hulls_point(A, caps, blocks=None, *, start=None, max_iter: int | None = None) -> np.ndarray:
    r"""The minimiser ``p`` of ``||A^T p||`` over a product of capped simplices, by :func:`soft_margin`'s
    active-set method: float64 and uncertified, a start for a solver whose bracket is the proof.

    With ``blocks`` the two classes of a game's signed rows this is the nu-SVM with a free bias, the
    distance between the classes' reduced hulls (:class:`gamedyn.certify.dual.TwoHulls`, whose points
    are this ``p`` halved); without, the one reduced hull of :func:`soft_margin`.

    Parameters
    ----------
    A : array_like or scipy sparse, shape (n, d)
        Signed rows (densified; scaled by a power of two inside, which leaves the minimiser unchanged).
    caps : float or array_like, shape (n,)
        Each row's cap, at least ``1 / (its block's rows)`` and at most 1.
    blocks : array_like of int, shape (n,), optional
        The block of each row (default one block); each block's weights sum to 1.
    start : array_like, shape (n,), optional
        A first point of the domain (e.g. an iterative solver's); default each block's centre.
    max_iter : int, optional
        Active-set iterations (default ``20 (n + d) + 100``).

    Returns
    -------
    ndarray, shape (n,)
        The point (each block summing to 1 up to rounding, each entry in ``[0, cap]``).

    Raises
    ------
    ValueError
        For non-finite or empty ``A``, caps out of range for their blocks, shapes that do not match.

    Examples
    --------
    Two classes on a line, ``x = 1, 2`` against ``x = -1``: the hulls' nearest points are 1 and -1.

    >>> import numpy as np
    >>> p = reduced_hulls_point([[1.0], [2.0], [1.0]], 1.0, blocks=[0, 0, 1])
    >>> p.round(12).tolist()
    [1.0, 0.0, 1.0]
    """
    A = _dense_rows(A)
    n, d = A.shape
    caps = np.broadcast_to(np.asarray(caps, dtype=np.float64), (n,)).copy()
    blocks = np.zeros(n, dtype=np.int64) if blocks is None else np.asarray(blocks)
    if blocks.shape != (n,) or blocks.dtype.kind not in "iub":
        raise ValueError(f"blocks must hold one integer per row, shape ({n},); got {blocks.dtype} {blocks.shape}.")
    for block in np.unique(blocks):
        rows = blocks == block
        if not np.all((caps[rows] * np.count_nonzero(rows) >= 1 - 4 * _EPS) & (caps[rows] <= 1.0)):
            raise ValueError(f"block {block}'s caps must be in [1 / {np.count_nonzero(rows)}, 1] (1 / its rows); got "
                             f"{np.unique(caps[rows]).tolist()}.")
        caps[rows] = np.maximum(caps[rows], 1.0 / np.count_nonzero(rows))
    if start is not None:
        start = np.asarray(start, dtype=np.float64)
        if start.shape != (n,) or not np.all(np.isfinite(start)):
            raise ValueError(f"start must be a finite point of shape ({n},); got shape {start.shape}.")
    scaled, exponent = _scaled_rows(A)
    if exponent is None:  # A = 0: every point is a minimiser
        return np.array([1.0 / np.count_nonzero(blocks == block) for block in blocks])
    point, _, _ = _active_set(scaled, caps, 20 * (n + d) + 100 if max_iter is None else int(max_iter), blocks, start)
    return point


def _ldexp_rounded(value: float, exponent: int, direction: int) -> float:
    """``value * 2^exponent``, rounded down (-1) or up (+1) when the result is not exact (subnormal)."""
    result = math.ldexp(value, exponent)
    if math.isfinite(value) and math.ldexp(result, -exponent) != value:
        result = math.nextafter(result, direction * math.inf)
    return result


def _certified_lower(value: float, error: float, direction: np.ndarray) -> float:
    """``max(0, CVaR_c(A d) / ||d||)`` rounded down: ``value`` (the correctly rounded CVaR of the correctly
    rounded margins) less ``error`` (their rounding) and its own rounding, divided by an upper bound on the
    float direction's norm (1 up to its rounding)."""
    exact_low = value - error - abs(value) * 2 * _EPS
    if not exact_low > 0.0:
        return 0.0
    norm = math.fsum(float(v) * float(v) for v in direction)  # (the direction is a unit vector up to rounding)
    norm_bound = math.sqrt(norm) * (1.0 + 4 * _EPS)
    return math.nextafter(exact_low / norm_bound, -math.inf)


def _certified_upper(upper: float, dual: np.ndarray, cap: float, d: int) -> float:
    """``||A^T p||`` rounded up to bound ``min_{q in Delta_c} ||A^T q||`` for the rows' exact values: the norm of
    the correctly rounded ``z`` is within ``(d + 4) eps`` of ``||A^T p||`` (plus the underflow of entries);
    ``p`` is within ``||p - q||_1 <= drift + 2 outside`` of a point ``q`` of Delta_c (exact sums: its sum's
    drift from 1 and its mass outside ``[0, c]``), which moves ``A^T p`` by at most that times the largest
    row norm (at most 1: the rows are scaled so)."""
    exact_cap = Fraction(cap)
    total = sum((Fraction(float(v)) for v in dual), Fraction(0))
    outside = sum((max(Fraction(0), -Fraction(float(v))) + max(Fraction(0), Fraction(float(v)) - exact_cap)
                   for v in dual), Fraction(0))
    distance = float(abs(total - 1) + 2 * outside) * (1.0 + (d + 8) * _EPS)  # (row norms <= 1 up to rounding)
    bound = (upper * (1.0 + (d + 4) * _EPS) + math.sqrt(d) * 2.0 ** -1074 + distance) * (1.0 + 2 * _EPS)
    return math.nextafter(bound, math.inf)


def weak_duality_bracket(A, cap: float, w, p) -> tuple[float, float]:
    """``(CVaR_c(A w) / ||w||, ||A^T p||)`` for any ``w != 0`` and any ``p`` in Delta_c: the bracket
    around ``gamma_c*`` a pair of iterates certifies (the first may be negative; ``gamma* >= 0``).

    >>> weak_duality_bracket([[1.0, 0.0], [0.0, 1.0]], 1.0, [1.0, 1.0], [0.5, 0.5])
    (0.7071067811865475, 0.7071067811865476)
    """
    A = _dense_rows(A)
    cap = check_cap(cap)
    w = np.asarray(w, dtype=np.float64)
    p = np.asarray(p, dtype=np.float64)
    norm = safe_norm(w)
    if norm == 0.0:
        raise ValueError("w is the zero vector, whose normalised CVaR is undefined; pass a nonzero w.")
    return cvar(A @ w, cap) / norm, safe_norm(A.T @ p)


# ------------------------------------------------------------------------ 0 in the reduced hull, proved


def _exact_solve(rows: list, rhs: list):
    """One exact solution of ``M x = b`` (lists of Fractions, fraction-free Gauss-Jordan), free unknowns 0;
    None when the system is inconsistent."""
    m, k = len(rows), len(rows[0]) if rows else 0
    M = [row[:] + [value] for row, value in zip(rows, rhs)]
    pivots = []
    r = 0
    for col in range(k):
        pivot = next((i for i in range(r, m) if M[i][col] != 0), None)
        if pivot is None:
            continue
        M[r], M[pivot] = M[pivot], M[r]
        head = M[r][col]
        M[r] = [value / head for value in M[r]]
        for i in range(m):
            if i != r and M[i][col] != 0:
                factor = M[i][col]
                M[i] = [a - factor * b for a, b in zip(M[i], M[r])]
        pivots.append(col)
        r += 1
        if r == m:
            break
    if any(M[i][k] != 0 for i in range(r, m)):  # 0 = nonzero: inconsistent
        return None
    x = [Fraction(0)] * k
    for i, col in enumerate(pivots):
        x[col] = M[i][k]
    return x


def _proof_from_vertex(A: np.ndarray, cap: float, x: np.ndarray, tolerance: float):
    """The exact point of Delta_c with A^T p = 0 on the face of the LP vertex ``x``, or None."""
    n, d = A.shape
    at_cap = np.flatnonzero(x >= cap * (1.0 - tolerance))
    free = np.flatnonzero((x > tolerance * cap) & (x < cap * (1.0 - tolerance)))
    exact_cap = Fraction(cap)
    mass = 1 - at_cap.size * exact_cap
    if mass < 0 or (free.size == 0 and mass != 0):
        return None
    columns = [[Fraction(float(v)) for v in A[i]] for i in free]  # each free row a_i, exactly
    capped_sum = [sum((Fraction(float(A[i, j])) for i in at_cap), Fraction(0)) * exact_cap for j in range(d)]
    if free.size:
        rows = [[columns[f][j] for f in range(free.size)] for j in range(d)] + [[Fraction(1)] * free.size]
        solution = _exact_solve(rows, [-value for value in capped_sum] + [mass])
        if solution is None or any(value < 0 or value > exact_cap for value in solution):
            return None
    else:
        solution = []
        if any(value != 0 for value in capped_sum):
            return None
    # the proof, checked in full: p >= 0, p <= c, sum p = 1, A^T p = 0, every term exact
    p = [Fraction(0)] * n
    for i in at_cap:
        p[int(i)] = exact_cap
    for f, i in enumerate(free):
        p[int(i)] = solution[f]
    support = [i for i in range(n) if p[i] != 0]
    if sum(p) != 1 or any(value < 0 or value > exact_cap for value in p):
        return None
    for j in range(d):
        if sum((p[i] * Fraction(float(A[i, j])) for i in support), Fraction(0)) != 0:
            return None
    return np.array([float(value) for value in p])


def reduced_hull_proof(A, cap: float):
    r"""A proved point ``p`` of :math:`\Delta_c` with :math:`A^\top p = 0` (0 in the reduced convex hull), or None.

    A vertex of the feasibility LP ``{A^T p = 0, sum p = 1, 0 <= p <= c}`` (HiGHS dual simplex) names a
    face: rows at the cap, rows at 0, and at most ``d + 1`` free rows; the free weights are then solved
    **exactly** in rational arithmetic on the rows' float64 values (dyadic rationals) and the whole
    proof (``0 <= p_i <= c``, ``sum p = 1``, every coordinate of ``A^T p`` zero) checked term by term.
    When the vertex fails the check, the LP runs once more on
    :func:`gamedyn.certify.gordan.resolved_columns` (columns dependent up to rounding, as
    ``make_classification``'s redundant features, hide a direction from the LP's tolerance; the transform
    leaves ``{p : A^T p = 0}`` unchanged, and the check is on A itself).
    No tolerance decides: when the LP's vertex is not exact on its face, or the problem exceeds
    :data:`EXACT_HULL_SIZE_CAP` (rows times columns of the rational system), the answer is None
    (undecided), never a wrong "zero".

    Parameters
    ----------
    A : array_like or sparse, shape (n, d)
        The signed rows.
    cap : float in [1/n, 1]

    Returns
    -------
    ndarray or None
        The proved ``p`` (its entries rounded to float64 after the exact check), or None.

    Examples
    --------
    >>> reduced_hull_proof([[1.0, 2.0], [-1.0, -2.0], [3.0, 0.0]], 0.5).tolist()
    [0.5, 0.5, 0.0]
    >>> print(reduced_hull_proof([[1.0, 0.0], [0.0, 1.0]], 1.0))
    None
    """
    import scipy.optimize  # here, not at import: a first import loads no optimiser
    A = _dense_rows(A)
    cap = check_cap(cap)
    n, d = A.shape
    if Fraction(cap) * n < 1:
        raise ValueError(f"cap={cap!r} is below 1/n for n={n}: the capped simplex is empty.")
    if n * (d + 1) > EXACT_HULL_SIZE_CAP:
        return None
    # HiGHS's feasibility tolerance is absolute (about 1e-7): each coordinate's equation sum_i p_i a_ij = 0 is
    # solved on its column scaled by a power of two to max |a_ij| in [1/2, 1) (the same equation; a zero
    # column is no equation), else rows of length 1e-9 give it "vertices" 1e-9 away from any proof.
    peaks = np.max(np.abs(A), axis=0)
    kept = peaks > 0
    lp_rows = np.ldexp(A[:, kept], -np.frexp(peaks[kept])[1])

    def vertex(rows):
        result = scipy.optimize.linprog(
            np.zeros(n), A_eq=np.vstack([rows.T, np.ones((1, n))]), b_eq=np.concatenate([np.zeros(rows.shape[1]), [1.0]]),
            bounds=[(0.0, cap)] * n, method="highs-ds")
        if result.status != 0 or result.x is None:
            return None
        x = np.clip(np.asarray(result.x, dtype=np.float64), 0.0, cap)
        for tolerance in (1e-9, 1e-12, 1e-6, 0.0):  # (0: a free weight within 1e-16 of the cap, e.g. 1 - 2 fl(1/3))
            proof = _proof_from_vertex(A, cap, x, tolerance)
            if proof is not None:
                return proof
        return None

    proof = vertex(lp_rows)
    if proof is None:  # columns dependent up to rounding hide a direction from the LP: once more, brought out
        resolved = resolved_columns(lp_rows)
        proof = None if resolved is None else vertex(resolved)
    return proof
