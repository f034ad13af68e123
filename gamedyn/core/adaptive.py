r"""Learners that tune their own step: AdaHedge, and FTRL with an AdaGrad-style step for any regularizer.

**AdaHedge** (de Rooij, van Erven, Grünwald & Koolen 2014, JMLR 15, Sect. 2 and the code of their
Figure 1): Hedge on the (weighted) losses :math:`\ell_t` with the rate
:math:`\eta_t=\ln K/\Delta_{t-1}` (:math:`\eta=\infty`, follow the leader(s), while
:math:`\Delta_{t-1}=0`), where :math:`\Delta_t=\sum_{s\le t}\delta_s` sums the mixability gaps

.. math::

    \delta_t=\langle w_t,\ell_t\rangle-\big(M_{\eta_t}(L_t)-M_{\eta_t}(L_{t-1})\big)\ \ (\text{clipped at }0),\qquad
    M_\eta(L)=\min_kL_k-\tfrac1\eta\ln\tfrac1K\textstyle\sum_ke^{-\eta(L_k-\min L)},

and :math:`w_{t,k}\propto e^{-\eta_tL_{t-1,k}}`. Regret (eq. (6)-(7) of
docs/explanation/regret-matching-bounds.md): :math:`R_T\le2\Delta_T\le\sqrt{(\ln K+4)\sum_t\rho_t^2}`,
with :math:`\rho_t=\max\ell_t-\min\ell_t`.

**AdaGrad-style FTRL** (:class:`AdaptiveStep`, :class:`AdaptiveFTRL`): FTRL with any regularizer,

.. math::

    z_t=\arg\min_z\ \eta_t\textstyle\sum_{s<t}\alpha_sf_s(z)+D_R(z,z_0),\qquad
    \eta_t=\dfrac{c}{\sqrt{\sum_{s<t}\|\alpha_s\ell_s\|_*^2}},

the rate depending only on the past (Duchi, Hazan & Singer 2011; scale-free FTRL, Orabona & Pál
2018), :math:`z_t=z_0` while the sum is 0. On the simplex the dual norm is the range
:math:`\max\ell-\min\ell` (adding a constant to a loss moves no play) and :math:`c=\sqrt{\ln K}`
for entropy with a uniform centre; then :math:`R_T\le(\sqrt{\ln K}+2\sqrt2\max(\sqrt{\ln K}/8,1))
\sqrt{\sum_t\rho_t^2}` (eq. (11)). For other regularizers the rule is the same; give ``scale=`` the
square root of the regularizer's range over the comparators (gamedyn states no constant there).
"""

from __future__ import annotations

import math
from typing import NamedTuple, cast

import attrs
import numpy as np

from gamedyn.core.domains import Simplex
from gamedyn.core.kernels import axpy, backend_of, dot, is_foreign, is_numpy, to_host_scalar
from gamedyn.core.loss import Loss
from gamedyn.core.regularizers import Entropy, Regularizer

__all__ = ["AdaHedge", "AdaHedgePlayer", "AdaHedgeState", "AdaptiveFTRL", "AdaptiveFTRLPlayer", "AdaptiveFTRLState",
           "AdaptiveStep", "mix_loss"]


def _linear_part(loss: Loss, point):
    if loss.curvature == 0.0 and loss.convex is None:
        return loss.linear
    return loss.gradient(point)


def _check_dimension(learner, dimension, initial_loss):
    if isinstance(dimension, bool) or not isinstance(dimension, (int, np.integer)) or dimension < 1:
        raise ValueError(f"dimension must be a positive number of actions, got {dimension!r}.")
    if initial_loss is not None and np.ndim(initial_loss.linear) != 1:
        raise ValueError(f"{type(learner).__name__} plays one game at a time; it got batched losses of shape "
                         f"{np.shape(initial_loss.linear)}. Run the games one by one.")
    return int(dimension)


