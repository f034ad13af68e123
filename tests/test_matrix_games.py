"""Matrix games: Hedge, optimistic Hedge and fictitious play as recipes, against their original loops
and against scipy.optimize.linprog's game value."""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from gamedyn import Bilinear, FTRL, Entropy, FollowTheRegularizedLeader, NoHint, Simplex, Zero, play
from gamedyn.games.matrix import original as original_games
from gamedyn.games.matrix import (
    InitialBelief, default_hedge_steps, default_optimistic_hedge_step, hedge_gap_bound, nash_gap, optimistic_hedge_gap_bound, payoff_range,
    solve_matrix_game,
)
from gamedyn.recipes import fictitious_play, hedge, optimistic_hedge
from gamedyn.paper.registry import relative_error

ROCK_PAPER_SCISSORS = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]])
INTERIOR = np.array([[3.0, -1.0, 0.5], [-2.0, 2.0, 0.0], [0.0, -1.0, 1.5]])  # unique interior equilibrium
_rng = np.random.default_rng(20261201)
MATRICES = {
    "rock-paper-scissors": ROCK_PAPER_SCISSORS,
    "interior 3x3": INTERIOR,
    "gaussian 4x6": _rng.normal(size=(4, 6)),
    "uniform 7x3": _rng.uniform(0.0, 5.0, size=(7, 3)),
    "single row 1x4": _rng.normal(size=(1, 4)),
}
HORIZONS = (1, 2, 3, 10, 200)
TOLERANCE = 1e-10
OFF_CENTRE = {3: [0.5, 0.3, 0.2], 4: [0.1, 0.2, 0.3, 0.4], 6: [0.05, 0.15, 0.2, 0.1, 0.3, 0.2],
              7: [0.3, 0.1, 0.1, 0.1, 0.1, 0.2, 0.1], 1: [1.0]}


def _starts(M, off_centre):
    if not off_centre:
        return None, None
    m, n = M.shape
    return np.array(OFF_CENTRE[m]), np.array(OFF_CENTRE[n])[::-1].copy()


def _recipe_and_original(name, M, T, row_start, column_start):
    if name == "hedge":
        eta_row, eta_column = default_hedge_steps(M, T)
        return (hedge(M, T, row_start=row_start, column_start=column_start, record=True),
                original_games.hedge(M, T, eta_row, eta_column, row_start, column_start, trajectory=True))
    if name == "optimistic_hedge":
        eta = default_optimistic_hedge_step(M)
        return (optimistic_hedge(M, T, row_start=row_start, column_start=column_start, record=True),
                original_games.optimistic_hedge(M, T, eta, eta, row_start, column_start, trajectory=True))
    return (fictitious_play(M, T, row_start=row_start, column_start=column_start, record=True),
            original_games.fictitious_play(M, T, row_start, column_start, trajectory=True))


# ------------------------------------------------------------------------------------- equivalence


@pytest.mark.parametrize("off_centre", [False, True], ids=["uniform start", "off-centre start"])
@pytest.mark.parametrize("matrix", list(MATRICES), ids=list(MATRICES))
@pytest.mark.parametrize("name", ["hedge", "optimistic_hedge", "fictitious_play"])
def test_recipe_equals_original_loop(name, matrix, off_centre):
    M = MATRICES[matrix]
    row_start, column_start = _starts(M, off_centre)
    for T in HORIZONS:
        result, path = _recipe_and_original(name, M, T, row_start, column_start)
        pairs = [(result.row, path.row_average), (result.column, path.column_average),
                 (result.row_last, path.row_last), (result.column_last, path.column_last),
                 (result.game.trace["w"], path.rows), (result.game.trace["p"], path.columns)]
        errors = [relative_error(value, reference) for value, reference in pairs]
        assert max(errors) <= TOLERANCE, (name, matrix, T, errors)


def test_equivalence_is_not_vacuous():
    """The plays move: on a random game the averaged strategies are not the uniform start."""
    M = MATRICES["gaussian 4x6"]
    for recipe in (hedge, optimistic_hedge, fictitious_play):
        result = recipe(M, 200)
        assert np.abs(result.row - 0.25).max() > 0.05 and np.abs(result.column - 1 / 6).max() > 0.05


