r"""CFR, CFR+, DCFR and PCFR+ in their original form: a recursive walk over histories with per-infoset tables.

Plain Python and numpy, no other gamedyn import but the game rules: these loops are the
independent "original form" the recipes :func:`gamedyn.recipes.cfr`, :func:`gamedyn.recipes.cfr_plus`,
:func:`gamedyn.recipes.dcfr` and :func:`gamedyn.recipes.pcfr_plus` are proven equal to, play by play
and average by average (tests/test_efg_recipes.py; ``gamedyn reproduce``). They are written as the
papers write them (Zinkevich, Johanson, Bowling & Piccione 2007, Algorithm 1; Tammelin 2014; Brown &
Sandholm 2019; Farina, Kroer & Sandholm 2021): a table of regrets per information set, keyed by its
information-state string, and every iteration a recursive walk of the game tree that computes, for
the updating player i and each of her infosets I,

.. math::

    v_I(a)=\sum_{h\in I}\pi_{-i}(h)\,u_i(ha),\qquad r_I(a)=v_I(a)-\sum_b\sigma_I(b)v_I(b),

with :math:`\pi_{-i}(h)` the opponent's and chance's reach and :math:`u_i(ha)` the expected payoff
below :math:`ha` under the current strategies. The history tree is read from the rules once
(:class:`HistoryTree`); the walks visit every history every iteration (no pruning: a history
reached with probability 0 contributes 0).

**Local rules** (``local``), on each infoset's regrets R (update count k of the player):

* ``"rm"``: :math:`R\mathrel{+}=r`, :math:`\sigma\propto[R]^+` (uniform if none positive);
* ``"rm+"``: :math:`R\leftarrow[R+r]^+`;
* ``"dcfr"``: :math:`R\mathrel{+}=r`, then each entry times :math:`k^\alpha/(k^\alpha+1)` if >= 0, else
  :math:`k^\beta/(k^\beta+1)`;
* ``"prm"`` / ``"prm+"``: as ``"rm"`` / ``"rm+"``, playing :math:`[R+m]^+` normalised with the predicted
  regret m: the last local regret (``prediction="simple"``), or (``"counterfactual"``) the regret of
  the values :math:`\hat v_I` of the opponent's last strategy under the player's *new* strategies
  below I, found infoset depth by infoset depth from the deepest, :math:`m_I=\hat v_I-\langle\sigma^{\rm prev}_I,\hat v_I\rangle`;
* ``"hedge"``: :math:`R\mathrel{+}=r`, :math:`\sigma\propto e^{\eta R}`.

**Order** (``order``):

* ``"simultaneous"``: iteration t: both players' strategies :math:`\sigma^t`; both update against them;
* ``"alternating"`` (gamedyn's, the order of Tammelin's CFR+ as :func:`gamedyn.play` runs it): player 0
  first updates once against player 1's uniform start, then every iteration t: player 1 updates
  against player 0's current strategy (so it sees it), then both current strategies are the
  iteration's plays :math:`(x_t,y_t)` (averaged with weight :math:`\omega_t`), then player 0 updates
  against player 1's new strategy;
* ``"openspiel"`` (the negative control: OpenSpiel's ``CFRPlusSolver`` indexing): every iteration t:
  player 0 adds its current strategy to its average with weight :math:`\omega_t`, updates against
  player 1's current strategy; then player 1 adds its current strategy, updates against player 0's
  new one. The same plays one step earlier in the averages: OpenSpiel's average holds the uniform
  start and not the last play.

The averages are reach-weighted, :math:`\bar s_I(a)=\sum_t\omega_t\pi_i^t(I)\sigma^t_I(a)`, and are
returned as the sequence form :math:`\bar s_I(a)/\sum_t\omega_t`, keyed ``(information state, action)``.
"""

from __future__ import annotations

import math

import attrs
import numpy as np

from gamedyn.games.efg.rules import CHANCE, TERMINAL

__all__ = ["HistoryTree", "OriginalPath", "cfr", "counterfactual_values", "dcfr_factor_of_paper"]

ORDERS = ("simultaneous", "alternating", "openspiel")
RULES = ("rm", "rm+", "prm", "prm+", "dcfr", "hedge")


@attrs.frozen
class _Node:
    kind: int  # CHANCE, TERMINAL or the player to move
    infoset: str | None = None
    actions: tuple = ()
    children: tuple = ()
    probabilities: tuple = ()
    payoff: float = 0.0  # the first player's, at a terminal


