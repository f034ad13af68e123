"""Out-of-core A: per-round time of the engine's row-blocked dask runs (one pass and two passes per
round) vs numpy, and the driver's peak RSS.

Run: ``python benchmarks/dask_bench.py`` (n = 2e6, d = 100 float64 = 1.6 GB of ``.npy`` chunks on
disk, about ten minutes) or ``--quick`` (n = 2e5, 160 MB, a minute or two). From ``benchmarks/run.py``:
``python benchmarks/run.py --dask [--quick]`` calls :func:`run`.

What is measured, each variant in a fresh child process (so its peak RSS is its own), variants
interleaved, ``--repeats`` (default 5) repetitions, medians reported:

* ``numpy``: A loaded into memory in the chunks' dtype (filled chunk by chunk; float32 stays float32), ``smooth_perceptron``;
* ``threads 1-pass`` / ``threads 2-pass``: ``RowBlockedOperator.from_npy_folder`` on dask's threaded
  scheduler (each task reads its chunk in row slabs by explicit file reads), with ``one_pass=True``
  (the engine's one-pass round, :mod:`gamedyn.engine.rounds`: A read once per round) and
  ``one_pass=False`` (A w_t, then A^T p_t: two reads);
* ``cluster 1-pass`` / ``cluster 2-pass``: the same folder on a ``LocalCluster(n_workers=2,
  threads_per_worker=1)`` of worker processes (the driver's CPU time excludes the workers').

Per round: CPU time (``time.process_time``, the driver process) and wall time between the end of
round 1 and the end of round T, divided by T - 1 (so the construction pass and the probe product
are excluded). Also per variant: one ``A @ w`` and one ``A.T @ p`` (a pass each), median of 3,
wall. Every variant's output w is checked equal to numpy's to 1e-10 relative (float32: 1e-5). Peak RSS:
``resource.getrusage(RUSAGE_SELF).ru_maxrss`` of the child (driver), and the same minus its RSS
after the imports (``VmRSS``), divided by A's size. Last, the fixed cost per task
(:func:`task_overhead`: products over 16 tiny blocks). BLAS threads: 1 (OMP/OPENBLAS/MKL_NUM_THREADS=1
in every child and worker). The chunks are written under ``--where`` (default /tmp/gamedyn-dask-bench)
and deleted at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
THREAD_VARIABLES = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
VARIANTS = ("numpy", "threads 1-pass", "threads 2-pass", "cluster 1-pass", "cluster 2-pass")
# w of every variant against numpy's, relative: float64 to rounding; float32 products (in float32, summed
# in another order) to the float32 bound of docs/explanation/architecture.md
W_TOLERANCE = {"float64": 1e-10, "float32": 1e-5}


def write_chunks(folder: str, n: int, d: int, chunks: int, dtype: str, seed: int = 0) -> int:
    """X_000.npy ... (rows of norm <= 1) and y.npy = sign(X u): separable, never all in memory."""
    import numpy as np

    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(seed)
    direction = rng.standard_normal(d)
    direction /= np.linalg.norm(direction)
    labels, rows = [], n // chunks
    for k in range(chunks):
        X = rng.standard_normal((rows if k < chunks - 1 else n - rows * (chunks - 1), d))
        X /= np.linalg.norm(X, axis=1, keepdims=True)
        labels.append(np.where(X @ direction >= 0, 1.0, -1.0))
        np.save(os.path.join(folder, f"X_{k:03d}.npy"), X.astype(dtype))
        del X
    np.save(os.path.join(folder, "y.npy"), np.concatenate(labels))
    return sum(os.path.getsize(os.path.join(folder, name)) for name in os.listdir(folder))


def in_memory(folder: str):
    """The folder's signed rows as one numpy array in the chunks' dtype (float32 stays float32: the
    baseline holds A once, at its own size), filled chunk by chunk."""
    import numpy as np

    from gamedyn.arrays.distributed import npy_folder_layout

    paths, labels = npy_folder_layout(folder)
    headers = [np.load(path, mmap_mode="r") for path in paths]  # shapes and dtype (no data read)
    shapes, dtype = [header.shape for header in headers], headers[0].dtype
    del headers
    A = np.empty((sum(shape[0] for shape in shapes), shapes[0][1]), dtype=dtype)
    row = 0
    for path, shape in zip(paths, shapes):  # one chunk mapped at a time
        A[row:row + shape[0]] = np.load(path, mmap_mode="r")
        row += shape[0]
    A *= np.load(labels).astype(A.dtype)[:, None]
    return A


def _child(variant: str, folder: str, rounds: int) -> dict:
    """One measurement, in this (fresh) process."""
    import resource

    import numpy as np

    from gamedyn import recipes
    from gamedyn.arrays import RowBlockedOperator

    with open("/proc/self/status") as status:  # resident memory before any data: Python, numpy, dask
        base = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmRSS:"))
    cluster = client = None
    if variant == "numpy":
        A = in_memory(folder)
    elif variant.startswith("threads"):
        A = RowBlockedOperator.from_npy_folder(folder, client="threads", one_pass=variant.endswith("1-pass"))
    else:
        from distributed import Client, LocalCluster

        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                               env=THREAD_VARIABLES)  # the workers' BLAS threads too
        client = Client(cluster)
        A = RowBlockedOperator.from_npy_folder(folder, client=client, one_pass=variant.endswith("1-pass"))
    marks = []

    def mark(state):
        marks.append((time.process_time(), time.perf_counter()))
        return False

    result = recipes.smooth_perceptron(A, rounds, stop=mark)
    cpu = (marks[-1][0] - marks[0][0]) / (rounds - 1)
    wall = (marks[-1][1] - marks[0][1]) / (rounds - 1)
    w, p = np.full(A.shape[1], 0.1), np.full(A.shape[0], 1.0 / A.shape[0])
    passes = {}
    for name, product in (("A @ w", lambda: A @ w), ("A.T @ p", lambda: A.T @ p)):
        times = []
        for _ in range(3):
            start = time.perf_counter()
            product()
            times.append(time.perf_counter() - start)
        passes[name] = statistics.median(times)
    passes["w"] = [float(value) for value in result.w]
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB
    if client is not None:
        client.close()
        cluster.close()
    return {"variant": variant, "dtype": str(A.dtype), "cpu_per_round": cpu, "wall_per_round": wall, "peak_rss": rss,
            "base_rss": base, **passes}


def _measure(variant: str, folder: str, rounds: int) -> dict:
    environment = {**os.environ, **THREAD_VARIABLES, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    completed = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", variant, "--folder", folder,
                                "--rounds", str(rounds)], capture_output=True, text=True, env=environment, check=False)
    if completed.returncode != 0:
        raise RuntimeError(f"{variant} failed:\n{completed.stderr[-3000:]}")
    return json.loads(completed.stdout.strip().splitlines()[-1])


def run(quick: bool = False, *, n=None, d=100, chunks=None, rounds=None, repeats=5, dtype="float64",
        where="/tmp/gamedyn-dask-bench", keep=False) -> list:
    """Write the chunks, measure every variant ``repeats`` times (interleaved), print and return the medians."""
    n = int(n or (200_000 if quick else 2_000_000))
    chunks = int(chunks or (4 if quick else 16))
    rounds = int(rounds or (4 if quick else 6))
    folder = os.path.join(where, f"n{n}_d{d}_{dtype}")
    free = shutil.disk_usage(os.path.dirname(folder) if os.path.exists(os.path.dirname(folder)) else "/").free
    size = n * d * (4 if dtype == "float32" else 8)
    if free < 3 * size:
        raise RuntimeError(f"{where}: {free / 1e9:.1f} GB free, need about {3 * size / 1e9:.1f} GB; pass --where")
    try:
        start = time.perf_counter()
        bytes_on_disk = write_chunks(folder, n, d, chunks, dtype)
        print(f"A: n = {n}, d = {d}, {dtype}, {chunks} .npy chunks, {bytes_on_disk / 1e9:.2f} GB on disk "
              f"(written in {time.perf_counter() - start:.0f} s); smooth_perceptron, T = {rounds}; BLAS threads = 1; "
              f"median of {repeats}, variants interleaved, each in a fresh process", flush=True)
        samples = {variant: [] for variant in VARIANTS}
        for repeat in range(repeats):
            for variant in VARIANTS:
                samples[variant].append(_measure(variant, folder, rounds))
            print(f"  repetition {repeat + 1}/{repeats} done", flush=True)
    finally:
        if not keep:
            shutil.rmtree(folder, ignore_errors=True)
    rows = []
    reference = np.array(samples["numpy"][0]["w"])
    for variant in VARIANTS:
        row = {"variant": variant}
        for key in ("cpu_per_round", "wall_per_round", "A @ w", "A.T @ p", "peak_rss", "base_rss"):
            row[key] = statistics.median(sample[key] for sample in samples[variant])
        row["w error"] = max(float(np.max(np.abs(np.array(sample["w"]) - reference)) / np.max(np.abs(reference)))
                             for sample in samples[variant])
        if row["w error"] > W_TOLERANCE[dtype]:
            raise AssertionError(f"{variant}: w differs from numpy's by {row['w error']:.2e} (relative)")
        rows.append(row)
    numpy_row = rows[0]
    print(f"{'variant':16s}{'CPU/round s':>13s}{'wall/round s':>14s}{'CPU / numpy':>13s}{'wall / numpy':>14s}"
          f"{'A@w s':>9s}{'A.T@p s':>9s}{'peak RSS GB':>13s}{'RSS / A':>9s}{'(peak - imports) / A':>22s}{'w vs numpy':>12s}")
    for row in rows:
        print(f"{row['variant']:16s}{row['cpu_per_round']:13.3f}{row['wall_per_round']:14.3f}"
              f"{row['cpu_per_round'] / numpy_row['cpu_per_round']:13.2f}"
              f"{row['wall_per_round'] / numpy_row['wall_per_round']:14.2f}{row['A @ w']:9.3f}{row['A.T @ p']:9.3f}"
              f"{row['peak_rss'] / 1e9:13.2f}{row['peak_rss'] / size:9.2f}{(row['peak_rss'] - row['base_rss']) / size:22.2f}"
              f"{row['w error']:12.1e}")
    for kind in ("threads", "cluster"):
        one, two = (next(row for row in rows if row["variant"] == f"{kind} {passes}-pass") for passes in (1, 2))
        print(f"{kind}: one-pass / two-pass round, wall {one['wall_per_round'] / two['wall_per_round']:.2f}, "
              f"driver CPU {one['cpu_per_round'] / two['cpu_per_round']:.2f}")
    print("(cluster: the driver's CPU only; the two worker processes do the products. RSS: the driver process.)")
    task_overhead()
    return rows


def task_overhead(blocks: int = 16, repeats: int = 20) -> dict:
    """The fixed cost of one product: ``A @ w`` over ``blocks`` tiny blocks (10 x 10), median wall, per task."""
    import dask.array as da
    from distributed import Client, LocalCluster

    if ROOT not in sys.path:  # run from a source checkout, like the children
        sys.path.insert(0, ROOT)
    from gamedyn.arrays import RowBlockedOperator

    def median_product(operator):
        w, times = np.ones(10), []
        operator @ w
        for _ in range(repeats):
            start = time.perf_counter()
            operator @ w
            times.append(time.perf_counter() - start)
        return statistics.median(times) / blocks

    x = da.from_array(np.random.default_rng(0).random((10 * blocks, 10)), chunks=(10, 10))
    costs = {"threads": median_product(RowBlockedOperator.from_dask_array(x, client="threads"))}
    for processes in (False, True):
        options = {"env": THREAD_VARIABLES} if processes else {}  # worker processes: their BLAS threads too
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=processes, dashboard_address=":0",
                          **options) as cluster, Client(cluster) as client:
            costs[f"LocalCluster(processes={processes})"] = median_product(RowBlockedOperator.from_dask_array(x, client=client))
    print(f"fixed cost per task ({blocks} tiny blocks, median of {repeats} products): "
          + ", ".join(f"{name} {1e3 * cost:.2f} ms" for name, cost in costs.items()))
    return costs


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 2e5 (160 MB) instead of 2e6 (1.6 GB)")
    parser.add_argument("--n", type=int)
    parser.add_argument("--d", type=int, default=100)
    parser.add_argument("--chunks", type=int)
    parser.add_argument("--rounds", type=int)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--dtype", choices=("float64", "float32"), default="float64")
    parser.add_argument("--where", default="/tmp/gamedyn-dask-bench", help="where the chunks are written (and deleted)")
    parser.add_argument("--keep", action="store_true", help="keep the chunks")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(_child(args.child, args.folder, args.rounds)))
        return
    run(args.quick, n=args.n, d=args.d, chunks=args.chunks, rounds=args.rounds, repeats=args.repeats,
        dtype=args.dtype, where=args.where, keep=args.keep)


if __name__ == "__main__":
    main()
