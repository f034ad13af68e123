r"""The one-pass round: a round's two products from one read of A (out-of-core and distributed A).

A round of :func:`gamedyn.play` on a bilinear payoff needs :math:`Aw_t` (the p-player's loss
:math:`\ell_t=g(w_t,\cdot)`) and :math:`A^\top p_t` (the w-player's :math:`h_t=-g(\cdot,p_t)`).
In memory that is two BLAS calls; out of core each is a pass over A, and the passes are the cost.
:func:`one_pass_round` chooses, once before the loop, a round that reads A once:

* **both plays known before any product** (the second mover does not see its round loss: OFTRL,
  FTRL, optimistic OMD, ...): one pass gives :math:`Aw_t` and :math:`A^\top p_t` together
  (``A.products(w, p)``);
* **the p-player moves second and sees its loss** (FTRL+ with entropy: the smooth and accelerated
  perceptrons, the p-norm perceptron): its play is eq. (5)'s softmax,

  .. math::

      p_t=\mathrm{softmax}\big(\log p_0-\eta_t(L_{t-1}+\alpha_tAw_t)\big),\qquad
      L_{t-1}=\textstyle\sum_{s<t}\alpha_s\ell_s ,

  so each row block k computes :math:`z_k=A_kw_t`, its logits, their maximum, their sum of
  exponentials and :math:`A_k^\top e_k` in one read, and the driver merges the blocks exactly by
  log-sum-exp (``A.softmax_pass(log p_0)``). The learner still plays :math:`p_t` itself from
  :math:`\ell_t=Aw_t` (its own softmax on the driver, O(n)), so its state, the runner's sums,
  regrets, stop rules and checkpoints are those of the two-pass round.

* **the p-player moves first with optimistic FTRL and entropy, the w-player second seeing its
  loss** (NAG: the w-player's play needs all of :math:`A^\top p_t` before :math:`Aw_t` can start,
  so the round itself cannot be fused): :math:`p_{t+1}` is the softmax of :math:`\ell_t=Aw_t`, so
  the pass of :math:`Aw_t` also gives :math:`A^\top p_{t+1}`, carried to the next round
  (:class:`EntropyLeaderRound`).

**Where it applies.** An A that offers the capability below (an out-of-core or distributed
:class:`gamedyn.distributed.RowBlockedOperator`), and a dense in-memory numpy A of at least
:data:`ONE_PASS_MIN_BYTES` (32 MiB, more than a last-level cache holds), C-ordered, float32 or
float64: the round then streams A in cache-sized row groups (:data:`GROUP_BYTES`, about 2 MB), and
each group serves both products while it is in cache. Below that size A stays in cache between the
two BLAS calls, and two calls are faster than the groups' Python loop. Measured on a 2-core EPYC,
one BLAS thread (``python benchmarks/one_pass_threshold.py``): one read took 0.88-0.96 of the two
calls' time at 10000-20000 x 500 (38-76 MiB) and 0.76 at 200000 x 50, but 1.17-1.57 at
1000-5000 x 500 (4-19 MiB). Set ``gamedyn.one_pass.ONE_PASS_MIN_BYTES = math.inf`` to keep the
two-pass round for every in-memory A.

Everything else keeps the two-pass round (``None``): another payoff, an operator without the
capability (or with ``one_pass = False``), a p-player that sees its loss but is not FTRL with
entropy and a constant or scheduled step (e.g. OMD, a sweep of steps), a p-leader that is not
optimistic FTRL with entropy.

**The capability.** Any A may offer it (:class:`gamedyn.distributed.RowBlockedOperator` does):

* ``A.one_pass`` -- True;
* ``A.products(w, p) -> (A w, A^T p)`` -- both float64, one read of A;
* ``A.softmax_pass(log_centre) -> step`` with ``step(w, base, weight, eta) -> (z, r)``: z = A w
  and r = A^T softmax(log_centre - eta (base + weight z)), or r = None when the logits leave the
  merge's range (the round then computes :math:`A^\top p_t` by a second product, after the learner's
  careful softmax).
"""

