"""The capped-simplex closed forms against exact and high-precision references (issue 19, item 1).

References (references.py, written from the definitions): the projection in rational arithmetic by
a breakpoint scan; the capped softmax as the KKT point in mpmath at a precision where every sum of
the float inputs is exact; the linear minimiser's value by enumerating every vertex of Delta_c in
rationals; kl_range at every vertex in mpmath. The laws draw magnitudes over 1e-300 .. 1e300, steps
``eta`` with ``eta * theta`` far beyond float64's exp range, clustered values at huge magnitudes
(differences exact, the values themselves ~1e300), non-uniform centres, and caps from 1/n to 1.
"""

from __future__ import annotations

import math
import os
import sys
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import gamedyn.core.capped_simplex as cs
from gamedyn.core.domains import CappedSimplex, Simplex
from gamedyn.core.numerics import NumericalRangeError
from gamedyn.core.regularizers import Entropy
from capped_references import (
    exact_cvar,
    exact_kl_range,
    exact_lp_vertices,
    exact_projection,
    examples,
    mp_capped_softmax,
)

TINY = 2.0**-1073  # two subnormal ulps: below the normal range float64 has no relative precision

# ---------------------------------------------------------------------------------- strategies


@st.composite
def magnitude(draw):
    """A float s * m * 10^e with e in [-300, 300] (or 0)."""
    if draw(st.integers(0, 15)) == 0:
        return 0.0
    return draw(st.sampled_from([-1.0, 1.0])) * draw(st.floats(1.0, 9.99)) * 10.0 ** draw(st.integers(-300, 300))


@st.composite
def wide_vector(draw, max_size=10):
    return np.array(draw(st.lists(magnitude(), min_size=1, max_size=max_size)))


@st.composite
def clustered(draw, max_size=12, lowest=-990, highest=990):
    """base + k_i * spacing with spacing = 2^(E - bits): exact floats whose differences are exact while
    the values themselves are ~2^E (up to 1e298). Returns (vector, spacing)."""
    n = draw(st.integers(1, max_size))
    exponent = draw(st.integers(lowest, highest))
    bits = draw(st.integers(4, 40))
    sign = draw(st.sampled_from([-1.0, 1.0]))
    steps = draw(st.lists(st.integers(-8, 8), min_size=n, max_size=n))
    base, spacing = sign * math.ldexp(1.0, exponent), math.ldexp(1.0, exponent - bits)
    return np.array([base + k * spacing for k in steps]), spacing


@st.composite
def cap_for(draw, n):
    """A cap in [1/n, 1]: 1, the smallest float cap, 1/(nu n) for a nu, or uniform."""
    choice = draw(st.integers(0, 3))
    if choice == 0:
        return 1.0
    if choice == 1:
        return cs.smallest_cap(n)
    if choice == 2:
        return cs.cap_from_nu(draw(st.integers(1, n)) / n, n)
    return max(cs.smallest_cap(n), draw(st.floats(1.0 / n, 1.0)))


def _assert_close_to_reference(p, reference, rtol=1e-12):
    """Each entry within ``rtol`` of the reference, relative (plus two subnormal ulps)."""
    for i, (value, exact) in enumerate(zip(p, reference)):
        exact = float(exact) if exact > mpmath.mpf(2) ** -1074 else 0.0
        assert abs(value - exact) <= rtol * exact + TINY, (i, value, exact, p, reference)


def _assert_in_domain(p, cap):
    assert np.all(p >= 0) and np.all(p <= cap), p
    assert abs(math.fsum(p) - 1.0) <= 4 * p.size * np.finfo(float).eps, math.fsum(p)


# -------------------------------------------------------------------------- scalar helpers, exact


@given(st.integers(1, 10**6))
def test_smallest_cap_is_the_smallest_float_with_n_c_at_least_1(n):
    c = cs.smallest_cap(n)
    assert Fraction(c) * n >= 1
    assert Fraction(math.nextafter(c, 0.0)) * n < 1


@given(st.floats(1e-6, 1.0))
def test_capacity_is_the_exact_floor_and_remainder(c):
    K, r = cs.capacity(c)
    exact = Fraction(c)
    assert K * exact <= 1 < (K + 1) * exact
    assert r == float(1 - K * exact)  # correctly rounded


