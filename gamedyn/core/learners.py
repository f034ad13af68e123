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

import math
import weakref
from collections.abc import Callable
from typing import Any, NamedTuple

import attrs
import numpy as np

from gamedyn.core.adaptive import AdaptiveStep
from gamedyn.core.hints import CurrentLoss, LastLoss, NoHint
from gamedyn.core.kernels import add_scaled, axpy, backend_of, is_foreign, is_numpy, is_python_float, plus_scaled
from gamedyn.core.loss import Loss
from gamedyn.core.protocols import declared
from gamedyn.core.regularizers import Regularizer, Zero
from gamedyn.core.validation import check_positive, check_vector
from gamedyn.core.weights import StepSchedule, step_kind



_ARGMINS = ("argmin", "argmin_with_cache", "argmin_and_cache", "argmin_of_loss")  # what a regularizer's declarations vouch for
_ORACLES = ("contains", "project", "linear_minimizer", "minimize_quadratic")  # what a domain's exact_oracles vouches for


# ------------------------------------------------ a regularizer's optional members, with their defaults
# (gamedyn.Regularizer: only domain and argmin are required; each optional member is read here, once)


def centre_cache_of(regularizer, centre):
    """``regularizer.centre_cache(centre)``, or None (nothing to reuse) for a regularizer without one."""
    cache = getattr(regularizer, "centre_cache", None)
    return None if cache is None else cache(centre)


def argmin_with_cache_of(regularizer):
    """``regularizer.argmin_with_cache``, or its ``argmin`` ignoring the cache."""
    method = getattr(regularizer, "argmin_with_cache", None)
    if method is not None:
        return method
    argmin = regularizer.argmin

    def argmin_with_cache(linear, curvature, eta, centre, cache):
        return argmin(linear, curvature, eta, centre)

    return argmin_with_cache


def argmin_and_cache_of(regularizer):
    """``regularizer.argmin_and_cache``, or the argmin followed by its point's cache."""
    method = getattr(regularizer, "argmin_and_cache", None)
    if method is not None:
        return method
    argmin = argmin_with_cache_of(regularizer)

    def argmin_and_cache(linear, curvature, eta, centre, cache):
        point = argmin(linear, curvature, eta, centre, cache)
        return point, centre_cache_of(regularizer, point)

    return argmin_and_cache


def argmin_of_loss_of(regularizer):
    """``regularizer.argmin_of_loss``, or a refusal naming the fix."""
    method = getattr(regularizer, "argmin_of_loss", None)
    if method is not None:
        return method

    def refuse(loss, eta, centre):
        raise ValueError(f"{type(regularizer).__name__} has no argmin_of_loss for a loss whose curvature multiplies "
                         f"{loss.convex!r}; use a learner without regularizer for this player (FTL(), OFTL(), BestResponse).")

    return refuse


def mirror_step_is_argmin(regularizer) -> bool:
    """Whether the regularizer's mirror step (``argmin_and_cache``) is its argmin followed by the point's
    ``centre_cache``: true when it has no ``argmin_and_cache`` of its own or inherits the base's
    (:meth:`gamedyn.Regularizer.argmin_and_cache`); an own step (entropy's, in the log domain) may differ in the last bits."""
    step = getattr(regularizer.__class__, "argmin_and_cache", None)
    return step is None or step is Regularizer.argmin_and_cache


def hint_guess(hint):
    """What ``hint.predict`` returns, as the hint declares it (``"none"``, ``"last"``, ``"current"``; None: custom)."""
    return declared(hint, "guess", ("predict", "update", "init"), None)


def hint_is_stateless(hint) -> bool:
    """Whether the hint declares that its state is always None (``stateless = True``)."""
    return declared(hint, "stateless", ("init", "update"), False) is True


def _check_regularizer(instance, attribute, value):
    if not isinstance(value, Regularizer):
        raise TypeError(
            f"regularizer must be a gamedyn Regularizer (Entropy(), SquaredEuclidean(), QNorm(q), "
            f"Zero(domain)), got {type(value).__name__}."
        )


def _check_hint(instance, attribute, value):
    if not all(hasattr(value, name) for name in ("init", "predict", "update")):
        raise TypeError(f"hint must have init, predict and update methods (see gamedyn.core.hints), got {value!r}.")


ADAPTIVE = "adaptive"  # eta="adaptive": the AdaGrad-style step AdaptiveStep() (gamedyn.core.adaptive)


def _as_step(value):
    """eta: a number, an array (one step per batched game), a schedule (a list, tuple or callable), or
    ``"adaptive"`` / an :class:`gamedyn.AdaptiveStep` (the AdaGrad-style step, FTRL family only)."""
    if isinstance(value, str):
        if value != ADAPTIVE:
            raise ValueError(f"eta must be a positive number, a schedule (a list or a callable t -> eta_t), an array of "
                             f"steps, \"adaptive\" (the AdaGrad-style step AdaptiveStep()) or an AdaptiveStep(scale, "
                             f"norm); got the string {value!r}.")
        return AdaptiveStep()
    if isinstance(value, (list, tuple)) or (callable(value) and not isinstance(value, StepSchedule)):
        return StepSchedule(value)
    if isinstance(value, np.floating) and np.ndim(value) == 0:  # a numpy scalar: the same number, usable by any namespace
        return float(value)
    return value


def _step_at(eta, t: int):
    """eta_t: the schedule's value at the learner's round t, else the constant (or per-game) step."""
    return eta(t) if step_kind(eta) == "schedule" else eta


def _check_eta(instance, attribute, value):
    if isinstance(value, StepSchedule):
        return
    if isinstance(value, AdaptiveStep):
        if not isinstance(instance, FollowTheRegularizedLeader):
            raise ValueError(f"eta=\"adaptive\" (AdaptiveStep) is the FTRL family's step (FTRL, OFTRL, FTRLPlus, "
                             f"FollowTheRegularizedLeader); {type(instance).__name__} takes a number or a schedule "
                             f"(a list or a callable t -> eta_t).")
        return
    if isinstance(value, np.ndarray):  # a sweep: one step per batched game
        if value.ndim != 1 or value.size == 0 or not np.all(np.isfinite(value)) or np.any(value <= 0):
            raise ValueError(f"eta as an array must be 1-D, one positive finite step per batched game; got {value!r}.")
        return
    check_positive(value, "eta")


