r"""A small JSON format for two-player zero-sum extensive-form games: :func:`save` and :func:`load`.

The file holds the sequence form, nothing more: each player's **tree-form decision process** (her
information sets, each with its parent sequence and its action ids) and the **sparse utilities**
(the entries of A). Version 1::

    {
      "format": "gamedyn-efg",
      "version": 1,
      "name": "kuhn_poker",
      "players": [
        {"infosets": [{"name": "0", "parent": null, "actions": [0, 1]},
                      {"name": "0pb", "parent": ["0", 0], "actions": [0, 1]}, ...]},
        {"infosets": [...]}
      ],
      "utilities": [[1, 3, -0.16666666666666666], ...]
    }

* ``players[p].infosets``: player p's information sets, each ``name`` (a string, unique for the
  player), ``parent`` (the sequence above it: null for the empty sequence, else ``[infoset name,
  action id]`` of an infoset of the same player) and ``actions`` (distinct integers). Any order;
  a parent need not come first.
* The **sequence indices** the utilities use: 0 is the empty sequence, then every infoset's actions
  in the order the file lists the infosets and their actions (1, 2, ... ).
* ``utilities``: ``[i, j, value]`` triples, i a sequence of player 0, j of player 1, ``value`` the
  chance-weighted payoff of player 0 summed over the terminal histories whose last sequences are i
  and j (repeats are summed). Player 0 maximises :math:`x^\top Ay`.

:func:`save` writes the infosets in the game's own order (by depth), so ``load(save(game))`` is the
same game: the same treeplexes, names, action ids and A, bit for bit (floats are written with
Python's shortest round-tripping repr). A malformed file raises a ``ValueError`` naming the file,
the place and the fix.
"""

from __future__ import annotations

import json
import math
import os
from typing import NoReturn

import numpy as np

from gamedyn.games.efg.game import ExtensiveFormGame, GameBuilder

__all__ = ["FORMAT", "VERSION", "load", "save", "to_json", "from_json"]

FORMAT = "gamedyn-efg"
VERSION = 1


def to_json(game: ExtensiveFormGame) -> dict:
    """The game as the JSON document of the module docstring (a dict of lists, strings and numbers)."""
    if not (isinstance(getattr(game, "infosets", None), tuple) and len(getattr(game, "treeplexes", ())) == 2):
        raise TypeError(f"save needs an ExtensiveFormGame (gamedyn.games.efg), got {game!r}.")
    players = []
    for player in (0, 1):
        treeplex, names, actions = game.treeplexes[player], game.infosets[player], game.actions[player]
        starts, parents = treeplex.starts.tolist(), treeplex.parents.tolist()
        owner = treeplex.infoset_of.tolist()
        action_ids = actions.tolist()
        infosets = []
        for j, name in enumerate(names):
            parent = parents[j]
            infosets.append({"name": name, "parent": None if parent == 0 else [names[owner[parent]], action_ids[parent]],
                             "actions": action_ids[starts[j]:starts[j + 1]]})
        players.append({"infosets": infosets})
    A = game.A.tocoo()
    utilities = [[int(i), int(j), float(v)] for i, j, v in zip(A.row.tolist(), A.col.tolist(), A.data.tolist())]
    return {"format": FORMAT, "version": VERSION, "name": game.name, "players": players, "utilities": utilities}


def save(game: ExtensiveFormGame, path) -> None:
    """Write ``game`` to ``path`` in the JSON format of the module docstring."""
    document = to_json(game)
    with open(os.fspath(path), "w", encoding="utf-8") as handle:
        json.dump(document, handle, separators=(",", ":"))


def _fail(where: str, message: str) -> NoReturn:
    raise ValueError(f"{where}: {message} (the format: gamedyn.games.efg.files, docs/how-to/bring-your-own-game.md).")


