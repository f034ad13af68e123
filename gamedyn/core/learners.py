r"""Online learners with explicit state: the FTRL family and the mirror-descent family.

Every learner is an immutable configuration with three pure functions (the optax pattern):

* ``init(dimension, initial_loss) -> state``
* ``play(state, weight, current_loss=None) -> point`` — the point z_t for round t, whose weight
  alpha_t is already known;
* ``update(state, point, loss, weight) -> state`` — after observing the weighted loss alpha_t f_t.

A learner knows nothing of games or perceptrons; it counts its own rounds only for a step-size
schedule. **Steps.** Every learner's ``eta`` is a positive number (default 1 everywhere), a
:class:`StepSchedule` (or a list, tuple or callable t -> eta_t, turned into one) applied at the
learner's round t, or a NumPy array of K constant steps for K batched games. Two optional parts let the
runner skip work (a user-written learner may ignore both):

* ``loss_sum(state) -> Loss`` — a learner that keeps the weighted loss sum sum_{s<=t} alpha_s f_s
  (the FTRL family) exposes it, and :func:`gamedyn.play` uses it for the regrets instead of keeping
  a second copy: every loss is accumulated once;
* ``sees_induced_loss`` — when True, ``update`` also accepts ``induced_loss=``: the loss the
  player's own play induced on the opponent (g(w_t, .) for the w-player), which the runner has
  already computed. A hint that needs it (:class:`gamedyn.OpponentSecondary`) then costs no product.

**FTRL family** (spec section 2), one rule with a pluggable regularizer and hint:

.. math::

    z_t=\arg\min_{z\in Z}\ \eta\Big(\sum_{i<t}\alpha_i f_i(z)+\alpha_t\psi_t(z)\Big)+D_R(z,z_0).

``FTL`` (no regularizer, no hint), ``OFTL`` (no regularizer, psi_t = f_{t-1}), ``FTRL`` (no hint),
``FTRLPlus`` (psi_t = f_t) and ``OFTRL`` (psi_t = f_{t-1} by default) are this rule with fixed
parts. **Mirror-descent family** (Rakhlin & Sridharan's optimistic OMD), with secondary sequence y:

.. math::

    x_t=\arg\min_{x\in Z}\eta\alpha_t\langle M_t,x\rangle+D_R(x,y_{t-1}),\qquad
    y_t=\arg\min_{x\in Z}\eta\alpha_t\langle\nabla f_t(x_t),x\rangle+D_R(x,y_{t-1}),

``OMD`` (hint M_t = the previous gradient by default) and ``MirrorDescent`` (no hint).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import attrs
import numpy as np

from gamedyn.core.domains import Ball, Box, CappedSimplex, L1Ball, Reals, Simplex
from gamedyn.core.hints import CurrentLoss, LastLoss, NoHint
from gamedyn.core.kernels import add_scaled, axpy, plus_scaled
from gamedyn.core.loss import Loss
from gamedyn.core.regularizers import CappedCentre, Entropy, QNorm, Regularizer, SquaredEuclidean, Zero
from gamedyn.core.validation import check_positive, check_vector
from gamedyn.core.weights import StepSchedule

_STATELESS_HINTS = (NoHint, CurrentLoss)  # built-in hints whose state is always None

# The regularizers and domains whose argmins provably play inside the domain (plays_in_domain).
_IN_DOMAIN_REGULARIZERS = (Entropy, SquaredEuclidean, QNorm, Zero)
_IN_DOMAIN_DOMAINS = (Reals, Ball, Simplex, CappedSimplex, L1Ball, Box)


def _check_regularizer(instance, attribute, value):
    if not isinstance(value, Regularizer):
        raise TypeError(
            f"regularizer must be a gamedyn Regularizer (Entropy(), SquaredEuclidean(), QNorm(q), "
            f"Zero(domain)), got {type(value).__name__}."
        )


def _check_hint(instance, attribute, value):
    if not all(hasattr(value, name) for name in ("init", "predict", "update")):
        raise TypeError(f"hint must have init, predict and update methods (see gamedyn.core.hints), got {value!r}.")


def _as_step(value):
    """eta: a number, an array (one step per batched game), or a schedule (a list, tuple or callable)."""
    if isinstance(value, (list, tuple)) or (callable(value) and not isinstance(value, StepSchedule)):
        return StepSchedule(value)
    return value


def _step_at(eta, t: int):
    """eta_t: the schedule's value at the learner's round t, else the constant (or per-game) step."""
    return eta(t) if type(eta) is StepSchedule else eta


def _check_eta(instance, attribute, value):
    if isinstance(value, StepSchedule):
        return
    if isinstance(value, np.ndarray):  # a sweep: one step per batched game
        if value.ndim != 1 or value.size == 0 or not np.all(np.isfinite(value)) or np.any(value <= 0):
            raise ValueError(f"eta as an array must be 1-D, one positive finite step per batched game; got {value!r}.")
        return
    check_positive(value, "eta")


def _check_batch_of_steps(learner, initial_loss: Loss):
    """An array of K steps needs K batched games (else it would broadcast against the wrong axis)."""
    if isinstance(learner.eta, np.ndarray) and initial_loss.linear.shape[1:] != learner.eta.shape:
        raise ValueError(
            f"eta holds {learner.eta.size} steps (a sweep) but the losses have shape {initial_loss.linear.shape}; "
            f"play K = {learner.eta.size} batched games, e.g. Bilinear(gamedyn.shared_matrix(A, {learner.eta.size}))."
        )


def _resolve_centre(learner, dimension: int):
    domain = learner.regularizer.domain
    if learner.centre is None:
        return domain.default_centre(dimension)
    centre = check_vector(learner.centre, "centre", size=dimension)
    if not domain.contains(centre):
        raise ValueError(f"centre must lie in the learner's domain {domain!r}; pass a point inside it.")
    return centre


class _RegularizedLearner:
    """What both families share: the domain is the regularizer's; the hint decides what is seen."""

    @property
    def domain(self):
        return self.regularizer.domain

    @property
    def needs_current_loss(self) -> bool:
        return self.hint.needs_current_loss

    @property
    def sees_induced_loss(self) -> bool:
        return bool(getattr(self.hint, "sees_induced_loss", False))

    @property
    def plays_in_domain(self) -> bool:
        """True when every play lies in ``domain`` by construction, so :func:`gamedyn.play` checks none.

        The closed forms of the built-in regularizers on the built-in domains (softmax, projections,
        linear minimisation oracles) return points of the domain; a regularizer or domain of
        another type (a user's subclass too) is not vouched for, and its plays are checked each round.
        """
        regularizer = self.regularizer
        return type(regularizer) in _IN_DOMAIN_REGULARIZERS and type(regularizer.domain) in _IN_DOMAIN_DOMAINS



