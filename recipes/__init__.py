"""Recipes: each accelerated perceptron, and NAG, as a pair of online learners.

Installed as ``gamedyn.recipes``; one module per recipe, each reading like the paper's box.
The names and the meaning of ``.w`` / ``.p`` are a public contract.
"""

import importlib
import pkgutil

from gamedyn.engine import Recipe
from gamedyn.games.fenchel import FenchelResult
from gamedyn.games.margin import RecipeResult
from gamedyn.games.matrix import MatrixGameResult
from gamedyn.recipes.accelerated_gradient import accelerated_gradient
from gamedyn.recipes.ada_hedge import ada_hedge
from gamedyn.recipes.accelerated_perceptron import accelerated_perceptron
from gamedyn.recipes.fictitious_play import fictitious_play
from gamedyn.recipes.frank_wolfe import frank_wolfe
from gamedyn.recipes.heavy_ball import heavy_ball
from gamedyn.recipes.hedge import hedge
from gamedyn.recipes.mirror_prox_perceptron import mirror_prox_perceptron
from gamedyn.recipes.nag_margin import nag_margin
from gamedyn.recipes.optimistic_hedge import optimistic_hedge
from gamedyn.recipes.pnorm_perceptron import pnorm_perceptron
from gamedyn.recipes.regret_matching import predictive_regret_matching_plus, regret_matching, regret_matching_plus
from gamedyn.recipes.smooth_perceptron import smooth_perceptron

_ORDER = ("smooth_perceptron", "accelerated_perceptron", "mirror_prox_perceptron", "nag_margin", "pnorm_perceptron")


def _declared_recipes() -> dict:
    """name -> :class:`Recipe`, from the ``RECIPE`` of every public module of this package.

    Modules without one (the matrix-game dynamics and the Fenchel-game recipes, whose results are not
    margins on data A) are not listed.
    """
    found = {}
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("_"):
            recipe = getattr(importlib.import_module(f"{__name__}.{info.name}"), "RECIPE", None)
            if isinstance(recipe, Recipe):
                found[recipe.name] = recipe
    ordered = sorted(found, key=lambda name: (_ORDER.index(name) if name in _ORDER else len(_ORDER), name))
    return {name: found[name] for name in ordered}


RECIPES = _declared_recipes()  # read by the registry and the command line
globals().update({name: recipe.function for name, recipe in RECIPES.items()})  # a new module's recipe, too

__all__ = ["Recipe", "RecipeResult", "RECIPES", *RECIPES, "MatrixGameResult", "ada_hedge", "fictitious_play", "hedge",
           "optimistic_hedge", "predictive_regret_matching_plus", "regret_matching", "regret_matching_plus",
           "FenchelResult", "accelerated_gradient", "frank_wolfe", "heavy_ball"]