class HistoryTree:
    """The game tree of a rules object (:mod:`gamedyn.games.efg.rules`), read once: every history a node."""

    def __init__(self, rules):
        self.rules = rules
        self.actions: tuple = ({}, {})  # infoset -> legal actions, per player
        self.depth: tuple = ({}, {})  # infoset -> the number of the player's own infosets above it
        self.root = self._build(rules.initial(), [0, 0])

    def _build(self, state, depths):
        rules = self.rules
        kind = rules.to_move(state)
        if kind == TERMINAL:
            return _Node(TERMINAL, payoff=float(rules.returns(state)))
        if kind == CHANCE:
            outcomes = rules.chance_outcomes(state)
            return _Node(CHANCE, actions=tuple(a for a, _ in outcomes),
                         children=tuple(self._build(rules.child(state, a), depths) for a, _ in outcomes),
                         probabilities=tuple(p for _, p in outcomes))
        infoset = rules.information_state(state, kind)
        actions = tuple(rules.legal_actions(state))
        self.actions[kind][infoset] = actions
        self.depth[kind][infoset] = depths[kind]
        deeper = list(depths)
        deeper[kind] += 1
        return _Node(kind, infoset, actions, tuple(self._build(rules.child(state, a), deeper) for a in actions))


def counterfactual_values(tree: HistoryTree, player: int, strategies) -> tuple:
    r"""One walk of the tree: ``(v, reach, value)`` for ``player`` under ``strategies`` (one dict per player,
    infoset -> probabilities of its actions).

    ``v[I][a]`` = :math:`\sum_{h\in I}\pi_{-i}(h)u_i(ha)` (the counterfactual values), ``reach[I]`` =
    :math:`\pi_i(I)` (the player's own reach), ``value`` = the player's expected payoff.
    """
    sign = 1.0 if player == 0 else -1.0
    values: dict = {}
    reach: dict = {}

    def walk(node, own, other):
        if node.kind == TERMINAL:
            return sign * node.payoff
        if node.kind == CHANCE:
            return sum(p * walk(child, own, other * p) for child, p in zip(node.children, node.probabilities))
        sigma = strategies[node.kind][node.infoset]
        if node.kind == player:
            reach[node.infoset] = own
            below = np.array([walk(child, own * sigma[k], other) for k, child in enumerate(node.children)])
            if node.infoset in values:
                values[node.infoset] = values[node.infoset] + other * below
            else:
                values[node.infoset] = other * below
            return float(sigma @ below)
        return sum(sigma[k] * walk(child, own, other * sigma[k]) for k, child in enumerate(node.children))

    value = walk(tree.root, 1.0, 1.0)
    return values, reach, value


def dcfr_factor_of_paper(k: int, exponent: float) -> float:
    r"""DCFR's discount as Brown & Sandholm write it, :math:`k^e/(k^e+1)` (:math:`e=\infty`: 1, :math:`-\infty`: 0)."""
    if exponent == math.inf:
        return 1.0 if k > 1 else 0.5
    if exponent == -math.inf:
        return 0.0 if k > 1 else 0.5
    power = float(k) ** exponent
    return power / (power + 1.0)


def _regret_matching(theta) -> np.ndarray:
    positive = np.maximum(theta, 0.0)
    total = positive.sum()
    return positive / total if total > 0.0 else np.full(theta.shape, 1.0 / theta.size)


@attrs.frozen
class OriginalPath:
    """What :func:`cfr` returns: the averages and, with ``trajectory=True``, every iteration's plays.

    ``x`` / ``y``: the average sequence forms ``{(infoset, action): value}``; ``plays``: per iteration
    ``(x_t, y_t)`` as such dicts (empty without ``trajectory``); ``regrets``: each player's final
    tables ``{infoset: array}``.
    """

    x: dict
    y: dict
    plays: list
    regrets: tuple


