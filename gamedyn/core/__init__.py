"""Layer 1, the core: numerics, validation, losses, domains, regularizers, hints, weights and learners.

Nothing here knows a payoff, a game or a recipe; every other layer builds on these. See
docs/explanation/architecture.md for the layers and the import rule.
"""

from gamedyn.core.adaptive import AdaHedge, AdaptiveFTRL, AdaptiveStep
from gamedyn.core.counterfactual import CounterfactualRegret
from gamedyn.core.dilated import DilatedEntropy
from gamedyn.core.domains import Ball, Box, CappedSimplex, L1Ball, Reals, Simplex
from gamedyn.core.hints import CurrentLoss, FirstRoundLoss, LastLoss, NoHint, OpponentSecondary
from gamedyn.core.learners import (
    FTL,
    FTRL,
    OFTL,
    OFTRL,
    OMD,
    BestResponse,
    FollowTheRegularizedLeader,
    FTRLPlus,
    MirrorDescent,
)
from gamedyn.core.loss import Loss
from gamedyn.core.protocols import Domain, Hint, Learner, Observer, Player
from gamedyn.core.numerics import NumericalRangeError
from gamedyn.core.regret_matching import RegretMatching
from gamedyn.core.swap_regret import SwapRegret, SwapRegretMatching, stationary_distribution
from gamedyn.core.regularizers import Entropy, QNorm, Regularizer, SquaredEuclidean, Zero, numerical_argmin
from gamedyn.core.treeplex import Treeplex
from gamedyn.core.weights import StepSchedule

__all__ = [
    "AdaHedge", "AdaptiveFTRL", "AdaptiveStep", "CounterfactualRegret", "DilatedEntropy", "RegretMatching", "Treeplex",
    "Ball", "BestResponse", "Domain", "Hint", "Learner", "Observer", "Player", "Box", "CappedSimplex", "CurrentLoss", "Entropy", "FTL", "FTRL", "FTRLPlus", "FirstRoundLoss",
    "FollowTheRegularizedLeader", "L1Ball", "LastLoss", "Loss", "MirrorDescent", "NoHint", "NumericalRangeError",
    "OFTL", "OFTRL", "OMD", "OpponentSecondary", "QNorm", "Reals", "Regularizer", "Simplex", "SquaredEuclidean",
    "StepSchedule", "Zero", "numerical_argmin",
    "SwapRegret", "SwapRegretMatching", "stationary_distribution",  # issue 34
]
