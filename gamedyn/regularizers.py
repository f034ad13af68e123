"""Deprecated: ``gamedyn.regularizers`` moved to :mod:`gamedyn.core.domains`,
:mod:`gamedyn.core.regularizers` (issue 17).

Importing ``gamedyn.regularizers`` still works for one release: it warns once (a ``DeprecationWarning``
naming the new path) and gives the same objects as the new modules.
"""

from gamedyn.core.deprecation import moved

moved(__name__, "gamedyn.regularizers", {
    "Ball": "gamedyn.core.domains",
    "Box": "gamedyn.core.domains",
    "Entropy": "gamedyn.core.regularizers",
    "L1Ball": "gamedyn.core.domains",
    "QNorm": "gamedyn.core.regularizers",
    "Reals": "gamedyn.core.domains",
    "Regularizer": "gamedyn.core.regularizers",
    "Simplex": "gamedyn.core.domains",
    "SquaredEuclidean": "gamedyn.core.regularizers",
    "Zero": "gamedyn.core.regularizers",
    "numerical_argmin": "gamedyn.core.regularizers",
}, also={
    "NumericalRangeError": "gamedyn.core.numerics",
    "asum": "gamedyn.core.kernels",
    "check_positive": "gamedyn.core.validation",
    "check_q": "gamedyn.core.validation",
    "dot": "gamedyn.core.kernels",
    "euclidean_norm": "gamedyn.core.numerics",
    "ones": "gamedyn.core.kernels",
    "pnorm_link": "gamedyn.core.numerics",
    "scal": "gamedyn.core.kernels",
    "scaled_norm": "gamedyn.core.numerics",
    "softmax_logits": "gamedyn.core.numerics",
})