from __future__ import annotations

import math
import numbers
from typing import Callable

import numpy as np

from gamedyn.hints import CurrentLoss, LastLoss
from gamedyn.learners import FollowTheRegularizedLeader, StepSchedule
from gamedyn.payoffs import Bilinear, Loss, RegularizedBilinear
from gamedyn.regularizers import Entropy

__all__ = ["ONE_PASS_MIN_BYTES", "GROUP_BYTES", "EntropyLeaderRound", "InMemoryRows", "one_pass_round"]

ONE_PASS_MIN_BYTES = 32 * 2**20  # a dense in-memory A at least this large takes the one-pass round

Round = Callable[[int, np.ndarray, float], tuple]


def _capable(A) -> bool:
    return (getattr(A, "one_pass", False) is True and callable(getattr(A, "products", None))
            and callable(getattr(A, "softmax_pass", None)))


class InMemoryRows:
    """A dense in-memory A (n x d, C-ordered float32 or float64) with the one-pass capability.

    One block, the whole of A, streamed in row groups of about :data:`GROUP_BYTES`: the kernels
    that the out-of-core blocks of :class:`gamedyn.distributed.RowBlockedOperator` run, here in
    this process, on A itself (no copy).
    """

    one_pass = True

    def __init__(self, A: np.ndarray):
        self.A, self.shape, self.dtype = A, A.shape, A.dtype

    def products(self, w, p):
        """``(A w, A^T p)`` from one read of A, both float64."""
        return _rows_both_products(self.A, np.asarray(w, dtype=np.float64), np.asarray(p, dtype=np.float64), None)

    def softmax_pass(self, log_centre=None):
        """The entropy player's round in one read of A (see
        :meth:`gamedyn.distributed.RowBlockedOperator.softmax_pass`): ``(w, base, weight, eta) -> (z, r)``."""
        A, d = self.A, self.shape[1]

        def step(w, base, weight, eta):
            z, top, total, vector = _rows_softmax_response(A, w, base, float(weight), float(eta), log_centre, None)
            return z, _merge_log_sum_exp([(top, total, vector)], d)

        return step


def _one_pass_operator(A):
    """A itself when it offers the capability, :class:`InMemoryRows` for a large dense numpy A, else None."""
    if _capable(A):
        return A
    if (A.__class__ is np.ndarray and A.ndim == 2 and A.dtype in (np.float32, np.float64)
            and A.flags.c_contiguous and A.nbytes >= ONE_PASS_MIN_BYTES):
        return InMemoryRows(A)
    return None


def one_pass_round(payoff, leader, follower, T: int) -> Round | None:
    """The round that reads A once, or None for the two-pass round (see the module docstring).

    ``leader`` and ``follower`` are the runner's seats of the first and second mover (each with
    ``name`` ``"w"`` or ``"p"``, its ``learner``, its weights ``weight(t)``, and now its mutable
    ``player`` and ``loss_sum``); T is the last round. The rounds drive the seats' players, as the
    two-pass round does, so an FTRL+ player's sum with the current loss is formed once. The result is called as
    ``round(t, leader_play, follower_weight)`` and returns ``(follower_loss, follower_play,
    leader_loss)``: what the two-pass round computes, from one pass.
    """
    if type(payoff) not in (Bilinear, RegularizedBilinear):
        return None  # only these payoffs' losses are known to be Loss(A w), Loss(-A^T p, c)
    A = _one_pass_operator(payoff.A)
    if A is None:
        return None
    w_curvature = payoff.strength if type(payoff) is RegularizedBilinear else 0.0
    if not follower.learner.needs_current_loss:
        return _both_products(A, follower, w_curvature)
    if follower.name == "p":
        return _entropy_follower(payoff, A, follower, w_curvature)
    return _entropy_leader(payoff, A, leader, follower, T, w_curvature)


