"""The result the matrix-game recipes return."""

from __future__ import annotations

import attrs
import numpy as np

from gamedyn.core.kernels import backend_of, is_foreign, to_host_scalar, to_numpy
from gamedyn.engine.recipe import Parameter, RecipeResult
from gamedyn.engine.results import GameResult
from gamedyn.games.matrix.game import ValueBracket, value_bracket


@attrs.frozen(kw_only=True)
class MatrixGameResult(RecipeResult):
    r"""A matrix-game recipe's output: the averaged strategies, their value and Nash gap, and the game.

    ``row`` = :math:`\bar x_T=\frac1T\sum_tx_t` (the maximiser's average), ``column`` =
    :math:`\bar y_T` (the minimiser's), ``value`` = :math:`\bar x_T^\top M\bar y_T`, ``nash_gap`` =
    :math:`\max_x x^\top M\bar y_T-\min_y\bar x_T^\top My\ge0` (the game value :math:`v^\star` lies
    between the two terms, so :math:`|\mathrm{value}-v^\star|\le` ``nash_gap``). ``row_last`` and
    ``column_last`` are the round-T plays (last iterates); ``game`` is the runner's
    :class:`gamedyn.GameResult` of :class:`gamedyn.MatrixGame` ``(M)`` (row player = w, column player
    = p); ``steps`` the step sizes used (``eta_w`` = the row player's, ``eta_p`` = the column player's).
    ``certificate`` is the certified value bracket :math:`[\min_y\bar x_T^\top My,\ \max_xx^\top M\bar
    y_T]\ni v^\star` (:class:`gamedyn.games.matrix.game.ValueBracket`; it survives rounding).
    """

    row: np.ndarray
    column: np.ndarray
    value: float
    nash_gap: float
    matrix: np.ndarray = attrs.field(repr=False, eq=False)  # M, the payoff matrix the game was played on

    @property
    def certificate(self) -> ValueBracket:
        """The certified bracket of the game value from the averaged strategies (computed on access).

        It is play's own certificate (``game.certificate``, declared by :meth:`MatrixGame.certificate`)
        when the recipe played :class:`MatrixGame`; otherwise it is computed from ``row`` and ``column``.
        """
        bracket = getattr(self.game, "certificate", None)
        return bracket if isinstance(bracket, ValueBracket) else value_bracket(self.matrix, self.row, self.column)

    @property
    def row_last(self) -> np.ndarray:
        """The row player's last strategy x_T."""
        return self.game.w_last

    @property
    def column_last(self) -> np.ndarray:
        """The column player's last strategy y_T."""
        return self.game.p_last


def matrix_game_result(M, game: GameResult, steps: dict | None = None) -> MatrixGameResult:
    """Package the runner's result of the game MatrixGame(M) (row player = w, column player = p)."""
    row, column = game.w_average, game.p_average
    if is_foreign(M):  # the products in M's namespace and dtype, on its device; three host numbers
        backend = backend_of(M)
        xp = backend.xp
        row_, column_ = xp.astype(row, M.dtype), xp.astype(column, M.dtype)
        M_column = M @ column_
        best_row, best_column = to_host_scalar(xp.max(M_column)), to_host_scalar(xp.min(row_ @ M))
        value = to_host_scalar(xp.sum(row_ * M_column))
    else:
        best_row, best_column = float(np.max(M @ column)), float(np.min(row @ M))
        value = float(row @ M @ column)
    return MatrixGameResult(row=row, column=column, value=value, nash_gap=best_row - best_column,
                            game=game, steps=dict(steps or {}), matrix=M)


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
    backend = backend_of(matrix)
    starts = []
    for start, size, name in ((row_start, m, "row_start"), (column_start, n, "column_start")):
        if start is not None:  # checked on the host (a probability vector: O(m + n), once); a foreign M's run keeps it on M's device
            start = check_strategy(to_numpy(start), size, name, positive=positive_starts)
            start = start if backend.is_numpy else backend.asarray(start)
        starts.append(start)
    return (matrix, T, *starts)


ROW_START = Parameter("row_start", "the row player's start x_0 (default uniform)", cli=False)
COLUMN_START = Parameter("column_start", "the column player's start y_0 (default uniform)", cli=False)
"""The start strategies every matrix recipe takes (the command line keeps the uniform ones)."""


def check_averaging(averaging) -> str | None:
    """The ``output_weights`` of a named averaging scheme (None for uniform: the learners' own weights), or a
    ``ValueError`` naming the schemes."""
    from gamedyn.core.weights import AVERAGING

    if not isinstance(averaging, str) or averaging not in AVERAGING:
        raise ValueError(f"averaging must be one of {list(AVERAGING)} (alpha_t = 1, t, t^2), got {averaging!r}.")
    return None if averaging == "uniform" else averaging


def check_alternating(alternating) -> bool:
    """``alternating`` as a bool, or a ``TypeError`` (a string such as ``"yes"`` is refused, not read as True)."""
    if not isinstance(alternating, bool):
        raise TypeError(f"alternating must be True or False, got {alternating!r}.")
    return alternating


def averaging_parameter(default: str) -> Parameter:
    """The ``averaging`` parameter of the regret-matching family's recipes (its default per recipe)."""
    return Parameter("averaging", "the output weights of the averages: 'uniform' (1), 'linear' (t), 'quadratic' (t^2)",
                     default, kind=str, choices=("uniform", "linear", "quadratic"), cli=False)


def alternating_parameter(default: bool) -> Parameter:
    """The ``alternating`` parameter: the CFR+ order (gamedyn.engine.rounds.AlternatingRound) or simultaneous play."""
    return Parameter("alternating", "the CFR+ order: the column player's update of round t sees x_t (True) or "
                     "simultaneous play (False)", default, kind=bool, cli=False)