@given(st.integers(1, 10**5), st.data())
def test_cap_from_nu_is_in_range_and_inverse(n, data):
    nu = data.draw(st.floats(1.0 / n, 1.0))
    c = cs.cap_from_nu(nu, n)
    assert Fraction(c) * n >= 1 and c <= 1.0
    if c > cs.smallest_cap(n) and c < 1.0:
        assert math.isclose(c, 1.0 / (nu * n), rel_tol=1e-15)


# ----------------------------------------------------------------------------------- projection


@settings(max_examples=examples(200))
@given(st.data())
def test_projection_equals_the_exact_qp_at_any_magnitude(data):
    """||p - p*||_inf <= 1e-12 ||p*||_inf against the rational breakpoint solution."""
    law = data.draw(st.integers(0, 2))
    if law == 0:
        z = data.draw(wide_vector())
    elif law == 1:  # huge values, differences of the order of the cap: 2^E + k 2^(E - 52)
        exponent = data.draw(st.integers(0, 60))
        steps = data.draw(st.lists(st.integers(-2**20, 2**20), min_size=1, max_size=10))
        z = np.array([math.ldexp(1.0, exponent) + k * math.ldexp(1.0, exponent - 52) for k in steps])
    else:
        z = np.array(data.draw(st.lists(st.floats(-3, 3), min_size=1, max_size=10)))
    cap = data.draw(cap_for(z.size))
    p = cs.project(z, cap)
    exact = exact_projection(z, cap)
    largest = max(exact)
    assert max(abs(Fraction(float(a)) - b) for a, b in zip(p, exact)) <= Fraction(1e-12) * largest, (p, exact)
    _assert_in_domain(p, cap)


def test_projection_at_1e16_keeps_the_fraction():
    """At 1e16 the naive cumsum(z) - 1 loses the 1; differences of the cap's order survive."""
    z = np.array([2.0**53 + 2, 2.0**53, 2.0**53 - 4, 0.0])
    assert cs.project(z, 0.5).tolist() == [0.5, 0.5, 0.0, 0.0]
    z = np.array([2.0**44 + 2.0**-8, 2.0**44, 2.0**44 - 1.0])  # ulp 2^-8 at 2^44
    p = cs.project(z, 0.5)
    exact = exact_projection(z, 0.5)
    assert [Fraction(float(v)) for v in p] == exact  # exactly representable here


@settings(max_examples=examples(100))
@given(st.data())
def test_projection_is_idempotent_and_shift_invariant(data):
    n = data.draw(st.integers(1, 30))
    cap = data.draw(cap_for(n))
    z = np.array(data.draw(st.lists(st.floats(-5, 5), min_size=n, max_size=n)))
    p = cs.project(z, cap)
    eps = np.finfo(float).eps
    # Against the exact projections (rationals), so no bound depends on which examples hypothesis draws
    # (issue 31: a fixed 2 n eps failed 1.37e-14 > 1.29e-14 under hypothesis' default settings).
    # Idempotence, exactly: the float p sums to 1 only within rounding, and the exact P(p) moves p's free
    # entries by the missing mass at most: |P(p) - p| <= |sum p - 1| (rationals; 0 when p sums to 1).
    exact_p = exact_projection(p, cap)
    missing = abs(sum(Fraction(float(v)) for v in p) - 1)
    assert max(abs(b - Fraction(float(a))) for a, b in zip(p, exact_p)) <= missing
    # The float projection of p is the exact one within the projection's rounding: a sum of at most n
    # differences of entries in [0, 1] (Higham's gamma_{n+1}, u = eps / 2), twice (the sum and the shift).
    again = cs.project(p, cap)
    assert max(abs(Fraction(float(a)) - b) for a, b in zip(again, exact_p)) <= Fraction(4 * (n + 1)) * Fraction(eps)
    shift = data.draw(st.sampled_from([2.0**10, -2.0**20, 3.0]))
    # z + shift is rounded (ulp(|z| + |shift|) / 2 per entry), tau moves by at most that and each entry by
    # twice; each projection rounds its sum of differences (spread = max z - min z) within gamma_{n+1}
    spread = float(np.max(z) - np.min(z))
    bound = 2 * eps * (float(np.max(np.abs(z))) + abs(shift)) + 4 * (n + 1) * eps * (1 + spread)
    assert np.max(np.abs(cs.project(z + shift, cap) - p)) <= bound


