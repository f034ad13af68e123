r"""Measured Nash-gap rates of Hedge and optimistic Hedge, held to the bounds their steps are tuned for.

Two kinds of games, both played with the recipes' default steps and checked against the bound
computed from the *stated formula* (never from the steps a recipe returns, so a recipe with a wrong
step constant cannot pass by carrying its own bound along):

* :func:`benchmark_matrix` (30 x 40, uniform on [-1, 1]) over a grid of horizons T, from uniform
  starts: the fitted log-log slope of the gap is the measured rate, about -1/2 for Hedge
  (:math:`\eta=\sqrt{8\ln k/T}/r`) and about -1 for optimistic Hedge (:math:`\eta=1/r`);
* :func:`corner_game` (scaled by :data:`CORNER_SCALES`): the row player has a dominant action but
  starts with mass :data:`CORNER` on it, the column player is indifferent. The row player's regret
  is then :math:`\approx\ln(1/x_{0,\text{best}})/\eta`, the first term of the regret bound, so the
  stated bound is nearly attained (about 0.9 of it for Hedge, 0.8 for optimistic Hedge, at every T)
  and a step half as large as stated breaks it. The scales 1/4 and 4 catch a step that does not
  scale as 1/r (a missing or squared r changes the step by a factor 4 at one of them).

Hedge's bound is Theorem 2 with exponential weights' regret bound (Hoeffding's lemma; Cesa-Bianchi &
Lugosi 2006, Thm 2.2, with a prior :math:`x_0`): per player :math:`\max_i\ln(1/x_{0,i})/\eta+\eta Tr^2/8`,
which at uniform starts and the stated steps is :math:`r(\sqrt{\ln m/2T}+\sqrt{\ln n/2T})`. Optimistic
Hedge's is the RVU bound (Syrgkanis et al. 2015) :math:`r(\ln(1/\min x_0)+\ln(1/\min y_0)+2)/T` at
:math:`\eta=1/r`. Only a step *smaller* than stated can exceed these bounds in self-play (the
opponent moves slowly, so the :math:`\eta Tr^2/8` term is never approached); a larger step is caught by
the matrix-game equivalence rows (:data:`gamedyn.paper.registry.EQUIVALENCES`), which replay
:mod:`gamedyn.games.matrix.original` with the stated steps.

Each row also checks that linprog's solution is a certified equilibrium (its own Nash gap at most
:data:`CERTIFICATE_TOLERANCE` r), so the value :math:`v^\star` the gaps are read against is exact.

:func:`matrix_game_claims` turns this into two rows of ``gamedyn reproduce`` (group ``matrix games``).
"""

from __future__ import annotations

import math

import attrs
import numpy as np

from gamedyn.games.matrix.game import solve_matrix_game

__all__ = [
    "CORNER", "CORNER_HORIZONS", "CORNER_SCALES", "HORIZONS", "GapRow", "benchmark_matrix", "corner_game",
    "fitted_slope", "gap_table", "matrix_game_claims", "measure", "stated_hedge_bound", "stated_hedge_steps",
    "stated_optimistic_hedge_bound", "stated_optimistic_hedge_step",
]

HORIZONS = {"quick": (100, 300, 1000), "default": (100, 1000, 10000), "full": (100, 1000, 10000, 30000)}
CORNER_HORIZONS = {"quick": (100,), "default": (100, 1000), "full": (100, 1000, 10000)}
CORNER = 1e-6  # the row player's start puts this mass on its dominant action
CORNER_SCALES = (0.25, 1.0, 4.0)  # the corner game times these (r = the scale)
HEDGE_SLOPE_AT_MOST = -0.4
OPTIMISTIC_SLOPE_AT_MOST = -0.9
CERTIFICATE_TOLERANCE = 1e-9  # linprog's pair must have Nash gap <= this times r
BOUND_TOLERANCE = 1e-12  # relative, for rounding in a gap that sits near its bound


def benchmark_matrix(rows: int = 30, columns: int = 40, seed: int = 1) -> np.ndarray:
    """The issue's test game: entries uniform on [-1, 1], a fixed seed."""
    return np.random.default_rng(seed).uniform(-1.0, 1.0, size=(rows, columns))


def corner_game(scale: float = 1.0) -> tuple:
    """``(M, row_start, column_start)``: ``M = scale [[0, 0], [1, 1]]`` (row 2 dominant, the column player
    indifferent), the row player starting at ``(1 - CORNER, CORNER)``, the column player uniform."""
    M = scale * np.array([[0.0, 0.0], [1.0, 1.0]])
    return M, np.array([1.0 - CORNER, CORNER]), np.array([0.5, 0.5])


