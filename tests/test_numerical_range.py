"""Issue 11, items 2-5: domains and projections at any magnitude, domain checks, no silent NaN.

Each ``test_issue_*`` reproduces a wrong answer of the old code (quoted in its docstring) and fails
on it; the property tests compare the closed forms with exact (rational or 60-digit) references.
"""

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gamedyn import (
    FTL,
    FTRL,
    OMD,
    Ball,
    Bilinear,
    ConcaveConvex,
    Entropy,
    NumericalRangeError,
    QNorm,
    Reals,
    RegularizedBilinear,
    Simplex,
    SquaredEuclidean,
    online,
    play,
)
from gamedyn.core.numerics import euclidean_norm, scaled_norm
from gamedyn.core import Loss

EPS = np.finfo(np.float64).eps
BIGGEST = np.finfo(np.float64).max

# ------------------------------------------------------------------------------ exact references


def exact_simplex_projection(z):
    """The Euclidean projection onto the simplex in rational arithmetic (exact for float input)."""
    values = [Fraction(float(v)) for v in z]
    ordered = sorted(values, reverse=True)
    total, tau = Fraction(0), None
    for k, value in enumerate(ordered, start=1):
        total += value
        candidate = (total - 1) / k
        if value > candidate:
            tau = candidate
    return [max(v - tau, Fraction(0)) for v in values]


def mp_norm(z):
    with mpmath.workdps(60):
        return mpmath.sqrt(mpmath.fsum(mpmath.mpf(float(v)) ** 2 for v in z))


magnitudes = st.integers(min_value=-323, max_value=308)
unit_entries = st.floats(min_value=-1.0, max_value=1.0, allow_nan=False, allow_subnormal=False)


@st.composite
def scaled_vectors(draw, min_size=1, max_size=8):
    """Vectors with entries in [-1, 1] times 10^k, k from -323 (subnormal) to 308, finite after scaling."""
    unit = np.array(draw(st.lists(unit_entries, min_size=min_size, max_size=max_size)))
    exponent = draw(magnitudes)
    scale = min(10.0 ** exponent, BIGGEST)
    return np.clip(unit * scale, -BIGGEST, BIGGEST)


# ----------------------------------------------------------------------------- item 2: the simplex


def test_issue_simplex_project_large_finite_input():
    """Old: IndexError for [1e16, 0]; |sum - 1| = 2.7e-5 at 1e10 and 0.34 at 1e14."""
    np.testing.assert_array_equal(Simplex.project(np.array([1e16, 0.0])), [1.0, 0.0])
    for magnitude in (1e10, 1e14, 1e16, 1e100, 1e300, BIGGEST):
        z = magnitude * np.array([1.0, 1.0 - 2**-40, -0.5, 0.25])
        projected = Simplex.project(z)
        assert np.all(projected >= 0)
        assert abs(np.sum(projected) - 1.0) <= 4 * EPS
        reference = exact_simplex_projection(z)
        np.testing.assert_allclose(projected, [float(v) for v in reference], rtol=0, atol=8 * EPS)


def test_simplex_project_degenerate_inputs():
    """Ties, a single entry, entries spanning beyond float64 (max - min overflows) and -inf entries."""
    np.testing.assert_array_equal(Simplex.project(np.array([3.0])), [1.0])
    np.testing.assert_array_equal(Simplex.project(np.full(4, 1e300)), np.full(4, 0.25))
    np.testing.assert_array_equal(Simplex.project(np.array([BIGGEST, -BIGGEST])), [1.0, 0.0])
    np.testing.assert_array_equal(Simplex.project(np.array([-np.inf, 0.0])), [0.0, 1.0])
    for bad in ([np.nan, 0.0], [np.inf, 0.0]):
        with pytest.raises(NumericalRangeError, match="Simplex.project"):
            Simplex.project(np.array(bad))


