r"""Counterfactual regret minimisation as a learner on a treeplex: CFR, CFR+, DCFR, PCFR+ and Hedge per infoset.

The **laminar regret decomposition** (Zinkevich, Johanson, Bowling & Piccione 2007; Farina, Kroer &
Sandholm 2019) turns a regret minimiser on each infoset's simplex of actions into one on the whole
treeplex :math:`X` (:class:`gamedyn.core.treeplex.Treeplex`). With the round's loss :math:`\ell_t`
(a vector over the sequences; the utility is :math:`u=-\ell_t`) and the behavioural strategy
:math:`b` the learner played, the **counterfactual pass** runs bottom-up (deepest infoset first):

.. math::

    q_{ja}=u_{ja}+\sum_{j'\,:\,p(j')=ja}V_{j'},\qquad V_j=\langle b_j,q_j\rangle,\qquad
    r_j=q_j-V_j\mathbf 1 ,

so :math:`q_j` are infoset j's counterfactual values and :math:`r_j` its local (counterfactual)
regrets; then a **local rule** updates every infoset at once and the next play is the sequence
form (:meth:`Treeplex.to_sequence`) of the local strategies. The treeplex regret is at most
:math:`\max_{x\in X}\sum_jx_{p(j)}R^j_T` (Farina, Kroer & Sandholm 2019, Thm 1), :math:`R^j_T` the
local regrets. The local rules are the matrix-game rules of :mod:`gamedyn.core.regret_matching`
applied to every infoset's segment of actions (the same functions, with sums over segments):

=========== =======================================================================================
``local``   the rule on each infoset (:math:`R` its accumulated regrets, weights :math:`\alpha_t`)
=========== =======================================================================================
``"rm"``    RM: :math:`R_t=R_{t-1}+\alpha_tr_t`, play :math:`[R_t]^+` normalised (CFR; Zinkevich et al. 2007)
``"rm+"``   RM+: :math:`Q_t=[Q_{t-1}+\alpha_tr_t]^+` (CFR+; Tammelin 2014)
``"prm"``,  predictive RM / PRM+: play :math:`[Q_t+\alpha_{t+1}v]^+` normalised, the prediction
``"prm+"``  :math:`v` never stored in :math:`Q` (PCFR+ with ``"prm+"``; Farina, Kroer & Sandholm 2021)
``"dcfr"``  RM on discounted regrets: after each update the entries >= 0 times
            :math:`t^\alpha/(t^\alpha+1)`, the negative ones times :math:`t^\beta/(t^\beta+1)`, t the
            learner's own round (DCFR; Brown & Sandholm 2019; default alpha = 3/2, beta = 0)
``"hedge"`` Hedge on each infoset: play :math:`\propto\exp(\eta R_t)` (step ``eta``)
=========== =======================================================================================

**Predictions** (``"prm"``, ``"prm+"``; Farina, Kroer & Sandholm 2021, the PRM+ prediction paired
with the previous local strategy :math:`b^{\rm prev}`): ``prediction="simple"`` (default) predicts
each infoset's last counterfactual values, so :math:`v=r^{\rm prev}`, its last local regrets (the
matrix-game PRM+ of :class:`gamedyn.RegretMatching` on every infoset); ``"counterfactual"``
predicts the whole loss (:math:`\hat\ell=\ell_{t-1}`) and forms the local predictions bottom-up with
the *new* strategies of the infosets below (the predictive counterfactual decomposition of Farina,
Kroer, Brown & Sandholm 2019): :math:`\hat q_{ja}=-\hat\ell_{ja}+\sum_{p(j')=ja}\langle\hat b_{j'},\hat q_{j'}\rangle`,
:math:`v_j=\hat q_j-\langle b^{\rm prev}_j,\hat q_j\rangle\mathbf 1`, :math:`\hat b_j` = the rule's play.
Before the first update the prediction is 0.

**Which strategy is charged.** The local strategies matter at infosets the play never reaches
(their counterfactual values feed their parents' regrets), so the learner charges the loss at the
behavioural strategy of its own last play: its player keeps it (and its state saves it, so a
resumed run is bit-identical); the pure :meth:`CounterfactualRegret.update` recomputes it from the
state it is given, as :meth:`CounterfactualRegret.play` would with the same weight.

The round's kernels (the counterfactual pass :func:`counterfactual_regrets`, the local play
:func:`local_strategies`) are the functions of this module; nothing else computes them.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import attrs
import numpy as np

from gamedyn.core.kernels import is_foreign, is_numpy
from gamedyn.core.loss import Loss
from gamedyn.core.regret_matching import (
    accumulate_regrets,
    discount_regrets,
    hedge_into,
    linear_part,
    regret_matching_into,
)

__all__ = ["LOCAL_RULES", "CounterfactualPlayer", "CounterfactualRegret", "CounterfactualState",
           "counterfactual_regrets", "dcfr_factor", "local_strategies"]

LOCAL_RULES = ("rm", "rm+", "prm", "prm+", "dcfr", "hedge")
"""The local rules of :class:`CounterfactualRegret` (see the module docstring)."""

_PREDICTIONS = ("simple", "counterfactual")


class CounterfactualState(NamedTuple):
    """The learner's state: accumulated local regrets, the prediction, the last local strategies, the round.

    Every array has one entry per sequence (entry 0, the empty sequence, is 0 in ``regrets`` and
    ``prediction`` and 1 in ``behaviour``). ``prediction`` is the last local regret vector
    (``prediction="simple"``) or the last loss (``"counterfactual"``), zeros for the other rules and
    before round 1; ``behaviour`` the behavioural strategy of the last play; ``round`` the learner's
    own round (its next update's t, for DCFR's discounts).
    """

    regrets: np.ndarray
    prediction: np.ndarray
    behaviour: np.ndarray
    round: int = 1


def dcfr_factor(t: int, exponent: float) -> float:
    r""":math:`t^e/(t^e+1)`, DCFR's discount of round t (Brown & Sandholm 2019); its limits for :math:`e=\pm\infty`
    (1 or 0 for t > 1, 1/2 at t = 1)."""
    if math.isinf(exponent):
        return 0.5 if t == 1 else (1.0 if exponent > 0 else 0.0)
    power = float(t) ** exponent
    if math.isinf(power):
        return 1.0
    return power / (power + 1.0)


def counterfactual_regrets(treeplex, utility, behaviour, regret_out=None) -> tuple:
    r"""The counterfactual pass: ``(r, q)``, the local regrets and counterfactual values of every sequence.

    Bottom-up over the levels of ``treeplex``: :math:`q_{ja}=u_{ja}+\sum_{p(j')=ja}V_{j'}`,
    :math:`V_j=\langle b_j,q_j\rangle`, :math:`r_{ja}=q_{ja}-V_j` (``r[0] = 0``; ``q[0]`` is the value of
    the utility at the play, :math:`\langle u,x\rangle`). ``behaviour`` holds :math:`b_j(a)` on each
    sequence; ``regret_out`` (optional) receives r.
    """
    values = np.empty(treeplex.number_of_infosets)
    add = np.add.reduceat

    def local(level, q):
        v = add(behaviour[level.sequences] * q, level.offsets)
        values[level.infosets] = v
        return v

    q = treeplex.bottom_up(utility, local)
    r = np.empty(treeplex.dimension) if regret_out is None else regret_out
    r[0] = 0.0
    np.subtract(q[1:], values.repeat(treeplex.sizes), out=r[1:])
    return r, q


def local_strategies(learner: "CounterfactualRegret", regrets, prediction, previous, weight) -> np.ndarray:
    """The behavioural strategy the local rule plays from these regrets (and prediction), a new array.

    ``previous`` is the behavioural strategy of the last play (the counterfactual prediction pairs with it).
    """
    treeplex = learner.treeplex
    offsets, sizes = treeplex.offsets, treeplex.sizes
    b = np.empty(treeplex.dimension)
    b[0] = 1.0
    rule = learner.local
    if rule == "hedge":
        b[1:] = regrets[1:]
        hedge_into(b[1:], learner.step, offsets, sizes)
        return b
    if rule in ("prm", "prm+") and learner.prediction_kind == "counterfactual":
        return _counterfactual_prediction_play(treeplex, regrets, prediction, previous, weight, b)
    b[1:] = regrets[1:]
    if rule in ("prm", "prm+"):
        b[1:] += weight * prediction[1:]
    regret_matching_into(b[1:], offsets, sizes)
    return b


def _counterfactual_prediction_play(treeplex, regrets, last_loss, previous, weight, b) -> np.ndarray:
    """PRM's play with the counterfactual prediction (see the module docstring), bottom-up into ``b``."""
    add = np.add.reduceat

    def local(level, q):
        span, offsets, sizes = level.sequences, level.offsets, level.sizes
        v = q - add(previous[span] * q, offsets).repeat(sizes)
        theta = regrets[span] + weight * v
        regret_matching_into(theta, offsets, sizes)
        b[span] = theta
        return add(theta * q, offsets)

    treeplex.bottom_up(-last_loss, local)
    return b


