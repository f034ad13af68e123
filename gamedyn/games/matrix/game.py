r"""Two-player zero-sum matrix games: the exact solution, the Nash gap and the theory's step sizes.

A payoff matrix :math:`M\in\mathbb R^{m\times n}` defines the game

.. math::

    v^\star=\max_{x\in\Delta_m}\min_{y\in\Delta_n}x^\top My=\min_{y\in\Delta_n}\max_{x\in\Delta_m}x^\top My:

the row player (x) maximises, the column player (y) minimises. It is the Protocol 1 game
:math:`\max_w\min_pp^\top Aw` with ``w = x``, ``p = y`` and ``A = M^T``: :class:`MatrixGame` ``(M)``
is that payoff by name (the w-player is the row player), so ``play(MatrixGame(M), ...)``'s
``w_average`` is the row player's strategy. The
recipes :func:`gamedyn.recipes.hedge`, :func:`gamedyn.recipes.optimistic_hedge` and
:func:`gamedyn.recipes.fictitious_play` play it; this module gives what they are checked against:

* :class:`MatrixGame` -- the payoff :math:`x^\top My` (w = row player, p = column player, both on
  the simplex), a :class:`gamedyn.Bilinear` on ``M.T`` (every fast path of Bilinear applies);
* :func:`value_bracket` -- :math:`[\min_y\bar x^\top My,\ \max_x x^\top M\bar y]\ni v^\star`, certified
  (it survives rounding), the certificate of a matrix game's averaged strategies;
* :func:`solve_matrix_game` -- :math:`v^\star` and an optimal pair, from ``scipy.optimize.linprog``;
* :func:`nash_gap` -- :math:`\max_i(M\bar y)_i-\min_j(\bar x^\top M)_j\ge0`, zero
  exactly at an equilibrium, and :math:`v^\star` lies between the two terms;
* :func:`hedge_gap_bound` and :func:`optimistic_hedge_gap_bound` -- the regret bounds that set the
  recipes' default steps, turned into bounds on the Nash gap of the averaged strategies by
  Theorem 2 (the gap is at most (R_row + R_column) / T);
* :class:`InitialBelief` -- the hint of fictitious play with a prior belief.
"""

from __future__ import annotations

import math
from typing import Any

import attrs
import numpy as np
import scipy.sparse as sp

from gamedyn.core.domains import Simplex
from gamedyn.core.hints import LastLoss
from gamedyn.core.kernels import backend_of, is_foreign, to_host_scalar, to_numpy
from gamedyn.core.loss import Loss
from gamedyn.certify.sequence_form import SequenceFormTracker, sequence_form_bracket
from gamedyn.core.validation import check_count, check_matrix, real_array
from gamedyn.engine.payoffs import Bilinear, is_sequence_form

__all__ = [
    "InitialBelief", "MatrixGame", "MatrixGameSolution", "ValueBracket", "value_bracket", "best_response_values", "check_payoff_matrix", "check_strategy", "default_hedge_steps", "default_optimistic_hedge_step", "hedge_gap_bound", "nash_gap", "optimistic_hedge_gap_bound", "payoff_range", "solve_matrix_game",
]


def _real_array(value, name: str, what: str) -> np.ndarray:
    """``value`` as a float64 array through the one check of numbers (:func:`gamedyn.core.validation.real_array`:
    strings, booleans, complex numbers and ragged lists refused by name)."""
    return real_array(value, name, what).astype(np.float64, copy=False)


