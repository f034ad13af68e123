r"""``gamedyn reproduce``: every claim of both papers, measured, in one PASS/FAIL table.

Claims are data. :data:`CLAIMS` is a list of :class:`Claim` objects; each one's ``check`` takes a
:class:`Context` (the chosen :class:`Profile` plus a cache of data sets, oracles and runs that the
claims share) and returns a :class:`Measurement` ``(measured, bound, passed, detail)``. The command
line runs the selected claims, prints the table, writes ``report.md`` and the figures, and exits 1
when any claim fails. A test injects a broken claim by extending :data:`CLAIMS`.

Groups of claims (a name on the command line selects a group, a recipe or a paper reference):

* ``equivalences`` -- every :data:`gamedyn.paper.registry.EQUIVALENCES` entry: the largest relative error
  over several data sets and horizons T, against a 1e-10 tolerance (the matrix-game recipes play
  M = A against their :mod:`gamedyn.games.matrix.original` loops, run with the steps of the stated formulas);
* ``rates`` -- every inequality of Theorems 3-7 (:mod:`gamedyn.paper.rates`) over several T: the
  smallest slack (bound minus measurement, oriented so that >= 0 means the bound holds); and the
  regret bound of each issue-18 learner that can fail (RM, RM+, PRM+, AdaHedge: the largest measured
  R_T / stated bound on instances where it is nearly attained, :func:`gamedyn.paper.rates.learner_regret_bound`);
* ``iterations`` -- the iterations-vs-margin table (:mod:`gamedyn.paper.experiments.iterations`):
  fitted slopes, and every run within its theorem's iteration bound;
* ``logistic`` -- seed paper 2 (:mod:`gamedyn.logistic`), when importable: Theorem 3.3 (i) and (ii)
  for GD with schedule (7), strict monotonicity, Theorem 3.4 for Adaptive SGD and Theorem 3.5 (i)
  for Block Adaptive SGD;
* ``matrix games`` -- :mod:`gamedyn.paper.experiments.matrix_games`: Hedge's O(1/sqrt T) and optimistic
  Hedge's O(1/T) Nash gaps, each gap against the bound of the stated formula (not of the returned
  steps), on a game where that bound is nearly attained, with linprog's value certified;
* ``fenchel`` -- :mod:`gamedyn.paper.experiments.fenchel`: Frank-Wolfe's O(1/T) on the simplex (with the
  closed form on Jaggi's lower-bound instance) and accelerated gradient's O(1/T^2) (Nesterov's worst
  quadratic, a random quadratic, logistic loss, and Huber starts where the bound is nearly attained).
* ``soft margin`` -- :mod:`gamedyn.paper.experiments.soft_margin`: each margin recipe with ``nu`` (the
  p-player on the capped simplex) against its theorem with ``D_c = log(n c) + r log(r/c)`` in place of
  ``log n`` (the bound from the stated formula) and the soft margin from the exact QP, on non-separable data.
* ``extensive-form games`` -- :mod:`gamedyn.paper.experiments.efg`: cfr, cfr_plus, dcfr and pcfr_plus
  against their original-form loops on the built-in games (1e-10), CFR's and CFR+'s regret bounds, and
  CFR+'s certified bracket around Kuhn's and Leduc's exact values.

A rate row is only evidence if a plausible wrong algorithm fails it: ``benchmarks/mutants.py``
re-injects such algorithms and checks that the rows (and the tests) see each one.

Profiles: ``quick`` (a smoke run, well under 20 s), ``default`` and ``full`` (larger T, more data
sets, smaller margins). See :data:`PROFILES`. Each profile has wall-clock limits: a claim that runs
past ``claim_seconds`` is stopped and FAILs, and once the run has used ``total_seconds`` the
remaining claims FAIL unrun, so a broken (e.g. looping) recipe makes ``--quick`` fail within
about two minutes instead of running for ten.
"""

from __future__ import annotations

import contextlib
import math
import os
import signal
import textwrap
import threading
import time

import attrs
import numpy as np

from gamedyn.paper.claims import Claim, Measurement, Outcome

EQUIVALENCE_TOLERANCE = 1e-10
ACCELERATED_SLOPE_AT_MOST = 1.35
PERCEPTRON_SLOPE_AT_LEAST = 1.8
LOGISTIC_TOLERANCE = 1e-12
EXACT_FORMULA_TOLERANCE = 1e-10  # seed-2 replays, as the equivalences (measured: about 1e-14)
GD_REPLAY_STEPS = 2000
SGD_REPLAY_STEPS = 5000


# ------------------------------------------------------------------------------------- the data


@attrs.frozen
class Profile:
    """How much work each group of claims does.

    ``datasets``: ``(label, n, d, planted gamma, seed)`` for :func:`gamedyn.io.datasets.make_separable`;
    ``lp_datasets``: ``(label, n, d, p, planted gamma, seed)`` for ``make_separable_lp``.
    """

    name: str
    datasets: tuple
    lp_datasets: tuple
    equivalence_horizons: tuple
    rate_horizons: tuple
    iteration_margins: str  # name of a margin grid in gamedyn.paper.experiments.iterations
    gd_sets: tuple  # names of logistic data sets (see _logistic_data) and the GD horizon each
    sgd_eps: tuple
    sgd_seeds: int
    sgd_horizon: int
    block_targets: tuple
    block_deltas: tuple
    block_seeds: int
    block_horizon: int
    quick_figures: bool
    claim_seconds: float | None = None  # wall-clock limit of one claim (None: none)
    total_seconds: float | None = None  # wall-clock limit of the run: later claims FAIL unrun


