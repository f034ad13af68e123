r"""The pair explorer: every legal seating of given learners on one payoff, with measured rates.

:func:`explore` (``gamedyn.explore``, ``gamedyn explore`` on the command line) runs :func:`gamedyn.play` for every combination (w-learner, p-learner, weights,
first mover) from the lists it is given, and tabulates, for each, Theorem 2's certificate

.. math::

    B_t=\frac{R_w(t)+R_p(t)}{S_t}\ \ge\ \max_w m(w)-m(\bar w_t),\qquad
    G_t=\max_wg(w,\bar p_t)-\min_pg(\bar w_t,p)\quad\text{(duality gap)},

at T and at a geometric grid of checkpoints t, read from the runner's per-round state (one run
per combination, no O(T) record). The **rate exponent** is the least-squares slope of
:math:`\log B_t` (and :math:`\log G_t`) against :math:`\log t` over the checkpoints
:math:`t\ge` ``fit_from`` (default T/10, the last decade): about -2 for the accelerated pairs of
Propositions 1-2 and Theorem 6 on the separator game, about -1 for O(1/T) pairs.

A seating the protocol forbids (a learner that must see its round's loss, FTRL+, in the first
seat) is marked ``illegal`` with the reason, and a run the runner refuses (e.g. FTL on
:math:`\mathbb R^d` with a linear loss) ``error``; neither stops the exploration. When neither
learner sees its round's loss, each plays from the history alone and the order of the round does
not matter: such a pair runs once and has one row, ``first = "either"`` (``row`` finds it under
``"w"`` and ``"p"`` too).

>>> from gamedyn import OFTL, FTRLPlus, OFTRL, Entropy, RegularizedBilinear
>>> A = [[0.6, 0.2], [0.3, -0.5], [0.5, 0.1]]
>>> table = explore(RegularizedBilinear(A), {"w": {"OFTL": OFTL(), "FTRL+": FTRLPlus()},
...                                          "p": {"FTRL+ entropy": FTRLPlus(Entropy(), 1 / 4)}},
...                 T=64, weights=("linear",))
>>> [(row.w_name, row.first, row.status) for row in table.rows]
[('OFTL', 'w', 'ok'), ('OFTL', 'p', 'illegal'), ('FTRL+', 'w', 'illegal'), ('FTRL+', 'p', 'illegal')]
"""

from __future__ import annotations

import functools
import math
import time
from typing import Any

import attrs
import numpy as np

from gamedyn.core.validation import check_count
from gamedyn.engine.observers import each_round
from gamedyn.engine.payoffs import Payoff

__all__ = ["AVERAGING_SCHEMES", "EFG_AVERAGING", "EITHER", "Exploration", "ExplorationRow", "PAPER_PAIRS", "efg_learners",
           "efg_pairs", "explore", "explore_efg", "explore_matrix_game", "fitted_exponent", "geometric_checkpoints",
           "matrix_game_learners", "paper_pairs", "seatings", "separator_learners"]


EITHER = "either"  # the first mover of a pair in which neither learner sees its round's loss


@attrs.frozen
class ExplorationRow:
    """One seating: names, weights, first mover, status, final B_T and G_T, fitted exponents, checkpoints."""

    w_name: str
    p_name: str
    weights: str
    first: str
    status: str  # "ok", "illegal" or "error"
    reason: str = ""
    bound: float = math.nan
    gap: float = math.nan
    bound_exponent: float = math.nan
    gap_exponent: float = math.nan
    checkpoints: tuple = ()
    bounds: tuple = ()
    gaps: tuple = ()
    seconds: float = 0.0

    @property
    def label(self) -> str:
        """``w-learner | p-learner | weights | order``, the row's name."""
        order = "either order" if self.first == EITHER else f"{self.first} first"
        return f"{self.w_name} | {self.p_name} | {self.weights} | {order}"


def _fmt(value: float, kind: str = "e") -> str:
    if value is None or not math.isfinite(value):
        return "-"
    return f"{value:.2e}" if kind == "e" else f"{value:+.2f}"


