r"""CFR+ per iteration: gamedyn's ``cfr_plus`` against OpenSpiel's C++ ``CFRPlusSolver`` (issue 32).

One command, one BLAS thread (``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1`` is set before numpy loads)::

    python benchmarks/efg.py                      # Leduc poker and Liar's dice (1 die, 6 faces)
    python benchmarks/efg.py --repeats 7 --json efg.json

needs ``pip install gamedyn[openspiel]`` (pyspiel). For each game, interleaved, ``--repeats`` times:

* **gamedyn**: ``recipes.cfr_plus(game, T)`` for two horizons; the cost of an iteration is the slope
  ``(t(T2) - t(T1)) / (T2 - T1)``, so the run's fixed costs (the payoff, the players, the final
  certificate) drop out;
* **OpenSpiel**: ``pyspiel.CFRPlusSolver(game).evaluate_and_update_policy()`` (C++; the solver built
  and warmed by one iteration outside the timing), the mean of a block of iterations;
* **the certified gap**: ``game.bracket(x, y)`` on a run's averages (the certified value bracket,
  Nash gap and exploitability: two sparse products and two backward passes; its per-game
  constants built once outside the timing), and ``ExploitabilityStop.check()`` (the running gap:
  two backward passes), per call;
* for context, ``pyspiel.exploitability`` of the same averages (one call on Liar's dice: seconds).

CPU time (``time.process_time``) and wall time, medians over the repeats; the ratios are CPU-time
ratios measured in the same run. The targets: gamedyn's iteration at most 1/20 of OpenSpiel's, and
the certified gap per call at most one iteration's cost; the exit status is 1 when one is missed.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import json
import statistics
import sys
import time

import numpy as np

GAMES = {  # name: (gamedyn's load_game name, pyspiel's, gamedyn horizons T1 < T2, OpenSpiel iterations per block)
    "Leduc poker": ("leduc_poker", "leduc_poker", (200, 1200), 20),
    "Liar's dice (1 die, 6 faces)": ("liars_dice(6)", "liars_dice(numdice=1,dice_sides=6)", (20, 120), 3),
}
RATIO_AT_LEAST = 20.0
GAP_PER_ITERATION_AT_MOST = 1.0


def timed(function) -> tuple:
    """``(CPU seconds, wall seconds, result)`` of one call."""
    cpu, wall = time.process_time(), time.perf_counter()
    result = function()
    return time.process_time() - cpu, time.perf_counter() - wall, result


def measure(label: str, repeats: int) -> dict:
    import pyspiel

    from gamedyn.certify.sequence_form import ExploitabilityStop
    from gamedyn.games.efg import load_game
    from gamedyn.recipes import cfr_plus

    ours_name, spiel_name, (short, long), block = GAMES[label]
    game = load_game(ours_name)
    spiel_game = pyspiel.load_game(spiel_name)
    solver = pyspiel.CFRPlusSolver(spiel_game)
    solver.evaluate_and_update_policy()  # built and warmed outside the timing
    cfr_plus(game, 2)  # the game's arrays and the recipe's imports, once
    averages = cfr_plus(game, short)
    stop = ExploitabilityStop(1e-12)
    cfr_plus(game, 3, observers=[stop])  # a stop attached to a run, to time its check
    game.bracket(averages.x, averages.y)  # the certificate's per-game constants, once
    rows: dict = {key: [] for key in ("ours_cpu", "ours_wall", "spiel_cpu", "spiel_wall", "gap_cpu", "gap_wall",
                                      "check_cpu", "check_wall")}
    for _ in range(repeats):
        cpu_short, wall_short, _ = timed(lambda: cfr_plus(game, short))
        cpu_long, wall_long, _ = timed(lambda: cfr_plus(game, long))
        rows["ours_cpu"].append((cpu_long - cpu_short) / (long - short))
        rows["ours_wall"].append((wall_long - wall_short) / (long - short))

        def iterations():
            for _ in range(block):
                solver.evaluate_and_update_policy()

        cpu, wall, _ = timed(iterations)
        rows["spiel_cpu"].append(cpu / block)
        rows["spiel_wall"].append(wall / block)
        calls = 50

        def gaps():
            for _ in range(calls):
                game.bracket(averages.x, averages.y)

        cpu, wall, _ = timed(gaps)
        rows["gap_cpu"].append(cpu / calls)
        rows["gap_wall"].append(wall / calls)

        def checks():
            for _ in range(calls):
                stop.check()

        cpu, wall, _ = timed(checks)
        rows["check_cpu"].append(cpu / calls)
        rows["check_wall"].append(wall / calls)
    medians = {key: statistics.median(values) for key, values in rows.items()}
    policy = {infoset: list(p.items()) for player, strategy in ((0, averages.x), (1, averages.y))
              for infoset, p in game.policy(player, strategy).items()}
    cpu, _, theirs = timed(lambda: pyspiel.exploitability(spiel_game, policy))
    medians.update(pyspiel_exploitability_cpu=cpu, exploitability_difference=abs(theirs - averages.exploitability),
                   sequences=game.treeplexes[0].dimension, ratio=medians["spiel_cpu"] / medians["ours_cpu"],
                   gap_per_iteration=medians["gap_cpu"] / medians["ours_cpu"])
    return medians


def table(results: dict) -> str:
    lines = ["| game | sequences a player | OpenSpiel C++ CFR+ (ms/iter) | gamedyn cfr_plus (ms/iter) | OpenSpiel / "
             "gamedyn | certified gap (ms/call) | gap / iteration | running gap check (ms/call) | "
             "pyspiel.exploitability (ms/call) |", "|---|---|---|---|---|---|---|---|---|"]
    for label, row in results.items():
        lines.append(f"| {label} | {row['sequences']:,} | {1e3 * row['spiel_cpu']:.2f} ({1e3 * row['spiel_wall']:.2f} wall) "
                     f"| {1e3 * row['ours_cpu']:.3f} ({1e3 * row['ours_wall']:.3f} wall) | {row['ratio']:.0f}x | "
                     f"{1e3 * row['gap_cpu']:.3f} | {row['gap_per_iteration']:.2f} | {1e3 * row['check_cpu']:.3f} | "
                     f"{1e3 * row['pyspiel_exploitability_cpu']:.0f} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="interleaved repeats (medians; default 5)")
    parser.add_argument("--games", nargs="*", choices=list(GAMES), default=list(GAMES), help="the games (default both)")
    parser.add_argument("--json", metavar="FILE", help="also write the medians as JSON")
    args = parser.parse_args(argv)
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        print("benchmarks/efg.py compares with OpenSpiel: pip install gamedyn[openspiel] (open_spiel)")
        return 1
    results = {label: measure(label, args.repeats) for label in args.games}
    print(f"CPU time per iteration (wall in brackets), medians of {args.repeats} interleaved repeats, one BLAS thread")
    print(table(results))
    failures = []
    for label, row in results.items():
        print(f"{label}: |gamedyn - pyspiel.exploitability| = {row['exploitability_difference']:.1e}")
        if row["ratio"] < RATIO_AT_LEAST:
            failures.append(f"{label}: gamedyn's iteration is 1/{row['ratio']:.1f} of OpenSpiel's, not <= 1/{RATIO_AT_LEAST:g}")
        if row["gap_per_iteration"] > GAP_PER_ITERATION_AT_MOST:
            failures.append(f"{label}: the certified gap costs {row['gap_per_iteration']:.2f} iterations a call")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(results, handle, indent=2)
    print("targets met: gamedyn <= 1/20 of OpenSpiel per iteration, the certified gap <= one iteration a call"
          if not failures else "TARGETS MISSED:\n  " + "\n  ".join(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
