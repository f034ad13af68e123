"""Data functions of gamedyn.paper.experiments.logistic_figures in quick mode, and the PNG writer."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest

from gamedyn.paper.experiments import logistic_figures as lf
from gamedyn.logistic import IncreasingSchedule


@pytest.fixture(scope="module")
def fig1():
    return lf.figure1_data(quick=True)


@pytest.fixture(scope="module")
def fig2():
    return lf.figure2_data(quick=True)


@pytest.fixture(scope="module")
def fig3():
    return lf.figure3_data(quick=True)


@pytest.fixture(scope="module")
def fig4():
    pytest.importorskip("sklearn")  # Fig. 4 uses scikit-learn's bundled 8x8 digits
    return lf.figure4_data(quick=True)


@pytest.fixture(scope="module")
def cross():
    return lf.cross_paper_data(quick=True)


def test_figure1_quick(fig1):
    T = lf.FIG1["quick_T"]
    assert fig1["gamma"] == pytest.approx(0.3010786, abs=1e-7)
    assert set(fig1["log_loss"]) == {"proposed (7)", "constant eta=4", "constant eta=100", "constant eta=1000"}
    for curve in fig1["log_loss"].values():
        assert curve.shape == (T + 1,) and np.all(np.isfinite(curve))
    proposed = fig1["log_loss"]["proposed (7)"]
    # the paper's claim that survives: the schedule beats eta = 4 (= 1/L_smooth) at the end ...
    assert proposed[-1] < fig1["log_loss"]["constant eta=4"][-1]
    assert fig1["crossover"]["constant eta=4"] is not None
    # ... but not the huge constant step, which separates at once and then stagnates in float64
    huge = fig1["log_loss"]["constant eta=1000"]
    assert huge[-1] < proposed[-1] and np.all(huge[10:] == huge[-1])
    assert fig1["crossover"]["constant eta=1000"] is None


@pytest.mark.slow
def test_figure1_schedule_overtakes_eta_100():
    data = lf.figure1_data(T=15_000)
    crossing = data["crossover"]["constant eta=100"]
    assert crossing is not None and 1_000 < crossing < 15_000  # "after a crossover (thousands of iterations)"


def test_figure2_quick(fig2):
    T = lf.FIG2["quick_T"]
    assert fig2["log_loss"].shape == (T + 1,) and fig2["log_inv_eta"].shape == (T,)
    assert fig2["log_S"].shape == (T + 1,)
    assert fig2["tau2"] == 5525 and fig2["tau1"] < fig2["tau2"]
    assert np.all(fig2["log_loss"][:-1] <= fig2["log_inv_eta"] + 1e-12)  # Theorem 3.3 (i)
    assert np.all(np.diff(fig2["log_loss"]) < 0)
    assert fig2["fit"]["predicted_slope"] == pytest.approx((1.5 * fig2["gamma"] ** 2) ** (1 / 3))


def test_figure2_ln_S_is_linear_in_cube_root_at_the_reference_horizon(fig2):
    """Spec: ln S_t grows like (1.5 gamma^2 t)^{1/3} after tau2 with R^2 >= 0.99 (T = 300 000)."""
    log_S = IncreasingSchedule(fig2["gamma"]).log_S(lf.FIG2["T"])
    assert log_S[-1] == pytest.approx(16.71, abs=0.005)
    assert lf.phase3_fit(log_S, fig2["tau2"])["r2"] >= 0.99
    with pytest.raises(ValueError, match="tau2"):
        lf.phase3_fit(log_S[:10], 9)


def _check_sgd_panel(panel, T, eps_list):
    times = panel["times"]
    assert times[0] == 0 and times[-1] == T and np.all(np.diff(times) > 0)
    assert len(times) <= 301
    assert set(panel["runs"]) == set(eps_list)
    for run in panel["runs"].values():
        for key in ("log_mean", "log_min", "log_max"):
            assert run[key].shape == times.shape and np.all(np.isfinite(run[key]))
        assert np.all(run["log_min"] <= run["log_mean"] + 1e-12)
        assert np.all(run["log_mean"] <= run["log_max"] + 1e-12)
        hits = [h for h in run["hitting_times"] if h is not None]
        assert all(h < run["bound"] for h in hits)  # Theorem 3.4


def test_figure3_quick(fig3):
    _check_sgd_panel(fig3, lf.FIG3["quick_T"], lf.FIG3["eps"])
    assert fig3["gamma"] == pytest.approx(0.1003351, abs=1e-7)
    for eps in (1e-2, 1e-4, 1e-8):  # every seed hits these within the quick horizon
        assert None not in fig3["runs"][eps]["hitting_times"]
    # smaller eps ends lower (the cap 1/eps is what stops the decrease)
    finals = [fig3["runs"][eps]["log_mean"][-1] for eps in lf.FIG3["eps"]]
    assert np.all(np.diff(finals) < 0)
    assert fig3["runs"][1e-8]["log_mean"][-1] < math.log(1e-8)


def test_figure4_quick(fig4):
    assert list(fig4) == ["4v9", "0v8", "2v6", "1v5"]
    for name, panel in fig4.items():
        _check_sgd_panel(panel, lf.FIG4["quick_T"], lf.FIG4["eps"])
        assert panel["n"] == 50
        assert None not in panel["runs"][1e-2]["hitting_times"]
        # the real transient of the paper's Fig. 4: the mean loss first rises above 1
        assert panel["runs"][1e-16]["log_mean"].max() > 0.0
    assert [round(p["gamma"], 4) for p in fig4.values()] == [0.1706, 0.1813, 0.1611, 0.1305]


def test_cross_paper_quick(cross):
    gamma = cross["gamma"]
    n = 1000
    curves = cross["curves"]
    assert len(curves) == 3
    for label, curve in curves.items():
        assert curve["t"].shape == curve["margin"].shape == curve["log_loss"].shape
        assert np.all(np.isfinite(curve["margin"])) and np.all(np.isfinite(curve["log_loss"]))
        assert np.all(curve["margin"] <= gamma + 1e-10)  # nothing beats the max margin
    T = curves["NAG (seed 1, s_T)"]["t"].astype(float)
    # Theorem 6 (NAG) and Theorem 4 (accelerated perceptron) of seed 1, at every T of the grid
    assert np.all(curves["NAG (seed 1, s_T)"]["margin"] >= gamma - (8 * math.log(n) + 2) / (gamma * T * (T + 1)))
    ap = curves["accelerated perceptron (seed 1, v_T)"]
    assert np.all(ap["margin"] >= gamma - 8 * math.log(n) / (gamma * T * (T + 1)))
    gd_curve = curves["GD, schedule (7)"]
    assert np.all(np.diff(gd_curve["log_loss"]) < 0)
    # seed 1 reaches the max margin within 1e-3 in a few hundred rounds; GD's margin is still well below
    assert ap["margin"][-1] > gamma - 1e-3 and gd_curve["margin"][-1] < gamma - 0.01


def test_write_figures_quick(tmp_path):
    pytest.importorskip("matplotlib")
    pytest.importorskip("sklearn")
    assert lf.main(["--out", str(tmp_path), "--quick"]) == 0
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == sorted(lf.FIGURE_FILES.values())
    for name in written:
        data = (tmp_path / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and 5_000 < len(data) < 200_000


def test_plotting_without_matplotlib_says_what_to_install(monkeypatch, fig1, tmp_path):
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(ImportError, match=r"install gamedyn\[plot\]"):
        lf.plot_figure1(fig1, tmp_path / "x.png")


def test_horizon_override_is_validated():
    with pytest.raises(ValueError, match="T must be >= 1"):
        lf.figure1_data(T=0)
