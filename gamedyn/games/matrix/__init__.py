"""The matrix-game family: zero-sum games max_x min_y x^T M y on two simplices.

:class:`MatrixGame` (the payoff x^T M y: w = the row player, p = the column player),
:mod:`~gamedyn.games.matrix.game` (the exact solver, the certified value bracket, the Nash gap, the stated steps and bounds),
:class:`MatrixGameResult` (what the matrix recipes return) and :mod:`~gamedyn.games.matrix.original`
(Hedge, optimistic Hedge and fictitious play in their textbook form), :mod:`~gamedyn.games.matrix.original_rm`
(regret matching, AdaHedge, adaptive FTRL) and :func:`solve_game` (PRM+ to a certified Nash gap).
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
from gamedyn.games.matrix.solve import GameSolution, NashGapStop, solve_game

__all__ = [
    "GameSolution", "InitialBelief", "MatrixGame", "MatrixGameResult", "MatrixGameSolution", "NashGapStop", "ValueBracket",
    "best_response_values", "check_payoff_matrix", "solve_game", "value_bracket",
    "check_strategy", "default_hedge_steps", "default_optimistic_hedge_step", "hedge_gap_bound", "nash_gap",
    "optimistic_hedge_gap_bound", "payoff_range", "solve_matrix_game",
]
