"""The front door for assembling pairs: starts that take effect, per-round metrics, comparator sets,
numerical duality gaps for ConcaveConvex payoffs."""

import numpy as np
import pytest

from gamedyn import (
    FTL, FTRL, OFTRL, OMD, Ball, Bilinear, ConcaveConvex, Entropy, RegularizedBilinear, Simplex, SquaredEuclidean,
    play,
)
from gamedyn import compare_with, each_round, record_plays, track_metrics
from gamedyn import recipes

RPS = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]])
START = np.array([0.6, 0.3, 0.1])


def test_initial_points_are_the_learners_first_plays():
    """Regularized learners without a hint start at initial_w / initial_p (before: the uniform centre)."""
    game = play(Bilinear(RPS.T), FTRL(Entropy(), 0.1), FTRL(SquaredEuclidean(domain=Simplex()), 0.1), 5,
                initial_w=START, initial_p=START[::-1].copy(), observers=[record_plays()])
    np.testing.assert_allclose(game.trace["w"][0], START, rtol=1e-15)
    np.testing.assert_allclose(game.trace["p"][0], START[::-1], rtol=1e-15)
    # the start moves the whole run: not at the equilibrium any more
    uniform = play(Bilinear(RPS.T), FTRL(Entropy(), 0.1), FTRL(Entropy(), 0.1), 5, observers=[record_plays()])
    assert np.allclose(uniform.trace["w"], 1 / 3) and not np.allclose(game.trace["w"], 1 / 3)


def test_initial_point_and_centre_must_agree():
    with pytest.raises(ValueError, match="initial_w and w_learner's centre= are both the start"):
        play(Bilinear(RPS.T), FTRL(Entropy(), 0.1, centre=[0.2, 0.2, 0.6]), FTRL(Entropy(), 0.1), 3, initial_w=START)
    same = play(Bilinear(RPS.T), FTRL(Entropy(), 0.1, centre=START), FTRL(Entropy(), 0.1), 3, initial_w=START, observers=[record_plays()])
    np.testing.assert_allclose(same.trace["w"][0], START, rtol=1e-15)


def test_a_learner_without_centre_refuses_an_initial_point():
    class Fixed:
        domain = Simplex()
        needs_current_loss = False

        def init(self, dimension, initial_loss=None):
            return None

        def play(self, state, weight, current_loss=None):
            return np.full(3, 1 / 3)

        def update(self, state, point, loss, weight):
            return None

    with pytest.raises(ValueError, match="has no centre= to start from"):
        play(Bilinear(RPS.T), Fixed(), FTRL(Entropy(), 0.1), 3, initial_w=START)
    play(Bilinear(RPS.T), Fixed(), FTRL(Entropy(), 0.1), 3)  # without initial_w it runs


def test_metrics_match_the_final_result_and_a_callback():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(7, 4))
    seen = []
    game = play(RegularizedBilinear(A), FTL(), OFTRL(Entropy(), 0.25), 30, weights="linear", observers=[track_metrics(4), each_round(lambda state: seen.append((state.w_regret, state.p_regret, state.w_weight_total)))])
    metrics = game.metrics
    assert list(metrics["t"]) == list(range(1, 31))
    np.testing.assert_allclose(metrics["w_regret"], [row[0] for row in seen], rtol=1e-14)
    np.testing.assert_allclose(metrics["theorem2_bound"], [(a + b) / s for a, b, s in seen], rtol=1e-14)
    assert list(metrics["gap_t"]) == [4, 8, 12, 16, 20, 24, 28, 30]
    assert metrics["duality_gap"][-1] == game.duality_gap and metrics["theorem2_bound"][-1] == game.theorem2_bound
    assert np.all(metrics["duality_gap"] <= metrics["theorem2_bound"][metrics["gap_t"] - 1] + 1e-12)  # Theorem 2


def test_metrics_argument_is_checked_and_off_by_default():
    assert play(Bilinear(RPS.T), FTRL(Entropy(), 0.1), FTRL(Entropy(), 0.1), 3).metrics is None
    with pytest.raises(ValueError, match=r"track_metrics\(every\) takes a positive int"):
        play(Bilinear(RPS.T), FTRL(Entropy(), 0.1), FTRL(Entropy(), 0.1), 3, observers=[track_metrics(0)])
    with pytest.raises(ValueError, match="metrics must be False, True or a positive int"):  # a recipe's run option
        recipes.hedge(RPS, 3, metrics=0)


