r"""The compiled one-pass kernels (the optional extra ``gamedyn[numba]``): a round's work on A in one blocked pass.

:mod:`gamedyn.arrays.one_pass` reads A once per round in cache-sized row groups driven from Python
(numpy and BLAS calls per group). Here the same round is one compiled loop (numba) over the rows:
each row gives :math:`z_i=a_i^\top w`, its logit
:math:`l_i=\log p_{0,i}-\eta(\mathrm{base}_i+\alpha z_i)`, its exponential :math:`e^{l_i-m}`
(:func:`exp_nonpositive`) and its share :math:`e^{l_i-m}a_i` of :math:`A^\top e^{l-m}` while the row is
in L1 cache: the online softmax, whose reference maximum m is raised (the sums rescaled) only when a
logit passes it by more than 32. A is read from memory once. A float64 A is summed in float64; a
float32 A in float32, as its BLAS would (z_i a float32 sum, the shares of :math:`A^\top e` summed in
float32 over at most 64 rows, then in float64), so it keeps the documented float32 accuracy (1e-6)
at the cost of its own bytes.

**The row-block kernel (float32).** A float32 row costs half a float64 row's bytes but the same fixed work
(its dot product's reduction, its logit, one serial exponential of ~20 ns on whose result the row's share
waits): at 100000 x 100 the row-at-a-time pass took 2.0 reads of A. :func:`dense_softmax_blocks` runs a
float32 A by blocks of :func:`block_rows` rows: the block's z_i, then its logits, their maximum and their
exponentials in vectorised loops (no serial exponential: :func:`exp_shifted`, whose integer part is taken by a
rounding constant, since AVX2 has no float-to-int64 conversion and :func:`_exp_nonpositive`'s stayed scalar), then
its shares while its rows are in cache, four rows a sweep of the float32 partial sums (a quarter of their loads and
stores: the sweep row by row cost as much as the dot products).
Its float32 arithmetic is the row-at-a-time kernel's (the same float32 dot products, the weights e_i
rounded to float32, float32 sums of shares over at most 64 rows flushed into float64), so the float32
rounding bound is unchanged; only the reference maximum m (a block's, not a row's) and the order of the
float64 additions differ (measured relative difference 3e-8..1e-7, well inside float32's 1e-6; the four-row
sweep adds its four shares in float32 before the partial sum: another order of the same float32 additions). Measured
(``python benchmarks/float32_row_threshold.py``, one thread, pass / one float32 ``A @ x``): 0.99 at
100000 x 100, 0.77 at 20000 x 500 (1.1 and 0.8 before the vectorised exponential and the four-row sweep). For a float64 A the row-at-a-time kernel stays: the row-block one
measured no faster there (0.86-0.98 against 0.74-0.85). (The products of :meth:`CompiledRows.products`, mirror prox's, widen
every entry to float64.) Dense C-ordered float32 / float64 arrays and scipy CSR matrices (any index dtype) are supported.

**Where it is used.** :func:`gamedyn.arrays.one_pass.one_pass_operator` gives A this capability
(:class:`CompiledRows`) when numba is importable and :data:`ENABLED` (the environment variable
``GAMEDYN_NUMBA=0`` turns it off before import; tests set the flag), for a dense A of at least
:data:`gamedyn.arrays.one_pass.COMPILED_MIN_BYTES` and a CSR A of at least
:data:`gamedyn.arrays.one_pass.COMPILED_MIN_NNZ` stored entries. The rounds of
:mod:`gamedyn.engine.rounds` that use it are today's one-pass rounds, chosen by the same declarations;
without numba the numpy kernels of :mod:`gamedyn.arrays.one_pass` (dense A of at least 32 MiB) or
the two-pass round run, unchanged.

**Threads.** :data:`THREADS` (default 1) splits the rows into that many contiguous chunks run by
numba's thread pool; each chunk returns its ``(m, S, v)`` and the driver merges them exactly by
log-sum-exp (as :func:`gamedyn.arrays.one_pass.merge_log_sum_exp` merges the blocks of a distributed A). ``benchmarks/run.py`` (section "one read of A") measures 1 and 2 threads.
With numba's OpenMP threading layer, set ``OMP_WAIT_POLICY=PASSIVE`` (before the first threaded call) or
``NUMBA_THREADING_LAYER=workqueue``: OpenMP's default spin-waiting between rounds cost more than the second
thread saved on a shared 2-core machine (smooth perceptron, 2 threads, round / one read, CPU: 2.85-3.11 at
float32 20000 x 500 and 3.87-3.99 at 100000 x 100 spinning, 0.84 and 1.40 passive, against 0.86-0.93 and
1.34-1.40 with one thread).
"""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np