def _range(M) -> float:
    spread = float(np.max(M) - np.min(M))
    return spread if spread > 0 else 1.0


def _log_actions(k: int) -> float:
    return math.log(max(k, 2))


def _range_term(start, k: int) -> float:
    """max_i ln(1/x_{0,i}): ln k from the uniform start."""
    return math.log(k) if start is None else -math.log(float(np.min(start)))


def stated_hedge_steps(M, T) -> tuple[float, float]:
    r"""The stated steps :math:`\eta=\sqrt{8\ln k/T}/r` of the row and column players (k their numbers of
    actions, ``ln k`` read as ``ln max(k, 2)``), written from the formula."""
    M = np.asarray(M, dtype=np.float64)
    m, n = M.shape
    r = _range(M)
    return math.sqrt(8.0 * _log_actions(m) / T) / r, math.sqrt(8.0 * _log_actions(n) / T) / r


def stated_hedge_bound(M, T, row_start=None, column_start=None) -> float:
    r"""Theorem 2 with the Hoeffding regret bound at the stated steps:
    :math:`\frac1T\sum_{\text{players}}(\max_i\ln(1/x_{0,i})/\eta+\eta Tr^2/8)`."""
    M = np.asarray(M, dtype=np.float64)
    m, n = M.shape
    r = float(np.max(M) - np.min(M))
    total = 0.0
    for eta, start, k in zip(stated_hedge_steps(M, T), (row_start, column_start), (m, n)):
        total += _range_term(start, k) / eta + eta * T * r**2 / 8.0
    return total / T


def stated_optimistic_hedge_step(M) -> float:
    r""":math:`\eta=1/r` for both players, written from the formula."""
    return 1.0 / _range(np.asarray(M, dtype=np.float64))


def stated_optimistic_hedge_bound(M, T, row_start=None, column_start=None) -> float:
    r"""The RVU bound at :math:`\eta=1/r`: :math:`r(\ln(1/\min x_0)+\ln(1/\min y_0)+2)/T`."""
    M = np.asarray(M, dtype=np.float64)
    m, n = M.shape
    return _range(M) * (_range_term(row_start, m) + _range_term(column_start, n) + 2.0) / T


@attrs.frozen
class GapRow:
    """One run: the recipe, T, the measured Nash gap, the stated bound, v* bracketed or not, and the
    game (``"benchmark"`` or ``"corner x<scale>"``).

    ``gap_checked``: the result's ``nash_gap`` equals max_i (M y_bar)_i - min_j (x_bar^T M)_j recomputed here.
    """

    recipe: str
    T: int
    nash_gap: float
    bound: float
    brackets_value: bool
    game: str = "benchmark"
    gap_checked: bool = True


_BOUNDS = {"hedge": stated_hedge_bound, "optimistic_hedge": stated_optimistic_hedge_bound}


def gap_table(M, horizons, recipe_names=("hedge", "optimistic_hedge"), *, row_start=None, column_start=None,
              game: str = "benchmark", run=None) -> list:
    """A :class:`GapRow` for every recipe and horizon (default steps), each gap against its stated bound.

    ``run(name, M, T, row_start, column_start)`` plays a recipe (default: ``gamedyn.recipes.<name>``
    with its default steps); a test passes another to show that a wrong step fails the bound.
    """
    import gamedyn.recipes as recipes

    M = np.asarray(M, dtype=np.float64)
    value = solve_matrix_game(M).value
    tolerance = 1e-12 * max(1.0, float(np.abs(M).max()))
    if run is None:
        def run(name, M, T, row_start, column_start):
            return getattr(recipes, name)(M, T, row_start=row_start, column_start=column_start)
    rows = []
    for name in recipe_names:
        for T in horizons:
            result = run(name, M, int(T), row_start, column_start)
            best_row, best_column = float(np.max(M @ result.column)), float(np.min(result.row @ M))
            brackets = best_column - tolerance <= value <= best_row + tolerance
            checked = abs(result.nash_gap - (best_row - best_column)) <= tolerance
            rows.append(GapRow(name, int(T), result.nash_gap, _BOUNDS[name](M, int(T), row_start, column_start),
                               bool(brackets), game, bool(checked)))
    return rows


def fitted_slope(rows) -> float:
    """Least-squares slope of log(Nash gap) against log(T)."""
    horizons = np.log([row.T for row in rows])
    gaps = np.log([row.nash_gap for row in rows])
    return float(np.polyfit(horizons, gaps, 1)[0])


