r"""Compiled rounds for small games (issue 35): many rounds in one compiled call, for a run nobody watches.

A round of :func:`gamedyn.play` on a 10 x 10 matrix game costs tens of microseconds of Python (the
players' objects, the seats, the loop) around two products of a microsecond; a compiled loop pays about
a quarter of a microsecond a round. :func:`compiled_alternating_round` gives such a run the compiled
loop of :mod:`gamedyn.arrays.compiled` (the numba extra) when the objects declare what it needs:

* the payoff's ``bilinear_form()`` with a dense float64 numpy operand (:class:`gamedyn.MatrixGame`,
  :class:`gamedyn.Bilinear`): the losses are :math:`\ell=Ax` and :math:`h=-A^\top y`;
* both learners' ``regret_form()`` (:meth:`gamedyn.RegretMatching.regret_form`: RM, RM+, PRM, PRM+);
* the alternating protocol, the w-player first, a fresh run and no observer (``stop``, ``record``,
  ``callback``, ``metrics``, checkpoints, :class:`gamedyn.NashGapStop` ... each keep
  :class:`gamedyn.engine.rounds.AlternatingRound`).

:class:`CompiledAlternatingRound` offers ``play_rounds(start, stop)``, which the runner's loop calls
instead of one call a round when nobody observes, in chunks of :data:`CHUNK` rounds (the weights of a
chunk are computed in Python first: O(chunk) memory, not O(T)), and ``settle()``, which writes the
learners' states and the seats' sums back: the same numbers as the per-round round to rounding
(tests/test_compiled.py, 1e-12). The starts (``AlternatingRound.start``) are played by the Python round.

**Where a treeplex round plugs in.** The same two declarations carry over: a treeplex payoff declaring
its sequence-form operator (the ``bilinear_form`` of its payoff matrix, or a ``treeplex_form`` with the
infosets' parent indices) and a counterfactual-regret learner declaring its rule as data (a
``regret_form`` per infoset), chosen here by the same checks, with a kernel beside
``alternating_regret_matching`` that walks the treeplex bottom-up per round.
"""

from __future__ import annotations

import numpy as np

from gamedyn.core.kernels import is_numpy
from gamedyn.core.protocols import declared
from gamedyn.engine.seats import declares_plays_in_domain

__all__ = ["CHUNK", "CompiledAlternatingRound", "compiled_alternating_round"]

CHUNK = 4096  # rounds a compiled call plays (their weights are computed first, in Python)
_LEARNER_METHODS = ("play", "update", "player", "init")


def _regret_form(seat):
    make = declared(seat.learner, "regret_form", _LEARNER_METHODS, None)
    form = make() if callable(make) else None
    if form is None or not declares_plays_in_domain(seat.learner):
        return None
    sums = form.sums(seat.state)
    if sums is None or not seat.flat or not is_numpy(seat.play_sum) or seat.learner_keeps_sum:
        return None
    if seat.keeps_loss_sum and not is_numpy(seat.loss_linear):
        return None
    return form, sums


def compiled_alternating_round(payoff, leader, follower, w_leads: bool, output_weight,
                               observers) -> "CompiledAlternatingRound | None":
    """The compiled alternating regret-matching round, or None (see the module docstring); built after the starts."""
    if observers or not w_leads:
        return None
    from gamedyn.arrays import compiled

    if not compiled.available():
        return None
    make = declared(payoff, "bilinear_form", ("loss_for_p", "loss_for_w", "times", "transpose_times"), None)
    form = make() if callable(make) else None
    if form is None:
        return None
    A = form.operand
    if (not is_numpy(A) or A.ndim != 2 or A.dtype != np.float64 or form.w_curvature
            or getattr(payoff, "batch_size", None)):
        return None
    forms = _regret_form(leader), _regret_form(follower)
    if forms[0] is None or forms[1] is None or follower.last is None:
        return None
    return CompiledAlternatingRound(np.ascontiguousarray(A), leader, follower, forms, output_weight)


