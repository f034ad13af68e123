r"""The runner's seats: each player's learner driven as a mutable player, with O(dimension) running sums.

:class:`Seat` keeps a player's play sum, loss sum (when the learner keeps none), played losses and
weight totals; :func:`player_of` is the learner's mutable form (``learner.player(state)``, or its
pure functions driven by :class:`PurePlayer`). A learner that does not declare
``plays_in_domain = True`` has each play checked (:class:`CheckedPlayer`, :func:`checked_point`:
shape, finite, in its domain), and a refused play raises :class:`InvalidPlayError` naming the round.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gamedyn.core.kernels import NUMPY, add_scaled, axpy, is_numpy
from gamedyn.core.loss import Loss

__all__ = ["CheckedPlayer", "InvalidPlayError", "PurePlayer", "Seat", "check_learner", "check_plays", "checked_point",
           "declares_plays_in_domain", "player_of"]


class PurePlayer:
    """A learner given by its pure functions alone (``init`` / ``play`` / ``update``), driven as a player."""

    __slots__ = ("_loss_sum", "_play", "_sees_induced", "_update", "state")

    def __init__(self, learner, state):
        self.state = state
        self._play, self._update = learner.play, learner.update
        self._sees_induced = bool(getattr(learner, "sees_induced_loss", False))
        loss_sum = getattr(learner, "loss_sum", None)
        self._loss_sum = loss_sum if callable(loss_sum) else None

    def play(self, weight, current_loss=None):
        if current_loss is None:
            return self._play(self.state, weight)
        return self._play(self.state, weight, current_loss)

    def update(self, point, loss, weight, induced_loss=None) -> None:
        if self._sees_induced:
            self.state = self._update(self.state, point, loss, weight, induced_loss=induced_loss)
        else:
            self.state = self._update(self.state, point, loss, weight)

    def loss_sum(self):
        return None if self._loss_sum is None else self._loss_sum(self.state)


def player_of(learner, state):
    """The learner's mutable form (``learner.player(state)``, e.g. :class:`gamedyn.core.learners.FTRLPlayer`),
    or its pure functions driven as one."""
    make = getattr(learner, "player", None)
    return make(state) if callable(make) else PurePlayer(learner, state)


class Seat:
    """The runner's bookkeeping for one player: O(dimension) running sums, nothing per round.

    ``player`` is the learner's mutable form (see :func:`_player`); ``state`` reads or replaces its
    state (checkpoints). ``play_sum`` (and, for a learner that keeps no loss sum, the loss sum) are
    buffers the runner updates in place; a learner with a loss sum keeps the only copy of it.
    """

    __slots__ = (
        "flat",
        "keeps_loss_sum",
        "keeps_played",
        "last",
        "last_weight",
        "learner",
        "learner_keeps_sum",
        "linear_loss_sum",
        "loss_convex",
        "loss_curvature",
        "loss_linear",
        "name",
        "opponent_loss",
        "output_weight",
        "output_weight_total",
        "play_sum",
        "played_loss_total",
        "player",
        "settle",
        "update",
        "weight",
        "weight_total",
    )

    def __init__(self, name, learner, state, weight, output_weight, opponent_loss, shape, *, played: bool = True,
                 loss_sum: bool = True, backend=NUMPY):
        self.name, self.learner = name, learner
        self.weight, self.output_weight, self.opponent_loss = weight, output_weight, opponent_loss
        self.state = state
        shape = tuple(shape)
        self.learner_keeps_sum = self.player.loss_sum() is not None
        self.play_sum = backend.zeros(shape)  # on the run's device (gamedyn.core.kernels.Backend)
        self.flat = len(shape) == 1
        self.loss_linear = None if self.learner_keeps_sum else backend.zeros(shape)
        self.loss_curvature = 0.0
        self.loss_convex = None  # phi of the losses' curvature term (None: 1/2 ||.||^2), see Loss
        self.played_loss_total: Any = backend.zeros(shape[1:]) if len(shape) > 1 else 0.0  # None: regrets=False
        self.weight_total = 0.0
        self.output_weight_total = 0.0
        self.last = None
        self.last_weight = 0.0  # alpha_t of the last settled round (the certificate observer reads it)
        self.keep(played=played, loss_sum=loss_sum)

    def keep(self, *, played: bool = True, loss_sum: bool = True) -> None:
        """What this seat accumulates beyond the plays: the played losses sum_t alpha_t f_t(z_t) (``played``)
        and, for a learner that keeps none, the loss sum (``loss_sum``). Both are needed only for the
        regrets (:func:`gamedyn.skip_regrets` skips them) and the loss sum also for the certificate
        and the round states; what is not kept is None in the result."""
        self.keeps_played, self.keeps_loss_sum = played, loss_sum or self.learner_keeps_sum
        if not self.keeps_loss_sum:
            self.loss_linear = None
        if not played:
            self.played_loss_total = None
        self.settle = self._settle if played and self.keeps_loss_sum else self._settle_lean

    @property
    def state(self):
        """The seated player's state."""
        return self.player.state

    @state.setter
    def state(self, value):
        self.player = player = player_of(self.learner, value)
        self.update = player.update  # bound once: no attribute lookup per round
        fast = getattr(player, "loss_linear_sum", None)
        self.linear_loss_sum = fast if fast is not None else self._linear_loss_sum

    def _linear_loss_sum(self):
        return self.player.loss_sum().linear if self.learner_keeps_sum else self.loss_linear

    @property
    def loss_sum(self) -> Loss | None:
        """sum_t alpha_t f_t (None when neither the learner nor the seat keeps it: ``regrets=False``)."""
        if self.learner_keeps_sum:
            return self.player.loss_sum()
        if self.loss_linear is None:
            return None
        return Loss(self.loss_linear, self.loss_curvature, self.loss_convex)

    def _settle_lean(self, point, loss: Loss, weight: float, output_weight: float, induced_loss: Loss,
                     played_value=None) -> None:
        """:meth:`_settle` without what only the regrets need (the played value; a loss sum the learner does not keep)."""
        self.update(point, loss, weight, induced_loss)
        if self.keeps_loss_sum and not self.learner_keeps_sum:
            self.loss_linear = add_scaled(self.loss_linear, weight, loss.linear)  # in place (a JAX array: a new one)
            self.loss_curvature += weight * loss.curvature
            if loss.convex is not None:
                self.loss_convex = loss.convex
        self.weight_total += weight
        self.last_weight = weight
        if self.flat and is_numpy(point) and point.shape == self.play_sum.shape:
            axpy(point, self.play_sum, output_weight)
        else:
            self.play_sum = add_scaled(self.play_sum, output_weight, point)
        self.output_weight_total += output_weight
        self.last = point

    def _settle(self, point, loss: Loss, weight: float, output_weight: float, induced_loss: Loss,
                played_value) -> None:
        """The end of a round for this seat: the learner's update and the runner's running sums.

        ``played_value`` is f_t(z_t), this seat's round loss at its own play
        (:meth:`gamedyn.Payoff.played_values` computes both seats' at once)."""
        self.update(point, loss, weight, induced_loss)
        if not self.learner_keeps_sum:
            self.loss_linear = add_scaled(self.loss_linear, weight, loss.linear)  # in place (a JAX array: a new one)
            self.loss_curvature += weight * loss.curvature
            if loss.convex is not None:
                self.loss_convex = loss.convex
        self.played_loss_total += weight * played_value
        self.weight_total += weight
        self.last_weight = weight
        if self.flat and is_numpy(point) and point.shape == self.play_sum.shape:
            axpy(point, self.play_sum, output_weight)  # our own contiguous float64 buffer, in place
        else:
            self.play_sum = add_scaled(self.play_sum, output_weight, point)
        self.output_weight_total += output_weight
        self.last = point

    def settle_vertex(self, index: int, point, loss: Loss, weight: float, output_weight: float, induced_loss: Loss,
                      played_value=None) -> None:
        """:meth:`settle` of a vertex play ``point`` = e_index: the play sum gains ``output_weight`` at
        ``index`` (O(1), the same bits as the axpy of e_index); everything else as :meth:`settle`."""
        self.update(point, loss, weight, induced_loss)
        if self.keeps_loss_sum and not self.learner_keeps_sum:
            self.loss_linear = add_scaled(self.loss_linear, weight, loss.linear)
            self.loss_curvature += weight * loss.curvature
            if loss.convex is not None:
                self.loss_convex = loss.convex
        if self.keeps_played and self.keeps_loss_sum:  # what settle adds (the lean settle adds none)
            self.played_loss_total += weight * played_value
        self.weight_total += weight
        self.last_weight = weight
        play_sum = self.play_sum
        if self.flat and is_numpy(play_sum):
            play_sum[index] += output_weight
        else:
            self.play_sum = add_scaled(play_sum, output_weight, point)
        self.output_weight_total += output_weight
        self.last = point

    def charge(self, loss: Loss, weight: float, played_value) -> None:
        """The running sums of a loss the learner was charged (its update done elsewhere), without a play.

        :class:`gamedyn.engine.rounds.AlternatingRound` charges the second mover at its previous play
        before it plays, and the first mover once at its start before round 1."""
        if self.keeps_loss_sum and not self.learner_keeps_sum:
            self.loss_linear = add_scaled(self.loss_linear, weight, loss.linear)  # (rebound: a JAX array is immutable)
            self.loss_curvature += weight * loss.curvature
            if loss.convex is not None:
                self.loss_convex = loss.convex
        if self.keeps_played:
            self.played_loss_total += weight * played_value
        self.weight_total += weight
        self.last_weight = weight

    def output(self, point, output_weight: float) -> None:
        """The play sums of a play (averaged with ``output_weight``), without a charge."""
        if self.flat and is_numpy(point) and point.shape == self.play_sum.shape:
            axpy(point, self.play_sum, output_weight)
        else:
            self.play_sum = add_scaled(self.play_sum, output_weight, point)  # (rebound: a JAX array is immutable)
        self.output_weight_total += output_weight
        self.last = point