def _check_batch_of_steps(learner, initial_loss: Loss):
    """An array of K steps needs K batched games (else it would broadcast against the wrong axis); the
    adaptive step plays one game (its rate is one number per run)."""
    if isinstance(learner.eta, AdaptiveStep) and initial_loss.linear.ndim != 1:
        raise ValueError(f"eta=\"adaptive\" plays one game at a time; the losses have shape {initial_loss.linear.shape} "
                         f"(batched games). Run the games one by one, or pass a number or an array of steps.")
    if isinstance(learner.eta, np.ndarray) and initial_loss.linear.shape[1:] != learner.eta.shape:
        raise ValueError(
            f"eta holds {learner.eta.size} steps (a sweep) but the losses have shape {initial_loss.linear.shape}; "
            f"play K = {learner.eta.size} batched games, e.g. Bilinear(gamedyn.shared_matrix(A, {learner.eta.size}))."
        )


def _on_backend(backend, centre):
    """The centre on the run's backend (a numpy centre copied to its device once, at init)."""
    if backend.is_numpy or is_foreign(centre):
        return centre
    return backend.asarray(centre)


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

    # the attrs fields every subclass declares (annotations only: no attribute is created here)
    regularizer: Any
    hint: Any
    eta: Any
    centre: Any

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

        Declared, not inferred from types: the regularizer declares ``plays_in_domain = True`` (its
        argmin lands in its domain whenever the domain's oracles do: the built-in closed forms) and
        the domain declares ``exact_oracles = True`` (``project``, ``linear_minimizer`` and
        ``minimize_quadratic`` return points of the set: the built-in domains). Both default to
        False, so a regularizer or domain of the user's is checked each round; a subclass of a
        built-in inherits the declaration (one that changes its argmin or oracles must set it to
        False).
        """
        regularizer = self.regularizer
        return (declared(regularizer, "plays_in_domain", _ARGMINS, False) is True
                and declared(regularizer.domain, "exact_oracles", _ORACLES, False) is True)

    def started_at(self, centre):
        """This learner, of the same class, with its start z_0 set to ``centre`` (``play``'s ``initial_w``
        / ``initial_p``): a new object, this one is unchanged."""
        return attrs.evolve(self, centre=centre)  # type: ignore[misc]  # a mixin: every subclass is an attrs class

    def _arguments(self) -> list:
        """The repr's arguments after the regularizer (a learner name's own signature)."""
        return [f"eta={self.eta!r}"]

    def _centre_argument(self) -> list:
        return [] if self.centre is None else [f"centre={self.centre!r}"]



def _batched_centre(learner, centre, initial_loss: Loss):
    """The centre with trailing unit axes, so that it broadcasts against batched losses (dim, K)."""
    extra = initial_loss.linear.ndim - centre.ndim
    if extra <= 0:
        return centre
    if not getattr(learner.regularizer, "supports_batches", False):
        raise ValueError(
            f"{type(learner.regularizer).__name__} on {learner.regularizer.domain!r} cannot play batched games "
            f"(its argmin projects whole vectors); run these games one at a time, or use a regularizer "
            f"with supports_batches = True (Entropy, QNorm, or one on Reals)."
        )
    if is_foreign(centre):  # the standard's reshape is a function of the namespace, not a method
        return backend_of(centre).xp.reshape(centre, tuple(centre.shape) + (1,) * extra)
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
    squared_norms: float = 0.0  # sum_{s<t} ||alpha_s l_s||_*^2, for eta="adaptive" (else stays 0)


_UNREAD = object()


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
                 "round", "_guessed", "_predict", "_hint_update", "_argmin", "_eta", "_step_kind", "_hint_keeps_state",
                 "_hint_sees_induced", "_hint_is_last_loss", "_hint_is_none", "_argmin_of_loss", "_vertex_index",
                 "squared_norms", "_adaptive_scale", "_adaptive_size")

    def __init__(self, learner, state: FTRLState, *, copy: bool = False):
        self.learner = learner
        loss_sum = state.loss_sum
        linear = loss_sum.linear
        if not is_numpy(linear) and is_foreign(linear):  # a torch, JAX, ... sum: its own copy
            if copy:
                linear = backend_of(linear).xp.asarray(linear, copy=True)
        elif copy or not (is_numpy(linear) and linear.dtype == np.float64 and linear.flags.c_contiguous
                          and linear.flags.writeable):  # the buffer update() adds to in place
            linear = np.array(linear, dtype=np.float64)
        self.linear_sum = linear
        self.curvature_sum, self.convex = loss_sum.curvature, loss_sum.convex
        self.centre, self.hint_state, self.centre_cache, self.round = (state.centre, state.hint_state,
                                                                     state.centre_cache, state.round)
        self._guessed: tuple | None = None
        hint = learner.hint
        self._predict, self._hint_update = hint.predict, hint.update
        self._hint_keeps_state = not hint_is_stateless(hint)  # declared (gamedyn.core.hints)
        self._hint_is_last_loss = hint_guess(hint) == "last"  # psi_t = f_{t-1}: the guess is the state
        self._hint_is_none = hint_guess(hint) == "none"  # psi_t = 0 (NoHint): no predict call a round
        self._hint_sees_induced = bool(getattr(hint, "sees_induced_loss", False))
        self._argmin = argmin_with_cache_of(learner.regularizer)
        self._argmin_of_loss = argmin_of_loss_of(learner.regularizer)
        self._eta = eta = learner.eta
        self._step_kind = kind = step_kind(eta)  # declared by the step: "schedule", "adaptive" or "constant"
        self.squared_norms = float(state.squared_norms)
        if kind == "adaptive":  # eta_t = c / sqrt(sum_{s<t} ||alpha_s l_s||_*^2), as AdaptiveFTRL
            self._adaptive_scale = eta.scale_for(learner.regularizer, np.asarray(self.centre))
            domain = learner.regularizer.domain

            def size(vector, _size=eta.size, _domain=domain):
                return _size(vector, _domain)

            self._adaptive_size = size
        self._vertex_index: Any = _UNREAD  # read at the first vertex() call (a pure play() never asks)

    def play(self, weight: float, current_loss: Loss | None = None):
        eta, kind = self._eta, self._step_kind
        if kind == "schedule":
            eta = eta(self.round)
        elif kind == "adaptive":
            if self.squared_norms == 0.0:  # eta_t = inf before any loss of positive norm: the start z_0
                self._guessed = None
                return np.array(self.centre, dtype=np.float64)
            eta = self._adaptive_scale / math.sqrt(self.squared_norms)
        if self._hint_is_last_loss:
            guess = self.hint_state
        else:
            guess = None if self._hint_is_none else self._predict(self.hint_state, current_loss)
        if guess is None:
            linear, curvature, convex = self.linear_sum, self.curvature_sum, self.convex
        else:
            linear, other = self.linear_sum, guess.linear
            if (is_numpy(other) and other.ndim == 1 and is_python_float(weight)
                    and other.shape == linear.shape):  # a copy and one BLAS axpy (plus_scaled, inlined)
                linear = linear.copy()
                axpy(other, linear, weight)
            else:
                linear = plus_scaled(linear, weight, other)
            curvature = self.curvature_sum + weight * guess.curvature
            convex = self.convex if self.convex is guess.convex else _convex_of_sum(self, guess, weight)
            self._guessed = (guess, weight, linear, curvature, convex)
        if convex is not None:  # curvature times a convex function other than 1/2 ||.||^2 (see Loss)
            return self._argmin_of_loss(Loss(linear, curvature, convex), eta, self.centre)
        return self._argmin(linear, curvature, eta, self.centre, self.centre_cache)

    def vertex(self, weight: float, current_loss: Loss | None = None) -> int | None:
        r"""The index i of this round's play :math:`z_t=e_i`, without forming it; None when the play is not
        known to be a vertex (the learner does not declare :attr:`FollowTheRegularizedLeader.plays_vertices`,
        or the summed loss has curvature: then :meth:`play`).

        The same sum as :meth:`play`, :math:`\sum_{s<t}\alpha_sf_s+\alpha_t\psi_t`, and its smallest entry's
        index (ties to the smallest, :meth:`gamedyn.Simplex.vertex_index`), so :meth:`play` would return
        :math:`e_i` bit for bit; :meth:`update` then takes :math:`e_i` as the point.
        """
        vertex_index = self._vertex_index
        if vertex_index is _UNREAD:
            vertex_index = self._vertex_index = vertex_index_of(self.learner)
        if vertex_index is None or (self._step_kind == "adaptive" and self.squared_norms == 0.0):
            return None  # (the adaptive step's first play is the start z_0, not a vertex)
        if self.curvature_sum or self.convex is not None:
            return None  # a curved sum: its minimiser need not be a vertex (play() then)
        if self._hint_is_last_loss:
            guess = self.hint_state
        else:
            guess = None if self._hint_is_none else self._predict(self.hint_state, current_loss)
        if guess is None:
            linear = self.linear_sum
        else:  # the sum play() forms; not kept for update() (which adds its loss itself, the same bits)
            if guess.curvature or guess.convex is not None:
                return None
            linear, other = self.linear_sum, guess.linear
            if (is_numpy(other) and other.ndim == 1 and is_python_float(weight)
                    and other.shape == linear.shape):
                if weight == 1.0 and other.dtype == linear.dtype:  # y + 1.0 x: the axpy's own bits, in one pass
                    linear = linear + other
                else:
                    linear = linear.copy()
                    axpy(other, linear, weight)
            else:
                linear = plus_scaled(linear, weight, other)
        if not is_numpy(linear) or linear.ndim != 1:
            return None
        return vertex_index(linear)

    def update(self, point, loss: Loss, weight: float, induced_loss: Loss | None = None) -> None:
        guessed = self._guessed
        if guessed is not None and guessed[0] is loss and guessed[1] == weight:
            _, _, self.linear_sum, self.curvature_sum, self.convex = guessed  # play formed this very sum
        else:
            if self.convex is not loss.convex:
                self.convex = _convex_of_sum(self, loss, weight)
            other = loss.linear
            if (is_numpy(other) and other.ndim == 1 and is_python_float(weight)
                    and other.shape == self.linear_sum.shape):  # our own float64 buffer: axpy in place
                axpy(other, self.linear_sum, weight)
            else:
                self.linear_sum = add_scaled(self.linear_sum, weight, other)
            self.curvature_sum += weight * loss.curvature
        self._guessed = None
        if self._step_kind == "adaptive":  # the norm of the loss's gradient at the play (its linear part)
            linear = loss.linear if loss.curvature == 0.0 and loss.convex is None else loss.gradient(point)
            self.squared_norms += weight * weight * self._adaptive_size(linear)
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
        """The linear part of the weighted loss sum, without building a :class:`gamedyn.Loss`."""
        return self.linear_sum

    @property
    def state(self) -> FTRLState:
        """The pure state this player is at (sharing the loss-sum buffer)."""
        return FTRLState(self.loss_sum(), self.centre, self.hint_state, self.centre_cache, [None], self.round,
                         self.squared_norms)


def vertex_index_of(learner):
    """The domain's ``vertex_index`` when ``learner`` declares :attr:`FollowTheRegularizedLeader.plays_vertices`, else None."""
    if declared(learner, "plays_vertices", ("play", "player"), False) is not True:
        return None
    return learner.regularizer.domain.vertex_index


