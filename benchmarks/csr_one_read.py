r"""Why a CSR round stays above one ``A @ x`` (issue 35, section 8's CSR rows): the round's parts against scipy's product.

Run: ``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/csr_one_read.py [--repeats 11]`` (numba needed).
At the sizes of ``benchmarks/run.py`` section 8 (20000 x 500 and 100000 x 100, density 1 %, 100000 stored
entries: 1.2 MB, held in the last-level cache) it times, interleaved (CPU time, medians of ``--repeats`` repeats of
5 calls), each / one scipy CSR ``A @ x``:

* ``A.T @ p`` (scipy): the round's second product;
* ``gather`` (numba): z = A w alone, the loop of :func:`gamedyn.arrays.compiled.csr_softmax` without the rest;
* ``gather + scatter`` (numba): z = A w and v += z_i a_i row by row, both products in one pass, no softmax;
* ``compiled pass``: :func:`gamedyn.arrays.compiled.csr_softmax`, the whole entropy-player pass;
* ``round, two-pass``: the smooth perceptron's round on this A as it runs by default (two sparse products; the
  slope between 4 and 32 rounds);
* ``round, compiled``: the same with ``gamedyn.arrays.one_pass.COMPILED_CSR = True`` (the compiled pass a round);
* ``round - pass``: the compiled round less its pass: the round's work outside A (the learner's own softmax over
  the n rows, the sums of the losses and plays: O(n) numpy passes), which no kernel over A removes.

A CSR A this size is read from cache, not memory, so "one read" saves no traffic: the round's floor is the
arithmetic of both products (a gather and a scattered add per stored entry) plus the round's O(n) work.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import pathlib  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))  # run from a source checkout
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import numpy as np  # noqa: E402


def medians(functions: dict, repeats: int, calls: int = 5) -> dict:
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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=11)
    args = parser.parse_args(argv)
    import numba

    from gamedyn import recipes
    from gamedyn.arrays import compiled
    from run import sparse_data

    if not compiled.available():
        raise SystemExit("numba is not installed (or gamedyn.arrays.compiled.ENABLED is False)")

    @numba.njit(fastmath={"contract"})
    def gather(data, indices, indptr, w, z):
        for i in range(z.shape[0]):
            s = 0.0
            for k in range(indptr[i], indptr[i + 1]):
                s += data[k] * w[indices[k]]
            z[i] = s

    @numba.njit(fastmath={"contract"})
    def gather_scatter(data, indices, indptr, w, z, v):
        for j in range(v.shape[0]):
            v[j] = 0.0
        for i in range(z.shape[0]):
            s = 0.0
            for k in range(indptr[i], indptr[i + 1]):
                s += data[k] * w[indices[k]]
            z[i] = s
            for k in range(indptr[i], indptr[i + 1]):
                v[indices[k]] += s * data[k]

    from gamedyn.arrays import one_pass

    kernel = compiled.kernels()["csr_softmax"]

    def recipe(A, rounds, compiled_csr):
        def run():
            before, one_pass.COMPILED_CSR = one_pass.COMPILED_CSR, compiled_csr
            try:
                recipes.smooth_perceptron(A, rounds)
            finally:
                one_pass.COMPILED_CSR = before
        return run

    print("CSR, density 1 %, one thread; each / one scipy A @ x (CPU time, medians)")
    for n, d in ((20000, 500), (100000, 100)):
        A = sparse_data(n, d)
        rng = np.random.default_rng(1)
        w, base = rng.normal(size=d) * 0.1, rng.normal(size=n)
        p = np.abs(base) / np.abs(base).sum()
        z, v, centre = np.empty(n), np.empty(d), np.zeros(1)
        functions = {
            "A @ x": lambda A=A, w=w: A @ w,
            "A.T @ p": lambda A=A, p=p: A.T @ p,
            "gather": lambda A=A, w=w, z=z: gather(A.data, A.indices, A.indptr, w, z),
            "gather + scatter": lambda A=A, w=w, z=z, v=v: gather_scatter(A.data, A.indices, A.indptr, w, z, v),
            "compiled pass": lambda A=A, w=w, base=base, z=z, v=v, centre=centre, n=n: kernel(
                A.data, A.indices, A.indptr, w, base, 1.0, 2.0, centre, False, z, v, 0, n),
            ("two-pass", 4): recipe(A, 4, False), ("two-pass", 32): recipe(A, 32, False),
            ("compiled", 4): recipe(A, 4, True), ("compiled", 32): recipe(A, 32, True),
        }
        times = medians(functions, args.repeats)
        read = times["A @ x"]
        print(f" {n} x {d} (nnz {A.nnz}, {(A.data.nbytes + A.indices.nbytes + A.indptr.nbytes) / 1e6:.1f} MB): "
              f"A @ x {read * 1e6:.0f} us")
        for name in ("A.T @ p", "gather", "gather + scatter", "compiled pass"):
            print(f"  {name:18s} {times[name] / read:5.2f}")
        rounds = {kind: (times[(kind, 32)] - times[(kind, 4)]) / 28 for kind in ("two-pass", "compiled")}
        print(f"  {'round, two-pass':18s} {rounds['two-pass'] / read:5.2f}")
        print(f"  {'round, compiled':18s} {rounds['compiled'] / read:5.2f}")
        print(f"  {'round - pass':18s} {(rounds['compiled'] - times['compiled pass']) / read:5.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
