r"""Online learners with explicit state: the FTRL family and the mirror-descent family.

Every learner is an immutable configuration with three pure functions (the optax pattern):

* ``init(dimension, initial_loss) -> state``
* ``play(state, weight, current_loss=None) -> point`` — the point z_t for round t, whose weight
  alpha_t is already known;
* ``update(state, point, loss, weight) -> state`` — after observing the weighted loss alpha_t f_t.

A learner knows nothing of games, perceptrons or the round number.

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

from typing import Any

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


def _check_eta(instance, attribute, value):
    check_positive(value, "eta")


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


@attrs.frozen
class FTRLState:
    """Running weighted loss sum, the fixed centre z_0 and the hint's state."""

    loss_sum: Loss
    centre: np.ndarray
    hint_state: Any


@attrs.frozen
class FollowTheRegularizedLeader(_RegularizedLearner):
    """The FTRL-family rule with a pluggable regularizer, step eta and hint (see module docstring)."""

    regularizer: Regularizer = attrs.field(validator=_check_regularizer)
    eta: float = attrs.field(default=1.0, validator=_check_eta)
    hint: Any = attrs.field(factory=NoHint, validator=_check_hint)
    centre: Any = attrs.field(default=None, kw_only=True, eq=False)

    def init(self, dimension: int, initial_loss: Loss | None = None) -> FTRLState:
        initial_loss = Loss.zero(dimension) if initial_loss is None else initial_loss
        return FTRLState(Loss.zero(dimension), _resolve_centre(self, dimension), self.hint.init(dimension, initial_loss))

    def play(self, state: FTRLState, weight: float, current_loss: Loss | None = None):
        total = state.loss_sum
        guess = self.hint.predict(state.hint_state, current_loss)
        if guess is not None:
            total = total + guess.scaled(weight)
        return self.regularizer.argmin(total.linear, total.curvature, self.eta, state.centre)

    def update(self, state: FTRLState, point, loss: Loss, weight: float) -> FTRLState:
        return FTRLState(
            state.loss_sum + loss.scaled(weight),
            state.centre,
            self.hint.update(state.hint_state, point, loss, weight),
        )


def FTL(domain=None) -> FollowTheRegularizedLeader:
    """Follow the leader: z_t = argmin_z sum_{i<t} alpha_i f_i(z) (the loss must fix a unique minimiser)."""
    return FollowTheRegularizedLeader(Zero() if domain is None else Zero(domain), 1.0, NoHint())


def OFTL(domain=None, hint=None) -> FollowTheRegularizedLeader:
    """Optimistic FTL: z_t = argmin_z sum_{i<t} alpha_i f_i(z) + alpha_t psi_t(z), psi_t = f_{t-1} by default."""
    return FollowTheRegularizedLeader(Zero() if domain is None else Zero(domain), 1.0, LastLoss() if hint is None else hint)


def FTRL(regularizer: Regularizer, eta: float, *, centre=None) -> FollowTheRegularizedLeader:
    """FTRL: z_t = argmin_z eta sum_{i<t} alpha_i f_i(z) + D_R(z, z_0)."""
    return FollowTheRegularizedLeader(regularizer, eta, NoHint(), centre=centre)


def FTRLPlus(regularizer: Regularizer | None = None, eta: float = 1.0, *, centre=None) -> FollowTheRegularizedLeader:
    """FTRL+: z_t = argmin_z eta sum_{i<=t} alpha_i f_i(z) + D_R(z, z_0); sees f_t, so it must move second.

    ``regularizer=None`` is FTRL+ with no regularizer (the w-player of Algorithm 3).
    """
    return FollowTheRegularizedLeader(Zero() if regularizer is None else regularizer, eta, CurrentLoss(), centre=centre)


def OFTRL(regularizer: Regularizer, eta: float, hint=None, *, centre=None) -> FollowTheRegularizedLeader:
    """Optimistic FTRL: z_t = argmin_z eta(sum_{i<t} alpha_i f_i(z) + alpha_t psi_t(z)) + D_R(z, z_0)."""
    return FollowTheRegularizedLeader(regularizer, eta, LastLoss() if hint is None else hint, centre=centre)


@attrs.frozen
class OMDState:
    """The secondary iterate y_{t-1} and the hint's state."""

    secondary: np.ndarray
    hint_state: Any


@attrs.frozen
class OMD(_RegularizedLearner):
    """Optimistic online mirror descent (Rakhlin & Sridharan 2013), see the module docstring.

    The hint's loss is linearised at the secondary iterate to give M_t; the default hint is the
    previous (linearised) loss, M_t = grad f_{t-1}(x_{t-1}), with f_0 from the opponent's initial point.
    """

    regularizer: Regularizer = attrs.field(validator=_check_regularizer)
    eta: float = attrs.field(default=1.0, validator=_check_eta)
    hint: Any = attrs.field(factory=LastLoss, validator=_check_hint)
    centre: Any = attrs.field(default=None, kw_only=True, eq=False)

    def init(self, dimension: int, initial_loss: Loss | None = None) -> OMDState:
        initial_loss = Loss.zero(dimension) if initial_loss is None else initial_loss
        return OMDState(_resolve_centre(self, dimension), self.hint.init(dimension, initial_loss))

    def play(self, state: OMDState, weight: float, current_loss: Loss | None = None):
        guess = self.hint.predict(state.hint_state, current_loss)
        if guess is None:
            return state.secondary
        return self._step(state.secondary, guess.gradient(state.secondary), weight)

    def update(self, state: OMDState, point, loss: Loss, weight: float) -> OMDState:
        gradient = loss.gradient(point)
        return OMDState(
            self._step(state.secondary, gradient, weight),
            self.hint.update(state.hint_state, point, Loss(gradient, 0.0), weight),
        )

    def _step(self, centre, gradient, weight):
        return self.regularizer.argmin(weight * gradient, 0.0, self.eta, centre)


def MirrorDescent(regularizer: Regularizer, eta: float, *, centre=None) -> OMD:
    """Online mirror descent: z_{t+1} = argmin_z eta alpha_t <grad f_t(z_t), z> + D_R(z, z_t)."""
    return OMD(regularizer, eta, NoHint(), centre=centre)