def _batched_centre(learner, centre, initial_loss: Loss):
    """The centre with trailing unit axes, so that it broadcasts against batched losses (dim, K)."""
    extra = initial_loss.linear.ndim - centre.ndim
    if extra <= 0:
        return centre
    if not learner.regularizer.supports_batches:
        raise ValueError(
            f"{type(learner.regularizer).__name__} on {learner.regularizer.domain!r} cannot play batched games "
            f"(its argmin projects whole vectors); run these games one at a time, or use a regularizer "
            f"with supports_batches = True (Entropy, QNorm, or one on Reals)."
        )
    return centre.reshape(centre.shape + (1,) * extra)


class FTRLState(NamedTuple):
    """Running weighted loss sum, the fixed centre z_0, the hint's state and the centre's cache.

    ``centre_cache`` is ``regularizer.centre_cache(centre)`` (e.g. log z_0 for entropy), computed
    once at ``init``. ``guessed`` is kept for the format of saved states (always ``[None]``).
    """

    loss_sum: Loss
    centre: np.ndarray
    hint_state: Any
    centre_cache: Any = None
    guessed: list | None = None
    round: int = 1


class FTRLPlayer:
    r"""The FTRL rule as a mutable object, the form :func:`gamedyn.play` runs (one per seat).

    It holds what :class:`FTRLState` holds, but owns its loss sum: ``update`` adds
    :math:`\alpha_t f_t` to it in place (one BLAS axpy, no new array), and ``play`` with a hint forms
    :math:`\sum_{s<t}\alpha_sf_s+\alpha_t\psi_t` in a fresh array. When ``update`` is charged the very
    loss object and weight that ``play`` was shown (FTRL+, ``CurrentLoss``), that sum is already the
    new loss sum and is kept as it is: every loss is added once. The learner's pure ``play`` /
    ``update`` run this same code on a copy, so both forms give the same points bit for bit.
    """

    __slots__ = ("learner", "linear_sum", "curvature_sum", "convex", "centre", "hint_state", "centre_cache",
                 "round", "_guessed", "_predict", "_hint_update", "_argmin", "_eta", "_hint_keeps_state",
                 "_hint_sees_induced", "_hint_is_last_loss")

    def __init__(self, learner, state: FTRLState, *, copy: bool = False):
        self.learner = learner
        loss_sum = state.loss_sum
        linear = loss_sum.linear
        if copy or not (linear.__class__ is np.ndarray and linear.dtype == np.float64 and linear.flags.c_contiguous
                        and linear.flags.writeable):  # the buffer update() adds to in place
            linear = np.array(linear, dtype=np.float64)
        self.linear_sum = linear
        self.curvature_sum, self.convex = loss_sum.curvature, loss_sum.convex
        self.centre, self.hint_state, self.centre_cache, self.round = (state.centre, state.hint_state,
                                                                     state.centre_cache, state.round)
        self._guessed = None
        hint = learner.hint
        self._predict, self._hint_update = hint.predict, hint.update
        self._hint_keeps_state = type(hint) not in _STATELESS_HINTS
        self._hint_is_last_loss = type(hint) is LastLoss  # psi_t = f_{t-1}: the guess is the state itself
        self._hint_sees_induced = bool(getattr(hint, "sees_induced_loss", False))
        self._argmin = learner.regularizer.argmin_with_cache
        self._eta = learner.eta

    def play(self, weight: float, current_loss: Loss | None = None):
        guess = self.hint_state if self._hint_is_last_loss else self._predict(self.hint_state, current_loss)
        eta = self._eta
        if eta.__class__ is StepSchedule:
            eta = eta(self.round)
        if guess is None:
            linear, curvature, convex = self.linear_sum, self.curvature_sum, self.convex
        else:
            linear, other = self.linear_sum, guess.linear
            if (other.__class__ is np.ndarray and other.ndim == 1 and weight.__class__ is float
                    and other.shape == linear.shape):  # a copy and one BLAS axpy (plus_scaled, inlined)
                linear = linear.copy()
                axpy(other, linear, weight)
            else:
                linear = plus_scaled(linear, weight, other)
            curvature = self.curvature_sum + weight * guess.curvature
            convex = self.convex if self.convex is guess.convex else _convex_of_sum(self, guess, weight)
            self._guessed = (guess, weight, linear, curvature, convex)
        if convex is not None:  # curvature times a convex function other than 1/2 ||.||^2 (see Loss)
            return self.learner.regularizer.argmin_of_loss(Loss(linear, curvature, convex), eta, self.centre)
        return self._argmin(linear, curvature, eta, self.centre, self.centre_cache)

    def update(self, point, loss: Loss, weight: float, induced_loss: Loss | None = None) -> None:
        guessed = self._guessed
        if guessed is not None and guessed[0] is loss and guessed[1] == weight:
            _, _, self.linear_sum, self.curvature_sum, self.convex = guessed  # play formed this very sum
        else:
            if self.convex is not loss.convex:
                self.convex = _convex_of_sum(self, loss, weight)
            other = loss.linear
            if (other.__class__ is np.ndarray and other.ndim == 1 and weight.__class__ is float
                    and other.shape == self.linear_sum.shape):  # our own float64 buffer: axpy in place
                axpy(other, self.linear_sum, weight)
            else:
                self.linear_sum = add_scaled(self.linear_sum, weight, other)
            self.curvature_sum += weight * loss.curvature
        self._guessed = None
        if self._hint_is_last_loss:
            self.hint_state = loss  # LastLoss.update, inlined
        elif self._hint_keeps_state:
            if self._hint_sees_induced and induced_loss is not None:
                self.hint_state = self._hint_update(self.hint_state, point, loss, weight, induced_loss=induced_loss)
            else:
                self.hint_state = self._hint_update(self.hint_state, point, loss, weight)
        self.round += 1

    def loss_sum(self) -> Loss:
        r""":math:`\sum_{s\le t}\alpha_sf_s` (its linear part is this player's buffer: read, don't keep)."""
        return Loss(self.linear_sum, self.curvature_sum, self.convex)

    def loss_linear_sum(self):
        return self.linear_sum

    @property
    def state(self) -> FTRLState:
        """The pure state this player is at (sharing the loss-sum buffer)."""
        return FTRLState(self.loss_sum(), self.centre, self.hint_state, self.centre_cache, [None], self.round)