class CompiledAlternatingRound:
    """Alternating regret matching, :data:`CHUNK` rounds a compiled call (see the module docstring)."""

    def __init__(self, A, leader, follower, forms, output_weight):
        from gamedyn.arrays.compiled import kernels

        self.kernel = kernels()["alternating_regret_matching"]
        self.A, self.leader, self.follower = A, leader, follower
        (self.x_form, (x_regrets, x_prediction, x_round)), (self.y_form, (y_regrets, y_prediction, y_round)) = forms
        self.x_state = [x_regrets, x_prediction, x_round]
        self.y_state = [y_regrets, y_prediction, y_round]
        m, n = A.shape[1], A.shape[0]
        self.x, self.y = np.empty(m), np.array(follower.last, dtype=np.float64)  # y holds y_{t-1}
        self.l, self.u = np.empty(n), np.empty(m)
        self.output_weight = output_weight
        self.one_weight = leader.weight is follower.weight
        self.output_is_leader = output_weight is leader.weight
        self.flags = np.array([self.x_form.plus, self.x_form.predictive, self.y_form.plus, self.y_form.predictive,
                               leader.keeps_loss_sum, follower.keeps_loss_sum,
                               leader.keeps_played and follower.keeps_played], dtype=np.bool_)
        self.totals = np.array([leader.played_loss_total or 0.0, leader.weight_total, leader.output_weight_total,
                                follower.played_loss_total or 0.0, follower.weight_total,
                                follower.output_weight_total], dtype=np.float64)
        self.rounds = 0
        self.last_weights = (leader.last_weight, follower.last_weight)

    def play_rounds(self, start: int, stop: int) -> None:
        """Play rounds start..stop (inclusive)."""
        leader, follower = self.leader, self.follower
        empty = np.zeros(1)
        x_loss = leader.loss_linear if leader.keeps_loss_sum else empty
        y_loss = follower.loss_linear if follower.keeps_loss_sum else empty
        for first in range(start, stop + 1, CHUNK):
            rounds = range(first, min(stop, first + CHUNK - 1) + 1)
            alpha = np.array([leader.weight(t) for t in rounds], dtype=np.float64)
            beta = alpha if self.one_weight else np.array([follower.weight(t) for t in rounds], dtype=np.float64)
            output = alpha if self.output_is_leader else np.array([self.output_weight(t) for t in rounds],
                                                                  dtype=np.float64)
            self.kernel(self.A, self.x_state[0], self.x_state[1], self.y_state[0], self.y_state[1], leader.play_sum,
                        follower.play_sum, x_loss, y_loss, self.x, self.y, self.l, self.u, alpha, beta, output,
                        self.flags, self.totals)
            self.rounds += len(rounds)
            self.last_weights = (float(alpha[-1]), float(beta[-1]))

    def __call__(self, t: int) -> None:
        """Play round t (the per-round form, for a caller that steps one round at a time)."""
        self.play_rounds(t, t)

    def settle(self) -> None:
        """Write the learners' states and the seats' sums back (after the loop)."""
        if not self.rounds:
            return
        leader, follower, totals = self.leader, self.follower, self.totals
        regrets, prediction, round_ = self.x_state
        leader.state = self.x_form.state(regrets, prediction, round_ + self.rounds)
        regrets, prediction, round_ = self.y_state
        follower.state = self.y_form.state(regrets, prediction, round_ + self.rounds)
        if leader.keeps_played and follower.keeps_played:
            leader.played_loss_total, follower.played_loss_total = float(totals[0]), float(totals[3])
        leader.weight_total, leader.output_weight_total = float(totals[1]), float(totals[2])
        follower.weight_total, follower.output_weight_total = float(totals[4]), float(totals[5])
        leader.last_weight, follower.last_weight = self.last_weights
        leader.last, follower.last = self.x.copy(), self.y.copy()
