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
* :meth:`RowBlockedOperator.from_npy_folder`: ``.npy`` chunks read by each task in row slabs, by
  explicit file reads into a buffer reused per thread (never memory-mapped), so a process's
  resident memory stays near one slab per thread (the out-of-core path; the kernel's page cache
  keeps the files), and a chunk truncated or rewritten mid-run is a :class:`ChunkFileError`
  naming the file, never a crash of the process;
* :meth:`RowBlockedOperator.from_zarr`: a zarr array read one row block per task.

Scheduler: a ``dask.distributed.Client`` when one is passed (``client=``) or current
(``Client(...)`` made earlier in the session); otherwise dask's threaded scheduler in this
process (``client="threads"`` forces it). Per round the driver holds O(n + d) numbers: w or the
p-slices going out, the A w pieces and K d-vectors coming back.

**Lost workers.** A worker lost mid-run is recovered: its file blocks are read by the workers
still there (the files are still on disk), the values placed beside its blocks (row factors, log
p_0's slices) are placed again from the driver's copies and the product is resubmitted; dask
recomputes persisted blocks from their graph. Where that is impossible (no worker left, a block
that lived only on the lost worker) a :class:`WorkerLostError` names the worker and the blocks.

Products run in the blocks' dtype (a float32 block is never copied to float64: the vector is
cast to float32); the reduction over blocks of A^T p accumulates in float64.