def from_json(document, where: str = "the document") -> ExtensiveFormGame:
    """The game of a JSON document (a dict, as :func:`to_json` returns it); ``where`` names it in errors."""
    if not isinstance(document, dict):
        _fail(where, f"the top level must be a JSON object, got {type(document).__name__}")
    if document.get("format") != FORMAT:
        _fail(where, f"'format' must be {FORMAT!r}, got {document.get('format')!r}")
    if document.get("version") != VERSION:
        _fail(where, f"'version' {document.get('version')!r} is not supported (this gamedyn reads version {VERSION})")
    name = document.get("name", "game")
    if not isinstance(name, str):
        _fail(where, f"'name' must be a string, got {name!r}")
    players = document.get("players")
    if not isinstance(players, list) or len(players) != 2:
        _fail(where, "'players' must be a list of two objects, one per player, each with 'infosets'")
    builder = GameBuilder()
    keys: list = [[None], [None]]  # each player's sequences in the file's order: None, then (infoset, action)
    for player, entry in enumerate(players):
        infosets = entry.get("infosets") if isinstance(entry, dict) else None
        if not isinstance(infosets, list):
            _fail(where, f"players[{player}] must be an object with a list 'infosets'")
        seen = set()
        for k, infoset in enumerate(infosets):
            place = f"players[{player}].infosets[{k}]"
            if not isinstance(infoset, dict) or set(infoset) - {"name", "parent", "actions"}:
                _fail(where, f"{place} must be an object with 'name', 'parent' and 'actions' only")
            label, parent, actions = infoset.get("name"), infoset.get("parent"), infoset.get("actions")
            if not isinstance(label, str):
                _fail(where, f"{place}.name must be a string, got {label!r}")
            if label in seen:
                _fail(where, f"{place}: player {player} has two infosets named {label!r}")
            seen.add(label)
            if parent is not None and not (isinstance(parent, list) and len(parent) == 2 and isinstance(parent[0], str)
                                           and isinstance(parent[1], int) and not isinstance(parent[1], bool)):
                _fail(where, f"{place}.parent must be null or [infoset name, action id], got {parent!r}")
            if not (isinstance(actions, list) and actions and all(
                    isinstance(a, int) and not isinstance(a, bool) for a in actions)):
                _fail(where, f"{place}.actions must be a non-empty list of integer action ids, got {actions!r}")
            try:
                builder.infoset(player, label, None if parent is None else tuple(parent), actions)
            except ValueError as error:
                _fail(where, f"{place}: {error}")
            keys[player].extend((label, action) for action in actions)
    utilities = document.get("utilities")
    if not isinstance(utilities, list):
        _fail(where, "'utilities' must be a list of [i, j, value] triples")
    sizes = (len(keys[0]), len(keys[1]))
    for k, triple in enumerate(utilities):
        if not (isinstance(triple, list) and len(triple) == 3 and all(
                isinstance(v, int) and not isinstance(v, bool) for v in triple[:2])
                and isinstance(triple[2], (int, float)) and not isinstance(triple[2], bool)):
            _fail(where, f"utilities[{k}] must be [i, j, value] (two sequence indices and a number), got {triple!r}")
        i, j, value = triple
        if not (0 <= i < sizes[0] and 0 <= j < sizes[1]):
            _fail(where, f"utilities[{k}] = {triple!r}: the sequence indices must be below {sizes[0]} (player 0) and "
                         f"{sizes[1]} (player 1): 0 is the empty sequence, then the infosets' actions in file order")
        if not math.isfinite(value):
            _fail(where, f"utilities[{k}] has a non-finite value {value!r}")
        builder.terminal(keys[0][i], keys[1][j], value)
    try:
        return builder.build(name)
    except ValueError as error:
        _fail(where, str(error))


def load(path) -> ExtensiveFormGame:
    """The game in the JSON file ``path`` (the format of the module docstring), or a ``ValueError`` naming the problem."""
    where = os.fspath(path)
    try:
        with open(where, encoding="utf-8") as handle:
            document = json.load(handle, parse_constant=lambda constant: _fail(where, f"{constant} is not a number"))
    except json.JSONDecodeError as error:
        _fail(where, f"not valid JSON ({error})")
    return from_json(document, where)


def _same(a: ExtensiveFormGame, b: ExtensiveFormGame) -> bool:
    """Whether two games are the same sequence form (treeplexes, names, action ids, A), bit for bit."""
    return (all(a.treeplexes[p] == b.treeplexes[p] and a.infosets[p] == b.infosets[p]
                and np.array_equal(a.actions[p], b.actions[p]) for p in (0, 1))
            and a.A.shape == b.A.shape and (a.A != b.A).nnz == 0)
