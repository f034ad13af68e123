r"""n players, simultaneous moves: :func:`play_n` runs online learners on a game in normal form (issue 34).

For t = 1..T every player i plays :math:`x^i_t\leftarrow OL_i` at once (no one sees a round's
loss before playing), then each receives :math:`\alpha_t` and its loss
:math:`\ell^i_t=-u_i(\cdot,x^{-i}_t)` (the game's ``losses(plays)``, a :class:`gamedyn.Loss` each)
and settles in its seat. It is :func:`gamedyn.play`'s round with n seats: the same
:class:`gamedyn.engine.seats.Seat` bookkeeping (play sums, loss sums, played losses), the same loop
(:func:`gamedyn.engine.runner.rounds_loop`) and the same observers protocol; every learner on the
simplex that does not need its round's loss plays unchanged (FTRL, OFTRL, FTL, OFTL, OMD, mirror
descent, best response, regret matching, AdaHedge, the swap-regret learners).

**What the sums say.** With output weights equal to the weights, the empirical joint distribution
:math:`\sigma_T=\sum_t\alpha_t\,x^1_t\otimes\cdots\otimes x^n_t/S_T` has coarse correlated
equilibrium gap :math:`\max(0,\max_iR_i)/S_T` exactly (:math:`R_i` player i's weighted external
regret; a fixed deviation's gain against :math:`\sigma_T` is its regret over :math:`S_T`), which
the result reports as ``cce_gap`` (from the run's sums; the certified gap of the joint is
:func:`gamedyn.games.general_sum.cce_gap`). Memory is O(sum of the a_i) in T; the plays are kept
only when asked (:class:`PlaysTrace`).
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np

from gamedyn.core.domains import Simplex
from gamedyn.core.kernels import single_blas_thread
from gamedyn.core.validation import check_count
from gamedyn.core.weights import weight_function
from gamedyn.engine.observers import check_observer
from gamedyn.engine.results import check_result, regret
from gamedyn.engine.runner import rounds_loop
from gamedyn.engine.seats import CheckedPlayer, Seat, check_learner, declares_plays_in_domain

__all__ = ["PlayersResult", "PlayersRoundState", "PlayersRun", "PlaysTrace", "play_n"]

_SIMPLEX = Simplex()


class PlayersRun:
    """What an observer of :func:`play_n` sees at ``start`` and ``finish``: the game, the seats, T.

    ``seats`` are the n :class:`gamedyn.engine.seats.Seat` objects (read them); ``weight(t)`` and
    ``output_weight(t)`` the weight functions; ``last_losses`` the last round's n losses (set by the
    round before the observers see it); ``start``, ``finished``, ``stop_reason`` and ``stopped_by``
    as :class:`gamedyn.engine.observers.Run`'s.
    """

    __slots__ = ("T", "finished", "game", "last_losses", "observers", "output_weight", "seats", "start", "stop_reason",
                 "stopped_by", "weight")

    def __init__(self, game, seats, T, weight, output_weight):
        self.game, self.seats, self.T, self.weight, self.output_weight = game, tuple(seats), T, weight, output_weight
        self.start, self.finished, self.stop_reason, self.stopped_by = 1, False, f"completed T = {T} rounds", None
        self.observers: tuple = ()
        self.last_losses: tuple = ()


@attrs.frozen
class PlayersRoundState:
    """What a stop rule or callback of :func:`play_n` sees after round t (the runner's buffers: copy to keep).

    ``plays``, ``play_sums`` (output-weighted), ``loss_sums`` and ``played_losses`` hold one entry per
    player; ``losses`` the round's losses. ``regrets`` computes each player's weighted external regret.
    """

    t: int
    plays: tuple
    losses: tuple
    weight_total: float
    output_weight_total: float
    play_sums: tuple
    loss_sums: tuple
    played_losses: tuple

    @property
    def regrets(self) -> tuple:
        """Each player's weighted external regret so far (needs ``regrets=True``)."""
        if any(value is None for value in self.played_losses) or any(value is None for value in self.loss_sums):
            raise ValueError("the regrets were not computed: this run has regrets=False; pass regrets=True to play_n.")
        return tuple(float(regret(_SIMPLEX, loss_sum, played)) for loss_sum, played in zip(self.loss_sums,
                                                                                            self.played_losses))


class PlaysTrace:
    """An observer of :func:`play_n` that keeps every play and its output weight (O(T) memory).

    ``finish`` returns ``{"plays": (array (rounds, a_1), ..., array (rounds, a_n)), "weights": (rounds,)}``:
    the product terms of the empirical joint distribution (:class:`gamedyn.games.general_sum.ProductJoint`
    reads them). It is ``result.observed["trace"]``.
    """

    needs_round_state = False
    name = "trace"

    def __init__(self):
        self.plays: list[list] = []
        self.weights: list[float] = []
        self._run: Any = None

    def start(self, run) -> None:
        """Attach to the run's seats."""
        self._run = run
        self.plays = [[] for _ in run.seats]

    def observe(self, t) -> None:
        run = self._run
        for kept, seat in zip(self.plays, run.seats):
            kept.append(seat.last)
        self.weights.append(run.output_weight(t))

    def finish(self, run, rounds, stop_reason) -> dict:
        """The trace as arrays."""
        return {"plays": tuple(np.array(kept).reshape(len(kept), seat.play_sum.shape[0])
                               for kept, seat in zip(self.plays, run.seats)),
                "weights": np.array(self.weights, dtype=np.float64)}


@attrs.frozen
class PlayersResult:
    """Outcome of :func:`play_n` (one entry per player in each tuple). Never NaN.

    ``averages`` are the output-weighted averages of the plays; ``regrets`` each player's weighted
    external regret against its best fixed action (None with ``regrets=False``); ``cce_gap`` the coarse
    correlated equilibrium gap :math:`\\max(0,\\max_iR_i)/S_T` of the weighted product joint (only
    when the output weights are the weights; from the run's sums, to rounding: certify with
    :func:`gamedyn.games.general_sum.cce_gap`); ``observed`` what each observer's ``finish`` returned,
    by name (``observed["trace"]`` for :class:`PlaysTrace`).
    """

    averages: tuple
    sums: tuple
    last: tuple
    weight_total: float
    output_weight_total: float
    rounds: int
    regrets: tuple | None
    loss_sums: tuple
    played_losses: tuple
    cce_gap: float | None
    stopped_early: bool
    stop_reason: str
    observed: dict = attrs.field(factory=dict)


def _check_game(game):
    shape = getattr(game, "shape", None)
    if not callable(getattr(game, "losses", None)) or not isinstance(shape, tuple):
        raise TypeError(f"game must be a game in normal form (gamedyn.NormalFormGame, gamedyn.BimatrixGame, or any "
                        f"object with shape and losses(plays): gamedyn.core.protocols.NormalForm), got "
                        f"{type(game).__name__}.")
    if len(shape) < 2 or any(isinstance(a, bool) or not isinstance(a, (int, np.integer)) or a < 1 for a in shape):
        raise ValueError(f"game.shape must give n >= 2 players' numbers of actions (each >= 1), got {shape!r}.")
    return tuple(int(a) for a in shape)


def _check_learners(learners, n: int) -> tuple:
    if isinstance(learners, (str, bytes)) or not hasattr(learners, "__len__"):
        raise TypeError(f"learners must be a sequence of one learner per player ({n}), got {learners!r}.")
    learners = tuple(learners)
    if len(learners) != n:
        raise ValueError(f"learners must hold one learner per player: the game has {n} players, got {len(learners)}.")
    for i, learner in enumerate(learners):
        name = f"learners[{i}]"
        check_learner(learner, name)
        if learner.domain != _SIMPLEX:
            raise ValueError(f"{name} plays on {learner.domain!r}; a player of a game in normal form plays mixed "
                             f"strategies, on Simplex(). Give it a simplex learner, e.g. FTRL(Entropy(), eta) or "
                             f"RegretMatching(plus=True).")
        if getattr(learner, "needs_current_loss", False):
            raise ValueError(f"{name} needs its round's loss (FTRL+), but play_n's players move simultaneously: no "
                             f"one sees a round's loss before playing. Give it a learner without the current-loss "
                             f"hint (e.g. FTRL, OFTRL, RegretMatching).")
        if getattr(learner, "sees_induced_loss", False):
            raise ValueError(f"{name} needs the loss its play induces on an opponent (mirror prox's hint), which a "
                             f"game of n players does not define; give it a learner without that hint.")
    return learners


def _initial_points(initial, shape) -> tuple:
    if initial is None:
        return tuple(np.full(a, 1.0 / a) for a in shape)
    if len(initial) != len(shape):
        raise ValueError(f"initial must hold one mixed strategy per player ({len(shape)}), got {len(initial)}.")
    points = []
    for i, (point, a) in enumerate(zip(initial, shape)):
        point = np.asarray(point, dtype=np.float64)
        if point.shape != (a,) or not _SIMPLEX.contains(point):
            raise ValueError(f"initial[{i}] must be a probability vector of length {a} (player {i}'s mixed "
                             f"strategy), got {point!r}.")
        points.append(point)
    return tuple(points)


def play_n(game, learners, T: int, *, weights="constant", output_weights=None, initial=None, observers=(),
           regrets: bool = True) -> PlayersResult:
    r"""Play T simultaneous rounds of a game in normal form with one online learner per player.

    Parameters
    ----------
    game : NormalForm
        :class:`gamedyn.NormalFormGame`, :class:`gamedyn.BimatrixGame`, or any object with ``shape`` and
        ``losses(plays)`` (:class:`gamedyn.core.protocols.NormalForm`).
    learners : sequence of Learner
        One learner per player, each on :class:`gamedyn.Simplex`, none needing its round's loss.
    T : int
        The number of rounds (>= 1).
    weights : {"constant", "linear", "quadratic"}, float, sequence or callable, default "constant"
        :math:`\alpha_t`, given to every learner with its loss.
    output_weights : same as ``weights``, optional
        The weights of the averages and of the joint distribution (default: ``weights``).
    initial : sequence of array_like, optional
        The players' points before round 1 (default uniform): they build each learner's :math:`f_0`
        (the loss against the others' initial points, what ``LastLoss`` and ``InitialBelief`` hint
        with in round 1). A learner's own start is its ``centre=``.
    observers : sequence of Observer, default ()
        Each ``observe(state)`` is called after every round (a :class:`PlayersRoundState`, or t for an
        observer with ``needs_round_state = False``, which reads the run it was given at ``start``);
        True asks the run to stop. :class:`PlaysTrace` keeps the plays;
        :class:`gamedyn.games.general_sum.CCEGapStop` and ``CEGapStop`` stop at a gap.
    regrets : bool, default True
        False skips the played losses and the regrets (the plays and averages only).

    Returns
    -------
    PlayersResult

    Raises
    ------
    TypeError, ValueError
        A game that is not in normal form; a learner that is not on the simplex or needs its round's
        loss; the wrong number of learners or initial points; bad weights.

    Examples
    --------
    Regret matching+ in self-play on a coordination game: the joint concentrates on an equilibrium.

    >>> import numpy as np
    >>> from gamedyn import BimatrixGame, RegretMatching
    >>> game = BimatrixGame(np.diag([1.0, 2.0]), np.diag([1.0, 2.0]))
    >>> result = play_n(game, [RegretMatching(plus=True)] * 2, 200)
    >>> result.averages[0].round(2).tolist(), result.cce_gap < 0.01
    ([0.0, 1.0], True)
    """
    shape = _check_game(game)
    learners = _check_learners(learners, len(shape))
    T = check_count(T, "T")
    if not isinstance(regrets, bool):
        raise TypeError(f"regrets must be True or False, got {regrets!r}.")
    observers = tuple(observers)
    for index, observer in enumerate(observers):
        check_observer(observer, index)
    weight = weight_function(weights, "weights", T)
    output_weight = weight if output_weights is None else weight_function(output_weights, "output_weights", T)
    starts = _initial_points(initial, shape)
    with single_blas_thread(limit=int(np.prod(shape, dtype=np.float64)) * len(shape) < (1 << 21)):
        run = _build(game, learners, shape, starts, T, weight, output_weight, regrets, observers)
        rounds, stop_reason, observed = rounds_loop(run, simultaneous_round(run, regrets), _snapshot)
        return _result(run, rounds, stop_reason, observed, regrets, output_weights is None)


def _build(game, learners, shape, starts, T, weight, output_weight, regrets, observers) -> PlayersRun:
    initial_losses = tuple(game.losses(starts))
    seats = []
    for i, (learner, a, loss) in enumerate(zip(learners, shape, initial_losses)):
        seat = Seat(str(i), learner, learner.init(a, loss), weight, output_weight, None, (a,))
        if not regrets:
            seat.keep(played=False, loss_sum=any(getattr(o, "needs_round_state", True) for o in observers))
        if not declares_plays_in_domain(learner):
            seat.player = CheckedPlayer(seat.player, f"learners[{i}]", learner, (a,))
        seats.append(seat)
    run = PlayersRun(game, seats, T, weight, output_weight)
    run.observers = observers
    for observer in observers:
        start = getattr(observer, "start", None)
        if start is not None:
            start(run)
    return run


def simultaneous_round(run, regrets: bool = True):
    r"""The round of :func:`play_n`: ``round_(t)`` plays round t and settles every seat.

    :math:`\alpha_t`, every player's play (none sees the round's loss), the game's n losses (one call),
    the played values :math:`\ell^i_t(x^i_t)` (only with ``regrets``), each seat's update and sums.
    """
    seats, losses_of, weight_of, output_of = run.seats, run.game.losses, run.weight, run.output_weight
    plays_of = tuple(seat.player.play for seat in seats)
    settles = tuple(seat.settle for seat in seats)
    same = output_of is weight_of

    def round_(t):
        alpha = weight_of(t)
        plays = [play(alpha) for play in plays_of]
        losses = losses_of(plays)
        run.last_losses = losses
        output = alpha if same else output_of(t)
        if regrets:
            for settle, point, loss in zip(settles, plays, losses):
                settle(point, loss, alpha, output, None, loss.value(point))
        else:
            for settle, point, loss in zip(settles, plays, losses):
                settle(point, loss, alpha, output, None)

    return round_


def _snapshot(run):
    seats = run.seats

    def snapshot(t):
        first = seats[0]
        return PlayersRoundState(t, tuple(seat.last for seat in seats), run.last_losses, first.weight_total,
                                 first.output_weight_total, tuple(seat.play_sum for seat in seats),
                                 tuple(seat.loss_sum for seat in seats),
                                 tuple(seat.played_loss_total for seat in seats))

    return snapshot


def _result(run, rounds, stop_reason, observed, regrets: bool, same_weights: bool) -> PlayersResult:
    seats = run.seats
    first = seats[0]
    where = f"play_n (after {rounds} rounds)"
    averages = tuple(seat.play_sum / seat.output_weight_total for seat in seats)
    loss_sums = tuple(seat.loss_sum for seat in seats)
    played = tuple(seat.played_loss_total for seat in seats)
    check_result({f"averages[{i}]": average for i, average in enumerate(averages)}, set(), where)
    found = None
    gap = None
    if regrets:
        found = tuple(float(regret(_SIMPLEX, loss_sum, value)) for loss_sum, value in zip(loss_sums, played))
        check_result({f"regrets[{i}]": value for i, value in enumerate(found)}, set(), where)
        if same_weights:
            gap = max(0.0, max(found)) / first.weight_total
    return PlayersResult(averages=averages, sums=tuple(seat.play_sum for seat in seats),
                         last=tuple(seat.last for seat in seats), weight_total=first.weight_total,
                         output_weight_total=first.output_weight_total, rounds=rounds, regrets=found,
                         loss_sums=loss_sums,
                         played_losses=played, cce_gap=gap, stopped_early=rounds < run.T, stop_reason=stop_reason,
                         observed=observed)
