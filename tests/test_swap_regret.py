"""Issue 34: the no-swap-regret learners (Blum-Mansour, Hart & Mas-Colell) against their original loops and bounds."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gamedyn import (
    FTRL,
    BimatrixGame,
    Entropy,
    MatrixGame,
    NormalFormGame,
    OFTRL,
    RegretMatching,
    SwapRegret,
    SwapRegretMatching,
    Bilinear,
    SquaredEuclidean,
    play,
    shared_matrix,
)
from gamedyn.core import FTRLPlus, Loss, Simplex
from gamedyn.core.swap_regret import stationary_distribution, swap_matching_play, swap_regret
from gamedyn.engine.observers import checkpoint, stop_when
from gamedyn.engine.players import PlaysTrace, play_n
from gamedyn.games.general_sum import original

RNG = np.random.default_rng(34)
LOSSES = RNG.uniform(-1.0, 1.0, size=(300, 5))
WEIGHTS = RNG.uniform(0.5, 2.0, size=300)


def _run(learner, losses, weights, pure: bool = False):
    """The learner's plays against fixed losses, through its player (or its pure functions)."""
    state = learner.init(losses.shape[1])
    player = None if pure else learner.player(state)
    plays = []
    for loss, weight in zip(losses, weights):
        x = learner.play(state, weight) if pure else player.play(weight)
        plays.append(x)
        if pure:
            state = learner.update(state, x, Loss(loss), weight)
        else:
            player.update(x, Loss(loss), weight)
    return np.array(plays)


class Unstacked:
    """RegretMatching without its batched capability: SwapRegret drives one player per copy."""

    def __init__(self, learner):
        self.learner, self.domain = learner, learner.domain

    def init(self, dimension, initial_loss=None):
        return self.learner.init(dimension, initial_loss)

    def play(self, state, weight, current_loss=None):
        return self.learner.play(state, weight)

    def update(self, state, point, loss, weight, **_):
        return self.learner.update(state, point, loss, weight)


# ------------------------------------------------------------------------------------ the stationary solve


def _markov(draw_rows, zeros):
    Q = np.where(zeros, 0.0, draw_rows)
    Q[Q.sum(axis=1) == 0, 0] = 1.0
    return Q / Q.sum(axis=1, keepdims=True)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 7), st.integers(0, 2**32 - 1), st.floats(0.0, 0.9))
def test_the_stationary_distribution_is_a_fixed_point(K, seed, sparsity):
    rng = np.random.default_rng(seed)
    Q = _markov(rng.uniform(size=(K, K)), rng.uniform(size=(K, K)) < sparsity)
    x = stationary_distribution(Q)
    assert np.all(x >= 0) and abs(x.sum() - 1.0) <= 1e-12
    assert np.max(np.abs(x @ Q - x)) <= 1e-10
    reference = original.invariant_distribution(Q)  # the original loop's closure-and-SVD solve
    assert np.max(np.abs(x - reference)) <= 1e-8  # the same rule (the first closed class): the same point


def test_several_closed_classes_give_the_first_one():
    Q = np.array([[0.5, 0.5, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 1.0, 0.0]])
    assert stationary_distribution(Q).tolist() == [0.5, 0.5, 0.0, 0.0]
    transient = np.array([[0.0, 0.5, 0.5], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]])  # 0 is transient, {1, 2} closed
    assert np.allclose(stationary_distribution(transient), [0.0, 0.5, 0.5], atol=1e-15)


def test_the_transpose_is_not_a_stationary_distribution():
    """The fixed point is x = x Q (rows are the copies), not Q x = x."""
    Q = np.array([[0.9, 0.1], [0.5, 0.5]])
    x = stationary_distribution(Q)
    assert np.allclose(x, [5 / 6, 1 / 6], rtol=0, atol=1e-15)


@pytest.mark.parametrize("bad", [np.ones((2, 3)) / 3, [[1.5, -0.5], [0.5, 0.5]], [[0.5, 0.4], [0.5, 0.5]]])
def test_bad_markov_matrices_are_refused(bad):
    with pytest.raises(ValueError, match="Q must"):
        stationary_distribution(bad)


# -------------------------------------------------------------- the learners against the original loops


@pytest.mark.parametrize("base", ["rm", "rm+"])
@pytest.mark.parametrize("stacked", [True, False])
@pytest.mark.parametrize("pure", [False, True])
def test_blum_mansour_with_regret_matching_copies_equals_the_original_loop(base, stacked, pure):
    copy = RegretMatching(plus=base == "rm+")
    learner = SwapRegret((lambda: copy) if stacked else (lambda: Unstacked(copy)))
    assert (learner.stacked(5) is not None) == stacked
    plays = _run(learner, LOSSES, WEIGHTS, pure)
    assert np.max(np.abs(plays - original.blum_mansour_online(LOSSES, base, WEIGHTS))) <= 1e-10


