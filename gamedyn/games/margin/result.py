"""The result every margin recipe returns."""

from __future__ import annotations

import attrs
import numpy as np

from gamedyn.engine.recipe import Parameter, RecipeResult


@attrs.frozen(kw_only=True)
class MarginResult(RecipeResult):
    """A margin recipe's output in the original algorithm's terms, plus the game that produced it.

    ``w`` and ``p`` mean what the recipe's docstring says (a public contract); ``game`` is the
    runner's :class:`gamedyn.GameResult` with the regrets and Theorem 2's bound; ``steps`` the step
    sizes the recipe used (:class:`gamedyn.engine.recipe.RecipeResult`). ``row_scale`` is the factor
    max_i ||x_i|| the rows were divided by (``normalize=True``; 1.0 otherwise): the game, ``w`` and the
    certificate are on the rescaled rows A / row_scale. ``certificate`` is the certified bracket
    lower <= gamma* <= upper of :mod:`gamedyn.certify.certificates` (on A / row_scale); every margin
    recipe's output is proportional to the game's output sum, so ``lower`` is the normalised margin of ``w``.
    """

    w: np.ndarray
    p: np.ndarray
    row_scale: float = 1.0


NORMALIZE = Parameter(
    "normalize", "divide the rows by max_i ||x_i|| first (the theorems assume ||x_i|| <= 1; .row_scale says by "
    "how much); False refuses rows longer than 1", default=False, kind=bool, cli=False)
"""The parameter every margin recipe takes (the command line scales the rows itself)."""
