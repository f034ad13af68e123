"""Recipes: each accelerated perceptron, and NAG, as a pair of online learners.

Installed as ``gamedyn.recipes``; one module per recipe, each reading like the paper's box.
The names and the meaning of ``.w`` / ``.p`` are a public contract.
"""

from gamedyn.recipes._result import RecipeResult
from gamedyn.recipes.accelerated_perceptron import accelerated_perceptron
from gamedyn.recipes._matrix_result import MatrixGameResult
from gamedyn.recipes.fictitious_play import fictitious_play
from gamedyn.recipes.hedge import hedge
from gamedyn.recipes.mirror_prox_perceptron import mirror_prox_perceptron
from gamedyn.recipes.nag_margin import nag_margin
from gamedyn.recipes.optimistic_hedge import optimistic_hedge
from gamedyn.recipes.pnorm_perceptron import pnorm_perceptron
from gamedyn.recipes.smooth_perceptron import smooth_perceptron

__all__ = [
    "RecipeResult", "accelerated_perceptron", "mirror_prox_perceptron", "nag_margin", "pnorm_perceptron",
    "smooth_perceptron",
    "MatrixGameResult", "fictitious_play", "hedge", "optimistic_hedge",
]