_SMALL = (("n=20 d=5", 20, 5, 0.05, 0), ("n=50 d=10", 50, 10, 0.1, 1))
_MEDIUM = _SMALL + (("n=200 d=50", 200, 50, 0.02, 2),)
_LARGE = _MEDIUM + (("n=500 d=100", 500, 100, 0.01, 3), ("n=300 d=3", 300, 3, 0.005, 4))
_LP = (("lp n=100 d=30 p=4", 100, 30, 4.0, 0.05, 0),)

PROFILES = {
    "quick": Profile(
        name="quick", datasets=_SMALL, lp_datasets=_LP, equivalence_horizons=(1, 2, 3, 10),
        rate_horizons=(10, 100), iteration_margins="QUICK_MARGINS",
        gd_sets=(("pair gamma=0.2", 2000), ("n=200 d=2", 2000)), sgd_eps=(1e-2, 1e-4), sgd_seeds=3,
        sgd_horizon=5000, block_targets=(1e-2,), block_deltas=(0.5,), block_seeds=3, block_horizon=5000,
        quick_figures=True, claim_seconds=30.0, total_seconds=120.0,
    ),
    "default": Profile(
        name="default", datasets=_MEDIUM, lp_datasets=_LP, equivalence_horizons=(1, 2, 3, 10, 100),
        rate_horizons=(1, 10, 100, 1000), iteration_margins="DEFAULT_MARGINS",
        gd_sets=(("pair gamma=0.2", 20000), ("n=200 d=2", 20000)), sgd_eps=(1e-2, 1e-4, 1e-8),
        sgd_seeds=5, sgd_horizon=20000, block_targets=(1e-2, 1e-3), block_deltas=(0.5, 0.1), block_seeds=5,
        block_horizon=20000, quick_figures=False, claim_seconds=300.0, total_seconds=900.0,
    ),
    "full": Profile(
        name="full", datasets=_LARGE, lp_datasets=_LP + (("lp n=300 d=60 p=4", 300, 60, 4.0, 0.02, 1),),
        equivalence_horizons=(1, 2, 3, 10, 100, 1000), rate_horizons=(1, 2, 3, 10, 100, 1000, 3000),
        iteration_margins="FULL_MARGINS",
        gd_sets=(("pair gamma=0.2", 100000), ("n=200 d=2", 100000), ("fig1 n=1000 d=10", 50000)),
        sgd_eps=(1e-2, 1e-4, 1e-8, 1e-16), sgd_seeds=10, sgd_horizon=40000, block_targets=(1e-2, 1e-3),
        block_deltas=(0.5, 0.1), block_seeds=10, block_horizon=40000, quick_figures=False,
        claim_seconds=1800.0, total_seconds=None,
    ),
}


class Context:
    """The profile and a cache shared by the claims of one run (data sets, oracles, runs, tables)."""

    def __init__(self, profile: Profile):
        self.profile = profile
        self._cache: dict = {}

    def cached(self, key, compute):
        """``compute()`` once per ``key`` and run."""
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    def has(self, key) -> bool:
        """Whether ``key`` has been computed (and cached) already."""
        return key in self._cache

    def datasets(self) -> dict:
        """label -> signed rows, for the l2 data sets of the profile."""
        from gamedyn.io.datasets import make_separable, signed_rows

        return self.cached("datasets", lambda: {
            label: signed_rows(*make_separable(n, d, gamma, seed)) for label, n, d, gamma, seed in self.profile.datasets})

    def lp_datasets(self) -> dict:
        """label -> (signed rows, p), for the l_p data sets of the profile."""
        from gamedyn.io.datasets import make_separable_lp, signed_rows

        return self.cached("lp_datasets", lambda: {
            label: (signed_rows(*make_separable_lp(n, d, p, gamma, seed)), p)
            for label, n, d, p, gamma, seed in self.profile.lp_datasets})

    def oracle(self, label: str, q: float = 2.0):
        """The certified max margin (``q = 2``) or q-norm bracket of a profile data set."""
        from gamedyn.certify.margins import max_margin, max_margin_q

        def compute():
            if q == 2.0 and label in self.datasets():
                return max_margin(self.datasets()[label])
            A = self.datasets()[label] if label in self.datasets() else self.lp_datasets()[label][0]
            return max_margin_q(A, q)

        return self.cached(("oracle", label, q), compute)

    def iteration_table(self):
        """The iterations table of the profile's margins (computed once, then cached)."""
        from gamedyn.paper.experiments import iterations

        margins = getattr(iterations, self.profile.iteration_margins, iterations.DEFAULT_MARGINS)
        return self.cached("iterations", lambda: iterations.iterations_to_separation(margins))


# ------------------------------------------------------------------------------- equivalences


def _equivalence_check(equivalence):
    def check(context: Context) -> Measurement:
        worst, where = -1.0, ""
        for label, A in context.datasets().items():
            for T in context.profile.equivalence_horizons:
                for pair, error in equivalence.errors(A, T).items():
                    if not error <= worst:  # NaN counts as the worst
                        worst, where = error, f"{pair}; data {label}, T = {T}"
        return Measurement(worst, EQUIVALENCE_TOLERANCE, bool(worst <= EQUIVALENCE_TOLERANCE), f"worst: {where}")

    return check


def equivalence_claims() -> list:
    """The claims that each recipe equals its original algorithm (from the registry's equivalences)."""
    from gamedyn.paper.registry import EQUIVALENCES

    return [Claim(equivalence.claim, equivalence.statement, "equivalences",
                  (*equivalence.recipes, equivalence.claim.split(" (")[0]),
                  "max rel err", "<=", _equivalence_check(equivalence))
            for equivalence in EQUIVALENCES]


# ------------------------------------------------------------------------------------ rates