@pytest.mark.parametrize("matrix", ["interior 3x3", "gaussian 4x6", "uniform 7x3"])
def test_negative_control_wrong_step(matrix):
    """The original loop run with twice the recipe's step differs from the recipe by a wide margin."""
    M, T = MATRICES[matrix], 200
    eta_row, eta_column = default_hedge_steps(M, T)
    wrong = original_games.hedge(M, T, 2 * eta_row, 2 * eta_column)
    assert relative_error(hedge(M, T).row, wrong.row_average) > 1e-3
    eta = default_optimistic_hedge_step(M)
    wrong = original_games.optimistic_hedge(M, T, 2 * eta, 2 * eta)
    assert relative_error(optimistic_hedge(M, T).row, wrong.row_average) > 1e-3


@pytest.mark.parametrize("matrix", ["interior 3x3", "gaussian 4x6", "uniform 7x3"])
def test_negative_control_wrong_weights(matrix):
    """The same learners on weights alpha_t = t (not 1) miss the original by a wide margin."""
    M, T = MATRICES[matrix], 200
    eta_row, eta_column = default_hedge_steps(M, T)
    game = play(Bilinear(M.T), FTRL(Entropy(), eta_row), FTRL(Entropy(), eta_column), T, weights="linear")
    assert relative_error(game.w_average, original_games.hedge(M, T, eta_row, eta_column).row_average) > 1e-3
    best_responder = FollowTheRegularizedLeader(Zero(Simplex()), 1.0, InitialBelief())
    game = play(Bilinear(M.T), best_responder, best_responder, T, weights="linear")
    assert relative_error(game.w_average, original_games.fictitious_play(M, T).row_average) > 1e-3


def test_negative_control_fictitious_play_without_prior():
    """Without the prior-belief hint, round 1 plays vertex 0 instead of the best response to y_0."""
    M, T = INTERIOR, 10
    start = np.array([0.1, 0.1, 0.8])
    plain = FollowTheRegularizedLeader(Zero(Simplex()), 1.0, NoHint())
    game = play(Bilinear(M.T), plain, plain, T, initial_w=start, initial_p=start)
    assert relative_error(game.w_average, original_games.fictitious_play(M, T, start, start).row_average) > 0.05


# ------------------------------------------------------------------------------ linprog and bounds


def test_linprog_value_matches_closed_forms():
    """Matching pennies (0, uniform), RPS (0, uniform), a 2x2 game without saddle ((ad - bc)/(a + d - b - c))."""
    assert abs(solve_matrix_game([[1, -1], [-1, 1]]).value) < 1e-12
    solution = solve_matrix_game(ROCK_PAPER_SCISSORS)
    assert abs(solution.value) < 1e-12 and np.allclose(solution.row, 1 / 3) and np.allclose(solution.column, 1 / 3)
    a, b, c, d = 3.0, -1.0, -2.0, 4.0
    solution = solve_matrix_game([[a, b], [c, d]])
    assert solution.value == pytest.approx((a * d - b * c) / (a + d - b - c), rel=1e-12)
    assert solution.row[0] == pytest.approx((d - c) / (a + d - b - c), rel=1e-9)
    assert nash_gap([[a, b], [c, d]], solution.row, solution.column) < 1e-12


matrices = arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 6)),
                  elements=st.floats(-10, 10, allow_nan=False, width=64))


