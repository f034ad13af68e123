"""gamedyn: no-regret game dynamics.

Finding a linear separator is the game max_w min_p g(w, p). Pick a payoff, a learner for each
player (update rule + regularizer + hint), weights alpha_t and who moves first; :func:`play` runs
Protocol 1 and reports the averaged iterates, the regrets and Theorem 2's certificate. The
accelerated perceptrons and NAG are recipes in :mod:`gamedyn.recipes`.
"""

from gamedyn import _startup  # first: Ctrl-C while the command line imports prints one line (exit 130)

_startup.install()

from gamedyn._numerics import NumericalRangeError  # noqa: E402
from gamedyn.batched import BatchedMatrix, one_vs_rest, shared_matrix  # noqa: E402
from gamedyn.checkpoints import CheckpointError, CheckpointMismatchError, checkpoint_info  # noqa: E402
from gamedyn.datasets import signed_rows
from gamedyn.margins import margin, max_margin, max_margin_q, normalized_margin
from gamedyn.hints import CurrentLoss, FirstRoundLoss, LastLoss, NoHint, OpponentSecondary
from gamedyn.learners import (
    FTL,
    FTRL,
    BestResponse,
    OFTL,
    OFTRL,
    OMD,
    FollowTheRegularizedLeader,
    FTRLPlus,
    MirrorDescent,
    StepSchedule,
)
from gamedyn.payoffs import Bilinear, ConcaveConvex, Loss, Payoff, RegularizedBilinear
from gamedyn.fenchel import FenchelConjugate, FenchelGame, Objective
from gamedyn.exploration import Exploration, explore
from gamedyn.matrix_games import nash_gap, solve_matrix_game
from gamedyn.protocol import GameResult, OnlineResult, RoundState, online, play, positive_margin
from gamedyn.regularizers import (
    Ball,
    Box,
    Entropy,
    L1Ball,
    QNorm,
    Reals,
    Regularizer,
    Simplex,
    SquaredEuclidean,
    Zero,
    numerical_argmin,
)

from gamedyn import _source_layout

_source_layout.install()

__version__ = "0.1.0"

__all__ = [
    "Ball", "Bilinear", "ConcaveConvex", "CurrentLoss", "Entropy", "FTL", "FTRL", "FTRLPlus",
    "FollowTheRegularizedLeader", "GameResult", "LastLoss", "Loss", "MirrorDescent", "NoHint", "OFTL",
    "OFTRL", "OMD", "OpponentSecondary", "Payoff", "QNorm", "Reals", "Regularizer",
    "RegularizedBilinear", "RoundState", "Simplex", "SquaredEuclidean", "Zero", "numerical_argmin",
    "OnlineResult", "online", "play", "positive_margin", "signed_rows", "margin", "max_margin", "max_margin_q",
    "normalized_margin", "NumericalRangeError", "BatchedMatrix", "one_vs_rest", "shared_matrix",
    "CheckpointError", "CheckpointMismatchError", "checkpoint_info",
    "Exploration", "explore", "nash_gap", "solve_matrix_game",
    "Objective", "FenchelGame", "FenchelConjugate", "L1Ball", "Box", "BestResponse", "FirstRoundLoss",
    "StepSchedule",
]
