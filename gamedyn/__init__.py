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
}

# the layer packages, front ends and the command line, as attributes (``gamedyn.engine``, ...)
_SUBMODULES = ("core", "arrays", "certify", "engine", "games", "recipes", "logistic", "io", "paper", "sklearn", "plot",
               "cli")
# the old module paths (deprecated aliases, see gamedyn.core.deprecation): ``gamedyn.margins`` still works
_DEPRECATED = ("protocol", "learners", "payoffs", "regularizers", "hints", "certificates", "margins", "stops",
               "checkpoints", "batched", "distributed", "one_pass", "matrix_games", "fenchel", "original",
               "original_games", "original_fenchel", "datasets", "exploration", "registry", "rates", "reproduce",
               "experiments")

__all__ = [*_EXPORTS, "core", "arrays", "certify", "engine", "games", "io", "paper"]


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value  # the next read is a plain attribute
        return value
    if name in _SUBMODULES or name in _DEPRECATED:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), *__all__, *_SUBMODULES})
