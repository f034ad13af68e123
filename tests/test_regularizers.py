"""Regularizers and domains: closed forms against the generic numerical argmin, mirror maps."""

from fractions import Fraction

import numpy as np
import pytest
import scipy.optimize
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from gamedyn import (
    Ball, Entropy, L1Ball, NumericalRangeError, QNorm, Reals, Simplex, SquaredEuclidean, Zero, numerical_argmin,
)

finite = st.floats(-3, 3, allow_nan=False, allow_infinity=False)


def vectors(size):
    return arrays(np.float64, size, elements=finite)


def simplex_points(size):
    return vectors(size).map(lambda x: np.exp(x) / np.sum(np.exp(x)))


def objective(regularizer, linear, curvature, eta, centre, z):
    return eta * (linear @ z + 0.5 * curvature * z @ z) + regularizer.bregman(z, centre)


@settings(max_examples=40, deadline=None)
@given(linear=vectors(6), centre=simplex_points(6), eta=st.floats(0.05, 3))
def test_entropy_closed_form_matches_numerical_argmin(linear, centre, eta):
    regularizer = Entropy()
    closed = regularizer.argmin(linear, 0.0, eta, centre)
    numerical = numerical_argmin(regularizer, linear, 0.0, eta, centre)
    assert np.max(np.abs(closed - numerical)) <= 1e-6
    assert Simplex().contains(closed)


@settings(max_examples=40, deadline=None)
@given(linear=vectors(5), centre=vectors(5), eta=st.floats(0.05, 3), curvature=st.floats(0, 3),
       domain=st.sampled_from([Reals(), Ball(0.2), Ball(1.0), Ball(5.0), Simplex()]))
def test_squared_euclidean_closed_form_matches_numerical_argmin(linear, centre, eta, curvature, domain):
    regularizer = SquaredEuclidean(domain=domain)
    centre = domain.project(centre)
    closed = regularizer.argmin(linear, curvature, eta, centre)
    numerical = numerical_argmin(regularizer, linear, curvature, eta, centre)
    assert np.max(np.abs(closed - numerical)) <= 1e-6
    assert regularizer.domain.contains(closed)


@settings(max_examples=40, deadline=None)
@given(linear=vectors(5), centre=vectors(5), eta=st.floats(0.05, 3), q=st.floats(1.2, 2.0))
def test_qnorm_closed_form_matches_numerical_argmin(linear, centre, eta, q):
    regularizer = QNorm(q)
    closed = regularizer.argmin(linear, 0.0, eta, centre)
    numerical = numerical_argmin(regularizer, linear, 0.0, eta, centre)
    scale = max(1.0, np.max(np.abs(closed)))
    assert np.max(np.abs(closed - numerical)) <= 1e-6 * scale
    # First-order condition of the closed form, to rounding.
    np.testing.assert_allclose(regularizer.mirror_map(closed), regularizer.mirror_map(centre) - eta * linear, atol=1e-10)


@settings(max_examples=40, deadline=None)
@given(linear=vectors(5), curvature=st.floats(0.1, 3), domain=st.sampled_from([Reals(), Ball(1.0), Ball(0.3), Simplex()]))
def test_zero_regularizer_closed_form_is_the_minimiser(linear, curvature, domain):
    regularizer = Zero(domain)
    centre = domain.default_centre(5)
    closed = regularizer.argmin(linear, curvature, 1.0, centre)
    assert domain.contains(closed)
    # Compare with a direct scipy solve of the strongly convex quadratic over the domain.
    def loss(z):
        return linear @ z + 0.5 * curvature * z @ z, linear + curvature * z

    if isinstance(domain, Simplex):
        constraints = [{"type": "eq", "fun": lambda z: np.sum(z) - 1.0, "jac": lambda z: np.ones(5)}]
        bounds = [(0, 1)] * 5
    elif isinstance(domain, Ball):
        constraints = [{"type": "ineq", "fun": lambda z: domain.radius**2 - z @ z, "jac": lambda z: -2 * z}]
        bounds = None
    else:
        constraints, bounds = [], None
    numerical = scipy.optimize.minimize(loss, centre, jac=True, method="SLSQP", bounds=bounds,
                                        constraints=constraints, options={"ftol": 1e-15, "maxiter": 1000}).x
    assert np.max(np.abs(closed - numerical)) <= 1e-6
    # Optimality against random feasible points.
    rng = np.random.default_rng(0)
    value = linear @ closed + 0.5 * curvature * closed @ closed
    for _ in range(50):
        other = rng.normal(size=5)
        other = other if isinstance(domain, Reals) else domain.project(other)
        assert value <= linear @ other + 0.5 * curvature * other @ other + 1e-12


