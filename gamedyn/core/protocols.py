r"""The contracts of gamedyn's parts: runtime-checkable :class:`typing.Protocol` classes.

Each protocol lists only the **required** members; ``isinstance(x, Learner)`` checks that they are
there (a structural check: any class with them qualifies, no base class needed). Optional
capabilities are documented in each protocol's docstring with the default the runner uses when an
object does not declare them; each is read with ``getattr(obj, name, default)`` in one place.

=============== ===========================================================================
protocol        required
=============== ===========================================================================
:class:`Domain`      ``contains(z)``, ``default_centre(dimension)``, ``project(z)``,
                     ``minimize_quadratic(linear, curvature)``
:class:`Regularizer` ``domain``, ``argmin(linear, curvature, eta, centre)``
:class:`Hint`        ``init(dimension, initial_loss)``, ``predict(state, current_loss)``,
                     ``update(state, point, loss, weight)``
:class:`Learner`     ``domain``, ``init(dimension, initial_loss)``,
                     ``play(state, weight, current_loss=None)``, ``update(state, point, loss, weight)``
:class:`Player`      ``play(weight, current_loss=None)``, ``update(point, loss, weight, induced_loss=None)``,
                     ``loss_sum()``, ``state``
:class:`Payoff`      ``w_dimension``, ``p_dimension``, ``value(w, p)``, ``loss_for_p(w, p_played)``,
                     ``loss_for_w(p, w_played)``
:class:`Observer`    ``observe(state) -> bool | None``
=============== ===========================================================================

The how-tos (docs/how-to/write-a-learner.md, write-a-regularizer.md, write-a-payoff.md,
write-an-observer.md) each write one such class against its protocol alone and run it in
:func:`gamedyn.play`.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

__all__ = ["Domain", "Hint", "Learner", "Observer", "Payoff", "Player", "Regularizer"]


@runtime_checkable
class Domain(Protocol):
    """A closed convex set Z a player plays in (:class:`gamedyn.Reals`, ``Ball``, ``Simplex``, ...).

    Required: ``contains(z) -> bool``; ``default_centre(dimension)`` (the start z_0 when none is
    given: 0, the uniform distribution, ...); ``project(z)`` (the Euclidean projection onto Z);
    ``minimize_quadratic(linear, curvature)`` (argmin over Z of <linear, z> + curvature/2 ||z||^2:
    the best fixed point of a sum of losses, which the regrets and the duality gap use).

    Optional: ``linear_minimizer(linear)`` (the linear minimisation oracle; default
    ``minimize_quadratic(linear, 0.0)``).
    """

    def contains(self, z: Any) -> bool: ...

    def default_centre(self, dimension: int) -> Any: ...

    def project(self, z: Any) -> Any: ...

    def minimize_quadratic(self, linear: Any, curvature: float) -> Any: ...


@runtime_checkable
class Regularizer(Protocol):
    r"""A regularizer R on its ``domain``, known to the learners through one argmin:

    .. math:: \operatorname{argmin}(\theta,c,\eta,z_0)=\arg\min_{z\in Z}\ \eta\big(\langle\theta,z\rangle
              +\tfrac c2\|z\|^2\big)+D_R(z,z_0).

    Required: ``domain`` and ``argmin(linear, curvature, eta, centre)``.

    Optional (defaults in brackets): ``centre_cache(centre)`` [None] and
    ``argmin_with_cache(linear, curvature, eta, centre, cache)`` [``argmin``] (reuse what a
    fixed centre allows); ``argmin_and_cache`` [the two calls] (mirror-descent steps);
    ``argmin_of_loss(loss, eta, centre)`` [refused] (losses whose curvature multiplies a convex
    function of their own); ``log_centre(centre)`` [None: no softmax fast path] (log z_0 when the
    argmin is the softmax z proportional to z_0 exp(-eta theta), which lets the one-pass rounds
    fuse the p-player's play with the products); ``supports_batches`` [False];
    ``plays_in_domain`` [False: each play is checked] (True when the argmin provably lands in
    ``domain``).
    """

    domain: Any

    def argmin(self, linear: Any, curvature: float, eta: float, centre: Any) -> Any: ...


@runtime_checkable
class Hint(Protocol):
    """The optimistic guess psi_t of a learner's coming loss, with explicit state.

    Required: ``init(dimension, initial_loss) -> state``, ``predict(state, current_loss) -> Loss |
    None`` (None: no guess this round), ``update(state, point, loss, weight) -> state``.

    Optional (defaults in brackets): ``needs_current_loss`` [False] (``predict`` is shown the round's
    own loss; the learner must move second); ``sees_induced_loss`` [False] (``update`` also takes
    ``induced_loss=``); ``guess`` [None: custom] — what ``predict`` returns, declared so that players
    may skip the call: ``"none"`` (always None), ``"last"`` (the state, which ``update`` sets to the
    round's loss: psi_t = f_{t-1}), ``"current"`` (the current loss); ``stateless`` [False] (the
    state is always None, so ``update`` need not be called).
    """

    def init(self, dimension: int, initial_loss: Any) -> Any: ...

    def predict(self, state: Any, current_loss: Any = None) -> Any: ...

    def update(self, state: Any, point: Any, loss: Any, weight: float) -> Any: ...


@runtime_checkable
class Learner(Protocol):
    """An online learner: an immutable configuration with three pure functions.

    Required: ``domain`` (a :class:`Domain`), ``init(dimension, initial_loss) -> state``,
    ``play(state, weight, current_loss=None) -> point``, ``update(state, point, loss, weight) ->
    state`` (returns a new state; never changes the one it is given).

    Optional (defaults in brackets): ``needs_current_loss`` [False] (``play`` is given the round's
    loss; such a learner must move second); ``sees_induced_loss`` [False] (``update`` also takes
    ``induced_loss=``); ``loss_sum(state)`` [the runner keeps the sum] (the weighted loss sum the
    state holds); ``player(state)`` [the pure functions driven as a player] (the learner's mutable
    form, a :class:`Player`); ``plays_in_domain`` [False: each play is checked];
    ``softmax_play()`` [None] (a :class:`gamedyn.core.learners.SoftmaxPlay` when the play is the
    softmax of the loss sum, which lets the one-pass rounds fuse it with the products);
    ``centre`` [absent: ``initial_w`` / ``initial_p`` refused] (the start z_0, an attrs field).
    """

    domain: Any

    def init(self, dimension: int, initial_loss: Any = None) -> Any: ...

    def play(self, state: Any, weight: float, current_loss: Any = None) -> Any: ...

    def update(self, state: Any, point: Any, loss: Any, weight: float) -> Any: ...


@runtime_checkable
class Player(Protocol):
    """A learner's mutable form, the one :func:`gamedyn.play` drives each round (``learner.player(state)``).

    Required: ``play(weight, current_loss=None) -> point``; ``update(point, loss, weight,
    induced_loss=None)`` (changes the player); ``loss_sum() -> Loss | None`` (None: the runner keeps
    the sum); ``state`` (the pure state it is at).

    Optional: ``loss_linear_sum()`` [``loss_sum().linear``] (the linear part without building a
    :class:`gamedyn.Loss`).
    """

    state: Any

    def play(self, weight: float, current_loss: Any = None) -> Any: ...

    def update(self, point: Any, loss: Any, weight: float, induced_loss: Any = None) -> None: ...

    def loss_sum(self) -> Any: ...


@runtime_checkable
class Payoff(Protocol):
    """A payoff g(w, p), concave in w and convex in p, and the round losses it hands each player.

    Required: ``w_dimension``, ``p_dimension``, ``value(w, p)``, ``loss_for_p(w, p_played) -> Loss``
    (l(p) = g(w, p)) and ``loss_for_w(p, w_played) -> Loss`` (h(w) = -g(w, p)); the second argument
    is the point a loss without structure is linearised at (None: before that player has played).

    Optional (defaults in brackets): ``w_domain`` / ``p_domain`` [None: any domain] (the set each
    player must play on); ``structured`` [True] (the losses are exact, not linearisations);
    ``played_values(w, p, w_loss, p_loss)`` [each loss evaluated at its play];
    ``bilinear_form()`` [None] (a :class:`gamedyn.engine.payoffs.BilinearForm`: the losses are
    ``Loss(A w)`` and ``Loss(-A^T p, c)``, which the one-pass rounds use);
    ``certificate(w_domain, q, margin_from_sums)`` [None] (a certificate tracker the runner feeds
    every round); ``numerical_duality_gap(...)`` [None] (for payoffs without structure).
    """

    w_dimension: int
    p_dimension: int

    def value(self, w: Any, p: Any) -> Any: ...

    def loss_for_p(self, w: Any, p_played: Any = None) -> Any: ...

    def loss_for_w(self, p: Any, w_played: Any = None) -> Any: ...


@runtime_checkable
class Observer(Protocol):
    """Anything that watches the rounds of :func:`gamedyn.play` (``play(..., observers=[...])``).

    Required: ``observe(state) -> bool | None``, called once per round after both players have
    settled, with the :class:`gamedyn.RoundState` of that round (its arrays are the runner's
    buffers: valid during the call; copy what you keep). Returning True asks the run to stop after
    this round.

    Optional (defaults in brackets): ``name`` [the class name] (``stop_reason`` names it);
    ``start(run)`` [nothing] (called once before round 1 with the :class:`gamedyn.engine.observers.Run`:
    payoff, seats, T; it may return the first round to play, for resuming); ``finish(run, rounds,
    stop_reason)`` [nothing] (after the last round; its return value, if not None, is kept in
    ``result.observed[name]``); ``checkpoint_state() -> dict`` and ``restore_state(dict)``
    [stateless] (an observer with state across rounds saves and restores itself through these, so
    a checkpointed run resumes it); ``needs_round_state`` [True] (False: ``observe`` is called with
    ``None`` and no round state is built for it).
    """

    def observe(self, state: Any) -> bool | None: ...


def declared(obj: Any, name: str, governs: tuple[str, ...] = (), default: Any = None) -> Any:
    """The capability ``name`` that ``obj`` declares, or ``default``; the one way the runner reads one.

    A declaration vouches for methods (``governs``): e.g. a hint's ``guess = "last"`` says what its
    ``predict`` and ``update`` do; a payoff's ``bilinear_form`` what its ``loss_for_p`` and
    ``loss_for_w`` compute. It holds for the class that makes it and for every subclass that keeps
    those methods, so a trivial subclass keeps every fast path; a subclass that overrides one of the
    governed methods (below the class that declared) loses the declaration, unless it restates it.
    Read once per run, before the loop (an MRO walk, no cost per round).
    """
    mro = type(obj).__mro__
    owner = next((index for index, klass in enumerate(mro) if name in vars(klass)), None)
    if owner is None:
        return getattr(obj, name, default)  # an instance attribute (or a __getattr__): the object's own word
    for method in governs:
        definer = next((index for index, klass in enumerate(mro) if method in vars(klass)), None)
        if definer is not None and definer < owner:
            return default
    return getattr(obj, name, default)


class StructuralMeta(type):
    """The metaclass of the base classes :class:`gamedyn.Payoff` and :class:`gamedyn.Regularizer`.

    Those names are both a base class (subclass it to inherit the defaults: the numerical argmin,
    the two-product ``played_values``, ...) and a contract: ``isinstance(x, gamedyn.Payoff)`` is True
    for an instance of a subclass *and* for any object that satisfies the protocol of the same name
    in this module (a duck-typed payoff or regularizer written against the protocol alone).
    The class names its protocol in ``__protocol__``.
    """

    def __instancecheck__(cls, instance) -> bool:
        if type.__instancecheck__(cls, instance):
            return True
        protocol = cls.__dict__.get("__protocol__")
        return protocol is not None and isinstance(instance, protocol)