# (theorem, quantity as gamedyn.paper.rates names it, the paper's statement, recipe)
_RATE_INEQUALITIES = (
    ("3", "R_w", "R_w <= 2 sum_t ||p_t - p_{t-1}||_1^2", "smooth_perceptron"),
    ("3", "R_p", "R_p <= 4 log n - 2 sum_t ||p_t - p_{t-1}||_1^2", "smooth_perceptron"),
    ("3", "m(w_bar_T)", "m(w_bar_T) >= gamma^2/2 - 8 log n / (T(T+1))", "smooth_perceptron"),
    ("4", "R_w", "R_w <= 2 sum_t ||p_t - p_{t-1}||_1^2", "accelerated_perceptron"),
    ("4", "R_p", "R_p <= 4 log n - 2 sum_t ||p_t - p_{t-1}||_1^2", "accelerated_perceptron"),
    ("4", "normalised margin of v_T", "min_i (A v_T)_i / ||v_T|| >= gamma - 8 log n / (gamma T(T+1))",
     "accelerated_perceptron"),
    ("5", "eta_w eta_p", "the recipe's default steps meet Theorem 5's condition eta_w eta_p <= 1",
     "mirror_prox_perceptron"),
    ("5", "R_w + R_p", "R_w + R_p <= 1/(2 eta_w) + log n / eta_p (= sqrt(2 log n)), the recipe's steps",
     "mirror_prox_perceptron"),
    ("5", "min_i (A w_bar_T)_i", "min_i (A w_bar_T)_i >= gamma - sqrt(2 log n) / T", "mirror_prox_perceptron"),
    ("6", "R_w + R_p", "R_w + R_p <= 4 log n + 1", "nag_margin"),
    ("6", "m(w_bar_T)", "m(w_bar_T) >= gamma^2/2 - (8 log n + 2) / (T(T+1))", "nag_margin"),
    ("6", "normalised margin of s_T", "min_i (A s_T)_i / ||s_T|| >= gamma - (8 log n + 2) / (gamma T(T+1))",
     "nag_margin"),
    ("7", "eta_w eta_p", "the recipe's steps meet Theorem 7's condition eta_p <= 1/eta_w", "pnorm_perceptron"),
    ("7", "R_w(u) + R_p", "R_w(u) + R_p <= R_q(u)/eta_w + eta_w log n, u the q-norm max-margin direction",
     "pnorm_perceptron"),
    ("7", "max_u R_w(u) + R_p", "max over ||u||_q <= 1 of R_w(u) + R_p <= sqrt(2(p-1) log n) (measured: "
     "sum_t h_t(w_t) + ||A^T sum_t pi_t||_p)", "pnorm_perceptron"),
    ("7", "min_i (A w_bar_T)_i", "min_i (A w_bar_T)_i >= gamma_q - sqrt(2(p-1) log n) / T", "pnorm_perceptron"),
)


def _rate_runs(context: Context, theorem: str) -> list:
    """Every RateCheck of one theorem over the profile's data sets and horizons, with (data, T)."""
    from gamedyn.paper import rates

    def compute():
        checks = []
        for T in context.profile.rate_horizons:
            if theorem == "7":  # the l_p data with their p, and the l2 data with p = 2
                cases = [(label, A, p) for label, (A, p) in context.lp_datasets().items()]
                cases += [(label, A, 2.0) for label, A in context.datasets().items()]
                for label, A, p in cases:
                    oracle = context.oracle(label, q=p / (p - 1))
                    checks += [(check, f"data {label}, p = {p:g}, T = {T}") for check in rates.theorem7(A, T, p, oracle=oracle)]
            else:
                function = getattr(rates, f"theorem{theorem}")
                for label, A in context.datasets().items():
                    checks += [(check, f"data {label}, T = {T}") for check in function(A, T, oracle=context.oracle(label))]
        return checks

    return context.cached(("rates", theorem), compute)


def _rate_check(theorem: str, quantity: str):
    def check(context: Context) -> Measurement:
        found = [(rate, where) for rate, where in _rate_runs(context, theorem) if rate.quantity == quantity]
        if not found:
            return Measurement(math.nan, 0.0, False, f"gamedyn.paper.rates.theorem{theorem} reported no quantity {quantity!r}")
        rate, where = min(found, key=lambda item: item[0].slack)
        passed = all(item.holds for item, _ in found)
        return Measurement(rate.slack, 0.0, passed,
                           f"tightest: {where}: measured {rate.measured:.6g} {rate.relation} bound {rate.bound:.6g}")

    return check


def rate_claims() -> list:
    """The claims that each theorem's rate holds on the data (minimum slack >= 0)."""
    return [Claim(f"Theorem {theorem}: {quantity}", statement, "rates", (recipe, f"Theorem {theorem}"),
                  "min slack", ">=", _rate_check(theorem, quantity))
            for theorem, quantity, statement, recipe in _RATE_INEQUALITIES]


# (learner as gamedyn.paper.rates names it, recipe, reference)
_LEARNER_RATES = (
    ("RM", "regret_matching", "Hart & Mas-Colell 2000"),
    ("RM+", "regret_matching_plus", "Tammelin 2014"),
    ("PRM+", "predictive_regret_matching_plus", "Farina, Kroer & Sandholm 2021"),
    ("AdaHedge", "ada_hedge", "de Rooij et al. 2014"),
)


def _learner_rate_check(kind: str):
    """The largest R_T / bound of one learner over :data:`gamedyn.paper.rates.REGRET_INSTANCES` and the
    profile's horizons (at most 1: the bound holds; about 0.7 on ``flip`` for RM and RM+)."""

    def check(context: Context) -> Measurement:
        from gamedyn.paper import rates

        worst, where, holds = -math.inf, "", True
        for name in rates.REGRET_INSTANCES:
            for T in context.profile.rate_horizons:
                found = rates.learner_regret_bound(kind, rates.regret_instance(name, T))
                holds = holds and found.holds
                ratio = found.measured / found.bound
                if ratio > worst:
                    worst, where = ratio, f"{name}, T = {T}: measured R_T {found.measured:.6g} <= bound {found.bound:.6g}"
        return Measurement(worst, 1.0, bool(holds), f"tightest: {where}")

    return check


