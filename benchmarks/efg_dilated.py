"""Exploitability of the dilated-entropy recipes on Leduc poker (issue 33): one row per run, CPU and wall time.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/efg_dilated.py [--T 20000]

MMD with OpenSpiel's default alpha = 0.05 (constant) against the halving schedule, and dilated Hedge and optimistic
dilated Hedge at their defaults; each run's certified exploitability (NashConv / 2) of its output.
"""

from __future__ import annotations

import argparse
import time

from gamedyn.games.efg import leduc_poker
from gamedyn.recipes import dilated_hedge, mmd, optimistic_dilated_hedge


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--T", type=int, default=20000)
    T = parser.parse_args().T
    game = leduc_poker()
    runs = [("mmd constant alpha 0.05, eta 1", lambda: mmd(game, T, eta=1.0, alpha=0.05, schedule="constant")),
            ("mmd halving (defaults)", lambda: mmd(game, T)),
            ("mmd halving eta 1, alpha 0.2, stage 1000", lambda: mmd(game, T, eta=1.0, alpha=0.2, stage=1000)),
            ("dilated_hedge (eta 1)", lambda: dilated_hedge(game, T)),
            ("optimistic_dilated_hedge (eta 5)", lambda: optimistic_dilated_hedge(game, T))]
    print(f"Leduc poker, T = {T}")
    print("| run | exploitability | CPU s | wall s |\n|---|---|---|---|")
    for name, run in runs:
        cpu, wall = time.process_time(), time.perf_counter()
        result = run()
        print(f"| {name} | {result.exploitability:.3e} | {time.process_time() - cpu:.1f} | "
              f"{time.perf_counter() - wall:.1f} |", flush=True)


if __name__ == "__main__":
    main()