@settings(max_examples=40, deadline=None)
@given(M=matrices, T=st.integers(1, 300))
@example(M=np.array([[2.2250738585072014e-308, 0.0]]), T=5)  # r = the smallest normal: eta T r^2 was inf * 0
def test_nash_gap_within_the_theory_bounds_and_brackets_linprog_value(M, T):
    """Theorem 2 + Hedge's / RVU regret bounds bound the gap; v* lies between the best-response values.

    linprog's answer is certified by its own strategies, lower <= v* <= upper (HiGHS's tolerance is
    absolute, so the bracket can be about 1e-10 of max |M| wide); the claims are checked against it.
    """
    solution = solve_matrix_game(M)
    lower, upper = solution.lower, solution.upper
    assert lower <= solution.value <= upper
    if 0 < payoff_range(M) < np.finfo(np.float64).tiny:  # a subnormal range: the default steps overflow to inf,
        with pytest.raises(ValueError, match="Rescale M"):  # and the recipes refuse M, naming the fix
            hedge(M, T)
        return
    scale = max(1.0, np.abs(M).max())
    for result, bound in (
        (hedge(M, T), hedge_gap_bound(M, T, *default_hedge_steps(M, T))),
        (optimistic_hedge(M, T), optimistic_hedge_gap_bound(M, T, default_optimistic_hedge_step(M))),
        (fictitious_play(M, T, regrets=True), np.inf),  # (the recipe skips the regrets unless asked)
    ):
        slack = 1e-12 * scale
        assert -slack <= result.nash_gap <= bound + slack
        assert result.nash_gap <= result.game.theorem2_bound + slack  # the runner's certificate
        assert result.game.duality_gap == pytest.approx(result.nash_gap, abs=slack)
        assert float(np.min(result.row @ M)) - slack <= upper and lower <= float(np.max(M @ result.column)) + slack
        assert lower - result.nash_gap - slack <= result.value <= upper + result.nash_gap + slack


def _slope(horizons, gaps):
    return float(np.polyfit(np.log(horizons), np.log(gaps), 1)[0])


@pytest.mark.slow
def test_measured_rates_against_linprog():
    """Hedge ~ T^-1/2, optimistic Hedge ~ T^-1 (30 x 40 uniform game); fictitious play slow on RPS."""
    M = np.random.default_rng(1).uniform(-1, 1, size=(30, 40))
    value = solve_matrix_game(M).value
    horizons = np.array([100, 1000, 10000])
    hedges = [hedge(M, T) for T in horizons]
    optimistic = [optimistic_hedge(M, T) for T in horizons]
    for result in hedges + optimistic:
        assert float(np.min(result.row @ M)) <= value + 1e-12 <= float(np.max(M @ result.column)) + 2e-12
    hedge_slope = _slope(horizons, [r.nash_gap for r in hedges])
    optimistic_slope = _slope(horizons, [r.nash_gap for r in optimistic])
    assert -0.6 <= hedge_slope <= -0.4, hedge_slope
    assert -1.2 <= optimistic_slope <= -0.9, optimistic_slope
    start_row, start_column = [0.5, 0.3, 0.2], [0.2, 0.2, 0.6]
    play_gaps = [fictitious_play(ROCK_PAPER_SCISSORS, T, row_start=start_row, column_start=start_column).nash_gap
                 for T in horizons]
    fast_gaps = [optimistic_hedge(ROCK_PAPER_SCISSORS, T, row_start=start_row, column_start=start_column).nash_gap
                 for T in horizons]
    assert _slope(horizons, play_gaps) > -0.75  # measured about -0.5
    assert play_gaps[-1] > 100 * fast_gaps[-1]


# ----------------------------------------------------------------------------------- last iterate


@pytest.mark.parametrize("matrix", ["rock-paper-scissors", "interior 3x3"])
def test_last_iterate_optimistic_converges_plain_hedge_does_not(matrix):
    """Interior equilibrium: optimistic Hedge's round-T plays converge; plain Hedge's keep a large gap."""
    M, T, start = MATRICES[matrix], 5000, [0.5, 0.3, 0.2]
    fast = optimistic_hedge(M, T, row_start=start)
    assert nash_gap(M, fast.row_last, fast.column_last) < 1e-4
    for eta in (None, 1 / 6):
        slow = hedge(M, T, row_start=start, eta_w=eta, eta_p=eta)
        assert nash_gap(M, slow.row_last, slow.column_last) > 0.1