def learner_rate_claims() -> list:
    """A rate row per issue-18 learner whose stated regret bound can fail (RM, RM+, PRM+, AdaHedge)."""
    from gamedyn.paper.rates import LEARNER_BOUNDS

    return [Claim(f"{kind}: regret bound", f"{kind} against fixed utilities (flip: K = 2, u_t = (-1)^(t+1) (-1, 1); "
                  f"cycle: K = 5, u_t = e_(t mod 5)): {LEARNER_BOUNDS[kind]}", "rates", (recipe, reference),
                  "max R_T/bound", "<=", _learner_rate_check(kind))
            for kind, recipe, reference in _LEARNER_RATES]


# ------------------------------------------------------------------------------- iterations

def _slope_check(family: str, kind: str, at_most: float | None = None, at_least: float | None = None):
    """The fitted slopes of the ``family`` rows of ``kind`` ("recipe": game rounds, "original": updates)."""
    threshold = at_most if at_most is not None else at_least
    if threshold is None:
        raise ValueError("a slope check needs at_most= or at_least=.")

    def check(context: Context) -> Measurement:
        table = context.iteration_table()
        chosen = {row.algorithm for row in table.rows if row.family == family and row.kind == kind}
        slopes = {name: slope for (fam, name), slope in table.slopes.items() if fam == family and name in chosen}
        if not slopes:
            return Measurement(math.nan, threshold, False,
                               f"no {kind} rows in the {family!r} family of the iterations table")
        counts = [row.iterations for row in table.rows if row.family == family and row.algorithm in chosen]
        note = ("; vacuous here: 1 round at every margin (the first play, from the uniform p_0, already separates)"
                if counts and all(count == 1 for count in counts) else "")
        listing = ", ".join(f"{name} {slope:.2f}" for name, slope in slopes.items())
        if at_most is not None:
            name, slope = max(slopes.items(), key=lambda item: item[1])
            return Measurement(slope, threshold, bool(slope <= threshold), f"slopes: {listing}{note}")
        name, slope = min(slopes.items(), key=lambda item: item[1])
        return Measurement(slope, threshold, bool(slope >= threshold), f"slopes: {listing}")

    return check


def _theorem7_acceleration(context: Context) -> Measurement:
    """The accelerated p-norm recipe's slope on data hard for the baseline p-norm perceptron.

    Both run on the perceptron-hard family at p = 2 (where the baseline needs ~ 1/gamma^2 updates);
    the row fails when the recipe's slope exceeds the acceleration limit, and also when the
    baseline's slope is below the hardness limit (then the data would show nothing).
    """
    from gamedyn.paper.experiments.iterations import HARD_PNORM

    slopes = {name: slope for (family, name), slope in context.iteration_table().slopes.items() if family == HARD_PNORM}
    baseline, recipe = slopes.get("p-norm perceptron p=2", math.nan), slopes.get("pnorm_perceptron p=2", math.nan)
    lp = {name: slope for (family, name), slope in context.iteration_table().slopes.items() if family == "lp"}
    hard = baseline >= PERCEPTRON_SLOPE_AT_LEAST
    listing = ", ".join(f"{name} {slope:.2f}" for name, slope in lp.items())
    detail = (f"recipe {recipe:.2f}, baseline p-norm perceptron {baseline:.2f} (must be >= "
              f"{PERCEPTRON_SLOPE_AT_LEAST}: data hard for the baseline); for reference, l_p data p = 4: {listing}")
    if not hard:
        detail = "the data are not hard for the baseline, the row shows nothing; " + detail
    return Measurement(recipe, ACCELERATED_SLOPE_AT_MOST, bool(hard and recipe <= ACCELERATED_SLOPE_AT_MOST), detail)


def _iteration_bound_check(context: Context) -> Measurement:
    table = context.iteration_table()
    worst, where, missing = 0.0, "", []
    for row in table.rows:
        bound = row.sufficient_rounds  # declared by the recipe / original (Novikoff, Gentile, Thms 4-7)
        if bound is None:
            continue
        if row.iterations is None:
            missing.append(f"{row.algorithm} at gamma = {row.gamma:.3g}")
            continue
        if row.iterations / bound > worst:
            worst, where = row.iterations / bound, f"{row.algorithm} at gamma = {row.gamma:.3g}: {row.iterations} <= {bound:.4g}"
    if missing:
        return Measurement(math.inf, 1.0, False, "never separated within the cap: " + ", ".join(missing))
    return Measurement(worst, 1.0, bool(worst <= 1.0), f"closest to its bound: {where}")


def iteration_claims() -> list:
    """The claims on the iterations to separate (Novikoff's 1/gamma^2 and the accelerated 1/gamma)."""
    return [
        Claim("Novikoff is tight", "perceptron: iterations ~ 1/gamma^2 on the perceptron-hard data (slope ~ 2)",
              "iterations", ("perceptron", "Novikoff"), "slope", ">=",
              _slope_check("hard", "original", at_least=PERCEPTRON_SLOPE_AT_LEAST)),
        Claim("Acceleration (Thms 4-6)", "accelerated recipes: iterations ~ sqrt(log n)/gamma (slope ~ 1), hard data",
              "iterations", ("smooth_perceptron", "accelerated_perceptron", "mirror_prox_perceptron", "nag_margin"),
              "max slope", "<=", _slope_check("hard", kind="recipe", at_most=ACCELERATED_SLOPE_AT_MOST)),
        Claim("Acceleration (Thm 7)", "accelerated p-norm (p = 2): iterations ~ sqrt((p-1) log n)/gamma (slope ~ 1) "
              "on data where the p-norm perceptron needs ~ 1/gamma^2 (slope >= 1.8)", "iterations",
              ("pnorm_perceptron", "Theorem 7"), "slope", "<=", _theorem7_acceleration),
        Claim("Iteration bounds", "every run separates within its theorem's bound: Novikoff 1/gamma^2, "
              "(p-1)/gamma_q^2, Thms 4-7", "iterations", ("perceptron",), "max iters/bound", "<=", _iteration_bound_check),
    ]


