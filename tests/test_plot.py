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
    fictitious, plain, rm_plus, optimistic = paths.values()
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


# ------------------------------------------------------------- pictures of any game, captions measured


def _envelope(points, equilibrium, edges):
    """Largest max-norm distance to the equilibrium over each window [a, b) of rounds (an independent loop)."""
    return [max(max(abs(x - e) for x, e in zip(point, equilibrium)) for point in points[a:b])
            for a, b in zip(edges[:-1], edges[1:])]


def _turns_around(points, equilibrium):
    """Signed turns of the path around the equilibrium in the plane orthogonal to (1, 1, 1)."""
    basis = np.array([[1.0, -1.0, 0.0], [1.0, 1.0, -2.0]]).T / np.array([math.sqrt(2), math.sqrt(6)])
    uv = (np.asarray(points) - np.asarray(equilibrium)) @ basis
    angle = np.unwrap(np.arctan2(uv[:, 1], uv[:, 0]))
    return (angle[-1] - angle[0]) / (2 * math.pi)


def _titles(figure):
    return [ax.get_title() for ax in figure.axes if ax.get_title()]


def test_rock_paper_scissors_captions_are_what_the_paths_do():
    """Fictitious play's averages spiral IN (they used to be captioned "averages cycle"), Hedge's plays spiral
    out to the boundary, optimistic Hedge's converge: each caption checked against its path's measurements."""
    pytest.importorskip("matplotlib")
    paths = plot.dynamics_on_rock_paper_scissors(T=3000)
    titles = _titles(plot.plot_rock_paper_scissors(paths))
    fictitious, plain, rm_plus, optimistic = paths.values()
    edges = [30, 95, 300, 950, 3000]
    centre = [1 / 3] * 3
    spiral_in = _envelope(fictitious, centre, edges)
    assert all(b < a for a, b in zip(spiral_in, spiral_in[1:])) and spiral_in[-1] < spiral_in[0] / 4
    assert abs(_turns_around(fictitious[30:], centre)) >= 2
    assert "spirals in" in titles[0] and "cycle" not in titles[0]
    spiral_out = _envelope(plain, centre, edges)
    assert all(b > a for a, b in zip(spiral_out, spiral_out[1:])) and plain[-500:].min() < 1e-3
    assert abs(_turns_around(plain[30:], centre)) >= 2
    assert "spirals out" in titles[1]
    assert np.abs(optimistic[-1] - 1 / 3).max() < 1e-6 and "converges" in titles[3]
    # RM+ beside Hedge: zero regrets play uniform, RPS's equilibrium, and alternating RM+ stays there
    assert np.abs(rm_plus - 1 / 3).max() < 1e-12 and titles[2].startswith("RM+") and "converges" in titles[2]
    from gamedyn import solve_matrix_game

    marked = solve_matrix_game(plot.ROCK_PAPER_SCISSORS).row  # the star: the LP's equilibrium, 1/3 to rounding
    for title, points in zip(titles, paths.values()):  # the numbers in the caption are the measured envelopes
        first, last = _envelope(points, marked, [30, 95]), _envelope(points, marked, [949, 3000])
        assert f"{first[0]:.2g} (rounds 31-95)" in title and f"{last[0]:.2g} (rounds 950-3000)" in title


def test_a_three_action_game_of_ones_own_is_drawn_with_its_labels_and_equilibrium():
    """plot_rock_paper_scissors drew RPS's labels and a star at (1/3, 1/3, 1/3) for any game; on a game whose
    equilibrium is (0.25, 0.2, 0.55) the star, the corners and the captions are that game's."""
    pytest.importorskip("matplotlib")
    from gamedyn import solve_matrix_game

    game, actions, start = plot.OWN_GAME
    equilibrium = solve_matrix_game(game).row
    assert np.allclose(equilibrium, [0.25, 0.2, 0.55], atol=1e-9)
    paths = plot.matrix_game_dynamics(game, 3000, row_start=start)
    figure = plot.plot_game_dynamics(paths, game, actions=actions)
    star = plot.simplex_coordinates(equilibrium)
    for ax in figure.axes:
        stars = [line for line in ax.get_lines() if line.get_marker() == "*"]
        assert len(stars) == 1 and np.allclose(np.ravel(stars[0].get_xydata()), star, atol=1e-12)
        assert [text.get_text() for text in ax.texts] == list(actions)
    fictitious, _, rm_plus, optimistic = paths.values()
    assert np.abs(optimistic[-1] - equilibrium).max() < 1e-6  # converges ON the star
    envelope = _envelope(fictitious, equilibrium, [30, 95, 300, 950, 3000])
    assert all(b < a for a, b in zip(envelope, envelope[1:]))
    titles = _titles(figure)
    assert "spirals in" in titles[0] and "converges" in titles[3]
    rm_envelope = _envelope(rm_plus, equilibrium, [30, 95, 300, 950, 3000])  # RM+'s averages spiral in, fast
    assert all(b < a for a, b in zip(rm_envelope, rm_envelope[1:])) and rm_envelope[-1] < 2e-3
    assert "spirals in" in titles[2] and f"{rm_envelope[-1]:.2g} (rounds 950-3000)" in titles[2]
    with pytest.raises(ValueError, match="actions must name"):
        plot.plot_game_dynamics(paths, game, actions=("a", "b"))