def mix_loss(eta: float, cumulative) -> tuple:
    r"""``(w, M_eta(L))``: Hedge's weights :math:`\propto e^{-\eta L}` and the mix loss (de Rooij et al. 2014, Fig. 1).

    At :math:`\eta=\infty` the weights are uniform over the leaders and :math:`M_\infty(L)=\min L`.

    Parameters
    ----------
    eta : float
        The rate, positive (``math.inf`` allowed).
    cumulative : numpy.ndarray, shape (K,)
        The cumulative losses :math:`L`.

    Returns
    -------
    tuple
        ``(weights, mix)``: a new probability vector and a float.

    Examples
    --------
    >>> import numpy as np
    >>> weights, mix = mix_loss(math.inf, np.array([1.0, 0.0, 0.0]))
    >>> weights.tolist(), mix
    ([0.0, 0.5, 0.5], 0.0)
    """
    smallest = float(cumulative[cumulative.argmin()])
    if eta == math.inf:
        weights = (cumulative == smallest).astype(np.float64)
        weights /= weights.sum()
        return weights, smallest
    weights = cumulative - smallest
    weights *= -eta
    np.exp(weights, out=weights)
    total = float(weights.sum())
    weights /= total
    return weights, smallest - math.log(total / cumulative.size) / eta


def _foreign_mix_loss(xp, eta: float, cumulative) -> tuple:
    """:func:`mix_loss` for a cumulative loss of the namespace ``xp``: the weights there, the mix a host number."""
    smallest_array = xp.min(cumulative)
    smallest = to_host_scalar(smallest_array)
    if eta == math.inf:
        weights = xp.astype(cumulative == smallest_array, cumulative.dtype)
        return weights / xp.sum(weights), smallest
    weights = xp.exp((cumulative - smallest_array) * -eta)
    total = xp.sum(weights)
    return weights / total, smallest - math.log(to_host_scalar(total) / cumulative.shape[0]) / eta


class AdaHedgeState(NamedTuple):
    """The cumulative (weighted) losses L_t, the summed mixability gaps Delta_t and the learner's round."""

    cumulative_loss: np.ndarray
    gap: float
    round: int = 1


@attrs.frozen
class AdaHedge:
    r"""AdaHedge (de Rooij, van Erven, Grünwald & Koolen 2014): Hedge whose rate :math:`\ln K/\Delta_{t-1}` needs no tuning.

    See the module docstring for the update. A learner on :class:`Simplex` for either seat of
    :func:`gamedyn.play`, against any opponent and with any weights (it runs on the weighted
    losses :math:`\alpha_t\ell_t`); it never needs its round's loss. Its plays are invariant under
    positive rescaling and translation of the losses.

    Examples
    --------
    >>> import numpy as np
    >>> from gamedyn.core import Loss
    >>> learner = AdaHedge()
    >>> state = learner.init(2)
    >>> x = learner.play(state, 1.0)       # eta_1 = inf: follow the leaders (a tie: uniform)
    >>> state = learner.update(state, x, Loss(np.array([1.0, 0.0])), 1.0)
    >>> learner.play(state, 1.0).tolist()  # Delta_1 = 1/2 > 0: eta_2 = 2 ln 2
    [0.2, 0.8]
    """

    domain = Simplex()
    needs_current_loss = False
    sees_induced_loss = False
    plays_in_domain = True

    def init(self, dimension: int, initial_loss: Loss | None = None) -> AdaHedgeState:
        """Zero cumulative loss and gap for ``dimension`` actions (``initial_loss`` is not used)."""
        dimension = _check_dimension(self, dimension, initial_loss)
        if initial_loss is not None and is_foreign(initial_loss.linear):  # the run's namespace and device (issue 20)
            return AdaHedgeState(backend_of(initial_loss.linear).zeros((dimension,)), 0.0, 1)
        return AdaHedgeState(np.zeros(dimension), 0.0, 1)

    def play(self, state: AdaHedgeState, weight: float, current_loss: Loss | None = None):
        """The weights :math:`w_t` (``weight`` and ``current_loss`` are not used)."""
        return AdaHedgePlayer(self, state).play(weight)

    def update(self, state: AdaHedgeState, point, loss: Loss, weight: float, **_) -> AdaHedgeState:
        """The state after the loss ``weight * loss`` charged at ``point``."""
        cumulative = state.cumulative_loss
        cumulative = backend_of(cumulative).xp.asarray(cumulative, copy=True) if is_foreign(cumulative) else cumulative.copy()
        player = AdaHedgePlayer(self, AdaHedgeState(cumulative, state.gap, state.round))
        player.update(point, loss, weight)
        return player.state

    def player(self, state: AdaHedgeState) -> AdaHedgePlayer:
        """The runner's mutable form (the cumulative loss updated in place)."""
        return AdaHedgePlayer(self, state)


