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

**The lean Fenchel round** (:func:`conjugate_round`, :class:`ConjugateRound`) is the other round
chosen by capability: for a Fenchel game nobody watches (``regrets=False``, no observer), with a
y-player that follows the leader on the losses' own oracle and an x-player that steps from its last
play shown :math:`y_t`, it drives the sums itself (the same operations, bit for bit) and writes the
seats back after the loop.

Everything else keeps the two-pass round (``None``): another payoff, an operator without the
capability (or with ``one_pass = False``), a p-player that sees its loss but is not FTRL with
entropy and a constant or scheduled step (e.g. OMD, a sweep of steps), a p-leader that is not
optimistic FTRL with entropy.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gamedyn.arrays.one_pass import one_pass_operator
from gamedyn.core.kernels import add_scaled, axpy, is_numpy, is_python_float, plus_scaled
from gamedyn.core.loss import Loss
from gamedyn.core.protocols import declared
from gamedyn.engine.seats import declares_plays_in_domain

__all__ = ["AlternatingRound", "ConjugateRound", "EntropyLeaderRound", "HintedProductsRound", "VertexRound", "bilinear_form_of",
           "conjugate_form_of", "conjugate_round", "one_pass_round", "round_of", "softmax_play_of", "vertex_losses_of",
           "vertex_round"]

Round = Callable[[int, np.ndarray, float], tuple]


def bilinear_form_of(payoff):
    """The payoff's declared :class:`gamedyn.engine.payoffs.BilinearForm`, or None (the one place it is read)."""
    form = declared(payoff, "bilinear_form", ("loss_for_p", "loss_for_w", "times", "transpose_times"), None)
    return form() if callable(form) else None


def softmax_play_of(learner, dimension: int):
    """The learner's declared :class:`gamedyn.core.learners.SoftmaxPlay`, or None (the one place it is read)."""
    make = declared(learner, "softmax_play", ("play", "player", "init", "update"), None)
    return make(dimension) if callable(make) else None


def one_pass_round(payoff, leader, follower, T: int, w_leads: bool = True) -> Round | None:
    """The round that reads A once, or None for the two-pass round (see the module docstring).

    Chosen by what the objects declare, never by their types: the payoff's ``bilinear_form()``
    (its losses are Loss(A w) and Loss(-A^T p, c)), the operand's one-pass capability
    (:func:`gamedyn.arrays.one_pass.one_pass_operator`), the learners' ``needs_current_loss`` and
    ``softmax_play(dimension)``; ``w_leads`` is ``play``'s ``first == "w"``. ``leader`` and ``follower`` are the runner's seats of the first
    and second mover (each with ``name`` ``"w"`` or ``"p"``, its ``learner``, its weights
    ``weight(t)``, and its mutable ``player`` and ``loss_sum``); T is the last round. The rounds
    drive the seats' players, as the two-pass round does, so an FTRL+ player's sum with the current
    loss is formed once. The result is called as ``round(t, leader_play, follower_weight)`` and
    returns ``(follower_loss, follower_play, leader_loss)``: what the two-pass round computes, from one pass.
    """
    form = bilinear_form_of(payoff)
    if form is None:
        return None  # only a declared bilinear form's losses are known to be Loss(A w), Loss(-A^T p, c)
    A = one_pass_operator(form.operand)
    if A is None:
        return None
    w_curvature = float(form.w_curvature)
    w_follows = not w_leads
    if not follower.learner.needs_current_loss:
        if _hints_from_one_pass(payoff, leader, follower):
            return HintedProductsRound(A, leader, follower, w_curvature, w_follows)
        return _both_products(A, follower, w_curvature, w_follows)
    if not w_follows:
        return _entropy_follower(payoff, A, follower, w_curvature)
    return _entropy_leader(payoff, A, leader, follower, T, w_curvature)


def _both_products(A, follower, w_curvature: float, w_follows: bool) -> Round:
    """Both plays are known before any product: A w_t and A^T p_t in one pass."""
    products = A.products

    def round_(t, leader_play, weight):
        follower_play = follower.player.play(weight)  # the seat's player (replaced on resume: read it each round)
        w, p = (follower_play, leader_play) if w_follows else (leader_play, follower_play)
        Aw, ATp = products(w, p)
        np.negative(ATp, out=ATp)
        w_loss, p_loss = Loss(ATp, w_curvature), Loss(Aw, 0.0)
        return (w_loss, follower_play, p_loss) if w_follows else (p_loss, follower_play, w_loss)

    return round_


def _hints_from_one_pass(payoff, leader, follower) -> bool:
    """Both seats' hints declare ``opponent_point`` on this very payoff and their players ``play_guessed``
    (mirror prox: OMD with :class:`gamedyn.OpponentSecondary`)."""
    for seat in (leader, follower):
        hint = getattr(seat.learner, "hint", None)
        if (not callable(declared(hint, "opponent_point", ("predict",), None)) or getattr(hint, "payoff", None) is not payoff
                or getattr(hint, "player", None) != seat.name or not callable(getattr(seat.player, "play_guessed", None))
                or not hasattr(seat.player.state, "hint_state")):
            return False
    return True


