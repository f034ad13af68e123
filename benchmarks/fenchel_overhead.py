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

**Figures** (issue 17; 2-core machine shared with other jobs, 1 BLAS thread, numpy 2.4). Before the
lean round: 1.67 (frank_wolfe), 1.65 (accelerated_gradient), 2.00 (heavy_ball) at 200 x 50. With
:class:`gamedyn.engine.rounds.ConjugateRound` (the run nobody watches, ``regrets=False``), three full
runs of the final tree (2026-12-02, 05:13-05:22 UTC, other jobs running): CPU ratios at 200 x 50
frank_wolfe 1.00-1.23, accelerated_gradient 1.09-1.14, heavy_ball 1.28-1.43 (1.43 in the run taken
while two other jobs held both cores; 1.28 in the other two); at 2000 x 500 0.97-1.06, 0.93-1.06,
1.03-1.14. Wall ratios follow the CPU ones when the cores are free and scatter under load
(heavy_ball: 0.92-1.62 at 200 x 50, 1.00-1.50 at 2000 x 500). One run (05:20 UTC)::

     least squares n x d = 200 x 50, T = 4000, medians of 9
      frank_wolfe (simplex) (x to 1e-15)           cpu   1.00   wall   1.03   [<= 1.3]  (hand loop 7.6 us/iteration)
        with regrets=True                          cpu   2.26   wall   2.30   [for information]
      accelerated_gradient (x to 2e-16)            cpu   1.09   wall   1.09   [<= 1.3]  (hand loop 7.3 us/iteration)
        with regrets=True                          cpu   2.46   wall   2.26   [for information]
      heavy_ball (x to 5e-15)                      cpu   1.28   wall   0.92   [<= 1.3]  (hand loop 5.8 us/iteration)
        with regrets=True                          cpu   2.90   wall   2.61   [for information]
     least squares n x d = 2000 x 500, T = 800, medians of 9
      frank_wolfe (simplex) (x to 3e-16)           cpu   0.99   wall   0.88   [<= 1.3]  (hand loop 193.9 us/iteration)
        with regrets=True                          cpu   1.62   wall   1.43   [for information]
      accelerated_gradient (x to 4e-16)            cpu   0.93   wall   0.99   [<= 1.3]  (hand loop 209.3 us/iteration)
        with regrets=True                          cpu   1.48   wall   1.65   [for information]
      heavy_ball (x to 2e-15)                      cpu   1.07   wall   1.50   [<= 1.3]  (hand loop 196.1 us/iteration)
        with regrets=True                          cpu   1.77   wall   1.92   [for information]

heavy_ball is the tightest: its hand loop is a gradient and five vector operations, while the game
round keeps what the players hold bit for bit (the gradient's copy and finiteness check, the
conjugate's memo, the x-player's step as its regularizer computes it, three axpys for the sums),
about 1.6 us more per round at d = 50.
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