def test_entropy_with_curvature_uses_numerical_solver_and_is_optimal():
    rng = np.random.default_rng(1)
    linear, centre = rng.normal(size=4), np.full(4, 0.25)
    z = Entropy().argmin(linear, 2.0, 0.7, centre)
    base = objective(Entropy(), linear, 2.0, 0.7, centre, z)
    for _ in range(200):
        other = rng.dirichlet(np.ones(4))
        assert base <= objective(Entropy(), linear, 2.0, 0.7, centre, other) + 1e-9


def test_zero_regularizer_simplex_tie_rule_and_unbounded_error():
    vertex = Zero(Simplex()).argmin(np.array([1.0, -2.0, -2.0]), 0.0, 1.0, None)
    np.testing.assert_array_equal(vertex, [0.0, 1.0, 0.0])  # smallest index among the tied minima
    with pytest.raises(ValueError, match="unbounded below"):
        Zero().argmin(np.array([1.0, 0.0]), 0.0, 1.0, np.zeros(2))


@settings(max_examples=60, deadline=None)
@given(z=simplex_points(7))
def test_entropy_mirror_map_inverse(z):
    np.testing.assert_allclose(Entropy().inverse_mirror_map(Entropy().mirror_map(z)), z, rtol=1e-12, atol=1e-300)


