"""The margin family: finding a linear separator as the game max_w min_p p^T A w (the accelerated perceptrons).

:class:`RecipeResult` is what every margin recipe returns; :mod:`gamedyn.games.margin.original` holds the
papers' algorithms in their published form.
"""

from gamedyn.games.margin.result import RecipeResult

__all__ = ["RecipeResult"]
