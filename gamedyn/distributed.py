r"""Out-of-core and distributed A: a row-blocked linear operator on dask (``pip install gamedyn[dask]``).

The runner needs two products per round, :math:`A w` (the p-player's loss) and :math:`A^T p` (the
w-player's). With A split into row blocks :math:`A = [A_1; \dots; A_K]`, :math:`A_k` of
:math:`n_k` rows,

.. math::

    A w = [A_1 w; \dots; A_K w], \qquad A^T p = \sum_{k=1}^K A_k^T p_k ,

so each product is **one task per block** (block k returns :math:`A_k w \in \mathbb R^{n_k}` or
:math:`A_k^T p_k \in \mathbb R^d`) plus one small reduction on the driver (a concatenation of n
numbers, a sum of K d-vectors). :class:`RowBlockedOperator` is a
:class:`scipy.sparse.linalg.LinearOperator`, so :class:`~gamedyn.Bilinear`,
:class:`~gamedyn.RegularizedBilinear`, :func:`~gamedyn.play` and every recipe use it unchanged.

The blocks never travel after the start:

* :meth:`RowBlockedOperator.from_dask_array`: the row chunks are persisted once (on the workers of
  a ``dask.distributed.Client``, or in this process with the threaded scheduler) and each round's
  tasks run where they are;
* :meth:`RowBlockedOperator.from_npy_folder`: ``.npy`` chunks memory-mapped, each file opened once
  per worker process; pages are handed back to the page cache after each product, so a process's
  resident memory stays near one block per thread (the out-of-core path);
* :meth:`RowBlockedOperator.from_zarr`: a zarr array read one row block per task.

Scheduler: a ``dask.distributed.Client`` when one is passed (``client=``) or current
(``Client(...)`` made earlier in the session); otherwise dask's threaded scheduler in this
process (``client="threads"`` forces it). Per round the driver holds O(n + d) numbers: w or the
p-slices going out, the A w pieces and K d-vectors coming back.

Products run in the blocks' dtype (a float32 block is never copied to float64: the vector is
cast to float32); the reduction over blocks of A^T p accumulates in float64.

**One pass per round.** :meth:`RowBlockedOperator.products` computes ``(A w, A^T p)`` and
:meth:`RowBlockedOperator.softmax_pass` the entropy player's round (``A w``, then
:math:`A^T\mathrm{softmax}(\log p_0-\eta(L+\alpha Aw))` with each block's log-sum-exp pieces merged
exactly on the driver) from **one read** of each block: every task streams its block in
cache-sized row groups, and each group serves both products while it is in cache.
:func:`gamedyn.play` uses them through :mod:`gamedyn.one_pass` whenever the round allows
(``one_pass=False`` on the operator keeps the two-pass round).
"""

from __future__ import annotations

import copy
import glob
import itertools
import mmap
import os
import threading
import uuid

import numpy as np
from scipy.sparse.linalg import LinearOperator

from gamedyn.one_pass import _merge_log_sum_exp, _rows_both_products, _rows_softmax_response, _slabs

__all__ = ["RowBlockedOperator", "is_dask_array"]

_FLOAT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def is_dask_array(value) -> bool:
    """True for a ``dask.array.Array`` (checked without importing dask)."""
    return type(value).__module__.startswith("dask.array") and hasattr(value, "chunks") and hasattr(value, "dask")


def _require_dask(what: str):
    try:
        import dask  # noqa: F401
    except ImportError:
        raise ImportError(f"{what} needs dask: pip install gamedyn[dask]") from None


# ------------------------------------------------------------------------------- block sources
# A block is a small picklable description that a worker turns into an array with ``load()``
# (memory-mapped files are opened once per process and kept), or an in-memory array / a dask
# future to one.

_OPEN_LOCK = threading.Lock()
_OPEN_FILES: dict = {}  # (path, mtime_ns, size) -> np.memmap, one per worker process


SLAB_BYTES = 32 * 2**20  # file-backed blocks are read in row slabs of about this size


