r"""Protocol 1: two online learners play max_w min_p g(w, p) (spec section 3).

:func:`play` is the one runner. **w first** (Protocol 1), for t = 1..T:

1. w_t <- OL_w;
2. OL_p receives alpha_t and l_t = g(w_t, .);
3. p_t <- OL_p;
4. OL_w receives alpha_t and h_t = -g(., p_t).

**p first** (Algorithm 3) swaps the seats. A learner that must see its current loss (FTRL+) is
legal only in the second seat. The result carries the weighted averages
:math:`\bar w_T=\sum_t\alpha_tw_t/S_T`, the weighted regrets and Theorem 2's certificate

.. math::

    m(w) - m(\bar w_T) \le (R_w + R_p)/S_T \quad\text{for every } w\in W,\qquad m(w)=\min_{p\in Q}g(w,p).

Memory is O(n + d) in T: per-round traces are opt-in observers (:func:`gamedyn.record_plays`,
:func:`gamedyn.each_round`). ``play`` takes the protocol's own arguments and ``observers=[...]``.
"""

from __future__ import annotations

import contextlib
import numbers
import operator
from collections.abc import Iterable
from typing import Any, Literal

import numpy as np

from gamedyn.core.domains import learner_example
from gamedyn.core.kernels import NUMPY, SMALL_PRODUCT, is_foreign, single_blas_thread, to_host_scalar, to_numpy
from gamedyn.core.protocols import Learner, Observer, PayoffProtocol, declared
from gamedyn.core.validation import check_count, check_vector
from gamedyn.core.weights import Weights, weight_function
from gamedyn.engine.compiled_rounds import compiled_alternating_round
from gamedyn.engine.observers import CertificateObserver, Run, check_observer, observer_name
from gamedyn.engine.payoffs import Payoff, check_payoff_at_start
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
from gamedyn.engine.rounds import AlternatingRound, conjugate_round, one_pass_round, round_of, vertex_round
from gamedyn.engine.seats import Seat, check_learner, check_plays

__all__ = ["play"]


def backend_of_payoff(payoff):
    """The payoff's :class:`gamedyn.core.kernels.Backend` (``payoff.backend``; numpy for a payoff without one)."""
    backend = getattr(payoff, "backend", None)
    return NUMPY if backend is None else backend


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
    started_at = getattr(learner, "started_at", None)  # the learner's own copy with centre z_0 (gamedyn.Learner)
    if started_at is None or not hasattr(learner, "centre"):
        raise ValueError(
            f"{name} was given, but {player}_learner {type(learner).__name__} has no centre= to start from; "
            f"start it yourself (its init) and drop {name}, or use a gamedyn learner (FTRL, OFTRL, OMD, ...)."
        )
    if learner.centre is None:
        return started_at(point)
    centre = np.asarray(to_numpy(learner.centre), dtype=np.float64)  # (a device array: an explicit host copy, once)
    point = np.asarray(to_numpy(point), dtype=np.float64)
    if centre.shape != point.shape or not np.allclose(centre, point, rtol=1e-12, atol=0.0):
        raise ValueError(
            f"{name} and {player}_learner's centre= are both the start z_0 but differ; pass only one of them."
        )
    return learner


