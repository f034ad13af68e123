r"""Figures of seed paper 1 (Wang et al., "On Accelerated Perceptrons and Beyond").

Three figures, each from a DATA function that returns plain arrays and a separate plotting function
(matplotlib is imported lazily inside the plotting code: ``pip install gamedyn[plot]``):

* ``game_margin_gap.png`` -- left: the normalised-margin gap :math:`\gamma - \min_i(Aw)_i/\|w\|` of
  every recipe's output against t (log-log) with Theorem 4's :math:`8\log n/(\gamma t(t+1))` and
  Theorem 6's :math:`(8\log n+2)/(\gamma t(t+1))`; right: what Theorems 5 and 7 bound, the
  UNnormalised gap :math:`\gamma - \min_i(A\bar w_t)_i` of mirror prox and the p-norm recipe (p = 2,
  where :math:`\gamma_q = \gamma`) with :math:`\sqrt{2\log n}/t`.
* ``game_iterations_vs_margin.png`` -- iterations to a positive margin against :math:`1/\gamma`
  (log-log) from :func:`gamedyn.paper.experiments.iterations.iterations_to_separation`, with reference
  slopes 1 and 2.
* ``game_regrets.png`` -- the weighted regrets :math:`R_w`, :math:`R_p` and their sum against t for
  each game, with the theorem's bound on the sum.

The data set is :func:`gamedyn.io.datasets.make_separable` with a small planted margin
(``GAME_DATA``); each recipe is played once, and a ``stop`` rule that never stops reads the running
sums after every round (O(n + d) memory per round, no ``record=True``).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

__all__ = [
    "GAME_DATA", "GAME_FIGURE_FILES",
    "recipe_traces", "margin_gap_data", "regret_data", "iterations_figure_data",
    "plot_margin_gap", "plot_regrets", "plot_iterations", "write_game_figures",
]

GAME_DATA = dict(n=200, d=20, gamma=0.05, seed=0, T=2000, quick_T=200)

GAME_FIGURE_FILES = {
    "margin_gap": "game_margin_gap.png",
    "iterations": "game_iterations_vs_margin.png",
    "regrets": "game_regrets.png",
}


def _runs():
    """(label, recipe declaration, options) for each game: every margin recipe of :data:`gamedyn.recipes.RECIPES`
    and its declared ``variants``; a recipe with a ``p`` option plays at p = 2 (the data have ||x_i||_2 <= 1)."""
    from gamedyn.recipes import of_family

    runs = []
    for recipe in of_family("margin").values():
        for label, options in ((recipe.name, {}), *recipe.variants):
            if "p" in recipe.options:
                label, options = f"{label} p=2", {**options, "p": 2.0}
            runs.append((label, recipe, options))
    return runs


# ------------------------------------------------------------------------------------------- data


def _game_matrix():
    from gamedyn.io.datasets import make_separable, signed_rows

    spec = GAME_DATA
    return signed_rows(*make_separable(spec["n"], spec["d"], spec["gamma"], spec["seed"]))


def recipe_traces(quick: bool = False, T: int | None = None) -> dict:
    """Play every game (each declared recipe and its ``variants``: five recipes and Ji et al.'s theta = 1) for
    ``T`` rounds on the ``GAME_DATA`` set.

    Returns ``t`` (1..T), ``gamma`` (certified max margin), ``n``, and ``traces[label]`` with arrays
    of length T: ``normalised_margin`` of the output direction (every recipe outputs a positive
    multiple of the output-weighted sum of its plays), ``average_margin`` = ``min_i (A w_bar_t)_i``
    for the averaged play ``w_bar_t``, ``w_regret`` and ``p_regret`` (the p-norm game's ``R_w`` is
    taken against the unit max-margin direction u, as in Theorem 7, since its w-domain is all of
    R^d), plus ``bound`` / ``bound_label`` for ``R_w + R_p`` (None where no theorem applies, both read off the
    recipe's declaration) and ``w_regret_against_u`` (True where the recipe declares a comparator).
    """
    from gamedyn.certify.margins import max_margin

    A = _game_matrix()
    T = int(T if T is not None else GAME_DATA["quick_T"] if quick else GAME_DATA["T"])
    oracle = max_margin(A)
    n = A.shape[0]
    traces: dict[str, dict[str, Any]] = {}
    for label, recipe, options in _runs():
        # a declared comparator (the p-norm game): R_w(u) at the unit max-margin direction, as in Theorem 7
        comparator = oracle.direction if recipe.comparator is not None else None
        columns: dict[str, list[float]] = {"normalised_margin": [], "average_margin": [], "w_regret": [], "p_regret": []}

        def collect(state, columns=columns, comparator=comparator):
            values = A @ state.w_sum
            columns["normalised_margin"].append(np.min(values) / np.linalg.norm(state.w_sum))
            columns["average_margin"].append(np.min(values) / state.w_weight_total)
            if comparator is None:
                columns["w_regret"].append(state.w_regret)
            else:
                columns["w_regret"].append(state.w_played_loss - state.w_loss_sum.value(comparator))
            columns["p_regret"].append(state.p_regret)
            return False  # never stop: this rule only reads the round

        recipe.run(A, T, stop=collect, **options)
        traces[label] = {key: np.array(value, dtype=np.float64) for key, value in columns.items()}
        bound = recipe.regret_sum_bound(n, **options)  # the recipe's theorem, as declared
        traces[label]["bound_label"] = None if bound is None else bound[0]
        traces[label]["bound"] = None if bound is None else float(bound[1])
        traces[label]["w_regret_against_u"] = comparator is not None
    return dict(t=np.arange(1, T + 1), gamma=oracle.gamma, n=n, traces=traces)


def margin_gap_data(traces: dict) -> dict:
    """Gaps and bounds for :func:`plot_margin_gap` from :func:`recipe_traces`.

    ``normalised_gap[label] = gamma - normalised margin`` (every recipe); ``average_gap[label] =
    gamma - min_i (A w_bar_t)_i`` for mirror prox and the p-norm recipe (what Theorems 5 and 7
    bound); ``normalised_bounds`` / ``average_bounds`` map a label to the bound's values over t.
    """
    t, gamma, n = traces["t"].astype(np.float64), traces["gamma"], traces["n"]
    runs = traces["traces"]
    return dict(
        t=traces["t"], gamma=gamma, n=n,
        normalised_gap={label: gamma - run["normalised_margin"] for label, run in runs.items()},
        average_gap={label: gamma - runs[label]["average_margin"]
                     for label in runs if label.startswith(("mirror_prox", "pnorm"))},
        normalised_bounds={
            "Thm 4 (smooth, accelerated): 8 log n / (gamma t(t+1))": 8 * np.log(n) / (gamma * t * (t + 1)),
            "Thm 6 (NAG): (8 log n + 2) / (gamma t(t+1))": (8 * np.log(n) + 2) / (gamma * t * (t + 1)),
        },
        average_bounds={"Thms 5, 7 (p = 2): sqrt(2 log n) / t": np.sqrt(2 * np.log(n)) / t},
    )


def regret_data(traces: dict) -> dict:
    """Per game: ``w_regret``, ``p_regret``, their ``total`` over t, and the theorem's bound on the total."""
    panels = {}
    for label, run in traces["traces"].items():
        panels[label] = dict(w_regret=run["w_regret"], p_regret=run["p_regret"],
                             total=run["w_regret"] + run["p_regret"],
                             bound=run["bound"], bound_label=run["bound_label"],
                             w_regret_against_u=run["w_regret_against_u"])
    return dict(t=traces["t"], n=traces["n"], panels=panels)


def iterations_figure_data(table) -> dict:
    """From an :class:`~gamedyn.paper.experiments.iterations.IterationTable`: per data family and algorithm,
    ``inverse_gamma`` and ``iterations`` (runs that never separated are dropped) and the fitted slope."""
    families: dict[str, dict] = {}
    for row in table.rows:
        if row.iterations is None:
            continue
        curve = families.setdefault(row.family, {}).setdefault(row.algorithm, {"inverse_gamma": [], "iterations": []})
        curve["inverse_gamma"].append(1.0 / row.gamma)
        curve["iterations"].append(float(row.iterations))
    for family, curves in families.items():
        for algorithm, curve in curves.items():
            order = np.argsort(curve["inverse_gamma"])
            curve["inverse_gamma"] = np.array(curve["inverse_gamma"])[order]
            curve["iterations"] = np.array(curve["iterations"])[order]
            curve["slope"] = table.slopes[(family, algorithm)]
    return families


# --------------------------------------------------------------------------------------- plotting


def _figure(nrows=1, ncols=1, size=(6.4, 4.2)):
    try:
        from matplotlib.figure import Figure
    except ImportError as error:
        raise ImportError("plotting needs matplotlib: install gamedyn[plot]") from error
    figure = Figure(figsize=size, layout="constrained")
    return figure, figure.subplots(nrows, ncols, squeeze=False)


def _positive(values):
    """NaN where a gap is not positive (a log axis cannot show it)."""
    values = np.asarray(values, dtype=np.float64)
    return np.where(values > 0, values, np.nan)


_STYLES: dict[str, dict[str, Any]] = {  # label -> line style; smooth and accelerated draw the same direction (Theorem 1)
    "smooth_perceptron": dict(lw=3.0, alpha=0.5),
    "accelerated_perceptron": dict(ls="--", lw=1.4),
}


def plot_margin_gap(data: dict, path) -> str:
    """Draw the normalised-margin gap figure from ``data`` into ``path``; returns the path."""
    figure, axes = _figure(1, 2, size=(11, 4.6))
    left, right = axes[0]
    t = data["t"]
    for label, gap in data["normalised_gap"].items():
        left.plot(t, _positive(gap), label=label, **_STYLES.get(label, dict(lw=1.4)))
    for (label, bound), style in zip(data["normalised_bounds"].items(), ((0, (1, 1)), (0, (6, 3)))):
        left.plot(t, bound, ls=style, color="black", lw=1.1, label=label)
    left.set_title("normalised margin gap gamma - min_i (Aw)_i / ||w|| of each output\n"
                   "(smooth and accelerated coincide: same direction, Theorem 1)", fontsize=9)
    left.set_ylabel("gamma - normalised margin")
    for label, gap in data["average_gap"].items():
        negative = np.flatnonzero(gap <= 0)
        if negative.size:
            label += f" (gap < 0 from t = {t[negative[0]]}: w_bar_t leaves the unit ball)"
        right.plot(t, _positive(gap), label=label, lw=1.4)
    for label, bound in data["average_bounds"].items():
        right.plot(t, bound, ":", color="black", lw=1.2, label=label)
    right.set_title("what Theorems 5 and 7 bound: gamma - min_i (A w_bar_t)_i\n"
                    "(unnormalised margin of the averaged play; gaps <= 0 not drawn)", fontsize=9)
    right.set_ylabel("gamma - margin of w_bar_t")
    for ax in (left, right):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_ylim(top=1.0)  # the bounds exceed 1 in the first rounds, where they say nothing
        ax.set_xlabel("round t")
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=7, loc="lower left")
    figure.suptitle(f"Seed paper 1: margin gap vs t on make_separable(n={data['n']}, d={GAME_DATA['d']}, "
                    f"planted gamma={GAME_DATA['gamma']}), max margin gamma = {data['gamma']:.4f}", fontsize=10)
    return _save(figure, path)


def plot_regrets(data: dict, path) -> str:
    """Draw the regret-curves figure from ``data`` into ``path``; returns the path."""
    panels = dict(data["panels"])
    if "accelerated_perceptron" in panels and "smooth_perceptron" in panels:
        # the same game (Theorem 1): one panel for both
        panels["smooth = accelerated_perceptron (same game)"] = panels.pop("smooth_perceptron")
        del panels["accelerated_perceptron"]
        panels = {"smooth = accelerated_perceptron (same game)": panels.pop("smooth = accelerated_perceptron (same game)"),
                  **panels}
    ncols = 3
    nrows = -(-len(panels) // ncols)
    figure, axes = _figure(nrows, ncols, size=(12, 3.8 * nrows))
    t = data["t"]
    for ax, (label, panel) in zip(axes.ravel(), panels.items()):
        ax.plot(t, panel["w_regret"], label="R_w(u), u = max-margin direction" if panel["w_regret_against_u"] else "R_w")
        ax.plot(t, panel["p_regret"], label="R_p")
        ax.plot(t, panel["total"], "--", color="black", lw=1.4, label="R_w + R_p")
        title = label
        if panel["bound"] is not None:
            ax.axhline(panel["bound"], color="red", ls=":", lw=1.2, label=f"bound {panel['bound_label']} = {panel['bound']:.2f}")
        else:
            title += "\nno bound: the players' weights differ"
        lowest, highest = float(np.min(panel["total"])), float(np.max(panel["total"]))
        legend_place = "upper left"
        if lowest < -max(highest, panel["bound"] or 1.0):  # R_w(u) of the p-norm game falls below 0
            legend_place = "lower left"  # the curves start near 0: the lower left is empty
            if lowest < -50:
                ax.set_yscale("symlog", linthresh=1.0)
        else:  # head room above the curves and the bound for the legend
            ax.set_ylim(top=1.6 * max(highest, panel["bound"] or 0.0))
        ax.set_title(title, fontsize=9)
        ax.set_xscale("log")
        ax.set_xlabel("round t")
        ax.set_ylabel("weighted regret")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7, loc=legend_place)
    for ax in axes.ravel()[len(panels):]:
        ax.set_axis_off()
    figure.suptitle(f"Seed paper 1: weighted regrets of the two players (n = {data['n']})", fontsize=10)
    return _save(figure, path)


def plot_iterations(data: dict, path) -> str:
    """Draw the iterations-to-separate figure from ``data`` into ``path``; returns the path."""
    from matplotlib.ticker import FuncFormatter

    titles = {"hard": "perceptron-hard data with a decoy (x-axis: certified max margin)",
              "hard (p=2)": "perceptron-hard data, p-norm algorithms at p = 2 (Theorem 7)",
              "lp": "l_p data with a decoy, p = 4 (x-axis: certified gamma_q)"}
    plain = FuncFormatter(lambda value, _: f"{value:g}")
    figure, axes = _figure(1, max(len(data), 1), size=(5.5 * max(len(data), 2), 5.6))
    for ax, (family, curves) in zip(axes.ravel(), data.items()):
        markers = iter("osD^vx*+")
        for algorithm, curve in curves.items():
            ax.plot(curve["inverse_gamma"], curve["iterations"], marker=next(markers), ms=5, mfc="none",
                    label=f"{algorithm} (slope {curve['slope']:.2f})")
        # reference slopes through the first point of the lowest (slope 1) and highest (slope 2) curve
        firsts = sorted((curve["iterations"][0], curve["inverse_gamma"][0]) for curve in curves.values())
        x_all = np.concatenate([curve["inverse_gamma"] for curve in curves.values()])
        x = np.geomspace(x_all.min(), x_all.max(), 50)
        for slope, style, (y0, x0) in ((1, "--", firsts[0]), (2, ":", firsts[-1])):
            ax.plot(x, y0 * (x / x0) ** slope, style, color="grey", lw=1.2, label=f"reference slope {slope}")
        ax.set_xscale("log")
        ax.set_yscale("log")
        for axis in (ax.xaxis, ax.yaxis):  # 20, 30, 40 rather than 2 x 10^1, 3 x 10^1, ...
            axis.set_major_formatter(plain)
            axis.set_minor_formatter(plain)
        ax.tick_params(which="minor", labelsize=7)
        ax.set_xlabel("1 / gamma")
        ax.set_ylabel("iterations to a positive margin")
        ax.set_title(titles.get(family, family), fontsize=9)
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2)
    figure.suptitle("Seed paper 1: iterations to separation vs 1/gamma (perceptron ~ 1/gamma^2, "
                    "accelerated ~ sqrt(log n)/gamma)", fontsize=10)
    return _save(figure, path)


