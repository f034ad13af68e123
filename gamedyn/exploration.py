"""Deprecated: ``gamedyn.exploration`` moved to :mod:`gamedyn.paper.exploration` (issue 17).

Importing ``gamedyn.exploration`` still works for one release: it warns once (a ``DeprecationWarning`` naming
the new path) and gives the same objects as the new modules.
"""

from gamedyn.core.deprecation import moved

moved(__name__, "gamedyn.exploration", {
    "Exploration": "gamedyn.paper.exploration",
    "ExplorationRow": "gamedyn.paper.exploration",
    "PAPER_PAIRS": "gamedyn.paper.exploration",
    "explore": "gamedyn.paper.exploration",
    "fitted_exponent": "gamedyn.paper.exploration",
    "geometric_checkpoints": "gamedyn.paper.exploration",
    "separator_learners": "gamedyn.paper.exploration",
}, also={
    "Payoff": "gamedyn.engine.payoffs",
    "check_count": "gamedyn.core.validation",
})