def test_comparator_set_gives_a_finite_regret_on_the_reals():
    rng = np.random.default_rng(1)
    A = rng.normal(size=(6, 3))
    w_learner, p_learner = OMD(SquaredEuclidean(), 0.1), OMD(Entropy(), 0.1)
    game = play(Bilinear(A), w_learner, p_learner, 50)
    assert game.w_regret == np.inf
    stated = play(Bilinear(A), w_learner, p_learner, 50, observers=[compare_with(w=Ball(2.0))])
    u = -2.0 * stated.w_loss_sum.linear / np.linalg.norm(stated.w_loss_sum.linear)  # the best point of Ball(2)
    assert stated.w_regret == pytest.approx(stated.w_regret_against(u), rel=1e-12)
    with pytest.raises(TypeError, match=r"compare_with\(w=...\) \(the w_comparators run option\) must be a domain"):
        play(Bilinear(A), w_learner, p_learner, 5, observers=[compare_with(w=2.0)])


@pytest.mark.parametrize("w_domain", [Ball(1.0), Simplex()])
def test_concave_convex_gap_matches_the_structured_payoff(w_domain):
    """The numerical gap of a ConcaveConvex copy of p^T A w - |w|^2/2 equals the closed-form one."""
    rng = np.random.default_rng(2)
    A = rng.normal(size=(5, 3))
    payoff = ConcaveConvex(lambda w, p: p @ A @ w - 0.5 * w @ w, lambda w, p: A.T @ p - w, lambda w, p: A @ w,
                           w_dimension=3, p_dimension=5)
    regularizer = SquaredEuclidean(domain=w_domain)
    numerical = play(payoff, OMD(regularizer, 0.1), OMD(Entropy(), 0.1), 100)
    exact = play(RegularizedBilinear(A), OMD(regularizer, 0.1), OMD(Entropy(), 0.1), 100)
    assert numerical.duality_gap == pytest.approx(exact.duality_gap, rel=1e-7, abs=1e-9)
    np.testing.assert_allclose(numerical.w_average, exact.w_average, rtol=1e-12)


# ------------------------------------------------------------------------------- step schedules


def test_ftrl_schedule_is_hedge_with_decreasing_steps():
    from gamedyn import StepSchedule

    T, c = 20, 0.5
    x0, y0 = START, np.full(3, 1 / 3)
    game = play(Bilinear(RPS.T), FTRL(Entropy(), lambda t: c / np.sqrt(t)),
                FTRL(Entropy(), [c / np.sqrt(t) for t in range(1, T + 1)]), T, initial_w=x0, observers=[record_plays()])
    row_sum, column_sum, rows = np.zeros(3), np.zeros(3), []
    for t in range(1, T + 1):
        eta = c / np.sqrt(t)
        x = x0 * np.exp(eta * row_sum)
        y = y0 * np.exp(-eta * column_sum)
        x, y = x / x.sum(), y / y.sum()
        rows.append(x)
        row_sum, column_sum = row_sum + RPS @ y, column_sum + RPS.T @ x
    np.testing.assert_allclose(game.trace["w"], rows, rtol=1e-13)
    constant = play(Bilinear(RPS.T), FTRL(Entropy(), c), FTRL(Entropy(), c), T, initial_w=x0, observers=[record_plays()])
    assert np.abs(constant.trace["w"] - np.array(rows)).max() > 1e-2  # negative control: the schedule matters
    assert FTRL(Entropy(), (1.0, 0.5)).eta == StepSchedule((1.0, 0.5))


def test_mirror_descent_schedule_matches_its_loop():
    rng = np.random.default_rng(4)
    losses = rng.normal(size=(15, 4))
    from gamedyn import Loss, MirrorDescent, online

    schedule = [0.3 / t for t in range(1, 16)]
    result = online(MirrorDescent(SquaredEuclidean(radius=1.0), schedule), [Loss(loss) for loss in losses])
    z, plays = np.zeros(4), []
    for t, loss in enumerate(losses, start=1):
        plays.append(z)
        z = z - schedule[t - 1] * loss
        z = z * min(1.0, 1.0 / np.linalg.norm(z))
    np.testing.assert_allclose(result.plays, plays, rtol=1e-13, atol=1e-15)


