r"""The Fenchel recipes' per-iteration cost against their hand-written loops (issue 17's acceptance).

Run: ``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/fenchel_overhead.py`` (about a
minute on 2 cores; ``--quick``: a smoke test, seconds).

For ``frank_wolfe`` (on the simplex), ``accelerated_gradient`` and ``heavy_ball`` (on R^d) on a
least-squares objective :math:`\frac1{2n}\|Xx-b\|^2` (``synthetic_objective``) of 200 x 50 and of
2000 x 500, three variants run **interleaved** (A, B, C, A, B, C, ...): the recipe as users call
it (its default ``regrets=False``), the recipe with ``regrets=True`` (for information: it also
evaluates :math:`f^*` at each play for the regrets and Theorem 2's bound), and the loop of
:mod:`gamedyn.games.fenchel.original` on the objective's own gradient. The per-iteration cost is
the slope between runs of T / 16 and T rounds (fixed costs drop out), the median over the repeats;
each ratio is given for CPU time (``time.process_time``) and wall time (``time.perf_counter``).
Target: recipe / hand loop <= 1.3. Before timing, each recipe's ``.x`` is checked against its hand
loop's (relative difference printed; the equivalence tests hold it to 1e-10).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))  # run from a source checkout

import numpy as np  # noqa: E402

from gamedyn import Simplex, recipes  # noqa: E402
from gamedyn.games.fenchel import original  # noqa: E402
from gamedyn.games.fenchel.objectives import synthetic_objective  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("gamedyn_benchmarks_run", HERE / "run.py")
_run = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_run)  # the shared method: interleaved samples, slopes, ratio lines
blas_threads, interleaved_samples, per_iteration, ratio_line, short_run = (
    _run.blas_threads, _run.interleaved_samples, _run.per_iteration, _run.ratio_line, _run.short_run)


def variants(n: int, d: int) -> dict:
    """name -> (recipe(T, regrets) -> x, hand loop(T) -> x) on the n x d least-squares problem."""
    objective, _ = synthetic_objective("least-squares", n, d, seed=0)
    gradient, gamma, x0 = objective.gradient, 1.0 / (4.0 * objective.smoothness), np.zeros(d)
    return {
        "frank_wolfe (simplex)": (
            lambda T, regrets: recipes.frank_wolfe(objective, T, domain=Simplex(), dimension=d, regrets=regrets).x,
            lambda T: original.frank_wolfe(gradient, "simplex", None, d, T)),
        "accelerated_gradient": (
            lambda T, regrets: recipes.accelerated_gradient(objective, T, dimension=d, regrets=regrets).x,
            lambda T: original.accelerated_gradient(gradient, gamma, x0, T)),
        "heavy_ball": (
            lambda T, regrets: recipes.heavy_ball(objective, T, dimension=d, regrets=regrets).x,
            lambda T: original.heavy_ball(gradient, gamma, x0, T)),
    }


def section(n: int, d: int, T: int, repeats: int) -> None:
    print(f" least squares n x d = {n} x {d}, T = {T}, medians of {repeats}")
    for name, (recipe, hand) in variants(n, d).items():
        x, reference = recipe(T, False), hand(T)
        difference = float(np.max(np.abs(x - reference)) / max(1.0, float(np.max(np.abs(reference)))))
        functions = {}
        for rounds in (short_run(T), T):
            functions[("recipe", rounds)] = lambda rounds=rounds, recipe=recipe: recipe(rounds, False)
            functions[("regrets=True", rounds)] = lambda rounds=rounds, recipe=recipe: recipe(rounds, True)
            functions[("hand", rounds)] = lambda rounds=rounds, hand=hand: hand(rounds)
        samples = interleaved_samples(functions, repeats)
        hand_cost = per_iteration(samples, "hand", T)
        print(ratio_line(f"{name} (x to {difference:.0e})", per_iteration(samples, "recipe", T), hand_cost, "<= 1.3")
              + f"  (hand loop {hand_cost[0] * 1e6:.1f} us/iteration)")
        print(ratio_line("  with regrets=True", per_iteration(samples, "regrets=True", T), hand_cost, "for information"))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short runs and 2 repeats: a smoke test")
    parser.add_argument("--repeats", type=int, default=None, help="interleaved repetitions (default 9; 2 with --quick)")
    args = parser.parse_args(argv)
    repeats = args.repeats or (2 if args.quick else 9)
    print(f"BLAS: {blas_threads()}; numpy {np.__version__}; {os.cpu_count()} CPUs; "
          f"medians of {repeats} interleaved repeats; ratios of CPU and of wall time")
    print("Fenchel recipe / hand-written loop, per iteration (slope between T / 16 and T rounds)")
    for n, d, T in ((200, 50, 320), (2000, 500, 32)) if args.quick else ((200, 50, 4000), (2000, 500, 800)):
        section(n, d, T, repeats)


if __name__ == "__main__":
    main()
