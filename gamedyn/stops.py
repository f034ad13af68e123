"""Deprecated: ``gamedyn.stops`` moved to :mod:`gamedyn.certify.stops` (issue 17).

Importing ``gamedyn.stops`` still works for one release: it warns once (a ``DeprecationWarning`` naming the
new path) and gives the same objects as the new modules.
"""

from gamedyn.core.deprecation import moved

moved(__name__, "gamedyn.stops", {
    "any_of": "gamedyn.certify.stops",
    "infeasible": "gamedyn.certify.stops",
    "margin_within": "gamedyn.certify.stops",
    "separated": "gamedyn.certify.stops",
})