class HintedProductsRound:
    r"""Mirror prox in two reads of A a round: both hints' losses from one pass, both plays' from another.

    Each player's hint is the round loss at the opponent's secondary iterate (:class:`gamedyn.OpponentSecondary`:
    :math:`\psi^w_t=-g(\cdot,\tilde p)`, :math:`\psi^p_t=g(\tilde w,\cdot)`), and both points are known before
    either play, so one pass gives :math:`A\tilde w` and :math:`A^\top\tilde p` (``A.products``) and the players
    play from them (``play_guessed``: the same points as their own ``predict`` would give); then the plays' pass.
    Chosen when both hints declare ``opponent_point`` on the run's payoff; the round keeps no state across rounds.
    """

    def __init__(self, A, leader, follower, w_curvature, w_follows):
        self.leader, self.follower, self.w_curvature, self.w_follows = leader, follower, w_curvature, w_follows
        self.products = A.products
        self.follower_guess = None

    def leader_play(self, weight):
        """The leader's play, after the hints' pass (which also gives the follower's guess for this round)."""
        leader_player, follower_player = self.leader.player, self.follower.player  # (replaced on resume)
        leader_point = self.leader.learner.hint.opponent_point(leader_player.state.hint_state)
        follower_point = self.follower.learner.hint.opponent_point(follower_player.state.hint_state)
        w_point, p_point = (leader_point, follower_point) if self.w_follows else (follower_point, leader_point)
        Aw, ATp = self.products(w_point, p_point)
        np.negative(ATp, out=ATp)
        w_guess, p_guess = Loss(ATp, self.w_curvature), Loss(Aw, 0.0)
        leader_guess, self.follower_guess = (p_guess, w_guess) if self.w_follows else (w_guess, p_guess)
        return leader_player.play_guessed(weight, leader_guess)

    def __call__(self, t, leader_play, weight):
        follower_play = self.follower.player.play_guessed(weight, self.follower_guess)
        w, p = (follower_play, leader_play) if self.w_follows else (leader_play, follower_play)
        Aw, ATp = self.products(w, p)
        np.negative(ATp, out=ATp)
        w_loss, p_loss = Loss(ATp, self.w_curvature), Loss(Aw, 0.0)
        return (w_loss, follower_play, p_loss) if self.w_follows else (p_loss, follower_play, w_loss)


def _softmax_step(A, learner, guess: str):
    """``(A.softmax_pass(log p_0), t -> eta_t)`` for a p-learner that declares its play a softmax with
    this guess (:meth:`gamedyn.FollowTheRegularizedLeader.softmax_play`); None for any other."""
    softmax = softmax_play_of(learner, A.shape[0])
    if softmax is None or softmax.guess != guess:
        return None
    return A.softmax_pass(softmax.log_centre), softmax.eta_at


def _linear(total: Loss) -> bool:
    return not total.curvature and total.convex is None


def _entropy_follower(payoff, A, follower, w_curvature: float) -> Round | None:
    """The p-player moves second with FTRL+ and entropy: its softmax and A^T p_t in the pass of A w_t."""
    pass_and_step = _softmax_step(A, follower.learner, "current")
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
    pass_and_step = _softmax_step(A, leader.learner, "last")
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


def vertex_losses_of(payoff):
    """The payoff's declared :class:`gamedyn.engine.payoffs.VertexLosses`, or None (the one place it is read)."""
    make = declared(payoff, "vertex_losses", ("loss_for_p", "loss_for_w", "played_values"), None)
    return make() if callable(make) else None


def _vertex_of(seat):
    """The seat's player's ``vertex(weight)`` when its learner declares ``plays_vertices``, else None."""
    if declared(seat.learner, "plays_vertices", ("play", "player"), False) is not True:
        return None
    vertex = getattr(seat.player, "vertex", None)
    return vertex if callable(vertex) else None


