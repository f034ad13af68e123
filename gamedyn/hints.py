"""Deprecated: ``gamedyn.hints`` moved to :mod:`gamedyn.core.hints` (issue 17).

Importing ``gamedyn.hints`` still works for one release: it warns once (a ``DeprecationWarning`` naming the
new path) and gives the same objects as the new modules.
"""

from gamedyn.core.deprecation import moved

moved(__name__, "gamedyn.hints", {
    "CurrentLoss": "gamedyn.core.hints",
    "FirstRoundLoss": "gamedyn.core.hints",
    "LastLoss": "gamedyn.core.hints",
    "NoHint": "gamedyn.core.hints",
    "OpponentSecondary": "gamedyn.core.hints",
}, also={
    "Loss": "gamedyn.core.loss",
    "Payoff": "gamedyn.engine.payoffs",
})
