r"""No-swap-regret learners on the simplex: the Blum-Mansour reduction and Hart & Mas-Colell's regret matching.

A learner on :math:`\Delta_K` that sees the losses :math:`\alpha_t\ell_t` has **swap regret**

.. math::

    R^{\mathrm{swap}}_T=\max_{\varphi:[K]\to[K]}\sum_t\alpha_t\sum_jx_t(j)\big(\ell_t(j)-\ell_t(\varphi(j))\big)
    =\sum_j\max_k R_T[j,k],\qquad R_T[j,k]=\sum_t\alpha_tx_t(j)\big(\ell_t(j)-\ell_t(k)\big),

the largest gain of a *swap* (play k whenever the learner's draw is j) over its plays; the external
regret is the swap regret restricted to the constant swaps, so it is never larger. When every
player of a game has swap regret :math:`o(S_T)`, :math:`S_T=\sum_t\alpha_t`, the empirical joint
distribution of play converges to the set of **correlated** equilibria (Foster & Vohra 1997; Hart &
Mas-Colell 2000); external regret alone gives the coarse correlated ones.

* :class:`SwapRegret` -- Blum & Mansour's reduction (2007, Theorem 5): one external-regret learner
  per action; copy j proposes :math:`q_j`, the play is a stationary distribution of the Markov
  matrix :math:`Q` whose rows are the :math:`q_j` (:math:`x=xQ`), and copy j is charged
  :math:`x_t(j)\ell_t`. Then :math:`\sum_jx_t(j)\langle q_j,\ell_t\rangle=\langle x_t,\ell_t\rangle`,
  so :math:`R^{\mathrm{swap}}_T\le\sum_jR_j` (each copy's external regret).
* :class:`SwapRegretMatching` -- Hart & Mas-Colell's regret matching on the conditional regrets
  :math:`R[j,k]` (2000, the procedure of Section 2; Cesa-Bianchi & Lugosi 2006, Section 4.4): the play is a
  stationary distribution of :math:`Q=I+(R^+-\mathrm{diag}(R^+\mathbf 1))/\mu` (any
  :math:`\mu\ge\max_j\sum_kR^+[j,k]`), i.e. :math:`\sum_jx(j)R^+[j,k]=x(k)\sum_{k'}R^+[k,k']`, which
  makes :math:`\langle R^+_{t-1},r_t\rangle=0` and so :math:`\|R^+_T\|_F^2\le\sum_t\|r_t\|_F^2`;
  ``plus=True`` clips :math:`R` at 0 after each round (RM+'s rule on the conditional regrets).

Their bounds (checked as (measured, bound) pairs in tests/test_swap_regret.py):
:math:`R^{\mathrm{swap}}_T\le\sqrt K\sqrt{\sum_t\|r_t\|_F^2}\le\Delta\sqrt{K(K-1)\sum_t\alpha_t^2}`
for :class:`SwapRegretMatching` (:math:`r_t` the round's conditional regret matrix, Δ the range of
the losses), and :math:`\le\sum_jR_j` for :class:`SwapRegret`.

:func:`stationary_distribution` is the robust solve both use: an LU solve of the balance
equations where the stationary distribution is unique, else the closed communicating class of the
smallest state (strongly connected components), solved there by Grassmann, Taksar & Heyman's
elimination (no cancellation).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import attrs
import numpy as np

from gamedyn.core.domains import Simplex
from gamedyn.core.loss import Loss
from gamedyn.core.protocols import declared

__all__ = ["SwapRegret", "SwapRegretMatching", "SwapRegretMatchingState", "SwapRegretState", "stationary_distribution",
           "swap_regret"]

_RESIDUAL = 1e-12  # |x Q - x| accepted from the LU solve (else the closed-class path)
_PIVOT = 1e-9  # an LU pivot at most this: the balance equations are (nearly) singular, several closed classes


def _gth(P: np.ndarray) -> np.ndarray:
    """The stationary distribution of an irreducible stochastic matrix by Grassmann-Taksar-Heyman elimination
    (state reduction: every step adds non-negative numbers, so the result is accurate entrywise)."""
    P = np.array(P, dtype=np.float64)
    m = P.shape[0]
    for n in range(m - 1, 0, -1):
        s = P[n, :n].sum()
        P[:n, n] /= s
        P[:n, :n] += np.outer(P[:n, n], P[n, :n])
    x = np.zeros(m)
    x[0] = 1.0
    for n in range(1, m):
        x[n] = x[:n] @ P[:n, n]
    return x / x.sum()


def _closed_class(Q: np.ndarray) -> np.ndarray:
    """The states of the closed communicating class that holds the smallest state among all closed classes."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    edges = Q > 0.0
    np.fill_diagonal(edges, False)
    _, labels = connected_components(csr_matrix(edges), directed=True, connection="strong")
    leaving = edges & (labels[:, None] != labels[None, :])
    open_labels = np.unique(labels[leaving.any(axis=1)])
    closed = ~np.isin(labels, open_labels)
    return np.flatnonzero(labels == labels[int(np.argmax(closed))])


