r"""Hints: the optimistic guess psi_t of the coming loss (spec section 2).

A hint is a small object with explicit state, consulted by its learner before each play:

* ``init(dimension, initial_loss) -> state`` — ``initial_loss`` is f_0, which the runner builds
  from the *opponent's initial point* (h_0 = -g(., p_0), l_0 = g(w_0, .)). This is the whole
  "t = 1 convention": no learner or hint ever branches on t.
* ``predict(state, current_loss) -> Loss | None`` — the guess for round t (``None`` = no hint).
  ``current_loss`` is given only to hints that declare ``needs_current_loss = True``.
* ``update(state, point, loss, weight) -> state`` — after the round: the learner's own play and
  the loss it was charged. A hint that declares ``sees_induced_loss = True`` is also given
  ``induced_loss=``, the loss its player's play induced on the opponent, which the runner computed
  anyway (it is a function of the player's own play, so using it stays a legal strategy).

Two optional declarations let a player skip calls (the runner reads them once per run with
``getattr``; a hint without them is simply called): ``guess`` says what ``predict`` returns —
``"none"`` (always None), ``"last"`` (the state, which ``update`` sets to the round's loss:
psi_t = f_{t-1}), ``"first"`` (the state, f_0, which ``update`` sets to None: psi_1 = f_0 only),
``"initial"`` (the state, f_0, which ``update`` keeps: psi_t = f_0 every round),
``"current"`` (the current loss) or None (custom, the default) — and
``stateless = True`` says the state is always None. A subclass inherits its base's declarations;
one that changes ``predict`` or ``update`` must restate them (``guess = None``, ``stateless = False``).

Write your own by implementing these three methods (the :class:`gamedyn.Hint` protocol). Built in: :class:`NoHint` (FTRL, mirror
descent), :class:`LastLoss` (psi_t = f_{t-1}: OFTL, OFTRL, optimistic OMD), :class:`FirstRoundLoss` (psi_1 = f_0 only), :class:`CurrentLoss`
(psi_t = f_t: FTRL+, legal only for the player who moves second) and :class:`OpponentSecondary`
(the mirror-prox hint of spec section 7.2).
"""

from __future__ import annotations

from typing import Any

import attrs

from gamedyn.core.kernels import backend_of
from gamedyn.core.loss import Loss


@attrs.frozen
class NoHint:
    """psi_t = 0: plain FTRL / plain mirror descent."""

    needs_current_loss = False
    guess = "none"
    stateless = True

    def init(self, dimension: int, initial_loss: Loss):
        return None

    def predict(self, state, current_loss: Loss | None = None):
        return None

    def update(self, state, point, loss: Loss, weight: float):
        return None


@attrs.frozen
class LastLoss:
    """psi_t = f_{t-1}, with f_0 the loss built from the opponent's initial point."""

    needs_current_loss = False
    guess = "last"
    stateless = False

    def init(self, dimension: int, initial_loss: Loss):
        return initial_loss

    def predict(self, state: Loss, current_loss: Loss | None = None):
        return state

    def update(self, state, point, loss: Loss, weight: float):
        return loss


@attrs.frozen
class FirstRoundLoss:
    """psi_1 = f_0, then psi_t = 0: FTL whose first play answers the opponent's initial point.

    f_0 is the loss the runner builds from the opponent's initial point (``initial_w`` /
    ``initial_p``). FTL with this hint plays argmin alpha_1 f_0 at t = 1 (where the empty sum fixes
    nothing) and argmin sum_{s<t} alpha_s f_s afterwards: the y-player of Frank-Wolfe as a game,
    whose first gradient is taken at the start x_0.
    """

    needs_current_loss = False
    guess = "first"
    stateless = False

    def init(self, dimension: int, initial_loss: Loss):
        return initial_loss

    def predict(self, state, current_loss: Loss | None = None):
        return state

    def update(self, state, point, loss: Loss, weight: float):
        return None


@attrs.frozen
class CurrentLoss:
    """psi_t = f_t: the learner is shown its round loss before it plays (what FTRL+ is)."""

    needs_current_loss = True
    guess = "current"
    stateless = True

    def init(self, dimension: int, initial_loss: Loss):
        return None

    def predict(self, state, current_loss: Loss | None = None):
        if current_loss is None:
            raise ValueError("CurrentLoss needs the round's loss before the play; only the second mover can see it.")
        return current_loss

    def update(self, state, point, loss: Loss, weight: float):
        return None


@attrs.frozen
class OpponentSecondary:
    r"""psi_t = the round loss evaluated at the opponent's secondary iterate y^{opp}_{t-1}.

    This is the hint that turns two optimistic OMD players into Yu et al.'s mirror prox (spec
    section 7.2): :math:`\psi^w_t=-g(\cdot, y^p_{t-1})`, :math:`\psi^p_t=g(y^w_{t-1},\cdot)`.
    The player computes y^{opp} from its *own* past plays alone, by running a shadow copy of the
    opponent's learner on the losses its plays induce, so the hint is a legal Protocol 1 strategy.

    ``opponent`` is the opponent's learner (a mirror-descent learner, whose state has a
    ``secondary``); ``player`` is ``"w"`` or ``"p"``, the seat of the player *using* this hint.

    Products: ``predict`` costs one (the loss at y^{opp}_{t-1}, which mirror prox needs anyway);
    ``update`` reuses the induced loss the runner computed (g(w_t, .) for the w-player), so two
    mirror-prox players cost 4 products per round, as mirror prox does. For an unstructured payoff
    (linearised losses) the shadow's loss is linearised at y^{opp}, so it is computed here.
    """

    opponent: Any
    payoff: Any  # a gamedyn.engine.Payoff (the engine's layer sits above the learners')
    player: str = attrs.field(validator=attrs.validators.in_(("w", "p")))
    needs_current_loss = False
    guess = None
    stateless = False
    sees_induced_loss = True

    def _opponent_dimension(self) -> int:
        return self.payoff.p_dimension if self.player == "w" else self.payoff.w_dimension

    def init(self, dimension: int, initial_loss: Loss):
        dimension = self._opponent_dimension()  # the shadow's arrays on the run's backend (its losses' namespace)
        return self.opponent.init(dimension, Loss(backend_of(initial_loss.linear).zeros(dimension), 0.0))

    def opponent_point(self, state):
        """y^{opp}_{t-1}, the point whose round loss :meth:`predict` returns (``payoff.loss_for_w`` / ``loss_for_p``
        of it): a round that computes both players' hint losses from one pass of A reads it
        (:mod:`gamedyn.engine.rounds`)."""
        return state.secondary

    def predict(self, state, current_loss: Loss | None = None):
        if self.player == "w":
            return self.payoff.loss_for_w(state.secondary, None)
        return self.payoff.loss_for_p(state.secondary, None)

    def update(self, state, point, loss: Loss, weight: float, *, induced_loss: Loss | None = None):
        if induced_loss is None or not getattr(self.payoff, "structured", True):
            if self.player == "w":
                induced_loss = self.payoff.loss_for_p(point, state.secondary)
            else:
                induced_loss = self.payoff.loss_for_w(point, state.secondary)
        return self.opponent.update(state, state.secondary, induced_loss, weight)
