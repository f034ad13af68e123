r"""Teaching pictures (``pip install gamedyn[plot]``; matplotlib is imported only when a figure is drawn).

* :func:`simplex_coordinates` / :func:`simplex_trajectory` -- a 3-action player's strategies as a
  path in the triangle :math:`\Delta_3` (vertex i at the i-th corner, barycentric coordinates).
* :func:`dynamics_on_rock_paper_scissors` + :func:`plot_rock_paper_scissors` -- fictitious play
  (FTL vs FTL) cycling, plain Hedge (FTRL) spiralling out, optimistic Hedge (OFTRL) converging.
* :func:`regret_curves` + :func:`plot_regret_curves` -- both players' weighted regrets
  :math:`R_w(t)`, :math:`R_p(t)` and Theorem 2's certificate :math:`B_t=(R_w+R_p)/S_t` beside the
  duality gap :math:`G_t` it bounds, for any pair of learners.
* :func:`animate_simplex` -- the same paths as a GIF (matplotlib's PillowWriter; needs pillow).
* :func:`plot_exploration` -- the heat map of :func:`gamedyn.explore`'s rate exponents.
* :func:`write_tutorial_figures` -- every image of the tutorial "From Hedge to acceleration", also
  ``python -m gamedyn.plot DIR``.

Data functions return plain arrays and need no matplotlib; plotting functions return a
``matplotlib.figure.Figure`` (no pyplot, no global state).
"""

from __future__ import annotations

import math
import os
import sys

import numpy as np

__all__ = [
    "ROCK_PAPER_SCISSORS", "TUTORIAL_FILES", "TUTORIAL_START", "animate_simplex", "dynamics_on_rock_paper_scissors", "main", "pillow_missing", "plot_exploration", "plot_regret_curves", "plot_rock_paper_scissors", "regret_curves", "simplex_coordinates", "simplex_trajectory", "tutorial_regret_data", "write_tutorial_figures",
]

ROCK_PAPER_SCISSORS = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]])
TUTORIAL_START = (0.6, 0.3, 0.1)  # off the equilibrium (the uniform start IS the equilibrium of RPS)
TUTORIAL_FILES = {
    "dynamics": "rps_dynamics.png",
    "regrets": "regret_curves.png",
    "explorer": "explorer_heatmap.png",
    "animation": "rps_dynamics.gif",
}
_CORNERS = np.array([[0.0, 0.0], [1.0, 0.0], [0.5, math.sqrt(3) / 2]])


def new_figure(**keywords):
    """A matplotlib ``Figure`` (no pyplot state), or an ``ImportError`` naming ``pip install gamedyn[plot]``."""
    try:
        from matplotlib.figure import Figure
    except ImportError as error:
        raise ImportError("gamedyn.plot needs matplotlib: pip install gamedyn[plot]") from error
    return Figure(**keywords)


# ------------------------------------------------------------------------------------------ data


def simplex_coordinates(points) -> np.ndarray:
    """Planar coordinates of points of the 3-simplex: ``points @ corners`` (shape (..., 2)).

    >>> simplex_coordinates([[1, 0, 0], [1 / 3, 1 / 3, 1 / 3]]).round(3).tolist()
    [[0.0, 0.0], [0.5, 0.289]]
    """
    points = np.asarray(points, dtype=np.float64)
    if points.shape[-1] != 3:
        raise ValueError(f"points must be strategies over 3 actions (last axis of length 3), got shape {points.shape}.")
    return points @ _CORNERS


def dynamics_on_rock_paper_scissors(T: int = 3000, start=TUTORIAL_START) -> dict:
    """The row player's strategies under three dynamics on RPS, started from ``start`` (both players' starts).

    Returns ``{label: (T, 3) array}``: fictitious play's running averages, plain Hedge's plays
    (constant step 0.1) and optimistic Hedge's plays (step 1/r = 1/2).
    """
    from gamedyn.recipes import fictitious_play, hedge, optimistic_hedge

    M = ROCK_PAPER_SCISSORS
    column_start = np.asarray(start, dtype=np.float64)[[1, 2, 0]]
    play = fictitious_play(M, T, row_start=start, column_start=column_start, record=True)
    rounds = np.arange(1, T + 1)[:, None]
    return {
        "fictitious play (FTL vs FTL): averages cycle": np.cumsum(play.game.trace["w"], axis=0) / rounds,
        "Hedge (FTRL, eta = 0.1): plays spiral out": hedge(M, T, eta_w=0.1, eta_p=0.1, row_start=start,
                                                          column_start=column_start, record=True).game.trace["w"],
        "optimistic Hedge (OFTRL): plays converge": optimistic_hedge(M, T, row_start=start, column_start=column_start,
                                                                     record=True).game.trace["w"],
    }