def _vertex_round(payoff, leader, follower, w_leads: bool, output_weight, regrets: bool):
    r"""The round of vertex players (fictitious play): a best response :math:`e_i` is read as its index,
    and the opponent's loss of it is a column or row read of A (:meth:`gamedyn.Bilinear.vertex_losses`),
    O(n) instead of a product; None unless the payoff declares the reads and a seat declares vertex plays.

    A seat without vertex plays (or a round where its player answers None: a curved sum) gets its
    play and the opponent's loss as in the two-pass round. The plays handed to the seats are the
    vertices :math:`e_i` themselves, so every sum, regret, stop rule and checkpoint is the two-pass
    round's, bit for bit.
    """
    if follower.learner.needs_current_loss:
        return None
    reads = vertex_losses_of(payoff)
    if reads is None:
        return None
    leader_vertex, follower_vertex = _vertex_of(leader), _vertex_of(follower)
    if leader_vertex is None and follower_vertex is None:
        return None
    leader_dimension, follower_dimension = leader.play_sum.shape[0], follower.play_sum.shape[0]
    # the loss of a vertex of the leader is the follower's loss, and the other way round
    follower_loss_at, leader_loss_at = ((reads.p_loss_at, reads.w_loss_at) if w_leads
                                        else (reads.w_loss_at, reads.p_loss_at))
    leader_weight_of, follower_weight_of = leader.weight, follower.weight
    one_weight = leader_weight_of is follower_weight_of
    leader_plays, follower_plays = leader.player.play, follower.player.play
    leader_loss_of, follower_loss_of = leader.opponent_loss, follower.opponent_loss
    leader_settle, follower_settle = leader.settle, follower.settle
    leader_settle_vertex, follower_settle_vertex = leader.settle_vertex, follower.settle_vertex
    played_values = getattr(payoff, "played_values", None) if regrets else None
    if regrets and played_values is None:

        def played_values(w, p, w_loss, p_loss):
            return w_loss.value(w), p_loss.value(p)
    value_at = reads.value_at
    output_is_leader = output_weight is leader_weight_of
    output_is_follower = output_weight is follower_weight_of
    zeros = np.zeros

    def both_vertices(t):
        """Both seats play vertices: each opponent loss is a read, the played values one entry of A."""
        leader_weight = leader_weight_of(t)
        follower_weight = leader_weight if one_weight else follower_weight_of(t)
        i = leader_vertex(leader_weight)
        j = follower_vertex(follower_weight)
        if i is None or j is None:  # a curved sum this round: the general round
            return round_(t, i, j)
        leader_play = zeros(leader_dimension)
        leader_play[i] = 1.0
        follower_play = zeros(follower_dimension)
        follower_play[j] = 1.0
        follower_loss, leader_loss = follower_loss_at(i), leader_loss_at(j)
        if played_values is None:
            leader_value = follower_value = None
        elif w_leads:  # g(e_i, e_j) = A_ji: h_t(w_t) = -g, l_t(p_t) = g
            follower_value = value_at(i, j)
            leader_value = -follower_value
        else:
            leader_value = value_at(j, i)
            follower_value = -leader_value
        output = (leader_weight if output_is_leader else follower_weight if output_is_follower else output_weight(t))
        leader_settle_vertex(i, leader_play, leader_loss, leader_weight, output, follower_loss, leader_value)
        follower_settle_vertex(j, follower_play, follower_loss, follower_weight, output, leader_loss, follower_value)

    def round_(t, i=None, j=None):
        leader_weight = leader_weight_of(t)
        follower_weight = leader_weight if one_weight else follower_weight_of(t)
        if i is None and leader_vertex is not None:
            i = leader_vertex(leader_weight)
        if i is None:
            leader_play = leader_plays(leader_weight)
        else:
            leader_play = zeros(leader_dimension)
            leader_play[i] = 1.0
        if j is None and follower_vertex is not None:
            j = follower_vertex(follower_weight)
        if j is None:
            follower_play = follower_plays(follower_weight)
        else:
            follower_play = zeros(follower_dimension)
            follower_play[j] = 1.0
        follower_loss = follower_loss_of(leader_play, follower_play) if i is None else follower_loss_at(i)
        leader_loss = leader_loss_of(follower_play, leader_play) if j is None else leader_loss_at(j)
        if played_values is None:
            leader_value = follower_value = None
        elif i is not None and j is not None:  # g(e_i, e_j) = A_ji: h_t(w_t) = -g, l_t(p_t) = g
            value = value_at(i, j) if w_leads else value_at(j, i)
            leader_value, follower_value = (-value, value) if w_leads else (value, -value)
        elif w_leads:
            leader_value, follower_value = played_values(leader_play, follower_play, leader_loss, follower_loss)
        else:
            follower_value, leader_value = played_values(follower_play, leader_play, follower_loss, leader_loss)
        output = (leader_weight if output_is_leader else follower_weight if output_is_follower else output_weight(t))
        if i is None:
            leader_settle(leader_play, leader_loss, leader_weight, output, follower_loss, leader_value)
        else:
            leader_settle_vertex(i, leader_play, leader_loss, leader_weight, output, follower_loss, leader_value)
        if j is None:
            follower_settle(follower_play, follower_loss, follower_weight, output, leader_loss, follower_value)
        else:
            follower_settle_vertex(j, follower_play, follower_loss, follower_weight, output, leader_loss,
                                   follower_value)

    return both_vertices if leader_vertex is not None and follower_vertex is not None else round_