def test_blum_mansour_with_hedge_copies_equals_the_original_loop():
    plays = _run(SwapRegret(FTRL(Entropy(), 0.7)), LOSSES, WEIGHTS)
    assert np.max(np.abs(plays - original.blum_mansour_online(LOSSES, "hedge", WEIGHTS, eta=0.7))) <= 1e-10


@pytest.mark.parametrize("plus", [False, True])
@pytest.mark.parametrize("pure", [False, True])
def test_hart_mas_colell_equals_the_original_loop(plus, pure):
    plays = _run(SwapRegretMatching(plus), LOSSES, WEIGHTS, pure)
    assert np.max(np.abs(plays - original.hart_mas_colell_online(LOSSES, plus, WEIGHTS))) <= 1e-10


GAME_2 = BimatrixGame(*np.random.default_rng(7).uniform(size=(2, 4, 6)))
GAME_3 = NormalFormGame(list(np.random.default_rng(8).uniform(size=(3, 3, 4, 2))))


@pytest.mark.parametrize("game", [GAME_2, GAME_3], ids=["2 players", "3 players"])
@pytest.mark.parametrize("rule, learner", [("bm-rm+", SwapRegret(RegretMatching(plus=True))),
                                           ("bm-rm", SwapRegret(RegretMatching())),
                                           ("hmc+", SwapRegretMatching(plus=True)),
                                           ("hmc", SwapRegretMatching())])
def test_self_play_in_play_n_equals_the_original_loop(game, rule, learner):
    T = 120
    trace = PlaysTrace()
    play_n(game, [learner] * game.players, T, weights="linear", observers=[trace])
    reference = original.swap_self_play(game.payoffs, T, rule, weights=np.arange(1.0, T + 1))
    for plays, expected in zip(_plays(trace), reference):
        assert np.max(np.abs(plays - expected)) <= 1e-10


def _plays(trace):
    return [np.array(kept) for kept in trace.plays]


# ------------------------------------------------------------------------- the bounds, measured


def _conditional_regret_increments(plays, losses, weights):
    """r_t[j, k] = alpha_t x_t(j) (l_t(j) - l_t(k)), for every round."""
    return [(w * x * l)[:, None] - np.outer(w * x, l) for x, l, w in zip(plays, losses, weights)]


@pytest.mark.parametrize("plus", [False, True])
def test_hart_mas_colell_swap_regret_bound(plus):
    plays = _run(SwapRegretMatching(plus), LOSSES, WEIGHTS)
    swap, external, R = swap_regret(plays, LOSSES, WEIGHTS)
    K = LOSSES.shape[1]
    increments = _conditional_regret_increments(plays, LOSSES, WEIGHTS)
    data_bound = math.sqrt(K) * math.sqrt(sum(float(np.sum(r * r)) for r in increments))
    spread = float(LOSSES.max() - LOSSES.min())
    worst_bound = spread * math.sqrt(K * (K - 1) * float(np.sum(WEIGHTS**2)))
    assert external <= swap  # (measured, bound): external regret <= swap regret
    assert swap <= data_bound <= worst_bound, (swap, data_bound, worst_bound)
    assert swap > 0.01 * data_bound  # a measured pair, not a vacuous one: the learner does have swap regret


@pytest.mark.parametrize("plus", [False, True])
def test_blum_mansour_swap_regret_is_at_most_the_copies_regrets(plus):
    """Blum & Mansour's Theorem 5 measured: swap regret <= sum_j R_j <= sum_j sqrt(sum_t ||r_jt||^2) (RM's bound)."""
    K = LOSSES.shape[1]
    learner = SwapRegret(RegretMatching(plus=plus))
    player = learner.player(learner.init(K))
    plays, copies_regret, copies_bound = [], 0.0, 0.0
    copy_losses = np.zeros((K, K))  # sum_t alpha_t x_t(j) l_t, per copy j
    copy_played = np.zeros(K)
    squares = np.zeros(K)
    for loss, weight in zip(LOSSES, WEIGHTS):
        x = player.play(weight)
        Q = player.proposals
        plays.append(x)
        charged = x[:, None] * loss[None, :]  # row j: copy j's loss
        copy_losses += weight * charged
        copy_played += weight * np.einsum("jk,jk->j", charged, Q)
        squares += np.sum((np.einsum("jk,jk->j", charged, Q)[:, None] - charged) ** 2, axis=1) * weight**2
        player.update(x, Loss(loss), weight)
    copies_regret = float(np.sum(copy_played - copy_losses.min(axis=1)))
    copies_bound = float(np.sum(np.sqrt(squares)))
    swap, external, _ = swap_regret(np.array(plays), LOSSES, WEIGHTS)
    assert abs(swap - copies_regret) <= 1e-9 * copies_regret  # x = xQ makes Theorem 5 an equality
    assert external <= swap <= copies_bound, (external, swap, copies_bound)
    spread = float(LOSSES.max() - LOSSES.min())
    assert copies_bound <= K * spread * math.sqrt(K * float(np.sum(WEIGHTS**2)))


