"""Input checks shared by every public entry point.

Each check raises ``ValueError`` or ``TypeError`` whose message names the argument, the bad value
and the fix, in the manner of scikit-learn's ``check_array``.
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp

from gamedyn.core.kernels import backend_of, is_foreign, to_host_scalar


def describe(value) -> str:
    """A short repr of a bad argument for an error message (at most 60 characters)."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def real_array(value, name: str, what: str = "its entries") -> np.ndarray:
    """``value`` as a numpy array of real numbers, converting nothing that is not a number: the one check of
    the numbers every public entry point reads (matrices, vectors, payoffs, strategies).

    int, unsigned and float dtypes pass as they are (float32 stays float32); an object array (or nested
    lists) of Python numbers becomes float64. Refused, naming ``name``: strings and bytes, digit strings
    included (``"1"`` is text, never read as the number 1), booleans, complex numbers (a cast would drop
    the imaginary part), other objects (``TypeError``); ragged nested lists, whose rows have different
    lengths (``ValueError``, not numpy's own message).

    Parameters
    ----------
    value : array_like
    name : str
        The argument's name, for the message.
    what : str, default "its entries"
        What the entries are (``"payoffs"``, ``"probabilities"``), for the message.

    Returns
    -------
    ndarray

    Examples
    --------
    >>> real_array([[1, 2], [3, 4]], "M").dtype.kind
    'i'
    >>> real_array([["1", "2"]], "M")
    Traceback (most recent call last):
    ...
    TypeError: M holds strings ('1', ...); its entries must be numbers, not text: convert them yourself (float(...)), so that no text is read as a number by accident.
    """
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name} is a string ({describe(value)}); {what} must be numbers, not text.")
    try:
        array = np.asarray(value)
    except ValueError as error:  # numpy: "setting an array element with a sequence ... inhomogeneous shape"
        raise ValueError(f"{name} is ragged: its rows (or entries) have different lengths, so it is no array "
                         f"({' '.join(str(error).split()[-8:])}); pass a rectangular array, every row of the same "
                         f"length.") from None
    except TypeError as error:
        raise TypeError(f"{name} must be an array of {what}, got {type(value).__name__} ({error}).") from None
    kind = array.dtype.kind
    if kind in "fiu":
        return array
    if kind == "c":
        raise TypeError(f"{name} is complex; {what} are real numbers. Pass {name}.real if the imaginary part is "
                        f"meant to be zero (numpy would otherwise drop it silently).")
    if kind in "US" or (kind == "O" and any(isinstance(item, (str, bytes)) for item in array.ravel().tolist())):
        first = next((item for item in array.ravel().tolist() if isinstance(item, (str, bytes))), None)
        raise TypeError(f"{name} holds strings ({first!r}, ...); {what} must be numbers, not text: convert them "
                        f"yourself (float(...)), so that no text is read as a number by accident.")
    if kind == "b":
        raise TypeError(f"{name} is boolean; {what} are numbers: pass {name}.astype(float) (or int) for 0/1.")
    if kind == "O" and all(isinstance(item, numbers.Real) and not isinstance(item, (bool, np.bool_))
                           for item in array.ravel().tolist()):
        return array.astype(np.float64)  # Python numbers in an object array (Fraction, Decimal ... to float64)
    raise TypeError(f"{name} must hold real numbers ({what}), got dtype {array.dtype}"
                    f"{' with non-numbers such as ' + describe(array.ravel()[0]) if kind == 'O' and array.size else ''}.")


_OPERATOR_NEEDS_ROWS = (
    "{name} is matrix-free (a scipy.sparse.linalg.LinearOperator or a batch of games), but this function reads A's rows "
    "or entries; pass a numpy array or a scipy.sparse matrix (the recipes and gamedyn.play, which "
    "need only the products A @ w and A.T @ p, accept the operator)."
)


def is_operator(A) -> bool:
    """Whether A is matrix-free: a ``scipy.sparse.linalg.LinearOperator`` or a batch of games."""
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


