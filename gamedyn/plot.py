r"""Teaching pictures (``pip install gamedyn[plot]``; matplotlib is imported only when a figure is drawn).

* :func:`simplex_coordinates` / :func:`simplex_trajectory` -- a 3-action player's strategies as a
  path in the triangle :math:`\Delta_3` (vertex i at the i-th corner, barycentric coordinates).
* :func:`matrix_game_dynamics` + :func:`plot_game_dynamics` -- fictitious play (FTL vs FTL), plain
  Hedge (FTRL) and optimistic Hedge (OFTRL) on any matrix game with 2 or 3 actions for the row
  player, drawn with the game's own action labels and its equilibrium (``solve_matrix_game``):
  triangles for 3 actions, the probability of action 1 over the rounds for 2. Each panel's caption
  is measured on its path (:func:`describe_path`). :func:`dynamics_on_rock_paper_scissors` +
  :func:`plot_rock_paper_scissors` are the tutorial's rock-paper-scissors instance.
* :func:`regret_curves` + :func:`plot_regret_curves` -- both players' weighted regrets
  :math:`R_w(t)`, :math:`R_p(t)` and Theorem 2's certificate :math:`B_t=(R_w+R_p)/S_t` beside the
  duality gap :math:`G_t` it bounds, for any pair of learners; :func:`plot_certificates` puts the
  :math:`B_t` of several pairs on one log-log axis with the reference slopes :math:`t^{-1}`, :math:`t^{-2}`.
* :func:`animate_simplex` -- the 3-action paths as a GIF with a round counter (pillow writes it).
* :func:`plot_exploration` -- the heat map of :func:`gamedyn.explore`'s rate exponents.
* :func:`write_tutorial_figures` -- every image of the tutorial "From Hedge to acceleration", also
  ``python -m gamedyn.plot DIR``.
* General-sum games (issue 34): :func:`game_dynamics` (the four dynamics, every player, in
  :func:`gamedyn.engine.players.play_n`; ``matrix_game_dynamics(A, T, B=B)`` is its row player on a
  bimatrix game), :func:`plot_player_dynamics` (two-action players, e.g. Jordan's game),
  :func:`joint_convergence` + :func:`plot_joint_convergence` (a 2 x 2 game's empirical joint distribution
  entering the CCE set) and :func:`write_general_sum_figures` (the tutorial "General-sum games").

Data functions return plain arrays and need no matplotlib; plotting functions return a
``matplotlib.figure.Figure`` (no pyplot, no global state).
"""

from __future__ import annotations

import itertools
import math
import os
import sys

import numpy as np

__all__ = [
    "OWN_GAME",
    "ROCK_PAPER_SCISSORS",
    "RPS_ACTIONS",
    "TUTORIAL_DPI",
    "TUTORIAL_FILES",
    "TUTORIAL_START",
    "TWO_ACTION_GAME",
    "animate_simplex",
    "describe_path",
    "efg_exploitability_curves",
    "dynamics_on_rock_paper_scissors",
    "GENERAL_SUM_FILES",
    "fitted_slope",
    "game_dynamics",
    "joint_convergence",
    "main",
    "matrix_game_dynamics",
    "panel_count",
    "pillow_missing",
    "plot_certificates",
    "plot_efg_exploitability",
    "plot_exploration",
    "plot_game_dynamics",
    "plot_joint_convergence",
    "plot_player_dynamics",
    "plot_regret_curves",
    "plot_rock_paper_scissors",
    "regret_curves",
    "simplex_coordinates",
    "simplex_trajectory",
    "tutorial_figures",
    "tutorial_regret_data",
    "write_general_sum_figures",
    "write_efg_figure",
    "write_tutorial_figures",
]

ROCK_PAPER_SCISSORS = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]])
TUTORIAL_START = (0.6, 0.3, 0.1)  # off the equilibrium (the uniform start IS the equilibrium of RPS)
TUTORIAL_FILES = {
    "dynamics": "rps_dynamics.png",
    "regrets": "regret_curves.png",
    "explorer": "explorer_heatmap.png",
    "animation": "rps_dynamics.gif",
    "own_game": "own_game_dynamics.png",
    "two_actions": "two_action_dynamics.png",
}
RPS_ACTIONS = ("rock", "paper", "scissors")
# the gallery's games of one's own: a weighted rock-paper-scissors with equilibrium (0.25, 0.2, 0.55)
# (diag(1/x*) R: its rows weighted so that x* equalises the columns) and a 2 x 2 game without a saddle point
OWN_GAME = (np.diag([4.0, 5.0, 1 / 0.55]) @ ROCK_PAPER_SCISSORS, ("left", "centre", "right"), (0.6, 0.3, 0.1))
TWO_ACTION_GAME = (np.array([[3.0, -1.0], [-2.0, 1.0]]), ("hawk", "dove"), (0.9, 0.1))
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


