"""Issue 34: games in normal form, the n-player runner, certified CCE / CE gaps, the LPs and the solvers."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gamedyn import (
    FTL,
    FTRL,
    OFTL,
    OFTRL,
    OMD,
    AdaHedge,
    AdaptiveFTRL,
    BestResponse,
    BimatrixGame,
    CCEGapStop,
    CEGapStop,
    Entropy,
    FTRLPlus,
    MatrixGame,
    MirrorDescent,
    NormalFormGame,
    RegretMatching,
    Simplex,
    SquaredEuclidean,
    SwapRegret,
    SwapRegretMatching,
    cce_gap,
    ce_gap,
    play,
    solve_cce,
    solve_ce,
)
from gamedyn.engine.players import PlaysTrace, play_n
from gamedyn.games.general_sum import CountJoint, ProductJoint, deviation_gains, solve_cce_lp, solve_ce_lp, swap_gains

# ------------------------------------------------------------------ independent references (written here)


def brute_utilities(payoffs, plays):
    """u_i(k, x_-i) by summing over every pure profile."""
    shape = payoffs[0].shape
    utilities = [np.zeros(a) for a in shape]
    for profile in itertools.product(*(range(a) for a in shape)):
        for i in range(len(shape)):
            weight = np.prod([plays[j][profile[j]] for j in range(len(shape)) if j != i])
            utilities[i][profile[i]] += weight * payoffs[i][profile]
    return utilities


def exact_gaps(payoffs, joint) -> tuple:
    """(CCE gap, CE gap) of joint / sum(joint) in exact rationals, one profile at a time."""
    shape = payoffs[0].shape
    total = sum(Fraction(float(v)) for v in joint.ravel())
    sigma = {profile: Fraction(float(joint[profile])) / total for profile in itertools.product(*map(range, shape))}
    cce, ce = Fraction(0), Fraction(0)
    for i, a in enumerate(shape):
        fixed = [Fraction(0)] * a
        swap = [[Fraction(0)] * a for _ in range(a)]
        for profile, mass in sigma.items():
            if not mass:
                continue
            here = Fraction(float(payoffs[i][profile]))
            for deviation in range(a):
                moved = profile[:i] + (deviation,) + profile[i + 1:]
                gain = mass * (Fraction(float(payoffs[i][moved])) - here)
                fixed[deviation] += gain
                swap[profile[i]][deviation] += gain
        cce = max(cce, max(fixed))
        ce = max(ce, sum(max(row) for row in swap))
    return cce, ce


def lp_rows(payoffs):
    """The CCE rows {(i, a'): sum_a sigma(a) (U_i(a', a_-i) - U_i(a))} and CE rows {(i, a, a')}, as dense arrays."""
    shape = payoffs[0].shape
    profiles = list(itertools.product(*map(range, shape)))
    cce, ce = {}, {}
    for i, a in enumerate(shape):
        for deviation in range(a):
            row = np.zeros(shape)
            for profile in profiles:
                row[profile] = payoffs[i][profile[:i] + (deviation,) + profile[i + 1:]] - payoffs[i][profile]
            cce[(i, deviation)] = row
            for own in range(a):
                ce_row = np.zeros(shape)
                for profile in profiles:
                    if profile[i] == own:
                        ce_row[profile] = row[profile]
                ce[(i, own, deviation)] = ce_row
    return cce, ce


def lp_gaps(payoffs, joint) -> tuple:
    """The gaps read off the LP's rows at joint / sum(joint): max(0, max CCE row) and max_i sum_a max_a' CE row."""
    cce_rows, ce_rows = lp_rows(payoffs)
    sigma = joint / joint.sum()
    cce = max(0.0, max(float(np.sum(row * sigma)) for row in cce_rows.values()))
    shape = payoffs[0].shape
    ce = max(sum(max(float(np.sum(ce_rows[(i, own, dev)] * sigma)) for dev in range(a)) for own in range(a))
             for i, a in enumerate(shape))
    return cce, ce


def random_payoffs(shape, seed):
    rng = np.random.default_rng(seed)
    return [rng.integers(-4, 5, size=shape) / 2.0 + rng.uniform(-0.1, 0.1, size=shape) for _ in shape]


# ------------------------------------------------------------------------------------------ the games


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4), (2, 2, 2, 3)])
def test_utilities_are_the_expected_payoffs_of_each_action(shape):
    rng = np.random.default_rng(len(shape))
    payoffs = [rng.normal(size=shape) for _ in shape]
    plays = [rng.dirichlet(np.ones(a)) for a in shape]
    game = NormalFormGame(payoffs)
    for mine, reference in zip(game.utilities(plays), brute_utilities(payoffs, plays)):
        assert np.allclose(mine, reference, rtol=1e-13, atol=1e-13)
    for loss, reference in zip(game.losses(plays), brute_utilities(payoffs, plays)):
        assert np.allclose(loss.linear, -reference, rtol=1e-13, atol=1e-13)
    assert np.allclose(game.expected(plays), [u @ x for u, x in zip(brute_utilities(payoffs, plays), plays)])