def test_plain_hedge_drifts_away_from_an_interior_equilibrium():
    """Bailey & Piliouras 2018: KL(x*||x_t) + KL(y*||y_t) never decreases under constant-step Hedge."""
    M = INTERIOR
    solution = solve_matrix_game(M)
    result = hedge(M, 400, eta_w=0.1, eta_p=0.1, row_start=[0.5, 0.3, 0.2], record=True)

    def divergence(star, plays):
        return np.sum(star * (np.log(star) - np.log(plays)), axis=1)

    total = divergence(solution.row, result.game.trace["w"]) + divergence(solution.column, result.game.trace["p"])
    assert np.all(np.diff(total) >= -1e-12)
    assert total[-1] > 2 * total[0]


# ------------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("recipe", [hedge, optimistic_hedge, fictitious_play])
def test_bad_input_names_the_argument(recipe):
    with pytest.raises(ValueError, match="M must be a 2-D payoff matrix"):
        recipe([1.0, 2.0], 10)
    with pytest.raises(ValueError, match="finite"):
        recipe([[1.0, np.nan]], 10)
    with pytest.raises(ValueError, match="row_start"):
        recipe(ROCK_PAPER_SCISSORS, 10, row_start=[0.5, 0.5])
    with pytest.raises(ValueError, match="column_start"):
        recipe(ROCK_PAPER_SCISSORS, 10, column_start=[0.5, 0.6, -0.1])
    with pytest.raises(ValueError, match="T"):
        recipe(ROCK_PAPER_SCISSORS, 0)


def test_bad_steps_and_rvu_condition():
    with pytest.raises(ValueError, match="eta_w"):
        hedge(ROCK_PAPER_SCISSORS, 10, eta_w=-1.0)
    with pytest.raises(ValueError, match="eta_p"):
        optimistic_hedge(ROCK_PAPER_SCISSORS, 10, eta_w=0.5, eta_p=0.0)
    with pytest.raises(ValueError, match="eta <= 1/r"):
        optimistic_hedge_gap_bound(ROCK_PAPER_SCISSORS, 10, eta=1.0)


# ---------------------------------------------------------------------------------- reproduce rows


def test_reproduce_has_the_matrix_game_rows_and_they_pass_quick():
    from gamedyn.paper import reproduce

    claims = [claim for claim in reproduce.CLAIMS if claim.group == "matrix games"]
    assert {claim.name for claim in claims} == {"Hedge: Nash gap O(1/sqrt T)", "Optimistic Hedge: Nash gap O(1/T)"}
    context = reproduce.Context(reproduce.PROFILES["quick"])
    for claim in claims:
        measurement = claim.check(context)
        assert measurement.passed, measurement
        assert "linprog v* between the best replies: yes" in measurement.detail


def test_reproduce_matrix_rows_fail_when_the_rate_is_too_slow(monkeypatch):
    """Negative control: held to a slope of -1.5 (faster than its 1/T), optimistic Hedge fails."""
    from gamedyn.paper import reproduce
    from gamedyn.paper.experiments import matrix_games

    monkeypatch.setattr(matrix_games, "OPTIMISTIC_SLOPE_AT_MOST", -1.5)
    claim = next(claim for claim in matrix_games.matrix_game_claims() if claim.name.startswith("Optimistic"))
    measurement = claim.check(reproduce.Context(reproduce.PROFILES["quick"]))
    assert not measurement.passed and -1.2 < measurement.measured < -0.9


@pytest.mark.parametrize("scale", [1.6035119e-11, 1e-200, 1.0, 1e200])
def test_linprog_value_scales_with_the_matrix(scale):
    """v*(cM) = c v*(M) for c > 0: the LP is solved in M's own units (found by hypothesis: M = [[1.6e-11]] gave -0.0)."""
    M = np.array([[0.0, -1.0, 2.0], [1.0, 0.5, -1.0]])
    assert abs(solve_matrix_game(scale * M).value - scale * solve_matrix_game(M).value) <= 1e-14 * scale
    assert solve_matrix_game([[scale]]).value == scale
    solution = solve_matrix_game([[1.0, 1e-10]])  # hypothesis: the LP alone answered -0.0
    assert solution.lower == solution.upper == solution.value == 1e-10