def _check_device_operator(A, name: str, backend):
    """:func:`_check_operator` for an operand that computes on a device backend: dtype and one probe product there."""
    if A.dtype not in (backend.float32, backend.float64):
        raise TypeError(f"{name} computes in dtype {A.dtype}; gamedyn needs float32 or float64 products.")
    n, d = A.shape
    xp = backend.xp
    probe = A @ xp.ones((d,), dtype=A.dtype, device=backend.device)
    if probe.shape[0] != n:
        raise ValueError(f"{name}: the probe A @ ones(d) has shape {tuple(probe.shape)}, expected ({n}, ...).")
    if not to_host_scalar(xp.all(xp.isfinite(probe))):
        raise ValueError(f"{name}: the probe product A @ ones(d) is not finite; {name} contains NaN or infinite entries.")
    return A


def _check_operator(A, name: str):
    """Shape, dtype, that both products exist, and one probe product, instead of reading every entry."""
    shape = getattr(A, "shape", None)
    if shape is None or len(shape) != 2 or shape[0] == 0 or shape[1] == 0:
        raise ValueError(f"{name} must have a 2-D shape (n, d) with n, d >= 1, got {shape}.")
    backend = backend_of(A)
    if not backend.is_numpy:  # an operand declaring a device backend (a batch of a torch X): probed there
        return _check_device_operator(A, name, backend)
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
    :class:`gamedyn.arrays.distributed.RowBlockedOperator`).
    """
    if is_operator(A):
        if not allow_operator:
            raise TypeError(_OPERATOR_NEEDS_ROWS.format(name=name))
        return _check_operator(A, name)
    if type(A).__module__.startswith("dask.array"):  # never pulled into memory silently
        raise TypeError(
            f"{name} is a dask array, and this function needs all of its entries in memory; pass "
            f"{name}.compute() if it fits, or use it through a payoff (Bilinear / RegularizedBilinear, or "
            f"gamedyn.arrays.distributed.RowBlockedOperator.from_dask_array({name})), which keeps the blocks on the workers."
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
    if is_foreign(A):
        return _check_foreign_matrix(A, name, dtype)
    try:
        array = real_array(A, name)
    except TypeError as error:
        raise TypeError(f"{name} must be a real numeric 2-D array: {error}") from None
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


def _check_foreign_matrix(A, name: str, dtype=None):
    """A torch, JAX, CuPy or array-API matrix validated through its own namespace, never converted to numpy.

    The same rules as numpy input (2-D, real, at least one row and column, finite; float32 stays float32,
    other real dtypes become float64), on A's device (CUDA included). A tensor that requires grad is
    refused with the fix (gamedyn's rounds are not differentiable: ``.detach()`` it)."""
    if getattr(A, "requires_grad", False):
        raise TypeError(f"{name} is a torch tensor that requires grad; gamedyn's rounds are not differentiated: "
                        f"pass {name}.detach().")
    backend = backend_of(A)
    xp = backend.xp
    kind = A.dtype
    if kind == xp.bool or xp.isdtype(kind, "complex floating") or not xp.isdtype(kind, "numeric"):
        raise TypeError(f"{name} must be a real numeric 2-D array, got dtype {kind}.")
    if A.ndim != 2:
        raise ValueError(
            f"{name} must be 2-D (rows = examples y_i x_i), got shape {tuple(A.shape)}; "
            f"reshape it, e.g. {name}.reshape(1, -1) for a single row."
        )
    if A.shape[0] == 0 or A.shape[1] == 0:
        raise ValueError(f"{name} has shape {tuple(A.shape)}; it needs at least one row and one column.")
    if dtype is None:
        target = backend.float32 if kind == backend.float32 else backend.float64
    else:
        target = backend.float32 if np.dtype(dtype) == np.float32 else backend.float64
    if kind != target:
        A = xp.astype(A, target)
    if not (to_host_scalar(xp.all(xp.isfinite(A)))):  # one host synchronisation, before any round
        raise ValueError(f"{name} contains NaN or infinite entries; remove or impute them first.")
    return A


def check_vector(z, name: str, *, size: int | None = None, dtype=np.float64):
    """Return ``z`` as a finite 1-D float array, optionally of a given length (a foreign array stays in its
    namespace and on its device, as float64)."""
    if is_foreign(z):
        return _check_foreign_vector(z, name, size)
    try:
        vector = real_array(z, name).astype(dtype, copy=False)
    except TypeError as error:
        raise TypeError(f"{name} must be a 1-D numeric array: {error}") from None
    if vector.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {vector.shape}; flatten it with np.ravel({name}).")
    if size is not None and vector.shape[0] != size:
        raise ValueError(f"{name} has length {vector.shape[0]} but {size} is needed here; pass a vector of length {size}.")
    if not np.all(np.isfinite(vector)):
        raise ValueError(f"{name} contains NaN or infinite entries; pass finite values.")
    return vector


def _check_foreign_vector(z, name: str, size):
    backend = backend_of(z)
    xp = backend.xp
    if xp.isdtype(z.dtype, "complex floating") or not xp.isdtype(z.dtype, "numeric") or z.dtype == xp.bool:
        raise TypeError(f"{name} must be a 1-D numeric array, got dtype {z.dtype}.")
    if z.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {tuple(z.shape)}; flatten it with np.ravel({name}).")
    if size is not None and z.shape[0] != size:
        raise ValueError(f"{name} has length {z.shape[0]} but {size} is needed here; pass a vector of length {size}.")
    z = backend.asarray(getattr(z, "detach", lambda: z)())
    if not to_host_scalar(xp.all(xp.isfinite(z))):
        raise ValueError(f"{name} contains NaN or infinite entries; pass finite values.")
    return z


def check_positive(value, name: str, *, allow_zero: bool = False) -> float:
    """Return ``value`` as a float after checking it is a finite positive real number."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a positive real number, got {describe(value)}.")
    value = float(value)
    if not np.isfinite(value) or value < 0 or (value == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be finite and {bound}, got {value!r}; pass e.g. {name}=1.0.")
    return value


def check_count(value, name: str, *, minimum: int = 1) -> int:
    """Return ``value`` as an int after checking it is an integer >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer >= {minimum}, got {describe(value)}.")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}; pass e.g. {name}={max(minimum, 100)}.")
    return int(value)


