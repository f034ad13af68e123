"""Tests for gamedyn.certify.margins: margins, the exact l2 oracle and the certified q-norm bracket."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from gamedyn.io import make_separable, signed_rows, symmetric_pair
from gamedyn.certify import margin, max_margin, max_margin_q, normalized_margin

EPS = np.finfo(np.float64).eps

# (n, d, planted gamma, seed): n > d, n < d, a margin near 0.01, a large n.
DATASETS = [(20, 5, 0.1, 0), (20, 50, 0.05, 2), (2000, 5, 0.01, 0), (1000, 10, 0.3, 4)]


def _signed(n, d, gamma, seed):
    return signed_rows(*make_separable(n, d, gamma, seed))


def test_margin_and_normalized_margin_by_hand():
    A = np.array([[1.0, 2.0], [3.0, -1.0]])
    assert margin(A, [1.0, 1.0]) == 2.0
    assert normalized_margin(A, [1.0, 1.0]) == pytest.approx(2.0 / np.sqrt(2.0), rel=1e-15)
    assert normalized_margin(A, [2.0, 2.0]) == pytest.approx(normalized_margin(A, [1.0, 1.0]), rel=1e-15)


def test_normalized_margin_of_zero_vector_names_w():
    with pytest.raises(ValueError, match="w is the zero vector"):
        normalized_margin(np.eye(2), np.zeros(2))


def test_margin_checks_length_of_w():
    with pytest.raises(ValueError, match="w has length 3"):
        margin(np.eye(2), np.ones(3))


def test_max_margin_of_symmetric_pair_is_exact():
    gamma = 0.3
    result = max_margin(signed_rows(*symmetric_pair(gamma)))
    assert abs(result.gamma - gamma) <= 2 * EPS
    assert abs(result.upper - gamma) <= 2 * EPS
    np.testing.assert_allclose(result.direction, [1.0, 0.0], atol=1e-15)
    np.testing.assert_allclose(result.dual, [0.5, 0.5], atol=1e-15)
    assert result.support.tolist() == [0, 1]


def test_max_margin_of_single_row_is_its_norm():
    a = np.array([[0.3, -0.4, 1.2]])
    result = max_margin(a)
    assert result.gamma == pytest.approx(1.3, rel=1e-15)
    np.testing.assert_allclose(result.direction, a[0] / 1.3, rtol=1e-15)


@pytest.mark.parametrize("args", DATASETS)
def test_max_margin_gap_and_kkt(args):
    A = _signed(*args)
    result = max_margin(A)
    assert result.gap == result.upper - result.gamma
    assert abs(result.gap) <= 1e-12
    assert result.gamma <= result.upper * (1 + 4 * EPS)  # weak duality, up to rounding
    assert result.gamma == margin(A, result.direction)
    assert np.linalg.norm(result.direction) == pytest.approx(1.0, abs=4 * EPS)
    # The dual is a distribution supported on the support vectors.
    assert np.all(result.dual >= 0) and np.sum(result.dual) == pytest.approx(1.0, abs=1e-15)
    off = np.setdiff1d(np.arange(A.shape[0]), result.support)
    assert result.support.size >= 1 and np.all(result.dual[off] == 0) and np.all(result.dual[result.support] > 0)
    # Stationarity: the direction is A^T dual / ||A^T dual||; complementary slackness on the support.
    z = A.T @ result.dual
    np.testing.assert_allclose(result.direction, z / np.linalg.norm(z), atol=1e-10)
    np.testing.assert_allclose(A[result.support] @ result.direction, result.gamma, rtol=1e-12)


@pytest.mark.parametrize(
    "rows", [[[1.0, 0.0], [-1.0, 0.0]], [[1.0, 1.0], [-1.0, -1.0], [0.0, 1.0]], [[0.0, 0.0], [1.0, 1.0]]]
)
def test_max_margin_rejects_non_separable_data(rows):
    with pytest.raises(ValueError, match="A is not separable: the min-norm point of the convex hull"):
        max_margin(np.array(rows))


def test_max_margin_accepts_sparse_and_float32():
    A = _signed(60, 8, 0.1, 1)
    dense = max_margin(A)
    sparse = max_margin(sp.csr_matrix(A))
    assert abs(sparse.gamma - dense.gamma) <= 1e-12
    np.testing.assert_allclose(sparse.direction, dense.direction, atol=1e-12)
    single = max_margin(A.astype(np.float32))
    exact = max_margin(A.astype(np.float32).astype(np.float64))
    assert single.gamma == exact.gamma and single.direction.dtype == np.float64
    assert abs(single.gamma - dense.gamma) <= 1e-6


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(1, 40),
    d=st.integers(1, 12),
    gamma=st.floats(0.01, 0.3),
    seed=st.integers(0, 2**16),
)
def test_max_margin_certificate_on_random_separable_data(n, d, gamma, seed):
    A = _signed(n, d, gamma, seed)
    result = max_margin(A)
    assert result.gamma <= result.upper * (1 + 4 * EPS)
    assert result.gap <= 1e-12
    # The planted direction has margin >= gamma, so the maximum is at least the planted gamma.
    assert result.gamma >= gamma - 1e-12
    # Weak duality against arbitrary unit directions.
    directions = np.random.default_rng(seed).standard_normal((50, d))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    assert np.all(np.min(A @ directions.T, axis=0) <= result.upper * (1 + 4 * EPS))


# ---------------------------------------------------------------- q-norm bracket


@pytest.mark.parametrize("args", DATASETS[:2] + [(200, 5, 0.05, 1)])
@pytest.mark.parametrize("q", [1.2, 1.5, 2.0])
def test_max_margin_q_bracket_is_a_certificate(args, q):
    A = _signed(*args)
    result = max_margin_q(A, q)
    p = q / (q - 1)
    assert result.p == pytest.approx(p) and result.q == q
    assert result.lower <= result.upper * (1 + 4 * EPS)
    assert result.width <= 1e-10 * result.upper
    assert np.linalg.norm(result.direction, ord=q) == pytest.approx(1.0, abs=4 * EPS)
    assert result.lower == margin(A, result.direction)
    assert np.all(result.dual >= 0) and np.sum(result.dual) == pytest.approx(1.0, abs=1e-14)
    assert result.upper == pytest.approx(np.linalg.norm(A.T @ result.dual, ord=p), rel=1e-15)


@pytest.mark.parametrize("args", DATASETS)
def test_max_margin_q_at_q2_agrees_with_max_margin(args):
    A = _signed(*args)
    assert max_margin_q(A, 2.0).lower == pytest.approx(max_margin(A).gamma, abs=1e-12)


def test_max_margin_q_closed_forms():
    # Symmetric pair: the best direction is e_1 for every q, so gamma_q = gamma.
    for q in (1.1, 1.5, 2.0):
        result = max_margin_q(signed_rows(*symmetric_pair(0.2)), q)
        assert result.lower == pytest.approx(0.2, abs=1e-14) and result.upper == pytest.approx(0.2, abs=1e-14)
    # A single row a: gamma_q = ||a||_p (Hoelder).
    a = np.array([[0.3, -0.4, 1.2]])
    result = max_margin_q(a, 4.0 / 3.0)
    assert result.lower == pytest.approx(np.linalg.norm(a[0], ord=4), rel=1e-14)


def test_max_margin_q_matches_brute_force_in_two_dimensions():
    # Independent route: search the unit q-circle by angle (grid, then golden section at the best cell).
    A = _signed(100, 2, 0.05, 3)
    q = 1.25

    def margin_at(angle):
        w = np.array([np.cos(angle), np.sin(angle)])
        return np.min(A @ (w / np.linalg.norm(w, ord=q)))

    grid = np.linspace(0.0, 2 * np.pi, 20_001)
    best = grid[np.argmax([margin_at(angle) for angle in grid])]
    step = grid[1] - grid[0]
    low, high = best - step, best + step
    for _ in range(100):  # ternary search: the margin is unimodal within one grid cell of the optimum
        left, right = low + (high - low) / 3, high - (high - low) / 3
        low, high = (left, high) if margin_at(left) < margin_at(right) else (low, right)
    brute = margin_at((low + high) / 2)
    result = max_margin_q(A, q)
    assert brute <= result.upper * (1 + 4 * EPS)
    assert brute == pytest.approx(result.lower, abs=1e-12)


def test_max_margin_q_norm_comparisons():
    A = _signed(40, 6, 0.1, 5)
    d = A.shape[1]
    gamma2 = max_margin(A).gamma
    values = [max_margin_q(A, q) for q in (1.1, 1.3, 1.6, 2.0)]
    for q, result in zip((1.1, 1.3, 1.6, 2.0), values):
        # ||w||_2 <= ||w||_q <= d^(1/q - 1/2) ||w||_2 for q <= 2.
        assert result.lower <= gamma2 * (1 + 4 * EPS)
        assert result.upper >= gamma2 * d ** (0.5 - 1.0 / q) * (1 - 4 * EPS)
    # The unit q-ball grows with q, so gamma_q is nondecreasing in q.
    assert all(a.lower <= b.upper for a, b in zip(values, values[1:]))


@settings(max_examples=20, deadline=None)
@given(
    n=st.integers(1, 30),
    d=st.integers(1, 8),
    gamma=st.floats(0.02, 0.3),
    seed=st.integers(0, 2**16),
    q=st.floats(1.05, 2.0),
)
def test_max_margin_q_certificate_on_random_separable_data(n, d, gamma, seed, q):
    A = _signed(n, d, gamma, seed)
    result = max_margin_q(A, q)
    assert result.lower <= result.upper * (1 + 4 * EPS)
    assert result.width <= 1e-10 * result.upper
    assert result.lower == margin(A, result.direction)


def test_max_margin_q_validates_q_and_separability():
    A = _signed(20, 5, 0.1, 0)
    with pytest.raises(ValueError, match=r"q must lie in \(1, 2\]"):
        max_margin_q(A, 3.0)
    with pytest.raises(ValueError, match="A is not separable"):
        max_margin_q(np.array([[1.0, 0.0], [-1.0, 0.0]]), 1.5)


# ------------------------------------------------------------------------------------------------
# Scale invariance and tiny margins (issue 11, item 1)
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("gamma", [1e-8, 1e-12, 1e-17, 1e-300])
def test_max_margin_of_tiny_symmetric_pair_is_exact_and_certified(gamma):
    """Regression: below about 2e-8 the old absolute LDP test called these separable rows
    "not separable", while the Perceptron separates them in 2 updates."""
    from gamedyn.games.margin.original import perceptron

    A = signed_rows(*symmetric_pair(gamma))
    result = max_margin(A)
    assert result.gamma == pytest.approx(gamma, rel=4 * EPS)
    assert result.gamma <= result.upper * (1 + 4 * EPS)
    assert result.gamma == margin(A, result.direction) > 0
    if gamma >= 1e-17:  # the Perceptron's own updates underflow far below
        w, updates = perceptron(A, 10)
        assert updates <= 2 and margin(A, w) > 0


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(DATASETS[:2] + DATASETS[3:]), st.integers(-1000, 1000))
def test_max_margin_scales_exactly_by_powers_of_two(args, power):
    A = _signed(*args)
    base, scaled = max_margin(A), max_margin(np.ldexp(A, power))
    assert scaled.gamma == np.ldexp(base.gamma, power) and scaled.upper == np.ldexp(base.upper, power)
    np.testing.assert_array_equal(scaled.direction, base.direction)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(DATASETS[:2] + DATASETS[3:]), st.floats(1e-300, 1e300))
def test_max_margin_is_linear_in_the_scale(args, c):
    """max_margin(c A) = c max_margin(A) for every c > 0, e.g. 1e-8 A (the issue's reproducer)."""
    A = _signed(*args)
    base, scaled = max_margin(A), max_margin(c * A)
    assert scaled.gamma == pytest.approx(c * base.gamma, rel=1e-12)
    assert scaled.upper == pytest.approx(c * base.upper, rel=1e-12)


def test_max_margin_of_1e_minus_8_times_a_separable_set():
    A = _signed(20, 5, 0.1, 0)
    assert max_margin(1e-8 * A).gamma == pytest.approx(1e-8 * max_margin(A).gamma, rel=1e-13)


@pytest.mark.parametrize("q", [1.2, 1.5, 2.0])
@pytest.mark.parametrize("c", [1e-8, 1e-300, 1e300])
def test_max_margin_q_is_linear_in_the_scale(q, c):
    A = _signed(20, 5, 0.1, 0)
    base, scaled = max_margin_q(A, q), max_margin_q(c * A, q)
    assert scaled.lower == pytest.approx(c * base.lower, rel=1e-12)
    assert scaled.upper == pytest.approx(c * base.upper, rel=1e-12)


@pytest.mark.parametrize("q", [1.2, 1.5, 2.0])
def test_max_margin_q_of_tiny_symmetric_pair(q):
    """Rows (gamma, +-h): w = e_1 has ||w||_q = 1 and margin gamma; pi = (1/2, 1/2) gives A^T pi = gamma e_1."""
    result = max_margin_q(signed_rows(*symmetric_pair(1e-8)), q)
    assert result.lower == pytest.approx(1e-8, rel=1e-12) and result.upper == pytest.approx(1e-8, rel=1e-12)


def test_non_separable_verdict_is_named_and_certifies_an_upper_bound():
    from gamedyn.certify import NotSeparableError

    B = np.random.default_rng(0).normal(size=(50, 5))  # 0 is inside the hull, at any scale
    for scale in (1.0, 1e-200, 1e200):
        with pytest.raises(NotSeparableError, match="proved exactly") as caught:
            max_margin(scale * B)
        assert 0.0 <= caught.value.upper <= 1e-13 * scale * np.max(np.linalg.norm(B, axis=1))
        dual = caught.value.dual
        assert np.all(dual >= 0) and abs(np.sum(dual) - 1.0) <= 1e-15 and np.count_nonzero(dual) <= 6


def test_undecided_verdict_reports_the_bracket(monkeypatch):
    """When neither end is certified (here: a solver that returns a poor dual, on separable rows: w =
    (1e-4, 1) has margins 1e-4, 9e-4, 1, so no Gordan proof exists either) the oracle says so."""
    import gamedyn.certify.margins as margins

    A = np.array([[1.0, 0.0], [-1.0, 1e-3], [0.0, 1.0]])
    monkeypatch.setattr(margins.scipy.optimize, "nnls", lambda E, f, maxiter=None: (np.array([0.0, 0.0, 1.0]), 0.0))
    with pytest.raises(margins.MarginUndecidedError, match="could not decide") as caught:
        margins.max_margin(A)
    assert caught.value.lower <= 0.0 < caught.value.upper == pytest.approx(1.0)


def test_rate_checks_accept_a_tiny_margin():
    """Regression (issue 11 item 1, knock-on): the rate checks called the oracle, which refused."""
    from gamedyn.paper import rates

    A = signed_rows(*symmetric_pair(1e-8))
    for check in rates.theorem5(A, 3) + rates.theorem7(A, 3, 2.0):
        assert np.isfinite(check.measured) and np.isfinite(check.bound)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 60), st.integers(1, 8), st.floats(1e-4, 0.3), st.sampled_from([1e-6, 1e-3, 0.01, 0.1]),
       st.integers(0, 2**32 - 1))
