"""Issue 17: the small loop, observers, pure stop rules, regrets only when asked."""

from __future__ import annotations

import ast
import pathlib

import numpy as np
import pytest

import gamedyn
from gamedyn import OFTL, OFTRL, Bilinear, Entropy, FTRLPlus, RegularizedBilinear, SquaredEuclidean, play
from gamedyn.certify import stops
from gamedyn import each_round, record_plays, skip_regrets, stop_when, track_metrics

ROOT = pathlib.Path(__file__).resolve().parent.parent
A = np.random.default_rng(5).uniform(-1, 1, size=(40, 5))
A[:, 0] = np.abs(A[:, 0]) + 0.3
A /= np.linalg.norm(A, axis=1, keepdims=True)


def _lines_of_code(function: ast.FunctionDef, source: list[str]) -> int:
    """Lines of the body that hold code (no blank, comment or docstring lines)."""
    body = function.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    lines = set()
    for node in body:
        for line in range(node.lineno, node.end_lineno + 1):
            text = source[line - 1].strip()
            if text and not text.startswith("#"):
                lines.add(line)
    return len(lines)


def test_the_loop_function_is_at_most_80_lines_of_code():
    text = (ROOT / "gamedyn/engine/runner.py").read_text()
    tree = ast.parse(text)
    loop = next(node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "_loop")
    play_ = next(node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "play")
    assert _lines_of_code(loop, text.splitlines()) <= 80
    called = {node.func.id for node in ast.walk(play_) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    assert {"_build", "_loop", "_result"} <= called  # play = checks + building the game + the loop


class CountingObserver:
    """A duck-typed observer written against gamedyn.Observer alone: counts rounds, stops at round 7."""

    def __init__(self):
        self.seen = []

    def observe(self, state):
        self.seen.append((state.t, float(state.w_weight_total)))
        return state.t == 7


def test_a_duck_typed_observer_runs_and_may_stop_the_run():
    observer = CountingObserver()
    assert isinstance(observer, gamedyn.Observer)
    result = play(Bilinear(A), OFTRL(SquaredEuclidean(radius=1.0), 0.5), OFTRL(Entropy(), 0.5), 50,
                  observers=[observer])
    assert result.rounds == 7 and result.stopped_early and [t for t, _ in observer.seen] == list(range(1, 8))
    assert result.stop_reason == "observer CountingObserver fired at round 7"
    reference = play(Bilinear(A), OFTRL(SquaredEuclidean(radius=1.0), 0.5), OFTRL(Entropy(), 0.5), 7)
    assert np.array_equal(result.w_average, reference.w_average)
    assert result.certificate.upper == reference.certificate.upper


def test_observers_that_are_not_observers_are_refused():
    with pytest.raises(TypeError, match=r"observers\[0\] must be a gamedyn.Observer"):
        play(Bilinear(A), OFTRL(SquaredEuclidean(radius=1.0), 0.5), OFTRL(Entropy(), 0.5), 5, observers=[object()])


def test_sugar_keywords_and_observers_see_the_same_rounds():
    seen = []
    result = play(Bilinear(A), OFTRL(SquaredEuclidean(radius=1.0), 0.5), OFTRL(Entropy(), 0.5), 30, observers=[track_metrics(5), record_plays(), each_round(lambda state: seen.append(state.t)), stop_when(stops.separated)])
    assert seen == list(range(1, result.rounds + 1)) and result.trace["w"].shape == (result.rounds, A.shape[1])
    assert len(result.metrics["t"]) == result.rounds


def test_stop_rules_are_pure():
    """A rule changes nothing: calling margin_within(sharpen_every=...) or infeasible on a round state
    leaves the tracker as it was; the certificate observer does the requested work instead."""
    rule = stops.margin_within(1e-9, sharpen_every=1)
    assert rule.requests == {"sharpen_every": 1, "sharpen_check_every": 1, "sharpen_eps": 1e-9}
    captured = []
    play(Bilinear(A), OFTRL(SquaredEuclidean(radius=1.0), 0.5), OFTRL(Entropy(), 0.5), 10,
         observers=[each_round(lambda state: captured.append(state) if state.t == 10 else None)])
    tracker = captured[0].certificate_tracker
    before = tracker.state()
    before = {key: np.array(value, copy=True) for key, value in before.items()}
    for each in (rule, stops.infeasible(0.5), stops.any_of(rule, stops.infeasible(0.5))):
        each(captured[0])
    after = tracker.state()
    assert all(np.array_equal(np.asarray(after[key]), before[key]) for key in before)


def test_sharpening_is_done_by_the_certificate_observer_as_requested():
    """margin_within(eps, sharpen_every=k) certifies no later than without sharpening, and the bracket
    it reports is the sharpened tracker's (a valid, smaller U_t)."""
    T = 400
    plain = play(Bilinear(A), OFTRL(SquaredEuclidean(radius=1.0), 0.5), OFTRL(Entropy(), 0.5), T,
                 observers=[stop_when(stops.margin_within(0.01))])
    sharp = play(Bilinear(A), OFTRL(SquaredEuclidean(radius=1.0), 0.5), OFTRL(Entropy(), 0.5), T,
                 observers=[stop_when(stops.margin_within(0.01, sharpen_every=5))])
    assert sharp.rounds <= plain.rounds
    assert sharp.certificate.upper >= sharp.certificate.lower - 1e-12


# ----------------------------------------------------------------------------- regrets only when asked

@pytest.mark.parametrize("first", ["w", "p"])
def test_regrets_false_gives_the_same_iterates_and_names_what_it_skipped(first):
    w_learner, p_learner = (OFTL(), FTRLPlus(Entropy(), 1.0)) if first == "w" else (FTRLPlus(), OFTRL(Entropy(), 1.0))
    full = play(RegularizedBilinear(A), w_learner, p_learner, 200, weights="linear", first=first)
    lean = play(RegularizedBilinear(A), w_learner, p_learner, 200, weights="linear", first=first, observers=[skip_regrets()])
    for field in ("w_average", "p_average", "w_sum", "p_sum", "w_last", "p_last", "duality_gap"):
        assert np.array_equal(getattr(full, field), getattr(lean, field)), field
    assert lean.certificate.upper == full.certificate.upper and lean.certificate.lower == full.certificate.lower
    assert full.not_computed == ()
    assert set(lean.not_computed) == {"w_regret", "p_regret", "theorem2_bound", "w_played_loss", "p_played_loss"}
    assert all(getattr(lean, name) is None for name in lean.not_computed)
    with pytest.raises(ValueError, match="regrets=False"):
        lean.w_regret_against(np.zeros(A.shape[1]))


def test_regrets_false_skips_the_played_values_and_an_omd_loss_sum():
    """No played_values call per round; a mirror-descent seat keeps no loss sum when nothing needs it."""
    calls = []

    class Counting(gamedyn.ConcaveConvex):
        def played_values(self, w, p, w_loss, p_loss):
            calls.append(1)
            return super().played_values(w, p, w_loss, p_loss)

    payoff = Counting(lambda w, p: p @ A @ w, lambda w, p: A.T @ p, lambda w, p: A @ w,
                      w_dimension=A.shape[1], p_dimension=A.shape[0])
    learners = gamedyn.OMD(SquaredEuclidean(radius=1.0), 0.3), gamedyn.OMD(Entropy(), 0.3)
    full = play(payoff, *learners, 20)
    assert len(calls) == 20
    calls.clear()
    lean = play(payoff, *learners, 20, observers=[skip_regrets()])
    assert calls == [] and lean.w_loss_sum is None and lean.p_loss_sum is None
    assert {"w_loss_sum", "p_loss_sum"} <= set(lean.not_computed)
    assert np.array_equal(full.w_average, lean.w_average)


def test_regrets_false_refuses_metrics():
    with pytest.raises(ValueError, match="regrets=False"):
        play(Bilinear(A), OFTRL(SquaredEuclidean(radius=1.0), 0.5), OFTRL(Entropy(), 0.5), 5, observers=[track_metrics(), skip_regrets()])