def check_payoff_matrix(M, name: str = "M", *, allow_sparse: bool = False):
    """A finite 2-D float64 payoff matrix with at least one row and one column, or a clear error.

    The numbers go through the one check every public entry point makes
    (:func:`gamedyn.core.validation.real_array`): digit strings, booleans and complex numbers are refused,
    never converted, and a ragged list gets a message of its own. ``allow_sparse=True`` keeps a scipy sparse
    ``M`` (as CSR float64), for the functions that take one (:func:`solve_matrix_game`).

    Raises
    ------
    TypeError
        ``M`` is complex (its imaginary part would be lost), holds strings or booleans, or is not numeric;
        a sparse ``M`` where none is taken.
    ValueError
        ``M`` is ragged, not 2-D, is empty, or holds NaN or infinity.

    A torch, JAX, CuPy or array-API ``M`` (issue 20) is checked through its own namespace and returned there,
    on its device (float32 stays float32: the products' dtype; every other real dtype becomes float64).
    """
    if is_foreign(M):
        try:
            return check_matrix(M, name, allow_sparse=False)
        except ValueError as error:
            raise ValueError(f"{error} ({name} is the payoff matrix of shape (rows, columns); rows: the "
                             f"maximiser's actions.)") from None
    if sp.issparse(M):
        if not allow_sparse:
            raise TypeError(f"{name} is a scipy.sparse matrix; this function reads every payoff: pass "
                            f"{name}.toarray().")
        if np.dtype(M.dtype).kind not in "fiu":
            real_array(np.zeros(0, dtype=M.dtype), name, "payoffs")  # the same message as for a dense M
        matrix = sp.csr_matrix(M, dtype=np.float64)
        entries = matrix.data
    else:
        try:
            matrix = entries = real_array(M, name, "payoffs").astype(np.float64, copy=False)
        except TypeError as error:
            raise TypeError(f"{name} must be a 2-D array of payoffs (rows: the maximiser's actions): {error}") from None
    if matrix.ndim != 2 or matrix.shape[0] < 1 or matrix.shape[1] < 1:
        general = (" A zero-sum matrix game has one payoff matrix; for a general-sum game of two players pass "
                   "gamedyn.BimatrixGame(A, B) (equilibria: gamedyn.solve_cce, gamedyn.solve_ce)."
                   if matrix.ndim == 3 and matrix.shape[0] == 2 else "")
        raise ValueError(f"{name} must be a 2-D payoff matrix of shape (rows, columns), got shape {matrix.shape}."
                         f"{general}")
    if not np.all(np.isfinite(entries)):
        raise ValueError(f"{name} must have finite entries; it contains NaN or infinity.")
    return matrix


def check_strategy(strategy, size: int, name: str, *, positive: bool = False) -> np.ndarray:
    """A mixed strategy: a probability vector of length ``size``, or a clear error.

    ``positive=True`` also refuses a zero entry (the start of an entropy learner: Hedge's weights are
    the start's times exponentials, so an action of start weight 0 is never played).
    """
    point = _real_array(strategy, name, "probabilities")
    if point.shape != (size,):
        raise ValueError(f"{name} must be a probability vector of length {size}, got shape {point.shape}.")
    if not np.all(np.isfinite(point)) or np.any(point < 0) or abs(point.sum() - 1.0) > 1e-9 * size:
        raise ValueError(f"{name} must be non-negative and sum to 1 (a mixed strategy), got {point!r}.")
    if positive and np.any(point == 0):
        zeros = np.flatnonzero(point == 0).tolist()
        raise ValueError(
            f"{name} gives action(s) {zeros} start weight 0: an entropy learner (Hedge) plays x_0 times "
            f"exponential weights, so it would never play them, never reach an equilibrium that uses them, and "
            f"its gap bound (ln(1 / min x_0)) is infinite. Give every action a positive weight, e.g. "
            f"{name} = (1 - e) * {name} + e / {size} with a small e > 0, or leave {name} out (uniform).")
    return point


def payoff_range(M) -> float:
    """r = max M - min M, the range of the payoffs (0 for a constant game; inf if beyond float64)."""
    matrix = check_payoff_matrix(M)
    if is_foreign(matrix):  # in M's namespace, one host number (float64: a float32 range may not overflow)
        xp = backend_of(matrix).xp
        return to_host_scalar(xp.max(matrix)) - to_host_scalar(xp.min(matrix))
    with np.errstate(over="ignore"):  # max - min of entries near +-1.8e308 is beyond float64: inf
        return float(np.max(matrix) - np.min(matrix))


_SMALLEST_NORMAL = float(np.finfo(np.float64).tiny)