def _convex_of_sum(player, loss: Loss, weight):
    """The convex term phi of (the player's sum) + weight * loss (see :meth:`Loss.plus_scaled`)."""
    return Loss(player.linear_sum, player.curvature_sum, player.convex)._convex_of_sum(loss, weight)


@attrs.frozen
class FollowTheRegularizedLeader(_RegularizedLearner):
    """The FTRL-family rule with a pluggable regularizer, step eta and hint (see module docstring).

    Its state's ``loss_sum`` is the weighted loss sum; :meth:`loss_sum` hands it to the runner, so
    the runner keeps no copy of its own.
    """

    regularizer: Regularizer = attrs.field(validator=_check_regularizer)
    eta: float = attrs.field(default=1.0, converter=_as_step, validator=_check_eta)
    hint: Any = attrs.field(factory=NoHint, validator=_check_hint)
    centre: Any = attrs.field(default=None, kw_only=True, eq=False)

    def init(self, dimension: int, initial_loss: Loss | None = None) -> FTRLState:
        initial_loss = Loss.zero(dimension) if initial_loss is None else initial_loss
        centre = _batched_centre(self, _resolve_centre(self, dimension), initial_loss)
        _check_batch_of_steps(self, initial_loss)
        return FTRLState(Loss(np.zeros(initial_loss.linear.shape), 0.0), centre,
                         self.hint.init(dimension, initial_loss), self.regularizer.centre_cache(centre), [None])

    def play(self, state: FTRLState, weight: float, current_loss: Loss | None = None):
        return FTRLPlayer(self, state).play(weight, current_loss)

    def update(self, state: FTRLState, point, loss: Loss, weight: float, *, induced_loss: Loss | None = None) -> FTRLState:
        player = FTRLPlayer(self, state, copy=True)  # the state stays as it was: the player adds to a copy
        player.update(point, loss, weight, induced_loss)
        return player.state

    def player(self, state: FTRLState) -> "FTRLPlayer":
        """The runner's form of this learner: a :class:`FTRLPlayer` that owns ``state``'s loss sum."""
        return FTRLPlayer(self, state)

    def loss_sum(self, state: FTRLState) -> Loss:
        """sum_{s<=t} alpha_s f_s, the sum this learner minimises (shared with the runner)."""
        return state.loss_sum