def regret_curves(payoff, w_learner, p_learner, T: int, **play_options) -> dict:
    r"""Per-round :math:`t, R_w(t), R_p(t), B_t=(R_w+R_p)/S_t` and the duality gap :math:`G_t`, as arrays.

    Read from :func:`gamedyn.play`'s per-round state (``play_options`` go to ``play``; weights
    must be the same for both players, as Theorem 2 needs).
    """
    from gamedyn.engine.runner import play
    from gamedyn.paper.exploration import averaged_gap

    if play_options.get("p_weights") is not None or play_options.get("output_weights") is not None:
        raise ValueError("regret_curves needs one weight sequence for both players (no p_weights / output_weights).")
    rows = []

    def record(state):
        total = state.w_weight_total
        rows.append((state.t, state.w_regret, state.p_regret, (state.w_regret + state.p_regret) / total,
                     averaged_gap(payoff, state.w_domain, state.p_domain, state.w_sum / total, state.p_sum / total)))

    play(payoff, w_learner, p_learner, T, callback=record, **play_options)
    t, w_regret, p_regret, bound, gap = np.array(rows).T
    return {"t": t, "w_regret": w_regret, "p_regret": p_regret, "bound": bound, "gap": gap}


# ------------------------------------------------------------------------------------- pictures


def _triangle(ax, labels=("rock", "paper", "scissors")):
    corners = np.vstack([_CORNERS, _CORNERS[:1]])
    ax.plot(corners[:, 0], corners[:, 1], color="0.3", linewidth=1)
    for corner, label, offset in zip(_CORNERS, labels, ((-0.04, -0.05), (0.04, -0.05), (0.0, 0.03))):
        ax.annotate(label, corner, xytext=(corner[0] + offset[0], corner[1] + offset[1]), ha="center", fontsize=9)
    ax.set_xlim(-0.1, 1.1)
    ax.set_ylim(-0.1, 0.95)
    ax.set_aspect("equal")
    ax.axis("off")


def simplex_trajectory(points, ax=None, *, label=None, equilibrium=None, color="C0", labels=("rock", "paper", "scissors")):
    """Draw a path of 3-action strategies in the triangle; returns the axes (a new figure if ``ax`` is None)."""
    if ax is None:
        ax = new_figure(figsize=(4, 3.6)).add_subplot()
    _triangle(ax, labels)
    xy = simplex_coordinates(points)
    ax.plot(xy[:, 0], xy[:, 1], color=color, linewidth=0.7, alpha=0.85)
    ax.plot(*xy[0], "o", color=color, markersize=5, label="start")
    ax.plot(*xy[-1], "s", color="black", markersize=4, label="round T")
    if equilibrium is not None:
        ax.plot(*simplex_coordinates(equilibrium), "*", color="crimson", markersize=10, label="equilibrium")
    if label:
        ax.set_title(label, fontsize=9)
    return ax


def plot_rock_paper_scissors(paths: dict):
    """Side by side: one triangle per dynamic of :func:`dynamics_on_rock_paper_scissors`."""
    figure = new_figure(figsize=(4 * len(paths), 3.9), layout="constrained")
    axes = figure.subplots(1, len(paths))
    for ax, (label, points), color in zip(np.atleast_1d(axes), paths.items(), ("C0", "C1", "C2")):
        simplex_trajectory(points, ax, label=label, equilibrium=[1 / 3] * 3, color=color)
    np.atleast_1d(axes)[0].legend(loc="upper left", fontsize=7, frameon=False)
    figure.suptitle("Rock-paper-scissors from x_0 = (0.6, 0.3, 0.1): the row player's strategies", fontsize=10)
    return figure


def plot_regret_curves(curves: dict, title: str = ""):
    """Left: R_w(t), R_p(t) and their sum; right: Theorem 2's B_t above the duality gap G_t (log-log)."""
    figure = new_figure(figsize=(9, 3.6), layout="constrained")
    _regret_panels(figure, curves, title)
    return figure