def round_of(payoff, leader, follower, one_pass, w_leads: bool, output_weight, regrets: bool = True):
    r"""The round strategy: ``round_(t)`` plays round t and settles both seats (chosen once, before the loop).

    ``one_pass`` is :func:`one_pass_round`'s round (None: two passes, one product per play). The
    round: :math:`\alpha_t`, the leader's play, the follower's loss and play, the leader's loss, the
    played values :math:`f_t(z_t)` (only with ``regrets``: nothing else needs them), then each
    seat's update and running sums. Everything it calls is bound to a local once, here; the seats'
    players are read now, so build the round after a resumed run has restored them. When a seat's
    learner declares vertex plays and the payoff the reads of their losses, the round reads a row or
    column of A for each vertex instead of a product (:func:`_vertex_round`; it takes precedence
    over a one-pass round, whose pass it makes unnecessary).
    """
    vertex_round = _vertex_round(payoff, leader, follower, w_leads, output_weight, regrets)
    if vertex_round is not None:
        return vertex_round
    leader_weight_of, follower_weight_of = leader.weight, follower.weight
    one_weight = leader_weight_of is follower_weight_of
    leader_plays, follower_plays = leader.player.play, follower.player.play
    leader_loss_of, follower_loss_of = leader.opponent_loss, follower.opponent_loss
    leader_settle, follower_settle = leader.settle, follower.settle
    played_values = getattr(payoff, "played_values", None) if regrets else None
    if regrets and played_values is None:  # a payoff without played_values: each loss at its play

        def played_values(w, p, w_loss, p_loss):
            return w_loss.value(w), p_loss.value(p)
    output_is_leader = output_weight is leader_weight_of  # the output weights are a seat's own: no call
    output_is_follower = output_weight is follower_weight_of
    if one_pass is not None:
        exchange = one_pass  # the follower's loss and play and the leader's loss, one read of A
        leader_plays = getattr(one_pass, "leader_play", None) or leader_plays  # (HintedProductsRound: the hints' pass)
    elif follower.learner.needs_current_loss:

        def exchange(t, leader_play, follower_weight):
            follower_loss = follower_loss_of(leader_play, None)
            follower_play = follower_plays(follower_weight, follower_loss)
            return follower_loss, follower_play, leader_loss_of(follower_play, leader_play)
    else:

        def exchange(t, leader_play, follower_weight):
            follower_play = follower_plays(follower_weight)
            return follower_loss_of(leader_play, follower_play), follower_play, leader_loss_of(follower_play, leader_play)

    def round_(t):
        leader_weight = leader_weight_of(t)
        follower_weight = leader_weight if one_weight else follower_weight_of(t)
        leader_play = leader_plays(leader_weight)
        follower_loss, follower_play, leader_loss = exchange(t, leader_play, follower_weight)
        if played_values is None:
            leader_value = follower_value = None
        elif w_leads:
            leader_value, follower_value = played_values(leader_play, follower_play, leader_loss, follower_loss)
        else:
            follower_value, leader_value = played_values(follower_play, leader_play, follower_loss, leader_loss)
        output = (leader_weight if output_is_leader else follower_weight if output_is_follower else output_weight(t))
        leader_settle(leader_play, leader_loss, leader_weight, output, follower_loss, leader_value)
        follower_settle(follower_play, follower_loss, follower_weight, output, leader_loss, follower_value)

    return round_


def conjugate_form_of(payoff):
    """The payoff's declared :class:`gamedyn.engine.payoffs.ConjugateForm`, or None (the one place it is read)."""
    form = declared(payoff, "conjugate_form", ("loss_for_p", "loss_for_w"), None)
    return form() if callable(form) else None


_LEARNER_METHODS = ("play", "update", "player", "init")


def conjugate_round(payoff, leader, follower, w_leads: bool, output_weight, regrets: bool, observers) -> "ConjugateRound | None":
    """The lean Fenchel round (:class:`ConjugateRound`), or None for :func:`round_of`'s.

    Chosen by what the objects declare, never by their types: the payoff's ``conjugate_form()``
    (its losses are the Fenchel game's), the y-player's ``leader_form()`` (follow the leader on the
    losses' own oracle: FTL, OFTL) and the x-player's ``shown_step()`` (mirror descent shown its
    loss: OMD with ``CurrentLoss``, ``BestResponse``), both declaring ``plays_in_domain``. It applies
    to the run nobody watches: the y-player moves first, ``regrets=False``, no observer (``stop``,
    ``record``, ``callback``, ``metrics``, ``checkpoint`` ... each keep :func:`round_of`'s round), and
    flat numpy plays; the runner keeps no loss sum of its own for either seat.
    """
    if regrets or observers or not w_leads:
        return None
    form = conjugate_form_of(payoff)
    if form is None:
        return None
    make_leader = declared(leader.learner, "leader_form", _LEARNER_METHODS, None)
    make_step = declared(follower.learner, "shown_step", _LEARNER_METHODS, None)
    if not (callable(make_leader) and callable(make_step)):
        return None
    leader_form, step = make_leader(), make_step()
    if leader_form is None or step is None:
        return None
    for seat in (leader, follower):
        if (not declares_plays_in_domain(seat.learner) or seat.keeps_played or not seat.flat
                or not is_numpy(seat.play_sum)
                or (seat.keeps_loss_sum and not seat.learner_keeps_sum)):
            return None
    if not leader.learner_keeps_sum:
        return None
    loss_sum, hint, _ = leader_form.sums(leader.state)
    if not is_numpy(loss_sum.linear) or loss_sum.linear.ndim != 1:
        return None
    if not loss_sum.curvature and (leader_form.guess == "none" or hint is None):
        return None  # no strength to minimise at round 1: round_of's round raises the usual error
    minimize = form.minimizer(leader_form.domain)
    if minimize is None:
        return None  # a domain the conjugate's minimisation refuses: round_of's round raises the usual error
    return ConjugateRound(form, minimize, leader, follower, leader_form, step, output_weight)