def _both_products(A, follower, w_curvature: float) -> Round:
    """Both plays are known before any product: A w_t and A^T p_t in one pass."""
    products, w_follows = A.products, follower.name == "w"

    def round_(t, leader_play, weight):
        follower_play = follower.player.play(weight)  # the seat's player (replaced on resume: read it each round)
        w, p = (follower_play, leader_play) if w_follows else (leader_play, follower_play)
        Aw, ATp = products(w, p)
        np.negative(ATp, out=ATp)
        w_loss, p_loss = Loss(ATp, w_curvature), Loss(Aw, 0.0)
        return (w_loss, follower_play, p_loss) if w_follows else (p_loss, follower_play, w_loss)

    return round_


def _step_of(eta):
    """t -> eta_t for a constant or scheduled step; None for anything else (a sweep of steps)."""
    if isinstance(eta, StepSchedule):
        return eta
    if isinstance(eta, numbers.Real) and not isinstance(eta, bool):
        value = float(eta)
        return lambda t: value
    return None


def _softmax_step(A, learner, hint):
    """``(A.softmax_pass(log p_0), t -> eta_t)`` for FTRL with entropy, this hint and a constant or
    scheduled step; None for any other p-learner."""
    if not (type(learner) is FollowTheRegularizedLeader and type(learner.regularizer) is Entropy
            and type(learner.hint) is hint):
        return None
    eta_at = _step_of(learner.eta)
    if eta_at is None:
        return None
    n = A.shape[0]
    centre = learner.domain.default_centre(n) if learner.centre is None else np.asarray(learner.centre, dtype=np.float64)
    return A.softmax_pass(learner.regularizer.centre_cache(centre)), eta_at


def _linear(total: Loss) -> bool:
    return not total.curvature and total.convex is None


def _entropy_follower(payoff, A, follower, w_curvature: float) -> Round | None:
    """The p-player moves second with FTRL+ and entropy: its softmax and A^T p_t in the pass of A w_t."""
    pass_and_step = _softmax_step(A, follower.learner, CurrentLoss)
    if pass_and_step is None:
        return None
    step, eta_at = pass_and_step
    loss_for_p, loss_for_w = payoff.loss_for_p, payoff.loss_for_w

    def round_(t, leader_play, weight):
        total = follower.loss_sum  # sum_{s<t} alpha_s l_s, the sum the learner's softmax adds l_t to
        if not _linear(total):  # the two-pass round
            p_loss = loss_for_p(leader_play, None)
            p_play = follower.player.play(weight, p_loss)
            return p_loss, p_play, loss_for_w(p_play, leader_play)
        Aw, ATp = step(leader_play, total.linear, weight, eta_at(t))  # eta_t at the learner's round t
        p_loss = Loss(Aw, 0.0)
        p_play = follower.player.play(weight, p_loss)  # the learner's own softmax (O(n)), as in the two-pass round
        if ATp is None:  # the logits left the merge's range: the learner's careful path, then a second pass
            return p_loss, p_play, loss_for_w(p_play, leader_play)
        np.negative(ATp, out=ATp)
        return p_loss, p_play, Loss(ATp, w_curvature)

    return round_


def _entropy_leader(payoff, A, leader, follower, T: int, w_curvature: float):
    """The :class:`EntropyLeaderRound` of NAG's order, or None when the p-player is not optimistic
    FTRL with entropy and a constant or scheduled step."""
    pass_and_step = _softmax_step(A, leader.learner, LastLoss)
    return None if pass_and_step is None else EntropyLeaderRound(payoff, leader, follower, T, w_curvature, *pass_and_step)


