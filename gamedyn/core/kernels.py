"""The BLAS level-1 seam: every vector kernel of the hot path (axpy, dot, inner, scal, asum, add_scaled).

The runner's running sums, the learners' players, :class:`gamedyn.engine.Bilinear`'s products and the
certificate tracker's ``observe`` call these, never scipy's BLAS directly (tests/test_threads.py
checks that no other module imports a level-1 routine).
"""

from __future__ import annotations

import functools
from typing import Any, TypeGuard

import numpy as np
from scipy.linalg.blas import dasum as _dasum
from scipy.linalg.blas import daxpy as _daxpy
from scipy.linalg.blas import ddot as _ddot
from scipy.linalg.blas import dscal as _dscal

__all__ = ["LEVEL1_BLOCK", "NUMPY", "Backend", "add_scaled", "all_finite", "asum", "axpy", "backend_of", "dot", "inner",
           "host_device", "is_foreign", "is_numpy", "is_python_float", "is_real_floating", "namespace_of", "ones", "plus_scaled", "scal",
           "to_host_scalar", "to_numpy"]

_FLOAT64 = np.dtype(np.float64)


# ------------------------------------------------------------------------------------------------
# BLAS level 1 that never wakes a thread.
#
# OpenBLAS (the BLAS in numpy's and scipy's wheels) splits one level-1 call over its thread pool
# above a size threshold: axpy and dot above 10,000 numbers (OpenBLAS's interface/axpy.c and its
# x86_64 ddot kernel), scal above 1,048,576. Measured with OpenBLAS 0.3.30 on this machine: the
# pool's worker threads get no CPU time for calls up to those sizes and spin beyond them. A
# threaded call pays a wake-up every time, and on a busy machine its threads wait for a core:
# scipy's daxpy on 18,000 numbers took 8 ms instead of 4 us, and a digits fit 46.7 s of CPU
# instead of 0.97 s. The kernels below call BLAS on blocks of at most LEVEL1_BLOCK numbers, so no
# vector operation of a round can reach the pool, whatever OPENBLAS_NUM_THREADS says (the big
# products A @ w and A.T @ p, level 2 and 3, still may use it). Every level-1 call of the hot path
# (the runner's sums, the players, Bilinear, the certificate tracker, the regularizers) goes through
# axpy, dot, inner, scal and asum here (tests/test_threads.py checks it). axpy and scal act entry by entry:
# blocked or not, the result is the same bit for bit. dot and asum add the blocks' sums in order:
# one BLAS call up to LEVEL1_BLOCK numbers (the same result as before), and beyond it a rounding
# of its own that no longer depends on the thread count (OpenBLAS's threaded sum adds its
# threads' partial sums, so the old result changed with the number of threads).
LEVEL1_BLOCK = 8192


_np_asarray = np.asarray  # the one conversion of a foreign array to numpy: to_numpy, at a boundary
_NDARRAY = np.ndarray


# ------------------------------------------------------------------------------------------------
# The fast-path tests, in this one place. The numpy/CPU specialisations of the hot path (BLAS level 1 in
# place, a float64 buffer reused, a Python float's arithmetic) apply to exactly a numpy ndarray, not to a
# subclass of it (a masked array, a matrix, gamedyn's own UnboundedGames), nor to another namespace's
# array (torch, JAX, CuPy, array_api_strict: the Backend below). Every other module asks these two
# predicates (this seam's own kernels test inline against the same two classes, a call fewer a round);
# none tests a class itself (tests/test_architecture.py checks it).


def is_numpy(x: Any) -> TypeGuard[np.ndarray]:
    """Whether ``x`` is exactly a numpy ``ndarray`` (the numpy fast paths' test; a subclass or a foreign array is not)."""
    return x.__class__ is _NDARRAY


def is_python_float(x: Any) -> TypeGuard[float]:
    """Whether ``x`` is exactly a Python ``float`` (the scalar fast paths' test: no numpy scalar, no 0-d array)."""
    return x.__class__ is float


