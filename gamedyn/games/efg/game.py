r"""Two-player zero-sum extensive-form games in sequence form: :class:`ExtensiveFormGame` and its builder.

A game in sequence form (Koller, Megiddo & von Stengel 1996; von Stengel 1996) is

* one :class:`gamedyn.Treeplex` per player (the sequences of her information sets, ordered by depth),
* the sparse payoff :math:`A\in\mathbb R^{|\Sigma_0|\times|\Sigma_1|}`,
  :math:`A_{\sigma\tau}=\sum_zp_c(z)u_0(z)` over the terminal histories z whose last sequences are
  :math:`\sigma` and :math:`\tau` (:math:`p_c` the chance probability, :math:`u_0` the first player's
  payoff), so that the first player's expected payoff is :math:`x^\top Ay`,
* the names: each infoset's information-state string and each sequence's action id, so that a
  sequence-form strategy reads as a policy ``{information state: {action id: probability}}``.

:class:`GameBuilder` builds one from infosets and terminals in any order (a loader, a converter from
another library, a walk of a game tree); :func:`from_rules` walks the rules of
:mod:`gamedyn.games.efg.rules` once. The dense payoff tensor is never formed: A holds one entry per
pair of sequences that ends a terminal history (Liar's dice with 6 faces: 24,571 sequences a
player, 294,840 entries).
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np
import scipy.sparse as sp

from gamedyn.certify.sequence_form import SequenceFormBracket, SequenceFormProducts, sequence_form_bracket
from gamedyn.core.treeplex import Treeplex
from gamedyn.games.efg.rules import CHANCE, TERMINAL
from gamedyn.games.matrix.game import MatrixGame

__all__ = ["DENSE_PAYOFF_MAX_ENTRIES", "ExtensiveFormGame", "GameBuilder", "from_rules", "sequence_form_lp"]

DENSE_PAYOFF_MAX_ENTRIES = 16384  # ExtensiveFormGame.payoff(): an A of at most this many entries is played dense


@attrs.frozen(eq=False)
class ExtensiveFormGame:
    r"""A two-player zero-sum extensive-form game in sequence form (see the module docstring).

    The first player (0, x) maximises :math:`x^\top Ay`, the second (1, y) minimises it.

    Attributes
    ----------
    name : str
        The game's name (``"kuhn_poker"``, ``"goofspiel(4)"``, ...).
    treeplexes : (Treeplex, Treeplex)
        Each player's strategy set.
    A : scipy.sparse.csr_matrix
        The first player's payoff, chance included.
    infosets : (tuple of str, tuple of str)
        Each player's information-state strings, in the treeplex's order of infosets.
    actions : (numpy.ndarray, numpy.ndarray)
        Each player's action id of every sequence (-1 for the empty one).
    rules : object or None
        The rules the game was built from (:mod:`gamedyn.games.efg.rules`), which the original-form
        loops walk; None for a game built otherwise.
    """

    name: str
    treeplexes: tuple
    A: Any = attrs.field(repr=False)
    infosets: tuple = attrs.field(repr=False)
    actions: tuple = attrs.field(repr=False)
    rules: Any = attrs.field(default=None, repr=False)
    _index: tuple = attrs.field(init=False, repr=False)
    _products: list = attrs.field(init=False, repr=False, factory=list)  # the certificate's stacked products, once

    def __attrs_post_init__(self):
        for player in (0, 1):
            treeplex, names, actions = self.treeplexes[player], self.infosets[player], self.actions[player]
            if len(names) != treeplex.number_of_infosets or np.shape(actions) != (treeplex.dimension,):
                raise ValueError(f"player {player}: {len(names)} infoset names and {np.shape(actions)} action ids for "
                                 f"{treeplex!r}: one name per infoset, one action id per sequence.")
        if self.A.shape != (self.treeplexes[0].dimension, self.treeplexes[1].dimension):
            raise ValueError(f"A has shape {self.A.shape}, the treeplexes {self.treeplexes[0].dimension} and "
                             f"{self.treeplexes[1].dimension} sequences.")
        index = tuple({name: j for j, name in enumerate(names)} for names in self.infosets)
        object.__setattr__(self, "_index", index)

    def __repr__(self) -> str:
        sizes = " and ".join(str(treeplex.dimension) for treeplex in self.treeplexes)
        return f"ExtensiveFormGame({self.name!r}: {sizes} sequences, {self.A.nnz} payoff entries)"

    def payoff(self) -> MatrixGame:
        """The payoff :math:`x^\\top Ay` for :func:`gamedyn.play`: a :class:`gamedyn.MatrixGame` on the two treeplexes.

        A game whose A has at most :data:`DENSE_PAYOFF_MAX_ENTRIES` entries (stored or not: Kuhn's 13 x 13) plays
        a dense float64 copy of A: a round's two products then cost a BLAS call of ~2 us each where scipy's
        sparse product pays ~5-9 us of per-call work (measured at 13 x 13 to 128 x 128, 10 % density; issue 35,
        ``benchmarks/kuhn_overhead.py``). The same products up to the order of their sums."""
        A = self.A
        if A.shape[0] * A.shape[1] <= DENSE_PAYOFF_MAX_ENTRIES:
            A = np.asarray(A.toarray(), dtype=np.float64)
        return MatrixGame(A, row_domain=self.treeplexes[0], column_domain=self.treeplexes[1])

    # --------------------------------------------------------------------------- strategies and policies

    def _check_player(self, player) -> int:
        if player not in (0, 1) or isinstance(player, bool):
            raise ValueError(f"player must be 0 (the first player, x) or 1 (the second, y), got {player!r}.")
        return int(player)

    def sequence(self, player: int, infoset: str, action: int) -> int:
        """The index of the sequence (``infoset``, ``action``) in the player's treeplex."""
        player = self._check_player(player)
        j = self._index[player].get(infoset)
        if j is None:
            raise KeyError(f"player {player} has no information state {infoset!r} in {self.name}.")
        treeplex = self.treeplexes[player]
        lo, hi = int(treeplex.starts[j]), int(treeplex.starts[j + 1])
        found = np.flatnonzero(self.actions[player][lo:hi] == action)
        if found.size == 0:
            raise KeyError(f"action {action!r} is not legal at {infoset!r}; legal: {self.actions[player][lo:hi].tolist()}.")
        return lo + int(found[0])

    def policy(self, player: int, strategy) -> dict:
        """The behavioural strategy of a sequence-form ``strategy`` as ``{information state: {action id: probability}}``.

        Infosets the strategy never reaches get the uniform distribution (as OpenSpiel's tabular
        policies do); the probabilities of each infoset sum to 1.
        """
        player = self._check_player(player)
        treeplex = self.treeplexes[player]
        b = treeplex.to_behavioural(strategy)
        actions = self.actions[player].tolist()
        starts = treeplex.starts.tolist()
        return {name: {actions[s]: float(b[s]) for s in range(starts[j], starts[j + 1])}
                for j, name in enumerate(self.infosets[player])}

    def sequence_form(self, player: int, policy) -> np.ndarray:
        """The sequence form of a policy ``{information state: {action id: probability}}`` (a callable
        ``state -> {action: probability}`` works too; an infoset it does not name plays uniformly)."""
        player = self._check_player(player)
        treeplex = self.treeplexes[player]
        b = treeplex.uniform_behaviour()
        lookup = policy if callable(policy) else policy.get
        for j, name in enumerate(self.infosets[player]):
            given = lookup(name)
            if given is None:
                continue
            for s in range(int(treeplex.starts[j]), int(treeplex.starts[j + 1])):
                b[s] = float(given.get(int(self.actions[player][s]), 0.0))
        return treeplex.to_sequence(b)

    def uniform(self, player: int) -> np.ndarray:
        """The sequence form of the uniform policy of ``player``."""
        treeplex = self.treeplexes[self._check_player(player)]
        return treeplex.default_centre(treeplex.dimension)

    # --------------------------------------------------------------------------------- certificates

    def value(self, x, y) -> float:
        """The first player's expected payoff :math:`x^\\top Ay`."""
        return float(np.asarray(x, dtype=np.float64) @ (self.A @ np.asarray(y, dtype=np.float64)))

    def bracket(self, x, y) -> SequenceFormBracket:
        """The certified value bracket, Nash gap and exploitability of the policies of x and y
        (:func:`gamedyn.certify.sequence_form.sequence_form_bracket`)."""
        if not self._products:
            self._products.append(SequenceFormProducts(self.A, self.treeplexes))
        return sequence_form_bracket(self.A, self.treeplexes, x, y, products=self._products[0])

    def nash_gap(self, x, y) -> float:
        """NashConv of the policies of x and y (the sum of the best-response gains; certified)."""
        return self.bracket(x, y).nash_gap

    def exploitability(self, x, y) -> float:
        """NashConv / 2, OpenSpiel's ``exploitability`` of the policies of x and y (certified)."""
        return self.bracket(x, y).exploitability

    def best_response(self, player: int, opponent) -> tuple:
        """``(value, strategy)``: ``player``'s best response to the opponent's sequence-form strategy
        (a pure strategy; value = her expected payoff, the first player's for 0, the second's for 1)."""
        player = self._check_player(player)
        opponent = np.asarray(opponent, dtype=np.float64)
        if player == 0:
            return self.treeplexes[0].best_response(self.A @ opponent, maximize=True)
        value, strategy = self.treeplexes[1].best_response(self.A.T @ opponent)
        return -value, strategy


# --------------------------------------------------------------------------------------------- building


class GameBuilder:
    """Builds an :class:`ExtensiveFormGame` from infosets and terminal payoffs given in any order.

    A sequence is named by ``(information state, action id)``; the empty sequence by None.

    * :meth:`infoset` ``(player, name, parent, actions)``: an information set of ``player`` whose
      parent sequence is ``parent`` and whose actions are ``actions`` (declared once; a repeat must agree);
    * :meth:`terminal` ``(sequence_0, sequence_1, value)``: add ``value`` (chance probability times
      the first player's payoff) to the entry of the pair of sequences that ends a terminal history;
    * :meth:`build` ``(name)``: the game (infosets sorted by depth, the payoff summed into CSR).

    Examples
    --------
    Matching pennies as a one-infoset game per player (the second player does not see the first's coin):

    >>> builder = GameBuilder()
    >>> builder.infoset(0, "x", None, [0, 1]); builder.infoset(1, "y", None, [0, 1])
    >>> for a in (0, 1):
    ...     for b in (0, 1):
    ...         builder.terminal(("x", a), ("y", b), 1.0 if a == b else -1.0)
    >>> game = builder.build("matching pennies")
    >>> game.A.toarray().tolist()
    [[0.0, 0.0, 0.0], [0.0, 1.0, -1.0], [0.0, -1.0, 1.0]]
    """

    def __init__(self):
        self._infosets: tuple = ({}, {})  # name -> (parent, actions), in first-seen order
        self._rows: list = []
        self._columns: list = []
        self._values: list = []

    def infoset(self, player: int, name: str, parent, actions) -> None:
        """Declare ``player``'s infoset ``name`` below sequence ``parent`` with these ``actions``."""
        if player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, got {player!r}.")
        actions = tuple(int(action) for action in actions)
        if not actions or len(set(actions)) != len(actions):
            raise ValueError(f"infoset {name!r} needs distinct actions, got {list(actions)}.")
        known = self._infosets[player].get(name)
        if known is None:
            self._infosets[player][name] = (parent, actions)
        elif known != (parent, actions):
            raise ValueError(f"infoset {name!r} of player {player} was declared with parent {known[0]!r} and actions "
                             f"{list(known[1])}, now with {parent!r} and {list(actions)}: the game is not of perfect "
                             f"recall, or two infosets share a name.")

    def terminal(self, sequence_0, sequence_1, value: float) -> None:
        """Add ``value`` to the payoff entry of the pair of last sequences ``(sequence_0, sequence_1)``."""
        self._rows.append(sequence_0)
        self._columns.append(sequence_1)
        self._values.append(float(value))

    def _layout(self, player: int) -> tuple:
        """The player's treeplex, infoset names, action ids and ``{sequence name: index}``."""
        infosets = self._infosets[player]
        depth: dict = {}

        def depth_of(name, seen=()):
            if name not in depth:
                parent = infosets[name][0]
                if parent is None:
                    depth[name] = 0
                else:
                    owner = parent[0]
                    if owner not in infosets or parent[1] not in infosets[owner][1]:
                        raise ValueError(f"infoset {name!r}'s parent {parent!r} is not a sequence of player {player}.")
                    if owner in seen:
                        raise ValueError(f"infoset {name!r} lies below itself.")
                    depth[name] = depth_of(owner, seen + (name,)) + 1
            return depth[name]

        order = sorted(infosets, key=lambda name: depth_of(name))  # stable: first-seen order within a depth
        index: dict = {None: 0}
        parents, sizes, actions = [], [], [-1]
        for name in order:
            _, moves = infosets[name]
            for action in moves:
                index[(name, action)] = len(actions)
                actions.append(action)
        for name in order:
            parents.append(index[infosets[name][0]])
            sizes.append(len(infosets[name][1]))
        return Treeplex(parents, sizes), tuple(order), np.asarray(actions, dtype=np.int64), index

    def build(self, name: str, rules=None) -> ExtensiveFormGame:
        """The game: both treeplexes and the summed sparse payoff."""
        layouts = [self._layout(player) for player in (0, 1)]
        try:
            rows = np.fromiter((layouts[0][3][key] for key in self._rows), dtype=np.int64, count=len(self._rows))
            columns = np.fromiter((layouts[1][3][key] for key in self._columns), dtype=np.int64,
                                  count=len(self._columns))
        except KeyError as error:
            raise ValueError(f"a terminal names the sequence {error.args[0]!r}, which no infoset declares.") from None
        values = np.asarray(self._values, dtype=np.float64)
        if not np.all(np.isfinite(values)):
            raise ValueError("every terminal value must be finite.")
        shape = (layouts[0][0].dimension, layouts[1][0].dimension)
        A = sp.csr_matrix((values, (rows, columns)), shape=shape)  # duplicates are summed
        A.sum_duplicates()
        A.eliminate_zeros()
        return ExtensiveFormGame(name, (layouts[0][0], layouts[1][0]), A, (layouts[0][1], layouts[1][1]),
                                 (layouts[0][2], layouts[1][2]), rules)


def from_rules(rules, name: str | None = None) -> ExtensiveFormGame:
    """Walk the rules' game tree once (:mod:`gamedyn.games.efg.rules`) into an :class:`ExtensiveFormGame`."""
    builder = GameBuilder()
    infoset, terminal = builder.infoset, builder.terminal
    to_move, child, outcomes = rules.to_move, rules.child, rules.chance_outcomes
    legal, information_state, returns = rules.legal_actions, rules.information_state, rules.returns

    def walk(state, last, probability):
        player = to_move(state)
        if player == TERMINAL:
            terminal(last[0], last[1], probability * returns(state))
        elif player == CHANCE:
            for action, chance in outcomes(state):
                walk(child(state, action), last, probability * chance)
        else:
            key = information_state(state, player)
            actions = legal(state)
            infoset(player, key, last[player], actions)
            for action in actions:
                sequence = (key, action)
                walk(child(state, action), (sequence, last[1]) if player == 0 else (last[0], sequence), probability)

    walk(rules.initial(), (None, None), 1.0)
    return builder.build(name or rules.name, rules)



def _constraints(treeplex) -> tuple:
    """``(F, f)``: the treeplex's equalities ``F x = f`` (x_empty = 1; each infoset's actions sum to its parent)."""
    J, n = treeplex.number_of_infosets, treeplex.dimension
    own = np.arange(1, n)
    rows = np.concatenate([[0], treeplex.infoset_of[1:] + 1, np.arange(1, J + 1)])
    columns = np.concatenate([[0], own, treeplex.parents])
    values = np.concatenate([[1.0], np.ones(n - 1), -np.ones(J)])
    f = np.zeros(J + 1)
    f[0] = 1.0
    return sp.csr_matrix((values, (rows, columns)), shape=(J + 1, n)), f


def _maximin(A, X, Y) -> tuple:
    r""":math:`\max_{x\in X}\min_{y\in Y}x^\top Ay` by its dual in y: max :math:`f_Y^\top v` s.t.
    :math:`F_Y^\top v\le A^\top x`, :math:`F_Xx=f_X`, :math:`x\ge0` (Koller, Megiddo & von Stengel 1996)."""
    import scipy.optimize

    FX, fX = _constraints(X)
    FY, fY = _constraints(Y)
    n, m, k = X.dimension, Y.dimension, FY.shape[0]
    cost = np.concatenate([np.zeros(n), -fY])
    upper = sp.hstack([-sp.csr_matrix(A).T, FY.T], format="csr")
    equality = sp.hstack([FX, sp.csr_matrix((FX.shape[0], k))], format="csr")
    bounds = [(0.0, None)] * n + [(None, None)] * k
    solution = scipy.optimize.linprog(cost, A_ub=upper, b_ub=np.zeros(m), A_eq=equality, b_eq=fX, bounds=bounds,
                                      method="highs")
    if solution.status != 0:  # pragma: no cover - a finite game always has a value
        raise RuntimeError(f"the sequence-form LP failed: {solution.message}")
    return float(-solution.fun), np.maximum(solution.x[:n], 0.0)


def sequence_form_lp(game: ExtensiveFormGame) -> tuple:
    """``(value, x, y, bracket)``: the game's value and an equilibrium by the sequence-form LP of each player
    (scipy's HiGHS, sparse), and the certified bracket of that pair (HiGHS's tolerance, about 1e-9, in its width).

    For small games and as the exact reference of the CFR rows of ``gamedyn reproduce``.
    """
    X, Y = game.treeplexes
    value, x = _maximin(game.A, X, Y)
    _, y = _maximin(-game.A.T, Y, X)
    return value, x, y, game.bracket(x, y)