class ConjugateRound:
    r"""The Fenchel game's round without the players' objects: the y-player follows the leader, the
    x-player steps from its last play shown :math:`y_t` (Frank-Wolfe, Nesterov's method, heavy ball).

    With :math:`L_{t-1}=-\sum_{s<t}\alpha_sx_s` and :math:`S_{t-1}=\sum_{s<t}\alpha_s` (the y-player's
    loss sum :math:`S_{t-1}f^*-\langle\sum_s\alpha_sx_s,\cdot\rangle`), round t is

    .. math::

        y_t=\nabla f\Big(-\frac{L_{t-1}+\alpha_t\psi_t}{S_{t-1}+\alpha_t c_t}\Big),\qquad
        x_t=\arg\min_x\eta_t\alpha_t\langle y_t,x\rangle+D_R(x,x_{t-1}),

    then :math:`L_t=L_{t-1}-\alpha_tx_t`, :math:`S_t=S_{t-1}+\alpha_t` and the play sums. The hint
    :math:`\psi_t` is :math:`-x_{t-1}` (OFTL: :math:`h_{t-1}`, with :math:`x_0` the start), :math:`h_0` at
    t = 1 only (FTL with ``FirstRoundLoss``) or none. Every operation is the one the players'
    objects do (the same BLAS axpy, the same oracle, the conjugate's memo), in the same order, so the
    plays and sums are bit-identical to :func:`round_of`'s; the seats (the learners' states, the play
    sums) are written back by :meth:`settle`, which the runner calls after the loop.
    """

    def __init__(self, form, minimize, leader, follower, leader_form, step, output_weight):
        self.leader, self.follower, self.leader_form, self.step = leader, follower, leader_form, step
        self.leader_state, self.follower_state = leader.state, follower.state
        loss_sum, hint, y_round = leader_form.sums(self.leader_state)
        x, cache, x_round = step.start(self.follower_state)
        argmin, eta, eta_at, cache_of = step.argmin, step.eta, step.eta_at, step.cache_of
        last_loss = leader_form.guess == "last"
        L = loss_sum.linear  # the player's own buffer (updated in place, as FTRLPlayer.update does)
        # the hint as (vector, factor, curvature): its linear part is factor * vector (h_{t-1}: -x_{t-1})
        hint_parts = None if hint is None or leader_form.guess == "none" else (hint.linear, 1.0, hint.curvature)
        leader_weight_of, follower_weight_of = leader.weight, follower.weight
        one_weight = leader_weight_of is follower_weight_of
        output_is_leader, output_is_follower = output_weight is leader_weight_of, output_weight is follower_weight_of
        w_sum, p_sum = leader.play_sum, follower.play_sum
        S, y_last, alpha, weight = loss_sum.curvature, leader.last, leader.last_weight, follower.last_weight
        w_total, w_output = leader.weight_total, leader.output_weight_total
        p_total, p_output = follower.weight_total, follower.output_weight_total
        self.form = form

        # one weight sequence for both seats and the output, from equal totals (a fresh run): one running total
        single = one_weight and output_is_leader and w_total == w_output == p_total == p_output
        rounds = 0

        def round_(t):
            nonlocal S, hint_parts, x, cache, w_total, w_output, p_total, p_output, y_last, alpha, weight, rounds
            alpha = leader_weight_of(t)
            weight = alpha if one_weight else follower_weight_of(t)
            if hint_parts is None:  # y_t = argmin S f* + <L, .>
                y = minimize(L, S)
            else:  # y_t = argmin (S + alpha c) f* + <L + alpha psi, .>
                vector, factor, hint_curvature = hint_parts
                linear = L.copy()
                axpy(vector, linear, alpha * factor)
                y = minimize(linear, S + alpha * hint_curvature)
                hint_parts = None
            x = argmin(y if weight == 1.0 else weight * y, 0.0, eta if eta_at is None else eta_at(x_round + rounds), x,
                       cache)  # shown l_t = <y_t, .>: x_t = argmin eta_t alpha_t <y_t, x> + D_R(x, x_{t-1})
            if not is_numpy(x):  # (the built-in oracles return float64 arrays)
                x = np.asarray(x, dtype=np.float64)
            if cache_of is not None:
                cache = cache_of(x)
            axpy(x, L, -alpha)  # L_t = L_{t-1} + alpha_t (-x_t): the y-player's h_t = f* - <x_t, .>
            S += alpha  # (alpha_t times h_t's curvature 1.0, exactly)
            if last_loss:
                hint_parts = (x, -1.0, 1.0)
            if single:
                axpy(y, w_sum, alpha)
                axpy(x, p_sum, alpha)
                w_total += alpha
            else:
                output = alpha if output_is_leader else weight if output_is_follower else output_weight(t)
                axpy(y, w_sum, output)
                axpy(x, p_sum, output)
                w_total += alpha
                w_output += output
                p_total += weight
                p_output += output
            y_last = y
            rounds += 1

        def now():
            if single:
                return (S, hint_parts, y_round + rounds, x, cache, x_round + rounds, w_total, w_total, w_total,
                        w_total, alpha, weight, y_last)
            return (S, hint_parts, y_round + rounds, x, cache, x_round + rounds, w_total, w_output, p_total, p_output,
                    alpha, weight, y_last)

        self.play_round, self.now = round_, now  # the runner's loop calls play_round(t) directly

    def __call__(self, t: int) -> None:
        """Play round t."""
        self.play_round(t)

    def settle(self) -> None:
        """Write the run's state back into the seats: the learners' states, the weight totals, the last plays."""
        (S, hint_parts, y_round, x, cache, x_round, w_total, w_output, p_total, p_output, w_last_weight,
         p_last_weight, y) = self.now()
        leader, follower, leader_form = self.leader, self.follower, self.leader_form
        loss_sum, hint, first_round = leader_form.sums(self.leader_state)
        if y_round == first_round:
            return  # no round played
        # the hint's state: h_T = f* - <x_T, .> as the payoff builds it (OFTL), else None after round 1
        hint = Loss(-x, 1.0, self.form.convex) if leader_form.guess == "last" else None
        # the sum's convex term: f*'s, once a loss was added (Loss._convex_of_sum)
        leader.state = leader_form.state(self.leader_state, Loss(loss_sum.linear, S, self.form.convex), hint, y_round)
        follower.state = self.step.state(self.follower_state, x, cache, x_round)
        leader.weight_total, leader.output_weight_total, leader.last_weight = w_total, w_output, w_last_weight
        follower.weight_total, follower.output_weight_total, follower.last_weight = p_total, p_output, p_last_weight
        leader.last, follower.last = y, x


