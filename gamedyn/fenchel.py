"""Deprecated: ``gamedyn.fenchel`` moved to :mod:`gamedyn.games.fenchel.game` (issue 17).

Importing ``gamedyn.fenchel`` still works for one release: it warns once (a ``DeprecationWarning`` naming the
new path) and gives the same objects as the new modules.
"""

from gamedyn.core.deprecation import moved

moved(__name__, "gamedyn.fenchel", {
    "FenchelConjugate": "gamedyn.games.fenchel.game",
    "FenchelGame": "gamedyn.games.fenchel.game",
    "Objective": "gamedyn.games.fenchel.game",
    "ObjectiveError": "gamedyn.games.fenchel.game",
    "agreed_dimension": "gamedyn.games.fenchel.game",
}, also={
    "Loss": "gamedyn.core.loss",
    "Payoff": "gamedyn.engine.payoffs",
    "Reals": "gamedyn.core.domains",
    "check_count": "gamedyn.core.validation",
    "check_positive": "gamedyn.core.validation",
})
