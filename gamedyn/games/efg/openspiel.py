r"""OpenSpiel in and out: :func:`from_openspiel` (a ``pyspiel`` game into the sparse sequence form) and
:func:`to_tabular_policy` (policies into OpenSpiel's ``TabularPolicy``). Optional extra ``openspiel``.

:func:`from_openspiel` walks the game tree once (each history visited once, depth first, in the order
:func:`gamedyn.games.efg.game.from_rules` builds the built-in games, into flat integer arrays: no
Python object per terminal) and adds each terminal's
chance-weighted payoff to the entry of its pair of last sequences: the sparse payoff A, never
OpenSpiel's dense tensor (``sequence_form_utils`` builds a |Σ_0| x |Σ_1| array: 24,571 x 24,571
float64, 4.8 GB, for Liar's dice with 6 faces). The information sets and action ids are OpenSpiel's
(``information_state_string``, ``legal_actions``), so a policy goes back and forth by name. The built-in
games are reproduced exactly (tests/test_efg_files.py).
"""

from __future__ import annotations

from array import array

import numpy as np
import scipy.sparse as sp

from gamedyn.core.treeplex import Treeplex
from gamedyn.games.efg.game import ExtensiveFormGame

__all__ = ["OpenSpielRules", "from_openspiel", "to_tabular_policy"]


def _pyspiel():
    try:
        import pyspiel
    except ImportError:  # pragma: no cover - the optional extra
        raise ImportError("from_openspiel needs OpenSpiel: pip install gamedyn[openspiel] (open_spiel).") from None
    return pyspiel


class OpenSpielRules:
    """A ``pyspiel`` game seen through the rules interface of :mod:`gamedyn.games.efg.rules` (states are pyspiel states)."""

    def __init__(self, game):
        pyspiel = _pyspiel()
        if isinstance(game, str):
            game = pyspiel.load_game(game)
        kind = game.get_type()
        if game.num_players() != 2:
            raise ValueError(f"from_openspiel needs a two-player game, {game} has {game.num_players()} players.")
        if kind.utility not in (pyspiel.GameType.Utility.ZERO_SUM, pyspiel.GameType.Utility.CONSTANT_SUM):
            raise ValueError(f"from_openspiel needs a zero-sum (or constant-sum) game; {game} is {kind.utility}.")
        if kind.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
            raise ValueError(f"{game} has simultaneous moves: convert it first, "
                             "from_openspiel(pyspiel.convert_to_turn_based(game)).")
        if not kind.provides_information_state_string:
            raise ValueError(f"{game} provides no information-state strings, which name the information sets.")
        self.game = game
        self._terminal = int(pyspiel.PlayerId.TERMINAL)
        self._chance = int(pyspiel.PlayerId.CHANCE)
        self._constant = 0.0
        if kind.utility == pyspiel.GameType.Utility.CONSTANT_SUM:
            self._constant = float(game.utility_sum()) / 2.0  # u_0 - c/2 is zero-sum with the same equilibria

    @property
    def name(self) -> str:
        """The game's name: OpenSpiel's string of it."""
        return str(self.game)

    @property
    def openspiel(self) -> str:
        """The ``pyspiel.load_game`` string (the game's own)."""
        return str(self.game)

    def initial(self):
        """The initial pyspiel state."""
        return self.game.new_initial_state()

    def to_move(self, state) -> int:
        """-4 (terminal), -1 (chance), 0 or 1."""
        player = state.current_player()
        if player == self._terminal:
            return -4
        if player == self._chance:
            return -1
        if player < 0:
            raise ValueError(f"from_openspiel: a state of {self.game} has current player {player} "
                             "(simultaneous or mean-field), which a sequence form does not hold.")
        return player

    def chance_outcomes(self, state) -> list:
        """``[(action, probability), ...]`` at a chance state."""
        return state.chance_outcomes()

    def legal_actions(self, state) -> list:
        """OpenSpiel's legal action ids."""
        return state.legal_actions()

    def child(self, state, action):
        """The state after ``action`` (a new pyspiel state)."""
        return state.child(action)

    def returns(self, state) -> float:
        """The first player's payoff (minus half the constant sum of a constant-sum game)."""
        return state.player_return(0) - self._constant

    def information_state(self, state, player) -> str:
        """OpenSpiel's information-state string of ``player``."""
        return state.information_state_string(player)


def from_openspiel(game) -> ExtensiveFormGame:
    """A two-player zero-sum ``pyspiel`` game (or its ``load_game`` string) in sparse sequence form, by one tree walk.

    Parameters
    ----------
    game : pyspiel.Game or str
        A sequential two-player zero-sum (or constant-sum) game of perfect recall with
        information-state strings (simultaneous-move games: ``pyspiel.convert_to_turn_based`` first).

    Returns
    -------
    ExtensiveFormGame
        OpenSpiel's information-state strings and action ids; ``rules`` is the :class:`OpenSpielRules`.

    Raises
    ------
    ImportError
        OpenSpiel is not installed (``pip install gamedyn[openspiel]``).
    ValueError
        Not two players, not zero-sum, simultaneous moves, no information-state strings, or not of
        perfect recall (an information set reached under two different sequences of its player).
    """
    rules = OpenSpielRules(game)
    return _walk(rules)


