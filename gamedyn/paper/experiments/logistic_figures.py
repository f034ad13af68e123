"""Figures 1-4 of the separable-logistic paper, plus one figure comparing it with seed paper 1.

Each figure has a DATA function (``figure1_data`` ... ``figure4_data``, ``cross_paper_data``)
returning plain arrays and dicts, and a separate plotting function (matplotlib, imported lazily:
``pip install gamedyn[plot]``). Settings follow spec section 5 of ``separable-logistic.md``;
``quick=True`` shrinks the horizons (same data) for tests and smoke runs.

Losses are carried as ``ln L`` and plotted as ``log10 L`` on a linear axis labelled in powers of
ten, so a loss of ``1e-400`` is drawn where it belongs instead of reading 0.

Command line::

    python -m gamedyn.paper.experiments.logistic_figures --out DIR [--quick]
"""

from __future__ import annotations

import argparse
import math
import os
import time
from typing import Any

import numpy as np

from gamedyn.core.numerics import log_sum_exp
from gamedyn.core.validation import check_count
from gamedyn.logistic import IncreasingSchedule, adaptive_sgd, gd, log_loss, theorem_3_4

__all__ = [
    "FIG1", "FIG2", "FIG3", "FIG4", "CROSS",
    "figure1_data", "figure2_data", "phase3_fit", "figure3_data", "figure4_data", "cross_paper_data",
    "plot_figure1", "plot_figure2", "plot_figure3", "plot_figure4", "plot_cross_paper",
    "write_logistic_figures", "FIGURE_FILES", "main",
]

_LN10 = math.log(10.0)

# Spec section 5 (T, quick T).
FIG1: dict[str, Any] = dict(n=1000, d=10, gamma=0.3, seed=4, T=150_000, quick_T=3_000, steps=(4.0, 100.0, 1000.0))
FIG2: dict[str, Any] = dict(n=1500, d=80, gamma=0.1, seed=2, T=300_000, quick_T=8_000)
FIG3: dict[str, Any] = dict(n=5000, d=10, gamma=0.1, seed=3, T=40_000, quick_T=4_000,
            eps=(1e-2, 1e-4, 1e-8, 1e-16, 1e-32), seeds=10, points=301)
FIG4: dict[str, Any] = dict(pairs=((4, 9), (0, 8), (2, 6), (1, 5)), n=50, subset_seed=0, T=20_000, quick_T=3_000,
            eps=(1e-2, 1e-4, 1e-8, 1e-16), seeds=10, points=301)
# Cross-paper figure on the Fig. 1 data set; NAG and the accelerated perceptron read at a grid of T.
CROSS: dict[str, Any] = dict(gd_T=20_000, quick_gd_T=1_000, original_T=3_000, quick_original_T=200, grid=30)

FIGURE_FILES = {
    "figure1": "logistic_fig1_gd_vs_constant.png",
    "figure2": "logistic_fig2_schedule.png",
    "figure3": "logistic_fig3_sgd_synthetic.png",
    "figure4": "logistic_fig4_sgd_digits.png",
    "cross_paper": "logistic_cross_paper.png",
}


def _synthetic(spec):
    from gamedyn.io.datasets import make_separable, signed_rows

    return signed_rows(*make_separable(spec["n"], spec["d"], spec["gamma"], spec["seed"]))


def _horizon(spec, quick: bool, T) -> int:
    """``T`` if given (an override for tests and experiments), else the spec's or the quick horizon."""
    if T is not None:
        return check_count(T, "T")
    return spec["quick_T"] if quick else spec["T"]


def _gamma(A) -> float:
    from gamedyn.certify.margins import max_margin

    return max_margin(A).gamma


# ------------------------------------------------------------------------------------------------
# data functions
# ------------------------------------------------------------------------------------------------