def _contiguous(x):
    """x as a C-contiguous float64 array (itself when it is one): BLAS offsets need one stride."""
    if x.__class__ is _NDARRAY and x.dtype is _FLOAT64 and x.flags.c_contiguous:
        return x
    return np.ascontiguousarray(x, dtype=np.float64)


# The entry-by-entry kernels' block (axpy, scal): LEVEL1_BLOCK while BLAS may thread; unlimited while a run
# holds BLAS to one thread (single_blas_thread), when one call is cheaper than many (a batched game's (n, K)
# sums: one daxpy instead of 25). dot and asum keep their blocks always: their sums' order is their bits.
_entrywise_block = [LEVEL1_BLOCK]
_unblocking = [0]  # how many single_blas_thread contexts hold the block lifted (in any thread)


def axpy(x, y, a, _daxpy=_daxpy, _block=_entrywise_block, _len=len):
    """``y += a * x`` in place for non-empty 1-D contiguous float64 arrays of one length; returns ``y``.

    One BLAS daxpy up to :data:`LEVEL1_BLOCK` numbers, blocks of it beyond (never threaded; the same
    bits either way); one call of any length while :func:`single_blas_thread` holds BLAS to one thread.
    """
    n = _len(y)
    block = _block[0]
    if n <= block:
        return _daxpy(x, y, n, a)  # positional: f2py parses keywords at ~0.1 us a call
    x = _contiguous(x)  # converted once, not once a block
    for start in range(0, n, block):
        _daxpy(x, y, min(block, n - start), a, start, 1, start)  # n, a, offx, incx, offy
    return y


def dot(x, y, _ddot=_ddot, _block=LEVEL1_BLOCK, _len=len) -> float:
    """``<x, y>`` of non-empty 1-D float64 arrays of one length: one BLAS ddot up to :data:`LEVEL1_BLOCK` numbers,
    beyond it the blocks' ddots added in order (never threaded)."""
    n = _len(x)
    if n <= _block:
        return _ddot(x, y)
    x, y = _contiguous(x), _contiguous(y)  # converted once, not once a block
    total = 0.0
    for start in range(0, n, _block):
        total += _ddot(x, y, min(_block, n - start), start, 1, start)  # n, offx, incx, offy
    return total


def inner(x, y, _block=LEVEL1_BLOCK, _len=len) -> float:
    """``float(x @ y)`` for 1-D arrays of any float dtype (numpy's own product, so the same result as
    ``x @ y``) up to :data:`LEVEL1_BLOCK` numbers; beyond it the blocks' products added in order.
    Foreign arrays (:func:`is_foreign`): ``x @ y`` as a 0-d array of their namespace, on their device."""
    if x.__class__ is not _NDARRAY and is_foreign(x):
        return x @ y  # a 0-d array on x's device: no host synchronisation
    n = _len(x)
    if n <= _block:
        return float(x @ y)
    total = 0.0
    for start in range(0, n, _block):
        total += float(x[start:start + _block] @ y[start:start + _block])
    return total


def scal(a, x, _dscal=_dscal, _block=_entrywise_block, _len=len):
    """``x *= a`` in place for a non-empty 1-D contiguous float64 array; returns ``x`` (BLAS dscal, in blocks of
    at most :data:`LEVEL1_BLOCK` numbers: never threaded, the same bits either way; one call while
    :func:`single_blas_thread` holds BLAS to one thread)."""
    n = _len(x)
    block = _block[0]
    if n <= block:
        return _dscal(a, x)
    for start in range(0, n, block):
        _dscal(a, x, min(block, n - start), start)  # n, offx
    return x


# ------------------------------------------------------------------------ one BLAS thread for a run

SMALL_PRODUCT = 1 << 21  # multiply-adds: below this a threaded product costs more (wake-ups) than it saves
_controller: list = []  # [the BLAS libraries' threadpoolctl controllers, or None], found once


def _blas_libraries():
    if not _controller:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:
            _controller.append(None)
        else:
            _controller.append(ThreadpoolController().select(user_api="blas").lib_controllers or None)
    return _controller[0]


