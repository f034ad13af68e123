"""Tests for gamedyn.games.margin.original: closed forms, the game-form identities and the theorems' bounds.

The game forms used here are the closed forms printed in the spec (sections 4.2, 5.4, 6.2, 7.2),
written out independently of gamedyn's learners, so each identity checks two separate routes.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from gamedyn.core.numerics import log_sum_exp, softmin
from gamedyn.io import make_separable, make_separable_lp, signed_rows
from gamedyn.certify import margin, max_margin, max_margin_q, normalized_margin
from gamedyn.games.margin.original import (
    accelerated_perceptron, mirror_prox, nag, perceptron, pnorm_perceptron, smooth_perceptron,
)

EPS = np.finfo(np.float64).eps
A_SMALL = signed_rows(*make_separable(30, 5, 0.15, 0))  # n > d
A_WIDE = signed_rows(*make_separable(40, 60, 0.05, 3))  # n < d
A_TIGHT = signed_rows(*make_separable(200, 3, 0.02, 1))  # small margin
DATA = [A_SMALL, A_WIDE, A_TIGHT]
IDS = ["n30d5", "n40d60", "n200d3"]


def _relative(a, b):
    return np.max(np.abs(np.asarray(a) - np.asarray(b))) / np.max(np.abs(np.asarray(b)))


def _horizons(threshold):
    """Horizons past the point where a theorem's margin bound turns positive."""
    return tuple(int(np.ceil(factor * threshold)) for factor in (1.5, 3, 10))


def _game_alg1(A, T, eta=0.25, p_weight=lambda s: s):
    """Spec 4.2 / 5.4 closed forms: w-player OFTL (alpha_t = t), p-player FTRL+ with learning rate
    ``eta`` and weights ``p_weight(s)``. Returns the plays w_1..w_T and p_0..p_T."""
    n, d = A.shape
    ps, ws = [np.full(n, 1.0 / n)], []
    past, cumulative = np.zeros(d), np.zeros(n)  # sum_{j<t} j A^T p_j and sum_s weight_s A w_s
    for t in range(1, T + 1):
        w = (past + t * (A.T @ ps[-1])) / (t * (t + 1) / 2)
        cumulative += p_weight(t) * (A @ w)
        ws.append(w)
        ps.append(softmin(cumulative, eta))
        past += t * (A.T @ ps[-1])
    return np.array(ws), np.array(ps)


# ------------------------------------------------------------------ smooth perceptron (spec 4)


def test_smooth_perceptron_first_round_by_hand():
    n = A_SMALL.shape[0]
    v0 = A_SMALL.T @ np.full(n, 1.0 / n)
    v, q = smooth_perceptron(A_SMALL, 1)
    np.testing.assert_array_equal(v, v0)
    np.testing.assert_allclose(q, softmin(A_SMALL @ v0, 0.25), rtol=1e-15)


@pytest.mark.parametrize("A", DATA, ids=IDS)
def test_smooth_perceptron_closed_forms(A):
    T = 60
    path = smooth_perceptron(A, T, trajectory=True)
    t = np.arange(T)
    np.testing.assert_allclose(path.mu, 8.0 / ((t + 1) * (t + 2)), rtol=1e-14)
    v, q = smooth_perceptron(A, T)
    np.testing.assert_array_equal(path.v[-1], v)
    np.testing.assert_array_equal(path.q[-1], q)
    assert path.v.shape == (T, A.shape[1]) and path.q.shape == path.q_mu.shape == (T, A.shape[0])
    np.testing.assert_allclose(path.q.sum(axis=1), 1.0, rtol=1e-14)
    assert np.all(path.q >= 0)


@pytest.mark.parametrize("A", DATA, ids=IDS)
def test_smooth_perceptron_excessive_gap_and_sandwich(A):
    """gamma^2/2 <= 1/2||A^T q_t||^2 <= psi_mu_t(v_t) and psi <= psi_mu <= psi + mu log n (spec 4.4)."""
    n = A.shape[0]
    gamma = max_margin(A).upper  # the upper end makes the first inequality the stricter check
    path = smooth_perceptron(A, 300, trajectory=True)
    for v, q, mu in zip(path.v, path.q, path.mu):
        margins = A @ v
        psi = -0.5 * v @ v + np.min(margins)
        psi_mu = -0.5 * v @ v - mu * (log_sum_exp(-margins / mu) - np.log(n))
        dual = 0.5 * np.sum((A.T @ q) ** 2)
        assert gamma**2 / 2 <= dual <= psi_mu
        assert psi <= psi_mu <= psi + mu * np.log(n)


