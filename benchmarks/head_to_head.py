"""Head to head: gamedyn's certified max margin against scikit-learn's linear classifiers (issue 9, item 5).

Run: ``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/head_to_head.py [--repeats 5]
[--sets digits-0/1,...] [--threshold]``. BLAS threads: whatever the environment sets (the line
``blas threads`` of the output says); the numbers in the docs were taken with 1.

Data sets: the digits pairs 0/1, 3/8, 1/8 (all images of both digits, pixels / 16), iris setosa
vs rest, and synthetic n = 10^5, d = 100 with planted margin 10^-3 (``make_separable``). Every model
is fitted through the origin (no intercept) on the same rows, rescaled so that max ||x_i|| = 1.

Per data set and model: the median CPU time (``time.process_time``) and wall time of ``fit`` over
``--repeats`` runs, the models interleaved (round-robin), whether the fit has zero training
error, and the normalised margin it reaches relative to gamma* (the exact oracle). gamedyn's rows:

* ``gamedyn separate``: the smooth perceptron stopped by ``stops.separated`` (time to zero training error);
* ``gamedyn auto 1%``: ``MarginClassifier(C=None, tol=0.01)`` (size-aware: the exact oracle on small sets);
* ``gamedyn dynamics 1%``: ``MarginClassifier(C=None, recipe="smooth_perceptron", tol=0.01)``;
  both report a *certified* relative gap (``certificate_.relative_gap``) next to the true one.

scikit-learn's models: ``Perceptron(fit_intercept=False)``, ``LinearSVC(loss="hinge", C=1e4)`` and
``LogisticRegression(C=1e4)`` (both also with ``fit_intercept=False``, ``max_iter`` as below);
they give no certificate, so their "1 %" column says whether they reached 0.99 gamma*.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import warnings

import numpy as np

import pathlib  # noqa: E402
import sys  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))  # run from a source checkout

from gamedyn.certify import stops  # noqa: E402
from gamedyn.io import make_separable, signed_rows
from gamedyn.certify import max_margin
from gamedyn.recipes import smooth_perceptron
from gamedyn.sklearn import MarginClassifier, NotSeparableWarning


def load_sets(names):
    from sklearn.datasets import load_digits, load_iris

    sets = {}
    digits = load_digits()
    for first, second in ((0, 1), (3, 8), (1, 8)):
        name = f"digits-{first}/{second}"
        if name in names:
            keep = np.isin(digits.target, (first, second))
            sets[name] = (digits.data[keep] / 16.0, np.where(digits.target[keep] == first, 1.0, -1.0))
    if "iris-setosa" in names:
        iris = load_iris()
        sets["iris-setosa"] = (iris.data, np.where(iris.target == 0, 1.0, -1.0))
    if "synthetic-1e5x100" in names:
        sets["synthetic-1e5x100"] = make_separable(100_000, 100, 1e-3, 0)
    return {name: (X / np.max(np.linalg.norm(X, axis=1)), y) for name, (X, y) in sets.items()}


def models(n):
    from sklearn.linear_model import LogisticRegression, Perceptron
    from sklearn.svm import LinearSVC

    big = n > 10_000
    return {
        "sklearn Perceptron": lambda: Perceptron(fit_intercept=False, max_iter=1000, tol=None if not big else 1e-3),
        "sklearn LinearSVC": lambda: LinearSVC(loss="hinge", C=1e4, fit_intercept=False, max_iter=1000 if big else 100_000),
        "sklearn LogisticRegression": lambda: LogisticRegression(C=1e4, fit_intercept=False, max_iter=1000 if big else 10_000),
        "gamedyn auto 1%": lambda: MarginClassifier(C=None, tol=0.01, fit_intercept=False, max_iter=200_000),
        "gamedyn dynamics 1%": lambda: MarginClassifier(C=None, recipe="smooth_perceptron", tol=0.01, fit_intercept=False,
                                                        max_iter=2000 if big else 200_000),
    }


class _Separate:
    """The smooth perceptron stopped at zero training error (the game directly), at most ``rounds`` rounds."""

    def __init__(self, rounds=10**6):
        self.rounds = rounds

    def fit(self, X, y):
        result = smooth_perceptron(signed_rows(X, y), self.rounds, stop=stops.separated)
        self.coef_ = result.w[None, :]
        self.certificate_ = result.certificate
        return self


def measure(make, X, y, repeats):
    cpu, wall, model = [], [], None
    for _ in range(repeats):
        model = make()
        start_cpu, start_wall = time.process_time(), time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(X, y)
        cpu.append(time.process_time() - start_cpu)
        wall.append(time.perf_counter() - start_wall)
    return cpu, wall, model


def threshold(repeats):
    """CPU time of the exact oracle (working set) and of the dynamics to a certified 1 % gap, by size."""
    from gamedyn.sklearn import _exact

    print(f"exact oracle vs smooth perceptron to a certified 1 % gap; planted margin 0.05; medians of {repeats} (CPU s)")
    for n, d in ((300, 300), (1000, 1000), (2000, 2000), (1000, 64), (10_000, 64)):
        A = signed_rows(*make_separable(n, d, 0.05, 0))
        exact, dynamics = [], []
        for _ in range(repeats):  # interleaved
            start = time.process_time()
            _exact(A)
            exact.append(time.process_time() - start)
            start = time.process_time()
            smooth_perceptron(A, 100_000, stop=stops.margin_within(0.01))
            dynamics.append(time.process_time() - start)
        print(f"  n = {n:6d}, d = {d:5d}: exact {statistics.median(exact):8.3f}  dynamics {statistics.median(dynamics):8.3f}",
              flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--sets", default="digits-0/1,digits-3/8,digits-1/8,iris-setosa,synthetic-1e5x100")
    parser.add_argument("--skip", default="", help="comma-separated model names to leave out")
    parser.add_argument("--threshold", action="store_true",
                        help="measure the exact oracle against the dynamics (the MarginClassifier's exact_threshold)")
    args = parser.parse_args(argv)
    if args.threshold:
        return threshold(args.repeats)
    print(f"blas threads: OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')}, "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}; medians of {args.repeats}, CPU and wall seconds")
    skip = set(filter(None, args.skip.split(",")))
    for name, (X, y) in load_sets(args.sets.split(",")).items():
        A = signed_rows(X, y)
        start = time.process_time()
        gamma = max_margin(A).gamma
        print(f"\n{name}: n = {X.shape[0]}, d = {X.shape[1]}, gamma* = {gamma:.6g} (exact oracle, {time.process_time() - start:.3g} s CPU)")
        print(f"  {'model':28s}{'CPU s':>10s}{'wall s':>10s}{'0 errors':>10s}{'margin/gamma*':>15s}{'certified gap':>15s}")
        big = X.shape[0] > 10_000  # caps so that one pass stays in minutes on a loaded machine
        candidates = {"gamedyn separate": lambda: _Separate(5000 if big else 10**6), **models(X.shape[0])}
        candidates = {key: value for key, value in candidates.items() if key not in skip}
        timings = {key: ([], []) for key in candidates}
        fitted = {}
        for _ in range(args.repeats):  # interleaved: one fit of each model per pass
            for key, make in candidates.items():
                cpu, wall, model = measure(make, X, y, 1)
                timings[key][0].extend(cpu)
                timings[key][1].extend(wall)
                fitted[key] = model
        for key, model in fitted.items():
            w = np.asarray(model.coef_, dtype=np.float64).ravel()
            norm = np.linalg.norm(w)
            margin = float(np.min(A @ w) / norm) if norm > 0 else 0.0
            certified = getattr(model, "certificate_", None)
            gap = f"{certified.relative_gap:.3g}" if certified is not None and certified.lower > 0 else "-"
            print(f"  {key:28s}{statistics.median(timings[key][0]):10.4f}{statistics.median(timings[key][1]):10.4f}"
                  f"{str(margin > 0):>10s}{margin / gamma:15.4f}{gap:>15s}", flush=True)


if __name__ == "__main__":
    warnings.simplefilter("ignore", NotSeparableWarning)
    main()