def _convex_of_sum(player, loss: Loss, weight):
    """The convex term phi of (the player's sum) + weight * loss (see :meth:`Loss.plus_scaled`)."""
    return Loss(player.linear_sum, player.curvature_sum, player.convex)._convex_of_sum(loss, weight)


@attrs.frozen
class FollowTheRegularizedLeader(_RegularizedLearner):
    r"""The FTRL-family rule with a pluggable regularizer, step eta and hint (see module docstring).

    Its state's ``loss_sum`` is the weighted loss sum; :meth:`loss_sum` hands it to the runner, so
    the runner keeps no copy of its own.

    Parameters
    ----------
    regularizer : Regularizer
        R: ``Entropy()``, ``SquaredEuclidean(radius)``, ``QNorm(q)``, ``Zero(domain)`` ...; its domain is the learner's.
    eta : float, callable or "adaptive", default 1.0
        The step eta > 0, one step per batched game (an array), or a schedule (a list, or a callable
        t -> eta_t; :class:`gamedyn.StepSchedule`).
        ``eta="adaptive"`` (or an explicit :class:`gamedyn.AdaptiveStep` ``(scale, norm)``) is the
        AdaGrad-style step :math:`\eta_t=c/\sqrt{\sum_{s<t}\|\alpha_s\ell_s\|_*^2}` (the norms of the
        losses' gradients at the plays; :math:`z_t=z_0` while the sum is 0), one game at a time: with no
        hint this is :class:`gamedyn.AdaptiveFTRL`, whose regret bound (11) of
        docs/explanation/regret-matching-bounds.md it keeps; any other string raises a ``ValueError``.
    hint : Hint, default NoHint()
        The optimistic guess psi_t (:class:`gamedyn.LastLoss`, :class:`gamedyn.CurrentLoss` ...).
    centre : array_like, optional
        z_0, the centre of the Bregman term and the round-1 play without a hint (default: the domain's centre;
        ``play(initial_w=..., initial_p=...)`` sets it).
    """

    regularizer: Regularizer = attrs.field(validator=_check_regularizer)
    eta: float = attrs.field(default=1.0, converter=_as_step, validator=_check_eta)
    hint: Any = attrs.field(factory=NoHint, validator=_check_hint)
    centre: Any = attrs.field(default=None, kw_only=True, eq=False)

    def init(self, dimension: int, initial_loss: Loss | None = None) -> FTRLState:
        initial_loss = Loss.zero(dimension) if initial_loss is None else initial_loss
        backend = backend_of(initial_loss.linear)  # the run's namespace and device (numpy for numpy losses)
        centre = _batched_centre(self, _on_backend(backend, _resolve_centre(self, dimension)), initial_loss)
        _check_batch_of_steps(self, initial_loss)
        return FTRLState(Loss(backend.zeros(tuple(initial_loss.linear.shape)), 0.0), centre,
                         self.hint.init(dimension, initial_loss), centre_cache_of(self.regularizer, centre), [None])

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

    @property
    def plays_vertices(self) -> bool:
        r"""True when every play on a linear loss sum is a vertex :math:`e_i` of the domain, read as its index.

        Declared by the parts, never inferred from types: the regularizer declares
        ``argmin_is_best_response = True`` (its argmin of a linear loss is the domain's minimiser:
        :class:`gamedyn.Zero`, i.e. FTL / fictitious play) and the domain declares
        ``vertex_index(linear)`` (:meth:`gamedyn.Simplex.vertex_index`, the vertex its linear minimiser
        returns, ties to the smallest index). The player's ``vertex(weight)`` then gives i, and
        :func:`gamedyn.play` hands the opponent the loss of :math:`e_i` as a row or column read of the
        payoff matrix (:meth:`gamedyn.Bilinear.vertex_losses`) instead of a product: a best response
        costs O(n) a round, not O(mn). A subclass keeps it; one that changes :meth:`play` or
        :meth:`player` loses it.
        """
        regularizer = self.regularizer
        if declared(regularizer, "argmin_is_best_response", _ARGMINS, False) is not True:
            return False
        domain = regularizer.domain
        return (not self.hint.needs_current_loss
                and callable(declared(domain, "vertex_index", ("minimize_quadratic", "linear_minimizer"), None)))

    def vertex_form(self) -> "VertexForm | None":
        r"""The play as a vertex read off the loss sum, :math:`z_t=e_i`, :math:`i=\arg\min_i(L_{t-1}+\alpha_t\psi_t)_i`,
        or None: what the lean vertex round (:class:`gamedyn.engine.rounds.VertexRound`) needs to play
        fictitious play without a player object. Declared by the parts: :attr:`plays_vertices`, a hint
        whose ``guess`` is ``"none"`` (:math:`\psi_t=0`) or ``"initial"`` (:math:`\psi_t=f_0` every round,
        :class:`gamedyn.games.matrix.InitialBelief`), and a constant or scheduled step (the adaptive
        step's first play is its start, not a vertex). A subclass keeps it; one that changes
        :meth:`play` or :meth:`update` must return None.
        """
        if not self.plays_vertices or isinstance(self.eta, AdaptiveStep):
            return None
        guess = hint_guess(self.hint)
        if guess not in ("none", "initial"):
            return None
        return VertexForm(vertex_index_of(self), guess)

    def softmax_play(self, dimension: int) -> "SoftmaxPlay | None":
        r"""The play as eq. (5)'s softmax, :math:`z_t=\mathrm{softmax}(\log z_0-\eta_t(L_{t-1}+\alpha_t\psi_t))`,
        or None: what the one-pass rounds (:mod:`gamedyn.engine.rounds`) need to fuse the play with
        the products. Declared by the parts: a regularizer with ``argmin_is_softmax`` (Entropy), a
        hint whose ``guess`` is ``"current"`` or ``"last"``, and a constant or scheduled step (a
        sweep of steps gives None). A subclass keeps it; one that changes :meth:`play` must return None.
        """
        if declared(self.regularizer, "argmin_is_softmax", _ARGMINS + ("centre_cache",), False) is not True:
            return None
        guess = hint_guess(self.hint)
        if guess not in ("current", "last"):
            return None
        eta = self.eta
        eta_at: Callable[[int], float]
        if isinstance(eta, StepSchedule):
            eta_at = eta
        elif isinstance(eta, (int, float, np.floating)) and not isinstance(eta, bool):
            value = float(eta)

            def eta_at(t, value=value):
                return value
        else:
            return None
        centre = self.domain.default_centre(dimension) if self.centre is None else np.asarray(self.centre, dtype=np.float64)
        return SoftmaxPlay(centre_cache_of(self.regularizer, centre), eta_at, guess)

    def leader_form(self) -> "LeaderForm | None":
        r"""The play as the losses' own minimiser, :math:`z_t=\arg\min_Z\big(L_{t-1}+\alpha_t\psi_t\big)`
        (no Bregman term), or None: what the lean Fenchel round (:class:`gamedyn.engine.rounds.ConjugateRound`)
        needs to play follow-the-leader without a player object. Declared by the parts: a regularizer
        with ``argmin_is_loss_oracle = True`` (:class:`gamedyn.Zero`: FTL, OFTL) and a hint whose
        ``guess`` is ``"none"``, ``"last"`` (OFTL) or ``"first"`` (:class:`gamedyn.FirstRoundLoss`). A
        subclass keeps it; one that changes :meth:`play` or :meth:`update` must return None.
        """
        if declared(self.regularizer, "argmin_is_loss_oracle", ("argmin_of_loss", "argmin_with_cache"), False) is not True:
            return None
        guess = hint_guess(self.hint)
        if guess not in ("none", "last", "first"):
            return None
        return LeaderForm(self.regularizer.domain, guess)


