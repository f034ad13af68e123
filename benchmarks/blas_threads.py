"""BLAS threads under load: the vector calls of a round must never wake OpenBLAS's threads.

Run WITHOUT ``OMP_NUM_THREADS`` / ``OPENBLAS_NUM_THREADS`` (OpenBLAS then uses one thread per core)
while the machine is busy, e.g. ``python benchmarks/blas_threads.py --busy 2`` (starts two busy
processes of its own for the duration, one per core of a 2-core machine, and stops them by their
process ids). Prints CPU (``time.process_time``, all threads of this process) and wall time of:

1. ``MarginClassifier(C=None, recipe="smooth_perceptron")`` on the 10 digits classes (1797 x 64, one batched
   one-vs-rest game of K = 10: its running sums hold n K = 17970 numbers, above OpenBLAS's threading
   threshold of 10000 for axpy and dot);
2. the batched one-vs-rest K = 10 game against a loop of the 10 separate games, ``--rounds`` rounds
   of ``smooth_perceptron`` and ``nag_margin``;
3. scipy's own ``daxpy`` on 18000 numbers against ``gamedyn.core.kernels.axpy`` (per call).

Medians of ``--repeats`` interleaved runs. The BLAS pools and their thread counts are printed first.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import pathlib
import statistics
import sys
import time
import warnings

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))  # run from a source checkout

import numpy as np  # noqa: E402


def _spin(stop_at: float) -> None:  # a busy process: one core's worth of load
    while time.time() < stop_at:
        pass


def timed(function):
    cpu, wall = time.process_time(), time.perf_counter()
    function()
    return time.process_time() - cpu, time.perf_counter() - wall


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--busy", type=int, default=0, help="busy processes to start for the run (default 0)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=300)
    args = parser.parse_args(argv)

    from scipy.linalg.blas import daxpy
    from sklearn.datasets import load_digits

    from gamedyn import recipes

    try:
        from gamedyn.core.kernels import axpy
    except ImportError:  # a tree before the level-1 kernel (for before/after runs)
        axpy = None
    from gamedyn.arrays import one_vs_rest
    from gamedyn.io import signed_rows
    from gamedyn.sklearn import MarginClassifier

    try:
        from threadpoolctl import threadpool_info

        pools = ", ".join(f"{p['internal_api']} {p.get('version')} {p['num_threads']} thread(s) ({p['prefix']})"
                          for p in threadpool_info())
    except ImportError:
        pools = "threadpoolctl not installed"
    print(f"BLAS: {pools}; OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}, "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}; {os.cpu_count()} cores")

    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    Z = np.hstack([X, np.ones((X.shape[0], 1))])
    Z /= np.max(np.linalg.norm(Z, axis=1))
    classes = np.unique(y)
    signs = np.where(y[:, None] == classes[None, :], 1.0, -1.0)
    games = [signed_rows(Z, signs[:, k]) for k in range(classes.size)]
    x, target = np.random.default_rng(0).random(18_000), np.zeros(18_000)

    def fit():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            MarginClassifier(C=None, recipe="smooth_perceptron").fit(X, y)

    cases = {"digits fit, smooth_perceptron, K = 10": fit}
    for name in ("smooth_perceptron", "nag_margin"):
        recipe = getattr(recipes, name)
        cases[f"{name} batched K = 10, {args.rounds} rounds"] = (
            lambda recipe=recipe: recipe(one_vs_rest(Z, signs), args.rounds))
        cases[f"{name} 10 separate games, {args.rounds} rounds each"] = (
            lambda recipe=recipe: [recipe(A, args.rounds) for A in games])
    cases["scipy daxpy, 18000 numbers, x 1000"] = lambda: [daxpy(x, target, a=1e-9) for _ in range(1000)]
    if axpy is not None:
        cases["gamedyn.core.kernels.axpy, 18000 numbers, x 1000"] = lambda: [axpy(x, target, 1e-9) for _ in range(1000)]

    busy = []
    if args.busy:
        stop_at = time.time() + 3600
        busy = [multiprocessing.Process(target=_spin, args=(stop_at,), daemon=True) for _ in range(args.busy)]
        for process in busy:
            process.start()
        print(f"busy processes: {[process.pid for process in busy]}")
    try:
        samples = {key: ([], []) for key in cases}
        for _ in range(args.repeats):  # interleaved
            for key, function in cases.items():
                cpu, wall = timed(function)
                samples[key][0].append(cpu)
                samples[key][1].append(wall)
    finally:
        for process in busy:
            process.terminate()
            process.join()
    print(f"{'case':52s}{'CPU s':>10s}{'wall s':>10s}   (medians of {args.repeats})")
    for key, (cpu, wall) in samples.items():
        print(f"{key:52s}{statistics.median(cpu):10.3f}{statistics.median(wall):10.3f}")


if __name__ == "__main__":
    main()
