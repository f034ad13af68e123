"""benchmarks/efg_load.py (issue 33): ``from_openspiel``'s load time and peak memory, one short run on Kuhn poker and
its table's figures read back (the sizes are Kuhn's: 13 sequences a player, 30 payoff nonzeros)."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_the_load_benchmark_measures_kuhn():
    pytest.importorskip("pyspiel")
    environment = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "efg_load.py"), "--games", "Kuhn", "--repeats", "1"],
                          cwd=ROOT, env=environment, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    rows = [line.split(" | ") for line in done.stdout.splitlines() if line.startswith("| Kuhn")]
    assert len(rows) == 1, done.stdout
    assert rows[0][1:3] == ["13, 13", "30"], done.stdout
    assert float(rows[0][3]) >= 0.0 and float(rows[0][5].rstrip(" |")) > 0.0, done.stdout
