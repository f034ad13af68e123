"""Operands: what a payoff's matrix A may be (dense, sparse, a LinearOperator, a batch, a dask array).

Helpers that treat every kind of A alike, never copying or densifying it: :func:`is_dask_array`
(detected without importing dask), :func:`matvec` (A v in A's dtype), :func:`dense_rows` (selected rows as
dense float64, by products for a matrix-free A), :func:`largest_row_norm` (the largest row norm,
overflow-safe) and :func:`unit_of` (the unit roundoff of A's products); :func:`check_unit_rows`, the rows' norm
check every margin recipe makes (the theorems assume ||x_i|| <= 1).
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from gamedyn.core.numerics import UNIT32, UNIT64
from gamedyn.core.kernels import backend_of, is_foreign, to_host_scalar
from gamedyn.core.validation import check_matrix, describe, is_operator

__all__ = ["check_unit_rows", "dense_rows", "is_dask_array", "largest_row_norm", "matvec", "row_norms", "unit_of"]


def is_dask_array(value) -> bool:
    """True for a ``dask.array.Array`` (checked without importing dask)."""
    return type(value).__module__.startswith("dask.array") and hasattr(value, "chunks") and hasattr(value, "dask")


def unit_of(A) -> float:
    """The unit roundoff of A's products: float32 data are multiplied in float32."""
    return UNIT32 if getattr(A, "dtype", None) == np.float32 else UNIT64


def matvec(M, v) -> np.ndarray:
    """``M @ v`` as a float64 vector, without upcasting a float32 ``M`` (which would copy it)."""
    if getattr(M, "dtype", None) == np.float32:
        v = np.asarray(v, dtype=np.float32)
    return np.asarray(M @ v, dtype=np.float64).ravel()


def dense_rows(A, chosen) -> np.ndarray:
    """The rows ``chosen`` of A as a dense float64 array (exact: float32 widens exactly); for a
    matrix-free A (a LinearOperator, e.g. :class:`gamedyn.arrays.distributed.RowBlockedOperator`) by
    products with unit vectors, 64 rows per pass."""
    if isinstance(A, np.ndarray) or sp.issparse(A):
        rows = A[chosen]
        return rows.toarray().astype(np.float64) if sp.issparse(rows) else np.asarray(rows, dtype=np.float64)
    n = A.shape[0]
    pieces = []
    for start in range(0, len(chosen), 64):
        part = chosen[start:start + 64]
        units = np.zeros((n, len(part)))
        units[part, np.arange(len(part))] = 1.0
        pieces.append(np.asarray(A.T @ units, dtype=np.float64).T)
    return np.vstack(pieces) if pieces else np.zeros((0, A.shape[1]))