def test_bimatrix_game_is_the_two_player_spelling():
    A, B = np.arange(6.0).reshape(2, 3), -np.arange(6.0).reshape(2, 3) ** 2
    game = BimatrixGame(A, B)
    x, y = np.array([0.25, 0.75]), np.array([0.2, 0.3, 0.5])
    assert np.allclose(game.utilities([x, y])[0], A @ y) and np.allclose(game.utilities([x, y])[1], x @ B)
    assert game.A is game.payoffs[0] and np.array_equal(game.B, B) and game.shape == (2, 3)


@pytest.mark.parametrize("payoffs, error, match", [
    (np.zeros((2, 2, 2)), TypeError, "list of n arrays"),
    ([np.zeros((2, 2))], ValueError, "n >= 2 players"),
    ([np.zeros((2, 2)), np.zeros((2, 3))], ValueError, "same shape"),
    ([np.zeros((2, 2, 2)), np.zeros((2, 2, 2))], ValueError, "n axes"),
    ([np.zeros((2, 2)), np.full((2, 2), np.nan)], ValueError, "finite"),
    ([np.zeros((2, 2)), np.zeros((2, 2)) * 1j], TypeError, "complex"),
])
def test_bad_payoffs_are_refused_naming_the_fix(payoffs, error, match):
    with pytest.raises(error, match=match):
        NormalFormGame(payoffs)


def test_the_zero_sum_front_door_points_to_the_general_sum_one():
    from gamedyn import solve_game

    A, B = np.eye(2), np.ones((2, 2))
    with pytest.raises(TypeError, match="BimatrixGame"):
        MatrixGame(A, B)
    with pytest.raises(ValueError, match="BimatrixGame"):
        solve_game(np.stack([A, B]))


def test_a_bimatrix_game_needs_matrices():
    with pytest.raises(ValueError, match="A must be a 2-D payoff matrix"):
        BimatrixGame(np.zeros(3), np.zeros((1, 3)))


# ------------------------------------------------------------------------------- the n-player runner

M = np.random.default_rng(0).normal(size=(4, 6))
SIMPLEX_LEARNERS = {
    "FTRL entropy": FTRL(Entropy(), 0.3), "OFTRL entropy": OFTRL(Entropy(), 0.3), "FTL": FTL(Simplex()),
    "OFTL": OFTL(Simplex()), "OMD entropy": OMD(Entropy(), 0.3), "mirror descent": MirrorDescent(Entropy(), 0.3),
    "FTRL Euclidean": FTRL(SquaredEuclidean(domain=Simplex()), 0.3), "RM": RegretMatching(),
    "RM+": RegretMatching(plus=True), "PRM+": RegretMatching(plus=True, predictive=True), "AdaHedge": AdaHedge(),
    "adaptive FTRL": AdaptiveFTRL(Entropy()), "swap regret": SwapRegret(RegretMatching(plus=True)),
    "swap RM+": SwapRegretMatching(plus=True),
}


