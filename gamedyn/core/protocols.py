r"""The contracts of gamedyn's parts: runtime-checkable :class:`typing.Protocol` classes.

Each protocol lists only the **required** members; ``isinstance(x, Learner)`` checks that they are
there (a structural check: any class with them qualifies, no base class needed). Optional
capabilities are documented in each protocol's docstring with the default the runner uses when an
object does not declare them; each is read with ``getattr(obj, name, default)`` in one place.

=============================== ====================================================================
The how-tos (docs/how-to/write-a-learner.md, write-a-regularizer.md, write-a-payoff.md,
write-an-observer.md) each write one such class against its protocol alone and run it in
:func:`gamedyn.play`.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

__all__ = ["Domain", "Hint", "Learner", "NormalForm", "Observer", "PayoffProtocol", "Player", "RegularizerProtocol",
           "StructuralMeta", "declared"]


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

    def contains(self, z: Any) -> bool:
        """Whether ``z`` lies in Z (to the rounding the domain allows).

        Parameters
        ----------
        z : array_like
            A point of the player's space.

        Returns
        -------
        bool
            True when z is in Z.
        """

    def default_centre(self, dimension: int) -> Any:
        """The start z_0 when none is given (0, the uniform distribution, ...).

        Parameters
        ----------
        dimension : int
            The number of coordinates of z.

        Returns
        -------
        numpy.ndarray
            A point of Z of length ``dimension``.
        """

    def project(self, z: Any) -> Any:
        """The Euclidean projection of ``z`` onto Z, argmin over u in Z of ||u - z||.

        Parameters
        ----------
        z : array_like
            A point of the player's space.

        Returns
        -------
        numpy.ndarray
            The nearest point of Z.
        """

    def minimize_quadratic(self, linear: Any, curvature: float) -> Any:
        """argmin over z in Z of <linear, z> + curvature/2 ||z||^2: the best fixed point of a sum of losses.

        The regrets and the duality gap compare with it; ``curvature = 0`` is the linear minimisation oracle.

        Parameters
        ----------
        linear : numpy.ndarray
            The linear part of the summed loss.
        curvature : float
            Its curvature (>= 0).

        Returns
        -------
        numpy.ndarray
            A minimiser in Z (a point at infinity is refused by the domain, e.g. ``Reals`` with curvature 0).
        """


@runtime_checkable
class RegularizerProtocol(Protocol):
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
    ``domain``); ``argmin_is_loss_oracle`` [False] (True when ``argmin_of_loss(loss, eta, centre)`` is
    ``loss.minimize_over(domain)``, no Bregman term: :class:`gamedyn.Zero`; FTL's lean Fenchel round).
    """

    @property
    def domain(self) -> Any:
        """The domain Z the argmin lands in (read-only: a field of an immutable regularizer)."""

    def argmin(self, linear: Any, curvature: float, eta: float, centre: Any) -> Any:
        r"""The regularized best reply: argmin over z in Z of eta (<linear, z> + curvature/2 ||z||^2) + D_R(z, centre).

        Parameters
        ----------
        linear : numpy.ndarray
            theta, the linear part of the (summed or hinted) loss.
        curvature : float
            c >= 0, its curvature.
        eta : float
            The step eta > 0.
        centre : numpy.ndarray
            z_0, the centre of the Bregman divergence D_R.

        Returns
        -------
        numpy.ndarray
            The minimiser, a point of ``domain``.
        """


