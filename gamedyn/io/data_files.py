"""Data sets for ``gamedyn run``: a user's file (``--data FILE``) or synthetic data (``--synthetic``).

File formats, chosen by the extension:

=================================  ==================================================================
``.npz``                           arrays ``X`` (n x d) and ``y`` (n labels), or one array ``A`` whose
                                   rows are already the signed rows ``y_i x_i``
``.npy``                           one 2-D array: the signed rows ``A`` (``layout="A"``), or features
                                   with the label in the LAST column (``layout="Xy"``, ``gamedyn run
                                   --npy-layout Xy``). Without a layout a last column of only -1/+1
                                   (or 0/1) is refused: it reads as labels (``Xy``) or as the
                                   intercept column of signed rows ``y_i [x_i, 1]`` (``A``)
``.csv``                           comma-separated numbers, one example a line, label in the last
                                   column; a first line whose fields are ALL non-numeric is a header
                                   and skipped (a first line with some numeric fields is an error)
``.svm .svmlight .libsvm .txt``    svmlight / libsvm text, read by scikit-learn's
                                   ``load_svmlight_file`` (``pip install gamedyn[data]``); kept sparse
a folder                           ``.npy`` row chunks ``X_000.npy, X_001.npy, ...`` + ``y.npy``, or
                                   ``A_000.npy, ...`` (signed rows), read out of core in row slabs
                                   (``pip install gamedyn[dask]``, see :mod:`gamedyn.arrays.distributed`)
=================================  ==================================================================

Labels must lie in {-1, +1} or in {0, 1} (0 is read as -1); anything else is an error. The signed
rows are scaled so that the largest ``||a_i||_2`` is 1, the papers' assumption ``||x_i|| <= 1``;
the factor is kept in :attr:`DataSet.scaled_by` so the command line can say so. Synthetic data come
from :func:`gamedyn.io.datasets.make_separable` (already in the unit ball) and are not rescaled.
"""

from __future__ import annotations

import os

import attrs
import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg  # noqa: F401  (sp.linalg.norm)

from gamedyn.arrays.files import load_numpy, numpy_error
from gamedyn.core.validation import check_matrix, signs_from_labels

SVMLIGHT_EXTENSIONS = (".svm", ".svmlight", ".libsvm", ".txt")
NPY_LAYOUTS = ("A", "Xy")


@attrs.frozen(eq=False)
class DataSet:
    """Signed rows ``A`` (max row norm 1) and where they came from.

    ``A`` is a dense float64 array, a CSR matrix (svmlight files) or a
    :class:`gamedyn.arrays.distributed.RowBlockedOperator` (a folder of ``.npy`` chunks).
    """

    A: np.ndarray
    source: str  # e.g. "data.csv" or "make_separable(n=200, d=20, gamma=0.05, seed=0)"
    scaled_by: float | None = None  # rows were divided by this (their largest norm); None: not rescaled

    @property
    def n(self) -> int:
        """n, the number of rows."""
        return self.A.shape[0]

    @property
    def d(self) -> int:
        """d, the number of features."""
        return self.A.shape[1]

    def describe(self) -> str:
        """One line: source, shape and the scaling applied."""
        scaling = ("rows scaled by 1/max||x_i|| = 1/" + f"{self.scaled_by:.6g} so that max ||x_i|| = 1"
                   if self.scaled_by is not None else "rows not rescaled (already max ||x_i|| <= 1)")
        return f"{self.source}: n = {self.n} examples, d = {self.d} features; {scaling}"


# ------------------------------------------------------------------------------------ synthetic


def parse_synthetic_spec(text: str) -> tuple[int, int, float]:
    """``"n,d,gamma"`` -> ``(n, d, gamma)``, e.g. ``"200,20,0.05"``."""
    fix = "--synthetic expects n,d,gamma such as 200,20,0.05 (integers n, d >= 1 and 0 < gamma < 1)"
    parts = [part.strip() for part in str(text).split(",")]
    if len(parts) != 3:
        raise ValueError(f"{fix}; got {text!r}.")
    try:
        n, d, gamma = int(parts[0]), int(parts[1]), float(parts[2])
    except ValueError:
        raise ValueError(f"{fix}; got {text!r}.") from None
    if n < 1 or d < 1 or not 0.0 < gamma < 1.0:
        raise ValueError(f"{fix}; got {text!r}.")
    return n, d, gamma


_SYNTHETIC_COPIES = 10  # make_separable draws batches of 4n points (two arrays), then the signed rows, the oracle


def available_memory() -> float:
    """Bytes of physical memory available now (``inf`` where the system does not say)."""
    try:
        return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - not POSIX
        return float("inf")


def check_memory(needed: float, what: str, detail: str) -> None:
    """A one-line ``ValueError`` before allocating when ``needed`` bytes exceed the available memory."""
    available = available_memory()
    if needed > available:
        raise ValueError(f"{what} needs about {needed / 2**30:.3g} GiB ({detail}) but {available / 2**30:.3g} GiB "
                         "of memory is available; pass a smaller n or d.")


