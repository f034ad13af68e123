"""Deprecated: ``gamedyn.rates`` moved to :mod:`gamedyn.paper.rates` (issue 17).

Importing ``gamedyn.rates`` still works for one release: it warns once (a ``DeprecationWarning`` naming the
new path) and gives the same objects as the new modules.
"""

from gamedyn.core.deprecation import moved

moved(__name__, "gamedyn.rates", {
    "RateCheck": "gamedyn.paper.rates",
    "theorem3": "gamedyn.paper.rates",
    "theorem4": "gamedyn.paper.rates",
    "theorem5": "gamedyn.paper.rates",
    "theorem6": "gamedyn.paper.rates",
    "theorem7": "gamedyn.paper.rates",
}, also={
    "QNorm": "gamedyn.core.regularizers",
    "max_margin": "gamedyn.certify.margins",
    "max_margin_q": "gamedyn.certify.margins",
    "normalized_margin": "gamedyn.certify.margins",
})
