r"""The round strategies: a one-pass round that reads A once, chosen before the loop (None: the runner's two-pass round).

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

**Where it applies**: an A with the one-pass capability, or a large dense numpy A; see
:mod:`gamedyn.arrays.one_pass` (the kernels, :data:`gamedyn.arrays.one_pass.ONE_PASS_MIN_BYTES`).

Everything else keeps the two-pass round (``None``): another payoff, an operator without the
capability (or with ``one_pass = False``), a p-player that sees its loss but is not FTRL with
entropy and a constant or scheduled step (e.g. OMD, a sweep of steps), a p-leader that is not
optimistic FTRL with entropy.
"""

from __future__ import annotations

import numbers
from typing import Callable

import numpy as np

from gamedyn.arrays.one_pass import one_pass_operator
from gamedyn.core.hints import CurrentLoss, LastLoss
from gamedyn.core.learners import FollowTheRegularizedLeader
from gamedyn.core.loss import Loss
from gamedyn.core.regularizers import Entropy
from gamedyn.core.weights import StepSchedule
from gamedyn.engine.payoffs import Bilinear, RegularizedBilinear

__all__ = ["EntropyLeaderRound", "one_pass_round"]

Round = Callable[[int, np.ndarray, float], tuple]


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
    A = one_pass_operator(payoff.A)
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
            and type(learner.hint) is hint and learner.regularizer.legendre):  # legendre: the plain simplex
        return None  # (on a capped simplex the play is the capped softmax, not one pass's plain softmax)
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