@attrs.frozen
class Exploration:
    """The explorer's table; ``rows`` in the order they were run (w-learner, p-learner, weights, first)."""

    rows: tuple
    T: int
    fit_from: int
    rank_by: str = "bound"  # "gap": the matrix-game table ranks by the final Nash gap G_T

    def row(self, w_name: str, p_name: str, weights: str, first: str) -> ExplorationRow:
        """The row of one seating (KeyError naming the seating if it was not explored).

        A pair run once for both orders (``first == "either"``) is found under ``"w"``, ``"p"`` and ``"either"``.
        """
        for row in self.rows:
            if (row.w_name, row.p_name, row.weights) == (w_name, p_name, weights) and (
                    row.first == first or (row.first == EITHER and first in ("w", "p"))):
                return row
        raise KeyError(f"no row for w={w_name!r}, p={p_name!r}, weights={weights!r}, first={first!r}")

    def ranked(self) -> list:
        """Rows that ran, by bound exponent to one decimal (fastest first), then by B_T; then the rest.
        With ``rank_by="gap"``: by the final gap G_T (smallest first)."""
        if self.rank_by == "gap":
            ran = sorted((row for row in self.rows if row.status == "ok"), key=lambda row: row.gap)
            return ran + [row for row in self.rows if row.status != "ok"]
        ran = sorted((row for row in self.rows if row.status == "ok"),
                     key=lambda row: (round(row.bound_exponent, 1) if math.isfinite(row.bound_exponent) else math.inf,
                                      row.bound))
        return ran + [row for row in self.rows if row.status != "ok"]

    def _cells(self):
        header = ("w-learner", "p-learner", "weights", "first", "B_T", "rate of B", "gap G_T", "rate of G", "note")
        lines = []
        for row in self.ranked():
            note = row.reason if row.status != "ok" else ""
            lines.append((row.w_name, row.p_name, row.weights, row.first, _fmt(row.bound), _fmt(row.bound_exponent, "f"),
                          _fmt(row.gap), _fmt(row.gap_exponent, "f"), (row.status + ": " + note) if note else ""))
        return header, lines

    def format(self) -> str:
        """A plain-text table (ranked), with the horizon and the fit range on the first line."""
        header, lines = self._cells()
        widths = [max(len(header[i]), *(len(line[i]) for line in lines)) if lines else len(header[i])
                  for i in range(len(header))]
        text = [f"T = {self.T}; rates: log-log slopes over t in [{self.fit_from}, {self.T}]",
                "  ".join(cell.ljust(width) for cell, width in zip(header, widths)).rstrip(),
                "  ".join("-" * width for width in widths)]
        text += ["  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() for line in lines]
        return "\n".join(text)

    def to_markdown(self) -> str:
        """The same table as Markdown."""
        header, lines = self._cells()
        text = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        text += ["| " + " | ".join(line) + " |" for line in lines]
        return "\n".join(text)


def geometric_checkpoints(T: int, count: int = 24) -> tuple:
    """About ``count`` rounds 1 <= t <= T spaced geometrically, always including T."""
    T = check_count(T, "T")
    grid = np.unique(np.round(np.geomspace(1, T, num=max(2, count))).astype(int))
    return tuple(int(t) for t in grid)


def fitted_exponent(checkpoints, values, fit_from: int) -> float:
    """Slope of log(value) against log(t) over checkpoints t >= fit_from (nan if a value is <= 0 there)."""
    points = [(t, value) for t, value in zip(checkpoints, values) if t >= fit_from]
    if len(points) < 2 or any(not (value > 0 and math.isfinite(value)) for _, value in points):
        return math.nan
    t, value = np.log(np.array(points, dtype=np.float64)).T
    return float(np.polyfit(t, value, 1)[0])


def averaged_gap(payoff: Payoff, w_domain, p_domain, w_bar, p_bar) -> float:
    """The duality gap max_w g(w, p_bar) - min_p g(w_bar, p) at the averages (inf when unbounded, NaN for a
    payoff without loss structure)."""
    if not payoff.structured:
        return math.nan
    p_loss, w_loss = payoff.loss_for_p(w_bar), payoff.loss_for_w(p_bar)
    p_best = p_loss.minimize_over(p_domain)
    w_best = w_loss.minimize_over(w_domain)
    if p_best is None or w_best is None:
        return math.inf
    return payoff.value(w_best, p_bar) - payoff.value(w_bar, p_best)


def _named(learners, seat: str) -> list:
    if isinstance(learners, dict):
        items = list(learners.items())
    else:
        items = [(repr(learner), learner) for learner in learners]
    if not items:
        raise ValueError(f"learners[{seat!r}] is empty; give at least one learner for the {seat}-player.")
    for name, learner in items:
        if not all(hasattr(learner, method) for method in ("init", "play", "update", "domain")):
            raise TypeError(f"learners[{seat!r}][{name!r}] is not a learner (init, play, update, domain), got {learner!r}.")
    return items


def seatings(learners, weights=("constant", "linear"), first=("w", "p")) -> list:
    """The seatings :func:`explore` runs, in order: ``(w_name, w_learner, p_name, p_learner, weights, first)``.

    Every combination, except that a pair in which neither learner sees its round's loss is seated
    once, with ``first = "either"``, when both orders are asked for (its two orders play the same
    rounds).
    """
    w_items, p_items = _named(learners["w"], "w"), _named(learners["p"], "p")
    weights = (weights,) if isinstance(weights, str) else tuple(weights)
    first = (first,) if isinstance(first, str) else tuple(first)
    both = {"w", "p"} <= set(first)
    result = []
    for (w_name, w_learner) in w_items:
        for (p_name, p_learner) in p_items:
            order_free = both and not w_learner.needs_current_loss and not p_learner.needs_current_loss
            for schedule in weights:
                for mover in (EITHER,) if order_free else first:
                    result.append((w_name, w_learner, p_name, p_learner, schedule, mover))
    return result


def _run_one(payoff, w_learner, p_learner, T, weights, first, checkpoints, seats):
    wanted = set(checkpoints)
    bounds, gaps = [], []

    def record(state):
        if state.t in wanted:
            total = state.w_weight_total
            bounds.append((state.w_regret + state.p_regret) / total)
            gaps.append(averaged_gap(payoff, state.w_domain, state.p_domain, state.w_sum / total, state.p_sum / total))

    from gamedyn.engine.runner import play

    play(payoff, w_learner, p_learner, T, weights=weights, first=first, observers=[each_round(record)])
    return tuple(bounds), tuple(gaps)


def explore(payoff: Payoff, learners, T: int, *, weights=("constant", "linear"), first=("w", "p"),
            checkpoints: int = 24, fit_from: int | None = None, progress=None) -> Exploration:
    r"""Run every (w-learner, p-learner, weights, first) seating on ``payoff`` for T rounds.

    ``learners`` is ``{"w": {name: learner}, "p": {name: learner}}`` (lists of learners are named
    by their repr). ``weights`` are schedules :func:`gamedyn.play` accepts, given as strings
    (``"constant"``, ``"linear"``); ``first`` the seats that may move first. Returns an
    :class:`Exploration`: per seating the final :math:`B_T` and :math:`G_T`, their fitted log-log
    exponents over the checkpoints :math:`t\ge` ``fit_from`` (default ``max(1, T // 10)``), or
    ``illegal`` / ``error`` with the reason. ``progress(done, total, label)`` is called before each run.

    Raises
    ------
    ValueError
        ``fit_from`` leaves fewer than two checkpoints :math:`t\ge` ``fit_from`` (e.g. ``fit_from > T``),
        so no slope could be fitted; the message names the largest ``fit_from`` that works.
    """
    if not isinstance(payoff, Payoff):
        raise TypeError(f"payoff must be a gamedyn Payoff (Bilinear, RegularizedBilinear, ...), got {type(payoff).__name__}.")
    if not isinstance(learners, dict) or set(learners) != {"w", "p"}:
        raise ValueError('learners must be {"w": {name: learner, ...}, "p": {name: learner, ...}}, '
                         f"got {type(learners).__name__} with keys {sorted(learners) if isinstance(learners, dict) else '-'}.")
    T = check_count(T, "T")
    weights = (weights,) if isinstance(weights, str) else tuple(weights)
    first = (first,) if isinstance(first, str) else tuple(first)
    if not weights or not all(isinstance(schedule, str) for schedule in weights):
        raise ValueError(f"weights must be schedule names such as ('constant', 'linear'), got {weights!r}.")
    if not first or not set(first) <= {"w", "p"}:
        raise ValueError(f"first must be a subset of ('w', 'p'), got {first!r}.")
    grid = geometric_checkpoints(T, check_count(checkpoints, "checkpoints", minimum=2))
    if fit_from is None:
        fit_from = max(1, T // 10)
    else:
        fit_from = check_count(fit_from, "fit_from")
        fitted = [t for t in grid if t >= fit_from]
        if len(fitted) < 2:
            last = grid[-2] if len(grid) >= 2 else None
            fix = (f"pass fit_from <= {last} (the checkpoints are {grid[:3]} ... {grid[-3:]})" if last is not None
                   else "a slope needs T >= 2")
            raise ValueError(f"fit_from={fit_from} leaves {len(fitted)} of the checkpoints t <= T = {T} to fit the rate "
                             f"exponents on, and a log-log slope needs two; {fix}, or leave fit_from out "
                             f"(default max(1, T // 10)).")

    combinations = seatings(learners, weights, first)
    rows = []
    for index, (w_name, w_learner, p_name, p_learner, schedule, mover) in enumerate(combinations):
        if progress is not None:
            order = "either order" if mover == EITHER else f"{mover} first"
            progress(index, len(combinations), f"{w_name} | {p_name} | {schedule} | {order}")
        seated_first, seat_name = (w_learner, w_name) if mover in ("w", EITHER) else (p_learner, p_name)
        if mover != EITHER and seated_first.needs_current_loss:
            rows.append(ExplorationRow(w_name, p_name, schedule, mover, "illegal",
                                       f"{seat_name} sees its round's loss (FTRL+) but moves first"))
            continue
        start = time.process_time()
        try:
            bounds, gaps = _run_one(payoff, w_learner, p_learner, T, schedule, "w" if mover == EITHER else mover, grid,
                                    (w_name, p_name))
        except (ValueError, TypeError, FloatingPointError) as error:
            rows.append(ExplorationRow(w_name, p_name, schedule, mover, "error", " ".join(str(error).split())[:160],
                                       seconds=time.process_time() - start))
            continue
        rows.append(ExplorationRow(
            w_name, p_name, schedule, mover, "ok", "", bounds[-1], gaps[-1],
            fitted_exponent(grid, bounds, fit_from), fitted_exponent(grid, gaps, fit_from),
            grid, bounds, gaps, time.process_time() - start))
    return Exploration(tuple(rows), T, fit_from)


def separator_learners(eta: float = 1 / 4) -> dict:
    r"""The learner lists for the separator game :math:`g=p^\top Aw-\tfrac12\|w\|^2` (the paper's table).

    w-player on :math:`\mathbb R^d`: OFTL, FTL, FTRL+ with no regularizer. p-player on the simplex,
    entropy with step ``eta``: FTRL+, OFTRL, FTRL and (plain) mirror descent.
    """
    from gamedyn.core.learners import FTL, FTRL, OFTL, OFTRL, FTRLPlus, MirrorDescent
    from gamedyn.core.regularizers import Entropy

    return {
        "w": {"OFTL": OFTL(), "FTL": FTL(), "FTRL+": FTRLPlus()},
        "p": {"FTRL+ entropy": FTRLPlus(Entropy(), eta), "OFTRL entropy": OFTRL(Entropy(), eta),
              "FTRL entropy": FTRL(Entropy(), eta), "MD entropy": MirrorDescent(Entropy(), eta)},
    }


# ------------------------------------------------------------------------------ matrix games (issue 18)

#: The averaging schemes of the matrix-game table: the output weights alpha_t of the averages.
AVERAGING_SCHEMES = {"uniform": lambda t: 1.0, "linear": float, "quadratic": lambda t: float(t * t)}


def matrix_game_learners(M) -> dict:
    r"""The learners of the matrix-game table, for a payoff matrix ``M`` (rows maximise), on the simplex:
    Hedge (FTRL with entropy, :math:`\eta=1/r`), optimistic Hedge (OFTRL with entropy, :math:`\eta=1/r`),
    RM, RM+, PRM+, AdaHedge and FTL (fictitious play's best reply to the empirical average), with
    :math:`r=\max M-\min M`. The same list serves either seat."""
    from gamedyn.core.adaptive import AdaHedge
    from gamedyn.core.domains import Simplex
    from gamedyn.core.learners import FTL, FTRL, OFTRL
    from gamedyn.core.regret_matching import RegretMatching
    from gamedyn.core.regularizers import Entropy

    M = np.asarray(M, dtype=np.float64)
    spread = float(M.max() - M.min()) or 1.0
    return {"Hedge": FTRL(Entropy(), 1.0 / spread), "optimistic Hedge": OFTRL(Entropy(), 1.0 / spread),
            "RM": RegretMatching(), "RM+": RegretMatching(plus=True),
            "PRM+": RegretMatching(plus=True, predictive=True), "AdaHedge": AdaHedge(), "FTL": FTL(Simplex())}


def explore_matrix_game(M, T: int, *, learners=None, alternating=(False, True),
                        averaging=("uniform", "linear", "quadratic"), checkpoints: int = 16,
                        fit_from: int | None = None) -> Exploration:
    r"""Every pair (row learner, column learner) of ``learners`` on the matrix game ``M``, with and without
    alternation and with each averaging scheme: the Nash gap of the averages and its rate.

    Each row of the returned :class:`Exploration` is one run of :func:`gamedyn.play` on
    ``MatrixGame(M)`` with round weights 1 and output weights ``averaging`` (``"uniform"``: 1,
    ``"linear"``: t, ``"quadratic"``: :math:`t^2`), the row player moving first, simultaneous or
    alternating (:class:`gamedyn.engine.rounds.AlternatingRound`: the column player's play of round t
    has seen the row player's). The row's ``weights`` is the averaging scheme, its ``first`` is
    ``"simultaneous"`` or ``"alternating"``; ``gap`` is the Nash gap
    :math:`G_t=\max_i(M\bar y_t)_i-\min_j(\bar x_t^\top M)_j` at T (exact, two products), ``gap_exponent``
    its log-log slope over the checkpoints :math:`t\ge` ``fit_from`` (default T/10); ``bound`` is
    Theorem 2's :math:`(R_x+R_y)/\sum_t\alpha_t` for simultaneous uniform runs (where it equals the gap's
    bound) and ``-`` otherwise. Every pair is legal here: none of these learners needs its round's
    loss, so either may move second in an alternating round.

    Parameters
    ----------
    M : array_like, shape (m, n)
        The payoff matrix (rows maximise, columns minimise).
    T : int
        Rounds per run.
    learners : dict, optional
        ``{name: learner}`` for both seats; default :func:`matrix_game_learners` (7 learners: 294 runs).
    alternating : tuple of bool
        The protocols to run.
    averaging : tuple of str
        Keys of :data:`AVERAGING_SCHEMES`.
    checkpoints, fit_from : int
        As for :func:`explore`.

    Returns
    -------
    Exploration

    Examples
    --------
    >>> M = [[0.0, 1.0, -1.0], [-1.0, 0.0, 1.0], [1.0, -1.0, 0.0]]
    >>> learners = {k: v for k, v in matrix_game_learners(M).items() if k in ("Hedge", "RM+")}
    >>> table = explore_matrix_game(M, 200, learners=learners, averaging=("uniform",))
    >>> len(table.rows), table.row("RM+", "RM+", "uniform", "alternating").gap < 1e-2
    (8, True)
    """
    from gamedyn.engine.runner import play
    from gamedyn.games.matrix.game import MatrixGame

    M = np.asarray(M, dtype=np.float64)
    if M.ndim != 2 or M.size == 0 or not np.all(np.isfinite(M)):
        raise ValueError(f"M must be a finite, non-empty 2-D payoff matrix, got shape {M.shape}.")
    T = check_count(T, "T")
    learners = matrix_game_learners(M) if learners is None else dict(learners)
    items = _named(learners, "w")
    unknown = [name for name in averaging if name not in AVERAGING_SCHEMES]
    if unknown:
        raise ValueError(f"averaging must be among {tuple(AVERAGING_SCHEMES)}, got {unknown!r}.")
    if not alternating or not all(isinstance(flag, bool) for flag in alternating):
        raise ValueError(f"alternating must be a tuple of True/False, got {alternating!r}.")
    grid = geometric_checkpoints(T, check_count(checkpoints, "checkpoints", minimum=2))
    fit_from = max(1, T // 10) if fit_from is None else check_count(fit_from, "fit_from")
    game = MatrixGame(M)
    rows = []
    for row_name, row_learner in items:
        for column_name, column_learner in items:
            for alternate in alternating:
                for scheme in averaging:
                    weight = AVERAGING_SCHEMES[scheme]
                    gaps: list[float] = []
                    bounds: list[float] = []
                    wanted, total = set(grid), [0.0]

                    def record(state, weight=weight, wanted=wanted, gaps=gaps, bounds=bounds, total=total,
                               plain=not alternate and scheme == "uniform"):
                        total[0] += weight(state.t)
                        if state.t in wanted:
                            x, y = state.w_sum / total[0], state.p_sum / total[0]
                            gaps.append(float(np.max(M @ y) - np.min(x @ M)))
                            bounds.append((state.w_regret + state.p_regret) / total[0] if plain else math.nan)

                    start = time.process_time()
                    try:
                        play(game, row_learner, column_learner, T, weights="constant", output_weights=scheme,
                             first="w", alternating=alternate, observers=[each_round(record)])
                    except (ValueError, TypeError, FloatingPointError) as error:
                        rows.append(ExplorationRow(row_name, column_name, scheme,
                                                   "alternating" if alternate else "simultaneous", "error",
                                                   " ".join(str(error).split())[:160],
                                                   seconds=time.process_time() - start))
                        continue
                    rows.append(ExplorationRow(
                        row_name, column_name, scheme, "alternating" if alternate else "simultaneous", "ok", "",
                        bounds[-1], gaps[-1],
                        fitted_exponent(grid, bounds, fit_from) if math.isfinite(bounds[-1]) else math.nan,
                        fitted_exponent(grid, gaps, fit_from), grid, tuple(bounds), tuple(gaps),
                        time.process_time() - start))
    return Exploration(tuple(rows), T, fit_from, rank_by="gap")


@functools.lru_cache(maxsize=1)
def paper_pairs() -> tuple:
    """The seatings of the paper's recipes, read from their declarations (``Recipe.pair``):
    ``(w-learner, p-learner, weights, first, label)`` in the names of :func:`separator_learners`, one per
    seating, labelled with the references of the recipes that play it (e.g. Propositions 1-2). The
    extensive-form recipes' pairs are :func:`efg_pairs`'."""
    from gamedyn.engine.recipe import EFG
    from gamedyn.recipes import RECIPES

    seatings: dict = {}
    for recipe in RECIPES.values():
        if recipe.pair is not None and recipe.family is not EFG:
            seatings.setdefault(tuple(recipe.pair), []).append(f"{recipe.name} ({recipe.reference})")
    return tuple((*pair, " / ".join(labels)) for pair, labels in seatings.items())


# ------------------------------------------------------------------------- extensive-form games (issue 33)

#: The averaging schemes of the extensive-form table: :data:`AVERAGING_SCHEMES`' output weights, and ``"last"``
#: (no average: the plays of round t, MMD's last iterate).
EFG_AVERAGING = (*AVERAGING_SCHEMES, "last")


def efg_learners() -> dict:
    r"""The per-treeplex learners of the extensive-form table, ``{name: maker}`` (``maker(treeplex)`` returns a fresh
    learner on that treeplex), at the extensive-form recipes' defaults: counterfactual regret with RM (CFR), RM+
    (CFR+), discounted RM with :math:`(\alpha,\beta)=(1.5,0)` (DCFR) and PRM+ with the counterfactual prediction
    (PCFR+); FTRL (dilated Hedge, :math:`\eta=1`) and OFTRL (optimistic dilated Hedge, :math:`\eta=5`) with the
    dilated entropy; mirror descent with the dilated entropy and a uniform magnet of strength
    :math:`\alpha=0.2`, :math:`\eta=1` (MMD, Sokota et al. 2023, eq. (3), at one constant alpha), and optimistic
    mirror descent with the same magnet, :math:`\eta=4` (optimistic MMD, :func:`gamedyn.recipes.optimistic_mmd`). The same list
    serves either seat; :func:`efg_pairs` names the recipes' own seatings in these names."""
    from gamedyn.core.counterfactual import CounterfactualRegret
    from gamedyn.core.dilated import DilatedEntropy
    from gamedyn.core.learners import FTRL, OFTRL, OMD, MirrorDescent

    return {
        "CFR (RM)": lambda treeplex: CounterfactualRegret(treeplex, "rm"),
        "CFR+ (RM+)": lambda treeplex: CounterfactualRegret(treeplex, "rm+"),
        "DCFR (1.5, 0)": lambda treeplex: CounterfactualRegret(treeplex, "dcfr", alpha=1.5, beta=0.0),
        "PCFR+ (PRM+)": lambda treeplex: CounterfactualRegret(treeplex, "prm+", prediction="counterfactual"),
        "dilated Hedge": lambda treeplex: FTRL(DilatedEntropy(treeplex), 1.0),
        "optimistic dilated Hedge": lambda treeplex: OFTRL(DilatedEntropy(treeplex), 5.0),
        "MMD (alpha 0.2)": lambda treeplex: MirrorDescent(DilatedEntropy(treeplex, alpha=0.2), 1.0),
        "optimistic MMD (alpha 0.2)": lambda treeplex: OMD(DilatedEntropy(treeplex, alpha=0.2), 4.0),
    }


@functools.lru_cache(maxsize=1)
def efg_pairs() -> tuple:
    """The seatings of the extensive-form recipes, read from their declarations (``Recipe.pair`` of the EFG
    family): ``(x-learner, y-learner, averaging, order, label)`` in the names of :func:`efg_learners`, the order
    ``"simultaneous"`` or ``"alternating"``, labelled with the recipes that play them (``mmd``'s pair is its
    constant schedule: the halving one plays several such runs, one alpha each)."""
    from gamedyn.engine.recipe import EFG
    from gamedyn.recipes import RECIPES

    seatings: dict = {}
    for recipe in RECIPES.values():
        if recipe.pair is not None and recipe.family is EFG:
            seatings.setdefault(tuple(recipe.pair), []).append(f"{recipe.name} ({recipe.reference})")
    return tuple((*pair, " / ".join(labels)) for pair, labels in seatings.items())


def explore_efg(game, T: int, *, learners=None, pairs=None, alternating=(False, True), averaging=EFG_AVERAGING,
                checkpoints: int = 16, fit_from: int | None = None, progress=None) -> Exploration:
    r"""Every pair (x-learner, y-learner) of per-treeplex learners on an extensive-form game, simultaneous and
    alternating, with each averaging scheme: the Nash gap of the averages and its rate (the explorer over
    treeplex pairs).

    Each row is one run of :func:`gamedyn.play` on ``game.payoff()`` (the sequence-form bilinear game
    :math:`x^\top Ay`, x maximising) with learner weights 1, output weights ``averaging`` (as
    :func:`explore_matrix_game`; ``"last"``: the plays of round t, no average), player 0 first, simultaneous
    or alternating (player 1's update of round t sees :math:`x_t`). The row's ``weights`` is the averaging,
    its ``first`` the order; ``gap`` is the certified Nash gap :math:`G_t=\max_{x}x^\top A\bar y_t-\min_y\bar
    x_t^\top Ay` (NashConv: twice OpenSpiel's exploitability) at T, ``gap_exponent`` its log-log slope over the
    checkpoints :math:`t\ge` ``fit_from`` (default T/10); ``bound`` is not computed (``-``).

    Parameters
    ----------
    game : ExtensiveFormGame or str
        A :mod:`gamedyn.games.efg` game or a built-in name (``"kuhn_poker"``).
    T : int
        Rounds per run.
    learners : dict, optional
        ``{name: maker}``, ``maker(treeplex)`` a fresh learner; default :func:`efg_learners` (8 learners).
    pairs : iterable, optional
        The seatings to run, ``(x-learner, y-learner, averaging, order[, label])`` with the order
        ``"simultaneous"`` or ``"alternating"`` (e.g. :func:`efg_pairs`, the recipes' own); default every
        combination of ``learners``, ``alternating`` and ``averaging`` (8 x 8 x 2 x 4 = 512 runs).
    alternating : tuple of bool
        The orders of the default combinations.
    averaging : tuple of str
        The averagings of the default combinations, among :data:`EFG_AVERAGING`.
    checkpoints, fit_from : int
        As for :func:`explore`.

    Returns
    -------
    Exploration
        Ranked by the final Nash gap (``rank_by="gap"``).

    Examples
    --------
    >>> table = explore_efg("kuhn_poker", 200, pairs=[("CFR+ (RM+)", "CFR+ (RM+)", "linear", "alternating"),
    ...                                             ("CFR (RM)", "dilated Hedge", "uniform", "simultaneous")])
    >>> [(row.w_name, row.p_name, row.status) for row in table.ranked()]
    [('CFR+ (RM+)', 'CFR+ (RM+)', 'ok'), ('CFR (RM)', 'dilated Hedge', 'ok')]
    """
    from gamedyn.engine.runner import play
    from gamedyn.recipes.cfr import check_game

    game = check_game(game)
    T = check_count(T, "T")
    learners = efg_learners() if learners is None else dict(learners)
    if not learners or not all(callable(maker) for maker in learners.values()):
        raise ValueError("learners must be {name: maker} with maker(treeplex) a fresh learner (see efg_learners()).")
    if pairs is None:
        unknown = [name for name in averaging if name not in EFG_AVERAGING]
        if unknown:
            raise ValueError(f"averaging must be among {EFG_AVERAGING}, got {unknown!r}.")
        if not alternating or not all(isinstance(flag, bool) for flag in alternating):
            raise ValueError(f"alternating must be a tuple of True/False, got {alternating!r}.")
        pairs = [(x_name, y_name, scheme, "alternating" if alternate else "simultaneous")
                 for x_name in learners for y_name in learners for alternate in alternating for scheme in averaging]
    seated = []
    for pair in pairs:
        x_name, y_name, scheme, order = tuple(pair)[:4]
        missing = [name for name in (x_name, y_name) if name not in learners]
        if missing or scheme not in EFG_AVERAGING or order not in ("simultaneous", "alternating"):
            raise ValueError(f"pair {tuple(pair)!r}: the learners must be among {list(learners)} (unknown: {missing}), "
                             f"the averaging among {EFG_AVERAGING}, the order 'simultaneous' or 'alternating'.")
        seated.append((x_name, y_name, scheme, order))
    grid = geometric_checkpoints(T, check_count(checkpoints, "checkpoints", minimum=2))
    fit_from = max(1, T // 10) if fit_from is None else check_count(fit_from, "fit_from")
    payoff = game.payoff()
    rows = []
    for index, (x_name, y_name, scheme, order) in enumerate(seated):
        if progress is not None:
            progress(index, len(seated), f"{x_name} | {y_name} | {scheme} | {order}")
        last = scheme == "last"
        weight = AVERAGING_SCHEMES["uniform" if last else scheme]
        gaps: list[float] = []
        wanted, total = set(grid), [0.0]

        def record(state, weight=weight, wanted=wanted, gaps=gaps, total=total, last=last):
            total[0] += weight(state.t)
            if state.t in wanted:
                x, y = (state.w, state.p) if last else (state.w_sum / total[0], state.p_sum / total[0])
                gaps.append(float(game.nash_gap(np.asarray(x), np.asarray(y))))

        start = time.process_time()
        try:
            play(payoff, learners[x_name](game.treeplexes[0]), learners[y_name](game.treeplexes[1]), T,
                 weights="constant", output_weights="uniform" if last else scheme, first="w",
                 alternating=order == "alternating", observers=[each_round(record)])
        except (ValueError, TypeError, FloatingPointError) as error:
            rows.append(ExplorationRow(x_name, y_name, scheme, order, "error", " ".join(str(error).split())[:160],
                                       seconds=time.process_time() - start))
            continue
        rows.append(ExplorationRow(x_name, y_name, scheme, order, "ok", "", math.nan, gaps[-1], math.nan,
                                   fitted_exponent(grid, gaps, fit_from), grid, (), tuple(gaps),
                                   time.process_time() - start))
    return Exploration(tuple(rows), T, fit_from, rank_by="gap")


def __getattr__(name: str) -> Any:
    """``PAPER_PAIRS``: :func:`paper_pairs`, read from the recipes' declarations on first use."""
    if name == "PAPER_PAIRS":
        return paper_pairs()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
