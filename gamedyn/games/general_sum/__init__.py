"""General-sum games of n players: coarse correlated and correlated equilibria (issue 34).

:class:`NormalFormGame` and :class:`BimatrixGame` (:mod:`~gamedyn.games.general_sum.game`), the
empirical joint distributions :class:`ProductJoint` and :class:`CountJoint`
(:mod:`~gamedyn.games.general_sum.joint`), the certified gaps :func:`cce_gap` and :func:`ce_gap`
(:mod:`~gamedyn.games.general_sum.certificates`), the exact LPs :func:`solve_cce_lp` and
:func:`solve_ce_lp` (:mod:`~gamedyn.games.general_sum.lp`), the stop rules :class:`CCEGapStop` and
:class:`CEGapStop` and the solvers :func:`solve_cce` and :func:`solve_ce`
(:mod:`~gamedyn.games.general_sum.solve`), the tutorial's games (:mod:`~gamedyn.games.general_sum.examples`),
and the published loops the swap-regret learners are
checked against (:mod:`~gamedyn.games.general_sum.original`). The n-player runner is
:func:`gamedyn.engine.players.play_n`; the learners :class:`gamedyn.SwapRegret` and
:class:`gamedyn.SwapRegretMatching` live in :mod:`gamedyn.core.swap_regret`.
"""

from gamedyn.games.general_sum.certificates import cce_gap, ce_gap, deviation_gains, swap_gains
from gamedyn.games.general_sum.examples import chicken, coordination_game, jordan_game, shapley_game
from gamedyn.games.general_sum.game import BimatrixGame, NormalFormGame
from gamedyn.games.general_sum.joint import CountJoint, ProductJoint
from gamedyn.games.general_sum.lp import LPSolution, solve_ce_lp, solve_cce_lp
from gamedyn.games.general_sum.solve import CCEGapStop, CEGapStop, EquilibriumSolution, solve_ce, solve_cce

__all__ = ["BimatrixGame", "CCEGapStop", "CEGapStop", "CountJoint", "EquilibriumSolution", "LPSolution",
           "NormalFormGame", "ProductJoint", "cce_gap", "ce_gap", "chicken", "coordination_game", "deviation_gains",
           "jordan_game", "shapley_game", "solve_cce", "solve_cce_lp", "solve_ce", "solve_ce_lp", "swap_gains"]