@runtime_checkable
class Hint(Protocol):
    """The optimistic guess psi_t of a learner's coming loss, with explicit state.

    Required: ``init(dimension, initial_loss) -> state``, ``predict(state, current_loss) -> Loss |
    None`` (None: no guess this round), ``update(state, point, loss, weight) -> state``.

    Optional (defaults in brackets): ``needs_current_loss`` [False] (``predict`` is shown the round's
    own loss; the learner must move second); ``sees_induced_loss`` [False] (``update`` also takes
    ``induced_loss=``); ``guess`` [None: custom] — what ``predict`` returns, declared so that players
    may skip the call: ``"none"`` (always None), ``"last"`` (the state, which ``update`` sets to the
    round's loss: psi_t = f_{t-1}), ``"first"`` (the state, f_0, which ``update`` sets to None),
    ``"current"`` (the current loss); ``stateless`` [False] (the
    state is always None, so ``update`` need not be called).
    """

    def init(self, dimension: int, initial_loss: Any) -> Any:
        """The hint's state before round 1.

        Parameters
        ----------
        dimension : int
            The learner's number of coordinates.
        initial_loss : Loss or None
            f_0, the loss the runner builds from the opponent's start (None: none).

        Returns
        -------
        object
            The state (None for a stateless hint).
        """

    def predict(self, state: Any, current_loss: Any = None) -> Any:
        """psi_t, the guess of the coming loss.

        Parameters
        ----------
        state : object
            The hint's state.
        current_loss : Loss, optional
            The round's own loss, shown only to a hint that declares ``needs_current_loss``.

        Returns
        -------
        Loss or None
            The guess, or None (no guess this round).
        """

    def update(self, state: Any, point: Any, loss: Any, weight: float) -> Any:
        """The state after a round.

        Parameters
        ----------
        state : object
            The hint's state before the round.
        point : numpy.ndarray
            The learner's play z_t.
        loss : Loss
            The round's loss f_t.
        weight : float
            The round's weight alpha_t.

        Returns
        -------
        object
            The new state (the given one is not changed).
        """


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
    ``leader_form()`` and ``shown_step()`` [None] (a :class:`gamedyn.core.learners.LeaderForm` /
    :class:`gamedyn.core.learners.ShownStep`: the play is the losses' own minimiser, or a step from
    the last play shown the round's loss, which lets the lean Fenchel round play without a player);
    ``centre`` [absent: ``initial_w`` / ``initial_p`` refused] (the start z_0, an attrs field).
    """

    @property
    def domain(self) -> Any:
        """The domain Z the learner plays in (read-only: a field of an immutable learner)."""

    def init(self, dimension: int, initial_loss: Any = None) -> Any:
        """The learner's state before round 1.

        Parameters
        ----------
        dimension : int
            The number of coordinates the learner plays.
        initial_loss : Loss, optional
            f_0, the loss built from the opponent's start (what ``LastLoss`` hints with at t = 1).

        Returns
        -------
        object
            The initial state.
        """

    def play(self, state: Any, weight: float, current_loss: Any = None) -> Any:
        """The round's play z_t, from the state (and, for FTRL+, the round's own loss).

        Parameters
        ----------
        state : object
            The learner's state.
        weight : float
            The round's weight alpha_t.
        current_loss : Loss, optional
            The round's loss, given only to a learner that declares ``needs_current_loss``.

        Returns
        -------
        numpy.ndarray
            The play, a point of ``domain``.
        """

    def update(self, state: Any, point: Any, loss: Any, weight: float) -> Any:
        """The state after the round's loss is revealed.

        Parameters
        ----------
        state : object
            The state before the round.
        point : numpy.ndarray
            The play z_t.
        loss : Loss
            The round's loss f_t.
        weight : float
            The round's weight alpha_t.

        Returns
        -------
        object
            A new state (the given one is never changed).
        """


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

    def play(self, weight: float, current_loss: Any = None) -> Any:
        """The round's play z_t from the player's current state.

        Parameters
        ----------
        weight : float
            The round's weight alpha_t.
        current_loss : Loss, optional
            The round's loss, for a learner that sees it (FTRL+).

        Returns
        -------
        numpy.ndarray
            The play, a point of the learner's domain.
        """

    def update(self, point: Any, loss: Any, weight: float, induced_loss: Any = None) -> None:
        """Take in the round's loss (changes the player).

        Parameters
        ----------
        point : numpy.ndarray
            The play z_t.
        loss : Loss
            The round's loss f_t.
        weight : float
            The round's weight alpha_t.
        induced_loss : Loss, optional
            The opponent's induced loss, for a learner or hint that declares ``sees_induced_loss``.
        """

    def loss_sum(self) -> Any:
        """The weighted loss sum sum_s alpha_s f_s the player holds.

        Returns
        -------
        Loss or None
            The sum, or None when the runner keeps it.
        """


@runtime_checkable
class PayoffProtocol(Protocol):
    """A payoff g(w, p), concave in w and convex in p, and the round losses it hands each player.

    Required: ``w_dimension``, ``p_dimension``, ``value(w, p)``, ``loss_for_p(w, p_played) -> Loss``
    (l(p) = g(w, p)) and ``loss_for_w(p, w_played) -> Loss`` (h(w) = -g(w, p)); the second argument
    is the point a loss without structure is linearised at (None: before that player has played).

    Optional (defaults in brackets): ``w_domain`` / ``p_domain`` [None: any domain] (the set each
    player must play on); ``structured`` [True] (the losses are exact, not linearisations);
    ``played_values(w, p, w_loss, p_loss)`` [each loss evaluated at its play];
    ``bilinear_form()`` [None] (a :class:`gamedyn.engine.payoffs.BilinearForm`: the losses are
    ``Loss(A w)`` and ``Loss(-A^T p, c)``, which the one-pass rounds use); ``conjugate_form()`` [None]
    (a :class:`gamedyn.engine.payoffs.ConjugateForm`: the Fenchel game's losses, which the lean
    Fenchel round uses);
    ``certificate(w_domain, q, margin_from_sums)`` [None] (a certificate tracker the runner feeds
    every round); ``numerical_duality_gap(...)`` [None] (for payoffs without structure).
    """

    @property
    def w_dimension(self) -> int:
        """d, the number of coordinates of w (read-only)."""

    @property
    def p_dimension(self) -> int:
        """n, the number of coordinates of p (read-only)."""

    def value(self, w: Any, p: Any) -> Any:
        """g(w, p).

        Parameters
        ----------
        w : numpy.ndarray
            The w-player's point.
        p : numpy.ndarray
            The p-player's point.

        Returns
        -------
        float
            The payoff.
        """

    def loss_for_p(self, w: Any, p_played: Any = None) -> Any:
        """The p-player's loss l(p) = g(w, p) given w.

        Parameters
        ----------
        w : numpy.ndarray
            The w-player's play.
        p_played : numpy.ndarray, optional
            Where a loss without structure is linearised (None: before p has played).

        Returns
        -------
        Loss
            The loss, convex in p.
        """

    def loss_for_w(self, p: Any, w_played: Any = None) -> Any:
        """The w-player's loss h(w) = -g(w, p) given p.

        Parameters
        ----------
        p : numpy.ndarray
            The p-player's play.
        w_played : numpy.ndarray, optional
            Where a loss without structure is linearised (None: before w has played).

        Returns
        -------
        Loss
            The loss, convex in w.
        """


@runtime_checkable
class Observer(Protocol):
    """Anything that watches the rounds of :func:`gamedyn.play` (``play(..., observers=[...])``).

    Required: ``observe(state) -> bool | None``, called once per round after both players have
    settled, with the :class:`gamedyn.RoundState` of that round (its arrays are the runner's
    buffers: valid during the call; copy what you keep). Returning True asks the run to stop after
    this round.

    Optional (defaults in brackets): ``name`` [the class name] (``stop_reason`` names it);
    ``start(run)`` [nothing] (called once before round 1 with the :class:`gamedyn.engine.observers.Run`:
    payoff, seats, T, the comparators and the configuration); ``finish(run, rounds, stop_reason)``
    [nothing] (after the last round; the built-ins named ``"trace"`` and ``"metrics"`` return
    ``result.trace`` and ``result.metrics``); ``checkpoint_state() -> dict`` and ``restore_state(dict)``
    [stateless] (an observer with state across rounds saves and restores itself through these, so
    a checkpointed run resumes it); ``needs_round_state`` [True] (False: ``observe`` is called with
    the round number and no round state is built for it); ``history`` [None] (what it keeps of every
    round that a checkpoint does not hold: a resumed run refuses it); ``saves_run`` [False] (it saves
    the run: called after every other observer); ``measures`` [None] (a setting of what the run
    measures, read before round 1 and never called: :func:`gamedyn.compare_with`,
    :func:`gamedyn.skip_regrets`). docs/reference/observers.md shows the whole contract.
    """

    def observe(self, state: Any) -> bool | None:
        """Watch one round (called after both players have settled).

        Parameters
        ----------
        state : RoundState or None
            The round's :class:`gamedyn.RoundState` (its arrays are valid during the call only; None for an
            observer that declares ``needs_round_state = False``).

        Returns
        -------
        bool or None
            True asks the run to stop after this round.
        """


@runtime_checkable
class NormalForm(Protocol):
    r"""An n-player game in normal form, as :func:`gamedyn.engine.players.play_n` plays it (issue 34).

    Required: ``shape`` (the tuple :math:`(a_1,\dots,a_n)` of each player's number of actions) and
    ``losses(plays)``: for the players' mixed strategies ``plays`` (n vectors), the tuple of the n
    round losses :math:`\ell_i=-u_i(\cdot,x_{-i})` (a :class:`gamedyn.Loss` each: player i's negated
    expected utility of each of its actions against the others' plays). Every player minimises its
    loss on its simplex. Optional: ``utilities(plays)`` (the n utility vectors).
    """

    shape: tuple

    def losses(self, plays: Any) -> Any:
        r"""The n players' round losses against the others' plays.

        Parameters
        ----------
        plays : sequence of numpy.ndarray
            One mixed strategy per player (lengths ``shape``).

        Returns
        -------
        tuple of Loss
            Player i's loss :math:`-u_i(\cdot, x_{-i})` (length ``shape[i]``).
        """


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