def largest_row_norm(A, order: float = 2.0) -> float:
    """max_i ||a_i||_order, overflow- and underflow-safe, in blocks (never a copy of A).

    Dense, sparse, a batch of games (the rows of its X: signs do not change a norm), or an operator's
    ``largest_row_norm()`` (an l2 value: for ``order >= 2`` an upper bound, since ||a||_order <= ||a||_2).
    """
    X = getattr(A, "X", None) if getattr(A, "batch_size", None) is not None else None
    if X is not None:
        A = X
    if not (isinstance(A, np.ndarray) or sp.issparse(A)):
        if hasattr(A, "largest_row_norm"):
            return float(A.largest_row_norm())
        raise TypeError("the largest row norm of a matrix-free A needs its largest_row_norm() method "
                        "(gamedyn.arrays.distributed.RowBlockedOperator has one).")
    if sp.issparse(A):
        A = sp.csr_matrix(A)
        top = float(np.max(np.abs(A.data))) if A.nnz else 0.0
        if top == 0.0:
            return 0.0
        unit = np.abs(A.data.astype(np.float64) / top)
        powers = unit * unit if order == 2.0 else unit ** order
        sums = np.add.reduceat(powers, A.indptr[:-1]) if powers.size else np.zeros(0)
        sums[np.diff(A.indptr) == 0] = 0.0  # reduceat repeats the next value at an empty row
        return top * float(np.max(sums) ** (1.0 / order))
    top = float(max(np.max(A), -np.min(A))) if A.size else 0.0
    if top == 0.0:
        return 0.0
    n, d = A.shape
    step = max(1, (1 << 14) // max(d, 1))  # blocks of 2^14 entries: 128 KiB of float64 at most
    plain = order == 2.0 and 1e-100 < top < 1e100  # squares in range: no division needed
    largest = 0.0
    for start in range(0, n, step):
        block = np.asarray(A[start:start + step], dtype=np.float64)
        if plain:
            largest = max(largest, float(np.max(np.einsum("ij,ij->i", block, block))))
        elif order == 2.0:
            block = block / top
            largest = max(largest, float(np.max(np.einsum("ij,ij->i", block, block))))
        else:
            largest = max(largest, float(np.max(np.sum(np.abs(block / top) ** order, axis=1))))
    if plain:
        return math.sqrt(largest)
    return top * largest ** (1.0 / order)


def _foreign_unit_rows(A, normalize: bool, norm: float, name: str):
    """:func:`check_unit_rows` for a torch, JAX, CuPy or array-API A, in its namespace on its device."""
    backend = backend_of(A)
    xp = backend.xp
    top = to_host_scalar(xp.max(xp.abs(A)))
    if top == 0.0:
        raise ValueError(f"every row of {name} is zero; no direction has a positive margin on zero rows.")
    unit = xp.astype(A, backend.float64) / top
    norms = xp.sqrt(xp.sum(unit * unit, axis=1)) if norm == 2 else xp.sum(xp.abs(unit) ** norm, axis=1) ** (1.0 / norm)
    largest = top * to_host_scalar(xp.max(norms))
    if normalize:
        return A / xp.asarray(largest, dtype=A.dtype, device=backend.device), largest
    eps = float(np.finfo(np.float32 if A.dtype == backend.float32 else np.float64).eps)
    if largest > 1.0 + (A.shape[1] + 16) * eps:
        row = int(to_host_scalar(xp.argmax(norms)))
        raise ValueError(
            f"{name} has rows with ||x_i||_{norm:g} > 1 (row {row} has norm {largest!r}); the theorems assume "
            f"every row has norm <= 1. Pass normalize=True to rescale the rows by max ||x_i|| (recorded as "
            f"result.row_scale), or divide {name} by {largest!r} yourself."
        )
    return A, 1.0


#: The fewest entries of a block of :func:`row_norms` (16 KiB in float64).
ROW_NORM_MIN_BLOCK = 1 << 11


def row_norms(A, norm: float, top: float) -> np.ndarray:
    """``||a_i|| / top`` for every row, in blocks of at most 2^16 entries and an eighth of A's rows where it has eight
    and the block keeps :data:`ROW_NORM_MIN_BLOCK` entries (O(n) extra memory, never a copy of A beyond 16 KiB)."""
    n, d = A.shape
    norms = np.empty(n)
    if sp.issparse(A) and A.format == "csr" and A.has_canonical_format:
        # Straight from the stored entries (no densified block): each row's sum of squares, sequential
        # in float64, over chunks of about 2^16 entries (a row of zeros has norm 0).
        indptr = A.indptr
        per_chunk = max(1, ((1 << 16) * n) // max(int(A.nnz), 1))
        for start in range(0, n, per_chunk):
            stop = min(n, start + per_chunk)
            first, last = int(indptr[start]), int(indptr[stop])
            values = A.data[first:last].astype(np.float64) / top
            if norm == 2:
                values *= values
            else:
                values = np.abs(values) ** norm
            owner = np.repeat(np.arange(stop - start), np.diff(indptr[start:stop + 1]))
            sums = np.bincount(owner, weights=values, minlength=stop - start)
            norms[start:stop] = np.sqrt(sums) if norm == 2 else sums ** (1.0 / norm)
        return norms
    # a block at most an eighth of A (as far as it can) and at least ROW_NORM_MIN_BLOCK entries (the per-block calls
    # dominate below: iris in 9 blocks cost 0.12 ms, a tenth of the whole fit)
    step = max(1, min(1 << 16, max(d, (n * d) // 8, ROW_NORM_MIN_BLOCK)) // d)
    for start in range(0, n, step):
        block = A[start:start + step]
        block = np.divide(block.toarray() if sp.issparse(block) else np.asarray(block), top, dtype=np.float64)
        if norm == 2:  # one fused pass (a float power costs ~10x more)
            norms[start:start + step] = np.sqrt(np.einsum("ij,ij->i", block, block))
        else:
            norms[start:start + step] = np.sum(np.abs(block) ** norm, axis=1) ** (1.0 / norm)
    return norms


def check_unit_rows(A, normalize: bool = False, *, norm: float = 2.0, name: str = "A"):
    """Return ``(A, row_scale)`` with every row of ``A`` of ``norm``-norm <= 1, as the theorems assume.

    Rows with ||x_i|| > 1 (beyond rounding) raise a ValueError naming ``normalize=True``; with
    ``normalize=True`` the rows are divided by ``row_scale = max_i ||x_i||`` (1.0 otherwise).
    Norms are computed on ``A / max|A|``, so no scale overflows.
    """
    if not isinstance(normalize, (bool, np.bool_)):
        raise TypeError(f"normalize must be True or False, got {describe(normalize)}.")
    if is_operator(A) or is_dask_array(A):
        # matrix-free (an operator or a batch of games), or a dask array, whose rows live on disk or on
        # workers: trusted to have ||x_i|| <= 1 like a LinearOperator, never pulled into memory here
        # (the payoff wraps a dask array in gamedyn.arrays.distributed.RowBlockedOperator)
        if normalize:
            raise TypeError(f"normalize=True reads the rows of {name}, but {name} is matrix-free; rescale the rows "
                            "before building the operator (the theorems assume ||x_i|| <= 1).")
        return A, 1.0
    A = check_matrix(A, name, sparse_formats=("csr", "csc"))  # a view, never a copy of A
    if is_foreign(A):
        return _foreign_unit_rows(A, normalize, norm, name)
    data = A.data if sp.issparse(A) else A
    top = float(max(np.max(data), -np.min(data))) if data.size else 0.0  # max|A| without a copy of A
    if top == 0.0:
        raise ValueError(f"every row of {name} is zero; no direction has a positive margin on zero rows.")
    norms = row_norms(A, norm, top)
    largest = top * float(np.max(norms))
    if normalize:
        return (A / largest).astype(A.dtype) if sp.issparse(A) else (A / np.asarray(largest, dtype=A.dtype)), largest
    # Rows scaled to norm 1 may compute a norm above 1 by rounding: a sum of d squares is exact to
    # (d + 2) eps relative (the standard bound; measured up to 83 eps at d = 2501), so allow (d + 16) eps.
    if largest > 1.0 + (A.shape[1] + 16) * np.finfo(A.dtype).eps:
        row = int(np.argmax(norms))
        raise ValueError(
            f"{name} has rows with ||x_i||_{norm:g} > 1 (row {row} has norm {largest!r}); the theorems assume "
            f"every row has norm <= 1. Pass normalize=True to rescale the rows by max ||x_i|| (recorded as "
            f"result.row_scale), or divide {name} by {largest!r} yourself."
        )
    return A, 1.0
