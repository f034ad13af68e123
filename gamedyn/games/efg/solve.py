r"""Solve a two-player zero-sum extensive-form game to a certified Nash gap: :func:`solve_efg`.

No single algorithm wins (measured on the built-in games: PCFR+ reaches a Nash gap of 1e-4 in 73
iterations on Kuhn poker where DCFR needs 2,167, and in 849 on Goofspiel(5) where DCFR needs 5,392,
but on Leduc poker and Liar's dice DCFR is 4x and 8x faster). :func:`solve_efg` therefore **races**
them, and solves small games **exactly** by the sparse sequence-form LP when that is predicted faster.

**The probe.** With ``method="auto"`` the PCFR+ lane runs alone first, for ``PROBE_SECONDS`` (10 ms) of
its CPU time, checking its gap every round; if it meets the gap the answer is certified and returned
with no other lane started: a small game (Kuhn poker: 25 rounds, about 3 ms, to a Nash gap of 1e-3)
pays neither the second lane nor the race's hand-overs, which cost it up to 1.8x PCFR+ alone before
the probe. Otherwise the race below goes on from there, the probe's rounds being the PCFR+ lane's
first slice (kept, not repeated): the DCFR lane opens, the leader is chosen at equal CPU time, and the
probe's 10 ms count towards the trailer's share, so a game where DCFR leads pays nothing more once
the race has run 40 ms. (The probe is the lane's slice with a CPU budget, in the lane's own thread:
the lane's run of :func:`gamedyn.engine.play` can only be paused from inside a thread.)

**The race.** DCFR(3/2, 0, 2) and PCFR+ (counterfactual prediction, quadratic averages), exactly as
the recipes ``dcfr`` and ``pcfr_plus`` run them (alternating, :func:`gamedyn.engine.play` with
:class:`gamedyn.CounterfactualRegret` in both seats), each run in a *lane* that the controller
advances in slices. Each lane measures its averages' running Nash gap
(:class:`gamedyn.certify.sequence_form.ExploitabilityStop`'s two backward passes) every round (the
gap is not monotone: a check every round catches its dips, as the recipes' stop rule does), and
its own CPU time. The **leader** is the lane with the smaller
gap *at equal CPU time*: the lane that has run less is compared with the other lane's gap when it
had spent as much time (its recorded history), so the lane that has been given less time is not
judged by it. The trailing lane is kept at ``RATIO`` (1/4) of the leader's CPU time; the leader
runs in slices that grow its rounds by half, and stops as soon as a check meets the target. If the
leader is right from the start the race costs at most ``1 + RATIO`` times the better lane alone
(plus the checks); a wrong early guess is corrected as soon as the trailer is ahead at equal
time. Both lanes' brackets are kept: the best lower end (with its x) and the best upper end (with
its y) over both lanes and all checks; since the lower end depends on x alone and the upper on y
alone, the pair (x, y) has exactly the bracket ``[max lower, min upper]``, certified at the end
(:meth:`gamedyn.games.efg.ExtensiveFormGame.bracket`, rounding included).

**The LP.** :func:`gamedyn.games.efg.sequence_form_lp` (scipy's HiGHS, sparse) solves a game to a
Nash gap of about 1e-11 in a time that depends on its size only; its **size model**
:func:`lp_seconds` (a power law in the number of sequences plus payoff entries, fitted to the
built-in games on the reference machine, see its docstring) predicts it. With ``method="auto"``,
once the race has run ``MIN_SPENT`` (1/2) of the LP's predicted time, after each slice the leader's
remaining time is extrapolated from its gap curve (the slope of log gap against log time over the
second half of its checks); when the LP's predicted time, times ``LP_SAFETY`` (3: the size model's largest error on the built-in games, Leduc's), is below that (times
``1 + RATIO``, the trailer's share), the race stops and the LP solves the game.
"""

from __future__ import annotations

import math
import numbers
import threading
import time
from typing import Any

import attrs
import numpy as np

from gamedyn.certify.sequence_form import ExploitabilityStop, SequenceFormBracket
from gamedyn.core.counterfactual import CounterfactualRegret
from gamedyn.engine import play

__all__ = ["EFGSolution", "METHODS", "PROBE_SECONDS", "lp_seconds", "solve_efg"]

