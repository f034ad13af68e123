"""Out-of-core and distributed A (gamedyn.distributed): every recipe equals its numpy run to 1e-12.

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
from gamedyn.datasets import make_separable, signed_rows  # noqa: E402
from gamedyn.distributed import RowBlockedOperator, npy_folder_layout  # noqa: E402

TOLERANCE = 1e-12
ROUNDS = 12

RECIPES = {
    "smooth_perceptron": lambda A: recipes.smooth_perceptron(A, ROUNDS),
    "accelerated_perceptron": lambda A: recipes.accelerated_perceptron(A, ROUNDS),
    "accelerated_perceptron_ji": lambda A: recipes.accelerated_perceptron(A, ROUNDS, theta="ji"),
    "mirror_prox_perceptron": lambda A: recipes.mirror_prox_perceptron(A, ROUNDS),
    "nag_margin": lambda A: recipes.nag_margin(A, ROUNDS),
    "pnorm_perceptron": lambda A: recipes.pnorm_perceptron(A, ROUNDS, p=3),
}


def relative_error(value, reference):
    return float(np.max(np.abs(np.asarray(value) - reference)) / np.max(np.abs(reference)))


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
    operator = RowBlockedOperator.from_npy_folder(tmp_path, client="threads", release_pages=False)
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
    assert_same_run(RECIPES[name](operator), numpy_runs[name])


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
    with pytest.raises(ValueError, match="NaN or infinite"):
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
    from gamedyn._data_files import load_data_file

    X, y, A = data
    X = np.where(np.abs(X) < 0.3, 0.0, X)  # a sparse pattern
    datasets.dump_svmlight_file(X, y, str(tmp_path / "points.svm"))
    loaded = load_data_file(tmp_path / "points.svm")
    assert sp.issparse(loaded.A)
    signed = X * y[:, None]
    np.testing.assert_allclose(loaded.A.toarray(), signed / np.max(np.linalg.norm(signed, axis=1)), rtol=1e-12, atol=0)


def _resident_file_pages() -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith("RssFile:"))


@pytest.mark.skipif(not __import__("os").path.exists("/proc/self/status"), reason="reads /proc/self/status (Linux)")
def test_memory_mapped_pages_are_released_after_each_product(tmp_path):
    """Out of core: with release_pages the mapped chunks do not stay resident in this process."""
    rng = np.random.default_rng(0)
    for number in range(4):
        np.save(tmp_path / f"A_{number:03d}.npy", rng.standard_normal((25_000, 100)))  # 4 x 20 MB
    size = 4 * 25_000 * 100 * 8
    w, p = np.ones(100), np.ones(100_000)
    resident = {}
    for release in (True, False):
        operator = RowBlockedOperator.from_npy_folder(tmp_path, client="threads", release_pages=release)
        before = _resident_file_pages()
        operator @ w
        operator.T @ p
        resident[release] = _resident_file_pages() - before
        from gamedyn.distributed import _OPEN_FILES
        _OPEN_FILES.clear()  # unmap (the next operator opens the files again)
        del operator
    assert resident[False] > 0.8 * size  # the control: without release every page stays mapped
    assert resident[True] < 0.1 * size
