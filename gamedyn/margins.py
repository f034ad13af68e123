"""Deprecated: ``gamedyn.margins`` moved to :mod:`gamedyn.certify.margins` (issue 17).

Importing ``gamedyn.margins`` still works for one release: it warns once (a ``DeprecationWarning`` naming the
new path) and gives the same objects as the new modules.
"""

from gamedyn.core.deprecation import moved

moved(__name__, "gamedyn.margins", {
    "MarginUndecidedError": "gamedyn.certify.margins",
    "MaxMargin": "gamedyn.certify.margins",
    "NotSeparableError": "gamedyn.certify.margins",
    "QNormMargin": "gamedyn.certify.margins",
    "margin": "gamedyn.certify.margins",
    "max_margin": "gamedyn.certify.margins",
    "max_margin_q": "gamedyn.certify.margins",
    "normalized_margin": "gamedyn.certify.margins",
    "scaled_to_unit_rows": "gamedyn.certify.margins",
}, also={
    "check_matrix": "gamedyn.core.validation",
    "check_q": "gamedyn.core.validation",
    "check_vector": "gamedyn.core.validation",
    "pnorm_link": "gamedyn.core.numerics",
})
