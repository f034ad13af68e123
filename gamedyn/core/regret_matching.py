r"""Regret matching on the simplex: RM, RM+, predictive RM and PRM+ as learners of :func:`gamedyn.play`.

A learner of this family keeps a vector of accumulated regrets (one entry per action) and plays it
normalised. With the round's (weighted) loss :math:`\alpha_t\ell_t` charged at the play
:math:`x_t`, the instantaneous regret is

.. math::

    r_t=\alpha_t\big(\langle\ell_t,x_t\rangle\mathbf 1-\ell_t\big)\qquad(\langle r_t,x_t\rangle=0),

and the four members (``RegretMatching(plus, predictive)``) are

* **RM** (Hart & Mas-Colell 2000, the unconditional-regret procedure; Zinkevich et al. 2007):
  :math:`R_t=R_{t-1}+r_t`, :math:`x_{t+1}=[R_t]^+/\|[R_t]^+\|_1`;
* **RM+** (Tammelin 2014; Tammelin, Burch, Johanson & Bowling 2015): :math:`Q_t=[Q_{t-1}+r_t]^+`,
  :math:`x_{t+1}=Q_t/\|Q_t\|_1`;
* **PRM / PRM+** (Farina, Kroer & Sandholm 2021, Algorithms 1-2, with the prediction of the next
  utility = the last one): :math:`x_{t+1}\propto[R_t+\alpha_{t+1}m_{t+1}]^+` (PRM) or
  :math:`[Q_t+\alpha_{t+1}m_{t+1}]^+` (PRM+), with :math:`m_{t+1}=r_t/\alpha_t` the last
  (unweighted) regret vector; the prediction enters the play only, never :math:`R_t` or :math:`Q_t`.

When no entry is positive (all regrets <= 0, e.g. round 1) the play is uniform. A loss with a
curvature or convex term is linearised at the play (its gradient there). The regret bounds (derived
in docs/explanation/regret-matching-bounds.md, checked in tests/test_regret_matching.py):
:math:`R_T\le\sqrt{\sum_t\|r_t\|_2^2}\le\Delta\sqrt{KT}` for RM and RM+, and
:math:`R_T\le\sqrt{\sum_t\|r_t-\alpha_tm_t\|_2^2}\le2\Delta\sqrt{KT}` for PRM and PRM+ (Δ the range
of the losses, K the number of actions).

In a game, an alternating round (``play(..., alternating=True)``) charges the second mover's loss
at its previous play, as CFR+ runs it; the learner itself is the same.
"""

from __future__ import annotations

from typing import NamedTuple

import attrs
import numpy as np

from gamedyn.core.domains import Simplex
from gamedyn.core.kernels import axpy, backend_of, dot, is_foreign, is_numpy
from gamedyn.core.loss import Loss

__all__ = ["RegretMatching", "RegretMatchingForm", "RegretMatchingPlayer", "RegretMatchingState", "accumulate_regrets",
           "discount_regrets", "hedge_into", "linear_part", "regret_matching_into", "regret_matching_play"]


class RegretMatchingState(NamedTuple):
    """The accumulated regrets (R_t, or Q_t >= 0 for the "+" variants), the last unweighted regret
    vector (the prediction; zeros before round 1 and when not predictive) and the learner's round."""

    regrets: np.ndarray
    prediction: np.ndarray
    round: int = 1


def regret_matching_play(theta) -> np.ndarray:
    r""":math:`[\theta]^+/\|[\theta]^+\|_1`, or the uniform distribution when no entry of theta is positive.

    Parameters
    ----------
    theta : array_like, shape (K,)
        Regrets (plus a prediction).

    Returns
    -------
    numpy.ndarray
        A point of the simplex (a new array).

    Examples
    --------
    >>> regret_matching_play([2.0, -1.0, 2.0]).tolist()
    [0.5, 0.0, 0.5]
    >>> regret_matching_play([-1.0, 0.0]).tolist()
    [0.5, 0.5]
    """
    positive = np.maximum(np.asarray(theta, dtype=np.float64), 0.0)
    total = positive.sum()
    if total > 0.0:
        positive /= total
        return positive
    positive.fill(1.0 / positive.size)
    return positive


