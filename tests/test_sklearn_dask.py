"""MarginClassifier(C=None, client=...): the dynamics on dask row blocks equal the in-memory fit."""

import warnings

import numpy as np
import pytest

pytest.importorskip("sklearn")
distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")

from gamedyn.io import make_separable  # noqa: E402
from gamedyn.sklearn import MarginClassifier, NotSeparableWarning  # noqa: E402



@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(processes=False, n_workers=2, threads_per_worker=1, dashboard_address=":0") as cluster:
        with distributed.Client(cluster, set_as_default=False) as client:
            yield client


def test_client_fit_equals_the_in_memory_fit(client):
    X, y = make_separable(600, 8, 0.1, 1)
    X = 3.0 * X  # rows longer than 1: normalize=True rescales on the blocks too
    memory = MarginClassifier(C=None, solver="smooth_perceptron", tol=0.01).fit(X, y)
    on_blocks = MarginClassifier(C=None, solver="smooth_perceptron", tol=0.01, client=client).fit(X, y)
    lazy = MarginClassifier(C=None, tol=0.01, client=client).fit(da.from_array(X, chunks=(150, 4)), da.from_array(y))
    assert on_blocks.solver_ == lazy.solver_ == "smooth_perceptron"  # auto: the dynamics on blocks
    assert np.array_equal(on_blocks.n_iter_, memory.n_iter_) and np.array_equal(memory.n_iter_, lazy.n_iter_)
    for model in (on_blocks, lazy):
        np.testing.assert_allclose(model.coef_, memory.coef_, rtol=1e-12, atol=1e-12 * np.max(np.abs(memory.coef_)))
        np.testing.assert_allclose(model.intercept_, memory.intercept_, rtol=1e-12, atol=1e-12)
        assert model.row_scale_ == pytest.approx(memory.row_scale_, rel=1e-14)
        assert model.certificate_[0].lower == pytest.approx(memory.certificate_[0].lower, rel=1e-10)
        assert model.certificate_[0].upper == pytest.approx(memory.certificate_[0].upper, rel=1e-10)
        assert model.certificate_[0].relative_gap <= 0.01
    labels = lazy.predict(da.from_array(X, chunks=(150, 8)))
    np.testing.assert_array_equal(labels.compute(), memory.predict(X))


def test_client_multiclass_runs_one_game_per_class_on_the_blocks(client):
    X3, y3 = make_separable(200, 4, 0.05, 2)
    y3 = np.where(y3 > 0, np.where(X3[:, 1] > 0, 2, 1), 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotSeparableWarning)
        memory = MarginClassifier(C=None, solver="smooth_perceptron", tol=0.05, max_iter=60).fit(X3, y3)
        blocks = MarginClassifier(C=None, solver="smooth_perceptron", tol=0.05, max_iter=60, client=client).fit(X3, y3)
    for k in range(3):  # one game per class on the blocks; the batched run in memory runs until all settle
        assert blocks.n_iter_[k] <= memory.n_iter_[k]


def test_exact_recipe_with_a_client_is_refused_with_the_fix(client):
    X, y = make_separable(100, 3, 0.1, 0)
    with pytest.raises(ValueError, match="solver='exact' needs the rows in memory"):
        MarginClassifier(C=None, solver="exact", client=client).fit(X, y)


@pytest.mark.parametrize("normalize", [True, False])
def test_client_fit_in_small_units_equals_the_in_memory_fit(client, normalize):
    # Before (normalize=True): the intercept feature was 1 in the user's units (2^-30 ~ 1e-9 here): a
    # near-constant fit.
    X, y = make_separable(400, 5, 0.05, 4)
    X = X + 0.3  # off the origin: the intercept matters
    # normalize=True: tiny units; normalize=False: the user's rows (x_i, 0.5) of norm <= 0.3 (the solver
    # divides them by q = 1/2 and states the certificate on the user's rows)
    X = X * 2.0 ** -30 if normalize else X * (0.2 / np.max(np.linalg.norm(X, axis=1)))
    options = dict(solver="smooth_perceptron", tol=0.02, normalize=normalize, intercept_scaling=0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", "MarginClassifier: 'normalize' is deprecated", FutureWarning)
        memory = MarginClassifier(**options).fit(X, y)
        on_blocks = MarginClassifier(**options, client=client).fit(X, y)
    assert memory.score(X, y) == 1.0 and memory.certificate_[0].separable is True
    assert np.array_equal(on_blocks.n_iter_, memory.n_iter_)
    np.testing.assert_allclose(on_blocks.coef_, memory.coef_, rtol=1e-12, atol=1e-12 * np.max(np.abs(memory.coef_)))
    np.testing.assert_allclose(on_blocks.intercept_, memory.intercept_, rtol=1e-12, atol=1e-12)
    assert on_blocks.feature_scale_ == pytest.approx(memory.feature_scale_, rel=1e-14)
    assert on_blocks.row_scale_ == pytest.approx(memory.row_scale_, rel=1e-14)
    assert on_blocks.certificate_[0].lower == pytest.approx(memory.certificate_[0].lower, rel=1e-10)
    assert on_blocks.certificate_[0].upper == pytest.approx(memory.certificate_[0].upper, rel=1e-10)
    if normalize:  # the same answer as in the user's units of 1
        unit = MarginClassifier(**options).fit(X * 2.0 ** 30, y)
        np.testing.assert_array_equal(unit.coef_ * 2.0 ** 30, memory.coef_)