def figure1_data(quick: bool = False, T: int | None = None) -> dict:
    """Fig. 1: GD with schedule (7) against constant steps eta in {4, 100, 1000} (spec 1.2).

    Returns ``t`` (0..T), ``log_loss`` {label: ln L(w_t)}, ``gamma`` (certified margin) and
    ``crossover`` {label: first t from which the schedule's loss stays strictly below that
    constant step's loss up to T, or None}.
    """
    A = _synthetic(FIG1)
    T = _horizon(FIG1, quick, T)
    gamma = _gamma(A)
    curves = {"proposed (7)": gd(A, T, IncreasingSchedule(gamma)).log_loss}
    for eta in FIG1["steps"]:
        curves[f"constant eta={eta:g}"] = gd(A, T, eta).log_loss
    proposed = curves["proposed (7)"]
    crossover = {}
    for label, curve in curves.items():
        if label == "proposed (7)":
            continue
        not_below = np.flatnonzero(proposed >= curve)
        crossover[label] = 0 if not_below.size == 0 else (int(not_below[-1]) + 1 if not_below[-1] < T else None)
    return dict(t=np.arange(T + 1), log_loss=curves, gamma=gamma, T=T, crossover=crossover)


def figure2_data(quick: bool = False, T: int | None = None) -> dict:
    """Fig. 2: loss and ``1/eta_t`` against t (left); ``ln S_t`` against ``t^{1/3}`` (right).

    The fit is least squares of ``ln S_t`` on ``t^{1/3}`` over ``t > tau2`` (phase 3), where
    Lemmas A.1/A.2 predict slope ``(1.5 gamma^2)^{1/3}`` asymptotically.
    """
    A = _synthetic(FIG2)
    T = _horizon(FIG2, quick, T)
    schedule = IncreasingSchedule(_gamma(A))
    res = gd(A, T, schedule)
    log_S = schedule.log_S(T)
    tau2 = schedule.tau2
    fit = phase3_fit(log_S, tau2)
    fit["predicted_slope"] = (1.5 * schedule.gamma**2) ** (1.0 / 3.0)
    return dict(
        t=np.arange(T + 1), log_loss=res.log_loss, log_inv_eta=-res.log_eta, log_S=log_S,
        gamma=schedule.gamma, tau1=schedule.tau1, tau2=tau2, T=T, fit=fit,
    )


def phase3_fit(log_S, tau2: int) -> dict:
    """Least-squares line ``ln S_t ~ slope t^{1/3} + intercept`` over ``tau2 < t < len(log_S)``,
    with its coefficient of determination ``r2`` (Fig. 2 right)."""
    t = np.arange(len(log_S))
    phase3 = t > tau2
    if np.count_nonzero(phase3) < 3:
        raise ValueError(f"need at least 3 times after tau2 = {tau2}; pass a longer log_S (T > tau2 + 2).")
    x, y = np.cbrt(t[phase3]), np.asarray(log_S)[phase3]
    slope, intercept = np.polyfit(x, y, 1)
    resid = y - (slope * x + intercept)
    r2 = 1.0 - resid @ resid / np.sum((y - y.mean()) ** 2)
    return dict(slope=float(slope), intercept=float(intercept), r2=float(r2))


def _sgd_panel(A, eps_list, seeds: int, T: int, points: int) -> dict:
    """Adaptive SGD over ``seeds`` index streams: arithmetic mean of L (in the log domain) and the
    min-max band at ``points`` times uniform in sqrt(t), hitting times and Theorem 3.4's bound."""
    n = A.shape[0]
    gamma = _gamma(A)
    times = np.unique(np.round(np.linspace(0.0, math.sqrt(T), points) ** 2).astype(np.int64))
    runs = {}
    for eps in eps_list:
        logs, hits = [], []
        for seed in range(seeds):
            res = adaptive_sgd(A, T, eps, seed=seed, record=times)
            logs.append(res.log_loss)
            hits.append(res.hitting_time)
        log_array = np.array(logs)
        runs[eps] = dict(
            log_mean=np.array([log_sum_exp(col) for col in log_array.T]) - math.log(seeds),
            log_min=log_array.min(axis=0), log_max=log_array.max(axis=0), hitting_times=hits,
            bound=theorem_3_4(n, gamma, eps),
        )
    return dict(times=times, sqrt_t=np.sqrt(times), runs=runs, gamma=gamma, n=n, T=T)


