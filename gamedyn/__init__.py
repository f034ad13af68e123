"""gamedyn: no-regret game dynamics.

Finding a linear separator is the game max_w min_p g(w, p). Pick a payoff, a learner for each
player (update rule + regularizer + hint), weights alpha_t and who moves first; :func:`play` runs
Protocol 1 and reports the averaged iterates, the regrets and Theorem 2's certificate. The
accelerated perceptrons and NAG are recipes in :mod:`gamedyn.recipes`.

The package is layered (docs/explanation/architecture.md): :mod:`gamedyn.core`, :mod:`gamedyn.arrays`,
:mod:`gamedyn.certify`, :mod:`gamedyn.engine`, :mod:`gamedyn.games`, :mod:`gamedyn.recipes`,
:mod:`gamedyn.logistic`, :mod:`gamedyn.io`, :mod:`gamedyn.paper`, :mod:`gamedyn.sklearn`,
:mod:`gamedyn.plot` and :mod:`gamedyn.cli`. This module is only the face: each public name is imported
from its layer when first used (PEP 562), so ``import gamedyn`` loads no numpy, scipy, dask,
scikit-learn or matplotlib, and sets no signal handler.
"""

import importlib
from typing import TYPE_CHECKING

__version__ = "0.1.0"

# public name -> the module that defines it (read by __getattr__ on first use)
_EXPORTS = {
    "AdaHedge": "gamedyn.core.adaptive",
    "AdaptiveFTRL": "gamedyn.core.adaptive",
    "AdaptiveStep": "gamedyn.core.adaptive",
    "GameSolution": "gamedyn.games.matrix.solve",
    "NashGapStop": "gamedyn.games.matrix.solve",
    "RegretMatching": "gamedyn.core.regret_matching",
    "solve_game": "gamedyn.games.matrix.solve",
    "Ball": "gamedyn.core.domains",
    "Domain": "gamedyn.core.protocols",
    "Hint": "gamedyn.core.protocols",
    "Learner": "gamedyn.core.protocols",
    "Observer": "gamedyn.core.protocols",
    "Player": "gamedyn.core.protocols",
    "BatchedMatrix": "gamedyn.arrays.batched",
    "BestResponse": "gamedyn.core.learners",
    "Bilinear": "gamedyn.engine.payoffs",
    "Box": "gamedyn.core.domains",
    "CheckpointError": "gamedyn.engine.checkpoints",
    "CheckpointMismatchError": "gamedyn.engine.checkpoints",
    "CheckpointWarning": "gamedyn.engine.checkpoints",
    "ConcaveConvex": "gamedyn.engine.payoffs",
    "CurrentLoss": "gamedyn.core.hints",
    "Entropy": "gamedyn.core.regularizers",
    "Exploration": "gamedyn.paper.exploration",
    "FTL": "gamedyn.core.learners",
    "FTRL": "gamedyn.core.learners",
    "FTRLPlus": "gamedyn.core.learners",
    "FenchelConjugate": "gamedyn.games.fenchel.game",
    "FenchelGame": "gamedyn.games.fenchel.game",
    "FirstRoundLoss": "gamedyn.core.hints",
    "FollowTheRegularizedLeader": "gamedyn.core.learners",
    "GameResult": "gamedyn.engine.results",
    "CappedSimplex": "gamedyn.core.domains",
    "L1Ball": "gamedyn.core.domains",
    "LastLoss": "gamedyn.core.hints",
    "Loss": "gamedyn.core.loss",
    "MatrixGame": "gamedyn.games.matrix.game",
    "MirrorDescent": "gamedyn.core.learners",
    "NoHint": "gamedyn.core.hints",
    "NumericalRangeError": "gamedyn.core.numerics",
    "OFTL": "gamedyn.core.learners",
    "OFTRL": "gamedyn.core.learners",
    "OMD": "gamedyn.core.learners",
    "Objective": "gamedyn.games.fenchel.game",
    "OnlineResult": "gamedyn.engine.results",
    "OpponentSecondary": "gamedyn.core.hints",
    "Payoff": "gamedyn.engine.payoffs",
    "QNorm": "gamedyn.core.regularizers",
    "Reals": "gamedyn.core.domains",
    "RegularizedBilinear": "gamedyn.engine.payoffs",
    "Regularizer": "gamedyn.core.regularizers",
    "RoundState": "gamedyn.engine.results",
    "Simplex": "gamedyn.core.domains",
    "SquaredEuclidean": "gamedyn.core.regularizers",
    "StepSchedule": "gamedyn.core.weights",
    "Zero": "gamedyn.core.regularizers",
    "checkpoint_info": "gamedyn.engine.checkpoints",
    # the observers of play (issue 31): what a run records, when it stops, what it saves and measures
    "checkpoint": "gamedyn.engine.observers",
    "compare_with": "gamedyn.engine.observers",
    "each_round": "gamedyn.engine.observers",
    "record_plays": "gamedyn.engine.observers",
    "skip_regrets": "gamedyn.engine.observers",
    "stop_when": "gamedyn.engine.observers",
    "track_metrics": "gamedyn.engine.observers",
    "explore": "gamedyn.paper.exploration",
    "margin": "gamedyn.certify.margins",
    "max_margin": "gamedyn.certify.margins",
    "max_margin_q": "gamedyn.certify.margins",
    "soft_margin": "gamedyn.certify.soft_margin",
    "nash_gap": "gamedyn.games.matrix.game",
    "normalized_margin": "gamedyn.certify.margins",
    "numerical_argmin": "gamedyn.core.regularizers",
    "one_vs_rest": "gamedyn.arrays.batched",
    "online": "gamedyn.engine.online",
    "play": "gamedyn.engine.runner",
    "positive_margin": "gamedyn.certify.stops",
    "shared_matrix": "gamedyn.arrays.batched",
    "signed_rows": "gamedyn.io.datasets",
    "solve_matrix_game": "gamedyn.games.matrix.game",
    # extensive-form games (issue 32)
    "Treeplex": "gamedyn.core.treeplex",
    "DilatedEntropy": "gamedyn.core.dilated",
    "CounterfactualRegret": "gamedyn.core.counterfactual",
    "ExploitabilityStop": "gamedyn.certify.sequence_form",
    "ExtensiveFormGame": "gamedyn.games.efg.game",
    "EFGResult": "gamedyn.games.efg.result",
    # issue 34: general-sum and n-player games, coarse correlated and correlated equilibria
    "BimatrixGame": "gamedyn.games.general_sum.game",
    "CCEGapStop": "gamedyn.games.general_sum.solve",
    "CEGapStop": "gamedyn.games.general_sum.solve",
    "NormalFormGame": "gamedyn.games.general_sum.game",
    "SwapRegret": "gamedyn.core.swap_regret",
    "SwapRegretMatching": "gamedyn.core.swap_regret",
    "cce_gap": "gamedyn.games.general_sum.certificates",
    "ce_gap": "gamedyn.games.general_sum.certificates",
    "play_n": "gamedyn.engine.players",
    "solve_cce": "gamedyn.games.general_sum.solve",
    "solve_ce": "gamedyn.games.general_sum.solve",
    # issue 33 (solve_efg, any game in)
    "EFGSolution": "gamedyn.games.efg.solve",
    "solve_efg": "gamedyn.games.efg.solve",
}

