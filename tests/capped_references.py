"""Independent exact and high-precision references for the capped-simplex closed forms (tests only).

Each is written from the definition, not from :mod:`capped_simplex`'s algorithms:

* :func:`exact_projection`: the Euclidean projection in rational arithmetic. ``G(tau) =
  sum_i clip(z_i - tau, 0, c)`` is piecewise linear and non-increasing; it is evaluated exactly at
  every breakpoint ``z_i`` and ``z_i - c``, and ``G(tau) = 1`` is solved on the bracketing piece.
* :func:`mp_capped_softmax`: the KKT point of ``min eta <theta, p> + KL(p || p_0)`` over Delta_c in
  mpmath at 400 bits (120 digits), from logit differences formed from the float inputs (never the
  logits ``l_i = log p_0i - eta theta_i ~ 1e310`` themselves), each coordinate's place (at the cap
  or free) decided by its own KKT condition, O(n^2), no sorting.
* :func:`exact_lp_vertices`: ``min_{p in Delta_c} <z, p>`` by enumerating every vertex of Delta_c
  (``K`` coordinates at ``c``, one at ``1 - K c``) in rationals (small ``n``).
* :func:`exact_cvar`: the same value from the sorted rationals (any ``n``).
* :func:`exact_kl_range`: ``max KL(p || u)`` over the vertices, in mpmath.
"""

from __future__ import annotations

import itertools
import os
from fractions import Fraction

import mpmath


def examples(count: int) -> int:
    """A test's hypothesis example count, times ``EXAMPLES_SCALE`` (default 1; e.g. 20 for a long hunt)."""
    return count * int(os.environ.get("EXAMPLES_SCALE", "1"))


def _floor_inverse(c: Fraction) -> int:
    return int(1 // c)


def exact_projection(z, cap) -> list[Fraction]:
    """The projection of ``z`` onto Delta_cap, exactly (rationals)."""
    values = [Fraction(float(v)) for v in z]
    c = Fraction(float(cap))

    def total(tau):
        return sum(min(max(v - tau, Fraction(0)), c) for v in values)

    breakpoints = sorted({v for v in values} | {v - c for v in values})
    # G is +large below every breakpoint minus 1 and 0 above the largest: find consecutive b0 < b1 with
    # G(b0) >= 1 >= G(b1); G is linear on [b0, b1].
    low = breakpoints[0] - 1
    previous, previous_total = low, total(low)
    assert previous_total >= 1  # n c >= 1: below every breakpoint each coordinate is c
    for b in breakpoints:
        current_total = total(b)
        if current_total <= 1:
            if current_total == previous_total:
                tau = b
            else:
                # linear interpolation on [previous, b]: exact since G is linear there
                tau = previous + (previous_total - 1) * (b - previous) / (previous_total - current_total)
            break
        previous, previous_total = b, current_total
    result = [min(max(v - tau, Fraction(0)), c) for v in values]
    assert sum(result) == 1
    return result


def mp_capped_softmax(theta, cap, eta=1.0, centre=None, prec=400):
    """The KKT point ``p_i = min(c, p0_i exp(-eta theta_i - lambda))`` in mpmath; returns mpf values.

    Only logit differences ``l_j - l_i = (log p0_j - log p0_i) - eta (theta_j - theta_i)`` are formed,
    each from the float inputs at ``prec`` bits (a difference of two floats is correctly rounded to
    ``prec`` bits whatever their exponents, and mpmath's exponent range is unbounded, so
    ``exp(-1e310)`` is a positive number, not 0). The capped set is decided coordinate by coordinate
    by the KKT condition itself: ``i`` is at the cap iff ``c sum_j min(1, exp(l_j - l_i)) <= 1``,
    i.e. ``s_i <= (1 - m_i c) / c`` with ``m_i = #{j : l_j >= l_i}`` (an integer) and
    ``s_i = sum_{l_j < l_i} exp(l_j - l_i)`` (a sum of positive terms, accurate to ``prec`` bits),
    against an exact rational bound. The free coordinates share ``1 - k c`` in proportion to
    ``exp(l_j - l_f)``; the KKT conditions are then asserted.
    """
    n = len(theta)
    with mpmath.workprec(prec):
        c = Fraction(float(cap))
        e = mpmath.mpf(float(eta))
        t = [mpmath.mpf(float(v)) for v in theta]
        if centre is None:
            logs = [mpmath.mpf(0)] * n
        else:
            logs = [mpmath.log(mpmath.mpf(float(v))) if float(v) > 0 else None for v in centre]
        support = [i for i in range(n) if logs[i] is not None]

        def difference(j, i):
            """l_j - l_i."""
            return (logs[j] - logs[i]) - e * (t[j] - t[i])

        capped = []
        for i in support:
            relative = [difference(j, i) for j in support]
            count = sum(1 for r in relative if r >= 0)
            room = 1 - count * c
            if room < 0:
                continue
            tail = mpmath.fsum(mpmath.exp(r) for r in relative if r < 0)
            if tail <= mpmath.mpf(room.numerator) / mpmath.mpf(room.denominator) * mpmath.mpf(c.denominator) / c.numerator:
                capped.append(i)
        free = [i for i in support if i not in capped]
        mass = 1 - len(capped) * c
        cm = mpmath.mpf(c.numerator) / c.denominator
        p = [mpmath.mpf(0)] * n
        for i in capped:
            p[i] = cm
        if free and mass > 0:
            pivot = free[0]
            for j in free:
                if difference(j, pivot) > 0:
                    pivot = j
            weights = {j: mpmath.exp(difference(j, pivot)) for j in free}
            total = mpmath.fsum(weights.values())
            share = mpmath.mpf(mass.numerator) / mass.denominator
            for j in free:
                p[j] = share * weights[j] / total
        # the KKT conditions: a point of the capped simplex, free entries below the cap
        assert abs(mpmath.fsum(p) - 1) < mpmath.mpf(2) ** (-prec + 20)
        assert all(p[j] <= cm * (1 + mpmath.mpf(2) ** (-prec + 20)) for j in free)
        return [+v for v in p]


def exact_lp_vertices(z, cap) -> Fraction:
    """``min_{p in Delta_c} <z, p>`` over every vertex of Delta_c, exactly (small n)."""
    values = [Fraction(float(v)) for v in z]
    c = Fraction(float(cap))
    n = len(values)
    K = _floor_inverse(c)
    r = 1 - K * c
    best = None
    for capped in itertools.combinations(range(n), min(K, n)):
        rest = [i for i in range(n) if i not in capped]
        base = sum(c * values[i] for i in capped)
        candidates = [base + r * values[j] for j in rest] if (rest and r) else [base]
        for value in candidates:
            best = value if best is None or value < best else best
    return best


def exact_cvar(z, cap) -> Fraction:
    """``c * (sum of the K smallest) + (1 - K c) * the next``, exactly."""
    values = sorted(Fraction(float(v)) for v in z)
    c = Fraction(float(cap))
    K = _floor_inverse(c)
    value = c * sum(values[:K])
    if K < len(values):
        value += (1 - K * c) * values[K]
    return value


def exact_kl_range(n: int, cap) -> mpmath.mpf:
    """``max_{p in Delta_c} KL(p || u_n)`` at a vertex (K coordinates c, one 1 - K c), in mpmath."""
    with mpmath.workdps(60):
        c = Fraction(float(cap))
        K = _floor_inverse(c)
        r = 1 - K * c
        cm = mpmath.mpf(c.numerator) / c.denominator
        rm = mpmath.mpf(r.numerator) / r.denominator
        value = mpmath.log(n) + K * cm * mpmath.log(cm)
        if r:
            value += rm * mpmath.log(rm)
        return +value


def _solve_exact(matrix, rhs):
    """Gaussian elimination in rationals; None if singular."""
    size = len(rhs)
    rows = [list(matrix[i]) + [rhs[i]] for i in range(size)]
    for column in range(size):
        pivot = next((r for r in range(column, size) if rows[r][column] != 0), None)
        if pivot is None:
            return None
        rows[column], rows[pivot] = rows[pivot], rows[column]
        for r in range(size):
            if r != column and rows[r][column] != 0:
                factor = rows[r][column] / rows[column][column]
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[column])]
    return [rows[i][size] / rows[i][i] for i in range(size)]