def check_learner(learner, name: str):
    """Refuse (``TypeError`` naming ``name``) an object without ``init``, ``play``, ``update`` and ``domain``."""
    if not all(hasattr(learner, method) for method in ("init", "play", "update", "domain")):
        raise TypeError(f"{name} must be a learner with init, play, update and domain (see gamedyn.core.learners), got {learner!r}.")



# ------------------------------------------------------------------- checked plays (issue 16, item 5)


def declares_plays_in_domain(learner) -> bool:
    """Whether ``learner`` guarantees that every play lies in its domain (``plays_in_domain = True``).

    The built-in FTRL and mirror-descent learners on the built-in regularizers and domains do
    (:attr:`gamedyn.FollowTheRegularizedLeader.plays_in_domain`); any other learner has each play
    checked by :class:`CheckedPlayer`."""
    return getattr(learner, "plays_in_domain", False) is True


class InvalidPlayError(ValueError):
    """A play refused by :func:`checked_point`; inside :func:`play`'s loop :class:`_Rounds` names its round."""

    def __init__(self, head: str, tail: str, t: int | None = None):
        self.head, self.tail = head, tail
        self.round: int | None = None
        super().__init__(f"{head}: {tail}")
        if t is not None:
            self.in_round(t)

    def in_round(self, t: int) -> None:
        """Name the round ``t`` the refused play was made in (set by the round loop)."""
        self.round = t
        self.args = (f"{self.head} in round {t}: {self.tail}",)


