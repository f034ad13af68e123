"""Shrinking rounds in the certified soft-margin solver (issue 19): the head-to-head's hard games with and
without them, interleaved.

Run (about a minute):

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/soft_shrinking.py [--n 100000] [--repeats 3]

The games: the first 80 % of ``soft_head_to_head.synthetic(n)`` (``X ~ N(0, I_100)`` labelled by a random
hyperplane, 5 % of the labels flipped), rows ``y_i (x_i, m) / (sqrt 2 m)`` with ``m = max ||x_i||`` (the
estimator's rows with an intercept), ``soft_margin_lbfgs(rows, 1 / (nu n'), tol=0.01,
zero_below=1e-4)`` (the estimator's call) at ``nu`` in 0.03, 0.1, 0.3, with ``shrinking`` True and False
alternating, ``--repeats`` times each. Printed: the medians of CPU time (``time.process_time``) and wall
time, the iterations, the certified ends and which rule stopped the game.
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))  # run from a source checkout

from benchmarks.soft_head_to_head import synthetic  # noqa: E402
from gamedyn.certify.dual import SignedRows, soft_margin_lbfgs  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    X, y = synthetic(args.n)
    X, y = X[: int(0.8 * args.n)], y[: int(0.8 * args.n)].astype(np.float64)
    m = float(np.max(np.linalg.norm(X, axis=1)))
    rows = SignedRows(X, y[:, None], m, float(np.hypot(m, m)))
    print(f"{X.shape[0]} x {X.shape[1]} rows, tol 0.01, zero_below 1e-4, medians of {args.repeats}")
    print("| nu | shrinking | CPU s | wall s | iterations | lower | upper | stopped by |")
    print("|---|---|---|---|---|---|---|---|")
    ratios = []
    for nu in (0.03, 0.1, 0.3):
        cap = 1.0 / (nu * X.shape[0])
        times = {True: [], False: []}
        found = {}
        for _ in range(args.repeats):
            for shrinking in (True, False):  # interleaved
                cpu, wall = time.process_time(), time.perf_counter()
                found[shrinking] = soft_margin_lbfgs(rows, cap, tol=0.01, max_iter=1000, zero_below=1e-4,
                                                     shrinking=shrinking)
                times[shrinking].append((time.process_time() - cpu, time.perf_counter() - wall))
        for shrinking in (True, False):
            f = found[shrinking]
            lower, upper = float(f.lower[0]), float(f.upper[0])
            rule = "gap <= tol" if upper - lower <= 0.01 * upper else ("upper <= 1e-4" if upper <= 1e-4 else "max_iter")
            cpu = statistics.median(t[0] for t in times[shrinking])
            wall = statistics.median(t[1] for t in times[shrinking])
            print(f"| {nu} | {shrinking} | {cpu:.3f} | {wall:.3f} | {int(f.iterations[0])} | {lower:.4e} | "
                  f"{upper:.4e} | {rule} |")
        ratios.append(statistics.median(t[0] for t in times[False]) / statistics.median(t[0] for t in times[True]))
    print("CPU time without / with shrinking: " + ", ".join(f"{r:.1f}x" for r in ratios))


if __name__ == "__main__":
    main()
