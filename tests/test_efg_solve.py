"""solve_efg (issue 33): a certified answer, the race between DCFR and PCFR+, the LP; the lanes are the recipes."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gamedyn.games.efg import kuhn_poker, leduc_poker, sequence_form_lp, solve_efg
from gamedyn.games.efg.solve import _leader, lp_seconds
from gamedyn.recipes import dcfr, pcfr_plus


def test_leduc_bracket_contains_the_exact_value():
    game = leduc_poker()
    value, *_ = sequence_form_lp(game)  # the LP's value, an independent reference
    solution = solve_efg(game, gap=1e-4)
    assert solution.converged and solution.nash_gap <= 1e-4
    assert solution.lower <= value <= solution.upper
    again = game.bracket(solution.x, solution.y)  # the certificate is the pair's own
    assert (again.lower, again.upper) == (solution.lower, solution.upper)
    assert solution.method in ("lp", "dcfr", "pcfr_plus", "dcfr+pcfr_plus")


@pytest.mark.parametrize("method", ["race", "dcfr", "pcfr_plus", "lp"])
def test_every_method_certifies_kuhn(method):
    solution = solve_efg(kuhn_poker(), gap=1e-4, method=method)
    assert solution.converged and solution.nash_gap <= 1e-4
    assert solution.lower <= -1 / 18 <= solution.upper
    assert solution.exploitability == pytest.approx(solution.nash_gap / 2)
    assert math.isclose(sum(solution.policy(0)["0"].values()), 1.0)


@pytest.mark.parametrize("name, recipe", [("dcfr", dcfr), ("pcfr_plus", pcfr_plus)])
def test_a_lane_is_the_recipe(name, recipe):
    """A lane's x is the recipe's average at one of its rounds (to 1e-12), its y likewise: the same algorithm."""
    game = kuhn_poker()
    solution = solve_efg(game, gap=1e-3, method=name)
    rounds = solution.rounds[name]
    xs = [recipe(game, T).x for T in range(1, rounds + 1)]
    ys = [recipe(game, T).y for T in range(1, rounds + 1)]
    assert min(np.max(np.abs(x - solution.x)) for x in xs) < 1e-12
    assert min(np.max(np.abs(y - solution.y)) for y in ys) < 1e-12


class _Lane:
    def __init__(self, cpu, gap, history):
        self.cpu, self.gap, self.history, self.finished = cpu, gap, history, False

    def gap_at(self, seconds):
        gap = math.inf
        for cpu, value in self.history:
            if cpu > seconds:
                break
            gap = value
        return gap


def test_the_leader_is_better_at_equal_time():
    # b has run 4x longer and its gap now is smaller, but at a's time (1.0) b's gap was 0.5 > a's 0.1
    a = _Lane(1.0, 0.1, [(0.5, 1.0), (1.0, 0.1)])
    b = _Lane(4.0, 0.05, [(0.5, 0.8), (1.0, 0.5), (4.0, 0.05)])
    assert _leader([a, b]) == (a, b)
    b.history[1] = (1.0, 0.09)  # now b was ahead at equal time
    assert _leader([a, b]) == (b, a)
    b.finished = True
    assert _leader([a, b]) == (a, None)


def test_the_race_meets_the_gap_with_both_lanes():
    solution = solve_efg(kuhn_poker(), gap=1e-5, method="race")
    assert solution.converged and set(solution.rounds) == {"dcfr", "pcfr_plus"}
    assert solution.lower <= -1 / 18 <= solution.upper and solution.nash_gap <= 1e-5
    assert "dcfr:" in solution.note and "pcfr_plus:" in solution.note


def test_time_limit_returns_the_best_certified_pair():
    game = leduc_poker()
    solution = solve_efg(game, gap=1e-9, time_limit=0.05, method="race")
    assert not solution.converged
    value, *_ = sequence_form_lp(game)
    assert solution.lower <= value <= solution.upper and np.isfinite(solution.nash_gap)


def test_lp_size_model_grows():
    assert 0 < lp_seconds(kuhn_poker()) < lp_seconds(leduc_poker())


@pytest.mark.parametrize("kwargs, match", [({"gap": 0}, "gap must be"), ({"gap": math.nan}, "gap must be"),
                                           ({"method": "cfr"}, "method must be"), ({"time_limit": -1}, "time_limit"),
                                           ({"max_rounds": 0}, "max_rounds")])
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        solve_efg(kuhn_poker(), **kwargs)


def test_not_a_game():
    with pytest.raises(TypeError, match="extensive-form game"):
        solve_efg(np.eye(2))


def test_the_switch_to_the_lp():
    from gamedyn.games.efg.solve import _prefer_lp

    assert not _prefer_lp(0.1, 0.01, 10.0)  # too early: the extrapolation has too little behind it
    assert _prefer_lp(0.1, 0.06, 10.0)  # 3 x 0.1 < 1.25 x 10
    assert not _prefer_lp(0.1, 0.06, 0.2)  # 0.3 > 1.25 x 0.2: the race finishes first
    assert not _prefer_lp(0.1, 0.06, 0.0)


def test_the_extrapolated_remaining_time():
    from gamedyn.games.efg.solve import _Lane

    lane = object.__new__(_Lane)  # only its history: gap = 1e-2 (t / 0.1)^-2 exactly
    lane.history = [(t, 1e-2 * (t / 0.1) ** -2) for t in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6)]
    assert lane.remaining(1e-4) == pytest.approx(1.0 - 0.6, rel=1e-9)  # the target at t = 1.0
    assert lane.remaining(1.0) == 0.0


def test_the_best_bracket_of_both_lanes():
    from gamedyn.games.efg.solve import _Best

    best = _Best()
    best.offer("dcfr", -1.0, [1.0, 0.0], 1.0, [1.0, 1.0])
    best.offer("pcfr_plus", -2.0, [2.0, 0.0], 0.5, [2.0, 2.0])
    assert (best.lower, best.upper, best.x_from, best.y_from) == (-1.0, 0.5, "dcfr", "pcfr_plus")
    assert best.x.tolist() == [1.0, 0.0] and best.y.tolist() == [2.0, 2.0] and best.width == 1.5


def _solve_module():
    import importlib

    return importlib.import_module("gamedyn.games.efg.solve")


def test_the_probe_answers_kuhn_alone(monkeypatch):
    """auto's probe: PCFR+ alone meets a Nash gap of 1e-3 on Kuhn (25 rounds; a few ms of its 10 ms, which
    benchmarks/efg.py measures: the budget is raised here so that the test does not depend on the machine's speed), so
    no other lane starts; x and y are PCFR+'s averages at rounds of the probe (the recipe's, to 1e-12), certified."""
    monkeypatch.setattr(_solve_module(), "PROBE_SECONDS", 5.0)
    game = kuhn_poker()
    solution = solve_efg(game, gap=1e-3)
    assert solution.rounds.keys() == {"pcfr_plus"} and solution.method == "pcfr_plus"
    assert "met the gap" in solution.note
    assert solution.converged and solution.lower <= -1 / 18 <= solution.upper
    again = game.bracket(solution.x, solution.y)
    assert (again.lower, again.upper) == (solution.lower, solution.upper) and again.nash_gap <= 1e-3
    runs = [pcfr_plus(game, T) for T in range(1, solution.rounds["pcfr_plus"] + 1)]  # x and y: the best ends' rounds
    assert min(np.max(np.abs(run.x - solution.x)) for run in runs) < 1e-12
    assert min(np.max(np.abs(run.y - solution.y)) for run in runs) < 1e-12


def test_the_race_goes_on_from_the_probe(monkeypatch):
    """Where the probe does not meet the gap (Leduc: PCFR+ needs about 130 ms to 2e-3; here the probe's budget is cut to
    one round's worth), the race starts with the probe's rounds as the PCFR+ lane's first slice, and its answer is
    still certified around the LP's value."""
    monkeypatch.setattr(_solve_module(), "PROBE_SECONDS", 1e-9)
    game = leduc_poker()
    solution = solve_efg(game, gap=2e-3)
    assert "the race goes on" in solution.note and solution.rounds.keys() == {"dcfr", "pcfr_plus"}
    probe_rounds = int(solution.note.split("probe: pcfr_plus alone ")[1].split(" rounds")[0])
    assert 1 <= probe_rounds <= solution.rounds["pcfr_plus"]
    value, *_ = sequence_form_lp(game)
    assert solution.converged and solution.lower <= value <= solution.upper and solution.nash_gap <= 2e-3