def _zero(domain):
    return Zero() if domain is None else Zero(domain)


def _domain_argument(learner) -> list:
    domain = learner.regularizer.domain
    return [] if domain == Zero().domain else [repr(domain)]


@attrs.frozen(init=False, repr=False)
class FTL(FollowTheRegularizedLeader):
    """Follow the leader: z_t = argmin_z sum_{i<t} alpha_i f_i(z) (the loss must fix a unique minimiser).

    ``FTL(domain=None)`` is :class:`FollowTheRegularizedLeader` with the zero regularizer on
    ``domain`` (default R^d) and no hint.

    Parameters
    ----------
    domain : Domain, optional
        The set played on (default ``Reals()``).

    Examples
    --------
    >>> from gamedyn import FTL, Ball, FollowTheRegularizedLeader
    >>> learner = FTL(Ball(1.0))
    >>> learner, isinstance(learner, FollowTheRegularizedLeader)
    (FTL(Ball(radius=1.0)), True)
    """

    def __init__(self, domain=None):
        self.__attrs_init__(_zero(domain), 1.0, NoHint())

    def started_at(self, centre):
        return self  # no regularizer, no start of its own: initial_w / initial_p only shape the opponent's f_0

    def __repr__(self):
        return f"FTL({', '.join(_domain_argument(self))})"