# --------------------------------------------------------------------------------- logistic


def _logistic_data(name: str):
    from gamedyn.io.datasets import make_separable, signed_rows, symmetric_pair

    if name == "pair gamma=0.2":
        return signed_rows(*symmetric_pair(0.2))
    if name == "n=200 d=2":
        return signed_rows(*make_separable(200, 2, 0.1, 0))
    if name == "fig1 n=1000 d=10":
        return signed_rows(*make_separable(1000, 10, 0.3, 4))
    if name == "block n=20 d=5":
        return signed_rows(*make_separable(20, 5, 0.3, 7))
    raise ValueError(f"unknown logistic data set {name!r}")


def _gd_runs(context: Context) -> list:
    """(label, gamma, schedule, GD result) for each GD data set of the profile."""
    import gamedyn.logistic as logistic
    from gamedyn.certify.margins import max_margin

    def compute():
        runs = []
        for name, T in context.profile.gd_sets:
            A = _logistic_data(name)
            gamma = max_margin(A).gamma
            schedule = logistic.IncreasingSchedule(gamma)
            runs.append((f"{name}, T = {T}", gamma, schedule, logistic.gd(A, T, schedule)))
        return runs

    return context.cached("gd", compute)


def _largest_over_gd_runs(context: Context, excess_of) -> tuple:
    """Largest entry of ``excess_of(gamma, schedule, result) -> (values, times)`` over every GD run."""
    worst, where = -math.inf, ""
    for label, gamma, schedule, result in _gd_runs(context):
        values, times = excess_of(gamma, schedule, result)
        index = int(np.argmax(values))
        if values[index] > worst:
            worst, where = float(values[index]), f"{label}, at t = {times[index]}"
    return worst, f"largest: {where}"


def _theorem_3_3_i(context: Context) -> Measurement:
    from gamedyn.logistic import theorem_3_3_i_log

    def excess(gamma, schedule, result):  # ln(L(w_t) eta_t), t = 1..T (t = 0 is an equality: L(0) eta_0 = 1)
        T = len(result.log_loss) - 1
        return result.log_loss[1:] - theorem_3_3_i_log(schedule, T)[1:], np.arange(1, T + 1)

    worst, where = _largest_over_gd_runs(context, excess)
    return Measurement(worst, LOGISTIC_TOLERANCE, bool(worst <= LOGISTIC_TOLERANCE), where + " (t >= 1)")


def _theorem_3_3_ii(context: Context) -> Measurement:
    from gamedyn.logistic import theorem_3_3_ii_log

    def excess(gamma, schedule, result):  # ln(L(w_t) / bound_t), t = 1..T
        t = np.arange(1, len(result.log_loss))
        return result.log_loss[1:] - theorem_3_3_ii_log(gamma, t), t

    worst, where = _largest_over_gd_runs(context, excess)
    return Measurement(worst, LOGISTIC_TOLERANCE, bool(worst <= LOGISTIC_TOLERANCE), where)


def _strictly_decreasing(context: Context) -> Measurement:
    def excess(gamma, schedule, result):  # ln L(w_{t+1}) - ln L(w_t)
        return np.diff(result.log_loss), np.arange(1, len(result.log_loss))

    worst, where = _largest_over_gd_runs(context, excess)
    return Measurement(worst, 0.0, bool(worst < 0), where)


def _adaptive_sgd(context: Context) -> Measurement:
    from gamedyn.certify.margins import max_margin
    from gamedyn.logistic import adaptive_sgd, theorem_3_4

    profile = context.profile
    A = _logistic_data("n=200 d=2")
    n, gamma = A.shape[0], max_margin(A).gamma
    worst, where = 0.0, ""
    for eps in profile.sgd_eps:
        hits = [adaptive_sgd(A, profile.sgd_horizon, eps, seed=seed, record=np.array([0])).hitting_time
                for seed in range(profile.sgd_seeds)]
        bound = theorem_3_4(n, gamma, eps)
        reached = [hit for hit in hits if hit is not None]
        if len(reached) < len(hits):
            return Measurement(math.inf, 1.0, False, f"eps = {eps:g}: a seed did not reach eps within T = "
                               f"{profile.sgd_horizon} (bound {bound:.3g}); inconclusive")
        ratio = float(np.mean(reached)) / bound
        if ratio > worst:
            worst, where = ratio, f"eps = {eps:g}: mean tau {np.mean(reached):.0f} vs bound {bound:.3g}"
    return Measurement(worst, 1.0, bool(worst <= 1.0),
                       f"{profile.sgd_seeds} seeds, data n=200 d=2; largest: {where}")


