"""The soft-margin oracle against exact and independent references (issue 19, item 2).

* Small generic problems: the oracle's final face is solved in rational arithmetic and verified
  optimal by the KKT conditions (references.exact_face_optimum), so gamma*^2 is known exactly; the
  bracket must contain it and close to 1e-12.
* Larger random and real data (iris, wine, breast cancer, digits 3/8; three values of nu): scipy's
  SLSQP, an independent solver, must agree to 1e-6 and never beat the oracle's upper end, and its
  point (projected onto Delta_c) must respect the oracle's lower end (weak duality).
* "Zero" verdicts: 0 in the reduced hull, checked by scipy's linprog (HiGHS) feasibility.
* Weak duality itself, exactly in rationals: CVaR_c(A w) <= ||w|| ||A^T p|| for random w and
  vertices p of Delta_c, the inequality the certificate rests on.
"""

from __future__ import annotations

import math
import os
import sys
from fractions import Fraction

import numpy as np
import pytest
import scipy.optimize
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import gamedyn.core.capped_simplex as cs
from gamedyn.core.domains import CappedSimplex, Simplex
from gamedyn.core.numerics import NumericalRangeError
from gamedyn.core.regularizers import Entropy
from capped_references import exact_cvar, exact_face_optimum, examples
from gamedyn.certify.soft_margin import soft_margin, weak_duality_bracket


def _random_rows(seed, n, d, noise=0.5):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    w = rng.standard_normal(d)
    y = np.sign(X @ w + noise * rng.standard_normal(n))
    y[y == 0] = 1.0
    return y[:, None] * X


def _slsqp(A, cap):
    """min (1/2)||A^T p||^2 over Delta_cap by scipy's SLSQP, its point projected onto Delta_cap."""
    n = A.shape[0]
    result = scipy.optimize.minimize(
        lambda p: 0.5 * float(np.sum((A.T @ p) ** 2)), np.full(n, 1.0 / n), jac=lambda p: A @ (A.T @ p),
        method="SLSQP", bounds=[(0.0, cap)] * n,
        constraints=[{"type": "eq", "fun": lambda p: np.sum(p) - 1.0, "jac": lambda p: np.ones(n)}],
        options={"ftol": 1e-15, "maxiter": 2000})
    point = cs.project(result.x, cap)
    return float(np.linalg.norm(A.T @ point)), point


def _zero_in_hull(A, cap) -> bool:
    """Is 0 in the reduced hull {A^T p : p in Delta_cap}? LP feasibility (HiGHS)."""
    n, d = A.shape
    result = scipy.optimize.linprog(np.zeros(n), A_eq=np.vstack([A.T, np.ones((1, n))]),
                                    b_eq=np.concatenate([np.zeros(d), [1.0]]), bounds=[(0.0, cap)] * n,
                                    method="highs")
    return result.status == 0


@pytest.mark.parametrize("seed", range(24))
@pytest.mark.parametrize("nu_rows", [1, 2, 3])
def test_bracket_contains_the_exact_rational_optimum(seed, nu_rows):
    """n = 5..9 rows in d = 2..4; nu = nu_rows / n (nu_rows = 1: the hard margin, c = 1)."""
    rng = np.random.default_rng(1000 + seed)
    n, d = int(rng.integers(5, 10)), int(rng.integers(2, 5))
    A = _random_rows(seed, n, d, noise=0.3)
    result = soft_margin(A, nu=nu_rows / n)
    if result.verdict == "zero":
        assert _zero_in_hull(A, result.cap)
        assert result.lower == 0.0 and result.upper <= 1e-14
        return
    assert result.verdict == "positive"
    exact = exact_face_optimum(A, result.cap, result.dual)
    assert exact is not None, "the oracle's face is not the exact optimum"
    gamma_squared, _ = exact
    lower, upper = Fraction(result.lower), Fraction(result.upper)
    # lower <= gamma* <= upper, each up to one rounding of the final norm / CVaR (relative 4 eps)
    slack = 1 + Fraction(4 * np.finfo(float).eps)
    assert lower * lower <= gamma_squared * slack * slack
    assert upper * upper * slack * slack >= gamma_squared
    assert result.relative_gap <= 1e-12


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("nu", [0.1, 0.3, 0.6])
def test_agrees_with_slsqp_on_random_data(seed, nu):
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(20, 60)), int(rng.integers(3, 10))
    A = _random_rows(seed, n, d)
    result = soft_margin(A, nu=nu)
    value, _ = _slsqp(A, result.cap)
    assert result.upper <= value * (1 + 1e-12) + 1e-15  # an exact oracle is never beaten
    assert result.lower <= value * (1 + 1e-12) + 1e-15  # weak duality against SLSQP's feasible point
    if result.verdict == "zero":
        assert _zero_in_hull(A, result.cap) and value <= 1e-6
    else:
        assert abs(value - result.upper) <= 1e-6 * max(result.upper, 1e-3)
        assert result.relative_gap <= 1e-10