class _Player:
    """One player's tables and local rule."""

    def __init__(self, tree, player, local, alpha, beta, eta, prediction):
        self.tree, self.player, self.local = tree, player, local
        self.alpha, self.beta, self.eta, self.prediction = alpha, beta, eta, prediction
        self.regrets = {infoset: np.zeros(len(actions)) for infoset, actions in tree.actions[player].items()}
        self.predicted = {infoset: np.zeros(len(actions)) for infoset, actions in tree.actions[player].items()}
        self.last_opponent = None  # the opponent's strategy of the last update (the counterfactual prediction)
        self.updates = 0
        self.strategy = {infoset: np.full(len(actions), 1.0 / len(actions))
                         for infoset, actions in tree.actions[player].items()}
        self.strategy = self.next_strategy()

    def local_play(self, infoset, predicted) -> np.ndarray:
        regrets = self.regrets[infoset]
        if self.local == "hedge":
            theta = self.eta * (regrets - regrets.max())
            weights = np.exp(theta)
            return weights / weights.sum()
        if self.local in ("prm", "prm+"):
            return _regret_matching(regrets + predicted)
        return _regret_matching(regrets)

    def next_strategy(self) -> dict:
        if self.local in ("prm", "prm+") and self.prediction == "counterfactual" and self.last_opponent is not None:
            return self._counterfactual_strategy()
        return {infoset: self.local_play(infoset, self.predicted[infoset]) for infoset in self.regrets}

    def _counterfactual_strategy(self) -> dict:
        """Depth by depth from the deepest: the predicted values of the opponent's last strategy under the
        new strategies below, paired with the previous strategy, then the rule's play."""
        depth = self.tree.depth[self.player]
        new = dict(self.strategy)  # the previous strategy; replaced from the deepest infosets up
        for level in sorted(set(depth.values()), reverse=True):
            strategies = [None, None]
            strategies[self.player], strategies[1 - self.player] = new, self.last_opponent
            values, _, _ = counterfactual_values(self.tree, self.player, strategies)
            for infoset in (name for name, d in depth.items() if d == level):
                predicted_values = values[infoset]
                previous = self.strategy[infoset]
                new[infoset] = self.local_play(infoset, predicted_values - previous @ predicted_values)
        return new

    def update(self, opponent: dict) -> None:
        strategies = [None, None]
        strategies[self.player], strategies[1 - self.player] = self.strategy, opponent
        values, _, _ = counterfactual_values(self.tree, self.player, strategies)
        self.updates += 1
        for infoset, v in values.items():
            regret = v - self.strategy[infoset] @ v
            table = self.regrets[infoset] + regret
            if self.local in ("rm+", "prm+"):
                table = np.maximum(table, 0.0)
            if self.local == "dcfr":
                positive = dcfr_factor_of_paper(self.updates, self.alpha)
                negative = dcfr_factor_of_paper(self.updates, self.beta)
                table = np.where(table >= 0.0, table * positive, table * negative)
            self.regrets[infoset] = table
            self.predicted[infoset] = regret
        self.last_opponent = opponent
        self.strategy = self.next_strategy()

    def sequence_form(self) -> dict:
        """The current strategy's sequence form ``{(infoset, action): pi_i(I) sigma_I(a)}``."""
        reach: dict = {}

        def walk(node, own):
            if node.kind == TERMINAL:
                return
            if node.kind != self.player:  # chance and the opponent do not change the player's own reach
                for child in node.children:
                    walk(child, own)
                return
            reach[node.infoset] = own
            sigma = self.strategy[node.infoset]
            for k, child in enumerate(node.children):
                walk(child, own * sigma[k])

        walk(self.tree.root, 1.0)
        return {(infoset, action): reach[infoset] * self.strategy[infoset][k]
                for infoset, actions in self.tree.actions[self.player].items() for k, action in enumerate(actions)}


def cfr(tree_or_rules, T: int, *, local: str = "rm", order: str = "simultaneous", averaging=0.0, alpha: float = 1.5,
        beta: float = 0.0, eta: float | None = None, prediction: str = "simple", trajectory: bool = False) -> OriginalPath:
    r"""Run T iterations of CFR with the local rule ``local`` in the order ``order`` (see the module docstring).

    ``averaging`` is the exponent p of the averaging weights :math:`\omega_t=t^p` (0 uniform, 1 linear,
    2 quadratic; DCFR's gamma). Returns the average sequence forms and, with ``trajectory``, every
    iteration's plays.
    """
    if local not in RULES or order not in ORDERS:
        raise ValueError(f"local must be one of {RULES} and order one of {ORDERS}, got {local!r} and {order!r}.")
    tree = tree_or_rules if isinstance(tree_or_rules, HistoryTree) else HistoryTree(tree_or_rules)
    players = [_Player(tree, p, local, alpha, beta, eta, prediction) for p in (0, 1)]
    sums: list[dict] = [{}, {}]
    total = 0.0
    plays: list = []

    def add(player, weight):
        form = players[player].sequence_form()
        for key, value in form.items():
            sums[player][key] = sums[player].get(key, 0.0) + weight * value
        return form

    if order == "alternating":
        players[0].update(players[1].strategy)
    for t in range(1, T + 1):
        weight = float(t) ** averaging
        total += weight
        if order == "simultaneous":
            current = [players[0].strategy, players[1].strategy]
            forms = [add(0, weight), add(1, weight)]
            players[0].update(current[1])
            players[1].update(current[0])
        elif order == "alternating":
            players[1].update(players[0].strategy)
            forms = [add(0, weight), add(1, weight)]
            players[0].update(players[1].strategy)
        else:  # OpenSpiel's indexing
            forms = [add(0, weight), None]
            players[0].update(players[1].strategy)
            forms[1] = add(1, weight)
            players[1].update(players[0].strategy)
        if trajectory:
            plays.append(tuple(forms))
    averages = [{key: value / total for key, value in sums[p].items()} for p in (0, 1)]
    return OriginalPath(averages[0], averages[1], plays, (players[0].regrets, players[1].regrets))