def _block_sgd(context: Context) -> Measurement:
    from gamedyn.certify.margins import max_margin
    from gamedyn.logistic import block_adaptive_sgd, theorem_3_5_horizon

    profile = context.profile
    A = _logistic_data("block n=20 d=5")
    n, gamma = A.shape[0], max_margin(A).gamma
    worst, where = 0.0, ""
    for delta in profile.block_deltas:
        for target in profile.block_targets:
            _, horizon = theorem_3_5_horizon(n, gamma, 0.5, delta, target)
            T = min(horizon, profile.block_horizon)
            for seed in range(profile.block_seeds):
                hit = block_adaptive_sgd(A, T, 0.5, delta, gamma, seed=seed, target=target,
                                         record=np.array([0])).hitting_time
                if hit is None:
                    return Measurement(math.inf, 1.0, False, f"delta = {delta}, eps = {target:g}, seed {seed}: not "
                                       f"reached within T = {T} (s_(k+1) = {horizon}); inconclusive")
                if hit / horizon > worst:
                    worst, where = hit / horizon, f"delta = {delta}, eps = {target:g}: tau {hit} vs s_(k+1) = {horizon}"
    return Measurement(worst, 1.0, bool(worst <= 1.0), f"{profile.block_seeds} seeds, eps_0 = 0.5; largest: {where}")


def schedule_by_the_formula(gamma: float, T: int, f0: float = 1.0, w0_norm: float = 0.0):
    """Schedule (7) transcribed in the linear domain, independent of :class:`gamedyn.logistic.IncreasingSchedule`:
    ``eta_0 = 1/(ln 2 + ||w_0||)``, ``S_0 = gamma^2 eta_0``, ``D_t = max{2 F(w_0), ln^2 S_{t-1}}``,
    ``eta_t = S_{t-1} / (2 D_t)``, ``S_t = S_{t-1} + gamma^2 eta_t``. Returns ``(eta, S)`` for t = 0..T."""
    eta = np.empty(T + 1)
    S = np.empty(T + 1)
    eta[0] = 1.0 / (math.log(2.0) + w0_norm)
    S[0] = gamma**2 * eta[0]
    for t in range(1, T + 1):
        D = max(2.0 * f0, math.log(S[t - 1]) ** 2)
        eta[t] = S[t - 1] / (2.0 * D)
        S[t] = S[t - 1] + gamma**2 * eta[t]
    return eta, S


def _largest_relative_error(values, references) -> float:
    values, references = np.asarray(values, dtype=np.float64), np.asarray(references, dtype=np.float64)
    return float(np.max(np.abs(values - references) / np.abs(references)))


def _schedule_formula(context: Context) -> Measurement:
    worst, where = -math.inf, ""
    for label, gamma, schedule, result in _gd_runs(context):
        T = len(result.log_eta)
        log_eta, log_S = schedule.compute(T)
        eta, S = schedule_by_the_formula(gamma, T)
        for name, value, reference in (("eta_t", np.exp(log_eta), eta), ("S_t", np.exp(log_S), S)):
            error = _largest_relative_error(value, reference)
            if not error <= worst:
                worst, where = error, f"{name}; {label}"
    return Measurement(worst, EXACT_FORMULA_TOLERANCE, bool(worst <= EXACT_FORMULA_TOLERANCE), f"largest: {where}")


def _gd_formula(context: Context) -> Measurement:
    """GD (6) with schedule (7), replayed in plain numpy: ``w += (eta_t / n) sum_i sigma(-m_i) z_i``."""
    from scipy.special import expit

    from gamedyn.logistic import gd

    worst, where = -math.inf, ""
    for (name, _), (label, gamma, schedule, result) in zip(context.profile.gd_sets, _gd_runs(context)):
        A = _logistic_data(name)
        n, d = A.shape
        T = min(len(result.log_eta), GD_REPLAY_STEPS)
        eta, _ = schedule_by_the_formula(gamma, T)
        w, log_losses = np.zeros(d), []
        for t in range(T + 1):
            m = A @ w
            log_losses.append(math.log(np.mean(np.logaddexp(0.0, -m))))
            if t < T:
                w = w + (eta[t] / n) * (A.T @ expit(-m))
        run = gd(A, T, schedule)
        for quantity, error in (("w_T", float(np.linalg.norm(run.w - w) / np.linalg.norm(w))),
                                ("ln L(w_t)", float(np.max(np.abs(run.log_loss - np.array(log_losses)))))):
            if not error <= worst:
                worst, where = error, f"{quantity}; {name}, T = {T}"
    return Measurement(worst, EXACT_FORMULA_TOLERANCE, bool(worst <= EXACT_FORMULA_TOLERANCE),
                       f"largest (relative for w_T, absolute for ln L): {where}")


def _sgd_formula(context: Context) -> Measurement:
    """Adaptive SGD (10)+(11) replayed in plain Python on the same index stream:
    ``eta_t = min{1/eps, 1/l(m_i)}``, ``w += eta_t sigma(-m_i) z_i``; both branches of the min must occur."""
    from scipy.special import expit

    from gamedyn.logistic import adaptive_sgd, sgd_indices

    A = _logistic_data("n=200 d=2")
    n, d = A.shape
    T = min(context.profile.sgd_horizon, SGD_REPLAY_STEPS)
    worst, where = -math.inf, ""
    for eps in context.profile.sgd_eps[:2]:
        indices = sgd_indices(n, T, 0)
        w, capped = np.zeros(d), 0
        for i in indices:
            m = float(A[i] @ w)
            loss = float(np.logaddexp(0.0, -m))
            capped += loss < eps
            w = w + min(1.0 / eps, 1.0 / loss) * float(expit(-m)) * A[i]
        if capped in (0, T):
            return Measurement(math.inf, EXACT_FORMULA_TOLERANCE, False, f"eps = {eps:g}: the replay used only one "
                               f"branch of min{{1/eps, 1/l}} ({capped} of {T} steps capped); it would test nothing")
        run = adaptive_sgd(A, T, eps, indices=indices, record=np.array([0]))
        error = float(np.linalg.norm(run.w - w) / np.linalg.norm(w))
        if not error <= worst:
            worst, where = error, f"eps = {eps:g}, T = {T}, {capped} of {T} steps at eta = 1/eps"
    return Measurement(worst, EXACT_FORMULA_TOLERANCE, bool(worst <= EXACT_FORMULA_TOLERANCE),
                       f"largest rel err of w_T: {where}")


