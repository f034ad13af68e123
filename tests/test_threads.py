"""BLAS threads: no vector (level-1) call of a round can wake OpenBLAS's thread pool.

OpenBLAS runs axpy and dot on its threads above 10,000 numbers (scal above 2^20): on a busy machine
a threaded vector call waits for a core (scipy's daxpy on 18,000 numbers: 8 ms instead of 4 us; a
batched one-vs-rest game of K = 10 on the digits, whose running sums hold 17,970 numbers, 15x
slower than ten separate games). gamedyn's hot path routes every such call through
:mod:`gamedyn.core.kernels` (``axpy``, ``dot``, ``inner``, ``scal``, ``asum``), which calls BLAS on
blocks of at most ``LEVEL1_BLOCK`` numbers.
"""

import ast
import os
import pathlib
import time

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.linalg.blas import dasum, daxpy, ddot, dscal

from gamedyn.core.kernels import LEVEL1_BLOCK, asum, axpy, dot, inner, scal

ROOT = pathlib.Path(__file__).resolve().parent.parent
OPENBLAS_THRESHOLD = 10_000  # axpy and dot: one thread up to this many numbers (OpenBLAS interface/axpy.c)


def test_the_block_is_below_openblas_threshold():
    assert 0 < LEVEL1_BLOCK <= OPENBLAS_THRESHOLD


# ----------------------------------------------------------------------------- the kernels' values

sizes = st.sampled_from([1, 7, 100, LEVEL1_BLOCK - 1, LEVEL1_BLOCK, LEVEL1_BLOCK + 1, 18_000,
                         3 * LEVEL1_BLOCK, 40_001])


@settings(max_examples=40, deadline=None)
@given(n=sizes, seed=st.integers(0, 2**32 - 1), a=st.floats(-1e3, 1e3, allow_nan=False))
def test_axpy_and_scal_equal_one_blas_call_bit_for_bit(n, seed, a):
    rng = np.random.default_rng(seed)
    x, y = rng.normal(size=n), rng.normal(size=n)
    expected, ours = y.copy(), y.copy()
    daxpy(x, expected, a=a)  # one call (the old path), in place
    assert axpy(x, ours, a) is ours  # in place, the array itself returned
    # Bit for bit, but for one thing: OpenBLAS's kernels compute y_i + a x_i fused (one rounding) in their
    # vector body and unfused (two) in the scalar tail, and a threaded call (n > 10,000, more than one
    # BLAS thread) has a tail per thread. The blocks then have their tails elsewhere (seen on an AMD EPYC
    # with 2 threads: 5 of 18,000 entries 1 ulp apart). Every entry of both is y_i + a x_i rounded
    # once (exactly, checked in rationals) or twice; anything else (a wrong a, sign or index) fails.
    differ = np.flatnonzero(ours != expected)
    for i in differ:
        unfused = float(y[i] + a * x[i])
        fused = float(Fraction(float(a)) * Fraction(float(x[i])) + Fraction(float(y[i])))  # correctly rounded
        assert ours[i] in (unfused, fused) and expected[i] in (unfused, fused), (i, ours[i], expected[i])
    assert differ.size == 0 or n > OPENBLAS_THRESHOLD  # one thread below the threshold: bit for bit
    expected, ours = y.copy(), y.copy()
    dscal(a, expected)
    assert scal(a, ours) is ours
    np.testing.assert_array_equal(ours, expected)


@settings(max_examples=40, deadline=None)
@given(n=sizes, seed=st.integers(0, 2**32 - 1))
def test_dot_inner_and_asum_equal_one_call_up_to_the_block_and_sum_it_beyond(n, seed):
    rng = np.random.default_rng(seed)
    x, y = rng.normal(size=n), rng.normal(size=n)
    if n <= LEVEL1_BLOCK:  # one BLAS call: the old result, bit for bit
        assert dot(x, y) == ddot(x, y)
        assert inner(x, y) == float(x @ y)
        assert asum(x) == dasum(x)
        return
    # beyond: the blocks' sums in order; the error bound of recursive summation (Higham, eq. 3.5)
    exact_dot = float(np.sum((x.astype(np.longdouble) * y.astype(np.longdouble))))
    bound = n * np.finfo(np.float64).eps * float(np.sum(np.abs(x * y)))
    assert abs(dot(x, y) - exact_dot) <= bound and abs(inner(x, y) - exact_dot) <= bound
    blocks = [ddot(x[s:s + LEVEL1_BLOCK], y[s:s + LEVEL1_BLOCK]) for s in range(0, n, LEVEL1_BLOCK)]
    assert dot(x, y) == sum(blocks, 0.0)  # exactly the blocks, added left to right
    assert abs(asum(x) - float(np.sum(np.abs(x).astype(np.longdouble)))) <= n * np.finfo(np.float64).eps * asum(x)