@settings(max_examples=200, deadline=None, derandomize=True)
@given(scaled_vectors(max_size=10))
def test_simplex_project_is_exact_at_every_magnitude(z):
    """Entries >= 0, sum 1 within a few ulp, and equal to the rational projection within 8 n eps."""
    projected = Simplex.project(z)
    assert np.all(projected >= 0)
    assert abs(np.sum(projected) - 1.0) <= 4 * EPS
    reference = [float(v) for v in exact_simplex_projection(z)]
    np.testing.assert_allclose(projected, reference, rtol=0, atol=8 * (z.size + 1) * EPS)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(scaled_vectors(max_size=6), st.integers(min_value=-300, max_value=300))
def test_simplex_minimize_quadratic_matches_the_exact_projection(linear, curvature_exponent):
    """argmin_p <a, p> + c/2 ||p||^2 = projection of -a/c, computed without forming -a/c."""
    curvature = 10.0 ** curvature_exponent
    point = Simplex().minimize_quadratic(linear, curvature)
    reference = _exact_quadratic_simplex(linear, curvature)
    assert np.all(point >= 0) and abs(np.sum(point) - 1.0) <= 4 * EPS
    np.testing.assert_allclose(point, reference, rtol=0, atol=8 * (linear.size + 1) * EPS)


def _exact_quadratic_simplex(linear, curvature):
    values = [-Fraction(float(a)) / Fraction(curvature) for a in linear]
    ordered = sorted(values, reverse=True)
    total, tau = Fraction(0), None
    for k, value in enumerate(ordered, start=1):
        total += value
        if value > (total - 1) / k:
            tau = (total - 1) / k
    return [float(max(v - tau, Fraction(0))) for v in values]


def test_issue_eta_1e12_game_stays_on_the_simplex():
    """Old: 20 identical rows [-0.5, -0.5] with eta = 1e12 gave p_average summing to 0.984,
    R_w + R_p = -0.011 and a negative Theorem 2 bound."""
    A = -0.5 * np.ones((20, 2))
    result = play(Bilinear(A), FTL(Ball(1.0)), FTRL(SquaredEuclidean(domain=Simplex()), 1e12), 20)
    assert np.all(result.p_average >= 0)
    assert abs(np.sum(result.p_average) - 1.0) <= 1e-12
    assert result.w_regret + result.p_regret >= 0
    assert result.theorem2_bound >= 0
    assert result.theorem2_bound >= result.duality_gap - rounding_allowance(result, A)


def rounding_allowance(result, A):
    """How far the bound may fall below the gap by rounding alone, for a bilinear game.

    For g = p^T A w, R_w + R_p = S_T * gap exactly (both sides expand to
    max_w p_bar^T A w - min_p p^T A w_bar). The two sides are computed differently: the regrets
    from T weighted played losses of size up to |played| each (T additions), the gap from
    n + d term dot products; each addition errs by at most eps times the running magnitude.
    """
    terms = result.rounds + sum(A.shape)
    magnitude = (abs(result.w_played_loss) + abs(result.p_played_loss)) / result.weight_total + np.max(np.abs(A))
    return 2 * terms * EPS * magnitude


# ------------------------------------------------------------------------------- item 3: the ball


def test_issue_ball_norms_do_not_overflow_or_underflow():
    """Old: Ball(1).project([1e200, 0]) = [0, 0]; minimize_quadratic([-1e-300], 0) = [0.];
    [-1e-160] gave 1.0000056, outside the ball."""
    ball = Ball(1.0)
    np.testing.assert_array_equal(ball.project(np.array([1e200, 0.0])), [1.0, 0.0])
    np.testing.assert_array_equal(ball.minimize_quadratic(np.array([-1e-300]), 0.0), [1.0])
    np.testing.assert_array_equal(ball.minimize_quadratic(np.array([-1e-160]), 0.0), [1.0])
    np.testing.assert_array_equal(ball.minimize_quadratic(np.array([-5e-324, 0.0]), 0.0), [1.0, 0.0])
    np.testing.assert_allclose(ball.project(np.array([BIGGEST, BIGGEST])), [2**-0.5, 2**-0.5], rtol=2 * EPS)
    assert ball.contains(np.array([1e-200, 1e-200])) and not ball.contains(np.array([1e200, 0.0]))
    assert euclidean_norm([3e-200, 4e-200]) == pytest.approx(5e-200, rel=2 * EPS)
    assert euclidean_norm([BIGGEST, BIGGEST]) == np.inf  # the norm itself is beyond float64
    assert scaled_norm([BIGGEST, BIGGEST]) == (BIGGEST, pytest.approx(2**0.5, rel=EPS))


