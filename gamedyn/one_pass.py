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

Everything else keeps the two-pass round (``None``): another payoff, an operator without the
capability (or with ``one_pass = False``), a p-player that sees its loss but is not FTRL with
entropy and a constant or scheduled step (e.g. OMD, a sweep of steps), a w-player that sees its
loss (NAG, p first: its play needs all of :math:`A^\top p_t` before :math:`Aw_t` can start).

**The capability.** Any A may offer it (:class:`gamedyn.distributed.RowBlockedOperator` does):

* ``A.one_pass`` -- True;
* ``A.products(w, p) -> (A w, A^T p)`` -- both float64, one read of A;
* ``A.softmax_pass(log_centre) -> step`` with ``step(w, base, weight, eta) -> (z, r)``: z = A w
  and r = A^T softmax(log_centre - eta (base + weight z)), or r = None when the logits leave the
  merge's range (the round then computes :math:`A^\top p_t` by a second product, after the learner's
  careful softmax).
"""

from __future__ import annotations

import numbers
from typing import Callable

import numpy as np

from gamedyn.hints import CurrentLoss
from gamedyn.learners import FollowTheRegularizedLeader, StepSchedule
from gamedyn.payoffs import Bilinear, Loss, RegularizedBilinear
from gamedyn.regularizers import Entropy

__all__ = ["one_pass_round"]

Round = Callable[[int, np.ndarray, object, float], tuple]


def _capable(A) -> bool:
    return (getattr(A, "one_pass", False) is True and callable(getattr(A, "products", None))
            and callable(getattr(A, "softmax_pass", None)))


def one_pass_round(payoff, follower_learner, follower: str) -> Round | None:
    """The round that reads A once, or None for the two-pass round (see the module docstring).

    ``follower`` is the seat of the second mover, ``"w"`` or ``"p"``. The result is called as
    ``round(t, leader_play, follower_state, follower_weight)`` and returns
    ``(follower_loss, follower_play, leader_loss)``: what the two-pass round computes, from one pass.
    """
    if type(payoff) not in (Bilinear, RegularizedBilinear) or not _capable(payoff.A):
        return None  # only these payoffs' losses are known to be Loss(A w), Loss(-A^T p, c)
    w_curvature = payoff.strength if type(payoff) is RegularizedBilinear else 0.0
    if not follower_learner.needs_current_loss:
        return _both_products(payoff.A, follower_learner, follower, w_curvature)
    if follower == "p":
        return _entropy_follower(payoff, follower_learner, w_curvature)
    return None


def _both_products(A, learner, follower: str, w_curvature: float) -> Round:
    """Both plays are known before any product: A w_t and A^T p_t in one pass."""
    follower_plays, products, w_follows = learner.play, A.products, follower == "w"

    def round_(t, leader_play, state, weight):
        follower_play = follower_plays(state, weight)
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


def _entropy_follower(payoff, learner, w_curvature: float) -> Round | None:
    """The p-player moves second with FTRL+ and entropy: its softmax and A^T p_t in the pass of A w_t."""
    if not (type(learner) is FollowTheRegularizedLeader and type(learner.regularizer) is Entropy
            and type(learner.hint) is CurrentLoss):
        return None
    eta_at = _step_of(learner.eta)
    if eta_at is None:
        return None
    n = payoff.A.shape[0]
    centre = learner.domain.default_centre(n) if learner.centre is None else np.asarray(learner.centre, dtype=np.float64)
    step = payoff.A.softmax_pass(learner.regularizer.centre_cache(centre))
    play, loss_sum, loss_for_p, loss_for_w = learner.play, learner.loss_sum, payoff.loss_for_p, payoff.loss_for_w

    def round_(t, leader_play, state, weight):
        total = loss_sum(state)  # sum_{s<t} alpha_s l_s, the sum the learner's softmax adds l_t to
        if total.curvature or total.convex is not None:  # not a linear sum: the two-pass round
            p_loss = loss_for_p(leader_play, None)
            p_play = play(state, weight, p_loss)
            return p_loss, p_play, loss_for_w(p_play, leader_play)
        Aw, ATp = step(leader_play, total.linear, weight, eta_at(t))  # eta_t at the learner's round t
        p_loss = Loss(Aw, 0.0)
        p_play = play(state, weight, p_loss)  # the learner's own softmax (O(n)): its state stays its own
        if ATp is None:  # the logits left the merge's range: the learner's careful path, then a second pass
            return p_loss, p_play, loss_for_w(p_play, leader_play)
        np.negative(ATp, out=ATp)
        return p_loss, p_play, Loss(ATp, w_curvature)

    return round_
