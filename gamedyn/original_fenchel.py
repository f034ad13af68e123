"""Deprecated: ``gamedyn.original_fenchel`` moved to :mod:`gamedyn.games.fenchel.original` (issue 17).

Importing ``gamedyn.original_fenchel`` still works for one release: it warns once (a ``DeprecationWarning``
naming the new path) and gives the same objects as the new modules.
"""

from gamedyn.core.deprecation import moved

moved(__name__, "gamedyn.original_fenchel", {
    "accelerated_gradient": "gamedyn.games.fenchel.original",
    "frank_wolfe": "gamedyn.games.fenchel.original",
    "heavy_ball": "gamedyn.games.fenchel.original",
    "linear_oracle": "gamedyn.games.fenchel.original",
    "projection": "gamedyn.games.fenchel.original",
    "start_point": "gamedyn.games.fenchel.original",
})
