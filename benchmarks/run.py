"""Benchmarks: the cost of the composable form against the original loops, and memory in T.

Run: ``python benchmarks/run.py`` (about a minute on 2 cores). Every figure is a ratio of two
measurements taken in this one run, so it does not depend on the machine's absolute speed.

* time ratio = recipe (generic runner, learners, regularizers) / original (plain numpy loop),
  best of 3, same data and T;
* memory ratio = peak traced memory of ``play`` at T = 4000 / at T = 500 (O(n + d) in T means ~1).
"""

import time
import tracemalloc

import numpy as np

from gamedyn import OFTL, Entropy, FTRLPlus, RegularizedBilinear, original, play, recipes
from gamedyn.datasets import make_separable, signed_rows


def best_time(function, repeats=3):
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def peak_memory(function):
    tracemalloc.start()
    function()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def main():
    pairs = {
        "smooth_perceptron": (recipes.smooth_perceptron, original.smooth_perceptron),
        "accelerated_perceptron": (recipes.accelerated_perceptron, original.accelerated_perceptron),
        "mirror_prox_perceptron": (recipes.mirror_prox_perceptron, original.mirror_prox),
        "nag_margin": (recipes.nag_margin, original.nag),
    }
    for n, d, T in ((500, 50, 1000), (5000, 200, 200)):
        A = signed_rows(*make_separable(n, d, 0.05, seed=0))
        print(f"n = {n}, d = {d}, T = {T}")
        print(f"  {'recipe':26s}{'recipe s':>10s}{'original s':>12s}{'ratio':>8s}")
        for name, (recipe, reference) in pairs.items():
            game_time = best_time(lambda: recipe(A, T))
            loop_time = best_time(lambda: reference(A, T))
            print(f"  {name:26s}{game_time:10.3f}{loop_time:12.3f}{game_time / loop_time:8.2f}")
    A = signed_rows(*make_separable(300, 30, 0.05, seed=0))
    short = peak_memory(lambda: play(RegularizedBilinear(A), OFTL(), FTRLPlus(Entropy(), 0.25), 500, weights="linear"))
    long = peak_memory(lambda: play(RegularizedBilinear(A), OFTL(), FTRLPlus(Entropy(), 0.25), 4000, weights="linear"))
    print(f"peak memory of play: T = 500: {short / 1024:.0f} KiB, T = 4000: {long / 1024:.0f} KiB, ratio {long / short:.2f}")


if __name__ == "__main__":
    main()
