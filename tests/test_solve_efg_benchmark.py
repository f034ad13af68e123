"""benchmarks/solve_efg.py (issue 33): solve_efg against its lanes, one short run on Kuhn poker read back: every
method's certified bracket holds the LP's value, and auto names the lane it took."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_the_solve_efg_benchmark_checks_every_bracket_on_kuhn():
    environment = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "solve_efg.py"), "--games", "kuhn", "--repeats", "1",
                           "--gap", "1e-5"], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    rows = [line.strip("| ").split(" | ") for line in done.stdout.splitlines() if line.startswith("| Kuhn")]
    assert len(rows) == 1, done.stdout
    cells = rows[0]
    assert all(float(cell) > 0.0 for cell in cells[1:6]), done.stdout
    assert cells[6] in ("dcfr", "pcfr_plus", "lp") and cells[7] == "True", done.stdout
