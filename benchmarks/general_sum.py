"""Benchmark (issue 34): certified coarse correlated / correlated equilibria by no-regret dynamics against the LPs.

Run from the repository root (one BLAS thread; the machine is shared)::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/general_sum.py            # everything (minutes)
    python benchmarks/general_sum.py --quick                                            # a smoke test (seconds)

Games: payoffs drawn i.i.d. uniform on [0, 1] for every player (numpy's default_rng(seed)); a gap is
in those units. Every time is CPU seconds (``time.process_time``) with wall seconds beside it; each
configuration runs interleaved with the others it is compared to, ``--repeats`` times (default 5), and
the table gives medians. A dynamic's time is :func:`gamedyn.solve_cce` / :func:`gamedyn.solve_ce` with
``method="dynamics"`` end to end: validation, the rounds, the stop rule's running gap and the certified
gap of the dense joint distribution it returns. An LP's time is the build of its constraint matrix and
HiGHS's solve (:func:`gamedyn.games.general_sum.solve_cce_lp`), with the welfare objective (the
reference equilibrium) and with none (feasibility).

Sections:

1. **which dynamics** (the choice of ``gamedyn.games.general_sum.solve.CCE_DYNAMICS`` / ``CE_DYNAMICS``):
   time to a certified CCE gap of 1e-3 on random 3-player 20 x 20 x 20 and 2-player 200 x 200 games
   (seeds 0-2) and to a CE gap of 1e-3 on 2-player 50 x 50 games (seeds 0-2), per candidate;
2. **LP or dynamics** for small games (``LP_FIRST_NONZEROS``): both on 2 x 2 ... 10 x 10 x 10;
3. **the table**: time to CCE gap 1e-3 on random 3-player 20^3 and 2-player 1000 x 1000, and to CE gap
   1e-3 on 2-player 50 x 50, against the exact LPs (HiGHS) and nashpy's Lemke-Howson (one Nash
   equilibrium, which is a CE) where it finishes within ``--nashpy-seconds``. The target of the issue:
   the 3-player 20^3 CCE in at most 1/10 of the exact LP's time.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import pathlib
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))  # run from a source checkout

import numpy as np  # noqa: E402

from gamedyn import BimatrixGame, NormalFormGame, RegretMatching, SwapRegret, SwapRegretMatching  # noqa: E402
from gamedyn.core import OFTRL, Entropy  # noqa: E402
from gamedyn.engine.players import play_n  # noqa: E402
from gamedyn.games.general_sum import (  # noqa: E402
    CCEGapStop,
    CEGapStop,
    cce_gap,
    ce_gap,
    solve_cce,
    solve_cce_lp,
    solve_ce,
    solve_ce_lp,
)
from gamedyn.games.general_sum.lp import cce_constraints, ce_constraints  # noqa: E402
from gamedyn.games.general_sum.solve import lp_nonzeros  # noqa: E402


def random_game(shape, seed: int):
    """A game whose players' payoffs are i.i.d. uniform on [0, 1]."""
    rng = np.random.default_rng(seed)
    payoffs = list(rng.uniform(size=(len(shape),) + tuple(shape)))
    return BimatrixGame(*payoffs) if len(shape) == 2 else NormalFormGame(payoffs)


def timed(function):
    """(CPU s, wall s, result) of one call."""
    cpu, wall = time.process_time(), time.perf_counter()
    result = function()
    return time.process_time() - cpu, time.perf_counter() - wall, result


def interleaved(functions: dict, repeats: int) -> dict:
    """name -> (median CPU s, median wall s, last result), the functions run interleaved ``repeats`` times."""
    samples: dict = {name: ([], [], None) for name in functions}
    for _ in range(repeats):
        for name, function in functions.items():
            cpu, wall, result = timed(function)
            samples[name][0].append(cpu)
            samples[name][1].append(wall)
            samples[name] = (samples[name][0], samples[name][1], result)
    return {name: (statistics.median(cpu), statistics.median(wall), result)
            for name, (cpu, wall, result) in samples.items()}


# ------------------------------------------------------------------------------- 1. which dynamics

CCE_CANDIDATES = {
    "RM+ constant": (lambda a: RegretMatching(plus=True), "constant"),
    "RM+ linear": (lambda a: RegretMatching(plus=True), "linear"),
    "PRM+ linear": (lambda a: RegretMatching(plus=True, predictive=True), "linear"),
    "PRM+ quadratic": (lambda a: RegretMatching(plus=True, predictive=True), "quadratic"),
    "RM constant": (lambda a: RegretMatching(), "constant"),
    "optimistic Hedge eta=5": (lambda a: OFTRL(Entropy(), 5.0), "constant"),
    "optimistic Hedge eta=1": (lambda a: OFTRL(Entropy(), 1.0), "constant"),
}
CE_CANDIDATES = {
    "RM+ linear (external)": (lambda a: RegretMatching(plus=True), "linear"),
    "Blum-Mansour RM+ linear": (lambda a: SwapRegret(RegretMatching(plus=True)), "linear"),
    "Blum-Mansour PRM+ linear": (lambda a: SwapRegret(RegretMatching(plus=True, predictive=True)), "linear"),
    "Blum-Mansour RM+ constant": (lambda a: SwapRegret(RegretMatching(plus=True)), "constant"),
    "swap RM+ (Hart & Mas-Colell) linear": (lambda a: SwapRegretMatching(plus=True), "linear"),
    "swap RM (Hart & Mas-Colell) constant": (lambda a: SwapRegretMatching(), "constant"),
}


