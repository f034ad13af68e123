r"""Closed forms on the capped simplex, the p-player's domain of the soft-margin game (issue 19).

.. math::

    \Delta_c = \{p \in \mathbb R^n : p \ge 0,\ \textstyle\sum_i p_i = 1,\ p_i \le c\},
    \qquad \tfrac1n \le c \le 1,

with ``c = 1 / (nu n)`` for the nu-SVM (Crisp & Burges 2000; Bennett & Bredensteiner 2000). It is
non-empty exactly when ``n c >= 1`` (in exact arithmetic on the float ``c``); ``c = 1`` is the
plain simplex and ``n c = 1`` the single point ``u_n``.

What a learner needs, each exact at any magnitude (the inputs' exponents may span 1e-300 to 1e300):

* :func:`project`: the Euclidean projection ``p_i = clip(z_i - tau, 0, c)``;
* :func:`capped_softmax`: the entropy argmin
  ``argmin_{p in Delta_c} eta <theta, p> + KL(p || p_0)``, i.e.
  ``p_i = min(c, p_0i exp(-eta theta_i - lambda))``, in the log domain;
* :func:`linear_minimizer`: ``argmin_{p in Delta_c} <z, p>``: ``c`` on the ``K = floor(1/c)``
  smallest entries, the rest ``r = 1 - K c`` on the next one (linear-time selection);
* :func:`cvar`: its value, the average of the ``1/c`` smallest entries with the fractional one
  counted in part (the CVaR of the margins), correctly rounded;
* :func:`kl_range`: ``max_{p in Delta_c} KL(p || u_n) = log(n c) + r log(r / c)``, the constant
  that replaces ``log n`` in the rate theorems (docs/explanation/soft-margin.md);
* :func:`contains`, :func:`centre`, :func:`cap_from_nu`, :func:`smallest_cap`, and the frozen
  :class:`CappedSimplex` bundling them with the library's domain interface (``contains``,
  ``default_centre``, ``project``, ``linear_minimizer``, ``minimize_quadratic``).

**Reduction to the simplex.** With ``c = 1``, or whenever the plain answer already respects the cap,
:func:`project` and :func:`capped_softmax` return the plain simplex projection and the plain softmax
computed exactly as ``gamedyn.core.domains.Simplex.project`` and ``Entropy.argmin`` (uniform centre)
compute them, bit for bit (tests/test_capped_simplex.py). For a non-uniform centre this module always
takes differences before the exponential (``log p_0i - log p_0j - eta (theta_i - theta_j)``), which
the library's fast path does not (it forms ``log p_0 - eta theta`` first).

**Why the differences.** Where the cap binds, the free coordinates are ``exp(l_i - lambda)`` with
``l_i - lambda`` of order 1 while ``l_i`` itself may be ``-1e300`` (``lambda`` sits next to the free
coordinates, not next to the largest logit), so ``l_i - lambda`` must never be formed from ``l_i``.
Every quantity exponentiated is a difference of two inputs relative to a pivot coordinate, formed
before any scaling by ``eta``: ``eta (theta_i - theta_j)`` may overflow to ``+-inf`` (a weight 0, or
a coordinate certainly at the cap) but never to NaN, and ``eta theta`` itself is never exponentiated.

numpy only; float32 input is computed in float64 (the results are float64), batched input
(``(n, K)``, one game per column) is handled column by column.

The domain object :class:`gamedyn.core.domains.CappedSimplex` bundles these; ``Entropy(domain=CappedSimplex(c))``
plays :func:`capped_entropy_step` (the argmin without the argument checks, for the round loop).
"""

from __future__ import annotations

import math
from fractions import Fraction
from numbers import Real

import numpy as np

from gamedyn.core.kernels import dot, ones, scal
from gamedyn.core.numerics import NumericalRangeError

__all__ = [
    "cap_from_nu", "capacity", "capped_entropy_step", "capped_softmax", "centre", "check_cap", "check_size",
    "contains", "cvar", "kl_range", "linear_minimizer", "project", "project_scaled", "smallest_cap", "two_product",
]



_SPLITTER = 2.0**27 + 1.0  # Veltkamp's constant: splits a double into two 26-bit halves


# ----------------------------------------------------------------------------------- validation


def check_cap(cap) -> float:
    """``cap`` as a float in (0, 1], or a ``ValueError`` naming the argument and the fix.

    >>> check_cap(0.25)
    0.25
    """
    if isinstance(cap, bool) or not isinstance(cap, (Real, np.floating, np.integer)):
        raise TypeError(f"cap must be a real number in (0, 1], got {cap!r}; e.g. cap=1 / (nu * n) for a nu in [1/n, 1].")
    value = float(cap)
    if not (0.0 < value <= 1.0):
        raise ValueError(f"cap must lie in (0, 1], got {cap!r}: cap = 1 is the plain simplex and the capped simplex "
                         "needs cap >= 1/n; pass cap=1 / (nu * n) with nu in [1/n, 1] (see cap_from_nu).")
    return value


def check_size(n: int, cap: float, where: str = "CappedSimplex") -> None:
    """Delta_c in R^n is non-empty iff n c >= 1, checked exactly on the float ``cap``."""
    if n == 0:
        raise ValueError(f"{where}: the vector is empty; the capped simplex needs n >= 1 coordinates.")
    if Fraction(cap) * n < 1:
        raise ValueError(f"{where}: cap={cap!r} is below 1/n for n={n} (n * cap = {n * cap!r} < 1), so the capped "
                         f"simplex is empty; use cap >= smallest_cap({n}) = {smallest_cap(n)!r} "
                         "(cap_from_nu rounds 1/(nu n) so that this holds).")


