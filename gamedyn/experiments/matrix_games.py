"""Deprecated: ``gamedyn.experiments.matrix_games`` moved to :mod:`gamedyn.paper.experiments.matrix_games`
(issue 17).

Importing ``gamedyn.experiments.matrix_games`` still works for one release: it warns once (a
``DeprecationWarning`` naming the new path) and gives the same objects as the new modules.
"""

from gamedyn.core.deprecation import moved

moved(__name__, "gamedyn.experiments.matrix_games", {
    "BOUND_TOLERANCE": "gamedyn.paper.experiments.matrix_games",
    "CERTIFICATE_TOLERANCE": "gamedyn.paper.experiments.matrix_games",
    "CORNER": "gamedyn.paper.experiments.matrix_games",
    "CORNER_HORIZONS": "gamedyn.paper.experiments.matrix_games",
    "CORNER_SCALES": "gamedyn.paper.experiments.matrix_games",
    "GapRow": "gamedyn.paper.experiments.matrix_games",
    "HEDGE_SLOPE_AT_MOST": "gamedyn.paper.experiments.matrix_games",
    "HORIZONS": "gamedyn.paper.experiments.matrix_games",
    "OPTIMISTIC_SLOPE_AT_MOST": "gamedyn.paper.experiments.matrix_games",
    "benchmark_matrix": "gamedyn.paper.experiments.matrix_games",
    "corner_game": "gamedyn.paper.experiments.matrix_games",
    "fitted_slope": "gamedyn.paper.experiments.matrix_games",
    "gap_table": "gamedyn.paper.experiments.matrix_games",
    "matrix_game_claims": "gamedyn.paper.experiments.matrix_games",
    "measure": "gamedyn.paper.experiments.matrix_games",
    "stated_hedge_bound": "gamedyn.paper.experiments.matrix_games",
    "stated_hedge_steps": "gamedyn.paper.experiments.matrix_games",
    "stated_optimistic_hedge_bound": "gamedyn.paper.experiments.matrix_games",
    "stated_optimistic_hedge_step": "gamedyn.paper.experiments.matrix_games",
}, also={
    "solve_matrix_game": "gamedyn.games.matrix.game",
})