def test_max_margin_with_tol_is_a_certified_bracket_within_tol(n, d, gamma, tol, seed):
    """tol > 0 may skip the polish, never the certificate: gamma <= gamma* <= upper (against the
    polished oracle) and (upper - gamma) <= tol * upper."""
    A = signed_rows(*make_separable(n, d, gamma, seed=seed))
    exact = max_margin(A)
    early = max_margin(A, tol=tol)
    assert early.gamma <= exact.upper * (1 + 1e-12) and exact.gamma <= early.upper * (1 + 1e-12)
    assert early.upper - early.gamma <= tol * early.upper + 1e-15
    assert early.gamma > 0 and abs(float(np.linalg.norm(early.direction)) - 1.0) < 1e-12
    np.testing.assert_allclose(float(np.min(A @ early.direction)), early.gamma, rtol=1e-12)


@pytest.mark.parametrize("tol", [-0.1, 1.0, float("nan"), "0.1", True])
def test_max_margin_refuses_a_bad_tol(tol):
    with pytest.raises(ValueError, match="tol"):
        max_margin(np.array([[1.0, 0.0], [0.5, 0.5]]), tol=tol)


# ------------------------------------------------------------------------------------------------
# Verdicts are proofs; norms neither underflow nor overflow (issue 16)
# ------------------------------------------------------------------------------------------------