TABLE_MAX_BYTES = 1 << 28
"""The largest copy of A (bytes, float64) :class:`VertexRound` makes for contiguous rows of its reads."""


def _vertex_seat(seat):
    """``(form, L, h)`` of a seat the lean vertex round can drive (its learner's :class:`gamedyn.core.learners.VertexForm`,
    its loss sum's own float64 buffer, the hint's linear part or None), or None."""
    make = declared(seat.learner, "vertex_form", _LEARNER_METHODS, None)
    form = make() if callable(make) else None
    if (form is None or not declares_plays_in_domain(seat.learner) or seat.keeps_played or not seat.flat
            or not is_numpy(seat.play_sum) or not seat.learner_keeps_sum):
        return None
    loss_sum, hint, _ = form.sums(seat.state)
    L = loss_sum.linear
    if (not is_numpy(L) or L.ndim != 1 or L.dtype != np.float64 or not L.flags.c_contiguous
            or not L.flags.writeable or loss_sum.curvature or loss_sum.convex is not None):
        return None
    if form.guess == "none":
        return form, L, None
    h = getattr(hint, "linear", None)
    if (not is_numpy(h) or h.shape != L.shape or h.dtype != np.float64 or hint.curvature
            or hint.convex is not None):
        return None  # a curved or foreign f_0: round_of's round
    return form, L, h


def vertex_round(payoff, leader, follower, T: int, w_leads: bool, output_weight, regrets: bool,
                 observers) -> "VertexRound | None":
    """The lean vertex round (:class:`VertexRound`), or None for :func:`round_of`'s.

    Chosen by what the objects declare, never by their types: the payoff's ``vertex_losses()`` and
    both learners' ``vertex_form()`` (:meth:`gamedyn.FollowTheRegularizedLeader.vertex_form`: FTL on
    the simplex with no hint or :class:`gamedyn.games.matrix.InitialBelief`, i.e. fictitious play),
    both declaring ``plays_in_domain``. It applies to the run nobody watches: ``regrets=False``, no
    observer (``stop``, ``record``, ``callback``, ``metrics``, ``checkpoint`` ... each keep
    :func:`round_of`'s round), flat numpy play sums, linear loss sums the learners keep.
    """
    if regrets or observers:
        return None
    reads = vertex_losses_of(payoff)
    if reads is None:
        return None
    seats = _vertex_seat(leader), _vertex_seat(follower)
    if seats[0] is None or seats[1] is None:
        return None
    return VertexRound(reads, leader, follower, seats, T, w_leads, output_weight)