@pytest.mark.parametrize("A", DATA, ids=IDS)
def test_proposition_1_against_game_form(A):
    """v_t = w_bar_{t+1}, q_t = p_bar_{t+1}, q_{mu_t}(v_t) = p_{t+1} for every t (spec 4.3)."""
    T = 80
    path = smooth_perceptron(A, T, trajectory=True)
    ws, ps = _game_alg1(A, T)
    alpha = np.arange(1, T + 1)[:, None]
    w_bar = np.cumsum(alpha * ws, axis=0) / np.cumsum(alpha, axis=0)
    p_bar = np.cumsum(alpha * ps[1:], axis=0) / np.cumsum(alpha, axis=0)
    assert _relative(path.v, w_bar) <= 1e-12
    assert _relative(path.q, p_bar) <= 1e-12
    assert _relative(path.q_mu, ps[1:]) <= 1e-12


# ------------------------------------------------------------------ Ji et al. (spec 5)


@pytest.mark.parametrize("A", DATA, ids=IDS)
def test_accelerated_perceptron_closed_forms(A):
    """g_t = -(1/(t+1)) sum_{s<=t} s A^T q_s and the v increments of spec 5.1."""
    T = 50
    path = accelerated_perceptron(A, T, trajectory=True)
    At_q = path.q @ A  # row s is A^T q_s
    for t in range(1, T + 1):
        weighted = np.arange(1, t)[:, None] * At_q[1:t]
        g = -(weighted.sum(axis=0) + t * At_q[t]) / (t + 1)
        assert _relative(path.g[t], g) <= 1e-12
        increment = (weighted.sum(axis=0) + t * At_q[t - 1]) / (2 * (t + 1))
        assert _relative(path.v[t] - path.v[t - 1], increment) <= 1e-12
    v, q = accelerated_perceptron(A, T)
    np.testing.assert_array_equal(path.v[-1], v)
    np.testing.assert_array_equal(path.q[-1], q)


@pytest.mark.parametrize("A", DATA, ids=IDS)
@pytest.mark.parametrize("T", [1, 2, 7, 100])
def test_theorem_1_on_the_original_forms(A, T):
    """v^Ji_T = T(T+1)/8 v^SP_{T-1} and q^SP_{T-1} = sum_t t q^Ji_t / S_T (spec 5.3)."""
    v_sp, q_sp = smooth_perceptron(A, T)
    path = accelerated_perceptron(A, T, trajectory=True)
    assert _relative(path.v[-1], T * (T + 1) / 8 * v_sp) <= 1e-12
    alpha = np.arange(1, T + 1)[:, None]
    assert _relative(q_sp, np.sum(alpha * path.q[1:], axis=0) / (T * (T + 1) / 2)) <= 1e-12


@pytest.mark.parametrize("A", DATA, ids=IDS)
def test_proposition_2_against_game_form(A):
    """v_T = 1/4 sum_t t w_t and q_T = p_T (spec 5.3)."""
    T = 40
    ws, ps = _game_alg1(A, T)
    v, q = accelerated_perceptron(A, T)
    assert _relative(v, 0.25 * np.sum(np.arange(1, T + 1)[:, None] * ws, axis=0)) <= 1e-12
    assert _relative(q, ps[-1]) <= 1e-12


@pytest.mark.parametrize("A", DATA, ids=IDS)
def test_ji_theta_one_against_game_form(A):
    """theta_{t-1} = 1: v_T = 1/2 sum_t (t+1) w_t, q_T = p_T, p-player eta = 1/2, weights t+1 (spec 5.4)."""
    T = 40
    ws, ps = _game_alg1(A, T, eta=0.5, p_weight=lambda s: s + 1)
    path = accelerated_perceptron(A, T, theta="ji", trajectory=True)
    for t in (1, 5, T):
        assert _relative(path.v[t], 0.5 * np.sum(np.arange(2, t + 2)[:, None] * ws[:t], axis=0)) <= 1e-12
        assert _relative(path.q[t], ps[t]) <= 1e-12
    wang, _ = accelerated_perceptron(A, T)
    assert _relative(path.v[-1], wang) > 1e-3  # the two choices of theta really differ