# ------------------------------------------------------- matrix-game inputs (issue 16, defect 3)

from gamedyn.games.matrix import check_strategy, payoff_range  # noqa: E402

RECIPES = {"hedge": hedge, "optimistic_hedge": optimistic_hedge, "fictitious_play": fictitious_play}


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_issue_complex_payoffs_are_refused(name):
    """Old: a ComplexWarning, then the imaginary part silently dropped."""
    complex_game = ROCK_PAPER_SCISSORS + 1j * INTERIOR
    with pytest.raises(TypeError, match=r"M is complex; payoffs are real numbers\. Pass M\.real"):
        RECIPES[name](complex_game, 10)
    with pytest.raises(TypeError, match=r"row_start is complex"):
        RECIPES[name](ROCK_PAPER_SCISSORS, 10, row_start=np.full(3, 1 / 3, dtype=complex))


def test_issue_complex_input_to_the_solver_and_the_gap_is_refused():
    with pytest.raises(TypeError, match="M is complex"):
        solve_matrix_game(ROCK_PAPER_SCISSORS + 1j)
    with pytest.raises(TypeError, match="M is complex"):
        nash_gap(ROCK_PAPER_SCISSORS * (1 + 0j), [1 / 3] * 3, [1 / 3] * 3)
    with pytest.raises(TypeError, match="column is complex"):
        nash_gap(ROCK_PAPER_SCISSORS, [1 / 3] * 3, np.full(3, 1 / 3) + 0j)


@pytest.mark.parametrize("name", ["hedge", "optimistic_hedge"])
def test_issue_a_default_step_from_an_overflowing_range_names_M_not_eta(name):
    """Old: 'eta must be finite and > 0, got 0.0; pass e.g. eta=1.0' for hedge(M * 1e308), no eta passed."""
    huge = ROCK_PAPER_SCISSORS * 1e308  # max M - min M = 2e308: beyond float64
    assert payoff_range(huge) == np.inf
    with pytest.raises(ValueError, match=r"the default step eta = .* is computed from M's payoff range r = max M - "
                                         r"min M, which is beyond float64 .*no eta was passed\. Rescale M: pass M / s"):
        RECIPES[name](huge, 10)
    # a finite range whose step 1 / r falls below float64's normal range (r > 4.5e307)
    with pytest.raises(ValueError, match=r"below float64's normal range.*Rescale M"):
        default_optimistic_hedge_step(ROCK_PAPER_SCISSORS * 6e307)


@pytest.mark.parametrize("name", ["hedge", "optimistic_hedge"])
def test_the_fix_the_message_names_gives_the_same_strategies(name):
    """Rescaling M by a power of two s (exact) with the default steps plays the same strategies, bit for bit,
    and divides the value and the Nash gap by s."""
    s = 2.0**1000
    scaled, plain = RECIPES[name](INTERIOR * s, 60), RECIPES[name](INTERIOR, 60)
    assert np.array_equal(scaled.row, plain.row) and np.array_equal(scaled.column, plain.column)
    assert scaled.nash_gap == plain.nash_gap * s and scaled.value == plain.value * s


@pytest.mark.parametrize("name", ["hedge", "optimistic_hedge"])
def test_issue_a_zero_start_entry_is_refused_for_the_entropy_recipes(name):
    """Old: accepted, and action 2 was never played (row average [0.36, 0.64, 0.0] on rock-paper-scissors)."""
    with pytest.raises(ValueError, match=r"row_start gives action\(s\) \[2\] start weight 0: an entropy learner "
                                         r"\(Hedge\) .* never play them.*or leave row_start out"):
        RECIPES[name](ROCK_PAPER_SCISSORS, 100, row_start=[0.5, 0.5, 0.0])
    with pytest.raises(ValueError, match=r"column_start gives action\(s\) \[0, 1\] start weight 0"):
        RECIPES[name](ROCK_PAPER_SCISSORS, 100, column_start=[0.0, 0.0, 1.0])
    start, T = np.array([0.5, 0.5 - 1e-3, 1e-3]), 2000
    positive = RECIPES[name](ROCK_PAPER_SCISSORS, T, row_start=start)  # the repaired start plays action 2 too
    if name == "hedge":
        bound = hedge_gap_bound(ROCK_PAPER_SCISSORS, T, *default_hedge_steps(ROCK_PAPER_SCISSORS, T), row_start=start)
    else:
        bound = optimistic_hedge_gap_bound(ROCK_PAPER_SCISSORS, T, default_optimistic_hedge_step(ROCK_PAPER_SCISSORS),
                                           row_start=start)
    assert positive.row[2] > 0.2 and 0 <= positive.nash_gap <= bound < np.inf


