r"""Dilated Hedge, optimistic dilated Hedge and MMD in their original form: recursions over information sets.

Plain Python and numpy, no other gamedyn import but the history tree of
:mod:`gamedyn.games.efg.original` (the game read from its rules): these loops are the independent
"original form" the recipes :func:`gamedyn.recipes.dilated_hedge`,
:func:`gamedyn.recipes.optimistic_dilated_hedge` and :func:`gamedyn.recipes.mmd` are proven equal to
(tests/test_dilated_recipes.py). They are written as the papers write them: strategies are
behavioural tables keyed by information-state strings; each iteration a walk of the history tree
gives each player's sequence-form loss :math:`\ell_{Ia}=-\sum_z\pi_{-i}(z)u_i(z)`, the sum over the
terminals z whose last own sequence is (I, a); and the prox

.. math::

    \arg\min_{x\in X}\ \langle\ell,x\rangle+s\,R(x),\qquad
    R(x)=\sum_I\beta_I\sum_ax_{Ia}\log\frac{x_{Ia}}{x_{p(I)}},

is the recursion of Hoda, Gilpin, Peña & Sandholm (2010, the smoothed best response of a treeplex),
written with the *full* gradient of R, constants included,
:math:`\nabla R(x)_{Ia}=\beta_I(\log b_I(a)+1)-\sum_{J\in C(I,a)}\beta_J`:

.. math::

    V_I=-s\beta_I\log\sum_a\exp\Big(-\frac{\ell_{Ia}+\sum_{J\in C(I,a)}V_J}{s\beta_I}\Big),\qquad
    b_I(a)\propto\exp\Big(-\frac{\ell_{Ia}+\sum_{J\in C(I,a)}V_J}{s\beta_I}\Big),

C(I, a) the player's next infosets below (I, a), by recursion from the top. The three methods:

* FTRL (dilated Hedge): :math:`\ell=\eta\sum_{s<t}\ell_s-\nabla R(x_0)`, s = 1;
* OFTRL (optimistic): :math:`\ell=\eta(\sum_{s<t}\ell_s+\ell_{t-1})-\nabla R(x_0)`, :math:`\ell_0` the loss
  against the opponent's start;
* MMD (Sokota et al. 2023): :math:`x_{t+1}` with :math:`\ell=\eta\ell_t-\eta\alpha_t\nabla R(\rho)-\nabla R(x_t)`,
  :math:`s=1+\eta\alpha_t` (the argmin of :math:`\eta(\langle\ell_t,x\rangle+\alpha_tD_R(x,\rho))+D_R(x,x_t)`);
  with a moving magnet, :math:`\rho` is replaced every ``stage`` rounds (see :func:`dilated`);
* optimistic MMD: secondaries :math:`z_t` (:math:`z_0` the start), the play :math:`x_t` with
  :math:`\ell=\eta\ell_{t-1}-\eta\alpha_t\nabla R(\rho)-\nabla R(z_{t-1})` and :math:`z_t` with
  :math:`\ell_t` in its place, both with :math:`s=1+\eta\alpha_t`; after a round where a new stage begins
  (``restart``) the secondary is replaced by the play.

Both players update simultaneously; the starts and the magnet (until it moves) are the uniform strategies.
"""

from __future__ import annotations

import math

import attrs

from gamedyn.games.efg.original import HistoryTree
from gamedyn.games.efg.rules import CHANCE, TERMINAL

__all__ = ["DilatedPath", "dilated", "qre_fixed_point"]

METHODS = ("ftrl", "oftrl", "mmd", "ommd")


class _Structure:
    """One player's infosets, their actions, next infosets C(I, a) and the top infosets, read from the tree."""

    def __init__(self, tree: HistoryTree, player: int):
        self.player = player
        self.actions = tree.actions[player]
        self.children: dict = {}
        self.tops: list = []

        def walk(node, last):
            if node.kind == TERMINAL:
                return
            if node.kind != player:
                for child in node.children:
                    walk(child, last)
                return
            siblings = self.tops if last is None else self.children.setdefault(last, [])
            if node.infoset not in siblings:
                siblings.append(node.infoset)
            for k, child in enumerate(node.children):
                walk(child, (node.infoset, k))

        walk(tree.root, None)

    def below(self, infoset, k) -> list:
        return self.children.get((infoset, k), [])


def _losses(tree: HistoryTree, player: int, opponent: dict) -> dict:
    """The player's sequence-form loss against the opponent's behavioural strategy ``{(infoset, k): value}``."""
    sign = 1.0 if player == 0 else -1.0
    loss: dict = {}

    def walk(node, last, reach):
        if node.kind == TERMINAL:
            if last is not None:
                loss[last] = loss.get(last, 0.0) - reach * sign * node.payoff
            return
        if node.kind == CHANCE:
            for child, p in zip(node.children, node.probabilities):
                walk(child, last, reach * p)
            return
        if node.kind == player:
            for k, child in enumerate(node.children):
                walk(child, (node.infoset, k), reach)
            return
        sigma = opponent[node.infoset]
        for k, child in enumerate(node.children):
            walk(child, last, reach * sigma[k])

    walk(tree.root, None, 1.0)
    return loss


