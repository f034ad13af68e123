r"""The one-pass kernels: a round's two products from one read of A (out-of-core and distributed A).

A round of :func:`gamedyn.play` on a bilinear payoff needs :math:`Aw_t` and :math:`A^\top p_t`. In
memory that is two BLAS calls; out of core each is a pass over A, and the passes are the cost. The
kernels here read A once: each cache-sized row group (:data:`GROUP_BYTES`) serves both products
while it is in cache (:func:`rows_both_products`), or the entropy player's softmax round
(:func:`rows_softmax_response`: z = A_k w, the logits' maximum, their sum of exponentials and
A_k^T e_k), merged exactly over blocks by log-sum-exp (:func:`merge_log_sum_exp`).
:class:`InMemoryRows` gives a large dense numpy A the capability; the out-of-core blocks of
:class:`gamedyn.arrays.distributed.RowBlockedOperator` run the same kernels. Which round a game
plays (two-pass or one of the one-pass rounds) is chosen in :mod:`gamedyn.engine.rounds`.

**Where it applies.** An A that offers the capability below (an out-of-core or distributed
:class:`gamedyn.arrays.distributed.RowBlockedOperator`), and a dense in-memory numpy A of at least
:data:`ONE_PASS_MIN_BYTES` (32 MiB, more than a last-level cache holds), C-ordered, float32 or
float64. Below that size A stays in cache between the two BLAS calls, and two calls are faster
than the groups' Python loop. Measured on a 2-core EPYC, one BLAS thread (``python
benchmarks/one_pass_threshold.py``): one read took 0.88-0.96 of the two calls' time at
10000-20000 x 500 (38-76 MiB) and 0.76 at 200000 x 50, but 1.17-1.57 at 1000-5000 x 500 (4-19 MiB).
Set ``gamedyn.arrays.one_pass.ONE_PASS_MIN_BYTES = math.inf`` to keep the two-pass round for every
in-memory A.

**Compiled (the numba extra).** With numba installed, a dense A of at least :data:`COMPILED_MIN_BYTES`
(16 MiB) takes :class:`gamedyn.arrays.compiled.CompiledRows` instead: the same capability, each round
one compiled pass (measured, one thread: 0.48-0.60 of the two BLAS calls with the softmax between them
at 5000-10000 x 500, 19-38 MiB; 1.3-1.6 in cache, at 1000-2000 x 500). A float32 A with rows shorter than
:data:`COMPILED_MIN_FLOAT32_ROW` (32) keeps the numpy kernels (float32 BLAS): there each row's fixed cost
outweighs its bytes even in the compiled row-block kernel (``python benchmarks/float32_row_threshold.py``, one
thread, two runs, a round's pass / one float32 ``A @ x``: compiled 2.57-2.86 against numpy 1.95-2.12 at
1000000 x 10, 1.27-1.54 against 1.31-1.54 at 400000 x 25, 1.01-1.07 against 1.49-1.68 at 200000 x 50, 1.15
against 1.86-1.98 at 100000 x 100, 0.84-0.88 against 1.53-1.69 at 50000 x 200). A CSR A keeps the two-pass round
unless :data:`COMPILED_CSR` (two sparse products took 0.65-0.8 of the compiled pass at 1 % density,
20000 x 500 and 100000 x 100: A is in cache there and each row's short loop costs more than its bytes; with the
CSR kernel's one test a row, ``python benchmarks/csr_one_read.py``, one thread, / one scipy ``A @ x``: the pass
2.30-3.74 against 2.00-2.28 for the two products, the smooth perceptron's round 3.33-4.63 compiled against
2.83-2.97 two-pass, and the round's work outside A alone, its O(n) softmax and sums, 0.89-1.03).

**The capability.** Any A may offer it (:class:`gamedyn.arrays.distributed.RowBlockedOperator` does):

* ``A.one_pass`` -- True;
* ``A.products(w, p) -> (A w, A^T p)`` -- both float64, one read of A;
* ``A.softmax_pass(log_centre) -> step`` with ``step(w, base, weight, eta) -> (z, r)``: z = A w
  and r = A^T softmax(log_centre - eta (base + weight z)), or r = None when the logits leave the
  merge's range (the round then computes :math:`A^\top p_t` by a second product, after the learner's
  careful softmax).
"""

from __future__ import annotations

import math

import numpy as np

from gamedyn.core.kernels import is_numpy