@pytest.mark.parametrize("name", SIMPLEX_LEARNERS)
def test_every_simplex_learner_plays_unchanged_in_play_n(name):
    """On BimatrixGame(M, -M) the simultaneous rounds are play(MatrixGame(M))'s (the second mover does not see
    its loss there): the same averages, regrets and last plays."""
    learner = SIMPLEX_LEARNERS[name]
    two = play(MatrixGame(M), learner, learner, 200, weights="linear")
    many = play_n(BimatrixGame(M, -M), [learner, learner], 200, weights="linear")
    assert np.allclose(many.averages[0], two.w_average, rtol=0, atol=1e-12)
    assert np.allclose(many.averages[1], two.p_average, rtol=0, atol=1e-12)
    assert np.allclose(many.regrets, (two.w_regret, two.p_regret), rtol=1e-10, atol=1e-10)
    assert many.rounds == 200 and not many.stopped_early


def test_a_learner_that_sees_its_loss_or_plays_elsewhere_is_refused():
    game = BimatrixGame(M, -M)
    with pytest.raises(ValueError, match="simultaneously"):
        play_n(game, [FTRLPlus(Entropy(), 0.1), FTRL(Entropy(), 0.1)], 5)
    with pytest.raises(ValueError, match="simultaneously"):
        play_n(game, [BestResponse(Simplex()), FTRL(Entropy(), 0.1)], 5)
    with pytest.raises(ValueError, match="on Simplex"):
        play_n(game, [FTRL(SquaredEuclidean(), 0.1), FTRL(Entropy(), 0.1)], 5)
    with pytest.raises(ValueError, match="one learner per player"):
        play_n(game, [FTRL(Entropy(), 0.1)], 5)
    with pytest.raises(TypeError, match="normal form"):
        play_n(MatrixGame(M), [FTRL(Entropy(), 0.1)] * 2, 5)
    with pytest.raises(ValueError, match=r"initial\[1\]"):
        play_n(game, [FTRL(Entropy(), 0.1)] * 2, 5, initial=[np.full(4, 0.25), np.ones(6)])


def test_the_cce_gap_of_the_run_is_the_certified_gap_of_its_joint():
    game = NormalFormGame(random_payoffs((3, 4, 2), 1))
    trace = PlaysTrace()
    result = play_n(game, [OFTRL(Entropy(), 0.5)] * 3, 80, weights="linear", observers=[trace])
    joint = ProductJoint.from_trace(result.observed["trace"])
    assert abs(cce_gap(game, joint) - result.cce_gap) <= 1e-12
    exact_cce, _ = exact_gaps(game.payoffs, joint.dense())
    assert cce_gap(game, joint) >= exact_cce and abs(float(exact_cce) - result.cce_gap) <= 1e-12
    assert np.allclose(joint.marginals()[1], result.averages[1], rtol=0, atol=1e-15)


def test_observers_see_each_round_and_may_stop_the_run():
    seen = []

    def watch(state):
        seen.append((state.t, len(state.plays), state.regrets))
        return state.t == 9

    from gamedyn.engine.observers import StopObserver

    result = play_n(NormalFormGame(random_payoffs((2, 3, 2), 2)), [RegretMatching()] * 3, 50,
                    observers=[StopObserver(watch)])
    assert result.rounds == 9 and result.stopped_early and [t for t, _, _ in seen] == list(range(1, 10))
    assert all(count == 3 and len(regrets) == 3 for _, count, regrets in seen)


def test_regrets_false_keeps_the_plays_only():
    game = BimatrixGame(M, -M)
    lean = play_n(game, [FTRL(Entropy(), 0.3)] * 2, 50, regrets=False)
    full = play_n(game, [FTRL(Entropy(), 0.3)] * 2, 50)
    assert lean.regrets is None and lean.cce_gap is None
    assert np.array_equal(lean.averages[0], full.averages[0])


# -------------------------------------------------------------------------------- the certificates


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([(2, 2), (3, 2), (2, 4), (2, 2, 2), (3, 2, 2)]), st.integers(0, 2**32 - 1),
       st.floats(0.0, 0.8))
