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

from gamedyn._validation import check_positive, check_vector
from gamedyn.hints import CurrentLoss, LastLoss, NoHint
from gamedyn.payoffs import Loss
from gamedyn.regularizers import Regularizer, Zero


def _check_regularizer(instance, attribute, value):
    if not isinstance(value, Regularizer):
        raise TypeError(
            f"regularizer must be a gamedyn Regularizer (Entropy(), SquaredEuclidean(), QNorm(q), "
            f"Zero(domain)), got {type(value).__name__}."
        )


def _check_hint(instance, attribute, value):
    if not all(hasattr(value, name) for name in ("init", "predict", "update")):
        raise TypeError(f"hint must have init, predict and update methods (see gamedyn.hints), got {value!r}.")


@attrs.frozen
class StepSchedule:
    r"""A step-size schedule :math:`\eta_t`, t = 1, 2, ...: a sequence ``(eta_1, eta_2, ...)`` or a
    callable ``t -> eta_t``. Every learner's ``eta`` accepts one (a list or tuple, or a callable,
    is turned into a ``StepSchedule``); each learner counts its own rounds, so round t uses
    :math:`\eta_t` in both its play and its update. A NumPy array as ``eta`` means something else:
    one constant step per batched game (a sweep).

    >>> StepSchedule([1.0, 0.5])(2), StepSchedule(lambda t: 1 / t)(4)
    (0.5, 0.25)
    """

    steps: Any = attrs.field()

    def __attrs_post_init__(self):
        if not callable(self.steps):
            steps = tuple(float(step) for step in self.steps)
            if not steps or not all(np.isfinite(step) and step > 0 for step in steps):
                raise ValueError(f"a step sequence must hold positive finite steps, got {self.steps!r}.")
            object.__setattr__(self, "steps", steps)

    def __call__(self, t: int) -> float:
        if callable(self.steps):
            step = float(self.steps(t))
            if not (np.isfinite(step) and step > 0):
                raise ValueError(f"eta({t}) = {step!r}; every step eta_t must be positive and finite.")
            return step
        if t > len(self.steps):
            raise ValueError(f"the step sequence holds {len(self.steps)} steps but round {t} needs eta_{t}; "
                             f"give at least T steps, or a callable t -> eta_t.")
        return self.steps[t - 1]


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

    def _hint_update(self, hint_state, point, loss, weight, induced_loss):
        if induced_loss is not None and getattr(self.hint, "sees_induced_loss", False):
            return self.hint.update(hint_state, point, loss, weight, induced_loss=induced_loss)
        return self.hint.update(hint_state, point, loss, weight)


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
    once at ``init``. An immutable named tuple: a new one each round costs a fraction of a microsecond.
    ``guessed`` is a one-slot memo: ``play`` records ``(guess, weight, sum + weight * guess)`` there,
    and ``update`` reuses that sum when it is charged the same loss object at the same weight (FTRL+
    sees its round loss before playing, so it would otherwise add it twice).
    """

    loss_sum: Loss
    centre: np.ndarray
    hint_state: Any
    centre_cache: Any = None
    guessed: list | None = None
    round: int = 1


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
        guess = self.hint.predict(state.hint_state, current_loss)
        if guess is None:
            total = state.loss_sum
        else:
            total = state.loss_sum.plus_scaled(guess, weight)
            if state.guessed is not None:
                state.guessed[0] = (guess, weight, total)
        eta = _step_at(self.eta, state.round)
        if total.convex is not None:  # curvature times a convex function other than 1/2 ||.||^2 (see Loss)
            return self.regularizer.argmin_of_loss(total, eta, state.centre)
        return self.regularizer.argmin_with_cache(total.linear, total.curvature, eta, state.centre, state.centre_cache)

    def update(self, state: FTRLState, point, loss: Loss, weight: float, *, induced_loss: Loss | None = None) -> FTRLState:
        memo = state.guessed[0] if state.guessed is not None else None
        if memo is not None and memo[0] is loss and memo[1] == weight:
            loss_sum = memo[2]  # play already formed sum + weight * loss (FTRL+)
        else:
            loss_sum = state.loss_sum.plus_scaled(loss, weight)
        return FTRLState(
            loss_sum,
            state.centre,
            self._hint_update(state.hint_state, point, loss, weight, induced_loss),
            state.centre_cache,
            [None],
            state.round + 1,
        )

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
        guess = self.hint.predict(state.hint_state, current_loss)
        if guess is None:
            return state.secondary
        return self.regularizer.argmin_with_cache(_times(weight, guess.gradient(state.secondary)), 0.0,
                                                  _step_at(self.eta, state.round), state.secondary, state.secondary_cache)

    def update(self, state: OMDState, point, loss: Loss, weight: float, *, induced_loss: Loss | None = None) -> OMDState:
        gradient = loss.gradient(point)
        secondary, cache = _mirror_step(self.regularizer, _times(weight, gradient), _step_at(self.eta, state.round),
                                        state.secondary, state.secondary_cache)
        return OMDState(secondary, self._hint_update(state.hint_state, point, Loss(gradient, 0.0), weight, induced_loss),
                        cache, state.round + 1)


def _same_array(a, b) -> bool:
    """The same array object, or equal values (None only matches None)."""
    if a is b:
        return True
    if a is None or b is None or a.shape != b.shape:
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