__all__ = ["COMPILED_CSR", "COMPILED_MIN_BYTES", "COMPILED_MIN_FLOAT32_ROW", "GROUP_BYTES", "ONE_PASS_MIN_BYTES", "InMemoryRows", "merge_log_sum_exp", "one_pass_operator",
           "row_groups", "rows_both_products", "rows_softmax_response", "slabs"]

ONE_PASS_MIN_BYTES = 32 * 2**20  # a dense in-memory A at least this large takes the one-pass round
COMPILED_MIN_BYTES = 16 * 2**20  # with the numba extra: a dense A at least this large takes the compiled round
COMPILED_MIN_FLOAT32_ROW = 32  # ... and a float32 A's rows have at least this many entries (shorter: numpy's float32 BLAS)
COMPILED_CSR = False  # with the numba extra: a CSR A takes the compiled round (off: two sparse products are faster)


def _capable(A) -> bool:
    return (getattr(A, "one_pass", False) is True and callable(getattr(A, "products", None))
            and callable(getattr(A, "softmax_pass", None)))


class InMemoryRows:
    """A dense in-memory A (n x d, C-ordered float32 or float64) with the one-pass capability.

    One block, the whole of A, streamed in row groups of about :data:`GROUP_BYTES`: the kernels
    that the out-of-core blocks of :class:`gamedyn.arrays.distributed.RowBlockedOperator` run, here in
    this process, on A itself (no copy).
    """

    one_pass = True

    def __init__(self, A: np.ndarray):
        self.A, self.shape, self.dtype = A, A.shape, A.dtype

    def products(self, w, p):
        """``(A w, A^T p)`` from one read of A, both float64."""
        return rows_both_products(self.A, np.asarray(w, dtype=np.float64), np.asarray(p, dtype=np.float64), None)

    def softmax_pass(self, log_centre=None):
        """The entropy player's round in one read of A (see
        :meth:`gamedyn.arrays.distributed.RowBlockedOperator.softmax_pass`): ``(w, base, weight, eta) -> (z, r)``."""
        A, d = self.A, self.shape[1]

        def step(w, base, weight, eta):
            z, top, total, vector = rows_softmax_response(A, w, base, float(weight), float(eta), log_centre, None)
            return z, merge_log_sum_exp([(top, total, vector)], d)

        return step


def one_pass_operator(A):
    """The one-pass form of A (for :mod:`gamedyn.engine.rounds`): A itself when it offers the capability;
    with the numba extra (:mod:`gamedyn.arrays.compiled`) its compiled form for a dense A of at least
    :data:`COMPILED_MIN_BYTES` (float32: rows of at least :data:`COMPILED_MIN_FLOAT32_ROW` entries; and a CSR A when
    :data:`COMPILED_CSR`); :class:`InMemoryRows` for a dense numpy
    A of at least :data:`ONE_PASS_MIN_BYTES`; else None."""
    if _capable(A):
        return A
    dense = (is_numpy(A) and A.ndim == 2 and A.dtype in (np.float32, np.float64)
             and A.flags.c_contiguous)
    long_rows = dense and (A.dtype == np.float64 or A.shape[1] >= COMPILED_MIN_FLOAT32_ROW)
    if (long_rows and A.nbytes >= COMPILED_MIN_BYTES) or (COMPILED_CSR and getattr(A, "format", None) == "csr"):
        from gamedyn.arrays.compiled import compiled_operator  # numba is imported only for such an A

        compiled = compiled_operator(A)
        if compiled is not None:
            return compiled
    if dense and A.nbytes >= ONE_PASS_MIN_BYTES:
        return InMemoryRows(A)
    return None


# ------------------------------------------------------------------------ the one-pass kernels
# One read of a row block (an in-memory array, or a block of gamedyn.arrays.distributed that yields its
# rows in bounded slabs): each cache-sized row group serves both of a round's products.


def slabs(block):
    """(start, stop, rows) over a block: one slab for an in-memory array, bounded slabs for files."""
    if hasattr(block, "slabs"):
        return block.slabs()
    return iter([(0, block.shape[0], block)])


GROUP_BYTES = 2 * 2**20  # a one-pass task reads its rows in groups of about this size, which stay in cache