def matrix_game_dynamics(M, T: int = 3000, *, row_start=None, column_start=None, eta: float = 0.1, B=None) -> dict:
    r"""The row player's strategies under four dynamics on the matrix game ``M`` (the row player's payoffs).

    With ``B`` (the column player's payoffs) the game is the general-sum bimatrix game
    :class:`gamedyn.BimatrixGame` ``(M, B)``, and the same four dynamics run simultaneously in
    :func:`gamedyn.engine.players.play_n` (:func:`game_dynamics`); a bimatrix game has no single
    equilibrium to mark, so give :func:`plot_game_dynamics` the one you want drawn (``equilibrium=``).

    Parameters
    ----------
    M : array_like, shape (m, n)
        The payoff matrix: the row player maximises :math:`x^\top My`, the column player minimises it.
    T : int
        Rounds.
    row_start, column_start : array_like, optional
        The players' starts (fictitious play's prior beliefs, the Hedge learners' centres); default
        uniform. Entries must be positive (Hedge never plays an action of weight 0).
    eta : float
        Plain Hedge's constant step for both players.
    B : array_like, shape (m, n), optional
        The column player's payoffs (it maximises :math:`x^\top By`); default: the zero-sum game
        (:math:`B=-M`, the recipes of :func:`gamedyn.play`, the column player moving second; RM+ alternating).

    Returns
    -------
    dict
        ``{label: (T, m) array}``: fictitious play's running averages (FTL vs FTL; its plays are
        pure strategies), plain Hedge's plays (FTRL with entropy, step ``eta``), RM+'s linear
        averages :math:`\sum_s s\,x_s/\sum_s s` (alternating, as CFR+ runs it; RM+ has no start of its
        own: zero regrets play uniform, so it ignores ``row_start`` and on rock-paper-scissors sits at
        the equilibrium from round 1) and optimistic Hedge's plays (OFTRL, the recipe's step
        :math:`1/r`, :math:`r=\max M-\min M`).

    Examples
    --------
    >>> paths = matrix_game_dynamics([[3, -1], [-2, 1]], T=50, row_start=[0.9, 0.1])
    >>> [(label, points.shape) for label, points in paths.items()]  # doctest: +NORMALIZE_WHITESPACE
    [('fictitious play (FTL vs FTL): averages', (50, 2)), ('Hedge (FTRL, eta = 0.1): plays', (50, 2)),
     ('RM+ (alternating, linear averaging): averages', (50, 2)), ('optimistic Hedge (OFTRL): plays', (50, 2))]
    """
    if B is not None:
        from gamedyn.games.general_sum import BimatrixGame

        return {label: paths[0] for label, paths in game_dynamics(BimatrixGame(M, B), T, eta=eta,
                                                                  starts=(row_start, column_start)).items()}
    from gamedyn.recipes import fictitious_play, hedge, optimistic_hedge, regret_matching_plus

    def row_plays(result) -> np.ndarray:
        trace = result.game.trace  # recorded: each recipe below runs with record=True
        assert trace is not None
        return trace["w"]

    starts = {"row_start": row_start, "column_start": column_start}
    fictitious = fictitious_play(M, T, **starts, record=True)
    T = len(row_plays(fictitious))
    rounds = np.arange(1, T + 1)[:, None]
    rm_plus = row_plays(regret_matching_plus(np.asarray(M, dtype=np.float64), T, record=True))
    linear = np.cumsum(rounds * rm_plus, axis=0) / np.cumsum(rounds, axis=0)  # its output: sum_t t x_t / sum_t t
    return {
        "fictitious play (FTL vs FTL): averages": np.cumsum(row_plays(fictitious), axis=0) / rounds,
        f"Hedge (FTRL, eta = {eta:g}): plays": row_plays(hedge(M, T, eta_w=eta, eta_p=eta, **starts, record=True)),
        "RM+ (alternating, linear averaging): averages": linear,
        "optimistic Hedge (OFTRL): plays": row_plays(optimistic_hedge(M, T, **starts, record=True)),
    }


def dynamics_on_rock_paper_scissors(T: int = 3000, start=TUTORIAL_START) -> dict:
    """:func:`matrix_game_dynamics` on rock-paper-scissors from ``start`` (the column player from ``start`` rotated).

    Returns ``{label: (T, 3) array}``: fictitious play's running averages, plain Hedge's plays
    (constant step 0.1), RM+'s linear averages beside them (at the equilibrium from round 1: its
    zero regrets play uniform) and optimistic Hedge's plays (step 1/r = 1/2).
    """
    column_start = np.asarray(start, dtype=np.float64)[[1, 2, 0]]
    return matrix_game_dynamics(ROCK_PAPER_SCISSORS, T, row_start=start, column_start=column_start)


def game_dynamics(game, T: int = 3000, *, eta: float = 0.1, starts=None) -> dict:
    r"""Every player's strategies under four simultaneous dynamics on a general-sum game (issue 34).

    Parameters
    ----------
    game : NormalFormGame
        :class:`gamedyn.NormalFormGame` or :class:`gamedyn.BimatrixGame`.
    T : int
        Rounds.
    eta : float
        Plain Hedge's constant step.
    starts : sequence of array_like or None, optional
        Each player's start (None: uniform): fictitious play's prior belief (one fictitious past play) and
        the Hedge learners' centres.

    Returns
    -------
    dict
        ``{label: (path of player 1, ..., path of player n)}``, each path a (T, a_i) array: fictitious play's
        running averages (each player best-responds to the others' empirical play, with the starts as
        one past play), plain Hedge's plays (FTRL with entropy, step ``eta``), RM+'s linear averages
        :math:`\sum_s s\,x_s/\sum_s s` and optimistic Hedge's plays (OFTRL, step :math:`1/r`, r the largest
        payoff range), all in :func:`gamedyn.engine.players.play_n`.

    Examples
    --------
    >>> from gamedyn.games.general_sum import shapley_game
    >>> paths = game_dynamics(shapley_game(), T=40)
    >>> [(label.split(" (")[0], [p.shape for p in players]) for label, players in paths.items()][:1]
    [('fictitious play', [(40, 3), (40, 3)])]
    """
    from gamedyn.core.domains import Simplex
    from gamedyn.core.learners import FTRL, OFTRL, FollowTheRegularizedLeader
    from gamedyn.core.regret_matching import RegretMatching
    from gamedyn.core.regularizers import Entropy, Zero
    from gamedyn.engine.players import PlaysTrace, play_n
    from gamedyn.games.matrix import InitialBelief

    shape = tuple(game.shape)
    starts = [None] * len(shape) if starts is None else list(starts)
    points = [np.full(a, 1.0 / a) if start is None else np.asarray(start, dtype=np.float64)
              for start, a in zip(starts, shape)]
    spread = max(float(np.max(U) - np.min(U)) for U in game.payoffs) or 1.0
    rounds = np.arange(1, T + 1)[:, None]

    def run(learners, weights="constant"):
        trace = PlaysTrace()
        play_n(game, learners, T, weights=weights, initial=points, observers=[trace])
        return [np.array(kept) for kept in trace.plays]

    best_responder = FollowTheRegularizedLeader(Zero(Simplex()), 1.0, InitialBelief())
    fictitious = run([best_responder] * len(shape))
    hedge = run([FTRL(Entropy(), eta, centre=start) for start in starts])
    rm_plus = run([RegretMatching(plus=True)] * len(shape))
    optimistic = run([OFTRL(Entropy(), 1.0 / spread, centre=start) for start in starts])
    return {
        "fictitious play (best responses to the empirical play): averages":
            tuple(np.cumsum(path, axis=0) / rounds for path in fictitious),
        f"Hedge (FTRL, eta = {eta:g}): plays": tuple(hedge),
        "RM+ (simultaneous, linear averaging): averages":
            tuple(np.cumsum(rounds * path, axis=0) / np.cumsum(rounds, axis=0) for path in rm_plus),
        "optimistic Hedge (OFTRL, eta = 1/r): plays": tuple(optimistic),
    }


