"""Deprecated: ``gamedyn.payoffs`` moved to :mod:`gamedyn.core.loss`, :mod:`gamedyn.engine.payoffs` (issue
17).

Importing ``gamedyn.payoffs`` still works for one release: it warns once (a ``DeprecationWarning`` naming the
new path) and gives the same objects as the new modules.
"""

from gamedyn.core.deprecation import moved

moved(__name__, "gamedyn.payoffs", {
    "Bilinear": "gamedyn.engine.payoffs",
    "ConcaveConvex": "gamedyn.engine.payoffs",
    "Loss": "gamedyn.core.loss",
    "Payoff": "gamedyn.engine.payoffs",
    "RegularizedBilinear": "gamedyn.engine.payoffs",
}, also={
    "Simplex": "gamedyn.core.domains",
    "axpy": "gamedyn.core.kernels",
    "check_matrix": "gamedyn.core.validation",
    "check_positive": "gamedyn.core.validation",
    "dot": "gamedyn.core.kernels",
    "inner": "gamedyn.core.kernels",
    "plus_scaled": "gamedyn.core.kernels",
    "scal": "gamedyn.core.kernels",
})
