r"""A solver front door: :func:`solve_game` runs the fastest dynamic to a certified Nash gap.

The dynamic is alternating PRM+ with quadratic averaging (Farina, Kroer & Sandholm 2021), the
fastest of gamedyn's matrix-game recipes on the benchmark of ``benchmarks/matrix_games.py``. The
run stops when :class:`NashGapStop`'s running estimate of the averages' Nash gap (O(m + n) a round:
the averaged products are running sums of the losses the rounds already computed) reaches the
target; the gap is then **certified** by computing both best replies to the averages
(:math:`M\bar y` and :math:`\bar x^\top M`, two products), and the run continues if the certified
gap is above the target (it never is by more than rounding).
"""

from __future__ import annotations

import math
import numbers

import attrs
import numpy as np

from gamedyn.core.regret_matching import RegretMatching
from gamedyn.core.validation import check_count
from gamedyn.engine import Bilinear, play

__all__ = ["GameSolution", "NashGapStop", "solve_game"]


def _products(M, row, column):
    """(M column, row^T M), in M's own precision (float32 stays float32), as float64 vectors."""
    dtype = M.dtype if M.dtype in (np.float32, np.float64) else np.float64
    by_column = M @ np.asarray(column, dtype=dtype)
    by_row = M.T @ np.asarray(row, dtype=dtype)
    return np.asarray(by_column, dtype=np.float64).ravel(), np.asarray(by_row, dtype=np.float64).ravel()


class NashGapStop:
    r"""A stop rule of :func:`gamedyn.play` on ``Bilinear(M.T)``: stop when the averages' Nash gap is <= ``gap``.

    It keeps :math:`\sum_t\alpha_tMy_t` and :math:`\sum_t\alpha_tM^\top x_t` (:math:`\alpha_t` the
    output weights), reading each round's products off the runner's loss sums (their round-to-round
    difference, O(m + n)); the first round it sees (round 1, or the first after a resume) takes the
    two products itself. ``estimate`` is the last running gap
    :math:`(\max_i\sum\alpha_t(My_t)_i-\min_j\sum\alpha_t(M^\top x_t)_j)/\sum\alpha_t`; it differs
    from the gap of the averages only by rounding, and :func:`solve_game` certifies it with two
    products.

    Parameters
    ----------
    M : array or sparse matrix, shape (m, n)
    gap : float
        The target.
    output_weight : callable
        t -> alpha_t, the output weights of the run.
    """

    def __init__(self, M, gap: float, output_weight):
        self.M, self.gap, self.output_weight = M, float(gap), output_weight
        m, n = M.shape
        self.row_sum, self.column_sum, self.total = np.zeros(m), np.zeros(n), 0.0
        self._previous = None
        self.estimate = math.inf
        self.__name__ = "NashGapStop"

    def __call__(self, state) -> bool:
        w_sum, p_sum = state.w_loss_sum.linear, state.p_loss_sum.linear
        if self._previous is None:
            by_column, by_row = _products(self.M, state.w, state.p)  # M y_t, M^T x_t
        else:
            w_before, p_before, w_total, p_total = self._previous
            by_column = (w_before - w_sum) / (state.w_weight_total - w_total)  # -(h_t) / alpha_t = M y_t
            by_row = (p_sum - p_before) / (state.p_weight_total - p_total)
        self._previous = (np.array(w_sum), np.array(p_sum), state.w_weight_total, state.p_weight_total)
        weight = self.output_weight(state.t)
        self.row_sum += weight * by_column
        self.column_sum += weight * by_row
        self.total += weight
        self.estimate = float(self.row_sum.max() - self.column_sum.min()) / self.total
        return self.estimate <= self.gap


@attrs.frozen
class GameSolution:
    r"""What :func:`solve_game` returns.

    ``row`` / ``column``: the averaged strategies; ``lower`` / ``upper``: the value bracket
    :math:`\min_j(\bar x^\top M)_j\le v^\star\le\max_i(M\bar y)_i` (both best replies computed);
    ``nash_gap`` = ``upper - lower`` (<= the requested gap unless ``converged`` is False);
    ``rounds``: rounds played; ``method``: the dynamic; ``value``: the bracket's midpoint.
    """

    row: np.ndarray
    column: np.ndarray
    lower: float
    upper: float
    nash_gap: float
    rounds: int
    converged: bool
    method: str = "predictive_regret_matching_plus (alternating, quadratic averaging)"

    @property
    def value(self) -> float:
        return 0.5 * (self.lower + self.upper)