def plot_player_dynamics(paths: dict, *, equilibrium=None, players=None, actions=None, title=None):
    """One panel per dynamic of :func:`game_dynamics`: each player's probability of its first action over the rounds.

    For games where every player has two actions (Jordan's game); ``equilibrium`` (one strategy per player) is
    drawn dashed, ``players`` / ``actions`` name the players and the first actions. Each panel's caption is
    :func:`describe_path` of player 1's path.
    """
    first = next(iter(paths.values()))
    n = len(first)
    if any(np.shape(path)[-1] != 2 for path in first):
        raise ValueError("plot_player_dynamics draws games where every player has 2 actions (the probability of the "
                         f"first); got actions {[np.shape(path)[-1] for path in first]}. Use plot_game_dynamics "
                         f"on one player's paths for 3 actions.")
    players = tuple(players) if players is not None else tuple(f"player {i + 1}" for i in range(n))
    actions = tuple(actions) if actions is not None else ("action 1",) * n
    figure = new_figure(figsize=(4.2 * len(paths), 3.8), layout="constrained")
    axes = np.atleast_1d(figure.subplots(1, len(paths), sharey=True))
    for ax, (label, path) in zip(axes, paths.items()):
        rounds = np.arange(1, len(path[0]) + 1)
        for i, (points, color) in enumerate(zip(path, ("C0", "C1", "C2", "C3", "C4"))):
            ax.plot(rounds, points[:, 0], color=color, linewidth=0.9, label=f"P({players[i]}: {actions[i]})")
            if equilibrium is not None:
                ax.axhline(float(np.asarray(equilibrium[i])[0]), color=color, linestyle="--", linewidth=0.8)
        ax.set_xscale("log")
        ax.set_ylim(-0.03, 1.03)
        ax.set_xlabel("round t")
        caption = label if equilibrium is None else _caption(label, path[0], equilibrium[0])
        ax.set_title(caption, fontsize=8.5)
    axes[0].set_ylabel("probability of the first action")
    axes[0].legend(loc="best", fontsize=7, frameon=False)
    figure.suptitle(title or "Each player's probability of its first action (dashed: the Nash equilibrium)", fontsize=10)
    return figure


def joint_convergence(game, T: int = 2000, *, learners=None, checkpoints: int = 24, directions: int = 72) -> dict:
    r"""The empirical joint distribution of play in a 2 x 2 game, measured against the CCE set.

    (In a 2 x 2 game the CCE and CE sets coincide: a player's only non-trivial swap exchanges its two
    actions, and each half of it is a fixed deviation.)

    Parameters
    ----------
    game : BimatrixGame
        A 2 x 2 game (e.g. :func:`gamedyn.games.general_sum.chicken`).
    T : int
        Rounds.
    learners : dict, optional
        ``{label: learner}`` (default: Hedge, RM and optimistic Hedge); both players run the same learner in
        :func:`gamedyn.engine.players.play_n`.
    checkpoints : int
        How many rounds (geometric) the gaps and the distances are measured at.
    directions : int
        How many directions the projected polytopes are traced in (one LP each).

    Returns
    -------
    dict
        ``"rounds"``: the measured rounds; ``"paths"``: ``{label: (T, 2) array}``, the joint's point
        :math:`(\sigma_t(1,2),\sigma_t(2,1))` (the mass of the two off-diagonal profiles) every round; ``"cce_gap"``
        / ``"distance"``: ``{label: array}`` at the measured rounds -- the certified CCE gap of :math:`\sigma_t`
        and its L1 distance to the CCE polytope (an LP); ``"cce_polygon"``: the polytope projected on those
        coordinates (its vertices in order, from one LP per direction).
    """
    import scipy.optimize

    from gamedyn.core.learners import FTRL, OFTRL
    from gamedyn.core.regret_matching import RegretMatching
    from gamedyn.core.regularizers import Entropy
    from gamedyn.engine.players import PlaysTrace, play_n
    from gamedyn.games.general_sum import cce_gap
    from gamedyn.games.general_sum.lp import cce_constraints

    if tuple(game.shape) != (2, 2):
        raise ValueError(f"joint_convergence draws 2 x 2 games (the joint has 4 entries), got shape {game.shape}.")
    learners = learners or {"Hedge (eta = 0.1)": FTRL(Entropy(), 0.1), "RM": RegretMatching(),
                            "optimistic Hedge (eta = 0.5)": OFTRL(Entropy(), 0.5)}
    G = {"cce": cce_constraints(game)}
    projection = np.zeros((2, 4))
    projection[0, 1] = projection[1, 2] = 1.0  # (sigma(1, 2), sigma(2, 1)) in C order

    def polygon(rows):
        found = []
        for angle in np.linspace(0.0, 2 * math.pi, directions, endpoint=False):
            direction = np.array([math.cos(angle), math.sin(angle)])
            solution = scipy.optimize.linprog(-(direction @ projection), A_ub=rows, b_ub=np.zeros(len(rows)),
                                              A_eq=np.ones((1, 4)), b_eq=[1.0], bounds=(0, None), method="highs")
            found.append(projection @ solution.x)
        points = np.array(found)
        keep = np.any(np.abs(points - np.roll(points, 1, axis=0)) > 1e-9, axis=1)  # one copy of each vertex
        keep[0] = True
        return points[keep]

    def distance(sigma):
        # min sum_a s_a  s.t.  s >= tau - sigma, s >= sigma - tau, G tau <= 0, tau in the simplex
        eye = np.eye(4)
        cost = np.concatenate([np.zeros(4), np.ones(4)])
        upper = np.vstack([np.hstack([eye, -eye]), np.hstack([-eye, -eye]), np.hstack([G["cce"], np.zeros((4, 4))])])
        right = np.concatenate([sigma, -sigma, np.zeros(len(G["cce"]))])
        found = scipy.optimize.linprog(cost, A_ub=upper, b_ub=right, A_eq=np.concatenate([np.ones(4), np.zeros(4)])[None],
                                       b_eq=[1.0], bounds=(0, None), method="highs")
        return float(found.fun)

    measured = np.unique(np.round(np.geomspace(1, T, checkpoints)).astype(int))
    data: dict = {"rounds": measured, "paths": {}, "cce_gap": {}, "distance": {}, "cce_polygon": polygon(G["cce"])}
    for label, learner in learners.items():
        trace = PlaysTrace()
        play_n(game, [learner, learner], T, initial=[np.array([0.6, 0.4]), np.array([0.3, 0.7])], observers=[trace])
        X, Y = (np.array(kept) for kept in trace.plays)
        products = np.einsum("ti,tj->tij", X, Y).reshape(T, 4)
        joints = np.cumsum(products, axis=0) / np.arange(1, T + 1)[:, None]
        data["paths"][label] = joints @ projection.T
        data["cce_gap"][label] = np.array([cce_gap(game, joints[t - 1].reshape(2, 2)) for t in measured])
        data["distance"][label] = np.array([distance(joints[t - 1]) for t in measured])
    return data


