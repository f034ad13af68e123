r"""Loading a game from OpenSpiel (issue 33): ``from_openspiel(pyspiel game)``'s CPU time, wall time and peak memory.

One command, one BLAS thread (``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1`` is set before numpy loads)::

    python benchmarks/efg_load.py               # Kuhn, Leduc, Goofspiel(5), Liar's dice (1 die, 6 faces)
    python benchmarks/efg_load.py --repeats 5 --games "Liar's dice(6)"

needs ``pip install gamedyn[openspiel]`` (pyspiel). The ``pyspiel`` game is loaded once outside the timing
(``pyspiel.load_game``); each repeat, interleaved over the games, times one ``from_openspiel(game)``
untraced (``time.process_time`` and ``time.perf_counter``), then runs it again under ``tracemalloc`` for the
peak of Python and numpy allocations (tracemalloc slows every allocation: a traced run's time is not the
load's time, and is not reported). Medians over the repeats. The target (the issue's acceptance): Liar's dice
with 6 faces in <= 3 s CPU and <= 50 MB; the exit status is 1 when it is missed.

Measured (commit 05c578c, 2 shared cores, medians of 3): Liar's dice 0.753 s CPU (0.883 wall), 17.77 MB;
Goofspiel(5) 0.065 s, 1.84 MB; Leduc 0.028 s, 0.75 MB; Kuhn 0.002 s. The same load under ``tracemalloc``
took 6.4 s CPU: a time measured with tracing on (4.78 s in an earlier session) is tracemalloc's, not the load's.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import gc
import statistics
import sys
import time
import tracemalloc

GAMES = {  # label: the pyspiel game's maker
    "Kuhn": lambda pyspiel: pyspiel.load_game("kuhn_poker"),
    "Leduc": lambda pyspiel: pyspiel.load_game("leduc_poker"),
    "Goofspiel(5)": lambda pyspiel: pyspiel.convert_to_turn_based(
        pyspiel.load_game("goofspiel(imp_info=True,num_cards=5,points_order=descending)")),
    "Liar's dice(6)": lambda pyspiel: pyspiel.load_game("liars_dice"),  # the default: 1 die each, 6 faces
}
TARGET_GAME = "Liar's dice(6)"
CPU_AT_MOST = 3.0
PEAK_MB_AT_MOST = 50.0


def measure(labels, repeats: int) -> dict:
    """``{label: {"cpu", "wall", "peak_mb", "sequences", "nnz"}}``: medians of ``repeats`` interleaved loads."""
    import pyspiel

    from gamedyn.games.efg import from_openspiel

    spiel_games = {label: GAMES[label](pyspiel) for label in labels}
    rows: dict = {label: {"cpu": [], "wall": [], "peak_mb": []} for label in labels}
    shapes: dict = {}
    for _ in range(repeats):
        for label in labels:
            gc.collect()
            cpu, wall = time.process_time(), time.perf_counter()
            game = from_openspiel(spiel_games[label])
            rows[label]["cpu"].append(time.process_time() - cpu)
            rows[label]["wall"].append(time.perf_counter() - wall)
            shapes[label] = (game.treeplexes[0].dimension, game.treeplexes[1].dimension, game.A.nnz)
            del game
            gc.collect()
            tracemalloc.start()
            game = from_openspiel(spiel_games[label])
            rows[label]["peak_mb"].append(tracemalloc.get_traced_memory()[1] / 2 ** 20)
            tracemalloc.stop()
            del game
    return {label: {**{key: statistics.median(values) for key, values in rows[label].items()},
                    "sequences": shapes[label][:2], "nnz": shapes[label][2]} for label in labels}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="interleaved repeats (medians; default 3)")
    parser.add_argument("--games", nargs="*", choices=list(GAMES), default=list(GAMES), help="the games (default all)")
    args = parser.parse_args(argv)
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        print("benchmarks/efg_load.py loads OpenSpiel games: pip install gamedyn[openspiel] (open_spiel)")
        return 1
    results = measure(args.games, args.repeats)
    print(f"from_openspiel(pyspiel game): medians of {args.repeats} interleaved repeats, one BLAS thread")
    print("| game | sequences (player 0, 1) | payoff nonzeros | CPU s | wall s | peak MB (tracemalloc, separate run) |")
    print("|---|---|---|---|---|---|")
    for label, row in results.items():
        print(f"| {label} | {row['sequences'][0]:,}, {row['sequences'][1]:,} | {row['nnz']:,} | {row['cpu']:.3f} | "
              f"{row['wall']:.3f} | {row['peak_mb']:.2f} |")
    if TARGET_GAME not in results:
        return 0
    row = results[TARGET_GAME]
    met = row["cpu"] <= CPU_AT_MOST and row["peak_mb"] <= PEAK_MB_AT_MOST
    print(f"{TARGET_GAME}: {row['cpu']:.2f} s CPU (<= {CPU_AT_MOST:g}), {row['peak_mb']:.1f} MB (<= {PEAK_MB_AT_MOST:g}): "
          + ("target met" if met else "TARGET MISSED"))
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