from gamedyn.core.kernels import is_numpy

__all__ = ["BLOCK_ROWS", "ENABLED", "LONG_ROW_BLOCK_ROWS", "LONG_ROW_BYTES", "THREADS", "CompiledRows", "available", "block_rows",
           "compiled_operator", "exp_nonpositive", "kernels"]

THREADS = 1  # row chunks run in parallel by numba's pool (merged by log-sum-exp); 1: the serial kernels
ENABLED = os.environ.get("GAMEDYN_NUMBA", "1") != "0"  # False: the numpy kernels (one_pass.py) and two-pass rounds

_numba: Any = None
_ir: Any = None
_intrinsic: Any = None
try:  # the optional extra: numba (pip install 'gamedyn[numba]'); the same types whether it is installed or not
    import llvmlite.ir
    import numba
    import numba.extending

    _numba, _ir, _intrinsic = numba, llvmlite.ir, numba.extending.intrinsic
except ImportError:  # pragma: no cover - the extra is missing: every caller takes the numpy path
    pass


def available() -> bool:
    """Whether the compiled kernels can run: numba is importable and :data:`ENABLED` is True."""
    return _numba is not None and ENABLED


# ----------------------------------------------------------------------------------------- the kernels

_FAST = {"contract", "reassoc"}  # FMA and reassociated sums (vectorised dot products); never nnan/ninf: NaN must show
_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01  # ln 2 split so that k * _LN2_HI is exact for |k| < 2^11 (Cody & Waite)
_LN2_LO = 1.90821492927058770002e-10
_SLACK = 32.0  # a logit may exceed the reference maximum by this much before S and v are rescaled
_SINGLE_FLUSH = 64  # a float32 A's shares of A^T e are summed in float32 over at most this many rows
BLOCK_ROWS = 16  # the row-block kernel's rows a block for rows shorter than LONG_ROW_BYTES ...
LONG_ROW_BLOCK_ROWS = 64  # ... and for longer rows (measured: see block_rows)
LONG_ROW_BYTES = 1024
_ROUNDER = 6755399441055744.0  # 1.5 * 2^52: y + _ROUNDER is rounded to an integer, read back from its low bits
_ROUNDER_BITS = 0x4338000000000000  # the bits of _ROUNDER
_EXP_FLOOR = -708.0  # below it e^x < 2^-1021: returned as 0 (a weight relative to the maximum's 1, absolute error < 3.3e-308)

