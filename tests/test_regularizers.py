"""Regularizers and domains: closed forms against the generic numerical argmin, mirror maps."""

import numpy as np
import pytest
import scipy.optimize
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from gamedyn import Ball, Entropy, QNorm, Reals, Simplex, SquaredEuclidean, Zero, numerical_argmin

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