@attrs.frozen(init=False, repr=False)
class OFTL(FollowTheRegularizedLeader):
    """Optimistic FTL: z_t = argmin_z sum_{i<t} alpha_i f_i(z) + alpha_t psi_t(z), psi_t = f_{t-1} by default.

    ``OFTL(domain=None, hint=None)``: the zero regularizer on ``domain`` (default R^d) and ``hint``
    (default :class:`gamedyn.LastLoss`).

    Parameters
    ----------
    domain : Domain, optional
        The set played on (default ``Reals()``).
    hint : Hint, optional
        psi_t (default :class:`gamedyn.LastLoss`: psi_t = f_{t-1}).
    """

    def __init__(self, domain=None, hint=None):
        self.__attrs_init__(_zero(domain), 1.0, LastLoss() if hint is None else hint)

    def started_at(self, centre):
        return self  # no regularizer, no start of its own: initial_w / initial_p only shape the opponent's f_0

    def __repr__(self):
        arguments = _domain_argument(self) + ([] if self.hint == LastLoss() else [f"hint={self.hint!r}"])
        return f"OFTL({', '.join(arguments)})"


@attrs.frozen(init=False, repr=False)
class FTRL(FollowTheRegularizedLeader):
    r"""FTRL: z_t = argmin_z eta sum_{i<t} alpha_i f_i(z) + D_R(z, z_0) (no hint).

    Parameters
    ----------
    regularizer : Regularizer
        R: ``Entropy()``, ``SquaredEuclidean(radius)``, ``QNorm(q)``, ``Zero(domain)`` ...; its domain is the learner's.
    eta : float, callable or "adaptive", default 1.0
        The step eta > 0, one step per batched game (an array), or a schedule (a list, or a callable
        t -> eta_t; :class:`gamedyn.StepSchedule`).
        ``eta="adaptive"`` (or an explicit :class:`gamedyn.AdaptiveStep` ``(scale, norm)``) is the
        AdaGrad-style step :math:`\eta_t=c/\sqrt{\sum_{s<t}\|\alpha_s\ell_s\|_*^2}` (the norms of the
        losses' gradients at the plays; :math:`z_t=z_0` while the sum is 0), one game at a time: with no
        hint this is :class:`gamedyn.AdaptiveFTRL`, whose regret bound (11) of
        docs/explanation/regret-matching-bounds.md it keeps; any other string raises a ``ValueError``.
    centre : array_like, optional
        z_0, the centre of the Bregman term and the round-1 play without a hint (default: the domain's centre;
        ``play(initial_w=..., initial_p=...)`` sets it).

    Examples
    --------
    >>> from gamedyn import FTRL, Entropy
    >>> FTRL(Entropy(), 0.5)
    FTRL(Entropy(), eta=0.5)
    """

    def __init__(self, regularizer: Regularizer, eta: float = 1.0, *, centre=None):
        self.__attrs_init__(regularizer, eta, NoHint(), centre=centre)

    def started_at(self, centre):
        return type(self)(self.regularizer, self.eta, centre=centre)

    def __repr__(self):
        return f"FTRL({', '.join([repr(self.regularizer), *self._arguments(), *self._centre_argument()])})"


@attrs.frozen(init=False, repr=False)
class FTRLPlus(FollowTheRegularizedLeader):
    r"""FTRL+: z_t = argmin_z eta sum_{i<=t} alpha_i f_i(z) + D_R(z, z_0); sees f_t, so it must move second.

    ``regularizer=None`` is FTRL+ with no regularizer (the w-player of Algorithm 3).

    Parameters
    ----------
    regularizer : Regularizer or None, default None
        R (None: no regularizer, the plain best response to sum_(i<=t) alpha_i f_i).
    eta : float, callable or "adaptive", default 1.0
        The step eta > 0, or a schedule t -> eta_t.
        ``eta="adaptive"`` (or an explicit :class:`gamedyn.AdaptiveStep` ``(scale, norm)``) is the
        AdaGrad-style step :math:`\eta_t=c/\sqrt{\sum_{s<t}\|\alpha_s\ell_s\|_*^2}` (the norms of the
        losses' gradients at the plays; :math:`z_t=z_0` while the sum is 0), one game at a time: with no
        hint this is :class:`gamedyn.AdaptiveFTRL`, whose regret bound (11) of
        docs/explanation/regret-matching-bounds.md it keeps; any other string raises a ``ValueError``.
    centre : array_like, optional
        z_0, the centre of the Bregman term and the round-1 play without a hint (default: the domain's centre;
        ``play(initial_w=..., initial_p=...)`` sets it).
    """

    def __init__(self, regularizer: Regularizer | None = None, eta: float = 1.0, *, centre=None):
        self.__attrs_init__(Zero() if regularizer is None else regularizer, eta, CurrentLoss(), centre=centre)

    def started_at(self, centre):
        return type(self)(self.regularizer, self.eta, centre=centre)

    def __repr__(self):
        arguments = [] if self.regularizer == Zero() else [repr(self.regularizer)]
        if arguments or self.eta != 1.0:
            arguments += self._arguments()
        return f"FTRLPlus({', '.join(arguments + self._centre_argument())})"


