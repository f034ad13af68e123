"""``gamedyn.paper.rates``' bounds are the theorems' formulas, recomputed here from the runs' own records.

A looser constant in a rate check (4 sum ||p_t - p_(t-1)||^2 for 2, (8 log n + 2)/T for /(T(T+1)),
...) still "holds" on every run, so asserting ``check.holds`` cannot see it (issue 16's gate); each
bound is compared with the formula written out here, and each measured number with the run.
"""

import math

import numpy as np
import pytest

from gamedyn import recipes
from gamedyn.paper import rates
from gamedyn.io import make_separable, make_separable_lp, signed_rows
from gamedyn.certify import max_margin, max_margin_q, normalized_margin

A = signed_rows(*make_separable(40, 6, 0.08, 5))
N = A.shape[0]
LOG_N = math.log(N)


def _by_quantity(checks):
    return {check.quantity: check for check in checks}


def _path(p_plays):
    previous = np.vstack([np.full((1, N), 1.0 / N), p_plays[:-1]])
    return float(np.sum(np.sum(np.abs(p_plays - previous), axis=1) ** 2))


@pytest.mark.parametrize("T", [1, 5, 40])
def test_theorems_3_and_4_bounds(T):
    gamma = max_margin(A).upper
    for theorem, recipe in (("3", recipes.smooth_perceptron), ("4", recipes.accelerated_perceptron)):
        checks = _by_quantity(getattr(rates, f"theorem{theorem}")(A, T))
        run = recipe(A, T, record=True)
        path = _path(run.game.trace["p"])
        assert checks["R_w"].bound == pytest.approx(2 * path, rel=1e-12)
        assert checks["R_p"].bound == pytest.approx(4 * LOG_N - 2 * path, rel=1e-12)
        assert checks["R_w"].measured == pytest.approx(run.game.w_regret, rel=1e-12, abs=1e-15)
        if theorem == "3":
            m = float(np.min(A @ run.w) - 0.5 * run.w @ run.w)
            assert checks["m(w_bar_T)"].bound == pytest.approx(gamma**2 / 2 - 8 * LOG_N / (T * (T + 1)), rel=1e-12)
            assert checks["m(w_bar_T)"].measured == pytest.approx(m, rel=1e-12)
        else:
            check = checks["normalised margin of v_T"]
            assert check.bound == pytest.approx(gamma - 8 * LOG_N / (gamma * T * (T + 1)), rel=1e-12)
            assert check.measured == pytest.approx(normalized_margin(A, run.w), rel=1e-12)


@pytest.mark.parametrize("T", [1, 5, 40])
def test_theorem_5_bounds(T):
    checks = _by_quantity(rates.theorem5(A, T))
    eta_w, eta_p = 1 / math.sqrt(2 * LOG_N), math.sqrt(2 * LOG_N)
    run = recipes.mirror_prox_perceptron(A, T)
    assert checks["eta_w eta_p"].measured == pytest.approx(eta_w * eta_p, rel=1e-14)
    regret = 1 / (2 * eta_w) + LOG_N / eta_p
    assert regret == pytest.approx(math.sqrt(2 * LOG_N), rel=1e-14)  # the recipe's steps make it sqrt(2 log n)
    assert checks["R_w + R_p"].bound == pytest.approx(regret, rel=1e-12)
    assert checks["R_w + R_p"].measured == pytest.approx(run.game.w_regret + run.game.p_regret, rel=1e-12)
    assert checks["min_i (A w_bar_T)_i"].bound == pytest.approx(max_margin(A).upper - math.sqrt(2 * LOG_N) / T, rel=1e-12)


@pytest.mark.parametrize("T", [1, 5, 40])
def test_theorem_6_bounds(T):
    checks = _by_quantity(rates.theorem6(A, T))
    gamma = max_margin(A).upper
    excess = (8 * LOG_N + 2) / (T * (T + 1))
    assert checks["R_w + R_p"].bound == pytest.approx(4 * LOG_N + 1, rel=1e-14)
    assert checks["m(w_bar_T)"].bound == pytest.approx(gamma**2 / 2 - excess, rel=1e-12)
    assert checks["normalised margin of s_T"].bound == pytest.approx(gamma - excess / gamma, rel=1e-12)
    assert checks["normalised margin of s_T"].measured == pytest.approx(
        normalized_margin(A, recipes.nag_margin(A, T).w), rel=1e-12)


@pytest.mark.parametrize("p", [2.0, 4.0])
def test_theorem_7_bounds(p):
    B = signed_rows(*make_separable_lp(40, 6, p, 0.08, 5))
    T, q = 30, p / (p - 1)
    checks = _by_quantity(rates.theorem7(B, T, p))
    oracle = max_margin_q(B, q)
    eta_w = 1 / math.sqrt(2 * (q - 1) * LOG_N)
    constant = math.sqrt(2 * (p - 1) * LOG_N)
    assert checks["eta_w eta_p"].measured == pytest.approx(1.0, rel=1e-14)
    u = oracle.direction
    assert checks["R_w(u) + R_p"].bound == pytest.approx(
        float(np.sum(np.abs(u) ** q) ** (2 / q)) / (2 * (q - 1)) / eta_w + eta_w * LOG_N, rel=1e-10)
    assert checks["max_u R_w(u) + R_p"].bound == pytest.approx(constant, rel=1e-14)
    assert checks["min_i (A w_bar_T)_i"].bound == pytest.approx(oracle.upper - constant / T, rel=1e-12)
