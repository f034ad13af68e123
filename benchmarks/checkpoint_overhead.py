"""Cost of checkpointing a run (issue 9 item 3): none asked, one at the end, every K rounds.

Run: ``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONPATH=. python benchmarks/checkpoint_overhead.py``
The smooth perceptron on n x d signed rows for T rounds; the variants are interleaved and each
figure is the median of 7 runs, CPU time (``time.process_time``) beside wall time. BLAS threads:
whatever the environment says (set them to 1 as above). A checkpoint write is O(n + d) plus the
configuration's fingerprint (one SHA-256 pass over A per run, not per write).
"""

import os
import statistics
import sys
import tempfile
import time

import numpy as np

from gamedyn import recipes, signed_rows
from gamedyn.io import make_separable

n, d, T = (int(value) for value in (sys.argv[1:4] if len(sys.argv) >= 4 else (2000, 50, 3000)))
A = signed_rows(*make_separable(n, d, 0.02, seed=0))
A /= np.max(np.linalg.norm(A, axis=1))
folder = tempfile.mkdtemp()
path = os.path.join(folder, "run.npz")
variants = {
    "no checkpoint": {},
    "checkpoint at the end": {"checkpoint": path},
    "every 1000 rounds": {"checkpoint": path, "checkpoint_every": 1000},
    "every 100 rounds": {"checkpoint": path, "checkpoint_every": 100},
    "every 10 rounds": {"checkpoint": path, "checkpoint_every": 10},
}
times = {name: ([], []) for name in variants}
reference = recipes.smooth_perceptron(A, T).w
for repeat in range(7):
    for name, options in variants.items():
        wall, cpu = time.perf_counter(), time.process_time()
        w = recipes.smooth_perceptron(A, T, **options).w
        times[name][0].append(time.perf_counter() - wall)
        times[name][1].append(time.process_time() - cpu)
        assert np.array_equal(w, reference)  # checkpointing never changes a bit of the run

print(f"smooth perceptron, n = {n}, d = {d}, T = {T}; BLAS threads: OMP_NUM_THREADS="
      f"{os.environ.get('OMP_NUM_THREADS', 'unset')}; medians of 7")
base_cpu = statistics.median(times["no checkpoint"][1])
for name, (wall, cpu) in times.items():
    print(f"{name:>24}: CPU {statistics.median(cpu) * 1e3:8.1f} ms  wall {statistics.median(wall) * 1e3:8.1f} ms  "
          f"CPU ratio {statistics.median(cpu) / base_cpu:5.3f}")