def stationary_distribution(Q) -> np.ndarray:
    r"""A stationary distribution :math:`x=xQ` of the row-stochastic matrix ``Q`` (a new probability vector).

    Where it is unique (one closed communicating class) and well determined, the LU solve of the
    balance equations :math:`x(Q-I)=0,\ \sum_kx_k=1` gives it (checked: every pivot above
    :math:`10^{-9}`, entries >= 0 up to rounding, residual :math:`\max_k|(xQ-x)_k|\le10^{-12}`). Otherwise (several closed classes, or a solve that fails
    the check) it is the stationary distribution of the closed class that holds the smallest state
    among all closed classes (strongly connected components of the graph of Q's positive entries),
    by Grassmann, Taksar & Heyman's elimination, and 0 elsewhere. Every stationary distribution
    serves the swap-regret bounds; this rule picks one deterministically.

    Parameters
    ----------
    Q : array_like, shape (K, K)
        Non-negative rows that sum to 1.

    Returns
    -------
    numpy.ndarray, shape (K,)
        x >= 0 with sum 1 and x Q = x (to rounding).

    Raises
    ------
    ValueError
        ``Q`` is not square, has a negative or non-finite entry, or a row that does not sum to 1.

    Examples
    --------
    >>> stationary_distribution([[0.5, 0.5], [0.25, 0.75]]).round(12).tolist()
    [0.333333333333, 0.666666666667]
    >>> stationary_distribution([[1.0, 0.0], [0.0, 1.0]]).tolist()  # two closed classes: the first
    [1.0, 0.0]
    """
    Q = np.asarray(Q, dtype=np.float64)
    if Q.ndim != 2 or Q.shape[0] != Q.shape[1] or Q.shape[0] < 1:
        raise ValueError(f"Q must be a square row-stochastic matrix, got shape {Q.shape}.")
    if not np.all(np.isfinite(Q)) or np.any(Q < 0) or np.any(np.abs(Q.sum(axis=1) - 1.0) > 1e-9 * Q.shape[0]):
        raise ValueError("Q must have non-negative finite entries and rows that sum to 1 (a Markov matrix).")
    K = Q.shape[0]
    if K == 1:
        return np.ones(1)
    system = Q.T - np.eye(K)
    system[-1] = 1.0
    right = np.zeros(K)
    right[-1] = 1.0
    from scipy.linalg.lapack import dgetrf, dgetrs

    lu, pivots, info = dgetrf(system)
    x = None
    if info == 0 and np.min(np.abs(np.diag(lu))) > _PIVOT:  # nonsingular: one closed class, one stationary point
        x, info = dgetrs(lu, pivots, right)
    if x is not None and np.all(np.isfinite(x)) and x.min() >= -1e-12:
        x = np.maximum(x, 0.0)
        x /= x.sum()
        if np.max(np.abs(x @ Q - x)) <= _RESIDUAL:
            return x
    closed = _closed_class(Q)
    x = np.zeros(K)
    x[closed] = _gth(Q[np.ix_(closed, closed)]) if closed.size > 1 else 1.0
    return x