@settings(max_examples=examples(100))
@given(st.data())
def test_minimize_quadratic_is_the_projection_of_minus_linear_over_curvature(data):
    """argmin <l, p> + (k/2)||p||^2 = project(-l / k), including k where -l/k overflows."""
    n = data.draw(st.integers(1, 10))
    cap = data.draw(cap_for(n))
    linear = np.array(data.draw(st.lists(st.floats(-5, 5), min_size=n, max_size=n)))
    curvature = data.draw(st.sampled_from([1e-3, 0.5, 1.0, 7.0]))
    domain = CappedSimplex(cap)
    got = domain.minimize_quadratic(linear, curvature)
    exact = exact_projection(-linear / curvature, cap)
    assert max(abs(Fraction(float(a)) - b) for a, b in zip(got, exact)) <= Fraction(1e-12) * max(exact)
    # differences beyond float64 after the division: (0, 1e300, 1e300) / 1e-10 at cap 1/2
    far = domain.minimize_quadratic(np.array([0.0, 1e300, 1e300]), 1e-10) if cap >= 0.5 else None
    if far is not None:
        assert far.tolist() == ([1.0, 0.0, 0.0] if cap == 1.0 else [cap, (1 - cap) / 2, (1 - cap) / 2])


# ------------------------------------------------------------------------------ capped softmax


@settings(max_examples=examples(80))
@given(st.data())
def test_capped_softmax_equals_the_kkt_point_in_mpmath(data):
    """Every entry within 1e-12 relative of the mpmath KKT solution, over wide and clustered laws."""
    law = data.draw(st.integers(0, 2))
    if law == 0:  # independent magnitudes 1e-300 .. 1e300, eta 1e-300 .. 1e300
        theta = data.draw(wide_vector())
        eta = 10.0 ** data.draw(st.integers(-300, 300)) * data.draw(st.floats(1.0, 9.0))
    elif law == 1:  # clustered: eta * spacing of order 1, eta * theta up to 2^60 (exp range: 709)
        theta, spacing = data.draw(clustered())
        eta = data.draw(st.floats(0.05, 5.0)) / spacing
    else:
        theta = np.array(data.draw(st.lists(st.floats(-3, 3), min_size=1, max_size=12)))
        eta = data.draw(st.floats(0.0, 20.0))
    n = theta.size
    cap = data.draw(cap_for(n))
    centre = None
    if data.draw(st.booleans()):
        logs = data.draw(st.lists(st.floats(-690.0, 0.0), min_size=n, max_size=n))
        centre = np.exp(np.array(logs))
        centre = centre / centre.sum()
        assume(np.count_nonzero(centre) >= 1 / cap)
    p = cs.capped_softmax(theta, cap, eta, centre)
    _assert_close_to_reference(p, mp_capped_softmax(theta, cap, eta, centre))
    _assert_in_domain(p, cap)


@pytest.mark.parametrize("theta, eta, cap, expected", [
    ([0.0, 1e300, 1e300], 1e10, 0.5, [0.5, 0.25, 0.25]),  # eta theta = 1e310: only differences matter
    ([-1e300, 1e300, 1e300, 1e300], 1.0, 0.4, [0.4] + [(1 - 0.4) / 3] * 3),
    ([1e-300, 2e-300, 3e-300], 1e300, 0.5, None),  # eta theta ~ 1: a genuine softmax, capped
    # three tied at the top, eta (theta_j - theta_i) = inf: the last still carries 1 - 3 fl(1/3) = 5.6e-17
    ([1.0, 1.0, 1.0, 5.0], 1e300, 1 / 3, [1 / 3, 1 / 3, 1 / 3, float(1 - 3 * Fraction(1 / 3))]),
])
def test_capped_softmax_far_beyond_the_exp_range(theta, eta, cap, expected):
    theta = np.array(theta)
    p = cs.capped_softmax(theta, cap, eta)
    if expected is not None:
        assert p.tolist() == expected
    _assert_close_to_reference(p, mp_capped_softmax(theta, cap, eta))


def _usual_softmax(theta, eta):
    """The plain softmax computed the usual way: exp((theta - min) * -eta) times 1 / sum."""
    logits = (theta - theta[theta.argmin()]) * -eta
    weights = np.exp(logits)
    return weights * (1.0 / float(np.dot(weights, np.ones(theta.size))))


def _usual_projection(z):
    """The library's simplex projection (Simplex.project), written out."""
    shifted = z - z.max()
    ordered = np.sort(shifted)[::-1]
    cumulative = np.cumsum(ordered) - 1.0
    rho = np.flatnonzero(ordered * np.arange(1, z.size + 1) > cumulative)[-1]
    projected = np.maximum(shifted - cumulative[rho] / (rho + 1), 0.0)
    total = projected.sum()
    return projected if total == 1.0 else projected / total