def _checked_default_step(step: float, spread: float, formula: str, matrix) -> float:
    """A default step computed from M's range, or an error naming M (not eta) and the fix: rescale M."""
    if math.isfinite(spread) and _SMALLEST_NORMAL <= step < math.inf:
        return step
    top = float(np.max(np.abs(to_numpy(matrix))))
    scale = math.ldexp(1.0, math.frexp(top)[1] - 1)  # a power of two (M / scale is exact) with max |M / scale| in [1, 2)
    reason = ("is beyond float64" if not math.isfinite(spread)
              else f"makes the step {step!r}, beyond float64 (r = {spread!r} is subnormal)" if step == math.inf
              else f"makes the step {step!r}, below float64's normal range")
    raise ValueError(
        f"the default step {formula} is computed from M's payoff range r = max M - min M, which {reason} "
        f"(max |M| = {top:.3g}); no eta was passed. Rescale M: pass M / s, e.g. s = {scale:.3g} (a power of two, "
        f"exact): the default steps of M / s give the same strategies, and the value and the Nash gap are divided by s."
    )


@attrs.frozen
class MatrixGameSolution:
    """v* and an optimal (maximin) row strategy and (minimax) column strategy, from two LPs."""

    value: float
    row: np.ndarray
    column: np.ndarray
    lower: float = attrs.field(default=None, kw_only=True)  # min_j (row^T M)_j <= v*, certified
    upper: float = attrs.field(default=None, kw_only=True)  # v* <= max_i (M column)_i, certified


def _maximin(matrix) -> tuple:
    """max_{x in simplex} min_j (x^T M)_j as the LP  min -v  s.t.  v <= (M^T x)_j, sum x = 1, x >= 0."""
    import scipy.optimize  # here, not at import: a first import loads no optimiser
    m, n = matrix.shape
    # HiGHS's tolerances are absolute (about 1e-7): solve on M / 2^k with max |M| / 2^k in [1/2, 1)
    # (exact in floating point) and scale the value back, so the answer does not depend on M's units.
    largest = float(abs(matrix).max()) if sp.issparse(matrix) else float(np.max(np.abs(matrix)))
    scale = math.ldexp(1.0, math.frexp(largest)[1]) if largest > 0 else 1.0
    matrix = matrix / scale
    cost = np.zeros(m + 1)
    cost[-1] = -1.0
    if sp.issparse(matrix):  # a sparse M: the LP's constraints sparse too (HiGHS takes them so)
        upper = sp.hstack([-matrix.T, sp.csr_matrix(np.ones((n, 1)))], format="csr")
    else:
        upper = np.hstack([-matrix.T, np.ones((n, 1))])
    equality = np.hstack([np.ones((1, m)), np.zeros((1, 1))])
    bounds = [(0.0, None)] * m + [(None, None)]
    solution = scipy.optimize.linprog(cost, A_ub=upper, b_ub=np.zeros(n), A_eq=equality, b_eq=[1.0],
                                      bounds=bounds, method="highs")
    if solution.status != 0:  # pragma: no cover - a finite matrix game always has a solution
        raise RuntimeError(f"linprog failed on the matrix game: {solution.message}")
    strategy = np.maximum(solution.x[:m], 0.0)
    return float(solution.x[-1]) * scale, strategy / strategy.sum()


def _optimal_pair(matrix) -> tuple:
    _, row = _maximin(matrix)
    _, column = _maximin(-matrix.T)  # max_y min_x y^T (-M^T) x = -min_y max_x x^T M y
    return row, column