def FTL(domain=None) -> FollowTheRegularizedLeader:
    """Follow the leader: z_t = argmin_z sum_{i<t} alpha_i f_i(z) (the loss must fix a unique minimiser)."""
    return FollowTheRegularizedLeader(Zero() if domain is None else Zero(domain), 1.0, NoHint())


def OFTL(domain=None, hint=None) -> FollowTheRegularizedLeader:
    """Optimistic FTL: z_t = argmin_z sum_{i<t} alpha_i f_i(z) + alpha_t psi_t(z), psi_t = f_{t-1} by default."""
    return FollowTheRegularizedLeader(Zero() if domain is None else Zero(domain), 1.0, LastLoss() if hint is None else hint)


def FTRL(regularizer: Regularizer, eta: float = 1.0, *, centre=None) -> FollowTheRegularizedLeader:
    """FTRL: z_t = argmin_z eta sum_{i<t} alpha_i f_i(z) + D_R(z, z_0)."""
    return FollowTheRegularizedLeader(regularizer, eta, NoHint(), centre=centre)


def FTRLPlus(regularizer: Regularizer | None = None, eta: float = 1.0, *, centre=None) -> FollowTheRegularizedLeader:
    """FTRL+: z_t = argmin_z eta sum_{i<=t} alpha_i f_i(z) + D_R(z, z_0); sees f_t, so it must move second.

    ``regularizer=None`` is FTRL+ with no regularizer (the w-player of Algorithm 3).
    """
    return FollowTheRegularizedLeader(Zero() if regularizer is None else regularizer, eta, CurrentLoss(), centre=centre)