class _NpyFile:
    """One ``.npy`` chunk, memory-mapped read-only once per process, read in row slabs.

    With ``release_pages`` each slab's pages are handed back to the page cache as soon as the task
    has used them (``madvise(MADV_DONTNEED)``): they stay cached by the kernel, but the process's
    resident memory stays near one slab per thread, whatever the chunk size.
    """

    def __init__(self, path: str, release_pages: bool):
        self.path = os.path.abspath(path)
        status = os.stat(self.path)
        self.key = (self.path, status.st_mtime_ns, status.st_size)
        self.release_pages = release_pages

    def load(self):
        array = _OPEN_FILES.get(self.key)
        if array is None:
            with _OPEN_LOCK:
                array = _OPEN_FILES.get(self.key)
                if array is None:
                    array = np.load(self.path, mmap_mode="r", allow_pickle=False)
                    _OPEN_FILES[self.key] = array
        return array

    def slabs(self):
        array = self.load()
        mapping = getattr(array, "_mmap", None)
        row_bytes = array.shape[1] * array.itemsize
        if not array.flags.c_contiguous:  # a Fortran-order chunk: rows are not contiguous in the file
            yield 0, array.shape[0], array
            self._release(mapping, 0, None)
            return
        step = max(1, SLAB_BYTES // row_bytes)
        first_byte = getattr(array, "offset", 0) % mmap.ALLOCATIONGRANULARITY  # where the data start in the mapping
        for start in range(0, array.shape[0], step):
            stop = min(start + step, array.shape[0])
            yield start, stop, array[start:stop]
            self._release(mapping, first_byte + start * row_bytes, first_byte + stop * row_bytes)

    def _release(self, mapping, begin, end):
        if not self.release_pages or mapping is None or not hasattr(mapping, "madvise"):
            return
        if end is None:
            mapping.madvise(mmap.MADV_DONTNEED)
            return
        begin -= begin % mmap.PAGESIZE
        mapping.madvise(mmap.MADV_DONTNEED, begin, end - begin)


class _ZarrRows:
    """Rows start:stop of a zarr array, read in row slabs; the store is opened once per process."""

    def __init__(self, store: str, path: str | None, start: int, stop: int):
        self.store, self.path, self.start, self.stop = store, path, start, stop

    def load(self):
        key = ("zarr", self.store, self.path)
        array = _OPEN_FILES.get(key)
        if array is None:
            import zarr

            with _OPEN_LOCK:
                array = _OPEN_FILES.setdefault(key, zarr.open_array(self.store, path=self.path, mode="r"))
        return array

    def slabs(self):
        array = self.load()
        step = max(1, SLAB_BYTES // (array.shape[1] * np.dtype(array.dtype).itemsize))
        for start in range(self.start, self.stop, step):
            stop = min(start + step, self.stop)
            yield start - self.start, stop - self.start, np.asarray(array[start:stop])


# --------------------------------------------------------------------------- tasks (one per block)


def _rows_times(block, w, row_factor):
    """A_k w = diag(row_factor_k) X_k w, in the block's dtype (w or W of shape (d, m))."""
    pieces = [rows @ w.astype(rows.dtype, copy=False) for _, _, rows in _slabs(block)]
    result = pieces[0] if len(pieces) == 1 else np.concatenate(pieces)
    if row_factor is None:
        return result
    return result * (row_factor if result.ndim == 1 else row_factor[:, None])


def _rows_transpose_times(block, p_block, row_factor):
    """A_k^T p_k = X_k^T (row_factor_k * p_k): products in the block's dtype, summed in float64."""
    weights = p_block if row_factor is None else p_block * row_factor
    total = None
    for start, stop, rows in _slabs(block):
        piece = weights[..., start:stop].astype(rows.dtype, copy=False) @ rows
        total = piece.astype(np.float64) if total is None else total + piece
    return total


def _largest_row_norm_and_finite(block, row_factor):
    """(max_i ||a_i||_2, all entries finite) over the block, overflow-safe (rows scaled by their max)."""
    largest = 0.0
    for start, stop, rows in _slabs(block):
        rows = np.asarray(rows, dtype=np.float64)
        if row_factor is not None:
            rows = rows * np.abs(row_factor[start:stop])[:, None]
        if not (np.isfinite(rows.min()) and np.isfinite(rows.max())):  # min/max propagate NaN
            return largest, False
        peaks = np.max(np.abs(rows), axis=1)
        safe = np.where(peaks > 0, peaks, 1.0)
        norms = peaks * np.sqrt(np.sum((rows / safe[:, None]) ** 2, axis=1))
        largest = max(largest, float(np.max(norms, initial=0.0)))
    return largest, True


# ---------------------------------------------------------------------------------- schedulers


class _Threads:
    """dask's threaded scheduler: one task per block, in this process."""

    name = "threads"

    def place(self, row_factors):
        return list(row_factors)

    def map(self, function, blocks, arguments):
        import dask.threaded

        keys = [(function.__name__, k) for k in range(len(blocks))]
        graph = {key: (function, block, *args) for key, block, args in zip(keys, blocks, arguments)}
        return dask.threaded.get(graph, keys)


class _Distributed:
    """A dask.distributed Client: block k always runs on the worker that holds (or opened) it."""

    name = "distributed"
    _counter = itertools.count()

    def __init__(self, client, blocks):
        self.client = client
        self.token = uuid.uuid4().hex  # task keys unique across operators and driver processes
        workers = sorted(client.scheduler_info(n_workers=-1)["workers"]) if _takes_n_workers(client) \
            else sorted(client.scheduler_info()["workers"])
        if not workers:
            raise ValueError("the dask Client has no workers; start some (e.g. LocalCluster(n_workers=2)) first.")
        # Persisted futures already live somewhere: the scheduler runs their tasks there. File blocks
        # are pinned round-robin, so each worker opens (and page-caches) the same files every round.
        self.placement = [None if _is_future(block) else [workers[k % len(workers)]] for k, block in enumerate(blocks)]

    def map(self, function, blocks, arguments):
        call = next(self._counter)
        groups = {}  # one client.map per placement: one batched submission instead of K messages
        for k, where in enumerate(self.placement):
            groups.setdefault(None if where is None else tuple(where), []).append(k)
        futures = [None] * len(blocks)
        for where, members in groups.items():
            columns = list(zip(*(arguments[k] for k in members)))
            keys = [f"gamedyn-{function.__name__}-{self.token}-{call}-{k}" for k in members]
            mapped = self.client.map(function, [blocks[k] for k in members], *columns, key=keys, pure=False,
                                     workers=None if where is None else list(where), allow_other_workers=where is not None)
            for k, future in zip(members, mapped):
                futures[k] = future
        return self.client.gather(futures)

    def place(self, row_factors):
        """Scatter each block's row factors once, to its block's worker: no n-sized upload per round."""
        return [None if factor is None else
                self.client.scatter(factor, workers=None if where is None else list(where), hash=False)
                for factor, where in zip(row_factors, self.placement)]


def _takes_n_workers(client) -> bool:
    import inspect

    try:
        return "n_workers" in inspect.signature(client.scheduler_info).parameters
    except (TypeError, ValueError):  # pragma: no cover
        return False


def _is_future(value) -> bool:
    return type(value).__name__ == "Future" and hasattr(value, "key")


def _current_client():
    try:
        from distributed import default_client
    except ImportError:
        return None
    try:
        return default_client()
    except ValueError:
        return None


def _chosen_client(client):
    """The Client to use, or None for dask's threaded scheduler."""
    if isinstance(client, str):
        if client != "threads":
            raise ValueError(f"client must be a dask.distributed.Client, None (the current one, else threads) "
                             f"or 'threads', got {client!r}.")
        return None
    client = _current_client() if client is None else client
    if client is not None and not (hasattr(client, "submit") and hasattr(client, "gather")):
        raise TypeError(f"client must be a dask.distributed.Client (or 'threads'), got {type(client).__name__}.")
    return client


def _scheduler_for(client, blocks):
    client = _chosen_client(client)
    return _Threads() if client is None else _Distributed(client, blocks)


# ------------------------------------------------------------------------------------ operator


class RowBlockedOperator(LinearOperator):
    r"""A (n x d) as row blocks A_k held where the work runs; ``A @ w`` and ``A.T @ p`` are one task per block.

    .. math::

        A w = [A_1 w;\ \dots;\ A_K w],\qquad A^T p = \sum_k A_k^T p_k,\qquad
        A_k = \mathrm{diag}(s_k)\,X_k \ \text{(optional row factors } s \text{, e.g. labels } y_i\text{)}.

    Build it with :meth:`from_dask_array`, :meth:`from_npy_folder` or :meth:`from_zarr`. The
    products run on dask's threaded scheduler or on a ``dask.distributed.Client`` (``client=``,
    default: the current client if any). Driver memory per product is O(n + d).

    **One pass.** :meth:`products` and :meth:`softmax_pass` give a round's two products from one
    read of A; :func:`gamedyn.play` uses them (via :mod:`gamedyn.one_pass`) unless ``one_pass`` is
    False (every constructor takes ``one_pass=``; the attribute may also be set).
    """

    def __init__(self, blocks, row_counts, n_columns, dtype, *, row_factors=None, client=None, keep=None,
                 description="row blocks", one_pass=True):
        row_counts = [int(count) for count in row_counts]
        if not blocks or len(blocks) != len(row_counts) or min(row_counts) < 1 or n_columns < 1:
            raise ValueError("RowBlockedOperator needs at least one block, each with at least one row and column.")
        self.blocks = list(blocks)
        self.row_counts = row_counts
        self.offsets = np.concatenate([[0], np.cumsum(row_counts)]).astype(np.int64)
        self.row_factors = list(row_factors) if row_factors is not None else [None] * len(self.blocks)
        self._placed_factors = None  # the row factors where the tasks read them (scattered once on a cluster)
        self._keep = keep  # e.g. the persisted dask collection, so its futures stay alive
        self.description = description
        if not isinstance(one_pass, bool):
            raise TypeError(f"one_pass must be True (a round reads A once where it can) or False (two passes), got {one_pass!r}.")
        self.one_pass = one_pass  # read by gamedyn.one_pass: False keeps the two-pass round
        self.scheduler = _scheduler_for(client, self.blocks)
        super().__init__(dtype=np.dtype(dtype), shape=(int(self.offsets[-1]), int(n_columns)))

    def __repr__(self):
        return (f"RowBlockedOperator({self.shape[0]} x {self.shape[1]} {self.dtype}, {len(self.blocks)} "
                f"{self.description}, scheduler={self.scheduler.name})")

    # ---- construction

    @classmethod
    def from_dask_array(cls, array, *, client=None, one_pass=True):
        """Persist a row-chunked 2-D dask array's row blocks once (column chunks are merged first).

        With a Client the blocks live on its workers; with the threaded scheduler they are computed
        once into this process (memory: A once). For data larger than memory use a Client or
        :meth:`from_npy_folder`.
        """
        _require_dask("RowBlockedOperator.from_dask_array")
        import dask

        if not is_dask_array(array):
            raise TypeError(f"array must be a dask.array.Array, got {type(array).__name__}; "
                            "for numpy data use it directly, for files use from_npy_folder or from_zarr.")
        if array.ndim != 2 or 0 in array.shape or any(np.isnan(size) for size in array.shape):
            raise ValueError(f"array must be 2-D with known, non-zero sizes, got shape {array.shape}; "
                             "call array.compute_chunk_sizes() first if the sizes are unknown.")
        dtype = np.dtype(array.dtype)
        if dtype not in _FLOAT_DTYPES:
            raise TypeError(f"array has dtype {dtype}; pass a float32 or float64 array, e.g. array.astype('float64').")
        if len(array.chunks[1]) > 1:
            array = array.rechunk({1: -1})  # one task per row block needs whole rows in each block
        row_counts = array.chunks[0]
        scheduler_client = _chosen_client(client)
        if scheduler_client is None:
            blocks = list(dask.compute(*array.to_delayed().ravel(), scheduler="threads"))
            return cls(blocks, row_counts, array.shape[1], dtype, client="threads", description="in-memory row blocks",
                       one_pass=one_pass)
        persisted = scheduler_client.persist(array)
        from distributed import futures_of

        futures = {future.key: future for future in futures_of(persisted)}
        blocks = [futures[key] for (key,) in persisted.__dask_keys__()]
        return cls(blocks, row_counts, array.shape[1], dtype, client=scheduler_client, keep=persisted,
                   description="persisted row blocks", one_pass=one_pass)

    @classmethod
    def from_npy_folder(cls, folder, *, client=None, release_pages=True, one_pass=True):
        """Memory-map a folder of ``.npy`` row chunks (see :func:`npy_folder_layout` for the layouts).

        ``X_000.npy, X_001.npy, ...`` plus ``y.npy`` (labels in {-1, +1} or {0, 1}): A = diag(y) X,
        never materialised; or ``A_000.npy, ...``: the signed rows themselves. Chunks are read in
        name order. ``release_pages`` hands each block's pages back to the page cache after each
        product, so a worker's resident memory stays near one block per thread.
        """
        _require_dask("RowBlockedOperator.from_npy_folder")
        paths, labels = npy_folder_layout(folder)
        blocks, row_counts, columns, dtypes = [], [], set(), set()
        for path in paths:
            header = np.load(path, mmap_mode="r", allow_pickle=False)
            if not isinstance(header, np.ndarray) or header.ndim != 2 or 0 in header.shape:
                raise ValueError(f"{path}: every chunk must be a non-empty 2-D array, got shape {getattr(header, 'shape', None)}.")
            columns.add(header.shape[1])
            dtypes.add(np.dtype(header.dtype))
            row_counts.append(header.shape[0])
            blocks.append(_NpyFile(path, release_pages))
            del header
        if len(columns) != 1:
            raise ValueError(f"{folder}: the chunks have different numbers of columns {sorted(columns)}; they must all be d.")
        if len(dtypes) != 1 or next(iter(dtypes)) not in _FLOAT_DTYPES:
            raise TypeError(f"{folder}: chunks must all be float32 or all float64, found {sorted(map(str, dtypes))}; "
                            "re-save them with array.astype('float64').")
        row_factors = None
        if labels is not None:
            from gamedyn._data_files import signs_from_labels

            signs = signs_from_labels(np.load(labels, allow_pickle=False), labels)
            if signs.shape[0] != sum(row_counts):
                raise ValueError(f"{labels} has {signs.shape[0]} labels but the X chunks have {sum(row_counts)} rows; they must match.")
            offsets = np.concatenate([[0], np.cumsum(row_counts)])
            row_factors = [signs[offsets[k]:offsets[k + 1]] for k in range(len(blocks))]
        return cls(blocks, row_counts, columns.pop(), dtypes.pop(), row_factors=row_factors, client=client,
                   description=f"memory-mapped .npy chunks of {os.fspath(folder)}", one_pass=one_pass)

    @classmethod
    def from_zarr(cls, store, *, path=None, rows_per_block=None, client=None, one_pass=True):
        """A 2-D zarr array (a store path or URL readable by every worker), read one row block per task.

        ``rows_per_block`` defaults to the array's row chunk length.
        """
        _require_dask("RowBlockedOperator.from_zarr")
        import zarr

        store = os.fspath(store)
        array = zarr.open_array(store, path=path, mode="r")
        if array.ndim != 2 or 0 in array.shape:
            raise ValueError(f"{store}: the zarr array must be 2-D and non-empty, got shape {array.shape}.")
        dtype = np.dtype(array.dtype)
        if dtype not in _FLOAT_DTYPES:
            raise TypeError(f"{store}: the zarr array has dtype {dtype}; store float32 or float64 values.")
        step = int(rows_per_block or array.chunks[0])
        starts = list(range(0, array.shape[0], step))
        blocks = [_ZarrRows(store, path, start, min(start + step, array.shape[0])) for start in starts]
        return cls(blocks, [block.stop - block.start for block in blocks], array.shape[1], dtype, client=client,
                   description=f"zarr row blocks of {store}", one_pass=one_pass)

    # ---- products

    def _factors(self):
        if self._placed_factors is None:
            self._placed_factors = self.scheduler.place(self.row_factors)
        return self._placed_factors

    def _result_dtype(self, vector):
        return np.result_type(self.dtype, vector.dtype)

    def _matvec(self, w):
        w = np.asarray(w).reshape(-1)
        pieces = self.scheduler.map(_rows_times, self.blocks, [(w, factor) for factor in self._factors()])
        return np.concatenate(pieces).astype(self._result_dtype(w), copy=False)

    def _rmatvec(self, p):
        p = np.asarray(p).reshape(-1)
        o = self.offsets
        arguments = [(p[o[k]:o[k + 1]], factor) for k, factor in enumerate(self._factors())]
        pieces = self.scheduler.map(_rows_transpose_times, self.blocks, arguments)
        total = np.zeros(self.shape[1], dtype=np.float64)
        for piece in pieces:
            total += piece
        return total.astype(self._result_dtype(p), copy=False)

    def _matmat(self, W):
        W = np.asarray(W)
        pieces = self.scheduler.map(_rows_times, self.blocks, [(W, factor) for factor in self._factors()])
        return np.concatenate(pieces).astype(self._result_dtype(W), copy=False)

    def _rmatmat(self, P):
        P = np.asarray(P)
        o = self.offsets
        arguments = [(P[o[k]:o[k + 1]].T, factor) for k, factor in enumerate(self._factors())]
        pieces = self.scheduler.map(_rows_transpose_times, self.blocks, arguments)
        return np.sum([np.asarray(piece, dtype=np.float64) for piece in pieces], axis=0).T.astype(
            self._result_dtype(P), copy=False)

    def _adjoint(self):
        return _Adjoint(self)

    _transpose = _adjoint  # real blocks: A^T = A^H, without the conj copies of scipy's default

    def with_row_scale(self, scale: float) -> "RowBlockedOperator":
        """The same blocks with every row multiplied by ``scale`` (e.g. 1 / the largest row norm)."""
        scale = float(scale)
        if not (np.isfinite(scale) and scale > 0):
            raise ValueError(f"scale must be positive and finite, got {scale!r}.")
        scaled = copy.copy(self)
        scaled.row_factors = [np.full(count, scale) if factor is None else factor * scale
                              for count, factor in zip(self.row_counts, self.row_factors)]
        scaled._placed_factors = None
        return scaled

    # ---- a round's two products from one read of A (gamedyn.one_pass)

    def _slices(self, vector):
        o = self.offsets
        return [vector[o[k]:o[k + 1]] for k in range(len(self.blocks))]

    def products(self, w, p):
        """``(A w, A^T p)`` from one read of each block (one task per block), both float64.

        Each task streams its block in cache-sized row groups; every group gives its rows of A w
        and its share of A^T p while it is in cache. The same numbers as ``A @ w`` and ``A.T @ p``
        to rounding (the sums over groups and blocks are ordered differently).
        """
        w = np.asarray(w, dtype=np.float64).reshape(-1)
        p = np.asarray(p, dtype=np.float64).reshape(-1)
        arguments = [(w, piece, factor) for piece, factor in zip(self._slices(p), self._factors())]
        pieces = self.scheduler.map(_rows_both_products, self.blocks, arguments)
        total = np.zeros(self.shape[1], dtype=np.float64)
        for _, piece in pieces:
            total += piece
        return np.concatenate([z for z, _ in pieces]), total

    def softmax_pass(self, log_centre=None):
        r"""The entropy player's round in one read of A: a function ``(w, base, weight, eta) -> (z, r)``.

        .. math::

            z=Aw,\qquad p=\mathrm{softmax}\big(\log p_0-\eta(\mathrm{base}+\alpha z)\big),\qquad r=A^\top p,

        i.e. FTRL with entropy (eq. (5)'s softmax) whose loss sum is ``base`` and whose current loss
        is z, and the opponent's loss direction, from one pass. Block k returns
        :math:`(z_k, m_k, S_k, v_k)` (its logits' maximum, its sum of exponentials and
        :math:`A_k^\top e^{l_k-m_k}`); the driver merges them exactly by log-sum-exp,
        :math:`r=\sum_ke^{m_k-m}v_k/\sum_ke^{m_k-m}S_k` with :math:`m=\max_km_k`. ``r`` is None when
        the logits leave the merge's range (NaN or +inf, or every weight vanishes): the caller then
        computes p on its careful path and A^T p by a second pass.

        ``log_centre`` (n numbers, ``-inf`` at a zero entry; None for the uniform centre) is split
        into the blocks' slices once, and placed beside the blocks on a cluster.
        """
        placed = [None] * len(self.blocks)
        if log_centre is not None:
            log_centre = np.asarray(log_centre, dtype=np.float64).reshape(-1)
            if log_centre.shape != (self.shape[0],):
                raise ValueError(f"log_centre must have n = {self.shape[0]} entries, got shape {log_centre.shape}.")
            placed = self.scheduler.place(self._slices(log_centre))

        def step(w, base, weight, eta):
            w = np.asarray(w, dtype=np.float64).reshape(-1)
            base = np.asarray(base, dtype=np.float64).reshape(-1)
            arguments = [(w, piece, float(weight), float(eta), centre, factor)
                         for piece, centre, factor in zip(self._slices(base), placed, self._factors())]
            pieces = self.scheduler.map(_rows_softmax_response, self.blocks, arguments)
            z = np.concatenate([piece[0] for piece in pieces])
            return z, _merge_log_sum_exp([piece[1:] for piece in pieces], self.shape[1])

        return step

    # ---- one pass over the data

    def largest_row_norm(self) -> float:
        """max_i ||a_i||_2 in one pass (one task per block), or ValueError if an entry is NaN or infinite."""
        results = self.scheduler.map(_largest_row_norm_and_finite, self.blocks, [(f,) for f in self._factors()])
        if not all(finite for _, finite in results):
            raise ValueError(f"{self!r} contains NaN or infinite entries; remove or impute them first.")
        return max(largest for largest, _ in results)


class _Adjoint(LinearOperator):
    """A^T as a LinearOperator whose products are A's block tasks (so ``A.T @ p`` stays distributed)."""

    def __init__(self, operator: RowBlockedOperator):
        self.operator = operator
        super().__init__(dtype=operator.dtype, shape=(operator.shape[1], operator.shape[0]))

    def _matvec(self, p):
        return self.operator._rmatvec(p)

    def _rmatvec(self, w):
        return self.operator._matvec(w)

    def _matmat(self, P):
        return self.operator._rmatmat(P)

    def _rmatmat(self, W):
        return self.operator._matmat(W)

    def _adjoint(self):
        return self.operator

    _transpose = _adjoint


def npy_folder_layout(folder):
    """The chunk files of a ``.npy`` folder and its label file: ``(paths, labels_path or None)``.

    Two layouts, chunks in name order (zero-pad the numbers: ``X_000.npy`` ... ``X_123.npy``):

    * ``X_000.npy, X_001.npy, ...`` (features, rows split across files) and ``y.npy`` (all labels);
    * ``A_000.npy, A_001.npy, ...``: the signed rows y_i x_i, no label file.
    """
    folder = os.fspath(folder)
    if not os.path.isdir(folder):
        raise NotADirectoryError(f"{folder} is not a folder; pass a folder of X_000.npy ... + y.npy or A_000.npy ... chunks.")
    x_paths = sorted(glob.glob(os.path.join(folder, "X_*.npy")))
    a_paths = sorted(glob.glob(os.path.join(folder, "A_*.npy")))
    labels = os.path.join(folder, "y.npy")
    if x_paths and a_paths:
        raise ValueError(f"{folder} holds both X_*.npy and A_*.npy chunks; keep one layout per folder.")
    if x_paths:
        if not os.path.exists(labels):
            raise FileNotFoundError(f"{folder} has X_*.npy chunks but no y.npy; save the labels as y.npy beside them.")
        return x_paths, labels
    if a_paths:
        return a_paths, None
    raise FileNotFoundError(f"{folder} has no X_*.npy or A_*.npy chunks; save row chunks as X_000.npy ... "
                            "(with y.npy) or A_000.npy ... (signed rows).")