def _check_matrix(M):
    import scipy.sparse as sp

    if sp.issparse(M):
        matrix = sp.csr_matrix(M)
        if matrix.dtype not in (np.float32, np.float64):
            matrix = matrix.astype(np.float64)
        data = matrix.data
    else:
        if np.iscomplexobj(M):
            raise TypeError("M is complex; payoffs are real numbers. Pass M.real if the imaginary part is meant to be 0.")
        try:
            matrix = np.asarray(M)
        except (TypeError, ValueError) as error:
            raise TypeError(f"M must be a 2-D array of payoffs, got {type(M).__name__}.") from error
        if matrix.dtype not in (np.float32, np.float64):
            try:
                matrix = matrix.astype(np.float64)
            except (TypeError, ValueError) as error:
                raise TypeError(f"M must be a 2-D array of real payoffs, got dtype {matrix.dtype}.") from error
        data = matrix
    if matrix.ndim != 2 or matrix.shape[0] < 1 or matrix.shape[1] < 1:
        raise ValueError(f"M must be a 2-D payoff matrix of shape (rows, columns), got shape {matrix.shape}.")
    if not np.all(np.isfinite(data)):
        raise ValueError("M must have finite entries; it contains NaN or infinity.")
    return matrix


def solve_game(M, gap: float = 1e-6, *, max_rounds: int = 1_000_000) -> GameSolution:
    r"""Solve the zero-sum game :math:`\max_x\min_yx^\top My` to a certified Nash gap.

    Runs alternating PRM+ with quadratic averaging (:func:`gamedyn.recipes.predictive_regret_matching_plus`)
    until the Nash gap of the averaged strategies, certified by both best replies, is at most ``gap``.

    Parameters
    ----------
    M : array_like or scipy.sparse matrix, shape (m, n)
        Payoffs to the row player (the maximiser). Dense or sparse; a float32 M keeps float32
        products (the certificate's two products too, rounded to float64 at the end).
    gap : float, default 1e-6
        The target Nash gap :math:`\max_i(M\bar y)_i-\min_j(\bar x^\top M)_j`; it is absolute, so
        scale it with M's range.
    max_rounds : int, default 1,000,000
        A cap; if it is reached, the result has ``converged = False`` and the gap reached.

    Returns
    -------
    GameSolution
        ``row``, ``column``, ``lower``, ``upper`` (the value bracket), ``nash_gap``, ``rounds``,
        ``converged``.

    Raises
    ------
    ValueError
        A bad M (not 2-D, empty, NaN or infinite entries), gap (not positive) or max_rounds.
    TypeError
        M is complex or not numeric.

    Examples
    --------
    >>> solution = solve_game([[2.0, -1.0], [-1.0, 1.0]], gap=1e-8)
    >>> solution.row.round(6).tolist(), bool(solution.nash_gap <= 1e-8), bool(solution.lower <= 0.2 <= solution.upper)
    ([0.4, 0.6], True, True)
    """
    matrix = _check_matrix(M)
    if isinstance(gap, bool) or not isinstance(gap, numbers.Real) or not (math.isfinite(gap) and gap > 0):
        raise ValueError(f"gap must be a positive finite Nash gap, e.g. 1e-6 (absolute: scale it with M's range), "
                         f"got {gap!r}.")
    max_rounds = check_count(max_rounds, "max_rounds")
    learner = RegretMatching(plus=True, predictive=True)
    output_weight = lambda t: float(t * t)
    target = float(gap)
    payoff = Bilinear(matrix.T)
    while True:
        stop = NashGapStop(matrix, target, output_weight)
        game = play(payoff, learner, learner, max_rounds, weights="constant", output_weights="quadratic",
                    alternating=True, stop=stop)
        row, column = game.w_average, game.p_average
        by_column, by_row = _products(matrix, row, column)
        upper, lower = float(by_column.max()), float(by_row.min())
        certified = upper - lower
        if certified <= gap or game.rounds >= max_rounds or target < gap * 1e-3:
            return GameSolution(row, column, lower, upper, certified, game.rounds, certified <= gap)
        target *= 0.5  # the running estimate was above the certified gap by rounding: aim lower
