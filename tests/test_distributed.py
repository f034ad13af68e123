"""Out-of-core and distributed A (gamedyn.arrays.distributed): every recipe equals its numpy run to 1e-12.

The operator splits A into row blocks and computes A w = [A_k w]_k and A^T p = sum_k A_k^T p_k as one
task per block; the sums differ from numpy's only in the order of additions, so every recipe's
outputs agree with the in-memory run to rounding (asserted at 1e-12 relative).
"""

import numpy as np
import pytest

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")

from hypothesis import given, settings, strategies as st  # noqa: E402

from gamedyn import Bilinear, RegularizedBilinear, recipes  # noqa: E402
from gamedyn.io import make_separable, signed_rows  # noqa: E402
from gamedyn.arrays import RowBlockedOperator
from gamedyn.arrays.distributed import npy_folder_layout  # noqa: E402
from same_game import TOLERANCE, assert_same_game, relative_error  # noqa: E402

ROUNDS = 12

RECIPES = {
    "smooth_perceptron": lambda A: recipes.smooth_perceptron(A, ROUNDS),
    "accelerated_perceptron": lambda A: recipes.accelerated_perceptron(A, ROUNDS),
    "accelerated_perceptron_ji": lambda A: recipes.accelerated_perceptron(A, ROUNDS, theta="ji"),
    "mirror_prox_perceptron": lambda A: recipes.mirror_prox_perceptron(A, ROUNDS),
    "nag_margin": lambda A: recipes.nag_margin(A, ROUNDS),
    "pnorm_perceptron": lambda A: recipes.pnorm_perceptron(A, ROUNDS, p=3),
}


@pytest.fixture(scope="module")
def data():
    X, y = make_separable(90, 6, 0.05, seed=3)
    return np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.float64), np.asarray(signed_rows(X, y))


@pytest.fixture(scope="module")
def numpy_runs(data):
    A = data[2]
    return {name: run(A) for name, run in RECIPES.items()}


def assert_same_run(result, reference):
    assert relative_error(result.w, reference.w) <= TOLERANCE
    assert relative_error(result.p, reference.p) <= TOLERANCE
    assert result.game.rounds == reference.game.rounds


def save_chunks(folder, prefix, array, rows):
    for number, start in enumerate(range(0, array.shape[0], rows)):
        np.save(folder / f"{prefix}_{number:03d}.npy", array[start:start + rows])


# ------------------------------------------------------------------------------------- products


@settings(max_examples=25, deadline=None)
@given(cuts=st.lists(st.integers(1, 39), max_size=5, unique=True), seed=st.integers(0, 2**32 - 1))
def test_products_equal_dense_for_any_row_chunking(cuts, seed):
    """A w, A^T p and their matrix forms equal numpy's for every way of cutting the rows."""
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((40, 5))
    edges = [0, *sorted(cuts), 40]
    chunks = tuple(b - a for a, b in zip(edges, edges[1:]))
    operator = RowBlockedOperator.from_dask_array(da.from_array(A, chunks=(chunks, 2)), client="threads")
    w, p, W, P = rng.standard_normal(5), rng.standard_normal(40), rng.standard_normal((5, 3)), rng.standard_normal((40, 2))
    assert relative_error(operator @ w, A @ w) <= TOLERANCE
    assert relative_error(operator.T @ p, A.T @ p) <= TOLERANCE
    assert relative_error(operator @ W, A @ W) <= TOLERANCE
    assert relative_error(operator.T @ P, A.T @ P) <= TOLERANCE
    assert operator.shape == (40, 5) and len(operator.blocks) == len(chunks)


def test_float32_blocks_compute_in_float32(data):
    """A float32 block is not upcast: A_k w runs in float32 and matches float32 numpy to float32 rounding."""
    A32 = data[2].astype(np.float32)
    operator = RowBlockedOperator.from_dask_array(da.from_array(A32, chunks=(25, 6)), client="threads")
    w = np.linspace(-1, 1, 6)
    assert operator.dtype == np.float32
    assert relative_error(operator @ w, A32 @ w.astype(np.float32)) <= 1e-6
    assert relative_error(operator @ w, data[2] @ w) <= 1e-6


# -------------------------------------------------------------------------------- threaded runs


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_recipe_on_threaded_dask_array_equals_numpy(name, data, numpy_runs):
    A = da.from_array(data[2], chunks=(25, 4))  # column chunks are merged: one task per row block
    assert_same_run(RECIPES[name](A), numpy_runs[name])


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_recipe_on_npy_folder_equals_numpy(name, data, numpy_runs, tmp_path):
    X, y, _ = data
    save_chunks(tmp_path, "X", X, 32)
    np.save(tmp_path / "y.npy", (y + 1) / 2)  # 0/1 labels are read as -1/+1
    operator = RowBlockedOperator.from_npy_folder(tmp_path, client="threads")
    assert len(operator.blocks) == 3 and operator.row_factors[0] is not None
    assert_same_run(RECIPES[name](operator), numpy_runs[name])