class EntropyLeaderRound:
    r"""The p-player moves first with optimistic FTRL and entropy (:math:`\psi_{t+1}=\ell_t`), the
    w-player second, seeing its loss (NAG): the pass that gives :math:`\ell_t=Aw_t` also gives the
    next round's :math:`A^\top p_{t+1}`, since

    .. math::

        p_{t+1}=\mathrm{softmax}\big(\log p_0-\eta_{t+1}(L_{t-1}+(\alpha_t+\alpha_{t+1})Aw_t)\big).

    The w-player's loss of round t + 1 is carried until then (one d-vector; a checkpoint saves it,
    :meth:`carried` / :meth:`restore`, so a resumed run is bit-identical). Round 1, and a round
    after the merge declined, compute it by a product of their own. The p-player still plays
    :math:`p_{t+1}` itself.
    """

    def __init__(self, payoff, leader, follower, T, w_curvature, step, eta_at):
        self.leader, self.follower, self.T, self.w_curvature = leader, follower, T, w_curvature
        self.step, self.eta_at = step, eta_at
        self.loss_for_p, self.loss_for_w = payoff.loss_for_p, payoff.loss_for_w
        self.ahead_round, self.ahead = 0, None  # the w-player's loss of round ahead_round, computed a round early

    def __call__(self, t, leader_play, weight):
        w_loss = self.ahead if self.ahead_round == t else None
        self.ahead_round, self.ahead = 0, None
        if w_loss is None:
            w_loss = self.loss_for_w(leader_play, None)
        w_play = self.follower.player.play(weight, w_loss)  # the seat's player, as in the two-pass round
        total = self.leader.loss_sum  # L_{t-1}: the p-player settles round t after this
        if t == self.T or not _linear(total):
            return w_loss, w_play, self.loss_for_p(w_play, leader_play)
        p_weight_of = self.leader.weight
        Aw, ATp = self.step(w_play, total.linear, p_weight_of(t) + p_weight_of(t + 1), self.eta_at(t + 1))
        if ATp is not None:  # None: the logits left the merge's range; round t + 1 takes its own product
            np.negative(ATp, out=ATp)
            self.ahead_round, self.ahead = t + 1, Loss(ATp, self.w_curvature)
        return w_loss, w_play, Loss(Aw, 0.0)

    def carried(self):
        """``(round, linear part of the w-player's loss for it)``, or ``(0, None)``: what a checkpoint saves."""
        return self.ahead_round, None if self.ahead is None else self.ahead.linear

    def restore(self, round_, linear) -> None:
        """Carry a checkpoint's saved loss into the resumed run's first round."""
        if linear is not None:
            self.ahead_round, self.ahead = int(round_), Loss(np.asarray(linear, dtype=np.float64), self.w_curvature)


# ------------------------------------------------------------------------ the one-pass kernels
# One read of a row block (an in-memory array, or a block of gamedyn.distributed that yields its
# rows in bounded slabs): each cache-sized row group serves both of a round's products.


def _slabs(block):
    """(start, stop, rows) over a block: one slab for an in-memory array, bounded slabs for files."""
    if hasattr(block, "slabs"):
        return block.slabs()
    return iter([(0, block.shape[0], block)])



GROUP_BYTES = 2 * 2**20  # a one-pass task reads its rows in groups of about this size, which stay in cache


def _row_groups(block, row_factor):
    """``(first row, rows, their row factors)`` over a block in cache-sized groups, each byte read once."""
    for start, stop, slab in _slabs(block):
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


def _rows_both_products(block, w, p_block, row_factor):
    """``(A_k w, A_k^T p_k)`` from one read of the block: each row group serves both products."""
    z = np.empty(p_block.shape[0], dtype=np.float64)
    total = None
    for first, rows, factor in _row_groups(block, row_factor):
        stop = first + rows.shape[0]
        z[first:stop] = _rows_times_group(rows, w, factor)
        piece = _rows_transpose_group(rows, p_block[first:stop], factor)
        total = piece if total is None else total + piece
    return z, total


def _rows_softmax_response(block, w, base, weight, eta, log_centre, row_factor):
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
    for first, rows, factor in _row_groups(block, row_factor):
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



def _merge_log_sum_exp(pieces, d):
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