@pytest.mark.parametrize("A", DATA, ids=IDS)
def test_theorem_4_margin_bound(A):
    n = A.shape[0]
    oracle = max_margin(A)
    gamma = oracle.upper
    for T in _horizons(np.sqrt(8 * np.log(n)) / gamma):
        bound = gamma - 8 * np.log(n) / (gamma * T * (T + 1))
        assert bound > 0
        v, _ = accelerated_perceptron(A, T)
        assert normalized_margin(A, v) >= bound
        v_sp, _ = smooth_perceptron(A, T)
        assert np.linalg.norm(v_sp) >= oracle.gamma  # ||w_bar_T|| >= gamma, used in the proof
        assert normalized_margin(A, v_sp) <= oracle.upper  # no direction beats the max margin


# ------------------------------------------------------------------ NAG (spec 6)


def _game_alg3(A, T):
    """Spec 6.2 closed forms (p-player first, w_0 = 0). Returns w_1..w_T."""
    n, d = A.shape
    ws, w_previous = [], np.zeros(d)
    cumulative_w, cumulative_p = np.zeros(n), np.zeros(d)  # sum_{s<t} s A w_s, sum_{j<=t} j A^T p_j
    for t in range(1, T + 1):
        p = softmin(cumulative_w + t * (A @ w_previous), 0.25)
        cumulative_p += t * (A.T @ p)
        w_previous = cumulative_p / (t * (t + 1) / 2)
        cumulative_w += t * (A @ w_previous)
        ws.append(w_previous)
    return np.array(ws)


@pytest.mark.parametrize("A", DATA, ids=IDS)
@pytest.mark.parametrize("T", [1, 5, 60])
def test_theorem_6_output_relation_against_game_form(A, T):
    """s_T = 1/4 sum_t t w_t = T(T+1)/8 w_bar_T (spec 6.3; the printed "s_T = 2 w_bar_T" is false)."""
    ws = _game_alg3(A, T)
    alpha = np.arange(1, T + 1)[:, None]
    w_bar = np.sum(alpha * ws, axis=0) / (T * (T + 1) / 2)
    s = nag(A, T)
    assert _relative(s, T * (T + 1) / 8 * w_bar) <= 1e-12
    path = nag(A, T, trajectory=True)
    np.testing.assert_array_equal(path.s[-1], s)
    assert _relative(path.v[1:], np.cumsum(alpha, axis=0) * ws) <= 1e-12  # v_t = S_t w_t


def test_nag_step_is_eta_times_gradient():
    """Against a literal transcription with eta_t = t / R(u_t) while R does not underflow."""
    A = A_SMALL
    d = A.shape[1]
    v, s = np.zeros(d), np.zeros(d)
    for t in range(1, 16):
        u = s + (v / (2 * (t - 1)) if t > 1 else 0)
        losses = np.exp(-(A @ u))
        risk, gradient = np.mean(losses), -(A.T @ losses) / A.shape[0]
        v = v - (t / risk) * gradient
        s = s + v / (2 * (t + 1))
    assert _relative(nag(A, 15), s) <= 1e-12


def test_nag_survives_underflow_of_the_risk():
    A = signed_rows(*make_separable(50, 4, 0.3, 2))
    T = 2000
    path = nag(A, T, trajectory=True)
    assert np.mean(np.exp(-(A @ path.u[-1]))) == 0.0  # R(u_T) underflows: eta_T = t / R is unusable
    assert np.all(np.isfinite(path.s))
    gamma = max_margin(A).upper
    assert normalized_margin(A, path.s[-1]) >= gamma - (8 * np.log(50) + 2) / (gamma * T * (T + 1))


