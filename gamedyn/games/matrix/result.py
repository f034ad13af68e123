"""The result the matrix-game recipes return."""

from __future__ import annotations

import attrs
import numpy as np

from gamedyn.engine.results import GameResult


@attrs.frozen
class MatrixGameResult:
    r"""A matrix-game recipe's output: the averaged strategies, their value and Nash gap, and the game.

    ``row`` = :math:`\bar x_T=\frac1T\sum_tx_t` (the maximiser's average), ``column`` =
    :math:`\bar y_T` (the minimiser's), ``value`` = :math:`\bar x_T^\top M\bar y_T`, ``nash_gap`` =
    :math:`\max_x x^\top M\bar y_T-\min_y\bar x_T^\top My\ge0` (the game value :math:`v^\star` lies
    between the two terms, so :math:`|\mathrm{value}-v^\star|\le` ``nash_gap``). ``row_last`` and
    ``column_last`` are the round-T plays (last iterates); ``game`` is the runner's
    :class:`gamedyn.GameResult` (row player = w, column player = p). ``lower`` and ``upper`` are the
    two best replies' payoffs, the bracket :math:`[\min_j(\bar x^\top M)_j,\max_i(M\bar y)_i]\ni v^\star`.
    """

    row: np.ndarray
    column: np.ndarray
    value: float
    nash_gap: float
    game: GameResult
    lower: float | None = attrs.field(default=None, kw_only=True)
    upper: float | None = attrs.field(default=None, kw_only=True)

    @property
    def value_bracket(self) -> tuple:
        r""":math:`(\min_j(\bar x^\top M)_j,\ \max_i(M\bar y)_i)`: the game value :math:`v^\star` lies between them
        (each end is a best reply's payoff), and their difference is ``nash_gap``."""
        return self.lower, self.upper

    @property
    def row_last(self) -> np.ndarray:
        return self.game.w_last

    @property
    def column_last(self) -> np.ndarray:
        return self.game.p_last


def matrix_game_result(M, game: GameResult) -> MatrixGameResult:
    """Package the runner's result of the game Bilinear(M.T) (row player = w, column player = p)."""
    row, column = game.w_average, game.p_average
    best_row, best_column = float(np.max(M @ column)), float(np.min(row @ M))
    return MatrixGameResult(row, column, float(row @ M @ column), best_row - best_column, game,
                            lower=best_column, upper=best_row)


def matrix_game_inputs(M, T, row_start, column_start, *, positive_starts: bool = False) -> tuple:
    """The checked payoff matrix, horizon and start strategies (``None`` = uniform, each domain's centre).

    ``positive_starts=True`` (the entropy recipes, Hedge and optimistic Hedge) refuses a start with a
    zero entry: that action would never be played.
    """
    from gamedyn.core.validation import check_count
    from gamedyn.games.matrix.game import check_payoff_matrix, check_strategy

    matrix = check_payoff_matrix(M)
    T = check_count(T, "T")
    m, n = matrix.shape
    row_start = None if row_start is None else check_strategy(row_start, m, "row_start", positive=positive_starts)
    column_start = (None if column_start is None
                    else check_strategy(column_start, n, "column_start", positive=positive_starts))
    return matrix, T, row_start, column_start
