"""Teaching pictures: the data behind them, and every figure written (matplotlib, the plot extra)."""

import math

import numpy as np
import pytest

from gamedyn import OFTL, Entropy, FTRLPlus, RegularizedBilinear, play
from gamedyn.io import make_separable, signed_rows
from gamedyn import plot


def test_simplex_coordinates_closed_form():
    corners = plot.simplex_coordinates(np.eye(3))
    assert np.allclose(corners, [[0, 0], [1, 0], [0.5, math.sqrt(3) / 2]])
    assert np.allclose(plot.simplex_coordinates([1 / 3] * 3), [0.5, math.sqrt(3) / 6])
    with pytest.raises(ValueError, match="3 actions"):
        plot.simplex_coordinates([0.5, 0.5])


def test_rock_paper_scissors_pictures_show_what_they_say():
    """Optimistic Hedge's plays end at the equilibrium; plain Hedge's at the boundary; FP's averages still circle."""
    paths = plot.dynamics_on_rock_paper_scissors(T=3000)
    fictitious, plain, optimistic = paths.values()
    assert np.abs(optimistic[-1] - 1 / 3).max() < 1e-6
    assert plain[-500:].min(axis=1).min() < 1e-3  # touches the boundary
    distances = np.abs(fictitious[-1000:] - 1 / 3).max(axis=1)
    assert 1e-3 < distances.max() < 0.05 and np.all(distances > 0)


def test_regret_curves_match_the_runner():
    payoff = RegularizedBilinear(signed_rows(*make_separable(40, 5, 0.1, 0)))
    curves = plot.regret_curves(payoff, OFTL(), FTRLPlus(Entropy(), 0.25), 200, weights="linear")
    result = play(payoff, OFTL(), FTRLPlus(Entropy(), 0.25), 200, weights="linear")
    assert curves["t"].tolist() == list(range(1, 201))
    assert curves["w_regret"][-1] == pytest.approx(result.w_regret, rel=1e-12, abs=1e-12)
    assert curves["bound"][-1] == pytest.approx(result.theorem2_bound, rel=1e-12)
    assert np.all(curves["gap"] <= curves["bound"] + 1e-12)
    with pytest.raises(ValueError, match="one weight sequence"):
        plot.regret_curves(payoff, OFTL(), FTRLPlus(Entropy(), 0.25), 10, p_weights="linear")


@pytest.mark.slow
def test_tutorial_figures_are_written(tmp_path):
    pytest.importorskip("matplotlib")
    written = plot.write_tutorial_figures(tmp_path, T=300, animation=plot.pillow_missing() is None)
    assert {path.rsplit("/", 1)[-1] for path in written} >= {"rps_dynamics.png", "regret_curves.png",
                                                              "explorer_heatmap.png"}
    for path in written:
        header = open(path, "rb").read(8)
        assert header.startswith(b"\x89PNG") or header.startswith(b"GIF8")


def test_animation_without_pillow_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setattr(plot, "pillow_missing", lambda: "the GIF animation needs pillow: pip install pillow")
    with pytest.raises(ImportError, match="pip install pillow"):
        plot.animate_simplex(plot.dynamics_on_rock_paper_scissors(T=10), tmp_path / "x.gif")


def test_heat_map_and_usage():
    pytest.importorskip("matplotlib")
    from gamedyn.paper import explore
    from gamedyn.paper.exploration import separator_learners

    payoff = RegularizedBilinear(signed_rows(*make_separable(30, 5, 0.1, 0)))
    figure = plot.plot_exploration(explore(payoff, separator_learners(), T=40))
    assert len(figure.axes) == 2  # the map and its colour bar
    with pytest.raises(ValueError, match="quantity"):
        plot.plot_exploration(explore(payoff, separator_learners(), T=5), quantity="speed")
    assert plot.main([]) == 2