@settings(max_examples=examples(200))
@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=50), st.floats(0.0, 1e3))
def test_cap_one_is_the_plain_softmax_and_projection_bit_for_bit(values, eta):
    theta = np.array(values)
    assert np.array_equal(cs.capped_softmax(theta, 1.0, eta), _usual_softmax(theta, eta))
    assert np.array_equal(cs.project(theta, 1.0), _usual_projection(theta))
    vertex = np.zeros(theta.size)
    vertex[theta.argmin()] = 1.0
    assert np.array_equal(cs.linear_minimizer(theta, 1.0), vertex)
    assert cs.cvar(theta, 1.0) == theta.min()
    # a cap that does not bind changes nothing either
    loose = min(1.0, max(cs.smallest_cap(theta.size), float(_usual_softmax(theta, eta).max()) * (1 + 1e-12)))
    assert np.array_equal(cs.capped_softmax(theta, loose, eta), _usual_softmax(theta, eta))


@settings(max_examples=examples(100))
@given(st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=40), st.floats(0.0, 50.0))
def test_cap_one_is_the_library_bit_for_bit(values, eta):
    """Against gamedyn's own Entropy.argmin (uniform centre), Simplex.project, Simplex.minimize_quadratic."""
    theta = np.array(values)
    n = theta.size
    assert np.array_equal(cs.capped_softmax(theta, 1.0, eta), Entropy().argmin(theta, 0.0, eta, np.full(n, 1.0 / n)))
    assert np.array_equal(cs.project(theta, 1.0), Simplex.project(theta))
    if eta > 0:
        assert np.array_equal(CappedSimplex(1.0).minimize_quadratic(theta, eta),
                              Simplex().minimize_quadratic(theta, eta))
    assert np.array_equal(cs.linear_minimizer(theta, 1.0), Simplex().linear_minimizer(theta))


@settings(max_examples=examples(100))
@given(st.data())
def test_capped_softmax_is_the_minimiser(data):
    """The objective eta <theta, p> + KL(p || p0) at p is <= its value at other points of Delta_c."""
    n = data.draw(st.integers(2, 20))
    cap = data.draw(cap_for(n))
    theta = np.array(data.draw(st.lists(st.floats(-3, 3), min_size=n, max_size=n)))
    eta = data.draw(st.floats(0.1, 10.0))
    centre = np.exp(np.array(data.draw(st.lists(st.floats(-5, 0), min_size=n, max_size=n))))
    centre /= centre.sum()

    def objective(q):
        positive = q > 0
        return eta * theta @ q + float(np.sum(q[positive] * np.log(q[positive] / centre[positive])))

    p = cs.capped_softmax(theta, cap, eta, centre)
    best = objective(p)
    for _ in range(5):
        other = cs.project(np.array(data.draw(st.lists(st.floats(-1, 1), min_size=n, max_size=n))), cap)
        assert best <= objective(other) + 1e-12 * (1 + abs(best))
        mix = 0.9 * p + 0.1 * other  # nearby points too
        assert best <= objective(mix) + 1e-12 * (1 + abs(best))


@settings(max_examples=examples(100))
@given(st.data())
def test_capped_softmax_log_output_and_centre_forms_agree(data):
    """log p is the log of p; log_centre = log(centre) + const gives the same point; order is kept."""
    n = data.draw(st.integers(1, 20))
    cap = data.draw(cap_for(n))
    theta = np.array(data.draw(st.lists(st.floats(-50, 50), min_size=n, max_size=n)))
    eta = data.draw(st.floats(0.0, 5.0))
    centre = np.exp(np.array(data.draw(st.lists(st.floats(-20, 0), min_size=n, max_size=n))))
    centre /= centre.sum()
    p, log_p = cs.capped_softmax(theta, cap, eta, centre, return_log=True)
    assert np.all(log_p <= math.log(cap))
    assert np.allclose(np.exp(log_p), p, rtol=1e-13, atol=0)
    shifted = cs.capped_softmax(theta, cap, eta, log_centre=np.log(centre) + 123.0)
    assert np.max(np.abs(shifted - p) / p) <= 1e-12
    uniform = cs.capped_softmax(theta, cap, eta)
    order = np.argsort(theta, kind="stable")
    assert np.all(np.diff(uniform[order]) <= 1e-15)  # smaller loss, larger weight