def plot_exploration(exploration, quantity: str = "bound_exponent"):
    """Heat map of an :class:`gamedyn.paper.exploration.Exploration`: rows w-learner | weights | first, columns p-learner.

    Cells show ``quantity`` (``"bound_exponent"``, ``"gap_exponent"``, ``"bound"`` or ``"gap"``);
    illegal seatings are marked "illegal", failed runs "error".
    """
    if quantity not in ("bound_exponent", "gap_exponent", "bound", "gap"):
        raise ValueError(f"quantity must be 'bound_exponent', 'gap_exponent', 'bound' or 'gap', got {quantity!r}.")
    row_keys = list(dict.fromkeys((row.w_name, row.weights, row.first) for row in exploration.rows))
    column_keys = list(dict.fromkeys(row.p_name for row in exploration.rows))
    values = np.full((len(row_keys), len(column_keys)), np.nan)
    notes = {}
    for row in exploration.rows:
        i, j = row_keys.index((row.w_name, row.weights, row.first)), column_keys.index(row.p_name)
        value = getattr(row, quantity)
        if row.status == "ok":
            values[i, j] = value if quantity.endswith("exponent") else math.log10(value) if value > 0 else np.nan
            notes[i, j] = f"{value:+.2f}" if quantity.endswith("exponent") else f"{value:.1e}"
        else:
            notes[i, j] = row.status
    figure = new_figure(figsize=(2 + 1.5 * len(column_keys), 1 + 0.38 * len(row_keys)), layout="constrained")
    ax = figure.add_subplot()
    image = ax.imshow(np.ma.masked_invalid(values), cmap="viridis", aspect="auto")
    low, high = np.nanmin(values) if np.isfinite(values).any() else 0.0, np.nanmax(values) if np.isfinite(values).any() else 1.0
    for (i, j), note in notes.items():
        bright = np.isfinite(values[i, j]) and (values[i, j] - low) > 0.6 * (high - low)
        ax.text(j, i, note, ha="center", va="center", fontsize=7,
                color="0.3" if not np.isfinite(values[i, j]) else "black" if bright else "white")
    ax.set_xticks(range(len(column_keys)), column_keys, fontsize=8, rotation=20)
    ax.set_yticks(range(len(row_keys)), [f"{w} | {weights} | {first} first" for w, weights, first in row_keys], fontsize=7)
    ax.set_xlabel("p-learner")
    name = {"bound_exponent": "rate exponent of B_t", "gap_exponent": "rate exponent of G_t",
            "bound": "log10 B_T", "gap": "log10 G_T"}[quantity]
    figure.colorbar(image, ax=ax, label=name)
    ax.set_title(f"pair explorer, T = {exploration.T}: {name}", fontsize=10)
    return figure


def pillow_missing() -> str | None:
    """None when pillow (matplotlib's GIF writer) imports, else how to install it."""
    try:
        import PIL  # noqa: F401
    except ImportError:
        return "the GIF animation needs pillow: pip install pillow (matplotlib's PillowWriter)"
    return None


def animate_simplex(paths: dict, filename, *, frames: int = 60, fps: int = 12):
    """Write the paths of :func:`dynamics_on_rock_paper_scissors` as a GIF growing over the rounds.

    Raises ImportError naming pillow when it is not installed (matplotlib's PillowWriter needs it).
    """
    missing = pillow_missing()
    if missing:
        raise ImportError(missing)
    from matplotlib.animation import FuncAnimation, PillowWriter
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    figure = new_figure(figsize=(3.2 * len(paths), 3.2), layout="constrained")
    FigureCanvasAgg(figure)
    axes = np.atleast_1d(figure.subplots(1, len(paths)))
    length = min(len(points) for points in paths.values())
    stops = np.unique(np.round(np.geomspace(2, length, frames)).astype(int))
    lines = []
    for ax, (label, points), color in zip(axes, paths.items(), ("C0", "C1", "C2")):
        _triangle(ax)
        ax.plot(*simplex_coordinates([1 / 3] * 3), "*", color="crimson", markersize=9)
        ax.set_title(label.split(":")[0], fontsize=8)
        (line,) = ax.plot([], [], color=color, linewidth=0.8)
        (head,) = ax.plot([], [], "s", color="black", markersize=4)
        lines.append((line, head, simplex_coordinates(points)))

    def draw(frame):
        stop = stops[frame]
        for line, head, xy in lines:
            line.set_data(xy[:stop, 0], xy[:stop, 1])
            head.set_data([xy[stop - 1, 0]], [xy[stop - 1, 1]])
        return [artist for line, head, _ in lines for artist in (line, head)]

    animation = FuncAnimation(figure, draw, frames=len(stops), blit=False)
    animation.save(os.fspath(filename), writer=PillowWriter(fps=fps), dpi=80)
    return filename


