"""Cost of the range-safe domain operations (issue 11) against those of a base commit.

Run: ``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONPATH=. python benchmarks/domain_overhead.py [BASE]``
(BASE: a git revision, default bf8d89e, the last commit before the change). The base's
``gamedyn/regularizers.py`` is loaded beside the current one; the variants are interleaved and
each figure is the median of 7 runs of 2000 calls, CPU time (``time.process_time``) beside wall time.
BLAS threads: whatever the environment says (set them to 1 as above).
"""

import importlib.util
import pathlib
import subprocess
import sys
import tempfile
import time

import numpy as np

import gamedyn  # noqa: F401  (the old module imports gamedyn's helpers)
from gamedyn.core import regularizers as current

base = sys.argv[1] if len(sys.argv) > 1 else "bf8d89e"
root = pathlib.Path(__file__).resolve().parents[1]
source = subprocess.run(["git", "show", f"{base}:gamedyn/regularizers.py"], cwd=root, check=True,
                        capture_output=True, text=True).stdout
path = pathlib.Path(tempfile.mkdtemp()) / "base_regularizers.py"
path.write_text(source)
spec = importlib.util.spec_from_file_location("gamedyn.base_regularizers", path)
old = importlib.util.module_from_spec(spec)
spec.loader.exec_module(old)

rng = np.random.default_rng(0)
cases = {}
for n in (10, 1000):
    z = rng.normal(size=n)
    for label, module in (("base", old), ("current", current)):
        ball, entropy, centre = module.Ball(1.0), module.Entropy(), np.full(n, 1.0 / n)
        cases[(n, "Simplex.project", label)] = lambda z=z, m=module: m.Simplex.project(z)
        cases[(n, "Ball.project", label)] = lambda v=3 * z, b=ball: b.project(v)
        cases[(n, "Ball.min_quadratic", label)] = lambda v=3 * z, b=ball: b.minimize_quadratic(v, 0.0)
        cases[(n, "Entropy.argmin", label)] = lambda z=z, e=entropy, c=centre: e.argmin(z, 0.0, 0.5, c)

cpu = {key: [] for key in cases}
wall = {key: [] for key in cases}
for _ in range(7):
    for key, function in cases.items():
        start_cpu, start_wall = time.process_time(), time.perf_counter()
        for _ in range(2000):
            function()
        cpu[key].append((time.process_time() - start_cpu) / 2000 * 1e6)
        wall[key].append((time.perf_counter() - start_wall) / 2000 * 1e6)

print(f"{'n':>5} {'operation':20s} {'base cpu':>9} {'current cpu':>12} {'base wall':>10} {'current wall':>13}  (us per call)")
for (n, name, label) in cases:
    if label == "base":
        b, c = (n, name, "base"), (n, name, "current")
        print(f"{n:5d} {name:20s} {np.median(cpu[b]):9.2f} {np.median(cpu[c]):12.2f} "
              f"{np.median(wall[b]):10.2f} {np.median(wall[c]):13.2f}")