# ----------------------------------------------------------------------------- the local rules
# Written once, for one segment (the simplex: the matrix-game learner below) or for many at once (the
# actions of every infoset of a treeplex: gamedyn.core.counterfactual.CounterfactualRegret). A segment
# is given by its first entry (``offsets``, increasing, the first 0) and its length (``sizes``); None:
# the whole vector is one segment.


def regret_matching_into(theta: np.ndarray, offsets=None, sizes=None) -> np.ndarray:
    r"""Regret matching's play, in place: :math:`[\theta]^+` normalised on each segment, uniform on a
    segment with no positive entry.

    Parameters
    ----------
    theta : numpy.ndarray
        Float64 regrets (plus a prediction), overwritten with the play.
    offsets, sizes : numpy.ndarray, optional
        The segments (each infoset's actions); None: one segment, the whole vector.

    Returns
    -------
    numpy.ndarray
        ``theta``, now a distribution on each segment.

    Examples
    --------
    >>> regret_matching_into(np.array([2.0, -1.0, 2.0, -3.0, 0.0]), np.array([0, 3]), np.array([3, 2])).tolist()
    [0.5, 0.0, 0.5, 0.5, 0.5]
    """
    np.maximum(theta, 0.0, out=theta)
    if offsets is None:
        total = theta.sum()
        if total > 0.0:
            theta /= total
        else:
            theta.fill(1.0 / theta.size)
        return theta
    totals = np.add.reduceat(theta, offsets)
    empty = totals <= 0.0
    if np.count_nonzero(empty):  # (a third of any()'s cost) every entry of such a segment is 0: each becomes 1,
        # the total its size (1/size exactly)
        theta += np.repeat(empty, sizes)
        totals[empty] = sizes[empty]
    theta /= totals.repeat(sizes)
    return theta


def accumulate_regrets(regrets: np.ndarray, regret: np.ndarray, weight: float, plus: bool) -> None:
    r"""RM's :math:`R_t=R_{t-1}+\alpha_tr_t`, or RM+'s :math:`Q_t=[Q_{t-1}+\alpha_tr_t]^+` (``plus``), in place.

    The same for every segment (the clip is entrywise): one BLAS axpy and, for RM+, one maximum.
    """
    axpy(regret, regrets, weight)
    if plus:
        np.maximum(regrets, 0.0, out=regrets)


def discount_regrets(regrets: np.ndarray, positive: float, negative: float) -> None:
    r"""DCFR's discount (Brown & Sandholm 2019), in place: entries >= 0 times ``positive``
    (:math:`t^\alpha/(t^\alpha+1)`), negative ones times ``negative`` (:math:`t^\beta/(t^\beta+1)`)."""
    np.multiply(regrets, np.where(regrets >= 0.0, positive, negative), out=regrets)


def hedge_into(theta: np.ndarray, eta: float, offsets=None, sizes=None) -> np.ndarray:
    r"""Hedge's play on each segment, in place: :math:`\propto\exp(\eta\,\theta)` (the largest entry
    of each segment subtracted first, so nothing overflows).

    Examples
    --------
    >>> hedge_into(np.array([0.0, np.log(3.0), 5.0]), 1.0, np.array([0, 2]), np.array([2, 1])).round(12).tolist()
    [0.25, 0.75, 1.0]
    """
    if offsets is None:
        theta -= theta.max()
        theta *= eta
        np.exp(theta, out=theta)
        theta /= theta.sum()
        return theta
    theta -= np.maximum.reduceat(theta, offsets).repeat(sizes)
    theta *= eta
    np.exp(theta, out=theta)
    theta /= np.add.reduceat(theta, offsets).repeat(sizes)
    return theta


def linear_part(loss: Loss, point):
    """The loss vector regret matching charges: the linear part, or the gradient at the play."""
    if loss.curvature == 0.0 and loss.convex is None:
        return loss.linear
    return loss.gradient(point)


def _check_flag(instance, attribute, value):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{attribute.name} must be True or False, got {value!r}.")