class AdaHedgePlayer:
    """AdaHedge as the mutable object :func:`gamedyn.play` runs."""

    __slots__ = ("_log_size", "_played", "_xp", "cumulative_loss", "gap", "learner", "round")

    def __init__(self, learner, state: AdaHedgeState):
        self.learner = learner
        # A foreign cumulative loss (torch, JAX, ...; issue 20) stays in its namespace, on its device: the vectors'
        # steps there, the rate eta = ln K / Delta a host number (one synchronisation a round: its inf branch).
        self._xp = backend_of(state.cumulative_loss).xp if is_foreign(state.cumulative_loss) else None
        self.cumulative_loss = (state.cumulative_loss if self._xp is not None
                                else np.array(state.cumulative_loss, dtype=np.float64))
        self.gap, self.round = float(state.gap), int(state.round)
        self._log_size = math.log(self.cumulative_loss.shape[0])
        self._played: tuple[float, float] | None = None  # (eta, M_eta(L_{t-1})) of the last play, while the state has not changed

    def rate(self) -> float:
        r""":math:`\eta=\ln K/\Delta` (``math.inf`` while :math:`\Delta=0`)."""
        return math.inf if self.gap == 0.0 else self._log_size / self.gap

    def play(self, weight, current_loss=None):
        if self.cumulative_loss.shape[0] == 1:
            self._played = (math.inf, to_host_scalar(self.cumulative_loss[0]))
            return np.ones(1) if self._xp is None else self._xp.ones_like(self.cumulative_loss)
        eta = self.rate()
        if self._xp is not None:
            point, mix = _foreign_mix_loss(self._xp, eta, self.cumulative_loss)
            self._played = (eta, mix)
            return point
        point, mix = mix_loss(eta, self.cumulative_loss)
        self._played = (eta, mix)
        return point

    def update(self, point, loss, weight, induced_loss=None) -> None:
        played = self._played
        if played is None:  # charged without a play since the last update (the pure form): the same numbers
            self.play(weight)
            played = cast("tuple[float, float]", self._played)  # (play sets it)
        eta, mix_before = played
        linear = _linear_part(loss, point)
        if weight != 1.0:
            linear = weight * linear
        if self._xp is not None:
            xp = self._xp
            hedge_loss = to_host_scalar(xp.sum(linear * point))
            self.cumulative_loss = self.cumulative_loss + linear
            if self.cumulative_loss.shape[0] > 1:
                mix_after = _foreign_mix_loss(xp, eta, self.cumulative_loss)[1]
                self.gap += max(0.0, hedge_loss - (mix_after - mix_before))
            self._played = None
            self.round += 1
            return
        if is_numpy(linear) and linear.dtype == np.float64 and linear.ndim == 1:
            hedge_loss = dot(linear, point)
            axpy(linear, self.cumulative_loss, 1.0)
        else:
            hedge_loss = float(np.asarray(linear, dtype=np.float64) @ point)
            self.cumulative_loss += linear
        if self.cumulative_loss.size > 1:
            smallest = float(self.cumulative_loss[self.cumulative_loss.argmin()])
            if eta == math.inf:
                mix_after = smallest
            else:
                shifted = self.cumulative_loss - smallest
                shifted *= -eta
                np.exp(shifted, out=shifted)
                mix_after = smallest - math.log(float(shifted.sum()) / shifted.size) / eta
            self.gap += max(0.0, hedge_loss - (mix_after - mix_before))  # the paper clips rounding below 0
        self._played = None
        self.round += 1

    def loss_sum(self):
        return None

    @property
    def state(self) -> AdaHedgeState:
        """The current :class:`AdaHedgeState` (a view: it shares the cumulative loss array)."""
        return AdaHedgeState(self.cumulative_loss, self.gap, self.round)


