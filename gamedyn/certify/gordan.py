"""Proofs of Gordan's alternative for :mod:`gamedyn.certify.certificates`: 0 lies in the convex hull of rows.

A distribution ``lambda`` with ``sum_i lambda_i a_i = 0`` is accepted only when it is proved for the
rows' float64 values (dyadic rationals, taken exactly): a verified solve with Rump's a-posteriori
bound, an exact integer elimination (Bareiss), or the simplex method in exact rational arithmetic,
each within a stated cap (the module's ``*_CAP`` constants, read at each call). Imported lazily, when a
proof is asked for.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import scipy.linalg

from gamedyn.arrays.operators import dense_rows
from gamedyn.core.capped_simplex import two_product
from gamedyn.core.numerics import TINY, UNIT64, rounding_factor
from gamedyn.core.validation import check_matrix, check_vector

__all__ = ["DEPENDENT_BELOW", "EXACT_LP_SIZE_CAP", "EXACT_LP_WORK_CAP", "EXACT_WORK_CAP", "VERIFIED_ROWS_CAP", "find_witness",
           "gordan_proof", "resolved_columns"]

#: The verified float64 solve of a square support system runs up to this many rows (support rows =
#: coordinates + 1). Measured on the 2-core machine (one BLAS thread): 0.007 s at 129 rows, 0.05 s
#: at 257, 0.2 s at 513, 1.3 s at 1025.
VERIFIED_ROWS_CAP = 1025

#: The exact integer elimination runs only while its estimated work, rank^2 * rows * (B/64)^2 with
#: B = rank * (entry bits + log2 rows) the bit length its numbers reach, is at most this. Measured
#: on the 2-core machine: 0.5e9 to 2e9 units a second, so at most about 2 s: 56 rows of random
#: float64 entries (6.7e8 units) take 1.4 s, 100 rows of 7-bit integers (9.4e8) 1.1 s; beyond the
#: cap the support is left undecided.
EXACT_WORK_CAP = 1e9

#: The exact simplex (Phase 1 in rational arithmetic, Bland's rule), the last resort when the float
#: LP's vertex fails the exact check, runs on at most this many rows x (coordinates + 1) ...
EXACT_LP_SIZE_CAP = 512
#: ... and stops, undecided, once its arithmetic (each updated tableau entry counted as
#: (1 + bits / 64)^2) exceeds this. Measured on the 2-core machine under load: 1e7 to 2.7e7 units a
#: second, so at most 1 to 3 s; 40 rows x 11 coordinates of random floats take 5.7e6 units (0.6 s),
#: 100 x 5 with entries spanning 2^-2000..1 3.3e6 (0.15 s); 40 x 11 spanning 2^-300..1 (1.3e8) is beyond.
EXACT_LP_WORK_CAP = 3e7


#: A column is resolved by :func:`resolved_columns` when pivoted QR leaves it a remainder below this
#: fraction of the largest (the LP's feasibility tolerance, about 1e-7 absolute on columns of unit scale,
#: cannot see such a direction).
DEPENDENT_BELOW = 1e-6


def resolved_columns(rows: np.ndarray) -> np.ndarray | None:
    r"""``rows T`` for an invertible T that brings out directions the float LP cannot see, or None when there are none.

    Data often hold a column that is a linear combination of others in real arithmetic (a feature
    computed from features: scikit-learn's ``make_classification`` makes ``n_redundant`` of them), rounded
    to float64. Exactly, the rows then span every coordinate, and a proof that 0 lies in a (reduced) hull
    needs a support of ``d + 1`` rows that balance in the rounding-sized direction too; an LP with an
    absolute tolerance of 1e-7 sees the column as dependent, returns a vertex one row short, and the exact
    check fails (undecided). The transform: pivoted QR picks the columns whose remainder is below
    :data:`DEPENDENT_BELOW` of the largest, each is replaced by its residual ``c_j - C_I m_j`` against the
    independent columns ``C_I`` (``m_j`` a float least-squares fit: any ``m_j`` keeps T unit-triangular,
    hence invertible) computed with error-free products and sums (Dekker, Knuth: the residual of rounding
    size to about 1e-15 relative), then scaled to a largest entry of 1. Since T is invertible,
    ``{p : rows^T p = 0}`` is unchanged: the LP on ``rows T`` names the support, and the proof is checked
    exactly on the original rows.

    Parameters
    ----------
    rows : numpy.ndarray, shape (n, d)
        Finite float64 rows.

    Returns
    -------
    numpy.ndarray or None
        The transformed rows (a new array), or None when no column is dependent up to
        :data:`DEPENDENT_BELOW` (the LP on ``rows`` already sees every direction).

    Examples
    --------
    >>> import numpy as np
    >>> rows = np.random.default_rng(0).standard_normal((6, 2))
    >>> rows = np.column_stack([rows, 0.1 * rows[:, 0] + 0.7 * rows[:, 1]])  # dependent, up to rounding
    >>> resolved = resolved_columns(rows)  # one column replaced by its residual, of rounding size, scaled to 1
    >>> int(np.linalg.matrix_rank(rows)), int(np.linalg.matrix_rank(resolved)), int(np.sum(np.abs(resolved).max(axis=0) == 1))
    (2, 3, 1)
    >>> resolved_columns(rows[:, :2]) is None
    True
    """
    n, d = rows.shape
    if n < 2 or d < 2:
        return None
    peaks = np.max(np.abs(rows), axis=0)  # columns to a largest entry in [1/2, 1) (exact; no product overflows)
    rows = np.ldexp(rows, -np.frexp(np.where(peaks > 0, peaks, 1.0))[1])
    R, pivots = scipy.linalg.qr(rows, mode="r", pivoting=True)
    diagonal = np.abs(np.diag(R))
    if diagonal.size == 0 or diagonal[0] == 0:
        return None
    rank = int(np.count_nonzero(diagonal > diagonal[0] * DEPENDENT_BELOW))
    if rank >= d:
        return None
    independent, dependent = pivots[:rank], pivots[rank:]
    fit = np.linalg.lstsq(rows[:, independent], rows[:, dependent], rcond=None)[0]  # (rank, deps)
    total = rows[:, dependent].copy()
    carried = np.zeros_like(total)
    for k, column in enumerate(independent):  # total + carried = c_j - C_I m_j, error-free until the last sum
        product, error = two_product(np.broadcast_to(rows[:, column][:, None], total.shape), -fit[k][None, :])
        summed = total + product
        virtual = summed - total
        carried += ((total - (summed - virtual)) + (product - virtual)) + error
        total = summed
    residual = total + carried
    peaks = np.max(np.abs(residual), axis=0)
    out = rows.copy()
    out[:, dependent] = np.divide(residual, peaks, out=np.zeros_like(residual), where=peaks > 0)
    return out


def _integer_rows(rows: np.ndarray):
    """Each float64 row as ``a_i = 2^shift_i b_i`` with ``b_i`` an integer vector (exact).

    Returns ``(b, shifts)``: ``b`` an object array of Python ints (s, d) and ``shifts`` (s,) ints.
    """
    mantissa, exponent = np.frexp(rows)
    m = (mantissa * 9007199254740992.0).astype(np.int64)  # 2^53 |mantissa| < 2^53: exact
    e = exponent.astype(np.int64) - 53
    nonzero = m != 0
    low = np.where(nonzero, m & -m, 1)  # the lowest set bit: strip trailing zeros
    v = np.frexp(low.astype(np.float64))[1].astype(np.int64) - 1
    m = np.where(nonzero, m >> v, 0)
    e = e + v
    big = np.iinfo(np.int64).max
    shifts = np.where(nonzero, e, big).min(axis=1)
    shifts = np.where(shifts == big, 0, shifts)
    lift = np.where(nonzero, e - shifts[:, None], 0)
    b = np.empty(rows.shape, dtype=object)
    for i in range(rows.shape[0]):
        b[i] = [int(a) << int(k) for a, k in zip(m[i], lift[i])]
    return b, [int(t) for t in shifts]


def _exact_work(s: int, equations: int, bits: int) -> float:
    rank = min(s, equations)
    reach = rank * (bits + math.log2(max(s, 2)))
    return float(rank) ** 2 * s * max(1.0, reach / 64.0) ** 2


def _exact_null_proof(rows: np.ndarray, guess: np.ndarray, guess_exponents: np.ndarray):
    """An exact proof that 0 is in conv(rows): ``lambda`` (float64, sums to 1) or None.

    The rows (s, d), float64, are written as integers times powers of two; a fraction-free (Bareiss)
    elimination of the equations ``sum_i x_i b_i = 0`` gives the integer null vectors of the pivot
    system (Cramer); with more than one free unknown the combination with the free values of
    ``guess * 2^guess_exponents`` (the LP's weights) is tried too. A candidate is accepted only when
    it is >= 0, nonzero and satisfies every equation in exact integer arithmetic (the proof). None
    when no candidate passes, or when the estimated work exceeds
    :data:`EXACT_WORK_CAP` (estimated from the float exponents first, before any
    integer is formed).
    """
    s = rows.shape[0]
    used = np.flatnonzero(np.any(rows != 0, axis=0))
    rows = rows[:, used]
    exponents = np.frexp(rows)[1]
    nonzero = rows != 0
    spread = (np.max(np.where(nonzero, exponents, -(1 << 30)), axis=1)
              - np.min(np.where(nonzero, exponents, 1 << 30), axis=1))
    if _exact_work(s, min(used.size, s + 8), 54 + int(np.max(spread))) > EXACT_WORK_CAP:
        return None
    peaks = np.max(np.abs(rows), axis=1)
    normalised = rows / np.where(peaks > 0, peaks, 1.0)[:, None]
    if normalised.shape[1] > 1:
        _, order = scipy.linalg.qr(normalised, mode="r", pivoting=True)
    else:
        order = np.arange(normalised.shape[1])
    equations = order[: min(len(order), s + 8)]
    b, shifts = _integer_rows(rows)
    bits = max((abs(value).bit_length() for value in b.ravel()), default=1)
    if _exact_work(s, len(equations), bits) > EXACT_WORK_CAP:
        return None
    G = b[:, equations].T.copy()  # equations x unknowns
    E = G.shape[0]
    previous, row, pivots = 1, 0, []
    for column in range(s):
        if row == E:
            break
        nonzero = np.flatnonzero(G[row:, column] != 0)
        if nonzero.size == 0:
            continue
        k = row + int(nonzero[0])
        if k != row:
            G[[row, k]] = G[[k, row]]
        pivot = G[row, column]
        if row + 1 < E and column + 1 < s:
            G[row + 1:, column + 1:] = (G[row + 1:, column + 1:] * pivot
                                        - np.multiply.outer(G[row + 1:, column], G[row, column + 1:])) // previous
        G[row + 1:, column] = 0
        previous = pivot
        pivots.append(column)
        row += 1
    rank = len(pivots)
    if rank == s:
        return None  # only x = 0 solves the equations: no proof on these rows
    free = [c for c in range(s) if c not in set(pivots)]
    D = G[rank - 1, pivots[-1]] if rank else 1
    vectors = []
    for f in free:
        x = np.zeros(s, dtype=object)
        x[f] = D
        for i in range(rank - 1, -1, -1):
            c = pivots[i]
            total = -G[i, f] * D
            for later in pivots[i + 1:]:
                if x[later]:
                    total -= G[i, later] * x[later]
            quotient, remainder = divmod(total, G[i, c])
            if remainder:
                return None  # cannot happen for a correct elimination; refuse rather than guess
            x[c] = quotient
        vectors.append(x)
    candidates = list(vectors)
    if len(free) > 1 and any(guess[f] > 0 for f in free):
        # the guess in the integer rows' units, x_f ~ lambda_f 2^shift_f (a_i = 2^shift_i b_i), exactly;
        # each vector has x_f = D at its own free unknown and 0 at the others
        values = [Fraction(max(float(guess[f]), 0.0)) * Fraction(2) ** (int(guess_exponents[f]) + shifts[f])
                  for f in free]
        common = max(value.denominator for value in values)  # powers of two: the largest is a multiple of all
        combination = np.zeros(s, dtype=object)
        for value, vector in zip(values, vectors):
            combination = combination + (value.numerator * (common // value.denominator)) * vector
        candidates.insert(0, combination)
    for x in candidates:
        if any(value < 0 for value in x) and any(value > 0 for value in x):
            continue
        if all(value <= 0 for value in x):
            x = -x
        if not any(value > 0 for value in x):
            continue
        if any(value != 0 for value in x.dot(b)):  # every equation, exactly
            continue
        # sum_i x_i b_i = sum_i x_i 2^-shift_i a_i = 0: lambda_i ~ x_i 2^-shift_i, normalised to sum 1
        # (the quotient of two Python ints is correctly rounded)
        top = max(shifts)
        numerators = [int(value) << (top - shift) for value, shift in zip(x, shifts)]
        total = sum(numerators)
        return np.array([numerator / total for numerator in numerators], dtype=np.float64)
    return None


def _exact_phase_one(rows: np.ndarray):
    """An exact LP: ``x >= 0``, ``sum x = 1``, ``sum_i x_i b_i = 0`` for the rows written as integers
    ``b_i = a_i 2^-shift_i``, by the Phase 1 simplex in rational arithmetic with Bland's rule (which
    terminates). Returns the distribution ``lambda ~ x_i 2^-shift_i`` (float64) when feasible, None
    when infeasible or beyond the caps :data:`EXACT_LP_SIZE_CAP` and
    :data:`EXACT_LP_WORK_CAP`. Complete on the rows it is given."""
    s = rows.shape[0]
    used = np.flatnonzero(np.any(rows != 0, axis=0))
    m = used.size + 1
    if s * m > EXACT_LP_SIZE_CAP:
        return None
    b, shifts = _integer_rows(rows[:, used])
    # rows of the tableau: the equations sum_i b_ij x_i = 0, then sum_i x_i = 1; right-hand side last.
    # The artificial variables (one per row, the starting basis) are implicit: one that leaves never
    # re-enters in Phase 1, so its column is not needed.
    tableau = [[Fraction(int(b[i, j])) for i in range(s)] + [Fraction(0)] for j in range(used.size)]
    tableau.append([Fraction(1)] * s + [Fraction(1)])
    basis = [s + r for r in range(m)]
    cost = [-sum((row[j] for row in tableau), Fraction(0)) for j in range(s)]  # reduced costs of min sum(artificials)
    work = 0.0  # the arithmetic done, counted as each updated entry's (1 + bits / 64)^2: deterministic
    while True:
        entering = next((j for j in range(s) if cost[j] < 0), None)
        if entering is None:  # optimal: feasible exactly when no artificial variable stays positive
            break
        leave, best = None, None
        for r, row in enumerate(tableau):
            if row[entering] > 0:
                ratio = row[s] / row[entering]
                if best is None or ratio < best or (ratio == best and leave is not None and basis[r] < basis[leave]):
                    leave, best = r, ratio
        if leave is None:  # cannot happen: Phase 1 is bounded below by 0
            return None
        pivot_row = [value / tableau[leave][entering] for value in tableau[leave]]
        tableau[leave] = pivot_row
        for r, row in enumerate(tableau):
            factor = row[entering]
            if r != leave and factor:
                tableau[r] = row = [value - factor * other for value, other in zip(row, pivot_row)]
                work += sum((1.0 + (v.numerator.bit_length() + v.denominator.bit_length()) / 64.0) ** 2
                            for v in row if v)
        if work > EXACT_LP_WORK_CAP:
            return None  # beyond the budget: undecided
        factor = cost[entering]
        cost = [value - factor * other for value, other in zip(cost, pivot_row)]
        basis[leave] = entering
    x = [Fraction(0)] * s
    for r, j in enumerate(basis):
        if j < s:
            x[j] = tableau[r][s]
        elif tableau[r][s] != 0:
            return None  # an artificial variable stays positive: infeasible, exactly
    if not any(x) or any(value != 0 for value in np.array(x, dtype=object).dot(b)):
        return None  # (the check is the proof; exact arithmetic makes it pass whenever feasible)
    top = max(shifts)
    weights = [value * (1 << (top - shift)) for value, shift in zip(x, shifts)]
    total = sum(weights)
    return np.array([float(weight / total) for weight in weights], dtype=np.float64)


def _power_of_two_scales(M: np.ndarray, axis: int) -> np.ndarray:
    """Exponents e with ``M * 2^-e`` along ``axis`` having its largest |entry| in [1/2, 1) (0 for zero lines)."""
    peaks = np.max(np.abs(M), axis=axis)
    return np.where(peaks > 0, np.frexp(np.where(peaks > 0, peaks, 1.0))[1], 0).astype(np.int64)


def _verified_positive_solution(rows: np.ndarray):
    """Weights ``lambda`` proved > 0 with ``sum_i lambda_i a_i = 0`` for s rows in s - 1 coordinates, or None.

    Each row is first scaled by a power of two to a largest |entry| in [1/2, 1) (exact; a positive
    scaling of a row keeps 0 in the hull), the system ``[A_hat^T; 1^T] mu = e_s`` is equilibrated
    by powers of two along its equations, and Rump's a-posteriori bound, with every rounding error
    bounded by Higham's gamma_k (round to nearest, any summation order, FMA or not), proves each
    exact ``mu_i > 0``: for an approximate inverse X, ``||I - X M||_inf <= alpha < 1`` proves M
    nonsingular and ``|mu - mu_hat| <= || |X| rho ||_inf / (1 - alpha)`` where rho bounds the
    residual. Then ``lambda_i ~ mu_i 2^-e_i``. Returns False when the bound proves an exact
    ``mu_i < 0`` (M nonsingular: no distribution on these rows has the sum 0).
    """
    s = rows.shape[0]
    tiny = np.finfo(np.float64).tiny
    exponents = _power_of_two_scales(rows, 1)
    scaled = np.ldexp(rows, -exponents[:, None])
    if np.any((rows != 0) & (np.abs(scaled) < tiny)):  # the scaling would lose bits of tiny entries
        exponents = np.zeros(s, dtype=np.int64)
        scaled = rows
    M = np.vstack([scaled.T, np.ones((1, s))])
    lines = _power_of_two_scales(M, 1)
    M = np.ldexp(M, -lines[:, None])
    nonzero = M[M != 0]
    if nonzero.size and float(np.min(np.abs(nonzero))) < tiny:
        return None  # subnormal entries: the equilibration was not exact
    rhs = np.zeros(s)
    rhs[-1] = math.ldexp(1.0, -int(lines[-1]))
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            X = scipy.linalg.inv(M)
        except (scipy.linalg.LinAlgError, ValueError):
            return None
        if not np.all(np.isfinite(X)):
            return None
        x = X @ rhs
        x = x + X @ (rhs - M @ x)  # one step of refinement
        g1, g2 = rounding_factor(s + 1), 2.0 * rounding_factor(s + 4)
        absM, absX = np.abs(M), np.abs(X)
        residual = rhs - M @ x
        rho = (np.abs(residual) + g1 * (np.abs(rhs) + absM @ np.abs(x))) * (1.0 + g2) + s * TINY
        G = np.eye(s) - X @ M
        bound = (np.abs(G) + g1 * (np.eye(s) + absX @ absM)) * (1.0 + g2) + s * TINY
        alpha = float(np.max(np.sum(bound, axis=1))) * (1.0 + g2)
        if not alpha < 1.0:
            return None
        error = float(np.max(absX @ rho)) * (1.0 + g2) + s * TINY
        error = error / ((1.0 - alpha) * (1.0 - 4.0 * UNIT64))
    if not (np.all(np.isfinite(x)) and math.isfinite(error)):
        return None
    if float(np.min(x)) < -error:
        return False  # the unique exact solution has a negative entry: no proof on these rows
    if not float(np.min(x)) > error:
        return None
    # lambda_i ~ mu_i 2^-e_i, brought to a common scale without overflow (entries may underflow to 0)
    logs = np.log2(x) - exponents
    weights = np.exp2(logs - np.max(logs))
    return weights / np.sum(weights)


def gordan_proof(rows, weights=None):
    r"""A proved distribution ``lambda`` on ``rows`` with :math:`\sum_i\lambda_ia_i = 0`, or None.

    ``rows`` (s, d) are taken at their float64 values (dyadic rationals, exact). The support of
    ``weights`` (default: all rows) is checked as described in :mod:`gamedyn.certify.certificates`: a
    verified solve when it has one row more than the coordinates it uses, else exactly in integers
    (within :data:`EXACT_WORK_CAP`); when that fails, all the rows exactly (the
    integer elimination, then the exact simplex within :data:`EXACT_LP_SIZE_CAP`,
    which decides small problems completely). A zero row is its own proof.

    Parameters
    ----------
    rows : array_like, shape (s, d)
        Finite rows.
    weights : array_like, shape (s,), optional
        Nonnegative approximate weights (e.g. an LP's); their support is the set checked and their
        values guide the choice when the support spans a smaller space than it has rows.

    Returns
    -------
    numpy.ndarray or None
        ``lambda`` (float64, >= 0, summing to 1 up to rounding) when the proof succeeded, else None.
        The exact distribution it rounds has :math:`A_S^\top\lambda = 0` exactly.

    Raises
    ------
    ValueError
        If ``rows`` is not a finite 2-D array or ``weights`` has another length or negative entries.

    Examples
    --------
    >>> gordan_proof([[1.0, 2.0], [-1.0, -2.0]]).tolist()
    [0.5, 0.5]
    >>> gordan_proof([[1e-9, 1.0], [1e-9, -1.0]]) is None  # separable: margin 1e-9
    True
    """
    rows = np.asarray(check_matrix(rows, "rows", allow_sparse=False), dtype=np.float64)
    s = rows.shape[0]
    weights = np.ones(s) if weights is None else check_vector(weights, "weights", size=s)
    if np.any(weights < 0):
        raise ValueError("weights must be nonnegative (approximate convex weights of the rows).")
    return _gordan_proof(rows, weights, np.zeros(s, dtype=np.int64))


def _gordan_proof(rows: np.ndarray, weights: np.ndarray, exponents: np.ndarray, exhaustive: bool = True):
    """:func:`gordan_proof` on finite float64 rows with approximate weights ``weights * 2^exponents``
    (an LP's weights of rows it scaled by powers of two, kept apart so that none underflows).
    ``exhaustive=False``: the weights' support only (None when it fails), never all the rows exactly
    nor the exact LP (the costly part when the support is wrong: :func:`find_witness` tries the LP on
    resolved columns first)."""
    s = rows.shape[0]
    lam = np.zeros(s)
    zero = np.flatnonzero(~np.any(rows != 0, axis=1))
    if zero.size:
        lam[zero[0]] = 1.0
        return lam
    support = np.flatnonzero(weights > 0)
    if support.size == 0:
        return None
    S = rows[support]
    used = np.flatnonzero(np.any(S != 0, axis=0))
    found = None
    if support.size == used.size + 1 and support.size <= VERIFIED_ROWS_CAP:
        found = _verified_positive_solution(S[:, used])
    elif used.size + 1 < support.size <= 4 * VERIFIED_ROWS_CAP and used.size + 1 <= VERIFIED_ROWS_CAP:
        # more rows than a simplex needs: the most independent used.size + 1 of them (QR with pivoting)
        peaks = np.max(np.abs(S[:, used]), axis=1)
        M = np.vstack([(S[:, used] / peaks[:, None]).T, np.ones((1, support.size))])
        _, order = scipy.linalg.qr(M, mode="r", pivoting=True)
        keep = np.sort(order[: used.size + 1])
        inner = _verified_positive_solution(S[keep][:, used])
        if inner is not None and inner is not False:
            found = np.zeros(support.size)
            found[keep] = inner
    if found is None:  # inconclusive (not "proved impossible"): the exact check on the support
        found = _exact_null_proof(S, weights[support], exponents[support])
    if found is not None and found is not False:
        lam[support] = found
        return lam
    if not exhaustive:
        return None
    # The support was wrong (an LP's tolerance admits residuals of 1e-9): all the rows, exactly
    found = _exact_null_proof(rows, weights, exponents) if support.size < s else None
    if found is None:
        found = _exact_phase_one(rows)  # the exact LP: complete, for small problems
    return found


def _lp_vertex(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """A vertex of {lambda >= 0, sum lambda = 1, sum_i lambda_i a_i 2^-e_i = 0} for the rows scaled by
    powers of two to a largest |entry| in [1/2, 1) (HiGHS dual simplex): ``(lambda, -e)``, the
    weights of the unscaled rows being ``lambda_i 2^-e_i``; None when the LP finds it infeasible."""
    import scipy.optimize  # here, not at import: a first import loads no optimiser
    k, d = rows.shape
    exponents = _power_of_two_scales(rows, 1)
    scaled = np.ldexp(rows, -exponents[:, None])
    equalities = np.vstack([scaled.T, np.ones((1, k))])
    target = np.zeros(d + 1)
    target[d] = 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        solution = scipy.optimize.linprog(np.zeros(k), A_eq=equalities, b_eq=target, bounds=(0, None),
                                          method="highs-ds")
    if solution.status != 0 or solution.x is None:
        return None
    x = np.clip(np.asarray(solution.x, dtype=np.float64), 0.0, None)
    if not np.any(x > 0):
        return None
    return x, -exponents


def find_witness(A, order: np.ndarray):
    """Gordan's theorem on demand: the LP on the first rows of ``order`` (d + 1 first, doubling up to
    all n), its vertex checked by :func:`gordan_proof`: the vertex's support; when that fails, the
    support of the LP's vertex on :func:`resolved_columns` (columns dependent up to rounding leave the
    first vertex one row short: the common failure, and a cheap cure); then, since the LP's tolerance
    also admits wrong vertices, all the LP's rows exactly within the caps, and the exact LP (skipped
    below n rows when the LP on the resolved columns, the same null space, is infeasible: the first
    vertex was then the LP's tolerance, and more rows come next). Every
    answer is an exact proof whatever the order; the order only saves work (on 5000 x 40 with
    make_classification's redundant columns the exact checks of all the LP's rows took 0.9 of the
    fit's 1.7 CPU s before the resolved columns found the proof). Returns the proved distribution on
    the n rows, or None."""
    n, d = A.shape
    k = min(n, d + 1)
    while True:
        chosen = order[:k]
        A_S = dense_rows(A, chosen)
        if not np.all(np.isfinite(A_S)):
            raise ValueError("A contains NaN or infinite entries; remove or impute them first.")
        zero = np.flatnonzero(~np.any(A_S != 0, axis=1))
        vertex = None if zero.size else _lp_vertex(A_S)
        if zero.size or vertex is not None:
            weights, exponents = (np.ones(k), np.zeros(k, dtype=np.int64)) if vertex is None else vertex
            lam = _gordan_proof(A_S, weights, exponents, exhaustive=vertex is None)
            refuted = False
            if lam is None and vertex is not None:  # a vertex one row short: columns dependent up to rounding
                resolved = resolved_columns(A_S)
                other = None if resolved is None else _lp_vertex(resolved)
                lam = None if other is None else _gordan_proof(A_S, *other, exhaustive=False)
                # the same null space, without the rounding: its LP infeasible, the first vertex was the
                # LP's tolerance (more rows next, the exact checks kept for all n)
                refuted = resolved is not None and other is None and k < n
            if lam is None and vertex is not None and not refuted:  # all the LP's rows exactly, the exact LP
                lam = _gordan_proof(A_S, weights, exponents)
            if lam is not None:
                witness = np.zeros(n)
                witness[chosen] = lam
                return witness
        if k == n:
            return None
        k = min(n, 2 * k)
