r"""Everything that watches the rounds of :func:`gamedyn.play`: observers (the :class:`gamedyn.Observer` protocol).

The runner's loop plays a round, then hands it to each observer in turn; any observer may ask the
run to stop. :func:`gamedyn.play` takes the protocol's own arguments and ``observers=[...]``; what a
run records, when it stops, what it saves and what its regrets are measured against are observers,
each made by one small public constructor (docs/reference/observers.md shows the contract):

=============================== =============================== ============================== =====================
constructor                     observer                        per round                      recipe run option
=============================== =============================== ============================== =====================
(a payoff with a certificate)   :class:`CertificateObserver`    O(n + d), no product           (always)
:func:`track_metrics` ``(k)``   :class:`MetricsObserver`        O(n + d) (regrets)             ``metrics=``
:func:`record_plays` ``()``     :class:`TraceObserver`          two appends                    ``record=True``
:func:`each_round` ``(f)``      :class:`CallbackObserver`       a :class:`gamedyn.RoundState`  ``callback=``
:func:`stop_when` ``(rule)``    :class:`StopObserver`           a :class:`gamedyn.RoundState`  ``stop=``
yours                           yours                           yours                          ``observers=[...]``
:func:`checkpoint` ``(path)``   :class:`CheckpointObserver`     a modulo (a write every k)     ``checkpoint=``, ``checkpoint_every=``, ``resume_from=``
:func:`compare_with` ``(w, p)`` :class:`RegretSettings`         nothing (a setting)            ``w_comparators=``, ``p_comparators=``
:func:`skip_regrets` ``()``     :class:`RegretSettings`         nothing (a setting)            ``regrets=False``
=============================== =============================== ============================== =====================

A recipe keeps the run options of the last column (:data:`RUN_OPTIONS`); :func:`run_observers` turns
them into these observers, in this order (the certificate is up to date when a stop rule reads it,
and a checkpoint is written after the stop rule has had its say). Whatever the order given to
``play``, an observer that saves the run (``saves_run = True``: the checkpoint) goes last.

A run without any of them calls no observer: the loop's ``if observers`` is all it costs.
Observers with ``needs_round_state = False`` are called with the round number t instead of a
:class:`gamedyn.RoundState` (the built-ins read the seats they were given at ``start``); one
:class:`gamedyn.RoundState` is built per round only when some observer needs it. An observer that
declares ``measures`` (:func:`compare_with`, :func:`skip_regrets`) watches no round: ``play`` reads
the setting before round 1 and calls it no more.

Stop rules are pure: a rule that wants sharper bounds or a Gordan proof declares it
(``rule.requests``, see :mod:`gamedyn.certify.stops`), and the :class:`CertificateObserver` does that
work on its own tracker.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from gamedyn.core.kernels import backend_of, is_foreign
from gamedyn.core.protocols import declared
from gamedyn.engine import checkpoints as _checkpoints
from gamedyn.engine.results import RoundState, duality_gap, regret

__all__ = ["RUN_OPTIONS", "CallbackObserver", "CertificateObserver", "CheckpointObserver", "MetricsObserver",
           "RegretSettings", "Run", "StopObserver", "TraceObserver", "checkpoint", "compare_with", "each_round",
           "observer_name", "record_plays", "run_observers", "skip_regrets", "stop_when", "track_metrics"]


def observer_name(observer) -> str:
    """An observer's ``name`` (default: ``observer <class name>``)."""
    name = getattr(observer, "name", None)
    return name if isinstance(name, str) else f"observer {type(observer).__name__}"