@settings(max_examples=200, deadline=None, derandomize=True)
@given(scaled_vectors(), st.sampled_from([1e-300, 1e-5, 1.0, 1e5, 1e300]))
def test_ball_project_matches_60_digit_reference(z, radius):
    ball = Ball(radius)
    projected = ball.project(z)
    norm = mp_norm(z)
    with mpmath.workdps(60):
        factor = min(mpmath.mpf(1), mpmath.mpf(radius) / norm) if norm > 0 else mpmath.mpf(1)
        reference = np.array([float(mpmath.mpf(float(v)) * factor) for v in z])
    np.testing.assert_allclose(projected, reference, rtol=4 * EPS, atol=0)
    assert ball.contains(projected, tolerance=4 * EPS)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(scaled_vectors(), st.sampled_from([0.0, 1e-300, 1e-3, 1.0, 1e300]))
def test_ball_minimize_quadratic_matches_60_digit_reference(linear, curvature):
    """argmin_{||z|| <= 1} <a, z> + c/2 ||z||^2 = -a/c if ||a|| <= c, else -a/||a||."""
    point = Ball(1.0).minimize_quadratic(linear, curvature)
    norm = mp_norm(linear)
    with mpmath.workdps(60):
        if norm == 0:
            reference = np.zeros_like(linear)
        else:
            divisor = mpmath.mpf(curvature) if curvature > 0 and norm <= curvature else norm
            reference = np.array([float(-mpmath.mpf(float(a)) / divisor) for a in linear])
    np.testing.assert_allclose(point, reference, rtol=4 * EPS, atol=0)


def test_issue_theorem2_bound_never_below_gap_at_tiny_weights():
    """Old: weights = 1e-300 gave bound 0.0 with duality gap 1.0."""
    result = play(Bilinear([[1.0]]), FTL(Ball(1.0)), FTL(Simplex()), 1, weights=1e-300)
    assert result.duality_gap == 1.0
    assert result.theorem2_bound >= result.duality_gap