def test_schedule_errors_name_the_fix():
    from gamedyn import StepSchedule

    with pytest.raises(ValueError, match="holds 2 steps but round 3 needs eta_3"):
        play(Bilinear(RPS.T), FTRL(Entropy(), [0.1, 0.1]), FTRL(Entropy(), 0.1), 3)
    with pytest.raises(ValueError, match="eta\\(2\\) = -1.0"):
        play(Bilinear(RPS.T), FTRL(Entropy(), lambda t: 1.0 if t == 1 else -1.0), FTRL(Entropy(), 0.1), 3)
    with pytest.raises(ValueError, match="positive finite steps"):
        StepSchedule([0.1, 0.0])


# ------------------------------------------------------------------ the payoff at the door (issue 31, item 6)


def _concave_convex(gradient_w=None, gradient_p=None, value=None, d=6, n=4):
    rng = np.random.default_rng(3)
    A = rng.normal(size=(n, d))
    return ConcaveConvex(value or (lambda w, p: p @ A @ w), gradient_w or (lambda w, p: A.T @ p),
                         gradient_p or (lambda w, p: A @ w), w_dimension=d, p_dimension=n, p_domain=Simplex())


def _learners():
    return OMD(SquaredEuclidean(radius=1.0), 0.1), OMD(Entropy(), 0.1)


@pytest.mark.parametrize("fault, match", [
    ({"gradient_w": lambda w, p: np.ones(5)},
     r"payoff ConcaveConvex\.loss_for_w\(p_0, w_0\) returned a loss whose linear part has shape \(5,\), but the "
     r"w-player's points have shape \(6,\).*the payoff is at fault, not the learner"),
    ({"gradient_p": lambda w, p: np.ones((4, 1))},
     r"payoff ConcaveConvex\.loss_for_p\(w_0, p_0\) returned a loss whose linear part has shape \(4, 1\)"),
    ({"gradient_w": lambda w, p: np.full(6, np.nan)},
     r"payoff ConcaveConvex\.loss_for_w\(p_0, w_0\) at the starts returned a loss with NaN or infinite entries"),
    ({"gradient_p": lambda w, p: np.log(-np.ones(4))},
     r"payoff ConcaveConvex\.loss_for_p\(w_0, p_0\) at the starts returned a loss with NaN"),
    ({"value": lambda w, p: float("nan")}, r"payoff ConcaveConvex\.value\(w_0, p_0\) = nan at the starts is not finite"),
])
def test_a_payoffs_fault_is_named_as_the_payoffs_before_round_1(fault, match):
    """play evaluates the payoff once at the starts: a wrong shape or a NaN names the payoff and its method, not a
    learner, and no round is played (before: a numpy broadcast error, "w_learner ... played an array of shape
    (5,)", "an earlier step overflowed float64. Rescale the game", or a silent NaN value)."""
    rounds = []
    with np.errstate(invalid="ignore"), pytest.raises(ValueError, match=match):
        play(_concave_convex(**fault), *_learners(), 10, observers=[each_round(lambda state: rounds.append(state.t))])
    assert rounds == []


def test_a_payoff_with_integer_losses_is_refused_at_the_door():
    from gamedyn import Loss, Payoff

    class Counts(Payoff):
        w_dimension, p_dimension, p_domain = 2, 2, Simplex()

        def value(self, w, p):
            return 0.0

        def loss_for_p(self, w, p_played=None):
            return Loss(np.array([1, 2]), 0.0)

        def loss_for_w(self, p, w_played=None):
            return Loss(np.zeros(2), 0.0)

    with pytest.raises(ValueError, match=r"payoff Counts\.loss_for_p\(w_0, p_0\) returned a loss whose linear part "
                                         r"has dtype int64, not a real floating one"):
        play(Counts(), *_learners(), 3)
    healthy = play(_concave_convex(), *_learners(), 10)  # the same checks pass a sound payoff: a normal run
    assert healthy.rounds == 10 and np.isfinite(healthy.w_regret)
