"""The extensive-form family: two-player zero-sum games in sequence form, built in, with no dependency.

:func:`kuhn_poker`, :func:`leduc_poker`, :func:`goofspiel` and :func:`liars_dice` are OpenSpiel's games
of the same names (the same information-state strings, action ids, chance and payoffs; checked
against ``pyspiel`` in tests/test_efg_games.py where it is installed), each an
:class:`ExtensiveFormGame`: two :class:`gamedyn.Treeplex` domains, the sparse payoff A and the names.
:class:`GameBuilder` builds one from infosets and terminals. :mod:`~gamedyn.games.efg.original`
holds CFR, CFR+, DCFR and PCFR+ written as the papers write them (a recursive walk over histories
with per-infoset tables), which the recipes are proven equal to; :class:`EFGResult` is what the
recipes return.

>>> game = kuhn_poker()
>>> game
ExtensiveFormGame('kuhn_poker': 13 and 13 sequences, 30 payoff entries)
>>> game.infosets[0][:3]
('0', '1', '2')
"""

from __future__ import annotations

import functools

from gamedyn.games.efg.game import ExtensiveFormGame, GameBuilder, from_rules, sequence_form_lp
from gamedyn.games.efg.result import EFGResult
from gamedyn.games.efg.files import load, save
from gamedyn.games.efg.solve import EFGSolution, solve_efg
from gamedyn.games.efg.rules import GoofspielRules, KuhnRules, LeducRules, LiarsDiceRules

__all__ = ["EFGResult", "EFGSolution", "ExtensiveFormGame", "GameBuilder", "from_rules", "goofspiel", "kuhn_poker", "leduc_poker",
           "liars_dice", "load", "load_game", "save", "sequence_form_lp", "solve_efg", "from_openspiel"]


def _check_count(value, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{name} must be an integer from {low} to {high}, got {value!r}.")
    return value


def _frozen(game: ExtensiveFormGame) -> ExtensiveFormGame:
    """The game with its payoff's arrays read-only (a built-in game is shared between calls)."""
    for array in (game.A.data, game.A.indices, game.A.indptr):
        array.flags.writeable = False
    return game


@functools.lru_cache(maxsize=None)
def kuhn_poker() -> ExtensiveFormGame:
    """Kuhn poker (Kuhn 1950), OpenSpiel's ``kuhn_poker``: 12 infosets, 13 sequences a player; value -1/18.

    The game is built once and shared (its arrays are read-only).
    """
    return _frozen(from_rules(KuhnRules()))


@functools.lru_cache(maxsize=None)
def leduc_poker() -> ExtensiveFormGame:
    """Leduc poker (Southey et al. 2005), OpenSpiel's ``leduc_poker``: 468 infosets, 1,093 sequences a player."""
    return _frozen(from_rules(LeducRules()))


@functools.lru_cache(maxsize=None)
def goofspiel(cards: int = 4) -> ExtensiveFormGame:
    """Goofspiel with ``cards`` cards each (2..6), OpenSpiel's
    ``goofspiel(imp_info=True,num_cards=cards,points_order=descending)`` in sequential form
    (``pyspiel.convert_to_turn_based``): player 0 bids, then player 1 without seeing the bid."""
    return _frozen(from_rules(GoofspielRules(_check_count(cards, "cards", 2, 6))))


@functools.lru_cache(maxsize=None)
def liars_dice(faces: int = 6) -> ExtensiveFormGame:
    """Liar's dice with one die each of ``faces`` faces (2..6), OpenSpiel's ``liars_dice(numdice=1,dice_sides=faces)``
    (6 faces: 24,571 sequences a player)."""
    return _frozen(from_rules(LiarsDiceRules(_check_count(faces, "faces", 2, 6))))


def from_openspiel(game) -> ExtensiveFormGame:
    """A ``pyspiel`` game in sparse sequence form (:func:`gamedyn.games.efg.openspiel.from_openspiel`; optional extra
    ``openspiel``)."""
    from gamedyn.games.efg.openspiel import from_openspiel as convert

    return convert(game)


def load_game(name: str) -> ExtensiveFormGame:
    """A built-in game by name: ``"kuhn_poker"``, ``"leduc_poker"``, ``"goofspiel(4)"``, ``"liars_dice(6)"``
    (also ``goofspiel(cards=4)``, ``liars_dice(faces=6)``; the default size without brackets)."""
    text = str(name).replace(" ", "")
    head, _, rest = text.partition("(")
    makers = {"kuhn_poker": (kuhn_poker, None), "leduc_poker": (leduc_poker, None), "goofspiel": (goofspiel, "cards"),
              "liars_dice": (liars_dice, "faces")}
    if head not in makers or (rest and not rest.endswith(")")):
        raise ValueError(f"unknown game {name!r}; the built-in games are kuhn_poker, leduc_poker, goofspiel(cards) and "
                         "liars_dice(faces), e.g. 'goofspiel(4)'.")
    make, parameter = makers[head]
    argument = rest[:-1]
    if not argument:
        return make()
    if parameter is None:
        raise ValueError(f"{head} takes no parameter, got {name!r}.")
    argument = argument.removeprefix(f"{parameter}=")
    try:
        return make(int(argument))
    except ValueError as error:
        raise ValueError(f"{name!r}: {error}") from None