def swap_regret(plays, losses, weights=None) -> tuple:
    r"""(swap regret, external regret, the conditional regret matrix R) of plays :math:`x_t` against losses :math:`\ell_t`.

    :math:`R[j,k]=\sum_t\alpha_tx_t(j)(\ell_t(j)-\ell_t(k))`; swap regret :math:`\sum_j\max_kR[j,k]`
    (>= 0: k = j gives 0); external regret :math:`\max_k\sum_jR[j,k]`.

    >>> swap, external, _ = swap_regret([[1.0, 0.0], [0.0, 1.0]], [[1.0, 0.0], [0.0, 1.0]])
    >>> float(swap), float(external)
    (2.0, 1.0)
    """
    X, L = np.asarray(plays, dtype=np.float64), np.asarray(losses, dtype=np.float64)
    if X.ndim != 2 or X.shape != L.shape:
        raise ValueError(f"plays and losses must be arrays of the same shape (T, K), got {X.shape} and {L.shape}.")
    alpha = np.ones(X.shape[0]) if weights is None else np.asarray(weights, dtype=np.float64)
    WX = alpha[:, None] * X
    R = np.einsum("tj,tj->j", WX, L)[:, None] - WX.T @ L
    return float(np.sum(R.max(axis=1))), float(np.max(R.sum(axis=0))), R


# ------------------------------------------------------------------------------------- Blum-Mansour


class SwapRegretState(NamedTuple):
    """The copies' states (one per action; or, stacked, one batched state whose column j is copy j's),
    the number of actions K and the learner's round."""

    copies: tuple
    actions: int
    round: int = 1


class _Driven:
    """A learner given by its pure functions, driven as a mutable player (the copies of :class:`SwapRegret`)."""

    __slots__ = ("_play", "_update", "state")

    def __init__(self, learner, state):
        self.state, self._play, self._update = state, learner.play, learner.update

    def play(self, weight, current_loss=None):
        return self._play(self.state, weight)

    def update(self, point, loss, weight, induced_loss=None) -> None:
        self.state = self._update(self.state, point, loss, weight)


def _driven(learner, state):
    make = getattr(learner, "player", None)
    return make(state) if callable(make) else _Driven(learner, state)


def _check_copy(copy, index: int):
    for name in ("init", "play", "update", "domain"):
        if not hasattr(copy, name):
            raise TypeError(f"SwapRegret's learner_factory must give learners (init, play, update, domain); copy {index} "
                            f"is {copy!r}.")
    if copy.domain != Simplex():
        raise ValueError(f"SwapRegret's copies play on the simplex (their plays are the rows of a Markov matrix); copy "
                         f"{index} plays on {copy.domain!r}. Give a simplex learner, e.g. RegretMatching(plus=True) or "
                         f"FTRL(Entropy(), eta).")
    if getattr(copy, "needs_current_loss", False) or getattr(copy, "sees_induced_loss", False):
        raise ValueError(f"SwapRegret's copy {index} ({copy!r}) needs its round's loss or its opponent's; the copies "
                         f"propose before the round's loss is known. Give a learner without the current-loss hint "
                         f"(e.g. OFTRL, RegretMatching).")
    return copy


def _markov_rows(rows) -> np.ndarray:
    """The copies' plays as the rows of a Markov matrix (each a probability vector: checked)."""
    Q = np.array(rows, dtype=np.float64)
    if not np.all(np.isfinite(Q)) or np.any(Q < 0) or np.any(np.abs(Q.sum(axis=1) - 1.0) > 1e-9 * Q.shape[1]):
        bad = int(np.flatnonzero(~np.all(np.isfinite(Q), axis=1) | np.any(Q < 0, axis=1)
                                 | (np.abs(Q.sum(axis=1) - 1.0) > 1e-9 * Q.shape[1]))[0])
        raise ValueError(f"SwapRegret's copy {bad} played {Q[bad]!r}, not a probability vector.")
    return Q