def _check_rule(instance, attribute, value):
    if value not in LOCAL_RULES:
        raise ValueError(f"local must be one of {list(LOCAL_RULES)}, got {value!r}.")


def _check_treeplex(instance, attribute, value):
    if not all(callable(getattr(value, name, None)) for name in ("bottom_up", "to_sequence", "contains")):
        raise TypeError(f"treeplex must be a gamedyn.Treeplex (one player's sequence-form strategy set), got {value!r}; "
                        "e.g. game.treeplexes[0] of a gamedyn.games.efg game.")


def _optional_real(instance, attribute, value):
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or math.isnan(value):
        raise TypeError(f"{attribute.name} must be a number, got {value!r}.")


@attrs.frozen
class CounterfactualRegret:
    r"""Counterfactual regret minimisation on a treeplex, a learner of :func:`gamedyn.play` (see the module docstring).

    Parameters
    ----------
    treeplex : Treeplex
        The player's sequence-form strategy set (its domain).
    local : {"rm", "rm+", "prm", "prm+", "dcfr", "hedge"}, default "rm"
        The rule on every infoset: CFR's RM, CFR+'s RM+, PCFR+'s PRM+, DCFR's discounted RM, Hedge.
    prediction : {"simple", "counterfactual"}, optional
        The prediction of ``"prm"`` / ``"prm+"`` (default ``"simple"``; refused for the other rules).
    alpha, beta : float, optional
        DCFR's discount exponents of the positive and negative regrets (default 3/2 and 0; ``"dcfr"`` only).
    eta : float, optional
        Hedge's step (required for ``"hedge"``, refused for the others).

    Raises
    ------
    ValueError
        An unknown rule or prediction, a parameter of another rule, a non-positive ``eta``.

    Examples
    --------
    CFR+ against a fixed opponent in Kuhn poker: the learner's regret grows like sqrt(T) at most.

    >>> from gamedyn.games.efg import kuhn_poker
    >>> game = kuhn_poker()
    >>> learner = CounterfactualRegret(game.treeplexes[0], local="rm+")
    >>> state = learner.init(game.treeplexes[0].dimension)
    >>> x = learner.play(state, 1.0)
    >>> bool(game.treeplexes[0].contains(x)), x[:3].tolist()
    (True, [1.0, 0.5, 0.5])
    """

    treeplex: Any = attrs.field(validator=_check_treeplex)
    local: str = attrs.field(default="rm", validator=_check_rule)
    prediction: str | None = attrs.field(default=None, kw_only=True)
    alpha: float | None = attrs.field(default=None, kw_only=True, validator=_optional_real)
    beta: float | None = attrs.field(default=None, kw_only=True, validator=_optional_real)
    eta: float | None = attrs.field(default=None, kw_only=True, validator=_optional_real)

    needs_current_loss = False
    sees_induced_loss = False
    plays_in_domain = True  # every play is the sequence form of local distributions

    def __attrs_post_init__(self):
        rule = self.local
        if self.prediction is not None and (rule not in ("prm", "prm+") or self.prediction not in _PREDICTIONS):
            raise ValueError(f"prediction={self.prediction!r}: a prediction is 'simple' or 'counterfactual', and only "
                             f"the predictive rules 'prm' and 'prm+' take one (local={rule!r}).")
        for name in ("alpha", "beta"):
            if getattr(self, name) is not None and rule != "dcfr":
                raise ValueError(f"{name}= is DCFR's discount exponent; local={rule!r} takes none (use local='dcfr').")
        if rule == "hedge":
            if self.eta is None or not (math.isfinite(self.eta) and self.eta > 0):
                raise ValueError(f"local='hedge' needs a positive finite step eta=, got {self.eta!r}.")
        elif self.eta is not None:
            raise ValueError(f"eta= is Hedge's step; local={rule!r} takes none (use local='hedge').")

    @property
    def domain(self):
        """The treeplex the learner plays on."""
        return self.treeplex

    @property
    def name(self) -> str:
        """CFR, CFR+, PCFR, PCFR+, DCFR or Hedge-CFR."""
        return {"rm": "CFR", "rm+": "CFR+", "prm": "PCFR", "prm+": "PCFR+", "dcfr": "DCFR",
                "hedge": "Hedge-CFR"}[self.local]

    @property
    def prediction_kind(self) -> str | None:
        """The prediction of a predictive rule (``"simple"`` unless given), None for the others."""
        if self.local not in ("prm", "prm+"):
            return None
        return self.prediction or "simple"

    @property
    def discounts(self) -> tuple:
        """DCFR's ``(alpha, beta)`` (defaults 3/2 and 0)."""
        return (1.5 if self.alpha is None else float(self.alpha), 0.0 if self.beta is None else float(self.beta))

    @property
    def step(self) -> float:
        """Hedge's step eta."""
        return float(self.eta)  # type: ignore[arg-type]

    def init(self, dimension: int, initial_loss: Loss | None = None) -> CounterfactualState:
        """Zero regrets and prediction, the uniform strategy as the last one (``initial_loss`` is not used)."""
        if dimension != self.treeplex.dimension:
            raise ValueError(f"dimension {dimension!r} is not the treeplex's {self.treeplex.dimension} sequences: the "
                             "payoff and the learner's treeplex belong to different games.")
        if initial_loss is not None and (is_foreign(initial_loss.linear) or np.ndim(initial_loss.linear) != 1):
            raise ValueError("CounterfactualRegret plays one game on numpy arrays; got a loss of shape "
                             f"{np.shape(initial_loss.linear)} ({type(initial_loss.linear).__name__}).")
        n = self.treeplex.dimension
        return CounterfactualState(np.zeros(n), np.zeros(n), self.treeplex.uniform_behaviour(), 1)

    def play(self, state: CounterfactualState, weight: float, current_loss: Loss | None = None) -> np.ndarray:
        """The play for the round of weight ``weight``: the sequence form of the local rule's strategies."""
        return self.treeplex.to_sequence(local_strategies(self, state.regrets, state.prediction, state.behaviour, weight))

    def update(self, state: CounterfactualState, point, loss: Loss, weight: float, **_) -> CounterfactualState:
        """The state after the loss ``weight * loss``, charged at the play of ``state`` (see the module docstring)."""
        player = CounterfactualPlayer(self, CounterfactualState(np.array(state.regrets, dtype=np.float64),
                                                                np.array(state.prediction, dtype=np.float64),
                                                                np.array(state.behaviour, dtype=np.float64),
                                                                state.round))
        player.behaviour = local_strategies(self, player.regrets, player.prediction, player.behaviour, weight)
        player.update(point, loss, weight)
        return player.state

    def player(self, state: CounterfactualState) -> CounterfactualPlayer:
        """The runner's mutable form (its arrays updated in place)."""
        return CounterfactualPlayer(self, state)


