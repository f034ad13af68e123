"""Layer 9, the papers: their claims (:mod:`~gamedyn.paper.claims`), the registry of recipes and originals
(:mod:`~gamedyn.paper.registry`), the rate theorems (:mod:`~gamedyn.paper.rates`), the explorer
(:mod:`~gamedyn.paper.exploration`), the experiments (:mod:`gamedyn.paper.experiments`) and the
reproduction harness ``gamedyn reproduce`` (:mod:`~gamedyn.paper.reproduce`).
"""

from gamedyn.paper.exploration import Exploration, explore

__all__ = ["Exploration", "explore"]