**One pass per round.** :meth:`RowBlockedOperator.products` computes ``(A w, A^T p)`` and
:meth:`RowBlockedOperator.softmax_pass` the entropy player's round (``A w``, then
:math:`A^T\mathrm{softmax}(\log p_0-\eta(L+\alpha Aw))` with each block's log-sum-exp pieces merged
exactly on the driver) from **one read** of each block: every task streams its block in
cache-sized row groups, and each group serves both products while it is in cache.
:func:`gamedyn.play` uses them through :mod:`gamedyn.engine.rounds` whenever the round allows
(``one_pass=False`` on the operator keeps the two-pass round).
"""

from __future__ import annotations

import copy
import glob
import itertools
import os
import threading
import uuid
import weakref
from typing import Any

import numpy as np
from scipy.sparse.linalg import LinearOperator

from gamedyn.arrays.files import load_numpy
from gamedyn.arrays.one_pass import merge_log_sum_exp, rows_both_products, rows_softmax_response, slabs
from gamedyn.arrays.operators import is_dask_array
from gamedyn.core.validation import signs_from_labels

__all__ = ["RowBlockedOperator", "is_dask_array"]

_FLOAT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _require_dask(what: str):
    try:
        import dask  # noqa: F401
    except ImportError:
        raise ImportError(f"{what} needs dask: pip install gamedyn[dask]") from None


# ------------------------------------------------------------------------------- block sources
# A block is a small picklable description that a worker turns into rows with ``slabs()`` (files
# are read by explicit reads, zarr stores opened once per process), or an in-memory array / a
# dask future to one.

_OPEN_LOCK = threading.Lock()
_OPEN_FILES: dict = {}  # ("zarr", store, path) -> the opened zarr array, one per worker process


SLAB_BYTES = 32 * 2**20  # zarr blocks are read in row slabs of about this size
READ_BYTES = 2 * 2**20
"""``.npy`` chunks are read in slabs of about this size: small enough that the slab just read stays
in cache while the task's products use it (a 32 MB slab made each product read its bytes from
memory twice more, 1.9x the CPU of a memory map; 2 MB matched it, see benchmarks/dask_bench.py)."""


class ChunkFileError(OSError):
    """A ``.npy`` chunk that cannot be read as the operator was built: corrupt, truncated or changed."""


def _read_npy_header(path: str) -> dict:
    """Shape, dtype, order and data offset of a ``.npy`` file, read from its header alone.

    Every failure is a :class:`ChunkFileError` whose message names the file and the fix (never
    numpy's own message alone, never its advice to load pickled data). The file must hold at least
    the bytes its header announces.
    """
    path = os.fspath(path)
    fix = "re-save it with numpy.save(path, array) (a 2-D float32 or float64 array)"
    try:
        with open(path, "rb") as handle:
            try:
                version = np.lib.format.read_magic(handle)
                if version == (1, 0):
                    shape, fortran_order, dtype = np.lib.format.read_array_header_1_0(handle)
                elif version == (2, 0):
                    shape, fortran_order, dtype = np.lib.format.read_array_header_2_0(handle)
                else:
                    raise ValueError(f"NumPy format version {version[0]}.{version[1]} is not supported (1.0 or 2.0)")
            except (ValueError, EOFError, SyntaxError, TypeError) as error:
                text = " ".join(str(error).split())
                if "pickle" in text.lower() or "object" in text.lower():
                    text = "it holds Python objects (pickled data), which gamedyn never loads"
                raise ChunkFileError(f"{path}: cannot be read as a .npy chunk (its header is not a valid NumPy "
                                     f"header: {text or type(error).__name__}); {fix}.") from None
            offset = handle.tell()
            size = os.fstat(handle.fileno()).st_size
            stamp = os.fstat(handle.fileno()).st_mtime_ns
    except OSError as error:
        if isinstance(error, ChunkFileError):
            raise
        raise ChunkFileError(f"{path}: cannot be opened ({error.strerror or type(error).__name__}); check that the "
                             "file exists and is readable.") from None
    dtype = np.dtype(dtype)
    if dtype.hasobject:
        raise ChunkFileError(f"{path}: cannot be read as a .npy chunk: it holds Python objects (pickled data), which "
                             f"gamedyn never loads; {fix}.")
    needed = offset + int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if size < needed:
        raise ChunkFileError(f"{path}: truncated: its header announces shape {tuple(shape)} of {dtype} "
                             f"({needed} bytes with the header) but the file holds {size} bytes; {fix}.")
    return {"shape": tuple(int(extent) for extent in shape), "dtype": dtype, "fortran_order": bool(fortran_order),
            "offset": int(offset), "size": int(size), "mtime_ns": int(stamp)}


_BUFFERS = threading.local()  # one reusable slab buffer per thread (a worker's threads read in parallel)


def _take_buffer(nbytes: int) -> np.ndarray:
    buffer = getattr(_BUFFERS, "free", None)
    if buffer is not None and buffer.nbytes >= nbytes:
        _BUFFERS.free = None
        return buffer
    return np.empty(nbytes, dtype=np.uint8)


def _return_buffer(buffer: np.ndarray) -> None:
    held = getattr(_BUFFERS, "free", None)
    if held is None or held.nbytes < buffer.nbytes:
        _BUFFERS.free = buffer


class _NpyFile:
    """One ``.npy`` chunk, read in row slabs by explicit file reads into a buffer reused per thread.

    No page of the file is ever mapped into the process, so its resident memory stays near one
    slab per thread whatever the chunk size, and a file truncated or rewritten during the run is a
    :class:`ChunkFileError` naming the file (a memory map would kill the process with SIGBUS).
    Each task checks the file's size and modification time against those seen when the operator
    was built, and every read checks that it got all its bytes.
    """

    def __init__(self, path: str, header: dict | None = None):
        self.path = os.path.abspath(path)
        header = _read_npy_header(self.path) if header is None else header
        self.shape, self.dtype = header["shape"], header["dtype"]
        self.fortran_order, self.offset = header["fortran_order"], header["offset"]
        self.stamp = (header["size"], header["mtime_ns"])

    def _changed(self, status) -> ChunkFileError:
        return ChunkFileError(
            f"{self.path}: the file changed on disk after the operator was built (size {self.stamp[0]} -> "
            f"{status.st_size} bytes, or a new modification time); the run would mix two data sets. Restore the "
            "file, or rebuild the operator (RowBlockedOperator.from_npy_folder) and start the run again.")

    def _short(self, begin: int, got: int, wanted: int) -> ChunkFileError:
        return ChunkFileError(
            f"{self.path}: the file ended while a task read it (bytes {begin} .. {begin + wanted} asked, "
            f"{got} read): it was truncated during the run. Restore the file (numpy.save) and start the run again "
            "(or resume it from its checkpoint).")

    def _read_into(self, handle, view: memoryview, begin: int) -> None:
        handle.seek(begin)
        done, wanted = 0, view.nbytes
        while done < wanted:
            got = handle.readinto(view[done:])
            if not got:
                raise self._short(begin, done, wanted)
            done += got

    def slabs(self):
        """``(start, stop, rows)`` over the chunk; each ``rows`` is valid until the next slab is asked for."""
        n, d = self.shape
        itemsize = self.dtype.itemsize
        step = max(1, min(n, READ_BYTES // (d * itemsize)))
        try:
            handle = open(self.path, "rb", buffering=0)
        except OSError as error:
            raise ChunkFileError(f"{self.path}: cannot be opened during the run ({error.strerror or type(error).__name__}); "
                                 "the folder must stay readable (on a cluster: under the same path on every worker).") from None
        buffer = _take_buffer(step * d * itemsize)
        try:
            with handle:
                status = os.fstat(handle.fileno())
                if (status.st_size, status.st_mtime_ns) != self.stamp:
                    raise self._changed(status)
                for start in range(0, n, step):
                    stop = min(start + step, n)
                    rows = stop - start
                    if not self.fortran_order:  # rows start..stop are one contiguous run of bytes
                        slab = buffer[:rows * d * itemsize].view(self.dtype).reshape(rows, d)
                        self._read_into(handle, memoryview(slab).cast("B"), self.offset + start * d * itemsize)
                    else:  # column j holds rows start..stop contiguously: d reads into a column-major slab
                        slab = buffer[:rows * d * itemsize].view(self.dtype).reshape(d, rows).T
                        columns = buffer[:rows * d * itemsize].reshape(d, rows * itemsize)
                        for j in range(d):
                            self._read_into(handle, memoryview(columns[j]), self.offset + (j * n + start) * itemsize)
                    yield start, stop, slab
        finally:
            _return_buffer(buffer)


class _ZarrRows:
    """Rows start:stop of a zarr array, read in row slabs; the store is opened once per process."""

    def __init__(self, store: str, path: str | None, start: int, stop: int):
        self.store, self.path, self.start, self.stop = store, path, start, stop

    def load(self):
        key = ("zarr", self.store, self.path)
        array = _OPEN_FILES.get(key)
        if array is None:
            import zarr

            with _OPEN_LOCK:  # path "" (zarr's default, which zarr 2 reads as None too): the store's root array
                array = _OPEN_FILES.setdefault(key, zarr.open_array(self.store, path=self.path or "", mode="r"))
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
    pieces = [rows @ w.astype(rows.dtype, copy=False) for _, _, rows in slabs(block)]
    result = pieces[0] if len(pieces) == 1 else np.concatenate(pieces)
    if row_factor is None:
        return result
    return result * (row_factor if result.ndim == 1 else row_factor[:, None])


def _rows_transpose_times(block, p_block, row_factor):
    """A_k^T p_k = X_k^T (row_factor_k * p_k): products in the block's dtype, summed in float64."""
    weights = p_block if row_factor is None else p_block * row_factor
    total = None
    for start, stop, rows in slabs(block):
        piece = weights[..., start:stop].astype(rows.dtype, copy=False) @ rows
        total = piece.astype(np.float64) if total is None else total + piece
    return total


def largest_row_norm_and_finite(block, row_factor):
    """(max_i ||a_i||_2, all entries finite) over the block, overflow-safe (rows scaled by their max)."""
    largest = 0.0
    for start, stop, rows in slabs(block):
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


class WorkerLostError(ConnectionError):
    """A dask worker was lost and the run could not go on without it (recovery failed or impossible)."""


RECOVERY_ATTEMPTS = 3  # a product whose workers are lost is resubmitted at most this many times
WORKER_WAIT_S = 60.0  # how long a recovery waits for a worker to (re)join when none is left


class _Placed:
    """A value (a block's row factors, its slice of log p_0) placed beside its block's worker.

    The scheduler keeps the value on the driver, so when that worker is lost the value is placed
    again beside the block's new worker and the product resubmitted.
    """

    __slots__ = ("value", "block", "future", "__weakref__")

    def __init__(self, value, block: int, future):
        self.value, self.block, self.future = value, block, future


def _is_worker_loss(error: BaseException) -> bool:
    """True for the errors dask.distributed raises when a worker (and what it held) is gone."""
    import concurrent.futures

    name = type(error).__name__
    return (name in ("FutureCancelledError", "CommClosedError", "StreamClosedError")
            or isinstance(error, concurrent.futures.CancelledError))


class _Distributed:
    """A dask.distributed Client: block k always runs on the worker that holds (or reads) it.

    A worker lost mid-run (killed, crashed, its machine gone) is recovered: file blocks (``.npy``
    chunks, zarr rows) are pinned to the workers still there, the values placed beside the lost
    blocks are placed again from the driver's copies, and the product is resubmitted, at most
    :data:`RECOVERY_ATTEMPTS` times. Persisted dask blocks are recomputed by dask from their graph.
    Where that is impossible (no worker comes back within :data:`WORKER_WAIT_S`, a block that only
    lived on the lost worker, a task that kills every worker it runs on) a :class:`WorkerLostError`
    names the worker and the blocks and says what to do.
    """

    name = "distributed"
    _counter = itertools.count()

    def __init__(self, client, blocks):
        self.client = client
        self.token = uuid.uuid4().hex  # task keys unique across operators and driver processes
        self.futures = [_is_future(block) for block in blocks]
        self._block_futures = {k: block for k, block in enumerate(blocks) if _is_future(block)}
        self.workers = self._current_workers()
        if not self.workers:
            raise ValueError("the dask Client has no workers; start some (e.g. LocalCluster(n_workers=2)) first.")
        # Persisted futures already live somewhere: the scheduler runs their tasks there. File blocks
        # are pinned round-robin, so each worker reads (and page-caches) the same files every round.
        self.placement = [None if future else self.workers[k % len(self.workers)] for k, future in enumerate(self.futures)]
        self._placed: weakref.WeakSet[_Placed] = weakref.WeakSet()  # every value placed beside a block, placed again after a loss
        self.recoveries = []  # (lost workers, blocks moved), one entry per recovery, for the record

    def _current_workers(self) -> list:
        info = self.client.scheduler_info(n_workers=-1) if _takes_n_workers(self.client) else self.client.scheduler_info()
        return sorted(info["workers"])

    def map(self, function, blocks, arguments):
        failures = []
        for attempt in range(RECOVERY_ATTEMPTS + 1):
            try:
                return self._map_once(function, blocks, arguments)
            except Exception as error:  # noqa: BLE001 - only a worker loss is recovered, the rest re-raised
                if type(error).__name__ == "KilledWorker":
                    raise WorkerLostError(
                        f"a task of {function.__name__} killed every dask worker it ran on ({_brief(error)}); the "
                        "scheduler gave up on it. A block may need more memory than a worker has: use smaller chunks "
                        "or workers with more memory, and check the workers' logs.") from error
                if not _is_worker_loss(error):
                    raise
                failures.append(error)
                if attempt == RECOVERY_ATTEMPTS:
                    break
                try:
                    self._recover(error)
                except Exception as again:  # another worker lost while placing the values again: retry
                    if not _is_worker_loss(again):
                        raise
                    failures.append(again)
        raise WorkerLostError(
            f"dask workers were lost {len(failures)} times in one product ({function.__name__}; lost so far: "
            f"{self._lost_summary()}; last error: {_brief(failures[-1])}); the cluster is not stable enough to go on. "
            "Check the workers' logs (memory limits, crashes), then run again (with checkpoint= the run resumes "
            "from its last checkpoint).") from failures[-1]

    def _map_once(self, function, blocks, arguments):
        call = next(self._counter)
        groups: dict[Any, list[int]] = {}  # one client.map per placement: one batched submission instead of K messages
        for k, where in enumerate(self.placement):
            groups.setdefault(where, []).append(k)
        futures = [None] * len(blocks)
        for where, members in groups.items():
            columns = list(zip(*([value.future if isinstance(value, _Placed) else value for value in arguments[k]]
                                 for k in members)))
            keys = [f"gamedyn-{function.__name__}-{self.token}-{call}-{k}" for k in members]
            mapped = self.client.map(function, [blocks[k] for k in members], *columns, key=keys, pure=False,
                                     workers=None if where is None else [where], allow_other_workers=where is not None)
            for k, future in zip(members, mapped):
                futures[k] = future
        try:
            return self.client.gather(futures)
        except BaseException:
            try:  # nothing of a failed product keeps running on the cluster
                self.client.cancel([future for future in futures if future is not None])
            except Exception:  # noqa: BLE001 - the product's own error is the one to report
                pass
            raise

    def place(self, values):
        """Scatter each block's value once, to its block's worker: no n-sized upload per round."""
        placed: list[_Placed | None] = []
        for k, value in enumerate(values):
            if value is None:
                placed.append(None)
                continue
            item = _Placed(value, k, self._scatter(value, self.placement[k]))
            self._placed.add(item)
            placed.append(item)
        return placed

    def _scatter(self, value, where):
        return self.client.scatter(value, workers=None if where is None else [where], hash=False)

    def _recover(self, error):
        """After a lost worker: re-pin the file blocks, place the lost values again (from the driver)."""
        if getattr(self.client, "status", "running") in ("closing", "closed"):
            raise WorkerLostError(f"the dask Client was closed during the run ({_brief(error)}); keep the Client open "
                                  "until the run returns.") from error
        workers = self._current_workers()
        if not workers:
            try:
                self.client.wait_for_workers(1, timeout=WORKER_WAIT_S)
            except Exception:  # noqa: BLE001 - distributed raises TimeoutError (or OSError) here
                raise WorkerLostError(
                    f"every dask worker was lost ({', '.join(self.workers)}) and none joined within {WORKER_WAIT_S:g} s; "
                    "restart the workers (or the cluster), then run again (with checkpoint= the run resumes from its "
                    "last checkpoint).") from error
            workers = self._current_workers()
        lost = sorted(set(self.workers) - set(workers))
        gone = [k for k, future in enumerate(self.futures) if future and self._block_future_lost(k)]
        if gone:
            raise WorkerLostError(
                f"block(s) {_ranges(gone)} lived only on lost dask worker(s) {', '.join(lost) or '(unknown)'} and dask "
                "cannot recompute them (they were scattered, not built from a graph); rebuild the operator from the "
                "data's source (RowBlockedOperator.from_npy_folder or from_dask_array, which dask can recompute) and "
                "run again.") from error
        load = {worker: 0 for worker in workers}
        for where in self.placement:
            if where in load:
                load[where] += 1
        moved = []
        for k, where in enumerate(self.placement):
            if where is not None and where not in load:  # its worker is gone: the least loaded one reads it now
                target = min(workers, key=lambda worker: (load[worker], worker))
                self.placement[k] = target
                load[target] += 1
                moved.append(k)
        for item in list(self._placed):
            where = self.placement[item.block]
            if item.block in moved or getattr(item.future, "status", "finished") != "finished":
                item.future = self._scatter(item.value, where)
        self.workers = workers
        self.recoveries.append((lost, moved))

    def _lost_summary(self) -> str:
        lost = sorted({worker for workers, _ in self.recoveries for worker in workers})
        blocks = sorted({k for _, moved in self.recoveries for k in moved})
        if not lost:
            return "no worker identified"
        return f"worker(s) {', '.join(lost)}, block(s) {_ranges(blocks) if blocks else '(none moved)'}"

    def _block_future_lost(self, k) -> bool:
        """A block held as a dask future whose data are gone for good (scattered, not computable)."""
        return getattr(self._block_futures[k], "status", "finished") in ("lost", "cancelled", "error")


def _brief(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text[:200]}" if text else type(error).__name__


def _ranges(numbers) -> str:
    """[0, 1, 2, 5] -> '0-2, 5'."""
    parts: list[list[int]] = []
    for number in sorted(numbers):
        if parts and number == parts[-1][1] + 1:
            parts[-1][1] = number
        else:
            parts.append([number, number])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in parts)


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
    read of A; :func:`gamedyn.play` uses them (via :mod:`gamedyn.engine.rounds`) unless ``one_pass`` is
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
        self.one_pass = one_pass  # read by gamedyn.engine.rounds: False keeps the two-pass round
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
    def from_npy_folder(cls, folder, *, client=None, one_pass=True):
        """Read a folder of ``.npy`` row chunks out of core (see :func:`npy_folder_layout` for the layouts).

        ``X_000.npy, X_001.npy, ...`` plus ``y.npy`` (labels in {-1, +1} or {0, 1}): A = diag(y) X,
        never materialised; or ``A_000.npy, ...``: the signed rows themselves. Chunks are read in
        name order, by each task in row slabs of about :data:`READ_BYTES` with explicit file reads
        into a buffer reused per thread: a process's resident memory stays near one slab per
        thread, and a chunk truncated or rewritten during the run is a :class:`ChunkFileError`
        naming the file (never a crash of the process).

        Parameters
        ----------
        folder : str or path
            The folder of chunks.
        client : dask.distributed.Client, "threads" or None
            Where the tasks run (None: the current Client if any, else dask's threaded scheduler).
        one_pass : bool
            False keeps :func:`gamedyn.play`'s two-pass round.

        Returns
        -------
        RowBlockedOperator

        Raises
        ------
        ChunkFileError
            A chunk that is not a readable ``.npy`` file, or shorter than its header says.
        ValueError, TypeError
            Chunks of different widths or dtypes, a bad ``y.npy``, or labels that do not match.

        Examples
        --------
        >>> import numpy as np, tempfile, os
        >>> folder = tempfile.mkdtemp()
        >>> np.save(os.path.join(folder, "A_000.npy"), np.array([[0.6, 0.8], [1.0, 0.0]]))
        >>> np.save(os.path.join(folder, "A_001.npy"), np.array([[0.0, 1.0]]))
        >>> A = RowBlockedOperator.from_npy_folder(folder, client="threads")
        >>> A.shape, A @ np.array([1.0, 1.0])
        ((3, 2), array([1.4, 1. , 1. ]))
        """
        _require_dask("RowBlockedOperator.from_npy_folder")
        paths, labels = npy_folder_layout(folder)
        blocks: list = []
        row_counts: list[int] = []
        columns: dict[int, str] = {}  # width -> the first chunk of that width
        dtypes: dict[np.dtype, str] = {}  # dtype -> the first chunk of that dtype
        for path in paths:
            header = _read_npy_header(path)
            shape = header["shape"]
            if len(shape) != 2 or 0 in shape:
                raise ValueError(f"{path}: every chunk must be a non-empty 2-D array (rows x d), got shape {shape}; "
                                 "re-save it with numpy.save(path, rows) where rows is 2-D.")
            columns.setdefault(shape[1], path)
            dtypes.setdefault(header["dtype"], path)
            row_counts.append(shape[0])
            blocks.append(_NpyFile(path, header))
        if len(columns) != 1:
            shown = ", ".join(f"{os.path.basename(path)}: {width}" for width, path in columns.items())
            raise ValueError(f"{folder}: the chunks have different numbers of columns {sorted(columns)} (first seen in "
                             f"{shown}); they must all be d.")
        dtype = next(iter(dtypes))
        if len(dtypes) != 1 or dtype not in _FLOAT_DTYPES or not dtype.isnative:
            shown = ", ".join(f"{os.path.basename(path)}: {kind}" for kind, path in dtypes.items())
            raise TypeError(f"{folder}: chunks must all be float32 or all float64 (native byte order), found "
                            f"{sorted(map(str, dtypes))} ({shown}); re-save them with array.astype('float64').")
        row_factors = None
        if labels is not None:
            values = load_numpy(labels, ".npy")
            if not isinstance(values, np.ndarray) or values.ndim != 1:
                raise ValueError(f"{labels}: y.npy must hold a 1-D array of the n labels, got shape "
                                 f"{getattr(values, 'shape', None)}; save it with numpy.save(path, y.ravel()).")
            signs = signs_from_labels(values, labels)
            if signs.shape[0] != sum(row_counts):
                raise ValueError(f"{labels} has {signs.shape[0]} labels but the X chunks have {sum(row_counts)} rows; they must match.")
            offsets = np.concatenate([[0], np.cumsum(row_counts)])
            row_factors = [signs[offsets[k]:offsets[k + 1]] for k in range(len(blocks))]
        return cls(blocks, row_counts, next(iter(columns)), dtype, row_factors=row_factors, client=client,
                   description=f".npy chunks of {os.fspath(folder)}", one_pass=one_pass)

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

    # ---- a round's two products from one read of A (gamedyn.engine.rounds)

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
        pieces = self.scheduler.map(rows_both_products, self.blocks, arguments)
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
            pieces = self.scheduler.map(rows_softmax_response, self.blocks, arguments)
            z = np.concatenate([piece[0] for piece in pieces])
            return z, merge_log_sum_exp([piece[1:] for piece in pieces], self.shape[1])

        return step

    # ---- one pass over the data

    def largest_row_norm(self) -> float:
        """max_i ||a_i||_2 in one pass (one task per block), or ValueError if an entry is NaN or infinite."""
        results = self.scheduler.map(largest_row_norm_and_finite, self.blocks, [(f,) for f in self._factors()])
        bad = [k for k, (_, finite) in enumerate(results) if not finite]
        if bad:
            where = ", ".join(getattr(self.blocks[k], "path", f"block {k}") for k in bad[:3]) + (", ..." if len(bad) > 3 else "")
            raise ValueError(f"{self!r} contains NaN or infinite entries (in {where}); remove or impute them first.")
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
