"""Deprecated: ``gamedyn.registry`` moved to :mod:`gamedyn.paper.registry` (issue 17).

Importing ``gamedyn.registry`` still works for one release: it warns once (a ``DeprecationWarning`` naming
the new path) and gives the same objects as the new modules.
"""

from gamedyn.core.deprecation import moved

moved(__name__, "gamedyn.registry", {
    "ALGORITHM4_P": "gamedyn.paper.registry",
    "EQUIVALENCES": "gamedyn.paper.registry",
    "Entry": "gamedyn.paper.registry",
    "Equivalence": "gamedyn.paper.registry",
    "OriginalForm": "gamedyn.paper.registry",
    "entries": "gamedyn.paper.registry",
    "original_entries": "gamedyn.paper.registry",
    "recipe_entries": "gamedyn.paper.registry",
    "relative_error": "gamedyn.paper.registry",
})