def OFTRL(regularizer: Regularizer, eta: float = 1.0, hint=None, *, centre=None) -> FollowTheRegularizedLeader:
    """Optimistic FTRL: z_t = argmin_z eta(sum_{i<t} alpha_i f_i(z) + alpha_t psi_t(z)) + D_R(z, z_0)."""
    return FollowTheRegularizedLeader(regularizer, eta, LastLoss() if hint is None else hint, centre=centre)


class OMDState(NamedTuple):
    """The secondary iterate y_{t-1}, the hint's state and ``regularizer.centre_cache(y_{t-1})``
    (log y_{t-1} for entropy, carried in the log domain like the original mirror prox); immutable."""

    secondary: np.ndarray
    hint_state: Any
    secondary_cache: Any = None
    round: int = 1


@attrs.frozen
class OMD(_RegularizedLearner):
    """Optimistic online mirror descent (Rakhlin & Sridharan 2013), see the module docstring.

    The hint's loss is linearised at the secondary iterate to give M_t; the default hint is the
    previous (linearised) loss, M_t = grad f_{t-1}(x_{t-1}), with f_0 from the opponent's initial point.
    """

    regularizer: Regularizer = attrs.field(validator=_check_regularizer)
    eta: float = attrs.field(default=1.0, converter=_as_step, validator=_check_eta)
    hint: Any = attrs.field(factory=LastLoss, validator=_check_hint)
    centre: Any = attrs.field(default=None, kw_only=True, eq=False)

    def init(self, dimension: int, initial_loss: Loss | None = None) -> OMDState:
        initial_loss = Loss.zero(dimension) if initial_loss is None else initial_loss
        centre = _batched_centre(self, _resolve_centre(self, dimension), initial_loss)
        _check_batch_of_steps(self, initial_loss)
        return OMDState(centre, self.hint.init(dimension, initial_loss), self.regularizer.centre_cache(centre))

    def play(self, state: OMDState, weight: float, current_loss: Loss | None = None):
        return _omd_play(self, state, weight, current_loss)

    def update(self, state: OMDState, point, loss: Loss, weight: float, *, induced_loss: Loss | None = None) -> OMDState:
        return _omd_update(self, state, point, loss, weight, induced_loss)

    def player(self, state: OMDState) -> "OMDPlayer":
        """The runner's form of this learner (an :class:`OMDPlayer`)."""
        return OMDPlayer(self, state)


def _omd_play(learner, state: OMDState, weight, current_loss):
    """x_t = argmin eta alpha_t <M_t, x> + D_R(x, y_{t-1}), M_t the hint's gradient at y_{t-1} (y_{t-1} without a hint)."""
    guess = learner.hint.predict(state.hint_state, current_loss)
    if guess is None:
        return state.secondary
    return learner.regularizer.argmin_with_cache(_times(weight, guess.gradient(state.secondary)), 0.0,
                                                 _step_at(learner.eta, state.round), state.secondary,
                                                 state.secondary_cache)


def _omd_update(learner, state: OMDState, point, loss: Loss, weight, induced_loss) -> OMDState:
    """y_t = argmin eta alpha_t <grad f_t(x_t), x> + D_R(x, y_{t-1}), and the hint's update."""
    gradient = loss.gradient(point)
    secondary, cache = _mirror_step(learner.regularizer, _times(weight, gradient), _step_at(learner.eta, state.round),
                                    state.secondary, state.secondary_cache)
    hint = learner.hint
    if induced_loss is not None and getattr(hint, "sees_induced_loss", False):
        hint_state = hint.update(state.hint_state, point, Loss(gradient, 0.0), weight, induced_loss=induced_loss)
    else:
        hint_state = hint.update(state.hint_state, point, Loss(gradient, 0.0), weight)
    return OMDState(secondary, hint_state, cache, state.round + 1)