def plot_joint_convergence(data: dict, *, actions=("action 1", "action 2"), title=None):
    """Left: the joint distribution's path into the projected CCE set; right: its certified CCE gap and L1 distance to the CCE set over the rounds (log-log). ``data``: :func:`joint_convergence`."""
    from matplotlib.patches import Polygon

    figure = new_figure(figsize=(10, 4.4), layout="constrained")
    left, right = figure.subplots(1, 2)
    left.add_patch(Polygon(data["cce_polygon"], closed=True, facecolor="C0", alpha=0.18, edgecolor="C0",
                           label="CCE set (= CE set in a 2 x 2 game), projected"))
    left.plot([0, 1, 0, 0], [0, 0, 1, 0], color="0.4", linewidth=0.8)
    for (label, path), color in zip(data["paths"].items(), ("C1", "C3", "C4", "C5")):
        left.plot(path[:, 0], path[:, 1], color=color, linewidth=1, label=label)
        left.plot(*path[0], "o", color=color, markersize=4)
        left.plot(*path[-1], "s", color="black", markersize=3)
    left.set_xlabel(f"P({actions[0]}, {actions[1]})")
    left.set_ylabel(f"P({actions[1]}, {actions[0]})")
    left.set_aspect("equal")
    left.set_xlim(-0.03, 1.03)
    left.set_ylim(-0.03, 1.03)
    left.legend(fontsize=7, frameon=False, loc="upper right")
    rounds = data["rounds"]
    for (label, gaps), color in zip(data["cce_gap"].items(), ("C1", "C3", "C4", "C5")):
        shown = gaps > 0
        right.loglog(rounds[shown], gaps[shown], color=color, linewidth=1.3, label=f"{label}: CCE gap")
        distances = data["distance"][label]
        near = distances > 1e-12
        right.loglog(rounds[near], distances[near], ":", color=color, linewidth=1.2, label=f"{label}: L1 distance")
    right.set_xlabel("round t")
    right.set_ylabel("certified CCE gap and L1 distance to the CCE set")
    right.legend(fontsize=7, frameon=False)
    figure.suptitle(title or "The empirical joint distribution of play enters the coarse correlated equilibria",
                    fontsize=10)
    return figure


def _windows(T: int, count: int = 4) -> list:
    """``count`` geometric windows of rounds covering (T/100, T] (as index ranges)."""
    edges = np.unique(np.round(np.geomspace(max(T / 100, 1), T, count + 1)).astype(int))
    return [(int(a), int(b)) for a, b in itertools.pairwise(edges) if b > a]


def _turns(points, equilibrium) -> float:
    """How many times a 3-action path winds around the equilibrium (signed turns of its angle in the triangle)."""
    xy = simplex_coordinates(points) - simplex_coordinates(equilibrium)
    angles = np.unwrap(np.arctan2(xy[:, 1], xy[:, 0]))
    return float((angles[-1] - angles[0]) / (2 * math.pi))


def describe_path(points, equilibrium) -> str:
    r"""What a path of strategies does around the equilibrium, measured: the caption of its picture.

    The distance is :math:`\max_i|x_{t,i}-x^\star_i|`; its envelope is its largest value over each
    of four geometric windows of rounds covering :math:`(T/100, T]`. The path *converges* when its
    last distance is below :math:`10^{-6}`; otherwise it *spirals in* (3 actions: at least one
    full turn around :math:`x^\star` in the triangle; 2 actions: *oscillates, approaching*, with
    at least two crossings of :math:`x^\star_1`) or *approaches* when the envelope decreases
    window after window, *spirals out* / *oscillates, moving away* / *moves away* when it
    increases, and *keeps its distance* otherwise. The envelope of the first and of the last
    window follow, with their rounds.

    Examples
    --------
    >>> describe_path([[0.5, 0.5]] * 5 + [[0.2, 0.8]] * 95, [0.2, 0.8])
    'converges; max distance to x*: 0.3 (rounds 2-3), 0 (rounds 33-100)'
    """
    points = np.asarray(points, dtype=np.float64)
    equilibrium = np.asarray(equilibrium, dtype=np.float64)
    if points.ndim != 2 or points.shape[1] != equilibrium.shape[0] or points.shape[1] not in (2, 3):
        raise ValueError(f"points must be a (T, 2) or (T, 3) path of strategies and equilibrium one strategy of the same "
                         f"length, got shapes {points.shape} and {equilibrium.shape}.")
    distance = np.abs(points - equilibrium).max(axis=1)
    windows = _windows(len(points))
    envelope = [distance[a:b].max() for a, b in windows]
    if points.shape[1] == 3:
        circles = bool(abs(_turns(points[windows[0][0]:], equilibrium)) >= 1)
        inward, outward = ("spirals in", "spirals out") if circles else ("approaches", "moves away")
    else:
        side = np.sign(points[windows[0][0]:, 0] - equilibrium[0])
        circles = bool(np.count_nonzero(np.diff(side[side != 0])) >= 2)
        inward, outward = ("oscillates, approaching", "oscillates, moving away") if circles else ("approaches", "moves away")
    if distance[-1] < 1e-6:
        verb = "converges"
    elif all(b < a for a, b in itertools.pairwise(envelope)):
        verb = inward
    elif all(b > a for a, b in itertools.pairwise(envelope)):
        verb = outward
    else:
        verb = "keeps its distance"
    (a, b), (c, d) = windows[0], windows[-1]
    return f"{verb}; max distance to x*: {envelope[0]:.2g} (rounds {a + 1}-{b}), {envelope[-1]:.2g} (rounds {c + 1}-{d})"