# ------------------------------------------------------------------------------------- AdaGrad step


def _check_norm(instance, attribute, value):
    if value is None or value == "range":
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 1:
        raise ValueError(f"norm must be 'range', a number p >= 1 (the dual l_p norm, math.inf allowed) or None "
                         f"(the regularizer's own), got {value!r}.")


def _check_scale(instance, attribute, value):
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (math.isfinite(value) and value > 0):
        raise ValueError(f"scale must be a positive finite number (c in eta_t = c / sqrt(sum ||l_s||^2)) or None, "
                         f"got {value!r}.")


@attrs.frozen
class AdaptiveStep:
    r"""The AdaGrad-style step :math:`\eta_t=c/\sqrt{\sum_{s<t}\|\alpha_s\ell_s\|_*^2}` (see the module docstring).

    Parameters
    ----------
    scale : float or None
        :math:`c`. None: :math:`\sqrt{\max_i\ln(1/z_{0,i})}` (:math:`\sqrt{\ln K}` for a uniform
        centre) for entropy, 1 otherwise.
    norm : {"range", p} or None
        The dual norm of the losses: ``"range"`` (max - min, right on the simplex), or the
        :math:`\ell_p` norm. None: ``"range"`` on the simplex, 2 elsewhere.

    Examples
    --------
    >>> step = AdaptiveStep()
    >>> step.size([3.0, 1.0, 2.0], Simplex())
    4.0

    It declares ``step_kind = "adaptive"`` (:func:`gamedyn.core.weights.step_kind`).
    """

    step_kind = "adaptive"
    scale: float | None = attrs.field(default=None, validator=_check_scale)
    norm: object = attrs.field(default=None, validator=_check_norm)

    def norm_of(self, domain):
        """The norm this step measures losses with on ``domain``."""
        if self.norm is not None:
            return self.norm
        return "range" if isinstance(domain, Simplex) else 2.0

    def size(self, loss_vector, domain) -> float:
        r""":math:`\|\ell\|_*^2` of one loss vector."""
        vector = np.asarray(loss_vector, dtype=np.float64)
        norm = self.norm_of(domain)
        if norm == "range":
            return float(vector.max() - vector.min()) ** 2
        return float(np.linalg.norm(vector, ord=norm)) ** 2

    def scale_for(self, regularizer, centre) -> float:
        """:math:`c` for this regularizer and centre."""
        if self.scale is not None:
            return float(self.scale)
        if isinstance(regularizer, Entropy):
            return math.sqrt(max(float(np.max(-np.log(centre))), math.log(2.0)) if centre.size > 1 else 1.0)
        return 1.0


class AdaptiveFTRLState(NamedTuple):
    """The weighted loss sum's linear part, the summed squared loss norms, the centre and the round."""

    loss_sum: np.ndarray
    squared_norms: float
    centre: np.ndarray
    round: int = 1


def _check_regularizer(instance, attribute, value):
    if not isinstance(value, Regularizer):
        raise TypeError(f"regularizer must be a gamedyn Regularizer (Entropy(), SquaredEuclidean(), QNorm(q)), "
                        f"got {type(value).__name__}.")