class OMDPlayer:
    """The optimistic mirror-descent rule as a mutable object, the form :func:`gamedyn.play` runs.

    It holds an :class:`OMDState` and replaces it each round (every step makes a new secondary
    iterate, so nothing is done in place); the pure ``play`` / ``update`` of :class:`OMD` are the
    same two functions.
    """

    __slots__ = ("learner", "state")

    def __init__(self, learner, state: OMDState):
        self.learner, self.state = learner, state

    def play(self, weight: float, current_loss: Loss | None = None):
        return _omd_play(self.learner, self.state, weight, current_loss)

    def update(self, point, loss: Loss, weight: float, induced_loss: Loss | None = None) -> None:
        self.state = _omd_update(self.learner, self.state, point, loss, weight, induced_loss)

    def loss_sum(self):
        return None  # mirror descent keeps no loss sum: the runner keeps it


def _same_array(a, b) -> bool:
    """The same array object, or equal values (None only matches None)."""
    if a is b:
        return True
    if a is None or b is None or a.__class__ is not b.__class__:
        return False
    if a.__class__ is CappedCentre:  # entropy's cache on a capped simplex: compare its log centre
        return _same_array(a.log, b.log)
    if a.shape != b.shape:
        return False
    return bool((a == b).all())


def _mirror_step(regularizer, linear, eta, centre, cache):
    """``regularizer.argmin_and_cache(linear, 0, eta, centre, cache)``, remembering the last step.

    The secondary step y_t = argmin eta <g, x> + D_R(x, y_{t-1}) is often taken twice per round
    on the same inputs: a player's own update and an opponent's shadow of it
    (:class:`gamedyn.OpponentSecondary`, mirror prox) both step from equal y_{t-1} with the very
    same gradient array (the one the runner computed). A one-slot memo on the regularizer returns
    the first result to the second caller, so both states then share the same arrays and mirror
    prox costs its own four mirror steps per round, not six. The memo is checked in full (the
    gradient by identity, the step by value, centre and its cache by identity or value), so a hit
    returns exactly what the step would compute; it holds one step's arrays (O(dimension)).
    """
    memo = getattr(regularizer, "_last_mirror_step", None)
    if (memo is not None and memo[0] is linear and (memo[1] is eta or (eta.__class__ is float and memo[1] == eta))
            and _same_array(memo[2], centre) and _same_array(memo[3], cache)):
        return memo[4]
    result = regularizer.argmin_and_cache(linear, 0.0, eta, centre, cache)
    try:
        object.__setattr__(regularizer, "_last_mirror_step", (linear, eta, centre, cache, result))
    except AttributeError:  # a regularizer with __slots__ only: no memo, every step computed
        pass
    return result


def _times(weight, vector):
    """weight * vector, skipping the product for the unit weight (alpha_t = 1 is common)."""
    return vector if weight == 1.0 else weight * vector


def BestResponse(domain) -> OMD:
    r"""The best responder (BR+): z_t = argmin_{z in Z} f_t(z), the round's own loss alone.

    It sees f_t before it plays, so it must move second. For a linear loss this is the domain's
    linear minimisation oracle (``domain.linear_minimizer``): the x-player of Frank-Wolfe as a game
    (Abernethy & Wang 2017). Built from the existing parts: mirror descent with the zero
    regularizer (no Bregman term, so the previous point is forgotten) and the hint psi_t = f_t.
    Its regret is <= 0 (it never does worse than any fixed point on the round it plays).
    """
    return OMD(Zero(domain), 1.0, CurrentLoss())


def MirrorDescent(regularizer: Regularizer, eta: float = 1.0, *, centre=None) -> OMD:
    """Online mirror descent: z_{t+1} = argmin_z eta alpha_t <grad f_t(z_t), z> + D_R(z, z_t)."""
    return OMD(regularizer, eta, NoHint(), centre=centre)
