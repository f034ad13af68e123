r"""Matrix-game dynamics in their textbook form, written without the runner or the learners.

The row player maximises :math:`x^\top My`, the column player minimises it. Each function is the
plain numpy loop of the published algorithm; the recipes in :mod:`gamedyn.recipes` are proven equal
to them (``tests/test_matrix_games.py``). Every function returns a :class:`MatrixGamePath`: the
averaged strategies and the last plays (and every play with ``trajectory=True``).

* :func:`hedge` -- simultaneous exponential weights (Freund & Schapire 1999):
  :math:`x_t\propto x_0\odot e^{\eta_x\sum_{s<t}My_s}`, :math:`y_t\propto y_0\odot e^{-\eta_y\sum_{s<t}M^\top x_s}`.
* :func:`optimistic_hedge` -- the same with the last payoff vector counted twice
  (Syrgkanis et al. 2015; Rakhlin & Sridharan 2013):
  :math:`x_t\propto x_0\odot e^{\eta(\sum_{s<t}My_s+My_{t-1})}`, with :math:`y_0` the column player's start.
* :func:`fictitious_play` -- simultaneous fictitious play with prior beliefs (Brown 1951):
  :math:`x_t=e_{i_t}`, :math:`i_t=\arg\max_i(M(y_0+\sum_{s<t}y_s))_i` (smallest index on ties), and
  :math:`y_t=e_{j_t}`, :math:`j_t=\arg\min_j((x_0+\sum_{s<t}x_s)^\top M)_j`.
"""

from __future__ import annotations

import attrs
import numpy as np

__all__ = [
    "MatrixGamePath", "fictitious_play", "hedge", "optimistic_hedge",
]


@attrs.frozen
class MatrixGamePath:
    """Averaged strategies, last plays and (on request) every play of a matrix-game dynamic."""

    row_average: np.ndarray
    column_average: np.ndarray
    row_last: np.ndarray
    column_last: np.ndarray
    rows: np.ndarray | None = None
    columns: np.ndarray | None = None


def _uniform(size: int) -> np.ndarray:
    return np.full(size, 1.0 / size)


def _exponential_weights(start, exponent):
    """start * exp(exponent), normalised, computed as a shifted softmax of log start + exponent."""
    with np.errstate(divide="ignore"):
        logits = np.log(start) + exponent
    weights = np.exp(logits - np.max(logits))
    return weights / weights.sum()


def _finish(rows, columns, trajectory):
    rows, columns = np.array(rows), np.array(columns)
    return MatrixGamePath(rows.mean(axis=0), columns.mean(axis=0), rows[-1], columns[-1],
                          rows if trajectory else None, columns if trajectory else None)


def hedge(M, T, eta_row, eta_column, row_start=None, column_start=None, *, trajectory=False) -> MatrixGamePath:
    """T rounds of simultaneous Hedge; cumulative payoff vectors, shifted softmax."""
    M = np.asarray(M, dtype=np.float64)
    m, n = M.shape
    x0 = _uniform(m) if row_start is None else np.asarray(row_start, dtype=np.float64)
    y0 = _uniform(n) if column_start is None else np.asarray(column_start, dtype=np.float64)
    row_payoff, column_payoff = np.zeros(m), np.zeros(n)  # sum_s M y_s and sum_s M^T x_s
    rows, columns = [], []
    for _ in range(T):
        x = _exponential_weights(x0, eta_row * row_payoff)
        y = _exponential_weights(y0, -eta_column * column_payoff)
        row_payoff = row_payoff + M @ y
        column_payoff = column_payoff + M.T @ x
        rows.append(x)
        columns.append(y)
    return _finish(rows, columns, trajectory)


def optimistic_hedge(M, T, eta_row, eta_column, row_start=None, column_start=None, *, trajectory=False) -> MatrixGamePath:
    """T rounds of simultaneous optimistic Hedge; the first round's prediction is the payoff at the opponent's start."""
    M = np.asarray(M, dtype=np.float64)
    m, n = M.shape
    x0 = _uniform(m) if row_start is None else np.asarray(row_start, dtype=np.float64)
    y0 = _uniform(n) if column_start is None else np.asarray(column_start, dtype=np.float64)
    row_payoff, column_payoff = np.zeros(m), np.zeros(n)
    row_last, column_last = M @ y0, M.T @ x0  # the predictions of round 1
    rows, columns = [], []
    for _ in range(T):
        x = _exponential_weights(x0, eta_row * (row_payoff + row_last))
        y = _exponential_weights(y0, -eta_column * (column_payoff + column_last))
        row_last, column_last = M @ y, M.T @ x
        row_payoff = row_payoff + row_last
        column_payoff = column_payoff + column_last
        rows.append(x)
        columns.append(y)
    return _finish(rows, columns, trajectory)


def fictitious_play(M, T, row_start=None, column_start=None, *, trajectory=False) -> MatrixGamePath:
    """T rounds of simultaneous fictitious play; each start counts as one observed play of that player."""
    M = np.asarray(M, dtype=np.float64)
    m, n = M.shape
    x0 = _uniform(m) if row_start is None else np.asarray(row_start, dtype=np.float64)
    y0 = _uniform(n) if column_start is None else np.asarray(column_start, dtype=np.float64)
    row_payoff, column_payoff = np.zeros(m), np.zeros(n)  # sum_{s<t} M y_s and sum_{s<t} M^T x_s
    rows, columns = [], []
    for _ in range(T):
        x, y = np.zeros(m), np.zeros(n)
        x[np.argmax(row_payoff + M @ y0)] = 1.0
        y[np.argmin(column_payoff + M.T @ x0)] = 1.0
        row_payoff = row_payoff + M @ y
        column_payoff = column_payoff + M.T @ x
        rows.append(x)
        columns.append(y)
    return _finish(rows, columns, trajectory)