def _check_domain(payoff: Payoff, learner, player: str):
    """The payoff states the set each player plays on (None: any); refuse a learner on another set."""
    required = getattr(payoff, f"{player}_domain", None)
    if required is not None and learner.domain != required:
        raise ValueError(
            f"{player}_learner plays on {learner.domain!r}, but {type(payoff).__name__} needs its "
            f"{player}-player on {required!r} ({type(payoff).__name__}.{player}_domain); pass a "
            f"{player}_learner on that domain, e.g. {learner_example(required)}."
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
    payoff: PayoffProtocol,
    w_learner: Learner,
    p_learner: Learner,
    T: int,
    *,
    weights: Weights = "constant",
    p_weights: Weights | None = None,
    output_weights: Weights | None = None,
    first: Literal["w", "p"] = "w",
    initial_w: Any = None,
    initial_p: Any = None,
    alternating: bool = False,
    observers: Iterable[Observer] = (),
) -> GameResult:
    """Play T rounds of Protocol 1 (``first="w"``) or of its p-first variant (``first="p"``).

    ``play`` takes the protocol's own arguments: the payoff, the two learners, T, the weights, who
    moves first, the starts and the alternation. Everything else a run does -- stop early, record the
    plays, call a function each round, record per-round metrics, save or resume a checkpoint, measure
    the regrets against other comparators or skip them -- is an observer in ``observers=[...]``, made
    by a small constructor (:func:`gamedyn.stop_when`, :func:`gamedyn.record_plays`,
    :func:`gamedyn.each_round`, :func:`gamedyn.track_metrics`, :func:`gamedyn.checkpoint`,
    :func:`gamedyn.compare_with`, :func:`gamedyn.skip_regrets`; docs/reference/observers.md), or
    your own (:class:`gamedyn.Observer`). The recipes take the same as keywords (``stop=``,
    ``record=True`` ...: :data:`gamedyn.engine.observers.RUN_OPTIONS`).

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

    **Alternation.** ``alternating=True`` runs the alternating protocol of CFR+ (Tammelin 2014;
    Farina, Kroer & Sandholm 2021): the second mover is charged its round loss at its previous
    play *before* it plays, so its play of round t has seen the first mover's play of round t;
    the first mover is charged once at its start before round 1. Who sees what, and what the
    regrets then measure: :class:`gamedyn.engine.rounds.AlternatingRound`. The second mover must
    not be a learner that needs its current loss (FTRL+). Theorem 2's bound is not reported.

    **The payoff at the door.** Before round 1 ``play`` evaluates the payoff once at the starts: each
    loss must have the shape of its player's points and finite float entries, and ``value`` a finite
    number; otherwise a ``ValueError`` names the payoff (not a learner) and the method at fault.

    **Certificate.** For a :class:`Bilinear` payoff (or the regularised one) with w in R^d or a ball
    (the margin game), ``result.certificate`` is the certified bracket of
    :mod:`gamedyn.certify.certificates`, with w measured in the payoff's ``margin_norm`` (q; default 2).

    **Comparators.** Regrets (and so the bound and the gap) are taken against the best fixed point
    of each learner's domain; on R^d against a linear loss that is +inf. :func:`gamedyn.compare_with`
    states another comparator set U: R(U) = sum_t alpha_t f_t(z_t) - min_{u in U} sum_t alpha_t
    f_t(u), and the gap's best replies range over U too.

    Domains: the payoff states the set each player plays on (``payoff.w_domain``,
    ``payoff.p_domain``; ``Bilinear`` puts p on the simplex), and a learner on another domain is
    refused with a ``ValueError``. Range: a result never holds NaN. If float64 overflows (huge
    payoff entries, weights or steps), ``play`` raises :class:`NumericalRangeError` (a
    ``FloatingPointError``) naming the quantity; the fix is to rescale, since the game is
    scale-equivariant: payoff / s with each eta * s gives the same plays, regrets / s.
    Memory is O(n + d) in T unless an observer keeps every round (:func:`gamedyn.record_plays`,
    :func:`gamedyn.track_metrics`).

    Parameters
    ----------
    payoff : Payoff
        g(w, p): :class:`Bilinear`, :class:`RegularizedBilinear`, :class:`ConcaveConvex`, a
        :class:`gamedyn.MatrixGame` or any object of the :class:`gamedyn.Payoff` protocol.
    w_learner, p_learner : Learner
        The two online learners (``FTRL(Entropy(), eta)``, ``OFTL()``, ...), each on a domain the payoff allows.
    T : int
        The number of rounds (>= 1).
    weights : {"constant", "linear"}, float, sequence or callable, default "constant"
        alpha_t (see above).
    p_weights : same as ``weights``, optional
        The p-player's own weights (default: ``weights``).
    output_weights : same as ``weights``, optional
        The weights of the reported sums and averages (default: the w-player's).
    first : {"w", "p"}, default "w"
        Who moves first: Protocol 1 (``"w"``) or Algorithm 3 (``"p"``).
    initial_w, initial_p : array_like, optional
        The starts w_0 and p_0 (default: each domain's centre; see **Starts**).
    alternating : bool, default False
        Run the alternating protocol of CFR+ (see **Alternation**); the second mover must not need
        its current loss.
    observers : iterable of Observer, default ()
        Objects whose ``observe(round_state)`` is called every round, in order (an observer that saves
        the run goes last), and settings of what the run measures (docs/reference/observers.md).

    Returns
    -------
    GameResult
        The averaged iterates ``w_average``, ``p_average``, the weighted regrets ``w_regret``, ``p_regret``,
        ``theorem2_bound`` (R_w + R_p)/S_T, the certificate, and the trace and metrics when observed.

    Raises
    ------
    TypeError
        An argument of the wrong kind (payoff, learner, observer, T).
    ValueError
        A learner on a domain the payoff does not allow; FTRL+ (a learner that sees the current
        loss) moving first, or facing a linearised ``ConcaveConvex`` payoff; bad or subnormal weights
        (below 2.2e-308); FTL on R^d with a linear loss (no minimiser); a payoff whose losses or value
        at the starts have the wrong shape or are not finite.
    NumericalRangeError
        A quantity overflowed float64 (a ``FloatingPointError``).
    CheckpointError
        (with :func:`gamedyn.checkpoint`) ``resume_from`` is missing, damaged or of another format version;
        the path cannot be written; a callable of the run cannot be fingerprinted;
        :class:`CheckpointMismatchError` when it was written by another configuration.

    Examples
    --------
    Hedge against Hedge on rock-paper-scissors: the averages approach the equilibrium (1/3, 1/3, 1/3)
    and Theorem 2 bounds the duality gap by (R_w + R_p)/S_T.

    >>> from gamedyn import FTRL, Entropy, MatrixGame, play
    >>> rps = MatrixGame([[0, -1, 1], [1, 0, -1], [-1, 1, 0]])
    >>> result = play(rps, FTRL(Entropy(), 0.1), FTRL(Entropy(), 0.1), T=2000)
    >>> bool(abs(result.w_average - 1 / 3).max() < 0.05), bool(result.theorem2_bound < 0.05)
    (True, True)

    Observers: stop once the averages are 0.05-close to equilibrium, keeping every play.

    >>> from gamedyn import record_plays, stop_when
    >>> result = play(rps, FTRL(Entropy(), 0.1), FTRL(Entropy(), 0.1), T=2000,
    ...               observers=[stop_when(lambda state: state.t >= 500), record_plays()])
    >>> result.rounds, result.trace["w"].shape
    (500, (500, 3))
    """
    if not isinstance(payoff, Payoff):
        raise TypeError(f"payoff must be a gamedyn Payoff (Bilinear, RegularizedBilinear, ConcaveConvex, or an object "
                        f"with the gamedyn.Payoff protocol's members), got {type(payoff).__name__}.")
    check_learner(w_learner, "w_learner")
    check_learner(p_learner, "p_learner")
    T = check_count(T, "T")
    if first not in ("w", "p"):
        raise ValueError(f"first must be 'w' (Protocol 1) or 'p' (Algorithm 3), got {first!r}.")
    if isinstance(observers, (str, bytes)) or not isinstance(observers, Iterable):
        raise TypeError(f"observers must be a list of gamedyn.Observer objects (stop_when(rule), record_plays(), "
                        f"...), got {observers!r}.")
    observers = tuple(observers)
    for index, observer in enumerate(observers):
        check_observer(observer, index)
    observers, regrets, w_comparators, p_comparators = _measures(observers)
    _check_domain(payoff, w_learner, "w")
    _check_domain(payoff, p_learner, "p")
    first_learner = w_learner if first == "w" else p_learner
    if not isinstance(alternating, (bool, np.bool_)):
        raise TypeError(f"alternating must be True or False, got {alternating!r}.")
    alternating = bool(alternating)
    if alternating and getattr(p_learner if first == "w" else w_learner, "needs_current_loss", False):
        raise ValueError(
            f"alternating=True charges the second mover its round loss before it plays; its learner also asks "
            f"to see that loss (FTRL+), which would count it twice. Give the {'p' if first == 'w' else 'w'}-player "
            f"a learner without the current-loss hint (e.g. FTRL, OFTRL, RegretMatching), or pass alternating=False.")
    if getattr(first_learner, "needs_current_loss", False):
        raise ValueError(
            f"The {first}-player moves first (first={first!r}) but its learner needs the current loss "
            f"(FTRL+): a first mover cannot see its round's loss. Put it in the second seat "
            f"(first={'p' if first == 'w' else 'w'!r}) or give it a different hint (e.g. OFTRL)."
        )
    w_weight = weight_function(weights, "weights", T)
    p_weight = w_weight if p_weights is None else weight_function(p_weights, "p_weights", T)
    output_weight = (w_weight if output_weights is None else p_weight if output_weights is p_weights
                     else weight_function(output_weights, "output_weights", T))  # one function: one call a round
    same_weights = p_weights is None and output_weights is None
    configuration = {
        "payoff": payoff, "w_learner": w_learner, "p_learner": p_learner, "T": T,
        "weights": _schedule(weights, T), "p_weights": _schedule(p_weights, T),
        "output_weights": _schedule(output_weights, T), "first": first, "initial_w": initial_w,
        "initial_p": initial_p, "w_comparators": w_comparators, "p_comparators": p_comparators,
        **({"alternating": True} if alternating else {})}  # what a checkpoint fingerprints
    w_comparators = w_learner.domain if w_comparators is None else w_comparators
    p_comparators = p_learner.domain if p_comparators is None else p_comparators
    with _blas_policy(payoff):  # one context per run (the start, the rounds, the result), not per round
        run = _build(payoff, w_learner, p_learner, T, first, initial_w, initial_p, w_weight, p_weight, output_weight,
                     regrets, observers, alternating,
                     measures=(w_comparators, p_comparators, same_weights, configuration))
        rounds, stop_reason, observed = _loop(run, round_strategy(run, payoff, first, regrets, alternating))
        return _result(run, rounds, stop_reason, observed, regrets, same_weights, w_comparators, p_comparators,
                       alternating)