def test_a_two_action_game_shows_the_probability_of_action_one():
    """M = [[3, -1], [-2, 1]]: x* = (3/7, 4/7) in closed form (3x - 2(1-x) = -x + (1-x)); the dashed line is at
    3/7, the curves are P(hawk) over the rounds, and the captions say what the curves do."""
    pytest.importorskip("matplotlib")
    game, actions, start = plot.TWO_ACTION_GAME
    paths = plot.matrix_game_dynamics(game, 3000, row_start=start)
    figure = plot.plot_game_dynamics(paths, game, actions=actions)
    for ax, points in zip(figure.axes, paths.values()):
        curve, dashed = ax.get_lines()
        assert np.array_equal(curve.get_ydata(), points[:, 0]) and np.allclose(dashed.get_ydata(), 3 / 7, atol=1e-9)
    assert "hawk" in figure.axes[0].get_ylabel()
    fictitious, plain, rm_plus, optimistic = paths.values()
    crossings = np.count_nonzero(np.diff(np.sign(fictitious[30:, 0] - 3 / 7)))
    envelope = _envelope(fictitious, [3 / 7, 4 / 7], [30, 95, 300, 950, 3000])
    assert crossings >= 2 and all(b < a for a, b in zip(envelope, envelope[1:]))
    assert abs(optimistic[-1, 0] - 3 / 7) < 1e-6
    titles = _titles(figure)
    assert "oscillates, approaching" in titles[0] and "converges" in titles[3]
    assert "oscillates, approaching" in titles[2] and abs(rm_plus[-1, 0] - 3 / 7) < 1e-3
    with pytest.raises(ValueError, match=r"\(T, 2\) or \(T, 3\)"):
        plot.plot_game_dynamics({"four actions": np.full((10, 4), 0.25)}, np.eye(4))


def test_describe_path_words():
    assert plot.describe_path(np.tile([0.5, 0.5], (200, 1)), [0.5, 0.5]).startswith("converges")
    steady = np.tile([0.6, 0.4], (200, 1))
    assert plot.describe_path(steady, [0.5, 0.5]).startswith("keeps its distance")
    away = np.column_stack([np.linspace(0.5, 1.0, 200), np.linspace(0.5, 0.0, 200)])
    assert plot.describe_path(away, [0.5, 0.5]).startswith("moves away")
    with pytest.raises(ValueError, match="path of strategies"):
        plot.describe_path(np.ones((5, 4)) / 4, [0.25] * 4)


def test_regret_figure_puts_both_certificates_on_one_log_log_axis():
    """B_t of the accelerated pair (slope about -2) and of the plain pair (about -1) on ONE axis, with reference
    lines of slope exactly -1 and -2 and each pair's fitted slope in its legend (an independent fit)."""
    pytest.importorskip("matplotlib")
    curves = plot.tutorial_regret_data(T=2000)
    figure = plot.plot_certificates(curves)
    (ax,) = figure.axes
    assert ax.get_xscale() == ax.get_yscale() == "log"
    lines = {line.get_label(): line for line in ax.get_lines()}
    for power in (1, 2):
        x, y = lines[f"reference slope t^-{power}"].get_data()
        assert np.allclose(np.diff(np.log(y)) / np.diff(np.log(x)), -power, atol=1e-9)
    slopes = []
    for label, data in curves.items():
        keep = data["t"] >= 200
        slope = np.polyfit(np.log(data["t"][keep]), np.log(data["bound"][keep]), 1)[0]
        slopes.append(slope)
        (line,) = [line for name, line in lines.items() if name.startswith(label + ": B_t")]
        assert np.array_equal(line.get_ydata(), data["bound"]) and f"fitted slope {slope:.2f}" in line.get_label()
    accelerated, plain = slopes
    assert -2.2 < accelerated < -1.8 and -1.2 < plain < -0.6  # the tutorial's "about t^-2" and "about t^-1"


