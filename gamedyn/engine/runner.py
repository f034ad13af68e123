r"""Protocol 1: two online learners play max_w min_p g(w, p) (spec section 3).

:func:`play` is the one runner. **w first** (Protocol 1), for t = 1..T:

1. w_t <- OL_w;  2. OL_p receives alpha_t and l_t = g(w_t, .);  3. p_t <- OL_p;
4. OL_w receives alpha_t and h_t = -g(., p_t).

**p first** (Algorithm 3) swaps the seats. A learner that must see its current loss (FTRL+) is
legal only in the second seat. The result carries the weighted averages
:math:`\bar w_T=\sum_t\alpha_tw_t/S_T`, the weighted regrets and Theorem 2's certificate

.. math::

    m(w) - m(\bar w_T) \le (R_w + R_p)/S_T \quad\text{for every } w\in W,\qquad m(w)=\min_{p\in Q}g(w,p).

Memory is O(n + d) in T: per-round traces are opt-in (``record=True`` or ``callback=``).
"""

from __future__ import annotations

import contextlib
import numbers
import operator
from typing import Any, Callable

import attrs
import numpy as np

from gamedyn.core.domains import Ball, Reals, Simplex
from gamedyn.core.validation import check_count, check_vector
from gamedyn.core.weights import weight_function
from gamedyn.engine import checkpoints as _checkpoints
from gamedyn.engine.payoffs import Bilinear, Payoff
from gamedyn.engine.results import (
    GameResult,
    RoundState,
    Unbounded,
    UnboundedGames,
    check_result,
    duality_gap,
    per_game,
    regret,
)
from gamedyn.engine.rounds import one_pass_round
from gamedyn.engine.seats import Seat, check_learner, check_plays


def _initial_point(value, learner, dimension: int, name: str):
    if value is None:
        return learner.domain.default_centre(dimension)
    point = check_vector(value, name, size=dimension)
    if not learner.domain.contains(point):
        raise ValueError(f"{name} must lie in its player's domain {learner.domain!r}.")
    return point


def _started(learner, given, point, player: str):
    """The learner with its centre z_0 set to the given initial point (``initial_w`` / ``initial_p``).

    A learner whose ``centre`` is None starts there; one whose ``centre`` is already that point is
    unchanged; a different centre, or a learner without ``centre``, is refused: the two would be
    two different starts.
    """
    if given is None:
        return learner
    name = f"initial_{player}"
    if not attrs.has(type(learner)) or "centre" not in attrs.fields_dict(type(learner)):
        raise ValueError(
            f"{name} was given, but {player}_learner {type(learner).__name__} has no centre= to start from; "
            f"start it yourself (its init) and drop {name}, or use a gamedyn learner (FTRL, OFTRL, OMD, ...)."
        )
    if learner.centre is None:
        return attrs.evolve(learner, centre=point)
    centre = np.asarray(learner.centre, dtype=np.float64)
    if centre.shape != point.shape or not np.allclose(centre, point, rtol=1e-12, atol=0.0):
        raise ValueError(
            f"{name} and {player}_learner's centre= are both the start z_0 but differ; pass only one of them."
        )
    return learner


def _check_comparators(domain, name: str):
    if not all(hasattr(domain, method) for method in ("contains", "minimize_quadratic")):
        raise TypeError(f"{name} must be a domain (Ball(radius), Simplex(), Box(lower, upper), ...), got {domain!r}.")
    return domain


def _check_metrics(metrics) -> int:
    """0 (off), or k: the duality gap every k rounds."""
    if metrics is False or metrics is None:
        return 0
    if metrics is True:
        return 1
    if isinstance(metrics, numbers.Integral) and not isinstance(metrics, bool) and metrics > 0:
        return int(metrics)
    raise ValueError(f"metrics must be False, True or a positive int k (the duality gap every k rounds), got {metrics!r}.")


