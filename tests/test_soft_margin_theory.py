"""The rate constants of theory.md, measured: each recipe's game form on the capped simplex.

The four margin recipes' game forms (spec sections 4.2, 5.2, 6.2, 7.2) are written out here with
the p-player restricted to Delta_c (its plays are capped_softmax), run on non-separable data, and
every inequality of theory.md section 3 is checked as a (measured, bound) pair, with
``D_c = kl_range(n, c)`` in place of ``log n`` and the soft margin from the exact oracle (its
upper end, the conservative side for every ">=" bound). The certificate bracket
``CVaR_c(A w_t) / ||w_t|| <= gamma* <= ||A^T p_bar_t||`` is checked at every round.
"""

from __future__ import annotations

import numpy as np
import pytest

import gamedyn.core.capped_simplex as cs
from gamedyn.core.domains import CappedSimplex, Simplex
from gamedyn.core.numerics import NumericalRangeError
from gamedyn.core.regularizers import Entropy
from gamedyn.certify.soft_margin import soft_margin

TOLERANCE = 1e-10  # relative, on (measured, bound) pairs of quantities of order 1


def _data(seed, n, d, flip=0.1):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X = np.hstack([X, np.ones((n, 1))])
    w = rng.standard_normal(d + 1)
    y = np.sign(X @ w)
    y[y == 0] = 1
    y[rng.random(n) < flip] *= -1  # not separable
    A = y[:, None] * X
    return A / np.max(np.linalg.norm(A, axis=1))  # ||a_i|| <= 1


def _path(plays, first):
    previous = np.vstack([first[None, :], plays[:-1]])
    return float(np.sum(np.sum(np.abs(plays - previous), axis=1) ** 2))


def _m(A, w, cap):
    """m(w) = min_{p in Delta_c} p^T A w - ||w||^2 / 2."""
    return cs.cvar(A @ w, cap) - 0.5 * float(w @ w)


def _bracket_every_round(A, cap, ws, ps, weights, oracle):
    """L_t = CVaR_c(A w_bar_t)/||w_bar_t|| <= gamma* <= U_t = ||A^T p_bar_t|| for every t."""
    w_sum, p_sum, total = np.zeros(A.shape[1]), np.zeros(A.shape[0]), 0.0
    for w, p, a in zip(ws, ps, weights):
        w_sum, p_sum, total = w_sum + a * w, p_sum + a * p, total + a
        norm = np.linalg.norm(w_sum)
        if norm > 0:
            assert cs.cvar(A @ w_sum, cap) / norm <= oracle.upper * (1 + 1e-12) + 1e-15
        assert np.linalg.norm(A.T @ (p_sum / total)) >= oracle.lower * (1 - 1e-12)


def _smooth_perceptron(A, cap, T):
    """Spec 4.2 on Delta_c: w-player OFTL (hint h_{t-1}), p-player FTRL+ with entropy, eta = 1/4."""
    n = A.shape[0]
    p_previous = cs.centre(n)
    sum_ATp, sum_Aw, S = np.zeros(A.shape[1]), np.zeros(n), 0.0
    ws, ps = [], []
    for t in range(1, T + 1):
        w = (sum_ATp + t * (A.T @ p_previous)) / (S + t)
        sum_Aw += t * (A @ w)
        p = cs.capped_softmax(sum_Aw, cap, 0.25)
        sum_ATp += t * (A.T @ p)
        S += t
        ws.append(w)
        ps.append(p)
        p_previous = p
    return np.array(ws), np.array(ps)


def _regrets_regularised(A, cap, ws, ps, weights):
    """R_w and R_p for g(w, p) = p^T A w - ||w||^2 / 2 (weighted)."""
    a = np.asarray(weights, dtype=float)
    played = float(sum(a_t * (p @ (A @ w) - 0.5 * w @ w) for a_t, w, p in zip(a, ws, ps)))
    S = a.sum()
    p_bar = (a[:, None] * ps).sum(axis=0) / S
    best_w = -0.5 * S * float(np.sum((A.T @ p_bar) ** 2))  # min_w sum a_t h_t(w), at w = A^T p_bar
    R_w = -played - best_w
    weighted_Aw = (a[:, None] * (ws @ A.T)).sum(axis=0)
    best_p = cs.cvar(weighted_Aw, cap) - 0.5 * float(sum(a_t * w @ w for a_t, w in zip(a, ws)))
    R_p = played - best_p
    return R_w, R_p


