"""The GPU benchmark (issue 20, item 5): per-round time of gamedyn's recipes on CUDA against numpy on the CPU.

Run (from the repository root; no network, one command)::

    python benchmarks/gpu.py            # the full table: n x d in {1e5 x 100, 1e6 x 100, 1e6 x 1000 float32}, 1e4 x 1e4
    python benchmarks/gpu.py --quick    # small sizes, well under a minute (tests/test_gpu_benchmark.py runs it)
    python benchmarks/gpu.py --sizes 1e5x100 1e6x100 --matrix 0   # a part of the table

Devices: numpy on the CPU always (the reference); torch on CUDA and CuPy where they are installed and a GPU is
present. Without CUDA the device runs are torch on the CPU, and the header says so (the table then measures the
array-API path's overhead, not a GPU).

What is timed, per workload and device:

* ``smooth_perceptron`` and ``nag_margin`` on unit-norm rows A (n x d; the largest size float32);
* ``regret_matching_plus`` on a matrix game M (m x m, float64);
* the memory-bandwidth floor: one streaming read of A on that device (the faster of ``sum(A)`` and
  ``A @ ones(d)``), and the floor of a round = two reads (a round needs A @ w and A^T @ p).

A recipe's per-round time is the median of its round-to-round intervals (a ``callback`` stamps each round after
the device has finished it; the first two rounds are dropped), so validation, the one-time NaN check and the
final certificate are not counted; ``--repeats`` runs per workload and device. Both wall time
(``time.perf_counter``) and CPU time (``time.process_time``) are printed. ``ratio`` is numpy's wall time per
round over the device's.
"""

from __future__ import annotations

import argparse
import importlib
import pathlib
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))  # run from a source checkout

import numpy as np  # noqa: E402

from gamedyn.recipes import RECIPES  # noqa: E402

FULL_SIZES = ((100_000, 100, "float64"), (1_000_000, 100, "float64"), (1_000_000, 1000, "float32"))
QUICK_SIZES = ((2_000, 50, "float64"), (20_000, 50, "float64"), (20_000, 200, "float32"))
FULL_MATRIX, QUICK_MATRIX = 10_000, 300
MARGIN_RECIPES = ("smooth_perceptron", "nag_margin")
MATRIX_RECIPE = "regret_matching_plus"


def _module(name):
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def devices() -> tuple:
    """``(devices, note)``: [(label, to_device, synchronise)], numpy first; the note says what ran where."""
    found = [("numpy cpu", lambda a: a, lambda: None)]
    torch = _module("torch")
    cupy = _module("cupy")
    notes = []
    if torch is not None and torch.cuda.is_available():
        name = torch.cuda.get_device_name(0)
        found.append((f"torch cuda ({name})", lambda a: torch.asarray(a, device="cuda"), torch.cuda.synchronize))
    if cupy is not None:
        try:
            cupy.cuda.runtime.getDeviceCount()
            found.append(("cupy cuda", cupy.asarray, cupy.cuda.Device().synchronize))
        except Exception as error:  # pragma: no cover - cupy without a GPU
            notes.append(f"cupy is installed but has no GPU ({type(error).__name__})")
    if len(found) == 1:
        if torch is None:
            notes.append("no CUDA and no torch: numpy only (pip install 'gamedyn[torch]' for the device path)")
        else:
            notes.append("no CUDA device on this machine: the device runs are torch on the CPU (the array-API path's "
                         "overhead against numpy, not a GPU)")
            found.append(("torch cpu", torch.asarray, lambda: None))
    return found, "; ".join(notes) or "CUDA present"