def solve_matrix_game(M) -> MatrixGameSolution:
    r"""The value :math:`v^\star` and an optimal pair, by ``scipy.optimize.linprog`` (HiGHS).

    ``M`` may be a scipy sparse matrix (as for :func:`gamedyn.solve_game`): the LP's constraints stay sparse.

    >>> rock_paper_scissors = [[0, -1, 1], [1, 0, -1], [-1, 1, 0]]
    >>> solution = solve_matrix_game(rock_paper_scissors)
    >>> round(solution.value, 12) + 0.0, solution.row.round(6).tolist()
    (0.0, [0.333333, 0.333333, 0.333333])
    """
    matrix = check_payoff_matrix(M, allow_sparse=True)
    backend = backend_of(matrix)
    if not backend.is_numpy:  # an exact oracle: the LP on a host copy (the boundary), the strategies back on M's device
        solution = solve_matrix_game(np.asarray(to_numpy(matrix), dtype=np.float64))
        return attrs.evolve(solution, row=backend.asarray(solution.row), column=backend.asarray(solution.column))
    row, column = _optimal_pair(matrix)
    # The LP's own value variable is only as good as HiGHS's absolute tolerance (about 1e-7 of max |M|,
    # and entries that differ by less look equal to it). The strategies certify v* from both sides:
    # min_j (row^T M)_j <= v* <= max_i (M column)_i, equal at an exact solution. Each end is widened
    # by its rounding bound, so the bracket holds in floating point too (at an exact solution the two
    # computed ends may otherwise cross by an ulp).
    lower = _certified_worst(row, matrix)
    upper = -_certified_worst(column, -matrix.T)
    value = min(max(0.5 * lower + 0.5 * upper, lower), upper)
    return MatrixGameSolution(value, row, column, lower=lower, upper=upper)


_UNIT = 2.0 ** -53
_EXACT_WORK = 100_000  # rational multiply-adds the exact evaluation may spend (about 0.1 s)


def _certified_worst(x, matrix) -> float:
    r"""A float ``L <= min_j (x'^\top M)_j`` for the distribution :math:`x' = x/\sum_i x_i` (exact
    quotient), so that :math:`L \le v^\star` holds whatever the rounding: the columns that can be
    the minimum (computed value minus Higham's bound :math:`\gamma_{k}(|x|^\top|M|)_j` at most the
    smallest computed value plus its bound) are evaluated exactly in rationals on x's support when
    that is cheap (then L is the exact minimum rounded down, equal to it when it is a float), else L
    is the computed minimum less its rounding bound (``gamma`` also covers the sum of x)."""
    support = np.flatnonzero(x)
    weights, rows = x[support], matrix[support]
    if sp.issparse(rows):  # (a sparse M: the support's rows, dense)
        rows = rows.toarray()
    values = weights @ rows
    k = support.size + 2
    gamma = k * _UNIT / (1.0 - k * _UNIT)
    bounds = 2.0 * gamma * (weights @ np.abs(rows))  # the products' sum and x's own sum (1 up to k roundings)
    candidates = np.flatnonzero(values - bounds <= np.min(values + bounds))
    if support.size * candidates.size > _EXACT_WORK:
        return float(np.min(values - bounds))
    from fractions import Fraction

    exact_weights = [Fraction(float(w)) for w in weights]
    total = sum(exact_weights)
    worst = min(sum(w * Fraction(float(entry)) for w, entry in zip(exact_weights, rows[:, j])) for j in candidates) / total
    rounded = float(worst)
    return rounded if Fraction(rounded) <= worst else float(np.nextafter(rounded, -np.inf))


def _sequence_form_matrix(M):
    """A sequence-form payoff: a finite float64 CSR matrix from a scipy.sparse M, else :func:`check_payoff_matrix`."""
    import scipy.sparse as sp

    if not sp.issparse(M):
        return check_payoff_matrix(M)
    matrix = sp.csr_matrix(M, dtype=np.float64)
    if matrix.shape[0] < 1 or matrix.shape[1] < 1:
        raise ValueError(f"M must be a 2-D payoff matrix of shape (rows, columns), got shape {matrix.shape}.")
    if not np.all(np.isfinite(matrix.data)):
        raise ValueError("M must have finite entries; it contains NaN or infinity.")
    matrix.sum_duplicates()
    return matrix


def best_response_values(M, row, column) -> tuple:
    """(max_x x^T M column, min_y row^T M y): what each player's best reply achieves."""
    matrix = check_payoff_matrix(M)
    m, n = matrix.shape
    if is_foreign(matrix):  # the two products in M's namespace, on its device; two host numbers
        backend = backend_of(matrix)
        row, column = (backend.asarray(check_strategy(to_numpy(point), size, name), dtype=matrix.dtype)
                       for point, size, name in ((row, m, "row"), (column, n, "column")))
        xp = backend.xp
        return to_host_scalar(xp.max(matrix @ column)), to_host_scalar(xp.min(row @ matrix))
    row, column = check_strategy(row, m, "row"), check_strategy(column, n, "column")
    return float(np.max(matrix @ column)), float(np.min(row @ matrix))


