"""Mutation check (issue 11): re-inject each known mutant and show that the tests AND ``gamedyn reproduce`` fail.

Usage (from the repository root)::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/mutants.py            # every mutant
    python benchmarks/mutants.py alg4-eta-p gd-sum                                   # some of them
    python benchmarks/mutants.py --list

Each mutant is one textual edit of one source line. It is applied to a *copy* of the source tree in a
temporary folder (the checkout is never touched, so nothing can be left mutated), and two commands
run in that copy:

* the relevant test files: ``python -m pytest -x -q -p no:cacheprovider FILES`` (stops at the first failure, which the table names);
* ``python -m gamedyn reproduce --no-figures --out DIR`` (the default profile).

A mutant is *killed* when both exit non-zero. The script prints one table row per mutant and exits
1 if any mutant survives either command, or if a mutant's line is no longer in the source (then
the table says so: update the pattern). Not collected by pytest (it lives in ``benchmarks/``).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

import attrs

ROOT = pathlib.Path(__file__).resolve().parent.parent


@attrs.frozen
class Mutant:
    name: str
    description: str
    path: str
    original: str
    mutated: str
    tests: tuple


_SEED1_TESTS = ("tests/test_recipes.py", "tests/test_reproduce.py")
_SEED2_TESTS = ("tests/test_logistic.py", "tests/test_reproduce.py")

MUTANTS = (
    Mutant("alg4-eta-p", "Algorithm 4 with eta_p = 2/eta_w (breaks Theorem 7's eta_p <= 1/eta_w)",
           "recipes/pnorm_perceptron.py", "    eta_p = 1 / eta_w\n", "    eta_p = 2 / eta_w\n", _SEED1_TESTS),
    Mutant("alg4-no-root", "Algorithm 4's eta_w without its square root: 1/(2(q-1) log n)",
           "recipes/pnorm_perceptron.py", "eta_w = 1 / np.sqrt(2 * (q - 1) * np.log(n))",
           "eta_w = 1 / (2 * (q - 1) * np.log(n))", _SEED1_TESTS),
    Mutant("schedule-f0", "schedule (7) with the text's misprinted F(w_0): D_t = max{F(w_0), ln^2 S_(t-1)}",
           "gamedyn/logistic.py", "two_f0, g2 = 2.0 * self.f0, self.gamma**2", "two_f0, g2 = self.f0, self.gamma**2",
           _SEED2_TESTS),
    Mutant("schedule-half", "schedule (7) with the 1/2 dropped from eta_t = S_(t-1)/(2 D_t)",
           "gamedyn/logistic.py", "log_eta = log_s - _LN2 - math.log(d)", "log_eta = log_s - math.log(d)",
           _SEED2_TESTS),
    Mutant("sgd-no-min", "Adaptive SGD's step without min{1/eps, 1/l_i} (eta_t = 1)",
           "gamedyn/logistic.py", "c = math.exp(_scalar_log_sigmoid_neg(m) - max(log_eps_t, _scalar_log_loss(m)))",
           "c = math.exp(_scalar_log_sigmoid_neg(m))", _SEED2_TESTS),
    Mutant("sgd-no-eps", "Adaptive SGD's step without the 1/eps cap (eta_t = 1/l_i)",
           "gamedyn/logistic.py", "c = math.exp(_scalar_log_sigmoid_neg(m) - max(log_eps_t, _scalar_log_loss(m)))",
           "c = math.exp(_scalar_log_sigmoid_neg(m) - _scalar_log_loss(m))", _SEED2_TESTS),
    Mutant("gd-sum", "GD on the sum of the losses instead of the mean",
           "gamedyn/logistic.py", "shift = log_eta - math.log(n)", "shift = log_eta", _SEED2_TESTS),
)


def _copy_tree(destination: pathlib.Path) -> None:
    ignore = shutil.ignore_patterns(".git", "__pycache__", "*.pyc", "gamedyn-report", ".pytest_cache", ".hypothesis")
    shutil.copytree(ROOT, destination, ignore=ignore)


def _run(command, cwd) -> tuple[int, float, str]:
    """Exit status, seconds, and the last line (with the first failing test, for pytest)."""
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    failed = [line.split(" - ")[0].removeprefix("FAILED ") for line in lines if line.startswith("FAILED ")]
    last = lines[-1] if lines else ""
    return done.returncode, time.perf_counter() - start, (f"{last}; first: {failed[0]}" if failed else last)


def check(mutant: Mutant) -> dict:
    """Apply ``mutant`` to a copy of the tree, run its tests and reproduce; return the outcome."""
    with tempfile.TemporaryDirectory(prefix="gamedyn-mutant-") as folder:
        tree = pathlib.Path(folder) / "tree"
        _copy_tree(tree)
        target = tree / mutant.path
        text = target.read_text()
        if text.count(mutant.original) != 1:
            return {"mutant": mutant, "error": f"pattern found {text.count(mutant.original)} times in {mutant.path}"}
        target.write_text(text.replace(mutant.original, mutant.mutated))
        python = sys.executable
        tests = _run([python, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *mutant.tests], tree)
        report = _run([python, "-m", "gamedyn", "reproduce", "--no-figures", "--out", str(pathlib.Path(folder) / "out")],
                      tree)
        failing = []
        if report[0] != 0:
            out = pathlib.Path(folder) / "out" / "report.md"
            if out.exists():
                failing = [line.split("|")[1].strip() for line in out.read_text().splitlines()
                           if line.startswith("| ") and "| FAIL |" in line]
        return {"mutant": mutant, "tests": tests, "reproduce": report, "failing_claims": failing}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="mutants to check (default: all)")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    args = parser.parse_args(argv)
    if args.list:
        for mutant in MUTANTS:
            print(f"{mutant.name:<14} {mutant.path}: {mutant.description}")
        return 0
    chosen = [mutant for mutant in MUTANTS if not args.names or mutant.name in args.names]
    print(f"BLAS threads: OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}, "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}")
    print("| mutant | file | pytest (relevant files) | gamedyn reproduce (default) | FAIL rows |")
    print("|---|---|---|---|---|")
    survived = 0
    for mutant in chosen:
        outcome = check(mutant)
        if "error" in outcome:
            survived += 1
            print(f"| {mutant.name} | {mutant.path} | {outcome['error']} | - | - |", flush=True)
            continue
        (test_code, test_seconds, test_line), (rep_code, rep_seconds, rep_line) = outcome["tests"], outcome["reproduce"]
        survived += test_code == 0 or rep_code == 0
        print(f"| {mutant.name} | {mutant.path} | exit {test_code}: {test_line} ({test_seconds:.0f} s) "
              f"| exit {rep_code}: {rep_line} ({rep_seconds:.0f} s) | {', '.join(outcome['failing_claims'])} |",
              flush=True)
    print(f"{len(chosen) - survived} of {len(chosen)} mutants killed by both the tests and reproduce")
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())