def test_certified_gaps_are_the_exact_gaps_rounded_up(shape, seed, sparsity):
    rng = np.random.default_rng(seed)
    payoffs = random_payoffs(shape, seed)
    game = NormalFormGame(payoffs)
    joint = rng.uniform(size=shape) * (rng.uniform(size=shape) >= sparsity)
    joint.ravel()[rng.integers(joint.size)] += 0.5  # a positive sum
    exact_cce, exact_ce = exact_gaps(payoffs, joint)
    for certified, exact in ((cce_gap(game, joint), exact_cce), (ce_gap(game, joint), exact_ce)):
        assert exact <= Fraction(certified) <= exact * (1 + Fraction(2) ** -52)  # the exact gap, rounded up
    assert ce_gap(game, joint) >= cce_gap(game, joint)  # a fixed deviation is a swap
    cce, ce = lp_gaps(payoffs, joint)
    assert abs(cce - cce_gap(game, joint)) <= 1e-9 and abs(ce - ce_gap(game, joint)) <= 1e-9


@pytest.mark.parametrize("shape", [(40, 40), (12, 12, 12)])
def test_the_rounding_bound_path_is_an_upper_bound_within_1e_9(shape, monkeypatch):
    from gamedyn.games.general_sum import certificates

    rng = np.random.default_rng(9)
    game = NormalFormGame([rng.uniform(-1, 1, size=shape) for _ in shape])
    joint = rng.uniform(size=shape) ** 4
    bounded = cce_gap(game, joint), ce_gap(game, joint)
    monkeypatch.setattr(certificates, "EXACT_WORK", 10**12)  # the exact integer path on the full support
    exact = cce_gap(game, joint), ce_gap(game, joint)
    for upper, value in zip(bounded, exact):
        assert value <= upper <= value + 1e-9
    floats = max(max(float(g.max()) for g in deviation_gains(game, joint)), 0.0), \
        max(float(np.maximum(g.max(axis=1), 0).sum()) for g in swap_gains(game, joint))
    assert np.allclose(floats, exact, rtol=1e-12, atol=0)


def test_count_joints_and_known_equilibria_of_chicken():
    chicken = BimatrixGame([[0, 7], [2, 6]], [[0, 2], [7, 6]])
    aumann = CountJoint([[0, 1], [1, 0], [1, 1]], shape=(2, 2))  # 1/3 each: Aumann's correlated equilibrium
    assert ce_gap(chicken, aumann) == 0.0 and cce_gap(chicken, aumann) == 0.0
    both_dare = CountJoint([[0, 0]], shape=(2, 2))
    assert cce_gap(chicken, both_dare) == 2.0 and ce_gap(chicken, both_dare) == 2.0
    with pytest.raises(ValueError, match="shape"):
        cce_gap(chicken, np.ones((3, 2)))
    with pytest.raises(ValueError, match="non-negative"):
        ce_gap(chicken, -np.ones((2, 2)))


# ----------------------------------------------------------------------------------------- the LPs


def test_the_lps_welfare_maximising_equilibria_of_chicken():
    chicken = BimatrixGame([[0, 7], [2, 6]], [[0, 2], [7, 6]])
    for solve in (solve_cce_lp, solve_ce_lp):
        solution = solve(chicken)
        assert solution.status == 0 and solution.gap <= 1e-9
        assert abs(-solution.value - 10.5) <= 1e-7  # 1/4, 1/4 on the asymmetric outcomes, 1/2 on (chicken, chicken)
        assert np.allclose(solution.joint, [[0.0, 0.25], [0.25, 0.5]], atol=1e-7)


@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 2)])
def test_the_lp_constraint_matrices_are_the_rows_written_out(shape):
    from gamedyn.games.general_sum.lp import cce_constraints, ce_constraints

    payoffs = random_payoffs(shape, 3)
    game = NormalFormGame(payoffs)
    cce_rows, ce_rows = lp_rows(payoffs)
    assert np.allclose(cce_constraints(game), np.array([row.ravel() for row in cce_rows.values()]))
    expected = np.array([ce_rows[key].ravel() for key in sorted(ce_rows) if key[1] != key[2]])  # (i, a, a') order
    assert np.allclose(ce_constraints(game).toarray(), expected)