@attrs.frozen
class RegretMatching:
    r"""Regret matching on the simplex: RM (default), RM+ (``plus=True``), PRM (``predictive=True``), PRM+ (both).

    See the module docstring for the update equations. The learner plays on :class:`Simplex`, in
    either seat of :func:`gamedyn.play`, against any opponent and with any weights (the weighted
    regrets :math:`\sum_t\alpha_tr_t` of Brown & Sandholm's linear weighting); it never needs its
    round's loss (so it may move first). Its plays lie in the simplex by construction
    (``plays_in_domain``), so the runner checks none.

    Parameters
    ----------
    plus : bool, default False
        Clip the accumulated regrets at 0 after each update (RM+, Tammelin 2014).
    predictive : bool, default False
        Add the last regret vector, weighted by the round's weight, to the regrets before
        normalising (predictive RM, Farina, Kroer & Sandholm 2021).

    Raises
    ------
    TypeError
        ``plus`` or ``predictive`` is not a bool.

    Examples
    --------
    RM+ against a fixed column of rock-paper-scissors (the column player always plays rock):

    >>> import numpy as np
    >>> from gamedyn.core import Loss
    >>> learner = RegretMatching(plus=True)
    >>> state = learner.init(3)
    >>> x = learner.play(state, 1.0)
    >>> x.tolist()
    [0.3333333333333333, 0.3333333333333333, 0.3333333333333333]
    >>> state = learner.update(state, x, Loss(-np.array([0.0, 1.0, -1.0])), 1.0)  # utilities M[:, rock]
    >>> learner.play(state, 1.0).tolist()  # paper: the only action with positive regret
    [0.0, 1.0, 0.0]
    """

    plus: bool = attrs.field(default=False, validator=_check_flag)
    predictive: bool = attrs.field(default=False, validator=_check_flag)

    domain = Simplex()
    needs_current_loss = False
    sees_induced_loss = False
    plays_in_domain = True
    supports_batches = True  # losses of shape (K, B): B independent games, one regret column each (issue 34)

    @property
    def name(self) -> str:
        """RM, RM+, PRM or PRM+."""
        return ("P" if self.predictive else "") + "RM" + ("+" if self.plus else "")

    def init(self, dimension: int, initial_loss: Loss | None = None) -> RegretMatchingState:
        """Zero regrets and prediction for ``dimension`` actions (``initial_loss`` is not used)."""
        if isinstance(dimension, bool) or not isinstance(dimension, (int, np.integer)) or dimension < 1:
            raise ValueError(f"dimension must be a positive number of actions, got {dimension!r}.")
        if initial_loss is not None and np.ndim(initial_loss.linear) == 2 and not is_foreign(initial_loss.linear):
            shape = (int(dimension), int(np.shape(initial_loss.linear)[1]))  # batched games: a column each
            return RegretMatchingState(np.zeros(shape), np.zeros(shape), 1)
        if initial_loss is not None and np.ndim(initial_loss.linear) != 1:
            raise ValueError(f"{type(self).__name__} plays one game at a time; it got batched losses of shape "
                             f"{np.shape(initial_loss.linear)}. Run the games one by one.")
        if initial_loss is not None and is_foreign(initial_loss.linear):  # the run's namespace and device (issue 20)
            backend = backend_of(initial_loss.linear)
            return RegretMatchingState(backend.zeros((int(dimension),)), backend.zeros((int(dimension),)), 1)
        return RegretMatchingState(np.zeros(int(dimension)), np.zeros(int(dimension)), 1)

    def play(self, state: RegretMatchingState, weight: float, current_loss: Loss | None = None):
        """The play for the round of weight ``weight`` (``current_loss`` is ignored: not needed)."""
        if np.ndim(state.regrets) == 2 and not is_foreign(state.regrets):
            return _BatchedRegretMatchingPlayer(self, state).play(weight)
        return RegretMatchingPlayer(self, state).play(weight)

    def update(self, state: RegretMatchingState, point, loss: Loss, weight: float, **_) -> RegretMatchingState:
        """The state after the loss ``weight * loss`` charged at ``point``."""
        if is_foreign(state.regrets):  # the player replaces its arrays (no in-place update): no copy needed
            return _ForeignRegretMatchingPlayer(self, state).updated(point, loss, weight)
        copied = RegretMatchingState(state.regrets.copy(), state.prediction.copy(), state.round)
        player = _BatchedRegretMatchingPlayer(self, copied) if np.ndim(state.regrets) == 2 else \
            RegretMatchingPlayer(self, copied)
        player.update(point, loss, weight)
        return player.state

    def regret_form(self) -> "RegretMatchingForm":
        r"""The rule as data, what a round that drives the regrets itself needs (the compiled matrix-game round,
        :mod:`gamedyn.engine.compiled_rounds`): play :math:`[R+\alpha_t P]^+` normalised (uniform when nothing is
        positive; P the prediction, 0 unless ``predictive``), update :math:`R\leftarrow R+\alpha_t r_t`,
        :math:`r_t=\langle\ell,x\rangle\mathbf 1-\ell` (clipped at 0 with ``plus``; ``P = r_t`` when predictive).
        A subclass keeps it; one that changes :meth:`play` or :meth:`update` must return None."""
        return RegretMatchingForm(self.plus, self.predictive)

    def player(self, state: RegretMatchingState) -> RegretMatchingPlayer:
        """The runner's mutable form: a :class:`RegretMatchingPlayer` that updates ``state``'s arrays in place
        (regrets of a foreign namespace: the same updates in that namespace, on its device)."""
        if is_foreign(state.regrets):
            return _ForeignRegretMatchingPlayer(self, state)  # type: ignore[return-value]
        if np.ndim(state.regrets) == 2:
            return _BatchedRegretMatchingPlayer(self, state)  # type: ignore[return-value]
        return RegretMatchingPlayer(self, state)


