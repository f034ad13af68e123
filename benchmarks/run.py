"""Benchmarks: every ratio of issue 8's acceptance list, measured side by side in one run.

Run: ``python benchmarks/run.py`` (a few minutes on 2 cores) or ``python benchmarks/run.py --quick``
(a smoke test, seconds). Every figure is a ratio of two measurements taken in this one run, so it
does not depend on the machine's absolute speed. Method: the variants of one comparison are run
**interleaved** (A, B, A, B, ...), each ``--repeats`` times (default 7); a ratio is the ratio of the
**medians** (per iteration: the median of each repeat's slope between its runs of T / 16 and T rounds), given for CPU time (``time.process_time``) and wall time (``time.perf_counter``). The
BLAS thread count is printed first (set ``OPENBLAS_NUM_THREADS=1`` / ``OMP_NUM_THREADS=1`` to pin it).

Sections (targets of the issue in brackets):

1. recipe / original loop per iteration, same output [<= 1.3 at 100 x 10 and 500 x 20; <= 1.05 at 20000 x 500]:
   the slope between runs of T / 16 and T rounds (fixed costs such as validation and the final
   duality gap drop out; the short run's own noise is a sixteenth of the long one's, where a slope
   between T and 2T would double the noise of one run), with the ratio of whole runs beside it; the
   small sizes run thousands of rounds, so that a run lasts a few tenths of a second and a burst of
   load on the shared machine averages out, and take medians of 2 x repeats + 1 (15 by default);
2. recipe per iteration / (the products it needs: one A @ w + one A.T @ p, twice that for mirror prox), at 20000 x 500 [<= 1.15];
3. ``gamedyn.play`` on a 3 x 3 matrix game, both players OFTRL with entropy, / a hand-written numpy loop [<= 2];
4. float32 A: tracemalloc peak of a recipe run beyond A, / A.nbytes [<= 0.3];
5. batched K = 10 one-vs-rest NAG per game / one separate run [<= 0.5];
6. memory in T: peak of ``play`` at T = 4000 / at T = 500 [~1: O(n + d) in T].

8. one read of A (issue 35): recipe round / one ``A @ x`` for the margin recipes at 20000 x 500 and
   100000 x 100, float64 and float32 dense and CSR (density 1 %) [<= 1.1 with the numba extra], the
   numpy path's figure beside it (the compiled kernels switched off, ``gamedyn.arrays.compiled.ENABLED``);
   mirror prox needs two reads a round (its hints' products), so its round is divided by two reads; the
   compiled round with 2 threads (``gamedyn.arrays.compiled.THREADS``) for the smooth perceptron;

7. with ``--dask``: the out-of-core benchmark, ``benchmarks/dask_bench.py``'s ``run(quick=...)``
   (dask operator / numpy per round at n = 2e6, d = 100, driver peak RSS from ``.npy`` chunks).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import pathlib
import statistics
import sys
import time
import tracemalloc

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))  # run from a source checkout

import numpy as np  # noqa: E402

from gamedyn import Bilinear, Entropy, FTRLPlus, OFTL, OFTRL, RegularizedBilinear, play, recipes
from gamedyn.games.margin import original  # noqa: E402
from gamedyn.io import make_separable, signed_rows  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent


def blas_threads() -> str:
    """The BLAS libraries and their thread counts (threadpoolctl), or the environment if it is missing."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        keys = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
        return ", ".join(f"{key}={os.environ.get(key, 'unset')}" for key in keys) + " (threadpoolctl not installed)"
    pools = threadpool_info()
    return ", ".join(f"{pool['internal_api']} {pool['num_threads']} thread(s)" for pool in pools) or "no BLAS pool found"


def interleaved_samples(functions: dict, repeats: int) -> dict:
    """Run the functions interleaved ``repeats`` times; name -> (CPU s list, wall s list), in order."""
    cpu = {name: [] for name in functions}
    wall = {name: [] for name in functions}
    for function in functions.values():  # warm up (imports, caches, first-touch of pages)
        function()
    for _ in range(repeats):
        for name, function in functions.items():
            cpu_start, wall_start = time.process_time(), time.perf_counter()
            function()
            wall[name].append(time.perf_counter() - wall_start)
            cpu[name].append(time.process_time() - cpu_start)
    return {name: (cpu[name], wall[name]) for name in functions}


