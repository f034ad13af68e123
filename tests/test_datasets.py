"""Tests for gamedyn.io.datasets: signed rows, the seeded generators and the digits pairs."""

from __future__ import annotations

import sys

import numpy as np
import pytest
import scipy.sparse as sp

from gamedyn.io import (
    digits_pair, make_separable, make_separable_lp, perceptron_hard_instance, signed_rows, symmetric_pair,
)
from gamedyn.certify import max_margin, max_margin_q
from gamedyn.games.margin.original import perceptron

EPS = np.finfo(np.float64).eps


def test_signed_rows_dense_sparse_and_float32():
    X = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    y = np.array([1, -1, 1])
    expected = np.array([[1.0, 2.0], [-3.0, -4.0], [5.0, 6.0]])
    np.testing.assert_array_equal(signed_rows(X, y), expected)
    sparse = signed_rows(sp.csc_matrix(X), y)
    assert sp.isspmatrix_csr(sparse)
    np.testing.assert_array_equal(sparse.toarray(), expected)
    single = signed_rows(X.astype(np.float32), y)
    assert single.dtype == np.float32
    np.testing.assert_array_equal(single, expected.astype(np.float32))
    assert signed_rows(sp.csr_matrix(X.astype(np.float32)), y).dtype == np.float32
    assert signed_rows(X.astype(int), y).dtype == np.float64


def test_signed_rows_rejects_bad_labels():
    X = np.ones((3, 2))
    with pytest.raises(ValueError, match=r"y must contain only -1 and \+1, found \[0\].*2 \* y - 1"):
        signed_rows(X, [0, 1, 1])
    with pytest.raises(ValueError, match="y must be a 1-D array of 3 labels"):
        signed_rows(X, [1, 1])


@pytest.mark.parametrize("n, d, gamma, seed", [(20, 5, 0.1, 0), (30, 60, 0.05, 1), (300, 2, 0.2, 2)])
def test_make_separable_norms_margin_and_reproducibility(n, d, gamma, seed):
    X, y = make_separable(n, d, gamma, seed)
    assert X.shape == (n, d) and y.shape == (n,) and set(np.unique(y)) <= {-1.0, 1.0}
    assert np.max(np.linalg.norm(X, axis=1)) <= 1.0
    assert max_margin(signed_rows(X, y)).gamma >= gamma
    X2, y2 = make_separable(n, d, gamma, seed)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    X3, _ = make_separable(n, d, gamma, seed + 1)
    assert not np.array_equal(X, X3)


@pytest.mark.parametrize(
    "args, gamma_max, support_vectors",
    [
        ((20, 5, 0.3, 7), 0.3635, None),  # Block SGD check set
        ((1000, 10, 0.3, 4), 0.3010786, 10),  # Figure 1
        ((1500, 80, 0.1, 2), 0.1027438, 75),  # Figure 2
        ((5000, 10, 0.1, 3), 0.1003351, None),  # Figure 3
    ],
)
def test_make_separable_reproduces_reference_data(args, gamma_max, support_vectors):
    """The max margins reported in the logistic spec section 5 pin down the RNG order."""
    result = max_margin(signed_rows(*make_separable(*args)))
    digits = len(str(gamma_max).split(".")[1])
    assert round(result.gamma, digits) == gamma_max
    if support_vectors is not None:
        assert result.support.size == support_vectors


@pytest.mark.parametrize(
    "gamma, error", [(0.0, ValueError), (1.0, ValueError), (-0.1, ValueError), (True, TypeError), ("0.1", TypeError)]
)
def test_make_separable_rejects_bad_gamma(gamma, error):
    with pytest.raises(error, match=r"gamma must be a real number in \(0, 1\)"):
        make_separable(10, 2, gamma, 0)
    with pytest.raises(error, match=r"gamma must be a real number in \(0, 1\)"):
        make_separable_lp(10, 2, 4.0, gamma, 0)


def test_symmetric_pair_rejects_bad_gamma():
    with pytest.raises(ValueError, match=r"gamma must be a real number in \(0, 1\]"):
        symmetric_pair(1.5)


def test_make_separable_rejects_bad_sizes_and_seed():
    with pytest.raises(ValueError, match="n must be >= 1"):
        make_separable(0, 2, 0.1, 0)
    with pytest.raises(TypeError, match="seed must be a non-negative integer"):
        make_separable(10, 2, 0.1, -1)


def test_make_separable_gives_up_on_an_impossible_margin():
    with pytest.raises(ValueError, match="pass a smaller gamma"):
        make_separable(5, 400, 0.9, 0)