def figure3_data(quick: bool = False, T: int | None = None) -> dict:
    """Fig. 3: Adaptive SGD (10)+(11) on the 10-d synthetic set (n = 5000), several eps."""
    A = _synthetic(FIG3)
    T = _horizon(FIG3, quick, T)
    return _sgd_panel(A, FIG3["eps"], FIG3["seeds"], T, FIG3["points"])


def figure4_data(quick: bool = False, T: int | None = None) -> dict:
    """Fig. 4: Adaptive SGD on n = 50 subsets of digit pairs (sklearn 8x8 digits, not MNIST).

    Returns {"4v9": panel, ...}, each panel as in :func:`figure3_data`.
    """
    from gamedyn.io.datasets import digits_pair, signed_rows

    T = _horizon(FIG4, quick, T)
    panels = {}
    for first, second in FIG4["pairs"]:
        A = signed_rows(*digits_pair(first, second, n=FIG4["n"], subset_seed=FIG4["subset_seed"]))
        panels[f"{first}v{second}"] = _sgd_panel(A, FIG4["eps"], FIG4["seeds"], T, FIG4["points"])
    return panels


def _normalised_margin(A, w) -> float:
    norm = np.linalg.norm(w)
    return float(np.min(A @ w) / norm) if norm > 0 else math.nan


def cross_paper_data(quick: bool = False) -> dict:
    """Seed 1 against seed 2 on the Fig. 1 data: normalised margin ``min_i (A w)_i / ||w||`` and
    logistic loss ``ln L(w)`` against iterations for GD with schedule (7) (w_t), NAG on the
    exponential loss (``gamedyn.games.margin.original.nag``, output s_T) and the accelerated perceptron
    (``gamedyn.games.margin.original.accelerated_perceptron``, output v_T), read off their trajectories at a
    geometric grid of T. Every method uses one full pass over the data per iteration."""
    from gamedyn.games.margin.original import accelerated_perceptron, nag

    A = _synthetic(FIG1)
    gamma = _gamma(A)
    gd_T = CROSS["quick_gd_T"] if quick else CROSS["gd_T"]
    orig_T = CROSS["quick_original_T"] if quick else CROSS["original_T"]
    gd_times = np.unique(np.geomspace(1, gd_T, 60).astype(np.int64))
    res = gd(A, gd_T, IncreasingSchedule(gamma), snapshots=gd_times)
    grid = np.unique(np.geomspace(1, orig_T, CROSS["grid"]).astype(np.int64))
    out = {"GD, schedule (7)": dict(
        t=gd_times, margin=np.array([_normalised_margin(A, w) for w in res.snapshots]),
        log_loss=res.log_loss[gd_times])}
    trajectories = (("NAG (seed 1, s_T)", nag(A, orig_T, trajectory=True).s),
                    ("accelerated perceptron (seed 1, v_T)", accelerated_perceptron(A, orig_T, trajectory=True).v))
    for label, iterates in trajectories:
        ws = iterates[grid]
        out[label] = dict(t=grid, margin=np.array([_normalised_margin(A, w) for w in ws]),
                          log_loss=np.array([log_loss(A, w) for w in ws]))
    return dict(curves=out, gamma=gamma)


# ------------------------------------------------------------------------------------------------
# plotting (matplotlib imported lazily)
# ------------------------------------------------------------------------------------------------


def _figure(nrows=1, ncols=1, size=(6.4, 4.2)):
    try:
        from matplotlib.figure import Figure
    except ImportError as error:
        raise ImportError("plotting needs matplotlib: install gamedyn[plot]") from error
    fig = Figure(figsize=size, layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False)
    return fig, axes


