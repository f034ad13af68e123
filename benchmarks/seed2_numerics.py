"""Benchmarks for issue 11 item 6: Adaptive SGD's default loss evaluations, and tau without stepping.

Run: ``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/seed2_numerics.py`` (about 2 minutes).
BLAS threads: whatever the environment sets (the command above: 1). Each pair of variants is run
interleaved, 5 times, and the medians of CPU time (``time.process_time``) and wall time are printed.

* ``adaptive_sgd``: the default ``record=[0, T]`` (exact hitting time by the skip rule) against
  ``record=np.arange(T + 1)``, which is what the old default did (one full loss per step);
* ``IncreasingSchedule.tau1/tau2``: the Abel-function leap against the old step loop.
"""

import math
import os
import statistics
import time

import numpy as np

from gamedyn.io import make_separable, signed_rows
from gamedyn.logistic import IncreasingSchedule, adaptive_sgd


def measure(function):
    cpu, wall = time.process_time(), time.perf_counter()
    function()
    return time.process_time() - cpu, time.perf_counter() - wall


def interleaved(variants, repeats=5):
    samples = {name: [] for name in variants}
    for _ in range(repeats):
        for name, function in variants.items():
            samples[name].append(measure(function))
    return {name: (statistics.median(s[0] for s in runs), statistics.median(s[1] for s in runs))
            for name, runs in samples.items()}


def step_loop(schedule, level):
    for t, (_, log_s) in enumerate(schedule._steps()):
        if log_s > level:
            return t


def main():
    print(f"BLAS threads: OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}, "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}; medians of 5, interleaved")
    n, d, T = 50_000, 20, 2000
    A = signed_rows(*make_separable(n, d, 0.05, seed=0))
    results = interleaved({
        "default record=[0, T]": lambda: adaptive_sgd(A, T, 1e-6, seed=0),
        "record=every t (old default)": lambda: adaptive_sgd(A, T, 1e-6, seed=0, record=np.arange(T + 1)),
    })
    print(f"adaptive_sgd, n = {n}, d = {d}, T = {T}, eps = 1e-6")
    for name, (cpu, wall) in results.items():
        print(f"  {name:30s} cpu {cpu:8.3f} s   wall {wall:8.3f} s")
    schedule = IncreasingSchedule(0.03)
    results = interleaved({
        "tau1, tau2 without stepping": lambda: (schedule.tau1, schedule.tau2),
        "tau1, tau2 by the step loop": lambda: (step_loop(schedule, -math.sqrt(2)), step_loop(schedule, math.sqrt(2))),
    })
    print("IncreasingSchedule(0.03): tau1, tau2 =", schedule.tau1, schedule.tau2)
    for name, (cpu, wall) in results.items():
        print(f"  {name:30s} cpu {cpu:8.4f} s   wall {wall:8.4f} s")
    cpu, wall = measure(lambda: (IncreasingSchedule(0.001).tau1, IncreasingSchedule(0.001).tau2))
    print(f"IncreasingSchedule(0.001): tau1, tau2 without stepping: cpu {cpu:.4f} s, wall {wall:.4f} s "
          "(the step loop: 1.6e9 steps, not run)")


if __name__ == "__main__":
    main()
