"""Deprecated: ``gamedyn.protocol`` moved to :mod:`gamedyn.certify.stops`, :mod:`gamedyn.engine.online`,
:mod:`gamedyn.engine.results`, :mod:`gamedyn.engine.runner`, :mod:`gamedyn.engine.seats` (issue 17).

Importing ``gamedyn.protocol`` still works for one release: it warns once (a ``DeprecationWarning`` naming
the new path) and gives the same objects as the new modules.
"""

from gamedyn.core.deprecation import moved

moved(__name__, "gamedyn.protocol", {
    "GameResult": "gamedyn.engine.results",
    "InvalidPlayError": "gamedyn.engine.seats",
    "OnlineResult": "gamedyn.engine.results",
    "RoundState": "gamedyn.engine.results",
    "online": "gamedyn.engine.online",
    "play": "gamedyn.engine.runner",
    "positive_margin": "gamedyn.certify.stops",
}, also={
    "Ball": "gamedyn.core.domains",
    "Bilinear": "gamedyn.engine.payoffs",
    "Loss": "gamedyn.core.loss",
    "NumericalRangeError": "gamedyn.core.numerics",
    "Payoff": "gamedyn.engine.payoffs",
    "Reals": "gamedyn.core.domains",
    "Simplex": "gamedyn.core.domains",
    "add_scaled": "gamedyn.core.kernels",
    "axpy": "gamedyn.core.kernels",
    "check_count": "gamedyn.core.validation",
    "check_vector": "gamedyn.core.validation",
    "one_pass_round": "gamedyn.engine.rounds",
})