def _exact_min_margin(A, w):
    """min_i a_i . w in exact rational arithmetic (float64 values are dyadic rationals)."""
    from fractions import Fraction

    w = [Fraction(float(value)) for value in w]
    return min(sum(Fraction(float(a)) * b for a, b in zip(row, w)) for row in np.asarray(A, dtype=np.float64))


def test_max_margin_of_a_tiny_row_keeps_upper_above_gamma():
    """Regression (issue 16, 3): the norm of A^T pi = (1e-200, 1e-200) underflowed, upper = 0 < gamma."""
    result = max_margin([[1.0, 0.0], [1e-200, 1e-200]])
    exact = np.sqrt(2.0) * 1e-200  # the min-norm point of the hull is the tiny row itself
    assert result.gamma == pytest.approx(exact, rel=4 * EPS) and result.upper == pytest.approx(exact, rel=4 * EPS)
    assert result.gamma <= result.upper and result.gap >= 0


@settings(max_examples=30, deadline=None)
@given(st.integers(540, 1020), st.sampled_from([1.2, 1.5, 2.0]))
def test_brackets_hold_when_a_row_is_tiny(k, q):
    """Rows (1, 0) and 2^-k (1, 1): a2 . (a1 - a2) > 0, so the hull's min-norm point is a2 and
    gamma_q = ||a2||_p = 2^-k 2^(1/p) in every norm. Every bracket holds with lower <= upper (the old
    l2 upper underflowed to 0 for k >= 538)."""
    A = np.array([[1.0, 0.0], [2.0 ** -k, 2.0 ** -k]])
    p = q / (q - 1)
    exact = 2.0 ** -k * 2.0 ** (1 / p)
    result = max_margin_q(A, q)
    assert result.lower <= result.upper
    assert result.lower <= exact * (1 + 8 * EPS) and result.upper >= exact * (1 - 8 * EPS)
    if q == 2.0:
        oracle = max_margin(A)
        assert oracle.gamma <= oracle.upper and oracle.gamma <= exact * (1 + 4 * EPS) <= oracle.upper * (1 + 8 * EPS)
    assert normalized_margin(A, [2.0 ** -k, 2.0 ** -k]) == pytest.approx(2.0 ** -k / np.sqrt(2.0), rel=4 * EPS)


def test_max_margin_never_calls_separable_rows_not_separable():
    """Regression (issue 16, 1): rows (1, 1) and -(1, 1 - 2^-52) are separable (w = (-1 + 2^-53, 1)
    has margins 2^-53 exactly), by a relative margin ~8e-17 below the rounding level; the old
    oracle raised NotSeparableError. Now: undecided, with a bracket that holds."""
    from gamedyn.certify import MarginUndecidedError, NotSeparableError

    A = np.array([[1.0, 1.0], [-1.0, -(1.0 - 2.0 ** -52)]])
    w = np.array([-1.0 + 2.0 ** -53, 1.0])
    assert _exact_min_margin(A, w) > 0
    with pytest.raises(MarginUndecidedError) as caught:
        max_margin(A)
    assert not isinstance(caught.value, NotSeparableError)
    gamma_lower = float(_exact_min_margin(A, w)) / np.linalg.norm(w)
    assert caught.value.upper >= gamma_lower * (1 - 4 * EPS)
    for scale in (2.0 ** -900, 2.0 ** 900):  # the same verdict at every scale
        with pytest.raises(MarginUndecidedError) as caught:
            max_margin(scale * A)
        assert not isinstance(caught.value, NotSeparableError)
