r"""The fixed per-iteration cost on Kuhn poker: gamedyn's ``cfr`` / ``cfr_plus`` against OpenSpiel's C++ CFR (issue 35).

Run: ``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/kuhn_overhead.py [--repeats 7]`` (needs
pyspiel, ``gamedyn[openspiel]``). Kuhn has 12 infosets and 13 sequences a player: an iteration is all fixed
cost, so this measures what a round pays around its arithmetic. Per variant, interleaved, ``--repeats`` times:

* **gamedyn**: ``recipes.cfr(kuhn_poker(), T)`` and ``recipes.cfr_plus(kuhn_poker(), T)`` at T / 8 and T
  rounds; an iteration is the slope between them (the run's fixed costs, the final certificate included,
  drop out);
* the same with the sparse payoff (``gamedyn.games.efg.game.DENSE_PAYOFF_MAX_ENTRIES = 0``: scipy's products,
  what every game played before issue 35), for the effect of the dense copy;
* **OpenSpiel**: ``pyspiel.CFRSolver(game)`` / ``pyspiel.CFRPlusSolver(game)``'s
  ``evaluate_and_update_policy()`` (C++), the solver built and warmed outside the timing, the mean of a block
  of iterations.

CPU time (``time.process_time``) and wall, medians; the ratio gamedyn / OpenSpiel is of CPU medians from the
same run. Issue 35's target: <= 2 (the fixed per-round cost within 2x the compiled peers').
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

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))  # run from a source checkout

TARGET = 2.0


def timed(function) -> tuple:
    cpu, wall = time.process_time(), time.perf_counter()
    function()
    return time.process_time() - cpu, time.perf_counter() - wall


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="interleaved repeats (medians; default 7)")
    parser.add_argument("--T", type=int, default=4000, help="gamedyn's long run (the short one: T / 8)")
    args = parser.parse_args(argv)
    import pyspiel

    import gamedyn.games.efg.game as efg_game
    from gamedyn import recipes
    from gamedyn.games.efg import kuhn_poker

    game = kuhn_poker()
    spiel_game = pyspiel.load_game("kuhn_poker")
    long, short, block = args.T, max(2, args.T // 8), 2000
    pairs = {"cfr": (recipes.cfr, pyspiel.CFRSolver), "cfr_plus": (recipes.cfr_plus, pyspiel.CFRPlusSolver)}
    solvers = {name: solver(spiel_game) for name, (_, solver) in pairs.items()}
    rows = {(name, side, clock): [] for name in pairs for side in ("gamedyn", "sparse", "openspiel") for clock in (0, 1)}

    def sparse(recipe):
        def run(game, T):
            before, efg_game.DENSE_PAYOFF_MAX_ENTRIES = efg_game.DENSE_PAYOFF_MAX_ENTRIES, 0
            try:
                return recipe(game, T)
            finally:
                efg_game.DENSE_PAYOFF_MAX_ENTRIES = before
        return run

    for name, (recipe, _) in pairs.items():  # warm: imports, the game's arrays, the solvers' first iteration
        recipe(game, short)
        solvers[name].evaluate_and_update_policy()
    for _ in range(args.repeats):
        for name, (recipe, _) in pairs.items():
            for side, run in (("gamedyn", recipe), ("sparse", sparse(recipe))):
                first = timed(lambda run=run: run(game, short))
                second = timed(lambda run=run: run(game, long))
                for clock in (0, 1):
                    rows[(name, side, clock)].append((second[clock] - first[clock]) / (long - short))
            solver = solvers[name]

            def iterations(solver=solver):
                for _ in range(block):
                    solver.evaluate_and_update_policy()

            spent = timed(iterations)
            for clock in (0, 1):
                rows[(name, "openspiel", clock)].append(spent[clock] / block)
    medians = {key: statistics.median(values) for key, values in rows.items()}
    print(f"Kuhn poker, per iteration (us; CPU, wall), medians of {args.repeats}; gamedyn: slope between T = "
          f"{short} and {long}; OpenSpiel C++: blocks of {block}   [gamedyn / OpenSpiel <= {TARGET:g}]")
    worst = 0.0
    for name in pairs:
        ours = medians[(name, "gamedyn", 0)], medians[(name, "gamedyn", 1)]
        old = medians[(name, "sparse", 0)], medians[(name, "sparse", 1)]
        theirs = medians[(name, "openspiel", 0)], medians[(name, "openspiel", 1)]
        ratio = ours[0] / theirs[0]
        worst = max(worst, ratio)
        print(f"  {name:9s} gamedyn {ours[0] * 1e6:7.2f} {ours[1] * 1e6:7.2f}   OpenSpiel {theirs[0] * 1e6:7.2f} "
              f"{theirs[1] * 1e6:7.2f}   ratio cpu {ratio:5.2f}  wall {ours[1] / theirs[1]:5.2f}   | sparse payoff "
              f"{old[0] * 1e6:7.2f} {old[1] * 1e6:7.2f}  ratio cpu {old[0] / theirs[0]:5.2f}")
    return 0 if worst <= TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