def interleaved(functions: dict, repeats: int) -> dict:
    """Run the functions interleaved ``repeats`` times; name -> (median CPU s, median wall s)."""
    samples = interleaved_samples(functions, repeats)
    return {name: (statistics.median(cpu), statistics.median(wall)) for name, (cpu, wall) in samples.items()}


def ratio_line(label: str, numerator, denominator, target: str) -> str:
    cpu, wall = numerator[0] / denominator[0], numerator[1] / denominator[1]
    return f"  {label:44s} cpu {cpu:6.2f}   wall {wall:6.2f}   [{target}]"


def data(n: int, d: int, dtype=np.float64, seed: int = 0):
    return signed_rows(*make_separable(n, d, 0.05, seed=seed)).astype(dtype)


PAIRS = {  # recipe name -> (recipe call, original call)
    "smooth_perceptron": (lambda A, T: recipes.smooth_perceptron(A, T), lambda A, T: original.smooth_perceptron(A, T)),
    "accelerated_perceptron": (lambda A, T: recipes.accelerated_perceptron(A, T),
                               lambda A, T: original.accelerated_perceptron(A, T)),
    "accelerated_perceptron ji": (lambda A, T: recipes.accelerated_perceptron(A, T, theta="ji"),
                                  lambda A, T: original.accelerated_perceptron(A, T, theta="ji")),
    "mirror_prox_perceptron": (lambda A, T: recipes.mirror_prox_perceptron(A, T), lambda A, T: original.mirror_prox(A, T)),
    "nag_margin": (lambda A, T: recipes.nag_margin(A, T), lambda A, T: original.nag(A, T)),
}
PRODUCTS_PER_ROUND = {"mirror_prox_perceptron": 2}  # pairs (A @ w, A.T @ p) per round; 1 otherwise