# -------------------------------------------------------------------------------------- the solvers


SHAPES = [(2, 2), (3, 3), (4, 3), (6, 6), (2, 2, 2), (3, 3, 2), (3, 3, 3)]


@settings(max_examples=14, deadline=None)
@given(st.sampled_from(SHAPES), st.integers(0, 2**32 - 1), st.sampled_from([1e-2, 1e-3]),
       st.sampled_from(["auto", "dynamics"]))
def test_solve_cce_gives_a_certified_gap_at_most_the_requested_one(shape, seed, gap, method):
    payoffs = list(np.random.default_rng(seed).uniform(size=(len(shape),) + shape))
    game = NormalFormGame(payoffs)
    solution = solve_cce(game, gap, method=method, max_rounds=5000)
    joint = solution.joint()
    assert joint.shape == shape and np.all(joint >= 0)
    exact_cce, _ = exact_gaps(payoffs, joint)
    if method == "dynamics" and not solution.reached:  # the dynamics' budget: the certified gap of what it has
        assert solution.gap >= exact_cce
        return
    assert exact_cce <= Fraction(solution.gap) <= Fraction(gap)  # recomputed independently: at most the request
    cce, _ = lp_gaps(payoffs, joint)
    assert abs(cce - solution.gap) <= 1e-9  # the LP's rows at the answer: its feasibility slack is the gap


@settings(max_examples=10, deadline=None)
@given(st.sampled_from([(2, 2), (3, 3), (4, 4), (2, 2, 2), (3, 2, 2)]), st.integers(0, 2**32 - 1),
       st.sampled_from(["auto", "dynamics"]))
def test_solve_ce_gives_a_certified_gap_at_most_the_requested_one(shape, seed, method):
    payoffs = list(np.random.default_rng(seed).uniform(size=(len(shape),) + shape))
    game = NormalFormGame(payoffs)
    solution = solve_ce(game, 1e-2, method=method, max_rounds=5000)
    joint = solution.joint()
    _, exact_ce = exact_gaps(payoffs, joint)
    if method == "dynamics" and not solution.reached:
        assert solution.gap >= exact_ce
        return
    assert exact_ce <= Fraction(solution.gap) <= Fraction(1e-2)
    _, ce = lp_gaps(payoffs, joint)
    assert abs(ce - solution.gap) <= 1e-9


@pytest.mark.parametrize("shape, solve", [((12, 12, 12), solve_cce), ((30, 30), solve_cce), ((12, 12), solve_ce)])
def test_the_dynamics_reach_the_gap_on_larger_random_games(shape, solve):
    game = NormalFormGame(list(np.random.default_rng(11).uniform(size=(len(shape),) + shape)))
    solution = solve(game, 1e-3, method="dynamics")
    assert solution.reached and solution.rounds is not None
    certify = cce_gap if solve is solve_cce else ce_gap
    assert certify(game, solution.joint()) == solution.gap <= 1e-3


def test_the_stop_rules_certify_before_they_stop():
    game = NormalFormGame(list(np.random.default_rng(12).uniform(size=(2, 8, 8))))
    for stop in (CCEGapStop(1e-3), CEGapStop(1e-2)):
        result = play_n(game, [SwapRegret(RegretMatching(plus=True))] * 2, 5000, weights="linear", observers=[stop])
        assert result.stopped_early and stop.certified <= stop.eps and stop.estimate <= stop.eps
        certify = cce_gap if isinstance(stop, CCEGapStop) else ce_gap
        assert certify(game, stop.joint) == stop.certified
        assert np.allclose(stop.joint, stop.product_joint().dense(), rtol=0, atol=0)


def test_solvers_refuse_bad_arguments():
    game = BimatrixGame(np.eye(2), np.eye(2))
    with pytest.raises(ValueError, match="gap must be a positive"):
        solve_cce(game, 0.0)
    with pytest.raises(ValueError, match="method must be"):
        solve_ce(game, 1e-3, method="simplex")
    with pytest.raises(TypeError, match="NormalFormGame"):
        solve_cce(MatrixGame(np.eye(2)), 1e-3)