class _MetricsRecorder:
    """The opt-in per-round record: regrets and Theorem 2's bound every round, the gap every k rounds."""

    def __init__(self, payoff, w_domain, p_domain, same_weights: bool, every: int):
        self.payoff, self.w_domain, self.p_domain = payoff, w_domain, p_domain
        self.same_weights, self.every = same_weights, every
        self.rows, self.gaps = [], []

    def round(self, t, w_seat, p_seat, last: bool):
        w_regret = regret(self.w_domain, w_seat.loss_sum, w_seat.played_loss_total)
        p_regret = regret(self.p_domain, p_seat.loss_sum, p_seat.played_loss_total)
        bound = (w_regret + p_regret) / w_seat.weight_total if self.same_weights else np.nan
        self.rows.append((t, w_regret, p_regret, bound))
        if self.same_weights and (t % self.every == 0 or last):
            self._gap(t, w_seat, p_seat)

    def _gap(self, t, w_seat, p_seat):
        gap = duality_gap(self.payoff, self.w_domain, self.p_domain, w_seat.play_sum / w_seat.output_weight_total,
                           p_seat.play_sum / p_seat.output_weight_total)
        self.gaps.append((t, np.nan if gap is None else gap))

    def result(self, rounds, w_seat, p_seat) -> dict:
        if self.same_weights and (not self.gaps or self.gaps[-1][0] != rounds):
            self._gap(rounds, w_seat, p_seat)  # a stop rule ended the run early
        t, w_regret, p_regret, bound = zip(*self.rows)
        metrics = {"t": np.array(t), "w_regret": np.array(w_regret, dtype=np.float64),
                   "p_regret": np.array(p_regret, dtype=np.float64)}
        if self.same_weights:
            metrics["theorem2_bound"] = np.array(bound, dtype=np.float64)
            metrics["gap_t"] = np.array([row[0] for row in self.gaps])
            metrics["duality_gap"] = np.array([row[1] for row in self.gaps], dtype=np.float64)
        return metrics



def _learner_example(domain) -> str:
    if isinstance(domain, Simplex):
        return "FTRL(Entropy(), eta) or OMD(SquaredEuclidean(domain=Simplex()), eta)"
    if isinstance(domain, Ball):
        return f"FTL(Ball({domain.radius!r})) or FTRL(SquaredEuclidean(radius={domain.radius!r}), eta)"
    if isinstance(domain, Reals):
        return "FTRL(SquaredEuclidean(), eta) or FTRL(QNorm(q), eta)"
    return f"a learner whose regularizer has domain = {domain!r}"


def _check_domain(payoff: Payoff, learner, player: str):
    """The payoff states the set each player plays on (None: any); refuse a learner on another set."""
    required = getattr(payoff, f"{player}_domain", None)
    if required is not None and learner.domain != required:
        raise ValueError(
            f"{player}_learner plays on {learner.domain!r}, but {type(payoff).__name__} needs its "
            f"{player}-player on {required!r} ({type(payoff).__name__}.{player}_domain); pass a "
            f"{player}_learner on that domain, e.g. {_learner_example(required)}."
        )



class _Rounds:
    """The round loop's t = start, ..., T; an error raised inside the loop that has ``in_round``
    (a refused play, an objective's NaN in :mod:`gamedyn.games.fenchel.game`) learns the round it was raised in.

    The round is read from the iterator's remaining length as the error leaves the loop, so the
    rounds themselves pay nothing.
    """

    __slots__ = ("_iterator", "_last")

    def __init__(self, start: int, T: int):
        self._iterator, self._last = iter(range(start, T + 1)), T

    def __enter__(self):
        return self._iterator

    def __exit__(self, kind, error, traceback):
        name_round = getattr(error, "in_round", None)
        if callable(name_round) and getattr(error, "round", 0) is None:
            name_round(self._last - operator.length_hint(self._iterator))
        return False