def nash_gap(M, row, column) -> float:
    r""":math:`\max_x x^\top M\,\mathrm{column}-\min_y\mathrm{row}^\top My\ge0`; zero exactly at a Nash equilibrium.

    >>> nash_gap([[1.0, 0.0], [0.0, 1.0]], [0.5, 0.5], [0.5, 0.5])
    0.0
    """
    best_row, best_column = best_response_values(M, row, column)
    return best_row - best_column


def _log_size(size: int) -> float:
    return float(np.log(max(size, 2)))


def _start_divergence(start, size: int) -> float:
    """max_i ln(1 / start_i) = the largest KL(e_i || start): the entropy regularizer's range term."""
    if start is None:
        return float(np.log(size))
    smallest = float(np.min(start))
    return math.inf if smallest == 0 else -math.log(smallest)


def default_hedge_steps(M, T) -> tuple:
    r"""Hedge's tuned steps :math:`\eta=\sqrt{8\ln k/T}/r` for each player (k its number of actions).

    With payoffs of range :math:`r=\max M-\min M`, exponential weights' regret is at most
    :math:`\ln k/\eta+\eta Tr^2/8` (Hoeffding's lemma; Cesa-Bianchi & Lugosi 2006, Thm 2.2),
    minimised by this step to :math:`r\sqrt{T\ln k/2}`. ``ln k`` is read as ``ln max(k, 2)`` and a
    constant game (r = 0) gets steps computed with r = 1 (every strategy is then optimal).
    """
    matrix = check_payoff_matrix(M)
    T = check_count(T, "T")
    spread = payoff_range(matrix) or 1.0
    m, n = matrix.shape
    with np.errstate(over="ignore"):  # a subnormal r makes the step inf: refused below, naming the fix
        steps = (float(np.sqrt(8 * _log_size(m) / T) / spread), float(np.sqrt(8 * _log_size(n) / T) / spread))
    for step in steps:
        _checked_default_step(step, spread, "eta = sqrt(8 ln k / T) / r", matrix)
    return steps


def default_optimistic_hedge_step(M) -> float:
    r"""Optimistic Hedge's step :math:`\eta=1/r` for both players (r = max M - min M; 1 if r = 0).

    Optimistic Hedge has the RVU property (Syrgkanis, Agarwal, Luo & Schapire 2015, Prop. 7):
    :math:`R\le\alpha/\eta+\eta\sum_t\|u_t-u_{t-1}\|_\infty^2-\tfrac1{4\eta}\sum_t\|x_t-x_{t-1}\|_1^2`.
    In a zero-sum game :math:`\|u_t-u_{t-1}\|_\infty\le\tfrac r2\|y_t-y_{t-1}\|_1` (shift M by its
    mid-range, which changes no play), so with :math:`\eta\le1/r` the positive terms of one player
    are cancelled by the negative terms of the other and the regrets sum to a constant: the Nash
    gap falls like 1/T (see :func:`optimistic_hedge_gap_bound`).
    """
    matrix = check_payoff_matrix(M)
    spread = payoff_range(matrix) or 1.0
    return _checked_default_step(1.0 / spread, spread, "eta = 1 / r", matrix)


def hedge_gap_bound(M, T, eta_row, eta_column, row_start=None, column_start=None) -> float:
    r"""Theorem 2 with Hedge's regret bound: the averaged strategies' Nash gap is at most

    .. math::

        \frac1T\sum_{\text{players}}\Big(\frac{\max_i\ln(1/x_{0,i})}{\eta}+\frac{\eta Tr^2}8\Big)
        \;=\;r\Big(\sqrt{\tfrac{\ln m}{2T}}+\sqrt{\tfrac{\ln n}{2T}}\Big)\ \text{at the default steps, uniform starts.}
    """
    matrix = check_payoff_matrix(M)
    spread = payoff_range(matrix)
    m, n = matrix.shape
    row_start = None if row_start is None else check_strategy(row_start, m, "row_start")
    column_start = None if column_start is None else check_strategy(column_start, n, "column_start")
    total = 0.0
    for eta, start, size in ((eta_row, row_start, m), (eta_column, column_start, n)):
        # eta r and r T, not eta T r^2: at a range near float64's smallest normal, eta ~ 1/r and eta T overflows
        # to inf while r^2 underflows to 0 (inf * 0 = NaN); eta r is about 1 at any scale
        total += _start_divergence(start, size) / eta + (eta * spread) * (spread * T) / 8
    return total / T