def fitted_slope(t, values, fit_from) -> float:
    """Least-squares slope of log(values) against log(t) over ``t >= fit_from`` (nan where a value is not positive)."""
    t, values = np.asarray(t, dtype=np.float64), np.asarray(values, dtype=np.float64)
    keep = t >= fit_from
    if np.count_nonzero(keep) < 2 or not np.all(values[keep] > 0):
        return math.nan
    return float(np.polyfit(np.log(t[keep]), np.log(values[keep]), 1)[0])


def regret_curves(payoff, w_learner, p_learner, T: int, **play_options) -> dict:
    r"""Per-round :math:`t, R_w(t), R_p(t), B_t=(R_w+R_p)/S_t` and the duality gap :math:`G_t`, as arrays.

    Read from :func:`gamedyn.play`'s per-round state (``play_options`` go to ``play``; weights
    must be the same for both players, as Theorem 2 needs).
    """
    from gamedyn.engine.observers import each_round
    from gamedyn.engine.runner import play
    from gamedyn.paper.exploration import averaged_gap

    if play_options.get("p_weights") is not None or play_options.get("output_weights") is not None:
        raise ValueError("regret_curves needs one weight sequence for both players (no p_weights / output_weights).")
    rows = []

    def record(state):
        total = state.w_weight_total
        rows.append((state.t, state.w_regret, state.p_regret, (state.w_regret + state.p_regret) / total,
                     averaged_gap(payoff, state.w_domain, state.p_domain, state.w_sum / total, state.p_sum / total)))

    play(payoff, w_learner, p_learner, T, observers=[each_round(record)], **play_options)
    t, w_regret, p_regret, bound, gap = np.array(rows).T
    return {"t": t, "w_regret": w_regret, "p_regret": p_regret, "bound": bound, "gap": gap}


# ------------------------------------------------------------------------------------- pictures


def _actions(actions, count: int) -> tuple:
    if actions is None:
        return tuple(f"action {i + 1}" for i in range(count))
    actions = tuple(str(action) for action in actions)
    if len(actions) != count:
        raise ValueError(f"actions must name the row player's {count} actions, got {len(actions)}: {actions!r}.")
    return actions


def _game(game, equilibrium, actions, width: int) -> tuple:
    """The equilibrium (given, or the row player's optimal strategy of ``game``) and the action labels."""
    if equilibrium is None:
        if game is None:
            raise ValueError("give the game (its payoff matrix) or its equilibrium: the pictures mark the equilibrium.")
        from gamedyn.games.matrix import solve_matrix_game

        equilibrium = solve_matrix_game(game).row
    equilibrium = np.asarray(equilibrium, dtype=np.float64)
    if equilibrium.shape != (width,):
        raise ValueError(f"equilibrium must be a strategy over the paths' {width} actions, got shape {equilibrium.shape}.")
    return equilibrium, _actions(actions, width)


def _triangle(ax, labels=RPS_ACTIONS):
    corners = np.vstack([_CORNERS, _CORNERS[:1]])
    ax.plot(corners[:, 0], corners[:, 1], color="0.3", linewidth=1)
    for corner, label, offset in zip(_CORNERS, labels, ((-0.04, -0.05), (0.04, -0.05), (0.0, 0.03))):
        ax.annotate(label, corner, xytext=(corner[0] + offset[0], corner[1] + offset[1]), ha="center", fontsize=9)
    ax.set_xlim(-0.1, 1.1)
    ax.set_ylim(-0.1, 0.95)
    ax.set_aspect("equal")
    ax.axis("off")


def simplex_trajectory(points, ax=None, *, label=None, equilibrium=None, color="C0", labels=None):
    """Draw a path of 3-action strategies in the triangle; returns the axes (a new figure if ``ax`` is None).

    ``labels`` name the corners (default "action 1" ... "action 3"); ``equilibrium`` is starred.
    """
    if ax is None:
        ax = new_figure(figsize=(4, 3.6)).add_subplot()
    _triangle(ax, _actions(labels, 3))
    xy = simplex_coordinates(points)
    ax.plot(xy[:, 0], xy[:, 1], color=color, linewidth=0.7, alpha=0.85)
    ax.plot(*xy[0], "o", color=color, markersize=5, label="start")
    ax.plot(*xy[-1], "s", color="black", markersize=4, label="round T")
    if equilibrium is not None:
        ax.plot(*simplex_coordinates(equilibrium), "*", color="crimson", markersize=10, label="equilibrium")
    if label:
        ax.set_title(label, fontsize=8.5)
    return ax


def _caption(label: str, points, equilibrium) -> str:
    """The panel's title: the dynamic, then what its path does (:func:`describe_path`), on three lines."""
    return f"{label}\n" + describe_path(points, equilibrium).replace("; ", "\n", 1)