class single_blas_thread:
    """One BLAS thread for the duration of a run (a context manager; :func:`gamedyn.play` enters one per run).

    ``limit=True`` (a batched one-vs-rest game, or products below :data:`SMALL_PRODUCT` multiply-adds)
    holds every BLAS library to one thread through threadpoolctl when it is importable: those
    products are too small to gain from threads, and on a busy machine each threaded call waits for
    a core. Whenever BLAS is known to run one thread (so limited, or pinned by ``OPENBLAS_NUM_THREADS=1``),
    the entry-by-entry kernels (:func:`axpy`, :func:`scal`) make one call instead of blocks of
    :data:`LEVEL1_BLOCK` (the same bits). Without threadpoolctl nothing changes: the blocks stay.
    Nesting is fine (the outer context's settings are restored on leaving).
    """

    def __init__(self, limit: bool = True):
        self.limit = limit
        self._limited: list | None = None
        self._unblocked = False  # whether this context lifted the block (and counts in _unblocking)

    def __enter__(self):
        libraries = _blas_libraries()
        if libraries is None:
            return self
        threads = [lib.get_num_threads() for lib in libraries]
        if all(count == 1 for count in threads):
            self._unblock()
        elif self.limit:
            self._limited = list(zip(libraries, threads))
            for lib in libraries:
                lib.set_num_threads(1)
            self._unblock()
        return self

    def _unblock(self) -> None:
        _unblocking[0] += 1
        _entrywise_block[0] = 1 << 62
        self._unblocked = True

    def __exit__(self, *exc):
        # A count, not a saved value: runs in threads (solve_efg's lanes) may leave in any order, and the
        # block comes back when the last context that lifted it leaves.
        if self._unblocked:
            self._unblocked = False
            _unblocking[0] -= 1
            if _unblocking[0] == 0:
                _entrywise_block[0] = LEVEL1_BLOCK
        if self._limited is not None:
            for lib, count in self._limited:
                lib.set_num_threads(count)
            self._limited = None
        return False


def asum(x, _dasum=_dasum, _block=LEVEL1_BLOCK, _len=len) -> float:
    """``sum_i |x_i|`` of a non-empty 1-D float64 array (BLAS dasum; in blocks beyond :data:`LEVEL1_BLOCK`)."""
    n = _len(x)
    if n <= _block:
        return _dasum(x)
    x = _contiguous(x)
    total = 0.0
    for start in range(0, n, _block):
        total += _dasum(x, min(_block, n - start), start)  # n, offx
    return total


def add_scaled(target, weight, vector):
    """``target += weight * vector`` in place; returns ``target``.

    One BLAS ``daxpy`` pass (:func:`axpy`: no temporary array, never threaded) when both are
    C-contiguous float64 arrays of one shape and ``weight`` is a scalar, which is every running sum
    of a round; otherwise numpy's two passes. Either way the sum is the same up to rounding (daxpy
    may fuse the multiply-add).
    """
    if (vector.__class__ is _NDARRAY and target.dtype is _FLOAT64 and vector.dtype is _FLOAT64
            and target.shape == vector.shape and target.flags.c_contiguous and vector.flags.c_contiguous
            and target.size and isinstance(weight, (float, np.floating))):
        if target.ndim == 1:
            axpy(vector, target, weight)
        else:
            axpy(vector.reshape(-1), target.reshape(-1), weight)
        return target
    if weight == 1.0:
        target += vector
    else:
        target += weight * vector
    return target


def plus_scaled(base, weight, vector):
    """A new array ``base + weight * vector`` (``base`` untouched): a copy and one :func:`add_scaled`."""
    if base.dtype is _FLOAT64:
        return add_scaled(base.copy(), weight, vector)
    return base + weight * vector



@functools.lru_cache(maxsize=16)
def ones(size: int) -> np.ndarray:
    """A read-only vector of ``size`` ones (cached): ``ddot(x, ones(n))`` is the sum of x in one BLAS
    call, about 0.2 us against 1.3 us for ``np.add.reduce`` at n = 100. (BLAS ``dasum`` would be as
    fast, but OpenBLAS's dasum rounds differently with the array's alignment; ddot does not, so the
    sum, and every run, is the same bit for bit.)"""
    vector = np.ones(size)
    vector.flags.writeable = False
    return vector


