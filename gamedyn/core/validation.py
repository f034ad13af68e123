"""Input checks shared by every public entry point.

Each check raises ``ValueError`` or ``TypeError`` whose message names the argument, the bad value
and the fix, in the manner of scikit-learn's ``check_array``.
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp


def _describe(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


_OPERATOR_NEEDS_ROWS = (
    "{name} is matrix-free (a scipy.sparse.linalg.LinearOperator or a batch of games), but this function reads A's rows "
    "or entries; pass a numpy array or a scipy.sparse matrix (the recipes and gamedyn.play, which "
    "need only the products A @ w and A.T @ p, accept the operator)."
)


def _is_operator(A) -> bool:
    from scipy.sparse.linalg import LinearOperator

    return isinstance(A, LinearOperator) or getattr(A, "batch_size", None) is not None


def all_finite(array) -> bool:
    """True when a dense array has no NaN or infinite entry, with O(1) extra memory.

    ``min`` and ``max`` propagate NaN and are infinite exactly when an entry is, so two reductions
    replace ``np.isfinite(array).all()`` and its boolean copy of the whole array.
    """
    if array.size == 0:
        return True
    return bool(np.isfinite(array.min()) and np.isfinite(array.max()))


def _has_rmatvec(A) -> bool:
    """Whether a LinearOperator can compute A^T p, decided without a product (an extra pass)."""
    from scipy.sparse.linalg import LinearOperator

    if not isinstance(A, LinearOperator):
        return hasattr(A, "T")
    custom = getattr(A, "_CustomLinearOperator__rmatvec_impl", False)
    if custom is None:  # LinearOperator(shape, matvec=...) without rmatvec=
        return False
    kind = type(A)
    return not (kind._rmatvec is LinearOperator._rmatvec and kind._adjoint is LinearOperator._adjoint
                and kind._rmatmat is LinearOperator._rmatmat)


def _check_operator(A, name: str):
    """Shape, dtype, that both products exist, and one probe product, instead of reading every entry."""
    shape = getattr(A, "shape", None)
    if shape is None or len(shape) != 2 or shape[0] == 0 or shape[1] == 0:
        raise ValueError(f"{name} must have a 2-D shape (n, d) with n, d >= 1, got {shape}.")
    dtype = np.dtype(A.dtype) if getattr(A, "dtype", None) is not None else None
    if dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise TypeError(
            f"{name} is a linear operator of dtype {dtype}; gamedyn needs float32 or float64 "
            f"products: build it with dtype=np.float64 (or np.float32)."
        )
    if not _has_rmatvec(A):
        raise TypeError(f"{name} must implement both products, A @ w (matvec) and A.T @ p (rmatvec); "
                        f"give the LinearOperator an rmatvec=.")
    n, d = shape
    probe = np.asarray(A @ np.ones(d, dtype=dtype))
    if probe.shape[0] != n:
        raise ValueError(f"{name}: the probe A @ ones(d) has shape {probe.shape}, expected ({n}, ...); check its matvec.")
    if not all_finite(probe):
        raise ValueError(f"{name}: the probe product A @ ones(d) is not finite; {name} contains NaN or infinite entries.")
    return A


def check_matrix(A, name: str = "A", *, allow_sparse: bool = True, dtype=None, allow_operator: bool = False,
                 sparse_formats=("csr",)):
    """Return ``A`` as a finite 2-D float array (or a sparse matrix when sparse input is allowed).

    Float32 input stays float32 unless ``dtype`` is given; everything else becomes float64. Sparse
    input keeps its format when it is one of ``sparse_formats`` (else it becomes the first).
    Finiteness is checked with O(1) extra memory. A ``scipy.sparse.linalg.LinearOperator`` is
    accepted only with ``allow_operator=True`` (its shape, dtype and one probe product each way are
    checked; no entry is read); otherwise one clear error says the caller needs A's rows. A dask
    array is refused (callers that only need products wrap it in
    :class:`gamedyn.distributed.RowBlockedOperator`).
    """
    if _is_operator(A):
        if not allow_operator:
            raise TypeError(_OPERATOR_NEEDS_ROWS.format(name=name))
        return _check_operator(A, name)
    if type(A).__module__.startswith("dask.array"):  # never pulled into memory silently
        raise TypeError(
            f"{name} is a dask array, and this function needs all of its entries in memory; pass "
            f"{name}.compute() if it fits, or use it through a payoff (Bilinear / RegularizedBilinear, or "
            f"gamedyn.distributed.RowBlockedOperator.from_dask_array({name})), which keeps the blocks on the workers."
        )
    if sp.issparse(A):
        if not allow_sparse:
            raise TypeError(f"{name} is a scipy.sparse matrix; pass a dense array with {name}.toarray().")
        if tuple(sparse_formats) == ("csr",):
            A = sp.csr_matrix(A)  # shares the arrays of a CSR input
        elif A.format not in sparse_formats:
            A = A.asformat(sparse_formats[0])
        if A.dtype not in (np.float32, np.float64):
            A = A.astype(np.float64)
        if dtype is not None:
            A = A.astype(dtype, copy=False)
        if A.shape[0] == 0 or A.shape[1] == 0:
            raise ValueError(f"{name} has shape {A.shape}; it needs at least one row and one column.")
        if not all_finite(A.data):
            raise ValueError(f"{name} contains NaN or infinite entries; remove or impute them first.")
        return A
    try:
        array = np.asarray(A)
    except Exception as error:  # pragma: no cover - exotic inputs
        raise TypeError(f"{name} must be a 2-D numeric array, got {type(A).__name__}.") from error
    if array.dtype == object or not np.issubdtype(array.dtype, np.number) or np.iscomplexobj(array):
        raise TypeError(f"{name} must be a real numeric 2-D array, got dtype {array.dtype}.")
    if array.ndim != 2:
        raise ValueError(
            f"{name} must be 2-D (rows = examples y_i x_i), got shape {array.shape}; "
            f"reshape it, e.g. {name}.reshape(1, -1) for a single row."
        )
    if array.shape[0] == 0 or array.shape[1] == 0:
        raise ValueError(f"{name} has shape {array.shape}; it needs at least one row and one column.")
    if dtype is None:
        dtype = np.float32 if array.dtype == np.float32 else np.float64
    array = array.astype(dtype, copy=False)
    if not all_finite(array):
        raise ValueError(f"{name} contains NaN or infinite entries; remove or impute them first.")
    return array


def check_vector(z, name: str, *, size: int | None = None, dtype=np.float64):
    """Return ``z`` as a finite 1-D float array, optionally of a given length."""
    try:
        vector = np.asarray(z, dtype=dtype)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{name} must be a 1-D numeric array, got {_describe(z)}.") from error
    if vector.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {vector.shape}; flatten it with np.ravel({name}).")
    if size is not None and vector.shape[0] != size:
        raise ValueError(f"{name} has length {vector.shape[0]} but {size} is needed here; pass a vector of length {size}.")
    if not np.all(np.isfinite(vector)):
        raise ValueError(f"{name} contains NaN or infinite entries; pass finite values.")
    return vector


def check_positive(value, name: str, *, allow_zero: bool = False) -> float:
    """Return ``value`` as a float after checking it is a finite positive real number."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a positive real number, got {_describe(value)}.")
    value = float(value)
    if not np.isfinite(value) or value < 0 or (value == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be finite and {bound}, got {value!r}; pass e.g. {name}=1.0.")
    return value


def check_count(value, name: str, *, minimum: int = 1) -> int:
    """Return ``value`` as an int after checking it is an integer >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer >= {minimum}, got {_describe(value)}.")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}; pass e.g. {name}={max(minimum, 100)}.")
    return int(value)


def check_q(q) -> float:
    """Check the dual exponent q of the p-norm link function: q in (1, 2]."""
    if isinstance(q, bool) or not isinstance(q, numbers.Real):
        raise TypeError(f"q must be a real number in (1, 2], got {_describe(q)}.")
    q = float(q)
    if not (1.0 < q <= 2.0):
        raise ValueError(f"q must lie in (1, 2] (q = p/(p-1) for p >= 2), got {q!r}; for p = 4 pass q = 4/3.")
    return q


def check_labels(y, n: int, name: str = "y"):
    """Labels in {-1, +1} of length ``n``, as float64."""
    labels = np.asarray(y)
    if labels.ndim != 1 or labels.shape[0] != n:
        raise ValueError(f"{name} must be a 1-D array of {n} labels, got shape {labels.shape}.")
    bad = ~np.isin(labels, (-1, 1))
    if np.any(bad):
        found = np.unique(labels[bad])[:5]
        raise ValueError(
            f"{name} must contain only -1 and +1, found {found.tolist()}; "
            f"for 0/1 labels pass 2 * {name} - 1."
        )
    return labels.astype(np.float64)


def _row_norms(A, norm: float, top: float) -> np.ndarray:
    """``||a_i|| / top`` for every row, in blocks of about 2^16 entries (O(n) extra memory, never a copy of A)."""
    n, d = A.shape
    step = max(1, (1 << 16) // d)
    norms = np.empty(n)
    for start in range(0, n, step):
        block = A[start:start + step]
        block = (block.toarray() if sp.issparse(block) else np.asarray(block)).astype(np.float64) / top
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
        raise TypeError(f"normalize must be True or False, got {_describe(normalize)}.")
    if _is_operator(A) or type(A).__module__.startswith("dask.array"):
        # matrix-free (an operator or a batch of games), or a dask array, whose rows live on disk or on
        # workers: trusted to have ||x_i|| <= 1 like a LinearOperator, never pulled into memory here
        # (the payoff wraps a dask array in gamedyn.distributed.RowBlockedOperator)
        if normalize:
            raise TypeError(f"normalize=True reads the rows of {name}, but {name} is matrix-free; rescale the rows "
                            "before building the operator (the theorems assume ||x_i|| <= 1).")
        return A, 1.0
    A = check_matrix(A, name, sparse_formats=("csr", "csc"))  # a view, never a copy of A
    data = A.data if sp.issparse(A) else A
    top = float(max(np.max(data), -np.min(data))) if data.size else 0.0  # max|A| without a copy of A
    if top == 0.0:
        raise ValueError(f"every row of {name} is zero; no direction has a positive margin on zero rows.")
    norms = _row_norms(A, norm, top)
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