# the layer packages, front ends and the command line, as attributes (``gamedyn.engine``, ...)
_SUBMODULES = ("core", "arrays", "certify", "engine", "games", "recipes", "logistic", "io", "paper", "sklearn", "plot",
               "cli")

if TYPE_CHECKING:  # every public name for type checkers (mypy, pyright), with its signature; at run time
    # __getattr__ below imports each on first use. tests/test_typing.py checks that this block is _EXPORTS.
    from gamedyn import arrays as arrays, certify as certify, cli as cli, core as core, engine as engine
    from gamedyn import games as games, io as io, logistic as logistic, paper as paper, plot as plot, recipes as recipes
    from gamedyn import sklearn as sklearn
    from gamedyn.arrays.batched import (
        BatchedMatrix as BatchedMatrix,
        one_vs_rest as one_vs_rest,
        shared_matrix as shared_matrix,
    )
    from gamedyn.certify.margins import (
        margin as margin,
        max_margin as max_margin,
        max_margin_q as max_margin_q,
        normalized_margin as normalized_margin,
    )
    from gamedyn.certify.soft_margin import soft_margin as soft_margin
    from gamedyn.certify.stops import positive_margin as positive_margin
    from gamedyn.core.adaptive import AdaHedge as AdaHedge, AdaptiveFTRL as AdaptiveFTRL, AdaptiveStep as AdaptiveStep
    from gamedyn.core.domains import (
        Ball as Ball,
        Box as Box,
        CappedSimplex as CappedSimplex,
        L1Ball as L1Ball,
        Reals as Reals,
        Simplex as Simplex,
    )
    from gamedyn.core.hints import (
        CurrentLoss as CurrentLoss,
        FirstRoundLoss as FirstRoundLoss,
        LastLoss as LastLoss,
        NoHint as NoHint,
        OpponentSecondary as OpponentSecondary,
    )
    from gamedyn.core.learners import (
        BestResponse as BestResponse,
        FollowTheRegularizedLeader as FollowTheRegularizedLeader,
        FTL as FTL,
        FTRL as FTRL,
        FTRLPlus as FTRLPlus,
        MirrorDescent as MirrorDescent,
        OFTL as OFTL,
        OFTRL as OFTRL,
        OMD as OMD,
    )
    from gamedyn.core.loss import Loss as Loss
    from gamedyn.core.numerics import NumericalRangeError as NumericalRangeError
    from gamedyn.core.protocols import (
        Domain as Domain,
        Hint as Hint,
        Learner as Learner,
        Observer as Observer,
        Player as Player,
    )
    from gamedyn.core.regret_matching import RegretMatching as RegretMatching
    from gamedyn.core.regularizers import (
        Entropy as Entropy,
        numerical_argmin as numerical_argmin,
        QNorm as QNorm,
        Regularizer as Regularizer,
        SquaredEuclidean as SquaredEuclidean,
        Zero as Zero,
    )
    from gamedyn.core.weights import StepSchedule as StepSchedule
    from gamedyn.engine.checkpoints import (
        checkpoint_info as checkpoint_info,
        CheckpointError as CheckpointError,
        CheckpointMismatchError as CheckpointMismatchError,
        CheckpointWarning as CheckpointWarning,
    )
    from gamedyn.engine.observers import (
        checkpoint as checkpoint,
        compare_with as compare_with,
        each_round as each_round,
        record_plays as record_plays,
        skip_regrets as skip_regrets,
        stop_when as stop_when,
        track_metrics as track_metrics,
    )
    from gamedyn.engine.online import online as online
    from gamedyn.engine.payoffs import (
        Bilinear as Bilinear,
        ConcaveConvex as ConcaveConvex,
        Payoff as Payoff,
        RegularizedBilinear as RegularizedBilinear,
    )
    from gamedyn.engine.results import GameResult as GameResult, OnlineResult as OnlineResult, RoundState as RoundState
    from gamedyn.engine.runner import play as play
    from gamedyn.games.fenchel.game import (
        FenchelConjugate as FenchelConjugate,
        FenchelGame as FenchelGame,
        Objective as Objective,
    )
    from gamedyn.games.matrix.game import (
        MatrixGame as MatrixGame,
        nash_gap as nash_gap,
        solve_matrix_game as solve_matrix_game,
    )
    from gamedyn.games.matrix.solve import (
        GameSolution as GameSolution,
        NashGapStop as NashGapStop,
        solve_game as solve_game,
    )
    from gamedyn.io.datasets import signed_rows as signed_rows
    # extensive-form games (issue 32)
    from gamedyn.certify.sequence_form import ExploitabilityStop as ExploitabilityStop
    from gamedyn.core.counterfactual import CounterfactualRegret as CounterfactualRegret
    from gamedyn.core.dilated import DilatedEntropy as DilatedEntropy
    from gamedyn.core.treeplex import Treeplex as Treeplex
    from gamedyn.games.efg.game import ExtensiveFormGame as ExtensiveFormGame
    from gamedyn.games.efg.result import EFGResult as EFGResult
    from gamedyn.games.efg.solve import EFGSolution as EFGSolution, solve_efg as solve_efg
    # general-sum and n-player games (issue 34)
    from gamedyn.core.swap_regret import SwapRegret as SwapRegret, SwapRegretMatching as SwapRegretMatching
    from gamedyn.engine.players import play_n as play_n
    from gamedyn.games.general_sum.certificates import ce_gap as ce_gap, cce_gap as cce_gap
    from gamedyn.games.general_sum.game import BimatrixGame as BimatrixGame, NormalFormGame as NormalFormGame
    from gamedyn.games.general_sum.solve import (
        CCEGapStop as CCEGapStop,
        CEGapStop as CEGapStop,
        solve_cce as solve_cce,
        solve_ce as solve_ce,
    )
    from gamedyn.paper.exploration import Exploration as Exploration, explore as explore

__all__ = [*_EXPORTS, "core", "arrays", "certify", "engine", "games", "io", "paper"]


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value  # the next read is a plain attribute
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, *_SUBMODULES})