def _log10_axis(ax, label="L"):
    """y holds log10 values; label the ticks as powers of ten."""
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    ax.yaxis.set_major_locator(MaxNLocator(integer=True, nbins=8))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"$10^{{{int(round(y))}}}$"))
    ax.set_ylabel(f"{label} (log scale)")


def _thin(T: int, points: int = 4000):
    """Plot indices: every early step, then ``points`` evenly spaced ones."""
    return np.unique(np.concatenate([np.arange(min(T, 300) + 1), np.linspace(0, T, points).astype(np.int64)]))


def _save(fig, path):
    fig.savefig(path, dpi=80)
    return str(path)


def plot_figure1(data: dict, path) -> str:
    """Draw Figure 1 (loss and margin of GD) from ``data`` into ``path``; returns the path."""
    fig, axes = _figure()
    ax = axes[0, 0]
    idx = _thin(data["T"])
    for label, curve in data["log_loss"].items():
        ax.plot(idx, curve[idx] / _LN10, label=label, lw=2 if label.startswith("proposed") else 1.2)
    _log10_axis(ax, "L(w_t)")
    ax.set_xlabel("iteration t")
    ax.set_title(f"Fig. 1: GD, schedule (7) vs constant step (n=1000, d=10, gamma={data['gamma']:.3f})",
                 fontsize=9)
    ax.text(0.98, 0.06, "flat tail of eta=1000: float64 stagnation (w_{t+1} == w_t), not convergence",
            transform=ax.transAxes, ha="right", va="bottom", fontsize=7)
    ax.legend(fontsize=8, loc="lower left", bbox_to_anchor=(0.08, 0.15))
    return _save(fig, path)


def plot_figure2(data: dict, path) -> str:
    """Draw Figure 2 from ``data`` into ``path``; returns the path."""
    fig, axes = _figure(1, 2, size=(10, 4))
    left, right = axes[0]
    idx = _thin(data["T"])
    left.plot(idx, data["log_loss"][idx] / _LN10, label="L(w_t)")
    idx_eta = idx[idx < data["T"]]
    left.plot(idx_eta, data["log_inv_eta"][idx_eta] / _LN10, "--", label="1/eta_t")
    _log10_axis(left, "value")
    left.set_xlabel("iteration t")
    left.legend(fontsize=8)
    left.set_title(f"Fig. 2 left: n=1500, d=80, gamma={data['gamma']:.4f}", fontsize=9)
    x = np.cbrt(data["t"][idx])
    right.plot(x, data["log_S"][idx], label="ln S_t")
    fit = data["fit"]
    x3 = np.cbrt(data["t"][data["t"] > data["tau2"]])
    right.plot(x3, fit["slope"] * x3 + fit["intercept"], "k:",
               label=f"fit t>tau2: slope {fit['slope']:.3f}, R^2 {fit['r2']:.4f}")
    right.axvline(np.cbrt(data["tau2"]), color="grey", lw=0.8)
    right.set_xlabel("t^(1/3)")
    right.set_ylabel("ln S_t")
    right.set_title(f"tau1={data['tau1']}, tau2={data['tau2']}; (1.5 gamma^2)^(1/3)={fit['predicted_slope']:.3f}",
                    fontsize=9)
    right.legend(fontsize=8)
    return _save(fig, path)