def test_kernels_convert_strided_and_float32_inputs_once():
    x = np.arange(2 * 20_000, dtype=np.float64)[::2] / 7.0  # strided
    y = np.linspace(-1.0, 1.0, 20_000)
    assert dot(x, y) == pytest.approx(float(x @ y), rel=1e-14)
    assert dot(x.astype(np.float32), y) == pytest.approx(float(x.astype(np.float32).astype(np.float64) @ y), rel=1e-14)
    assert asum(-x) == pytest.approx(float(np.sum(x)), rel=1e-14)
    target, expected = y.copy(), y.copy()
    axpy(x, target, 0.5)
    daxpy(np.ascontiguousarray(x), expected, a=0.5)
    np.testing.assert_array_equal(target, expected)


def test_no_blas_call_above_the_block():
    calls = []

    def recording(function, n_at):  # n_at: the position of the optional n (after the arrays and a)
        def record(*args, **kwargs):
            vector = args[1] if function is dscal else args[0]
            calls.append(args[n_at] if len(args) > n_at else kwargs.get("n", len(vector)))
            return function(*args, **kwargs)
        return record

    x, y = np.ones(50_001), np.ones(50_001)
    axpy(x, y, 2.0, _daxpy=recording(daxpy, 2))
    dot(x, y, _ddot=recording(ddot, 2))
    scal(0.5, y, _dscal=recording(dscal, 2))
    asum(x, _dasum=recording(dasum, 1))
    assert calls and max(calls) <= LEVEL1_BLOCK and sum(calls) == 4 * 50_001
    assert float(y[0]) == 1.5 and float(y[-1]) == 1.5


# --------------------------------------------------------------------- every level-1 call goes here

LEVEL1 = {"daxpy", "ddot", "dscal", "dasum", "dnrm2", "dcopy", "dswap", "drot", "idamax",
          "saxpy", "sdot", "sscal", "sasum", "snrm2", "get_blas_funcs"}


def test_only_the_kernel_module_calls_scipy_blas_level_1():
    """No module but gamedyn/core/kernels.py imports a scipy BLAS level-1 routine (or scipy.linalg.blas)."""
    offenders = []
    for path in sorted([*ROOT.glob("gamedyn/**/*.py"), *ROOT.glob("recipes/**/*.py")]):
        if path == ROOT / "gamedyn" / "core" / "kernels.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.ImportFrom) and node.module in ("scipy.linalg.blas", "scipy.linalg"):
                names = {alias.name for alias in node.names}
                if node.module == "scipy.linalg.blas" or names & LEVEL1:
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
            elif isinstance(node, ast.Import) and any(alias.name == "scipy.linalg.blas" for alias in node.names):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
            elif isinstance(node, ast.Attribute) and node.attr in LEVEL1 and isinstance(node.value, ast.Attribute) \
                    and node.value.attr == "blas":
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not offenders, f"route these through gamedyn.core.kernels (axpy, dot, inner, scal, asum): {offenders}"


# ------------------------------------------------------------------------- OpenBLAS's threads, measured