if _numba is not None:
    _njit, _prange, _types = _numba.njit, _numba.prange, _numba.types

    @_intrinsic
    def _as_double(typingctx, bits):
        """The float64 whose bits are the int64 ``bits`` (a bit cast, which the vectoriser keeps in lanes)."""
        signature = _types.float64(_types.int64)

        def codegen(context, builder, sig, args):
            return builder.bitcast(args[0], _ir.DoubleType())

        return signature, codegen

    @_intrinsic
    def _as_int(typingctx, value):
        """The int64 whose bits are the float64 ``value`` (a bit cast, kept in SIMD lanes)."""
        signature = _types.int64(_types.float64)

        def codegen(context, builder, sig, args):
            return builder.bitcast(args[0], _ir.IntType(64))

        return signature, codegen

    @_njit(inline="always", fastmath={"contract"}, cache=True)
    def _exp_reduced(r):
        # e^r for |r| <= ln 2 / 2 + ulp: its Taylor polynomial of degree 13 (remainder < 2e-17 relative), Horner
        q = 1.0 / 6227020800.0
        q = q * r + 1.0 / 479001600.0
        q = q * r + 1.0 / 39916800.0
        q = q * r + 1.0 / 3628800.0
        q = q * r + 1.0 / 362880.0
        q = q * r + 1.0 / 40320.0
        q = q * r + 1.0 / 5040.0
        q = q * r + 1.0 / 720.0
        q = q * r + 1.0 / 120.0
        q = q * r + 1.0 / 24.0
        q = q * r + 1.0 / 6.0
        q = q * r + 0.5
        q = q * r + 1.0
        return q * r + 1.0

    @_njit(fastmath={"contract"}, cache=True)  # never reassociated: (t - _ROUNDER) must stay a rounding
    def exp_shifted(x, count, top):
        """``x[k] = e^(x[k] - top)`` for k < count, in place (x[k] - top <= 32): :func:`_exp_nonpositive`'s
        reduction and polynomial, with k = round(y / ln 2) taken by the rounding constant 1.5 * 2^52 (the
        integer read from the sum's low bits) instead of a float-to-int64 conversion, which AVX2 lacks: the
        loop runs in SIMD lanes (the row-block kernels' exponentials). Equal to :func:`_exp_nonpositive` but
        at the ties of y / ln 2 (either k gives |r| <= ln 2 / 2 + ulp); not inlined, so that a caller's
        reassociation (``_FAST``) cannot fold the rounding away."""
        for i in range(count):
            x_i = x[i] - top
            y = max(x_i, _EXP_FLOOR)
            t = y * _LOG2E + _ROUNDER  # k + 1.5 * 2^52, rounded to the integer k
            k = t - _ROUNDER
            r = y - k * _LN2_HI - k * _LN2_LO
            q = _exp_reduced(r)
            value = q * _as_double((_as_int(t) - _ROUNDER_BITS + 1023) << 52)
            x[i] = value if x_i >= _EXP_FLOOR else 0.0

    @_njit(inline="always", fastmath={"contract"}, cache=True)
    def _exp_nonpositive(x):
        # e^x = 2^k e^r, k = round(x / ln 2), r = x - k ln 2 in [-ln2/2, ln2/2] (Cody-Waite, two parts of ln 2);
        # e^r by its Taylor polynomial of degree 13 (remainder < 2e-17 relative), 2^k by the exponent's bits
        y = max(x, _EXP_FLOOR)
        k = math.floor(y * _LOG2E + 0.5)
        r = y - k * _LN2_HI - k * _LN2_LO
        q = _exp_reduced(r)
        value = q * _as_double((np.int64(k) + 1023) << 52)
        return value if x >= _EXP_FLOOR else 0.0

    @_njit(fastmath={"contract"}, cache=True)
    def exp_array(x, out):
        for i in range(x.shape[0]):
            out[i] = _exp_nonpositive(x[i])

    @_njit(inline="always")
    def _logit(z, base_i, weight, eta, centre, use_centre, i):
        logit = (weight * z + base_i) * -eta  # as one_pass.py forms them: weight z + base, times -eta
        if use_centre:
            logit += centre[i]
        return logit

    @_njit(fastmath=_FAST, cache=True)
    def dense_softmax(A, w, base, weight, eta, centre, use_centre, z, v, start, stop):
        """Rows start..stop of a dense A in one pass: z = A w (written), and (m, S, valid) with
        v = A^T e^{l - m}, S = sum e^{l - m}; each row's exponential is added while the row is in L1.
        The reference m is raised (S and v rescaled by e^{m_old - m_new}) when a logit exceeds it by
        more than :data:`_SLACK`, so the exponentials stay below e^32 and the rescalings are few."""
        d = A.shape[1]
        for j in range(d):
            v[j] = 0.0
        top, total, valid = -np.inf, 0.0, True
        for i in range(start, stop):
            s = 0.0
            for j in range(d):
                s += A[i, j] * w[j]
            z[i] = s
            if not valid:
                continue
            logit = _logit(s, base[i], weight, eta, centre, use_centre, i)
            if not logit < np.inf:  # NaN or +inf: out of the merge's range (the careful path decides)
                valid = False
                continue
            if logit > top + _SLACK:
                shrink = math.exp(top - logit)  # 0.0 at the first finite logit
                total *= shrink
                for j in range(d):
                    v[j] *= shrink
                top = logit
            if logit == -np.inf:
                continue
            e = _exp_nonpositive(logit - top)
            total += e
            for j in range(d):
                v[j] += e * A[i, j]
        return top, total, valid

    @_njit(fastmath=_FAST, cache=True)
    def dense_softmax_blocks(A, w, base, weight, eta, centre, use_centre, z, v, start, stop, block):
        """:func:`dense_softmax` by blocks of ``block`` rows (the row-block kernel; a float32 A's, see the module).

        Per block: its z_i (one dot product a row, in A's dtype: float32 sums for a float32 A, as its BLAS),
        its logits (one vectorised loop), their maximum (m raised, S and v rescaled, when it passes m by more
        than :data:`_SLACK`), their exponentials :func:`_exp_nonpositive` in one vectorised loop (SIMD lanes,
        where the row-at-a-time kernels pay one serial exponential a row), then the block's shares e_i a_i
        (e_i rounded to A's dtype) summed in A's dtype while its rows are in cache, flushed into the float64 v
        every at most :data:`_SINGLE_FLUSH` rows (``block`` <= :data:`_SINGLE_FLUSH`: a float32 sum of shares
        never runs over more rows). The same sums as :func:`dense_softmax` but for the reference m (a block's
        maximum instead of a row's) and the order of the float64 additions: equal to rounding."""
        d = A.shape[1]
        w_ = w.astype(A.dtype)
        partial = np.zeros(d, dtype=A.dtype)
        zero = partial[0]
        for j in range(d):
            v[j] = 0.0
        logits = np.empty(block)
        shares = np.empty(block, dtype=A.dtype)
        top, total, valid, pending = -np.inf, 0.0, True, 0
        for first in range(start, stop, block):
            last = min(first + block, stop)
            count = last - first
            for i in range(first, last):
                s = zero
                for j in range(d):
                    s += A[i, j] * w_[j]
                z[i] = s
            if not valid:
                continue
            for k in range(count):  # as _logit: weight z + base, times -eta (plus the centre)
                logits[k] = (weight * z[first + k] + base[first + k]) * -eta
            if use_centre:
                for k in range(count):
                    logits[k] += centre[first + k]
            high, check = -np.inf, 0.0
            for k in range(count):
                logit = logits[k]
                check += logit - logit  # NaN when a logit is NaN or +-inf
                high = logit if logit > high else high
            if check != 0.0:  # some logit not finite: -inf (a vanished weight) passes, NaN or +inf declines
                finite = True
                for k in range(count):
                    if not logits[k] < np.inf:
                        finite = False
                if not finite:
                    valid = False  # out of the merge's range (the careful path decides)
                    continue
            if high == -np.inf:  # every weight of the block vanished
                continue
            if high > top + _SLACK:
                shrink = math.exp(top - high)  # 0.0 at the first block with a finite logit
                total *= shrink
                for j in range(d):
                    v[j] = (v[j] + partial[j]) * shrink
                    partial[j] = 0.0
                pending = 0
                top = high
            exp_shifted(logits, count, top)  # e^(l - m): the polynomial exponential in SIMD lanes
            for k in range(count):
                total += logits[k]
                shares[k] = logits[k]
            k = 0
            while k + 4 <= count:  # four rows' shares a sweep of the float32 partial sums (a quarter of its loads)
                e0, e1, e2, e3, i = shares[k], shares[k + 1], shares[k + 2], shares[k + 3], first + k
                for j in range(d):
                    partial[j] += (e0 * A[i, j] + e1 * A[i + 1, j]) + (e2 * A[i + 2, j] + e3 * A[i + 3, j])
                k += 4
            while k < count:
                e = shares[k]
                for j in range(d):
                    partial[j] += e * A[first + k, j]
                k += 1
            pending += count
            if pending + block > _SINGLE_FLUSH:
                for j in range(d):
                    v[j] += partial[j]
                    partial[j] = 0.0
                pending = 0
        for j in range(d):
            v[j] += partial[j]
        return top, total, valid

    @_njit(fastmath={"contract"}, cache=True)  # (no reassociation: short rows run faster in order)
    def csr_softmax(data, indices, indptr, w, base, weight, eta, centre, use_centre, z, v, start, stop):
        """Rows start..stop of a CSR A: as :func:`dense_softmax`, with one test a row on the common path (a
        CSR row of a few entries pays for every branch): a logit within :data:`_SLACK` of m takes
        e^(l - m) (0 for a -inf logit, whose l - m is -inf, or NaN while m is -inf: both give 0); any other
        raises m (S and v rescaled) or, NaN or +inf, declines, z then finished alone."""
        for j in range(v.shape[0]):
            v[j] = 0.0
        top, total, valid, stopped = -np.inf, 0.0, True, stop
        for i in range(start, stop):
            s = 0.0
            first, last = indptr[i], indptr[i + 1]
            for k in range(first, last):
                s += data[k] * w[indices[k]]
            z[i] = s
            logit = (weight * s + base[i]) * -eta  # as _logit
            if use_centre:
                logit += centre[i]
            if not logit <= top + _SLACK:  # rare: m raised, or a NaN / +inf logit
                if not logit < np.inf:  # NaN or +inf: out of the merge's range (the careful path decides)
                    valid, stopped = False, i + 1
                    break
                shrink = math.exp(top - logit)
                total *= shrink
                for j in range(v.shape[0]):
                    v[j] *= shrink
                top = logit
            e = _exp_nonpositive(logit - top)
            total += e
            for k in range(first, last):
                v[indices[k]] += e * data[k]
        for i in range(stopped, stop):  # after a declined logit: z alone
            s = 0.0
            for k in range(indptr[i], indptr[i + 1]):
                s += data[k] * w[indices[k]]
            z[i] = s
        return top, total, valid

    @_njit(fastmath=_FAST, cache=True)
    def dense_products(A, w, p, z, v, start, stop):
        """Rows start..stop of a dense A: z = A w (written) and v = A^T p (rows' share), one read."""
        d = A.shape[1]
        for j in range(d):
            v[j] = 0.0
        for i in range(start, stop):
            s = 0.0
            for j in range(d):
                s += A[i, j] * w[j]
            z[i] = s
            weight = p[i]
            for j in range(d):
                v[j] += weight * A[i, j]

    @_njit(fastmath={"contract"}, cache=True)
    def csr_products(data, indices, indptr, w, p, z, v, start, stop):
        """Rows start..stop of a CSR A: as :func:`dense_products`."""
        for j in range(v.shape[0]):
            v[j] = 0.0
        for i in range(start, stop):
            s = 0.0
            for k in range(indptr[i], indptr[i + 1]):
                s += data[k] * w[indices[k]]
            z[i] = s
            weight = p[i]
            for k in range(indptr[i], indptr[i + 1]):
                v[indices[k]] += weight * data[k]

    # The threaded drivers: chunk c of the rows runs the serial kernel into row c of the partial arrays.
    @_njit(parallel=True, cache=True)
    def dense_softmax_chunks(A, w, base, weight, eta, centre, use_centre, z, V, bounds, tops, totals, valids):
        for c in _prange(bounds.shape[0] - 1):
            tops[c], totals[c], valids[c] = dense_softmax(A, w, base, weight, eta, centre, use_centre, z, V[c],
                                                          bounds[c], bounds[c + 1])

    @_njit(parallel=True, cache=True)
    def dense_softmax_blocks_chunks(A, w, base, weight, eta, centre, use_centre, z, V, bounds, tops, totals, valids,
                                    block):
        for c in _prange(bounds.shape[0] - 1):
            tops[c], totals[c], valids[c] = dense_softmax_blocks(A, w, base, weight, eta, centre, use_centre, z, V[c],
                                                                 bounds[c], bounds[c + 1], block)

    @_njit(parallel=True, cache=True)
    def csr_softmax_chunks(data, indices, indptr, w, base, weight, eta, centre, use_centre, z, V, bounds, tops,
                           totals, valids):
        for c in _prange(bounds.shape[0] - 1):
            tops[c], totals[c], valids[c] = csr_softmax(data, indices, indptr, w, base, weight, eta, centre,
                                                        use_centre, z, V[c], bounds[c], bounds[c + 1])

    @_njit(parallel=True, cache=True)
    def dense_products_chunks(A, w, p, z, V, bounds):
        for c in _prange(bounds.shape[0] - 1):
            dense_products(A, w, p, z, V[c], bounds[c], bounds[c + 1])

    @_njit(parallel=True, cache=True)
    def csr_products_chunks(data, indices, indptr, w, p, z, V, bounds):
        for c in _prange(bounds.shape[0] - 1):
            csr_products(data, indices, indptr, w, p, z, V[c], bounds[c], bounds[c + 1])


    @_njit(inline="always")
    def _regret_play(regrets, prediction, weight, predictive, out):
        """[R + weight P]^+ normalised into ``out`` (uniform when no entry is positive), as RegretMatchingPlayer.play."""
        total = 0.0
        for i in range(regrets.shape[0]):
            value = regrets[i] + weight * prediction[i] if predictive else regrets[i]
            value = value if value > 0.0 else 0.0
            out[i] = value
            total += value
        if total > 0.0:
            for i in range(out.shape[0]):
                out[i] /= total
        else:
            for i in range(out.shape[0]):
                out[i] = 1.0 / out.shape[0]

    @_njit(inline="always")
    def _regret_update(regrets, prediction, point, loss, sign, weight, plus, predictive):
        """R += weight r, r = <sign loss, point> 1 - sign loss (clipped with plus; P = r when predictive)."""
        value = 0.0
        for i in range(point.shape[0]):
            value += sign * loss[i] * point[i]
        for i in range(point.shape[0]):
            r = value - sign * loss[i]
            updated = regrets[i] + weight * r
            regrets[i] = updated if (not plus or updated > 0.0) else 0.0
            if predictive:
                prediction[i] = r
        return value

    @_njit(fastmath={"contract"}, cache=True)
    def alternating_regret_matching(A, x_regrets, x_prediction, y_regrets, y_prediction, x_sum, y_sum, x_loss, y_loss,
                                    x, y, l, u, weights_x, weights_y, outputs, flags, totals):
        """Rounds of alternating regret matching on the game A (n x m: the column player's loss A x, the row
        player's -A^T y), as gamedyn.engine.rounds.AlternatingRound plays them: per round k, x from the row
        regrets; l = A x; the column's regrets updated at its previous play y; y from them; u = A^T y; the row's
        regrets updated with the loss -u at x; the seats' sums. ``flags``: x plus, x predictive, y plus, y
        predictive, keep x's loss sum, keep y's, keep the played losses; ``totals`` (in place): x's played loss,
        weight total, output total, y's the same; ``y`` holds y_{t-1} on entry and y_t on exit, ``x`` x_t."""
        n, m = A.shape
        x_plus, x_predictive, y_plus, y_predictive = flags[0], flags[1], flags[2], flags[3]
        keep_x, keep_y, keep_played = flags[4], flags[5], flags[6]
        for k in range(weights_x.shape[0]):
            alpha, beta, output = weights_x[k], weights_y[k], outputs[k]
            _regret_play(x_regrets, x_prediction, alpha, x_predictive, x)
            for i in range(n):
                s = 0.0
                for j in range(m):
                    s += A[i, j] * x[j]
                l[i] = s
            charged = _regret_update(y_regrets, y_prediction, y, l, 1.0, beta, y_plus, y_predictive)  # <l, y_{t-1}>
            if keep_y:
                for i in range(n):
                    y_loss[i] += beta * l[i]
            if keep_played:
                totals[3] += beta * charged
            totals[4] += beta
            _regret_play(y_regrets, y_prediction, beta, y_predictive, y)
            for j in range(m):
                u[j] = 0.0
            for i in range(n):
                weight = y[i]
                for j in range(m):
                    u[j] += weight * A[i, j]
            played = _regret_update(x_regrets, x_prediction, x, u, -1.0, alpha, x_plus, x_predictive)  # <-u, x>
            if keep_x:
                for j in range(m):
                    x_loss[j] += alpha * -u[j]
            if keep_played:
                totals[0] += alpha * played
            totals[1] += alpha
            for j in range(m):
                x_sum[j] += output * x[j]
            totals[2] += output
            for i in range(n):
                y_sum[i] += output * y[i]
            totals[5] += output