def _measures(observers: tuple) -> tuple:
    """``(watchers, regrets, w_comparators, p_comparators)``: the settings among the observers (those that
    declare ``measures``: :func:`gamedyn.compare_with`, :func:`gamedyn.skip_regrets`) read and taken out; the
    watchers in order, the one that saves the run (``saves_run``: the checkpoint) last."""
    regrets, comparators = True, {"w_comparators": None, "p_comparators": None}
    watchers: list = []
    savers: list = []
    for observer in observers:
        measures = declared(observer, "measures")
        if measures is None:
            (savers if declared(observer, "saves_run", default=False) else watchers).append(observer)
            continue
        regrets = regrets and bool(measures.get("regrets", True))
        for key in comparators:
            if measures.get(key) is not None:
                if comparators[key] is not None and comparators[key] != measures[key]:
                    raise ValueError(f"two comparator sets for {key[0]}: {comparators[key]!r} and {measures[key]!r}; "
                                     f"pass one compare_with({key[0]}=...).")
                comparators[key] = measures[key]
    if len(savers) > 1:
        raise ValueError(f"{len(savers)} observers save the run ({', '.join(map(observer_name, savers))}); pass one "
                         "checkpoint(path, every=..., resume_from=...).")
    return (*watchers, *savers), regrets, comparators["w_comparators"], comparators["p_comparators"]