def play(
    payoff: Payoff,
    w_learner,
    p_learner,
    T: int,
    *,
    weights="constant",
    p_weights=None,
    first: str = "w",
    initial_w=None,
    initial_p=None,
    stop: Callable[[RoundState], bool] | None = None,
    record: bool = False,
    callback: Callable[[RoundState], Any] | None = None,
    metrics: bool | int = False,
    w_comparators=None,
    p_comparators=None,
    output_weights=None,
    margin_norm: float = 2.0,
    checkpoint=None,
    checkpoint_every: int | None = None,
    resume_from=None,
) -> GameResult:
    """Play T rounds of Protocol 1 (``first="w"``) or of its p-first variant (``first="p"``).

    ``weights`` gives alpha_t: ``"constant"`` (1), ``"linear"`` (t), a positive number, a sequence
    of at least T positive numbers, or a callable t -> alpha_t. ``p_weights`` (default: the same)
    lets the p-player use its own sequence, as Ji et al.'s theta = 1 form needs; Theorem 2's bound
    is then not reported. ``output_weights`` (default: the w-player's weights) are the weights of
    the reported sums and averages of both players' plays, for outputs such as Ji et al.'s
    sum_t alpha_{t+1} w_t.

    **Starts.** ``initial_w`` / ``initial_p`` (default: each domain's centre, 0 or the uniform
    distribution) are the points w_0 and p_0 before round 1. Each does two things: it is the
    player's own start, the centre z_0 of its learner (``centre=``; a regularized learner with no
    hint then plays z_0 in round 1, e.g. ``FTRL(Entropy(), eta)`` plays p_0), and it builds the
    *opponent's* f_0 (the loss ``g(w_0, .)`` or ``-g(., p_0)``, what ``LastLoss`` / ``FirstRoundLoss``
    hint with at t = 1). A learner whose ``centre=`` is set to another point, or a learner without
    ``centre``, is refused with a ``ValueError``. Learners without a regularizer (FTL, OFTL,
    BestResponse) have no start of their own: their round-1 play is the argmin of their first loss
    or hint, so for them ``initial_w`` / ``initial_p`` only shape the opponent's f_0.
    ``stop(round_state)`` ends the run after the first round where it returns True.
    ``record=True`` keeps every play in ``result.trace`` (O(T) memory, off by default).
    For a :class:`Bilinear` payoff (or the regularised one) with w in R^d or a ball (the margin game),
    ``result.certificate`` is the certified bracket of :mod:`gamedyn.certify.certificates`, with w measured in
    ``margin_norm`` (q; default 2).

    **Per-round metrics** (opt-in, O(T) memory): ``metrics=True`` (or ``metrics=k``) fills
    ``result.metrics`` with arrays ready to plot: ``t``, ``w_regret`` and ``p_regret`` (R_w(t),
    R_p(t) against each domain's best point) and ``theorem2_bound`` ((R_w + R_p)/S_t) every round;
    ``gap_t`` and ``duality_gap`` (G_t at the averages, which costs two payoff products) every k-th
    round and at the last. The bound and the gap need one weight sequence (no ``p_weights`` /
    ``output_weights``); otherwise only the regrets are recorded.

    **Comparators.** Regrets (and so the bound and the gap) are taken against the best fixed
    point of each learner's domain; on R^d against a linear loss that is +inf. ``w_comparators``
    / ``p_comparators`` (a domain, e.g. ``Ball(1.0)``) state another comparator set U:
    R(U) = sum_t alpha_t f_t(z_t) - min_{u in U} sum_t alpha_t f_t(u), and the gap's best replies
    range over U too.

    Domains: the payoff states the set each player plays on (``payoff.w_domain``,
    ``payoff.p_domain``; ``Bilinear`` puts p on the simplex), and a learner on another domain is
    refused with a ``ValueError``. Range: a result never holds NaN. If float64 overflows (huge
    payoff entries, weights or steps), ``play`` raises :class:`NumericalRangeError` (a
    ``FloatingPointError``) naming the quantity; the fix is to rescale, since the game is
    scale-equivariant: payoff / s with each eta * s gives the same plays, regrets / s.

    Checkpoints (:mod:`gamedyn.engine.checkpoints`): ``checkpoint=path`` writes the run's state to ``path``
    every ``checkpoint_every`` rounds (if given), after the last round, and, on Ctrl-C (SIGINT) or
    SIGTERM, after the round in progress (then :class:`gamedyn.engine.checkpoints.RunInterrupted`, a
    ``KeyboardInterrupt``, is raised). The folder of ``path`` is checked writable before round 1.
    ``resume_from=path`` continues such a run, called with the same arguments, bit-identical to the
    uninterrupted one; a checkpoint of another configuration raises
    :class:`gamedyn.CheckpointMismatchError`: callables (weights, step schedules, a payoff's
    functions) count by what they compute, and one that cannot be fingerprinted (an object with
    ``__call__`` and state of its own) is refused before round 1. Without ``checkpoint`` a round
    costs nothing more.

    Raises:
        TypeError: an argument of the wrong kind (payoff, learner, stop, callback, T).
        ValueError: a learner on a domain the payoff does not allow; FTRL+ (a learner that sees
            the current loss) moving first, or facing a linearised ``ConcaveConvex`` payoff; bad or
            subnormal weights (below 2.2e-308); FTL on R^d with a linear loss (no minimiser).
        NumericalRangeError: a quantity overflowed float64 (a ``FloatingPointError``).
        CheckpointError: ``resume_from`` is missing, damaged or of another format version;
            ``checkpoint`` cannot be written; a callable of the run cannot be fingerprinted;
            :class:`CheckpointMismatchError` when it was written by another configuration.
    """
    if not isinstance(payoff, Payoff):
        raise TypeError(f"payoff must be a gamedyn Payoff (Bilinear, RegularizedBilinear, ConcaveConvex), got {type(payoff).__name__}.")
    check_learner(w_learner, "w_learner")
    check_learner(p_learner, "p_learner")
    T = check_count(T, "T")
    if first not in ("w", "p"):
        raise ValueError(f"first must be 'w' (Protocol 1) or 'p' (Algorithm 3), got {first!r}.")
    if stop is not None and not callable(stop):
        raise TypeError(f"stop must be a callable round_state -> bool, got {stop!r}.")
    metrics_every = _check_metrics(metrics)
    if callback is not None and not callable(callback):
        raise TypeError(f"callback must be a callable round_state -> None, got {callback!r}.")
    _check_domain(payoff, w_learner, "w")
    _check_domain(payoff, p_learner, "p")
    first_learner = w_learner if first == "w" else p_learner
    if first_learner.needs_current_loss:
        raise ValueError(
            f"The {first}-player moves first (first={first!r}) but its learner needs the current loss "
            f"(FTRL+): a first mover cannot see its round's loss. Put it in the second seat "
            f"(first={'p' if first == 'w' else 'w'!r}) or give it a different hint (e.g. OFTRL)."
        )
    if not (isinstance(margin_norm, numbers.Real) and not isinstance(margin_norm, bool) and 1 < margin_norm <= 2):
        raise ValueError(f"margin_norm is the norm q of w in the certificate, in (1, 2], got {margin_norm!r}; "
                         "pass 2, or q = p/(p-1) for data with ||x_i||_p <= 1.")
    w_weight = weight_function(weights, "weights", T)
    p_weight = w_weight if p_weights is None else weight_function(p_weights, "p_weights", T)
    output_weight = (w_weight if output_weights is None else p_weight if output_weights is p_weights
                     else weight_function(output_weights, "output_weights", T))  # one function: one call a round
    checkpoint_every = _checkpoints.check_options(checkpoint, checkpoint_every, resume_from)
    if metrics_every and (checkpoint is not None or resume_from is not None):
        raise ValueError("metrics= cannot be combined with checkpoint= or resume_from=: the per-round metrics "
                         "record (O(T) rows) is not saved in a checkpoint, so a resumed run would lose the rounds "
                         "before it; pass metrics=False, or stream the regrets with callback=.")
    if record and resume_from is not None:
        raise ValueError("record=True cannot resume: the trace of the rounds before the checkpoint is not in it; "
                         "pass record=False, or stream the plays with callback=.")
    configuration = None
    if checkpoint is not None or resume_from is not None:
        configuration = _checkpoints.fingerprint({
            "payoff": payoff, "w_learner": w_learner, "p_learner": p_learner, "T": T,
            "weights": _schedule(weights, T), "p_weights": _schedule(p_weights, T),
            "output_weights": _schedule(output_weights, T), "first": first, "initial_w": initial_w,
            "initial_p": initial_p, "margin_norm": margin_norm,
            "w_comparators": w_comparators, "p_comparators": p_comparators}, _FINGERPRINT_FIXES)

    d, n = payoff.w_dimension, payoff.p_dimension
    w0 = _initial_point(initial_w, w_learner, d, "initial_w")
    p0 = _initial_point(initial_p, p_learner, n, "initial_p")
    w_learner = _started(w_learner, initial_w, w0, "w")
    p_learner = _started(p_learner, initial_p, p0, "p")
    # The t = 1 convention: each learner's f_0 is its round loss against the opponent's initial point.
    w_initial_loss, p_initial_loss = payoff.loss_for_w(p0, w0), payoff.loss_for_p(w0, p0)
    w_seat = Seat("w", w_learner, w_learner.init(d, w_initial_loss), w_weight, output_weight,
                   payoff.loss_for_w, w_initial_loss.linear.shape)
    p_seat = Seat("p", p_learner, p_learner.init(n, p_initial_loss), p_weight, output_weight,
                   payoff.loss_for_p, p_initial_loss.linear.shape)
    w_convex, p_convex = w_initial_loss.convex, p_initial_loss.convex  # for a resumed run's loss sums
    del w0, p0, w_initial_loss, p_initial_loss  # O(n + d) memory: keep only what the learners hold
    leader, follower = (w_seat, p_seat) if first == "w" else (p_seat, w_seat)
    trace = {"w": [], "p": []} if record else None
    one_pass = one_pass_round(payoff, leader, follower, T)  # None: the two-pass round (gamedyn.engine.rounds)
    tracker = _certificate_tracker(payoff, w_learner.domain, margin_norm, p_weight is output_weight)
    start, rounds, stop_reason, finished = 1, T, f"completed T = {T} rounds", False
    if resume_from is not None:
        start, stop_reason, finished, carried = _resume(resume_from, configuration, w_seat, p_seat, tracker,
                                                          {"w": w_convex, "p": p_convex})
        rounds = start - 1 if finished else T
        start = T + 1 if finished else start  # a finished run (last round or a stop rule) plays no more
        if hasattr(one_pass, "restore"):
            one_pass.restore(*carried)  # a product the one-pass round computed a round early
    same_weights = p_weights is None and output_weights is None
    if same_weights and getattr(tracker, "share_dual_sum", None) is not None and p_seat.flat:
        tracker.share_dual_sum(p_seat.play_sum)  # sum_t alpha_t p_t is the p play sum: one axpy of length n fewer
    w_comparators = w_learner.domain if w_comparators is None else _check_comparators(w_comparators, "w_comparators")
    p_comparators = p_learner.domain if p_comparators is None else _check_comparators(p_comparators, "p_comparators")
    recorder = _MetricsRecorder(payoff, w_comparators, p_comparators, same_weights, metrics_every) if metrics_every else None
    check_plays(w_seat)  # each play of a learner that does not declare plays_in_domain
    check_plays(p_seat)
    follower_sees_current = follower.learner.needs_current_loss
    output_is_leader_weight = output_weight is leader.weight  # the output weights are a seat's own: no call
    output_is_follower_weight = output_weight is follower.weight

    # The round: one product per play (the follower's loss from the leader's play, the leader's
    # loss from the follower's play), shared by the learners, their hints and the running sums.
    # Everything a round calls is bound to a local once, before the loop (no attribute lookups per round).
    leader_weight_of, follower_weight_of = leader.weight, follower.weight
    leader_plays, follower_plays = leader.player.play, follower.player.play
    leader_loss_of, follower_loss_of = leader.opponent_loss, follower.opponent_loss
    leader_settle, follower_settle = leader.settle, follower.settle
    played_values, w_leads = payoff.played_values, first == "w"
    one_weight = leader_weight_of is follower_weight_of
    w_sum_of_losses, p_sum_of_losses = w_seat.linear_loss_sum, p_seat.linear_loss_sum
    w_is_leader = leader is w_seat
    hooks = stop is not None or callback is not None or checkpoint is not None
    interrupt = _checkpoints.InterruptFlag() if checkpoint is not None else contextlib.nullcontext()
    with interrupt, _Rounds(start, T) as round_numbers:
        for t in round_numbers:
            leader_weight = leader_weight_of(t)
            follower_weight = leader_weight if one_weight else follower_weight_of(t)
            leader_play = leader_plays(leader_weight)
            if one_pass is not None:  # gamedyn.engine.rounds: the follower's loss and play and the leader's loss, one read of A
                follower_loss, follower_play, leader_loss = one_pass(t, leader_play, follower_weight)
            elif follower_sees_current:
                follower_loss = follower_loss_of(leader_play, None)
                follower_play = follower_plays(follower_weight, follower_loss)
            else:
                follower_play = follower_plays(follower_weight)
                follower_loss = follower_loss_of(leader_play, follower_play)
            if one_pass is None:  # the two-pass round's second product
                leader_loss = leader_loss_of(follower_play, leader_play)
            if w_leads:
                leader_value, follower_value = played_values(leader_play, follower_play, leader_loss, follower_loss)
            else:
                follower_value, leader_value = played_values(follower_play, leader_play, follower_loss, leader_loss)
            output = (leader_weight if output_is_leader_weight else follower_weight if output_is_follower_weight
                      else output_weight(t))
            leader_settle(leader_play, leader_loss, leader_weight, output, follower_loss, leader_value)
            follower_settle(follower_play, follower_loss, follower_weight, output, leader_loss, follower_value)
            if tracker is not None:  # certificate hook: O(n + d) per round, no product (gamedyn.certify.certificates)
                tracker.observe(t, p_seat.last, leader_weight if w_is_leader else follower_weight,
                                w_sum_of_losses(), w_seat.weight_total, p_sum_of_losses(), w_seat.play_sum)
            if record:
                trace["w"].append(w_seat.last)
                trace["p"].append(p_seat.last)
            if recorder is not None:
                recorder.round(t, w_seat, p_seat, t == T)
            if hooks:
                if stop is None and callback is None:
                    if (checkpoint_every is not None and t % checkpoint_every == 0) or interrupt.raised:
                        _save(checkpoint, configuration, t, T, w_seat, p_seat, tracker, one_pass, False, stop_reason)
                        _raise_if_interrupted(interrupt, t, checkpoint)
                    continue
                snapshot = RoundState(t, w_seat.last, p_seat.last, w_seat.weight_total, p_seat.weight_total,
                                      w_seat.play_sum, p_seat.play_sum, w_seat.loss_sum, p_seat.loss_sum,
                                      w_seat.played_loss_total, p_seat.played_loss_total,
                                      w_learner.domain, p_learner.domain, tracker)
                if callback is not None:
                    callback(snapshot)
                if stop is not None and stop(snapshot):
                    rounds = t
                    stop_reason = f"stop rule {getattr(stop, '__name__', repr(stop))} fired at round {t}"
                    break
                if checkpoint is not None and ((checkpoint_every is not None and t % checkpoint_every == 0)
                                               or interrupt.raised):
                    _save(checkpoint, configuration, t, T, w_seat, p_seat, tracker, one_pass, False, stop_reason)
                    _raise_if_interrupted(interrupt, t, checkpoint)
        if checkpoint is not None:  # the run's end: resuming it returns this result at once
            _save(checkpoint, configuration, rounds, T, w_seat, p_seat, tracker, one_pass, True, stop_reason)
            _raise_if_interrupted(interrupt, rounds, checkpoint)

    sums = {"weight_total": w_seat.weight_total, "p_weight_total": p_seat.weight_total,
            "output_weight_total": w_seat.output_weight_total, "w_last": w_seat.last, "p_last": p_seat.last,
            "w_sum": w_seat.play_sum, "p_sum": p_seat.play_sum, "w_loss_sum": w_seat.loss_sum,
            "p_loss_sum": p_seat.loss_sum, "w_played_loss": w_seat.played_loss_total,
            "p_played_loss": p_seat.played_loss_total}
    check_result(sums, set(), f"play (after {rounds} rounds)")  # before the regrets, which would turn an inf into a NaN
    w_average = w_seat.play_sum / w_seat.output_weight_total
    p_average = p_seat.play_sum / p_seat.output_weight_total
    w_loss_sum, p_loss_sum = w_seat.loss_sum, p_seat.loss_sum
    w_regret = regret(w_comparators, w_loss_sum, w_seat.played_loss_total)
    p_regret = regret(p_comparators, p_loss_sum, p_seat.played_loss_total)
    theorem2_bound = (w_regret + p_regret) / w_seat.weight_total if same_weights else None
    gap = duality_gap(payoff, w_comparators, p_comparators, w_average, p_average) if same_weights else None
    unbounded = {name for name, value in (("w_regret", w_regret), ("p_regret", p_regret), ("duality_gap", gap))
                 if isinstance(value, (Unbounded, UnboundedGames))}
    if unbounded & {"w_regret", "p_regret"}:
        unbounded.add("theorem2_bound")
    check_result({"w_average": w_average, "p_average": p_average, "w_regret": w_regret, "p_regret": p_regret,
                   "theorem2_bound": 0.0 if theorem2_bound is None else theorem2_bound,
                   "duality_gap": 0.0 if gap is None else gap}, unbounded, f"play (after {rounds} rounds)")
    return GameResult(
        w_average=w_average,
        p_average=p_average,
        w_sum=w_seat.play_sum,
        p_sum=p_seat.play_sum,
        w_last=w_seat.last,
        p_last=p_seat.last,
        weight_total=w_seat.weight_total,
        p_weight_total=p_seat.weight_total,
        output_weight_total=w_seat.output_weight_total,
        rounds=rounds,
        w_regret=per_game(w_regret),
        p_regret=per_game(p_regret),
        theorem2_bound=None if theorem2_bound is None else per_game(theorem2_bound),
        duality_gap=None if gap is None else per_game(gap),
        w_loss_sum=w_loss_sum,
        p_loss_sum=p_loss_sum,
        w_played_loss=w_seat.played_loss_total,
        p_played_loss=p_seat.played_loss_total,
        stopped_early=rounds < T,
        stop_reason=stop_reason,
        trace={key: np.array(value) for key, value in trace.items()} if record else None,
        certificate=tracker.certificate() if tracker is not None else None,
        metrics=None if recorder is None else recorder.result(rounds, w_seat, p_seat),
    )


