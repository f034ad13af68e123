r"""The rules of the built-in games as small state machines over histories (no dependency).

Each game is written as OpenSpiel's C++ writes it (``open_spiel/games/<name>/<name>.cc``, read for
this port), so that its information sets carry OpenSpiel's information-state strings, its actions
OpenSpiel's action ids, its chance nodes OpenSpiel's outcomes and probabilities and its terminals
OpenSpiel's returns; ``tests/test_efg_games.py`` checks all four against ``pyspiel`` where it is
installed. A rules object offers

* ``initial()`` -> a state (immutable); ``to_move(state)`` -> :data:`CHANCE`, :data:`TERMINAL`, 0 or 1;
* ``chance_outcomes(state)`` -> ``[(action, probability), ...]``; ``legal_actions(state)`` -> action ids;
* ``child(state, action)`` -> the next state; ``returns(state)`` -> the first player's payoff (zero-sum);
* ``information_state(state, player)`` -> OpenSpiel's information-state string.

The sequence form is built from them once (:func:`gamedyn.games.efg.game.from_rules`), and the
original-form loops of :mod:`gamedyn.games.efg.original` walk them every iteration.
"""

from __future__ import annotations

from fractions import Fraction

import attrs

__all__ = ["CHANCE", "TERMINAL", "GoofspielRules", "KuhnRules", "LeducRules", "LiarsDiceRules", "Rules"]

CHANCE = -1
TERMINAL = -4


class Rules:
    """The interface of a game's rules (each built-in game's class implements it; see the module docstring)."""

    @property
    def name(self) -> str:
        """The game's name in gamedyn (``"kuhn_poker"``, ``"goofspiel(4)"``, ...)."""
        raise NotImplementedError

    @property
    def openspiel(self) -> str:
        """The same game's ``pyspiel.load_game`` string."""
        raise NotImplementedError

    def initial(self):
        """The state before any move (immutable)."""
        raise NotImplementedError

    def to_move(self, state) -> int:
        """Who moves at ``state``: :data:`CHANCE`, :data:`TERMINAL`, 0 or 1."""
        raise NotImplementedError

    def chance_outcomes(self, state) -> list:
        """``[(action, probability), ...]`` at a chance state (OpenSpiel's order)."""
        raise NotImplementedError

    def legal_actions(self, state) -> list:
        """The action ids of the player to move (OpenSpiel's, in its order)."""
        raise NotImplementedError

    def child(self, state, action):
        """The state after ``action``."""
        raise NotImplementedError

    def returns(self, state) -> float:
        """The first player's payoff at a terminal state (the second's is its negative)."""
        raise NotImplementedError

    def information_state(self, state, player: int) -> str:
        """OpenSpiel's information-state string of ``player`` at ``state``."""
        raise NotImplementedError


# ------------------------------------------------------------------------------------------- Kuhn poker


@attrs.frozen
class KuhnRules(Rules):
    """Kuhn poker (Kuhn 1950) as OpenSpiel's ``kuhn_poker``: cards 0 < 1 < 2, ante 1, one bet of 1.

    Actions: 0 = pass, 1 = bet. Information state: the player's card, then the history as ``p`` / ``b``.
    """

    name = "kuhn_poker"
    openspiel = "kuhn_poker"

    def initial(self):
        return ((), "")

    def to_move(self, state) -> int:
        cards, history = state
        if len(cards) < 2:
            return CHANCE
        if history in ("pp", "bp", "bb", "pbp", "pbb"):
            return TERMINAL
        return len(history) % 2

    def chance_outcomes(self, state) -> list:
        cards, _ = state
        left = [card for card in range(3) if card not in cards]
        return [(card, 1.0 / len(left)) for card in left]

    def legal_actions(self, state) -> list:
        return [0, 1]

    def child(self, state, action):
        cards, history = state
        if len(cards) < 2:
            return (cards + (action,), history)
        return (cards, history + "pb"[action])

    def returns(self, state) -> float:
        cards, history = state
        higher = 1.0 if cards[0] > cards[1] else -1.0
        if history == "bp":
            return 1.0
        if history == "pbp":
            return -1.0
        return higher * (1.0 if history == "pp" else 2.0)

    def information_state(self, state, player: int) -> str:
        cards, history = state
        return f"{cards[player]}{history}"


