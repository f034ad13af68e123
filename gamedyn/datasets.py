"""Deprecated: ``gamedyn.datasets`` moved to :mod:`gamedyn.io.datasets` (issue 17).

Importing ``gamedyn.datasets`` still works for one release: it warns once (a ``DeprecationWarning`` naming
the new path) and gives the same objects as the new modules.
"""

from gamedyn.core.deprecation import moved

moved(__name__, "gamedyn.datasets", {
    "add_decoy": "gamedyn.io.datasets",
    "digits_pair": "gamedyn.io.datasets",
    "make_separable": "gamedyn.io.datasets",
    "make_separable_lp": "gamedyn.io.datasets",
    "perceptron_hard_instance": "gamedyn.io.datasets",
    "signed_rows": "gamedyn.io.datasets",
    "symmetric_pair": "gamedyn.io.datasets",
}, also={
    "check_count": "gamedyn.core.validation",
    "check_labels": "gamedyn.core.validation",
    "check_matrix": "gamedyn.core.validation",
})
