"""Stable numerical primitives shared by learners, originals and the logistic module."""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy.linalg.blas import dasum as _dasum, daxpy as _daxpy, ddot as _ddot, dscal as _dscal

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


def _contiguous(x):
    """x as a C-contiguous float64 array (itself when it is one): BLAS offsets need one stride."""
    if x.__class__ is np.ndarray and x.dtype is _FLOAT64 and x.flags.c_contiguous:
        return x
    return np.ascontiguousarray(x, dtype=np.float64)


def axpy(x, y, a, _daxpy=_daxpy, _block=LEVEL1_BLOCK, _len=len):
    """``y += a * x`` in place for non-empty 1-D contiguous float64 arrays of one length; returns ``y``.

    One BLAS daxpy up to :data:`LEVEL1_BLOCK` numbers, blocks of it beyond (never threaded; the same
    bits either way).
    """
    n = _len(y)
    if n <= _block:
        return _daxpy(x, y, n, a)  # positional: f2py parses keywords at ~0.1 us a call
    x = _contiguous(x)  # converted once, not once a block
    for start in range(0, n, _block):
        _daxpy(x, y, min(_block, n - start), a, start, 1, start)  # n, a, offx, incx, offy
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
    ``x @ y``) up to :data:`LEVEL1_BLOCK` numbers; beyond it the blocks' products added in order."""
    n = _len(x)
    if n <= _block:
        return float(x @ y)
    total = 0.0
    for start in range(0, n, _block):
        total += float(x[start:start + _block] @ y[start:start + _block])
    return total


def scal(a, x, _dscal=_dscal, _block=LEVEL1_BLOCK, _len=len):
    """``x *= a`` in place for a non-empty 1-D contiguous float64 array; returns ``x`` (BLAS dscal, in blocks of
    at most :data:`LEVEL1_BLOCK` numbers: never threaded, the same bits either way)."""
    n = _len(x)
    if n <= _block:
        return _dscal(a, x)
    for start in range(0, n, _block):
        _dscal(a, x, min(_block, n - start), start)  # n, offx
    return x


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


def log_sum_exp(x) -> float:
    """``log(sum(exp(x)))``, shifted by ``max(x)`` so it never overflows."""
    x = np.asarray(x, dtype=np.float64)
    top = np.max(x)
    if not np.isfinite(top):
        return float(top)
    return float(top + np.log(np.sum(np.exp(x - top))))


def softmin(z, scale: float = 1.0):
    """The paper's softmax convention sigma(scale * z)_i = exp(-scale z_i) / sum_j exp(-scale z_j).

    Computed stably by subtracting ``min_j z_j`` (spec section 1). It is the entropy argmin
    ``argmin_{p in simplex} scale <z, p> + KL(p || uniform)``.
    """
    z = np.asarray(z)
    if z.dtype not in (np.float32, np.float64):
        z = z.astype(np.float64)
    logits = -scale * (z - np.min(z))
    weights = np.exp(logits)
    return weights / np.sum(weights)


def softmax_logits(logits):
    """``exp(logits) / sum(exp(logits))`` along axis 0 with the max subtracted; ``-inf`` entries give 0.

    A trailing axis holds independent batched games (one softmax per column).
    """
    logits = np.asarray(logits)
    return softmax_in_place(logits - logits.max(axis=0), shifted=True)


def softmax_in_place(logits, *, shifted: bool = False):
    """:func:`softmax_logits` computed in the caller's own float array ``logits`` (overwritten)."""
    if not shifted:
        logits -= logits.max(axis=0)
    np.exp(logits, out=logits)
    logits /= logits.sum(axis=0)
    return logits


def pnorm_link(theta, p: float):
    """The p-norm link function f_p(theta) = grad (1/2)||theta||_p^2 (spec section 8).

    ``f_p(theta) = sign(theta) |theta|^(p-1) ||theta||_p^(2-p)``; it is 1-homogeneous with
    ``f_p(0) = 0``. The inverse of f_p is f_q with 1/p + 1/q = 1. Computed on theta / max|theta|
    so that large exponents p - 1 neither overflow nor underflow.
    """
    theta = np.asarray(theta, dtype=np.float64)
    if theta.ndim > 1:  # batched games: one link per column
        return np.stack([pnorm_link(column, p) for column in np.moveaxis(theta, -1, 0)], axis=-1)
    scale = np.max(np.abs(theta)) if theta.size else 0.0
    if scale == 0.0:
        return np.zeros_like(theta)
    unit = theta / scale
    norm = np.linalg.norm(unit, ord=p)
    return scale * np.sign(unit) * np.abs(unit) ** (p - 1.0) * norm ** (2.0 - p)


class NumericalRangeError(FloatingPointError):
    """A quantity left float64's range (overflowed to +-inf or became NaN) where no exact rescaling exists.

    Raised instead of returning a silently wrong value; the message names the quantity, its
    magnitude and a fix (usually: rescale the payoff and the learners' steps).
    """


# Below this magnitude squares cannot overflow or lose precision to underflow.
_SAFE_LOW, _SAFE_HIGH = 1e-150, 1e150


def scaled_norm(z) -> tuple[float, float]:
    """``(scale, unit_norm)`` with ``||z||_2 = scale * unit_norm``, safe from overflow and underflow.

    In the common range the scale is 1 and the norm is ``sqrt(z @ z)``; outside it the vector is
    divided by ``scale = max|z_i|`` first (so ``1 <= unit_norm <= sqrt(d)``), as in LAPACK's
    ``dnrm2``. ``scale`` is NaN or inf when ``z`` holds one; ``(0, 0)`` for the zero vector.
    """
    if z.__class__ is not np.ndarray or z.dtype is not _FLOAT64:
        z = np.asarray(z, dtype=np.float64)
    if not z.size:
        return 0.0, 0.0
    square = dot(z, z) if z.ndim == 1 else float(np.sum(z * z))
    if 1e-290 < square < 1e290:  # then _SAFE_LOW < max|z_i| < _SAFE_HIGH (d < 1e10): one dot product
        return 1.0, math.sqrt(square)
    top = float(np.abs(z).max())
    if _SAFE_LOW < top < _SAFE_HIGH:
        return 1.0, math.sqrt(dot(z, z) if z.ndim == 1 else float(np.sum(z * z)))
    if top == 0.0 or not math.isfinite(top):
        return top, (0.0 if top == 0.0 else top)
    unit = z / top
    return top, math.sqrt(dot(unit, unit) if unit.ndim == 1 else float(np.sum(unit * unit)))


def euclidean_norm(z) -> float:
    """``||z||_2`` without spurious overflow or underflow (inf only when the norm exceeds float64)."""
    scale, unit_norm = scaled_norm(z)
    return scale * unit_norm  # Python floats: an overflow gives inf, without a warning



def add_scaled(target, weight, vector):
    """``target += weight * vector`` in place; returns ``target``.

    One BLAS ``daxpy`` pass (:func:`axpy`: no temporary array, never threaded) when both are
    C-contiguous float64 arrays of one shape and ``weight`` is a scalar, which is every running sum
    of a round; otherwise numpy's two passes. Either way the sum is the same up to rounding (daxpy
    may fuse the multiply-add).
    """
    if (vector.__class__ is np.ndarray and target.dtype is _FLOAT64 and vector.dtype is _FLOAT64
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