def logistic_claims() -> list:
    """The claims of the separable-logistic paper (its step schedule and rates)."""
    return [
        Claim("Schedule (7)", "eta_t = S_{t-1}/(2 max{2F(w_0), ln^2 S_{t-1}}), S_t = S_{t-1} + gamma^2 eta_t, "
              "eta_0 = 1/ln 2: the library's steps equal the formula", "logistic", ("gd", "Theorem 3.3"),
              "max rel err", "<=", _schedule_formula),
        Claim("GD (6)", "w_{t+1} = w_t - eta_t grad L(w_t), L the mean loss: iterates and losses equal a plain "
              "replay", "logistic", ("gd", "Theorem 3.3"), "max err", "<=", _gd_formula),
        Claim("Adaptive SGD (10)+(11)", "w_{t+1} = w_t + min{1/eps, 1/l_i} sigma(-m_i) z_i: iterates equal a plain "
              "replay on the same indices", "logistic", ("adaptive_sgd", "Theorem 3.4"), "max rel err", "<=",
              _sgd_formula),
        Claim("Theorem 3.3 (i)", "GD with schedule (7): L(w_t) <= 1/eta_t for every t >= 1 (t = 0 is an "
              "equality)", "logistic", ("gd", "Theorem 3.3"), "max ln(L eta)", "<=", _theorem_3_3_i),
        Claim("Theorem 3.3 (i): monotone", "GD with schedule (7): L(w_{t+1}) <= L(w_t); measured: strictly, every t",
              "logistic",
              ("gd", "Theorem 3.3"), "max ln-L step", "<", _strictly_decreasing),
        Claim("Theorem 3.3 (ii)", "L(w_t) <= C t^(2/3) exp(-c t^(1/3)), c = (3 gamma^2/4)^(1/3)", "logistic",
              ("gd", "Theorem 3.3"), "max ln(L/bound)", "<=", _theorem_3_3_ii),
        Claim("Theorem 3.4", "Adaptive SGD: E[tau] <= (2n/gamma^2) ln^2(4n/eps)", "logistic",
              ("adaptive_sgd", "Theorem 3.4"), "mean tau/bound", "<=", _adaptive_sgd),
        Claim("Theorem 3.5 (i)", "Block Adaptive SGD: min_{t <= s_(k_eps+1)} L(w_t) <= eps", "logistic",
              ("block_adaptive_sgd", "Theorem 3.5"), "max tau/s_(k+1)", "<=", _block_sgd),
    ]


def logistic_available() -> str | None:
    """None when :mod:`gamedyn.logistic` imports, else the reason it does not."""
    try:
        import gamedyn.logistic  # noqa: F401
    except Exception as error:  # any failure to import means: skip its claims
        return f"{type(error).__name__}: {error}"
    return None


def build_claims() -> list:
    """Every claim: equivalences, rates, iterations, and the logistic ones when importable."""
    claims = equivalence_claims() + rate_claims() + learner_rate_claims() + iteration_claims()
    if logistic_available() is None:
        claims += logistic_claims()
    from gamedyn.paper.experiments.matrix_games import matrix_game_claims

    claims += matrix_game_claims()
    from gamedyn.paper.experiments.fenchel import fenchel_claims

    claims += fenchel_claims()
    from gamedyn.paper.experiments.soft_margin import soft_margin_claims

    claims += soft_margin_claims()
    from gamedyn.paper.experiments.efg import efg_claims

    claims += efg_claims()
    from gamedyn.paper.experiments.general_sum import general_sum_claims

    claims += general_sum_claims()  # issue 34
    from gamedyn.paper.experiments.efg_dilated import dilated_claims

    claims += dilated_claims()
    return claims


CLAIMS: list = build_claims()


# ------------------------------------------------------------------------------------- running


def select_claims(claims, names) -> list:
    """The claims matching any of ``names`` (all claims when ``names`` is empty)."""
    if not names:
        return list(claims)
    unknown = [name for name in names if not any(claim.matches(name) for claim in claims)]
    if unknown:
        valid = sorted({tag for claim in claims for tag in (claim.group, *claim.tags)}, key=str.lower)
        raise ValueError(f"no claim matches {', '.join(map(repr, unknown))}; valid names: {', '.join(valid)}.")
    return [claim for claim in claims if any(claim.matches(name) for name in names)]


class ClaimTimeout(Exception):
    """A claim ran past its profile's wall-clock limit (a broken or pathologically slow recipe)."""


@contextlib.contextmanager
def _time_limit(seconds: float | None):
    """Raise :class:`ClaimTimeout` inside the block after ``seconds`` of wall-clock time.

    Uses ``SIGALRM`` (POSIX, main thread); elsewhere the limit is checked after the claim returns.
    """
    usable = (seconds is not None and hasattr(signal, "setitimer")
              and threading.current_thread() is threading.main_thread())
    if not usable or seconds is None:
        yield
        return

    def expire(signum, frame):
        raise ClaimTimeout(f"ran past the profile's limit of {seconds:g} s per claim")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_claim(claim: Claim, context: Context) -> Outcome:
    """Run one check; an exception is a FAIL whose detail is the error (the table still prints).

    A check that runs past ``context.profile.claim_seconds`` is stopped and FAILs.
    """
    limit = context.profile.claim_seconds
    start = time.perf_counter()
    try:
        with _time_limit(limit):
            measurement = claim.check(context)
    except Exception as error:  # a crashing check must not hide the other claims
        measurement = Measurement(math.nan, math.nan, False, f"error: {type(error).__name__}: {error}")
    seconds = time.perf_counter() - start
    if limit is not None and seconds > limit and measurement.passed:
        measurement = Measurement(measurement.measured, measurement.bound, False,
                                  f"error: ClaimTimeout: took {seconds:.1f} s, past the profile's limit of {limit:g} s")
    return Outcome(claim, measurement, seconds)


