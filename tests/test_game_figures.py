"""Seed-1 figures: the data functions (shapes, finiteness, the theorems they illustrate) and the PNGs."""

import builtins
import os

import numpy as np
import pytest

from gamedyn.paper.experiments import game_figures
from gamedyn.paper.experiments.iterations import IterationRow, IterationTable

T = 60


@pytest.fixture(scope="module")
def traces():
    return game_figures.recipe_traces(T=T)


def test_traces_are_finite_arrays_of_length_T(traces):
    assert traces["t"].shape == (T,) and traces["t"][0] == 1 and traces["t"][-1] == T
    assert len(traces["traces"]) == 6
    for label, run in traces["traces"].items():
        for key in ("normalised_margin", "average_margin", "w_regret", "p_regret"):
            assert run[key].shape == (T,), (label, key)
            assert np.all(np.isfinite(run[key])), (label, key)


def test_smooth_and_accelerated_outputs_have_the_same_direction(traces):
    runs = traces["traces"]  # Theorem 1: the same plays, outputs differ by a positive factor
    np.testing.assert_allclose(runs["smooth_perceptron"]["normalised_margin"],
                               runs["accelerated_perceptron"]["normalised_margin"], rtol=1e-12, atol=1e-15)


def test_margin_gaps_respect_gamma_and_the_theorems(traces):
    data = game_figures.margin_gap_data(traces)
    for label, gap in data["normalised_gap"].items():
        assert gap.shape == (T,) and np.all(gap >= -1e-12), label  # gamma is the max normalised margin
    t = data["t"]
    bounds = list(data["normalised_bounds"].values())
    assert np.all(data["normalised_gap"]["accelerated_perceptron"] <= bounds[0] + 1e-12)  # Theorem 4
    assert np.all(data["normalised_gap"]["nag_margin"] <= bounds[1] + 1e-12)  # Theorem 6
    mirror_prox_bound = list(data["average_bounds"].values())[0]
    assert np.all(data["average_gap"]["mirror_prox_perceptron"] <= mirror_prox_bound + 1e-12)  # Theorem 5
    np.testing.assert_allclose(mirror_prox_bound, np.sqrt(2 * np.log(data["n"])) / t)


def test_regret_sums_stay_below_their_bounds(traces):
    data = game_figures.regret_data(traces)
    for label, panel in data["panels"].items():
        np.testing.assert_allclose(panel["total"], panel["w_regret"] + panel["p_regret"])
        if panel["bound"] is not None:
            assert np.all(panel["total"] <= panel["bound"] + 1e-9), label
    assert data["panels"]["accelerated (theta=1)"]["bound"] is None  # different weights


def small_table():
    rows = (IterationRow("hard", "perceptron", 0.2, 10, 24), IterationRow("hard", "perceptron", 0.1, 40, 99),
            IterationRow("hard", "nag_margin", 0.2, 10, 5), IterationRow("hard", "nag_margin", 0.1, 40, 9),
            IterationRow("hard", "nag_margin", 0.05, 160, None))
    return IterationTable(rows, {("hard", "perceptron"): 2.04, ("hard", "nag_margin"): 0.85})


def test_iterations_figure_data_drops_failed_runs_and_sorts_by_inverse_gamma():
    data = game_figures.iterations_figure_data(small_table())
    nag = data["hard"]["nag_margin"]
    np.testing.assert_allclose(nag["inverse_gamma"], [5.0, 10.0])
    np.testing.assert_allclose(nag["iterations"], [5.0, 9.0])
    assert nag["slope"] == 0.85 and data["hard"]["perceptron"]["iterations"].shape == (2,)


def test_write_game_figures_writes_three_pngs(tmp_path):
    pytest.importorskip("matplotlib")
    paths = game_figures.write_game_figures(tmp_path, quick=True, iteration_table=small_table())
    assert sorted(os.path.basename(path) for path in paths) == sorted(game_figures.GAME_FIGURE_FILES.values())
    for path in paths:
        with open(path, "rb") as handle:
            assert handle.read(8) == b"\x89PNG\r\n\x1a\n"
        assert os.path.getsize(path) > 10_000


def test_plotting_without_matplotlib_says_how_to_install(monkeypatch, traces):
    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError("No module named 'matplotlib'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    with pytest.raises(ImportError, match=r"gamedyn\[plot\]"):
        game_figures.plot_margin_gap(game_figures.margin_gap_data(traces), "unused.png")