class Run:
    """What an observer sees at ``start`` and ``finish``: the payoff, the seats, T and the run's round range.

    ``w_seat`` / ``p_seat`` are the runner's :class:`gamedyn.engine.seats.Seat` objects (read them; only
    the checkpoint observer restores them, through ``Seat.state`` and its public buffers);
    ``start`` is the first round to play (a resumed run's), ``finished`` whether a resumed run had
    already ended, ``stop_reason`` its reason; ``one_pass`` the round strategy when it carries a
    product across rounds (``carried()`` / ``restore()``), else None; ``stopped_by`` the observer that
    asked to stop (None: the run completed T rounds). What the run measures: ``w_comparators`` /
    ``p_comparators`` (the comparator sets of the regrets and the gap), ``same_weights`` (one weight
    sequence: Theorem 2's bound and the gap are defined), ``regrets`` (False: :func:`skip_regrets`);
    ``configuration`` the parts of the call a checkpoint fingerprints (name -> value).
    """

    __slots__ = ("payoff", "w_seat", "p_seat", "T", "w_domain", "p_domain", "tracker", "one_pass", "convex_terms",
                 "start", "finished", "stop_reason", "stopped_by", "observers", "w_comparators", "p_comparators",
                 "same_weights", "regrets", "configuration")

    def __init__(self, payoff, w_seat, p_seat, T, w_domain, p_domain, tracker, one_pass, convex_terms):
        self.payoff, self.w_seat, self.p_seat, self.T = payoff, w_seat, p_seat, T
        self.w_domain, self.p_domain, self.tracker, self.one_pass = w_domain, p_domain, tracker, one_pass
        self.convex_terms = convex_terms
        self.start, self.finished, self.stop_reason, self.stopped_by = 1, False, f"completed T = {T} rounds", None
        self.observers: tuple = ()
        self.w_comparators, self.p_comparators = w_domain, p_domain
        self.same_weights, self.regrets = True, True
        self.configuration: dict = {}


class CertificateObserver:
    """Feeds the certificate tracker (:mod:`gamedyn.certify.certificates`) every round: O(n + d), no product.

    It also does what the stop rules request (``requests``, merged from the rules): every
    ``sharpen_every`` rounds (on the rule's check rounds) it sharpens the games whose relative gap
    is not yet within ``sharpen_eps``; and at the end of a run a stop rule ended, it looks for
    Gordan's proof on the games whose U_t fell below ``confirm_infeasible`` times the largest row
    norm. The tracker's state is saved and restored through its public ``state()`` / ``restore()``.
    """

    needs_round_state = False
    name = "certificate"

    def __init__(self, tracker, requests: dict | None = None):
        self.tracker = tracker
        requests = requests or {}
        self.sharpen_every = requests.get("sharpen_every")
        self.sharpen_check_every = requests.get("sharpen_check_every", 1)
        self.sharpen_eps = requests.get("sharpen_eps")
        self.confirm_infeasible = requests.get("confirm_infeasible")  # a list of eps (any_of may hold several)
        self._observe = tracker.observe
        self._run: Any = None  # the Run, set by start()

    def start(self, run) -> None:
        """Attach to the run (its seats' sums feed the tracker)."""
        self._run = run
        self._share(run)

    def _share(self, run) -> None:
        tracker = self.tracker
        if (run.w_seat.output_weight is run.w_seat.weight and run.p_seat.weight is run.w_seat.weight
                and getattr(tracker, "share_dual_sum", None) is not None and run.p_seat.flat):
            tracker.share_dual_sum(run.p_seat.play_sum)  # sum_t alpha_t p_t is the p play sum: one axpy fewer

    def observe(self, t) -> None:
        run = self._run
        w_seat, p_seat = run.w_seat, run.p_seat
        self._observe(t, p_seat.last, w_seat.last_weight, w_seat.linear_loss_sum(), w_seat.weight_total,
                      p_seat.linear_loss_sum(), w_seat.play_sum)
        if self.sharpen_every is not None and t % self.sharpen_every == 0 and t % self.sharpen_check_every == 0:
            self._sharpen()

    def _within(self, lower):
        tracker = self.tracker
        return np.atleast_1d((lower > 0) & (tracker.upper - lower <= self.sharpen_eps * tracker.upper))

    def _sharpen(self) -> None:
        tracker = self.tracker
        lower = tracker.lower
        within = self._within(lower)
        if np.all(within):
            return
        if np.ndim(tracker.upper):
            tracker.sharpen(np.flatnonzero(~within & np.atleast_1d(lower > 0)))
        elif lower > 0:
            tracker.sharpen()

    def finish(self, run, rounds, stop_reason) -> None:
        """After a run a stop rule ended: Gordan's proof on the games the infeasible rule settled."""
        if not self.confirm_infeasible or getattr(run.stopped_by, "rule", None) is None:  # not ended by a stop rule
            return
        tracker = self.tracker
        settled = np.zeros(np.shape(tracker.upper) or 1, dtype=bool)
        for eps in self.confirm_infeasible:
            settled |= np.atleast_1d(tracker.upper <= eps * tracker.row_norm_max)
        if not np.any(settled):
            return
        if np.ndim(tracker.upper):
            tracker.confirm_infeasible(np.flatnonzero(settled))
        else:
            tracker.confirm_infeasible()

    def checkpoint_state(self) -> dict:
        """The tracker's state, saved in a checkpoint."""
        return self.tracker.state()

    def restore_state(self, state: dict) -> None:
        """Restore the tracker from a checkpoint's state, onto the run's restored sums."""
        run = self._run
        self.tracker.restore(state, margins=run.p_seat.loss_sum.linear, output_sum=run.w_seat.play_sum)
        self._share(run)  # the restored p play sum is a new buffer