def test_animation_is_readable_counts_rounds_and_is_quick(tmp_path):
    """The GIF was 768 x 256 with no round counter and took 6.3 s of CPU; now >= 1000 pixels wide, a counter
    that changes from frame to frame, and well under 4 s of CPU for the tutorial's 3 x 3000 rounds."""
    pytest.importorskip("matplotlib")
    if plot.pillow_missing():
        pytest.skip(plot.pillow_missing())
    import time

    from PIL import Image

    paths = plot.dynamics_on_rock_paper_scissors(T=3000)
    plot.animate_simplex(paths, tmp_path / "warm.gif", frames=3)  # imports and fonts, once
    start = time.process_time()
    plot.animate_simplex(paths, tmp_path / "rps.gif")
    seconds = time.process_time() - start
    image = Image.open(tmp_path / "rps.gif")
    assert image.size[0] >= 1000 and image.size[1] >= 400 and image.n_frames >= 40
    frames = []
    for index in (0, image.n_frames - 1):
        image.seek(index)
        frames.append(np.asarray(image.convert("L"), dtype=np.int16))
    width = frames[0].shape[1]
    band = slice(int(0.03 * frames[0].shape[0]), int(0.12 * frames[0].shape[0])), slice(width // 3, 2 * width // 3)
    assert (frames[0][band] < 128).any() and (frames[-1][band] < 128).any()  # text in the counter's band
    assert (frames[0][band] != frames[-1][band]).any()  # ... and it changed
    assert seconds < 4.0, f"the GIF took {seconds:.1f} s of CPU"


def test_the_tutorial_says_what_its_pictures_measure():
    """docs/tutorial/from-hedge-to-acceleration.md quotes the pictures' numbers: each is measured here again."""
    import pathlib

    text = " ".join((pathlib.Path(__file__).parent.parent / "docs" / "tutorial" / "from-hedge-to-acceleration.md").read_text().split())
    fictitious = plot.dynamics_on_rock_paper_scissors(T=3000)["fictitious play (FTL vs FTL): averages"]
    early, late = _envelope(fictitious, [1 / 3] * 3, [30, 95, 949, 3000])[::2]
    assert f"spiral in to the equilibrium" in text and "wider" not in text
    assert f"{early:.2g} over rounds 31-95 and {late:.2g} over rounds 950-3000" in text
    curves = plot.tutorial_regret_data(T=3000)
    slopes, sums = [], []
    for data in curves.values():
        keep = data["t"] >= 300
        slopes.append(np.polyfit(np.log(data["t"][keep]), np.log(data["bound"][keep]), 1)[0])
        sums.append(data["w_regret"][-1] + data["p_regret"][-1])
    assert f"last decade of 3000 rounds is {slopes[0]:.2f}" in text and f"(fitted slope {slopes[1]:.2f})" in text
    assert f"about {sums[0]:.0f} and {sums[1]:.0f} at $t=3000$" in text


def test_the_committed_pictures_are_what_the_code_draws(tmp_path):
    """docs/tutorial/images/ holds what gamedyn.plot draws today (issue 31: the pictures had three panels when the
    code drew four): each PNG has the size the code's figure saves at and records its panel count (``Panels``)
    equal to the figure's; the GIF has the animation's size and panel count (``panels=N``). Redraw them with
    ``python -m gamedyn.plot docs/tutorial/images``."""
    pytest.importorskip("matplotlib")
    image_module = pytest.importorskip("PIL.Image", reason="pillow reads the pictures (it comes with matplotlib)")
    import io
    import pathlib

    images = pathlib.Path(__file__).resolve().parent.parent / "docs" / "tutorial" / "images"
    for key, figure in plot.tutorial_figures(T=60).items():  # the horizon changes the paths, not panels or size
        drawn = io.BytesIO()
        figure.savefig(drawn, dpi=plot.TUTORIAL_DPI)
        with image_module.open(drawn) as fresh, image_module.open(images / plot.TUTORIAL_FILES[key]) as committed:
            assert committed.size == fresh.size, (key, committed.size, fresh.size)
            assert committed.info.get("Panels") == str(plot.panel_count(figure)), (key, committed.info.get("Panels"))
    paths = plot.dynamics_on_rock_paper_scissors(60)
    gif = plot.animate_simplex(paths, tmp_path / "fresh.gif", frames=3)
    with image_module.open(gif) as fresh, image_module.open(images / plot.TUTORIAL_FILES["animation"]) as committed:
        assert committed.size == fresh.size and committed.n_frames > 10
        assert committed.info.get("comment") == fresh.info.get("comment") == f"panels={len(paths)}".encode()