_WEIGHTS_FIX = ("pass the {0} as a sequence of T numbers (e.g. [f(t) for t in range(1, T + 1)]), or a plain "
                "function of t (def or lambda) whose closure and globals hold numbers, arrays or attrs objects")
_FINGERPRINT_FIXES = {
    "weights": _WEIGHTS_FIX.format("weights"), "p_weights": _WEIGHTS_FIX.format("p_weights"),
    "output_weights": _WEIGHTS_FIX.format("output_weights"),
    **{name: ("pass a step schedule eta as a sequence of T steps, or a plain function of t; and plain functions "
              "(def or lambda) wherever the learner takes one") for name in ("w_learner", "p_learner")},
    "payoff": ("give the payoff's (or Objective's) functions as plain functions (def or lambda) whose defaults, "
               "closure and globals hold numbers, arrays, attrs objects or other such functions"),
}


def _schedule(weights, T):
    """A weight schedule as the checkpoint fingerprint sees it: names and numbers as given, a
    sequence by its first T values, a callable by what it computes (gamedyn.engine.checkpoints.describe)."""
    if weights is None or isinstance(weights, (str, numbers.Real)) or callable(weights):
        return weights
    return np.asarray(weights, dtype=np.float64)[:T]


_SEAT_FIELDS = ("state", "play_sum", "loss_linear", "loss_curvature", "played_loss_total", "weight_total",
                "output_weight_total", "last")