def optimistic_hedge_gap_bound(M, T, eta, row_start=None, column_start=None) -> float:
    r"""The RVU bound on the averaged strategies' Nash gap for optimistic Hedge with one step eta <= 1/r:

    .. math::

        \frac1T\Big(\frac{\max_i\ln(1/x_{0,i})+\max_j\ln(1/y_{0,j})}{\eta}+2\eta r^2\Big),

    the last term paying for the first round, whose hint is the loss at the opponent's start
    (:math:`\|u_1-u_0\|_\infty\le r`). Raises if eta > 1/r, where the RVU terms need not cancel.
    """
    matrix = check_payoff_matrix(M)
    spread = payoff_range(matrix)
    if eta * spread > 1.0 + 1e-12:
        raise ValueError(f"the RVU bound needs eta <= 1/r = {1 / spread:.6g}; got eta = {eta!r}.")
    m, n = matrix.shape
    row_start = None if row_start is None else check_strategy(row_start, m, "row_start")
    column_start = None if column_start is None else check_strategy(column_start, n, "column_start")
    range_terms = _start_divergence(row_start, m) + _start_divergence(column_start, n)
    return (range_terms / eta + 2 * (eta * spread) * spread) / T  # eta r first: r^2 may underflow


@attrs.frozen
class InitialBelief(LastLoss):
    r"""Hint :math:`\psi_t=f_0` every round: the opponent's initial point counted as one extra past play.

    With FTL on the simplex and constant weights this is fictitious play with a prior belief
    (Brown 1951; Fudenberg & Levine 1998, ch. 2): :math:`x_t=\mathrm{BR}(y_0+\sum_{s<t}y_s)`, the
    best response to the opponent's empirical play with the start :math:`y_0` as one fictitious
    observation. :math:`f_0` is the loss the runner builds from the opponent's initial point.
    """

    guess = "initial"  # predict returns the state, f_0, which update keeps (gamedyn.core.hints)

    def update(self, state, point, loss: Loss, weight: float):  # LastLoss's init and predict; f_0 is kept
        return state


@attrs.frozen
class ValueBracket:
    r"""A certified bracket of the game value: ``lower`` :math:`\le v^\star\le` ``upper``.

    From strategies x (row) and y (column): ``lower`` :math:`=\min_j(x^\top M)_j` and ``upper``
    :math:`=\max_i(My)_i`, each rounded outwards (exact rational evaluation of the candidate columns
    when cheap, else widened by Higham's bound, as :func:`solve_matrix_game`), so the bracket holds in
    floating point. ``width`` is the Nash gap of (x, y) up to that rounding.
    """

    lower: float
    upper: float

    @property
    def width(self) -> float:
        """upper - lower."""
        return self.upper - self.lower

    def contains(self, value: float) -> bool:
        """Whether ``lower <= value <= upper``."""
        return bool(self.lower <= value <= self.upper)


def value_bracket(M, row, column) -> ValueBracket:
    r"""The certified bracket :math:`[\min_y\,\mathrm{row}^\top My,\ \max_x x^\top M\,\mathrm{column}]\ni v^\star`.

    ``row`` and ``column`` are mixed strategies (entries >= 0; each is divided by its exact sum).

    >>> bracket = value_bracket([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], [0.4, 0.3, 0.3], [1/3, 1/3, 1/3])
    >>> bracket.contains(0.0), round(bracket.lower, 12), round(bracket.upper, 12)
    (True, -0.1, 0.0)
    """
    matrix = check_payoff_matrix(M)
    if is_foreign(matrix):  # an exact evaluation (rationals): on host copies, the boundary
        matrix, row, column = (np.asarray(to_numpy(value), dtype=np.float64) for value in (matrix, row, column))
    m, n = matrix.shape
    row, column = check_strategy(row, m, "row"), check_strategy(column, n, "column")
    return ValueBracket(_certified_worst(row, matrix), 0.0 - _certified_worst(column, -matrix.T))  # 0.0 - : no -0.0