def _thread_ticks() -> int:
    """CPU ticks (user + system) of every thread of this process but the main one (Linux /proc)."""
    main, total = os.getpid(), 0
    for tid in os.listdir(f"/proc/{main}/task"):
        if int(tid) == main:
            continue
        try:
            with open(f"/proc/{main}/task/{tid}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:  # the thread ended
            continue
        total += int(fields[11]) + int(fields[12])
    return total


def _ticks_during(function, seconds: float) -> int:
    time.sleep(0.5)  # OpenBLAS's threads stop spinning within a fraction of a second of their last job
    before, start = _thread_ticks(), time.perf_counter()
    while time.perf_counter() - start < seconds:
        function()
    return _thread_ticks() - before


@pytest.mark.skipif(not os.path.isdir("/proc/self/task") or (os.cpu_count() or 1) < 2,
                    reason="needs Linux /proc and 2 cores to watch OpenBLAS's threads")
def test_a_batched_game_above_the_threshold_never_wakes_the_blas_threads():
    threadpoolctl = pytest.importorskip("threadpoolctl")
    from gamedyn import recipes
    from gamedyn.arrays import one_vs_rest

    rng = np.random.default_rng(0)
    X = rng.normal(size=(1800, 3))  # small d: the products X @ W (1800 x 3 x 10) run on one thread
    X /= np.max(np.linalg.norm(X, axis=1))
    Y = np.sign(rng.normal(size=(1800, 10)))  # K = 10: running sums of n K = 18,000 numbers
    with threadpoolctl.threadpool_limits(limits=2, user_api="blas"):
        ours = _ticks_during(lambda: recipes.smooth_perceptron(one_vs_rest(X, Y), 30), 1.0)
        x, y = np.ones(18_000), np.zeros(18_000)
        theirs = _ticks_during(lambda: daxpy(x, y, a=1e-300), 1.0)  # the detector works: one call, 18,000
    if theirs < 5:
        pytest.skip(f"OpenBLAS did not thread daxpy on 18,000 numbers here ({theirs} ticks); nothing to watch")
    assert ours <= 1, f"the batched game's vector calls ran on BLAS threads ({ours} ticks; a threaded daxpy: {theirs})"



@pytest.mark.skipif(not os.path.isdir("/proc/self/task") or (os.cpu_count() or 1) < 2,
                    reason="needs Linux /proc and 2 cores to watch OpenBLAS's threads")
def test_a_small_estimator_fit_never_wakes_the_blas_threads():
    """The digits' one-vs-rest fit (1797 x 65, K = 10: products of 1.2e6 multiply-adds a round, at
    most gamedyn.sklearn.ONE_THREAD_WORK) runs its products on one BLAS thread, whatever the setting."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    pytest.importorskip("sklearn")
    import warnings

    from sklearn.datasets import load_digits

    from gamedyn.sklearn import ONE_THREAD_WORK, MarginClassifier

    X, y = load_digits(return_X_y=True)
    assert X.shape[0] * (X.shape[1] + 1) * 10 <= ONE_THREAD_WORK

    def fit():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # 40 rounds: not converged
            MarginClassifier(C=None, solver="smooth_perceptron", max_iter=40).fit(X / 16.0, y)

    with threadpoolctl.threadpool_limits(limits=2, user_api="blas"):
        ours = _ticks_during(fit, 1.0)
        limits_after = {pool["num_threads"] for pool in threadpoolctl.threadpool_info() if pool["user_api"] == "blas"}
        W, Z = np.ones((65, 10)), np.ones((1797, 65))
        theirs = _ticks_during(lambda: Z @ W, 1.0)  # the detector works: the same product, threaded
    if theirs < 5:
        pytest.skip(f"OpenBLAS did not thread a 1797 x 65 x 10 product here ({theirs} ticks); nothing to watch")
    assert ours <= 1, f"the fit's products ran on BLAS threads ({ours} ticks; the threaded product: {theirs})"
    assert limits_after == {2}  # the fit gave the user's setting back


# ------------------------------------------------------------------ issue 17: one BLAS thread for a run

@pytest.mark.skipif(not os.path.isdir("/proc/self/task") or (os.cpu_count() or 1) < 2,
                    reason="needs Linux /proc and 2 cores to watch OpenBLAS's threads")
def test_a_play_with_products_below_the_threshold_never_wakes_the_blas_threads():
    """A 1500 x 1000 game (1.5e6 < 2^21 multiply-adds a product) runs on one BLAS thread during play,
    whatever the user's setting, and gets the setting back afterwards."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    from gamedyn import OFTRL, Bilinear, Entropy, SquaredEuclidean, play
    from gamedyn.core.kernels import SMALL_PRODUCT

    rng = np.random.default_rng(1)
    A = rng.uniform(-1, 1, size=(1500, 1000)) / 40
    assert A.size < SMALL_PRODUCT

    def run():
        play(Bilinear(A), OFTRL(SquaredEuclidean(radius=1.0), 0.5), OFTRL(Entropy(), 0.5), 20)

    with threadpoolctl.threadpool_limits(limits=2, user_api="blas"):
        ours = _ticks_during(run, 1.0)
        after = {pool["num_threads"] for pool in threadpoolctl.threadpool_info() if pool["user_api"] == "blas"}
        w = np.ones(1000)
        theirs = _ticks_during(lambda: A @ w, 1.0)  # the detector works: the same product, threaded
    if theirs < 5:
        pytest.skip(f"OpenBLAS did not thread a 1500 x 1000 product here ({theirs} ticks); nothing to watch")
    assert ours <= 1, f"play's products ran on BLAS threads ({ours} ticks; the threaded product: {theirs})"
    assert after == {2}


def test_one_thread_runs_make_one_entrywise_call_with_the_same_bits(monkeypatch):
    """While a run holds BLAS to one thread, axpy over (n, K) sums is one daxpy (not n K / LEVEL1_BLOCK),
    and the result is the blocked one bit for bit (axpy acts entry by entry)."""
    pytest.importorskip("threadpoolctl")
    from gamedyn.core import kernels

    x, y = np.random.default_rng(2).normal(size=(2, 50_001))
    blocked = axpy(x, y.copy(), 0.37)
    calls = []
    real = kernels._daxpy
    monkeypatch.setattr(kernels, "axpy", kernels.axpy)

    def counting(*args):
        calls.append(args[2] if len(args) > 2 else len(args[1]))
        return real(*args)

    with kernels.single_blas_thread(limit=True):
        single = kernels.axpy(x, y.copy(), 0.37, counting)
    assert np.array_equal(single, blocked) and calls == [50_001]
    after = kernels.axpy(x, y.copy(), 0.37, counting)  # the blocks are back after the run
    assert np.array_equal(after, blocked) and max(calls[1:]) <= LEVEL1_BLOCK


def test_contexts_left_out_of_order_give_the_block_back():
    """Runs in threads (solve_efg's two lanes) enter and leave single_blas_thread in any order: once every context
    has left, the entry-by-entry kernels are blocked again (a saved-and-restored value leaked the lifted block)."""
    pytest.importorskip("threadpoolctl")
    from gamedyn.core import kernels

    first, second = kernels.single_blas_thread(limit=True), kernels.single_blas_thread(limit=True)
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)  # the first one leaves first: not last in, first out
    second.__exit__(None, None, None)
    calls = []
    kernels.axpy(np.ones(50_001), np.ones(50_001), 1.0, lambda *args: calls.append(args[2]))
    assert calls and max(calls) <= LEVEL1_BLOCK
