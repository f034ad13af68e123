"""Layer 5, the problem families: :mod:`~gamedyn.games.margin` (linear separators, the accelerated
perceptrons), :mod:`~gamedyn.games.matrix` (zero-sum matrix games), :mod:`~gamedyn.games.fenchel`
(Fenchel games: convex minimisation), :mod:`~gamedyn.games.efg` (extensive-form games in sequence
form: Kuhn, Leduc, Goofspiel, Liar's dice) and :mod:`~gamedyn.games.general_sum` (general-sum n-player
games: certified coarse correlated and correlated equilibria), each with its recipes' result type and its original algorithms
(``original``, the papers' loops the recipes are checked against).
"""

from gamedyn.games.efg import EFGResult, ExtensiveFormGame, GameBuilder
from gamedyn.games.fenchel import FenchelConjugate, FenchelGame, FenchelResult, Objective
from gamedyn.games.general_sum import BimatrixGame, NormalFormGame, solve_ce, solve_cce
from gamedyn.games.margin import MarginResult, RecipeResult
from gamedyn.games.matrix import MatrixGame, MatrixGameResult, ValueBracket, nash_gap, solve_matrix_game

__all__ = ["BimatrixGame", "EFGResult", "ExtensiveFormGame", "FenchelConjugate", "FenchelGame", "GameBuilder",
           "FenchelResult", "MarginResult", "MatrixGame", "MatrixGameResult", "NormalFormGame", "solve_ce", "solve_cce",
           "Objective", "RecipeResult", "ValueBracket", "nash_gap", "solve_matrix_game"]
