"""``eta="adaptive"`` (issue 18): the FTRL family's AdaGrad-style step, the sugar for ``eta=AdaptiveStep()``.

It must be the explicit learner :class:`gamedyn.AdaptiveFTRL` (to 1e-12; in fact bit for bit), refuse
other strings naming the argument and the accepted values, and keep the regret bound (11) of
docs/explanation/regret-matching-bounds.md as a (measured, bound) pair, which a fixed step breaks.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from gamedyn import (
    FTRL, OFTRL, AdaptiveFTRL, AdaptiveStep, Bilinear, Entropy, FollowTheRegularizedLeader, MirrorDescent, NoHint,
    Simplex, SquaredEuclidean, online, play, shared_matrix,
)
from gamedyn.core import Loss
from gamedyn.games.matrix import MatrixGame
from gamedyn import checkpoint, stop_when

_rng = np.random.default_rng(1811)
GAMES = {"uniform 5x7": _rng.uniform(-1, 1, (5, 7)), "gaussian 4x4": _rng.normal(size=(4, 4)),
         "rock-paper-scissors": np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]])}
HORIZONS = (1, 2, 3, 10, 200)


def _max_error(a, b):
    return max(float(np.max(np.abs(a.w_average - b.w_average))), float(np.max(np.abs(a.p_average - b.p_average))),
               float(np.max(np.abs(a.w_last - b.w_last))), float(np.max(np.abs(a.p_last - b.p_last))),
               abs(a.w_regret - b.w_regret), abs(a.p_regret - b.p_regret))


@pytest.mark.parametrize("game", list(GAMES))
def test_eta_adaptive_is_adaptive_ftrl(game):
    """Self-play on a matrix game: FTRL(Entropy(), eta="adaptive") against the explicit AdaptiveFTRL(Entropy())."""
    M = GAMES[game]
    for T in HORIZONS:
        sugar = play(MatrixGame(M), FTRL(Entropy(), eta="adaptive"), FTRL(Entropy(), eta="adaptive"), T)
        explicit = play(MatrixGame(M), AdaptiveFTRL(Entropy()), AdaptiveFTRL(Entropy()), T)
        assert _max_error(sugar, explicit) <= 1e-12, (game, T)
    if game != "rock-paper-scissors":  # (there the uniform start is the equilibrium, and no play moves)
        assert not np.allclose(sugar.w_average, np.full(M.shape[0], 1 / M.shape[0]))  # the plays moved


@pytest.mark.parametrize("first", ["w", "p"])
def test_eta_adaptive_in_either_seat_any_weights_any_opponent(first):
    M = GAMES["uniform 5x7"]
    hedge = FTRL(Entropy(), 0.2)
    for weights in ("constant", "linear"):
        for pair in ((FTRL(Entropy(), eta="adaptive"), hedge), (hedge, FTRL(Entropy(), eta="adaptive"))):
            explicit = tuple(AdaptiveFTRL(Entropy()) if learner is not hedge else hedge for learner in pair)
            a = play(MatrixGame(M), *pair, T=120, weights=weights, first=first)
            b = play(MatrixGame(M), *explicit, T=120, weights=weights, first=first)
            assert _max_error(a, b) <= 1e-12


def test_an_explicit_adaptive_step_with_another_regularizer():
    """eta=AdaptiveStep(scale, norm) on squared Euclidean over the simplex is AdaptiveFTRL with that step."""
    step = AdaptiveStep(scale=1.0, norm=2)
    regularizer = SquaredEuclidean(domain=Simplex())
    M = GAMES["gaussian 4x4"]
    a = play(MatrixGame(M), FTRL(regularizer, eta=step), FTRL(regularizer, eta=step), 150)
    b = play(MatrixGame(M), AdaptiveFTRL(regularizer, step), AdaptiveFTRL(regularizer, step), 150)
    assert _max_error(a, b) <= 1e-12


def test_the_sugar_is_the_object():
    assert FTRL(Entropy(), eta="adaptive") == FTRL(Entropy(), eta=AdaptiveStep())
    assert FTRL(Entropy(), eta="adaptive").eta == AdaptiveStep()
    assert OFTRL(Entropy(), eta="adaptive").eta == AdaptiveStep()


def test_first_play_is_the_start_then_the_rate():
    """eta_1 = inf: z_1 = z_0; after l_1 = (1, 0): eta_2 = sqrt(ln 2) / 1 (AdaptiveFTRL's own docstring example)."""
    learner = FTRL(Entropy(), eta="adaptive")
    result = online(learner, [Loss(np.array([1.0, 0.0])), Loss(np.array([0.0, 0.0]))])
    assert result.plays[0].tolist() == [0.5, 0.5]
    eta = math.sqrt(math.log(2.0))
    expected = np.exp([-eta, 0.0]) / np.exp([-eta, 0.0]).sum()
    assert np.max(np.abs(result.plays[1] - expected)) <= 1e-15


@pytest.mark.parametrize("bad", ["adagrad", "Adaptive", "", "auto"])
def test_other_strings_are_refused_naming_eta(bad):
    with pytest.raises(ValueError, match=r"eta must be .*\"adaptive\".*AdaptiveStep"):
        FTRL(Entropy(), eta=bad)


def test_mirror_descent_refuses_the_adaptive_step():
    with pytest.raises(ValueError, match="FTRL family"):
        MirrorDescent(Entropy(), eta="adaptive")


def test_batched_games_are_refused():
    A = np.array([[1.0, -1.0], [-1.0, 1.0], [0.5, 0.0]])
    with pytest.raises(ValueError, match="one game at a time"):
        play(Bilinear(shared_matrix(A, 2)), FTRL(Entropy(), eta="adaptive"), FTRL(Entropy(), 0.1), 5)


# ------------------------------------------------------------------------------------- the bound (11)


def _regret_and_bound(learner, U):
    r"""(measured R_T, bound (11)) against the utilities U (T, K): R_T = max_i sum u_{t,i} - sum <u_t, x_t>,
    bound (sqrt(ln K) + 2 sqrt 2 max(sqrt(ln K) / 8, 1)) sqrt(sum_t rho_t^2), computed from U and the plays."""
    plays = online(learner, [Loss(-u) for u in U]).plays
    measured = float(np.max(U.sum(axis=0)) - np.einsum("ti,ti->", U, plays))
    K = U.shape[1]
    rho = U.max(axis=1) - U.min(axis=1)
    log_k = math.log(K)
    bound = (math.sqrt(log_k) + 2 * math.sqrt(2) * max(math.sqrt(log_k) / 8, 1.0)) * math.sqrt(float(np.sum(rho**2)))
    return measured, bound


def _flip(T):
    signs = np.where(np.arange(1, T + 1) % 2 == 1, 1.0, -1.0)
    return signs[:, None] * np.array([-1.0, 1.0])[None, :]


@pytest.mark.parametrize("T", [1, 10, 1000])
def test_bound_11_holds_on_flip_and_cycle(T):
    for U in (_flip(T), np.eye(5)[np.arange(1, T + 1) % 5]):
        measured, bound = _regret_and_bound(FTRL(Entropy(), eta="adaptive"), U)
        assert measured <= bound, (T, measured, bound)
    measured, bound = _regret_and_bound(FTRL(Entropy(), eta="adaptive"), _flip(1000))
    assert measured >= 0.05 * bound  # not vacuous: the flip sequence pushes the regret up to the bound's order


@settings(max_examples=40, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 60), st.integers(2, 5)), elements=st.floats(-3, 3)))
def test_bound_11_holds_on_any_sequence(U):
    measured, bound = _regret_and_bound(FTRL(Entropy(), eta="adaptive"), U)
    assert measured <= bound + 1e-9 * (1 + bound)


def test_a_fixed_large_step_breaks_bound_11():
    """Negative control: Hedge with eta = 10 (nearly follow the leader) on flip loses about 1 a round."""
    measured, bound = _regret_and_bound(FollowTheRegularizedLeader(Entropy(), 10.0, NoHint()), _flip(1000))
    assert measured > 2 * bound


def test_a_resumed_run_is_bit_identical(tmp_path):
    """The summed squared norms are part of the saved state: a run resumed from its checkpoint is the straight run."""
    M = GAMES["uniform 5x7"]
    path = str(tmp_path / "adaptive.npz")

    def power_cut(round_state):
        if round_state.t == 45:
            raise RuntimeError("power cut")
        return False

    def learner():
        return FTRL(Entropy(), eta="adaptive")

    with pytest.raises(RuntimeError):
        play(MatrixGame(M), learner(), learner(), 100, observers=[stop_when(power_cut), checkpoint(path, every=10)])
    resumed = play(MatrixGame(M), learner(), learner(), 100, observers=[checkpoint(resume_from=path)])
    straight = play(MatrixGame(M), learner(), learner(), 100)
    assert np.array_equal(resumed.w_average, straight.w_average) and resumed.w_regret == straight.w_regret