class CounterfactualPlayer:
    """The mutable form :func:`gamedyn.play` drives: the local regrets updated in place, the last play's strategy kept."""

    __slots__ = ("_buffer", "_discounts", "_kind", "_plus", "_rule", "_treeplex", "behaviour", "learner", "prediction",
                 "regrets", "round")

    def __init__(self, learner: CounterfactualRegret, state: CounterfactualState):
        self.learner = learner
        self._treeplex = learner.treeplex
        regrets = state.regrets
        if not (is_numpy(regrets) and regrets.dtype == np.float64 and regrets.flags.c_contiguous
                and regrets.flags.writeable):
            regrets = np.array(regrets, dtype=np.float64)
        self.regrets = regrets
        self.prediction = np.array(state.prediction, dtype=np.float64)
        self.behaviour = np.array(state.behaviour, dtype=np.float64)
        self.round = int(state.round)
        self._rule, self._kind = learner.local, learner.prediction_kind
        self._plus = learner.local in ("rm+", "prm+")
        self._discounts = learner.discounts if learner.local == "dcfr" else None
        self._buffer = np.empty(self._treeplex.dimension)

    def play(self, weight, current_loss=None):
        b = local_strategies(self.learner, self.regrets, self.prediction, self.behaviour, weight)
        self.behaviour = b
        return self._treeplex.to_sequence(b)

    def update(self, point, loss, weight, induced_loss=None) -> None:
        linear = linear_part(loss, point)
        utility = self._buffer
        np.negative(linear, out=utility)
        regret, _ = counterfactual_regrets(self._treeplex, utility, self.behaviour)
        accumulate_regrets(self.regrets, regret, weight, self._plus)
        if self._discounts is not None:
            alpha, beta = self._discounts
            discount_regrets(self.regrets, dcfr_factor(self.round, alpha), dcfr_factor(self.round, beta))
        if self._kind == "simple":
            self.prediction = regret
        elif self._kind == "counterfactual":
            self.prediction = np.array(linear, dtype=np.float64)
        self.round += 1

    def loss_sum(self):
        return None  # the learner keeps regrets, not the loss sum: the runner keeps it

    @property
    def state(self) -> CounterfactualState:
        """The pure state this player is at (sharing its arrays)."""
        return CounterfactualState(self.regrets, self.prediction, self.behaviour, self.round)