def short_run(T: int) -> int:
    """The short run beside a run of T rounds: its time is the fixed costs plus T / 16 rounds."""
    return max(1, T // 16)


def per_iteration(samples: dict, name: str, T: int):
    """Per-iteration cost (CPU, wall): the slope between the runs of T / 16 and T rounds, so the
    fixed costs (validation, the initial losses, the final regrets and duality gap) drop out. One
    slope per repeat, from runs taken next to each other, and the median of those slopes."""
    short = short_run(T)
    (cpu_1, wall_1), (cpu_2, wall_2) = samples[(name, short)], samples[(name, T)]
    return (statistics.median((b - a) / (T - short) for a, b in zip(cpu_1, cpu_2)),
            statistics.median((b - a) / (T - short) for a, b in zip(wall_1, wall_2)))


def section_recipes(sizes, repeats):
    print("1. recipe / original loop, per iteration (slope between T / 16 and T rounds; in brackets: whole runs of T)")
    for n, d, T in sizes:
        A = data(n, d)
        small = n * d < 10**6
        size_repeats = 2 * repeats + 1 if small else repeats  # runs of tenths of a second: cheap to repeat
        print(f" n x d = {n} x {d}, T = {T}, medians of {size_repeats}")
        target = "<= 1.3" if small else "<= 1.05"
        for name, (recipe, reference) in PAIRS.items():
            functions = {}
            for rounds in (short_run(T), T):
                functions[("recipe", rounds)] = lambda rounds=rounds: recipe(A, rounds)
                functions[("original", rounds)] = lambda rounds=rounds: reference(A, rounds)
            samples = interleaved_samples(functions, size_repeats)
            whole = statistics.median(samples[("recipe", T)][0]) / statistics.median(samples[("original", T)][0])
            print(ratio_line(name, per_iteration(samples, "recipe", T), per_iteration(samples, "original", T), target)
                  + f"  (whole runs, cpu {whole:.2f})")


def products(A, T, pairs):
    rng = np.random.default_rng(0)
    w, p = rng.normal(size=A.shape[1]), rng.dirichlet(np.ones(A.shape[0]))
    for _ in range(T * pairs):
        A @ w
        A.T @ p


def section_products(n, d, T, repeats):
    print(f"2. recipe per iteration / (the products it needs per round) at n x d = {n} x {d}, T = {T}")
    A = data(n, d)
    for name, (recipe, _) in PAIRS.items():
        pairs = PRODUCTS_PER_ROUND.get(name, 1)
        samples = interleaved_samples({("recipe", short_run(T)): lambda: recipe(A, short_run(T)),
                                       ("recipe", T): lambda: recipe(A, T), "products": lambda: products(A, T, pairs)},
                                      repeats)
        per_round = (statistics.median(samples["products"][0]) / T, statistics.median(samples["products"][1]) / T)
        print(ratio_line(f"{name} ({2 * pairs} products/round)", per_iteration(samples, "recipe", T), per_round, "<= 1.15"))


def hand_loop_matrix_game(M, T, eta):
    """OFTRL with entropy for both players of max_w min_p p^T M w, written out by hand (Protocol 1).

    w_t = softmax(log u - eta (H_{t-1} + h_{t-1})), p_t = softmax(log u - eta (L_{t-1} + l_{t-1})),
    then l_t = M w_t, h_t = -M^T p_t, with h_0, l_0 from the uniform initial points. Returns the averages.
    """
    n, d = M.shape
    log_w0, log_p0 = np.full(d, -np.log(d)), np.full(n, -np.log(n))
    w_sum, p_sum = np.zeros(d), np.zeros(n)
    H, L = np.zeros(d), np.zeros(n)
    h, l = -(M.T @ np.full(n, 1.0 / n)), M @ np.full(d, 1.0 / d)
    for _ in range(T):
        z = log_w0 - eta * (H + h)
        w = np.exp(z - z.max())
        w /= w.sum()
        z = log_p0 - eta * (L + l)
        p = np.exp(z - z.max())
        p /= p.sum()
        l, h = M @ w, -(M.T @ p)
        H += h
        L += l
        w_sum += w
        p_sum += p
    return w_sum / T, p_sum / T


def section_matrix_game(T, repeats):
    print(f"3. gamedyn.play on a 3 x 3 matrix game (OFTRL-entropy both) / hand-written numpy loop, T = {T}")
    M = np.array([[0.0, 1.0, -1.0], [-1.0, 0.0, 1.0], [1.0, -1.0, 0.2]])
    eta = 0.1
    game = lambda: play(Bilinear(M), OFTRL(Entropy(), eta), OFTRL(Entropy(), eta), T)  # noqa: E731
    result, (w_bar, p_bar) = game(), hand_loop_matrix_game(M, T, eta)
    difference = max(np.max(np.abs(result.w_average - w_bar)), np.max(np.abs(result.p_average - p_bar)))
    times = interleaved({"play": game, "hand": lambda: hand_loop_matrix_game(M, T, eta)}, repeats)
    print(ratio_line(f"play / hand loop (same averages to {difference:.0e})", times["play"], times["hand"], "<= 2"))


def section_float32(n, d, T):
    print(f"4. float32 A ({n} x {d}, {n * d * 4 / 2**20:.0f} MiB): tracemalloc peak of a recipe run beyond A / A.nbytes")
    A = data(n, d, np.float32)
    for name in ("smooth_perceptron", "mirror_prox_perceptron", "nag_margin"):
        recipe = PAIRS[name][0]
        recipe(A, 2)  # warm: a first call's numba compilation (the compiled extra) allocates, traced, outside the run
        tracemalloc.start()
        recipe(A, T)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"  {name:44s} {peak / A.nbytes:6.3f}   [<= 0.3]")