# ------------------------------------------------------------------------------------------ Leduc poker


_FOLD, _CALL, _RAISE = 0, 1, 2


@attrs.frozen
class _Leduc:
    """One state of Leduc poker (the fields of OpenSpiel's LeducState that the rules read)."""

    player: int = CHANCE
    privates: tuple = ()
    public: int | None = None
    deck: tuple = (0, 1, 2, 3, 4, 5)
    round: int = 1
    stakes: int = 1
    raises: int = 0
    calls: int = 0
    pot: int = 2
    money: tuple = (99, 99)
    ante: tuple = (1, 1)
    folded: tuple = (False, False)
    round1: tuple = ()
    round2: tuple = ()
    over: bool = False
    winnings: float = 0.0  # the first player's return once over


@attrs.frozen
class LeducRules(Rules):
    """Leduc poker (Southey et al. 2005) as OpenSpiel's ``leduc_poker`` (2 players, default parameters).

    Six cards 0..5 (rank = card // 2: J J Q Q K K), ante 1, two rounds of at most two raises (2 in
    the first round, 4 in the second), one public card between them; a pair with the public card
    wins, else the higher rank, ties split. Actions: 0 = fold, 1 = call/check, 2 = raise; chance
    actions are the cards dealt. Information state: OpenSpiel's ``[Observer: p][Private: c][Round r]
    [Player: p][Pot: n][Money: a b][Public: c][Round1: ...][Round2: ...]``.
    """

    name = "leduc_poker"
    openspiel = "leduc_poker"

    def initial(self):
        return _Leduc()

    def to_move(self, state) -> int:
        return TERMINAL if state.over else state.player

    def chance_outcomes(self, state) -> list:
        return [(card, 1.0 / len(state.deck)) for card in state.deck]

    def legal_actions(self, state) -> list:
        actions = [_FOLD] if state.stakes > state.ante[state.player] else []
        actions.append(_CALL)
        if state.raises < 2:
            actions.append(_RAISE)
        return actions

    def child(self, state, action):
        if state.player == CHANCE:
            deck = tuple(card for card in state.deck if card != action)
            if len(state.privates) < 2:
                privates = state.privates + (action,)
                return attrs.evolve(state, privates=privates, deck=deck, player=0 if len(privates) == 2 else CHANCE)
            return attrs.evolve(state, public=action, deck=deck, player=self._next(state, CHANCE))
        player = state.player
        moves = "round1" if state.round == 1 else "round2"
        appended = {moves: getattr(state, moves) + (action,)}
        if action == _FOLD:
            folded = tuple(f or p == player for p, f in enumerate(state.folded))
            state = attrs.evolve(state, folded=folded, **appended)
            return self._after(state, player)
        if action == _CALL:
            state = self._bet(state, player, state.stakes - state.ante[player])
            state = attrs.evolve(state, calls=state.calls + 1, **appended)
            return self._after(state, player)
        state = self._bet(state, player, state.stakes - state.ante[player])
        amount = 2 if state.round == 1 else 4
        state = self._bet(attrs.evolve(state, stakes=state.stakes + amount), player, amount)
        state = attrs.evolve(state, raises=state.raises + 1, calls=0, **appended)
        return attrs.evolve(state, player=self._next(state, player))

    @staticmethod
    def _bet(state, player, amount):
        ante = tuple(a + amount if p == player else a for p, a in enumerate(state.ante))
        money = tuple(m - amount if p == player else m for p, m in enumerate(state.money))
        return attrs.evolve(state, pot=state.pot + amount, ante=ante, money=money)

    @staticmethod
    def _remaining(state) -> int:
        return sum(not folded for folded in state.folded)

    def _ready(self, state) -> bool:
        remaining = self._remaining(state)
        return (state.raises == 0 and state.calls == remaining) or (state.raises > 0 and state.calls == remaining - 1)

    @staticmethod
    def _next(state, player) -> int:
        start = 1 if player == CHANCE else player  # from the starting player 0: search from the player before it
        for i in range(1, 3):
            candidate = (start + i) % 2
            if not state.folded[candidate]:
                return candidate
        raise AssertionError("no player left")  # pragma: no cover

    def _after(self, state, player):
        if self._remaining(state) == 1 or (state.round == 2 and self._ready(state)):
            return self._resolve(state)
        if self._ready(state):
            return attrs.evolve(state, round=2, raises=0, calls=0, player=CHANCE)
        return attrs.evolve(state, player=self._next(state, player))

    @staticmethod
    def _rank(state, player) -> int:
        low, high = sorted((state.public, state.privates[player]))
        if low % 2 == 0 and high == low + 1:
            return 36 + low
        return (high // 2) * 6 + low // 2

    def _resolve(self, state):
        money = list(state.money)
        if self._remaining(state) == 1:
            winner = state.folded.index(False)
            money[winner] += state.pot
        else:
            ranks = [self._rank(state, p) for p in range(2)]
            best = max(ranks)
            winners = [p for p in range(2) if ranks[p] == best]
            for p in winners:
                money[p] += Fraction(state.pot, len(winners))
        return attrs.evolve(state, over=True, winnings=float(money[0] - 100), money=tuple(money))

    def returns(self, state) -> float:
        return state.winnings

    def information_state(self, state, player: int) -> str:
        public = "" if state.public is None else f"[Public: {state.public}]"
        return (f"[Observer: {player}][Private: {state.privates[player]}][Round {state.round}][Player: {state.player}]"
                f"[Pot: {state.pot}][Money: {state.money[0]} {state.money[1]}]{public}"
                f"[Round1: {' '.join(map(str, state.round1))}][Round2: {' '.join(map(str, state.round2))}]")


# ---------------------------------------------------------------------------------------------- Goofspiel


@attrs.frozen
class _Goof:
    hands: tuple  # the cards each player holds (0-based values)
    actions: tuple = ()  # (bid of player 0, bid of player 1) per finished turn
    points_cards: tuple = ()  # the point cards revealed (0-based)
    wins: tuple = ()  # the winner of each finished turn (-3, OpenSpiel's kInvalidPlayer: a tie)
    points: tuple = (0, 0)
    pending: int | None = None  # player 0's bid of the turn in progress (turn-based form)
    over: bool = False


@attrs.frozen
class GoofspielRules(Rules):
    """Goofspiel as OpenSpiel's ``goofspiel(imp_info=True,num_cards=N,points_order=descending)`` made turn-based
    (``pyspiel.convert_to_turn_based``; returns_type ``win_loss``, the default).

    Each player holds cards 1..N; the point cards are revealed in descending order; in each turn
    player 0 bids a card, then player 1 bids one without seeing it; the higher bid wins the point
    card's value (a tie: nobody); the last turn plays itself. Return: +1 / -1 / 0 by the points.
    Actions: the card's index (0-based). Information state: ``Current player: p`` followed by
    OpenSpiel's goofspiel information state (hand, own bids, point cards, win sequence, points).
    """

    cards: int = attrs.field(default=4)

    @property
    def name(self) -> str:
        return f"goofspiel({self.cards})"

    @property
    def openspiel(self) -> str:
        return f"goofspiel(imp_info=True,num_cards={self.cards},points_order=descending)"

    def initial(self):
        everything = tuple(range(self.cards))
        return _Goof(hands=(everything, everything), points_cards=(self.cards - 1,))

    def to_move(self, state) -> int:
        if state.over:
            return TERMINAL
        return 0 if state.pending is None else 1

    def chance_outcomes(self, state) -> list:  # pragma: no cover - descending order has no chance node
        return []

    def legal_actions(self, state) -> list:
        return list(state.hands[self.to_move(state)])

    def child(self, state, action):
        if state.pending is None:
            return attrs.evolve(state, pending=action)
        state = self._turn(state, (state.pending, action))
        if len(state.actions) == self.cards - 1:  # the last turn has no choice: it plays itself
            state = self._turn(state, (state.hands[0][0], state.hands[1][0]))
        if len(state.actions) == self.cards:
            state = attrs.evolve(state, over=True)
        return state

    def _turn(self, state, bids):
        value = state.points_cards[-1] + 1
        points, wins = state.points, state.wins
        if bids[0] != bids[1]:
            winner = 0 if bids[0] > bids[1] else 1
            points = tuple(p + value if i == winner else p for i, p in enumerate(points))
            wins += (winner,)
        else:
            wins += (-3,)  # OpenSpiel writes kInvalidPlayer (-3) for a tie
        hands = tuple(tuple(card for card in hand if card != bid) for hand, bid in zip(state.hands, bids))
        actions = state.actions + (bids,)
        points_cards = state.points_cards
        if len(actions) < self.cards and points_cards[-1] > 0:
            points_cards += (points_cards[-1] - 1,)
        return attrs.evolve(state, hands=hands, actions=actions, points_cards=points_cards, wins=wins, points=points,
                            pending=None)

    def returns(self, state) -> float:
        first, second = state.points
        return 0.0 if first == second else (1.0 if first > second else -1.0)

    def information_state(self, state, player: int) -> str:
        hand = "".join(f"{card + 1} " for card in state.hands[player])
        bids = "".join(f"{bids[player]} " for bids in state.actions)
        points_cards = "".join(f"{card + 1} " for card in state.points_cards)
        wins = "".join(f"{winner} " for winner in state.wins)
        points = "".join(f"{p} " for p in state.points)
        return (f"Current player: {self.to_move(state)}\nP{player} hand: {hand}\nP{player} action sequence: {bids}\n"
                f"Point card sequence: {points_cards}\nWin sequence: {wins}\nPoints: {points}\nTerminal?: 0\n")


# -------------------------------------------------------------------------------------------- Liar's dice


@attrs.frozen
class LiarsDiceRules(Rules):
    """Liar's dice as OpenSpiel's ``liars_dice(numdice=1,dice_sides=F)``: one die each, F faces (face F wild).

    Bids are (quantity q in 1..2, face f in 1..F), action ``(q - 1) F + (f - 1)``, each higher than the
    last; action 2F calls "liar" (after a bid). The bidder wins (+1) if at least q dice show f or F,
    else the caller wins. Information state: the player's die, then each bid ``q-f``.
    """

    faces: int = attrs.field(default=6)

    @property
    def name(self) -> str:
        return f"liars_dice({self.faces})"

    @property
    def openspiel(self) -> str:
        return f"liars_dice(numdice=1,dice_sides={self.faces})"

    def initial(self):
        return ((), ())

    def to_move(self, state) -> int:
        dice, bids = state
        if len(dice) < 2:
            return CHANCE
        if bids and bids[-1] == 2 * self.faces:
            return TERMINAL
        return len(bids) % 2

    def chance_outcomes(self, state) -> list:
        return [(face, 1.0 / self.faces) for face in range(self.faces)]

    def legal_actions(self, state) -> list:
        _, bids = state
        first = bids[-1] + 1 if bids else 0
        return list(range(first, 2 * self.faces)) + ([2 * self.faces] if bids else [])

    def child(self, state, action):
        dice, bids = state
        if len(dice) < 2:
            return (dice + (action + 1,), bids)
        return (dice, bids + (action,))

    def returns(self, state) -> float:
        dice, bids = state
        bid = bids[-2]
        quantity, face = bid // self.faces + 1, bid % self.faces + 1
        matches = sum(die == face or die == self.faces for die in dice)
        bidder = (len(bids) - 2) % 2  # who made the last bid; the other called
        winner = bidder if matches >= quantity else 1 - bidder
        return 1.0 if winner == 0 else -1.0

    def information_state(self, state, player: int) -> str:
        dice, bids = state
        return f"{dice[player]}" + "".join(f" {bid // self.faces + 1}-{bid % self.faces + 1}" for bid in bids)