@pytest.mark.parametrize("A", DATA, ids=IDS)
def test_theorem_6_margin_bound(A):
    n = A.shape[0]
    gamma = max_margin(A).upper
    for T in _horizons(np.sqrt(8 * np.log(n) + 2) / gamma):
        bound = gamma - (8 * np.log(n) + 2) / (gamma * T * (T + 1))
        assert bound > 0
        assert normalized_margin(A, nag(A, T)) >= bound


# ------------------------------------------------------------------ mirror prox (spec 7)


def test_mirror_prox_first_half_step_by_hand():
    A = A_SMALL
    n = A.shape[0]
    eta_w = 1 / np.sqrt(2 * np.log(n))
    path = mirror_prox(A, 1, trajectory=True)
    step = eta_w * (A.T @ np.full(n, 1.0 / n))
    np.testing.assert_allclose(path.w_half[0], step / max(1.0, np.linalg.norm(step)), rtol=1e-15)
    np.testing.assert_allclose(path.p_half[0], 1.0 / n, rtol=1e-15)  # w_0 = 0 leaves p unchanged


@pytest.mark.parametrize("A", DATA, ids=IDS)
@pytest.mark.parametrize("steps", [(None, None), (0.3, 2.0), (5.0, 3.0)])
def test_mirror_prox_against_game_form(A, steps):
    """Main iterates p_t = sigma(eta_p A sum_{s<=t} w_{s-1/2}) (spec 7.2), by a cumulative sum."""
    T = 60
    eta_w, eta_p = steps
    path = mirror_prox(A, T, eta_w, eta_p, trajectory=True)
    eta_p = np.sqrt(2 * np.log(A.shape[0])) if eta_p is None else eta_p
    cumulative = np.cumsum(path.w_half, axis=0)
    game = np.array([softmin(A @ c, eta_p) for c in cumulative])
    assert _relative(path.p[1:], game) <= 1e-12
    np.testing.assert_allclose(path.p.sum(axis=1), 1.0, rtol=1e-14)
    assert np.all(np.linalg.norm(path.w, axis=1) <= 1 + 4 * EPS)
    assert np.all(np.linalg.norm(path.w_half, axis=1) <= 1 + 4 * EPS)
    np.testing.assert_allclose(path.w_bar, path.w_half.mean(axis=0), rtol=1e-13)
    w_bar, p_bar = mirror_prox(A, T, *steps)
    np.testing.assert_array_equal(w_bar, path.w_bar)
    np.testing.assert_array_equal(p_bar, path.p_bar)


@pytest.mark.parametrize("A", DATA, ids=IDS)
def test_mirror_prox_trajectory_satisfies_spec_7_1_step_by_step(A):
    n = A.shape[0]
    eta_w, eta_p = 1 / np.sqrt(2 * np.log(n)), np.sqrt(2 * np.log(n))
    path = mirror_prox(A, 30, trajectory=True)

    def ball(w):
        return w / max(1.0, np.linalg.norm(w))

    for t in range(1, 31):
        w, p = path.w[t - 1], path.p[t - 1]
        assert _relative(path.w_half[t - 1], ball(w + eta_w * (A.T @ p))) <= 1e-12
        assert _relative(path.w[t], ball(w + eta_w * (A.T @ path.p_half[t - 1]))) <= 1e-12
        half = p * np.exp(-eta_p * (A @ w))
        assert _relative(path.p_half[t - 1], half / half.sum()) <= 1e-12
        main = p * np.exp(-eta_p * (A @ path.w_half[t - 1]))
        assert _relative(path.p[t], main / main.sum()) <= 1e-12


@pytest.mark.parametrize("A", DATA, ids=IDS)
@pytest.mark.parametrize("steps", [(None, None), (1.0, 1.0), (0.3, 2.0), (2.0, 0.5)])
def test_theorem_5_regret_bound(A, steps):
    """R_w + R_p <= 1/(2 eta_w) + log n / eta_p for eta_w eta_p <= 1 (spec 7.3), plays = half iterates."""
    n = A.shape[0]
    T = 200
    path = mirror_prox(A, T, *steps, trajectory=True)
    eta_w, eta_p = steps if steps[0] is not None else (1 / np.sqrt(2 * np.log(n)), np.sqrt(2 * np.log(n)))
    regret = np.linalg.norm(A.T @ path.p_half.sum(axis=0)) - np.min(A @ path.w_half.sum(axis=0))
    assert 0 <= regret <= 1 / (2 * eta_w) + np.log(n) / eta_p


