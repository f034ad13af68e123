"""The Fenchel-game family: min_x f(x) as the game of Wang et al. (2023), g(x, y) = <x, y> - f*(y).

:mod:`~gamedyn.games.fenchel.game` (:class:`Objective`, :class:`FenchelConjugate`, :class:`FenchelGame`),
:class:`FenchelResult` (what the Fenchel recipes return) and :mod:`~gamedyn.games.fenchel.original`
(Frank-Wolfe, Nesterov's accelerated gradient and heavy ball in their textbook form).
"""

from gamedyn.games.fenchel.game import FenchelConjugate, FenchelGame, Objective, ObjectiveError, agreed_dimension
from gamedyn.games.fenchel.result import FenchelResult

__all__ = ["FenchelConjugate", "FenchelGame", "FenchelResult", "Objective", "ObjectiveError", "agreed_dimension"]
