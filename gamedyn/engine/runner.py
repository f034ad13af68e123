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
from collections.abc import Callable
from typing import Any

import numpy as np

from gamedyn.core.domains import learner_example
from gamedyn.core.kernels import NUMPY, SMALL_PRODUCT, is_foreign, single_blas_thread, to_host_scalar
from gamedyn.core.validation import check_count, check_vector
from gamedyn.core.weights import weight_function
from gamedyn.engine import checkpoints as _checkpoints
from gamedyn.engine.compiled_rounds import compiled_alternating_round
from gamedyn.engine.observers import (
    CallbackObserver,
    CertificateObserver,
    CheckpointObserver,
    MetricsObserver,
    Run,
    StopObserver,
    TraceObserver,
    check_observer,
    observer_name,
)
from gamedyn.engine.payoffs import Payoff
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
    if isinstance(metrics, numbers.Integral) and not isinstance(metrics, bool) and int(metrics) > 0:
        return int(metrics)
    raise ValueError(f"metrics must be False, True or a positive int k (the duality gap every k rounds), got {metrics!r}.")


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
    observers=(),
    regrets: bool = True,
    alternating: bool = False,
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
    **Alternation.** ``alternating=True`` runs the alternating protocol of CFR+ (Tammelin 2014;
    Farina, Kroer & Sandholm 2021): the second mover is charged its round loss at its previous
    play *before* it plays, so its play of round t has seen the first mover's play of round t;
    the first mover is charged once at its start before round 1. Who sees what, and what the
    regrets then measure: :class:`gamedyn.engine.rounds.AlternatingRound`. The second mover must
    not be a learner that needs its current loss (FTRL+). Theorem 2's bound is not reported.
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

    Parameters
    ----------
    payoff : Payoff
        g(w, p): :class:`Bilinear`, :class:`RegularizedBilinear`, :class:`ConcaveConvex`, a
        :class:`gamedyn.MatrixGame` or any object of the :class:`gamedyn.core.protocols.Payoff` protocol.
    w_learner, p_learner : Learner
        The two online learners (``FTRL(Entropy(), eta)``, ``OFTL()``, ...), each on a domain the payoff allows.
    T : int
        The number of rounds (>= 1).
    weights : {"constant", "linear"}, float, sequence or callable, default "constant"
        alpha_t (see above).
    p_weights : same as ``weights``, optional
        The p-player's own weights (default: ``weights``).
    first : {"w", "p"}, default "w"
        Who moves first: Protocol 1 (``"w"``) or Algorithm 3 (``"p"``).
    initial_w, initial_p : array_like, optional
        The starts w_0 and p_0 (default: each domain's centre; see **Starts**).
    stop : callable, optional
        ``stop(round_state) -> bool``: end the run after the first round where it is True
        (:mod:`gamedyn.certify.stops` has the usual rules).
    record : bool, default False
        Keep every play in ``result.trace`` (O(T) memory).
    callback : callable, optional
        ``callback(round_state)``, called every round.
    metrics : bool or int, default False
        Per-round regrets and bound (``True``), and the duality gap every k-th round (``k``).
    w_comparators, p_comparators : Domain, optional
        The comparator sets U of the regrets (default: each learner's domain).
    output_weights : same as ``weights``, optional
        The weights of the reported sums and averages (default: the w-player's).
    margin_norm : float, default 2.0
        q in (1, 2], the norm of w in the margin certificate.
    checkpoint : str or path-like, optional
        Where to write the run's state (see Checkpoints).
    checkpoint_every : int, optional
        Write ``checkpoint`` every this many rounds too.
    resume_from : str or path-like, optional
        A checkpoint of the same configuration to continue from.
    observers : sequence of Observer, default ()
        Objects whose ``observe(round_state)`` is called every round (docs/how-to/write-an-observer.md).
    regrets : bool, default True
        False skips the regrets, Theorem 2's bound and the played losses (the plays and averages only).
    alternating : bool, default False
        Run the alternating protocol of CFR+ (see **Alternation**); the second mover must not need
        its current loss.

    Returns
    -------
    GameResult
        The averaged iterates ``w_average``, ``p_average``, the weighted regrets ``w_regret``, ``p_regret``,
        ``theorem2_bound`` (R_w + R_p)/S_T, the certificate, and the trace and metrics when asked for.

    Raises
    ------
    TypeError
        An argument of the wrong kind (payoff, learner, stop, callback, T).
    ValueError
        A learner on a domain the payoff does not allow; FTRL+ (a learner that sees the current
        loss) moving first, or facing a linearised ``ConcaveConvex`` payoff; bad or subnormal weights
        (below 2.2e-308); FTL on R^d with a linear loss (no minimiser).
    NumericalRangeError
        A quantity overflowed float64 (a ``FloatingPointError``).
    CheckpointError
        ``resume_from`` is missing, damaged or of another format version; ``checkpoint`` cannot be
        written; a callable of the run cannot be fingerprinted; :class:`CheckpointMismatchError` when
        it was written by another configuration.

    Examples
    --------
    Hedge against Hedge on rock-paper-scissors: the averages approach the equilibrium (1/3, 1/3, 1/3)
    and Theorem 2 bounds the duality gap by (R_w + R_p)/S_T.

    >>> from gamedyn import FTRL, Entropy, MatrixGame, play
    >>> rps = MatrixGame([[0, -1, 1], [1, 0, -1], [-1, 1, 0]])
    >>> result = play(rps, FTRL(Entropy(), 0.1), FTRL(Entropy(), 0.1), T=2000)
    >>> bool(abs(result.w_average - 1 / 3).max() < 0.05), bool(result.theorem2_bound < 0.05)
    (True, True)
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
    if not isinstance(regrets, bool):
        raise TypeError(f"regrets must be True (compute the regrets, Theorem 2's bound and the played losses) or "
                        f"False (skip them), got {regrets!r}.")
    if metrics_every and not regrets:
        raise ValueError("metrics= records the regrets every round, but regrets=False skips them; pass regrets=True "
                         "with metrics=, or drop metrics=.")
    observers = tuple(observers)
    for index, observer in enumerate(observers):
        check_observer(observer, index)
    if callback is not None and not callable(callback):
        raise TypeError(f"callback must be a callable round_state -> None, got {callback!r}.")
    _check_domain(payoff, w_learner, "w")
    _check_domain(payoff, p_learner, "p")
    first_learner = w_learner if first == "w" else p_learner
    if not isinstance(alternating, (bool, np.bool_)):
        raise TypeError(f"alternating must be True or False, got {alternating!r}.")
    alternating = bool(alternating)
    if alternating and (p_learner if first == "w" else w_learner).needs_current_loss:
        raise ValueError(
            f"alternating=True charges the second mover its round loss before it plays; its learner also asks "
            f"to see that loss (FTRL+), which would count it twice. Give the {'p' if first == 'w' else 'w'}-player "
            f"a learner without the current-loss hint (e.g. FTRL, OFTRL, RegretMatching), or pass alternating=False.")
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
            "w_comparators": w_comparators, "p_comparators": p_comparators,
            **({"alternating": True} if alternating else {})}, _FINGERPRINT_FIXES)

    same_weights = p_weights is None and output_weights is None
    w_comparators = w_learner.domain if w_comparators is None else _check_comparators(w_comparators, "w_comparators")
    p_comparators = p_learner.domain if p_comparators is None else _check_comparators(p_comparators, "p_comparators")
    metrics = MetricsObserver(metrics_every, w_comparators, p_comparators, same_weights) if metrics_every else None
    with _blas_policy(payoff):  # one context per run (the start, the rounds, the result), not per round
        run = _build(payoff, w_learner, p_learner, T, first, initial_w, initial_p, w_weight, p_weight, output_weight,
                     margin_norm, regrets, observers_from(stop, record, callback, metrics, observers, checkpoint,
                                                          checkpoint_every, resume_from, configuration), alternating)
        rounds, stop_reason, observed = _loop(run, round_strategy(run, payoff, first, regrets, alternating))
        return _result(run, rounds, stop_reason, observed, regrets, same_weights, w_comparators, p_comparators,
                       alternating)


def observers_from(stop, record, callback, metrics, observers, checkpoint, checkpoint_every, resume_from,
                   configuration) -> list:
    """The keyword sugar as observers, in today's order: metrics, trace, callback, stop, yours, checkpoint
    (the certificate observer, first, is added by :func:`_build`: it depends on the payoff)."""
    built = []
    if metrics is not None:
        built.append(metrics)
    if record:
        built.append(TraceObserver())
    if callback is not None:
        built.append(CallbackObserver(callback))
    if stop is not None:
        built.append(StopObserver(stop))
    built.extend(observers)
    if checkpoint is not None or resume_from is not None:
        built.append(CheckpointObserver(checkpoint, checkpoint_every, resume_from, configuration))
    return built


def _build(payoff, w_learner, p_learner, T, first, initial_w, initial_p, w_weight, p_weight, output_weight,
           margin_norm, regrets, observers, alternating: bool = False) -> Run:
    """The game: the seats (with f_0), the one-pass round, the certificate and the observers, started."""
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
    tracker = certificate_of(payoff, w_learner.domain, margin_norm,
                             p_weight is output_weight and not (alternating and first == "p"))
    if tracker is not None and getattr(tracker, "observes_rounds", True):  # False: computed from the sums at the end
        requests = _requests(observers)
        observers = [CertificateObserver(tracker, requests), *observers]
    if not regrets:  # the loss sums are still kept for the certificate and for round states
        needs_sums = tracker is not None or any(getattr(o, "needs_round_state", True) for o in observers)
        w_seat.keep(played=False, loss_sum=needs_sums)
        p_seat.keep(played=False, loss_sum=needs_sums)
    run = Run(payoff, w_seat, p_seat, T, w_learner.domain, p_learner.domain, tracker, one_pass, convex_terms)
    run.observers = tuple(observers)
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
    """Play rounds run.start..T; after each, every observer sees it and may ask to stop.

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
                if calls:
                    state = snapshot(t) if needs_state else None
                    for index, (observe, wants) in enumerate(calls):
                        if observe(state if wants else t):
                            run.stopped_by = observers[index]
                            break
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


def certificate_of(payoff, w_domain, margin_norm: float, margin_from_sums: bool):
    """The payoff's certificate tracker (its declared ``certificate(w_domain, q, margin_from_sums)``), or None."""
    make = getattr(payoff, "certificate", None)
    return make(w_domain, margin_norm, margin_from_sums) if callable(make) else None