def _vector(z, name: str, where: str) -> np.ndarray:
    """``z`` as a float64 array with finite entries (1-D or 2-D), else a clear error."""
    array = np.asarray(z)
    if array.dtype.kind not in "fiu":
        raise TypeError(f"{where}: {name} must be a real array, got dtype {array.dtype}.")
    array = np.asarray(array, dtype=np.float64)
    if array.ndim not in (1, 2):
        raise ValueError(f"{where}: {name} must be 1-D (one point) or 2-D (one point per column), got shape {array.shape}.")
    if not np.all(np.isfinite(array)):
        bad = array[~np.isfinite(array)]
        raise NumericalRangeError(
            f"{where}: {name} has {bad.size} non-finite entries (e.g. {bad.flat[0]!r}): an earlier step overflowed "
            "float64. Rescale the game: divide the payoff by s and multiply each learner's eta by s.")
    return array


def smallest_cap(n: int) -> float:
    """The smallest float ``c`` with ``n c >= 1`` exactly: ``Delta_c`` is then the (near-)point ``u_n``.

    ``1 / n`` itself is rounded and may fall short (``3 * fl(1/3) < 1``).

    >>> smallest_cap(3) > 1 / 3, smallest_cap(4) == 0.25
    (True, True)
    """
    if not (isinstance(n, (int, np.integer)) and n >= 1):
        raise ValueError(f"n must be a positive integer, got {n!r}.")
    c = 1.0 / n
    while Fraction(c) * n < 1:
        c = math.nextafter(c, math.inf)
    return c


def cap_from_nu(nu, n: int) -> float:
    """The cap ``c = 1 / (nu n)`` of the nu-SVM, rounded up to :func:`smallest_cap` when needed.

    Parameters
    ----------
    nu : float in [1/n, 1]
        The nu of the nu-SVM: an upper bound on the fraction of margin errors and a lower bound on the
        fraction of support vectors (Schoelkopf et al. 2000). ``nu = 1/n`` gives ``c = 1`` (the hard
        margin), ``nu = 1`` the single point ``u_n``.
    n : int
        The number of rows.

    Returns
    -------
    float
        A cap in ``[smallest_cap(n), 1]``.

    Raises
    ------
    TypeError
        If ``nu`` is not a real number.
    ValueError
        If ``nu`` is not in ``[1/n, 1]``.

    Examples
    --------
    >>> cap_from_nu(0.1, 100)
    0.1
    >>> cap_from_nu(1.0, 3) == smallest_cap(3)
    True
    """
    if isinstance(nu, bool) or not isinstance(nu, (Real, np.floating, np.integer)):
        raise TypeError(f"nu must be a real number in [1/n, 1], got {nu!r}; e.g. nu=0.1 allows 10 % margin errors.")
    if not math.isfinite(float(nu)):
        raise ValueError(f"nu must be a real number in [1/n, 1], got {nu!r}; e.g. nu=0.1 allows 10 % margin errors.")
    nu = float(nu)
    floor = smallest_cap(n)
    if not (0.0 < nu <= 1.0) or Fraction(nu) * n < 1 and not math.isclose(nu * n, 1.0, rel_tol=4e-16):
        raise ValueError(f"nu must lie in [1/n, 1] = [{1 / n!r}, 1] for n={n}, got {nu!r}: nu is a fraction of the rows "
                         "(at least one row, at most all of them).")
    return min(1.0, max(floor, 1.0 / (nu * n)))


