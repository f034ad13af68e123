"""The compiled float32 round against the numpy path by row length, and the row-block kernel's block size (issue 35).

Run: ``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/float32_row_threshold.py`` (numba needed;
``--blocks`` also times the row-block kernel at every block size of ``BLOCKS``). For each float32 size (about
40 MB) it times, interleaved (medians of 11 repeats of 3 calls, CPU time), one entropy-player pass (z = A w and
A^T softmax(base + weight z), the step of ``softmax_pass``) of :class:`gamedyn.arrays.compiled.CompiledRows`
(the row-block kernel) and of :class:`gamedyn.arrays.one_pass.InMemoryRows` (float32 BLAS by row groups), and
prints each / one float32 ``A @ x``. ``gamedyn.arrays.one_pass.COMPILED_MIN_FLOAT32_ROW`` sits where the
compiled column stops winning; ``gamedyn.arrays.compiled.block_rows`` picks the block size the ``--blocks``
rows favour.
"""

import argparse
import pathlib
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))  # run from a source checkout

import numpy as np  # noqa: E402

from gamedyn.arrays import compiled, one_pass  # noqa: E402
from gamedyn.io import make_separable, signed_rows  # noqa: E402

SIZES = ((1000000, 10), (400000, 25), (200000, 50), (100000, 100), (50000, 200), (20000, 500))
BLOCKS = (8, 16, 32, 64)


def medians(functions: dict, repeats: int = 11, calls: int = 3) -> dict:
    """Interleaved CPU-time medians (seconds per call) after one warm-up call each."""
    times = {name: [] for name in functions}
    for function in functions.values():
        function()
    for _ in range(repeats):
        for name, function in functions.items():
            start = time.process_time()
            for _ in range(calls):
                function()
            times[name].append((time.process_time() - start) / calls)
    return {name: statistics.median(values) for name, values in times.items()}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", action="store_true", help="also the row-block kernel at each block size")
    args = parser.parse_args(argv)
    if not compiled.available():
        raise SystemExit("numba is not installed (or gamedyn.arrays.compiled.ENABLED is False)")
    kernel = compiled.kernels()["dense_softmax_blocks"]
    print("float32, one thread; columns: pass / one float32 A @ x (CPU time)")
    for n, d in SIZES:
        A = signed_rows(*make_separable(n, d, 0.05, seed=0)).astype(np.float32)
        rng = np.random.default_rng(1)
        w, base = rng.normal(size=d) * 0.1, rng.normal(size=n)
        x = w.astype(np.float32)
        fast, slow = compiled.CompiledRows(A).softmax_pass(), one_pass.InMemoryRows(A).softmax_pass()
        functions = {"A @ x": lambda A=A, x=x: A @ x,
                     "compiled": lambda fast=fast, w=w, base=base: fast(w, base, 1.0, 2.0),
                     "numpy": lambda slow=slow, w=w, base=base: slow(w, base, 1.0, 2.0)}
        if args.blocks:
            for block in BLOCKS:
                functions[f"block {block}"] = (
                    lambda block=block, A=A, w=w, base=base, n=n, d=d: kernel(A, w, base, 1.0, 2.0, np.zeros(1), False,
                                                                              np.empty(n), np.empty(d), 0, n, block))
        result = medians(functions)
        read = result.pop("A @ x")
        chosen = compiled.block_rows(d * A.itemsize)
        print(f"  {n:7d} x {d:3d} (A @ x {read * 1e3:5.2f} ms, block_rows {chosen:2d}): "
              + "  ".join(f"{name} {value / read:5.2f}" for name, value in result.items()), flush=True)


if __name__ == "__main__":
    main()