@attrs.frozen
class SwapRegret:
    r"""Blum & Mansour's reduction from swap regret to external regret: one ``learner_factory()`` per action.

    Round t: copy j plays :math:`q_j` (its own learner, its own state); the play is the stationary
    distribution :math:`x_t=x_tQ_t` of the Markov matrix with rows :math:`q_j`
    (:func:`stationary_distribution`); after the round's loss :math:`\ell_t`, copy j is updated with the
    loss :math:`x_t(j)\,\ell_t` at its play :math:`q_j` and the round's weight :math:`\alpha_t`.
    Then the swap regret is at most the sum of the copies' external regrets (Blum & Mansour 2007,
    Theorem 5). Round 1's hint loss :math:`f_0` reaches copy j as :math:`f_0/K` (the uniform start's
    share); a loss with a curvature is linearised at the play. It plays in either seat of
    :func:`gamedyn.play` and in :func:`gamedyn.engine.players.play_n`.

    **Stacked copies.** When the copies are one learner (equal objects) that declares
    ``supports_batches = True`` (:class:`gamedyn.RegretMatching`), the K copies are one batched state
    of shape (K, K), column j copy j's, played and updated in one call each round; otherwise each copy
    is its own player. The numbers are the same.

    Parameters
    ----------
    learner_factory : callable or learner
        ``learner_factory()`` gives each copy's learner (e.g. ``lambda: RegretMatching(plus=True)``); a
        learner object (learners are immutable) is used for every copy. Each must play on the simplex
        and not need its round's loss.

    Examples
    --------
    >>> import numpy as np
    >>> from gamedyn.core import Loss, RegretMatching
    >>> learner = SwapRegret(RegretMatching(plus=True))
    >>> state = learner.init(3)
    >>> x = learner.play(state, 1.0)
    >>> x.round(6).tolist()
    [0.333333, 0.333333, 0.333333]
    >>> state = learner.update(state, x, Loss(np.array([1.0, 0.0, 1.0])), 1.0)
    >>> learner.play(state, 1.0).round(6).tolist()  # every copy moves to the action of loss 0
    [0.0, 1.0, 0.0]
    """

    learner_factory: Any

    domain = Simplex()
    needs_current_loss = False
    sees_induced_loss = False
    plays_in_domain = True

    def copies(self, dimension: int) -> tuple:
        """The ``dimension`` copies' learners (checked)."""
        factory = self.learner_factory
        make = factory if callable(factory) else (lambda: factory)
        return tuple(_check_copy(make(), j) for j in range(dimension))

    def stacked(self, dimension: int):
        """The copies' one learner when they can be stacked (equal, ``supports_batches = True``), else None."""
        copies = self.copies(dimension)
        first = copies[0]
        if declared(first, "supports_batches", ("init", "play", "update", "player")) is not True:
            return None
        return first if all(copy is first or bool(copy == first) for copy in copies[1:]) else None

    def init(self, dimension: int, initial_loss: Loss | None = None) -> SwapRegretState:
        """Each copy started on ``dimension`` actions with the hint loss ``initial_loss / dimension``."""
        if isinstance(dimension, bool) or not isinstance(dimension, (int, np.integer)) or dimension < 1:
            raise ValueError(f"dimension must be a positive number of actions, got {dimension!r}.")
        if initial_loss is not None and np.ndim(initial_loss.linear) != 1:
            raise ValueError(f"SwapRegret plays one game at a time; it got batched losses of shape "
                             f"{np.shape(initial_loss.linear)}. Run the games one by one.")
        K = int(dimension)
        stacked = self.stacked(K)
        if stacked is not None:
            columns = np.zeros((K, K)) if initial_loss is None else np.repeat(initial_loss.linear[:, None] / K, K, axis=1)
            return SwapRegretState((stacked.init(K, Loss(columns)),), K, 1)
        share = None if initial_loss is None else initial_loss.scaled(1.0 / K)
        return SwapRegretState(tuple(copy.init(K, share) for copy in self.copies(K)), K, 1)

    def play(self, state: SwapRegretState, weight: float, current_loss: Loss | None = None):
        """The stationary distribution of the copies' plays."""
        return self.player(state).play(weight)

    def update(self, state: SwapRegretState, point, loss: Loss, weight: float, **_) -> SwapRegretState:
        """Each copy j updated at its play with the loss ``point[j] * loss``; a new state."""
        point = np.asarray(point, dtype=np.float64)
        linear = loss.linear if loss.curvature == 0.0 and loss.convex is None else loss.gradient(point)
        K = point.shape[0]
        stacked = self.stacked(K)
        if stacked is not None:
            plays = stacked.play(state.copies[0], weight)
            return SwapRegretState((stacked.update(state.copies[0], plays, Loss(np.outer(linear, point)), weight),),
                                   K, state.round + 1)
        copies = self.copies(K)
        plays = [copy.play(copy_state, weight) for copy, copy_state in zip(copies, state.copies)]
        updated = tuple(copy.update(copy_state, q, Loss(float(point[j]) * linear), weight)
                        for j, (copy, copy_state, q) in enumerate(zip(copies, state.copies, plays)))
        return SwapRegretState(updated, K, state.round + 1)

    def player(self, state: SwapRegretState):
        """The runner's mutable form (:class:`SwapRegretPlayer`, or :class:`StackedSwapRegretPlayer`)."""
        stacked = self.stacked(int(state.actions))
        if stacked is not None:
            return StackedSwapRegretPlayer(self, stacked, state)
        return SwapRegretPlayer(self, state)


