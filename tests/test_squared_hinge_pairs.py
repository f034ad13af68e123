"""The Weston-Watkins 2-norm soft margin with a free bias (issue 29): weston_watkins_margin and
``MarginClassifier(multi_class="weston_watkins", C=...)``.

The reference, independent of the code under test: the primal QP
``min 1/2 ||W||^2 + C sum xi_ik^2`` under ``<w_{y_i} - w_k, z_i> + b_{y_i} - b_k + xi_ik >= 1`` solved by
the interior-point solver Clarabel; its value is ``gamma_C* = 1 / sqrt(||W*||^2 + 2C ||xi*||^2)``.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gamedyn.certify.squared_hinge import weston_watkins_margin


def exact_ww(Z, y, K, C, free_bias=True):
    """``(gamma*, W*, b*)`` by Clarabel on the primal QP over (W, b, xi)."""
    clarabel = pytest.importorskip("clarabel")
    import scipy.sparse as sp

    n, d = Z.shape
    pairs = [(i, k) for i in range(n) for k in range(K) if k != y[i]]
    P = len(pairs)
    nb = K if free_bias else 0
    size = d * K + nb + P
    diag = np.concatenate([np.ones(d * K), np.zeros(nb), np.full(P, 2.0 * C)])
    A = np.zeros((P, size))
    for j, (i, k) in enumerate(pairs):
        A[j, y[i] * d:(y[i] + 1) * d] -= Z[i]
        A[j, k * d:(k + 1) * d] += Z[i]
        if free_bias:
            A[j, d * K + y[i]] -= 1.0
            A[j, d * K + k] += 1.0
        A[j, d * K + nb + j] = -1.0
    options = clarabel.DefaultSettings()
    options.verbose = False
    options.tol_gap_abs = options.tol_gap_rel = options.tol_feas = 1e-10
    solution = clarabel.DefaultSolver(sp.csc_matrix(np.diag(diag)), np.zeros(size), sp.csc_matrix(A), -np.ones(P),
                                      [clarabel.NonnegativeConeT(P)], options).solve()
    x = np.asarray(solution.x)
    W = x[:d * K].reshape(K, d).T
    b = x[d * K:d * K + nb] if free_bias else np.zeros(K)
    M = Z @ W + b
    xi = np.maximum(0.0, 1.0 - (M[np.arange(n), y][:, None] - M))
    xi[np.arange(n), y] = 0.0
    return 1.0 / math.sqrt(np.sum(W * W) + 2.0 * C * np.sum(xi * xi)), W, b


def rows_of(seed, n, d, K):
    """Rows of norm <= 1, K overlapping classes of unequal sizes (every class present)."""
    rng = np.random.default_rng(seed)
    sizes = rng.dirichlet(np.arange(1, K + 1)) * (n - 2 * K)
    y = np.concatenate([np.full(2 + int(s), c) for c, s in enumerate(sizes)])[:n]
    y = np.concatenate([y, rng.integers(0, K, n - y.size)])
    centres = rng.normal(size=(K, d))
    Z = centres[y] * 0.5 + rng.normal(size=(y.size, d))
    return Z / np.max(np.linalg.norm(Z, axis=1)), y.astype(np.intp)


@pytest.mark.parametrize("K", [3, 4])
@pytest.mark.parametrize("free_bias", [True, False])
@pytest.mark.parametrize("C", [0.1, 10.0, 1000.0])
def test_matches_the_reference(K, free_bias, C):
    Z, y = rows_of(K, 36, 3, K)
    gamma, W, b = exact_ww(Z, y, K, C, free_bias)
    found = weston_watkins_margin(Z, y, K, C, free_bias=free_bias, tol=1e-10, max_iter=20000)
    assert found.lower <= gamma * (1 + 1e-9) and found.upper >= gamma * (1 - 1e-9)
    assert found.relative_gap <= 1e-10
    assert np.allclose(found.W, W, atol=1e-6 * max(1.0, np.abs(W).max()))
    if free_bias:  # (b is unique up to a common shift: compare differences)
        assert np.allclose(found.b - found.b.mean(), b - b.mean(), atol=1e-6 * max(1.0, np.abs(b).max()))
    alpha = found.alpha
    assert np.all(alpha >= 0) and abs(alpha.sum() - 1) < 1e-12
    if free_bias:
        out = np.array([alpha[y == c].sum() for c in range(K)])
        assert np.allclose(out, alpha.sum(axis=0), atol=1e-12)  # a circulation


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), log_c=st.floats(-2, 4), power=st.integers(-40, 40), free_bias=st.booleans(),
       K=st.integers(3, 4))
def test_bracket_holds_over_data_c_and_scales(seed, log_c, power, free_bias, K):
    Z, y = rows_of(seed, 24, 3, K)
    C = 10.0 ** log_c
    gamma, _, _ = exact_ww(Z, y, K, C, free_bias)
    X = Z * 2.0 ** power
    found = weston_watkins_margin(X, y, K, C, scale=2.0 ** power, free_bias=free_bias, tol=1e-8, max_iter=20000)
    assert found.lower <= gamma * (1 + 1e-8) and found.upper >= gamma * (1 - 1e-8)
    assert found.lower > 0


def test_estimator_predicts_the_reference_argmax():
    from gamedyn.sklearn import MarginClassifier

    Z, y = rows_of(7, 40, 4, 4)
    _, W, b = exact_ww(Z, y, 4, 10.0)
    model = MarginClassifier(multi_class="weston_watkins", tol=1e-10, max_iter=20000).fit(Z, y)
    assert np.array_equal(model.predict(Z), np.argmax(Z @ W + b, axis=1))
    assert model.certificate_[0].penalty == 10.0 and "Weston-Watkins" in model.certificate_[0].verdict()


def test_noisy_five_classes_certified_and_accurate():
    from sklearn.datasets import make_classification
    from sklearn.svm import LinearSVC

    from gamedyn.sklearn import MarginClassifier

    X, y = make_classification(n_samples=1000, n_features=12, n_informative=8, n_classes=5, n_clusters_per_class=1,
                               flip_y=0.1, random_state=3)
    train, test = slice(0, 800), slice(800, None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = MarginClassifier(multi_class="weston_watkins", tol=0.01).fit(X[train], y[train])
    certificate = model.certificate_[0]
    assert certificate.lower > 0 and certificate.relative_gap <= 0.01
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ovr = LinearSVC().fit(X[train], y[train]).score(X[test], y[test])
    assert model.score(X[test], y[test]) >= ovr - 0.02


def test_warm_start_and_other_c():
    from gamedyn.sklearn import MarginClassifier

    Z, y = rows_of(2, 40, 3, 3)
    model = MarginClassifier(multi_class="weston_watkins", C=0.5, warm_start=True, tol=1e-6).fit(Z, y)
    assert model.coef_.shape == (3, 3) and model.intercept_.shape == (3,)
    model.fit(Z, y)
    assert model.n_iter_[0] == 0


@pytest.mark.parametrize("kwargs, name", [({"penalty": -1.0}, "penalty"), ({"tol": 2.0}, "tol"),
                                          ({"max_iter": 0}, "max_iter"), ({"K": 1}, "K"), ({"K": 2}, "labels"),
                                          ({"K": 4}, "every class"), ({"start": np.zeros((2, 3))}, "start")])
def test_bad_input(kwargs, name):
    Z, y = rows_of(1, 20, 2, 3)
    arguments = {"penalty": 1.0, "K": 3} | kwargs
    with pytest.raises(ValueError, match=name):
        weston_watkins_margin(Z, y, arguments.pop("K"), arguments.pop("penalty"), **arguments)


def test_sparse_and_float32_rows_agree():
    import scipy.sparse as sp

    Z, y = rows_of(4, 40, 4, 3)
    dense = weston_watkins_margin(Z, y, 3, 10.0, tol=1e-10, max_iter=20000)
    for X in (sp.csr_matrix(Z), Z.astype(np.float32), sp.csr_matrix(Z.astype(np.float32))):
        found = weston_watkins_margin(X, y, 3, 10.0, tol=1e-8, max_iter=20000)
        exact = weston_watkins_margin(np.asarray(X.todense() if sp.issparse(X) else X, dtype=np.float64), y, 3, 10.0,
                                      tol=1e-10, max_iter=20000)
        assert found.lower <= exact.upper and found.upper >= exact.lower and found.relative_gap <= 1e-8
    assert dense.relative_gap <= 1e-10


@pytest.mark.parametrize("max_iter", [1, 2, 3])
def test_upper_end_holds_far_from_the_optimum(max_iter):
    """Early stops from a start with lopsided biases: the raw multipliers are far from a circulation there, and
    only the circulation keeps the upper end above the value."""
    Z, y = rows_of(11, 36, 3, 4)
    gamma, _, _ = exact_ww(Z, y, 4, 10.0)
    start = np.zeros((4, 4))
    start[3] = [3.0, -2.0, 0.5, -1.5]
    found = weston_watkins_margin(Z, y, 4, 10.0, tol=1e-12, max_iter=max_iter, start=start)
    assert found.lower <= gamma * (1 + 1e-9) and found.upper >= gamma * (1 - 1e-9)


def test_estimator_without_intercept_matches_the_reference_without_bias():
    from gamedyn.sklearn import MarginClassifier

    Z, y = rows_of(9, 40, 3, 3)
    _, W, _ = exact_ww(Z, y, 3, 2.0, free_bias=False)
    model = MarginClassifier(multi_class="weston_watkins", C=2.0, fit_intercept=False, tol=1e-10,
                             max_iter=20000).fit(Z, y)
    assert np.all(model.intercept_ == 0.0)
    assert np.array_equal(model.predict(Z), np.argmax(Z @ W, axis=1))
    # (the largest row has norm 1, so the estimator's rows x_i / max ||x_j|| are Z itself)
    assert np.allclose(model.coef_.T, W, atol=1e-6 * max(1.0, np.abs(W).max()))
