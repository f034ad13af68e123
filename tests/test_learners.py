"""Learners: reductions between them, hand-computed first rounds, regret bounds, domains."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gamedyn import (
    FTL, FTRL, OFTL, OFTRL, OMD, Ball, Entropy, FollowTheRegularizedLeader, FTRLPlus, LastLoss, Loss,
    MirrorDescent, NoHint, QNorm, Simplex, SquaredEuclidean, Zero, online,
)


def loss_sequences(dimension, max_rounds=25, curvature=False):
    """Random adversarial loss sequences with weights."""

    @st.composite
    def build(draw):
        T = draw(st.integers(1, max_rounds))
        seed = draw(st.integers(0, 2**32 - 1))
        scale = draw(st.floats(0.01, 5))
        rng = np.random.default_rng(seed)
        curvatures = rng.uniform(0, 1, size=T) if curvature else np.zeros(T)
        losses = [Loss(scale * rng.normal(size=dimension), float(c)) for c in curvatures]
        weights = rng.uniform(0.1, 3, size=T)
        return losses, weights

    return build()


class ZeroHint(NoHint):
    """A hint that is always the zero loss (not None): OMD must then reduce to mirror descent."""

    def predict(self, state, current_loss=None):
        return Loss.zero(self.dimension)

    def init(self, dimension, initial_loss):
        object.__setattr__(self, "dimension", dimension)
        return None


@settings(max_examples=40, deadline=None)
@given(data=loss_sequences(5), eta=st.floats(0.05, 2))
def test_oftrl_without_hint_is_ftrl(data, eta):
    losses, weights = data
    ftrl = online(FTRL(Entropy(), eta), losses, weights)
    oftrl = online(OFTRL(Entropy(), eta, hint=NoHint()), losses, weights)
    np.testing.assert_array_equal(oftrl.plays, ftrl.plays)


@settings(max_examples=40, deadline=None)
@given(data=loss_sequences(5), eta=st.floats(0.05, 2), radius=st.floats(0.5, 3))
def test_omd_with_zero_hint_is_mirror_descent(data, eta, radius):
    losses, weights = data
    for regularizer in (Entropy(), SquaredEuclidean(radius=radius)):
        plain = online(MirrorDescent(regularizer, eta), losses, weights)
        hinted = online(OMD(regularizer, eta, hint=ZeroHint()), losses, weights)
        np.testing.assert_allclose(hinted.plays, plain.plays, rtol=1e-12, atol=1e-15)


class CurrentLossGivenByHand(LastLoss):
    """psi_t = f_t supplied through a custom hint that is handed the loss sequence in advance."""

    def __init__(self, losses):
        object.__setattr__(self, "losses", losses)

    def init(self, dimension, initial_loss):
        return 0

    def predict(self, state, current_loss=None):
        return self.losses[state]

    def update(self, state, point, loss, weight):
        return state + 1


@settings(max_examples=40, deadline=None)
@given(data=loss_sequences(4, curvature=True), eta=st.floats(0.05, 2))
def test_ftrl_plus_is_oftrl_with_the_current_loss_as_hint(data, eta):
    losses, weights = data
    for regularizer in (Entropy(), SquaredEuclidean(), SquaredEuclidean(radius=1.0)):
        if isinstance(regularizer, Entropy):
            sequence = [Loss(loss.linear, 0.0) for loss in losses]
        else:
            sequence = losses
        plus = online(FTRLPlus(regularizer, eta), sequence, weights)
        optimistic = online(OFTRL(regularizer, eta, hint=CurrentLossGivenByHand(sequence)), sequence, weights)
        np.testing.assert_allclose(plus.plays, optimistic.plays, rtol=1e-13, atol=1e-15)


# ----------------------------------------------------- hand-computed first two rounds (t = 1 convention)

f0, f1, f2 = (Loss(np.array(v), 0.0) for v in ([1.0, 0.0, -1.0], [0.5, 2.0, 0.0], [0.0, -1.0, 1.0]))
a1, a2 = 1.0, 2.0


def two_rounds(learner):
    return online(learner, [f1, f2], [a1, a2], initial_loss=f0).plays


def softmin(theta):
    weights = np.exp(-(theta - theta.min()))
    return weights / weights.sum()


def test_first_two_rounds_ftrl_entropy():
    plays = two_rounds(FTRL(Entropy(), 0.5))
    np.testing.assert_allclose(plays[0], np.full(3, 1 / 3), rtol=1e-15)
    np.testing.assert_allclose(plays[1], softmin(0.5 * a1 * f1.linear), rtol=1e-14)


def test_first_two_rounds_oftrl_entropy_uses_f0_as_first_hint():
    plays = two_rounds(OFTRL(Entropy(), 0.5))
    np.testing.assert_allclose(plays[0], softmin(0.5 * a1 * f0.linear), rtol=1e-14)
    np.testing.assert_allclose(plays[1], softmin(0.5 * (a1 * f1.linear + a2 * f1.linear)), rtol=1e-14)


def test_first_two_rounds_ftrl_plus_sees_the_current_loss():
    plays = two_rounds(FTRLPlus(Entropy(), 0.5))
    np.testing.assert_allclose(plays[0], softmin(0.5 * a1 * f1.linear), rtol=1e-14)
    np.testing.assert_allclose(plays[1], softmin(0.5 * (a1 * f1.linear + a2 * f2.linear)), rtol=1e-14)


def test_first_two_rounds_oftl_and_ftl_on_strongly_convex_losses():
    g0, g1, g2 = (Loss(loss.linear, 1.0) for loss in (f0, f1, f2))
    oftl = online(OFTL(), [g1, g2], [a1, a2], initial_loss=g0).plays
    # round 1: argmin a1 g0 -> -f0 ; round 2: argmin a1 g1 + a2 g1 -> -f1
    np.testing.assert_allclose(oftl[0], -f0.linear, rtol=1e-15)
    np.testing.assert_allclose(oftl[1], -f1.linear, rtol=1e-15)
    ftl = online(FTL(Ball(10.0)), [g1, g2], [a1, a2]).plays
    np.testing.assert_allclose(ftl[0], 0.0)  # no loss seen yet: argmin of 0 over the ball is its centre
    np.testing.assert_allclose(ftl[1], -f1.linear, rtol=1e-15)


def test_first_two_rounds_omd_euclidean_ball():
    eta, radius = 0.4, 1.0
    plays = two_rounds(OMD(SquaredEuclidean(radius=radius), eta))
    project = Ball(radius).project
    y1 = project(-eta * a1 * f1.linear)
    np.testing.assert_allclose(plays[0], project(-eta * a1 * f0.linear), rtol=1e-15)  # hint f0, from y0 = 0
    np.testing.assert_allclose(plays[1], project(y1 - eta * a2 * f1.linear), rtol=1e-15)


def test_first_two_rounds_mirror_descent_entropy():
    plays = two_rounds(MirrorDescent(Entropy(), 0.5))
    np.testing.assert_allclose(plays[0], np.full(3, 1 / 3), rtol=1e-15)
    np.testing.assert_allclose(plays[1], softmin(0.5 * a1 * f1.linear), rtol=1e-14)


# ------------------------------------------------------------------------------------ regret bounds


@settings(max_examples=50, deadline=None)
@given(data=loss_sequences(6, max_rounds=60), eta=st.floats(0.01, 3))
def test_ftrl_entropy_regret_bound(data, eta):
    losses, weights = data
    result = online(FTRL(Entropy(), eta), losses, weights)
    bound = np.log(6) / eta + eta / 2 * sum(a**2 * np.max(np.abs(f.linear)) ** 2 for a, f in zip(weights, losses))
    assert result.regret <= bound * (1 + 1e-12) + 1e-12


@settings(max_examples=50, deadline=None)
@given(data=loss_sequences(6, max_rounds=60), eta=st.floats(0.01, 3))
def test_oftrl_entropy_regret_bound_with_last_loss_hint(data, eta):
    losses, weights = data
    result = online(OFTRL(Entropy(), eta), losses, weights)
    previous = [Loss.zero(6)] + losses[:-1]
    deviation = sum(a**2 * np.max(np.abs(f.linear - g.linear)) ** 2 for a, f, g in zip(weights, losses, previous))
    assert result.regret <= np.log(6) / eta + eta / 2 * deviation + 1e-10


@settings(max_examples=50, deadline=None)
@given(data=loss_sequences(4, max_rounds=60), eta=st.floats(0.01, 3), radius=st.floats(0.5, 3))
def test_omd_euclidean_ball_regret_bound(data, eta, radius):
    losses, weights = data
    result = online(OMD(SquaredEuclidean(radius=radius), eta), losses, weights)
    previous = [Loss.zero(4)] + losses[:-1]
    deviation = sum(a**2 * np.linalg.norm(f.linear - g.linear) ** 2 for a, f, g in zip(weights, losses, previous))
    # Optimistic OMD: R_T(u) <= D(u, y_0)/eta + eta * sum ||g_t - M_t||^2, with ||u|| <= radius.
    assert result.regret <= radius**2 / (2 * eta) + eta * deviation + 1e-10


@settings(max_examples=40, deadline=None)
@given(data=loss_sequences(4, max_rounds=40, curvature=True))
def test_ftl_on_strongly_convex_losses_has_logarithmic_regret(data):
    losses, weights = data
    losses = [Loss(f.linear, 1.0) for f in losses]
    weights = np.ones(len(losses))
    result = online(FTL(), losses, weights)
    G = max(np.linalg.norm(f.linear) + 2 * max(np.linalg.norm(g.linear) for g in losses) for f in losses)
    # Hazan et al.: FTL on 1-strongly convex losses has regret <= (G^2 / 2) (1 + log T).
    assert result.regret <= G**2 / 2 * (1 + np.log(len(losses))) + 1e-10


# -------------------------------------------------------------------------------------- domains


@settings(max_examples=40, deadline=None)
@given(data=loss_sequences(5, max_rounds=30, curvature=True), eta=st.floats(0.01, 5))
def test_iterates_stay_in_their_domain(data, eta):
    losses, weights = data
    linear_losses = [Loss(f.linear, 0.0) for f in losses]
    cases = [
        (FTRL(Entropy(), eta), linear_losses), (OFTRL(Entropy(), eta), linear_losses),
        (FTRLPlus(Entropy(), eta), linear_losses), (OMD(Entropy(), eta), losses),
        (OMD(SquaredEuclidean(radius=0.7), eta), losses), (OFTRL(SquaredEuclidean(radius=2.0), eta), losses),
        (FTL(Simplex()), linear_losses), (OFTL(Ball(1.5)), losses), (OFTRL(QNorm(1.5), eta), linear_losses),
    ]
    for learner, sequence in cases:
        for point in online(learner, sequence, weights).plays:
            assert learner.domain.contains(point, tolerance=1e-12), learner


def test_learner_rejects_bad_configuration():
    with pytest.raises(ValueError, match="eta"):
        FTRL(Entropy(), -1.0)
    with pytest.raises(TypeError, match="regularizer"):
        FollowTheRegularizedLeader("entropy", 1.0)
    with pytest.raises(TypeError, match="hint"):
        OFTRL(Entropy(), 1.0, hint="last")
    with pytest.raises(ValueError, match="centre"):
        FTRL(Entropy(), 1.0, centre=[0.5, 0.6]).init(2)
    with pytest.raises(ValueError, match="unbounded below"):
        online(FTL(), [Loss(np.ones(2), 0.0), Loss(np.ones(2), 0.0)])
    assert isinstance(FTL().regularizer, Zero)


def test_online_rejects_inconsistent_losses():
    with pytest.raises(ValueError, match="same length"):
        online(FTRL(Entropy(), 1.0), [Loss(np.ones(2), 0.0), Loss(np.ones(3), 0.0)])
    with pytest.raises(ValueError, match="non-empty sequence of gamedyn.Loss"):
        online(FTRL(Entropy(), 1.0), [np.ones(2)])