class MetricsObserver:
    """The opt-in per-round record (:func:`track_metrics`, a recipe's ``metrics=``): regrets and Theorem 2's
    bound every round, the gap every ``every`` rounds and at the last; ``result.metrics``.

    It reads the run's comparators and weights at ``start``; it is not saved in a checkpoint
    (``history``), so a resumed run refuses it.
    """

    needs_round_state = False
    name = "metrics"
    history = "the per-round metrics (O(T) rows)"

    def __init__(self, every: int = 1):
        if not (isinstance(every, numbers.Integral) and not isinstance(every, bool) and int(every) > 0):
            raise ValueError(f"track_metrics(every) takes a positive int k (the duality gap every k rounds), got "
                             f"{every!r}; a recipe's metrics= takes True or k.")
        self.every: int = int(every)
        self.w_domain: Any = None  # the comparator sets and whether the run has one weight sequence: set by start()
        self.p_domain: Any = None
        self.same_weights: bool = True
        self.rows: list[tuple] = []  # (t, w regret, p regret, bound)
        self.gaps: list[tuple] = []  # (t, duality gap)
        self._run: Any = None  # the Run, set by start()

    def start(self, run) -> None:
        """Attach to the run: its comparators and whether it has one weight sequence."""
        if not run.regrets:
            raise ValueError("track_metrics() (metrics=) records the regrets every round, but skip_regrets() "
                             "(regrets=False) skips them; drop one of the two.")
        self._run = run
        self.w_domain, self.p_domain, self.same_weights = run.w_comparators, run.p_comparators, run.same_weights
        self.rows, self.gaps = [], []

    def observe(self, t) -> None:
        run = self._run
        w_seat, p_seat = run.w_seat, run.p_seat
        w_regret = regret(self.w_domain, w_seat.loss_sum, w_seat.played_loss_total)
        p_regret = regret(self.p_domain, p_seat.loss_sum, p_seat.played_loss_total)
        bound = (w_regret + p_regret) / w_seat.weight_total if self.same_weights else np.nan
        self.rows.append((t, w_regret, p_regret, bound))
        if self.same_weights and (t % self.every == 0 or t == run.T):
            self._gap(t)

    def _gap(self, t) -> None:
        run = self._run
        w_seat, p_seat = run.w_seat, run.p_seat
        gap = duality_gap(run.payoff, self.w_domain, self.p_domain, w_seat.play_sum / w_seat.output_weight_total,
                          p_seat.play_sum / p_seat.output_weight_total)
        self.gaps.append((t, np.nan if gap is None else gap))

    def finish(self, run, rounds, stop_reason) -> dict:
        """The per-round metrics as arrays (``result.metrics``), with the last round's gap."""
        if self.same_weights and (not self.gaps or self.gaps[-1][0] != rounds):
            self._gap(rounds)  # a stop rule ended the run early
        t, w_regret, p_regret, bound = zip(*self.rows)
        metrics = {"t": np.array(t), "w_regret": np.array(w_regret, dtype=np.float64),
                   "p_regret": np.array(p_regret, dtype=np.float64)}
        if self.same_weights:
            metrics["theorem2_bound"] = np.array(bound, dtype=np.float64)
            metrics["gap_t"] = np.array([row[0] for row in self.gaps])
            metrics["duality_gap"] = np.array([row[1] for row in self.gaps], dtype=np.float64)
        return metrics