def _build(payoff, w_learner, p_learner, T, first, initial_w, initial_p, w_weight, p_weight, output_weight,
           regrets, observers, alternating: bool = False, measures: tuple | None = None) -> Run:
    """The game: the seats (with f_0), the one-pass round, the certificate and the observers, started.

    ``measures`` is ``(w_comparators, p_comparators, same_weights, configuration)`` (None: each learner's
    domain, one weight sequence, no configuration), what the observers read from the :class:`Run`."""
    d, n = payoff.w_dimension, payoff.p_dimension
    w0 = _initial_point(initial_w, w_learner, d, "initial_w")
    p0 = _initial_point(initial_p, p_learner, n, "initial_p")
    w_learner = _started(w_learner, initial_w, w0, "w")
    p_learner = _started(p_learner, initial_p, p0, "p")
    backend = backend_of_payoff(payoff)  # the namespace and device the payoff computes on, chosen once
    if not backend.is_numpy:  # the initial points on the payoff's device: every array of the run lives there
        w0, p0 = backend.asarray(w0), backend.asarray(p0)
    # The t = 1 convention: each learner's f_0 is its round loss against the opponent's initial point.
    w_initial_loss, p_initial_loss = payoff.loss_for_w(p0, w0), payoff.loss_for_p(w0, p0)
    check_payoff_at_start(payoff, w0, p0, w_initial_loss, p_initial_loss)  # the payoff's faults, named as its own
    w_seat = Seat("w", w_learner, w_learner.init(d, w_initial_loss), w_weight, output_weight,
                  payoff.loss_for_w, w_initial_loss.linear.shape, backend=backend)
    p_seat = Seat("p", p_learner, p_learner.init(n, p_initial_loss), p_weight, output_weight,
                  payoff.loss_for_p, p_initial_loss.linear.shape, backend=backend)
    convex_terms = {"w": w_initial_loss.convex, "p": p_initial_loss.convex}  # for a resumed run's loss sums
    del w0, p0, w_initial_loss, p_initial_loss  # O(n + d) memory: keep only what the learners hold
    leader, follower = (w_seat, p_seat) if first == "w" else (p_seat, w_seat)
    # None: the two-pass round, or alternation's (gamedyn.engine.rounds)
    one_pass = None if alternating else one_pass_round(payoff, leader, follower, T, first == "w")
    # (alternating with p first: the p-player's loss sum holds its start charge g(w_0, .), not the output's margins)
    tracker = certificate_of(payoff, w_learner.domain, p_weight is output_weight and not (alternating and first == "p"))
    if tracker is not None and getattr(tracker, "observes_rounds", True):  # False: computed from the sums at the end
        requests = _requests(observers)
        observers = [CertificateObserver(tracker, requests), *observers]
    if not regrets:  # the loss sums are still kept for the certificate and for round states
        needs_sums = tracker is not None or any(getattr(o, "needs_round_state", True) for o in observers)
        w_seat.keep(played=False, loss_sum=needs_sums)
        p_seat.keep(played=False, loss_sum=needs_sums)
    run = Run(payoff, w_seat, p_seat, T, w_learner.domain, p_learner.domain, tracker, one_pass, convex_terms)
    run.observers, run.regrets = tuple(observers), regrets
    if measures is not None:
        run.w_comparators, run.p_comparators, run.same_weights, run.configuration = measures
    bind = getattr(tracker, "bind", None)  # a tracker that reads the run's sums when asked (MatrixGame's value bracket)
    if bind is not None:
        bind(run)
    for observer in observers:
        start = getattr(observer, "start", None)
        if start is not None:
            start(run)
    check_plays(w_seat)  # each play of a learner that does not declare plays_in_domain
    check_plays(p_seat)
    return run


