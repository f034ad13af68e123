"""solve_game's exact solver (issue 35): one HiGHS LP and the dynamics' certified bracket, chosen by a size model.

The LP's strategies are certified exactly as the dynamics' are (both best replies, widened by their rounding
bound), so every claim is checked against the exact oracle (``solve_matrix_game``: two LPs and a rational
evaluation on the supports) and against ``nash_gap`` computed afresh.
"""

import math

import numpy as np
import pytest
import scipy.sparse as sp

import gamedyn
from gamedyn.games.matrix import solve_game, solve_matrix_game
from gamedyn.games.matrix.solve import LP_CROSSOVER_ENTRIES, lp_is_faster, lp_strategies

LP = "linprog (HiGHS)"


@pytest.mark.parametrize("shape, seed", [((2, 2), 0), ((7, 5), 1), ((40, 60), 2), ((120, 90), 3)])
def test_lp_solution_is_certified_and_brackets_the_value(shape, seed):
    M = np.random.default_rng(seed).uniform(-1, 1, shape)
    solution = solve_game(M, gap=1e-9, method="lp")
    exact = solve_matrix_game(M)
    assert solution.method == LP and solution.rounds == 0 and solution.converged
    assert solution.nash_gap <= 1e-9
    assert math.isclose(solution.nash_gap, gamedyn.nash_gap(M, solution.row, solution.column), abs_tol=1e-13)
    assert solution.lower <= exact.upper and exact.lower <= solution.upper  # both certified brackets hold v*
    assert solution.row.min() >= 0 and solution.column.min() >= 0
    assert math.isclose(solution.row.sum(), 1.0, abs_tol=1e-14) and math.isclose(solution.column.sum(), 1.0, abs_tol=1e-14)


def test_lp_strategies_are_a_saddle_point_of_a_game_with_a_known_solution():
    """The unique equilibrium of [[2, -1], [-1, 1]] (rows maximise): x = y = (2/5, 3/5), value 1/5."""
    M = np.array([[2.0, -1.0], [-1.0, 1.0]])
    row, column = lp_strategies(M)
    assert np.allclose(row, [0.4, 0.6], atol=1e-12) and np.allclose(column, [0.4, 0.6], atol=1e-12)
    solution = solve_game(M, gap=1e-12)
    assert solution.method == LP and solution.lower <= 0.2 <= solution.upper and solution.nash_gap <= 1e-12


def test_lp_on_sparse_and_float32():
    S = sp.random(80, 50, density=0.1, random_state=3, format="csr")
    solution = solve_game(S, gap=1e-8)
    assert solution.method == LP and gamedyn.nash_gap(S.toarray(), solution.row, solution.column) <= 1e-8 + 1e-13
    M32 = np.random.default_rng(4).uniform(-1, 1, (30, 20)).astype(np.float32)
    solution = solve_game(M32, gap=1e-8)
    exact = solve_matrix_game(M32.astype(np.float64))
    assert solution.method == LP and solution.nash_gap <= 1e-8
    assert solution.lower <= exact.upper and exact.lower <= solution.upper


def test_the_size_model_chooses_the_lp_for_small_games_only():
    assert lp_is_faster((100, 100), 10_000, 1e-6) and lp_is_faster((300, 300), 90_000, 1e-6)
    assert not lp_is_faster((1000, 1000), 1_000_000, 1e-6)
    assert lp_is_faster((1000, 1000), 1_000_000, 1e-8)  # a finer gap costs the dynamics more rounds, the LP nothing
    assert lp_is_faster((1, LP_CROSSOVER_ENTRIES), LP_CROSSOVER_ENTRIES, 1e-6)
    assert not lp_is_faster((1, LP_CROSSOVER_ENTRIES + 1), LP_CROSSOVER_ENTRIES + 1, 1e-6)
    M = np.random.default_rng(5).uniform(-1, 1, (30, 30))
    assert solve_game(M).method == LP
    dynamics = solve_game(M, method="dynamics")
    assert dynamics.rounds > 0 and dynamics.method != LP and dynamics.nash_gap <= 1e-6


def test_an_lp_bracket_wider_than_the_gap_hands_over_to_the_dynamics():
    """A gap below the LP's accuracy (HiGHS works to about 1e-7 of the payoffs; the bracket to rounding): the
    dynamics run, and report that they did not reach it within their rounds."""
    M = np.random.default_rng(6).uniform(-1, 1, (25, 25)) * 1e6
    solution = solve_game(M, gap=1e-12, method="lp", max_rounds=50)
    assert solution.method != LP and solution.rounds == 50 and not solution.converged


def test_bad_method_is_named():
    with pytest.raises(ValueError, match="method must be 'auto'"):
        solve_game([[1.0, 0.0], [0.0, 1.0]], method="simplex")