class TraceObserver:
    """:func:`record_plays` (a recipe's ``record=True``): every play of both players (O(T) memory); ``finish``
    returns ``{"w": (T, d), "p": (T, n)}`` (``result.trace``). Not saved in a checkpoint (``history``)."""

    needs_round_state = False
    name = "trace"
    history = "the trace of every play"

    def __init__(self):
        self.w: list[np.ndarray] = []
        self.p: list[np.ndarray] = []
        self._seats: Any = None  # (w seat, p seat), set by start()

    def start(self, run) -> None:
        """Attach to the run's two seats."""
        self._seats = run.w_seat, run.p_seat

    def observe(self, t) -> None:
        w_seat, p_seat = self._seats
        self.w.append(w_seat.last)
        self.p.append(p_seat.last)

    def finish(self, run, rounds, stop_reason) -> dict:
        """The trace, ``{"w": plays, "p": plays}`` as arrays (``result.trace``)."""
        return {"w": np.array(self.w), "p": np.array(self.p)}


class CallbackObserver:
    """:func:`each_round` (a recipe's ``callback=``): called with each round's :class:`gamedyn.RoundState`;
    never asks to stop."""

    needs_round_state = True

    def __init__(self, callback):
        if not callable(callback):
            raise TypeError(f"each_round (callback=) takes a callable round_state -> None, got {callback!r}.")
        self.callback = callback
        self.name = f"callback {getattr(callback, '__name__', repr(callback))}"

    def observe(self, state) -> None:
        self.callback(state)


class StopObserver:
    """:func:`stop_when` (a recipe's ``stop=``): asks to stop after the first round where the rule returns
    True; the rule is pure.

    ``requests`` are the rule's declared needs (``rule.requests``), done by the :class:`CertificateObserver`.
    """

    needs_round_state = True

    def __init__(self, rule):
        if not callable(rule):
            raise TypeError(f"stop_when (stop=) takes a callable round_state -> bool, got {rule!r}.")
        self.rule = rule
        self.requests = dict(getattr(rule, "requests", None) or {})
        self.name = f"stop rule {getattr(rule, '__name__', repr(rule))}"

    def observe(self, state) -> bool:
        return bool(self.rule(state))


