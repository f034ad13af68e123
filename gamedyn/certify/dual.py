r"""A certified soft-margin solver fast on sparse, high-dimensional rows (issue 19, item 5).

The soft-margin game :math:`\max_w \min_{p\in\Delta_c} p^\top Aw - \tfrac12\|w\|^2` has the dual

.. math::

    \gamma_\nu^* = \min_{p\in\Delta_c}\|A^\top p\|_2,\qquad
    \Delta_c=\{p\ge0,\ \textstyle\sum_ip_i=1,\ p_i\le c\},\quad c=\frac1{\nu n}

(the distance from 0 to the reduced convex hull of the signed rows; Crisp & Burges 2000, Bennett &
Bredensteiner 2000; ``c = 1`` is the hard margin). :func:`soft_margin_lbfgs` solves the primal
:math:`\max_w \operatorname{CVaR}_c(Aw) - \tfrac12\|w\|^2`, smoothed, by L-BFGS: where the game
dynamics take thousands of rounds on sparse data (d = 10^4), L-BFGS takes hundreds of iterations of
the same two products. Every evaluation gives a point :math:`p` of :math:`\Delta_c` and a direction
:math:`w`, hence the bracket of the game,

.. math::

    L = \frac{\operatorname{CVaR}_c(A w)}{\|w\|}\ \le\ \gamma_\nu^*\ \le\ U = \|A^\top p\|,

where :math:`\operatorname{CVaR}_c(m)=\min_{q\in\Delta_c}\langle q, m\rangle` is the average of the
:math:`1/c` smallest margins (the fractional one in part): weak duality, for any unit :math:`w` and
any :math:`p\in\Delta_c`, :math:`\min_{q\in\Delta_c}q^\top Aw\le p^\top Aw\le\|A^\top p\|`. The
solver stops at the first evaluation with ``(U - L) / U <= tol`` for every column, so the answer is
certified by the same bracket as the game dynamics, whatever the route taken to it.

``A`` is never formed (:class:`SignedRows`): the rows are ``a_i = s_i (x_i, b) / r`` for the user's
``X`` (dense or CSR, float32 or float64, never copied), signs ``s`` (one column per one-vs-rest
game), an optional constant feature ``b`` and a scale ``r``; the products fold the signs, the column
and the scale into vectors of length n or d (``X.T`` of a CSR matrix is a CSC view, not a copy).
"""

from __future__ import annotations

import math
from typing import Any, Protocol, runtime_checkable

import attrs
import numpy as np
import scipy.sparse as sp

from gamedyn.core.numerics import UNIT64, rounding_factor
from gamedyn.core.validation import all_finite, describe

__all__ = ["CappedColumns", "DualDomain", "DualSolution", "GameRows", "PairRows", "ShiftedRows", "SignedRows",
           "TwoHulls", "cvar_columns", "project_capped_columns", "row_norm_bound", "shrinking_round", "soft_margin_lbfgs", "times_in_float64"]

_EPS = float(np.finfo(np.float64).eps)


def _matrix_of_numbers(instance, attribute, value) -> None:
    """attrs validator of a rows class's ``X``: a non-empty 2-D numpy array or scipy.sparse matrix of real
    numbers (float or int; O(1): its finiteness is checked by ``largest_row_norm``, once per solve)."""
    name = f"{type(instance).__name__}' {attribute.name}"
    if not (isinstance(value, np.ndarray) or sp.issparse(value)):
        raise TypeError(f"{name} must be a 2-D numpy array or scipy.sparse matrix of real numbers, got "
                        f"{type(value).__name__} {describe(value)}; build it with np.array(...) of numbers (a list of "
                        f"lists of floats), never of strings.")
    kind = np.dtype(value.dtype).kind
    if kind not in "fiu":
        what = {"c": "complex (its imaginary part would be lost)", "b": "boolean", "U": "strings", "S": "bytes",
                "O": "Python objects"}.get(kind, f"dtype {value.dtype}")
        raise TypeError(f"{name} must hold real numbers (float or int), got {what}; convert it yourself "
                        f"(e.g. X.real, or numbers parsed from the strings), so nothing is dropped or guessed.")
    if value.ndim != 2 or value.shape[0] < 1 or value.shape[1] < 1:
        raise ValueError(f"{name} must be 2-D with at least one row and one column, got shape {value.shape}.")


def _finite_number(name: str, value, positive: bool = False) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a real number, got {describe(value)}.")
    value = float(value)
    if not math.isfinite(value) or (positive and not value > 0):
        raise ValueError(f"{name} must be {'positive and ' if positive else ''}finite, got {value!r}.")
    return value


def _largest_entry(X, name: str) -> float:
    """max |X_ij| (dense or sparse, any real dtype), refusing NaN and infinity (two reductions, no copy)."""
    data = X.data if sp.issparse(X) else X
    if data.size == 0:
        return 0.0
    if not all_finite(data):
        raise ValueError(f"{name} contains NaN or infinite entries; remove or impute them first.")
    return float(max(np.max(data), -np.min(data)))


def _row_bound(top: float, d: int, column, scale: float, factor: float = 1.0) -> float:
    """An upper bound on ``factor * ||(x_i, b)|| / scale`` from ``max |x_ij| <= top``: ``||x_i|| <= sqrt(d) top``
    (rounded up, so it is a bound in floating point too); inf when it overflows."""
    column = 0.0 if column is None else abs(column)
    peak = max(top, column)
    if peak == 0.0:
        return 0.0  # every row is 0, exactly
    # On mantissas (powers of two taken out, exactly), so that no step underflows: rows of 1e-262 divided by
    # r = 4e62 have norms 1.8e-324, below the smallest subnormal (issue 30's hunt: a bound of 0 read as
    # "every row is 0", a false upper end 0). The result is rounded up when scaled back.
    shift = -math.frexp(peak)[1]
    mantissa, power = math.frexp(scale)
    ratio = math.hypot(math.sqrt(d) * math.ldexp(top, shift), math.ldexp(column, shift)) * factor / mantissa
    ratio *= 1.0 + 16 * UNIT64
    exponent = -shift - power
    try:
        length = math.ldexp(ratio, max(exponent, -1100))
    except OverflowError:
        return math.inf
    return length if math.ldexp(length, -exponent) == ratio else math.nextafter(length, math.inf)


@runtime_checkable
class GameRows(Protocol):
    """What :func:`soft_margin_lbfgs` needs of the rows of its games: K games of the same shape (N rows
    of dimension d' each), their two products, and nothing formed.

    Implemented by :class:`SignedRows` (one-vs-rest: K games on the rows of X) and :class:`PairRows`
    (one multiclass game on the pairs (i, j), j != y_i).

    Optional (read by :func:`soft_margin_lbfgs` when present): ``largest_row_norm()``, an upper bound on
    every game's ``max_i ||a_i||`` that also checks the rows' numbers (finite; without it the rows are
    formed once, game by game, to measure them: implement it for large rows); ``exact_rows(game)``, the
    game's rows times a positive constant, each entry exact (the exact proof that the value is 0 reads
    them; without it, no such proof is tried).
    """

    @property
    def column(self) -> float | None:
        """The constant feature ``b`` of the rows (an intercept), or None."""

    @property
    def shape(self) -> tuple[int, int]:
        """``(N, d')``: the rows of each game and their dimension."""

    @property
    def games(self) -> int:
        """K, the number of games (columns of ``times``' argument)."""

    def times(self, W: np.ndarray) -> np.ndarray:
        """``M[:, k] = A_k W[:, k]``, shape (N, K)."""

    def transpose_times(self, P: np.ndarray) -> np.ndarray:
        """``W[:, k] = A_k^T P[:, k]``, shape (d', K)."""

    def restricted(self, games: np.ndarray) -> GameRows:
        """The same rows for the listed games only."""

    def first_hessian(self) -> np.ndarray:
        """A positive diagonal, shape (d', 1): L-BFGS's first inverse Hessian (a scaling only)."""

    def formed(self, game: int) -> np.ndarray:
        """Game ``game``'s rows as a dense float64 array, shape (N, d') (small problems only)."""

    def subset(self, game: int, index: np.ndarray) -> GameRows:
        """The rows ``index`` of game ``game``, as one game (a few rows: the shrinking rounds' problems)."""