def section_batched(n, d, K, T, repeats):
    import gamedyn

    print(f"5. batched one-vs-rest NAG, K = {K} games at n x d = {n} x {d}, T = {T}: per game / one separate run")
    if not hasattr(gamedyn, "one_vs_rest"):
        print("  (gamedyn.one_vs_rest is not available on this branch)")
        return
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, d)) / np.sqrt(d)
    X /= np.max(np.linalg.norm(X, axis=1))  # the theorems' ||x_i|| <= 1, which the recipes check
    Y = np.where(rng.normal(size=(n, K)) + X[:, :K] * 3 > 0, 1.0, -1.0)
    batch = lambda: recipes.nag_margin(gamedyn.one_vs_rest(X, Y), T)  # noqa: E731
    single_A = signed_rows(X, Y[:, 0])
    times = interleaved({"batched": batch, "separate": lambda: recipes.nag_margin(single_A, T)}, repeats)
    per_game = (times["batched"][0] / K, times["batched"][1] / K)
    print(ratio_line("batched per game / separate run", per_game, times["separate"], "<= 0.5"))


def section_memory_in_T():
    print("6. memory in T: peak of play at T = 4000 / at T = 500")
    A = data(300, 30)
    peaks = []
    for T in (500, 4000):
        tracemalloc.start()
        play(RegularizedBilinear(A), OFTL(), FTRLPlus(Entropy(), 0.25), T, weights="linear")
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    print(f"  T = 500: {peaks[0] / 1024:.0f} KiB, T = 4000: {peaks[1] / 1024:.0f} KiB, ratio {peaks[1] / peaks[0]:.2f}   [~1]")


ONE_READ_RECIPES = {  # name -> (recipe call, reads of A a round needs)
    "smooth_perceptron": (lambda A, T: recipes.smooth_perceptron(A, T), 1),
    "accelerated_perceptron": (lambda A, T: recipes.accelerated_perceptron(A, T), 1),
    "accelerated_perceptron ji": (lambda A, T: recipes.accelerated_perceptron(A, T, theta="ji"), 1),
    "nag_margin": (lambda A, T: recipes.nag_margin(A, T), 1),
    "pnorm_perceptron p=2": (lambda A, T: recipes.pnorm_perceptron(A, T, p=2), 1),
    "mirror_prox_perceptron": (lambda A, T: recipes.mirror_prox_perceptron(A, T), 2),
}