@attrs.frozen(init=False, repr=False)
class OFTRL(FollowTheRegularizedLeader):
    r"""Optimistic FTRL: z_t = argmin_z eta(sum_{i<t} alpha_i f_i(z) + alpha_t psi_t(z)) + D_R(z, z_0), psi_t = f_{t-1} by default.

    Parameters
    ----------
    regularizer : Regularizer
        R: ``Entropy()``, ``SquaredEuclidean(radius)``, ``QNorm(q)``, ``Zero(domain)`` ...; its domain is the learner's.
    eta : float, callable or "adaptive", default 1.0
        The step eta > 0, one step per batched game (an array), or a schedule (a list, or a callable
        t -> eta_t; :class:`gamedyn.StepSchedule`).
        ``eta="adaptive"`` (or an explicit :class:`gamedyn.AdaptiveStep` ``(scale, norm)``) is the
        AdaGrad-style step :math:`\eta_t=c/\sqrt{\sum_{s<t}\|\alpha_s\ell_s\|_*^2}` (the norms of the
        losses' gradients at the plays; :math:`z_t=z_0` while the sum is 0), one game at a time: with no
        hint this is :class:`gamedyn.AdaptiveFTRL`, whose regret bound (11) of
        docs/explanation/regret-matching-bounds.md it keeps; any other string raises a ``ValueError``.
    hint : Hint, optional
        psi_t (default :class:`gamedyn.LastLoss`: psi_t = f_(t-1)).
    centre : array_like, optional
        z_0, the centre of the Bregman term and the round-1 play without a hint (default: the domain's centre;
        ``play(initial_w=..., initial_p=...)`` sets it).
    """

    def __init__(self, regularizer: Regularizer, eta: float = 1.0, hint=None, *, centre=None):
        self.__attrs_init__(regularizer, eta, LastLoss() if hint is None else hint, centre=centre)

    def started_at(self, centre):
        return type(self)(self.regularizer, self.eta, self.hint, centre=centre)

    def __repr__(self):
        hint = [] if self.hint == LastLoss() else [f"hint={self.hint!r}"]
        return f"OFTRL({', '.join([repr(self.regularizer), *self._arguments(), *hint, *self._centre_argument()])})"


@attrs.frozen
class SoftmaxPlay:
    """A learner's declaration that its play is a softmax of its loss sum (:meth:`FollowTheRegularizedLeader.softmax_play`).

    ``log_centre``: log z_0 up to a constant (None: the uniform centre); ``eta_at``: t -> eta_t at the
    learner's round t; ``guess``: ``"current"`` (FTRL+: psi_t = f_t) or ``"last"`` (OFTRL: psi_t = f_{t-1}).
    """

    log_centre: Any = attrs.field(eq=False)
    eta_at: Any = attrs.field(eq=False)
    guess: str = attrs.field(validator=attrs.validators.in_(("current", "last")))


@attrs.frozen
class LeaderForm:
    r"""A learner's declaration that it follows the leader on its losses' own oracle
    (:meth:`FollowTheRegularizedLeader.leader_form`): round t's play is
    ``Loss(L_{t-1} + alpha_t psi_t).minimize_over(domain)``, its update adds :math:`\alpha_tf_t` to
    :math:`L`, and its hint's state is f_{t-1} (``guess = "last"``), f_0 until round 1 is settled
    (``"first"``) or None (``"none"``).

    :meth:`sums` reads an :class:`FTRLState` as ``(loss_sum, hint_state, round)``; :meth:`state` writes
    them back, so a round that drives the sums itself leaves the learner's state exactly as its
    player would.
    """

    domain: Any
    guess: str = attrs.field(validator=attrs.validators.in_(("none", "last", "first")))

    def sums(self, state: FTRLState) -> tuple:
        """``(loss_sum, hint_state, round)`` of the state."""
        return state.loss_sum, state.hint_state, state.round

    def state(self, state: FTRLState, loss_sum: Loss, hint_state, round_: int) -> FTRLState:
        """``state`` with these sums, hint state and round."""
        return state._replace(loss_sum=loss_sum, hint_state=hint_state, round=round_, guessed=[None])


@attrs.frozen
class VertexForm:
    r"""A learner's declaration that its play is a vertex read off its linear loss sum
    (:meth:`FollowTheRegularizedLeader.vertex_form`): round t's play is :math:`e_i` with
    ``i = vertex_index(L_{t-1} + alpha_t psi_t)``, its update adds :math:`\alpha_tf_t` to :math:`L` (one
    axpy into the state's own buffer), and its hint's state never changes: None (``guess = "none"``)
    or f_0 (``"initial"``).

    :meth:`sums` reads an :class:`FTRLState` as ``(loss_sum, hint_state, round)``; :meth:`state`
    writes the round back (the sum's buffer was added to in place), so a round that drives the sums
    itself leaves the learner's state exactly as its player would.
    """

    vertex_index: Any = attrs.field(eq=False)
    guess: str = attrs.field(validator=attrs.validators.in_(("none", "initial")))

    def sums(self, state: FTRLState) -> tuple:
        """``(loss_sum, hint_state, round)`` of the state."""
        return state.loss_sum, state.hint_state, state.round

    def state(self, state: FTRLState, round_: int) -> FTRLState:
        """``state`` at this round (its loss sum's buffer holds the sums added since)."""
        return state._replace(round=round_, guessed=[None])