@pytest.mark.parametrize("name", ["smooth_perceptron", "mirror_prox_perceptron"])
def test_recipe_on_signed_row_npy_folder_equals_numpy(name, data, numpy_runs, tmp_path):
    save_chunks(tmp_path, "A", data[2], 40)
    operator = RowBlockedOperator.from_npy_folder(tmp_path, client="threads")
    assert operator.row_factors == [None] * 3
    assert_same_run(RECIPES[name](operator), numpy_runs[name])


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_recipe_on_zarr_store_equals_numpy(name, data, numpy_runs, tmp_path):
    zarr = pytest.importorskip("zarr")
    store = str(tmp_path / "A.zarr")
    array = zarr.create_array(store=store, shape=data[2].shape, chunks=(20, 6), dtype="float64")
    array[:] = data[2]
    operator = RowBlockedOperator.from_zarr(store, client="threads")
    assert len(operator.blocks) == 5
    assert_same_run(RECIPES[name](operator), numpy_runs[name])


# ----------------------------------------------------------------------------- distributed runs


@pytest.fixture(scope="module")
def thread_cluster_client():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(processes=False, n_workers=2, threads_per_worker=1, dashboard_address=":0") as cluster:
        with distributed.Client(cluster, set_as_default=False) as client:
            yield client


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(RECIPES))
def test_recipe_on_local_cluster_equals_numpy(name, data, numpy_runs, thread_cluster_client):
    operator = RowBlockedOperator.from_dask_array(da.from_array(data[2], chunks=(30, 6)), client=thread_cluster_client)
    assert operator.scheduler.name == "distributed"
    result = RECIPES[name](operator)  # the one-pass round where it applies (see PASSES)
    assert_same_run(result, numpy_runs[name])
    assert_same_game(result.game, numpy_runs[name].game)


@pytest.mark.slow
def test_npy_folder_and_zarr_on_local_cluster_equal_numpy(data, numpy_runs, thread_cluster_client, tmp_path):
    zarr = pytest.importorskip("zarr")
    X, y, A = data
    save_chunks(tmp_path, "X", X, 45)
    np.save(tmp_path / "y.npy", y)
    store = str(tmp_path / "A.zarr")
    zarr.create_array(store=store, shape=A.shape, chunks=(30, 6), dtype="float64")[:] = A
    for operator in (RowBlockedOperator.from_npy_folder(tmp_path, client=thread_cluster_client),
                     RowBlockedOperator.from_zarr(store, client=thread_cluster_client)):
        assert_same_run(RECIPES["smooth_perceptron"](operator), numpy_runs["smooth_perceptron"])


@pytest.mark.slow
def test_current_client_of_a_process_cluster_is_used(data, numpy_runs):
    """Bilinear(dask array) under a current Client (2 worker processes) keeps its blocks there."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(processes=True, n_workers=2, threads_per_worker=1, dashboard_address=":0") as cluster:
        with distributed.Client(cluster):
            payoff = RegularizedBilinear(da.from_array(data[2], chunks=(45, 6)))
            assert payoff.A.scheduler.name == "distributed"
            assert_same_run(RECIPES["nag_margin"](da.from_array(data[2], chunks=(45, 6))), numpy_runs["nag_margin"])
            # the one-pass rounds on worker processes: the softmax's pieces (and a placed log p_0) merged on the driver
            for name in ("smooth_perceptron", "mirror_prox_perceptron"):
                result = RECIPES[name](da.from_array(data[2], chunks=(30, 6)))
                assert_same_run(result, numpy_runs[name])
                assert_same_game(result.game, numpy_runs[name].game)
            passes, game = _games()["FTRL+ follows, scheduled eta, p_0 given"]
            assert_same_game(game(RegularizedBilinear(da.from_array(data[2], chunks=(30, 6)))),
                             game(RegularizedBilinear(data[2])))


# ------------------------------------------------------------------------------ lost workers


@pytest.fixture(scope="module")
def process_cluster_client():
    """Two worker processes under nannies (a killed worker is restarted, under a new address)."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(processes=True, n_workers=2, threads_per_worker=1, dashboard_address=":0") as cluster:
        with distributed.Client(cluster, set_as_default=False) as client:
            yield client


def _kill_a_worker_at(client, round_, victim, victims):
    """A stop rule that SIGKILLs the worker process ``victim`` when round ``round_`` ends."""
    import os
    import signal

    def stop(state):
        if state.t == round_:
            victims.append(victim)
            os.kill(client.run(os.getpid)[victim], signal.SIGKILL)
        return False

    return stop


@pytest.mark.slow
@pytest.mark.parametrize("name", ["smooth_perceptron", "nag_margin"])
def test_npy_folder_run_survives_a_killed_worker(name, data, numpy_runs, process_cluster_client, tmp_path):
    """Regression: a worker killed mid-run ended a .npy-folder run with a raw FutureCancelledError (its
    scattered row factors were lost). The lost blocks are read again from the folder by the workers
    left, the row factors placed again from the driver: the run equals the numpy run to 1e-12."""
    X, y, _ = data
    save_chunks(tmp_path, "X", X, 30)
    np.save(tmp_path / "y.npy", y)
    process_cluster_client.wait_for_workers(2)  # a worker killed by an earlier test is back
    operator = RowBlockedOperator.from_npy_folder(tmp_path, client=process_cluster_client)
    victims = []
    run = getattr(recipes, name)
    victim = sorted(process_cluster_client.scheduler_info()["workers"])[0]  # reads chunk 0, holds its row factors
    result = run(operator, ROUNDS, stop=_kill_a_worker_at(process_cluster_client, 4, victim, victims))
    assert_same_run(result, numpy_runs[name])
    assert_same_game(result.game, numpy_runs[name].game)
    (lost, moved), *_ = operator.scheduler.recoveries  # the kill happened, and was recovered
    assert victims[0] in lost and moved and all(where != victims[0] for where in operator.scheduler.placement)


