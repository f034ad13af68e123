"""Tests for gamedyn.logistic (seed paper 2, spec separable-logistic.md)."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from gamedyn.io import make_separable, signed_rows, symmetric_pair
from gamedyn.logistic import (
    IncreasingSchedule,
    adaptive_sgd,
    block_adaptive_sgd,
    exp_potential,
    gd,
    lemma_3_2_log,
    log_logistic_loss,
    log_loss,
    log_sigmoid,
    logistic_loss,
    resolve_margin,
    sgd_coefficient,
    sgd_indices,
    theorem_3_3_i_log,
    theorem_3_3_ii_log,
    theorem_3_4,
    theorem_3_5_blocks,
    theorem_3_5_horizon,
)
from gamedyn.certify import max_margin


def pair(gamma):
    return signed_rows(*symmetric_pair(gamma))


def synthetic(n, d, gamma, seed):
    return signed_rows(*make_separable(n, d, gamma, seed))


def digits(first, second):
    pytest.importorskip("sklearn")
    from gamedyn.io import digits_pair

    return signed_rows(*digits_pair(first, second))


def sigma(u):
    return 1.0 / (1.0 + np.exp(-u))


# ------------------------------------------------------------------------------------------------
# primitives
# ------------------------------------------------------------------------------------------------

finite_margins = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(finite_margins)
def test_log_logistic_loss_matches_mpmath(m):
    exact = mpmath.log(mpmath.log1p(mpmath.exp(-mpmath.mpf(m))))
    got = float(log_logistic_loss(m))
    assert math.isfinite(got)
    assert abs(got - float(exact)) <= 4e-16 * max(1.0, abs(float(exact)))


def test_log_logistic_loss_switch_point_is_continuous():
    m = np.nextafter(33.0, [0.0, 100.0])
    below, above = log_logistic_loss(m)
    assert abs(above - below) < 1e-13


@settings(max_examples=100, deadline=None)
@given(
    st.integers(1, 6),
    st.integers(1, 4),
    st.integers(0, 2**32 - 1),
    st.floats(0.01, 20.0),
)
def test_log_loss_equals_direct_formula_where_representable(n, d, seed, scale):
    rng = np.random.default_rng(seed)
    A = rng.uniform(-1, 1, (n, d))
    w = scale * rng.standard_normal(d)
    direct = math.log(np.mean(np.log1p(np.exp(-(A @ w)))))
    assert abs(log_loss(A, w) - direct) <= 1e-13 * max(1.0, abs(direct))


def test_log_loss_represents_tiny_losses():
    A = np.array([[1.0, 0.0], [0.6, 0.8]])
    assert log_loss(A, np.array([1e4, 0.0])) == pytest.approx(-6000.0 - math.log(2.0), rel=1e-15)
    assert log_loss(A[:1], np.array([1e4, 0.0])) == -1e4
    assert float(logistic_loss(1e4)) == 0.0  # the reason the log domain is needed


def test_exp_potential_and_log_sigmoid():
    A = synthetic(30, 3, 0.2, 1)
    assert exp_potential(A, np.zeros(3)) == pytest.approx(1.0, rel=1e-15)
    w = np.array([0.3, -0.2, 1.0])
    assert exp_potential(A, w) == pytest.approx(np.mean(np.exp(-(A @ w))), rel=1e-13)
    assert exp_potential(pair(0.5), np.array([100.0, 0.0])) == pytest.approx(math.exp(-50.0), rel=1e-14)
    assert exp_potential(np.ones((2, 3)), np.full(3, -1e6)) == math.inf  # overflow is reported as inf
    assert np.all(np.isfinite(log_sigmoid(np.array([-1e300, -800.0, 0.0, 800.0]))))
    assert float(log_sigmoid(-800.0)) == -800.0


@settings(max_examples=300, deadline=None)
@given(finite_margins, st.floats(min_value=5e-324, max_value=1.0, exclude_max=True))
def test_sgd_coefficient_in_unit_interval(m, eps):
    c = float(sgd_coefficient(m, eps))
    assert 0.0 <= c <= 1.0
    if m < 700:  # sigma(-m) is then a normal float, so c is too
        assert c > 0.0


@settings(max_examples=200, deadline=None)
@given(st.floats(-30, 30), st.floats(1e-12, 0.99))
def test_sgd_coefficient_matches_naive_formula_where_representable(m, eps):
    naive = min(1.0 / eps, 1.0 / math.log1p(math.exp(-m))) * (1.0 / (1.0 + math.exp(m)))
    assert float(sgd_coefficient(m, eps)) == pytest.approx(naive, rel=1e-12)


# ------------------------------------------------------------------------------------------------
# the schedule (7)
# ------------------------------------------------------------------------------------------------


def direct_schedule(gamma, T, f0=1.0, w0_norm=0.0):
    """Equation (7) in the linear domain, written independently of the module."""
    eta = 1.0 / (math.log(2.0) + w0_norm)
    S = gamma**2 * eta
    etas, Ss = [eta], [S]
    for _ in range(T):
        D = max(2.0 * f0, math.log(S) ** 2)
        eta = S / (2.0 * D)
        S = S + gamma**2 * eta
        etas.append(eta)
        Ss.append(S)
    return np.array(etas), np.array(Ss)


@pytest.mark.parametrize("gamma", [0.05, 0.3, 1.0])
def test_log_domain_schedule_equals_direct_recursion(gamma):
    T = 100_000
    log_eta, log_S = IncreasingSchedule(gamma).compute(T)
    eta, S = direct_schedule(gamma, T)
    assert np.all(np.isfinite(S))
    # relative agreement of S_t and eta_t: |ln x_log - ln x_direct| <= 1e-12
    assert np.max(np.abs(log_S - np.log(S))) <= 1e-12
    assert np.max(np.abs(log_eta - np.log(eta))) <= 1e-12


def test_log_domain_schedule_survives_where_direct_overflows():
    schedule = IncreasingSchedule(1.0)
    log_S = schedule.log_S(10**6)
    assert np.all(np.isfinite(log_S)) and np.all(np.diff(log_S) > 0)
    # spec 4.4: exact ln S at t = 1e6 is 114.47 for gamma = 1 ((1.5 gamma^2 t)^(1/3) = 114.47)
    assert log_S[-1] == pytest.approx(114.47, abs=0.005)


@pytest.mark.parametrize("gamma, eta1", [(0.1, 4.0e-4), (0.05, 5.7e-5), (0.02, 5.2e-6)])
def test_phase_one_step_collapse_values(gamma, eta1):
    """Spec 2.1: for small gamma eta_1 = S_0 / (2 ln^2 S_0) (values printed to 2 digits)."""
    log_eta, _ = IncreasingSchedule(gamma).compute(1)
    assert math.exp(log_eta[0]) == pytest.approx(1.0 / math.log(2.0), rel=1e-15)
    assert math.exp(log_eta[1]) == pytest.approx(eta1, abs=0.051 * eta1)
    S0 = gamma**2 / math.log(2.0)
    assert math.exp(log_eta[1]) == pytest.approx(S0 / (2 * math.log(S0) ** 2), rel=1e-13)


@pytest.mark.parametrize("gamma", [0.1, 0.3, 0.40, 0.42, 0.6, 0.9])
def test_three_phases(gamma):
    schedule = IncreasingSchedule(gamma)
    tau1, tau2 = schedule.tau1, schedule.tau2
    assert (tau1 > 0) == (gamma < 0.4105)
    T = tau2 + 200
    log_eta, log_S = schedule.compute(T)
    assert log_S[tau1] > -math.sqrt(2) and (tau1 == 0 or log_S[tau1 - 1] <= -math.sqrt(2))
    assert log_S[tau2] > math.sqrt(2) and log_S[tau2 - 1] <= math.sqrt(2)
    t = np.arange(1, T + 1)
    prev = log_S[t - 1]
    ln2_branch = prev - math.log(2.0) - 2 * np.log(np.abs(prev))
    geometric = prev - math.log(4.0)
    in_phase2 = (t > tau1) & (t <= tau2)
    np.testing.assert_allclose(log_eta[t][in_phase2], geometric[in_phase2], rtol=0, atol=1e-12)
    np.testing.assert_allclose(log_eta[t][~in_phase2], ln2_branch[~in_phase2], rtol=0, atol=1e-12)
    b = 1 + gamma**2 / 4
    np.testing.assert_allclose(np.diff(log_S)[tau1:tau2], math.log(b), rtol=1e-12)


def test_phase_three_growth_and_reference_tau2():
    gamma = max_margin(synthetic(1500, 80, 0.1, 2)).gamma
    assert gamma == pytest.approx(0.1027438, abs=1e-7)
    assert IncreasingSchedule(gamma).tau2 == 5525  # spec section 5, Fig. 2
    for g, ref in [(0.1, 24.61), (0.3, 51.30)]:
        assert IncreasingSchedule(g).log_S(10**6)[-1] == pytest.approx(ref, abs=0.005)


def test_lemma_a1_a2_sandwich():
    gamma = 0.3
    schedule = IncreasingSchedule(gamma)
    s = schedule.tau2 + 1
    log_S = schedule.log_S(s + 20_000)
    L = log_S[s]
    C1 = 1 + gamma**2 / (2 * L**2)
    C2 = 1.5 * gamma**2 + 0.75 * gamma**4 / L**3 + gamma**6 / (8 * L**6)
    dt = np.arange(log_S.size - s)
    cube = log_S[s:] ** 3
    assert np.all(cube >= L**3 + 1.5 * gamma**2 / C1 * dt - 1e-9)
    assert np.all(cube <= L**3 + C2 * dt + 1e-9)


def test_lnplus_variant_shortens_the_stall():
    paper, plus = IncreasingSchedule(0.1), IncreasingSchedule(0.1, "lnplus")
    assert plus.tau2 < paper.tau2
    log_eta, log_S = plus.compute(5)
    S0 = 0.01 / math.log(2.0)
    assert math.exp(log_eta[1]) == pytest.approx(S0 / 4.0, rel=1e-13)  # D = 2 F0 while S < 1


def test_schedule_rejects_bad_gamma_and_variant():
    for bad in (0.0, -0.1, float("nan"), float("inf")):
        with pytest.raises(ValueError, match=r"gamma.*'auto'"):
            IncreasingSchedule(bad)
    with pytest.raises(TypeError, match=r"from_data\(A, gamma='auto'\)"):
        IncreasingSchedule("auto")
    with pytest.raises(ValueError, match="variant"):
        IncreasingSchedule(0.1, "ln+")
    with pytest.raises(ValueError, match="T"):
        IncreasingSchedule(0.1).log_eta(0)


# ------------------------------------------------------------------------------------------------
# GD with the schedule (Theorem 3.3) and constant steps
# ------------------------------------------------------------------------------------------------

GD_SETS = [
    ("pair 0.2", lambda: pair(0.2), 20_000),
    ("pair 0.5", lambda: pair(0.5), 20_000),
    ("pair 0.9", lambda: pair(0.9), 20_000),
    ("d2 n200", lambda: synthetic(200, 2, 0.1, 0), 10_000),
    ("fig1 set", lambda: synthetic(1000, 10, 0.3, 4), 3_000),
    ("digits 4v9", lambda: digits(4, 9), 5_000),
    pytest.param("pair 0.05 (long stall)", lambda: pair(0.05), 100_000, marks=pytest.mark.slow),
]


@pytest.mark.parametrize("name, make, T", GD_SETS, ids=[getattr(s, "values", s)[0] for s in GD_SETS])
def test_gd_schedule_theorem_3_3(name, make, T):
    A = make()
    schedule = IncreasingSchedule.from_data(A)
    res = gd(A, T, schedule)
    assert res.log_loss.shape == (T + 1,) and res.log_eta.shape == (T,)
    assert np.all(np.isfinite(res.log_loss))
    # (i) L(w_t) <= 1/eta_t at every t; t = 0 is an equality up to rounding (spec 4.8)
    assert np.all(res.log_loss[:T] + res.log_eta <= 1e-12)
    assert abs(res.log_loss[0] + res.log_eta[0]) <= 1e-12
    np.testing.assert_array_equal(theorem_3_3_i_log(schedule, T - 1), -res.log_eta)
    # strictly decreasing loss at every step
    assert np.all(np.diff(res.log_loss) < 0)
    # (ii) the explicit rate
    t = np.arange(1, T + 1)
    assert np.all(res.log_loss[1:] <= theorem_3_3_ii_log(schedule.gamma, t))


@pytest.mark.parametrize("make", [lambda: synthetic(200, 2, 0.1, 0), lambda: pair(0.6)], ids=["d2 n200", "pair 0.6"])
def test_lemma_3_2_on_all_pairs_of_a_grid(make):
    """Lemma 3.2 on every (s, t) of a grid, both where S_{s,t} < 1 (stall) and S_{s,t} > 1."""
    A = make()
    schedule = IncreasingSchedule.from_data(A)
    T = 3000
    res = gd(A, T, schedule)
    grid = [0, 1, 5, 50, 400, 1500, 2999]
    for s in grid:
        w_s = gd(A, s, schedule).w if s else np.zeros(A.shape[1])
        F_s = exp_potential(A, w_s)
        for t in [u for u in grid + [T] if u > s]:
            assert res.log_loss[t] <= lemma_3_2_log(schedule, s, t, F_s) + 1e-12


@pytest.mark.parametrize("gamma", [0.2, 0.5])
def test_symmetric_pair_scalar_recursion_equals_gd(gamma):
    T = 5000
    A = pair(gamma)
    schedule = IncreasingSchedule(gamma)
    res = gd(A, T, schedule)
    eta = np.exp(schedule.log_eta(T))
    z = np.zeros(T + 1)
    for t in range(T):
        z[t + 1] = z[t] + gamma**2 * eta[t] * sigma(-z[t])
    np.testing.assert_allclose(A @ res.w, [z[T], z[T]], rtol=1e-12)
    np.testing.assert_allclose(res.log_loss, log_logistic_loss(z), rtol=1e-12)


def test_constant_step_float_stagnation_is_reported_not_hidden():
    """Spec 4.5: eta = 1000 on the Fig. 1 set freezes at 4.8e-29 (w stops moving in float64)."""
    A = synthetic(1000, 10, 0.3, 4)
    res = gd(A, 50, 1000.0)
    assert math.exp(res.log_loss[-1]) == pytest.approx(4.8e-29, rel=0.01)
    assert np.all(res.log_loss[5:] == res.log_loss[-1])
    np.testing.assert_array_equal(res.log_eta, math.log(1000.0))


def test_huge_step_never_produces_nan():
    A = pair(0.5)
    res = gd(A, 6, 1e300)
    assert np.all(np.isfinite(res.w)) and np.all(np.isfinite(res.log_loss))
    assert res.log_loss[-1] < -1e290  # a loss far below 1e-300, still finite in log form


def test_gd_losses_far_below_1e_minus_300_are_finite():
    A = pair(0.5)
    res = gd(A, 40, 1e4)
    z = A[0] @ res.w
    assert res.log_loss[-1] < -700 and np.all(np.isfinite(res.log_loss))
    assert res.log_loss[-1] == pytest.approx(float(log_logistic_loss(z)), rel=1e-13)


def test_gd_float32_sparse_and_w0():
    A = synthetic(100, 4, 0.2, 3)
    schedule = IncreasingSchedule.from_data(A)
    ref = gd(A, 300, schedule)
    A32 = A.astype(np.float32)
    schedule32 = IncreasingSchedule.from_data(A32)
    r32 = gd(A32, 300, schedule32)
    assert r32.w.dtype == np.float64 and np.all(np.isfinite(r32.log_loss))
    np.testing.assert_array_equal(r32.w, gd(A32.astype(np.float64), 300, schedule32).w)  # computed in float64
    rs = gd(sp.csr_matrix(A), 300, schedule)
    np.testing.assert_allclose(rs.w, ref.w, rtol=1e-12)
    np.testing.assert_allclose(rs.log_loss, ref.log_loss, rtol=1e-12)
    w0 = np.array([1.0, -2.0, 0.5, 0.0])
    with pytest.raises(ValueError, match="from_data"):
        gd(A, 10, schedule, w0=w0)
    start = IncreasingSchedule.from_data(A, schedule.gamma, w0)
    assert start.w0_norm == pytest.approx(np.linalg.norm(w0)) and start.f0 == pytest.approx(exp_potential(A, w0))
    res = gd(A, 2000, start, w0=w0)
    assert res.log_eta[0] == pytest.approx(-math.log(math.log(2) + np.linalg.norm(w0)))
    assert np.all(res.log_loss[:-1] + res.log_eta <= 1e-12) and np.all(np.diff(res.log_loss) < 0)


def test_gd_validation_messages():
    A = pair(0.3)
    with pytest.raises(ValueError, match="T must be >= 1"):
        gd(A, 0, 1.0)
    with pytest.raises(TypeError, match="T must be an integer"):
        gd(A, 2.5, 1.0)
    with pytest.raises(ValueError, match="step must be finite and > 0"):
        gd(A, 5, -1.0)
    with pytest.raises(TypeError, match="step must be a positive float"):
        gd(A, 5, "auto")
    with pytest.raises(ValueError, match="w0 has length 3"):
        gd(A, 5, 1.0, w0=np.zeros(3))
    with pytest.raises(ValueError, match="NaN"):
        gd(np.array([[np.nan, 1.0]]), 5, 1.0)
    with pytest.raises(ValueError, match="2-D"):
        gd(np.ones(3), 5, 1.0)


# ------------------------------------------------------------------------------------------------
# margin input
# ------------------------------------------------------------------------------------------------


def test_margin_auto_uses_certified_lower_value():
    A = synthetic(300, 5, 0.2, 9)
    mm = max_margin(A)
    assert resolve_margin("auto", A) == mm.gamma
    assert resolve_margin(None, A) == mm.gamma
    assert IncreasingSchedule.from_data(A).gamma == mm.gamma
    assert resolve_margin(0.25) == 0.25
    assert resolve_margin(np.float32(0.25)) == 0.25


def test_margin_rejections_name_gamma_and_fix():
    for bad in (0, -0.3):
        with pytest.raises(ValueError, match=r"gamma must be a finite margin > 0.*gamma='auto'"):
            resolve_margin(bad)
    with pytest.raises(ValueError, match="needs the data A"):
        resolve_margin("auto")
    with pytest.raises(ValueError, match="'auto'"):
        resolve_margin("max")
    with pytest.raises(ValueError):  # not separable: max_margin refuses
        resolve_margin("auto", np.array([[1.0, 0.0], [-1.0, 0.0]]))


# ------------------------------------------------------------------------------------------------
# Adaptive SGD (Theorem 3.4)
# ------------------------------------------------------------------------------------------------


def naive_sgd(A, idx, log_eps_per_step):
    """Equations (10)+(11) in the linear domain, for moderate eps only."""
    w = np.zeros(A.shape[1])
    for t, i in enumerate(idx):
        m = A[i] @ w
        eta = min(math.exp(-log_eps_per_step[t]), 1.0 / math.log1p(math.exp(-m)))
        w = w + eta * sigma(-m) * A[i]
    return w


def test_adaptive_sgd_equals_naive_formula_and_replays():
    A = synthetic(200, 2, 0.1, 0)
    T = 3000
    res = adaptive_sgd(A, T, 1e-4, seed=5)
    idx = sgd_indices(200, T, 5)
    np.testing.assert_allclose(res.w, naive_sgd(A, idx, np.full(T, math.log(1e-4))), rtol=1e-12)
    again = adaptive_sgd(A, T, 1e-4, indices=idx)
    np.testing.assert_array_equal(again.w, res.w)
    np.testing.assert_array_equal(again.log_loss, res.log_loss)
    assert again.hitting_time == res.hitting_time
    other = adaptive_sgd(A, T, 1e-4, seed=6)
    assert not np.array_equal(other.w, res.w)


def test_sgd_index_stream_is_chunked_default_rng():
    idx = sgd_indices(7, 10_000, 3)
    rng = np.random.default_rng(3)
    expected = np.concatenate([rng.integers(0, 7, 8192), rng.integers(0, 7, 8192)])[:10_000]
    np.testing.assert_array_equal(idx, expected)


@pytest.mark.parametrize("scale", [1.0, 3.0])
def test_hitting_time_skip_rule_is_exact(scale):
    """The cheap hitting time (records only at 0 and T) equals the one read off every-t records."""
    A = scale * synthetic(200, 2, 0.1, 0)
    for seed in range(3):
        full = adaptive_sgd(A, 3000, 1e-6, seed=seed, record=np.arange(3001))  # every t, asked for
        hit = int(np.argmax(full.log_loss <= math.log(1e-6)))
        assert full.log_loss[hit] <= math.log(1e-6) and full.hitting_time == hit
        cheap = adaptive_sgd(A, 3000, 1e-6, seed=seed, record=[0, 3000])
        assert cheap.hitting_time == hit
        assert cheap.loss_evaluations < 3001 / 4
        np.testing.assert_array_equal(cheap.log_loss, full.log_loss[[0, 3000]])


SGD_SETS = [
    ("pair 0.3", lambda: pair(0.3), 5_000),
    ("d2 n200", lambda: synthetic(200, 2, 0.1, 0), 20_000),
    ("digits 4v9", lambda: digits(4, 9), 14_000),
    ("digits 1v5", lambda: digits(1, 5), 22_000),
]


@pytest.mark.parametrize("name, make, T", SGD_SETS, ids=[s[0] for s in SGD_SETS])
def test_adaptive_sgd_hitting_times_below_theorem_3_4(name, make, T):
    A = make()
    n, gamma = A.shape[0], max_margin(A).gamma
    for eps in (1e-2, 1e-4, 1e-8, 1e-16):
        hits = [adaptive_sgd(A, T, eps, seed=s, record=[0]).hitting_time for s in range(10)]
        assert None not in hits, (name, eps, hits)
        bound = theorem_3_4(n, gamma, eps)
        assert max(hits) < bound and np.mean(hits) < 0.1 * bound


@pytest.mark.slow
def test_adaptive_sgd_fig3_set_hits_every_seed():
    A = synthetic(5000, 10, 0.1, 3)
    gamma = max_margin(A).gamma
    assert gamma == pytest.approx(0.1003351, abs=1e-7)
    for eps in (1e-2, 1e-8, 1e-16):
        hits = [adaptive_sgd(A, 15_000, eps, seed=s, record=[0]).hitting_time for s in range(10)]
        assert None not in hits and max(hits) < theorem_3_4(5000, gamma, eps)


@pytest.mark.parametrize("eps", [1e-300, 5e-324])
def test_tiny_eps_stays_finite(eps):
    A = np.array([[0.6, 0.8]])
    res = adaptive_sgd(A, 2000, eps, seed=0, record=np.arange(2001))
    assert np.all(np.isfinite(res.log_loss)) and np.all(np.isfinite(res.w))
    # the loss falls below eps (then the 1/eps cap slows it): far below 1e-300, still finite in log form
    assert res.log_loss[-1] <= math.log(eps) < math.log(1e-300) + 1e-9
    assert res.log_loss[res.hitting_time] <= math.log(eps) < res.log_loss[res.hitting_time - 1]


def test_tiny_eps_on_real_data_has_no_nan():
    A = synthetic(200, 2, 0.1, 0)
    res = adaptive_sgd(A, 20_000, 1e-300, seed=1, record=np.arange(0, 20_001, 500))
    assert np.all(np.isfinite(res.log_loss)) and np.all(np.isfinite(res.w))
    assert res.log_loss[-1] < res.log_loss[0]


def test_adaptive_sgd_sparse_float32_and_record():
    A = synthetic(100, 5, 0.2, 2)
    ref = adaptive_sgd(A, 2000, 1e-6, seed=1, record=[0, 10, 2000])
    rs = adaptive_sgd(sp.csr_matrix(A), 2000, 1e-6, seed=1, record=[0, 10, 2000])
    np.testing.assert_allclose(rs.w, ref.w, rtol=1e-12)
    assert rs.hitting_time == ref.hitting_time
    # a CSR matrix with duplicate entries (A = half + half) behaves like the summed matrix
    half = sp.coo_matrix(A / 2)
    rows, cols = np.concatenate([half.row, half.row]), np.concatenate([half.col, half.col])
    order = np.argsort(rows, kind="stable")
    indptr = np.searchsorted(rows[order], np.arange(A.shape[0] + 1))
    dup = sp.csr_matrix((np.concatenate([half.data, half.data])[order], cols[order], indptr), shape=A.shape)
    assert not dup.has_canonical_format
    rd = adaptive_sgd(dup, 2000, 1e-6, seed=1, record=[0, 10, 2000])
    np.testing.assert_allclose(rd.w, ref.w, rtol=1e-12)
    r32 = adaptive_sgd(A.astype(np.float32), 2000, 1e-6, seed=1, record=[2000, 0, 10])
    np.testing.assert_array_equal(r32.times, [0, 10, 2000])
    assert r32.w.dtype == np.float64 and np.all(np.isfinite(r32.log_loss))


def test_adaptive_sgd_validation_messages():
    A = pair(0.3)
    for bad in (0.0, 1.0, -1e-3, 2.0, float("nan")):
        with pytest.raises(ValueError, match="eps must lie strictly between 0 and 1"):
            adaptive_sgd(A, 10, bad)
    with pytest.raises(ValueError, match="T must be >= 1"):
        adaptive_sgd(A, 0, 0.1)
    with pytest.raises(ValueError, match=r"indices must lie in \[0, n\)"):
        adaptive_sgd(A, 3, 0.1, indices=[0, 1, 2])
    with pytest.raises(ValueError, match="length >= T"):
        adaptive_sgd(A, 5, 0.1, indices=[0, 1])
    with pytest.raises(ValueError, match="either seed or indices"):
        adaptive_sgd(A, 2, 0.1, seed=1, indices=[0, 1])
    with pytest.raises(ValueError, match="record times must lie"):
        adaptive_sgd(A, 5, 0.1, record=[0, 6])
    with pytest.raises(ValueError, match="record must be a non-empty 1-D array"):
        adaptive_sgd(A, 5, 0.1, record=[[0, 1]])


# ------------------------------------------------------------------------------------------------
# Block Adaptive SGD (Theorem 3.5)
# ------------------------------------------------------------------------------------------------


def test_block_sgd_blocks_and_steps():
    A = synthetic(20, 5, 0.3, 7)
    gamma = max_margin(A).gamma
    assert gamma == pytest.approx(0.3635, abs=5e-5)
    N = theorem_3_5_blocks(20, gamma, 0.5, 0.5, 3)
    expected = [math.ceil(4 * 20 / (0.5 * gamma**2) * math.log(8 * 20 / (0.5 * 0.5 / 2**k)) ** 2) for k in range(3)]
    np.testing.assert_array_equal(N, expected)
    T = int(N[0] + N[1] + 100)
    res = block_adaptive_sgd(A, T, 0.5, 0.5, "auto", seed=2, record=[0, T])
    np.testing.assert_array_equal(res.block_starts, np.concatenate([[0], np.cumsum(N)]))
    np.testing.assert_allclose(res.block_eps, [0.5, 0.25, 0.125])
    idx = sgd_indices(20, T, 2)
    log_eps = math.log(0.5) - math.log(2) * np.repeat([0, 1, 2], [N[0], N[1], 100])
    np.testing.assert_allclose(res.w, naive_sgd(A, idx, log_eps), rtol=1e-11)
    # inside the first block it is Adaptive SGD with eps = eps0
    first = block_adaptive_sgd(A, 500, 0.5, 0.5, gamma, indices=idx)
    np.testing.assert_array_equal(first.w, adaptive_sgd(A, 500, 0.5, indices=idx).w)


# Runs are capped at T = min(horizon, cap): the hit comes long before the horizon, so the cap only
# shortens the run (a capped run that misses would fail the test, it can never make it pass).
BLOCK_CASES = [
    pytest.param("pair", 0.5, 1e-3, 10, 40_000, id="pair-1e-3"),
    pytest.param("pair", 0.5, 1e-6, 10, 40_000, id="pair-1e-6"),
    pytest.param("pair", 0.5, 1e-12, 3, 340_000, id="pair-1e-12", marks=pytest.mark.slow),
    pytest.param("n20", 0.5, 1e-3, 10, 20_000, id="n20-d0.5-1e-3", marks=pytest.mark.slow),
    pytest.param("n20", 0.1, 1e-3, 10, 20_000, id="n20-d0.1-1e-3", marks=pytest.mark.slow),
    pytest.param("n20", 0.5, 1e-6, 3, 450_000, id="n20-d0.5-1e-6", marks=pytest.mark.slow),
]


@pytest.mark.parametrize("data, delta, eps, seeds, cap", BLOCK_CASES)
def test_block_sgd_hits_within_theorem_3_5_horizon(data, delta, eps, seeds, cap):
    A = pair(0.5) if data == "pair" else synthetic(20, 5, 0.3, 7)
    n, gamma = A.shape[0], max_margin(A).gamma
    k_eps, horizon = theorem_3_5_horizon(n, gamma, 0.5, delta, eps)
    assert 0.5 / 2**k_eps <= eps < 0.5 / 2 ** (k_eps - 1)
    for seed in range(seeds):
        res = block_adaptive_sgd(A, min(horizon, cap), 0.5, delta, gamma, seed=seed, record=[0], target=eps)
        assert res.hitting_time is not None and res.hitting_time <= horizon


def test_block_sgd_and_bound_validation():
    A = pair(0.3)
    with pytest.raises(ValueError, match="eps0 must lie strictly between 0 and 1"):
        block_adaptive_sgd(A, 10, 1.5, 0.1, 0.3)
    with pytest.raises(ValueError, match="delta must lie strictly between 0 and 1"):
        block_adaptive_sgd(A, 10, 0.5, 0.0, 0.3)
    with pytest.raises(ValueError, match="gamma must be a finite margin > 0"):
        block_adaptive_sgd(A, 10, 0.5, 0.1, -0.3)
    with pytest.raises(ValueError, match="eps must be <= eps0"):
        theorem_3_5_horizon(10, 0.3, 0.01, 0.1, 0.1)
    with pytest.raises(ValueError, match="t must be finite iterations >= 1"):
        theorem_3_3_ii_log(0.3, [0, 1])
    assert theorem_3_4(10, 0.5, 1e-4) == pytest.approx(80 * math.log(4e5) ** 2)
    assert theorem_3_4(10, 0.5, 1e-4, delta=0.1) == pytest.approx(800 * math.log(4e5) ** 2)
    assert theorem_3_5_horizon(10, 0.3, 0.5, 0.1, 0.5) == (0, int(theorem_3_5_blocks(10, 0.3, 0.5, 0.1, 1)[0]))


margin_arrays = st.lists(
    st.one_of(st.floats(-800, 800), st.floats(600, 1e5), st.floats(-1e5, 1e5)), min_size=1, max_size=30
)


@settings(max_examples=300, deadline=None)
@given(margin_arrays)
def test_fast_loss_path_equals_log_sum_exp_path(values):
    from gamedyn.logistic import _log_mean_loss, _loss_and_log_sigmoid

    m = np.array(values)
    fast, log_sig = _loss_and_log_sigmoid(m)
    exact = _log_mean_loss(m)
    assert math.isfinite(fast) and abs(fast - exact) <= 1e-13 * max(1.0, abs(exact))
    reference = log_sigmoid(-m)
    assert np.all(np.abs(log_sig - reference) <= 1e-15 * np.maximum(1.0, np.abs(m)))


def test_gd_snapshots_match_shorter_runs():
    A = synthetic(100, 3, 0.2, 0)
    schedule = IncreasingSchedule.from_data(A)
    res = gd(A, 200, schedule, snapshots=[200, 0, 37])
    np.testing.assert_array_equal(res.snapshot_times, [0, 37, 200])
    np.testing.assert_array_equal(res.snapshots[0], 0.0)
    np.testing.assert_array_equal(res.snapshots[1], gd(A, 37, schedule).w)
    np.testing.assert_array_equal(res.snapshots[2], res.w)
    with pytest.raises(ValueError, match="snapshots times must lie"):
        gd(A, 5, 1.0, snapshots=[9])


# ------------------------------------------------------------------------------------------------
# Small margins, long horizons (issue 11, item 6)
# ------------------------------------------------------------------------------------------------


def _first_above_by_steps(schedule, level):
    """The old tau: run the recursion (7) until ln S_t > level."""
    for t, (_, log_s) in enumerate(schedule._steps()):
        if log_s > level:
            return t


TAU_GAMMAS = [float(g) for g in np.geomspace(0.03, 0.95, 10)] + [0.4105, 0.42]


@pytest.mark.parametrize("variant", ["paper", "lnplus"])
@pytest.mark.parametrize("w0_norm, f0", [(0.0, 1.0), (0.7, 2.5), (2.0, 0.3)])
def test_tau_without_stepping_equals_the_step_loop(variant, w0_norm, f0):
    for gamma in TAU_GAMMAS:
        schedule = IncreasingSchedule(gamma, variant, w0_norm, f0)
        level = math.sqrt(2 * f0)
        assert schedule.tau1 == _first_above_by_steps(schedule, -level), (gamma, variant)
        assert schedule.tau2 == _first_above_by_steps(schedule, level), (gamma, variant)


@pytest.mark.slow
@pytest.mark.parametrize("gamma", [0.02])  # 0.015 and 0.01 (4.6e6 steps) also agree; 30 s more
def test_tau_without_stepping_equals_the_step_loop_at_millions_of_steps(gamma):
    schedule = IncreasingSchedule(gamma)
    assert schedule.tau1 == _first_above_by_steps(schedule, -math.sqrt(2))
    assert schedule.tau2 == _first_above_by_steps(schedule, math.sqrt(2))


def test_tau_at_gamma_one_thousandth_takes_milliseconds():
    """Regression: the step loop did not finish in 120 s (1.6e9 steps)."""
    import time

    start = time.process_time()
    schedule = IncreasingSchedule(0.001)
    tau1, tau2 = schedule.tau1, schedule.tau2
    assert time.process_time() - start < 0.5
    # phase 1: ln^3 S falls in magnitude by about 1.5 gamma^2 a step (Lemma A.3); phase 2 is geometric
    x0 = 2 * math.log(0.001) - math.log(math.log(2.0))
    assert tau1 == pytest.approx((abs(x0) ** 3 - 2**1.5) / (1.5 * 0.001**2), rel=2e-3)
    assert abs((tau2 - tau1) - 2 * math.sqrt(2) / math.log1p(0.001**2 / 4)) <= 2


@pytest.mark.parametrize("gamma", [1e-7, 1e-170, 1e-300])
def test_seed2_bounds_at_tiny_margins_are_exact_or_infinite(gamma):
    """Regression: OverflowError below gamma ~ 3e-7 and ZeroDivisionError below ~1e-170."""
    from fractions import Fraction

    n, eps0, delta = 100, 0.5, 0.1
    blocks = theorem_3_5_blocks(n, gamma, eps0, delta, 3)
    for k, length in enumerate(blocks):
        log_arg = math.log(8.0 * n / delta) - math.log(eps0) + k * math.log(2.0)
        exact = 4 * n * Fraction(log_arg) ** 2 / (Fraction(delta) * Fraction(gamma) ** 2)
        assert length == math.ceil(exact) or (gamma > 1e-150 and length == pytest.approx(float(exact), rel=1e-15))
        assert length > np.iinfo(np.int64).max  # beyond int64: exact Python ints, never wrapped
    k_eps, horizon = theorem_3_5_horizon(n, gamma, eps0, delta, 1e-3)
    assert horizon == sum(theorem_3_5_blocks(n, gamma, eps0, delta, k_eps + 1))
    bound = theorem_3_4(n, gamma, 1e-3)
    assert bound > 1e13 and (math.isinf(bound) or bound == pytest.approx(2 * n / gamma**2 * math.log(4e5) ** 2))
    assert np.all(np.isfinite(theorem_3_3_ii_log(gamma, [1.0, 10.0])))
    schedule = IncreasingSchedule(gamma)
    assert isinstance(schedule.tau1, int) and schedule.tau2 > schedule.tau1 > 10**13
    result = block_adaptive_sgd(pair(0.3), 50, eps0, delta, gamma, seed=0)
    assert result.block_starts.tolist() == [0, int(theorem_3_5_blocks(2, gamma, eps0, delta, 1)[0])]
    np.testing.assert_array_equal(result.w, adaptive_sgd(pair(0.3), 50, eps0, seed=0).w)


def test_adaptive_sgd_default_does_not_evaluate_the_loss_every_step():
    """Regression: the default recorded ln L(w_t) at every t, one full loss per step."""
    A = synthetic(200, 2, 0.1, 0)
    T = 3000
    every = adaptive_sgd(A, T, 1e-6, seed=1, record=np.arange(T + 1))
    default = adaptive_sgd(A, T, 1e-6, seed=1)
    assert default.times.tolist() == [0, T] and default.loss_evaluations < (T + 1) / 4
    assert default.hitting_time == every.hitting_time
    np.testing.assert_array_equal(default.w, every.w)
    np.testing.assert_array_equal(default.log_loss, every.log_loss[[0, T]])


def test_sgd_index_stream_is_drawn_lazily_and_replays_bit_for_bit():
    """Regression: the O(T) stream (and every-t records) were allocated up front."""
    import tracemalloc

    A = pair(0.3)
    T = 50_000
    tracemalloc.start()
    try:
        result = adaptive_sgd(A, T, 1e-300, seed=4)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * T / 2  # the old stream alone took 8 T bytes
    replay = adaptive_sgd(A, T, 1e-300, indices=sgd_indices(2, T, 4))
    np.testing.assert_array_equal(result.w, replay.w)
    assert result.hitting_time == replay.hitting_time
    blocks = block_adaptive_sgd(A, 20_000, 0.5, 0.5, 0.3, seed=4)
    np.testing.assert_array_equal(blocks.w, block_adaptive_sgd(A, 20_000, 0.5, 0.5, 0.3, indices=sgd_indices(2, 20_000, 4)).w)


def test_gd_with_a_huge_horizon_says_how_to_avoid_the_history():
    """Regression: gd(T=10**12) raised numpy's raw MemoryError."""
    with pytest.raises(MemoryError, match=r"pass record=\[0, T\]"):
        gd(pair(0.3), 10**12, 1.0)