def sparse_data(n: int, d: int, density: float = 0.01, seed: int = 0):
    """A CSR margin game: entries N(0, 1) at the given density, rows scaled to norm <= 1 (a row's sign is its label)."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    A = sp.random(n, d, density=density, format="csr", random_state=seed, data_rvs=lambda k: rng.normal(size=k))
    norms = np.sqrt(np.asarray(A.multiply(A).sum(axis=1)).ravel())
    return sp.csr_matrix(sp.diags(1.0 / np.maximum(norms, 1e-300)) @ A)


def _numpy_path(function):
    """``function`` with the compiled kernels switched off (the numpy one-pass kernels or the two-pass round)."""
    from gamedyn.arrays import compiled

    def run():
        before, compiled.ENABLED = compiled.ENABLED, False
        try:
            return function()
        finally:
            compiled.ENABLED = before

    return run


def _threads(function, threads: int):
    from gamedyn.arrays import compiled

    def run():
        before, compiled.THREADS = compiled.THREADS, threads
        try:
            return function()
        finally:
            compiled.THREADS = before

    return run


def section_one_read(sizes, T, repeats, kinds=("float64", "float32", "csr")):
    from gamedyn.arrays import compiled

    extra = "numba extra installed" if compiled.available() else "numba extra NOT installed: both columns are the numpy path"
    print(f"8. one read of A: recipe round / one A @ x (slope between T / 16 and T = {T} rounds), {extra}")
    print("   columns: with the extra (cpu, wall) [<= 1.1] | the numpy path (cpu, wall)")
    for n, d in sizes:
        for kind in kinds:
            A = sparse_data(n, d) if kind == "csr" else data(n, d, np.float64 if kind == "float64" else np.float32)
            x = np.random.default_rng(1).normal(size=d).astype(np.float64 if kind == "csr" else A.dtype)
            print(f" {n} x {d} {kind}" + (f" (nnz {A.nnz})" if kind == "csr" else f" ({A.nbytes / 2**20:.0f} MiB)"))

            def reads(A=A, x=x):
                for _ in range(T):
                    A @ x

            for name, (recipe, per_round) in ONE_READ_RECIPES.items():
                functions = {"A @ x": reads}
                for rounds in (short_run(T), T):
                    functions[("compiled", rounds)] = lambda rounds=rounds, recipe=recipe, A=A: recipe(A, rounds)
                    functions[("numpy", rounds)] = _numpy_path(lambda rounds=rounds, recipe=recipe, A=A: recipe(A, rounds))
                    if name == "smooth_perceptron" and kind != "csr":
                        functions[("2 threads", rounds)] = _threads(lambda rounds=rounds, recipe=recipe, A=A: recipe(A, rounds), 2)
                samples = interleaved_samples(functions, repeats)
                read = tuple(statistics.median(samples["A @ x"][k]) / T * per_round for k in (0, 1))
                fast, slow = per_iteration(samples, "compiled", T), per_iteration(samples, "numpy", T)
                line = (f"  {name:28s} cpu {fast[0] / read[0]:5.2f}  wall {fast[1] / read[1]:5.2f}  [<= 1.1]   "
                        f"| numpy cpu {slow[0] / read[0]:5.2f}  wall {slow[1] / read[1]:5.2f}")
                if ("2 threads", T) in samples:
                    both = per_iteration(samples, "2 threads", T)
                    line += f"   | 2 threads cpu {both[0] / read[0]:5.2f}  wall {both[1] / read[1]:5.2f}"
                print(line + ("  (per read: 2 reads a round)" if per_round == 2 else ""), flush=True)


def dask_benchmark(quick: bool):
    """The hook for the out-of-core benchmark (branch h8-dask): ``benchmarks/dask_bench.py::run``."""
    path = HERE / "dask_bench.py"
    if not path.exists():
        print("7. dask: benchmarks/dask_bench.py is not on this branch")
        return
    spec = importlib.util.spec_from_file_location("dask_bench", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    print("7. dask (benchmarks/dask_bench.py)")
    module.run(quick=quick)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes and 2 repeats: a smoke test")
    parser.add_argument("--repeats", type=int, default=None, help="interleaved repetitions (default 7; 2 with --quick)")
    parser.add_argument("--dask", action="store_true", help="also run benchmarks/dask_bench.py (needs gamedyn[dask])")
    parser.add_argument("--only", choices=("one-read",), default=None, help="run only this section")
    parser.add_argument("--kinds", nargs="+", choices=("float64", "float32", "csr"), default=("float64", "float32", "csr"),
                        help="with --only one-read: only these kinds of A (default all three)")
    args = parser.parse_args(argv)
    repeats = args.repeats or (2 if args.quick else 7)
    print(f"BLAS: {blas_threads()}; numpy {np.__version__}; {os.cpu_count()} CPUs; "
          f"medians of {repeats} interleaved repeats; ratios of CPU and of wall time")
    if args.only == "one-read":
        section_one_read(((2000, 500),) if args.quick else ((20000, 500), (100000, 100)), 8 if args.quick else 32,
                         repeats, kinds=tuple(args.kinds))
        return
    if args.quick:
        section_recipes(((100, 10, 200), (500, 20, 100)), repeats)
        section_products(2000, 50, 10, repeats)
        section_matrix_game(2000, repeats)
        section_float32(20000, 100, 10)
        section_batched(2000, 50, 10, 10, repeats)
        section_one_read(((2000, 500),), 8, repeats)
    else:
        section_recipes(((100, 10, 16000), (500, 20, 8000), (20000, 500, 96)), repeats)
        section_products(20000, 500, 96, repeats)
        section_matrix_game(20000, repeats)
        section_float32(100000, 100, 20)
        section_batched(20000, 500, 10, 20, repeats)
    section_memory_in_T()
    if not args.quick:
        section_one_read(((20000, 500), (100000, 100)), 32, repeats)
    if args.dask:
        dask_benchmark(args.quick)


if __name__ == "__main__":
    main()