@attrs.frozen
class RegretMatchingForm:
    """A learner's declaration that it is regret matching (:meth:`RegretMatching.regret_form`): ``plus``,
    ``predictive``; :meth:`sums` reads a state as ``(regrets, prediction, round)`` (float64 arrays a round may
    update in place), :meth:`state` writes them back."""

    plus: bool
    predictive: bool

    def sums(self, state: RegretMatchingState) -> tuple | None:
        """``(regrets, prediction, round)`` of the state (numpy float64 arrays), or None (another namespace)."""
        regrets, prediction = state.regrets, state.prediction
        if not all(is_numpy(a) and a.dtype == np.float64 and a.ndim == 1 and a.flags.c_contiguous
                   and a.flags.writeable for a in (regrets, prediction)):
            return None
        return regrets, prediction, int(state.round)

    def state(self, regrets, prediction, round_: int) -> RegretMatchingState:
        """The state with these regrets, prediction and round."""
        return RegretMatchingState(regrets, prediction, int(round_))


class RegretMatchingPlayer:
    """The mutable form :func:`gamedyn.play` runs: the regrets updated in place, one BLAS axpy a round."""

    __slots__ = ("_buffer", "_plus", "_predictive", "learner", "prediction", "regrets", "round")

    def __init__(self, learner: RegretMatching, state: RegretMatchingState):
        self.learner = learner
        regrets, prediction = state.regrets, state.prediction
        if not (is_numpy(regrets) and regrets.dtype == np.float64 and regrets.flags.c_contiguous
                and regrets.flags.writeable):
            regrets = np.array(regrets, dtype=np.float64)
        self.regrets = regrets
        self.prediction = np.array(prediction, dtype=np.float64)
        self.round = int(state.round)
        self._plus, self._predictive = learner.plus, learner.predictive
        self._buffer = np.empty_like(regrets)

    def play(self, weight, current_loss=None):
        theta = self.regrets.copy()
        if self._predictive:
            axpy(self.prediction, theta, weight)
        return regret_matching_into(theta)  # the local rule, on one segment

    def update(self, point, loss, weight, induced_loss=None) -> None:
        linear = linear_part(loss, point)
        regret = self._buffer
        np.subtract(dot(linear, point), linear, out=regret)  # <l, x> 1 - l, unweighted
        accumulate_regrets(self.regrets, regret, weight, self._plus)
        if self._predictive:
            self.prediction, self._buffer = regret, self.prediction  # swap: no new array
        self.round += 1

    def loss_sum(self):
        return None  # regret matching keeps regrets, not the loss sum: the runner keeps it

    @property
    def state(self) -> RegretMatchingState:
        """The pure state this player is at (sharing its arrays)."""
        return RegretMatchingState(self.regrets, self.prediction, self.round)