def test_no_swap_regret_learners_reach_a_correlated_equilibrium_in_self_play():
    """Both players' swap regrets over S_T bound the CE gap of the joint of play (Foster & Vohra; Hart & Mas-Colell)."""
    from gamedyn.games.general_sum import ProductJoint, ce_gap

    trace = PlaysTrace()
    T = 400
    result = play_n(GAME_2, [SwapRegretMatching(plus=True)] * 2, T, observers=[trace])
    plays = _plays(trace)
    joint = ProductJoint(tuple(plays), np.ones(T))
    utilities = [np.array([GAME_2.utilities([x, y])[i] for x, y in zip(*plays)]) for i in range(2)]
    swaps = [swap_regret(plays[i], -utilities[i])[0] for i in range(2)]
    assert ce_gap(GAME_2, joint) <= max(swaps) / T + 1e-12  # the gap is the largest player's swap regret / T
    assert abs(ce_gap(GAME_2, joint) - max(swaps) / T) <= 1e-9
    assert result.cce_gap <= ce_gap(GAME_2, joint) + 1e-12


# ------------------------------------------------------------------- in play, checkpoints, errors


class Crash(Exception):
    """The simulated failure of a run after its last checkpoint."""


def _crash_at(round_):
    def stop(state):
        if state.t == round_:
            raise Crash
        return False
    return stop


@pytest.mark.parametrize("learners", [
    (SwapRegret(RegretMatching(plus=True)), SwapRegretMatching(plus=True)),
    (SwapRegret(lambda: Unstacked(RegretMatching())), SwapRegret(FTRL(Entropy(), 0.5))),
], ids=["stacked RM+ copies vs swap RM+", "one player per copy vs Hedge copies"])
def test_swap_regret_learners_play_in_play_and_resume_bit_identically(learners, tmp_path):
    """Their states (named tuples of arrays) are checkpointed; a resumed run is the uninterrupted one."""
    M = np.random.default_rng(3).normal(size=(4, 5))
    T = 60
    uninterrupted = play(MatrixGame(M), *learners, T, weights="linear")
    path = tmp_path / "run.npz"
    with pytest.raises(Crash):
        play(MatrixGame(M), *learners, T, weights="linear",
             observers=[checkpoint(path, every=7), stop_when(_crash_at(31))])
    resumed = play(MatrixGame(M), *learners, T, weights="linear", observers=[checkpoint(resume_from=path)])
    assert resumed.rounds == T
    for name in ("w_average", "p_average", "w_last", "p_last"):
        assert np.array_equal(getattr(resumed, name), getattr(uninterrupted, name)), name
    assert resumed.w_regret == uninterrupted.w_regret and resumed.p_regret == uninterrupted.p_regret


def test_regret_matching_plays_batched_games_as_separate_runs():
    A = np.random.default_rng(5).uniform(-1, 1, size=(6, 4))
    batched = play(Bilinear(shared_matrix(A, 3)), OFTRL(Entropy(), 0.2), RegretMatching(plus=True), 40)
    alone = play(Bilinear(A), OFTRL(Entropy(), 0.2), RegretMatching(plus=True), 40)
    assert np.allclose(batched.p_average[:, 2], alone.p_average, rtol=0, atol=1e-13)


def test_copies_must_be_simplex_learners_that_do_not_see_their_loss():
    with pytest.raises(ValueError, match="copies play on the simplex"):
        SwapRegret(FTRL(SquaredEuclidean(), 0.1)).init(3)
    with pytest.raises(ValueError, match="current-loss hint"):
        SwapRegret(FTRLPlus(Entropy(), 0.1)).init(3)
    with pytest.raises(TypeError, match="must give learners"):
        SwapRegret(lambda: object()).init(3)
    with pytest.raises(ValueError, match="positive number of actions"):
        SwapRegretMatching().init(0)


def test_swap_matching_plays_uniform_without_positive_regret_and_follows_the_balance_equations():
    assert swap_matching_play(np.zeros((3, 3))).tolist() == [1 / 3] * 3
    R = np.random.default_rng(6).normal(size=(4, 4))
    x = swap_matching_play(R)
    positive = np.maximum(R, 0)
    np.fill_diagonal(positive, 0)
    assert np.allclose(x @ positive, x * positive.sum(axis=1), rtol=0, atol=1e-12)  # sum_j x_j R+[j,k] = x_k sum R+[k,.]
    assert Simplex().contains(x)