class CheckpointObserver:
    """:func:`checkpoint` (a recipe's ``checkpoint=`` / ``checkpoint_every=`` / ``resume_from=``,
    :mod:`gamedyn.engine.checkpoints`): writes the run every ``every`` rounds, at the end, and after the
    round in progress on SIGINT / SIGTERM; resumes a run at ``start``.

    A checkpoint holds the seats' numbers (their learners' states and the runner's sums), the
    one-pass round's carried product, and the state of every observer that has
    ``checkpoint_state()`` (restored through its ``restore_state``): nobody's privates are written.
    The run's configuration (``run.configuration``: the payoff, the learners, T, the weights ...) is
    fingerprinted at ``start``, before round 1. It declares ``saves_run``: :func:`gamedyn.play` calls it
    after every other observer, and a resumed run refuses an observer that declares ``history`` (what
    it keeps of every round is not in the file). An observer that declares ``checkpoint_optional = True`` (it only reads the rounds: ``gamedyn run``'s
    table) may be missing from the run that resumes, or from the run that wrote the file.
    """

    needs_round_state = False
    name = "checkpoint"
    saves_run = True
    _SEAT_FIELDS = ("state", "play_sum", "loss_linear", "loss_curvature", "played_loss_total", "weight_total",
                    "output_weight_total", "last")

    def __init__(self, path=None, every: int | None = None, resume_from=None):
        if path is None and resume_from is None:
            raise ValueError("checkpoint() needs a path to write (checkpoint(path)) or one to resume from "
                             "(checkpoint(resume_from=path)), or both.")
        every = _checkpoints.check_options(path, every, resume_from)
        self.path, self.every, self.resume_from = path, every, resume_from
        self.configuration: dict = {}
        self.interrupt = _checkpoints.InterruptFlag() if path is not None else None
        self._run: Any = None  # the Run, set by start()

    def context(self):
        """The signal handling around the loop (only when writing)."""
        return self.interrupt

    def _stateful(self, run):
        return [(observer_name(observer), observer) for observer in run.observers
                if observer is not self and callable(getattr(observer, "checkpoint_state", None))]

    def _state(self, run) -> dict:
        state = {f"{seat.name}.{field}": getattr(seat, field) for seat in (run.w_seat, run.p_seat)
                 for field in self._SEAT_FIELDS}
        carried = getattr(run.one_pass, "carried", None)
        ahead_round, ahead = carried() if carried is not None else (0, None)
        state.update({"one_pass.ahead_round": ahead_round, "one_pass.ahead": ahead})
        state.update({f"{seat.name}.has_convex": seat.loss_convex is not None for seat in (run.w_seat, run.p_seat)})
        for name, observer in self._stateful(run):
            state.update({f"{name}.{key}": value for key, value in observer.checkpoint_state().items()})
        return state

    def start(self, run) -> None:
        """Attach to the run: fingerprint its configuration, restore its state from ``resume_from`` when given, and
        check (before round 1) that every part of the run's state can be written (:func:`gamedyn.engine.checkpoints.check_state`)."""
        if self.resume_from is not None:
            for observer in run.observers:
                kept = declared(observer, "history")
                if kept is not None and observer is not self:
                    raise ValueError(f"{observer_name(observer)} keeps {kept}, which a checkpoint does not hold: a "
                                     f"resumed run would lose the rounds before it. Drop it to resume (record=True "
                                     f"and metrics= cannot resume), or stream the rounds with each_round (callback=).")
        self.configuration = _checkpoints.fingerprint(run.configuration, FINGERPRINT_FIXES)
        self._run = run
        if self.resume_from is not None:
            self._resume(run)
        if self.path is not None:
            _checkpoints.check_state(self._state(run))

    def _resume(self, run) -> None:
        path = self.resume_from
        templates = self._state(run)
        templates.pop("one_pass.ahead_round"), templates.pop("one_pass.ahead")
        templates.update({f"{seat.name}.has_convex": False for seat in (run.w_seat, run.p_seat)})
        header, state = _checkpoints.read(path, "play", self.configuration, templates, run.convex_terms)
        carried = state.pop("one_pass.ahead_round", 0), state.pop("one_pass.ahead", None)
        # An optional observer's state (``checkpoint_optional``: a report that only reads the rounds, e.g. gamedyn
        # run's table) may be in the file without the observer in this run, or the reverse.
        listed = header.get("optional_observers")
        saved_optional = {name for name in listed if isinstance(name, str)} if isinstance(listed, list) else set()
        ours = {name for name, observer in self._stateful(run) if getattr(observer, "checkpoint_optional", False)}
        state = {key: value for key, value in state.items()
                 if key.split(".", 1)[0] not in saved_optional - ours}
        templates = {key: value for key, value in templates.items()
                     if not (key.split(".", 1)[0] in ours and not any(name.startswith(key.split(".", 1)[0] + ".")
                                                                      for name in state))}
        if set(state) != set(templates):
            raise _checkpoints.CheckpointMismatchError(
                f"{path!r} holds {sorted(set(state) ^ set(templates))} that this run does not (or the reverse).")
        seats = {"w": run.w_seat, "p": run.p_seat}
        observed: dict[str, dict] = {}
        for name, value in state.items():
            owner, field = name.split(".", 1)
            if owner not in seats:
                observed.setdefault(owner, {})[field] = value
                continue
            seat = seats[owner]
            if field == "has_convex":  # the losses' convex term: a function of the game, taken from its f_0
                seat.loss_convex = run.convex_terms[owner] if value else None
                if value and run.convex_terms[owner] is None:
                    raise _checkpoints.CheckpointMismatchError(
                        f"{path!r} was written by a game whose {owner}-losses have a convex term; this run's have none.")
                continue
            if isinstance(value, np.ndarray) and is_foreign(seat.play_sum):  # (a field whose fresh value was None)
                value = backend_of(seat.play_sum).asarray(value)  # saved as numpy, restored onto the run's device
            elif isinstance(value, np.ndarray) and value.dtype == np.float64 and value.ndim:  # buffers updated in place
                value = np.require(value, requirements=("C", "W", "O"))
            setattr(seat, field, value)
        for name, observer in self._stateful(run):
            observer.restore_state(observed.get(name, {}))
        restore = getattr(run.one_pass, "restore", None)
        if restore is not None:
            restore(*carried)  # a product the one-pass round computed a round early
        finished = bool(header["finished"])
        run.start = header["round"] + 1
        run.stop_reason = header["stop_reason"]
        run.finished = finished

    def observe(self, t) -> None:
        interrupt = self.interrupt
        if interrupt is None:
            return
        if (self.every is not None and t % self.every == 0) or interrupt.raised:
            self._save(t, False)
            interrupt.stop(t, self.path)  # RunInterrupted after Ctrl-C or SIGTERM

    def _save(self, t, finished) -> None:
        run = self._run
        optional = [name for name, observer in self._stateful(run) if getattr(observer, "checkpoint_optional", False)]
        _checkpoints.write(self.path, "play", self.configuration, t, self._state(run),
                           {"T": run.T, "finished": finished, "stop_reason": run.stop_reason,
                            "optional_observers": optional})

    def finish(self, run, rounds, stop_reason) -> None:
        """Write the final checkpoint when the run was interrupted or ends (see :mod:`gamedyn.engine.checkpoints`)."""
        if self.interrupt is None:
            return
        run.stop_reason = stop_reason
        if self.interrupt.raised:  # a signal: the checkpoint is what the caller gets (RunInterrupted), or the error
            self._save(rounds, True)
            self.interrupt.stop(rounds, self.path)
            return
        try:
            self._save(rounds, True)  # the run's end: resuming it returns this result at once
        except _checkpoints.CheckpointError as error:
            # The run is complete: its result is returned, never thrown away for a file (the disk filled up,
            # the folder went away); the warning says the checkpoint is missing (or the previous one is there).
            _checkpoints.warn_unwritten(self.path, rounds, error)
        self.interrupt.stop(rounds, self.path)  # a signal that came during the write


