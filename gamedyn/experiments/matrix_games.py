r"""Measured Nash-gap rates of Hedge and optimistic Hedge against ``scipy.optimize.linprog``'s value.

:func:`gap_table` plays each recipe on one payoff matrix over a grid of horizons T and records the
Nash gap of the averaged strategies, the theory's bound on it, and whether linprog's value
:math:`v^\star` lies between the two best-response values (it must, at every T). The fitted
log-log slope is the measured rate: about -1/2 for Hedge (tuned steps
:math:`\eta=\sqrt{8\ln k/T}/r`), about -1 for optimistic Hedge (:math:`\eta=1/r`).

:func:`matrix_game_claims` turns this into two rows of ``gamedyn reproduce`` (group
``matrix games``).
"""

from __future__ import annotations

import math

import attrs
import numpy as np

from gamedyn.matrix_games import (
    default_hedge_steps,
    default_optimistic_hedge_step,
    hedge_gap_bound,
    optimistic_hedge_gap_bound,
    solve_matrix_game,
)

__all__ = [
    "GapRow", "HORIZONS", "benchmark_matrix", "fitted_slope", "gap_table", "matrix_game_claims",
]

HORIZONS = {"quick": (100, 300, 1000), "default": (100, 1000, 10000), "full": (100, 1000, 10000, 30000)}
HEDGE_SLOPE_AT_MOST = -0.4
OPTIMISTIC_SLOPE_AT_MOST = -0.9


def benchmark_matrix(rows: int = 30, columns: int = 40, seed: int = 1) -> np.ndarray:
    """The issue's test game: entries uniform on [-1, 1], a fixed seed."""
    return np.random.default_rng(seed).uniform(-1.0, 1.0, size=(rows, columns))


@attrs.frozen
class GapRow:
    """One run: the recipe, T, the measured Nash gap, the theory's bound, and v* bracketed or not."""

    recipe: str
    T: int
    nash_gap: float
    bound: float
    brackets_value: bool


def _bound(recipe: str, M, T: int) -> float:
    if recipe == "hedge":
        return hedge_gap_bound(M, T, *default_hedge_steps(M, T))
    return optimistic_hedge_gap_bound(M, T, default_optimistic_hedge_step(M))


def gap_table(M, horizons, recipe_names=("hedge", "optimistic_hedge")) -> list:
    """A :class:`GapRow` for every recipe and horizon (default steps, uniform starts)."""
    from gamedyn import recipes

    M = np.asarray(M, dtype=np.float64)
    value = solve_matrix_game(M).value
    tolerance = 1e-12 * max(1.0, float(np.abs(M).max()))
    rows = []
    for name in recipe_names:
        for T in horizons:
            result = getattr(recipes, name)(M, T)
            brackets = float(np.min(result.row @ M)) - tolerance <= value <= float(np.max(M @ result.column)) + tolerance
            rows.append(GapRow(name, int(T), result.nash_gap, _bound(name, M, T), bool(brackets)))
    return rows


def fitted_slope(rows) -> float:
    """Least-squares slope of log(Nash gap) against log(T)."""
    horizons = np.log([row.T for row in rows])
    gaps = np.log([row.nash_gap for row in rows])
    return float(np.polyfit(horizons, gaps, 1)[0])


def matrix_game_claims() -> list:
    """The ``gamedyn reproduce`` rows: Hedge's Nash gap O(1/sqrt T), optimistic Hedge's O(1/T)."""
    from gamedyn.reproduce import Claim, Measurement

    def check_for(recipe: str, at_most: float):
        def check(context) -> Measurement:
            horizons = HORIZONS.get(context.profile.name, HORIZONS["default"])
            table = context.cached("matrix games", lambda: gap_table(benchmark_matrix(), horizons))
            rows = [row for row in table if row.recipe == recipe]
            slope = fitted_slope(rows)
            within = all(row.nash_gap <= row.bound for row in rows)
            brackets = all(row.brackets_value for row in rows)
            listing = ", ".join(f"T={row.T}: {row.nash_gap:.2e} (bound {row.bound:.2e})" for row in rows)
            detail = (f"30x40 uniform game; gaps {listing}; linprog v* between the best replies: "
                      f"{'yes' if brackets else 'NO'}; every gap within its bound: {'yes' if within else 'NO'}")
            passed = bool(math.isfinite(slope) and slope <= at_most and within and brackets)
            return Measurement(slope, at_most, passed, detail)

        return check

    return [
        Claim("Hedge: Nash gap O(1/sqrt T)", "Hedge vs Hedge, eta = sqrt(8 ln k/T)/r: gap <= r(sqrt(ln m/2T) + "
              "sqrt(ln n/2T)), against linprog's v*", "matrix games", ("hedge", "Freund & Schapire 1999"),
              "slope", "<=", check_for("hedge", HEDGE_SLOPE_AT_MOST)),
        Claim("Optimistic Hedge: Nash gap O(1/T)", "optimistic Hedge, eta = 1/r: gap <= r(ln m + ln n + 2)/T "
              "(RVU), against linprog's v*", "matrix games", ("optimistic_hedge", "Syrgkanis et al. 2015"),
              "slope", "<=", check_for("optimistic_hedge", OPTIMISTIC_SLOPE_AT_MOST)),
    ]