def test_capped_softmax_when_the_centre_decides_the_order():
    """Regression (found by a long hypothesis run): equal theta, eta = 2e16, a non-uniform centre.
    The sort key log p0 / eta - theta rounds both entries to -1, yet the logits differ by 1; the
    cap binds on the second coordinate, not the first the key's argmax picked."""
    centre = np.exp(np.array([-1.0, 0.0]))
    centre /= centre.sum()
    theta = np.array([1.0, 1.0])
    p = cs.capped_softmax(theta, 0.625, 2e16, centre)
    assert p.tolist() == [0.375, 0.625]
    _assert_close_to_reference(p, mp_capped_softmax(theta, 0.625, 2e16, centre))


def test_capped_softmax_with_zero_centre_entries():
    centre = np.array([0.5, 0.0, 0.5, 0.0])
    p = cs.capped_softmax(np.array([0.0, -100.0, 1.0, -100.0]), 0.5, 1.0, centre)
    assert p.tolist() == [0.5, 0.0, 0.5, 0.0]
    with pytest.raises(ValueError, match="fewer than 1/cap"):
        cs.capped_softmax(np.zeros(4), 0.4, 1.0, centre)


def test_the_single_point_cap_gives_the_uniform_distribution():
    for n in (1, 3, 7, 10):
        c = cs.smallest_cap(n)
        theta = np.arange(n, dtype=float) * 1e3
        for result in (cs.capped_softmax(theta, c, 1.0), cs.project(theta, c), cs.linear_minimizer(theta, c)):
            assert np.max(np.abs(result - 1.0 / n)) <= 2 * np.finfo(float).eps, result


@settings(max_examples=examples(30))
@given(st.data())
def test_batched_columns_equal_one_game_each(data):
    n, k = data.draw(st.integers(1, 8)), data.draw(st.integers(1, 4))
    cap = data.draw(cap_for(n))
    theta = np.array(data.draw(st.lists(st.floats(-10, 10), min_size=n * k, max_size=n * k))).reshape(n, k)
    for function in (lambda x: cs.capped_softmax(x, cap, 2.0), lambda x: cs.project(x, cap),
                     lambda x: cs.linear_minimizer(x, cap)):
        batched = function(theta)
        for column in range(k):
            assert np.array_equal(batched[:, column], function(theta[:, column]))


# --------------------------------------------------------------------- linear minimiser and CVaR


@settings(max_examples=examples(150))
@given(st.data())
def test_linear_minimizer_solves_the_exact_lp(data):
    """Its value is the LP optimum over all vertices (rationals); it is a vertex; ties go to the smallest index."""
    z = data.draw(wide_vector(max_size=7)) if data.draw(st.booleans()) else \
        np.array(data.draw(st.lists(st.integers(-3, 3), min_size=1, max_size=7)), dtype=float)
    cap = data.draw(cap_for(z.size))
    p = cs.linear_minimizer(z, cap)
    optimum = exact_lp_vertices(z, cap)
    K, r = cs.capacity(cap)
    exact_r = 1 - K * Fraction(cap)
    # the point is a vertex: K entries c, one entry r (correctly rounded), the rest 0
    vertex = [cap] * z.size if K >= z.size else [cap] * K + [r] + [0.0] * (z.size - K - 1)
    assert sorted(p.tolist(), reverse=True) == vertex
    attained = sum(Fraction(float(a)) * Fraction(float(b)) for a, b in zip(p, z))
    # p's value differs from the optimum only through the rounding of r = 1 - K c
    slack = abs(Fraction(r) - exact_r) * max(abs(Fraction(float(v))) for v in z)
    assert abs(attained - optimum) <= slack
    # ties: among equal losses the smaller index gets at least as much weight
    for i in range(z.size):
        for j in range(i + 1, z.size):
            if z[i] == z[j]:
                assert p[i] >= p[j]


@settings(max_examples=examples(300))
@given(st.data())
def test_cvar_is_the_correctly_rounded_lp_value(data):
    """cvar(z, c) == float(exact value): c (sum of the K smallest) + (1 - K c) z_(K+1), in rationals."""
    z = data.draw(wide_vector(max_size=12)) if data.draw(st.booleans()) else \
        np.array(data.draw(st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=30)))
    cap = data.draw(cap_for(z.size))
    exact = exact_cvar(z, cap)
    assert cs.cvar(z, cap) == float(exact)
    if z.size <= 7:
        assert exact == exact_lp_vertices(z, cap)


