"""The peers of benchmarks/efg.py (issue 33): LiteEFG's "exploitability" is the full Nash gap (its half is gamedyn's
certified exploitability of the same policy), OpenSpiel's Python MMD driven with gamedyn's halving schedule (alpha
halved after stages of 20, 40, 80, ... rounds), and LiteEFG skipped with its reason when it does not import."""

from __future__ import annotations

import importlib.util
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _benchmark():
    spec = importlib.util.spec_from_file_location("efg_benchmark_peers", ROOT / "benchmarks" / "efg.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("kind", ["LiteEFG CFR+", "LiteEFG DCFR"])
def test_liteefg_half_gap_is_gamedyns_certified_exploitability(kind, tmp_path, monkeypatch):
    """After 30 iterations on Kuhn poker, half of LiteEFG's summed best-response gains equals gamedyn's certified
    exploitability of LiteEFG's policy (exported through its TabularPolicy) to 1e-10, and is not the full sum."""
    pyspiel = pytest.importorskip("pyspiel")
    pytest.importorskip("LiteEFG")
    import contextlib
    import io

    import LiteEFG as leg
    from LiteEFG.baselines import DCFR, CFRplus

    from gamedyn.games.efg import kuhn_poker

    monkeypatch.setenv("HOME", str(tmp_path))  # LiteEFG's tree cache: ~/game_instances
    benchmark = _benchmark()
    spiel_game = pyspiel.load_game("kuhn_poker")
    step, half_gap = benchmark._liteefg(spiel_game, kind)
    for _ in range(30):
        step()
    # an independent LiteEFG run of the same baseline, its policy exported and certified by gamedyn
    with contextlib.redirect_stdout(io.StringIO()):
        graph = CFRplus.graph() if kind == "LiteEFG CFR+" else DCFR.graph()
        env = leg.OpenSpielEnv(spiel_game, traverse_type="Enumerate", regenerate=False)
        env.set_graph(graph)
    strategy = graph.current_strategy if kind == "LiteEFG CFR+" else lambda: graph.current_strategy("average-iterate")
    kind_name = "linear-avg-iterate" if kind == "LiteEFG CFR+" else "last-iterate"
    for _ in range(30):
        graph.update_graph(env)
        env.update_strategy(strategy(), update_best=False)
    policy, _ = env.get_strategy(strategy(), kind_name)
    game = kuhn_poker()
    x, y = benchmark._spiel_policy(game, policy)
    certified = game.exploitability(x, y)
    full = sum(env.exploitability(strategy(), kind_name))
    assert certified > 1e-4  # 30 iterations: not converged, so the factor 2 shows
    assert half_gap() == pytest.approx(certified, abs=1e-10)
    assert full == pytest.approx(2 * certified, abs=1e-10)


def test_openspiel_mmd_halving_schedule():
    """The halving drive of OpenSpiel's MMDDilatedEnt: alpha 0.2 for rounds 1-20, 0.1 for 21-60, 0.05 for 61-140,
    0.025 after, the stepsize alpha / max|A|^2 (OpenSpiel's rule) at each; the constant run keeps alpha 0.05."""
    pyspiel = pytest.importorskip("pyspiel")
    pytest.importorskip("open_spiel.python.algorithms.mmd_dilated")
    import numpy as np
    from open_spiel.python.algorithms import mmd_dilated

    benchmark = _benchmark()
    seen = []
    original = mmd_dilated.MMDDilatedEnt.update_sequences

    def record(self):
        seen.append((self.alpha, self.stepsize * np.max(np.abs(self.payoff_mat)) ** 2))
        original(self)

    game = pyspiel.load_game("kuhn_poker")
    try:
        mmd_dilated.MMDDilatedEnt.update_sequences = record
        step, policy = benchmark._openspiel_mmd(game, halving=True)
        for _ in range(150):
            step()
        expected = [0.2] * 20 + [0.1] * 40 + [0.05] * 80 + [0.025] * 10
        assert [alpha for alpha, _ in seen] == expected
        assert [scaled for _, scaled in seen] == pytest.approx(expected, rel=1e-12)
        seen.clear()
        step, policy = benchmark._openspiel_mmd(game, halving=False)
        for _ in range(30):
            step()
        assert {alpha for alpha, _ in seen} == {0.05}
    finally:
        mmd_dilated.MMDDilatedEnt.update_sequences = original
    assert hasattr(policy(), "action_probability_array")


def test_liteefg_missing_names_the_reason(monkeypatch):
    """Without LiteEFG, the benchmark says why (the import error) and how to install it, and skips it."""
    benchmark = _benchmark()
    monkeypatch.setitem(sys.modules, "LiteEFG", None)  # import LiteEFG raises ImportError
    reason = benchmark.liteefg_missing()
    assert reason.startswith("LiteEFG skipped: import LiteEFG failed") and "gamedyn[bench]" in reason