@pytest.mark.parametrize("scale", [1e-300, 1e-155, 1e155, 1e300])
@pytest.mark.parametrize("w_learner", ["ftrl-ball", "omd-ball", "ftl-ball"])
def test_issue_games_are_scale_equivariant(scale, w_learner):
    """Weights s with steps eta / s are the same game: same plays, regrets times s, same bound.

    Old: at s = 1e155 the ball's norm overflowed and the bound came out negative."""
    A = np.random.default_rng(3).uniform(-1, 1, size=(6, 4))

    def game(weight):
        learners = {
            "ftrl-ball": FTRL(SquaredEuclidean(radius=1.0), 0.3 / weight),
            "omd-ball": OMD(SquaredEuclidean(radius=1.0), 0.3 / weight),
            "ftl-ball": FTL(Ball(1.0)),
        }
        return play(Bilinear(A), learners[w_learner], FTRL(Entropy(), 0.7 / weight), 30, weights=weight)

    reference, scaled = game(1.0), game(scale)
    np.testing.assert_allclose(scaled.w_average, reference.w_average, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(scaled.p_average, reference.p_average, rtol=1e-10, atol=1e-12)
    assert scaled.theorem2_bound == pytest.approx(reference.theorem2_bound, rel=1e-9, abs=1e-12)
    assert scaled.w_regret / scale == pytest.approx(reference.w_regret, rel=1e-9, abs=1e-12)
    assert scaled.theorem2_bound >= scaled.duality_gap - rounding_allowance(scaled, A)


def test_entropy_argmin_at_extreme_steps():
    """Softmax of log p0 - eta a with eta * a beyond float64: no NaN, the exact vertex or mixture."""
    entropy = Entropy()
    centre = np.full(3, 1 / 3)
    np.testing.assert_array_equal(entropy.argmin(np.array([1e300, 0.0, 2e300]), 0.0, 1e300, centre), [0, 1, 0])
    np.testing.assert_array_equal(entropy.argmin(np.array([BIGGEST, -BIGGEST, 0.0]), 0.0, 1e-300, centre), [0, 1, 0])
    # The minimum off the centre's support: the support's own minimum wins.
    point = entropy.argmin(np.array([0.0, 1e300, 2e300]), 0.0, 1e10, np.array([0.0, 0.5, 0.5]))
    np.testing.assert_array_equal(point, [0.0, 1.0, 0.0])
    with pytest.raises(NumericalRangeError, match="Entropy.argmin"):
        entropy.argmin(np.array([np.nan, 0.0, 0.0]), 0.0, 1.0, centre)


def test_qnorm_value_at_extreme_magnitudes():
    regularizer = QNorm(1.5)
    for magnitude in (1e-200, 1.0, 1e150):
        z = magnitude * np.array([3.0, -4.0, 0.5])
        with mpmath.workdps(60):
            norm = mpmath.fsum(abs(mpmath.mpf(float(v))) ** 1.5 for v in z) ** (1 / mpmath.mpf(1.5))
            expected = float(norm**2 / (2 * mpmath.mpf(0.5)))
        assert regularizer.value(z) == pytest.approx(expected, rel=8 * EPS)


# ---------------------------------------------------------------------------- item 4: the domains


def test_issue_p_learner_off_the_simplex_is_refused():
    """Old: accepted, and returned a fake exact saddle point (p_average 0, regrets 0, bound 0, gap 0)."""
    A = np.random.default_rng(0).uniform(-1, 1, size=(5, 3))
    with pytest.raises(ValueError, match=r"p_learner plays on Ball\(radius=1.0\).*Simplex\(\).*Entropy"):
        play(Bilinear(A), OMD(SquaredEuclidean(radius=1.0), 0.5), FTRL(SquaredEuclidean(radius=1.0), 1.0), 20)
    with pytest.raises(ValueError, match=r"p_learner plays on Reals\(\)"):
        play(RegularizedBilinear(A), FTL(), FTRL(SquaredEuclidean(), 1.0), 20)


def test_bilinear_w_player_may_play_on_any_domain():
    A = np.random.default_rng(1).uniform(-1, 1, size=(5, 3))
    for w_learner in (FTL(Ball(2.0)), FTRL(SquaredEuclidean(domain=Simplex()), 0.1), FTRL(SquaredEuclidean(), 0.1)):
        result = play(Bilinear(A), w_learner, FTRL(Entropy(), 1.0), 10)
        assert Simplex().contains(result.p_average, tolerance=1e-12)
    assert Bilinear(A).p_domain == Simplex() and Bilinear(A).w_domain is None


def _concave_convex(**domains):
    A = np.array([[1.0, -1.0], [-0.5, 2.0]])
    return ConcaveConvex(lambda w, p: p @ A @ w - 0.5 * w @ w, lambda w, p: A.T @ p - w, lambda w, p: A @ w,
                         w_dimension=2, p_dimension=2, **domains)


def test_concave_convex_declares_domains_optionally():
    free = _concave_convex()
    assert free.w_domain is None and free.p_domain is None
    play(free, OMD(SquaredEuclidean(), 0.1), OMD(SquaredEuclidean(), 0.1), 5)  # any domain: accepted
    declared = _concave_convex(p_domain=Simplex(), w_domain=Ball(1.0))
    play(declared, OMD(SquaredEuclidean(radius=1.0), 0.1), OMD(Entropy(), 0.1), 5)
    with pytest.raises(ValueError, match=r"w_learner plays on Reals\(\).*Ball\(radius=1.0\)"):
        play(declared, OMD(SquaredEuclidean(), 0.1), OMD(Entropy(), 0.1), 5)
    with pytest.raises(ValueError, match=r"p_learner plays on Ball\(radius=1.0\).*Simplex\(\)"):
        play(declared, OMD(SquaredEuclidean(radius=1.0), 0.1), OMD(SquaredEuclidean(radius=1.0), 0.1), 5)
    with pytest.raises(TypeError, match="p_domain must be a domain"):
        _concave_convex(p_domain="simplex")


# ------------------------------------------------------------------------- item 5: no silent NaN


def test_issue_overflow_raises_a_named_error_not_nan():
    """Old: w_regret = nan and theorem2_bound = nan, with only numpy warnings."""
    for T in (2, 3, 10):
        with pytest.raises(NumericalRangeError, match=r"overflowed float64.*eta by s"):
            with np.errstate(over="ignore"):
                play(Bilinear([[BIGGEST]]), FTL(Ball(1.0)), FTL(Simplex()), T)
    assert issubclass(NumericalRangeError, FloatingPointError)
    # The fix the message names: the rescaled game is finite and exact.
    result = play(Bilinear([[1.0]]), FTL(Ball(1.0)), FTL(Simplex()), 2)
    assert (result.w_regret, result.p_regret, result.theorem2_bound, result.duality_gap) == (1.0, 0.0, 0.5, 0.5)


def test_overflowing_weights_raise():
    with pytest.raises(NumericalRangeError, match="weight_total"):
        with np.errstate(over="ignore"):
            play(Bilinear([[1.0]]), FTL(Ball(1.0)), FTRL(Entropy(), 1.0), 2, weights=BIGGEST)


def test_unbounded_regret_stays_a_documented_inf():
    """R^d with a linear loss has no best point: regret and bound inf (not an error, not NaN)."""
    A = np.random.default_rng(2).uniform(-1, 1, size=(4, 3))
    result = play(Bilinear(A), FTRL(SquaredEuclidean(), 1.0), FTRL(Entropy(), 1.0), 5)
    assert result.w_regret == np.inf and result.theorem2_bound == np.inf and result.duality_gap == np.inf
    assert np.isfinite(result.p_regret)
    assert type(result.w_regret) is float


def test_online_refuses_nan():
    losses = [Loss(np.array([BIGGEST, 0.0])), Loss(np.array([BIGGEST, 0.0]))]
    with pytest.raises(NumericalRangeError, match="online"):
        with np.errstate(over="ignore", invalid="ignore"):
            online(FTL(Simplex()), losses)
    assert online(FTRL(SquaredEuclidean(), 1.0), [Loss(np.array([1.0]))]).regret == np.inf
    assert isinstance(Reals().minimize_quadratic(np.array([1.0]), 1e-300), np.ndarray)
    with pytest.raises(NumericalRangeError, match="Reals.minimize_quadratic"):
        Reals().minimize_quadratic(np.array([1e300]), 1e-300)


def test_subnormal_weights_are_refused():
    """Found by tests/test_fuzz.py. Old: weights = 1e-312 gave p_average summing to 1 +- 1e-11
    (a subnormal alpha_t keeps ~10 digits of alpha_t p_t)."""
    A = np.zeros((2, 1))
    for weights in (1e-312, [1.0, 1e-320], lambda t: 1e-310):
        with pytest.raises(ValueError, match="subnormal.*divide each learner's eta by c"):
            play(Bilinear(A), FTL(Ball(1.0)), FTRL(Entropy(), 1.0), 2, weights=weights)
    smallest_normal = np.finfo(np.float64).tiny
    result = play(Bilinear(A), FTL(Ball(1.0)), FTRL(Entropy(), 1.0), 2, weights=smallest_normal)
    assert abs(np.sum(result.p_average) - 1.0) <= 4 * EPS


@pytest.mark.parametrize("entry", [1e154, -2e154, 1e200])
def test_an_overflow_in_a_best_reply_says_rescale_not_nan_from_your_functions(entry):
    """Every stored number is moderate (|A^T p| = |entry|, curvature 0.1), but the w-player's best reply
    -A^T p / 0.1 has value |entry|^2 / 0.2, beyond float64: the regret is NaN by overflow. The error must
    say so (Rescale) instead of blaming the functions passed (found by tests/test_fuzz.py under CI=true)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with pytest.raises(NumericalRangeError, match="Rescale") as caught:
            play(RegularizedBilinear(np.array([[entry]]), strength=0.1), FTL(Reals()), FTL(Simplex()), T=1)
    assert "entered the run from a function" not in str(caught.value)