@pytest.mark.slow
def test_lost_blocks_that_cannot_be_recomputed_are_one_error_naming_them(data, process_cluster_client, capsys):
    """Blocks that were scattered (no graph, no file) die with their worker: one WorkerLostError naming
    the blocks and the worker, with the fix, instead of a raw FutureCancelledError."""
    from types import SimpleNamespace

    from gamedyn.arrays.distributed import WorkerLostError

    client = process_cluster_client
    client.wait_for_workers(2)
    holder = sorted(client.scheduler_info()["workers"])[0]
    A = data[2]
    blocks = [client.scatter(A[start:start + 30], workers=[holder], hash=False) for start in range(0, 90, 30)]
    operator = RowBlockedOperator(blocks, [30, 30, 30], 6, np.float64, client=client)
    _kill_a_worker_at(client, 0, holder, [])(SimpleNamespace(t=0))  # before any task could copy a block elsewhere
    with pytest.raises(WorkerLostError) as raised:
        recipes.smooth_perceptron(operator, ROUNDS)
    message = str(raised.value)
    from gamedyn.arrays.distributed import _ranges

    lost = [k for k, block in enumerate(blocks) if block.status != "finished"]  # those dask kept only there
    assert lost and f"block(s) {_ranges(lost)} lived only on lost dask worker(s) {holder}" in message, message
    assert "rebuild the operator" in message


# ----------------------------------------------------------------------------- memory and errors


def test_bilinear_keeps_a_dask_array_blocked(data):
    """Regression: Bilinear(dask_array) used to np.asarray the whole array (twice: A and A.T)."""
    payoff = Bilinear(da.from_array(data[2], chunks=(30, 6)))
    assert isinstance(payoff.A, RowBlockedOperator)
    assert len(payoff.A.blocks) == 3


def test_functions_that_read_entries_refuse_dask_arrays(data):
    from gamedyn import max_margin

    with pytest.raises(TypeError, match=r"dask array.*compute\(\)"):
        max_margin(da.from_array(data[2], chunks=(30, 6)))


def test_non_finite_chunk_is_named(data, tmp_path):
    A = data[2].copy()
    A[50, 2] = np.nan
    save_chunks(tmp_path, "A", A, 40)
    with pytest.raises(ValueError, match="NaN or infinite"):
        Bilinear(RowBlockedOperator.from_npy_folder(tmp_path, client="threads"))
    with pytest.raises(ValueError, match=r"NaN or infinite entries \(in .*A_001\.npy\)"):
        RowBlockedOperator.from_npy_folder(tmp_path, client="threads").largest_row_norm()


def test_largest_row_norm_is_one_pass_and_overflow_safe(tmp_path):
    A = np.array([[3e200, 4e200], [1.0, 0.0], [0.0, -2.0]])
    save_chunks(tmp_path, "A", A, 2)
    assert RowBlockedOperator.from_npy_folder(tmp_path, client="threads").largest_row_norm() == pytest.approx(5e200, rel=1e-15)


def test_folder_layout_errors(tmp_path):
    with pytest.raises(NotADirectoryError, match="not a folder"):
        npy_folder_layout(tmp_path / "missing")
    with pytest.raises(FileNotFoundError, match="no X_"):
        npy_folder_layout(tmp_path)
    np.save(tmp_path / "X_000.npy", np.ones((3, 2)))
    with pytest.raises(FileNotFoundError, match="y.npy"):
        npy_folder_layout(tmp_path)
    np.save(tmp_path / "y.npy", np.array([1.0, -1.0]))
    with pytest.raises(ValueError, match="2 labels but the X chunks have 3 rows"):
        RowBlockedOperator.from_npy_folder(tmp_path)
    np.save(tmp_path / "y.npy", np.array([1.0, -1.0, 1.0]))
    np.save(tmp_path / "X_001.npy", np.ones((3, 4)))
    with pytest.raises(ValueError, match="different numbers of columns"):
        RowBlockedOperator.from_npy_folder(tmp_path)
    np.save(tmp_path / "X_001.npy", np.ones((3, 2), dtype=np.int64))
    with pytest.raises(TypeError, match="float32 or all float64"):
        RowBlockedOperator.from_npy_folder(tmp_path)


def test_bad_client_is_named(data):
    with pytest.raises(ValueError, match="'threads'"):
        RowBlockedOperator.from_dask_array(da.from_array(data[2], chunks=(30, 6)), client="processes")


