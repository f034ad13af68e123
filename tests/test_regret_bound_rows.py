"""The issue-18 learners' regret bounds as ``gamedyn reproduce`` rate rows (gamedyn.paper.rates.learner_regret_bound).

Each (measured, bound) pair: the learner (run through gamedyn.engine.online) against a fixed utility
sequence, the stated bound computed from the plays and utilities (docs/explanation/regret-matching-bounds.md
(1), (3), (7)). The rows must hold; on the ``flip`` instance they are nearly attained, and the wrong
algorithms of benchmarks/mutants.py (playing the argmax, AdaHedge with a fixed step) break them, checked
here with independently written wrong learners.
"""

import math

import numpy as np
import pytest

from gamedyn.paper import rates, reproduce

KINDS = tuple(rates.LEARNER_BOUNDS)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("instance", rates.REGRET_INSTANCES)
@pytest.mark.parametrize("T", [1, 2, 3, 10, 200, 1000])
def test_learner_regret_bounds_hold(kind, instance, T):
    check = rates.learner_regret_bound(kind, rates.regret_instance(instance, T))
    assert check.holds, check
    assert check.measured > 0


# the flip instance at T = 1000: R_T / bound, measured; the bound is not loose there by more than these
NEARLY_ATTAINED = {"RM": 0.65, "RM+": 0.65, "PRM+": 0.55, "AdaHedge": 0.15}


@pytest.mark.parametrize("kind", KINDS)
def test_bounds_are_nearly_attained_on_flip(kind):
    check = rates.learner_regret_bound(kind, rates.regret_instance("flip", 1000))
    assert NEARLY_ATTAINED[kind] <= check.measured / check.bound <= 1.0


def test_first_round_by_hand():
    """T = 1 on flip: every learner plays uniform, u_1 = (-1, 1): R_1 = 1; sqrt(||r_1||^2) = sqrt 2."""
    for kind in ("RM", "RM+", "PRM+"):
        check = rates.learner_regret_bound(kind, rates.regret_instance("flip", 1))
        assert check.measured == pytest.approx(1.0, abs=1e-15)
        assert check.bound == pytest.approx(math.sqrt(2.0), abs=1e-15)
    check = rates.learner_regret_bound("AdaHedge", rates.regret_instance("flip", 1))
    assert check.bound == pytest.approx(math.sqrt(math.log(2.0) + 4.0) * 2.0, abs=1e-14)


def _wrong_learner_regret(U, play):
    """R_T of ``play(cumulative utility, cumulative regret)`` (an independently written wrong learner)."""
    total, regrets, plays = np.zeros(U.shape[1]), np.zeros(U.shape[1]), []
    for u in U:
        x = play(total, regrets)
        plays.append(x)
        total = total + u
        regrets = regrets + u - u @ x
    plays = np.array(plays)
    r = U - np.einsum("ti,ti->t", U, plays)[:, None]
    return float(np.max(r.sum(axis=0))), r


def _argmax_or_uniform(v):
    if not np.any(v > 0):
        return np.full(v.size, 1.0 / v.size)
    x = np.zeros(v.size)
    x[int(np.argmax(v))] = 1.0
    return x


def test_wrong_algorithms_break_the_rows():
    """Negative controls: RM playing the argmax of its regrets breaks sqrt(sum ||r_t||^2) (and the PRM+
    bound) by > 5x on flip; Hedge with the fixed step eta = 1 breaks AdaHedge's bound by > 2x."""
    U = rates.regret_instance("flip", 1000)
    measured, r = _wrong_learner_regret(U, lambda total, regrets: _argmax_or_uniform(regrets))
    assert measured > 5 * math.sqrt(float(np.sum(r**2)))
    m = np.vstack([np.zeros(2), r[:-1]])
    assert measured > 5 * math.sqrt(float(np.sum((r - m) ** 2)))

    def fixed_step_hedge(total, regrets):
        weights = np.exp(total - total.max())
        return weights / weights.sum()

    measured, _ = _wrong_learner_regret(U, fixed_step_hedge)
    rho = U.max(axis=1) - U.min(axis=1)
    assert measured > 2 * math.sqrt((math.log(2) + 4) * float(np.sum(rho**2)))


def test_reproduce_rows_pass_and_name_the_tightest_instance():
    claims = [claim for claim in reproduce.CLAIMS if claim.name.endswith(": regret bound")]
    assert sorted(claim.name for claim in claims) == sorted(f"{kind}: regret bound" for kind in KINDS)
    context = reproduce.Context(reproduce.PROFILES["quick"])
    for outcome in reproduce.run_claims(claims, context):
        assert outcome.passed, outcome.measurement
        assert 0 < outcome.measurement.measured <= 1
        assert "tightest: " in outcome.measurement.detail


def test_reproduce_row_fails_when_the_bound_fails(monkeypatch):
    def broken(kind, utilities):
        return rates.RateCheck(kind, "R_T", 2.0, 1.0, "<=")

    monkeypatch.setattr(rates, "learner_regret_bound", broken)
    claim = next(claim for claim in reproduce.CLAIMS if claim.name == "RM: regret bound")
    outcome = reproduce.run_claims([claim], reproduce.Context(reproduce.PROFILES["quick"]))[0]
    assert not outcome.passed and outcome.measurement.measured == 2.0
