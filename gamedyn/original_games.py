"""Deprecated: ``gamedyn.original_games`` moved to :mod:`gamedyn.games.matrix.original` (issue 17).

Importing ``gamedyn.original_games`` still works for one release: it warns once (a ``DeprecationWarning``
naming the new path) and gives the same objects as the new modules.
"""

from gamedyn.core.deprecation import moved

moved(__name__, "gamedyn.original_games", {
    "MatrixGamePath": "gamedyn.games.matrix.original",
    "fictitious_play": "gamedyn.games.matrix.original",
    "hedge": "gamedyn.games.matrix.original",
    "optimistic_hedge": "gamedyn.games.matrix.original",
})