def synthetic_data(spec: str, seed: int = 0) -> DataSet:
    """:func:`gamedyn.io.datasets.make_separable` from an ``"n,d,gamma"`` spec."""
    from gamedyn.io.datasets import make_separable, signed_rows

    n, d, gamma = parse_synthetic_spec(spec)
    check_memory(_SYNTHETIC_COPIES * 8.0 * n * d, f"--synthetic {spec}",
                 "10 copies of its n x d float64 values while the data are drawn and checked")
    A = signed_rows(*make_separable(n, d, gamma, seed))
    return DataSet(np.asarray(A, dtype=np.float64), f"make_separable(n={n}, d={d}, gamma={gamma:g}, seed={seed})")


# ----------------------------------------------------------------------------------------- files


def load_data_file(path, layout: str | None = None) -> DataSet:
    """Read ``path`` (format from its extension, see the module docstring) into scaled signed rows.

    ``layout`` applies to ``.npy`` files only: ``"A"`` (signed rows), ``"Xy"`` (label in the last
    column) or None (signed rows, unless the last column holds only -1/+1 or 0/1: then both readings
    are plausible and the file is refused, naming them). Raises ``FileNotFoundError`` /
    ``ValueError`` / ``ImportError`` with a one-line message naming the file and the fix.
    """
    path = os.fspath(path)
    if layout is not None and layout not in NPY_LAYOUTS:
        raise ValueError(f"the .npy layout must be 'A' (signed rows) or 'Xy' (label in the last column), got {layout!r}.")
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no such file; check the path given to --data.")
    if os.path.isdir(path):
        return load_npy_folder(path)
    extension = os.path.splitext(path)[1].lower()
    if extension == ".npz":
        A = _signed_rows_from_npz(path)
    elif extension == ".npy":
        A = _signed_rows_from_npy(path, layout)
    elif extension == ".csv":
        A = _signed_rows_from_columns(_read_csv(path), path)
    elif extension in SVMLIGHT_EXTENSIONS:
        A = _signed_rows_from_svmlight(path)
    else:
        raise ValueError(
            f"{path}: unknown data format {extension or '(no extension)'!r}; use .npz, .npy, .csv or "
            f"svmlight/libsvm ({', '.join(SVMLIGHT_EXTENSIONS)})."
        )
    return _scaled(A, path)


def _signed_rows(X, y, source: str) -> np.ndarray:
    X = _finite_matrix(X, source)
    signs = signs_from_labels(y, source)
    if signs.shape[0] != X.shape[0]:
        raise ValueError(f"{source}: X has {X.shape[0]} rows but y has {signs.shape[0]} labels; they must match.")
    return X * signs[:, None]


def _finite_matrix(X, source: str) -> np.ndarray:
    try:
        return np.array(check_matrix(X, "the data", allow_sparse=False, dtype=np.float64))
    except (TypeError, ValueError) as error:
        raise ValueError(f"{source}: {error}") from None


def _signed_rows_from_columns(table, source: str) -> np.ndarray:
    """Features in all columns but the last, labels in the last."""
    table = _finite_matrix(table, source)
    if table.shape[1] < 2:
        raise ValueError(f"{source}: needs at least 2 columns (features, then the label last), got {table.shape[1]}.")
    return _signed_rows(table[:, :-1], table[:, -1], source)


def _signed_rows_from_npz(path: str) -> np.ndarray:
    with load_numpy(path, ".npz") as archive:
        names = set(archive.files)
        try:
            if "A" in names:
                return _finite_matrix(archive["A"], path)
            if {"X", "y"} <= names:
                return _signed_rows(archive["X"], archive["y"], path)
        except ValueError as error:
            if str(error).startswith(path):
                raise
            raise numpy_error(path, ".npz", error) from None
        except Exception as error:  # a corrupt member: zlib.error, BadZipFile, EOFError, OSError
            raise numpy_error(path, ".npz", error) from None
    raise ValueError(
        f"{path}: a .npz file needs arrays 'X' and 'y', or one array 'A' of signed rows; "
        f"found {sorted(names) or 'no arrays'}."
    )


def _signed_rows_from_npy(path: str, layout: str | None) -> np.ndarray:
    array = load_numpy(path, ".npy")
    if not isinstance(array, np.ndarray) or array.ndim != 2:
        raise ValueError(f"{path}: a .npy file must hold one 2-D array, got shape {getattr(array, 'shape', None)}.")
    if layout is None:
        layout = _npy_layout_without_a_choice(array, path)
    return _finite_matrix(array, path) if layout == "A" else _signed_rows_from_columns(array, path)