class _BatchedRegretMatchingPlayer:
    """:class:`RegretMatchingPlayer` for B batched games (regrets of shape (K, B)): each column is one game's
    regrets, played and updated as the one-game player does, the sums taken along axis 0 (issue 34:
    the copies of :class:`gamedyn.SwapRegret` in one array)."""

    __slots__ = ("_plus", "_predictive", "learner", "prediction", "regrets", "round")

    def __init__(self, learner: RegretMatching, state: RegretMatchingState):
        self.learner = learner
        self.regrets = np.array(state.regrets, dtype=np.float64)
        self.prediction = np.array(state.prediction, dtype=np.float64)
        self.round = int(state.round)
        self._plus, self._predictive = learner.plus, learner.predictive

    def play(self, weight, current_loss=None):
        theta = self.regrets + weight * self.prediction if self._predictive else self.regrets
        theta = np.maximum(theta, 0.0)
        total = theta.sum(axis=0)
        positive = total > 0.0
        theta[:, positive] /= total[positive]
        theta[:, ~positive] = 1.0 / theta.shape[0]
        return theta

    def update(self, point, loss, weight, induced_loss=None) -> None:
        linear = linear_part(loss, point)
        regret = np.einsum("kb,kb->b", linear, point)[None, :] - linear  # <l, x> 1 - l per game, unweighted
        self.regrets += weight * regret
        if self._plus:
            np.maximum(self.regrets, 0.0, out=self.regrets)  # every game's Q_t >= 0
        if self._predictive:
            self.prediction = regret
        self.round += 1

    def loss_sum(self):
        return None

    @property
    def state(self) -> RegretMatchingState:
        """The pure state this player is at (sharing its arrays)."""
        return RegretMatchingState(self.regrets, self.prediction, self.round)


class _ForeignRegretMatchingPlayer:
    """:class:`RegretMatchingPlayer` for regrets of a torch, JAX, CuPy or array-API namespace (issue 20): the same
    numbers, each step a function of that namespace on the regrets' device, no host synchronisation (the
    uniform fallback of an all-non-positive round is an ``xp.where``, not a branch)."""

    __slots__ = ("_plus", "_predictive", "_xp", "learner", "prediction", "regrets", "round")

    def __init__(self, learner: RegretMatching, state: RegretMatchingState):
        self.learner = learner
        self.regrets, self.prediction, self.round = state.regrets, state.prediction, int(state.round)
        self._plus, self._predictive = learner.plus, learner.predictive
        self._xp = backend_of(state.regrets).xp

    def play(self, weight, current_loss=None):
        xp = self._xp
        theta = self.regrets + weight * self.prediction if self._predictive else self.regrets
        theta = xp.clip(theta, min=0.0)
        total = xp.sum(theta)
        positive = total > 0.0
        return xp.where(positive, theta / xp.where(positive, total, 1.0), 1.0 / theta.shape[0])

    def update(self, point, loss, weight, induced_loss=None) -> None:
        xp = self._xp
        linear = linear_part(loss, point)
        regret = xp.sum(linear * point) - linear  # <l, x> 1 - l, unweighted
        regrets = self.regrets + weight * regret
        self.regrets = xp.clip(regrets, min=0.0) if self._plus else regrets
        if self._predictive:
            self.prediction = regret
        self.round += 1

    def updated(self, point, loss, weight) -> RegretMatchingState:
        self.update(point, loss, weight)
        return self.state

    def loss_sum(self):
        return None

    @property
    def state(self) -> RegretMatchingState:
        return RegretMatchingState(self.regrets, self.prediction, self.round)