def check_observer(observer: Any, index: int) -> None:
    """An observer must have a callable ``observe`` (the :class:`gamedyn.Observer` protocol)."""
    if not callable(getattr(observer, "observe", None)):
        raise TypeError(f"observers[{index}] must be a gamedyn.Observer: an object with observe(state) -> bool | None "
                        f"(see docs/how-to/write-an-observer.md), got {observer!r}.")


_WEIGHTS_FIX = ("pass the {0} as a sequence of T numbers (e.g. [f(t) for t in range(1, T + 1)]), or a plain "
                "function of t (def or lambda) whose closure and globals hold numbers, arrays or attrs objects")
FINGERPRINT_FIXES = {
    "weights": _WEIGHTS_FIX.format("weights"), "p_weights": _WEIGHTS_FIX.format("p_weights"),
    "output_weights": _WEIGHTS_FIX.format("output_weights"),
    **{name: ("pass a step schedule eta as a sequence of T steps, or a plain function of t; and plain functions "
              "(def or lambda) wherever the learner takes one") for name in ("w_learner", "p_learner")},
    "payoff": ("give the payoff's (or Objective's) functions as plain functions (def or lambda) whose defaults, "
               "closure and globals hold numbers, arrays, attrs objects or other such functions"),
}
"""The advice a :class:`gamedyn.CheckpointError` gives when a part of the run cannot be fingerprinted."""


class RegretSettings:
    """What the run's regrets are measured against, or that they are skipped: a setting, not a watcher.

    Made by :func:`compare_with` and :func:`skip_regrets`. It declares ``measures`` (a dict with
    ``regrets``, ``w_comparators``, ``p_comparators``), which :func:`gamedyn.play` reads before round 1;
    it is never called during the run (``observe`` is not reached).
    """

    needs_round_state = False

    def __init__(self, regrets: bool = True, w_comparators=None, p_comparators=None):
        for name, domain in (("w", w_comparators), ("p", p_comparators)):
            if domain is not None and not all(hasattr(domain, method) for method in ("contains", "minimize_quadratic")):
                raise TypeError(f"compare_with({name}=...) (the {name}_comparators run option) must be a domain "
                                f"(Ball(radius), Simplex(), Box(lower, upper), ...), got {domain!r}.")
        self.measures = {"regrets": bool(regrets), "w_comparators": w_comparators, "p_comparators": p_comparators}
        self.name = "skip_regrets()" if not regrets else f"compare_with(w={w_comparators!r}, p={p_comparators!r})"

    def observe(self, state) -> None:
        """Never called: :func:`gamedyn.play` reads the setting before round 1."""

    def __repr__(self) -> str:
        return self.name