# ----------------------------------------------------------------------------------- the tutorial


def tutorial_regret_data(T: int = 2000) -> dict:
    """The smooth perceptron's pair (OFTL vs FTRL+ entropy, alpha_t = t) and the plain pair, on separable data."""
    from gamedyn.core.learners import FTL, FTRL, OFTL, FTRLPlus
    from gamedyn.core.regularizers import Entropy
    from gamedyn.engine.payoffs import RegularizedBilinear
    from gamedyn.io.datasets import make_separable, signed_rows

    payoff = RegularizedBilinear(signed_rows(*make_separable(100, 10, 0.1, 0)))
    return {
        "accelerated pair: OFTL vs FTRL+ entropy, alpha_t = t": regret_curves(
            payoff, OFTL(), FTRLPlus(Entropy(), 1 / 4), T, weights="linear"),
        "plain pair: FTL vs FTRL entropy, alpha_t = 1": regret_curves(payoff, FTL(), FTRL(Entropy(), 1 / 4), T),
    }


def write_tutorial_figures(folder, *, T: int = 3000, animation: bool = True) -> list:
    """Write every image of docs/tutorial/from-hedge-to-acceleration.md into ``folder``; returns the paths.

    The GIF is skipped with a note on stderr when pillow is missing (or ``animation=False``).
    """
    from gamedyn.engine.payoffs import RegularizedBilinear
    from gamedyn.io.datasets import make_separable, signed_rows
    from gamedyn.paper.exploration import explore, separator_learners

    new_figure()  # fail early when matplotlib is missing
    os.makedirs(folder, exist_ok=True)
    written = []
    paths = dynamics_on_rock_paper_scissors(T)
    target = os.path.join(folder, TUTORIAL_FILES["dynamics"])
    plot_rock_paper_scissors(paths).savefig(target, dpi=110)
    written.append(target)

    target = os.path.join(folder, TUTORIAL_FILES["regrets"])
    curves = tutorial_regret_data(T)
    figure = new_figure(figsize=(9, 7), layout="constrained")
    for subfigure, (label, data) in zip(figure.subfigures(2, 1), curves.items()):
        _regret_panels(subfigure, data, label)
    figure.savefig(target, dpi=110)
    written.append(target)

    target = os.path.join(folder, TUTORIAL_FILES["explorer"])
    payoff = RegularizedBilinear(signed_rows(*make_separable(100, 10, 0.1, 0)))
    plot_exploration(explore(payoff, separator_learners(), T=min(T, 2000))).savefig(target, dpi=110)
    written.append(target)

    if animation:
        missing = pillow_missing()
        if missing:
            print(f"gamedyn.plot: skipped the animation: {missing}", file=sys.stderr)
        else:
            target = os.path.join(folder, TUTORIAL_FILES["animation"])
            animate_simplex(paths, target)
            written.append(target)
    return written


def _regret_panels(container, curves, title):
    left, right = container.subplots(1, 2)
    t = curves["t"]
    left.plot(t, curves["w_regret"], label="R_w(t)")
    left.plot(t, curves["p_regret"], label="R_p(t)")
    left.plot(t, curves["w_regret"] + curves["p_regret"], "k--", linewidth=1, label="R_w + R_p")
    left.set_xscale("log")
    left.set_xlabel("round t")
    left.legend(fontsize=8, frameon=False)
    positive = curves["bound"] > 0
    right.loglog(t[positive], curves["bound"][positive], label="B_t = (R_w + R_p)/S_t")
    shown = np.isfinite(curves["gap"]) & (curves["gap"] > 0)
    right.loglog(t[shown], curves["gap"][shown], label="duality gap G_t")
    right.set_xlabel("round t")
    right.legend(fontsize=8, frameon=False)
    if title:
        container.suptitle(title, fontsize=10)


def main(argv=None) -> int:
    """``python -m gamedyn.plot DIR [--no-animation]``: write the tutorial's images into DIR."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    animation = "--no-animation" not in arguments
    folders = [argument for argument in arguments if not argument.startswith("--")]
    if len(folders) != 1:
        print("usage: python -m gamedyn.plot DIR [--no-animation]", file=sys.stderr)
        return 2
    for path in write_tutorial_figures(folders[0], animation=animation):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