@attrs.frozen
class SignedRows:
    """The rows ``a_i = s_ik (x_i, b) / r`` of K games (column k of ``signs``) without forming them.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix, shape (n, d)
        The unsigned rows (CSR is used through ``X @ v`` and ``X.T @ v``: the transpose is a view).
    signs : ndarray, shape (n, K)
        +-1 per row and game.
    column : float or None
        The constant feature ``b`` appended to every row (an intercept), or None.
    scale : float
        The positive divisor ``r`` (e.g. the largest row norm, so that ``||a_i|| <= 1``).
    """

    X: Any = attrs.field(validator=_matrix_of_numbers)  # an ndarray or a scipy.sparse matrix (real numbers)
    signs: np.ndarray
    column: float | None = None
    scale: float = 1.0

    @property
    def shape(self) -> tuple[int, int]:
        """``(n, d + 1)`` with the constant column ``b``, else ``(n, d)``: the shape of each game's matrix."""
        n, d = self.X.shape
        return n, d + (self.column is not None)

    def largest_row_norm(self) -> float:
        """An upper bound on ``max_i ||a_i||`` (``sqrt(d') max |x_ij|``-based: one pass over X, no copy),
        checking X, the signs, ``b`` and ``r`` (finite; signs of shape (n, K); ``r > 0``)."""
        signs = np.asarray(self.signs)
        if signs.ndim != 2 or signs.shape[0] != self.X.shape[0] or signs.shape[1] < 1 \
                or np.dtype(signs.dtype).kind not in "fiu" or not all_finite(signs):
            raise ValueError(f"SignedRows' signs must be a finite array of shape (n, K) = ({self.X.shape[0]}, K), "
                             f"one column per game, got {describe(self.signs)}.")
        column = None if self.column is None else _finite_number("SignedRows' column", self.column)
        scale = _finite_number("SignedRows' scale", self.scale, positive=True)
        top = _largest_entry(self.X, "SignedRows' X") * float(np.max(np.abs(signs)))
        return _row_bound(top, self.X.shape[1], column, scale)

    def exact_rows(self, game: int) -> np.ndarray | None:
        """Game ``game``'s rows times ``r`` (the scale): ``s_ik (x_i, b)``, dense float64, every entry exact
        (None unless the signs are +-1)."""
        signs = np.asarray(self.signs[:, game:game + 1], dtype=np.float64)
        if not np.all(np.abs(signs) == 1.0):
            return None
        return _with_column(self.X, self.column) * signs

    def times(self, W: np.ndarray) -> np.ndarray:
        """``M[:, k] = A_k W[:, k]``, shape (n, K)."""
        d = self.X.shape[1]
        M = times_in_float64(self.X, W[:d])
        if self.column is not None:
            M += self.column * W[d]
        M *= self.signs
        M /= self.scale
        return M

    def transpose_times(self, P: np.ndarray) -> np.ndarray:
        """``W[:, k] = A_k^T P[:, k]``, shape (d (+1), K)."""
        Q = P * self.signs
        Q /= self.scale
        W = _transpose_times_in_float64(self.X, Q)
        if self.column is not None:
            W = np.vstack([W, self.column * Q.sum(axis=0)[None, :]])
        return W

    @property
    def games(self) -> int:
        """K, one game per column of ``signs``."""
        return int(self.signs.shape[1])

    def restricted(self, games: np.ndarray) -> SignedRows:
        """The rows of the listed games (columns of ``signs``)."""
        return self if len(games) == self.games else attrs.evolve(self, signs=self.signs[:, games])

    def first_hessian(self) -> np.ndarray:
        """1, and for the constant feature ``b`` the ratio of :func:`_constant_column_ratio`, shape (d', 1)."""
        first = np.ones((self.shape[1], 1))
        if self.column is not None and self.column != 0.0:
            first[-1] = 1.0 / _constant_column_ratio(self.X, self.column)
        return first

    def formed(self, game: int) -> np.ndarray:
        """Game ``game``'s rows ``s_ik (x_i, b) / r``, dense float64 (small problems only)."""
        return _with_column(self.X, self.column) * (self.signs[:, game:game + 1] / self.scale)

    def subset(self, game: int, index: np.ndarray) -> SignedRows:
        """The rows ``index`` of game ``game`` (``X[index]``: a copy of those rows only; CSR and float32 kept)."""
        return SignedRows(self.X[index], self.signs[index, game:game + 1], self.column, self.scale)