def test_fictitious_play_takes_a_zero_prior_entry():
    """A prior belief with a zero entry restricts nothing: the best responder still plays every action."""
    result = fictitious_play(ROCK_PAPER_SCISSORS, 300, row_start=[0.5, 0.5, 0.0])
    assert np.all(result.row > 0.2) and result.nash_gap < 0.2


def test_gap_bounds_check_their_starts():
    with pytest.raises(ValueError, match="row_start must be a probability vector of length 3"):
        hedge_gap_bound(ROCK_PAPER_SCISSORS, 10, 0.1, 0.1, row_start=[0.5, 0.5])
    with pytest.raises(ValueError, match="column_start must be non-negative"):
        optimistic_hedge_gap_bound(ROCK_PAPER_SCISSORS, 10, 0.1, column_start=[1.5, -0.5, 0.0])
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a zero start entry: the bound is +inf (ln(1/0)), without a divide warning
        assert hedge_gap_bound(ROCK_PAPER_SCISSORS, 10, 0.1, 0.1, row_start=[0.5, 0.5, 0.0]) == np.inf
    with pytest.raises(ValueError, match=r"start weight 0"):
        check_strategy([0.0, 1.0], 2, "row_start", positive=True)


def test_solve_matrix_game_bracket_survives_rounding():
    """Regression (hypothesis found it): at an exact LP solution the two computed ends can cross by
    an ulp; the certified bracket is widened by its rounding bound, so lower <= value <= upper and
    the bracket contains the exact value (a game whose value is known in closed form: a 2 x 2 game
    with v* = (ad - bc) / (a + d - b - c))."""
    from fractions import Fraction

    rng = np.random.default_rng(7)
    for _ in range(200):
        a, d = rng.uniform(0.5, 2.0, size=2)
        b, c = -rng.uniform(0.5, 2.0, size=2)
        M = np.array([[a, b], [c, d]])  # no saddle point: the equilibrium is mixed
        exact = (Fraction(a) * Fraction(d) - Fraction(b) * Fraction(c)) / (Fraction(a) + Fraction(d) - Fraction(b) - Fraction(c))
        solution = solve_matrix_game(M)
        assert solution.lower <= solution.value <= solution.upper
        assert Fraction(solution.lower) <= exact <= Fraction(solution.upper)


@pytest.mark.parametrize("seed", range(4))
def test_play_on_a_matrix_game_carries_the_value_bracket_of_its_averages(seed):
    """``play(MatrixGame(M), ...).certificate`` is the certified value bracket of (w_average, p_average):
    it contains solve_matrix_game's value and equals value_bracket computed by hand (issue 17, item 6)."""
    from gamedyn import FTRL, Entropy, MatrixGame, play
    from gamedyn.games.matrix import value_bracket

    M = np.random.default_rng(seed).uniform(-1, 1, (4 + seed, 6 - seed))
    game = play(MatrixGame(M), FTRL(Entropy(), 0.2), FTRL(Entropy(), 0.2), T=300, weights="linear")
    bracket = game.certificate
    assert bracket == value_bracket(M, game.w_average, game.p_average)
    value = solve_matrix_game(M).value
    assert bracket.lower <= value <= bracket.upper
    assert bracket.upper - bracket.lower <= 0.2  # the averages of 300 rounds are near an equilibrium
