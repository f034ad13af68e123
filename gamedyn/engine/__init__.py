"""Layer 4, the engine: payoffs, the runner :func:`play` (Protocol 1), results, checkpoints, recipes' declaration.

:mod:`~gamedyn.engine.payoffs` (g(w, p) and the losses it hands to each player),
:mod:`~gamedyn.engine.runner` (:func:`play`), :mod:`~gamedyn.engine.players` (:func:`play_n`: n players, simultaneous), :mod:`~gamedyn.engine.rounds` (the one-pass rounds),
:mod:`~gamedyn.engine.seats` (each player's running sums), :mod:`~gamedyn.engine.results`,
:mod:`~gamedyn.engine.online` (online learning against fixed losses), :mod:`~gamedyn.engine.observers`
(what watches a run: :func:`stop_when`, :func:`record_plays`, :func:`checkpoint` ...),
:mod:`~gamedyn.engine.checkpoints` and :mod:`~gamedyn.engine.recipe` (:class:`Recipe`).
"""

from gamedyn.engine.checkpoints import CheckpointError, CheckpointMismatchError, CheckpointWarning, checkpoint_info
from gamedyn.engine.observers import (
    checkpoint,
    compare_with,
    each_round,
    record_plays,
    skip_regrets,
    stop_when,
    track_metrics,
)
from gamedyn.engine.online import online
from gamedyn.engine.players import PlayersResult, PlaysTrace, play_n
from gamedyn.engine.payoffs import Bilinear, ConcaveConvex, Payoff, RegularizedBilinear
from gamedyn.engine.recipe import Recipe
from gamedyn.engine.results import GameResult, OnlineResult, RoundState
from gamedyn.engine.runner import play
from gamedyn.engine.seats import InvalidPlayError

__all__ = [
    "Bilinear", "CheckpointError", "CheckpointMismatchError", "CheckpointWarning", "ConcaveConvex", "GameResult", "InvalidPlayError",
    "OnlineResult", "Payoff", "Recipe", "RegularizedBilinear", "RoundState", "checkpoint", "checkpoint_info",
    "compare_with", "each_round", "online", "play", "record_plays", "skip_regrets", "stop_when", "track_metrics",
    "PlayersResult", "PlaysTrace", "play_n",  # issue 34: n players
]
