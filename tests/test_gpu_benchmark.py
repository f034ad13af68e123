"""benchmarks/gpu.py --quick (issue 20, item 5): one command, no network, runs to completion in CI time, every
workload on every device it finds (numpy on the CPU and, without CUDA, torch on the CPU, said in its header)."""

from __future__ import annotations

import importlib.util
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_gpu_benchmark_quick_runs_every_workload_on_every_device():
    environment = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "gpu.py"), "--quick"], cwd=ROOT,
                          env=environment, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[-1] == "done"
    header = lines[0]
    has_torch = importlib.util.find_spec("torch") is not None
    if has_torch:
        import torch

        if not torch.cuda.is_available():
            assert "torch cpu" in header and "no CUDA device" in header  # the fallback is said, not hidden
    rows = [line for line in lines if line.startswith("| ") and "ms/rd" not in line]
    devices = 2 if has_torch else 1
    assert len(rows) == devices * (2 * 3 + 1)  # two margin recipes at three sizes, one matrix game, per device
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        wall, cpu, floor = float(cells[2]), float(cells[3]), float(cells[4].split()[0])
        assert all(value == value and abs(value) < 1e6 for value in (wall, cpu)) and floor > 0  # numbers, no NaN