def kernels() -> dict:
    """The kernels by name (compiled on first call, cached on disk by numba); requires :func:`available`."""
    return _build()


def _build() -> dict:
    """The kernels by name (compiled on first call, cached on disk by numba)."""
    return {"exp_array": exp_array, "dense_softmax": dense_softmax, "csr_softmax": csr_softmax,
            "dense_softmax_blocks": dense_softmax_blocks, "alternating_regret_matching": alternating_regret_matching,
            "dense_softmax_blocks_chunks": dense_softmax_blocks_chunks, "exp_shifted": exp_shifted,
            "dense_products": dense_products, "csr_products": csr_products,
            "dense_softmax_chunks": dense_softmax_chunks, "csr_softmax_chunks": csr_softmax_chunks,
            "dense_products_chunks": dense_products_chunks, "csr_products_chunks": csr_products_chunks}


def block_rows(row_bytes: int) -> int:
    """The row-block kernel's rows a block for rows of ``row_bytes`` bytes: :data:`BLOCK_ROWS` (16) below
    :data:`LONG_ROW_BYTES` (1 KiB), else :data:`LONG_ROW_BLOCK_ROWS` (64); at most :data:`_SINGLE_FLUSH`.
    Measured on the 2-core EPYC, one thread, kernel / float32 ``A @ x``: 1.10 (16) against 1.46 (64) at
    100000 x 100, 0.82 (64) against 0.94 (16) at 20000 x 500 (a block's fixed costs against its rows' bytes)."""
    rows = BLOCK_ROWS if row_bytes < LONG_ROW_BYTES else LONG_ROW_BLOCK_ROWS
    return max(1, min(int(rows), _SINGLE_FLUSH))