@attrs.frozen
class ShownStep:
    r"""A mirror-descent learner's declaration that it is shown its round loss and steps from its last
    play (:meth:`OMD.shown_step`): for a linear loss :math:`\langle g_t,\cdot\rangle`,
    :math:`x_t=\arg\min_x\eta_t\alpha_t\langle g_t,x\rangle+D_R(x,x_{t-1})` (``argmin(alpha_t g_t, 0,
    eta_t, x_{t-1}, cache)``; ``eta`` the constant step, or None and ``eta_at(round)`` the schedule),
    and its secondary iterate is the play itself with ``cache_of(x_t)`` (None: no cache, it stays
    None): :class:`OMDPlayer`'s own shortcut for such losses.

    :meth:`start` reads an :class:`OMDState` as ``(secondary, cache, round)``; :meth:`state` writes them back.
    """

    argmin: Any = attrs.field(eq=False)
    eta: Any = attrs.field(eq=False)
    eta_at: Any = attrs.field(eq=False)
    cache_of: Any = attrs.field(eq=False)

    def start(self, state: OMDState) -> tuple:
        """``(secondary, secondary_cache, round)`` of the state."""
        return state.secondary, state.secondary_cache, state.round

    def state(self, state: OMDState, secondary, cache, round_: int) -> OMDState:
        """``state`` with this secondary iterate, its cache and round."""
        return OMDState(secondary, state.hint_state, cache, round_)


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

    Parameters
    ----------
    regularizer : Regularizer
        R: ``Entropy()``, ``SquaredEuclidean(radius)``, ``QNorm(q)``, ``Zero(domain)`` ...; its domain is the learner's.
    eta : float or callable, default 1.0
        The step eta > 0, one step per batched game (an array), or a schedule (a list, or a callable
        t -> eta_t; :class:`gamedyn.StepSchedule`).
    hint : Hint, default LastLoss()
        The guess M_t of the coming loss (linearised at the secondary iterate).
    centre : array_like, optional
        z_0, the centre of the Bregman term and the round-1 play without a hint (default: the domain's centre;
        ``play(initial_w=..., initial_p=...)`` sets it).
    """

    regularizer: Regularizer = attrs.field(validator=_check_regularizer)
    eta: float = attrs.field(default=1.0, converter=_as_step, validator=_check_eta)
    hint: Any = attrs.field(factory=LastLoss, validator=_check_hint)
    centre: Any = attrs.field(default=None, kw_only=True, eq=False)

    def init(self, dimension: int, initial_loss: Loss | None = None) -> OMDState:
        initial_loss = Loss.zero(dimension) if initial_loss is None else initial_loss
        centre = _batched_centre(self, _on_backend(backend_of(initial_loss.linear), _resolve_centre(self, dimension)),
                                 initial_loss)
        _check_batch_of_steps(self, initial_loss)
        return OMDState(centre, self.hint.init(dimension, initial_loss), centre_cache_of(self.regularizer, centre))

    def play(self, state: OMDState, weight: float, current_loss: Loss | None = None):
        return _omd_play(self, state, weight, current_loss)

    def update(self, state: OMDState, point, loss: Loss, weight: float, *, induced_loss: Loss | None = None) -> OMDState:
        return _omd_update(self, state, point, loss, weight, induced_loss)

    def player(self, state: OMDState) -> "OMDPlayer":
        """The runner's form of this learner (an :class:`OMDPlayer`)."""
        return OMDPlayer(self, state)

    def shown_step(self) -> "ShownStep | None":
        """The step as a closed form of the last play and the shown loss (a :class:`ShownStep`), or None.

        Declared by the parts: a hint that is the round's own loss and keeps no state (``guess =
        "current"``, ``stateless``: :class:`gamedyn.CurrentLoss`, BestResponse's) and a regularizer
        whose mirror step is its argmin (:func:`mirror_step_is_argmin`), on a constant or scheduled
        step (a sweep of steps gives None). A subclass keeps it; one that changes :meth:`play` or
        :meth:`update` must return None.
        """
        hint = self.hint
        if not (hint_guess(hint) == "current" and hint_is_stateless(hint) and mirror_step_is_argmin(self.regularizer)):
            return None
        eta = self.eta
        regularizer = self.regularizer
        cache_of = getattr(regularizer, "centre_cache", None)  # centre_cache_of's default: no cache (None)
        if getattr(regularizer.__class__, "centre_cache", None) is Regularizer.centre_cache:
            cache_of = None  # the base's: always None (as mirror_step_is_argmin reads the base's step)
        if isinstance(eta, StepSchedule):
            return ShownStep(argmin_with_cache_of(regularizer), None, eta, cache_of)
        if isinstance(eta, (int, float)) and not isinstance(eta, bool):
            return ShownStep(argmin_with_cache_of(regularizer), eta, None, cache_of)
        return None


