"""The margin family: finding a linear separator as the game max_w min_p p^T A w (the accelerated perceptrons).

:class:`MarginResult` is what every margin recipe returns (a :class:`gamedyn.engine.recipe.RecipeResult`,
also importable under that name from here, as before); :mod:`gamedyn.games.margin.original` holds the
papers' algorithms in their published form.
"""

from gamedyn.engine.recipe import RecipeResult
from gamedyn.games.margin.result import NORMALIZE, MarginResult, on_given_rows

__all__ = ["NORMALIZE", "MarginResult", "RecipeResult", "on_given_rows"]