@pytest.mark.parametrize("gamma", [0.05, 0.5, 1.0])
def test_symmetric_pair_has_max_margin_gamma(gamma):
    X, y = symmetric_pair(gamma)
    np.testing.assert_allclose(np.linalg.norm(X, axis=1), 1.0, atol=EPS)
    np.testing.assert_array_equal(y, [1.0, 1.0])
    result = max_margin(signed_rows(X, y))
    assert abs(result.gamma - gamma) <= 2 * EPS
    if gamma < 1:  # at gamma = 1 the two rows coincide and either one alone is a support
        assert result.support.tolist() == [0, 1]


@pytest.mark.parametrize(
    "gamma, chosen, m", [(0.5, None, 3), (0.3, None, 11), (0.2, None, 24), (0.1, None, 99), (0.1, 40, 40)]
)
def test_perceptron_hard_instance_margin_and_update_count(gamma, chosen, m):
    A = perceptron_hard_instance(gamma, m=chosen)
    assert A.shape == (m, m + 1) and m * gamma**2 < 1
    np.testing.assert_allclose(np.linalg.norm(A, axis=1), 1.0, rtol=4 * EPS)
    result = max_margin(A)
    assert abs(result.gamma - gamma) <= 1e-14 and result.support.size == m
    np.testing.assert_allclose(result.direction, np.eye(m + 1)[0], atol=1e-14)
    w, updates = perceptron(A, 10**6)
    assert updates == m and np.min(A @ w) > 0


def test_perceptron_hard_instance_rejects_bad_arguments():
    with pytest.raises(ValueError, match=r"gamma must be a real number in \(0, 0.707107\)"):
        perceptron_hard_instance(0.8)
    with pytest.raises(ValueError, match="pass m <= 24"):
        perceptron_hard_instance(0.2, m=30)


@pytest.mark.parametrize(
    "n, d, p, gamma, seed, k", [(50, 20, 4.0, 0.2, 0, 1), (80, 30, 6.0, 0.1, 1, 3), (40, 10, 2.0, 0.1, 2, 2)]
)
def test_make_separable_lp_norms_and_q_margin(n, d, p, gamma, seed, k):
    X, y = make_separable_lp(n, d, p, gamma, seed, target_support=k)
    assert X.shape == (n, d) and set(np.unique(y)) <= {-1.0, 1.0}
    assert np.max(np.linalg.norm(X, ord=p, axis=1)) <= 1.0 + 4 * EPS
    result = max_margin_q(signed_rows(X, y), p / (p - 1.0))
    assert result.lower >= gamma
    X2, y2 = make_separable_lp(n, d, p, gamma, seed, target_support=k)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)


def test_make_separable_lp_rejects_bad_arguments():
    with pytest.raises(ValueError, match="p must be a finite real number >= 2"):
        make_separable_lp(10, 5, 1.5, 0.1, 0)
    with pytest.raises(ValueError, match="p must be a finite real number >= 2"):
        make_separable_lp(10, 5, np.inf, 0.1, 0)
    with pytest.raises(TypeError, match="p must be a finite real number >= 2"):
        make_separable_lp(10, 5, "4", 0.1, 0)
    with pytest.raises(ValueError, match="target_support=6 exceeds d=5"):
        make_separable_lp(10, 5, 4.0, 0.1, 0, target_support=6)


def test_digits_pair_without_scikit_learn(monkeypatch):
    monkeypatch.setitem(sys.modules, "sklearn", None)
    monkeypatch.setitem(sys.modules, "sklearn.datasets", None)
    with pytest.raises(ImportError, match=r"install gamedyn\[data\] \(scikit-learn\) for the digits data"):
        digits_pair(4, 9)


@pytest.mark.parametrize(
    "first, second, gamma_max", [(4, 9, 0.1706), (0, 8, 0.1813), (2, 6, 0.1611), (1, 5, 0.1305)]
)
def test_digits_pair_reproduces_reference_margins(first, second, gamma_max):
    pytest.importorskip("sklearn")
    X, y = digits_pair(first, second)
    assert X.shape == (50, 64)
    assert np.max(np.linalg.norm(X, axis=1)) == pytest.approx(1.0, abs=EPS)
    assert set(np.unique(y)) == {-1.0, 1.0}
    assert round(max_margin(signed_rows(X, y)).gamma, 4) == gamma_max
    np.testing.assert_array_equal(X, digits_pair(first, second)[0])


def test_digits_pair_rejects_bad_digits():
    pytest.importorskip("sklearn")
    with pytest.raises(ValueError, match="first and second must differ"):
        digits_pair(3, 3)
    with pytest.raises(ValueError, match="second must be a digit 0..9"):
        digits_pair(3, 10)
    with pytest.raises(ValueError, match="n=1000 exceeds the"):
        digits_pair(3, 5, n=1000)
