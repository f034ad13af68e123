"""Profile the hot path of one recipe run (cProfile), for before/after comparisons.

Run: ``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/profile_round.py [recipe] [n] [d] [T]``
(default: smooth_perceptron at 100 x 10, T = 3000). Prints the 25 most expensive functions by
internal time and the number of calls per round of the busiest ones.
"""

import cProfile
import pathlib
import pstats
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))  # run from a source checkout

from gamedyn import recipes
from gamedyn.io import make_separable, signed_rows


def main(argv):
    name = argv[1] if len(argv) > 1 else "smooth_perceptron"
    n, d, T = (int(argv[2]) if len(argv) > 2 else 100), (int(argv[3]) if len(argv) > 3 else 10), (int(argv[4]) if len(argv) > 4 else 3000)
    A = signed_rows(*make_separable(n, d, 0.05, seed=0))
    recipe = getattr(recipes, name)
    arguments = (A, T, 2.0) if name == "pnorm_perceptron" else (A, T)
    recipe(*arguments)  # warm up
    profiler = cProfile.Profile()
    profiler.enable()
    recipe(*arguments)
    profiler.disable()
    stats = pstats.Stats(profiler)
    print(f"{name} at {n} x {d}, T = {T}: {stats.total_tt / T * 1e6:.1f} us per round (under the profiler)")
    stats.sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main(sys.argv)