def _gradient(structure: _Structure, behaviour: dict, beta) -> dict:
    """:math:`\\nabla R` at a behavioural strategy, constants included."""
    gradient = {}
    for infoset, actions in structure.actions.items():
        for k in range(len(actions)):
            gradient[(infoset, k)] = (beta(infoset) * (math.log(behaviour[infoset][k]) + 1.0)
                                      - sum(beta(J) for J in structure.below(infoset, k)))
    return gradient


def _prox(structure: _Structure, linear: dict, scale: float, beta) -> dict:
    """The behavioural strategy of argmin <linear, x> + scale R(x), by the recursion of the module docstring."""
    behaviour: dict = {}

    def value(infoset) -> float:
        width = scale * beta(infoset)
        costs = [linear.get((infoset, k), 0.0) + sum(value(J) for J in structure.below(infoset, k))
                 for k in range(len(structure.actions[infoset]))]
        exponents = [-cost / width for cost in costs]
        top = max(exponents)
        weights = [math.exp(e - top) for e in exponents]
        total = sum(weights)
        behaviour[infoset] = [w / total for w in weights]
        return -width * (top + math.log(total))

    for infoset in structure.tops:
        value(infoset)
    return behaviour


def _sequence_form(structure: _Structure, behaviour: dict) -> dict:
    """``{(infoset, action id): reach * probability}``."""
    form = {}

    def down(infoset, reach):
        for k, action in enumerate(structure.actions[infoset]):
            form[(infoset, action)] = reach * behaviour[infoset][k]
            for J in structure.below(infoset, k):
                down(J, reach * behaviour[infoset][k])

    for infoset in structure.tops:
        down(infoset, 1.0)
    return form


def _uniform(structure: _Structure) -> dict:
    return {infoset: [1.0 / len(actions)] * len(actions) for infoset, actions in structure.actions.items()}


@attrs.frozen
class DilatedPath:
    """What :func:`dilated` returns: ``x``, ``y`` the uniform averages of the plays, ``plays`` per round ``(x_t, y_t)``,
    ``last`` the iterates after T steps (``(x_{T+1}, y_{T+1})``; optimistic MMD: the plays of round T), all as
    ``{(infoset, action id): value}``."""

    x: dict
    y: dict
    plays: list
    last: tuple