def _real_sets():
    from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine
    from sklearn.preprocessing import StandardScaler

    def signed(X, positive):
        X = StandardScaler().fit_transform(X)
        X = np.hstack([X, np.ones((X.shape[0], 1))])  # a bias through a constant feature
        return np.where(positive, 1.0, -1.0)[:, None] * (X / np.max(np.linalg.norm(X, axis=1)))

    X, y = load_iris(return_X_y=True)
    yield "iris virginica", signed(X, y == 2)
    X, y = load_wine(return_X_y=True)
    yield "wine class 1", signed(X, y == 1)
    X, y = load_breast_cancer(return_X_y=True)
    yield "breast cancer", signed(X, y == 1)
    X, y = load_digits(return_X_y=True)
    keep = np.isin(y, (3, 8))
    yield "digits 3/8", signed(X[keep], y[keep] == 3)


@pytest.mark.parametrize("name, A", list(_real_sets()), ids=lambda v: v if isinstance(v, str) else "")
def test_real_data_three_nus(name, A):
    """Four real data sets, nu in {0.05, 0.2, 0.5}: closed bracket, SLSQP agrees (small sets), weak
    duality against random iterates, and gamma_nu non-decreasing in nu."""
    previous = 0.0
    rng = np.random.default_rng(0)
    for nu in (0.05, 0.2, 0.5):
        result = soft_margin(A, nu=nu)
        assert result.converged and result.verdict == "positive"
        assert result.relative_gap <= 1e-12
        assert result.upper >= previous * (1 - 1e-12)  # Delta_c shrinks as nu grows: the distance grows
        previous = result.upper
        if A.shape[0] <= 200:
            value, _ = _slsqp(A, result.cap)
            assert result.upper <= value * (1 + 1e-12) and abs(value - result.upper) <= 1e-6 * result.upper
        for _ in range(3):  # any direction's CVaR / norm is below, any point's ||A^T p|| above
            w = rng.standard_normal(A.shape[1])
            p = cs.capped_softmax(rng.standard_normal(A.shape[0]) * 5, result.cap, 1.0)
            low, high = weak_duality_bracket(A, result.cap, w, p)
            assert low <= result.upper * (1 + 1e-12) and high >= result.lower * (1 - 1e-12)


@settings(max_examples=examples(200))
@given(st.data())
def test_weak_duality_holds_exactly(data):
    """CVaR_c(A w) <= ||w|| ||A^T p|| in rationals, for random A, w != 0 and vertices p of Delta_c."""
    n, d = data.draw(st.integers(1, 6)), data.draw(st.integers(1, 4))
    entries = st.integers(-20, 20).map(lambda k: k / 4)
    A = np.array(data.draw(st.lists(entries, min_size=n * d, max_size=n * d))).reshape(n, d)
    w = np.array(data.draw(st.lists(entries, min_size=d, max_size=d)))
    if not np.any(w):
        w[0] = 1.0
    cap = max(cs.smallest_cap(n), data.draw(st.sampled_from([1.0, 0.75, 0.5, 0.3, 1e-9])))
    theta = np.array(data.draw(st.lists(st.integers(-5, 5), min_size=n, max_size=n)), dtype=float)
    K, _ = cs.capacity(cap)
    c = Fraction(cap)
    order = np.argsort(theta, kind="stable")
    p = [Fraction(0)] * n  # a vertex of Delta_c, exactly: K coordinates at c, one at 1 - K c
    for i in order[:K]:
        p[int(i)] = c
    if K < n:
        p[int(order[K])] = 1 - K * c
    assert sum(p) == 1 and all(0 <= v <= c for v in p)
    rows = [[Fraction(float(v)) for v in row] for row in A]
    margins = A @ w  # quarter-integer data: multiples of 1/16, exact in float64
    value = exact_cvar(margins, cap)
    z = [sum(p[i] * rows[i][j] for i in range(n)) for j in range(d)]
    w_squared = sum(Fraction(float(v)) ** 2 for v in w)
    if value > 0:
        assert value * value <= w_squared * sum(v * v for v in z)


