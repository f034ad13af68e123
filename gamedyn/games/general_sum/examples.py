r"""The classic general-sum games of the tutorial, with their equilibria.

* :func:`coordination_game` -- both players get :math:`a_k` when both play k (:math:`a=(1,2,3)`), 0 otherwise:
  every pure profile (k, k) is a Nash equilibrium, (3, 3) the payoff-dominant one.
* :func:`shapley_game` -- Shapley's 3 x 3 game (1964): the row player wants to match the column player, the column
  player to play one step ahead of the row player; the unique Nash equilibrium is uniform, and fictitious play
  cycles around it with ever longer runs instead of converging.
* :func:`jordan_game` -- Jordan's three-player matching pennies (1993): player 1 wants to match player 2, player 2
  to match player 3, player 3 to mismatch player 1; the unique Nash equilibrium is (1/2, 1/2) for everyone, and
  fictitious play does not converge to it.
* :func:`chicken` -- the game of chicken (dare, chicken) with Aumann's correlated equilibrium (1/3 on each of
  (dare, chicken), (chicken, dare), (chicken, chicken)).
"""

from __future__ import annotations

import numpy as np

from gamedyn.games.general_sum.game import BimatrixGame, NormalFormGame

__all__ = ["chicken", "coordination_game", "jordan_game", "shapley_game"]


def coordination_game(values=(1.0, 2.0, 3.0)) -> BimatrixGame:
    """Both players get ``values[k]`` when both play k, 0 otherwise.

    >>> coordination_game().A.tolist()
    [[1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 3.0]]
    """
    A = np.diag(np.asarray(values, dtype=np.float64))
    return BimatrixGame(A, A)


def shapley_game() -> BimatrixGame:
    """Shapley's game: the row player gets 1 for matching the column player, the column player 1 for playing
    the row player's action plus one (mod 3); the unique Nash equilibrium is uniform.

    >>> shapley_game().B.tolist()
    [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]
    """
    return BimatrixGame(np.eye(3), np.roll(np.eye(3), 1, axis=1))


def jordan_game() -> NormalFormGame:
    """Jordan's three-player matching pennies: 1 matches 2, 2 matches 3, 3 mismatches 1 (payoffs +-1).

    >>> game = jordan_game()
    >>> game.shape, [float(u) for u in game.expected([np.array([0.5, 0.5])] * 3)]
    ((2, 2, 2), [0.0, 0.0, 0.0])
    """
    same = np.array([[1.0, -1.0], [-1.0, 1.0]])
    ones = np.ones(2)
    return NormalFormGame([np.einsum("ab,c->abc", same, ones), np.einsum("bc,a->abc", same, ones),
                           np.einsum("ca,b->abc", -same, ones)])


def chicken() -> BimatrixGame:
    """Chicken with actions (dare, chicken): both dare 0, a darer against a chicken 7 (the chicken 2), both chicken 6.

    >>> chicken().A.tolist()
    [[0.0, 7.0], [2.0, 6.0]]
    """
    return BimatrixGame([[0.0, 7.0], [2.0, 6.0]], [[0.0, 2.0], [7.0, 6.0]])