METHODS = ("auto", "race", "lp", "dcfr", "pcfr_plus")
"""The methods of :func:`solve_efg`: ``"auto"`` (the probe, then race or LP, see the module docstring), ``"race"`` (DCFR
against PCFR+ only), ``"lp"`` (the sequence-form LP only), ``"dcfr"`` or ``"pcfr_plus"`` (one lane alone)."""

RATIO = 0.25
"""The trailing lane's CPU time as a fraction of the leader's."""

LP_SAFETY = 3.0
"""The LP is chosen when its predicted time times this is below the race's predicted remaining time."""

MIN_SPENT = 0.5
"""The race runs at least this fraction of the LP's predicted time before its extrapolation can pick the LP."""

PROBE_SECONDS = 0.01
"""``method="auto"`` first runs PCFR+ alone for this much of its CPU time (the probe; see the module docstring)."""

_SLICE = 1.5  # the leader's slices: its rounds grow by half (the leadership is re-examined after each)
_LP_FIXED, _LP_SCALE, _LP_POWER = 0.01, 3.0e-7, 1.33
_GROWTH = 0.0  # a lane checks its gap every round (two backward passes: a fraction of a round; the gap is not monotone)
_OPENING = 8  # each lane's first slice, in rounds


def lp_seconds(game) -> float:
    r"""The size model of :func:`gamedyn.games.efg.sequence_form_lp`: its predicted CPU seconds on ``game``.

    :math:`0.01+3\cdot10^{-7}s^{1.33}`, s = the two players' sequences plus A's entries, fitted to the
    measured times of both LPs (scipy 1.x HiGHS, one core of the reference machine): Kuhn (s = 56)
    0.011 s, Goofspiel(4) (814) 0.010 s, Liar's dice 4 faces (6,122) 0.041 s, Leduc (7,106) 0.136 s,
    Goofspiel(5) (17,688) 0.111 s, Liar's dice 5 faces (35,807) 0.32 s, 6 faces (196,562) 3.35 s.
    """
    size = game.treeplexes[0].dimension + game.treeplexes[1].dimension + game.A.nnz
    return _LP_FIXED + _LP_SCALE * size ** _LP_POWER


@attrs.frozen(kw_only=True)
class EFGSolution:
    r"""What :func:`solve_efg` returns: a certified equilibrium pair and how it was found.

    ``x``, ``y`` the sequence-form strategies (their policies: :meth:`policy`); ``certificate`` their
    certified :class:`gamedyn.certify.sequence_form.SequenceFormBracket`: ``lower`` :math:`\le v^\star\le`
    ``upper`` (the first player's value), ``nash_gap`` = upper - lower, ``exploitability`` =
    ``nash_gap / 2``; ``method`` what produced x and y (``"lp"``, ``"dcfr"``, ``"pcfr_plus"``, or
    ``"dcfr+pcfr_plus"`` when x and y come from different lanes); ``rounds`` each lane's rounds;
    ``converged`` whether ``nash_gap <= gap``; ``seconds`` the wall time; ``note`` the race's log
    (each lane's rounds, CPU time and gap; the LP's predicted time, and its measured time if run).
    """

    x: np.ndarray
    y: np.ndarray
    certificate: SequenceFormBracket
    method: str
    rounds: dict
    converged: bool
    seconds: float
    note: str = attrs.field(repr=False)
    efg: Any = attrs.field(repr=False, eq=False)

    @property
    def lower(self) -> float:
        """The certified lower end of the first player's value."""
        return self.certificate.lower

    @property
    def upper(self) -> float:
        """The certified upper end of the first player's value."""
        return self.certificate.upper

    @property
    def nash_gap(self) -> float:
        """NashConv of the policies of x and y: upper - lower (certified)."""
        return self.certificate.nash_gap

    @property
    def exploitability(self) -> float:
        """NashConv / 2 (OpenSpiel's convention; certified)."""
        return self.certificate.exploitability

    @property
    def value(self) -> float:
        """The first player's expected payoff at (x, y)."""
        return self.certificate.value

    def policy(self, player: int) -> dict:
        """The policy of ``player`` (0: x, 1: y) as ``{information state: {action id: probability}}``."""
        return self.efg.policy(player, self.x if player == 0 else self.y)


class _Best:
    """The best lower end (with its x) and upper end (with its y) seen over every lane and check."""

    def __init__(self):
        self.lower, self.upper = -math.inf, math.inf
        self.x: Any = None
        self.y: Any = None
        self.x_from = self.y_from = ""

    @property
    def width(self) -> float:
        return self.upper - self.lower

    def offer(self, name: str, lower: float, x, upper: float, y) -> None:
        if lower > self.lower:
            self.lower, self.x, self.x_from = lower, np.array(x, dtype=np.float64), name
        if upper < self.upper:
            self.upper, self.y, self.y_from = upper, np.array(y, dtype=np.float64), name


