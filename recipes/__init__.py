"""Recipes: every no-regret dynamic of the papers as a pair of online learners, one module each.

Installed as ``gamedyn.recipes``; each module reads like the paper's box, declared once with
:func:`gamedyn.engine.recipe.recipe`. Every recipe has one shape, ``name(problem, T, *, <its
parameters>, **run_options)``, and returns a :class:`RecipeResult` (``.game``, ``.certificate``,
``.steps``). Four families:

- margin (``A``, the signed rows): smooth_perceptron, accelerated_perceptron, mirror_prox_perceptron,
  nag_margin, pnorm_perceptron -> :class:`gamedyn.games.margin.MarginResult` (``w``, ``p``, ``row_scale``);
- matrix games (``M``, rows maximise): hedge, optimistic_hedge, fictitious_play, regret_matching,
  regret_matching_plus, predictive_regret_matching_plus, ada_hedge ->
  :class:`MatrixGameResult` (``row``, ``column``, ``value``, ``nash_gap``);
- Fenchel games (an :class:`gamedyn.Objective`): frank_wolfe, accelerated_gradient, heavy_ball ->
  :class:`FenchelResult` (``x``, ``value``);
- extensive-form games (a :mod:`gamedyn.games.efg` game): cfr, cfr_plus, dcfr, pcfr_plus, dilated_hedge,
  optimistic_dilated_hedge, mmd, optimistic_mmd ->
  :class:`EFGResult` (``x``, ``y``, ``lower``, ``upper``, ``nash_gap``, ``exploitability``, ``policy``).

:data:`RECIPES` (name -> :class:`Recipe`) lists every recipe of every family, read from the
modules' declarations; :func:`of_family` those of one family. The names and the meaning of the
results' fields are a public contract.
"""

import importlib
import pkgutil
from typing import TYPE_CHECKING

from gamedyn.engine.recipe import FAMILIES, Recipe, RecipeResult
from gamedyn.games.efg import EFGResult
from gamedyn.games.fenchel import FenchelResult
from gamedyn.games.margin import MarginResult
from gamedyn.games.matrix import MatrixGameResult

if TYPE_CHECKING:  # the recipe functions, named for type checkers (at run time RECIPES below puts them here);
    # tests/test_typing.py checks that this list is RECIPES
    from gamedyn.recipes.accelerated_gradient import (
        accelerated_gradient as accelerated_gradient,
    )
    from gamedyn.recipes.accelerated_perceptron import (
        accelerated_perceptron as accelerated_perceptron,
    )
    from gamedyn.recipes.ada_hedge import ada_hedge as ada_hedge
    from gamedyn.recipes.cfr import cfr as cfr
    from gamedyn.recipes.cfr_plus import cfr_plus as cfr_plus
    from gamedyn.recipes.dcfr import dcfr as dcfr
    from gamedyn.recipes.dilated_hedge import dilated_hedge as dilated_hedge
    from gamedyn.recipes.fictitious_play import fictitious_play as fictitious_play
    from gamedyn.recipes.frank_wolfe import frank_wolfe as frank_wolfe
    from gamedyn.recipes.heavy_ball import heavy_ball as heavy_ball
    from gamedyn.recipes.hedge import hedge as hedge
    from gamedyn.recipes.mirror_prox_perceptron import (
        mirror_prox_perceptron as mirror_prox_perceptron,
    )
    from gamedyn.recipes.mmd import mmd as mmd
    from gamedyn.recipes.nag_margin import nag_margin as nag_margin
    from gamedyn.recipes.optimistic_mmd import optimistic_mmd as optimistic_mmd
    from gamedyn.recipes.optimistic_dilated_hedge import (
        optimistic_dilated_hedge as optimistic_dilated_hedge,
    )
    from gamedyn.recipes.optimistic_hedge import optimistic_hedge as optimistic_hedge
    from gamedyn.recipes.pcfr_plus import pcfr_plus as pcfr_plus
    from gamedyn.recipes.pnorm_perceptron import pnorm_perceptron as pnorm_perceptron
    from gamedyn.recipes.predictive_regret_matching_plus import (
        predictive_regret_matching_plus as predictive_regret_matching_plus,
    )
    from gamedyn.recipes.regret_matching import regret_matching as regret_matching
    from gamedyn.recipes.regret_matching_plus import (
        regret_matching_plus as regret_matching_plus,
    )
    from gamedyn.recipes.smooth_perceptron import smooth_perceptron as smooth_perceptron

_FAMILY_ORDER = tuple(FAMILIES)  # margin, matrix, fenchel, efg
_ORDER = ("smooth_perceptron", "accelerated_perceptron", "mirror_prox_perceptron", "nag_margin", "pnorm_perceptron",
          "hedge", "optimistic_hedge", "fictitious_play", "regret_matching", "regret_matching_plus",
          "predictive_regret_matching_plus", "ada_hedge", "frank_wolfe", "accelerated_gradient", "heavy_ball",
          "cfr", "cfr_plus", "dcfr", "pcfr_plus", "dilated_hedge", "optimistic_dilated_hedge", "mmd", "optimistic_mmd")


def _declared_recipes() -> dict:
    """name -> :class:`Recipe`, from the recipe function of every public module of this package (the
    function named as its module, carrying its declaration as ``.recipe``), family by family."""
    found = {}
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("_"):
            module = importlib.import_module(f"{__name__}.{info.name}")
            declaration = getattr(getattr(module, info.name, None), "recipe", None)
            if isinstance(declaration, Recipe):
                found[declaration.name] = declaration
    ordered = sorted(found, key=lambda name: (_FAMILY_ORDER.index(found[name].family.name),
                                              _ORDER.index(name) if name in _ORDER else len(_ORDER), name))
    return {name: found[name] for name in ordered}


RECIPES = _declared_recipes()  # read by the registry, the command line, the experiments and the docs
globals().update({name: recipe.function for name, recipe in RECIPES.items()})  # a new module's recipe, too


def of_family(family: str) -> dict:
    """name -> :class:`Recipe` of the recipes of one family (``"margin"``, ``"matrix"``, ``"fenchel"`` or ``"efg"``)."""
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {list(FAMILIES)}, got {family!r}.")
    return {name: recipe for name, recipe in RECIPES.items() if recipe.family.name == family}


__all__ = ["EFGResult", "FenchelResult", "MarginResult", "MatrixGameResult", "Recipe", "RecipeResult", "RECIPES", "of_family",
           *RECIPES]