def check_q(q) -> float:
    """Check the dual exponent q of the p-norm link function: q in (1, 2]."""
    if isinstance(q, bool) or not isinstance(q, numbers.Real):
        raise TypeError(f"q must be a real number in (1, 2], got {describe(q)}.")
    q = float(q)
    if not (1.0 < q <= 2.0):
        raise ValueError(f"q must lie in (1, 2] (q = p/(p-1) for p >= 2), got {q!r}; for p = 4 pass q = 4/3.")
    return q


def check_labels(y, n: int, name: str = "y"):
    """Labels in {-1, +1} of length ``n``, as float64 (numbers: through :func:`real_array`)."""
    labels = real_array(y, name, "labels")
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


def signs_from_labels(labels, source: str) -> np.ndarray:
    """Labels in {-1, +1} unchanged, labels in {0, 1} with 0 -> -1; anything else is an error."""
    try:
        labels = np.asarray(labels, dtype=np.float64).ravel()
    except (TypeError, ValueError) as error:
        raise ValueError(f"{source}: labels must be numbers in {{-1, +1}} or {{0, 1}} ({' '.join(str(error).split())}); "
                         "relabel the two classes as -1/+1 (or 0/1).") from None
    values = np.unique(labels)
    if np.all(np.isin(values, (-1.0, 1.0))):
        return labels
    if np.all(np.isin(values, (0.0, 1.0))):
        return np.where(labels == 0.0, -1.0, 1.0)
    shown = ", ".join(f"{value:g}" for value in values[:6]) + (", ..." if values.size > 6 else "")
    raise ValueError(
        f"{source}: labels must be in {{-1, +1}} or {{0, 1}}, found {{{shown}}}; "
        "relabel the two classes as -1/+1 (or 0/1) in the label column."
    )