class VertexRound:
    r"""Fictitious play's round without the players' objects: both seats best-respond by an index.

    With :math:`L^w_{t-1}=-\sum_{s<t}\alpha_sA^\top e_{j_s}` and :math:`L^p_{t-1}=\sum_{s<t}\beta_sAe_{i_s}`
    (the learners' own loss sums) and the hints :math:`\psi` (None, or :math:`f_0` every round), round t is

    .. math::

        i_t=\arg\min_i\big(L^w_{t-1}+\alpha_t\psi^w\big)_i,\qquad j_t=\arg\min_j\big(L^p_{t-1}+\beta_t\psi^p\big)_j,

    then :math:`L^w_t=L^w_{t-1}-\alpha_tA^\top e_{j_t}` (a row of A), :math:`L^p_t=L^p_{t-1}+\beta_tAe_{i_t}`
    (a column) and the play counts at :math:`i_t, j_t`. Every operation is the one the players'
    objects do (the same sum with the hint, the domain's ``vertex_index``, the same BLAS axpy of the
    same numbers), in the same order, so the plays and sums are bit-identical to :func:`round_of`'s;
    the seats (the learners' rounds, the weight totals, the last plays) are written back by
    :meth:`settle`, which the runner calls after the loop. When T is large against A's rows and
    the copy is at most :data:`TABLE_MAX_BYTES`, the rows and columns are read from contiguous
    copies (``VertexLosses.tables``), built once.
    """

    def __init__(self, reads, leader, follower, seats, T, w_leads, output_weight):
        w_seat, p_seat = (leader, follower) if w_leads else (follower, leader)
        (w_form, Lw, hw), (p_form, Lp, hp) = seats if w_leads else seats[::-1]
        self.seats = ((w_seat, w_form, w_seat.state), (p_seat, p_form, p_seat.state))
        d, n = Lw.shape[0], Lp.shape[0]
        copy = 4 * T >= n and 8 * d * n <= TABLE_MAX_BYTES  # strided rows of A cost more than one copy of A
        P, W = reads.tables(copy) if reads.tables is not None else (None, None)
        p_loss_at, w_loss_at = reads.p_loss_at, reads.w_loss_at
        w_index, p_index = w_form.vertex_index, p_form.vertex_index
        bw, bp = np.empty(d), np.empty(n)
        w_weight_of, p_weight_of = w_seat.weight, p_seat.weight
        one_weight = w_weight_of is p_weight_of
        output_is_w, output_is_p = output_weight is w_weight_of, output_weight is p_weight_of
        w_sum, p_sum = w_seat.play_sum, p_seat.play_sum
        add, copyto = np.add, np.copyto
        w_total, w_output, p_total, p_output = (w_seat.weight_total, w_seat.output_weight_total, p_seat.weight_total,
                                                p_seat.output_weight_total)
        # one weight sequence for both seats and the output, from equal totals (a fresh run): one running total
        single = one_weight and output_is_w and w_total == w_output == p_total == p_output
        alpha = beta = 0.0
        i = j = -1
        rounds = 0

        def hinted(L, h, buffer, weight):
            """L + weight h, as FTRLPlayer.vertex forms it."""
            if h is None:
                return L
            if not is_python_float(weight):
                return plus_scaled(L, weight, h)
            if weight == 1.0:  # y + 1.0 x: the axpy's own bits, in one pass
                return add(L, h, out=buffer)
            copyto(buffer, L)
            axpy(h, buffer, weight)
            return buffer

        def round_(t):
            nonlocal w_total, w_output, p_total, p_output, alpha, beta, i, j, rounds
            alpha = w_weight_of(t)
            beta = alpha if one_weight else p_weight_of(t)
            if w_leads:
                i = w_index(hinted(Lw, hw, bw, alpha))
                j = p_index(hinted(Lp, hp, bp, beta))
            else:
                j = p_index(hinted(Lp, hp, bp, beta))
                i = w_index(hinted(Lw, hw, bw, alpha))
            w_loss = w_loss_at(j).linear if W is None else W[j]  # -A^T e_j
            p_loss = p_loss_at(i).linear if P is None else P[i]  # A e_i
            # FTRLPlayer.update's axpy; at weight 1 the same bits in one numpy pass (y + 1.0 x is exact)
            if not is_python_float(alpha):
                add_scaled(Lw, alpha, w_loss)
            elif alpha == 1.0:
                add(Lw, w_loss, out=Lw)
            else:
                axpy(w_loss, Lw, alpha)
            if not is_python_float(beta):
                add_scaled(Lp, beta, p_loss)
            elif beta == 1.0:
                add(Lp, p_loss, out=Lp)
            else:
                axpy(p_loss, Lp, beta)
            rounds += 1
            if single:
                w_sum[i] += alpha
                p_sum[j] += alpha
                w_total += alpha
                return
            output = alpha if output_is_w else beta if output_is_p else output_weight(t)
            w_sum[i] += output
            p_sum[j] += output
            w_total += alpha
            w_output += output
            p_total += beta
            p_output += output

        def now():
            if single:
                return rounds, (w_total, w_total, alpha, i), (w_total, w_total, beta, j)
            return rounds, (w_total, w_output, alpha, i), (p_total, p_output, beta, j)

        self.now = now
        self.play_round = round_  # the runner's loop calls play_round(t) directly

    def __call__(self, t: int) -> None:
        """Play round t."""
        self.play_round(t)

    def settle(self) -> None:
        """Write the run's state back into the seats: the learners' rounds, the weight totals, the last plays."""
        rounds, *ends = self.now()
        if not rounds:
            return  # no round played
        for (seat, form, state), (total, output_total, weight, index) in zip(self.seats, ends):
            _, _, first_round = form.sums(state)
            seat.state = form.state(state, first_round + rounds)  # the loss sum's buffer holds the rounds' sums
            seat.weight_total, seat.output_weight_total, seat.last_weight = total, output_total, weight
            last = np.zeros(seat.play_sum.shape[0])
            last[index] = 1.0
            seat.last = last