def _npy_layout_without_a_choice(array: np.ndarray, path: str) -> str:
    """``"A"`` unless the last column could be the labels: then both readings are plausible (labels
    last, or the intercept column of signed rows y_i [x_i, 1], also exactly +-1), so refuse to guess."""
    if array.shape[1] < 2 or array.shape[0] == 0 or not np.issubdtype(array.dtype, np.number):
        return "A"
    values = np.unique(array[:, -1])
    if np.all(np.isin(values, (-1.0, 1.0))) or np.all(np.isin(values, (0.0, 1.0))):
        shown = "/".join(f"{value:g}" for value in values)
        raise ValueError(
            f"{path}: its last column holds only {shown}, so it reads two ways: as the labels after the features "
            "(pass --npy-layout Xy) or as an intercept column of signed rows y_i [x_i, 1] (pass --npy-layout A); "
            "say which.")
    return "A"


def _is_number(field: str) -> bool:
    try:
        float(field)
    except ValueError:
        return False
    return True


def _csv_header_lines(path: str, handle) -> int:
    """How many lines ``np.loadtxt`` skips: those up to a header line, or 0 without a header.

    The first line with content is a header only when EVERY field is non-numeric (names); a line
    mixing numbers and text is an error naming the line and the field (it is neither data nor a
    header, and skipping it would silently lose an example).
    """
    for number, line in enumerate(handle, start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = [field.strip() for field in line.rstrip("\r\n").split(",")]
        numeric = [_is_number(field) for field in fields]
        if all(numeric):
            return 0
        if not any(numeric):
            return number
        column = numeric.index(False)
        raise ValueError(
            f"{path}: line {number} mixes numbers and text (field {column + 1} is {fields[column]!r}); it is neither "
            "a header (all names) nor an example (all numbers). Fix that field, or make the first line a header of "
            "names only.")
    raise ValueError(f"{path}: the file is empty; it needs one example a line, label last.")


def _read_csv(path: str) -> np.ndarray:
    try:
        with open(path, encoding="utf-8") as handle:
            header = _csv_header_lines(path, handle)
        try:
            return np.loadtxt(path, delimiter=",", ndmin=2, skiprows=header, encoding="utf-8")
        except UnicodeDecodeError:
            raise
        except ValueError as error:
            raise ValueError(f"{path}: not a numeric CSV file ({error}); use numbers separated by commas, label last.") from None
    except UnicodeDecodeError as error:
        raise ValueError(
            f"{path}: not a text CSV file (byte {error.object[error.start:error.start + 1]!r} at offset "
            f"{error.start} is not UTF-8 text); a .csv must hold numbers separated by commas, label last "
            "(binary arrays go in .npy or .npz)."
        ) from None


def _signed_rows_from_svmlight(path: str) -> np.ndarray:
    try:
        from sklearn.datasets import load_svmlight_file
    except ImportError:
        raise ImportError(
            f"{path}: reading svmlight/libsvm files needs scikit-learn: pip install gamedyn[data]"
        ) from None
    try:
        X, y = load_svmlight_file(path)
    except (ValueError, RuntimeError) as error:
        raise ValueError(f"{path}: not a valid svmlight/libsvm file ({error}).") from None
    signs = signs_from_labels(y, path)
    if not np.all(np.isfinite(X.data)):
        raise ValueError(f"{path}: the data contains NaN or infinite entries; remove or impute them first.")
    return sp.csr_matrix(X.multiply(signs[:, None]))  # stays sparse: never densified


def load_npy_folder(path) -> DataSet:
    """A folder of ``.npy`` row chunks (``X_000.npy ...`` + ``y.npy``, or ``A_000.npy ...``), out of core.

    The chunks are read in row slabs behind a :class:`gamedyn.arrays.distributed.RowBlockedOperator` (dask's
    threaded scheduler, or the current ``dask.distributed.Client``); one pass finds the largest row
    norm (and rejects NaN or infinite entries), and the rows are scaled by it inside the operator.
    """
    from gamedyn.arrays.distributed import RowBlockedOperator

    A = RowBlockedOperator.from_npy_folder(path)
    largest = A.largest_row_norm()
    if largest == 0.0:
        raise ValueError(f"{path}: every row is zero; there is nothing to separate.")
    return DataSet(A.with_row_scale(1.0 / largest), os.path.basename(os.path.normpath(path)) + os.sep,
                   scaled_by=largest)


def _scaled(A, source: str) -> DataSet:
    """The rows divided by the largest row norm, computed on ``A / max |A|`` (the hypot way: rows of 1e300
    have norms beyond float64 squared, which made them all zero, issue 30), as ``(A / top) / norm``."""
    from gamedyn.arrays.operators import largest_row_norm

    data = A.data if sp.issparse(A) else A
    top = float(np.max(np.abs(data))) if data.size else 0.0
    if top == 0.0:
        raise ValueError(f"{source}: every row is zero; there is nothing to separate.")
    unit = A / top
    relative = largest_row_norm(unit)  # in [1, sqrt(d)]: the largest norm divided by max |A|
    with np.errstate(over="ignore"):
        largest = top * relative  # (the factor the rows were divided by; inf only beyond float64)
    return DataSet(unit / relative, os.path.basename(source), scaled_by=largest)