def plot_game_dynamics(paths: dict, game=None, *, actions=None, equilibrium=None, title=None):
    """One panel per dynamic of :func:`matrix_game_dynamics`, with the game's own labels and equilibrium.

    Parameters
    ----------
    paths : dict
        ``{label: (T, m) array}`` of the row player's strategies, m = 2 or 3.
    game : array_like, shape (m, n), optional
        The payoff matrix; its equilibrium (``solve_matrix_game(game).row``) is marked unless
        ``equilibrium`` is given.
    actions : sequence of str, optional
        The row player's action names (default "action 1", ...).
    equilibrium : array_like, shape (m,), optional
        The strategy to mark instead of the game's.
    title : str, optional
        The figure's title (default: what the panels show).

    Returns
    -------
    matplotlib.figure.Figure
        3 actions: a triangle per dynamic (corner i = action i, the path from its start to round T,
        the equilibrium starred). 2 actions: the probability of action 1 over the rounds (log
        scale), the equilibrium's as a dashed line. Each panel's caption is :func:`describe_path`
        of its path: what it measurably does.

    Raises
    ------
    ValueError
        The paths are not over 2 or 3 actions, or ``actions`` / ``equilibrium`` do not match them.
    """
    widths = {np.shape(points)[-1] for points in paths.values()}
    if len(widths) != 1 or widths.pop() not in (2, 3) or any(np.ndim(points) != 2 for points in paths.values()):
        raise ValueError("plot_game_dynamics draws (T, 2) or (T, 3) paths (a triangle for 3 actions, the probability "
                         f"of action 1 for 2), got shapes {[np.shape(points) for points in paths.values()]}.")
    width = np.shape(next(iter(paths.values())))[-1]
    equilibrium, actions = _game(game, equilibrium, actions, width)
    colors = ("C0", "C1", "C2", "C3", "C4")
    if width == 3:
        figure = new_figure(figsize=(4.2 * len(paths), 4.8), layout="constrained")
        axes = np.atleast_1d(figure.subplots(1, len(paths)))
        for ax, (label, points), color in zip(axes, paths.items(), colors):
            simplex_trajectory(points, ax, label=_caption(label, points, equilibrium), equilibrium=equilibrium,
                               color=color, labels=actions)
        axes[0].legend(loc="upper left", fontsize=7, frameon=False)
    else:
        figure = new_figure(figsize=(4.2 * len(paths), 3.6), layout="constrained")
        axes = np.atleast_1d(figure.subplots(1, len(paths), sharey=True))
        for ax, (label, points), color in zip(axes, paths.items(), colors):
            points = np.asarray(points, dtype=np.float64)
            rounds = np.arange(1, len(points) + 1)
            ax.plot(rounds, points[:, 0], color=color, linewidth=0.9, label=f"P({actions[0]})")
            ax.axhline(equilibrium[0], color="crimson", linestyle="--", linewidth=1,
                       label=f"equilibrium {equilibrium[0]:.3g}")
            ax.set_xscale("log")
            ax.set_ylim(-0.03, 1.03)
            ax.set_xlabel("round t")
            ax.set_title(_caption(label, points, equilibrium), fontsize=8.5)
        axes[0].set_ylabel(f"probability of {actions[0]} (1 - that of {actions[1]})")
        axes[0].legend(loc="best", fontsize=7, frameon=False)
    if title is None:
        title = f"The row player's strategies over its {width} actions ({', '.join(actions)}); x* = the game's equilibrium"
    figure.suptitle(title, fontsize=10)
    return figure


def plot_rock_paper_scissors(paths: dict):
    """:func:`plot_game_dynamics` on rock-paper-scissors (corners rock, paper, scissors; the uniform equilibrium)."""
    return plot_game_dynamics(paths, ROCK_PAPER_SCISSORS, actions=RPS_ACTIONS,
                              title="Rock-paper-scissors from x_0 = (0.6, 0.3, 0.1): the row player's strategies")


def plot_regret_curves(curves: dict, title: str = ""):
    """Left: R_w(t), R_p(t) and their sum; right: Theorem 2's B_t above the duality gap G_t (log-log)."""
    figure = new_figure(figsize=(9, 3.6), layout="constrained")
    _regret_panels(figure, curves, title)
    return figure


def plot_certificates(curves: dict, title=None, fit_from=None):
    r"""Theorem 2's certificate :math:`B_t` of several pairs on one log-log axis, with reference slopes.

    Parameters
    ----------
    curves : dict
        ``{label: regret_curves(...)}``, one entry per pair of learners.
    title : str, optional
        The figure's title; by default the fitted slopes (below).
    fit_from : int, optional
        First round of the slope fit (default: the last decade, T/10).

    Returns
    -------
    matplotlib.figure.Figure
        Each pair's :math:`B_t=(R_w+R_p)/S_t` (solid) and the duality gap :math:`G_t` it bounds
        (dotted, same colour), the reference lines :math:`c\,t^{-1}` and :math:`c\,t^{-2}` (grey,
        through the first pair's :math:`B` at the start of the fit) and, in the legend, each
        pair's fitted slope of :math:`\log B_t` against :math:`\log t` (:func:`fitted_slope`).
    """
    figure = new_figure(figsize=(7.5, 4.8), layout="constrained")
    ax = figure.add_subplot()
    slopes, anchors = {}, {}
    for (label, data), color in zip(curves.items(), ("C0", "C1", "C2", "C3", "C4", "C5")):
        t, bound = data["t"], data["bound"]
        start = max(1, int(t[-1]) // 10) if fit_from is None else fit_from
        slopes[label] = fitted_slope(t, bound, start)
        positive = bound > 0
        ax.loglog(t[positive], bound[positive], color=color, linewidth=1.6,
                  label=f"{label}: B_t, fitted slope {slopes[label]:.2f}")
        shown = np.isfinite(data["gap"]) & (data["gap"] > 0)
        ax.loglog(t[shown], data["gap"][shown], ":", color=color, linewidth=1.2, label=f"{label}: duality gap G_t")
        if np.any(t >= start) and math.isfinite(slopes[label]):
            index = int(np.argmax(t >= start))
            anchors[label] = (t, t[index], bound[index])
    for power, style in ((1, "--"), (2, "-.")):  # through the pair whose slope is nearest, a little above it
        if anchors:
            t, t0, b0 = anchors[min(anchors, key=lambda label: abs(slopes[label] + power))]
            t = t[t >= t0 / 10]
            ax.loglog(t, 2 * b0 * (t / t0) ** -power, style, color="0.55", linewidth=1, label=f"reference slope t^-{power}")
    ax.set_xlabel("round t")
    ax.set_ylabel("B_t = (R_w + R_p) / S_t  and  G_t")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=7, frameon=False, loc="lower left")
    if title is None:
        title = "Theorem 2's certificate B_t: fitted slopes " + ", ".join(f"{slope:.2f}" for slope in slopes.values())
    ax.set_title(title, fontsize=10)
    return figure