@pytest.mark.parametrize("A", DATA, ids=IDS)
def test_theorem_5_margin_bound(A):
    n = A.shape[0]
    gamma = max_margin(A).upper
    for T in (1, 10) + _horizons(np.sqrt(2 * np.log(n)) / gamma):
        w_bar, _ = mirror_prox(A, T)
        assert margin(A, w_bar) >= gamma - np.sqrt(2 * np.log(n)) / T


def test_mirror_prox_step_validation():
    with pytest.raises(ValueError, match="default step sizes need n >= 2.*pass eta_w and eta_p"):
        mirror_prox(np.array([[1.0, 0.0]]), 5)
    w_bar, p_bar = mirror_prox(np.array([[1.0, 0.0]]), 5, eta_w=1.0, eta_p=1.0)
    np.testing.assert_allclose(w_bar, [1.0, 0.0])
    with pytest.raises(ValueError, match="eta_w must be finite and > 0"):
        mirror_prox(A_SMALL, 5, eta_w=-1.0)
    with pytest.raises(TypeError, match="eta_p must be a positive real number"):
        mirror_prox(A_SMALL, 5, eta_p="big")


# ------------------------------------------------------------------ perceptrons (spec 9)


def test_perceptron_by_hand_with_smallest_index_ties():
    A = np.array([[1.0, 0.0], [0.0, 1.0]])
    w, updates = perceptron(A, 10)
    np.testing.assert_array_equal(w, [1.0, 1.0])  # rows 0 then 1: ties go to the smaller index
    assert updates == 2
    w, updates = perceptron(A, 1)
    np.testing.assert_array_equal(w, [1.0, 0.0])
    assert updates == 1 and margin(A, w) <= 0  # the convention for "not separated"


def test_perceptron_on_non_separable_data_stops_at_max_updates():
    A = np.array([[1.0, 0.0], [-1.0, 0.0]])
    w, updates = perceptron(A, 25)
    assert updates == 25 and margin(A, w) <= 0


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 60), d=st.integers(1, 10), gamma=st.floats(0.05, 0.5), seed=st.integers(0, 2**16))
def test_perceptron_novikoff_bound(n, d, gamma, seed):
    A = signed_rows(*make_separable(n, d, gamma, seed))
    gamma_max = max_margin(A).upper
    w, updates = perceptron(A, 10**6)
    assert margin(A, w) > 0
    assert updates <= 1 / gamma_max**2


@pytest.mark.parametrize("p, seed", [(2.0, 0), (4.0, 1), (8.0, 2), (3.5, 3)])
def test_pnorm_perceptron_bound(p, seed):
    X, y = make_separable_lp(80, 30, p, 0.2, seed, target_support=2)
    A = signed_rows(X, y)
    gamma_q = max_margin_q(A, p / (p - 1)).upper  # the upper end makes the check stricter
    w, updates = pnorm_perceptron(A, p, 10**6)
    assert margin(A, w) > 0
    assert updates <= (p - 1) / gamma_q**2


def test_pnorm_perceptron_with_p_2_is_the_perceptron():
    w2, updates2 = pnorm_perceptron(A_TIGHT, 2, 10**5)
    w, updates = perceptron(A_TIGHT, 10**5)
    assert updates2 == updates and margin(A_TIGHT, w) > 0
    np.testing.assert_allclose(w2, w, rtol=1e-12)


def test_pnorm_perceptron_rejects_bad_p():
    with pytest.raises(ValueError, match="p must be finite and >= 2"):
        pnorm_perceptron(A_SMALL, 1.5, 10)
    with pytest.raises(TypeError, match="p must be a real number >= 2"):
        pnorm_perceptron(A_SMALL, "4", 10)


# ------------------------------------------------------------------ input types and validation

RUNS = {
    "smooth": lambda A: smooth_perceptron(A, 40),
    "wang": lambda A: accelerated_perceptron(A, 40),
    "ji": lambda A: accelerated_perceptron(A, 40, theta="ji"),
    "mirror_prox": lambda A: mirror_prox(A, 40),
    "nag": lambda A: (nag(A, 40),),
    "perceptron": lambda A: perceptron(A, 1000)[:1],
    "pnorm": lambda A: pnorm_perceptron(A, 3.0, 1000)[:1],
}