def _requests(observers) -> dict:
    """What the stop rules ask of the certificate (``rule.requests``, see gamedyn.certify.stops), merged."""
    merged: dict = {}
    for observer in observers:
        for key, value in (getattr(observer, "requests", None) or {}).items():
            if key == "confirm_infeasible":
                merged.setdefault(key, []).extend(value)
            else:
                merged[key] = value
    return merged


def round_strategy(run, payoff, first, regrets, alternating: bool = False):
    """The round (gamedyn.engine.rounds.round_of; AlternatingRound with ``alternating``; the lean ConjugateRound
    for a Fenchel run nobody watches, the lean VertexRound for fictitious play's), built after the observers'
    start (a resume replaces the players; a fresh alternating run plays its starts here)."""
    leader, follower = (run.w_seat, run.p_seat) if first == "w" else (run.p_seat, run.w_seat)
    if alternating:
        alternation = AlternatingRound(leader, follower, run.w_seat.output_weight, regrets)
        if run.start == 1 and not run.finished:
            alternation.start()  # the starts and the first mover's charge at its start (not on resume)
            compiled = compiled_alternating_round(payoff, leader, follower, first == "w", run.w_seat.output_weight,
                                                  run.observers)  # regret matching nobody watches (numba extra)
            if compiled is not None:
                return compiled
        return alternation
    if run.start == 1 and not run.finished:  # the lean rounds, for a fresh run nobody watches (rounds.py)
        lean = conjugate_round(payoff, leader, follower, first == "w", run.w_seat.output_weight, regrets, run.observers)
        if lean is not None:
            return lean
        indices = vertex_round(payoff, leader, follower, run.T, first == "w", run.w_seat.output_weight, regrets,
                               run.observers)  # fictitious play's (both seats best-respond by an index)
        if indices is not None:
            return indices
    return round_of(payoff, leader, follower, run.one_pass, first == "w", run.w_seat.output_weight, regrets)


