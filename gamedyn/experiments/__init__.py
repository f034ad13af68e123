"""Deprecated: ``gamedyn.experiments`` moved to :mod:`gamedyn.paper.experiments` (issue 17).

Importing ``gamedyn.experiments`` still works for one release: it warns once (a ``DeprecationWarning`` naming
the new path) and gives the same objects as the new modules.
"""

from gamedyn.core.deprecation import moved

moved(__name__, "gamedyn.experiments", {}, new="gamedyn.paper.experiments")
