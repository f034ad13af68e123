"""Deprecated: ``gamedyn.matrix_games`` moved to :mod:`gamedyn.games.matrix.game` (issue 17).

Importing ``gamedyn.matrix_games`` still works for one release: it warns once (a ``DeprecationWarning``
naming the new path) and gives the same objects as the new modules.
"""

from gamedyn.core.deprecation import moved

moved(__name__, "gamedyn.matrix_games", {
    "InitialBelief": "gamedyn.games.matrix.game",
    "MatrixGameSolution": "gamedyn.games.matrix.game",
    "best_response_values": "gamedyn.games.matrix.game",
    "check_payoff_matrix": "gamedyn.games.matrix.game",
    "check_strategy": "gamedyn.games.matrix.game",
    "default_hedge_steps": "gamedyn.games.matrix.game",
    "default_optimistic_hedge_step": "gamedyn.games.matrix.game",
    "hedge_gap_bound": "gamedyn.games.matrix.game",
    "nash_gap": "gamedyn.games.matrix.game",
    "optimistic_hedge_gap_bound": "gamedyn.games.matrix.game",
    "payoff_range": "gamedyn.games.matrix.game",
    "solve_matrix_game": "gamedyn.games.matrix.game",
}, also={
    "LastLoss": "gamedyn.core.hints",
    "Loss": "gamedyn.core.loss",
    "check_count": "gamedyn.core.validation",
})
