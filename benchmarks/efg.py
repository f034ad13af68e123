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
ratios measured in the same run.

**Time to a target** (issue 33), ``python benchmarks/efg.py --time-to-target``: CPU (and wall) seconds
and iterations to exploitability (NashConv / 2) 1e-3 and 1e-4 on Kuhn, Leduc, Goofspiel(5) and Liar's
dice (6 faces), for every extensive-form recipe (``recipe(game, T, observers=[ExploitabilityStop(eps)])``,
the stop checking every round), ``solve_efg(game, gap=2 eps)`` (``auto``: the race or the LP; and
``race``: never the LP), OpenSpiel's C++ ``CFRPlusSolver`` and its Python ``CFRPlusSolver`` and
``DCFRSolver`` (pyspiel has no C++ DCFR) and its Python ``MMDDilatedEnt`` (its last iterate, as gamedyn's
``mmd``; at alpha 0.05 with OpenSpiel's stepsize alpha / max|A|^2, which converges to an alpha-QRE and stalls,
and driven with gamedyn's halving schedule), and LiteEFG's CFR+ and DCFR (C++, if ``import LiteEFG`` works:
``pip install gamedyn[bench]``; otherwise a line says why and they are skipped; ``--no-liteefg`` skips them):
their iterations are timed alone, the exploitability of their average policy (MMD: last iterate) checked
outside the timing (gamedyn's certified bracket of the policy; LiteEFG: half its own "exploitability", which
is the full Nash gap) after every block of ~5% more iterations, so their time to the target is over-stated by
at most ~5%; a miss shows the exploitability last reached. **Exploitability throughout is OpenSpiel's
convention: NashConv / 2, the mean of the two players' best-response gains** (LiteEFG prints the sum).
OpenSpiel's Python peers run on Kuhn and Leduc only (``--no-python-peers`` skips them). A row per method
gives its CPU milliseconds per iteration (from the 1e-4 run).
``--recipes dcfr`` (names) times only those recipes besides the two baselines, ``dcfr`` and ``pcfr_plus``,
which are always timed (``--recipes`` alone: the baselines only); with ``--no-python-peers`` and a
``--cap`` of 20 s the comparison of ``solve_efg`` with the baselines and OpenSpiel's C++ CFR+ fits in
a few minutes::

    python benchmarks/efg.py --time-to-target --cap 20 --repeats 5 --recipes dcfr --no-python-peers

Every run has a CPU cap (``--cap``, default 30 s; OpenSpiel's C++ CFR+ gets at least 12x gamedyn's
best time, so a miss still proves a ratio); a miss prints ``>cap``. Peak memory: ``tracemalloc``'s
peak of a separate run of ``solve_efg`` (Python and numpy allocations). One run per cell
(``--repeats`` for more, medians). The target: ``solve_efg`` at least 10x ahead of OpenSpiel's C++
CFR+ in time to 1e-4 on Leduc, Goofspiel and Liar's dice, and within 1.5x of the better of
``dcfr`` and ``pcfr_plus`` on every game. The targets: gamedyn's iteration at most 1/20 of OpenSpiel's, and
the certified gap per call at most one iteration's cost; the exit status is 1 when one is missed.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import json
import math
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


TARGET_GAMES = {  # label: (gamedyn's load_game name, a maker of the pyspiel game)
    "Kuhn": ("kuhn_poker", lambda pyspiel: pyspiel.load_game("kuhn_poker")),
    "Leduc": ("leduc_poker", lambda pyspiel: pyspiel.load_game("leduc_poker")),
    "Goofspiel(5)": ("goofspiel(5)", lambda pyspiel: pyspiel.convert_to_turn_based(
        pyspiel.load_game("goofspiel(imp_info=True,num_cards=5,points_order=descending)"))),
    "Liar's dice(6)": ("liars_dice(6)", lambda pyspiel: pyspiel.load_game("liars_dice(numdice=1,dice_sides=6)")),
}
EPSILONS = (1e-3, 1e-4)
SPIEL_AHEAD_AT_LEAST = 10.0
RACE_WITHIN = 1.5


def _recipe_time(recipe, game, eps: float, cap: float) -> dict:
    """CPU / wall seconds and rounds of ``recipe`` to exploitability eps (the stop checks every round), capped."""
    from gamedyn.certify.sequence_form import ExploitabilityStop

    cpu, _, probe = timed(lambda: recipe(game, 20))
    rounds_cap = max(50, int(cap / max(cpu / 20, 1e-7)))
    stop = ExploitabilityStop(eps)
    cpu, wall, result = timed(lambda: recipe(game, rounds_cap, observers=[stop]))
    reached = result.exploitability <= eps
    return {"cpu": cpu if reached else math.inf, "wall": wall if reached else math.inf, "rounds": result.game.rounds,
            "per_iteration": cpu / max(result.game.rounds, 1), "reached": bool(reached), "spent": cpu}


def _solve_time(game, eps: float, method: str, cap: float) -> dict:
    from gamedyn.games.efg import solve_efg

    cpu, wall, solution = timed(lambda: solve_efg(game, gap=2 * eps, method=method, time_limit=cap))
    reached = solution.exploitability <= eps
    rounds = sum(solution.rounds.values())
    return {"cpu": cpu if reached else math.inf, "wall": wall if reached else math.inf, "rounds": rounds,
            "per_iteration": math.nan, "reached": bool(reached), "spent": cpu, "how": solution.method}


def _spiel_policy(game, average) -> tuple:
    """The sequence forms of an OpenSpiel average policy (C++ ``TabularPolicy`` or Python ``TabularPolicy``)."""
    if hasattr(average, "policy_table"):
        table = {name: dict(pairs) for name, pairs in average.policy_table().items()}
    else:
        array, lookup = average.action_probability_array, average.state_lookup
        table = {name: dict(enumerate(array[row].tolist())) for name, row in lookup.items()}
    return game.sequence_form(0, table), game.sequence_form(1, table)


MMD_ALPHA = 0.05  # OpenSpiel's MMD at a constant alpha (its own stepsize alpha / max|A|^2): an alpha-QRE, a stall
MMD_HALVING = (0.2, 20)  # gamedyn mmd's halving schedule: alpha 0.2 halved after stages of 20, 40, 80, ... rounds


def _openspiel_mmd(spiel_game, halving: bool) -> tuple:
    """``(step, policy)`` of OpenSpiel's Python ``MMDDilatedEnt`` (its last iterate, as gamedyn's ``mmd``): alpha
    ``MMD_ALPHA`` constant, or (``halving``) gamedyn's schedule driven from outside (``solver.alpha`` and
    ``solver.stepsize = alpha / max|A|^2``, OpenSpiel's own stepsize rule, set at each stage's start)."""
    import numpy as np
    from open_spiel.python.algorithms import mmd_dilated

    alpha, stage = MMD_HALVING if halving else (MMD_ALPHA, 0)
    solver = mmd_dilated.MMDDilatedEnt(spiel_game, alpha=alpha)
    scale = float(np.max(np.abs(solver.payoff_mat))) ** 2
    state = {"done": 0, "stage_end": stage, "length": stage}  # stages of stage, 2 stage, 4 stage, ... rounds

    def step():
        if halving and state["done"] == state["stage_end"]:
            solver.alpha /= 2.0
            solver.stepsize = solver.alpha / scale
            state["length"] *= 2
            state["stage_end"] += state["length"]
        solver.update_sequences()
        state["done"] += 1

    return step, solver.get_policies


LITEEFG_KINDS = ("LiteEFG CFR+", "LiteEFG DCFR")


def liteefg_missing() -> str:
    """Why LiteEFG cannot run here ('' when it can): ``pip install liteefg`` (extra ``bench``) builds it from source."""
    try:
        import LiteEFG  # type: ignore[import-not-found]  # noqa: F401
    except ImportError as error:
        return f"LiteEFG skipped: import LiteEFG failed ({error}); pip install gamedyn[bench] (liteefg) builds it from source"
    return ""


def _liteefg(spiel_game, kind: str) -> tuple:
    """``(step, exploitability)`` of LiteEFG's baseline ``kind`` on the pyspiel game (its C++ graph, one thread).

    LiteEFG's ``env.exploitability`` returns each player's best-response gain: their sum is the full Nash gap
    (NashConv), which LiteEFG prints as "exploitability"; the half of it, returned here, is OpenSpiel's
    exploitability and gamedyn's (tests/test_efg_peers.py checks it against gamedyn's certified one).
    The averages are LiteEFG's own: CFR+'s linear average, DCFR's discounted average (its ``train`` settings).
    LiteEFG caches the game's tree in ``~/game_instances`` the first time (outside the timing, as the solver's
    construction)."""
    import contextlib
    import io

    import LiteEFG as leg  # type: ignore[import-not-found]
    from LiteEFG.baselines import DCFR, CFRplus  # type: ignore[import-not-found]

    with contextlib.redirect_stdout(io.StringIO()):  # LiteEFG's banners
        if kind == "LiteEFG CFR+":
            graph, kind_name = CFRplus.graph(), "linear-avg-iterate"
            strategy = graph.current_strategy
        else:
            graph, kind_name = DCFR.graph(), "last-iterate"
            strategy = lambda: graph.current_strategy("average-iterate")  # noqa: E731
        env = leg.OpenSpielEnv(spiel_game, traverse_type="Enumerate", regenerate=False)
        env.set_graph(graph)

    def step():
        graph.update_graph(env)
        env.update_strategy(strategy(), update_best=False)

    return step, lambda: sum(env.exploitability(strategy(), kind_name)) / 2.0


def _spiel_time(game, spiel_game, eps: float, cap: float, kind: str) -> dict:
    """OpenSpiel's solver ``kind`` to exploitability eps: iterations timed alone, checks outside the timing."""
    import pyspiel

    exploitability = None
    if kind == "C++ CFR+":
        solver = pyspiel.CFRPlusSolver(spiel_game)
        step, average = solver.evaluate_and_update_policy, solver.tabular_average_policy
    elif kind in LITEEFG_KINDS:
        step, exploitability = _liteefg(spiel_game, kind)
    elif kind.startswith("Python MMD"):
        step, average = _openspiel_mmd(spiel_game, halving="halving" in kind)
    else:
        from open_spiel.python.algorithms import cfr, discounted_cfr

        solver = cfr.CFRPlusSolver(spiel_game) if kind == "Python CFR+" else discounted_cfr.DCFRSolver(spiel_game)
        step, average = solver.evaluate_and_update_policy, solver.average_policy
    cpu = wall = 0.0
    iterations, check_at, last = 0, 1, math.inf
    while cpu < cap:
        block = max(1, check_at - iterations)
        c, w, _ = timed(lambda: [step() for _ in range(block)])
        cpu, wall, iterations = cpu + c, wall + w, iterations + block
        check_at = iterations + max(1, iterations // 20)
        if exploitability is None:
            x, y = _spiel_policy(game, average())
            last = game.exploitability(x, y)
        else:
            last = exploitability()
        if last <= eps:
            return {"cpu": cpu, "wall": wall, "rounds": iterations, "per_iteration": cpu / iterations,
                    "reached": True, "spent": cpu, "last": last}
    return {"cpu": math.inf, "wall": math.inf, "rounds": iterations, "per_iteration": cpu / max(iterations, 1),
            "reached": False, "spent": cpu, "last": last}


BASELINES = ("dcfr", "pcfr_plus")  # always timed: solve_efg's target is the better of the two alone


def chosen_recipes(names=None) -> dict:
    """The extensive-form recipes to time: ``names`` (None: every one) plus the baselines ``dcfr`` and ``pcfr_plus``,
    in the registry's order; an unknown name is a ``ValueError`` naming the known ones."""
    from gamedyn.recipes import of_family

    recipes = of_family("efg")  # every extensive-form recipe, with its defaults
    if names is None:
        return dict(recipes)
    unknown = sorted(set(names) - set(recipes))
    if unknown:
        raise ValueError(f"unknown extensive-form recipe(s) {unknown}; known: {sorted(recipes)}")
    wanted = set(names) | set(BASELINES)
    return {name: entry for name, entry in recipes.items() if name in wanted}


def time_to_target(labels, cap: float, repeats: int, python_peers: bool, recipe_names=None,
                   liteefg: bool = True) -> dict:
    import tracemalloc

    import pyspiel

    from gamedyn.games.efg import load_game, solve_efg

    recipes = chosen_recipes(recipe_names)
    if liteefg and liteefg_missing():
        print(liteefg_missing())
        liteefg = False
    results: dict = {}
    for label in labels:
        name, make = TARGET_GAMES[label]
        game, spiel_game = load_game(name), make(pyspiel)
        game.bracket(game.uniform(0), game.uniform(1))  # the certificate's constants, once
        tracemalloc.start()
        solve_efg(game, gap=2e-4)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        rows: dict = {}
        for eps in EPSILONS:
            cells: dict = {}
            for _ in range(repeats):  # interleaved
                for recipe_name, entry in recipes.items():
                    cells.setdefault(recipe_name, []).append(_recipe_time(entry.function, game, eps, cap))
                for method in ("auto", "race"):
                    cells.setdefault(f"solve_efg ({method})", []).append(_solve_time(game, eps, method, cap))
                best = min(min(cell["cpu"] for cell in cells[key]) for key in cells)
                spiel_cap = max(cap, 12 * best)
                cells.setdefault("OpenSpiel C++ CFR+", []).append(_spiel_time(game, spiel_game, eps, spiel_cap,
                                                                                   "C++ CFR+"))
                if liteefg:
                    for kind in LITEEFG_KINDS:
                        cells.setdefault(kind, []).append(_spiel_time(game, spiel_game, eps, cap, kind))
                if python_peers and label in ("Kuhn", "Leduc"):
                    for kind in ("Python CFR+", "Python DCFR", f"Python MMD (alpha {MMD_ALPHA:g})",
                                 "Python MMD (halving)"):
                        cells.setdefault(f"OpenSpiel {kind}", []).append(_spiel_time(game, spiel_game, eps, cap, kind))
            rows[eps] = {key: {field: statistics.median(cell[field] for cell in values) if field != "how" else
                               values[-1].get(field, "") for field in values[0]} for key, values in cells.items()}
        results[label] = {"rows": rows, "peak_mb": peak / 2 ** 20, "sequences": game.treeplexes[0].dimension}
    return results


def _cell(row: dict) -> str:
    if not row["reached"]:
        at = f", at {row['last']:.3g}" if "last" in row else ""
        return f">{row['spent']:.1f} s ({row['rounds']:,} it{at})"
    return f"{row['cpu']:.3f} s ({row['wall']:.3f}), {row['rounds']:,} it"


def target_table(results: dict) -> tuple:
    labels = list(results)
    header = "| exploitability | method | " + " | ".join(labels) + " |"
    lines = [header, "|---|---|" + "---|" * len(labels)]
    failures = []
    for eps in EPSILONS:
        methods = list(next(iter(results.values()))["rows"][eps])
        for method in dict.fromkeys(m for label in labels for m in results[label]["rows"][eps]):
            cells = []
            for label in labels:
                row = results[label]["rows"][eps].get(method)
                cells.append("" if row is None else _cell(row) + (f" [{row['how']}]" if row.get("how") else ""))
            lines.append(f"| {eps:g} | {method} | " + " | ".join(cells) + " |")
        del methods
    lines.append("| | per iteration (ms, CPU) dcfr / pcfr_plus / OpenSpiel C++ CFR+ | " + " | ".join(
        " / ".join(f"{1e3 * results[label]['rows'][1e-4][key]['per_iteration']:.3f}"
                   for key in ("dcfr", "pcfr_plus", "OpenSpiel C++ CFR+")) for label in labels) + " |")
    for method in dict.fromkeys(m for label in labels for m in results[label]["rows"][1e-4]):
        cells = [results[label]["rows"][1e-4].get(method, {}).get("per_iteration", math.nan) for label in labels]
        if not all(math.isnan(cell) for cell in cells):
            lines.append(f"| per iteration (ms, CPU) | {method} | " + " | ".join(
                "" if math.isnan(cell) else f"{1e3 * cell:.3f}" for cell in cells) + " |")
    lines.append("| | peak memory of solve_efg (tracemalloc, MB) | " + " | ".join(
        f"{results[label]['peak_mb']:.1f}" for label in labels) + " |")
    for label in labels:
        for eps in EPSILONS:
            rows = results[label]["rows"][eps]
            ours = rows["solve_efg (auto)"]
            best_alone = min(rows["dcfr"]["cpu"], rows["pcfr_plus"]["cpu"])
            spiel = rows["OpenSpiel C++ CFR+"]
            spiel_time = spiel["cpu"] if spiel["reached"] else spiel["spent"]
            ahead = spiel_time / ours["cpu"]
            print(f"{label} eps={eps:g}: solve_efg / best of dcfr, pcfr_plus = {ours['cpu'] / best_alone:.2f} "
                  f"(race: {rows['solve_efg (race)']['cpu'] / best_alone:.2f}); OpenSpiel C++ CFR+ / solve_efg "
                  f"{'>=' if not spiel['reached'] else '='} {ahead:.1f}x")
            if ours["cpu"] > RACE_WITHIN * best_alone:
                failures.append(f"{label} eps={eps:g}: solve_efg {ours['cpu'] / best_alone:.2f}x the better alone")
            if eps == 1e-4 and label != "Kuhn" and ahead < SPIEL_AHEAD_AT_LEAST:
                failures.append(f"{label}: only {ahead:.1f}x ahead of OpenSpiel C++ CFR+ to 1e-4")
    return "\n".join(lines), failures


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="interleaved repeats (medians; default 5)")
    parser.add_argument("--games", nargs="*", choices=list(GAMES), default=list(GAMES), help="the games (default both)")
    parser.add_argument("--json", metavar="FILE", help="also write the medians as JSON")
    parser.add_argument("--time-to-target", action="store_true",
                        help="time and iterations to exploitability 1e-3 / 1e-4 (issue 33) instead")
    parser.add_argument("--targets", nargs="*", choices=list(TARGET_GAMES), default=list(TARGET_GAMES),
                        help="the games of --time-to-target (default all four)")
    parser.add_argument("--cap", type=float, default=30.0, help="CPU seconds cap of a run (default 30)")
    parser.add_argument("--no-python-peers", action="store_true",
                        help="skip OpenSpiel's Python CFR+, DCFR and MMD")
    parser.add_argument("--no-liteefg", action="store_true", help="skip LiteEFG's CFR+ and DCFR")
    parser.add_argument("--recipes", nargs="*", metavar="RECIPE",
                        help="the recipes --time-to-target times (default every extensive-form recipe); dcfr and "
                             "pcfr_plus are always timed (solve_efg's target is the better of the two alone)")
    args = parser.parse_args(argv)
    if args.recipes is not None:
        try:
            chosen_recipes(args.recipes)
        except ValueError as error:
            parser.error(str(error))
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        print("benchmarks/efg.py compares with OpenSpiel: pip install gamedyn[openspiel] (open_spiel)")
        return 1
    if args.time_to_target:
        results = time_to_target(args.targets, args.cap, args.repeats if "--repeats" in (argv or sys.argv) else 1,
                                 not args.no_python_peers, args.recipes, not args.no_liteefg)
        text, failures = target_table(results)
        print("CPU seconds (wall in brackets) and iterations to the exploitability, one BLAS thread; "
              "'it' = iterations (solve_efg: both lanes')")
        print(text)
        if args.json:
            with open(args.json, "w", encoding="utf-8") as handle:
                json.dump({label: {"peak_mb": r["peak_mb"], "rows": {str(e): v for e, v in r["rows"].items()}}
                           for label, r in results.items()}, handle, indent=2, default=str)
        print("targets met: solve_efg within 1.5x of the better of dcfr and pcfr_plus, >= 10x ahead of OpenSpiel "
              "C++ CFR+ to 1e-4" if not failures else "TARGETS MISSED:\n  " + "\n  ".join(failures))
        return 1 if failures else 0
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