def exp_nonpositive(x) -> np.ndarray:
    r""":math:`e^x` for an array of x <= 32 as the kernels compute it (0 below -708; within 2 ulp above); for tests."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    out = np.empty_like(x)
    _build()["exp_array"](x.reshape(-1), out.reshape(-1))
    return out


# ------------------------------------------------------------------------------------- the operand


def _is_csr(A) -> bool:
    return getattr(A, "format", None) == "csr" and hasattr(A, "indptr") and hasattr(A, "indices")


def _merge(tops, totals, V):
    r""":math:`\sum_ce^{m_c-m}v_c/\sum_ce^{m_c-m}S_c` over the chunks' ``(m_c, S_c, v_c)`` (the rows of V), or None
    when every weight vanished or the result is not finite (the same merge as one_pass.merge_log_sum_exp)."""
    top = float(np.max(tops))
    if not top > -math.inf:
        return None
    total, vector = 0.0, np.zeros(V.shape[1])
    for c in range(len(tops)):
        if tops[c] == -math.inf:
            continue
        scale = math.exp(float(tops[c]) - top)
        total += scale * float(totals[c])
        vector += scale * V[c]
    if not (0.0 < total < math.inf):
        return None
    vector /= total
    return vector if bool(np.isfinite(vector).all()) else None


class CompiledRows:
    """A (a dense C-ordered float32 / float64 numpy array, or a scipy CSR matrix) with the compiled one-pass capability.

    The capability of :mod:`gamedyn.arrays.one_pass` (``one_pass``, ``products``, ``softmax_pass``), the
    same numbers to rounding, each round one compiled pass over A (see the module docstring).
    ``threads``: row chunks run in parallel (default :data:`THREADS`).
    """

    one_pass = True
    compiled = True

    def __init__(self, A, threads: int | None = None):
        if not available():
            raise ImportError("the compiled kernels need numba (pip install 'gamedyn[numba]') and "
                              "gamedyn.arrays.compiled.ENABLED; use gamedyn.arrays.one_pass.InMemoryRows instead.")
        kernels = _build()
        self.A, self.shape, self.dtype = A, tuple(A.shape), np.dtype(A.dtype)
        self.threads = max(1, int(THREADS if threads is None else threads))
        n = self.shape[0]
        chunks = max(1, min(self.threads, n))
        self._bounds = np.linspace(0, n, chunks + 1).astype(np.int64)  # the chunks' rows (one chunk: all of them)
        self._operands: tuple
        self._block: tuple = ()  # the row-block kernel's trailing argument: its rows a block
        if _is_csr(A):
            self._operands = (A.data, A.indices, A.indptr)
            self._softmax, self._products = kernels["csr_softmax"], kernels["csr_products"]
            self._softmax_chunks, self._products_chunks = kernels["csr_softmax_chunks"], kernels["csr_products_chunks"]
        else:
            self._operands = (A,)
            if self.dtype == np.float32:  # float32 sums, as float32 BLAS: the row-block kernel
                self._softmax, self._softmax_chunks = kernels["dense_softmax_blocks"], kernels["dense_softmax_blocks_chunks"]
                self._block = (block_rows(self.shape[1] * self.dtype.itemsize),)
            else:  # float64: the row-at-a-time kernel (the row-block one measured no faster there)
                self._softmax, self._softmax_chunks = kernels["dense_softmax"], kernels["dense_softmax_chunks"]
            self._products = kernels["dense_products"]
            self._products_chunks = kernels["dense_products_chunks"]

    def products(self, w, p):
        """``(A w, A^T p)`` from one read of A, both float64."""
        n, d = self.shape
        w = np.ascontiguousarray(w, dtype=np.float64)
        p = np.ascontiguousarray(p, dtype=np.float64)
        z = np.empty(n)
        bounds = self._bounds
        if bounds.shape[0] == 2:
            v = np.empty(d)
            self._products(*self._operands, w, p, z, v, 0, n)
            return z, v
        V = np.empty((bounds.shape[0] - 1, d))
        self._products_chunks(*self._operands, w, p, z, V, bounds)
        return z, V.sum(axis=0)

    def softmax_pass(self, log_centre=None):
        r"""The entropy player's round in one read of A: ``step(w, base, weight, eta) -> (z, r)`` with
        :math:`z=Aw` and :math:`r=A^\top\mathrm{softmax}(\log p_0-\eta(\mathrm{base}+\alpha z))`, or r = None
        when the logits leave the merge's range (as :meth:`gamedyn.arrays.one_pass.InMemoryRows.softmax_pass`)."""
        n, d = self.shape
        use_centre = log_centre is not None
        centre = np.ascontiguousarray(log_centre, dtype=np.float64) if use_centre else np.zeros(1)
        if use_centre and centre.shape != (n,):
            raise ValueError(f"log_centre must have n = {n} entries, got shape {centre.shape}.")
        operands, bounds, block = self._operands, self._bounds, self._block
        chunks = bounds.shape[0] - 1
        softmax, softmax_chunks = self._softmax, self._softmax_chunks
        tops, totals, valids = np.empty(chunks), np.empty(chunks), np.empty(chunks, dtype=np.bool_)

        def step(w, base, weight, eta):
            w = np.ascontiguousarray(w, dtype=np.float64)
            base = np.ascontiguousarray(base, dtype=np.float64)
            z = np.empty(n)
            if chunks == 1:
                V = np.empty((1, d))
                top, total, valid = softmax(*operands, w, base, float(weight), float(eta), centre, use_centre, z, V[0],
                                            0, n, *block)
                if not valid:
                    return z, None
                return z, _merge((top,), (total,), V)
            V = np.empty((chunks, d))
            softmax_chunks(*operands, w, base, float(weight), float(eta), centre, use_centre, z, V, bounds, tops,
                           totals, valids, *block)
            if not bool(valids.all()):
                return z, None
            return z, _merge(tops, totals, V)

        return step


def compiled_operator(A):
    """:class:`CompiledRows` of A when the kernels can run on it (dense C-ordered float32 / float64, or CSR with
    float32 / float64 data), else None. The size thresholds are :func:`gamedyn.arrays.one_pass.one_pass_operator`'s."""
    if not available():
        return None
    if is_numpy(A):
        if A.ndim == 2 and A.dtype in (np.float32, np.float64) and A.flags.c_contiguous and A.size:
            return CompiledRows(A)
        return None
    if _is_csr(A) and A.ndim == 2 and A.dtype in (np.float32, np.float64) and A.nnz:
        return CompiledRows(A)
    return None