class AlternatingRound:
    r"""The alternating protocol (``play(..., alternating=True)``): the second mover's update sees the
    first mover's play of the same round, as Tammelin's CFR+ and Farina, Kroer & Sandholm (2021) run it.

    With the first mover L (the w-player when ``first="w"``) and the second mover F, who sees what:

    * **before round 1** (a fresh run): L plays its start :math:`x_0`, F its start :math:`y_0`
      (each learner's own first play; neither is averaged), and L is charged
      :math:`h_0=-g(\cdot,y_0)` at :math:`x_0`;
    * **round t**: L plays :math:`x_t` (it has seen :math:`y_0,\dots,y_{t-1}`); F is charged its
      loss :math:`\ell_t=g(x_t,\cdot)` **at its previous play** :math:`y_{t-1}` and only then plays
      :math:`y_t` (it has seen :math:`x_1,\dots,x_t`); L is charged :math:`h_t=-g(\cdot,y_t)` at
      :math:`x_t`. The round's plays, averaged with the output weights, are :math:`(x_t,y_t)`.

    So each learner's regret (``result.w_regret``, ``result.p_regret``) is over the pairs it was
    charged at: L's over :math:`(x_t,y_t)`, t = 0..T (T + 1 charges), F's over
    :math:`(y_{t-1},x_t)`, t = 1..T; Theorem 2's bound, which needs both over the same pairs, is not
    reported. A learner that must see its round's loss (FTRL+) cannot be the second mover here: in
    alternation the second mover's update already sees it. The round keeps no state of its own
    beyond :math:`y_{t-1}`, which is the second mover's ``last`` play: a checkpoint saves it and a
    resumed run is bit-identical. It is chosen by :func:`gamedyn.play` like the other rounds, before
    the loop, and the observers (certificate, stop rules, checkpoints) see its rounds as any other.
    With ``regrets=False`` the played values are not computed.
    """

    __slots__ = ("_one_weight", "_output_is_leader", "_output_weight", "_regrets", "follower", "leader")

    def __init__(self, leader, follower, output_weight, regrets: bool = True):
        self.leader, self.follower = leader, follower
        self._output_weight = output_weight
        self._one_weight = leader.weight is follower.weight
        self._output_is_leader = output_weight is leader.weight
        self._regrets = regrets

    def start(self) -> None:
        """Before round 1: the starts x_0, y_0 and the first mover's charge h_0 at x_0."""
        leader, follower = self.leader, self.follower
        weight = leader.weight(1)
        leader_start = leader.player.play(weight)
        follower_start = follower.player.play(weight if self._one_weight else follower.weight(1))
        loss = leader.opponent_loss(follower_start, leader_start)
        leader.update(leader_start, loss, weight, None)
        leader.charge(loss, weight, loss.value(leader_start) if self._regrets else None)
        follower.last = follower_start  # y_0: charged in round 1

    def __call__(self, t: int) -> None:
        leader, follower = self.leader, self.follower
        leader_weight = leader.weight(t)
        follower_weight = leader_weight if self._one_weight else follower.weight(t)
        output = leader_weight if self._output_is_leader else self._output_weight(t)
        leader_play = leader.player.play(leader_weight)
        previous = follower.last  # y_{t-1}
        follower_loss = follower.opponent_loss(leader_play, previous)
        follower.update(previous, follower_loss, follower_weight, None)  # F sees x_t before it plays
        follower_play = follower.player.play(follower_weight)
        leader_loss = leader.opponent_loss(follower_play, leader_play)
        regrets = self._regrets
        leader.settle(leader_play, leader_loss, leader_weight, output, follower_loss,
                      leader_loss.value(leader_play) if regrets else None)
        follower.charge(follower_loss, follower_weight, follower_loss.value(previous) if regrets else None)
        follower.output(follower_play, output)