def _sgd_axes(ax, panel: dict, title: str):
    x = panel["sqrt_t"]
    for eps, run in panel["runs"].items():
        line, = ax.plot(x, run["log_mean"] / _LN10, label=f"eps={eps:g}")
        ax.fill_between(x, run["log_min"] / _LN10, run["log_max"] / _LN10, color=line.get_color(), alpha=0.2)
    _log10_axis(ax, "mean L(w_t)")
    ax.set_xlabel("sqrt(t)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)


def plot_figure3(data: dict, path) -> str:
    """Draw Figure 3 (adaptive SGD, mean of 10 seeds with a min-max band) into ``path``; returns the path."""
    fig, axes = _figure()
    _sgd_axes(axes[0, 0], data, f"Fig. 3: Adaptive SGD, n={data['n']}, d=10, gamma={data['gamma']:.4f}; "
                                "mean of 10 seeds, min-max band")
    return _save(fig, path)


def plot_figure4(data: dict, path) -> str:
    """Draw Figure 4 (adaptive SGD on the digit pairs) into ``path``; returns the path."""
    fig, axes = _figure(2, 2, size=(10, 7.5))
    for ax, (name, panel) in zip(axes.ravel(), data.items()):
        _sgd_axes(ax, panel, f"digits {name.replace('v', ' vs ')}, n={panel['n']}, gamma={panel['gamma']:.4f}")
    fig.suptitle("Fig. 4: Adaptive SGD on sklearn 8x8 digits, not MNIST (mean of 10 seeds, min-max band)",
                 fontsize=10)
    return _save(fig, path)


def plot_cross_paper(data: dict, path) -> str:
    """Left: normalised margin; right: ``ln(1/L)`` on a log axis (the seed-1 outputs are scaled
    by ``T(T+1)/8``, so their loss falls like ``exp(-Theta(T^2))`` and would flatten every other
    curve on a plain log-loss axis)."""
    fig, axes = _figure(1, 2, size=(10, 4))
    left, right = axes[0]
    styles = ("-", "o--", "x:")
    for style, (label, curve) in zip(styles, data["curves"].items()):
        kw = dict(ms=4, mfc="none") if style.startswith("o") else dict(ms=4)
        left.plot(curve["t"], curve["margin"], style, label=label, **kw)
        inv = -curve["log_loss"]
        right.plot(curve["t"], np.where(inv > 0, inv, np.nan), style, label=label, **kw)
    left.axhline(data["gamma"], color="k", ls=":", lw=1, label=f"gamma_max={data['gamma']:.4f}")
    for ax in (left, right):
        ax.set_xscale("log")
        ax.set_xlabel("iterations t (one full gradient each)")
    right.set_yscale("log")
    left.set_ylabel("normalised margin min_i (Aw)_i / ||w||")
    right.set_ylabel("ln(1/L(w))  (L = logistic loss)")
    left.legend(fontsize=7)
    right.legend(fontsize=7)
    fig.suptitle("Seed 1 (NAG, accelerated perceptron) vs seed 2 (GD with schedule (7)); Fig. 1 data", fontsize=10)
    return _save(fig, path)


def write_logistic_figures(out_dir, quick: bool = False, verbose: bool = False, progress=None) -> list[str]:
    """Compute every figure's data and write the PNGs (names in ``FIGURE_FILES``) to ``out_dir``.

    ``progress(path, seconds)`` is called after each figure is written (``verbose`` prints the same).
    """
    os.makedirs(out_dir, exist_ok=True)
    jobs = (
        ("figure1", figure1_data, plot_figure1),
        ("figure2", figure2_data, plot_figure2),
        ("figure3", figure3_data, plot_figure3),
        ("figure4", figure4_data, plot_figure4),
        ("cross_paper", cross_paper_data, plot_cross_paper),
    )
    paths = []
    for name, data_fn, plot_fn in jobs:
        start = time.perf_counter()
        paths.append(plot_fn(data_fn(quick=quick), os.path.join(out_dir, FIGURE_FILES[name])))
        if verbose:
            print(f"{paths[-1]}  ({time.perf_counter() - start:.1f} s)", flush=True)
        if progress is not None:
            progress(paths[-1], time.perf_counter() - start)
    return paths


def main(argv=None) -> int:
    """Write the separable-logistic figures (``--out DIR``, ``--quick``); returns the exit status."""
    parser = argparse.ArgumentParser(description="Write the separable-logistic figures (PNG).")
    parser.add_argument("--out", required=True, help="output directory")
    parser.add_argument("--quick", action="store_true", help="short horizons (smoke test)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    write_logistic_figures(args.out, quick=args.quick, verbose=True)
    print(f"total {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
