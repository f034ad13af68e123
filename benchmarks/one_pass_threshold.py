"""Where the in-memory one-pass round pays: one read of A in cache-sized row groups against two BLAS calls.

Run: ``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/one_pass_threshold.py``. For each
size it times, interleaved (medians of 11, CPU time), the entropy player's round both ways: z = A w,
p = softmax(-z), r = A^T p by two BLAS calls, and the same z and r from
``gamedyn.arrays.one_pass.rows_softmax_response`` (the kernel ``InMemoryRows`` runs), and prints
one-pass / two-pass with A's size. ``gamedyn.arrays.one_pass.ONE_PASS_MIN_BYTES`` (32 MiB) sits where the
ratio crosses 1 on the 2-core EPYC this was written on.
"""

import pathlib
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))  # run from a source checkout

import numpy as np  # noqa: E402

from gamedyn.arrays.one_pass import merge_log_sum_exp, rows_softmax_response  # noqa: E402

SIZES = ((1000, 500), (2000, 500), (5000, 500), (10000, 500), (20000, 500), (20000, 100), (200000, 50))


def main():
    rng = np.random.default_rng(0)
    for n, d in SIZES:
        A = rng.normal(size=(n, d)) / np.sqrt(d)
        w, base = rng.normal(size=d), np.zeros(n)

        def two_pass():
            z = A @ w
            e = np.exp(-(z - z.min()))
            return z, A.T @ (e / e.sum())

        def one_pass():
            z, top, total, vector = rows_softmax_response(A, w, base, 1.0, 1.0, None, None)
            return z, merge_log_sum_exp([(top, total, vector)], d)

        assert np.allclose(two_pass()[1], one_pass()[1], rtol=1e-12, atol=1e-15)
        repeats = max(1, int(2e7 / (n * d)))
        times = {"one": [], "two": []}
        for _ in range(11):
            for name, function in (("one", one_pass), ("two", two_pass)):
                start = time.process_time()
                for _ in range(repeats):
                    function()
                times[name].append((time.process_time() - start) / repeats)
        one, two = statistics.median(times["one"]), statistics.median(times["two"])
        print(f"{n:7d} x {d:4d} ({A.nbytes / 2**20:5.1f} MiB): one pass / two passes {one / two:5.2f}"
              f"   (two passes {two * 1e3:.3f} ms)", flush=True)


if __name__ == "__main__":
    main()