def unit_rows(n: int, d: int, dtype: str, seed: int = 0) -> np.ndarray:
    """n x d rows of unit norm with a positive first coordinate (a separable margin problem), in ``dtype``."""
    rng = np.random.default_rng(seed)
    A = np.empty((n, d), dtype=dtype)
    block = max(1, (1 << 24) // d)
    for start in range(0, n, block):  # generated in blocks: no float64 copy of a float32 A
        part = rng.standard_normal((min(block, n - start), d))
        part[:, 0] = np.abs(part[:, 0]) + 0.5
        part /= np.linalg.norm(part, axis=1, keepdims=True)
        A[start:start + part.shape[0]] = part
    return A


def _timed(function, synchronise) -> tuple:
    synchronise()
    wall, cpu = time.perf_counter(), time.process_time()
    function()
    synchronise()
    return time.perf_counter() - wall, time.process_time() - cpu


def per_round(run, rounds: int, repeats: int, synchronise) -> tuple:
    """(wall, cpu) seconds per round: the median of the round-to-round intervals of ``repeats`` runs of ``rounds``
    rounds (a callback stamps each round after the device has finished it; the first two rounds, which hold the
    run's set-up, are dropped), so validation, the one-time NaN check and the final certificate are not counted."""
    walls, cpus = [], []
    for _ in range(repeats):
        stamps = []

        def stamp(round_state):
            synchronise()
            stamps.append((time.perf_counter(), time.process_time()))

        run(rounds, stamp)
        for (wall_before, cpu_before), (wall_after, cpu_after) in zip(stamps[2:], stamps[3:]):
            walls.append(wall_after - wall_before)
            cpus.append(cpu_after - cpu_before)
    return statistics.median(walls), statistics.median(cpus)


def read_floor(A, repeats: int, synchronise) -> float:
    """Seconds of one streaming read of A on its device: the faster of ``sum(A)`` and ``A @ ones(d)`` (each the
    median of ``repeats`` + 1 calls, the first dropped; numpy's pairwise sum is slower than a BLAS gemv, torch's
    the reverse, so neither alone is the floor)."""
    from gamedyn.core.kernels import backend_of

    backend = backend_of(A)
    xp = backend.xp
    ones = xp.ones((A.shape[1],), dtype=A.dtype) if backend.is_numpy else xp.ones(
        (A.shape[1],), dtype=A.dtype, device=backend.device)
    best = float("inf")
    for read in (lambda: float(xp.sum(A)), lambda: float(xp.sum(A @ ones))):
        times = [_timed(read, synchronise)[0] for _ in range(repeats + 1)]
        best = min(best, statistics.median(times[1:]))
    return best


def _row(workload, label, wall, cpu, floor, reference) -> str:
    ratio = "" if reference is None else f"{reference / wall:8.2f}x"
    floor_text = "" if floor is None else f"{2 * floor * 1e3:10.3f}  {wall / (2 * floor):6.2f}"
    return f"| {workload:<34} | {label:<30} | {wall * 1e3:10.3f} | {cpu * 1e3:10.3f} | {floor_text:<18} | {ratio:<9} |"


def time_on_each_device(workload, recipe, A, found, rounds, repeats):
    """Print one row per device: the recipe's per-round wall and CPU time on A moved there, and its read floor."""
    reference = None
    for label, to_device, synchronise in found:
        on_device = to_device(A)
        wall, cpu = per_round(lambda T, stamp, X=on_device: recipe(X, T, callback=stamp), rounds, repeats,
                              synchronise)
        floor = read_floor(on_device, repeats, synchronise)
        print(_row(workload, label, wall, cpu, floor, reference))
        sys.stdout.flush()
        reference = wall if reference is None else reference
        del on_device


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (well under a minute)")
    parser.add_argument("--sizes", nargs="*", default=None, help="n x d sizes of the margin rows, e.g. 1e5x100 "
                        "1e6x1000f32 (default: the full table, or the quick one)")
    parser.add_argument("--matrix", type=float, default=None, help="m of the m x m matrix game (0: none)")
    parser.add_argument("--repeats", type=int, default=None, help="interleaved repeats (median; default 3)")
    args = parser.parse_args(argv)
    if args.sizes is not None:
        sizes = []
        for text in args.sizes:
            dtype = "float32" if text.endswith("f32") else "float64"
            n, d = text.removesuffix("f32").split("x")
            sizes.append((int(float(n)), int(float(d)), dtype))
    else:
        sizes = list(QUICK_SIZES if args.quick else FULL_SIZES)
    m = int(args.matrix) if args.matrix is not None else (QUICK_MATRIX if args.quick else FULL_MATRIX)
    repeats = args.repeats or 3
    found, note = devices()
    print(f"gamedyn GPU benchmark ({'quick' if args.quick else 'full'}); devices: "
          f"{', '.join(label for label, _, _ in found)}; {note}")
    print("per round: the median of the round-to-round intervals (a callback per round); floor = two streaming reads of A "
          "(a round needs A @ w and A^T @ p); ratio = numpy's wall time per round / this device's")
    print("| workload                           | device                         | wall ms/rd | cpu ms/rd  "
          "| floor ms  x floor  | numpy/dev |")
    print("|---|---|---|---|---|---|")
    sys.stdout.flush()
    for n, d, dtype in sizes:
        A = unit_rows(n, d, dtype)
        rounds = 40 if args.quick else (8 if n * d >= 10**8 else 12)
        for name in MARGIN_RECIPES:
            time_on_each_device(f"{name} {n:.0e} x {d} {dtype}", RECIPES[name].function, A, found, rounds, repeats)
        del A
    if m:
        M = np.random.default_rng(1).standard_normal((m, m))
        time_on_each_device(f"{MATRIX_RECIPE} {m:.0e} x {m} float64", RECIPES[MATRIX_RECIPE].function, M, found,
                            40 if args.quick else 12, repeats)
    print("done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