def capacity(cap: float) -> tuple[int, float]:
    """``(K, r)``: ``K = floor(1/c)`` (the largest integer with ``K c <= 1``, exactly) and ``r = 1 - K c``.

    ``r`` is correctly rounded; ``r = 0`` exactly when ``1/c`` is an integer ``K`` (then ``K c = 1``).

    >>> capacity(0.25), capacity(0.3)[0], capacity(1.0)
    ((4, 0.0), 3, (1, 0.0))
    """
    cap = check_cap(cap)
    exact = Fraction(cap)
    count = int(1 // exact)  # floor of the exact quotient 1 / c (Fraction arithmetic)
    return count, float(1 - count * exact)


def centre(n: int) -> np.ndarray:
    """The centre of ``Delta_c``: ``u_n`` for every cap (the entropy's minimiser and a point of every Delta_c)."""
    if not (isinstance(n, (int, np.integer)) and n >= 1):
        raise ValueError(f"n must be a positive integer, got {n!r}.")
    return np.full(n, 1.0 / n)


def contains(p, cap: float, tolerance: float = 1e-9) -> bool:
    """Whether ``p`` lies in ``Delta_c`` up to ``tolerance``: ``p >= -tol``, ``p <= c (1 + tol)``,
    ``|sum p - 1| <= tol max(1, n)`` (the library's ``Simplex.contains`` convention).

    >>> contains([0.5, 0.25, 0.25], cap=0.5), contains([0.6, 0.4, 0.0], cap=0.5)
    (True, False)
    """
    cap = check_cap(cap)
    p = np.asarray(p, dtype=np.float64)
    if p.ndim != 1 or p.size == 0 or not np.all(np.isfinite(p)) or Fraction(cap) * p.size < 1:
        return False
    return bool(np.all(p >= -tolerance) and np.all(p <= cap * (1.0 + tolerance))
                and abs(math.fsum(p) - 1.0) <= tolerance * max(1, p.size))


# ----------------------------------------------------------------------------------- projection


def _simplex_shifted(shifted: np.ndarray, mass: float, ordered: np.ndarray | None = None) -> np.ndarray:
    """Euclidean projection onto ``{p >= 0, sum p = mass}`` of a vector whose largest entry is 0.

    The threshold lies in ``[-mass, 0)``, so entries at or below ``-mass`` (even ``-inf``) only meet
    comparisons and ``max(., 0)``. With ``mass = 1`` these are the library's ``_project_shifted``
    operations, in the same order (so the plain simplex projection is reproduced bit for bit).
    ``ordered`` may pass ``shifted`` already sorted in decreasing order.
    """
    if ordered is None:
        ordered = np.sort(shifted)[::-1]
    cumulative = np.cumsum(ordered) - mass
    index = np.arange(1, shifted.size + 1)
    rho = np.flatnonzero(ordered * index > cumulative)[-1]
    projected = np.maximum(shifted - cumulative[rho] / (rho + 1), 0.0)
    total = projected.sum()
    if total == mass:
        return projected
    return projected / total if mass == 1.0 else projected * (mass / total)


def _projection_at_cap(difference: np.ndarray, cap: float) -> bool:
    """Is the pivot coordinate at the cap in the projection? ``difference`` holds ``(v_j - v_k)/divisor``.

    ``G(v_k - c) <= 1`` for ``G(tau) = sum_j clip(v_j - tau, 0, c)``, with the whole terms counted
    exactly: the ``m`` coordinates with ``v_j >= v_k`` give ``m c``, the others' parts must fit in
    ``1 - m c`` (exact, then rounded), so small parts are never swamped by adding them to ``m c``.
    """
    above = difference >= 0.0
    room = float(1 - int(np.count_nonzero(above)) * Fraction(cap))
    return room >= 0.0 and float(np.clip(difference[~above] + cap, 0.0, cap).sum()) <= room


def _project_one(values: np.ndarray, divisor: float, cap: float) -> np.ndarray:
    """Projection of ``values / divisor`` onto ``Delta_cap`` (``divisor > 0``), every difference taken first.

    Plain path: the simplex projection of ``(values - max) / divisor``; kept when the largest
    coordinate is not at the cap. Capped path: the number ``k`` of coordinates at the cap, found by
    bisection on the sorted values with the exact test :func:`_projection_at_cap` ("coordinate k is
    at the cap iff ``sum_j clip(c + (v_j - v_k)/divisor, 0, c) <= 1``", i.e. ``G(v_k - c) <= 1`` for
    ``G(tau) = sum_j clip(v_j - tau, 0, c)``, monotone along the sorted order); then the others
    are the simplex projection with mass ``1 - k c`` of
    ``(v_j - v_pivot) / divisor``, the pivot being the largest free coordinate.
    """
    top = values[values.argmax()]
    with np.errstate(over="ignore"):  # a span beyond 1.8e308 becomes -inf: never in the support
        shifted = values - top if divisor == 1.0 else (values - top) / divisor
    plain = _simplex_shifted(shifted, 1.0)
    # The cap binds iff the largest coordinate is at the cap in the capped solution (equivalently:
    # the plain projection's maximum exceeds c), decided by the exact test; c = 1 never binds.
    if cap >= 1.0 or not _projection_at_cap(shifted, cap):
        return plain
    n = values.size
    order = np.argsort(-values)  # ties: either order gives the same point
    ordered = values[order]
    count_max, _ = capacity(cap)

    def at_cap(position: int) -> bool:
        with np.errstate(over="ignore"):
            difference = ordered - ordered[position]
            if divisor != 1.0:
                difference = difference / divisor
        return _projection_at_cap(difference, cap)

    low, high = 0, min(n, count_max)  # at most floor(1/c) coordinates fit at the cap
    while low < high:  # positions < low are at the cap, positions >= high are not
        middle = (low + high) // 2
        if at_cap(middle):
            low = middle + 1
        else:
            high = middle
    capped = low
    point = np.zeros(n)
    point[:capped] = cap
    mass = float(1 - capped * Fraction(cap))
    if capped < n and mass > 0.0:
        with np.errstate(over="ignore"):
            rest = ordered[capped:] - ordered[capped]
            if divisor != 1.0:
                rest = rest / divisor
        point[capped:] = np.minimum(_simplex_shifted(rest, mass, ordered=rest), cap)
    result = np.empty(n)
    result[order] = point
    return result


def project(z, cap: float) -> np.ndarray:
    r"""Euclidean projection onto the capped simplex: ``argmin_{p in Delta_c} ||p - z||_2``.

    The KKT conditions give ``p_i = clip(z_i - tau, 0, c)`` with ``sum_i p_i = 1``. The projection
    commutes with shifts along ``(1, ..., 1)``, and every difference is taken before it is used, so
    the result is exact at any magnitude: at ``1e16`` (where ``cumsum(z) - 1`` would lose the 1) the
    plain path shifts by the maximum, and the capped path works relative to the largest free
    coordinate. ``O(n log n)``: one sort and ``O(log(1/c))`` passes.

    Parameters
    ----------
    z : array_like, shape (n,) or (n, K)
        The point (one per column for batched games); finite.
    cap : float in [1/n, 1]
        The cap ``c``.

    Returns
    -------
    ndarray of float64, the shape of ``z``
        The projection: entries in ``[0, c]`` summing to 1 within a few ulp.

    Raises
    ------
    ValueError
        If ``cap`` is not in ``[1/n, 1]``.
    NumericalRangeError
        If ``z`` has a NaN or infinite entry.

    Examples
    --------
    >>> project([3.0, 1.0, 0.0], cap=0.5).tolist()
    [0.5, 0.5, 0.0]
    >>> project([1e16, 1e16 - 2, 0.0], cap=0.6).tolist()
    [0.6, 0.4, 0.0]
    """
    cap = check_cap(cap)
    z = _vector(z, "z", "project")
    check_size(z.shape[0], cap, "project")
    if z.ndim == 2:
        return np.stack([_project_one(z[:, k], 1.0, cap) for k in range(z.shape[1])], axis=1)
    return _project_one(z, 1.0, cap)


# ------------------------------------------------------------------------------ capped softmax


def _at_cap(relative: np.ndarray, cap: float, exponentials: np.ndarray | None = None) -> bool:
    """Is the pivot coordinate at the cap? ``relative`` holds ``l_j - l_pivot``.

    ``H(l_k - log c) <= 1`` reads ``c (m + s) <= 1`` with ``m`` the number of ``j`` with
    ``l_j >= l_k`` (each gives ``min(1, .) = 1``, counted exactly) and ``s = sum_{l_j < l_k}
    exp(l_j - l_k)``; it is tested as ``s <= (1 - m c) / c`` with the right side exact, then
    rounded, so a tiny ``s`` is never swamped by adding it to ``m``.
    """
    above = relative >= 0.0
    count = int(np.count_nonzero(above))
    exact_cap = Fraction(cap)
    room = 1 - count * exact_cap
    if room < 0:
        return False
    if exponentials is None:
        parts = np.exp(np.where(above, -np.inf, relative))
    else:
        parts = np.where(above, 0.0, exponentials)
    return float(parts.sum()) <= float(room / exact_cap)


def _capped_softmax_one(theta: np.ndarray, eta: float, cap: float, log_centre: np.ndarray | None):
    """``(p, log p)`` for one game; ``log_centre`` None is the uniform centre.

    Logit differences ``l_j - l_k = (log p0_j - log p0_k) - eta (theta_j - theta_k)`` relative to a
    pivot ``k`` are the only quantities exponentiated. With ``H(lambda) = sum_j min(c, exp(l_j - lambda))``
    (non-increasing) the coordinate ``k`` is at the cap iff ``H(l_k - log c) <= 1``, i.e.
    ``c * sum_j min(1, exp(l_j - l_k)) <= 1``: monotone along the sorted logits.
    """
    n = theta.size
    if log_centre is None:
        support = None
        key = -theta  # the logits' order, exactly
    else:
        support = np.flatnonzero(log_centre > -np.inf)
        if Fraction(cap) * support.size < 1:
            raise ValueError(
                f"capped_softmax: the centre has {support.size} positive entries, fewer than 1/cap = {1 / cap:.6g}, so "
                "no point of the capped simplex has a finite KL divergence to it; pass a centre with at least "
                "ceil(1/cap) positive entries (e.g. the uniform centre).")
        if support.size < n:
            p_support, log_support = _capped_softmax_one(theta[support], eta, cap, log_centre[support])
            p, log_p = np.zeros(n), np.full(n, -np.inf)
            p[support], log_p[support] = p_support, log_support
            return p, log_p
        # a finite key with (nearly) the logits' order, l / max(eta, 1) (never overflows), to pick a
        # reference; the order itself is taken from the differences below
        key = log_centre / eta - theta if eta >= 1.0 else log_centre - eta * theta

    def differences(pivot: int) -> np.ndarray:
        """``l_j - l_pivot`` for every j: a difference of inputs first, then scaled by eta."""
        with np.errstate(over="ignore"):
            if eta == 0.0:
                result = np.zeros(n)
            else:
                result = (theta - theta[pivot]) * -eta  # overflow gives -inf (weight 0) or +inf (a cap)
            if log_centre is not None:
                result = (log_centre - log_centre[pivot]) + result
        return result

    # The plain softmax relative to the largest logit. For the uniform centre these are the library's
    # Entropy.argmin operations, in order: (theta - min theta) * -eta, exp, times 1 / (w . 1). With a
    # centre the key's rounding can lose log p_0 against eta theta (theta = (1, 1), eta = 2e16): the
    # differences from its argmax then show the true largest logit, and are taken again from there.
    logits = differences(int(np.argmax(key)))
    for _ in range(n):
        top = int(np.argmax(logits))
        if not logits[top] > 0.0:
            break
        logits = differences(top)
    exponentials = np.exp(logits)
    total = float(dot(exponentials, ones(n)))
    weights = exponentials * (1.0 / total)
    # The cap binds iff the largest logit's coordinate is at the cap (plain max 1/(m + s) >= c, the
    # same condition), decided by the exact test; c = 1 never binds.
    if cap >= 1.0 or not _at_cap(logits, cap, exponentials):
        return weights, logits - math.log(total)

    # At most K = floor(1/c) coordinates fit at the cap: only the K + 1 largest logits need an order
    # (linear-time selection, then a sort of those). Ties sit on the same side of the cap (the test
    # below depends on a logit's value only), so the order within a tie does not matter.
    count_max, _ = capacity(cap)
    size = min(n, count_max + 1)
    if log_centre is not None:
        key = logits  # differences from the largest logit: ordered like the logits near the top
    if size < n:
        order = np.argpartition(-key, size - 1)[:size]
        order = order[np.argsort(-key[order])]
        outside = np.ones(n, dtype=bool)
        outside[order] = False
        outside_total = float(exponentials[outside].sum())  # the logits are <= ~0: no overflow
        rest = math.log(outside_total) if outside_total > 0.0 else -math.inf
    else:
        order, rest = np.argsort(-key), -math.inf

    def at_cap(position: int) -> bool:
        return _at_cap(differences(int(order[position])), cap)

    # Candidate from one pass on the sorted logits t (t_0 ~ 0): position k is at the cap iff
    # c (k + 1 + exp(LSE(t_{k+1:}) - t_k)) <= 1; the tails' LSE by a reversed logaddexp scan.
    t = logits[order]
    with np.errstate(invalid="ignore", over="ignore"):
        tails = np.logaddexp(np.append(np.logaddexp.accumulate(t[::-1])[::-1][1:], -np.inf), rest)
        ok = cap * (np.arange(1, size + 1) + np.exp(tails - t)) <= 1.0
    limit = min(size, count_max)
    candidate = min(size if ok.all() else int(np.argmin(ok)), limit)
    capped = np.zeros(n, dtype=bool)
    capped[order[:candidate]] = True
    settled = _settle(capped, logits, differences, cap, passes=3)
    if settled is not None:
        return settled
    # the scan's rounding misled it (huge logits): bisection with the exact test, then settle
    low, high = 0, limit
    while low < high:
        middle = (low + high) // 2
        if at_cap(middle):
            low = middle + 1
        else:
            high = middle
    capped = np.zeros(n, dtype=bool)
    capped[order[:low]] = True
    return _settle(capped, logits, differences, cap)


def _settle(capped: np.ndarray, logits: np.ndarray, differences, cap: float, passes: int | None = None):
    """``(p, log p)`` from a guess of the capped set, corrected until the KKT conditions hold.

    With the set ``C`` fixed, ``lambda`` follows from the free coordinates, relative to the largest
    free logit (the pivot): ``p_j = (1 - |C| c) exp(l_j - l_pivot) / sum_free exp(l_i - l_pivot)``.
    A free ``p_j > c`` joins ``C``; a capped coordinate whose ``exp(l_i - lambda)`` falls below ``c``
    leaves it; ``|C| c = 1`` with free coordinates left is never exact (their weights are positive),
    so the capped one with the smallest logit leaves. The sorted guess is right in all but rare
    cases (a sort key that lost a logit difference to rounding); then a pass or two settle it.
    With ``passes`` given, returns None when that many passes did not settle it.
    """
    n = logits.size
    exact_cap = Fraction(cap)
    log_cap = math.log(cap)
    for _ in range(n + 1 if passes is None else passes):
        count = int(np.count_nonzero(capped))
        if count == n:
            break
        mass = float(1 - count * exact_cap)
        if mass <= 0.0:  # all the mass on the capped set: release its smallest logit
            capped[int(np.argmin(np.where(capped, logits, np.inf)))] = False
            continue
        pivot = int(np.argmax(np.where(capped, -np.inf, logits)))
        if capped[pivot]:  # every free logit is -inf relative to the top: any free one will do
            pivot = int(np.argmin(capped))
        relative = differences(pivot)
        free_relative = np.where(capped, -np.inf, relative)
        for _ in range(n):  # the pivot's own differences know better: move up until it is the largest
            best = int(np.argmax(free_relative))
            if not free_relative[best] > 0.0:
                break
            relative = differences(best)
            free_relative = np.where(capped, -np.inf, relative)
        with np.errstate(over="ignore"):
            exponentials = np.exp(relative)  # capped entries may overflow to inf: they are at the cap
        free_exponentials = np.exp(free_relative)  # 0 on the capped set, <= ~1 elsewhere
        share = mass / float(free_exponentials.sum())
        joining = free_exponentials * share > cap
        with np.errstate(invalid="ignore"):
            leaving = capped & (exponentials * share < cap)
        if not joining.any() and not leaving.any():
            p = np.where(capped, cap, np.minimum(free_exponentials * share, cap))
            with np.errstate(divide="ignore"):
                log_p = np.where(capped, log_cap, np.minimum(free_relative + math.log(share), log_cap))
            return p, log_p
        if joining.any():
            capped |= joining
        else:
            capped &= ~leaving
    if passes is not None and (~capped).any():
        return None
    if (~capped).any():  # each pass moves at least one coordinate; this is not reached
        raise RuntimeError("capped_softmax: the capped set did not settle; please report this input.")
    p, log_p = np.zeros(n), np.full(n, -np.inf)
    p[capped], log_p[capped] = cap, log_cap
    return p, log_p


def capped_softmax(theta, cap: float, eta: float = 1.0, centre=None, *, log_centre=None, return_log: bool = False):
    r"""The entropy argmin on the capped simplex: ``argmin_{p in Delta_c} eta <theta, p> + KL(p || p_0)``.

    KKT: ``p_i = min(c, p_0i exp(-eta theta_i - lambda))`` with ``lambda`` fixing ``sum p = 1``. The
    ``k`` coordinates at the cap are the ``k`` largest logits ``l_i = log p_0i - eta theta_i``; with
    them known, ``lambda = LSE(l_free) - log(1 - k c)``. ``k`` comes from one pass over the ``K + 1``
    largest logits (linear-time selection, a sort of those, a reversed log-sum-exp scan);
    :func:`_settle` then checks the KKT conditions on every coordinate, with differences taken from
    the largest free logit, and moves any coordinate the guess misplaced (a centre's ``log p_0``
    lost to rounding in the sort key, or the scan's rounding at huge logits; if three passes do not
    settle it, the guess is redone by bisection with the exact test :func:`_at_cap`). When the plain
    softmax respects the cap (decided by the same exact test at the largest logit; ``c = 1`` always)
    it is returned as is, computed for the uniform centre as the library's ``Entropy.argmin``
    computes it: ``exp((theta - min) * -eta)`` times ``1 / sum`` (bit for bit).

    Exact at any magnitude: only logit differences relative to a pivot are exponentiated, each
    formed as ``(log p_0i - log p_0j) - eta (theta_i - theta_j)``, so ``theta`` may range over
    1e-300 .. 1e300 and ``eta theta`` may lie far beyond ``exp``'s range (``eta = 1e10``,
    ``theta ~ 1e300``): a difference that overflows is a weight 0 or a coordinate at the cap.

    Parameters
    ----------
    theta : array_like, shape (n,) or (n, K)
        The accumulated loss (one game per column); finite.
    cap : float in [1/n, 1]
        The cap ``c``.
    eta : float >= 0, default 1
        The step (multiplies the losses, the paper's convention).
    centre : array_like, optional
        ``p_0``, a point of the simplex (entries >= 0); default the uniform ``u_n``. At least
        ``ceil(1/c)`` entries must be positive.
    log_centre : array_like, optional
        ``log p_0`` instead of ``centre`` (``-inf`` for a zero entry; an additive constant is
        irrelevant): the form mirror descent chains without underflow (``return_log=True``).
    return_log : bool, default False
        Also return ``log p`` (``-inf`` where ``p = 0``).

    Returns
    -------
    p : ndarray of float64, the shape of ``theta``
        The argmin, entries in ``[0, c]`` summing to 1 within a few ulp.
    log_p : ndarray of float64
        Only with ``return_log``.

    Raises
    ------
    ValueError
        For a cap outside ``[1/n, 1]``, a negative or non-finite ``eta``, both ``centre`` and
        ``log_centre``, a centre of the wrong shape or with fewer than ``1/c`` positive entries.
    NumericalRangeError
        If ``theta`` (or ``log_centre``) has a NaN, or ``theta`` an infinite entry.

    Examples
    --------
    >>> capped_softmax([0.0, 0.0, 0.0, 0.0], cap=0.5).tolist()
    [0.25, 0.25, 0.25, 0.25]
    >>> capped_softmax([0.0, 1e300, 1e300], cap=0.5, eta=1e10).tolist()  # eta theta = 1e310
    [0.5, 0.25, 0.25]
    """
    cap = check_cap(cap)
    theta = _vector(theta, "theta", "capped_softmax")
    n = theta.shape[0]
    check_size(n, cap, "capped_softmax")
    if isinstance(eta, bool) or not isinstance(eta, (Real, np.floating, np.integer)):
        raise TypeError(f"capped_softmax: eta must be a real number >= 0, got {eta!r}.")
    if not (0.0 <= float(eta) < math.inf):
        raise ValueError(f"capped_softmax: eta must be a finite number >= 0, got {eta!r}.")
    eta = float(eta)
    if centre is not None and log_centre is not None:
        raise ValueError("capped_softmax: pass centre or log_centre, not both.")
    if centre is not None:
        centre = np.asarray(centre, dtype=np.float64)
        if centre.shape[0] != n or centre.ndim > theta.ndim or (centre.ndim == 2 and centre.shape != theta.shape) \
                or not np.all(np.isfinite(centre)) or np.any(centre < 0):
            raise ValueError(f"capped_softmax: centre must be {n} finite entries >= 0 (a point of the simplex), "
                             f"got shape {centre.shape}.")
        with np.errstate(divide="ignore"):
            log_centre = np.log(centre)
    elif log_centre is not None:
        log_centre = np.asarray(log_centre, dtype=np.float64)
        if log_centre.shape[0] != n or log_centre.ndim > theta.ndim or np.any(np.isnan(log_centre)) \
                or (log_centre.ndim == 2 and log_centre.shape != theta.shape) or np.any(log_centre == np.inf):
            raise ValueError(f"capped_softmax: log_centre must be {n} entries in [-inf, inf) (log p_0), "
                             f"got shape {log_centre.shape}.")
    if log_centre is not None and np.all(log_centre == -np.inf, axis=0).any():
        raise ValueError("capped_softmax: the centre is zero; pass a point of the simplex.")
    if theta.ndim == 2:
        columns = []
        for k in range(theta.shape[1]):
            column_centre = None if log_centre is None else (log_centre if log_centre.ndim == 1 else log_centre[:, k])
            columns.append(_capped_softmax_one(theta[:, k], eta, cap, column_centre))
        p, log_p = np.stack([c[0] for c in columns], axis=1), np.stack([c[1] for c in columns], axis=1)
    else:
        p, log_p = _capped_softmax_one(theta, eta, cap, log_centre)
    return (p, log_p) if return_log else p


# -------------------------------------------------------------------- linear minimiser and CVaR


def _select(z: np.ndarray, count: int):
    """Indices of the ``count`` smallest entries (ties: smallest index) and of the next one, in O(n)."""
    n = z.size
    if count >= n:
        return np.arange(n), None
    threshold = np.partition(z, count)[count]  # the (count + 1)-th smallest value
    below = np.flatnonzero(z < threshold)
    equal = np.flatnonzero(z == threshold)
    chosen = np.concatenate([below, equal[: count - below.size]])
    return np.sort(chosen), int(equal[count - below.size])


def linear_minimizer(z, cap: float) -> np.ndarray:
    """``argmin_{p in Delta_c} <z, p>``: ``c`` on the ``K = floor(1/c)`` smallest entries and
    ``r = 1 - K c`` on the next (ties go to the smallest index), by linear-time selection.

    Parameters
    ----------
    z : array_like, shape (n,) or (n, K)
        The linear loss (one per column); finite.
    cap : float in [1/n, 1]
        The cap ``c``.

    Returns
    -------
    ndarray of float64
        A vertex of ``Delta_c`` (``r`` correctly rounded, so the sum is 1 within an ulp).

    Raises
    ------
    ValueError, NumericalRangeError
        As :func:`project`.

    Examples
    --------
    >>> linear_minimizer([3.0, 1.0, 2.0, 0.0], cap=0.4).tolist()
    [0.0, 0.4, 0.19999999999999996, 0.4]
    """
    cap = check_cap(cap)
    z = _vector(z, "z", "linear_minimizer")
    check_size(z.shape[0], cap, "linear_minimizer")
    if z.ndim == 2:
        return np.stack([linear_minimizer(z[:, k], cap) for k in range(z.shape[1])], axis=1)
    count, remainder = capacity(cap)
    point = np.zeros(z.size)
    chosen, following = _select(z, count)
    point[chosen] = cap
    if following is not None:
        point[following] = remainder
    return point


def _split(a):
    """Veltkamp: ``a = high + low`` exactly, both halves of at most 26 significant bits."""
    t = _SPLITTER * a
    high = t - (t - a)
    return high, a - high


def two_product(a, b):
    """Dekker: ``a b = product + error`` exactly (no overflow, no underflow)."""
    product = a * b
    a_high, a_low = _split(a)
    b_high, b_low = _split(b)
    error = ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low
    return product, error


def cvar(z, cap: float) -> float:
    r"""``min_{p in Delta_c} <z, p>``: the average of the ``1/c`` smallest entries, the fractional one in part.

    ``cvar(z, c) = c sum_{i <= K} z_(i) + (1 - K c) z_(K+1)`` with ``K = floor(1/c)`` and
    ``z_(1) <= z_(2) <= ...`` (``c = 1``: ``min z``; ``n c = 1``: the mean). This is the CVaR of the
    margins at level ``nu = 1/(c n)``, the lower end of the soft-margin certificate. Correctly
    rounded: the products ``c z_i`` and ``(1 - K c) z_(K+1)`` are split exactly (Dekker/Veltkamp,
    after an exact power-of-two scaling that brings the largest selected |z_i| to 2^995) and summed
    with ``math.fsum``, so the result is the float nearest the exact value, unless an error term of a
    product falls below 2^-1022 (entries 2^-1900 below the largest), which then counts within
    2^-1074 of itself. O(n): one ``np.partition``.

    Parameters
    ----------
    z : array_like, shape (n,)
        The margins; finite.
    cap : float in [1/n, 1]

    Returns
    -------
    float

    Raises
    ------
    ValueError, NumericalRangeError
        As :func:`project`.

    Examples
    --------
    >>> cvar([3.0, 1.0, 2.0, 0.0], cap=0.5)  # the mean of the two smallest
    0.5
    >>> cvar([1.0, 2.0, 4.0], cap=0.4)  # 0.4 * 1 + 0.4 * 2 + 0.2 * 4
    2.0
    """
    cap = check_cap(cap)
    z = _vector(z, "z", "cvar")
    if z.ndim != 1:
        raise ValueError(f"cvar: z must be 1-D, got shape {z.shape}.")
    check_size(z.size, cap, "cvar")
    count, _ = capacity(cap)
    chosen, following = _select(z, count)
    values = z[chosen] if following is None else np.append(z[chosen], z[following])
    largest = float(np.max(np.abs(values)))
    if largest == 0.0:
        return 0.0
    # Veltkamp's split overflows above 2^996: bring the largest |value| to [2^994, 2^995) (an exact
    # power-of-two scaling), as high as possible so that small entries' error terms stay normal.
    exponent = math.frexp(largest)[1] - 995
    scaled = np.ldexp(values, -exponent)
    product, error = two_product(np.float64(cap), scaled[:count])
    pieces = [product, error]
    if following is not None:
        # r = 1 - K c exactly as r_high + r_low: K c = P + Q (Dekker), 1 - P exact (Sterbenz, P in [1/2, 1])
        big, small = two_product(np.float64(count), np.float64(cap))
        for factor in (1.0 - big, -small):
            if factor != 0.0:
                pieces.extend(two_product(np.float64(factor), scaled[count:]))
    total = math.fsum(np.concatenate([np.atleast_1d(piece) for piece in pieces]).tolist())
    return math.ldexp(total, exponent)


def kl_range(n: int, cap: float) -> float:
    r"""``max_{p in Delta_c} KL(p || u_n) = log(n c) + r log(r / c)``, ``r = 1 - K c``, ``K = floor(1/c)``.

    KL(., u_n) = log n + sum p log p is convex, so its maximum over the polytope is at a vertex: ``K``
    coordinates at ``c`` and one at ``r`` (docs/explanation/soft-margin.md, section 2). It is ``log n`` at ``c = 1``,
    ``log(n c) = -log(nu)`` when ``1/c`` is an integer, never more than ``log(n c)``, and 0 at
    ``n c = 1``. It replaces ``log n`` in every rate constant of the margin recipes.

    >>> round(kl_range(100, 0.1), 12) == round(math.log(10), 12), kl_range(7, 1.0) == math.log(7)
    (True, True)
    """
    cap = check_cap(cap)
    if not (isinstance(n, (int, np.integer)) and n >= 1):
        raise ValueError(f"n must be a positive integer, got {n!r}.")
    check_size(int(n), cap, "kl_range")
    _, remainder = capacity(cap)
    product = Fraction(cap) * n  # n c >= 1, exactly
    value = math.log1p(float(product - 1)) if product < 2 else math.log(float(product))  # log(n) at c = 1
    if remainder > 0.0:
        value += remainder * math.log(remainder / cap)
    return max(value, 0.0)


# ------------------------------------------------------------------------- the round loop's entry points

_FLOAT64 = np.dtype(np.float64)
_EPS = float(np.finfo(np.float64).eps)


def _clearly_free(total: float, cap: float, n: int) -> bool:
    """Does the plain softmax respect the cap, with every rounding error accounted for?

    ``total`` is the computed ``sum_j exp(l_j - l_max)`` (each term within an ulp, the sum within
    ``n`` ulps); the cap does not bind iff ``c (m + s) > 1`` for the exact sum (:func:`_at_cap`), so
    ``c * total > 1 + 4 (n + 2) eps`` proves it. Near that boundary the exact test decides.
    """
    return total * cap > 1.0 + 4.0 * (n + 2) * _EPS


def capped_entropy_step(theta, eta: float, cap: float, log_centre=None, *, return_log: bool = False):
    r"""The entropy argmin on ``Delta_cap`` for the round loop: :func:`capped_softmax` without its checks.

    ``theta`` is a float64 array (``(n,)``, or ``(n, K)`` one game per column) of finite entries,
    ``eta >= 0`` a float, ``log_centre`` ``log p_0`` (``-inf`` at a zero entry) or None for the
    uniform centre; :class:`gamedyn.core.regularizers.Entropy` on a
    :class:`gamedyn.core.domains.CappedSimplex` checks the rest once, before the loop.

    When the cap does not bind (the common case for ``nu`` well below 1, and always at ``cap = 1``)
    this costs the plain softmax: for the uniform centre the operations of ``Entropy.argmin``
    (``(theta - min) * -eta``, ``exp``, times ``1 / sum``), bit for bit, plus one comparison
    (:func:`_clearly_free`, a proof that no coordinate reaches the cap); otherwise, and near that
    boundary, the exact capped solution of :func:`capped_softmax`.

    Returns ``p``, or ``(p, log p)`` with ``return_log``.

    Examples
    --------
    >>> import numpy as np
    >>> capped_entropy_step(np.array([0.0, 0.0, 5.0]), 1.0, 0.4).round(6).tolist()  # the cap binds
    [0.4, 0.4, 0.2]
    >>> capped_entropy_step(np.array([0.0, 0.0, 5.0]), 1.0, 0.6).round(6).tolist()  # it does not
    [0.498321, 0.498321, 0.003358]
    """
    if theta.ndim != 1 or theta.dtype is not _FLOAT64:
        return capped_softmax(theta, cap, eta, log_centre=log_centre, return_log=return_log)
    n = theta.shape[0]
    if log_centre is None:
        bottom = theta[theta.argmin()]
        if not math.isfinite(bottom):
            return capped_softmax(theta, cap, eta, return_log=return_log)  # raises the clear error
        logits = theta - bottom
        if eta != 0.0:
            scal(-eta, logits)
        else:
            logits[:] = 0.0
        weights = np.exp(logits) if return_log else np.exp(logits, out=logits)
        total = dot(weights, ones(n))
        if cap >= 1.0 or _clearly_free(total, cap, n):
            scal(1.0 / total, weights)
            return (weights, logits - math.log(total)) if return_log else weights
        result = _capped_softmax_one(theta, eta, cap, None)
        return result if return_log else result[0]
    if not (np.isfinite(theta).all() and not np.isnan(log_centre).any()):
        return capped_softmax(theta, cap, eta, log_centre=log_centre, return_log=return_log)
    if (log_centre == -np.inf).any():  # a centre with zero entries: the careful path restricts to its support
        result = _capped_softmax_one(theta, eta, cap, log_centre)
        return result if return_log else result[0]
    # differences from the largest logit, as capped_softmax forms them (never eta theta itself)
    key = log_centre / eta - theta if eta >= 1.0 else log_centre - eta * theta
    pivot = int(key.argmax())
    with np.errstate(over="ignore"):
        logits = (theta - theta[pivot]) * -eta if eta != 0.0 else np.zeros(n)
        logits += log_centre - log_centre[pivot]
    top = int(logits.argmax())
    if logits[top] > 0.0 or not math.isfinite(logits[top]):  # the key lost a difference: the careful path
        result = _capped_softmax_one(theta, eta, cap, log_centre)
        return result if return_log else result[0]
    weights = np.exp(logits)
    total = dot(weights, ones(n))
    if cap >= 1.0 or _clearly_free(total, cap, n):
        scal(1.0 / total, weights)
        return (weights, logits - math.log(total)) if return_log else weights
    result = _capped_softmax_one(theta, eta, cap, log_centre)
    return result if return_log else result[0]


def project_scaled(values, divisor: float, cap: float) -> np.ndarray:
    """The Euclidean projection of ``values / divisor`` onto ``Delta_cap`` (``divisor > 0``), every
    difference taken before the division (``minimize_quadratic``'s ``-linear / curvature``).

    >>> project_scaled(np.array([3.0, 1.0, 0.0]), 2.0, 0.5).tolist()
    [0.5, 0.5, 0.0]
    """
    values = _vector(values, "values", "project_scaled")
    check_size(values.shape[0], cap, "project_scaled")
    if values.ndim == 2:
        return np.stack([_project_one(values[:, k], float(divisor), cap) for k in range(values.shape[1])], axis=1)
    return _project_one(values, float(divisor), cap)