# ------------------------------------------------------------------------------ the backend seam
#
# Everything above is the numpy/CPU specialisation: scipy's BLAS level 1 on float64 numpy arrays, what
# makes small games fast. Any other array (torch, JAX, CuPy, array_api_strict: anything with the array
# API) is computed by its own namespace's functions on its own device: the namespace and device are
# chosen once per run (from the payoff's matrix, in its construction) and carried by the objects that
# compute (:class:`Backend`); array_api_compat is imported only when such an array comes in.


@functools.lru_cache(maxsize=1)
def _compat():
    try:
        import array_api_compat
    except ImportError:  # pragma: no cover - the extra is missing
        raise ImportError(
            "gamedyn computes on a torch, JAX, CuPy or array-API array through array_api_compat, which is not "
            "installed: pip install 'gamedyn[array-api]' (or gamedyn[torch] / gamedyn[jax]), or pass a numpy array."
        ) from None
    return array_api_compat


def is_foreign(x) -> bool:
    """Whether ``x`` is an array of another namespace than numpy's (a torch tensor, a JAX or CuPy array, ...).

    numpy arrays and scalars, scipy.sparse matrices and operators, Python numbers and lists are not."""
    if x.__class__ is _NDARRAY or x is None:
        return False
    module = type(x).__module__
    if module.startswith(("numpy", "scipy", "builtins", "dask")) or isinstance(x, (np.ndarray, np.generic)):
        return False  # (a numpy subclass of another module, e.g. gamedyn's UnboundedGames, is numpy)
    return hasattr(x, "__array_namespace__") or module.startswith(("torch", "jax", "jaxlib", "cupy"))


class Backend:
    """The array namespace and device one run computes on (immutable; one per run, carried by its objects).

    ``xp`` is the array API namespace (array_api_compat's wrapper for torch, numpy, CuPy, JAX; the
    array's own for array_api_strict); ``device`` the inputs' device; ``name`` a short label
    (``"numpy"``, ``"torch"``, ``"jax"``, ...). :data:`NUMPY` is the numpy/CPU backend, whose kernels are
    the scipy BLAS level-1 calls above. Built by :func:`backend_of`.
    """

    __slots__ = ("xp", "device", "name", "is_numpy", "float64", "float32")
    # the slots' types (annotations only; set once by __init__)
    xp: Any
    device: Any
    name: str
    is_numpy: bool
    float64: Any
    float32: Any

    def __init__(self, xp, device, name: str):
        for slot, value in (("xp", xp), ("device", device), ("name", name), ("is_numpy", name == "numpy"),
                            ("float64", xp.float64), ("float32", xp.float32)):
            object.__setattr__(self, slot, value)

    def __setattr__(self, name, value):
        raise AttributeError("a Backend is immutable")

    def __repr__(self) -> str:
        return f"Backend({self.name!r}, device={self.device!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Backend) and self.name == other.name and str(self.device) == str(other.device)

    def __hash__(self):
        return hash((self.name, str(self.device)))

    def zeros(self, shape, dtype=None):
        """Zeros of ``shape`` on this backend's device (float64 unless ``dtype``)."""
        if self.is_numpy:
            return np.zeros(shape, dtype=np.float64 if dtype is None else dtype)
        return self.xp.zeros(shape, dtype=self.float64 if dtype is None else dtype, device=self.device)

    def asarray(self, x, dtype=None):
        """``x`` (a numpy array, a number, or an array of this namespace) as an array on this device (float64 unless ``dtype``)."""
        if self.is_numpy:
            return np.asarray(x, dtype=np.float64 if dtype is None else dtype)
        dtype = self.float64 if dtype is None else dtype
        if is_foreign(x):
            if x.dtype != dtype:
                x = self.xp.astype(x, dtype)
            return x
        return self.xp.asarray(np.asarray(x, dtype=np.float64), dtype=dtype, device=self.device)

    def to_numpy(self, x):
        """A numpy copy of ``x`` on the host (checkpoints, the exact oracles, plots); numpy input as it is."""
        return to_numpy(x)


NUMPY = Backend(np, "cpu", "numpy")
_BACKENDS: dict = {}