def exact_face_optimum(A, cap, p):
    """The exact optimum of ``min ||A^T q||^2`` over Delta_cap on the face of ``p``, verified by KKT.

    The face: coordinates with ``p_i == 0`` stay 0, with ``p_i == cap`` stay at the cap, the others
    are free. The face's stationarity system (rationals) ``A_F (A_F^T x + b) = tau 1``,
    ``1^T x = 1 - |U| c`` with ``b = c sum_U a_u`` is solved exactly; the point is the exact global
    optimum iff ``0 < x < c`` and the multipliers have the right signs (``g_i >= tau`` at 0,
    ``g_i <= tau`` at the cap, ``g = A A^T q``): the KKT conditions, sufficient for a convex QP.
    Returns ``(gamma^2, q)`` as rationals, or None when the face system is singular or KKT fails.
    """
    rows = [[Fraction(float(v)) for v in row] for row in A]
    c = Fraction(float(cap))
    n, d = len(rows), len(rows[0])
    zero = [i for i in range(n) if float(p[i]) == 0.0]
    upper = [i for i in range(n) if float(p[i]) == float(cap)]
    free = [i for i in range(n) if i not in zero and i not in upper]
    b = [c * sum(rows[u][j] for u in upper) for j in range(d)]

    def dot(x, y):
        return sum(a * b for a, b in zip(x, y))

    k = len(free)
    if k == 0:
        x = []
        tau = None
    else:
        gram = [[dot(rows[i], rows[j]) for j in free] + [Fraction(-1)] for i in free]
        gram.append([Fraction(1)] * k + [Fraction(0)])
        rhs = [-dot(rows[i], b) for i in free] + [1 - len(upper) * c]
        solution = _solve_exact(gram, rhs)
        if solution is None:
            return None
        x, tau = solution[:k], solution[k]
        if any(v <= 0 or v >= c for v in x):
            return None
    q = [Fraction(0)] * n
    for i in upper:
        q[i] = c
    for i, v in zip(free, x):
        q[i] = v
    if sum(q) != 1:
        return None
    z = [sum(q[i] * rows[i][j] for i in range(n)) for j in range(d)]
    g = [dot(rows[i], z) for i in range(n)]
    if tau is None:  # a vertex: any tau between max g on the cap and min g at 0
        high = max((g[i] for i in upper), default=None)
        low = min((g[i] for i in zero), default=None)
        if high is not None and low is not None and high > low:
            return None
    else:
        if any(g[i] < tau for i in zero) or any(g[i] > tau for i in upper):
            return None
    return dot(z, z), q