def _dask_bench():
    import importlib.util
    import os

    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks", "dask_bench.py")
    spec = importlib.util.spec_from_file_location("dask_bench", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_dask_bench_runs_float32_data_as_float32(tmp_path):
    """Regression: `python benchmarks/dask_bench.py --dtype float32` crashed. Its numpy baseline held the
    float32 rows as float64 (twice the memory), whose norms 1 + 2e-8 (the rows' float32 rounding) the
    float64 tolerance of check_unit_rows rightly refused; the baseline now keeps the chunks' dtype."""
    bench = _dask_bench()
    folder = str(tmp_path / "chunks")
    bench.write_chunks(folder, 3000, 40, 3, "float32")
    A = bench.in_memory(folder)
    assert A.dtype == np.float32 and A.shape == (3000, 40)
    reference = recipes.smooth_perceptron(A, 4).w  # the baseline's run (it raised ValueError here)
    w = recipes.smooth_perceptron(RowBlockedOperator.from_npy_folder(folder, client="threads"), 4).w
    assert np.max(np.abs(w - reference)) <= bench.W_TOLERANCE["float32"] * np.max(np.abs(reference))


# ------------------------------------------------------------------------------ command line


def run_cli_json(capsys, *argv):
    import json

    from gamedyn import cli

    assert cli.main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_cli_runs_a_recipe_on_an_npy_folder_like_on_the_npz_file(data, tmp_path, capsys):
    X, y, _ = data
    folder = tmp_path / "chunks"
    folder.mkdir()
    save_chunks(folder, "X", 3.0 * X, 40)
    np.save(folder / "y.npy", y)
    np.savez(tmp_path / "same.npz", X=3.0 * X, y=y)
    chunked = run_cli_json(capsys, "run", "mirror_prox_perceptron", "--data", str(folder), "--T", "15")
    in_memory = run_cli_json(capsys, "run", "mirror_prox_perceptron", "--data", str(tmp_path / "same.npz"), "--T", "15")
    assert chunked["data"]["n"] == X.shape[0] and chunked["max_margin"] is None
    assert chunked["data"]["scaled_by"] == pytest.approx(in_memory["data"]["scaled_by"], rel=1e-12)
    for step, reference in zip(chunked["steps"], in_memory["steps"], strict=True):
        for key in ("margin", "normalized_margin", "w_regret", "p_regret", "theorem2_bound"):
            assert step[key] == pytest.approx(reference[key], rel=1e-10, abs=1e-14), key


def test_cli_refuses_an_original_on_an_npy_folder(data, tmp_path, capsys):
    from gamedyn import cli

    save_chunks(tmp_path, "A", data[2], 40)
    assert cli.main(["run", "original.nag", "--data", str(tmp_path), "--T", "5"]) == 2
    assert "reads rows of A in memory" in capsys.readouterr().err


def test_svmlight_stays_sparse(data, tmp_path):
    """Regression: svmlight files were densified when read."""
    import scipy.sparse as sp

    datasets = pytest.importorskip("sklearn.datasets")
    from gamedyn.io.data_files import load_data_file

    X, y, A = data
    X = np.where(np.abs(X) < 0.3, 0.0, X)  # a sparse pattern
    datasets.dump_svmlight_file(X, y, str(tmp_path / "points.svm"))
    loaded = load_data_file(tmp_path / "points.svm")
    assert sp.issparse(loaded.A)
    signed = X * y[:, None]
    np.testing.assert_allclose(loaded.A.toarray(), signed / np.max(np.linalg.norm(signed, axis=1)), rtol=1e-12, atol=0)


def _resident(kind: str) -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith(f"{kind}:"))


@pytest.mark.skipif(not __import__("os").path.exists("/proc/self/status"), reason="reads /proc/self/status (Linux)")
def test_chunk_reads_keep_no_page_of_the_files_resident(tmp_path, monkeypatch):
    """Out of core: the chunks are read into one reused slab buffer, never mapped into the process.

    The control (numpy's memory map of the same files) shows that the measure sees mapped pages."""
    from gamedyn.arrays import distributed

    monkeypatch.setattr(distributed, "READ_BYTES", 4 * 2**20)  # 4 MB slabs over 4 x 20 MB chunks
    rng = np.random.default_rng(0)
    for number in range(4):
        np.save(tmp_path / f"A_{number:03d}.npy", rng.standard_normal((25_000, 100)))
    size = 4 * 25_000 * 100 * 8
    w, p = np.ones(100), np.ones(100_000)
    mapped = [np.load(tmp_path / f"A_{number:03d}.npy", mmap_mode="r") for number in range(4)]
    before = _resident("RssFile")
    expected = (sum(float(np.sum(chunk @ w)) for chunk in mapped),
                sum(chunk.T @ p[25_000 * k:25_000 * (k + 1)] for k, chunk in enumerate(mapped)))
    assert _resident("RssFile") - before > 0.8 * size  # the control: a memory map keeps every page it read
    del mapped
    operator = RowBlockedOperator.from_npy_folder(tmp_path, client="threads")
    operator @ w  # the first product allocates the slab buffers (one per thread of dask's pool)
    before = {kind: _resident(kind) for kind in ("RssFile", "RssAnon")}
    for _ in range(3):
        Aw, ATp = operator @ w, operator.T @ p
        products = operator.products(w, p)
    assert _resident("RssFile") - before["RssFile"] < 0.05 * size
    assert _resident("RssAnon") - before["RssAnon"] < 0.25 * size  # no chunk's worth of new memory per product
    assert float(np.sum(Aw)) == pytest.approx(expected[0], rel=1e-12)
    assert relative_error(ATp, expected[1]) <= TOLERANCE and relative_error(products[1], expected[1]) <= TOLERANCE