@attrs.frozen
class AdaptiveFTRL:
    r"""FTRL with the AdaGrad-style step of :class:`AdaptiveStep`, for any regularizer (see the module docstring).

    Linear losses (a loss with curvature is linearised at the play). Moves in either seat, never
    needs its round's loss.

    Parameters
    ----------
    regularizer : Regularizer
        Entropy(), SquaredEuclidean(...), QNorm(q), ...
    step : AdaptiveStep
        The rule for :math:`\eta_t` (default ``AdaptiveStep()``).
    centre : array_like or None
        :math:`z_0` (default: the domain's centre).

    Examples
    --------
    >>> import numpy as np
    >>> from gamedyn.core import Entropy, Loss
    >>> learner = AdaptiveFTRL(Entropy())
    >>> state = learner.update(learner.init(2), np.array([0.5, 0.5]), Loss(np.array([1.0, 0.0])), 1.0)
    >>> learner.play(state, 1.0).round(6).tolist()   # eta_2 = sqrt(ln 2) / 1
    [0.303105, 0.696895]
    """

    regularizer: Regularizer = attrs.field(validator=_check_regularizer)
    step: AdaptiveStep = attrs.field(factory=AdaptiveStep)
    centre: object = attrs.field(default=None, kw_only=True, eq=False)

    needs_current_loss = False
    sees_induced_loss = False

    @property
    def domain(self):
        """The regularizer's domain: where the plays lie."""
        return self.regularizer.domain

    @property
    def plays_in_domain(self) -> bool:
        """True for the built-in regularizers (their argmin is a point of the domain); a user's is not trusted."""
        return type(self.regularizer).__module__ == "gamedyn.core.regularizers"

    def init(self, dimension: int, initial_loss: Loss | None = None) -> AdaptiveFTRLState:
        dimension = _check_dimension(self, dimension, initial_loss)
        domain = self.regularizer.domain
        centre = domain.default_centre(dimension) if self.centre is None else np.asarray(self.centre, dtype=np.float64)
        if centre.shape != (dimension,) or not domain.contains(centre):
            raise ValueError(f"centre must be a point of {domain!r} of length {dimension}.")
        return AdaptiveFTRLState(np.zeros(dimension), 0.0, centre, 1)

    def play(self, state, weight, current_loss=None):
        return AdaptiveFTRLPlayer(self, state).play(weight)

    def update(self, state, point, loss, weight, **_):
        player = AdaptiveFTRLPlayer(self, state._replace(loss_sum=state.loss_sum.copy()))
        player.update(point, loss, weight)
        return player.state

    def player(self, state) -> AdaptiveFTRLPlayer:
        """The runner's mutable form (the loss sum updated in place)."""
        return AdaptiveFTRLPlayer(self, state)


class AdaptiveFTRLPlayer:
    """:class:`AdaptiveFTRL` as the mutable object :func:`gamedyn.play` runs (the loss sum updated in place)."""

    __slots__ = (
        "_argmin",
        "_cache",
        "_domain",
        "_scale",
        "_size",
        "centre",
        "learner",
        "linear_sum",
        "round",
        "squared_norms",
    )

    def __init__(self, learner, state: AdaptiveFTRLState):
        self.learner = learner
        self.linear_sum = np.array(state.loss_sum, dtype=np.float64)
        self.squared_norms, self.centre, self.round = float(state.squared_norms), state.centre, int(state.round)
        regularizer = learner.regularizer
        self._argmin, self._cache = regularizer.argmin_with_cache, regularizer.centre_cache(self.centre)
        self._scale = learner.step.scale_for(regularizer, self.centre)
        self._size, self._domain = learner.step.size, regularizer.domain

    def rate(self) -> float:
        r""":math:`\eta_t=c/\sqrt{\sum_{s<t}\|\alpha_s\ell_s\|_*^2}` (``math.inf`` while the sum is 0)."""
        return math.inf if self.squared_norms == 0.0 else self._scale / math.sqrt(self.squared_norms)

    def play(self, weight, current_loss=None):
        if self.squared_norms == 0.0:
            return self.centre.copy()
        return self._argmin(self.linear_sum, 0.0, self._scale / math.sqrt(self.squared_norms), self.centre,
                            self._cache)

    def update(self, point, loss, weight, induced_loss=None) -> None:
        linear = _linear_part(loss, point)
        axpy(np.ascontiguousarray(linear, dtype=np.float64), self.linear_sum, weight)
        self.squared_norms += weight * weight * self._size(linear, self._domain)
        self.round += 1

    def loss_sum(self):
        return None

    @property
    def state(self) -> AdaptiveFTRLState:
        """The current :class:`AdaptiveFTRLState` (a view: it shares the loss sum array)."""
        return AdaptiveFTRLState(self.linear_sum, self.squared_norms, self.centre, self.round)
