"""Recipes: each accelerated perceptron (and NAG) as a pair of online learners.

Installed as ``gamedyn.recipes``; one module per recipe, each reading like the paper's box.
"""