@settings(max_examples=60, deadline=None)
@given(z=vectors(6), q=st.floats(1.1, 2.0))
def test_qnorm_mirror_map_inverse(z, q):
    regularizer = QNorm(q)
    np.testing.assert_allclose(regularizer.inverse_mirror_map(regularizer.mirror_map(z)), z, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(regularizer.mirror_map(regularizer.inverse_mirror_map(z)), z, rtol=1e-9, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(z=vectors(6), radius=st.one_of(st.none(), st.floats(0.5, 10)))
def test_euclidean_mirror_map_inverse(z, radius):
    regularizer = SquaredEuclidean(radius=radius)
    if radius is not None:
        z = regularizer.domain.project(z)
    np.testing.assert_allclose(regularizer.inverse_mirror_map(regularizer.mirror_map(z)), z, rtol=1e-14)


@settings(max_examples=60, deadline=None)
@given(z=simplex_points(5), centre=simplex_points(5))
def test_entropy_bregman_is_kl_and_nonnegative(z, centre):
    kl = float(np.sum(z * np.log(z / centre)))
    assert Entropy().bregman(z, centre) == pytest.approx(kl, abs=1e-12)
    assert Entropy().bregman(z, centre) >= -1e-15


@settings(max_examples=60, deadline=None)
@given(z=vectors(5), centre=vectors(5), q=st.floats(1.1, 2.0))
def test_qnorm_bregman_nonnegative_and_strongly_convex(z, centre, q):
    regularizer = QNorm(q)
    # 1-strong convexity w.r.t. the q-norm: D(z, c) >= 1/2 ||z - c||_q^2.
    assert regularizer.bregman(z, centre) >= 0.5 * np.linalg.norm(z - centre, ord=q) ** 2 - 1e-9 * (1 + z @ z + centre @ centre)


def test_simplex_projection_is_exact_euclidean_projection():
    rng = np.random.default_rng(3)
    for _ in range(50):
        z = rng.normal(size=6) * 2
        projected = Simplex.project(z)
        assert Simplex().contains(projected)
        for _ in range(20):
            other = rng.dirichlet(np.ones(6))
            assert np.linalg.norm(projected - z) <= np.linalg.norm(other - z) + 1e-12


@pytest.mark.parametrize("bad", [1.0, 2.5, 0.5, float("nan")])
def test_qnorm_rejects_q_outside_interval(bad):
    with pytest.raises(ValueError, match=r"q must lie in \(1, 2\]"):
        QNorm(bad)


def test_ball_rejects_nonpositive_radius():
    with pytest.raises(ValueError, match="radius"):
        SquaredEuclidean(radius=-1.0)


@settings(max_examples=30, deadline=None)
@given(linear=vectors(5), centre=vectors(5), eta=st.floats(0.05, 3), curvature=st.floats(0.05, 3), q=st.floats(1.2, 2.0))
def test_qnorm_with_curvature_numerical_argmin_is_optimal(linear, centre, eta, curvature, q):
    regularizer = QNorm(q)
    z = regularizer.argmin(linear, curvature, eta, centre)  # no closed form: the numerical solver
    residual = regularizer.mirror_map(z) - regularizer.mirror_map(centre) + eta * (linear + curvature * z)
    assert np.max(np.abs(residual)) <= 1e-6 * (1 + np.max(np.abs(regularizer.mirror_map(centre))))
    base = objective(regularizer, linear, curvature, eta, centre, z)
    rng = np.random.default_rng(0)
    for _ in range(30):
        assert base <= objective(regularizer, linear, curvature, eta, centre, z + 1e-3 * rng.normal(size=5)) + 1e-12


# --------------------------------------------- the l1 ball at every magnitude (issue 16, defect 1)

EPS = np.finfo(np.float64).eps


def exact_l1_projection(z, radius):
    """The Euclidean projection onto {||x||_1 <= r} in rational arithmetic, and its threshold lambda.

    Written from the KKT conditions, independently of the library: x_i = sign(z_i) max(|z_i| - lambda, 0)
    with lambda = 0 inside the ball, else the lambda > 0 with sum_i max(|z_i| - lambda, 0) = r
    (the largest k with |z|_(k) > (sum_{j<=k} |z|_(j) - r) / k fixes it).
    """
    values = [Fraction(float(v)) for v in z]
    r = Fraction(float(radius))
    if sum(abs(v) for v in values) <= r:
        return values, Fraction(0)
    total, threshold = Fraction(0), None
    for k, value in enumerate(sorted((abs(v) for v in values), reverse=True), start=1):
        total += value
        if value > (total - r) / k:
            threshold = (total - r) / k
    return [(1 if v > 0 else -1) * max(abs(v) - threshold, Fraction(0)) for v in values], threshold


def check_l1_projection(z, radius, projected):
    """In the ball to (n + 6) eps, equal to the exact projection within 8 (n + 1) eps r, and the KKT
    conditions of the projection onto a polytope checked exactly on the floats returned."""
    n = z.size
    assert projected.shape == z.shape and projected.dtype == np.float64 and np.all(np.isfinite(projected))
    p = [Fraction(float(v)) for v in projected]
    r = Fraction(float(radius))
    norm = sum(abs(v) for v in p)
    assert norm <= r * (1 + (n + 6) * Fraction(EPS)), float(norm / r - 1) / EPS
    reference, threshold = exact_l1_projection(z, radius)
    error = max(abs(a - b) for a, b in zip(p, reference))
    assert error <= 8 * (n + 1) * Fraction(EPS) * r, float(error / r) / EPS
    # KKT (variational inequality): <z - p, v - p> <= 0 at every vertex v = +-r e_i, exactly, up to the
    # rounding of p (|p - p*| <= 8 (n + 1) eps r) on the scale r (r + max|z|) of the products.
    values = [Fraction(float(v)) for v in z]
    slack = 8 * (n + 1) * Fraction(EPS) * r * (4 * r + 2 * max(abs(v) for v in values)) * n
    residual = [a - b for a, b in zip(values, p)]
    for i in range(n):
        for sign in (1, -1):
            inner = sum(residual[j] * ((sign * r if j == i else 0) - p[j]) for j in range(n))
            assert inner <= slack
    # Complementary slackness: a point outside the ball is projected onto its boundary.
    if threshold > 0:
        assert norm >= r * (1 - (n + 6) * Fraction(EPS))
        # Signs agree (no entry flips across 0), and entries below the threshold are 0.
        for a, b in zip(values, p):
            assert a * b >= 0 and (b == 0 or abs(a) > threshold * (1 - Fraction(1, 2**40)))


l1_magnitudes = st.integers(min_value=-300, max_value=300)
l1_units = st.floats(min_value=-1.0, max_value=1.0, allow_nan=False, allow_subnormal=False)


@st.composite
def l1_cases(draw):
    """(z, radius): entries in [-1, 1] times 10^k, k in [-300, 300], some near-ties (top (1 - j eps)),
    and a radius either of its own magnitude (10^j) or a fraction 10^-j (j <= 20) of max|z|."""
    n = draw(st.integers(1, 7))
    exponent = draw(l1_magnitudes)
    if draw(st.booleans()):
        unit = np.array(draw(st.lists(l1_units, min_size=n, max_size=n)))
    else:  # near-ties: |z_i| within a few ulps of the largest, random signs
        steps = np.array(draw(st.lists(st.integers(0, 64), min_size=n, max_size=n)), dtype=np.float64)
        signs = np.array(draw(st.lists(st.sampled_from([1.0, -1.0]), min_size=n, max_size=n)))
        unit = signs * (1.0 - steps * EPS)
    z = unit * 10.0 ** exponent
    top = float(np.max(np.abs(z)))
    if top > 0 and draw(st.booleans()):
        radius = top * 10.0 ** -draw(st.integers(0, 20)) * draw(st.floats(0.5, 2.0))
    else:
        radius = 10.0 ** draw(l1_magnitudes) * draw(st.floats(0.5, 2.0))
    radius = min(max(radius, 1e-300), 1e300)
    return z, radius


def test_issue_l1_project_large_finite_input():
    """Old: IndexError for [1e16, 0]; ||p||_1 = 2 for radius 1 on the near-ties 1e16 (1, 1 - 2^-40, -1/2, 1/4)."""
    np.testing.assert_array_equal(L1Ball().project([1e16, 0.0]), [1.0, 0.0])
    np.testing.assert_array_equal(L1Ball(1.0).project([0.0, -1e16]), [0.0, -1.0])
    for magnitude in (1e10, 1e14, 1e16, 1e100, 1e300, np.finfo(np.float64).max):
        z = magnitude * np.array([1.0, 1.0 - 2**-40, -0.5, 0.25])
        projected = L1Ball(1.0).project(z)
        assert np.sum(np.abs(projected)) <= 1.0 + 10 * EPS
        check_l1_projection(z, 1.0, projected)
    # an l1 sum beyond float64: outside the ball, projected onto it
    check_l1_projection(np.array([1.7e308, -1.7e308, 1e308]), 1e300, L1Ball(1e300).project([1.7e308, -1.7e308, 1e308]))


@settings(max_examples=300, deadline=None)
@given(l1_cases())
def test_l1_project_is_the_exact_projection_at_every_magnitude(case):
    z, radius = case
    check_l1_projection(z, radius, L1Ball(radius).project(z))


@settings(max_examples=100, deadline=None)
@given(l1_cases(), st.integers(-300, 300))
def test_l1_minimize_quadratic_is_the_projection_of_minus_linear_over_c(case, curvature_exponent):
    """argmin over the ball of <a, x> + c/2 ||x||^2 = the projection of -a/c, also where -a/c is beyond float64."""
    linear, radius = case
    curvature = 10.0 ** curvature_exponent
    point = L1Ball(radius).minimize_quadratic(linear, curvature)
    quotient = [-Fraction(float(a)) / Fraction(curvature) for a in linear]
    r = Fraction(float(radius))
    n = linear.size
    p = [Fraction(float(v)) for v in point]
    assert sum(abs(v) for v in p) <= r * (1 + (n + 6) * Fraction(EPS))
    # The exact projection of the exact quotient, from the same KKT recipe on rationals.
    if sum(abs(v) for v in quotient) <= r:
        reference = quotient
    else:
        total, threshold = Fraction(0), None
        for k, value in enumerate(sorted((abs(v) for v in quotient), reverse=True), start=1):
            total += value
            if value > (total - r) / k:
                threshold = (total - r) / k
        reference = [(1 if v > 0 else -1) * max(abs(v) - threshold, Fraction(0)) for v in quotient]
    error = max(abs(a - b) for a, b in zip(p, reference))
    assert error <= 8 * (n + 2) * Fraction(EPS) * r, float(error / r) / EPS


def test_l1_oracles_refuse_non_finite_input():
    for bad in ([np.nan, 0.0], [np.inf, 1.0], [0.0, -np.inf]):
        with pytest.raises(NumericalRangeError, match="L1Ball.project"):
            L1Ball().project(bad)
        with pytest.raises(NumericalRangeError, match="L1Ball.linear_minimizer"):
            L1Ball().linear_minimizer(bad)
        with pytest.raises(NumericalRangeError, match="L1Ball.minimize_quadratic"):
            L1Ball().minimize_quadratic(np.array(bad), 1.0)
    np.testing.assert_array_equal(L1Ball(2.0).linear_minimizer([0.5, -3.0, 3.0]), [0.0, 2.0, 0.0])
    np.testing.assert_array_equal(L1Ball(2.0).linear_minimizer([0.0, 0.0]), [0.0, 0.0])