@settings(max_examples=25, deadline=None)
@given(rows=st.integers(1, 40), d=st.integers(1, 7), slab_rows=st.integers(1, 9), fortran=st.booleans(),
       single=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_chunks_read_in_slabs_equal_the_dense_products(tmp_path_factory, rows, d, slab_rows, fortran, single, seed):
    """C- and Fortran-ordered chunks, float32 or float64, read in slabs of any height: the products are numpy's."""
    from gamedyn.arrays import distributed

    folder = tmp_path_factory.mktemp("chunks")
    rng = np.random.default_rng(seed)
    dtype = np.float32 if single else np.float64
    A = rng.standard_normal((rows + 5, d)).astype(dtype)
    pieces = [A[:rows], A[rows:]]
    for number, piece in enumerate(pieces):
        np.save(folder / f"A_{number:03d}.npy", np.asfortranarray(piece) if fortran else np.ascontiguousarray(piece))
    saved = distributed.READ_BYTES
    distributed.READ_BYTES = slab_rows * d * A.itemsize
    try:
        operator = RowBlockedOperator.from_npy_folder(folder, client="threads")
        w, p = rng.standard_normal(d), rng.standard_normal(rows + 5)
        tolerance = 1e-5 if single else TOLERANCE
        Aw, ATp = operator.products(w, p)
        assert relative_error(operator @ w, A.astype(np.float64) @ w) <= tolerance
        assert relative_error(operator.T @ p, A.T.astype(np.float64) @ p) <= tolerance
        assert relative_error(Aw, A.astype(np.float64) @ w) <= tolerance
        assert relative_error(ATp, A.T.astype(np.float64) @ p) <= tolerance
        largest = float(np.max(np.linalg.norm(A.astype(np.float64), axis=1)))
        assert operator.largest_row_norm() == pytest.approx(largest, rel=1e-12)
    finally:
        distributed.READ_BYTES = saved


_TRUNCATE_MID_RUN = """
import os, sys
import numpy as np
from gamedyn import recipes
from gamedyn.arrays import distributed
from gamedyn.arrays.distributed import RowBlockedOperator

folder, when = sys.argv[1], sys.argv[2]
distributed.READ_BYTES = 100 * 20 * 8  # 100-row slabs: 10 per chunk
rng = np.random.default_rng(0)
A = rng.standard_normal((3000, 20))
A /= np.max(np.linalg.norm(A, axis=1))
for k in range(3):
    np.save(os.path.join(folder, f"A_{k:03d}.npy"), A[1000 * k:1000 * (k + 1)])
victim = os.path.join(folder, "A_001.npy")
operator = RowBlockedOperator.from_npy_folder(folder, client="threads")
try:
    if when == "between rounds":  # a round reads the chunk, the next finds it shorter
        recipes.smooth_perceptron(operator, 10, stop=lambda state: state.t == 3 and os.truncate(victim, 4000) or False)
    else:  # inside a task: the chunk shrinks between two of its slabs (after the task checked its size)
        slabs = operator.blocks[1].slabs()
        next(slabs)
        os.truncate(victim, 128 + 100 * 20 * 8 + 10)
        for _, _, rows in slabs:
            float(rows.sum())
except distributed.ChunkFileError as error:
    print("ERROR", error)
"""


@pytest.mark.parametrize("when", ["between rounds", "inside a task"])
def test_chunk_truncated_mid_run_is_an_error_naming_the_file_not_a_crash(tmp_path, when):
    """Regression: a memory-mapped chunk truncated mid-run killed the interpreter with SIGBUS."""
    import os
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    completed = subprocess.run([sys.executable, "-c", _TRUNCATE_MID_RUN, str(tmp_path), when], capture_output=True,
                               text=True, timeout=120, cwd=root, env=dict(os.environ, PYTHONPATH=root))
    assert completed.returncode == 0, (completed.returncode, completed.stderr[-2000:])  # -7: SIGBUS
    message = completed.stdout.strip()
    assert message.startswith("ERROR " + str(tmp_path / "A_001.npy") + ":"), message
    assert ("truncated" in message or "changed on disk" in message) and "start the run again" in message


def test_chunk_rewritten_after_the_operator_was_built_is_refused(tmp_path):
    """A chunk replaced by other data of the same size (a new modification time) would mix two data sets."""
    import os

    from gamedyn.arrays.distributed import ChunkFileError

    save_chunks(tmp_path, "A", np.eye(6), 3)
    operator = RowBlockedOperator.from_npy_folder(tmp_path, client="threads")
    operator @ np.ones(6)
    np.save(tmp_path / "A_001.npy", 2.0 * np.eye(6)[3:])
    status = os.stat(tmp_path / "A_001.npy")
    os.utime(tmp_path / "A_001.npy", ns=(status.st_atime_ns, status.st_mtime_ns + 10**9))  # a coarse clock
    with pytest.raises(ChunkFileError, match=r"A_001\.npy: the file changed on disk"):
        operator @ np.ones(6)


def _bad_chunk_folders():
    def text(folder):
        (folder / "A_001.npy").write_text("not numpy at all")

    def pickled(folder):
        np.save(folder / "A_001.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)

    def truncated(folder):
        np.save(folder / "A_001.npy", np.ones((100, 3)))
        __import__("os").truncate(folder / "A_001.npy", 300)

    def empty(folder):
        (folder / "A_001.npy").write_bytes(b"")

    def labels_garbage(folder):
        (folder / "y.npy").write_text("garbage")

    def labels_pickled(folder):
        np.save(folder / "y.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)

    def labels_two_d(folder):
        np.save(folder / "y.npy", np.ones((3, 2)))

    def labels_text(folder):
        np.save(folder / "y.npy", np.array(["a", "b"] * 3))

    return {"text chunk": ("A_001.npy", text), "pickled chunk": ("A_001.npy", pickled),
            "truncated chunk": ("A_001.npy", truncated), "empty chunk": ("A_001.npy", empty),
            "garbage y.npy": ("y.npy", labels_garbage), "pickled y.npy": ("y.npy", labels_pickled),
            "2-D y.npy": ("y.npy", labels_two_d), "text labels": ("y.npy", labels_text)}


@pytest.mark.parametrize("case", sorted(_bad_chunk_folders()))
def test_unreadable_chunks_and_labels_are_one_line_naming_the_file(tmp_path, capsys, case):
    """Regression: the .npy-folder loader passed numpy's raw messages (no file name; numpy's allow_pickle
    advice; 'mmap length is greater than file size'); a 2-D y.npy was silently flattened."""
    from gamedyn import cli
    from gamedyn.io.data_files import load_data_file

    name, damage = _bad_chunk_folders()[case]
    save_chunks(tmp_path, "X" if name == "y.npy" else "A", np.vstack([np.eye(3), np.eye(3)]), 3)
    if name == "y.npy":
        np.save(tmp_path / "y.npy", np.array([1.0, -1.0, 1.0, 1.0, -1.0, 1.0]))
    damage(tmp_path)
    with pytest.raises((ValueError, OSError)) as raised:
        load_data_file(tmp_path)
    message = str(raised.value)
    assert message.startswith(str(tmp_path / name) + ":"), message
    assert "allow_pickle" not in message and ("numpy.save" in message or "relabel" in message), message  # the fix
    assert cli.main(["run", "smooth_perceptron", "--data", str(tmp_path), "--T", "3"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and str(tmp_path / name) in err


# ------------------------------------------------------------------------- one pass per round
# gamedyn.engine.rounds: where the round allows it, A is read once per round (the follower's loss, its
# play and the leader's loss from one pass); every output equals the numpy run as before.


class CountingBlock:
    """An in-memory row block that counts how often a task reads it (one read = one pass over it)."""

    def __init__(self, rows, reads):
        self.rows, self.reads = rows, reads

    def slabs(self):
        self.reads[0] += 1
        yield 0, self.rows.shape[0], self.rows


def counting_operator(A, rows, one_pass=True):
    reads = [0]
    starts = range(0, A.shape[0], rows)
    blocks = [CountingBlock(A[start:start + rows], reads) for start in starts]
    operator = RowBlockedOperator(blocks, [block.rows.shape[0] for block in blocks], A.shape[1], A.dtype,
                                  client="threads", one_pass=one_pass)
    return operator, reads


# passes over A per round: (one-pass round, two-pass round). Mirror prox's hints add one product
# each (the losses at the opponent's secondary iterate): one pass of their own in the one-pass round
# (HintedProductsRound, issue 35), two products in the two-pass round. NAG moves p first against an FTRL+
# w-player, whose play needs all of A^T p_t before A w_t can start; the pass of A w_t also gives
# A^T p_{t+1} (p_{t+1} is the softmax of l_t = A w_t), so from round 2 on it reads A once a round.
PASSES = {"smooth_perceptron": (1, 2), "accelerated_perceptron": (1, 2), "accelerated_perceptron_ji": (1, 2),
          "pnorm_perceptron": (1, 2), "mirror_prox_perceptron": (2, 4), "nag_margin": (1, 2)}


@pytest.mark.parametrize("one_pass", [True, False])
@pytest.mark.parametrize("name", sorted(RECIPES))
def test_passes_over_A_per_round(name, one_pass, data, numpy_runs):
    """Counted reads of every block between the end of round 1 and the end of round T."""
    operator, reads = counting_operator(data[2], 30, one_pass)
    marks = []
    result = _recipe_with_stop(name, operator, lambda state: marks.append(reads[0]) or False)
    passes = (marks[-1] - marks[0]) / (len(marks) - 1) / len(operator.blocks)
    assert passes == PASSES[name][0 if one_pass else 1]
    assert_same_run(result, numpy_runs[name])


def _recipe_with_stop(name, A, stop):
    options = {"accelerated_perceptron_ji": {"theta": "ji"}, "pnorm_perceptron": {"p": 3}}.get(name, {})
    function = getattr(recipes, name.replace("_ji", ""))
    return function(A, ROUNDS, stop=stop, **options)


def _games():
    """play() configurations that take each one-pass round: (name, passes, call(payoff class, A))."""
    from gamedyn import FTRL, OFTL, OFTRL, Entropy, FTRLPlus, QNorm, StepSchedule, play

    n = 90
    centre = np.linspace(1.0, 3.0, n)
    centre /= centre.sum()
    return {
        # FTRL+ entropy follows: softmax in the blocks (one pass), a step schedule, a non-uniform p_0,
        # the p-player on its own weights and outputs on a third sequence
        "FTRL+ follows, scheduled eta, p_0 given": (1, lambda payoff: play(
            payoff, OFTL(), FTRLPlus(Entropy(), eta=lambda t: 0.5 / np.sqrt(t)), ROUNDS, weights="linear",
            p_weights=lambda t: t + 1.0, output_weights=lambda t: t + 2.0, initial_p=centre)),
        "FTRL+ follows a p-norm w-player": (1, lambda payoff: play(
            payoff, OFTRL(QNorm(1.5), eta=0.7), FTRLPlus(Entropy(), eta=1.3), ROUNDS, weights="constant")),
        # both plays known before any product: A w_t and A^T p_t from one pass
        "OFTRL p follows": (1, lambda payoff: play(payoff, OFTL(), OFTRL(Entropy(), eta=0.25), ROUNDS,
                                                  weights="linear")),
        "p leads, OFTL w follows": (1, lambda payoff: play(payoff, OFTL(), FTRL(Entropy(), eta=0.5), ROUNDS,
                                                           first="p", weights="linear")),
        "FTRL p follows (no hint)": (1, lambda payoff: play(payoff, OFTL(), FTRL(Entropy(), eta=StepSchedule([0.3] * ROUNDS)),
                                                            ROUNDS, weights=2.0)),
        # OFTRL entropy leads, FTRL+ w follows (NAG's order): A^T p_{t+1} in the pass of A w_t, from
        # round 2 on; a step schedule of exactly T steps, p on its own weights, a non-uniform p_0
        "OFTRL p leads, FTRL+ w follows, scheduled eta": (1, lambda payoff: play(
            payoff, FTRLPlus(), OFTRL(Entropy(), eta=StepSchedule([0.25 / (1 + 0.1 * t) for t in range(ROUNDS)])),
            ROUNDS, first="p", weights="linear", p_weights=lambda t: t + 0.5, initial_p=centre)),
    }


@pytest.mark.parametrize("name", sorted(_games()))
def test_one_pass_game_reports_what_the_numpy_game_does(name, data):
    """Averages, sums, loss sums, regrets, Theorem 2's bound, the gap, played losses: to 1e-12."""
    passes, game = _games()[name]
    reference = game(RegularizedBilinear(data[2]))
    counted = {}
    for one_pass in (True, False):
        operator, reads = counting_operator(data[2], 25, one_pass)
        payoff = RegularizedBilinear(operator)
        reads[0] = 0
        result = game(payoff)
        assert_same_game(result, reference)
        counted[one_pass] = reads[0] / len(operator.blocks)
    leads = name.startswith("OFTRL p leads")  # round 1 computes its A^T p_1 by a pass of its own
    assert counted[False] - counted[True] == (2 - passes) * ROUNDS - leads  # the same set-up and end, fewer passes


def test_stop_rule_and_callback_see_the_numpy_rounds(data):
    """positive_margin stops the one-pass run at the numpy run's round; the callbacks see the same sums."""
    from gamedyn.certify import positive_margin

    seen = {"numpy": [], "one pass": []}
    runs = {}
    for key, A in (("numpy", data[2]), ("one pass", counting_operator(data[2], 40)[0])):
        runs[key] = recipes.smooth_perceptron(A, 400, stop=lambda state, key=key: seen[key].append(
            (state.t, np.array(state.p_loss_sum.linear), state.w_regret, state.p_regret)) or positive_margin(state))
    assert runs["one pass"].game.rounds == runs["numpy"].game.rounds < 400
    for (t, sums, w_regret, p_regret), (t0, sums0, w_regret0, p_regret0) in zip(seen["one pass"], seen["numpy"], strict=True):
        assert t == t0 and relative_error(sums, sums0) <= TOLERANCE
        assert abs(w_regret - w_regret0) <= TOLERANCE * max(1.0, abs(w_regret0))
        assert abs(p_regret - p_regret0) <= TOLERANCE * max(1.0, abs(p_regret0))


@pytest.mark.parametrize("name", ["smooth_perceptron", "mirror_prox_perceptron", "nag_margin"])
def test_one_pass_run_resumes_bit_identically(name, data, tmp_path):
    """A checkpointed one-pass run resumes to the same bits (NAG's round carries the next round's
    w-loss, computed a round early, in the checkpoint)."""
    class Crash(Exception):
        pass

    def crash_at(round_):
        def stop(state):
            if state.t == round_:
                raise Crash
            return False
        return stop

    operator = counting_operator(data[2], 30)[0]
    run = getattr(recipes, name)
    uninterrupted = run(operator, ROUNDS)
    path = tmp_path / "run.npz"
    with pytest.raises(Crash):
        run(operator, ROUNDS, checkpoint=path, checkpoint_every=3, stop=crash_at(8))
    resumed = run(operator, ROUNDS, resume_from=path)
    assert np.array_equal(resumed.w, uninterrupted.w) and np.array_equal(resumed.p, uninterrupted.p)
    assert resumed.game.w_regret == uninterrupted.game.w_regret and resumed.game.p_regret == uninterrupted.game.p_regret


def test_one_pass_round_falls_back_where_it_does_not_apply(data):
    """None (the two-pass round) for what it does not handle; a round for what it does."""
    from types import SimpleNamespace

    from gamedyn import FTRL, OFTL, OFTRL, OMD, Bilinear, Entropy, FTRLPlus, SquaredEuclidean
    from gamedyn.engine.rounds import one_pass_round

    def seats(leader, follower, first="w"):  # the runner's seats as one_pass_round reads them
        names = ("w", "p") if first == "w" else ("p", "w")
        return [SimpleNamespace(name=name, learner=learner, weight=lambda t: float(t))
                for name, learner in zip(names, (leader, follower))]

    def takes(A, leader, follower, first="w"):
        return one_pass_round(Bilinear(A), *seats(leader, follower, first), ROUNDS, first == "w") is not None

    operator = counting_operator(data[2], 30)[0]
    entropy_plus = FTRLPlus(Entropy(), eta=0.5)
    assert takes(operator, OFTL(), entropy_plus)
    assert not takes(data[2], OFTL(), entropy_plus)  # a small numpy A: two BLAS calls from cache
    assert not takes(counting_operator(data[2], 30, one_pass=False)[0], OFTL(), entropy_plus)
    assert not takes(operator, OFTL(), FTRLPlus(Entropy(), eta=np.array([0.5, 1.0])))  # a sweep
    assert not takes(operator, OFTL(), FTRLPlus(SquaredEuclidean(domain=entropy_plus.domain), eta=0.5))
    assert not takes(operator, OFTL(), OMD(Entropy(), 0.5, hint=entropy_plus.hint))
    # p first (NAG): the pass of A w_t gives A^T p_{t+1} when p_{t+1} is optimistic FTRL's softmax of l_t
    assert takes(operator, OFTRL(Entropy(), eta=0.25), FTRLPlus(), first="p")
    assert not takes(operator, FTRL(Entropy(), eta=0.25), FTRLPlus(), first="p")  # no hint: p_{t+1} ignores l_t's weight
    assert not takes(operator, OFTRL(Entropy(), eta=np.array([0.25, 0.5])), FTRLPlus(), first="p")


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # Entropy's own fast path, numpy's run too
def test_one_pass_falls_back_when_the_logits_overflow(data):
    """Logits beyond float64 (eta = 1e308): the blocks' merge declines, the learner's careful
    softmax plays p_t and A^T p_t comes from a second pass; the run equals numpy's."""
    from gamedyn import OFTL, Entropy, FTRLPlus, play

    def game(A):
        return play(RegularizedBilinear(A), OFTL(), FTRLPlus(Entropy(), eta=1e308), 6, weights="linear")

    reference = game(data[2])
    operator, reads = counting_operator(data[2], 30)
    reads[0] = 0
    assert_same_game(game(operator), reference)
    assert reads[0] > 6 * len(operator.blocks) + 2 * len(operator.blocks)  # some rounds took the second pass


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), log_eta=st.floats(-3.0, 3.0), weight=st.floats(0.5, 50.0),
       spread=st.floats(0.0, 200.0), cuts=st.lists(st.integers(1, 59), max_size=4, unique=True),
       zero_block=st.booleans())
def test_softmax_pass_is_the_entropy_response(seed, log_eta, weight, spread, cuts, zero_block):
    """The blocks' log-sum-exp merge equals A^T softmax(log p_0 - eta (base + weight A w)) computed whole,
    for every chunking, step, logit spread (to e^{-200} between rows) and centre (zeros: a block whose
    weights all vanish), to 1e-12 relative to |A|^T p."""
    from gamedyn import Entropy

    rng = np.random.default_rng(seed)
    A = rng.standard_normal((60, 4))
    edges = [0, *sorted(cuts), 60]
    operator = RowBlockedOperator.from_dask_array(
        da.from_array(A, chunks=(tuple(b - a for a, b in zip(edges, edges[1:])), 4)), client="threads")
    w, base, eta = rng.standard_normal(4), spread * rng.random(60), 10.0 ** log_eta
    centre = rng.random(60) + 0.1
    if zero_block and len(edges) > 2:  # the first block's weights all vanish (not the whole centre's)
        centre[edges[0]:edges[1]] = 0.0
    centre /= centre.sum()
    log_centre = Entropy().centre_cache(centre)
    z, response = operator.softmax_pass(log_centre)(w, base, weight, eta)
    assert relative_error(z, A @ w) <= TOLERANCE
    p = Entropy().argmin_with_cache(base + weight * (A @ w), 0.0, eta, centre, log_centre)
    assert response is not None
    assert float(np.max(np.abs(response - A.T @ p))) <= TOLERANCE * float(np.max(np.abs(A).T @ p))


def test_products_are_one_pass_and_equal_the_two_products(data):
    operator, reads = counting_operator(data[2], 20)
    w, p = np.linspace(-1.0, 1.0, 6), np.full(90, 1 / 90)
    reads[0] = 0
    Aw, ATp = operator.products(w, p)
    assert reads[0] == len(operator.blocks)
    assert relative_error(Aw, data[2] @ w) <= TOLERANCE and relative_error(ATp, data[2].T @ p) <= TOLERANCE


def test_one_pass_flag_is_checked():
    with pytest.raises(TypeError, match="one_pass must be True"):
        RowBlockedOperator([np.ones((2, 2))], [2], 2, np.float64, client="threads", one_pass="yes")


@pytest.mark.parametrize("name", ["smooth_perceptron", "accelerated_perceptron_ji", "mirror_prox_perceptron"])
def test_float32_blocks_in_one_pass_keep_the_documented_float32_accuracy(name, data):
    """float32 blocks, one pass per round: the outputs agree with the float64 run of the same
    (float32-rounded) matrix to the float32 bound of docs/explanation/architecture.md (1e-6)."""
    A32 = data[2].astype(np.float32)
    operator, reads = counting_operator(A32, 30)
    assert operator.dtype == np.float32
    marks = []
    single = _recipe_with_stop(name, operator, lambda state: marks.append(reads[0]) or False)
    assert (marks[-1] - marks[0]) / (len(marks) - 1) / len(operator.blocks) == PASSES[name][0]
    double = RECIPES[name](A32.astype(np.float64))
    assert single.w.dtype == np.float64
    assert relative_error(single.w, double.w) <= 1e-6 and relative_error(single.p, double.p) <= 1e-6
