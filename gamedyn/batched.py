"""Deprecated: ``gamedyn.batched`` moved to :mod:`gamedyn.arrays.batched` (issue 17).

Importing ``gamedyn.batched`` still works for one release: it warns once (a ``DeprecationWarning`` naming the
new path) and gives the same objects as the new modules.
"""

from gamedyn.core.deprecation import moved

moved(__name__, "gamedyn.batched", {
    "BatchedMatrix": "gamedyn.arrays.batched",
    "one_vs_rest": "gamedyn.arrays.batched",
    "shared_matrix": "gamedyn.arrays.batched",
}, also={
    "check_count": "gamedyn.core.validation",
    "check_matrix": "gamedyn.core.validation",
})