@pytest.mark.parametrize("name", sorted(RUNS))
def test_sparse_and_float32_inputs_match_dense_float64(name):
    run = RUNS[name]
    A = A_SMALL
    for dense, other in zip(run(A), run(sp.csr_matrix(A))):
        assert _relative(other, dense) <= 1e-12
    single = A.astype(np.float32)
    for exact, other in zip(run(single.astype(np.float64)), run(single)):
        assert other.dtype == np.float64
        assert _relative(other, exact) <= 1e-12
    for dense, other in zip(run(A), run(single)):
        assert _relative(other, dense) <= 1e-5  # float32 rounding of the data only


@pytest.mark.parametrize("name", sorted(RUNS))
def test_bad_matrices_are_rejected(name):
    run = RUNS[name]
    with pytest.raises(ValueError, match="A must be 2-D"):
        run(np.ones(3))
    with pytest.raises(ValueError, match="A contains NaN"):
        run(np.array([[1.0, np.nan]]))


@pytest.mark.parametrize(
    "call",
    [smooth_perceptron, accelerated_perceptron, mirror_prox, nag],
    ids=["smooth", "accelerated", "mirror_prox", "nag"],
)
def test_bad_horizons_are_rejected(call):
    with pytest.raises(ValueError, match="T must be >= 1, got 0"):
        call(A_SMALL, 0)
    with pytest.raises(TypeError, match="T must be an integer"):
        call(A_SMALL, 2.5)
    with pytest.raises(TypeError, match="T must be an integer"):
        call(A_SMALL, True)


def test_bad_theta_and_max_updates_are_rejected():
    with pytest.raises(ValueError, match="theta must be 'wang'.*or 'ji'"):
        accelerated_perceptron(A_SMALL, 5, theta="nesterov")
    with pytest.raises(ValueError, match="max_updates must be >= 1"):
        perceptron(A_SMALL, 0)


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(1, 40),
    d=st.integers(1, 10),
    gamma=st.floats(0.02, 0.3),
    seed=st.integers(0, 2**16),
    T=st.integers(1, 150),
)
def test_theorems_1_and_4_on_random_data(n, d, gamma, seed, T):
    A = signed_rows(*make_separable(n, d, gamma, seed))
    v_sp, _ = smooth_perceptron(A, T)
    v, _ = accelerated_perceptron(A, T)
    assert _relative(v, T * (T + 1) / 8 * v_sp) <= 1e-12
    if n > 1:  # for n = 1 the bound reads gamma >= gamma, which rounding may break either way
        gamma_max = max_margin(A).upper
        assert normalized_margin(A, v) >= gamma_max - 8 * np.log(n) / (gamma_max * T * (T + 1))


def test_accelerated_pnorm_perceptron_rejects_bad_input():
    from gamedyn.games.margin.original import accelerated_pnorm_perceptron

    with pytest.raises(ValueError, match="p must be finite and >= 2"):
        accelerated_pnorm_perceptron(A_SMALL, 5, 1.5)
    with pytest.raises(ValueError, match="n >= 2 rows"):
        accelerated_pnorm_perceptron(A_SMALL[:1], 5, 4.0)
    with pytest.raises(ValueError, match="T"):
        accelerated_pnorm_perceptron(A_SMALL, 0, 4.0)


def test_accelerated_pnorm_perceptron_is_theorem7_at_p_2():
    """p = 2: f_2 is the identity, so w_1 = eta_w A^T u_n with eta_w = 1/sqrt(2 log n) (spec section 8)."""
    from gamedyn.games.margin.original import accelerated_pnorm_perceptron

    n = A_SMALL.shape[0]
    path = accelerated_pnorm_perceptron(A_SMALL, 3, 2.0, trajectory=True)
    expected = A_SMALL.T @ np.full(n, 1 / n) / np.sqrt(2 * np.log(n))
    assert np.allclose(path.w[0], expected, rtol=1e-14, atol=0)
    assert np.allclose(path.w_bar, path.w.mean(axis=0), rtol=1e-14, atol=0)