@attrs.frozen
class PairRows:
    r"""The rows of the multiclass (Weston & Watkins 1999) margin game, one row per pair ``(i, j)``, ``j != y_i``:

    .. math::

        a_{ij} = (e_{y_i} - e_j)\otimes(x_i, b)\,/\,r\in\mathbb R^{K d'},\qquad
        a_{ij}^\top W = \big(\langle w_{y_i}, (x_i, b)\rangle - \langle w_j, (x_i, b)\rangle\big)/r,

    for ``W = (w_0, ..., w_{K-1})`` stacked class by class. The soft-margin game on these ``n (K - 1)``
    rows, :math:`\max_W \min_{p\in\Delta_c} p^\top A W - \tfrac12\|W\|^2`, is the nu-form of the
    Weston-Watkins multiclass SVM: :math:`\min_{p\in\Delta_c} p^\top AW` is the average of the
    :math:`1/c` smallest pair margins (how far each example's own class scores above each other
    class), and the classifier predicts :math:`\arg\max_k\langle w_k, (x, b)\rangle`. One game
    (``games == 1``); its products are one ``X @ (K columns)`` and one ``X.T @ (K columns)``, the same
    as K one-vs-rest games. Pair ``(i, j)`` is row ``i (K - 1) + t`` for ``j = (y_i + 1 + t) mod K``.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix, shape (n, d)
        The rows (never copied; float32 stays float32, as in :class:`SignedRows`).
    labels : ndarray of int, shape (n,)
        ``y_i`` in ``0, ..., classes - 1``.
    classes : int >= 2
        K.
    column : float or None
        The constant feature ``b`` (an intercept), or None.
    scale : float
        The positive divisor ``r`` (``sqrt(2)`` times the largest ``||(x_i, b)||`` gives ``||a_ij|| <= 1``).
    """

    X: Any = attrs.field(validator=_matrix_of_numbers)
    labels: np.ndarray
    classes: int
    column: float | None = None
    scale: float = 1.0

    @property
    def shape(self) -> tuple[int, int]:
        """``(n (K - 1), K d')``."""
        n, d = self.X.shape
        return n * (self.classes - 1), self.classes * (d + (self.column is not None))

    def largest_row_norm(self) -> float:
        """An upper bound on ``max ||a_ij|| = sqrt(2) max ||(x_i, b)|| / r``, checking X, the labels, ``b`` and ``r``."""
        labels = np.asarray(self.labels)
        if (isinstance(self.classes, bool) or not isinstance(self.classes, (int, np.integer)) or self.classes < 2
                or labels.shape != (self.X.shape[0],) or np.dtype(labels.dtype).kind not in "iu"
                or labels.min() < 0 or labels.max() >= self.classes):
            raise ValueError(f"PairRows needs classes >= 2 and one integer label in 0..classes-1 per row of X "
                             f"({self.X.shape[0]}); got classes={describe(self.classes)}, labels {describe(self.labels)}.")
        column = None if self.column is None else _finite_number("PairRows' column", self.column)
        scale = _finite_number("PairRows' scale", self.scale, positive=True)
        return _row_bound(_largest_entry(self.X, "PairRows' X"), self.X.shape[1], column, scale, math.sqrt(2.0))

    def exact_rows(self, game: int = 0) -> np.ndarray:
        """The pair rows times ``r``: ``(e_{y_i} - e_j) (x) (x_i, b)``, dense float64, every entry exact."""
        return attrs.evolve(self, scale=1.0).formed(game)

    @property
    def games(self) -> int:
        """1: the K classes play one game."""
        return 1

    def others(self) -> np.ndarray:
        """``j`` of pair ``(i, t)``: ``(y_i + 1 + t) mod K``, shape (n, K - 1) (every class but ``y_i``)."""
        return (self.labels[:, None] + np.arange(1, self.classes)[None, :]) % self.classes

    def times(self, W: np.ndarray) -> np.ndarray:
        """The pair margins ``A W``, shape (n (K - 1), 1), from one product ``X @ (K columns)``."""
        K = self.classes
        if W.ndim != 2 or W.shape != (self.shape[1], 1):
            raise ValueError(f"PairRows.times takes one stacked W of shape {(self.shape[1], 1)}; got {W.shape}.")
        stacked = W.reshape(K, -1).T  # (d', K): column k is w_k
        d = self.X.shape[1]
        scores = times_in_float64(self.X, np.ascontiguousarray(stacked[:d]))
        if self.column is not None:
            scores += self.column * stacked[d]
        own = scores[np.arange(scores.shape[0]), self.labels]
        M = own[:, None] - np.take_along_axis(scores, self.others(), axis=1)
        M /= self.scale
        return M.reshape(-1, 1)

    def transpose_times(self, P: np.ndarray) -> np.ndarray:
        """``A^T P``, shape (K d', 1), from one product ``X.T @ (K columns)``."""
        K, n = self.classes, self.X.shape[0]
        weights = P.reshape(n, K - 1) / self.scale
        Q = np.zeros((n, K))
        np.put_along_axis(Q, self.others(), -weights, axis=1)
        Q[np.arange(n), self.labels] = weights.sum(axis=1)
        W = _transpose_times_in_float64(self.X, Q)
        if self.column is not None:
            W = np.vstack([W, self.column * Q.sum(axis=0)[None, :]])
        return W.T.reshape(-1, 1)

    def restricted(self, games: np.ndarray) -> PairRows:
        """Itself (the one game)."""
        if list(games) != [0]:
            raise ValueError(f"PairRows holds one game; got games {list(games)!r}.")
        return self

    def first_hessian(self) -> np.ndarray:
        """Per class block as :meth:`SignedRows.first_hessian`: each constant coordinate scaled by the ratio."""
        first = np.ones((self.classes, self.shape[1] // self.classes))
        if self.column is not None and self.column != 0.0:
            first[:, -1] = 1.0 / _constant_column_ratio(self.X, self.column)
        return first.reshape(-1, 1)

    def formed(self, game: int = 0) -> np.ndarray:
        """The ``n (K - 1)`` pair rows, dense float64, shape (n (K - 1), K d') (small problems only)."""
        Z = _with_column(self.X, self.column) / self.scale
        n, dim = Z.shape
        K = self.classes
        A = np.zeros((n, K - 1, K, dim))
        rows = np.arange(n)
        A[rows, :, self.labels, :] = Z[:, None, :]
        others = self.others()
        for t in range(K - 1):
            A[rows, t, others[:, t], :] -= Z
        return A.reshape(n * (K - 1), K * dim)

    def subset(self, game: int, index: np.ndarray) -> SignedRows:
        """The pair rows ``index`` (pair ``(i, t)`` is row ``i (K - 1) + t``), formed: dense float64, shape
        (len(index), K d'), as one game of :class:`SignedRows` (signs 1)."""
        if game != 0:
            raise ValueError(f"PairRows holds one game; got game {game!r}.")
        K = self.classes
        index = np.asarray(index)
        examples, t = np.divmod(index, K - 1)
        Z = _with_column(self.X[examples], self.column) / self.scale
        m, dim = Z.shape
        A = np.zeros((m, K, dim))
        A[np.arange(m), self.labels[examples], :] = Z
        A[np.arange(m), (self.labels[examples] + 1 + t) % K, :] -= Z
        return SignedRows(A.reshape(m, K * dim), np.ones((m, 1)))


@attrs.frozen
class ShiftedRows:
    """One game's rows ``a_i + o``: ``base``'s rows shifted by a common vector ``o``, never formed.

    The problem a shrinking round leaves (:func:`shrinking_round`): ``(A + 1 o^T) w = A w + (o . w) 1``
    and ``(A + 1 o^T)^T p = A^T p + o sum(p)``, one product with ``base`` each.

    Parameters
    ----------
    base : GameRows
        One game's rows (``base.games == 1``).
    offset : ndarray, shape (d', 1)
        ``o``.
    """

    base: GameRows
    offset: np.ndarray

    @property
    def column(self) -> float | None:
        """``base``'s constant feature (its first Hessian is ``base``'s)."""
        return self.base.column

    @property
    def shape(self) -> tuple[int, int]:
        """``base.shape``."""
        return self.base.shape

    @property
    def games(self) -> int:
        """1."""
        return 1

    def times(self, W: np.ndarray) -> np.ndarray:
        """``A w + (o . w) 1``, shape (N, 1)."""
        return self.base.times(W) + np.einsum("ij,ij->j", self.offset, W)

    def transpose_times(self, P: np.ndarray) -> np.ndarray:
        """``A^T p + o sum(p)``, shape (d', 1)."""
        return self.base.transpose_times(P) + self.offset * P.sum(axis=0)

    def restricted(self, games: np.ndarray) -> ShiftedRows:
        """Itself (the one game)."""
        return self

    def first_hessian(self) -> np.ndarray:
        """``base``'s (a scaling only)."""
        return self.base.first_hessian()

    def largest_row_norm(self) -> float:
        """``base``'s bound plus ``||o||`` (the triangle inequality), rounded up."""
        offset = np.asarray(self.offset, dtype=np.float64)
        if not all_finite(offset):
            raise ValueError("ShiftedRows' offset contains NaN or infinite entries.")
        return (row_norm_bound(self.base) + _column_norms(offset.reshape(-1, 1))[0]) * (1.0 + 4 * UNIT64)

    def formed(self, game: int = 0) -> np.ndarray:
        """The rows ``a_i + o``, dense float64 (small problems only)."""
        return self.base.formed(0) + self.offset[:, 0]

    def subset(self, game: int, index: np.ndarray) -> ShiftedRows:
        """The rows ``index``, shifted by the same ``o``."""
        return ShiftedRows(self.base.subset(0, index), self.offset)


def _with_column(X, column) -> np.ndarray:
    """``(x_i, b)`` as a dense float64 array (``x_i`` alone without ``b``)."""
    dense = X.toarray() if hasattr(X, "toarray") else np.asarray(X)
    dense = np.asarray(dense, dtype=np.float64)
    return dense if column is None else np.hstack([dense, np.full((dense.shape[0], 1), float(column))])


# Entries of X converted to float64 at a time when X is stored in another type (float32): a block, not a copy.
_BLOCK_ENTRIES = 1 << 18


def _row_blocks(X):
    """Row ranges of X holding about ``_BLOCK_ENTRIES`` stored entries each (at most 1/32 of X's, at least 4096)."""
    n, d = X.shape
    stored = int(X.nnz) if hasattr(X, "nnz") else n * d
    entries = min(_BLOCK_ENTRIES, max(stored // 32, 4096))  # and a small part of a small X
    rows = max(1, (entries * n) // max(stored, 1))
    return [(start, min(n, start + rows)) for start in range(0, n, rows)]


def times_in_float64(X, V: np.ndarray) -> np.ndarray:
    """``X @ V`` in float64. A float64 X is used as it is; another X (float32, dense or CSR) is converted
    a row block at a time, so the product never holds a float64 copy of X (numpy and scipy would
    make one to multiply float32 by float64) and each entry is exactly the float64 product."""
    if X.dtype == np.float64:
        return np.asarray(X @ V, dtype=np.float64)
    out = np.empty((X.shape[0], V.shape[1]))
    for start, stop in _row_blocks(X):
        out[start:stop] = np.asarray(X[start:stop].astype(np.float64) @ V)
    return out


def _transpose_times_in_float64(X, Q: np.ndarray) -> np.ndarray:
    """``X.T @ Q`` in float64, summed over row blocks when X is not float64 (see :func:`times_in_float64`)."""
    if X.dtype == np.float64:
        return np.asarray(X.T @ Q, dtype=np.float64)
    out = np.zeros((X.shape[1], Q.shape[1]))
    for start, stop in _row_blocks(X):
        out += np.asarray(X[start:stop].astype(np.float64).T @ Q[start:stop], dtype=np.float64)
    return out


def project_capped_columns(V: np.ndarray, cap, tau: np.ndarray | None = None, total: float = 1.0):
    """The Euclidean projection of every column of V onto the capped simplex, ``(P, tau)``.

    ``P[:, k] = clip(V[:, k] - tau_k, 0, cap)`` with ``sum_i P[i, k] = total`` (default 1). ``cap`` is a
    number, or an array of V's shape, a cap per entry in [0, 1]: an entry capped at 0 is outside the
    simplex (one block of :class:`TwoHulls`, of mass one half). The threshold is found by a safeguarded Newton iteration on the
    piecewise linear, non-increasing ``phi(tau) = sum_i clip(v_i - tau, 0, cap) - total`` (each Newton
    step is exact on the current pieces, so it ends after finitely many steps; bisection keeps it inside
    the bracket), started from ``tau`` when given (the previous iterate's threshold: a few steps).
    """
    n, K = V.shape
    low = V.min(axis=0) - 1.0  # phi(low) = (the sum of the caps) - total >= 0 (every cap <= 1)
    high = V.max(axis=0)  # phi(high) = -total
    t = np.clip(tau, low, high) if tau is not None else V.mean(axis=0) - total / n
    for _ in range(100):
        shifted = V - t
        free = (shifted > 0) & (shifted < cap)  # (an entry capped at 0 is never free)
        value = np.clip(shifted, 0.0, cap).sum(axis=0) - total
        positive = value > 0
        low = np.where(positive, np.maximum(low, t), low)
        high = np.where(positive, high, np.minimum(high, t))
        slope = free.sum(axis=0)
        # Done: phi within its rounding of 0, or no float left between the bracket's ends (far from the centre,
        # as where the smoothing mu is tiny, the sum's own rounding |V| eps exceeds the first test).
        done = (np.abs(value) <= 4 * n * _EPS * total) | (high - low <= 4 * _EPS * np.maximum(np.abs(low), np.abs(high)))
        if np.all(done):
            break
        step = np.where(slope > 0, t + value / np.maximum(slope, 1), 0.5 * (low + high))
        inside = (step > low) & (step < high) & (step != t)
        t = np.where(done, t, np.where(inside, step, 0.5 * (low + high)))
    P = np.clip(V - t, 0.0, cap)
    sums = P.sum(axis=0)
    # The rounding left: rescale when it keeps the cap (sum >= total), else give the shortfall to the free part.
    short = sums < total
    if np.any(~short):
        P[:, ~short] /= sums[~short] / total
    if np.any(short):
        for k in np.flatnonzero(short):
            room = (cap if np.ndim(cap) == 0 else cap[:, k]) - P[:, k]
            spare = room.sum()
            if spare > 0:  # (no room: every coordinate at the cap, the single point of n c = 1, short by rounding)
                P[:, k] += room * ((total - sums[k]) / spare)
    np.minimum(P, cap, out=P)
    return P, t


def cvar_columns(M: np.ndarray, cap: float) -> np.ndarray:
    """``min_{p in Delta_c} <p, M[:, k]>`` for every column: ``cap`` times the sum of the
    ``K = floor(1/cap)`` smallest entries plus ``(1 - K cap)`` times the next one."""
    n = M.shape[0]
    count = _rows_at_cap(cap, n)
    rest = 1.0 - count * cap
    if count >= n:
        return cap * M.sum(axis=0)
    part = np.partition(M, count, axis=0)
    values = cap * part[:count].sum(axis=0) if count else np.zeros(M.shape[1])
    return values + rest * part[count]


def _rows_at_cap(cap: float, n: int) -> int:
    """``K = floor(1/cap)`` (at most n, and ``K cap <= 1``): the rows a point of the capped simplex can hold at its cap."""
    count = min(int(math.floor(1.0 / cap * (1 + 4 * _EPS))), n)
    while count > 0 and count * cap > 1.0:
        count -= 1
    return count


@runtime_checkable
class DualDomain(Protocol):
    """The p-player's domain of the soft-margin games solved by :func:`soft_margin_lbfgs`, one per game (column).

    What the solver needs of it: the centre ``u`` of the smoothing, the Euclidean projection, the support
    function ``min_{p in D} <p, m>`` (the lower end's numerator), a bound on ``max_{p in D} ||p - u||^2``
    (the smoothing's error), the distance of a computed point from the domain (its rounding) and the
    domain of a subset of the games. ``shrinkable``: one capped simplex per game (the shrinking rounds
    of :func:`shrinking_round` apply), with its ``cap``.
    """

    @property
    def shrinkable(self) -> bool:
        """True for one capped simplex per game (the shrinking rounds of :func:`shrinking_round` apply)."""
        ...

    @property
    def cap(self) -> float | None:
        """The cap of a shrinkable domain, else None."""
        ...

    def centre(self, games: np.ndarray | None = None) -> np.ndarray | float:
        """The smoothing's centre ``u`` of the listed games (all by default): a number, or shape (N, K)."""
        ...

    def project(self, V: np.ndarray, tau: np.ndarray | None = None,
                games: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(P, tau)``: the Euclidean projection of every column of V onto its game's domain, and the
        thresholds found (a start for the next call)."""
        ...

    def support(self, M: np.ndarray, games: np.ndarray | None = None) -> np.ndarray:
        """``min_{p in D_k} <p, M[:, k]>`` per column: the lower end's numerator for the margins ``M``."""
        ...

    def spread(self, games: np.ndarray | None = None) -> np.ndarray | float:
        """A bound on ``max_{p in D_k} ||p - u||^2`` (the smoothing's error), per game or one number."""
        ...

    def drift(self, P: np.ndarray, games: np.ndarray | None = None) -> np.ndarray:
        """How far each column of P is from its domain in the l1 sense, from exactly summed masses."""
        ...

    def thresholds(self, K: int) -> np.ndarray:
        """The projection's first thresholds for K games."""
        ...

    def restricted(self, games: np.ndarray) -> DualDomain:
        """The domain of the listed games only."""
        ...

    def exact_form(self, A: np.ndarray, game: int) -> tuple[np.ndarray, float] | None:
        """``(B, c)`` such that the game's value is 0 exactly when a point of Delta_c has ``B^T p = 0``
        (:func:`gamedyn.certify.soft_margin.reduced_hull_proof`), from the game's exact rows A; None when
        there is no such form."""
        ...

    def largest_cap(self, game: int) -> float:
        """The largest cap of the game's domain (``Certificate.cap``)."""
        ...

    def blocks(self, game: int) -> tuple[np.ndarray, np.ndarray, float]:
        """``(blocks, caps, mass)``: the game's domain as a product of capped simplices, each row's block
        (ints) and cap in its block's simplex of mass 1, and the mass each block carries in the domain
        (:func:`gamedyn.certify.soft_margin.reduced_hulls_point` solves the game's QP in that form)."""
        ...


@attrs.frozen
class CappedColumns:
    r"""The capped simplex :math:`\Delta_c` of all N rows, the same for every game (the one-hull soft margin).

    Parameters
    ----------
    cap : float in [1/N, 1]
        ``c = 1 / (nu N)``.
    n : int
        N, the rows.
    """

    cap: float
    n: int
    shrinkable = True

    def centre(self, games=None):
        """``1 / N``."""
        return 1.0 / self.n

    def project(self, V, tau=None, games=None):
        """:func:`project_capped_columns` of every column."""
        return project_capped_columns(V, self.cap, tau)

    def support(self, M, games=None):
        """``CVaR_c`` of every column (:func:`cvar_columns`)."""
        return cvar_columns(M, self.cap)

    def spread(self, games=None):
        """``c >= max ||p - u||^2 = c - 1/N`` (at a vertex)."""
        return self.cap

    def drift(self, P, games=None):
        """``|sum_i p_i - 1|`` per column, exactly summed."""
        return np.array([abs(math.fsum(P[:, k]) - 1.0) for k in range(P.shape[1])])

    def thresholds(self, K):
        """One projection threshold per game."""
        return np.zeros(K)

    def restricted(self, games):
        """The same capped simplex (one for every game)."""
        return self

    def exact_form(self, A, game):
        """``(A, c)``: the value is 0 exactly when some point of Delta_c has ``A^T p = 0``."""
        return A, self.cap

    def largest_cap(self, game):
        """``c``."""
        return self.cap

    def blocks(self, game):
        """One block of all N rows, each capped at ``c``, of mass 1."""
        return np.zeros(self.n, dtype=np.int64), np.full(self.n, self.cap), 1.0


@attrs.frozen
class TwoHulls:
    r"""The two classes' reduced convex hulls, a product of two capped simplices per game (the free bias).

    For game k the rows are split by ``positive[:, k]`` into the classes :math:`P_k` (``a_i = x_i``) and
    :math:`N_k` (``a_i = -x_i``), and

    .. math::

        D_k = \{(\tfrac12 p^+, \tfrac12 p^-) : p^+\in\Delta_{c^+_k}(P_k),\ p^-\in\Delta_{c^-_k}(N_k)\},\qquad
        \min_{p\in D_k}\|A_k^\top p\| = \tfrac12\min\Big\|\sum_{P_k}p^+_ix_i-\sum_{N_k}p^-_jx_j\Big\|,

    half the distance between the classes' reduced hulls (Bennett & Bredensteiner 2000; Crisp & Burges
    2000), each hull weighted one half whatever its class's size: the nu-SVM with a free bias, whose
    equality constraint :math:`\sum_{P}p^+ = \sum_{N}p^-` the product form holds exactly. Its support
    function is :math:`\tfrac12(\operatorname{CVaR}_{c^+}(m_P) + \operatorname{CVaR}_{c^-}(m_N))`, which no
    bias changes (a shift ``b`` adds ``b/2`` to one half and takes it from the other).

    Parameters
    ----------
    positive : ndarray of bool, shape (N, K)
        Per game, the rows of the first class (their sign is +1 in the game's rows).
    caps : ndarray, shape (2, K)
        ``c^+_k`` and ``c^-_k``, each in ``[1 / (class size), 1]``.
    """

    positive: np.ndarray
    caps: np.ndarray
    shrinkable = False
    cap = None

    @classmethod
    def from_signs(cls, signs: np.ndarray, caps: np.ndarray) -> TwoHulls:
        """The domain of the games whose rows carry ``signs`` (+-1, shape (N, K)), checking the caps."""
        positive = np.asarray(signs) > 0
        caps = np.array(caps, dtype=np.float64).reshape(2, -1)
        sizes = np.stack([positive.sum(axis=0), (~positive).sum(axis=0)])
        if caps.shape[1] != positive.shape[1]:
            raise ValueError(f"caps must have shape (2, K) = (2, {positive.shape[1]}), got {caps.shape}.")
        if np.any(sizes == 0):
            raise ValueError("every game needs rows of both classes (a sign column is all +1 or all -1).")
        if not np.all((caps * sizes >= 1 - 4 * _EPS) & (caps <= 1)):
            raise ValueError(f"each class's cap must be in [1 / (its rows), 1]; got caps {caps.tolist()} for "
                             f"classes of {sizes.tolist()} rows.")
        return cls(positive=positive, caps=np.maximum(caps, 1.0 / sizes))

    def _pick(self, games):
        if games is None or len(games) == self.positive.shape[1]:  # (the solver passes every game's index)
            return self.positive, self.caps
        return self.positive[:, games], self.caps[:, games]

    def centre(self, games=None):
        """``1 / (2 |class|)`` on each class's rows, shape (N, K)."""
        positive, _ = self._pick(games)
        sizes = positive.sum(axis=0)
        return np.where(positive, 0.5 / sizes, 0.5 / (positive.shape[0] - sizes))

    def project(self, V, tau=None, games=None):
        """Each class's block onto its capped simplex of mass one half; ``tau`` holds both thresholds, (2, K)."""
        positive, caps = self._pick(games)
        t = np.empty((2, V.shape[1]))
        P, t[0] = project_capped_columns(V, np.where(positive, 0.5 * caps[0], 0.0), None if tau is None else tau[0],
                                         total=0.5)
        other, t[1] = project_capped_columns(V, np.where(positive, 0.0, 0.5 * caps[1]), None if tau is None else tau[1],
                                             total=0.5)
        P += other
        return P, t

    def support(self, M, games=None):
        """``(CVaR_{c+}(m_P) + CVaR_{c-}(m_N)) / 2`` per column."""
        positive, caps = self._pick(games)
        values = np.empty(M.shape[1])
        for k in range(M.shape[1]):
            block = positive[:, k]
            values[k] = 0.5 * (cvar_columns(M[block, k:k + 1], caps[0, k])[0]
                               + cvar_columns(M[~block, k:k + 1], caps[1, k])[0])
        return values

    def spread(self, games=None):
        """``(c+ + c-) / 4 >= max ||p - u||^2``."""
        _, caps = self._pick(games)
        return 0.25 * (caps[0] + caps[1])

    def drift(self, P, games=None):
        """``|sum_P p - 1/2| + |sum_N p - 1/2|`` per column, exactly summed."""
        positive, _ = self._pick(games)
        return np.array([abs(math.fsum(P[positive[:, k], k]) - 0.5) + abs(math.fsum(P[~positive[:, k], k]) - 0.5)
                         for k in range(P.shape[1])])

    def thresholds(self, K):
        """Two projection thresholds per game, shape (2, K)."""
        return np.zeros((2, K))

    def restricted(self, games):
        """The domains of the listed games."""
        return TwoHulls(positive=self.positive[:, games], caps=self.caps[:, games])

    def exact_form(self, A, game):
        """With equal caps ``c``: ``([A, s], c / 2)``, the signed rows with the signs as one more column, so
        that a point of Delta_{c/2} with ``[A, s]^T p = 0`` holds one half on each class (``sum_i s_i p_i = 0``)
        and is a point of the domain with ``A^T p = 0``; None for unequal caps (no such single simplex)."""
        c_positive, c_negative = float(self.caps[0, game]), float(self.caps[1, game])
        if c_positive != c_negative:
            return None
        signs = np.where(self.positive[:, game], 1.0, -1.0)
        return np.hstack([A, signs[:, None]]), 0.5 * c_positive

    def largest_cap(self, game):
        """The larger of the two classes' caps."""
        return float(np.max(self.caps[:, game]))

    def blocks(self, game):
        """The two classes (block 0 the first), each capped at its class's cap, of mass one half each."""
        positive = self.positive[:, game]
        return (~positive).astype(np.int64), np.where(positive, self.caps[0, game], self.caps[1, game]), 0.5


def _constant_column_ratio(X, column: float) -> float:
    r"""How much longer the constant feature ``b``'s column is than an average feature column, squared
    (at least 1): ``n b^2 d / ||X||_F^2``. L-BFGS's first inverse Hessian divides that coordinate by it.

    The Hessian of the smoothed primal is ``I + A^T D A / mu`` (D the free rows); the constant
    column's squared norm ``n b^2 / r^2`` exceeds an average feature column's, ``||X||_F^2 / (d r^2)``,
    by this ratio (about ``d`` for the estimator's ``b = max ||x_i||``), and a scalar first Hessian
    then leaves that one direction ill-conditioned (measured: 531 against 63 iterations on the
    sparse benchmark at n = 10^4). ``||X||_F^2`` is estimated by one product, ``E ||X z||^2`` for a
    Rademacher ``z`` (Hutchinson 1989; fixed seed): a scaling only, any positive diagonal keeps
    L-BFGS a descent method, and the bracket does not depend on it.
    """
    n, d = X.shape
    z = np.random.default_rng(0).choice(np.array([-1.0, 1.0]), size=d)
    with np.errstate(over="ignore", invalid="ignore"):
        Xz = times_in_float64(X, z[:, None])
        length = float(_column_norms(Xz)[0])  # ||X z||, the hypot way (issue 30: X 1e155 overflowed its square)
        share = abs(float(column)) / length if length > 0 else 0.0
        ratio = n * d * share * share if length > 0 else 1.0  # (a product: inf past float64, never an error)
    return min(max(ratio, 1.0), 2.0 ** 1000) if math.isfinite(length) and not math.isnan(ratio) else 1.0


@attrs.frozen
class DualSolution:
    """What :func:`soft_margin_lbfgs` found, one column per game.

    Attributes
    ----------
    w : ndarray, shape (d', K)
        ``A_k^T p_k``: the primal direction (not normalised) of the certified iterate.
    p : ndarray, shape (n, K)
        The certified iterate, in the capped simplex.
    lower, upper : ndarray, shape (K,)
        ``CVaR_c(A_k w_k) / ||w_k|| <= gamma_k* <= ||A_k^T p_k||`` (the best ends met so far), each after a
        certified rounding step: bounds on gamma_k* for the exact values of the rows (float32 ``X``
        included), whatever the rounding of the products, so ``lower <= upper`` always. ``upper`` is 0
        only with an exact proof that the value is 0 (then ``lower = 0`` and ``p`` is the proof's point).
    iterations : ndarray of int, shape (K,)
        The iteration at which each game met ``tol`` (or the last one).
    products : int
        Products with A (each ``A W`` or ``A^T P`` for all K counts one); a shrinking round counts its
        three with all the rows, not its small game's with the window's rows.
    """

    w: np.ndarray
    p: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    iterations: np.ndarray
    products: int


# Shrinking rounds: the first at this iteration, then at twice the last one's; the window's half-width
# starts at these fractions of the rows (of at least SHRINK_DIMENSIONS times the dimension) and
# doubles for a game whose round did not settle it. Games of fewer rows than SHRINK_MIN_ROWS are not
# shrunk: there an iteration is mostly the solver's own overhead, and the small game's hundred or so
# iterations cost more than the L-BFGS iterations they save (measured with rounds at every size: the
# head-to-head's grid on digits 25.4 -> 72.5 CPU s, on breast cancer 4.7 -> 6.7 s, in one session).
SHRINK_FIRST = 3
SHRINK_NEAR, SHRINK_FROM_BOTTOM, SHRINK_DIMENSIONS = 1 / 40, 1 / 10, 4
SHRINK_MIN_ROWS = 20_000


def shrinking_round(rows: GameRows, cap: float, games: np.ndarray, margins: np.ndarray, reach: np.ndarray,
                     from_bottom: np.ndarray, tol: float, zero_below: float):
    r"""One shrinking round (Joachims 1999; libsvm's shrinking) for the listed games, from the margins of a good
    direction: ``(P, W, iterations)``, a point of the capped simplex and a direction per game.

    At the optimum, :math:`p^*_i = c` on the rows whose margin is below the CVaR threshold, 0 above it,
    and free only on the few rows at it. Ranked by a good direction's margins, the rows far below
    (``B``, the lowest ``K - h``, ``K = floor(1/c)``) are fixed at ``c``, those far above at 0, and the
    window ``F`` (ranks ``K - h .. K + h``) is left: with ``g = c \sum_{i\in B} a_i`` and
    ``s = 1 - c|B|``,

    .. math::

        \min_{p_F\in[0,c]^F,\ \sum p_F = s}\|g + A_F^	op p_F\|
        = s\min_{q\in\Delta_{c/s}(F)}\|(A_F + \mathbf 1 g^	op/s)^	op q\|,

    a soft-margin game on the ``|F|`` shifted rows ``a_i + g/s`` (:class:`ShiftedRows`), solved by
    :func:`soft_margin_lbfgs` at ``tol / 4``. ``p = c 1_B + s q`` lies in :math:`\Delta_c` whatever the
    ranking, so its ``||A^T p||`` is an upper end, and the inner game's direction (the full game's
    direction when the ranking is right) gives a lower end from its margins: the caller computes both
    from products with all the rows, so a wrong ranking costs time, never the bracket. A game whose
    best direction has no positive CVaR (``from_bottom``: 0 is likely in the reduced hull) keeps no
    row at the cap and takes the window from the bottom (ranks ``0 .. K + h``): a working set.

    Parameters
    ----------
    rows : GameRows
        All the games' rows (N of dimension d' each).
    cap : float in [1/N, 1]
        ``c``.
    games : ndarray of int, shape (G,)
        The games to shrink.
    margins : ndarray, shape (N, G)
        Their ranking: the margins ``A_k w_k`` of a good direction per game.
    reach : ndarray, shape (G,)
        ``h`` per game (at least 1).
    from_bottom : ndarray of bool, shape (G,)
        The games whose window starts at rank 0 (no row fixed at the cap).
    tol : float in (0, 1)
        The full game's ``tol`` (the inner games are solved at ``tol / 4``).
    zero_below : float
        The full game's ``zero_below`` (the inner games stop at ``zero_below / s``).

    Returns
    -------
    P : ndarray, shape (N, G)
        ``c 1_B + s q`` per game, a point of the capped simplex.
    W : ndarray, shape (d', G)
        The inner games' directions.
    iterations : ndarray of int, shape (G,)
        The inner games' L-BFGS iterations.
    """
    N, dim = rows.shape
    count = _rows_at_cap(cap, N)
    P = np.zeros((N, len(games)))
    W = np.zeros((dim, len(games)))
    fixed = np.zeros((N, len(games)))
    windows = []
    for j in range(len(games)):
        low = 0 if from_bottom[j] else max(0, count - int(reach[j]))
        high = min(N, count + max(1, int(reach[j])))
        order = np.argpartition(margins[:, j], sorted({low, high - 1}))
        fixed[order[:low], j] = cap
        windows.append((order[:low], order[low:high]))
    kept = rows.restricted(games).transpose_times(fixed)  # g = c sum_{i in B} a_i, one product for the games
    iterations = np.zeros(len(games), dtype=np.int64)
    for j, (below, window) in enumerate(windows):
        share = 1.0 - cap * below.size  # s, the mass the window holds
        inner = ShiftedRows(rows.subset(int(games[j]), window), kept[:, j:j + 1] / share)
        inner_cap = min(1.0, max(cap / share, 1.0 / window.size))
        found = soft_margin_lbfgs(inner, inner_cap, tol=tol / 4, max_iter=300, zero_below=zero_below / share,
                                  shrinking=False)
        P[below, j] = cap
        P[window, j] = share * found.p[:, 0]
        W[:, j] = found.w[:, 0]
        iterations[j] = found.iterations[0]
    P, _ = project_capped_columns(P, cap)  # in Delta_c already, up to rounding
    return P, W, iterations


def soft_margin_lbfgs(rows: GameRows, cap: float | DualDomain, *, tol: float = 0.01, max_iter: int = 1000, memory: int = 10,
                      start: np.ndarray | None = None, start_p: np.ndarray | None = None,
                      zero_below: float = 0.0, shrinking: bool = True) -> DualSolution:
    r"""The soft margin of every game k by L-BFGS on the smoothed primal, certified by the game's bracket.

    The primal of the soft-margin game is :math:`\max_w \operatorname{CVaR}_c(Aw) - \tfrac12\|w\|^2`
    (value :math:`\tfrac12\gamma_\nu^{*2}` at :math:`w^*=A^\top p^*`). Its non-smooth part is smoothed
    by a quadratic prox term on the p-player (Nesterov 2005),

    .. math::

        \phi_\mu(w) = \tfrac12\|w\|^2 - \min_{p\in\Delta_c}\big(p^\top Aw + \tfrac\mu2\|p-u_n\|^2\big),
        \qquad \nabla\phi_\mu(w) = w - A^\top p_\mu(w),\quad p_\mu(w)=\Pi_{\Delta_c}(u_n - Aw/\mu),

    a 1-strongly convex C^1 function with a piecewise constant Hessian, minimised by L-BFGS
    (Nocedal 1980; Armijo backtracking, which suffices because ``s^T y >= ||s||^2 > 0``). Every
    evaluation gives a pair ``(w, p_mu(w))`` with ``p_mu(w)`` in the capped simplex, hence the bracket
    ``CVaR_c(Aw)/||w|| <= gamma* <= ||A^T p_mu(w)||`` for free (both products are the gradient's).
    At the minimiser of phi_mu, ``w = A^T p`` and the relative gap is at most
    ``mu * max_{p in Delta_c} ||p - u||^2 / (2 U^2) <= mu c / (2 U^2)``; so mu follows the best upper
    end, ``mu = tol U^2 / c`` (bound tol / 2 at the minimiser; when it falls by more than a factor 2,
    the memory's pairs are rescaled to the new mu, exact on the piece each was measured on). Along a
    direction q, ``A(w + t q) = Aw + t Aq``: an iteration costs two products (``A q`` for its whole
    line search, ``A^T p`` for the gradient) however many steps the search tries, and the lower end
    of a game about to stop (or stopped by ``max_iter``) is computed again from a product. The solver
    stops once each game's certified relative gap is at most ``tol``, or its upper end is at most
    ``zero_below`` (no soft margin above it), or after ``max_iter`` iterations.

    Parameters
    ----------
    rows : GameRows
        The K games' rows (:class:`SignedRows`: one-vs-rest; :class:`PairRows`: the multiclass game).
    cap : float in [1/n, 1], or a DualDomain
        ``c = 1 / (nu n)``; 1 is the hard margin (slow: the smoothing must then be fine). Or the p-player's
        domain itself: :class:`TwoHulls` for the two classes' reduced hulls (a free bias); the value is then
        half the distance between the hulls, and the lower end ``(CVaR_{c+}(m_P) + CVaR_{c-}(m_N)) / (2 ||w||)``.
    tol : float in (0, 1), default 0.01
        Stop once every game's certified relative gap ``(U - L) / U`` is at most ``tol``.
    max_iter : int, default 1000
        The most L-BFGS iterations (two products each, plus one per backtracking step).
    memory : int, default 10
        The L-BFGS pairs kept.
    start : ndarray, shape (d', K), optional
        A first ``w`` (a warm start, e.g. the previous fit's; scale: ``||w|| ~ gamma``). Default 0.
    start_p : ndarray, shape (N, K), optional
        A first point of the capped simplex per game (e.g. the previous fit's certified ``p``; projected
        onto it first, which changes a point of it only by rounding): its ``||A^T p||`` is the first
        best upper end, so a warm start that still certifies ``tol`` stops at iteration 0.
    zero_below : float, default 0
        Also stop a game once its upper end is at most this (no soft margin above it).
    shrinking : bool, default True
        Shrinking rounds (:func:`shrinking_round`) at iterations 3, 6, 12, ...: the rows far from the
        CVaR threshold of the best direction are fixed (at the cap below it, at 0 above) and the few
        near it solved as a small game; the round's point and direction are checked with two products
        with all the rows, and a game they settle stops. A game whose round did not settle it doubles
        its window the next time; a window of more than half the rows is not tried, nor are games of
        fewer than ``SHRINK_MIN_ROWS`` (20,000) rows (no saving there). On the synthetic
        80,000 x 100 games of the head-to-head (5 % label noise, nu = 0.03, 0.1, 0.3) the solver ends
        at iteration 3 instead of 34, 33 and 104.

    Returns
    -------
    DualSolution

    The rows are first scaled by a power of two to norms at most 1 (exact; the results scaled back), so the
    solver and its certificate work at any scale of the rows (norms from 2^-1000 to 2^1000); every norm is
    computed the hypot way (on the vector divided by its largest entry). The returned bracket passes a
    certified rounding step (:class:`DualSolution`). A game whose value is 0 is proved so exactly on
    problems of at most ``EXACT_HULL_SIZE_CAP`` numbers (a point of the capped simplex with ``A^T p = 0``,
    :func:`gamedyn.certify.soft_margin.reduced_hull_proof`, tried from iteration ``ZERO_PROOF_FIRST`` = 10
    on, then at 20, 40, ...): it stops there with the bracket [0, 0] instead of creeping towards it.

    Raises
    ------
    TypeError
        ``rows`` not a :class:`GameRows`; rows of strings, complex or boolean numbers (caught when the rows
        are built); a parameter of the wrong type.
    ValueError
        ``cap`` outside ``[1/n, 1]``, ``tol`` outside (0, 1), ``max_iter < 1``, ``memory < 1``, rows with
        NaN or infinite entries, no rows, a non-finite ``start``, a ``start_p`` of another shape or not
        finite.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.2], [0.8, -0.4], [-0.9, 0.1], [-1.0, -0.3], [0.7, 0.9], [-0.2, -0.8]])
    >>> rows = SignedRows(X / 1.5, np.array([[1.0], [1.0], [-1.0], [-1.0], [-1.0], [1.0]]))
    >>> found = soft_margin_lbfgs(rows, cap=0.25, tol=1e-3)
    >>> bool(0 < found.lower[0] <= found.upper[0] <= found.lower[0] * (1 + 1e-3) + 1e-15)
    True
    """
    if not isinstance(rows, GameRows):
        raise TypeError(f"rows must be a GameRows (SignedRows(X, signs), PairRows(...), ShiftedRows(...)), got "
                        f"{type(rows).__name__} {describe(rows)}; for a matrix A of signed rows pass "
                        f"SignedRows(A, np.ones((A.shape[0], 1))).")
    n, dim = rows.shape
    K = rows.games
    if n < 1 or dim < 1 or K < 1:
        raise ValueError(f"rows must hold at least one row of dimension >= 1 in at least one game; got shape "
                         f"{(n, dim)} with {K} games.")
    domain = cap if isinstance(cap, DualDomain) else None
    cap_value = 1.0
    if domain is None:
        cap_value = _finite_number("cap", cap)
        if not 1.0 / n * (1 - 4 * _EPS) <= cap_value <= 1.0:
            raise ValueError(f"cap must be in [1/n, 1] = [{1.0 / n!r}, 1] (c = 1 / (nu n)); got {cap_value!r}.")
    elif np.shape(domain.centre()) not in ((), (n, K)):
        raise ValueError(f"the domain's games do not match the rows: its centre has shape {np.shape(domain.centre())}, "
                         f"the rows {(n, K)} (N rows, K games).")
    tol = _finite_number("tol", tol)
    if not 0.0 < tol < 1.0:
        raise ValueError(f"tol must be in (0, 1) (a certified relative gap); got {tol!r}.")
    for name, value in (("max_iter", max_iter), ("memory", memory)):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"{name} must be an integer >= 1; got {describe(value)}.")
        if value < 1:
            raise ValueError(f"{name} must be >= 1; got {value!r}.")
    zero_below = _finite_number("zero_below", zero_below)
    if not isinstance(shrinking, (bool, np.bool_)):
        raise TypeError(f"shrinking must be True or False, got {describe(shrinking)}.")
    start = None if start is None else _finite_array("start", start, (dim, K))
    start_p = None if start_p is None else _finite_array("start_p", start_p, (n, K))
    bound = row_norm_bound(rows)  # checks the rows' numbers (finite) on the way
    if not math.isfinite(bound):
        raise ValueError("the rows' norms overflow float64 (beyond 1.8e308); divide X by a power of two first "
                         "(the soft margin scales with it exactly).")
    if domain is None:
        domain = CappedColumns(cap=max(cap_value, 1.0 / n), n=n)
    if bound == 0.0:  # every row is 0: A^T p = 0 for every p, exactly; the value is 0, proved
        return DualSolution(w=np.zeros((dim, K)), p=np.broadcast_to(domain.centre(), (n, K)).copy(), lower=np.zeros(K),
                            upper=np.zeros(K),
                            iterations=np.zeros(K, dtype=np.int64), products=0)
    # The rows scaled by a power of two 2^-e to norms <= 1 (exact): no norm, square or smoothing parameter
    # underflows or overflows at any scale of the user's rows (issue 30: rows of length 1e-154 made every
    # squared norm 0, a false upper end 0; 1e154, every one infinite). Results are scaled back by 2^e.
    exponent = math.frexp(bound)[1]
    scaled = rows if exponent == 0 else _ScaledRows(rows, exponent)
    found = _solve(scaled, domain, float(tol), int(max_iter), int(memory),
                   None if start is None else np.ldexp(start, -exponent), start_p,
                   math.ldexp(zero_below, -exponent), bool(shrinking), math.ldexp(bound, -exponent),
                   _zero_prover(rows, domain))
    if exponent == 0:
        return found
    return attrs.evolve(found, w=np.ldexp(found.w, exponent), lower=_ldexp_rounded(found.lower, exponent, -1),
                        upper=_ldexp_rounded(found.upper, exponent, +1))


def _finite_array(name: str, value, shape) -> np.ndarray:
    kind = np.asarray(value).dtype.kind if not isinstance(value, (str, bytes)) else "U"
    if kind not in "fiu":
        raise TypeError(f"{name} must be an array of real numbers of shape {shape}, got {describe(value)}.")
    array = np.array(value, dtype=np.float64)
    if array.size != shape[0] * shape[1] or not all_finite(array):
        raise ValueError(f"{name} must be a finite array of shape {shape}; got shape {array.shape}"
                         f"{'' if all_finite(array) else ' with NaN or infinite entries'}.")
    return array.reshape(shape)


def _ldexp_rounded(values: np.ndarray, exponent: int, direction: int) -> np.ndarray:
    """``values * 2^exponent`` rounded down (direction -1) or up (+1) where the result is not exact (subnormal)."""
    out = np.ldexp(values, exponent)
    inexact = np.isfinite(values) & (np.ldexp(out, -exponent) != values)
    if np.any(inexact):
        out[inexact] = np.nextafter(out[inexact], direction * np.inf)
        if direction < 0:  # a non-negative value rounded down stays >= 0 (0 is exact)
            out[inexact & (values >= 0)] = np.maximum(out[inexact & (values >= 0)], 0.0)
    return out


def _column_norms(W: np.ndarray) -> np.ndarray:
    """``||W[:, k]||`` for every column, on ``W[:, k] / max |W[:, k]|``: no square underflows or overflows
    (the hypot way); 0 for a zero column."""
    if W.shape[0] == 0:
        return np.zeros(W.shape[1])
    peaks = np.max(np.abs(W), axis=0)
    safe = np.where(peaks > 0, peaks, 1.0)
    unit = W / safe
    return peaks * np.sqrt(np.einsum("ij,ij->j", unit, unit))


def row_norm_bound(rows) -> float:
    """An upper bound on every game's ``max_i ||a_i||_2`` of a :class:`GameRows` (its ``largest_row_norm()``,
    else measured on the formed rows, game by game), checking the rows' numbers (finite) on the way."""
    declared = getattr(rows, "largest_row_norm", None)
    if callable(declared):
        return float(declared())
    largest = 0.0
    for game in range(rows.games):
        formed = np.asarray(rows.formed(game), dtype=np.float64)
        if not all_finite(formed):
            raise ValueError("the rows contain NaN or infinite entries; remove or impute them first.")
        largest = max(largest, float(np.max(_column_norms(formed.T))) if formed.size else 0.0)
    return math.nextafter(largest * (1.0 + 16 * UNIT64), math.inf) if largest > 0 else 0.0


@attrs.frozen
class _ScaledRows:
    """``base``'s rows times ``2^-exponent`` (exact): each product scales its argument or its result by the
    power of two, whichever keeps both clear of underflow and overflow."""

    base: Any
    exponent: int

    def _split(self) -> tuple[int, int]:
        """``(before, after)`` with ``before + after = -exponent``: the argument is scaled by 2^before (at most
        2^1000: an entry of P or W stays finite), the result by 2^after (rows above 2^960: the products'
        sums keep clear of overflow)."""
        total = -self.exponent
        before = min(total, 1000) if total > 0 else min(0, max(total, -(self.exponent - 960)))
        return before, total - before

    @property
    def column(self):
        """``base``'s constant feature (a first Hessian's scaling only)."""
        return self.base.column

    @property
    def shape(self) -> tuple[int, int]:
        """``base.shape``."""
        return self.base.shape

    @property
    def games(self) -> int:
        """``base.games``."""
        return self.base.games

    def times(self, W: np.ndarray) -> np.ndarray:
        before, after = self._split()
        return np.ldexp(self.base.times(np.ldexp(W, before) if before else W), after)

    def transpose_times(self, P: np.ndarray) -> np.ndarray:
        before, after = self._split()
        return np.ldexp(self.base.transpose_times(np.ldexp(P, before) if before else P), after)

    def restricted(self, games: np.ndarray) -> _ScaledRows:
        restricted = self.base.restricted(games)
        return self if restricted is self.base else _ScaledRows(restricted, self.exponent)

    def first_hessian(self) -> np.ndarray:
        return self.base.first_hessian()

    def formed(self, game: int) -> np.ndarray:
        return np.ldexp(self.base.formed(game), -self.exponent)

    def subset(self, game: int, index: np.ndarray) -> _ScaledRows:
        return _ScaledRows(self.base.subset(game, index), self.exponent)

    def largest_row_norm(self) -> float:
        return float(_ldexp_rounded(np.array([row_norm_bound(self.base)]), -self.exponent, +1)[0])

    def exact_rows(self, game: int):
        exact = getattr(self.base, "exact_rows", None)
        return exact(game) if callable(exact) else None


# The exact proof that a game's value is 0 (a point of Delta_c with A^T p = 0, in rationals) is tried for the
# open games with no positive lower end at these iterations (then at twice the last), on problems of at most
# EXACT_HULL_SIZE_CAP numbers: a game whose value is 0 otherwise runs all max_iter iterations, its upper end
# creeping to 0 (issue 30: 86 s CPU on 7 x 3 rows).
ZERO_PROOF_FIRST = 10


def _zero_prover(rows, domain: DualDomain):
    """``prove(game) -> p or None``: the exact point of the domain with A^T p = 0 on the game's exact rows
    (:func:`gamedyn.certify.soft_margin.reduced_hull_proof` on the domain's :meth:`DualDomain.exact_form`), or
    None when the rows declare no exact form or are too many for the rational check."""
    from gamedyn.certify.soft_margin import EXACT_HULL_SIZE_CAP, reduced_hull_proof

    exact = getattr(rows, "exact_rows", None)
    n, dim = rows.shape
    if not callable(exact) or n * (dim + 2) > EXACT_HULL_SIZE_CAP:
        return None

    def prove(game: int):
        A = exact(game)
        form = None if A is None else domain.exact_form(A, game)
        return None if form is None else reduced_hull_proof(*form)

    return prove


# The products' rounding (Higham, Thm 3.1): an entry of A w or A^T p (at most N + d' terms, float32 X summed
# over row blocks, a sign, a scale and a constant feature each one rounding more) is within gamma_k times
# the sum of its terms' magnitudes of the exact one, k = PRODUCT_TERMS(N, d').
def _product_terms(n: int, dim: int) -> int:
    return 2 * (n + dim) + 16


def _certified_lower(cvar: np.ndarray, norms: np.ndarray, bound: float, n: int, dim: int) -> np.ndarray:
    """``CVaR_c(A w) / ||w||`` rounded down so that it survives the rounding of the computed margins (each
    within ``gamma_k B ||w||`` of the exact one, B the rows' norm bound; CVaR is 1-Lipschitz in the max
    norm and its own sum of N terms adds ``gamma_N B ||w||``) and of the norm: a lower bound on
    gamma* for the rows' exact values (-inf for w = 0)."""
    slack = (rounding_factor(_product_terms(n, dim)) + rounding_factor(n + 2)) * bound * norms
    exact_low = cvar - slack - np.abs(cvar) * (4 * UNIT64)  # the subtraction's rounding, a few units
    relative = (dim + 8) * UNIT64
    with np.errstate(divide="ignore", invalid="ignore"):
        lower = np.where(exact_low >= 0, exact_low / (norms * (1 + relative)), exact_low / (norms * (1 - relative)))
        lower = np.nextafter(lower, -np.inf)
    return np.where(norms > 0, lower, -np.inf)


def _certified_upper(upper: np.ndarray, P: np.ndarray, bound: float, dim: int, drift: np.ndarray) -> np.ndarray:
    """``||A^T p||`` rounded up so that it bounds gamma* for the rows' exact values: the computed norm, its own
    rounding, the products' (``gamma_k B``, as ``sum p = 1``) and the distance of ``p`` from Delta_c (``|sum p -
    1| B``: p is in [0, c] and its sum is 1 up to rounding; ``drift``, the domain's :meth:`DualDomain.drift`)."""
    n = P.shape[0]
    drift = drift + UNIT64
    slack = (rounding_factor(_product_terms(n, dim)) * (1.0 + drift) + drift) * bound
    return np.nextafter((upper * (1 + (dim + 8) * UNIT64) + slack) * (1 + 4 * UNIT64), np.inf)


def _solve(rows, domain: DualDomain, tol: float, max_iter: int, memory: int, start, start_p, zero_below: float,
           shrinking: bool, bound: float, prove) -> DualSolution:
    """:func:`soft_margin_lbfgs` on rows of norms at most ``bound`` (about 1; checked and scaled by the caller)."""
    n, dim = rows.shape
    K = rows.games
    centre = domain.centre()
    W = np.zeros((dim, K)) if start is None else np.array(start, dtype=np.float64).reshape(dim, K)
    proved = np.zeros(K, dtype=bool)
    products = 0
    tau: list[np.ndarray | None] = [None]

    def evaluate(W, mu, columns, M=None):
        """(value, M, P) at W for the given columns; ``M = A W`` is one product unless given."""
        nonlocal products
        if M is None:
            M = rows_k(columns).times(W)
            products += 1
        u = centre if np.ndim(centre) == 0 or len(columns) == K else np.asarray(centre)[:, columns]
        P, t = domain.project(u - M / mu[columns], None if tau[0] is None else tau[0][..., columns], columns)
        if tau[0] is not None:
            tau[0][..., columns] = t
        D = P - u
        value = (0.5 * np.einsum("ij,ij->j", W, W) - np.einsum("ij,ij->j", P, M)
                 - 0.5 * mu[columns] * np.einsum("ij,ij->j", D, D))
        return value, M, P

    def rows_k(columns):
        return rows if columns is None else rows.restricted(columns)

    everything = np.arange(K)
    first = rows.first_hessian()
    products += rows.column is not None and rows.column != 0.0
    # Start: the first mu from the centre's upper end, or from a warm start's norm (||w|| ~ gamma).
    M0 = rows.times(W)
    products += 1
    start_norms = _column_norms(W)
    spread = domain.spread()
    mu = np.maximum(tol * start_norms * start_norms / spread, 1e-300)
    if not np.all(start_norms > 0):
        U0 = _column_norms(rows.transpose_times(np.broadcast_to(centre, (n, K)).copy()))
        products += 1
        mu = np.where(start_norms > 0, mu, np.maximum(tol * U0 * U0 / spread, 1e-300))
    tau[0] = domain.thresholds(K)
    value, M, P = evaluate(W, mu, everything, M0)
    best_lower = np.full(K, -np.inf)
    best_upper = np.full(K, np.inf)
    best_W, best_P, best_M = W.copy(), P.copy(), M.copy()
    if start_p is not None:  # the previous p's upper end is the first best one (checked by the caller)
        best_P, _ = domain.project(start_p)
        Z0 = rows.transpose_times(best_P)
        products += 1
        best_upper = _column_norms(Z0)
    done = np.zeros(K, dtype=bool)
    iterations = np.zeros(K, dtype=np.int64)
    S_hist: list[np.ndarray] = []
    Y_hist: list[np.ndarray] = []

    def gradient_and_settle(W, M, P, iteration):
        nonlocal products
        Z = rows.transpose_times(P)
        products += 1
        norms_w = _column_norms(W)
        upper = _column_norms(Z)
        with np.errstate(divide="ignore", invalid="ignore"):
            lower = np.where(norms_w > 0, domain.support(M) / norms_w, -np.inf)
        up = (upper < best_upper) & ~done
        best_upper[up], best_P[:, up] = upper[up], P[:, up]
        low = (lower > best_lower) & ~done
        best_lower[low], best_W[:, low], best_M[:, low] = lower[low], W[:, low], M[:, low]
        settle(iteration)
        return W - Z

    def settle(iteration):
        """Mark the games whose best ends meet the stop rule done (their lower ends again from a product)."""
        nonlocal products
        met = ~done & ((best_upper - best_lower <= tol * best_upper) | (best_upper <= zero_below))
        if np.any(met):  # the lower end of a game about to stop, again from a product (M carried as sums)
            ending = np.flatnonzero(met)
            norms = _column_norms(best_W[:, ending])
            best_lower[ending] = _certified_lower(domain.support(rows_k(ending).times(best_W[:, ending]), ending),
                                                  norms, bound, n, dim)  # (a bound that survives the rounding)
            products += 1
            upper = _certified_upper(best_upper[ending], best_P[:, ending], bound, dim,
                                     domain.drift(best_P[:, ending], ending))  # (as the final step)
            met[ending] = (upper - best_lower[ending] <= tol * upper) | (upper <= zero_below)
        iterations[~done] = iteration
        done[met] = True

    def shrink():
        """A shrinking round (:func:`shrinking_round`) for the open games whose window holds at most half the rows."""
        nonlocal products
        open_games = np.flatnonzero(~done)
        from_bottom = ~(best_lower[open_games] > 0)
        base = np.where(from_bottom, SHRINK_FROM_BOTTOM, SHRINK_NEAR) * n
        reach = np.maximum(base, SHRINK_DIMENSIONS * dim) * 2.0 ** failures[open_games]
        cap = float(domain.cap)  # type: ignore[arg-type]  # (a shrinkable domain has its cap)
        width = np.where(from_bottom, _rows_at_cap(cap, n), np.minimum(reach, _rows_at_cap(cap, n))) + reach
        small = width <= n / 2
        games, from_bottom, reach = open_games[small], from_bottom[small], reach[small]
        if games.size == 0:
            return
        P_s, W_s, _ = shrinking_round(rows, cap, games, best_M[:, games], reach, from_bottom, tol, zero_below)
        Z = rows_k(games).transpose_times(P_s)
        M_s = rows_k(games).times(W_s)
        products += 3
        upper = _column_norms(Z)
        norms = _column_norms(W_s)
        with np.errstate(divide="ignore", invalid="ignore"):
            lower = np.where(norms > 0, domain.support(M_s, games) / norms, -np.inf)
        up = upper < best_upper[games]
        best_upper[games[up]], best_P[:, games[up]] = upper[up], P_s[:, up]
        low = lower > best_lower[games]
        best_lower[games[low]], best_W[:, games[low]], best_M[:, games[low]] = lower[low], W_s[:, low], M_s[:, low]
        settle(iteration)
        failures[games[~done[games]]] += 1

    def prove_zero(iteration):
        """The open games with no positive lower end whose value is proved 0 (an exact point of Delta_c with
        A^T p = 0): done, with the exact bracket [0, 0] (gamma* >= 0 always)."""
        for game in np.flatnonzero(~done & ~(best_lower > 0)):
            proof = prove(int(game))
            if proof is not None:
                best_lower[game] = best_upper[game] = 0.0
                best_P[:, game] = proof  # (w keeps the best direction met: the estimator's classifier)
                proved[game] = done[game] = True
                iterations[game] = iteration

    failures = np.zeros(K, dtype=np.int64)
    shrink_at = SHRINK_FIRST if shrinking and domain.shrinkable and n >= SHRINK_MIN_ROWS else max_iter + 1
    zero_at = ZERO_PROOF_FIRST if prove is not None else max_iter + 1
    G = gradient_and_settle(W, M, P, 0)
    iteration = 0
    while not np.all(done) and iteration < max_iter:
        iteration += 1
        # mu follows the best upper end (tol / 2 at the minimiser); a new mu is a new function.
        target = np.maximum(tol * best_upper * best_upper / spread, 1e-300)
        changed = (mu > 2 * target) & ~done
        if np.any(changed):
            ratio = np.where(changed, mu / np.where(changed, target, mu), 1.0)
            mu = np.where(changed, target, mu)
            # A new function for those games, with the Hessian I + A^T D A / mu on each piece (D its free
            # rows): their pairs y = s + A^T D A s / mu_old are carried over as s + (y - s) mu_old / mu_new.
            for S, Yv in zip(S_hist, Y_hist):
                Yv[:, changed] = S[:, changed] + (Yv[:, changed] - S[:, changed]) * ratio[changed]
            value, M, P = evaluate(W, mu, everything, M)
            G = gradient_and_settle(W, M, P, iteration)
            if np.all(done):
                break
        # Two-loop recursion, every column at once.
        Q = -G
        alphas = []
        for S, Yv in reversed(list(zip(S_hist, Y_hist))):
            curvature = np.einsum("ij,ij->j", Yv, S)  # 0 for a forgotten pair: it then contributes nothing
            rho = np.divide(1.0, curvature, out=np.zeros(K), where=curvature > 0)
            a = rho * np.einsum("ij,ij->j", S, Q)
            Q -= a * Yv
            alphas.append((rho, a))
        Q *= first  # the diagonal first Hessian H_0 = gamma diag(first) (Gilbert & Lemarechal 1989)
        if S_hist:
            S, Yv = S_hist[-1], Y_hist[-1]
            yy = np.einsum("ij,ij->j", Yv, first * Yv)
            Q *= np.divide(np.einsum("ij,ij->j", S, Yv), yy, out=np.ones(K), where=yy > 0)
        for (S, Yv), (rho, a) in zip(zip(S_hist, Y_hist), reversed(alphas)):
            b = rho * np.einsum("ij,ij->j", Yv, Q)
            Q += (a - b) * S
        slope = np.einsum("ij,ij->j", G, Q)
        bad = ~(slope < 0)
        if np.any(bad):  # not a descent direction (rounding): steepest descent for those columns
            Q[:, bad] = -first * G[:, bad]
            slope[bad] = np.einsum("ij,ij->j", G[:, bad], Q[:, bad])
        step = np.ones(K)
        W_new, M_new, P_new, value_new = W.copy(), M.copy(), P.copy(), value.copy()
        searching = np.flatnonzero(~done)
        # A (W + t Q) = A W + t A Q: one product for the whole line search (the trial points cost a
        # projection each; the drift of the sums from the products is settled at the end).
        AQ = np.zeros((M.shape[0], K))
        with np.errstate(over="ignore", invalid="ignore"):  # (a direction blown up by rounding: its trials fail)
            AQ[:, searching] = rows_k(searching).times(Q[:, searching])
        products += 1
        # A direction whose product is not finite (curvature pairs of rounding size, mu at its floor) moves
        # nothing: its game keeps its point this iteration (the Armijo test of a NaN value would fail anyway).
        searching = searching[np.all(np.isfinite(AQ[:, searching]), axis=0)]
        for _ in range(40):
            if searching.size == 0:
                break
            trial = W[:, searching] + step[searching] * Q[:, searching]
            with np.errstate(over="ignore", invalid="ignore"):
                v, Mt, Pt = evaluate(trial, mu, searching, M[:, searching] + step[searching] * AQ[:, searching])
            ok = v <= value[searching] + 1e-4 * step[searching] * slope[searching]
            accepted = searching[ok]
            W_new[:, accepted], M_new[:, accepted], P_new[:, accepted] = trial[:, ok], Mt[:, ok], Pt[:, ok]
            value_new[accepted] = v[ok]
            searching = searching[~ok]
            if searching.size == 0:
                break
            step[searching] *= 0.5
        G_new = gradient_and_settle(W_new, M_new, P_new, iteration)
        S, Yv = W_new - W, G_new - G
        flat = ~(np.einsum("ij,ij->j", S, Yv) > 0)  # (phi is 1-strongly convex: only rounding or a finished game)
        S[:, flat], Yv[:, flat] = 0.0, 0.0
        if np.any(~flat):
            S_hist.append(S)
            Y_hist.append(Yv)
            if len(S_hist) > memory:
                S_hist.pop(0), Y_hist.pop(0)
        W, M, P, value, G = W_new, M_new, P_new, value_new, G_new
        if iteration == shrink_at and not np.all(done):
            shrink_at *= 2
            shrink()
        if iteration == zero_at and not np.all(done):
            zero_at *= 2
            prove_zero(iteration)
    if not np.all(done):  # the games stopped by max_iter: their lower ends again from a product, as at a stop
        open_games = np.flatnonzero(~done)
        norms = _column_norms(best_W[:, open_games])
        best_lower[open_games] = _certified_lower(domain.support(rows_k(open_games).times(best_W[:, open_games]),
                                                                 open_games), norms, bound, n, dim)
        products += 1
    # The certified rounding step of the upper ends (the lower ends had theirs from the last product): both
    # now bound gamma* for the rows' exact values, so lower <= upper whatever the rounding. A proved zero
    # keeps its exact 0.
    measured = ~proved
    best_upper[measured] = _certified_upper(best_upper[measured], best_P[:, measured], bound, dim,
                                            domain.drift(best_P[:, measured], np.flatnonzero(measured)))
    return DualSolution(w=best_W, p=best_P, lower=best_lower, upper=best_upper, iterations=iterations,
                        products=products)