def row_groups(block, row_factor):
    """``(first row, rows, their row factors)`` over a block in cache-sized groups, each byte read once."""
    for start, stop, slab in slabs(block):
        step = max(1, GROUP_BYTES // max(1, slab.shape[1] * slab.itemsize))
        for offset in range(0, stop - start, step):
            rows = slab[offset:offset + step]
            first = start + offset
            yield first, rows, None if row_factor is None else row_factor[first:first + rows.shape[0]]


def _rows_times_group(rows, w, factor):
    """A_g w for one row group, in the rows' dtype, as float64."""
    piece = rows @ w.astype(rows.dtype, copy=False)
    if factor is not None:
        piece = piece * factor
    return piece


def _rows_transpose_group(rows, weights, factor):
    """A_g^T u for one row group: the product in the rows' dtype, returned as float64."""
    if factor is not None:
        weights = weights * factor
    return (weights.astype(rows.dtype, copy=False) @ rows).astype(np.float64, copy=False)


def rows_both_products(block, w, p_block, row_factor):
    """``(A_k w, A_k^T p_k)`` from one read of the block: each row group serves both products."""
    z = np.empty(p_block.shape[0], dtype=np.float64)
    total = None
    for first, rows, factor in row_groups(block, row_factor):
        stop = first + rows.shape[0]
        z[first:stop] = _rows_times_group(rows, w, factor)
        piece = _rows_transpose_group(rows, p_block[first:stop], factor)
        total = piece if total is None else total + piece
    return z, total


def rows_softmax_response(block, w, base, weight, eta, log_centre, row_factor):
    r"""One read of A_k for the entropy player's round, streamed over cache-sized row groups.

    z = A_k w; the logits :math:`l=\log p_{0,k}-\eta(\mathrm{base}_k+\alpha z)`, formed exactly as
    :meth:`gamedyn.Entropy.argmin_with_cache` forms them from the loss sum ``base`` + alpha * z;
    returns ``(z, m, S, v)`` with :math:`m=\max_i l_i`, :math:`S=\sum_ie^{l_i-m}`,
    :math:`v=A_k^\top e^{l-m}`, kept exact by a running maximum (when a group raises it, S and v
    are rescaled by :math:`e^{m_{old}-m_{new}}`). ``m`` is NaN when a logit is NaN or +inf (the
    driver then takes the careful path); ``-inf`` when every weight of the block vanishes.
    """
    with np.errstate(over="ignore"):  # a logit beyond float64 is +-inf: +inf declines the merge, -inf weighs 0
        return _softmax_response_groups(block, w, base, weight, eta, log_centre, row_factor)


def _softmax_response_groups(block, w, base, weight, eta, log_centre, row_factor):
    z = np.empty(base.shape[0], dtype=np.float64)
    top, total, vector, valid = -np.inf, 0.0, None, True
    for first, rows, factor in row_groups(block, row_factor):
        stop = first + rows.shape[0]
        piece = z[first:stop]
        piece[:] = _rows_times_group(rows, w, factor)
        if not valid:
            continue
        logits = weight * piece  # the loss sum plus alpha times this loss, as FTRL's play adds them
        logits += base[first:stop]
        logits *= -eta
        if log_centre is not None:
            logits += log_centre[first:stop]
        high = float(logits.max())
        if not high < np.inf:  # NaN or +inf: out of this merge's range
            valid = False
            continue
        if high == -np.inf:  # every weight of the group vanished
            continue
        if high > top:
            shrink = math.exp(top - high)  # 0.0 for the first group
            total *= shrink
            if vector is not None:
                vector *= shrink
            top = high
        logits -= top
        np.exp(logits, out=logits)
        total += float(logits.sum())
        contribution = _rows_transpose_group(rows, logits, factor)
        vector = contribution if vector is None else vector + contribution
    if not valid:
        return z, math.nan, 0.0, None
    return z, top, total, vector



def merge_log_sum_exp(pieces, d):
    r""":math:`\sum_ke^{m_k-m}v_k/\sum_ke^{m_k-m}S_k` over the blocks' ``(m_k, S_k, v_k)``, or None
    when a block left the range (NaN), every weight vanished, or the result is not finite."""
    tops = [piece[0] for piece in pieces]
    if any(math.isnan(top) for top in tops):
        return None
    top = max(tops)
    if top == -math.inf:
        return None
    total, vector = 0.0, np.zeros(d, dtype=np.float64)
    for high, block_total, block_vector in pieces:
        if high == -math.inf:
            continue
        scale = math.exp(high - top)
        total += scale * block_total
        vector += scale * block_vector
    if not (0.0 < total < math.inf):
        return None
    vector /= total
    return vector if bool(np.isfinite(vector).all()) else None