def describe_point(point) -> str:
    """A short, unpadded view of a play: all entries up to 6, else the first and last two."""
    flat = np.ravel(np.asarray(point))
    shown = flat if flat.size <= 6 else np.concatenate([flat[:2], flat[-2:]])
    items = [f"{value:.4g}" for value in shown]
    return "[" + ", ".join(items if flat.size <= 6 else items[:2] + ["..."] + items[2:]) + "]"


def checked_point(point, label: str, learner, shape, t: int | None = None):
    """``point`` as an array of ``shape``, finite and in ``learner.domain``, or a :class:`InvalidPlayError`
    naming the learner (``label``: its argument, e.g. ``"p_learner"``) and, when known, the round t."""
    name = f"{label} {type(learner).__name__}"
    if not is_numpy(point) or point.dtype.kind != "f":
        if np.iscomplexobj(point):
            raise InvalidPlayError(f"{name} played the complex point {describe_point(point)}", "plays are real vectors; "
                             "return a float array", t)
        try:
            point = np.asarray(point, dtype=np.float64)
        except (TypeError, ValueError):
            raise InvalidPlayError(f"{name} played {point!r}", f"a play must be a float array of shape {shape}", t) from None
    if point.shape != tuple(shape):
        raise InvalidPlayError(f"{name} played an array of shape {point.shape}",
                         f"its points have shape {tuple(shape)} (the payoff's dimension for this player); "
                         f"return a vector of that length from play()", t)
    if not np.all(np.isfinite(point)):
        index = int(np.flatnonzero(~np.isfinite(point.ravel()))[0])
        value = float(point.ravel()[index])
        raise InvalidPlayError(f"{name} played a point whose entry {index} is {value!r}",
                         f"the learner itself returned a non-finite play ({describe_point(point)}), before any "
                         f"loss of this round was formed: this is not an overflow of the game. Check its play() "
                         f"and update() (a division by zero, log of 0, inf - inf, ...)", t)
    domain = learner.domain
    inside = domain.contains(point) if point.ndim == 1 else all(domain.contains(point[:, k])
                                                                 for k in range(point.shape[1]))
    if not inside:
        raise InvalidPlayError(f"{name} played {describe_point(point)}, outside its domain {domain!r}",
                         f"its regret, Theorem 2's bound and the duality gap are computed over that domain and "
                         f"would be wrong. Return a point of the domain from play() (e.g. project onto it: "
                         f"{domain!r}.project(z)), or give the learner the domain it really plays on", t)
    return point