def stop_when(rule: Callable[[RoundState], bool]) -> StopObserver:
    """End the run after the first round where ``rule(round_state)`` is True (a recipe's ``stop=``).

    Parameters
    ----------
    rule : callable
        ``rule(round_state) -> bool``, pure; :mod:`gamedyn.certify.stops` has the certified rules
        (``positive_margin``, ``margin_within``, ``infeasible`` ...). A rule's declared ``requests`` are
        done by the certificate observer.

    Returns
    -------
    StopObserver
        ``result.stop_reason`` names the rule; ``result.stopped_early`` is True when it fired.

    Examples
    --------
    >>> from gamedyn import FTRL, Entropy, MatrixGame, play, stop_when
    >>> rps = MatrixGame([[0, -1, 1], [1, 0, -1], [-1, 1, 0]])
    >>> result = play(rps, FTRL(Entropy(), 0.1), FTRL(Entropy(), 0.1), 100, observers=[stop_when(lambda s: s.t == 7)])
    >>> result.rounds
    7
    """
    return StopObserver(rule)


def record_plays() -> TraceObserver:
    """Keep every play of both players in ``result.trace`` (``{"w": (T, d), "p": (T, n)}``; O(T) memory; a
    recipe's ``record=True``).

    Returns
    -------
    TraceObserver
        Not saved in a checkpoint: a resumed run refuses it.
    """
    return TraceObserver()


def each_round(function: Callable[[RoundState], Any]) -> CallbackObserver:
    """Call ``function(round_state)`` after every round (a recipe's ``callback=``); it never stops the run.

    Parameters
    ----------
    function : callable
        ``function(round_state)``; the :class:`gamedyn.RoundState`'s arrays are the runner's buffers, valid
        during the call (copy what you keep).

    Returns
    -------
    CallbackObserver
    """
    return CallbackObserver(function)


def track_metrics(every: int = 1) -> MetricsObserver:
    """Record ``result.metrics`` (a recipe's ``metrics=True`` or ``metrics=k``): ``t``, ``w_regret``,
    ``p_regret`` (R_w(t), R_p(t)) and ``theorem2_bound`` ((R_w + R_p)/S_t) every round; ``gap_t`` and
    ``duality_gap`` (G_t at the averages, two payoff products) every ``every``-th round and at the last.

    The bound and the gap need one weight sequence (no ``p_weights`` / ``output_weights``); otherwise
    only the regrets are recorded. O(T) memory; not saved in a checkpoint.

    Parameters
    ----------
    every : int, default 1
        The duality gap every this many rounds (> 0).

    Returns
    -------
    MetricsObserver
    """
    return MetricsObserver(every)


def checkpoint(path=None, *, every: int | None = None, resume_from=None) -> CheckpointObserver:
    """Save the run to ``path`` and/or resume it from ``resume_from`` (a recipe's ``checkpoint=``,
    ``checkpoint_every=``, ``resume_from=``; :mod:`gamedyn.engine.checkpoints`).

    ``path`` is written every ``every`` rounds (if given), after the last round, and, on Ctrl-C (SIGINT)
    or SIGTERM, after the round in progress (then :class:`gamedyn.engine.checkpoints.RunInterrupted`, a
    ``KeyboardInterrupt``, is raised); its folder is checked writable here. ``resume_from`` continues
    such a run, called with the same arguments, bit-identical to the uninterrupted one; a checkpoint of
    another configuration raises :class:`gamedyn.CheckpointMismatchError`: callables (weights, step
    schedules, a payoff's functions) count by what they compute, and one that cannot be fingerprinted is
    refused before round 1.

    Parameters
    ----------
    path : str or path-like, optional
        Where to write the run's state.
    every : int, optional
        Write ``path`` every this many rounds too.
    resume_from : str or path-like, optional
        A checkpoint of the same configuration to continue from.

    Returns
    -------
    CheckpointObserver

    Raises
    ------
    CheckpointError
        ``path`` cannot be written (and, at the run's start, ``resume_from`` is missing, damaged, of
        another version or, :class:`CheckpointMismatchError`, of another configuration).
    """
    return CheckpointObserver(path, every, resume_from)


