r"""The fixed per-round cost of gamedyn's matrix-game rounds on a 10 x 10 game against a compiled peer (issue 35).

Run: ``python benchmarks/small_game_overhead.py`` (one BLAS thread; numba needed for the peer).

The peer is RM+ (alternating, linear averaging, regret-matching+ both players) written as one numba loop:
what a compiled library (e.g. OpenSpiel's C++ CFR+ on a normal-form game) pays a round, the floor for a
10 x 10 game. Beside it: gamedyn's ``regret_matching_plus`` and ``predictive_regret_matching_plus`` recipes
(the same dynamics through ``gamedyn.play``; with the numba extra they take
:class:`gamedyn.engine.compiled_rounds.CompiledAlternatingRound`, since nobody observes their rounds) and the
numpy hand loop of ``benchmarks/matrix_games.py``.
Per round = the median over interleaved repeats of the slope between runs of T / 8 and T rounds (fixed
costs drop out), CPU time and wall time. Target: recipe / compiled peer <= 2.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import pathlib  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import numba  # noqa: E402
from matrix_games import random_game, rm_plus  # noqa: E402

from gamedyn import recipes  # noqa: E402


@numba.njit(cache=True)
def rm_plus_compiled(M, T):
    """Alternating RM+ with linear averaging, as ``matrix_games.rm_plus`` (rows maximise x^T M y)."""
    m, n = M.shape
    Rx, Ry = np.zeros(m), np.zeros(n)
    x, y = np.full(m, 1.0 / m), np.full(n, 1.0 / n)
    xs, ys = np.zeros(m), np.zeros(n)
    for t in range(1, T + 1):
        total = 0.0
        for i in range(m):
            total += Rx[i]
        for i in range(m):
            x[i] = Rx[i] / total if total > 0 else 1.0 / m
        u = M @ y
        value = x @ u
        for i in range(m):
            Rx[i] = max(Rx[i] + u[i] - value, 0.0)
            xs[i] += t * x[i]
        total = 0.0
        for j in range(n):
            total += Ry[j]
        for j in range(n):
            y[j] = Ry[j] / total if total > 0 else 1.0 / n
        v = x @ M
        value = v @ y
        for j in range(n):
            Ry[j] = max(Ry[j] - v[j] + value, 0.0)
            ys[j] += t * y[j]
    return xs, ys


def slope(function, T, repeats):
    """(CPU, wall) seconds per round: medians of the slope between runs of T / 8 and T rounds."""
    short = max(2, T // 8)
    function(short)
    cpu, wall = [], []
    for _ in range(repeats):
        times = []
        for rounds in (short, T):
            c, w = time.process_time(), time.perf_counter()
            function(rounds)
            times.append((time.process_time() - c, time.perf_counter() - w))
        cpu.append((times[1][0] - times[0][0]) / (T - short))
        wall.append((times[1][1] - times[0][1]) / (T - short))
    return statistics.median(cpu), statistics.median(wall)


def main() -> int:
    M = random_game(10, 0)
    T, repeats = 20_000, 7
    rm_plus_compiled(M, 10)  # compile
    variants = {
        "compiled RM+ peer (numba)": lambda T: rm_plus_compiled(M, T),
        "numpy hand loop RM+": lambda T: rm_plus(M, T),
        "gamedyn regret_matching_plus": lambda T: recipes.regret_matching_plus(M, T),
        "gamedyn predictive_regret_matching_plus": lambda T: recipes.predictive_regret_matching_plus(M, T),
    }
    results = {}
    for _ in range(1):  # one pass of interleaved slopes per variant (each is itself a median of repeats)
        for name, function in variants.items():
            results[name] = slope(function, T, repeats)
    peer = results["compiled RM+ peer (numba)"]
    print(f"10 x 10 game, T = {T}: us per round (CPU, wall), ratio to the compiled peer   [recipe <= 2]")
    for name, (cpu, wall) in results.items():
        print(f"  {name:42s} {cpu * 1e6:8.2f} {wall * 1e6:8.2f}   x{cpu / peer[0]:7.1f} cpu  x{wall / peer[1]:7.1f} wall")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