@attrs.frozen(init=False, repr=False)
class MatrixGame(Bilinear):
    r"""The matrix game :math:`\max_{x\in\Delta_m}\min_{y\in\Delta_n}x^\top My` as a payoff, by name.

    The **w-player is the row player** (x, maximises :math:`x^\top My`) and the **p-player the column
    player** (y, minimises); both play on the simplex. It is :class:`gamedyn.Bilinear` on
    :math:`A=M^\top` (:math:`g(w,p)=p^\top M^\top w=x^\top My`), so every product and fast path of
    Bilinear applies. ``play(MatrixGame(M), ...)``'s ``w_average`` is the row player's averaged
    strategy and ``p_average`` the column player's; :meth:`value_bracket` turns them into the
    certified bracket of :math:`v^\star` (:func:`solve_matrix_game`'s value lies inside).

    **Sequence form.** With ``row_domain`` / ``column_domain`` a :class:`gamedyn.Treeplex` the game
    is an extensive-form game in sequence form, :math:`\max_{x\in X}\min_{y\in Y}x^\top My`: M's rows
    are the first player's sequences, its columns the second player's, and M may be a scipy.sparse
    matrix (kept sparse, CSR: one sparse product per loss). :meth:`value_bracket` and the run's
    certificate are then the certified bracket of :mod:`gamedyn.certify.sequence_form` (best responses
    by backward passes); :func:`gamedyn.games.efg.kuhn_poker` and the other built-in games build it.

    Parameters
    ----------
    M : array_like or scipy.sparse matrix of shape (m, n)
        The payoff matrix: rows are the maximiser's actions, columns the minimiser's (float64, finite;
        sparse only with a treeplex).
    *general_sum
        Refused with a TypeError naming :class:`gamedyn.BimatrixGame`: a second payoff matrix makes a
        general-sum game, which this zero-sum class does not play.
    row_domain, column_domain : Simplex or Treeplex, optional
        Each player's strategy set (default: the simplex).

    Raises
    ------
    TypeError, ValueError
        ``M`` is not a finite real 2-D matrix (:func:`check_payoff_matrix`); a domain that is neither the
        simplex nor a treeplex, or whose dimension is not M's.

    Examples
    --------
    >>> from gamedyn import FTRL, Entropy, play
    >>> M = [[3.0, -1.0, 0.0], [-2.0, 1.0, 0.5]]
    >>> game = play(MatrixGame(M), FTRL(Entropy(), 0.1), FTRL(Entropy(), 0.1), T=2000)
    >>> bracket = MatrixGame(M).value_bracket(game.w_average, game.p_average)
    >>> bracket.contains(solve_matrix_game(M).value), game.w_average.shape
    (True, (2,))
    """

    w_domain: Any = attrs.field(default=Simplex(), kw_only=True)

    def __init__(self, M, *general_sum, row_domain=None, column_domain=None):
        if general_sum:
            raise TypeError("MatrixGame(M) is the zero-sum game of one payoff matrix (the column player gets -M); "
                            "for a general-sum game pass gamedyn.BimatrixGame(A, B) and play it with "
                            "gamedyn.play_n, or solve it with gamedyn.solve_cce / gamedyn.solve_ce.")
        if row_domain is None and column_domain is None:
            matrix = check_payoff_matrix(M)
            self.__attrs_init__(matrix.T)
            return
        row: Any = Simplex() if row_domain is None else row_domain
        column: Any = Simplex() if column_domain is None else column_domain
        matrix = _sequence_form_matrix(M)
        for domain, size, name, what in ((row, matrix.shape[0], "row_domain", "rows"),
                                         (column, matrix.shape[1], "column_domain", "columns")):
            if is_sequence_form(domain):
                if domain.dimension != size:
                    raise ValueError(f"{name} {domain!r} has {domain.dimension} sequences but M has {size} {what}: "
                                     "the payoff and the treeplex belong to different games.")
            elif domain != Simplex():
                raise ValueError(f"{name} must be Simplex() or a Treeplex, got {domain!r}.")
        if not (is_sequence_form(row) and is_sequence_form(column)) and not isinstance(matrix, np.ndarray):
            matrix = matrix.toarray()  # a simplex player: the dense matrix game's products and reads
        self.__attrs_init__(matrix.T, p_domain=column, w_domain=row)

    @property
    def M(self) -> np.ndarray:
        """The payoff matrix (m x n): a view of ``A.T`` (CSR for a sparse sequence-form M)."""
        return self.A.T

    @property
    def sequence_form(self) -> bool:
        """Whether both players play on treeplexes (an extensive-form game in sequence form)."""
        return is_sequence_form(self.w_domain) and is_sequence_form(self.p_domain)

    def __repr__(self) -> str:
        if self.w_domain == Simplex() and self.p_domain == Simplex():
            return f"MatrixGame(M of shape {self.M.shape})"
        return f"MatrixGame(M of shape {self.M.shape}, row_domain={self.w_domain!r}, column_domain={self.p_domain!r})"

    def value_bracket(self, row, column):
        """:func:`value_bracket` of this game's matrix at the strategies ``row`` (w) and ``column`` (p); for
        two treeplexes :func:`gamedyn.certify.sequence_form.sequence_form_bracket` (a
        :class:`gamedyn.certify.sequence_form.SequenceFormBracket`)."""
        if self.sequence_form:
            return sequence_form_bracket(self.M, (self.w_domain, self.p_domain), row, column)
        if self.w_domain != Simplex() or self.p_domain != Simplex():
            raise ValueError(f"{self!r}: a value bracket is certified for two simplices or two treeplexes.")
        return value_bracket(self.M, row, column)

    def certificate(self, w_domain, q: float | None = None, margin_from_sums: bool = True):
        r"""The value bracket as :func:`gamedyn.play`'s certificate: ``play(MatrixGame(M), ...).certificate``.

        A :class:`ValueBracketTracker` (two simplices) or a
        :class:`gamedyn.certify.sequence_form.SequenceFormTracker` (two treeplexes): nothing per round
        (``observes_rounds = False``); at the end it brackets :math:`v^\star` by the output's averaged
        strategies (:func:`value_bracket` or :func:`gamedyn.certify.sequence_form.sequence_form_bracket`,
        certified). ``q`` and ``margin_from_sums`` belong to the margin certificate and are not used.
        """
        if self.sequence_form and w_domain == self.w_domain:
            return SequenceFormTracker(self.M, (self.w_domain, self.p_domain))
        return ValueBracketTracker(self) if w_domain == Simplex() and self.p_domain == Simplex() else None


class ValueBracketTracker:
    """The certificate of :class:`MatrixGame` in a run: the value bracket of the averaged strategies.

    It watches no round (``observes_rounds = False``: no observer is added, a round costs nothing);
    :func:`gamedyn.play` binds it to the run, and :meth:`certificate` reads the seats' weighted play
    sums when asked (two products with rounding bounds, :func:`value_bracket`). A resumed run restores
    the sums, so the bracket needs no checkpoint state of its own.
    """

    observes_rounds = False

    def __init__(self, game: MatrixGame):
        self.game = game
        self._run: Any = None  # the Run, set by bind()

    def bind(self, run) -> None:
        """Remember the run whose seats hold the sums (called once by :func:`gamedyn.play`)."""
        self._run = run

    def certificate(self) -> ValueBracket:
        """``[min_y x_bar^T M y, max_x x^T M y_bar]``, certified, at the output's averages now."""
        w_seat, p_seat = self._run.w_seat, self._run.p_seat
        return self.game.value_bracket(w_seat.play_sum / w_seat.output_weight_total,
                                       p_seat.play_sum / p_seat.output_weight_total)
