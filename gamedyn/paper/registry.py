"""One registry of the recipes, their original algorithms and the equivalence claims.

It drives the conformance tests, the command line's ``list`` and ``reproduce`` and the docs, so
nothing is listed twice. Each :class:`Equivalence` returns, for data ``A`` and horizon ``T``, the
pairs (recipe quantity, original quantity) that the paper says are equal; the relative error
``||a - b|| / ||b||`` of each pair is the measurement.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import attrs
import numpy as np

from gamedyn.games.margin import original

if TYPE_CHECKING:
    from gamedyn.engine.recipe import Recipe


@attrs.frozen
class Entry:
    """A runnable algorithm: a recipe (game form) or an original (published form)."""

    name: str
    kind: str  # "recipe" or "original"
    function: Callable
    summary: str
    reference: str
    recipe: Recipe | None = None  # a recipe's declaration (gamedyn.recipes.Recipe): its options, output rule, comparator
    form: "OriginalForm | None" = None  # an original's: how to call it and read its output


@attrs.frozen
class OriginalForm:
    """How an original algorithm is called and how its output ``w`` reads off what it returns.

    ``call(A, T, options, trajectory)`` runs it (``options``: ``p``, ``theta``); ``final(result)``
    is ``w`` after the T rounds; ``at(trajectory, t)`` is ``w`` after round ``t`` (None when the
    original keeps no trajectory). ``updates=True``: ``T`` caps perceptron updates and the result
    is ``(w, updates)``. ``options`` names the options it reads (as :class:`gamedyn.recipes.Recipe`'s).
    ``rounds_to_separate(n, gamma, options) -> float | None``: the updates after which its bound
    guarantees a separating ``w`` (Novikoff, Gentile), read by the iterations experiment, which prints
    it as ``label``.
    """

    call: Callable
    final: Callable | None = None
    at: Callable | None = None
    updates: bool = False
    options: tuple = ()
    rounds_to_separate: Callable | None = None
    label: str = ""

    def sufficient_rounds(self, n, gamma, **options):
        """Updates after which the original's bound guarantees a positive margin (None: no bound)."""
        if self.rounds_to_separate is None:
            return None
        return self.rounds_to_separate(n, gamma, {key: value for key, value in options.items() if key in self.options})


@attrs.frozen
class Equivalence:
    """A claim that two computations agree, with the paper's statement."""

    claim: str
    statement: str
    pairs: Callable  # (A, T) -> list of (label, value, reference value)
    recipes: tuple = ()  # the recipes the claim is about

    def errors(self, A, T) -> dict:
        """Relative error ||a - b|| / ||b|| of every pair."""
        return {label: relative_error(value, reference) for label, value, reference in self.pairs(A, T)}


def relative_error(value, reference) -> float:
    """||value - reference|| / ||reference|| (the plain difference's norm when the reference is 0)."""
    value, reference = np.asarray(value, dtype=np.float64), np.asarray(reference, dtype=np.float64)
    scale = np.linalg.norm(reference)
    difference = np.linalg.norm(value - reference)
    return float(difference / scale) if scale > 0 else float(difference)


def _recipes():
    import gamedyn.recipes as recipes

    return recipes


def recipe_entries(family: str | None = None) -> list[Entry]:
    """One entry per recipe (of every family, or of ``family``), read from each recipe's own declaration
    (``gamedyn.recipes.RECIPES``)."""
    return [Entry(recipe.name, "recipe", recipe.function, recipe.summary, recipe.reference, recipe)
            for recipe in _recipes().RECIPES.values() if family is None or recipe.family.name == family]


def _first(result):
    return result[0]


def _novikoff(n, gamma, options):
    """Novikoff: the perceptron makes at most 1/gamma^2 updates on rows with ||a_i||_2 <= 1."""
    return 1 / gamma**2


def _gentile(n, gamma_q, options):
    """Gentile 2001: the p-norm perceptron makes at most (p-1)/gamma_q^2 updates on rows with ||a_i||_p <= 1."""
    return (options.get("p", 2.0) - 1) / gamma_q**2


def original_entries() -> list[Entry]:
    """One entry per original algorithm, each with its :class:`OriginalForm`."""
    return [
        Entry("original.smooth_perceptron", "original", original.smooth_perceptron,
              "Soheili-Pena smoothed primal-dual iteration, returns (v_{T-1}, q_{T-1})", "Algorithm 1",
              form=OriginalForm(lambda A, T, options, trajectory: original.smooth_perceptron(A, T, trajectory=trajectory),
                                _first, lambda path, t: path.v[t - 1])),  # T rounds = v_{T-1} (Proposition 1)
        Entry("original.accelerated_perceptron", "original", original.accelerated_perceptron,
              "Ji et al.'s primal-dual iteration, returns (v_T, q_T)", "Algorithm 2",
              form=OriginalForm(lambda A, T, options, trajectory: original.accelerated_perceptron(
                  A, T, options.get("theta", "wang"), trajectory=trajectory), _first, lambda path, t: path.v[t],
                  options=("theta",))),
        Entry("original.mirror_prox", "original", original.mirror_prox,
              "extragradient on ball x simplex, returns (w_bar_T, p_bar_T)", "Yu et al. 2014",
              form=OriginalForm(lambda A, T, options, trajectory: original.mirror_prox(A, T, trajectory=trajectory),
                                _first, lambda path, t: path.w_half[:t].mean(axis=0))),  # mean of the half iterates
        Entry("original.nag", "original", original.nag,
              "Nesterov's accelerated gradient on the exponential loss, returns s_T", "Algorithm 3",
              form=OriginalForm(lambda A, T, options, trajectory: original.nag(A, T, trajectory=trajectory),
                                lambda s: s, lambda path, t: path.s[t])),
        Entry("original.accelerated_pnorm_perceptron", "original", original.accelerated_pnorm_perceptron,
              "Algorithm 4's closed form, w_t = eta_w (q-1) f_p(theta_t), returns (w_bar_T, pi_bar_T)",
              "Algorithm 4; Theorem 7",
              form=OriginalForm(lambda A, T, options, trajectory: original.accelerated_pnorm_perceptron(
                  A, T, options.get("p", 2.0), trajectory=trajectory), _first, lambda path, t: path.w[:t].mean(axis=0),
                  options=("p",))),
        Entry("original.perceptron", "original", original.perceptron,
              "batch perceptron on the most violated row, returns (w, updates)", "Rosenblatt; Novikoff bound",
              form=OriginalForm(lambda A, T, options, trajectory: original.perceptron(A, T), updates=True,
                                rounds_to_separate=_novikoff, label="perceptron")),
        Entry("original.pnorm_perceptron", "original", original.pnorm_perceptron,
              "p-norm perceptron, returns (w, updates)", "Gentile 2001",
              form=OriginalForm(lambda A, T, options, trajectory: original.pnorm_perceptron(A, options.get("p", 2.0), T),
                                updates=True, options=("p",), rounds_to_separate=_gentile, label="p-norm perceptron")),
    ]


def entries() -> list[Entry]:
    """Every registry entry: the recipes', then the originals'."""
    return recipe_entries() + original_entries()


# ------------------------------------------------------------------------------------ equivalences


def _proposition1(A, T):
    result = _recipes().smooth_perceptron(A, T)
    v, q = original.smooth_perceptron(A, T)
    return [("v_{T-1} = w_bar_T", result.w, v), ("q_{T-1} = sum a_t p_t / S_T", result.p, q)]


def _proposition1_trajectory(A, T):
    result = _recipes().smooth_perceptron(A, T, record=True)
    path = original.smooth_perceptron(A, T, trajectory=True)
    alpha = np.arange(1, T + 1)[:, None]
    totals = np.cumsum(alpha, axis=0)
    w_bars = np.cumsum(alpha * result.game.trace["w"], axis=0) / totals
    p_bars = np.cumsum(alpha * result.game.trace["p"], axis=0) / totals
    return [("v_t = w_bar_{t+1}, all t", w_bars, path.v), ("q_t = p_bar_{t+1}, all t", p_bars, path.q),
            ("q_mu_t(v_t) = p_{t+1}, all t", result.game.trace["p"], path.q_mu)]


def _proposition2(theta):
    def pairs(A, T):
        result = _recipes().accelerated_perceptron(A, T, theta=theta)
        v, q = original.accelerated_perceptron(A, T, theta=theta)
        return [("v_T", result.w, v), ("q_T = p_T", result.p, q)]

    return pairs


def _theorem1(A, T):
    v_ji, _ = original.accelerated_perceptron(A, T)
    v_sp, q_sp = original.smooth_perceptron(A, T)
    q_ji = original.accelerated_perceptron(A, T, trajectory=True).q[1:]
    alpha = np.arange(1, T + 1)
    return [("v^Ji_T = T(T+1)/8 v^SP_{T-1}", v_ji, T * (T + 1) / 8 * v_sp),
            ("q^SP_{T-1} = sum t q^Ji_t / S_T", q_sp, alpha @ q_ji / alpha.sum())]


def _theorem6(A, T):
    result = _recipes().nag_margin(A, T)
    return [("s_T (recipe) = s_T (NAG)", result.w, original.nag(A, T)),
            ("s_T = T(T+1)/8 w_bar_T", original.nag(A, T), T * (T + 1) / 8 * result.game.w_average)]


def _yu(A, T):
    result = _recipes().mirror_prox_perceptron(A, T, record=True)
    path = original.mirror_prox(A, T, trajectory=True)
    return [("w_bar_T", result.w, path.w_bar), ("p_bar_T", result.p, path.p_bar),
            ("plays w_t = w_{t-1/2}", result.game.trace["w"], path.w_half),
            ("plays p_t = p_{t-1/2}", result.game.trace["p"], path.p_half)]


ALGORITHM4_P = (2.0, 4.0)  # the p of Algorithm 4's equivalence (rows with ||a_i||_2 <= 1 have ||a_i||_p <= 1)


def _algorithm4(A, T):
    pairs = []
    for p in ALGORITHM4_P:
        result = _recipes().pnorm_perceptron(A, T, p=p, record=True)
        path = original.accelerated_pnorm_perceptron(A, T, p, trajectory=True)
        pairs += [(f"w_bar_T, p = {p:g}", result.w, path.w_bar), (f"pi_bar_T, p = {p:g}", result.p, path.pi_bar),
                  (f"plays w_t, p = {p:g}", result.game.trace["w"], path.w),
                  (f"plays pi_t, p = {p:g}", result.game.trace["p"], path.pi)]
    return pairs


def _fenchel_objective(A):
    from gamedyn.paper.experiments.fenchel import logistic_objective

    return logistic_objective(A, ridge=0.1)


def _frank_wolfe(A, T):
    from gamedyn.core.domains import Ball, Box, L1Ball, Simplex
    from gamedyn.games.fenchel import original as original_fenchel

    objective, d = _fenchel_objective(A), A.shape[1]
    box = (-np.ones(d), np.linspace(0.5, 1.0, d))
    cases = [("simplex", Simplex(), "simplex", None), ("l2 ball", Ball(1.0), "ball", 1.0),
             ("l1 ball", L1Ball(2.0), "l1", 2.0), ("box", Box(*box), "box", box)]
    return [(f"x_T on the {label}", _recipes().frank_wolfe(objective, T, domain=domain).x,
             original_fenchel.frank_wolfe(objective.gradient, kind, parameters, d, T))
            for label, domain, kind, parameters in cases]


def _accelerated_gradient(A, T):
    from gamedyn.core.domains import Ball
    from gamedyn.games.fenchel import original as original_fenchel

    objective, d = _fenchel_objective(A), A.shape[1]
    step = 1.0 / (4.0 * objective.smoothness)
    x0 = np.full(d, 0.5 / np.sqrt(d))
    return [("w_T = x_bar_T on R^d", _recipes().accelerated_gradient(objective, T, x0=x0).x,
             original_fenchel.accelerated_gradient(objective.gradient, step, x0, T)),
            ("w_T = x_bar_T on Ball(0.6)", _recipes().accelerated_gradient(objective, T, domain=Ball(0.6), x0=x0).x,
             original_fenchel.accelerated_gradient(objective.gradient, step, x0, T, "ball", 0.6))]


def _heavy_ball(A, T):
    from gamedyn.games.fenchel import original as original_fenchel

    objective, d = _fenchel_objective(A), A.shape[1]
    x0 = np.full(d, 0.5 / np.sqrt(d))
    return [("x_T = x_bar_T", _recipes().heavy_ball(objective, T, x0=x0).x,
             original_fenchel.heavy_ball(objective.gradient, 1.0 / (4.0 * objective.smoothness), x0, T))]


def _matrix_starts(M):
    """Off-centre starts for a matrix game: x_0 proportional to 1..m, y_0 to n..1."""
    m, n = M.shape
    row, column = np.arange(1.0, m + 1.0), np.arange(float(n), 0.0, -1.0)
    return row / row.sum(), column / column.sum()


def _matrix_game(name):
    """The recipe ``name`` on the payoff matrix M = A against its :mod:`gamedyn.games.matrix.original` loop, whose
    steps are computed here from the stated formulas (not read from the recipe), from uniform and
    off-centre starts: the averages and every play."""

    def pairs(A, T):
        from gamedyn.games.matrix import original as original_games
        from gamedyn.paper.experiments.matrix_games import stated_hedge_steps, stated_optimistic_hedge_step

        M = A.toarray() if hasattr(A, "toarray") else np.asarray(A, dtype=np.float64)
        found = []
        for label, (row_start, column_start) in (("uniform", (None, None)), ("off-centre", _matrix_starts(M))):
            result = getattr(_recipes(), name)(M, T, row_start=row_start, column_start=column_start, record=True)
            if name == "hedge":
                path = original_games.hedge(M, T, *stated_hedge_steps(M, T), row_start, column_start, trajectory=True)
            elif name == "optimistic_hedge":
                eta = stated_optimistic_hedge_step(M)
                path = original_games.optimistic_hedge(M, T, eta, eta, row_start, column_start, trajectory=True)
            else:
                path = original_games.fictitious_play(M, T, row_start, column_start, trajectory=True)
            found += [(f"x_bar_T, {label} starts", result.row, path.row_average),
                      (f"y_bar_T, {label} starts", result.column, path.column_average),
                      (f"plays x_t, {label} starts", result.game.trace["w"], path.rows),
                      (f"plays y_t, {label} starts", result.game.trace["p"], path.columns)]
        return found

    return pairs


def _regret_matching_game(name):
    """The issue-18 recipe ``name`` (its defaults) on M = A against its :mod:`gamedyn.games.matrix.original_rm` loop:
    the averages and every play."""

    def pairs(A, T):
        from gamedyn.games.matrix import original_rm

        M = A.toarray() if hasattr(A, "toarray") else np.asarray(A, dtype=np.float64)
        result = getattr(_recipes(), name)(M, T, record=True)
        path = getattr(original_rm, name)(M, T, trajectory=True)
        return [("x_bar_T", result.row, path.row_average), ("y_bar_T", result.column, path.column_average),
                ("plays x_t", result.game.trace["w"], path.rows), ("plays y_t", result.game.trace["p"], path.columns)]

    return pairs


EQUIVALENCES = [
    Equivalence("Proposition 1", "smooth perceptron: v_{T-1} = w_bar_T, q_{T-1} = sum_t alpha_t p_t / S_T",
                _proposition1, ("smooth_perceptron",)),
    Equivalence("Proposition 1 (trajectory)", "v_t = w_bar_{t+1}, q_t = p_bar_{t+1}, q_mu_t(v_t) = p_{t+1} for every t",
                _proposition1_trajectory, ("smooth_perceptron",)),
    Equivalence("Proposition 2", "Ji et al., theta_{t-1} = t/(2(t+1)): v_T = 1/4 sum_t alpha_t w_t, q_T = p_T",
                _proposition2("wang"), ("accelerated_perceptron",)),
    Equivalence("Proposition 2 (theta = 1)", "Ji et al.'s theta = 1: v_T = 1/2 sum_t alpha_{t+1} w_t, q_T = p_T",
                _proposition2("ji"), ("accelerated_perceptron",)),
    Equivalence("Theorem 1", "Algorithms 1 and 2 play the same game: v^Ji_T = T(T+1)/8 v^SP_{T-1}",
                _theorem1, ("smooth_perceptron", "accelerated_perceptron")),
    Equivalence("Theorem 6", "NAG: s_T = 1/4 sum_t alpha_t w_t = T(T+1)/8 w_bar_T (not 2 w_bar_T)",
                _theorem6, ("nag_margin",)),
    Equivalence("Theorem 5 (Yu et al.)", "mirror prox: the plays are the half iterates; w_bar_T, p_bar_T agree",
                _yu, ("mirror_prox_perceptron",)),
    Equivalence("Frank-Wolfe (Abernethy & Wang 2017)", "FTL (y) vs best response (x), alpha_t = t, on the "
                "Fenchel game of ridge logistic loss: x_bar_T = Frank-Wolfe's x_T (c_t = 2/(t+1)) on 4 domains",
                _frank_wolfe, ("frank_wolfe",)),
    Equivalence("Accelerated gradient (Wang & Abernethy 2018)", "optimistic FTL (y) vs OMD shown y_t (x), alpha_t = t: "
                "x_bar_T = w_T of Nesterov's similar-triangles form, on R^d and a ball",
                _accelerated_gradient, ("accelerated_gradient",)),
    Equivalence("Heavy ball (Wang & Abernethy 2018)", "FTL (y) vs gradient descent shown y_t (x), alpha_t = t: "
                "x_bar_T = heavy ball with eta_t = 2 gamma t/(t+1), mu_t = (t-2)/(t+1)",
                _heavy_ball, ("heavy_ball",)),
    Equivalence("Theorem 7 (Algorithm 4)", "accelerated p-norm perceptron: the plays w_t, pi_t and w_bar_T, "
                "pi_bar_T equal Algorithm 4's closed-form loop (p = 2, 4)", _algorithm4, ("pnorm_perceptron",)),
    Equivalence("Hedge (Freund & Schapire 1999)", "Hedge vs Hedge on M = A, eta = sqrt(8 ln k/T)/r: every play and "
                "the averages equal original_games.hedge with the stated steps (uniform and off-centre starts)",
                _matrix_game("hedge"), ("hedge",)),
    Equivalence("Optimistic Hedge (Syrgkanis et al. 2015)", "optimistic Hedge on M = A, eta = 1/r: every play and the "
                "averages equal original_games.optimistic_hedge (uniform and off-centre starts)",
                _matrix_game("optimistic_hedge"), ("optimistic_hedge",)),
    Equivalence("Fictitious play (Brown 1951)", "FTL vs FTL with the prior belief on M = A: every play and the averages "
                "equal original_games.fictitious_play (uniform and off-centre starts)",
                _matrix_game("fictitious_play"), ("fictitious_play",)),
    Equivalence("Regret matching (Hart & Mas-Colell 2000)", "RM vs RM on M = A, simultaneous, uniform averaging: every "
                "play and the averages equal original_rm.regret_matching", _regret_matching_game("regret_matching"),
                ("regret_matching",)),
    Equivalence("RM+ (Tammelin 2014)", "RM+ vs RM+ on M = A, alternating (CFR+ order), linear averaging: every play and "
                "the averages equal original_rm.regret_matching_plus", _regret_matching_game("regret_matching_plus"),
                ("regret_matching_plus",)),
    Equivalence("PRM+ (Farina, Kroer & Sandholm 2021)", "PRM+ vs PRM+ on M = A, alternating, quadratic averaging: "
                "every play and the averages equal original_rm.predictive_regret_matching_plus",
                _regret_matching_game("predictive_regret_matching_plus"), ("predictive_regret_matching_plus",)),
    Equivalence("AdaHedge (de Rooij et al. 2014)", "AdaHedge vs AdaHedge on M = A: every play and the averages equal "
                "original_rm.ada_hedge (the paper's Figure 1 code)", _regret_matching_game("ada_hedge"), ("ada_hedge",)),
]