def run_claims(claims, context: Context, progress=None, finished=None) -> list:
    """Run ``claims`` in order; ``progress(done, claim)`` is called before each one and ``finished(done,
    outcome)`` after it (``done`` counts the claims before it), so a caller can report every claim as it ends.

    Once the run has used ``context.profile.total_seconds``, the remaining claims FAIL without running,
    so a broken recipe makes a quick run fail fast instead of running for minutes.
    """
    outcomes, start, budget = [], time.perf_counter(), context.profile.total_seconds
    for done, claim in enumerate(claims):
        if progress is not None:
            progress(done, claim)
        if budget is not None and time.perf_counter() - start > budget:
            outcomes.append(Outcome(claim, Measurement(math.nan, math.nan, False, f"error: not run: the profile "
                                    f"'{context.profile.name}' spent its limit of {budget:g} s"), 0.0))
        else:
            outcomes.append(run_claim(claim, context))
        if finished is not None:
            finished(done, outcomes[-1])
    return outcomes


# ---------------------------------------------------------------------------------- the table

HEADERS = ("claim", "paper's statement", "measured", "bound / tolerance", "result")


def _number(value: float) -> str:
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return str(value)
    return f"{value:.3g}"


def table_rows(outcomes) -> list:
    """One tuple of cell strings per outcome, in :data:`HEADERS` order."""
    rows = []
    for outcome in outcomes:
        claim, measurement = outcome.claim, outcome.measurement
        measured = "error" if measurement.detail.startswith("error:") else f"{claim.measures} {_number(measurement.measured)}"
        bound = f"{claim.relation} {_number(measurement.bound)}"
        if claim.group == "rates":
            bound += " (tol 1e-12)"
        rows.append((claim.name, claim.statement, measured, bound, "PASS" if outcome.passed else "FAIL"))
    return rows


def format_table(outcomes, statement_width: int = 50, claim_width: int = 31) -> str:
    """The plain-text table: statements wrapped to ``statement_width`` characters."""
    rows = table_rows(outcomes)
    widths = [max([len(HEADERS[i])] + [len(row[i]) for row in rows]) for i in range(len(HEADERS))]
    widths[1] = min(widths[1], statement_width)
    widths[0] = min(widths[0], claim_width)

    def line(cells):
        return "  ".join(cell.ljust(width) for cell, width in zip(cells, widths)).rstrip()

    lines = [line(HEADERS), line(["-" * width for width in widths])]
    for row in rows:
        names = textwrap.wrap(row[0], widths[0]) or [""]
        statements = textwrap.wrap(row[1], widths[1]) or [""]
        for index in range(max(len(names), len(statements))):
            cells = [names[index] if index < len(names) else "", statements[index] if index < len(statements) else ""]
            cells += list(row[2:]) if index == 0 else ["", "", ""]
            lines.append(line(cells))
    return "\n".join(lines)


def format_markdown(outcomes) -> str:
    """The same table in Markdown, with a details column (worst case, or the error)."""

    def cell(text):
        return str(text).replace("|", "\\|")

    lines = ["| " + " | ".join(HEADERS + ("details",)) + " |", "|" + "---|" * (len(HEADERS) + 1)]
    for outcome, row in zip(outcomes, table_rows(outcomes)):
        lines.append("| " + " | ".join(cell(text) for text in row + (outcome.measurement.detail,)) + " |")
    return "\n".join(lines)


def write_report(path, outcomes, profile: Profile, context: Context, figures, seconds: float, notes=()) -> str:
    """``report.md``: the claims table, the iterations table (when computed), notes and figures."""
    passed = sum(outcome.passed for outcome in outcomes)
    parts = [
        "# gamedyn reproduce report", "",
        f"Profile `{profile.name}`: {len(outcomes)} claims, {passed} PASS, {len(outcomes) - passed} FAIL "
        f"({seconds:.1f} s for the claims).", "",
        "## Claims", "", format_markdown(outcomes), "",
    ]
    if context.has("iterations"):
        parts += ["## Iterations to a positive margin", "", "```", context.iteration_table().format(), "```", ""]
    if notes:
        parts += ["## Notes", ""] + [f"* {note}" for note in notes] + [""]
    if figures:
        parts += ["## Figures", ""] + [f"![{os.path.basename(path)}]({os.path.basename(path)})" for path in figures] + [""]
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("\n".join(parts))
    return str(path)


def write_figures(out_dir, quick: bool, iteration_table=None, progress=None) -> list:
    """All figures of both papers (seed 1: game_figures; seed 2: logistic_figures when importable).

    ``progress(path, seconds)`` is called after each figure is written (the command line prints a line).
    """
    from gamedyn.paper.experiments.game_figures import write_game_figures

    paths = write_game_figures(out_dir, quick=quick, iteration_table=iteration_table, progress=progress)
    if logistic_available() is None:
        from gamedyn.paper.experiments.logistic_figures import write_logistic_figures

        paths += write_logistic_figures(out_dir, quick=quick, progress=progress)
    return paths


def print_figure(path, seconds: float) -> None:
    """The command line's figure progress: one line per figure written, as it is written."""
    print(f"  {path} ({seconds:.1f} s)", flush=True)


def matplotlib_missing() -> bool:
    """True when matplotlib cannot be imported (the figures are then skipped)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return True
    return False