_TRACKER_FIELDS = ("t", "_dual_sum", "_weight_total", "upper", "upper_round", "_witness", "separable_exact")


def _save(path, configuration, t, T, w_seat, p_seat, tracker, one_pass, finished, stop_reason):
    """Write every number the run carries into round t + 1 (gamedyn.engine.checkpoints)."""
    state = {f"{seat.name}.{field}": getattr(seat, field) for seat in (w_seat, p_seat) for field in _SEAT_FIELDS}
    ahead_round, ahead = one_pass.carried() if hasattr(one_pass, "carried") else (0, None)
    state.update({"one_pass.ahead_round": ahead_round, "one_pass.ahead": ahead})
    state.update({f"{seat.name}.has_convex": seat.loss_convex is not None for seat in (w_seat, p_seat)})
    if tracker is not None:
        state.update({f"tracker.{field}": getattr(tracker, field) for field in _TRACKER_FIELDS})
    _checkpoints.write(path, "play", configuration, t, state,
                       {"T": T, "finished": finished, "stop_reason": stop_reason})


def _raise_if_interrupted(interrupt, t, path):
    interrupt.stop(t, path)  # gamedyn.engine.checkpoints.RunInterrupted after Ctrl-C or SIGTERM


def _resume(path, configuration, w_seat, p_seat, tracker, convex_terms):
    """Load a checkpoint into the freshly initialised seats and tracker; returns
    ``(first round to play, stop reason, finished)``."""
    templates = {f"{seat.name}.{field}": getattr(seat, field) for seat in (w_seat, p_seat) for field in _SEAT_FIELDS}
    templates.update({f"{seat.name}.has_convex": False for seat in (w_seat, p_seat)})
    if tracker is not None:
        templates.update({f"tracker.{field}": getattr(tracker, field) for field in _TRACKER_FIELDS})
    header, state = _checkpoints.read(path, "play", configuration, templates, convex_terms)
    # A loss the one-pass round computed a round early (gamedyn.engine.rounds.EntropyLeaderRound); absent
    # from checkpoints written before that round existed, and ignored by a run that takes another round.
    carried = state.pop("one_pass.ahead_round", 0), state.pop("one_pass.ahead", None)
    if set(state) != set(templates):
        raise _checkpoints.CheckpointMismatchError(
            f"{path!r} holds {sorted(set(state) ^ set(templates))} that this run does not (or the reverse).")
    for name, value in state.items():
        owner, field = name.split(".", 1)
        target = {"w": w_seat, "p": p_seat, "tracker": tracker}[owner]
        if field == "has_convex":  # the losses' convex term: a function of the game, taken from its f_0
            target.loss_convex = convex_terms[owner] if value else None
            if value and convex_terms[owner] is None:
                raise _checkpoints.CheckpointMismatchError(
                    f"{path!r} was written by a game whose {owner}-losses have a convex term; this run's have none.")
            continue
        if isinstance(value, np.ndarray) and value.dtype == np.float64 and value.ndim:  # buffers updated in place
            value = np.require(value, requirements=("C", "W", "O"))
        setattr(target, field, value)
    if tracker is not None:  # the tracker reads the runner's sums, as after its last observe
        tracker._margins = p_seat.loss_sum.linear if tracker.margin_from_sums else None
        tracker._output_sum = w_seat.play_sum
    return header["round"] + 1, header["stop_reason"], bool(header["finished"]), carried


