r"""solve_efg against its lanes (issue 33): time to a certified Nash gap on each built-in game.

Run (one BLAS thread is set before numpy loads)::

    python benchmarks/solve_efg.py                 # gap 1e-4, 5 interleaved repeats
    python benchmarks/solve_efg.py --gap 1e-3 --repeats 9 --games kuhn goofspiel

For Kuhn poker, Goofspiel(5), Leduc poker and Liar's dice (1 die, 6 faces) it times, interleaved
(``--repeats`` times after one warm-up call each, the order rotating; medians), the CPU time (``time.process_time``) of
``solve_efg(game, gap, method=m)`` for m in ``auto``, ``dcfr``, ``pcfr_plus`` and ``lp``, and prints
**auto / min(dcfr, pcfr_plus)** (issue 33's target: at most 1.5), the lane auto took, and whether every
bracket contains the LP's value (each run's ``lower <= v* <= upper``; the LP's own bracket is the reference,
its midpoint v*, its width below 1e-9). The games are built once, outside the timings.
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

from gamedyn import solve_efg  # noqa: E402
from gamedyn.games.efg import goofspiel, kuhn_poker, leduc_poker, liars_dice  # noqa: E402

GAMES = {"kuhn": ("Kuhn", kuhn_poker), "goofspiel": ("Goofspiel(5)", lambda: goofspiel(5)),
         "leduc": ("Leduc", leduc_poker), "liars_dice": ("Liar's dice(6)", lambda: liars_dice(6))}
METHODS = ("auto", "dcfr", "pcfr_plus", "lp")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gap", type=float, default=1e-4, help="the Nash gap asked for (default 1e-4)")
    parser.add_argument("--repeats", type=int, default=5, help="interleaved repeats (medians; default 5)")
    parser.add_argument("--games", nargs="+", choices=sorted(GAMES), default=list(GAMES))
    options = parser.parse_args(argv)
    print(f"solve_efg to a Nash gap of {options.gap:g}: CPU s, medians of {options.repeats} interleaved repeats")
    print("| game | auto | dcfr | pcfr_plus | lp | auto / min(dcfr, pcfr_plus) | auto's lane | brackets hold v* |")
    print("|---|---|---|---|---|---|---|---|")
    for key in options.games:
        name, build = GAMES[key]
        game = build()
        for method in METHODS:  # (a warm-up each: first calls pay imports and caches)
            solve_efg(game, gap=options.gap, method=method)
        times = {method: [] for method in METHODS}
        brackets, lanes = [], []
        for repeat in range(options.repeats):
            order = METHODS[repeat % len(METHODS):] + METHODS[:repeat % len(METHODS)]
            for method in order:
                start = time.process_time()
                solution = solve_efg(game, gap=options.gap, method=method)
                times[method].append(time.process_time() - start)
                brackets.append((method, solution.lower, solution.upper))
                if method == "auto":
                    lanes.append(solution.method)
        reference = [(low, high) for method, low, high in brackets if method == "lp"][0]
        value = 0.5 * (reference[0] + reference[1])
        holds = all(low <= value <= high for _, low, high in brackets) and reference[1] - reference[0] <= 1e-9
        median = {method: statistics.median(values) for method, values in times.items()}
        ratio = median["auto"] / min(median["dcfr"], median["pcfr_plus"])
        print(f"| {name} | {median['auto']:.4f} | {median['dcfr']:.4f} | {median['pcfr_plus']:.4f} | "
              f"{median['lp']:.4f} | {ratio:.2f} | {', '.join(sorted(set(lanes)))} | {holds} |", flush=True)


if __name__ == "__main__":
    main()