def test_nu_one_is_the_centroid_and_nu_one_over_n_the_hard_margin():
    A = _random_rows(3, 12, 3, noise=0.0)  # separable through the origin
    centroid = soft_margin(A, nu=1.0)
    assert math.isclose(centroid.upper, float(np.linalg.norm(A.mean(axis=0))), rel_tol=1e-14)
    assert np.max(np.abs(centroid.dual - 1 / 12)) <= 1e-16
    hard = soft_margin(A, cap=1.0)
    value, _ = _slsqp(A, 1.0)
    assert abs(hard.upper - value) <= 1e-7 * value and hard.relative_gap <= 1e-12
    from gamedyn.certify.margins import max_margin

    reference = max_margin(A)
    assert math.isclose(hard.upper, reference.gamma, rel_tol=1e-12)
    assert hard.lower <= reference.upper * (1 + 1e-14) and reference.gamma <= hard.upper * (1 + 1e-14)


def test_zero_verdict_when_zero_is_in_the_reduced_hull():
    A = np.array([[1.0, 2.0], [-1.0, -2.0], [0.5, -1.0], [-0.5, 1.0]])
    for nu in (0.25, 0.5, 1.0):
        result = soft_margin(A, nu=nu)
        assert result.verdict == "zero" and result.lower == 0.0 and result.upper <= 1e-15
        assert _zero_in_hull(A, result.cap)


def test_scale_invariance_and_input_types():
    A = _random_rows(5, 30, 4)
    base = soft_margin(A, nu=0.3)
    for factor in (2.0**-600, 2.0**500):
        scaled = soft_margin(A * factor, nu=0.3)
        assert scaled.upper == math.ldexp(base.upper, round(math.log2(factor)))
        assert scaled.lower == math.ldexp(base.lower, round(math.log2(factor)))
    assert math.isclose(soft_margin(3.0 * A, nu=0.3).upper, 3.0 * base.upper, rel_tol=1e-13)
    assert soft_margin(sp.csr_matrix(A), nu=0.3).upper == base.upper
    assert math.isclose(soft_margin(A.astype(np.float32), nu=0.3).upper,
                        soft_margin(A.astype(np.float32).astype(np.float64), nu=0.3).upper, rel_tol=1e-15)


@pytest.mark.parametrize("call, error, message", [
    (lambda: soft_margin(np.ones((3, 2))), ValueError, "exactly one of nu"),
    (lambda: soft_margin(np.ones((3, 2)), nu=0.5, cap=0.5), ValueError, "exactly one of nu"),
    (lambda: soft_margin(np.ones((3, 2)), nu=0.1), ValueError, r"nu must lie in \[1/n, 1\]"),
    (lambda: soft_margin(np.ones((3, 2)), cap=0.2), ValueError, "below 1/n"),
    (lambda: soft_margin(np.array([[1.0, np.nan]]), nu=1.0), ValueError, "NaN or infinite"),
    (lambda: soft_margin(np.ones(3), nu=1.0), ValueError, "2-D shape"),
    (lambda: soft_margin([["a"]], nu=1.0), TypeError, "real numeric"),
    (lambda: weak_duality_bracket(np.ones((2, 2)), 1.0, [0.0, 0.0], [0.5, 0.5]), ValueError, "zero vector"),
])
def test_bad_input_gets_a_clear_error(call, error, message):
    with pytest.raises(error, match=message):
        call()