def rounds_loop(run, round_, snapshot) -> tuple:
    """The one round loop of gamedyn's runners (:func:`play`'s, :func:`gamedyn.engine.players.play_n`'s).

    ``run`` has ``observers``, ``T``, ``start``, ``finished``, ``stop_reason`` and ``stopped_by``
    (:class:`gamedyn.engine.observers.Run`); ``round_(t)`` (or ``round_.play_round(t)``) plays round t;
    ``snapshot(run)`` returns ``t -> round state`` for the observers that read one. Returns
    ``(rounds played, stop reason, {observer name: what its finish returned})``.
    """
    return _loop(run, round_, snapshot)


def _loop(run, round_, snapshot=None):
    """Play rounds run.start..T; after each, every observer sees it (in order) and may ask to stop: the
    run ends after that round, the first observer that asked named in the stop reason.

    Returns ``(rounds played, stop reason, {observer name: what its finish returned})``."""
    observers = run.observers
    calls = tuple((observer.observe, getattr(observer, "needs_round_state", True)) for observer in observers)
    needs_state = any(wants for _, wants in calls)
    snapshot = (_snapshot if snapshot is None else snapshot)(run)  # called only when needs_state
    rounds, stop_reason = (run.start - 1, run.stop_reason) if run.finished else (run.T, run.stop_reason)
    start = run.T + 1 if run.finished else run.start  # a finished run (last round or a stop rule) plays no more
    contexts = [make() for make in (getattr(o, "context", None) for o in observers) if make is not None]
    with contextlib.ExitStack() as stack:
        for context in contexts:
            if context is not None:
                stack.enter_context(context)
        play_round = getattr(round_, "play_round", round_)  # a round object's own function (no __call__ hop)
        play_rounds = None if calls else getattr(round_, "play_rounds", None)  # many rounds a call, nobody watching
        if play_rounds is not None and start <= run.T:
            play_rounds(start, run.T)
        with _Rounds(start, run.T if play_rounds is None else start - 1) as round_numbers:
            for t in round_numbers:
                play_round(t)
                if calls:  # every observer sees every round played; the first to ask to stop is named
                    state = snapshot(t) if needs_state else None
                    for index, (observe, wants) in enumerate(calls):
                        if observe(state if wants else t) and run.stopped_by is None:
                            run.stopped_by = observers[index]
                    if run.stopped_by is not None:
                        rounds = t
                        stop_reason = f"{observer_name(run.stopped_by)} fired at round {t}"
                        break
        settle = getattr(round_, "settle", None)  # a round that keeps its state until the end (ConjugateRound)
        if settle is not None:
            settle()
        observed = {}
        for observer in observers:
            finish = getattr(observer, "finish", None)
            if finish is not None:
                observed[observer_name(observer)] = finish(run, rounds, stop_reason)
    return rounds, stop_reason, observed


def _blas_policy(payoff):
    """One BLAS thread for a batched game or products below SMALL_PRODUCT multiply-adds (gamedyn.core.kernels)."""
    batch = getattr(payoff, "batch_size", None) or 1
    size = payoff.w_dimension * payoff.p_dimension * batch
    return single_blas_thread(limit=batch > 1 or size < SMALL_PRODUCT)


def _snapshot(run):
    """t -> the RoundState of round t (one small object per round, for the observers that read one)."""
    w_seat, p_seat, w_domain, p_domain, tracker = run.w_seat, run.p_seat, run.w_domain, run.p_domain, run.tracker

    def snapshot(t):
        return RoundState(t, w_seat.last, p_seat.last, w_seat.weight_total, p_seat.weight_total,
                          w_seat.play_sum, p_seat.play_sum, w_seat.loss_sum, p_seat.loss_sum,
                          w_seat.played_loss_total, p_seat.played_loss_total, w_domain, p_domain, tracker)

    return snapshot