def _certificate_tracker(payoff, w_domain, margin_norm, margin_from_sums):
    """A :class:`gamedyn.certify.certificates.CertificateTracker` for the margin game: a bilinear payoff with w in
    R^d or a ball (weak duality gamma* <= ||A^T p||); for K batched games (:mod:`gamedyn.arrays.batched`) on an
    in-memory X, a :class:`gamedyn.certify.certificates.BatchedCertificateTracker` (one bracket per game);
    a RowBlockedOperator A (dask) gets the tracker too (its products are blockwise); None otherwise
    (e.g. matrix games, w in a simplex, other operators)."""
    if not isinstance(payoff, Bilinear) or isinstance(w_domain, Simplex):
        return None
    import scipy.sparse as sp

    from gamedyn.certify import certificates

    cap = getattr(payoff.p_domain, "cap", None)  # the soft-margin game: p on CappedSimplex(cap)
    if getattr(payoff, "batch_size", None):
        X = getattr(payoff.A, "X", None)
        if not (isinstance(X, np.ndarray) or sp.issparse(X)):
            return None
        return certificates.BatchedCertificateTracker(payoff.A, margin_norm, margin_from_sums=margin_from_sums, cap=cap)
    if not (isinstance(payoff.A, np.ndarray) or sp.issparse(payoff.A) or hasattr(payoff.A, "largest_row_norm")):
        return None  # a matrix-free A without a row-norm pass (the Gordan LP needs its scale)
    return certificates.CertificateTracker(payoff.A, margin_norm, margin_from_sums=margin_from_sums, cap=cap)