class SwapRegretPlayer:
    """The mutable form of :class:`SwapRegret`: the copies' players, and the last round's proposals Q."""

    __slots__ = ("_copies", "learner", "proposals", "round")

    def __init__(self, learner: SwapRegret, state: SwapRegretState):
        self.learner = learner
        copies = learner.copies(len(state.copies))
        self._copies = [_driven(copy, copy_state) for copy, copy_state in zip(copies, state.copies)]
        self.proposals: np.ndarray | None = None  # the rows q_j of the last play
        self.round = int(state.round)

    def play(self, weight, current_loss=None):
        Q = _markov_rows([copy.play(weight) for copy in self._copies])
        self.proposals = Q
        return stationary_distribution(Q)

    def update(self, point, loss, weight, induced_loss=None) -> None:
        Q = self.proposals
        if Q is None:  # an update without a play of this player (a resumed state): the copies' plays now
            Q = _markov_rows([copy.play(weight) for copy in self._copies])
        linear = loss.linear if loss.curvature == 0.0 and loss.convex is None else loss.gradient(point)
        for j, copy in enumerate(self._copies):
            copy.update(Q[j], Loss(float(point[j]) * linear), weight)
        self.proposals = None
        self.round += 1

    def loss_sum(self):
        return None  # the runner keeps the loss sum

    @property
    def state(self) -> SwapRegretState:
        """The pure state this player is at (its copies' states)."""
        return SwapRegretState(tuple(copy.state for copy in self._copies), len(self._copies), self.round)


class StackedSwapRegretPlayer:
    """The mutable form of :class:`SwapRegret` with stacked copies: one batched player, column j copy j."""

    __slots__ = ("_player", "actions", "learner", "proposals", "round")

    def __init__(self, learner: SwapRegret, stacked, state: SwapRegretState):
        self.learner, self.actions = learner, int(state.actions)
        self._player = _driven(stacked, state.copies[0])
        self.proposals: np.ndarray | None = None  # the rows q_j of the last play (a view of the batched columns)
        self.round = int(state.round)

    def play(self, weight, current_loss=None):
        columns = self._player.play(weight)
        self.proposals = columns.T
        return stationary_distribution(_markov_rows(self.proposals))

    def update(self, point, loss, weight, induced_loss=None) -> None:
        columns = self.proposals.T if self.proposals is not None else self._player.play(weight)
        linear = loss.linear if loss.curvature == 0.0 and loss.convex is None else loss.gradient(point)
        self._player.update(columns, Loss(np.outer(linear, point)), weight)  # column j: x(j) l
        self.proposals = None
        self.round += 1

    def loss_sum(self):
        return None  # the runner keeps the loss sum

    @property
    def state(self) -> SwapRegretState:
        """The pure state this player is at (the stacked copies' state)."""
        return SwapRegretState((self._player.state,), self.actions, self.round)


# ------------------------------------------------------------------------------- Hart & Mas-Colell


class SwapRegretMatchingState(NamedTuple):
    """The conditional regrets R (K x K; R >= 0 with ``plus``) and the learner's round."""

    regrets: np.ndarray
    round: int = 1


def _check_flag(instance, attribute, value):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{attribute.name} must be True or False, got {value!r}.")


def swap_matching_play(regrets) -> np.ndarray:
    r"""Hart & Mas-Colell's play from conditional regrets R: a stationary distribution of
    :math:`Q=I+(R^+-\mathrm{diag}(R^+\mathbf 1))/\mu`, :math:`\mu=\max_j\sum_{k\ne j}R^+[j,k]`
    (uniform when no off-diagonal regret is positive)."""
    positive = np.maximum(np.asarray(regrets, dtype=np.float64), 0.0)
    np.fill_diagonal(positive, 0.0)
    rows = positive.sum(axis=1)
    mu = rows.max()
    K = positive.shape[0]
    if not mu > 0.0:
        return np.full(K, 1.0 / K)
    Q = positive / mu
    Q[np.diag_indices(K)] = 1.0 - rows / mu
    return stationary_distribution(Q)