def plot_exploration(exploration, quantity: str = "bound_exponent"):
    """Heat map of an :class:`gamedyn.paper.exploration.Exploration`: rows w-learner | weights | first, columns p-learner.

    Cells show ``quantity`` (``"bound_exponent"``, ``"gap_exponent"``, ``"bound"`` or ``"gap"``);
    illegal seatings are marked "illegal", failed runs "error".
    """
    if quantity not in ("bound_exponent", "gap_exponent", "bound", "gap"):
        raise ValueError(f"quantity must be 'bound_exponent', 'gap_exponent', 'bound' or 'gap', got {quantity!r}.")
    # a pair run once for both orders (first == "either") fills its cell in each order's line of its
    # w-learner and weights; a w-learner and weights whose pairs are all order-free get one line
    orders: dict[tuple, set] = {}
    for row in exploration.rows:
        orders.setdefault((row.w_name, row.weights), set())
        if row.first != "either":
            orders[row.w_name, row.weights].add(row.first)
    row_keys = [(w, weights, first) for (w, weights), found in orders.items()
                for first in (sorted(found, key=("w", "p").index) or ["either"])]
    column_keys = list(dict.fromkeys(row.p_name for row in exploration.rows))
    values = np.full((len(row_keys), len(column_keys)), np.nan)
    notes = {}
    cells = [(row_keys.index(key), column_keys.index(row.p_name), row) for row in exploration.rows
             for key in row_keys if key[:2] == (row.w_name, row.weights) and row.first in (key[2], "either")]
    for i, j, row in cells:
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
    ax.set_yticks(range(len(row_keys)), [f"{w} | {weights} | " + ("either order" if first == "either" else f"{first} first")
                                          for w, weights, first in row_keys], fontsize=7)
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
        return "the GIF animation needs pillow: pip install pillow (the GIF writer; matplotlib normally brings it)"
    return None


def animate_simplex(paths: dict, filename, game=ROCK_PAPER_SCISSORS, *, actions=None, equilibrium=None,
                    frames: int = 60, fps: int = 12, dpi: int = 100):
    """Write 3-action paths (:func:`matrix_game_dynamics`) as a GIF growing over the rounds, with a round counter.

    Parameters
    ----------
    paths : dict
        ``{label: (T, 3) array}``; one triangle per entry.
    filename : str or path
        The GIF to write.
    game : array_like, optional
        The payoff matrix whose equilibrium is starred (default rock-paper-scissors, whose corners
        are then named rock, paper, scissors).
    actions, equilibrium :
        As for :func:`plot_game_dynamics`.
    frames, fps, dpi : int
        Frames (at rounds spaced geometrically up to T), frames per second, pixels per inch
        (the default 100 makes a 4-panel GIF 1440 x 420 pixels: 360 x 420 a panel).

    Returns
    -------
    The ``filename``.

    Raises
    ------
    ImportError
        pillow (the GIF writer) is not installed; the message says how to install it.

    Notes
    -----
    The static parts (triangles, labels, stars) are drawn once; each frame redraws only the paths,
    their heads and the counter on a copy of that background (Agg's blitting), then pillow writes
    the frames: about a second for 60 frames of four panels.
    """
    missing = pillow_missing()
    if missing:
        raise ImportError(missing)
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from PIL import Image

    if game is not None and actions is None and np.array_equal(np.asarray(game, dtype=np.float64), ROCK_PAPER_SCISSORS):
        actions = RPS_ACTIONS
    equilibrium, actions = _game(game, equilibrium, actions, 3)
    figure = new_figure(figsize=(3.6 * len(paths), 4.2))
    canvas = FigureCanvasAgg(figure)
    axes = np.atleast_1d(figure.subplots(1, len(paths)))
    figure.subplots_adjust(left=0.02, right=0.98, bottom=0.02, top=0.8, wspace=0.05)
    length = min(len(points) for points in paths.values())
    stops = np.unique(np.round(np.geomspace(2, length, frames)).astype(int))
    lines = []
    for ax, (label, points), color in zip(axes, paths.items(), ("C0", "C1", "C2", "C3", "C4")):
        _triangle(ax, actions)
        ax.plot(*simplex_coordinates(equilibrium), "*", color="crimson", markersize=11)
        ax.set_title(label, fontsize=10)
        (line,) = ax.plot([], [], color=color, linewidth=1.0, animated=True)
        (head,) = ax.plot([], [], "s", color="black", markersize=5, animated=True)
        lines.append((ax, line, head, simplex_coordinates(points)))
    counter = figure.text(0.5, 0.93, "", ha="center", va="center", fontsize=14, animated=True)
    canvas.draw()
    background = canvas.copy_from_bbox(figure.bbox)

    def frame(stop):
        canvas.restore_region(background)
        for ax, line, head, xy in lines:
            line.set_data(xy[:stop, 0], xy[:stop, 1])
            head.set_data([xy[stop - 1, 0]], [xy[stop - 1, 1]])
            ax.draw_artist(line)
            ax.draw_artist(head)
        counter.set_text(f"round t = {stop} of {length}")
        figure.draw_artist(counter)
        return Image.fromarray(np.asarray(canvas.buffer_rgba())[..., :3])

    palette = frame(stops[-1]).quantize(colors=255)  # the last frame has every colour: one palette for all
    images = [frame(stop).quantize(palette=palette, dither=Image.Dither.NONE) for stop in stops]
    images[0].save(os.fspath(filename), save_all=True, append_images=images[1:], duration=int(1000 / fps), loop=0,
                   comment=f"panels={len(paths)}".encode())  # what a test compares with the paths drawn
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


def panel_count(figure) -> int:
    """The panels a figure draws: its axes, colour bars left out."""
    return sum(1 for ax in figure.axes if ax.get_label() != "<colorbar>")


def tutorial_figures(T: int = 3000) -> dict:
    """``{TUTORIAL_FILES key: matplotlib Figure}``: every still image of the tutorial, drawn (not written);
    :func:`write_tutorial_figures` saves them, and tests/test_plot.py holds the committed ones in
    docs/tutorial/images/ to their panels and size."""
    from gamedyn.engine.payoffs import RegularizedBilinear
    from gamedyn.io.datasets import make_separable, signed_rows
    from gamedyn.paper.exploration import explore, separator_learners

    new_figure()  # fail early when matplotlib is missing
    figures = {"dynamics": plot_rock_paper_scissors(dynamics_on_rock_paper_scissors(T)),
               "regrets": plot_certificates(tutorial_regret_data(T))}
    for key, (game, actions, start) in (("own_game", OWN_GAME), ("two_actions", TWO_ACTION_GAME)):
        figures[key] = plot_game_dynamics(matrix_game_dynamics(game, T, row_start=start), game, actions=actions)
    payoff = RegularizedBilinear(signed_rows(*make_separable(100, 10, 0.1, 0)))
    figures["explorer"] = plot_exploration(explore(payoff, separator_learners(), T=min(T, 2000)))
    return figures