@pytest.mark.parametrize("step", [4.0, "schedule"])
def test_gd_record_keeps_the_same_values_at_the_chosen_times(step):
    A = synthetic(100, 3, 0.2, 1)
    step = IncreasingSchedule.from_data(A) if step == "schedule" else step
    full = gd(A, 300, step)
    few = gd(A, 300, step, record=[300, 0, 17])
    np.testing.assert_array_equal(few.times, [0, 17, 300])
    np.testing.assert_array_equal(few.w, full.w)
    np.testing.assert_array_equal(few.log_loss, full.log_loss[[0, 17, 300]])
    np.testing.assert_array_equal(few.log_eta[:2], full.log_eta[[0, 17]])
    expected_last = step.compute(300)[0][300] if isinstance(step, IncreasingSchedule) else math.log(step)
    assert few.log_eta[2] == expected_last


def test_auto_margin_is_scale_invariant_for_the_schedule_and_block_sgd():
    """Regression (issue 11 item 1, knock-on): gamma='auto' refused 1e-8 A and tiny-margin pairs."""
    A = synthetic(50, 3, 0.2, 1)
    base = IncreasingSchedule.from_data(A).gamma
    assert IncreasingSchedule.from_data(1e-8 * A).gamma == pytest.approx(1e-8 * base, rel=1e-12)
    assert resolve_margin("auto", pair(1e-8)) == pytest.approx(1e-8, rel=1e-15)
    result = block_adaptive_sgd(pair(1e-8), 100, 0.5, 0.1, "auto", seed=0)
    assert result.block_starts.tolist() == [0, int(theorem_3_5_blocks(2, resolve_margin("auto", pair(1e-8)), 0.5, 0.1, 1)[0])]