def _save(figure, path) -> str:
    figure.savefig(path, dpi=90)
    return str(path)


def write_game_figures(out_dir, quick: bool = False, iteration_table=None, progress=None) -> list[str]:
    """Compute the data and write the three PNGs (names in ``GAME_FIGURE_FILES``) to ``out_dir``.

    ``iteration_table`` reuses an :class:`~gamedyn.paper.experiments.iterations.IterationTable` already
    computed (``gamedyn reproduce`` passes its own); otherwise one is computed on the iterations
    module's ``QUICK_MARGINS`` (``quick``) or ``FULL_MARGINS``. ``progress(path, seconds)`` is called
    after each figure is written, with the seconds since the previous one (its data included).
    """
    import time

    _figure()  # fail early, before any computation, when matplotlib is missing
    os.makedirs(out_dir, exist_ok=True)
    paths = []
    start = time.perf_counter()

    def written(path):
        nonlocal start
        paths.append(path)
        if progress is not None:
            progress(path, time.perf_counter() - start)
        start = time.perf_counter()

    traces = recipe_traces(quick=quick)
    written(plot_margin_gap(margin_gap_data(traces), os.path.join(out_dir, GAME_FIGURE_FILES["margin_gap"])))
    written(plot_regrets(regret_data(traces), os.path.join(out_dir, GAME_FIGURE_FILES["regrets"])))
    if iteration_table is None:
        from gamedyn.paper.experiments import iterations

        margins = iterations.QUICK_MARGINS if quick else getattr(iterations, "FULL_MARGINS", iterations.DEFAULT_MARGINS)
        iteration_table = iterations.iterations_to_separation(margins)
    written(plot_iterations(iterations_figure_data(iteration_table), os.path.join(out_dir, GAME_FIGURE_FILES["iterations"])))
    return paths
