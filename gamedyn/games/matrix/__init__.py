"""The matrix-game family: zero-sum games max_x min_y x^T M y on two simplices.

:class:`MatrixGame` (the payoff x^T M y: w = the row player, p = the column player),
:mod:`~gamedyn.games.matrix.game` (the exact solver, the certified value bracket, the Nash gap, the stated steps and bounds),
:class:`MatrixGameResult` (what the matrix recipes return) and :mod:`~gamedyn.games.matrix.original`
(Hedge, optimistic Hedge and fictitious play in their textbook form).
"""

from gamedyn.games.matrix.game import (
    InitialBelief,
    MatrixGame,
    MatrixGameSolution,
    ValueBracket,
    best_response_values,
    check_payoff_matrix,
    check_strategy,
    default_hedge_steps,
    default_optimistic_hedge_step,
    hedge_gap_bound,
    nash_gap,
    optimistic_hedge_gap_bound,
    payoff_range,
    solve_matrix_game,
    value_bracket,
)
from gamedyn.games.matrix.result import MatrixGameResult

__all__ = [
    "InitialBelief", "MatrixGame", "MatrixGameResult", "MatrixGameSolution", "ValueBracket", "value_bracket", "best_response_values", "check_payoff_matrix",
    "check_strategy", "default_hedge_steps", "default_optimistic_hedge_step", "hedge_gap_bound", "nash_gap",
    "optimistic_hedge_gap_bound", "payoff_range", "solve_matrix_game",
]