class CheckedPlayer:
    """A seat's player whose every play is checked (shape, finite, in the learner's domain).

    :func:`play` installs it only for a learner that does not declare ``plays_in_domain = True``
    (docs/how-to/write-a-learner.md): the built-in learners declare it and pay nothing per round.
    Everything but ``play`` is the wrapped player's own.
    """

    __slots__ = ("_label", "_learner", "_play", "_shape", "player")

    def __init__(self, player, label: str, learner, shape):
        self.player, self._play = player, player.play
        self._label, self._learner, self._shape = label, learner, tuple(shape)

    def play(self, weight, current_loss=None):
        point = self._play(weight) if current_loss is None else self._play(weight, current_loss)
        return checked_point(point, self._label, self._learner, self._shape)

    def update(self, point, loss, weight, induced_loss=None) -> None:
        self.player.update(point, loss, weight, induced_loss)

    def loss_sum(self):
        return self.player.loss_sum()

    @property
    def state(self):
        """The wrapped player's state."""
        return self.player.state


def check_plays(seat) -> None:
    """Check every play of a seat whose learner does not declare ``plays_in_domain`` (see :class:`CheckedPlayer`)."""
    learner = seat.learner
    if declares_plays_in_domain(learner):
        return
    if not callable(getattr(learner.domain, "contains", None)):
        raise TypeError(f"{seat.name}_learner.domain must be a domain with contains(z) (Ball(radius), Simplex(), "
                        f"Reals(), ...), got {learner.domain!r}; the runner checks each play of "
                        f"{type(learner).__name__} against it.")
    seat.player = CheckedPlayer(seat.player, f"{seat.name}_learner", learner, seat.play_sum.shape)  # seat.update stays the player's