def dilated(tree_or_rules, T: int, *, method: str, eta: float, alpha=0.0, beta=None, moving=None,
            restart=None) -> DilatedPath:
    r"""Run T rounds of ``method`` (``"ftrl"``, ``"oftrl"``, ``"mmd"`` or ``"ommd"``) with step ``eta`` (see the
    module docstring).

    ``alpha``: MMD's magnet strength, a number or a function of the round t (1-based) -> :math:`\alpha_t`;
    ``beta``: the weights, a function of the information state (default 1); ``moving``: MMD's moving magnet,
    ``(stage, mix, mix_decay)``: after round t = (k + 1) stage the magnet becomes the next iterate's behavioural
    strategy mixed with the uniform one, :math:`(1-\epsilon_k)b+\epsilon_k/|A_I|`, :math:`\epsilon_k` = mix mix_decay^k;
    ``restart``: optimistic MMD's stages, a function of the round t -> True when a new stage begins after it.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}.")
    tree = tree_or_rules if isinstance(tree_or_rules, HistoryTree) else HistoryTree(tree_or_rules)
    weight = beta if beta is not None else (lambda infoset: 1.0)
    strength = alpha if callable(alpha) else (lambda t: alpha)
    structures = [_Structure(tree, p) for p in (0, 1)]
    starts = [_uniform(s) for s in structures]
    centre_gradients = [_gradient(s, b, weight) for s, b in zip(structures, starts)]  # nabla R(x_0) = nabla R(rho)
    sums: list = [{}, {}]  # the running loss sums (FTRL, OFTRL)
    last_losses = [_losses(tree, 0, starts[1]), _losses(tree, 1, starts[0])]  # l_0 against the opponent's start
    current = list(starts)
    secondaries = list(starts)  # optimistic MMD's z_t
    plays: list = []
    averages: list = [{}, {}]
    for t in range(1, T + 1):
        if method in ("ftrl", "oftrl"):
            for p in (0, 1):
                keys = centre_gradients[p]
                linear = {key: eta * (sums[p].get(key, 0.0) + (last_losses[p].get(key, 0.0) if method == "oftrl" else 0.0))
                          - keys[key] for key in keys}
                current[p] = _prox(structures[p], linear, 1.0, weight)
        if method == "ommd":  # the play: the magnetic step from z_{t-1} with the last loss
            a = strength(t)
            current = [_magnetic_step(structures[p], last_losses[p], secondaries[p], centre_gradients[p], eta, a, weight)
                       for p in (0, 1)]
        forms = [_sequence_form(structures[p], current[p]) for p in (0, 1)]
        plays.append(tuple(forms))
        for p in (0, 1):
            for key, value in forms[p].items():
                averages[p][key] = averages[p].get(key, 0.0) + value / T
        losses = [_losses(tree, 0, current[1]), _losses(tree, 1, current[0])]
        if method == "mmd":
            a = strength(t)
            following = []
            for p in (0, 1):
                own = _gradient(structures[p], current[p], weight)
                linear = {key: eta * losses[p].get(key, 0.0) - eta * a * centre_gradients[p][key] - own[key]
                          for key in own}
                following.append(_prox(structures[p], linear, 1.0 + eta * a, weight))
            current = following
            if moving is not None and t % moving[0] == 0:  # the magnet moves to the next iterate, mixed with uniform
                share = max(moving[1] * moving[2] ** (t // moving[0] - 1), 1e-300)
                for p in (0, 1):
                    magnet = {infoset: [(1.0 - share) * b + share / len(probabilities) for b in probabilities]
                              for infoset, probabilities in current[p].items()}
                    centre_gradients[p] = _gradient(structures[p], magnet, weight)
        elif method == "ommd":  # the secondary: the same step with the round's own loss
            secondaries = [_magnetic_step(structures[p], losses[p], secondaries[p], centre_gradients[p], eta, a, weight)
                           for p in (0, 1)]
            if restart is not None and restart(t):
                secondaries = list(current)
        else:
            for p in (0, 1):
                for key, value in losses[p].items():
                    sums[p][key] = sums[p].get(key, 0.0) + value
        last_losses = losses
    if method in ("ftrl", "oftrl"):  # the next play of FTRL / OFTRL
        for p in (0, 1):
            keys = centre_gradients[p]
            linear = {key: eta * (sums[p].get(key, 0.0) + (last_losses[p].get(key, 0.0) if method == "oftrl" else 0.0))
                      - keys[key] for key in keys}
            current[p] = _prox(structures[p], linear, 1.0, weight)
    last = tuple(_sequence_form(structures[p], current[p]) for p in (0, 1))
    return DilatedPath(averages[0], averages[1], plays, last)


def _magnetic_step(structure: _Structure, loss: dict, centre: dict, magnet_gradient: dict, eta: float, a: float,
                   weight) -> dict:
    r"""argmin of :math:`\eta(\langle\ell,x\rangle+aD_R(x,\rho))+D_R(x,c)`: the recursion with
    :math:`\eta\ell-\eta a\nabla R(\rho)-\nabla R(c)` and :math:`s=1+\eta a`."""
    own = _gradient(structure, centre, weight)
    linear = {key: eta * loss.get(key, 0.0) - eta * a * magnet_gradient[key] - own[key] for key in own}
    return _prox(structure, linear, 1.0 + eta * a, weight)


def qre_fixed_point(tree_or_rules, alpha: float, *, damping: float = 0.5, tolerance: float = 1e-13,
                    max_iterations: int = 200_000) -> tuple:
    r"""The :math:`\alpha`-QRE of the game regularized by :math:`\alpha D_R(\cdot,\rho)` (uniform magnet, unit weights),
    by a damped fixed-point iteration of the logit best response on the treeplexes.

    Each player's logit best response to the opponent is :math:`\arg\min_x\langle\ell(y),x\rangle+\alpha D_R(x,\rho)`
    (the recursion above with :math:`\ell(y)-\alpha\nabla R(\rho)` and s = alpha); the iteration mixes the behavioural strategies
    :math:`b\leftarrow(1-\delta)b+\delta\,\mathrm{BR}(b)` until no entry moves more than ``tolerance``.
    Returns ``(x, y, iterations)`` as sequence-form dicts; a ``RuntimeError`` if it does not settle.
    """
    tree = tree_or_rules if isinstance(tree_or_rules, HistoryTree) else HistoryTree(tree_or_rules)
    structures = [_Structure(tree, p) for p in (0, 1)]
    current = [_uniform(s) for s in structures]
    unit = (lambda infoset: 1.0)
    magnets = [_gradient(s, b, unit) for s, b in zip(structures, current)]  # nabla R(rho), rho uniform

    def logit_response(p, opponent):
        loss = _losses(tree, p, opponent)
        return _prox(structures[p], {key: loss.get(key, 0.0) - alpha * g for key, g in magnets[p].items()}, alpha, unit)

    for iteration in range(1, max_iterations + 1):
        responses = [logit_response(0, current[1]), logit_response(1, current[0])]
        moved = 0.0
        for p in (0, 1):
            for infoset, response in responses[p].items():
                old = current[p][infoset]
                new = [(1.0 - damping) * o + damping * r for o, r in zip(old, response)]
                moved = max(moved, max(abs(n - o) for n, o in zip(new, old)))
                current[p][infoset] = new
        if moved <= tolerance:
            return (_sequence_form(structures[0], current[0]), _sequence_form(structures[1], current[1]), iteration)
    raise RuntimeError(f"the damped logit iteration did not settle in {max_iterations} iterations (alpha = {alpha}); "
                       "lower the damping.")