def _name_of(x) -> str:
    module = type(x).__module__.split(".")[0]
    return {"jaxlib": "jax"}.get(module, module)


def backend_of(x) -> Backend:
    """The :class:`Backend` of an array: :data:`NUMPY` for numpy, scipy and anything not foreign
    (:func:`is_foreign`), else its array_api_compat namespace and device (one lookup per type and device).
    An operand that declares a ``backend`` attribute holding a :class:`Backend` (a capability, e.g.
    :class:`gamedyn.arrays.batched.BatchedMatrix` of a torch X) has that one."""
    if x.__class__ is _NDARRAY:
        return NUMPY
    declared = getattr(x, "backend", None)  # an operand that declares its backend (gamedyn.BatchedMatrix of a torch X)
    if isinstance(declared, Backend):
        return declared
    if not is_foreign(x):
        return NUMPY
    compat = _compat()
    device = compat.device(x)
    key = (type(x), str(device))
    backend = _BACKENDS.get(key)
    if backend is None:
        backend = _BACKENDS[key] = Backend(compat.array_namespace(x), device, _name_of(x))
    return backend


def namespace_of(x):
    """``x``'s array namespace: numpy for numpy (and non-arrays), else array_api_compat's (see :func:`backend_of`)."""
    return backend_of(x).xp


def to_host_scalar(x) -> float:
    """The one host synchronisation: ``x`` (a 0-d array of any namespace and device, or a number) as a Python float.

    Used only where a scalar is genuinely needed (stop rules, NaN checks, certificates' verdicts);
    on a GPU it waits for the device. Every other step of a round stays on the device."""
    if x.__class__ is float:
        return x
    return float(x)


def host_device(xp):
    """The CPU device of the array namespace ``xp`` (the one a host copy goes to): the device of its
    ``__array_namespace_info__().devices()`` whose name says CPU (array_api_strict's ``CPU_DEVICE``, torch's
    and JAX's ``cpu``), else ``"cpu"``."""
    info = getattr(xp, "__array_namespace_info__", None)
    if info is not None:
        try:
            devices = info().devices()
        except Exception:  # pragma: no cover - a namespace whose inspection fails
            devices = ()
        for device in devices:
            if "cpu" in str(device).lower():
                return device
    return "cpu"


def to_numpy(x):
    """A numpy array of ``x``'s values on the host (a copy for a device array; numpy input unchanged).

    The one explicit, device-aware host copy: a device array is moved to its namespace's CPU device
    first (:func:`host_device`; torch's ``.cpu()``, CuPy's ``.get()``), so an array on a GPU (or on
    array_api_strict's ``Device("device1")``, which stands in for one) converts instead of raising."""
    if not is_foreign(x):
        return x if x.__class__ is _NDARRAY else _np_asarray(x)
    module = type(x).__module__
    if module.startswith("torch"):
        return x.detach().cpu().numpy()
    if module.startswith("cupy"):  # pragma: no cover - no GPU here
        return x.get()
    compat = _compat()
    try:
        x = compat.to_device(x, host_device(compat.array_namespace(x)))
    except Exception:  # a namespace without a CPU device among its devices: its own conversion
        pass
    return _np_asarray(x)


def all_finite(x) -> bool:
    """Whether every entry of ``x`` (a number, a numpy array or an array of another namespace, on its device)
    is finite: one reduction, and for a device array one host synchronisation (for checks at a run's door)."""
    if is_foreign(x):
        xp = namespace_of(x)
        return bool(to_host_scalar(xp.all(xp.isfinite(x))))
    return bool(np.all(np.isfinite(x)))


def is_real_floating(x) -> bool:
    """Whether ``x`` holds real floating-point numbers (float64, float32, ...; a Python float), in any namespace."""
    if is_foreign(x):
        xp = namespace_of(x)
        isdtype = getattr(xp, "isdtype", None)
        if isdtype is not None:
            return bool(isdtype(x.dtype, "real floating"))
        return x.dtype in (xp.float64, xp.float32)
    dtype = getattr(x, "dtype", None)
    return isinstance(x, float) if dtype is None else np.dtype(dtype).kind == "f"