def compare_with(w=None, p=None) -> RegretSettings:
    """Measure the regrets (and so Theorem 2's bound, the gap's best replies and the metrics) against
    the comparator sets ``w`` / ``p`` (a recipe's ``w_comparators=`` / ``p_comparators=``).

    R(U) = sum_t alpha_t f_t(z_t) - min_{u in U} sum_t alpha_t f_t(u); the default U is each learner's
    domain, where R^d against a linear loss gives +inf.

    Parameters
    ----------
    w, p : Domain, optional
        The comparator sets U of each player (``Ball(1.0)``, ``Simplex()``, ...; None: its learner's domain).

    Returns
    -------
    RegretSettings
        A setting: read before round 1, never called during the run.
    """
    return RegretSettings(True, w, p)


def skip_regrets() -> RegretSettings:
    """Skip the regrets, Theorem 2's bound and the played losses (a recipe's ``regrets=False``): the run
    keeps the plays and the averages only (``result.not_computed`` names what it skipped), which lets a
    run nobody watches take the lean rounds (:mod:`gamedyn.engine.rounds`).

    Returns
    -------
    RegretSettings
        A setting: read before round 1, never called during the run.
    """
    return RegretSettings(False)


RUN_OPTIONS = ("stop", "record", "callback", "metrics", "w_comparators", "p_comparators", "checkpoint",
               "checkpoint_every", "resume_from", "observers", "regrets")
"""The run options every recipe takes (``**run_options``), each turned into observers by :func:`run_observers`."""


def run_observers(*, stop=None, record: bool = False, callback=None, metrics: bool | int = False, w_comparators=None,
                  p_comparators=None, checkpoint=None, checkpoint_every: int | None = None, resume_from=None,
                  observers: Iterable = (), regrets: bool = True) -> list:
    """A recipe's run options (:data:`RUN_OPTIONS`) as the observers :func:`gamedyn.play` takes, in the
    order metrics, trace, callback, stop, ``observers``, checkpoint, then the regret settings.

    Parameters
    ----------
    stop, record, callback, metrics, w_comparators, p_comparators, checkpoint, checkpoint_every, resume_from, regrets
        :func:`stop_when`, :func:`record_plays`, :func:`each_round`, :func:`track_metrics` (``True`` or k),
        :func:`compare_with`, :func:`checkpoint`, :func:`skip_regrets` (``regrets=False``).
    observers : iterable of Observer, default ()
        Further observers, kept in their order.

    Returns
    -------
    list
        The observers.

    Raises
    ------
    TypeError, ValueError
        A run option of the wrong kind (naming it and the fix).
    """
    built: list = []
    if metrics is not False and metrics is not None:
        if metrics is True:
            metrics = 1
        if not (isinstance(metrics, numbers.Integral) and not isinstance(metrics, bool) and int(metrics) > 0):
            raise ValueError(f"metrics must be False, True or a positive int k (the duality gap every k rounds), "
                             f"got {metrics!r}.")
        built.append(MetricsObserver(int(metrics)))
    if not isinstance(record, (bool, np.bool_)):
        raise TypeError(f"record must be True (keep every play in result.trace) or False, got {record!r}.")
    if record:
        built.append(TraceObserver())
    if callback is not None:
        if not callable(callback):
            raise TypeError(f"callback must be a callable round_state -> None, got {callback!r}.")
        built.append(CallbackObserver(callback))
    if stop is not None:
        if not callable(stop):
            raise TypeError(f"stop must be a callable round_state -> bool, got {stop!r}.")
        built.append(StopObserver(stop))
    built.extend(observers)
    if checkpoint is not None or resume_from is not None or checkpoint_every is not None:
        if checkpoint is None and checkpoint_every is not None:
            raise ValueError("checkpoint_every needs checkpoint=path, the file to write; pass both.")
        built.append(CheckpointObserver(checkpoint, checkpoint_every, resume_from))
    if not isinstance(regrets, (bool, np.bool_)):
        raise TypeError(f"regrets must be True (compute the regrets, Theorem 2's bound and the played losses) or "
                        f"False (skip them), got {regrets!r}.")
    if not regrets:
        built.append(RegretSettings(False))
    if w_comparators is not None or p_comparators is not None:
        built.append(RegretSettings(True, w_comparators, p_comparators))
    return built