def test_cvar_examples():
    assert cs.cvar([3.0, 1.0, 2.0, 0.0], 0.25) == 1.5  # the mean
    assert cs.cvar([3.0, 1.0, 2.0, 0.0], 1.0) == 0.0  # the min
    z = [1e300, -1e300, 1.0, 2.0]
    assert cs.cvar(z, 0.5) == float((Fraction(-1e300) + 1) / 2)  # exact in spite of the spread


# ------------------------------------------------------------------------------------- kl_range


@settings(max_examples=examples(100))
@given(st.integers(1, 40), st.data())
def test_kl_range_is_the_maximum_over_the_vertices(n, data):
    cap = data.draw(cap_for(n))
    value = cs.kl_range(n, cap)
    exact = exact_kl_range(n, cap)
    assert abs(value - float(exact)) <= 1e-13 * max(1.0, float(exact))
    assert value <= math.log(n * cap) + 1e-15 * max(1.0, math.log(n))
    if cap == 1.0:
        assert value == math.log(n)
    # no point of Delta_c has a larger KL to u_n: softmaxes and projections of random vectors
    for _ in range(5):
        theta = np.array(data.draw(st.lists(st.floats(-30, 30), min_size=n, max_size=n)))
        for p in (cs.capped_softmax(theta, cap, 3.0), cs.project(theta, cap)):
            positive = p > 0
            kl = math.log(n) + float(np.sum(p[positive] * np.log(p[positive])))
            assert kl <= value + 1e-12 * max(1.0, value)


def test_kl_range_at_integer_inverse_caps_is_minus_log_nu():
    for n, nu in ((100, 0.1), (60, 0.5), (1000, 0.01), (12, 0.25)):
        cap = cs.cap_from_nu(nu, n)
        assert math.isclose(cs.kl_range(n, cap), -math.log(nu), rel_tol=1e-14)


# ----------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("call, error, message", [
    (lambda: cs.project([1.0, 2.0], 0.4), ValueError, "below 1/n"),
    (lambda: cs.project([1.0, 2.0], 1.5), ValueError, "cap must lie in"),
    (lambda: cs.project([1.0, 2.0], 0.0), ValueError, "cap must lie in"),
    (lambda: cs.project([1.0, 2.0], True), TypeError, "cap must be a real number"),
    (lambda: cs.project([1.0, np.nan], 0.5), NumericalRangeError, "non-finite"),
    (lambda: cs.capped_softmax([1.0, np.inf], 0.5), NumericalRangeError, "non-finite"),
    (lambda: cs.capped_softmax([1.0, 2.0], 0.5, eta=-1.0), ValueError, "eta must be"),
    (lambda: cs.capped_softmax([1.0, 2.0], 0.5, eta=np.inf), ValueError, "eta must be"),
    (lambda: cs.capped_softmax([1.0, 2.0], 0.5, centre=[0.5, 0.5], log_centre=[0.0, 0.0]), ValueError, "not both"),
    (lambda: cs.capped_softmax([1.0, 2.0], 0.5, centre=[0.5]), ValueError, "centre must be"),
    (lambda: cs.capped_softmax([1.0, 2.0], 0.5, centre=[-0.5, 1.5]), ValueError, "centre must be"),
    (lambda: cs.linear_minimizer([], 1.0), ValueError, "empty"),
    (lambda: cs.cvar([[1.0]], 1.0), ValueError, "1-D"),
    (lambda: cs.cap_from_nu(0.001, 10), ValueError, r"nu must lie in \[1/n, 1\]"),
    (lambda: cs.cap_from_nu(1.5, 10), ValueError, r"nu must lie in \[1/n, 1\]"),
    (lambda: cs.cap_from_nu("0.1", 10), TypeError, "nu must be a real number"),
    (lambda: cs.project(["a", "b"], 1.0), TypeError, "real array"),
])
def test_bad_input_gets_a_clear_error(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_contains():
    assert cs.contains([0.5, 0.5, 0.0], 0.5)
    assert not cs.contains([0.6, 0.4, 0.0], 0.5)
    assert not cs.contains([0.5, 0.4, 0.0], 0.5)  # sum 0.9
    assert not cs.contains([0.5, 0.5], 0.4)  # n c < 1: empty
    assert CappedSimplex(0.5).contains(CappedSimplex(0.5).default_centre(4))