CASES = [(seed, n, d, nu) for seed, (n, d) in enumerate([(40, 4), (120, 8), (300, 15)]) for nu in (0.05, 0.2, 0.5)]


@pytest.mark.parametrize("seed, n, d, nu", CASES)
def test_theorems_3_and_4_smooth_and_accelerated_perceptron(seed, n, d, nu):
    A = _data(seed, n, d)
    cap = cs.cap_from_nu(nu, n)
    oracle = soft_margin(A, cap=cap)
    assert oracle.verdict in ("positive", "zero")  # zero: 0 in the reduced hull, gamma* = 0
    gamma, D = oracle.upper, cs.kl_range(n, cap)
    assert D <= -np.log(nu) + 1e-12
    for T in (5, 50, 400):
        ws, ps = _smooth_perceptron(A, cap, T)
        weights = np.arange(1, T + 1, dtype=float)
        path = _path(ps, cs.centre(n))
        R_w, R_p = _regrets_regularised(A, cap, ws, ps, weights)
        assert R_w <= 2 * path + TOLERANCE
        assert R_p <= 4 * D - 2 * path + TOLERANCE
        w_bar = (weights[:, None] * ws).sum(axis=0) / weights.sum()
        excess = 8 * D / (T * (T + 1))
        assert _m(A, w_bar, cap) >= gamma**2 / 2 - excess - TOLERANCE  # Theorem 3 on Delta_c
        assert np.linalg.norm(w_bar) >= oracle.lower * (1 - 1e-12)  # w_bar lies in A^T Delta_c
        if oracle.verdict == "positive":  # Theorem 4 on Delta_c: v_T is a positive multiple of w_bar_T
            assert cs.cvar(A @ w_bar, cap) / np.linalg.norm(w_bar) >= gamma - excess / gamma - TOLERANCE
        _bracket_every_round(A, cap, ws, ps, weights, oracle)


def _mirror_prox(A, cap, T, eta_w, eta_p):
    """Spec 7.2 on Delta_c: both players optimistic OMD, cross hints; the p-side prox steps are
    capped softmaxes chained through their centres (log domain)."""
    n, d = A.shape

    def ball(v):
        norm = np.linalg.norm(v)
        return v if norm <= 1 else v / norm

    y_w, log_y_p = np.zeros(d), np.full(n, -np.log(n))
    y_p = np.exp(log_y_p)
    ws, ps = [], []
    for _ in range(T):
        w = ball(y_w + eta_w * (A.T @ y_p))
        p = cs.capped_softmax(A @ y_w, cap, eta_p, log_centre=log_y_p)
        y_w = ball(y_w + eta_w * (A.T @ p))
        y_p, log_y_p = cs.capped_softmax(A @ w, cap, eta_p, log_centre=log_y_p, return_log=True)
        ws.append(w)
        ps.append(p)
    return np.array(ws), np.array(ps)


@pytest.mark.parametrize("seed, n, d, nu", CASES)
def test_theorem_5_mirror_prox(seed, n, d, nu):
    A = _data(seed, n, d)
    cap = cs.cap_from_nu(nu, n)
    oracle = soft_margin(A, cap=cap)
    gamma, D = oracle.upper, cs.kl_range(n, cap)
    steps = [(1 / np.sqrt(2 * np.log(n)), np.sqrt(2 * np.log(n))),  # the recipe's defaults
             (1 / np.sqrt(2 * D), np.sqrt(2 * D)),  # tuned to Delta_c
             (0.3, 2.0)]
    for eta_w, eta_p in steps:
        assert eta_w * eta_p <= 1 + 1e-15
        for T in (5, 60, 300):
            ws, ps = _mirror_prox(A, cap, T, eta_w, eta_p)
            played = float(np.sum(np.einsum("ti,ij,tj->t", ps, A, ws)))
            R_w = -played + np.linalg.norm(A.T @ ps.sum(axis=0))  # max over the unit ball
            R_p = played - cs.cvar(A @ ws.sum(axis=0), cap)
            bound = 1 / (2 * eta_w) + D / eta_p
            assert R_w + R_p <= bound + TOLERANCE
            w_bar = ws.mean(axis=0)
            assert cs.cvar(A @ w_bar, cap) >= gamma - bound / T - TOLERANCE
            _bracket_every_round(A, cap, ws, ps, np.ones(T), oracle)
    # the tuned steps' bound sqrt(2 D_c) <= the default steps' sqrt(2 log n)/2 + D_c / sqrt(2 log n)
    assert np.sqrt(2 * D) <= np.sqrt(2 * np.log(n)) / 2 + D / np.sqrt(2 * np.log(n)) + 1e-15