def _result(run, rounds, stop_reason, observed, regrets, same_weights, w_comparators, p_comparators,
            alternating: bool = False) -> GameResult:
    """The GameResult: averages, regrets (only with ``regrets``), Theorem 2's bound, the gap, the certificate."""
    w_seat, p_seat, payoff = run.w_seat, run.p_seat, run.payoff
    sums = {"weight_total": w_seat.weight_total, "p_weight_total": p_seat.weight_total,
            "output_weight_total": w_seat.output_weight_total, "w_last": w_seat.last, "p_last": p_seat.last,
            "w_sum": w_seat.play_sum, "p_sum": p_seat.play_sum, "w_loss_sum": w_seat.loss_sum,
            "p_loss_sum": p_seat.loss_sum, "w_played_loss": w_seat.played_loss_total,
            "p_played_loss": p_seat.played_loss_total}
    for name in ("w_played_loss", "p_played_loss"):  # sums of played losses: host numbers, as for numpy
        value = sums[name]
        if is_foreign(value) and value.ndim == 0:
            sums[name] = to_host_scalar(value)
    check_result({k: v for k, v in sums.items() if v is not None}, set(), f"play (after {rounds} rounds)")
    w_average = w_seat.play_sum / w_seat.output_weight_total
    p_average = p_seat.play_sum / p_seat.output_weight_total
    w_loss_sum, p_loss_sum = w_seat.loss_sum, p_seat.loss_sum
    w_regret = p_regret = theorem2_bound = None
    if regrets:
        w_regret = regret(w_comparators, w_loss_sum, sums["w_played_loss"])
        p_regret = regret(p_comparators, p_loss_sum, sums["p_played_loss"])
        theorem2_bound = (w_regret + p_regret) / w_seat.weight_total if same_weights and not alternating else None
    gap = duality_gap(payoff, w_comparators, p_comparators, w_average, p_average) if same_weights else None
    unbounded = {name for name, value in (("w_regret", w_regret), ("p_regret", p_regret), ("duality_gap", gap))
                 if isinstance(value, (Unbounded, UnboundedGames))}
    if unbounded & {"w_regret", "p_regret"}:
        unbounded.add("theorem2_bound")
    check_result({name: value for name, value in (("w_average", w_average), ("p_average", p_average),
                  ("w_regret", w_regret), ("p_regret", p_regret), ("theorem2_bound", theorem2_bound),
                  ("duality_gap", gap)) if value is not None}, unbounded, f"play (after {rounds} rounds)",
                 context={k: v for k, v in sums.items() if v is not None})
    not_computed = () if regrets else tuple(name for name, value in (
        ("w_regret", None), ("p_regret", None), ("theorem2_bound", None), ("w_played_loss", None),
        ("p_played_loss", None), ("w_loss_sum", w_loss_sum), ("p_loss_sum", p_loss_sum)) if value is None)
    return GameResult(
        w_average=w_average, p_average=p_average, w_sum=w_seat.play_sum, p_sum=p_seat.play_sum,
        w_last=w_seat.last, p_last=p_seat.last, weight_total=w_seat.weight_total, p_weight_total=p_seat.weight_total,
        output_weight_total=w_seat.output_weight_total, rounds=rounds,
        w_regret=None if w_regret is None else per_game(w_regret),
        p_regret=None if p_regret is None else per_game(p_regret),
        theorem2_bound=None if theorem2_bound is None else per_game(theorem2_bound),
        duality_gap=None if gap is None else per_game(gap),
        w_loss_sum=w_loss_sum, p_loss_sum=p_loss_sum,
        w_played_loss=sums["w_played_loss"], p_played_loss=sums["p_played_loss"],
        stopped_early=rounds < run.T, stop_reason=stop_reason,
        trace=observed.get("trace"), certificate=run.tracker.certificate() if run.tracker is not None else None,
        metrics=observed.get("metrics"), not_computed=not_computed,
    )


def _schedule(weights, T):
    """A weight schedule as the checkpoint fingerprint sees it: names and numbers as given, a
    sequence by its first T values, a callable by what it computes (gamedyn.engine.checkpoints.describe)."""
    if weights is None or isinstance(weights, (str, numbers.Real)) or callable(weights):
        return weights
    return np.asarray(weights, dtype=np.float64)[:T]


def certificate_of(payoff, w_domain, margin_from_sums: bool):
    """The payoff's certificate tracker (its declared ``certificate(w_domain, q, margin_from_sums)``, q its
    ``margin_norm``: 2 unless the payoff declares another), or None."""
    make = getattr(payoff, "certificate", None)
    if not callable(make):
        return None
    return make(w_domain, declared(payoff, "margin_norm", default=2.0), margin_from_sums)
