r"""solve_game against its two engines (issue 35): ``scipy.optimize.linprog`` (HiGHS) and the dynamics alone.

Run (one BLAS thread is set before numpy loads)::

    python benchmarks/solve_game.py                       # sizes 30 100 300 1000, seeds 0 1 2, gap 1e-6
    python benchmarks/solve_game.py --sizes 30 100 --repeats 3

For each n x n game with entries U(-1, 1) (``benchmarks/matrix_games.random_game``) and each seed it
times, interleaved (``--repeats`` times; medians), CPU (``time.process_time``) and wall time of:

* ``linprog``: HiGHS on the row player's maximin LP, the column strategy from its duals
  (``benchmarks/matrix_games.linprog_solve``, scipy's default ``method="highs"``), its gap certified by
  two products;
* ``dynamics``: ``solve_game(M, gap, method="dynamics")`` (PRM+ to the certified gap);
* ``lp``: ``solve_game(M, gap, method="lp")`` (one LP and the certified bracket; skipped above 300);
* ``auto``: ``solve_game(M, gap)``, which picks by :func:`gamedyn.games.matrix.solve.lp_is_faster`.

The table gives each median and **auto / min(linprog, dynamics)** per seed (target <= 1.5 at every
size and seed), with the method auto took and its certified gap. Load from other processes on a
shared machine shows in wall time first: read the CPU columns.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import pathlib  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from matrix_games import linprog_solve, random_game  # noqa: E402

from gamedyn.games.matrix import solve_game  # noqa: E402


def timed(function):
    cpu, wall = time.process_time(), time.perf_counter()
    result = function()
    return time.process_time() - cpu, time.perf_counter() - wall, result


def measure(M, gap: float, repeats: int, with_lp: bool) -> dict:
    """name -> (median CPU s, median wall s, last result), the variants interleaved."""
    variants = {"linprog": lambda: linprog_solve(M),
                "dynamics": lambda: solve_game(M, gap, method="dynamics"),
                "auto": lambda: solve_game(M, gap)}
    if with_lp:
        variants["lp"] = lambda: solve_game(M, gap, method="lp")
    samples: dict = {name: ([], [], None) for name in variants}
    for _ in range(repeats):
        for name, function in variants.items():
            cpu, wall, result = timed(function)
            samples[name][0].append(cpu)
            samples[name][1].append(wall)
            samples[name] = (samples[name][0], samples[name][1], result)
    return {name: (statistics.median(cpu), statistics.median(wall), result) for name, (cpu, wall, result) in samples.items()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[30, 100, 300, 1000])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--gap", type=float, default=1e-6)
    parser.add_argument("--repeats", type=int, default=3, help="interleaved repeats per game (1 at 1000 x 1000)")
    args = parser.parse_args(argv)
    print(f"solve_game to gap {args.gap:g}: CPU s (wall s), medians of interleaved repeats; "
          f"OMP/OPENBLAS threads {os.environ.get('OPENBLAS_NUM_THREADS')}")
    print("| n | seed | linprog | dynamics | lp | auto (method, certified gap) | auto / min(linprog, dynamics) cpu | wall |")
    print("|---|---|---|---|---|---|---|---|")
    worst = 0.0
    for size in args.sizes:
        repeats = 1 if size >= 1000 else args.repeats
        for seed in args.seeds:
            M = random_game(size, seed)
            times = measure(M, args.gap, repeats, with_lp=size <= 300)
            best_cpu = min(times["linprog"][0], times["dynamics"][0])
            best_wall = min(times["linprog"][1], times["dynamics"][1])
            auto = times["auto"]
            ratio_cpu, ratio_wall = auto[0] / best_cpu, auto[1] / best_wall
            worst = max(worst, ratio_cpu)
            solution = auto[2]
            method = "LP" if solution.rounds == 0 else f"dynamics, {solution.rounds} rounds"
            lp = f"{times['lp'][0]:.4f} ({times['lp'][1]:.4f})" if "lp" in times else "-"
            print(f"| {size} | {seed} | {times['linprog'][0]:.4f} ({times['linprog'][1]:.4f}) | "
                  f"{times['dynamics'][0]:.4f} ({times['dynamics'][1]:.4f}) | {lp} | "
                  f"{auto[0]:.4f} ({auto[1]:.4f}; {method}, {solution.nash_gap:.1e}) | {ratio_cpu:.2f} | "
                  f"{ratio_wall:.2f} |", flush=True)
    print(f"worst auto / min(linprog, dynamics), CPU: {worst:.2f}   [<= 1.5]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