@attrs.frozen
class SwapRegretMatching:
    r"""Hart & Mas-Colell's regret matching on the conditional (swap) regrets; ``plus=True`` clips them at 0.

    The state is :math:`R[j,k]=\sum_t\alpha_tx_t(j)(\ell_t(j)-\ell_t(k))` (:math:`R\ge0` with ``plus``);
    the play is :func:`swap_matching_play` of it. The swap regret is at most
    :math:`\sqrt K\sqrt{\sum_t\|r_t\|_F^2}` (module docstring). A loss with a curvature is linearised
    at the play.

    Parameters
    ----------
    plus : bool, default False
        Clip the conditional regrets at 0 after every update (the "+" variant, as RM+ clips RM's).

    Examples
    --------
    >>> import numpy as np
    >>> from gamedyn.core import Loss
    >>> learner = SwapRegretMatching()
    >>> state = learner.update(learner.init(2), np.array([0.5, 0.5]), Loss(np.array([1.0, 0.0])), 1.0)
    >>> learner.play(state, 1.0).tolist()  # R[0, 1] = 0.5 > 0: action 0's mass moves to action 1
    [0.0, 1.0]
    """

    plus: bool = attrs.field(default=False, validator=_check_flag)

    domain = Simplex()
    needs_current_loss = False
    sees_induced_loss = False
    plays_in_domain = True

    @property
    def name(self) -> str:
        """Swap RM or swap RM+."""
        return "swap RM+" if self.plus else "swap RM"

    def init(self, dimension: int, initial_loss: Loss | None = None) -> SwapRegretMatchingState:
        """Zero conditional regrets for ``dimension`` actions (``initial_loss`` is not used)."""
        if isinstance(dimension, bool) or not isinstance(dimension, (int, np.integer)) or dimension < 1:
            raise ValueError(f"dimension must be a positive number of actions, got {dimension!r}.")
        if initial_loss is not None and np.ndim(initial_loss.linear) != 1:
            raise ValueError(f"SwapRegretMatching plays one game at a time; it got batched losses of shape "
                             f"{np.shape(initial_loss.linear)}. Run the games one by one.")
        return SwapRegretMatchingState(np.zeros((int(dimension), int(dimension))), 1)

    def play(self, state: SwapRegretMatchingState, weight: float, current_loss: Loss | None = None):
        """The stationary distribution of the positive conditional regrets."""
        return swap_matching_play(state.regrets)

    def update(self, state: SwapRegretMatchingState, point, loss: Loss, weight: float, **_) -> SwapRegretMatchingState:
        """R plus the round's conditional regrets (clipped at 0 with ``plus``); a new state."""
        player = SwapRegretMatchingPlayer(self, SwapRegretMatchingState(np.array(state.regrets, dtype=np.float64),
                                                                        state.round))
        player.update(point, loss, weight)
        return player.state

    def player(self, state: SwapRegretMatchingState) -> SwapRegretMatchingPlayer:
        """The runner's mutable form: R updated in place."""
        return SwapRegretMatchingPlayer(self, state)


class SwapRegretMatchingPlayer:
    """The mutable form of :class:`SwapRegretMatching` (the regrets updated in place)."""

    __slots__ = ("_plus", "learner", "regrets", "round")

    def __init__(self, learner: SwapRegretMatching, state: SwapRegretMatchingState):
        self.learner, self._plus = learner, learner.plus
        regrets = np.require(state.regrets, dtype=np.float64, requirements=("C", "W"))  # the state's own array if it can
        self.regrets, self.round = regrets, int(state.round)

    def play(self, weight, current_loss=None):
        return swap_matching_play(self.regrets)

    def update(self, point, loss, weight, induced_loss=None) -> None:
        linear = loss.linear if loss.curvature == 0.0 and loss.convex is None else loss.gradient(point)
        point = np.asarray(point, dtype=np.float64)
        weighted = weight * point
        # R[j, k] += alpha x(j) (l(j) - l(k))
        self.regrets += (weighted * linear)[:, None] - np.outer(weighted, linear)
        if self._plus:
            np.maximum(self.regrets, 0.0, out=self.regrets)
        self.round += 1

    def loss_sum(self):
        return None  # the runner keeps the loss sum

    @property
    def state(self) -> SwapRegretMatchingState:
        """The pure state this player is at (sharing its array)."""
        return SwapRegretMatchingState(self.regrets, self.round)