def _omd_play(learner, state: OMDState, weight, current_loss, argmin=None, guess=None):
    """x_t = argmin eta alpha_t <M_t, x> + D_R(x, y_{t-1}), M_t the hint's gradient at y_{t-1} (y_{t-1} without a hint).

    ``argmin``: the regularizer's :func:`argmin_with_cache_of`, when the caller has it bound already; ``guess``:
    the hint's prediction, when the caller computed it (:meth:`OMDPlayer.play_guessed`)."""
    if guess is None:
        guess = learner.hint.predict(state.hint_state, current_loss)
    if guess is None:
        return state.secondary
    if argmin is None:
        argmin = argmin_with_cache_of(learner.regularizer)
    return argmin(_times(weight, guess.gradient(state.secondary)), 0.0, _step_at(learner.eta, state.round),
                  state.secondary, state.secondary_cache)


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

    __slots__ = ("learner", "state", "_shown", "_step_is_play", "_argmin")

    def __init__(self, learner, state: OMDState):
        self.learner, self.state = learner, state
        self._argmin = argmin_with_cache_of(learner.regularizer)  # bound once, not once a round
        self._shown: tuple[Loss | None, float, Any] | None = None  # (loss, weight, point) of the last play, when its step may be reused
        # y_t = x_t when the hint is the round's own loss (a stateless "current" guess) and the
        # regularizer's mirror step is its argmin: for a linear f_t the update's step then has the
        # play's very inputs (see update). Read once, from the declarations.
        hint = learner.hint
        self._step_is_play = (hint_guess(hint) == "current" and hint_is_stateless(hint)
                              and mirror_step_is_argmin(learner.regularizer))

    def play(self, weight: float, current_loss: Loss | None = None):
        point = _omd_play(self.learner, self.state, weight, current_loss, self._argmin)
        if self._step_is_play:
            self._shown = (current_loss, weight, point)
        return point

    def play_guessed(self, weight: float, guess: Loss):
        """The play given the hint's prediction ``guess`` (what ``hint.predict`` would return this round), computed by
        the caller: the one-pass round of :mod:`gamedyn.engine.rounds` takes both mirror-prox hints' products
        (``hint.opponent_point``) from one pass of A. The same point as :meth:`play`."""
        point = _omd_play(self.learner, self.state, weight, None, self._argmin, guess)
        if self._step_is_play:
            self._shown = (None, weight, point)
        return point

    def update(self, point, loss: Loss, weight: float, induced_loss: Loss | None = None) -> None:
        shown, self._shown = self._shown, None
        if (shown is not None and shown[0] is loss and shown[1] is weight and shown[2] is point
                and is_python_float(loss.curvature) and loss.curvature == 0.0):
            # The step y_t = argmin eta alpha_t <grad f_t(x_t), x> + D_R(x, y_{t-1}) would take the play's
            # inputs: grad f_t is f_t's linear part at any point, alpha_t, eta_t, y_{t-1} and its cache
            # are the same, and the step is the argmin (then the point's cache): so y_t is x_t, bit for bit.
            state = self.state
            self.state = OMDState(point, state.hint_state, centre_cache_of(self.learner.regularizer, point),
                                  state.round + 1)
            return
        self.state = _omd_update(self.learner, self.state, point, loss, weight, induced_loss)

    def loss_sum(self):
        return None  # mirror descent keeps no loss sum: the runner keeps it


def _same_array(a, b) -> bool:
    """The same array object, or equal values (None only matches None).

    A cache object that is not an array says how two of its kind compare through a ``same_as(other)``
    method on its class (e.g. Entropy's cache on a capped simplex compares its log centre); this memo
    names no regularizer's class.
    """
    if a is b:
        return True
    if a is None or b is None:
        return False
    same_as, theirs = getattr(a, "same_as", None), getattr(b, "same_as", None)  # a cache that compares itself
    if (same_as is None) != (theirs is None):
        return False
    if same_as is not None:
        return bool(same_as(b))
    if a.shape != b.shape:
        return False
    if is_foreign(a):
        return bool(backend_of(a).xp.all(a == b))
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

    The memo is this module's (:data:`_MIRROR_STEPS`, one slot per regularizer, weakly keyed so it
    lives as long as the regularizer): no frozen regularizer is written to. A regularizer that cannot
    be a weak key (unhashable, or ``__slots__`` without ``__weakref__``) gets no memo: every step computed.
    """
    try:
        memo = _MIRROR_STEPS.get(regularizer)
    except TypeError:  # unhashable or not weakly referenceable: no memo
        return argmin_and_cache_of(regularizer)(linear, 0.0, eta, centre, cache)
    if (memo is not None and memo[0] is linear and (memo[1] is eta or (is_python_float(eta) and memo[1] == eta))
            and _same_array(memo[2], centre) and _same_array(memo[3], cache)):
        return memo[4]
    result = argmin_and_cache_of(regularizer)(linear, 0.0, eta, centre, cache)
    _MIRROR_STEPS[regularizer] = (linear, eta, centre, cache, result)
    return result


# regularizer -> its last mirror step (see _mirror_step); equal regularizers compute equal steps
_MIRROR_STEPS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _times(weight, vector):
    """weight * vector, skipping the product for the unit weight (alpha_t = 1 is common)."""
    return vector if weight == 1.0 else weight * vector


@attrs.frozen(init=False, repr=False)
class BestResponse(OMD):
    r"""The best responder (BR+): z_t = argmin_{z in Z} f_t(z), the round's own loss alone.

    It sees f_t before it plays, so it must move second. For a linear loss this is the domain's
    linear minimisation oracle (``domain.linear_minimizer``): the x-player of Frank-Wolfe as a game
    (Abernethy & Wang 2017). Built from the existing parts: mirror descent with the zero
    regularizer (no Bregman term, so the previous point is forgotten) and the hint psi_t = f_t.
    Its regret is <= 0 (it never does worse than any fixed point on the round it plays).

    Parameters
    ----------
    domain : Domain
        The set played on; it needs ``linear_minimizer`` (or ``minimize_quadratic``) for linear losses.

    Examples
    --------
    >>> from gamedyn import BestResponse, OMD, Simplex
    >>> learner = BestResponse(Simplex())
    >>> learner, isinstance(learner, OMD)
    (BestResponse(Simplex()), True)
    """

    def __init__(self, domain):
        self.__attrs_init__(Zero(domain), 1.0, CurrentLoss())

    def started_at(self, centre):
        return self  # no regularizer, no start of its own: initial_w / initial_p only shape the opponent's f_0

    def __repr__(self):
        return f"BestResponse({self.regularizer.domain!r})"


@attrs.frozen(init=False, repr=False)
class MirrorDescent(OMD):
    """Online mirror descent: z_{t+1} = argmin_z eta alpha_t <grad f_t(z_t), z> + D_R(z, z_t) (OMD with no hint).

    Parameters
    ----------
    regularizer : Regularizer
        R: ``Entropy()``, ``SquaredEuclidean(radius)``, ``QNorm(q)`` ...; its domain is the learner's.
    eta : float or callable, default 1.0
        The step eta > 0, or a schedule.
    centre : array_like, optional
        z_1, the first play (default: the domain's centre).

    Examples
    --------
    >>> from gamedyn import MirrorDescent, Entropy
    >>> MirrorDescent(Entropy(), 1.0)
    MirrorDescent(Entropy(), eta=1.0)
    """

    def __init__(self, regularizer: Regularizer, eta: float = 1.0, *, centre=None):
        self.__attrs_init__(regularizer, eta, NoHint(), centre=centre)

    def started_at(self, centre):
        return type(self)(self.regularizer, self.eta, centre=centre)

    def __repr__(self):
        return f"MirrorDescent({', '.join([repr(self.regularizer), *self._arguments(), *self._centre_argument()])})"