def _nag(A, cap, T):
    """Spec 6.2 on Delta_c: p-player first, OFTRL with hint l_{t-1} and entropy (eta = 1/4), w_0 = 0;
    w-player FTRL+ without regulariser."""
    n, d = A.shape
    sum_Aw, sum_ATp, S = np.zeros(n), np.zeros(d), 0.0
    w_previous = np.zeros(d)
    ws, ps = [], []
    for t in range(1, T + 1):
        p = cs.capped_softmax(sum_Aw + t * (A @ w_previous), cap, 0.25)
        sum_ATp += t * (A.T @ p)
        S += t
        w = sum_ATp / S
        sum_Aw += t * (A @ w)
        ws.append(w)
        ps.append(p)
        w_previous = w
    return np.array(ws), np.array(ps)


@pytest.mark.parametrize("seed, n, d, nu", CASES)
def test_theorem_6_nag(seed, n, d, nu):
    A = _data(seed, n, d)
    cap = cs.cap_from_nu(nu, n)
    oracle = soft_margin(A, cap=cap)
    gamma, D = oracle.upper, cs.kl_range(n, cap)
    for T in (5, 50, 400):
        ws, ps = _nag(A, cap, T)
        weights = np.arange(1, T + 1, dtype=float)
        R_w, R_p = _regrets_regularised(A, cap, ws, ps, weights)
        assert R_w + R_p <= 4 * D + 1 + TOLERANCE
        w_bar = (weights[:, None] * ws).sum(axis=0) / weights.sum()
        excess = (8 * D + 2) / (T * (T + 1))
        assert _m(A, w_bar, cap) >= gamma**2 / 2 - excess - TOLERANCE
        if oracle.verdict == "positive":  # s_T = (1/4) sum_t alpha_t w_t is a positive multiple of w_bar_T
            assert cs.cvar(A @ w_bar, cap) / np.linalg.norm(w_bar) >= gamma - excess / gamma - TOLERANCE
        _bracket_every_round(A, cap, ws, ps, weights, oracle)


def test_kl_prox_steps_do_not_telescope_on_the_capped_simplex():
    """On the simplex two KL-prox steps from u equal one step on the summed loss (OMD = FTRL);
    on Delta_c a cap met in the first step breaks that, so mirror prox must chain centres."""
    rng = np.random.default_rng(0)
    n = 10
    first, second = rng.standard_normal(n) * 3, rng.standard_normal(n) * 3
    for cap, telescopes in ((1.0, True), (0.15, False)):
        _, log_y = cs.capped_softmax(first, cap, 1.0, return_log=True)
        chained = cs.capped_softmax(second, cap, 1.0, log_centre=log_y)
        lazy = cs.capped_softmax(first + second, cap, 1.0)
        assert np.allclose(chained, lazy, rtol=1e-12, atol=0) == telescopes


def test_the_reproduce_rows_formulas_equal_the_library_s():
    """gamedyn reproduce's soft-margin rows compute D_c and the CVaR themselves (the stated formula, a
    sort): they equal kl_range and cvar (exact/correctly rounded) to 1e-12, and every row passes quickly."""
    from gamedyn.paper.experiments import soft_margin as rows

    rng = np.random.default_rng(7)
    for n in (2, 7, 60, 1000):
        for nu in (1 / n, 0.13, 0.5, 0.8, 1.0):
            cap = cs.cap_from_nu(max(nu, 1 / n), n)
            assert rows.D_c(n, cap) == pytest.approx(cs.kl_range(n, cap), rel=1e-12, abs=1e-15)
            z = rng.standard_normal(n)
            assert rows._cvar(z, cap) == pytest.approx(cs.cvar(z, cap), rel=1e-12, abs=1e-15)
    checks = rows.soft_rate_checks("nag_margin", (10,), datasets=rows.SOFT_DATA[:1], nus=(0.8,))
    assert checks and all(slack >= 0 for slack, *_ in checks)