class _Lane:
    """One algorithm's run of :func:`gamedyn.engine.play` in its own thread, advanced in slices by the controller.

    An observer of that run: it keeps the running sums (an :class:`ExploitabilityStop`), checks the gap
    every round, and hands control back at the end of its slice or when the target is met.
    Only one thread runs at a time (a semaphore each way), so the lanes' CPU times are their own.
    """

    needs_round_state = False

    def __init__(self, name: str, learner, game, best: _Best, max_rounds: int, deadline: float):
        self.name, self._learner, self._game, self._best = name, learner, game, best
        self._max_rounds, self._deadline = max_rounds, deadline
        self._stop = ExploitabilityStop(1.0, every=1 << 62)  # its sums; checked on this lane's schedule
        self._go, self._back = threading.Semaphore(0), threading.Semaphore(0)
        self._run: Any = None
        self._until = 0
        self._quit = False
        self._next_check = 1
        self._slice_start = 0.0
        self._cpu_until = math.inf
        self.target = math.inf
        self.rounds = 0
        self.cpu = 0.0
        self.gap = math.inf
        self.history: list = []  # (cpu seconds, running Nash gap) at each check
        self.finished = False
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._main, name=f"solve_efg {name}", daemon=True)
        self._thread.start()

    # ------------------------------------------------------------------ the lane's thread

    def _main(self) -> None:
        self._go.acquire()
        try:
            if not self._quit:
                X, Y = self._game.treeplexes
                self._slice_start = time.thread_time()
                play(self._game.payoff(), self._learner(X), self._learner(Y), self._max_rounds, weights="constant",
                     output_weights="quadratic", first="w", alternating=True, observers=[self])
        except BaseException as error:  # handed to the controller, re-raised there
            self.error = error
        finally:
            self.finished = True
            self.cpu += time.thread_time() - self._slice_start
            self._back.release()

    def start(self, run) -> None:
        self._run = run
        self._stop.start(run)
        self._slice_start = time.thread_time()  # the run's set-up (the game's products, once) is not the lane's

    def observe(self, t) -> bool:
        self._stop.observe(t)
        self.rounds = t
        if t < self._next_check and t < self._until:
            return False
        self._next_check = t + max(1, math.ceil(t * _GROWTH))
        stop = self._stop
        stop.check()
        now = time.thread_time()
        self.gap = stop.nash_gap
        self.history.append((self.cpu + now - self._slice_start, self.gap))
        w_seat, p_seat = self._run.w_seat, self._run.p_seat
        best = self._best
        if stop.lower > best.lower or stop.upper < best.upper:
            best.offer(self.name, stop.lower, w_seat.play_sum / w_seat.output_weight_total, stop.upper,
                       p_seat.play_sum / p_seat.output_weight_total)
        if (best.width <= self.target or t >= self._until or self.cpu + now - self._slice_start >= self._cpu_until
                or time.perf_counter() >= self._deadline):
            self.cpu += now - self._slice_start
            self._back.release()  # hand back, wait for the next slice
            self._go.acquire()
            self._slice_start = time.thread_time()
            return self._quit
        return False

    # ------------------------------------------------------------------ the controller's side

    def advance(self, until: int, target: float, cpu_until: float = math.inf) -> None:
        """Run to round ``until`` (or the target, or ``cpu_until`` seconds of the lane's CPU time, or the deadline),
        then return (the lane's thread waits)."""
        self._until, self.target, self._cpu_until = int(until), target, cpu_until
        self._go.release()
        self._back.acquire()
        if self.error is not None:
            raise self.error

    def close(self) -> None:
        """End the lane's run (its thread returns)."""
        if not self.finished:
            self._quit = True
            self._go.release()
            self._back.acquire()
        self._thread.join()

    def gap_at(self, seconds: float) -> float:
        """The lane's gap at its last check no later than ``seconds`` of its CPU time (inf before any)."""
        gap = math.inf
        for cpu, value in self.history:
            if cpu > seconds:
                break
            gap = value
        return gap

    def remaining(self, target: float) -> float:
        """The CPU seconds to the target extrapolated from the gap curve's slope over the second half of the checks."""
        points = [(cpu, gap) for cpu, gap in self.history if cpu > 0 and gap > 0]
        if len(points) < 4:
            return math.inf
        (t1, g1), (t2, g2) = points[len(points) // 2], points[-1]
        if g2 <= target:
            return 0.0
        if t2 <= t1 or g2 >= g1:
            return math.inf
        slope = math.log(g1 / g2) / math.log(t2 / t1)
        return t2 * ((g2 / target) ** (1.0 / slope) - 1.0)


def _learners() -> dict:
    return {"dcfr": lambda treeplex: CounterfactualRegret(treeplex, "dcfr", alpha=1.5, beta=0.0),
            "pcfr_plus": lambda treeplex: CounterfactualRegret(treeplex, "prm+", prediction="counterfactual")}


def _leader(lanes: list) -> tuple:
    """``(leader, trailer)``: the lane with the smaller gap at equal CPU time leads (see the module docstring)."""
    live = [lane for lane in lanes if not lane.finished]
    if len(live) == 1:
        return live[0], None
    early, late = sorted(live, key=lambda lane: lane.cpu)
    return (early, late) if early.gap < late.gap_at(early.cpu) else (late, early)


def _prefer_lp(predicted: float, spent: float, remaining: float) -> bool:
    """The switch to the LP: the race has run ``MIN_SPENT`` of the LP's predicted time, and the LP's
    predicted time times ``LP_SAFETY`` is below the leader's extrapolated remaining time times ``1 + RATIO``."""
    return spent >= MIN_SPENT * predicted and LP_SAFETY * predicted < (1.0 + RATIO) * remaining


def _check_gap(gap) -> float:
    if isinstance(gap, bool) or not isinstance(gap, numbers.Real) or not (math.isfinite(float(gap)) and float(gap) > 0):
        raise ValueError(f"gap must be a positive finite Nash gap (NashConv = 2 x exploitability), e.g. gap=1e-4, "
                         f"got {gap!r}.")
    return float(gap)


def solve_efg(game, gap: float = 1e-4, time_limit: float | None = None, *, method: str = "auto",
              max_rounds: int = 10_000_000) -> EFGSolution:
    r"""Solve a two-player zero-sum extensive-form game to a certified Nash gap (see the module docstring).

    Parameters
    ----------
    game : ExtensiveFormGame
        The game (:mod:`gamedyn.games.efg`: built in, loaded, converted or built).
    gap : float, default 1e-4
        The target Nash gap (NashConv, upper - lower of the value bracket; the exploitability is half of it).
    time_limit : float, optional
        Wall seconds; when they run out the best certified pair so far is returned (``converged = False``).
    method : {"auto", "race", "lp", "dcfr", "pcfr_plus"}, default "auto"
        ``"auto"``: PCFR+ alone for ``PROBE_SECONDS`` (the probe), then race DCFR against PCFR+ and switch
        to the sequence-form LP when its size model predicts it faster; ``"race"``: no probe, never the LP;
        ``"lp"``: only the LP; ``"dcfr"`` / ``"pcfr_plus"``: one lane alone (the baselines of benchmarks/efg.py).
    max_rounds : int, default 10,000,000
        A cap on each lane's rounds.

    Returns
    -------
    EFGSolution
        ``x``, ``y``, ``policy(player)``, ``lower``, ``upper``, ``nash_gap``, ``exploitability``,
        ``method``, ``rounds``, ``converged``, ``note``.

    Raises
    ------
    ValueError
        A non-positive ``gap``, a non-positive ``time_limit``, an unknown ``method``.
    TypeError
        ``game`` is not an extensive-form game.

    Examples
    --------
    >>> from gamedyn.games.efg import kuhn_poker
    >>> solution = solve_efg(kuhn_poker(), gap=1e-6)
    >>> bool(solution.nash_gap <= 1e-6), bool(solution.lower <= -1 / 18 <= solution.upper)
    (True, True)
    """
    from gamedyn.games.efg.game import sequence_form_lp

    if not (callable(getattr(game, "bracket", None)) and len(getattr(game, "treeplexes", ())) == 2):
        raise TypeError(f"game must be an extensive-form game (gamedyn.games.efg.leduc_poker(), load(path), "
                        f"from_openspiel(game), or a GameBuilder's), got {game!r}.")
    gap = _check_gap(gap)
    if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, numbers.Real)
                                   or not time_limit > 0):
        raise ValueError(f"time_limit must be a positive number of seconds or None, got {time_limit!r}.")
    if method not in METHODS:
        raise ValueError(f"method must be one of {list(METHODS)}, got {method!r}.")
    if isinstance(max_rounds, bool) or not isinstance(max_rounds, numbers.Integral) or max_rounds < 1:
        raise ValueError(f"max_rounds must be a positive integer, got {max_rounds!r}.")
    started = time.perf_counter()
    deadline = math.inf if time_limit is None else started + float(time_limit)
    predicted = lp_seconds(game)
    notes = [f"LP predicted {predicted:.3g} s (size model)"]

    def solved_by_lp():
        cpu = time.process_time()
        _, x, y, bracket = sequence_form_lp(game)
        notes.append(f"LP: {time.process_time() - cpu:.3g} s CPU, Nash gap {bracket.nash_gap:.2e}")
        return x, y, bracket

    def finish(x, y, bracket, how, rounds):
        return EFGSolution(x=x, y=y, certificate=bracket, method=how, rounds=rounds,
                           converged=bool(bracket.nash_gap <= gap), seconds=time.perf_counter() - started,
                           note="; ".join(notes), efg=game)

    if method == "lp":
        x, y, bracket = solved_by_lp()
        return finish(x, y, bracket, "lp", {})
    best = _Best()
    learners = _learners()
    names = ("dcfr", "pcfr_plus") if method in ("auto", "race") else (method,)
    lanes: list = []
    target, use_lp, probed, certified = gap, False, False, None
    try:
        if method == "auto":  # the probe: PCFR+ alone for PROBE_SECONDS of its CPU time (a small game ends here)
            lanes.append(_Lane("pcfr_plus", learners["pcfr_plus"], game, best, int(max_rounds), deadline))
            lanes[0].advance(int(max_rounds), target, cpu_until=PROBE_SECONDS)
            if best.width <= target:
                certified = game.bracket(best.x, best.y)
                probed = certified.nash_gap <= gap
            notes.append(f"probe: pcfr_plus alone {lanes[0].rounds} rounds, {lanes[0].cpu:.3g} s CPU, "
                         f"{'met the gap' if probed else 'the race goes on'}")
        for name in names:
            if not probed and name not in [lane.name for lane in lanes]:
                lanes.append(_Lane(name, learners[name], game, best, int(max_rounds), deadline))
                lanes[-1].advance(_OPENING, target)
        while not probed:
            if best.width <= target:
                certified = game.bracket(best.x, best.y)
                if certified.nash_gap <= gap:
                    break
                target = 0.5 * target  # the running bracket was above the certified one by rounding: aim lower
                continue
            if time.perf_counter() >= deadline or all(lane.finished for lane in lanes):
                break
            leader, trailer = _leader(lanes)
            if method == "auto" and _prefer_lp(predicted, leader.cpu, leader.remaining(target)):
                notes.append(f"switched to the LP at {leader.name}'s {leader.rounds} rounds ({leader.cpu:.3g} s; "
                             f"{leader.remaining(target):.3g} s predicted to go)")
                use_lp = True
                break
            if trailer is not None and trailer.cpu < RATIO * leader.cpu:
                per_round = trailer.cpu / max(trailer.rounds, 1)
                wanted = (RATIO * leader.cpu - trailer.cpu) / max(per_round, 1e-9)
                trailer.advance(trailer.rounds + max(1, int(wanted)), target)
            else:
                leader.advance(min(int(_SLICE * max(leader.rounds, _OPENING)), int(max_rounds)), target)
    finally:
        for lane in lanes:
            lane.close()
    rounds = {lane.name: lane.rounds for lane in lanes}
    notes.extend(f"{lane.name}: {lane.rounds} rounds, {lane.cpu:.3g} s CPU, running Nash gap {lane.gap:.2e}"
                 for lane in lanes)
    if use_lp:
        x, y, bracket = solved_by_lp()
        if bracket.nash_gap <= gap or best.x is None or bracket.nash_gap <= best.width:
            return finish(x, y, bracket, "lp", rounds)
    if certified is None or certified.nash_gap > gap:  # not met: the best pair so far, certified here
        certified = game.bracket(best.x, best.y)
    bracket = certified
    how = best.x_from if best.x_from == best.y_from else f"{best.x_from}+{best.y_from}"
    return finish(best.x, best.y, bracket, how, rounds)