TUTORIAL_DPI = 110  # the stills' pixels per inch (the GIF's: animate_simplex's dpi)


def write_tutorial_figures(folder, *, T: int = 3000, animation: bool = True) -> list:
    """Write every image of docs/tutorial/from-hedge-to-acceleration.md into ``folder``; returns the paths.

    Each PNG records its panel count (the text chunk ``Panels``), the GIF its own (the comment ``panels=N``),
    so a test can hold a committed picture to what this module draws. The GIF is skipped with a note on
    stderr when pillow is missing (or ``animation=False``).
    """
    os.makedirs(folder, exist_ok=True)
    written = []
    for key, figure in tutorial_figures(T).items():
        target = os.path.join(folder, TUTORIAL_FILES[key])
        figure.savefig(target, dpi=TUTORIAL_DPI, metadata={"Panels": str(panel_count(figure))})
        written.append(target)
    if animation:
        missing = pillow_missing()
        if missing:
            print(f"gamedyn.plot: skipped the animation: {missing}", file=sys.stderr)
        else:
            target = os.path.join(folder, TUTORIAL_FILES["animation"])
            animate_simplex(dynamics_on_rock_paper_scissors(T), target)
            written.append(target)
    return written


GENERAL_SUM_FILES = {
    "coordination": "coordination_dynamics.png",
    "shapley": "shapley_dynamics.png",
    "jordan": "jordan_dynamics.png",
    "joint": "chicken_joint_into_cce.png",
}
SHAPLEY_START = (0.5, 0.3, 0.2)  # off the uniform equilibrium
JORDAN_STARTS = ((0.8, 0.2), (0.5, 0.5), (0.3, 0.7))


def write_general_sum_figures(folder, *, T: int = 3000) -> list:
    """Write the images of docs/tutorial/general-sum-games.md into ``folder``; returns the paths.

    A coordination game, Shapley's game (fictitious play's cycle) and Jordan's game under
    :func:`game_dynamics`, and chicken's empirical joint distribution entering the CCE set
    (:func:`joint_convergence`).
    """
    from gamedyn.games.general_sum import chicken, coordination_game, jordan_game, shapley_game

    new_figure()  # fail early when matplotlib is missing
    os.makedirs(folder, exist_ok=True)
    written = []
    coordination, shapley = coordination_game(), shapley_game()
    for key, game, start, equilibrium, name in (
            ("coordination", coordination, None, (0.0, 0.0, 1.0), "a coordination game (values 1, 2, 3)"),
            ("shapley", shapley, SHAPLEY_START, (1 / 3, 1 / 3, 1 / 3), "Shapley's game")):
        paths = matrix_game_dynamics(game.A, T, B=game.B, row_start=start, column_start=start)
        target = os.path.join(folder, GENERAL_SUM_FILES[key])
        plot_game_dynamics(paths, equilibrium=equilibrium, actions=("1", "2", "3"),
                           title=f"{name}: the row player's strategies (star: the equilibrium marked)").savefig(
            target, dpi=110)
        written.append(target)
    target = os.path.join(folder, GENERAL_SUM_FILES["jordan"])
    plot_player_dynamics(game_dynamics(jordan_game(), T, starts=JORDAN_STARTS), equilibrium=[(0.5, 0.5)] * 3,
                         actions=("heads",) * 3,
                         title="Jordan's game: each player's probability of heads (dashed: the Nash equilibrium)").savefig(
        target, dpi=110)
    written.append(target)
    target = os.path.join(folder, GENERAL_SUM_FILES["joint"])
    plot_joint_convergence(joint_convergence(chicken(), min(T, 2000)), actions=("dare", "chicken"),
                           title="Chicken: the empirical joint distribution of play enters the CCE set").savefig(
        target, dpi=110)
    written.append(target)
    return written
EFG_HORIZONS = (10, 30, 100, 300, 1000)
EFG_FIGURE = "efg_exploitability_leduc.png"


def efg_exploitability_curves(game="leduc_poker", horizons=EFG_HORIZONS) -> dict:
    """``{recipe: [exploitability after T rounds for T in horizons]}`` for every recipe of the EFG family (each run
    at its defaults; the certified exploitability of its output: the averages, MMD's last iterate)."""
    from gamedyn.games.efg import load_game
    from gamedyn.recipes import of_family

    game = load_game(game) if isinstance(game, str) else game
    return {name: [float(declaration.function(game, int(T)).exploitability) for T in horizons]
            for name, declaration in of_family("efg").items()}


def plot_efg_exploitability(curves: dict, horizons=EFG_HORIZONS, title: str = "Leduc poker"):
    """Log-log exploitability (NashConv / 2) against the rounds T, one line per recipe."""
    figure = new_figure(figsize=(6.4, 4.4))
    ax = figure.add_subplot(1, 1, 1)
    for name, values in curves.items():
        ax.loglog(horizons, values, marker="o", markersize=3, label=name)
    ax.set_xlabel("rounds T")
    ax.set_ylabel("exploitability of the output (certified)")
    ax.set_title(f"{title}: every extensive-form recipe at its defaults", fontsize=10)
    ax.legend(fontsize=8, frameon=False)
    return figure


def write_efg_figure(folder, game="leduc_poker") -> str:
    """Write :data:`EFG_FIGURE` into ``folder`` (the curves are also in the PNG's ``Description``, one
    ``name=v1,v2,...`` per recipe, so that tests/test_plot_efg.py holds the picture to the code); returns its path."""
    curves = efg_exploitability_curves(game)
    os.makedirs(folder, exist_ok=True)
    target = os.path.join(folder, EFG_FIGURE)
    description = ";".join(f"{name}=" + ",".join(f"{value:.6e}" for value in values) for name, values in curves.items())
    plot_efg_exploitability(curves).savefig(target, dpi=110, metadata={"Description": description})
    return target


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
