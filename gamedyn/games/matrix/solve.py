r"""A solver front door: :func:`solve_game` solves a zero-sum game to a certified Nash gap, by the LP or the dynamics.

The dynamic is alternating PRM+ with quadratic averaging (Farina, Kroer & Sandholm 2021), the
fastest of gamedyn's matrix-game recipes on the benchmark of ``benchmarks/matrix_games.py``. The
run stops when :class:`NashGapStop`'s running estimate of the averages' Nash gap (O(m + n) a round:
the averaged products are running sums of the losses the rounds already computed) reaches the
target; the gap is then **certified** by computing both best replies to the averages
(:math:`M\bar y` and :math:`\bar x^\top M`, two products), and the run continues if the certified
gap is above the target (it never is by more than rounding).

**The exact solver where it is faster** (issue 35). A small game is solved by one linear program
(``scipy.optimize.linprog``, HiGHS): the row strategy from its primal solution, the column strategy
from the duals of the same LP (:func:`lp_strategies`), and the same certified bracket as the
dynamics' (both best replies, widened by their rounding bound). :func:`lp_is_faster` chooses, from a
size/time model measured with ``python benchmarks/solve_game.py`` (one BLAS thread, 2-core EPYC): the
LP's time grows like :math:`(mn)^{1.5}` and was below the dynamics' to a gap of 1e-6 up to
300 x 300, the dynamics' like :math:`mn` times their rounds and were faster at 1000 x 1000. If the
LP's certified gap misses the target (HiGHS's tolerances are about 1e-7 of the payoffs), the
dynamics run as before.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import attrs
import numpy as np

from gamedyn.core.kernels import NUMPY, backend_of, is_foreign, to_host_scalar
from gamedyn.core.regret_matching import RegretMatching
from gamedyn.core.validation import check_count, check_matrix, real_array
from gamedyn.engine import Bilinear, play

__all__ = ["LP_CROSSOVER_ENTRIES", "GameSolution", "NashGapStop", "lp_is_faster", "lp_strategies", "solve_game"]


def _products(M, row, column):
    """(M column, row^T M), in M's own precision (float32 stays float32), as float64 vectors (a foreign M: in its
    namespace, on its device)."""
    if is_foreign(M):
        backend = backend_of(M)
        xp = backend.xp
        by_column, by_row = M @ xp.astype(column, M.dtype), xp.astype(row, M.dtype) @ M
        return xp.astype(by_column, backend.float64), xp.astype(by_row, backend.float64)
    dtype = M.dtype if M.dtype in (np.float32, np.float64) else np.float64
    by_column = M @ np.asarray(column, dtype=dtype)
    by_row = M.T @ np.asarray(row, dtype=dtype)
    return np.asarray(by_column, dtype=np.float64).ravel(), np.asarray(by_row, dtype=np.float64).ravel()


class NashGapStop:
    r"""An observer of :func:`gamedyn.play` on ``Bilinear(M.T)`` (or ``MatrixGame(M)``): stop when the averages'
    Nash gap is <= ``gap``.

    It keeps :math:`\sum_t\alpha_tMy_t` and :math:`\sum_t\alpha_tM^\top x_t` (:math:`\alpha_t` the
    output weights), reading each round's products off the seats' loss sums (their round-to-round
    difference, O(m + n), no product); the first round it sees (round 1, whose first-mover loss sum
    also holds an alternating run's start charge) takes the two products itself. It reads the seats' loss sums,
    so the run must keep them (``regrets=True``, the default). ``estimate`` is the
    last running gap :math:`(\max_i\sum\alpha_t(My_t)_i-\min_j\sum\alpha_t(M^\top x_t)_j)/\sum\alpha_t`;
    it differs from the gap of the averages only by rounding, and :func:`solve_game` certifies it
    with two products. It changes nothing but itself (an observer, not a stop rule: it carries its
    running sums, saved and restored through ``checkpoint_state`` / ``restore_state``).

    Parameters
    ----------
    M : array or sparse matrix, shape (m, n)
        The payoff matrix (rows maximise).
    gap : float
        The target.
    output_weight : callable
        t -> alpha_t, the output weights of the run.

    Examples
    --------
    >>> from gamedyn import RegretMatching, play
    >>> from gamedyn.games.matrix import MatrixGame
    >>> M = [[2.0, -1.0], [-1.0, 1.0]]
    >>> stop = NashGapStop(M, 1e-6, lambda t: float(t * t))
    >>> learner = RegretMatching(plus=True, predictive=True)
    >>> game = play(MatrixGame(M), learner, learner, 10_000, alternating=True, output_weights="quadratic",
    ...             observers=[stop])
    >>> bool(stop.estimate <= 1e-6), game.rounds < 10_000
    (True, True)
    """

    needs_round_state = False
    name = "NashGapStop"

    def __init__(self, M, gap: float, output_weight):
        M = _check_matrix(M)
        self.M, self.gap, self.output_weight = M, float(gap), output_weight
        m, n = M.shape
        backend = backend_of(M)  # a foreign M: the sums in its namespace and on its device (issue 20)
        self._backend = backend
        self.row_sum, self.column_sum, self.total = backend.zeros((m,)), backend.zeros((n,)), 0.0
        self._previous: tuple[np.ndarray, np.ndarray, float, float] | None = None  # the last round's sums
        self._run: Any = None  # the Run, set by start()
        self.estimate = math.inf

    def start(self, run) -> None:
        """Keep the :func:`gamedyn.play` run whose seats' loss sums :meth:`observe` reads."""
        self._run = run

    def observe(self, t) -> bool:
        run = self._run
        w_seat, p_seat = run.w_seat, run.p_seat
        w_sum, p_sum = w_seat.linear_loss_sum(), p_seat.linear_loss_sum()
        if self._previous is None:
            by_column, by_row = _products(self.M, w_seat.last, p_seat.last)  # M y_t, M^T x_t
        else:
            w_before, p_before, w_total, p_total = self._previous
            by_column = (w_before - w_sum) / (w_seat.weight_total - w_total)  # -(h_t) / alpha_t = M y_t
            by_row = (p_sum - p_before) / (p_seat.weight_total - p_total)
        backend = self._backend
        if backend.is_numpy:
            self._previous = (np.array(w_sum), np.array(p_sum), w_seat.weight_total, p_seat.weight_total)
            weight = self.output_weight(t)
            self.row_sum += weight * by_column
            self.column_sum += weight * by_row
            self.total += weight
            self.estimate = float(self.row_sum.max() - self.column_sum.min()) / self.total
            return self.estimate <= self.gap
        xp = backend.xp  # the same steps in M's namespace (new arrays, no in-place update); the stop's one host number
        self._previous = (xp.asarray(w_sum, copy=True), xp.asarray(p_sum, copy=True), w_seat.weight_total,
                          p_seat.weight_total)
        weight = self.output_weight(t)
        self.row_sum = self.row_sum + weight * by_column
        self.column_sum = self.column_sum + weight * by_row
        self.total += weight
        self.estimate = to_host_scalar(xp.max(self.row_sum) - xp.min(self.column_sum)) / self.total
        return self.estimate <= self.gap

    def checkpoint_state(self) -> dict:
        """The running sums and the last round's loss sums (the same keys before the first round: zeros)."""
        m, n = self.row_sum.shape[0], self.column_sum.shape[0]
        previous = self._previous
        seen = previous is not None
        w_before, p_before, w_total, p_total = previous if previous is not None else (np.zeros(m), np.zeros(n), 0.0, 0.0)
        return {"row_sum": self.row_sum, "column_sum": self.column_sum, "total": self.total, "seen": seen,
                "w_before": w_before, "p_before": p_before, "w_total": w_total, "p_total": p_total}

    def restore_state(self, state: dict) -> None:
        """Restore the running sums :meth:`checkpoint_state` saved (and recompute ``estimate`` from them)."""
        on_device = getattr(self, "_backend", NUMPY).asarray  # saved as numpy, restored onto M's device
        self.row_sum, self.column_sum = on_device(np.array(state["row_sum"])), on_device(np.array(state["column_sum"]))
        self.total = float(state["total"])
        self._previous = None
        if bool(state.get("seen", False)):
            self._previous = (on_device(np.array(state["w_before"])), on_device(np.array(state["p_before"])),
                              float(state["w_total"]), float(state["p_total"]))
        xp = getattr(self, "_backend", NUMPY).xp
        self.estimate = (to_host_scalar(xp.max(self.row_sum) - xp.min(self.column_sum)) / self.total if self.total > 0
                         else math.inf)


@attrs.frozen
class GameSolution:
    r"""What :func:`solve_game` returns.

    ``row`` / ``column``: the averaged strategies; ``lower`` / ``upper``: the value bracket
    :math:`\min_j(\bar x^\top M)_j\le v^\star\le\max_i(M\bar y)_i` (both best replies computed);
    ``nash_gap`` = ``upper - lower`` (<= the requested gap unless ``converged`` is False);
    ``rounds``: rounds played (0 when the LP solved it); ``method``: the dynamic, or ``"linprog (HiGHS)"``;
    ``value``: the bracket's midpoint.
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
        """The bracket's midpoint ``(lower + upper) / 2``, within ``nash_gap / 2`` of the game's value."""
        return 0.5 * (self.lower + self.upper)


def _rounding_bound(matrix) -> float:
    """An upper bound on the rounding error of an entry of M v or M^T v for a distribution v (sum 1):
    gamma_k max|M| with k the inner dimension, u the unit roundoff of M's dtype (Higham 2002, eq. 3.5),
    doubled to cover the strategies' own rounding and the final float64 conversion."""
    import scipy.sparse as sp

    if is_foreign(matrix):
        xp = backend_of(matrix).xp
        largest = to_host_scalar(xp.max(xp.abs(matrix)))
        k = max(matrix.shape) + 1
        u = float(np.finfo(np.float64).eps) / 2
        return 2.0 * (k * u / (1.0 - k * u)) * largest
    data = matrix.data if sp.issparse(matrix) else matrix
    if data.size == 0:
        return 0.0
    largest = float(np.max(np.abs(data)))
    k = max(matrix.shape) + 1
    u = float(np.finfo(np.float64).eps) / 2  # the certificate's products are float64 (_certificate_products)
    return 2.0 * (k * u / (1.0 - k * u)) * largest


def _certificate_products(M, row, column):
    """(M column, row^T M) in float64 whatever M's dtype (a float32 M is widened a block of rows at a time:
    the certificate is checked in float64; the rounds keep M's own products)."""
    import scipy.sparse as sp

    if is_foreign(M):  # in M's namespace: a float64 copy of a float32 M on its device (the certificate in float64)
        backend = backend_of(M)
        return _products(M if M.dtype == backend.float64 else backend.xp.astype(M, backend.float64), row, column)
    if M.dtype == np.float64:
        return _products(M, row, column)
    if sp.issparse(M):
        return _products(M.astype(np.float64), row, column)
    row, column = np.asarray(row, dtype=np.float64), np.asarray(column, dtype=np.float64)
    by_column, by_row = np.empty(M.shape[0]), np.zeros(M.shape[1])
    block = max(1, (1 << 22) // max(1, M.shape[1]))
    for start in range(0, M.shape[0], block):
        part = np.asarray(M[start:start + block], dtype=np.float64)
        by_column[start:start + block] = part @ column
        by_row += row[start:start + block] @ part
    return by_column, by_row


def _check_matrix(M):
    import scipy.sparse as sp

    if is_foreign(M):  # a torch, JAX, CuPy or array-API M: checked in its namespace, kept there (float32 kept)
        return check_matrix(M, "M", allow_sparse=False)
    if sp.issparse(M):
        if np.dtype(M.dtype).kind not in "fiu":
            real_array(np.zeros(0, dtype=M.dtype), "M", "payoffs")  # complex or boolean: the dense M's message
        matrix = sp.csr_matrix(M)
        if matrix.dtype not in (np.float32, np.float64):
            matrix = matrix.astype(np.float64)
        data = matrix.data
    else:  # the one check of numbers (digit strings, booleans, complex, ragged refused by name)
        matrix = real_array(M, "M", "payoffs")
        if matrix.dtype not in (np.float32, np.float64):
            matrix = matrix.astype(np.float64)
        data = matrix
    if matrix.ndim != 2 or matrix.shape[0] < 1 or matrix.shape[1] < 1:
        general = (" solve_game solves zero-sum games (one payoff matrix); for a general-sum game of two players "
                   "pass gamedyn.BimatrixGame(A, B) to gamedyn.solve_cce or gamedyn.solve_ce."
                   if matrix.ndim == 3 and matrix.shape[0] == 2 else "")
        raise ValueError(f"M must be a 2-D payoff matrix of shape (rows, columns), got shape {matrix.shape}.{general}")
    if not np.all(np.isfinite(data)):
        raise ValueError("M must have finite entries; it contains NaN or infinity.")
    return matrix


LP_CROSSOVER_ENTRIES = 200_000
"""Entries m n (stored entries for a sparse M) up to which :func:`lp_is_faster` picks the LP at gap 1e-6."""
_LP_METHOD = "linprog (HiGHS)"


def lp_is_faster(shape, entries: int, gap: float) -> bool:
    r"""Whether the LP is predicted to solve a game faster than the dynamics to ``gap``.

    The model, measured with ``python benchmarks/solve_game.py``: the LP's time grows like
    :math:`E^{1.5}` in the entries E (its interior point or simplex work), the dynamics' like
    :math:`E/\sqrt{\mathrm{gap}}` (each round costs two products; PRM+'s rounds to a gap grew about as
    :math:`\mathrm{gap}^{-1/2}` here). They cross at :data:`LP_CROSSOVER_ENTRIES` entries at gap 1e-6,
    so the LP is chosen while :math:`E\le E^\star\,(10^{-6}/\mathrm{gap})`.
    """
    return entries <= LP_CROSSOVER_ENTRIES * (1e-6 / gap)


def lp_strategies(matrix):
    """``(row, column)`` from one LP (HiGHS): max v s.t. (M^T x)_j >= v, sum x = 1, x >= 0; the row strategy is
    its primal solution, the column strategy minus the duals of its n inequalities; None when HiGHS fails."""
    import scipy.optimize
    import scipy.sparse as sp

    m, n = matrix.shape
    cost = np.zeros(m + 1)
    cost[-1] = -1.0
    if sp.issparse(matrix):
        upper = sp.hstack([-sp.csr_matrix(matrix, dtype=np.float64).T, sp.csr_matrix(np.ones((n, 1)))], format="csr")
        equality = sp.csr_matrix(np.concatenate([np.ones(m), [0.0]])[None, :])
    else:
        upper = np.empty((n, m + 1))
        upper[:, :m] = -np.asarray(matrix, dtype=np.float64).T
        upper[:, m] = 1.0
        equality = np.concatenate([np.ones(m), [0.0]])[None, :]
    solution = scipy.optimize.linprog(cost, A_ub=upper, b_ub=np.zeros(n), A_eq=equality, b_eq=[1.0],
                                      bounds=[(0.0, None)] * m + [(None, None)], method="highs")
    if solution.status != 0 or solution.x is None:
        return None
    row = np.maximum(solution.x[:m], 0.0)
    column = np.maximum(-solution.ineqlin.marginals, 0.0)  # scipy's duals of <= rows are <= 0: minus a strategy
    if not (row.sum() > 0 and column.sum() > 0):
        return None
    return row / row.sum(), column / column.sum()


def _bracket(matrix, row, column):
    """``(lower, upper)``: min_j (row^T M)_j and max_i (M column)_i in float64, each widened by the rounding bound."""
    by_column, by_row = _certificate_products(matrix, row, column)
    slack = _rounding_bound(matrix)  # Higham: |fl(M v) - M v| <= gamma_k max|M| for a distribution v
    xp = backend_of(matrix).xp
    return to_host_scalar(xp.min(by_row)) - slack, to_host_scalar(xp.max(by_column)) + slack


def solve_game(M, gap: float = 1e-6, *, max_rounds: int = 1_000_000, method: str = "auto") -> GameSolution:
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
    method : {"auto", "lp", "dynamics"}, default "auto"
        ``"lp"``: one linear program (HiGHS) and the certified bracket of its strategies, then the
        dynamics if that bracket is wider than ``gap``; ``"dynamics"``: PRM+ only; ``"auto"``: the LP
        where :func:`lp_is_faster` predicts it (small games), else the dynamics. A torch, JAX or CuPy M
        always takes the dynamics (on its device).

    Returns
    -------
    GameSolution
        ``row``, ``column``, ``lower``, ``upper`` (the value bracket), ``nash_gap``, ``rounds``,
        ``converged``, ``method``.

    Raises
    ------
    ValueError
        A bad M (not 2-D, empty, NaN or infinite entries), gap (not positive), max_rounds or method.
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
    if method not in ("auto", "lp", "dynamics"):
        raise ValueError(f"method must be 'auto' (the LP for small games, else the dynamics), 'lp' or 'dynamics', "
                         f"got {method!r}.")
    if method != "dynamics" and not is_foreign(matrix):
        import scipy.sparse as sp

        entries = int(matrix.nnz) if sp.issparse(matrix) else int(matrix.shape[0]) * int(matrix.shape[1])
        if method == "lp" or lp_is_faster(matrix.shape, entries, float(gap)):
            pair = lp_strategies(matrix)
            if pair is not None:
                row, column = pair
                lower, upper = _bracket(matrix, row, column)
                if upper - lower <= gap:
                    return GameSolution(row, column, lower, upper, upper - lower, 0, True, _LP_METHOD)
    learner = RegretMatching(plus=True, predictive=True)
    output_weight = lambda t: float(t * t)
    target = float(gap)
    payoff = Bilinear(matrix.T)
    while True:
        stop = NashGapStop(matrix, target, output_weight)
        game = play(payoff, learner, learner, max_rounds, weights="constant", output_weights="quadratic",
                    alternating=True, observers=(stop,))
        row, column = game.w_average, game.p_average
        lower, upper = _bracket(matrix, row, column)
        certified = upper - lower
        if certified <= gap or game.rounds >= max_rounds or target < gap * 1e-3:
            return GameSolution(row, column, lower, upper, certified, game.rounds, certified <= gap)
        target *= 0.5  # the running estimate was above the certified gap by rounding: aim lower