def run_dynamics(game, candidate, stop_type, gap, max_rounds):
    """Rounds and certified gap of one candidate's run to a certified gap (or max_rounds)."""
    learner_for, weights = candidate
    stop = stop_type(gap)
    result = play_n(game, [learner_for(a) for a in game.shape], max_rounds, weights=weights, observers=[stop])
    certified = stop.certified if stop.joint is not None else float("inf")
    return result.rounds, certified


def which_dynamics(quick: bool, repeats: int) -> None:
    print("1. which dynamics: time to a certified gap 1e-3 (CPU s, median; rounds; '-' = not within the budget)")
    cases = [("CCE", (20, 20, 20), CCE_CANDIDATES, CCEGapStop, 5000), ("CCE", (200, 200), CCE_CANDIDATES, CCEGapStop,
                                                                        5000),
             ("CE", (50, 50), CE_CANDIDATES, CEGapStop, 3000)]
    if quick:
        cases = [("CCE", (6, 6, 6), CCE_CANDIDATES, CCEGapStop, 500), ("CE", (8, 8), CE_CANDIDATES, CEGapStop, 500)]
    for kind, shape, candidates, stop_type, budget in cases:
        seeds = (0,) if quick else (0, 1, 2)
        print(f" {kind} on {' x '.join(map(str, shape))}, seeds {list(seeds)}, budget {budget} rounds")
        for name, candidate in candidates.items():
            cells, total = [], []
            for seed in seeds:
                game = random_game(shape, seed)
                found = interleaved({name: lambda: run_dynamics(game, candidate, stop_type, 1e-3, budget)},
                                    1 if quick else max(1, repeats // 2))
                cpu, _, (rounds, certified) = found[name]
                reached = certified <= 1e-3
                cells.append(f"{cpu:7.3f} s ({rounds:5d})" if reached else f"      - ({rounds:5d})")
                total.append(cpu if reached else float("inf"))
            print(f"  {name:38s} " + "  ".join(cells) + f"   median {statistics.median(total):.3g} s")


# ------------------------------------------------------------------------------- 2. LP or dynamics

def lp_or_dynamics(quick: bool, repeats: int) -> None:
    print("2. small games: gap 1e-3 by the LP (welfare) or by the dynamics (CPU s, median of seeds 0-2; inf: the "
          "dynamics missed it in 5000 rounds)")
    cases = [("CCE", shape) for shape in [(2, 2), (3, 3), (5, 5), (10, 10), (3, 3, 3), (5, 5, 5)]]
    cases += [("CE", shape) for shape in [(3, 3), (5, 5), (10, 10), (3, 3, 3)]]
    if not quick:
        cases += [("CCE", (20, 20)), ("CCE", (8, 8, 8)), ("CCE", (10, 10, 10)), ("CE", (20, 20)), ("CE", (50, 50)),
                  ("CE", (5, 5, 5))]
    for kind, shape in cases:
        solve = solve_cce if kind == "CCE" else solve_ce
        rows: dict = {"lp": [], "dynamics": []}
        for seed in (0, 1, 2):
            game = random_game(shape, seed)
            found = interleaved({"lp": lambda: solve(game, 1e-3, method="lp"),
                                 "dynamics": lambda: solve(game, 1e-3, method="dynamics", max_rounds=5000)},
                                1 if quick else repeats)
            for name in rows:
                rows[name].append(found[name][0] if found[name][2].reached else float("inf"))
        nonzeros = lp_nonzeros(game, kind)
        lp, dynamics = statistics.median(rows["lp"]), statistics.median(rows["dynamics"])
        print(f"  {kind} {' x '.join(map(str, shape)):12s} LP nonzeros {nonzeros:8d}   LP {lp:.4f} s   dynamics "
              f"{dynamics:.4f} s   {'LP' if lp < dynamics else 'dynamics'} faster")


# ------------------------------------------------------------------------------- 3. the table

def _nashpy_child(A, B, queue) -> None:
    import warnings

    import nashpy

    warnings.simplefilter("ignore")
    cpu = time.process_time()
    row, column = nashpy.Game(A, B).lemke_howson(initial_dropped_label=0)
    queue.put((time.process_time() - cpu, np.asarray(row), np.asarray(column)))


def nashpy_lemke_howson(game, seconds: float):
    """(CPU s, joint) of nashpy's Lemke-Howson in a child process, or (None, reason)."""
    try:
        import nashpy  # noqa: F401
    except ImportError:
        return None, "nashpy not installed (pip install gamedyn[bench])"
    queue: multiprocessing.Queue = multiprocessing.Queue()
    child = multiprocessing.Process(target=_nashpy_child, args=(game.A, game.B, queue))
    child.start()
    child.join(seconds)
    if child.is_alive():
        child.terminate()
        child.join()
        return None, f"did not finish in {seconds:g} s"
    if queue.empty():
        return None, "failed"
    cpu, row, column = queue.get()
    if row.shape != (game.shape[0],) or not np.all(np.isfinite(row)) or not np.all(np.isfinite(column)):
        return None, "returned no equilibrium (NaN)"
    return cpu, np.outer(row, column)


def table(quick: bool, repeats: int, nashpy_seconds: float, lp_seconds: float) -> list:
    print("3. the table: time to a certified gap 1e-3 (CPU s and wall s, medians; seed 0)")
    rows = []
    cases = [("CCE", (20, 20, 20)), ("CCE", (1000, 1000)), ("CE", (50, 50))]
    if quick:
        cases = [("CCE", (6, 6, 6)), ("CCE", (60, 60)), ("CE", (10, 10))]
    for kind, shape in cases:
        game = random_game(shape, 0)
        solve, lp, certify = (solve_cce, solve_cce_lp, cce_gap) if kind == "CCE" else (solve_ce, solve_ce_lp, ce_gap)
        nonzeros = (cce_constraints(game).size if kind == "CCE" and np.prod(shape) <= 10**5 else
                    ce_constraints(game).nnz if kind == "CE" else int(np.prod(shape)) * sum(shape))
        functions = {"dynamics": lambda: solve(game, 1e-3, method="dynamics")}
        lp_fits = nonzeros <= 5 * 10**7
        if lp_fits:
            functions["LP welfare"] = lambda: lp(game, "welfare", time_limit=lp_seconds)
        found = interleaved(functions, repeats if np.prod(shape) <= 10**5 else max(1, repeats // 2))
        if lp_fits:  # feasibility: once (it can take minutes on the CE polytope), with HiGHS's time limit
            found["LP feasibility"] = timed(lambda: lp(game, "feasibility", time_limit=lp_seconds))
        label = f"{kind} {' x '.join(map(str, shape))}"
        cpu, wall, solution = found["dynamics"]
        print(f" {label}: dynamics ({solution.method}) {cpu:.4f} s cpu, {wall:.4f} s wall, {solution.rounds} rounds, "
              f"certified gap {solution.gap:.3g}")
        row = {"case": label, "dynamics": (cpu, wall, solution.gap, solution.rounds, solution.method)}
        for name in ("LP welfare", "LP feasibility"):
            if not lp_fits:
                print(f"   {name}: not attempted: the constraint matrix has {nonzeros:.3g} entries "
                      f"({nonzeros * 8 / 2**30:.0f} GiB dense)")
                row[name] = None
                continue
            lp_cpu, lp_wall, answer = found[name]
            if answer.status != 0:
                print(f"   {name}: did not finish within HiGHS's time limit {lp_seconds:g} s ({lp_cpu:.1f} s cpu)")
                row[name] = (lp_cpu, lp_wall, None)
                continue
            print(f"   {name}: {lp_cpu:.4f} s cpu, {lp_wall:.4f} s wall, gap {answer.gap:.3g};  dynamics / LP "
                  f"cpu {cpu / lp_cpu:.3f}")
            row[name] = (lp_cpu, lp_wall, answer.gap)
        if len(shape) == 2 and kind == "CE":
            seconds, joint = nashpy_lemke_howson(game, nashpy_seconds)
            if seconds is None:
                print(f"   nashpy Lemke-Howson: {joint}")
                row["nashpy"] = joint
            else:
                print(f"   nashpy Lemke-Howson: {seconds:.4f} s cpu, CE gap of its Nash equilibrium "
                      f"{certify(game, joint):.3g}")
                row["nashpy"] = seconds
        rows.append(row)
    target = rows[0]
    if target["LP welfare"] is not None and target["LP feasibility"] is not None:
        fastest_lp = min(value[0] for value in (target["LP welfare"], target["LP feasibility"]) if value[2] is not None)
        ratio = target["dynamics"][0] / fastest_lp
        print(f" target: {target['case']} dynamics / fastest exact LP (cpu) = {ratio:.3f}  [<= 0.1]")
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small games, one repeat (a smoke test)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--nashpy-seconds", type=float, default=60.0)
    parser.add_argument("--lp-seconds", type=float, default=300.0, help="HiGHS's time limit per LP")
    parser.add_argument("--only", choices=("which", "small", "table"), action="append", default=[])
    args = parser.parse_args(argv)
    print(f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}, "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}; numpy {np.__version__}")
    only = set(args.only) or {"which", "small", "table"}
    repeats = 1 if args.quick else args.repeats
    if "which" in only:
        which_dynamics(args.quick, repeats)
    if "small" in only:
        lp_or_dynamics(args.quick, repeats)
    if "table" in only:
        table(args.quick, repeats, args.nashpy_seconds, args.lp_seconds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
