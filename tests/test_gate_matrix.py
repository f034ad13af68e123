"""The matrix-game step sizes and gap bounds are the stated formulas (issue 16: two mutation survivors).

``default_hedge_steps`` with another constant, or ``hedge_gap_bound`` with another Hoeffding
constant, passed every test: the equivalence tests read the steps from ``default_hedge_steps``
itself, and a looser bound still holds. Here each is compared with its formula, written out.
"""

import math

import numpy as np
import pytest

from gamedyn import recipes
from gamedyn.games.matrix import original as original_games
from gamedyn.games.matrix import (
    default_hedge_steps, default_optimistic_hedge_step, hedge_gap_bound, optimistic_hedge_gap_bound,
)
from gamedyn.paper.registry import relative_error

_rng = np.random.default_rng(16)
GAMES = {
    "gaussian 4x6": _rng.normal(size=(4, 6)),
    "uniform 7x3, r = 5": _rng.uniform(0.0, 5.0, size=(7, 3)),
    "1x4": _rng.normal(size=(1, 4)),
    "5x1, tiny range": 1e-3 * _rng.normal(size=(5, 1)),
    "rock-paper-scissors": np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]]),
}


def _range(M):
    return float(M.max() - M.min())


@pytest.mark.parametrize("name", sorted(GAMES))
@pytest.mark.parametrize("T", [1, 10, 1000])
def test_default_hedge_steps_are_sqrt_8_ln_k_over_T_divided_by_r(name, T):
    M = GAMES[name]
    m, n = M.shape
    eta_row, eta_column = default_hedge_steps(M, T)
    assert eta_row == pytest.approx(math.sqrt(8 * math.log(max(m, 2)) / T) / _range(M), rel=1e-14)
    assert eta_column == pytest.approx(math.sqrt(8 * math.log(max(n, 2)) / T) / _range(M), rel=1e-14)


def test_a_constant_game_gets_the_steps_of_r_equal_one():
    assert default_hedge_steps(np.full((3, 2), 7.0), 50) == pytest.approx(
        (math.sqrt(8 * math.log(3) / 50), math.sqrt(8 * math.log(2) / 50)), rel=1e-14)
    assert default_optimistic_hedge_step(np.full((3, 2), 7.0)) == 1.0


@pytest.mark.parametrize("name", sorted(GAMES))
@pytest.mark.parametrize("T", [1, 10, 1000])
def test_hedge_gap_bound_at_the_default_steps_is_r_times_root_terms(name, T):
    """r (sqrt(ln m / 2T) + sqrt(ln n / 2T)) from uniform starts (ln k read as ln max(k, 2))."""
    M = GAMES[name]
    m, n = M.shape
    expected = _range(M) * (math.sqrt(math.log(max(m, 2)) / (2 * T)) + math.sqrt(math.log(max(n, 2)) / (2 * T)))
    if min(m, n) == 1:  # ln 1 = 0 is the range term of a single action; the step still uses ln 2
        expected = sum(math.log(k) / eta + eta * T * _range(M) ** 2 / 8
                       for k, eta in zip((m, n), default_hedge_steps(M, T))) / T
    assert hedge_gap_bound(M, T, *default_hedge_steps(M, T)) == pytest.approx(expected, rel=1e-13)


def test_hedge_gap_bound_with_any_steps_and_starts_is_the_hoeffding_formula():
    M = GAMES["gaussian 4x6"]
    T, eta_row, eta_column = 37, 0.3, 1.7
    row_start = np.array([0.1, 0.2, 0.3, 0.4])
    column_start = np.array([0.05, 0.15, 0.2, 0.1, 0.3, 0.2])
    r = _range(M)
    expected = ((math.log(10) / eta_row + eta_row * T * r**2 / 8)
                + (math.log(20) / eta_column + eta_column * T * r**2 / 8)) / T
    assert hedge_gap_bound(M, T, eta_row, eta_column, row_start, column_start) == pytest.approx(expected, rel=1e-13)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_optimistic_hedge_step_and_rvu_bound_are_the_formulas(name):
    M = GAMES[name]
    m, n = M.shape
    r, T = _range(M), 250
    assert default_optimistic_hedge_step(M) == pytest.approx(1 / r, rel=1e-15)
    assert optimistic_hedge_gap_bound(M, T, 1 / r) == pytest.approx(r * (math.log(m) + math.log(n) + 2) / T, rel=1e-13)
    eta = 0.5 / r
    starts = (np.full(m, 1 / m), np.linspace(1, 2, n) / np.linspace(1, 2, n).sum())
    expected = ((math.log(m) - math.log(starts[1].min())) / eta + 2 * eta * r**2) / T
    assert optimistic_hedge_gap_bound(M, T, eta, *starts) == pytest.approx(expected, rel=1e-13)


@pytest.mark.parametrize("name", ["gaussian 4x6", "uniform 7x3, r = 5", "rock-paper-scissors"])
def test_the_recipes_play_the_stated_steps(name):
    """The recipes' defaults against the original loops run with the formulas' steps (not default_hedge_steps')."""
    M = GAMES[name]
    m, n = M.shape
    for T in (1, 7, 200):
        steps = [math.sqrt(8 * math.log(max(k, 2)) / T) / _range(M) for k in (m, n)]
        path = original_games.hedge(M, T, *steps, trajectory=True)
        result = recipes.hedge(M, T, record=True)
        assert relative_error(result.game.trace["w"], path.rows) <= 1e-10
        assert relative_error(result.column, path.column_average) <= 1e-10
        path = original_games.optimistic_hedge(M, T, 1 / _range(M), 1 / _range(M), trajectory=True)
        result = recipes.optimistic_hedge(M, T, record=True)
        assert relative_error(result.game.trace["p"], path.columns) <= 1e-10
        assert relative_error(result.row, path.row_average) <= 1e-10