def _tables(context_profile: str, recipe: str, run=None) -> tuple:
    """(benchmark rows, corner rows, linprog's certified gap / r on every game) for one recipe."""
    horizons = HORIZONS.get(context_profile, HORIZONS["default"])
    corner_horizons = CORNER_HORIZONS.get(context_profile, CORNER_HORIZONS["default"])
    M = benchmark_matrix()
    rows = gap_table(M, horizons, (recipe,), run=run)
    certificates = [_certified_gap(M)]
    corner_rows = []
    for scale in CORNER_SCALES:
        corner, row_start, column_start = corner_game(scale)
        corner_rows += gap_table(corner, corner_horizons, (recipe,), row_start=row_start, column_start=column_start,
                                 game=f"corner x{scale:g}", run=run)
        certificates.append(_certified_gap(corner))
    return rows, corner_rows, max(certificates)


def _certified_gap(M) -> float:
    """linprog's optimal pair's own Nash gap, relative to r (0 at an exact equilibrium)."""
    solution = solve_matrix_game(M)
    return (solution.upper - solution.lower) / _range(M)


def measure(recipe: str, at_most: float, profile: str = "default", run=None):
    """The row's :class:`gamedyn.paper.claims.Measurement` for ``recipe`` ("hedge" or "optimistic_hedge"):
    the benchmark slope, every gap within its stated bound, linprog certified."""
    from gamedyn.paper.claims import Measurement

    rows, corner_rows, certificate = _tables(profile, recipe, run)
    slope = fitted_slope(rows)
    everything = rows + corner_rows
    ratios = [(row.nash_gap / row.bound, row) for row in everything]
    worst_ratio, worst = max(ratios, key=lambda item: item[0])
    within = all(row.nash_gap <= row.bound * (1 + BOUND_TOLERANCE) for row in everything)
    brackets = all(row.brackets_value for row in everything)
    checked = all(row.gap_checked for row in everything)
    certified = certificate <= CERTIFICATE_TOLERANCE
    listing = ", ".join(f"T={row.T}: {row.nash_gap:.2e} (bound {row.bound:.2e})" for row in rows)
    detail = (f"30x40 uniform game; gaps {listing}; largest gap / stated bound {worst_ratio:.3f} ({worst.game}, "
              f"T = {worst.T}); every gap within its bound: {'yes' if within else 'NO'}; linprog's pair certifies "
              f"v* (its Nash gap / r = {certificate:.1e} <= {CERTIFICATE_TOLERANCE:g}): {'yes' if certified else 'NO'}; "
              f"nash_gap recomputed: {'yes' if checked else 'NO'}; "
              f"linprog v* between the best replies: {'yes' if brackets else 'NO'}")
    passed = bool(math.isfinite(slope) and slope <= at_most and within and certified and checked and brackets)
    return Measurement(slope, at_most, passed, detail)


def matrix_game_claims() -> list:
    """The ``gamedyn reproduce`` rows: Hedge's Nash gap O(1/sqrt T), optimistic Hedge's O(1/T)."""
    from gamedyn.paper.claims import Claim

    def check_for(recipe: str, slope_name: str):
        def check(context):
            return measure(recipe, globals()[slope_name], context.profile.name)  # the limit read at run time

        return check

    return [
        Claim("Hedge: Nash gap O(1/sqrt T)", "Hedge vs Hedge, eta = sqrt(8 ln k/T)/r: gap <= sum over the players "
              "of (max_i ln(1/x0_i)/eta + eta T r^2/8)/T (= r(sqrt(ln m/2T) + sqrt(ln n/2T)) from uniform starts); "
              "slope on a 30x40 game, bound nearly attained on a corner game", "matrix games",
              ("hedge", "Freund & Schapire 1999"), "slope", "<=", check_for("hedge", "HEDGE_SLOPE_AT_MOST")),
        Claim("Optimistic Hedge: Nash gap O(1/T)", "optimistic Hedge, eta = 1/r: gap <= r(ln(1/min x0) + ln(1/min y0) "
              "+ 2)/T (RVU; r(ln m + ln n + 2)/T from uniform starts); slope on a 30x40 game, bound nearly attained "
              "on a corner game", "matrix games", ("optimistic_hedge", "Syrgkanis et al. 2015"), "slope", "<=",
              check_for("optimistic_hedge", "OPTIMISTIC_SLOPE_AT_MOST")),
    ]