def _walk(rules: OpenSpielRules) -> ExtensiveFormGame:
    """One depth-first walk of the pyspiel tree into integer arrays, then the layout of
    :class:`gamedyn.games.efg.GameBuilder` (infosets stably sorted by depth), without a Python object per terminal."""
    terminal, chance = rules._terminal, rules._chance
    constant = rules._constant
    index: tuple = ({}, {})  # infoset name -> its number, in first-seen order
    parents: tuple = ([], [])  # each infoset's parent sequence (a provisional id: 0 or 1 + a running count)
    action_lists: tuple = ([], [])
    firsts: tuple = ([], [])  # each infoset's first provisional sequence id
    counts = [1, 1]
    rows, columns, values = array("q"), array("q"), array("d")
    add_row, add_column, add_value = rows.append, columns.append, values.append

    def walk(state, last0, last1, probability):
        player = state.current_player()
        if player == terminal:
            add_row(last0)
            add_column(last1)
            add_value(probability * (state.player_return(0) - constant))
        elif player == chance:
            for action, p in state.chance_outcomes():
                walk(state.child(action), last0, last1, probability * p)
        elif player < 0:
            raise ValueError(f"from_openspiel: a state of {rules.game} has current player {player} (simultaneous or "
                             "mean-field), which a sequence form does not hold.")
        else:
            name = state.information_state_string(player)
            actions = state.legal_actions()
            parent = last0 if player == 0 else last1
            known = index[player].get(name)
            if known is None:
                known = index[player][name] = len(parents[player])
                parents[player].append(parent)
                action_lists[player].append(tuple(actions))
                firsts[player].append(counts[player])
                counts[player] += len(actions)
            elif parents[player][known] != parent or action_lists[player][known] != tuple(actions):
                raise ValueError(f"from_openspiel: player {player}'s information state {name!r} is reached under two "
                                 f"different sequences of hers (or with different actions): {rules.game} is not of "
                                 "perfect recall.")
            first = firsts[player][known]
            for k, action in enumerate(actions):
                if player == 0:
                    walk(state.child(action), first + k, last1, probability)
                else:
                    walk(state.child(action), last0, first + k, probability)

    walk(rules.initial(), 0, 0, 1.0)
    layouts = [_layout(index[p], parents[p], action_lists[p], firsts[p], counts[p]) for p in (0, 1)]
    new0, new1 = layouts[0][3], layouts[1][3]
    shape = (layouts[0][0].dimension, layouts[1][0].dimension)
    A = sp.csr_matrix((np.frombuffer(values, dtype=np.float64),
                       (new0[np.frombuffer(rows, dtype=np.int64)], new1[np.frombuffer(columns, dtype=np.int64)])),
                      shape=shape)
    A.sum_duplicates()
    A.eliminate_zeros()
    return ExtensiveFormGame(rules.name, (layouts[0][0], layouts[1][0]), A, (layouts[0][1], layouts[1][1]),
                             (layouts[0][2], layouts[1][2]), rules)


def _layout(index: dict, parents: list, actions: list, firsts: list, count: int) -> tuple:
    """``(treeplex, names, action ids, new id of each provisional sequence id)``: GameBuilder's layout."""
    names = list(index)
    owner = np.zeros(count, dtype=np.int64)  # the infoset of each provisional sequence (-1: the empty one)
    owner[0] = -1
    for j, first in enumerate(firsts):
        owner[first:first + len(actions[j])] = j
    depth = np.zeros(len(names), dtype=np.int64)
    for j, parent in enumerate(parents):  # a parent's infoset is seen before its children (depth first)
        depth[j] = 0 if parent == 0 else depth[owner[parent]] + 1
    order = np.argsort(depth, kind="stable")
    new = np.zeros(count, dtype=np.int64)
    ids = [-1]
    next_id = 1
    for j in order.tolist():
        first = firsts[j]
        for k, action in enumerate(actions[j]):
            new[first + k] = next_id
            ids.append(action)
            next_id += 1
    treeplex = Treeplex([int(new[parents[j]]) for j in order.tolist()], [len(actions[j]) for j in order.tolist()])
    return treeplex, tuple(names[j] for j in order.tolist()), np.asarray(ids, dtype=np.int64), new


def to_tabular_policy(efg: ExtensiveFormGame, x, y, game=None):
    """OpenSpiel's ``TabularPolicy`` of the sequence-form pair (x, y) (their behavioural strategies).

    ``game`` is the ``pyspiel`` game (default: the one ``efg`` was converted from, or
    ``pyspiel.load_game(efg.rules.openspiel)`` for a built-in game). Infosets x or y never reach
    play uniformly, as :meth:`gamedyn.games.efg.ExtensiveFormGame.policy` does.
    """
    pyspiel = _pyspiel()
    from open_spiel.python import policy as policy_module

    if game is None:
        rules = getattr(efg, "rules", None)
        game = getattr(rules, "game", None)
        if game is None:
            name = getattr(rules, "openspiel", None)
            if name is None:
                raise ValueError("to_tabular_policy: pass game= (the pyspiel game); this game was not built from one.")
            game = pyspiel.load_game(name)
    table = policy_module.TabularPolicy(game)
    for player, strategy in ((0, x), (1, y)):
        for infoset, probabilities in efg.policy(player, strategy).items():
            row = table.state_lookup.get(infoset)
            if row is None:
                raise ValueError(f"to_tabular_policy: OpenSpiel's {game} has no information state {infoset!r} of "
                                 f"player {player}: the game and the strategies do not match.")
            table.action_probability_array[row, :] = 0.0
            for action, probability in probabilities.items():
                table.action_probability_array[row, action] = probability
    return table
