"""Mutation gate (issues 11, 16): re-inject known wrong algorithms and wrong checks; the tests must fail,
and ``gamedyn reproduce`` must fail for every one that changes a published algorithm.

Usage (from the repository root; one BLAS thread, the machine is shared)::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/mutants.py              # every active mutant
    python benchmarks/mutants.py hedge-step-half fw-constant-weights                   # some of them
    python benchmarks/mutants.py --family "matrix games"                               # one family
    python benchmarks/mutants.py --list                                                # what there is
    python benchmarks/mutants.py --pending                                             # also the pending ones
    python benchmarks/mutants.py --jobs 2                                              # two mutants at a time

Each mutant is one or more exact textual edits of one source file (each original text must occur
exactly once: a pattern that no longer matches is a failure, exit 1, with the table saying which,
and no mutant runs until every chosen pattern matches). Everything runs in a *copy* of the tree in a
temporary folder (the git-tracked files plus the untracked files git does not ignore, or every file
when the source is not a git checkout), so the checkout is never touched. In the copy:

1. the tree's own imports are checked first: a Python started as the gate starts it (cwd and
   ``PYTHONPATH`` = the copy, no user site) must import ``gamedyn`` and ``gamedyn.recipes`` from
   the copy. An installed gamedyn, or an editable install of another checkout, that wins instead
   aborts the whole gate loudly (exit 1): its results would describe the other tree. The test run and
   the reproduce run repeat the check in their own process before they start;
2. a baseline: the unmutated copy must pass every chosen mutant's tests (and ``reproduce`` when one
   of them needs it), else no kill means anything (exit 1);
3. per mutant, its test files (``pytest -x``, killed = exit status 1, a failing test) and, for a
   mutant marked ``reproduce`` (it changes a published algorithm, or a reference that the rows
   read), ``gamedyn reproduce --no-figures`` in the default profile (killed = exit 1 with at least
   one FAIL row; the table names them).

Mutants marked ``pending`` touch files that other work is changing now; the default run checks
their patterns (a stale one is reported, not fatal) and skips them, saying so; ``--pending`` runs them.
Not collected by pytest (it lives in ``benchmarks/``); ``tests/test_mutants.py`` runs a few mutants
through it and checks its mechanics.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time

import attrs

ROOT = pathlib.Path(__file__).resolve().parent.parent
COMMAND_SECONDS = 1800  # one pytest or reproduce run; past it the command counts as an error
IMPORT_ERROR = 97  # exit status of a copy whose gamedyn or gamedyn.recipes came from elsewhere


@attrs.frozen
class Mutant:
    """One plausible wrong algorithm or wrong check.

    ``edits``: ``((original, mutated), ...)`` exact texts in ``path`` (each original once);
    ``tests``: pytest arguments (test files, ``-k`` / ``-m`` expressions) that must fail;
    ``reproduce``: it changes a published algorithm (or a reference that the reproduce rows read),
    so ``gamedyn reproduce`` must fail too; ``pending``: its file is being changed elsewhere.
    """

    name: str
    family: str
    path: str
    description: str
    edits: tuple
    tests: tuple
    reproduce: bool = False
    pending: bool = False


def _mutant(name, family, path, description, original, mutated=None, *, tests, reproduce=False, pending=False):
    """``original``/``mutated`` are one edit's texts, or ``original`` is a tuple of ``(original, mutated)`` edits."""
    edits = original if mutated is None else ((original, mutated),)
    return Mutant(name, family, path, description, tuple(edits), tuple(tests), reproduce, pending)


# ------------------------------------------------------------------------------------------- the mutants

_RECIPES = ("tests/test_recipes.py",)
_ORIGINAL = ("tests/test_original.py", "tests/test_recipes.py")
_FENCHEL = ("tests/test_fenchel.py",)
_MATRIX = ("tests/test_gate_matrix.py", "tests/test_matrix_games.py")
_LOGISTIC = ("tests/test_logistic.py",)
_ONE_PASS = ("tests/test_one_pass.py", "tests/test_distributed.py")
_BATCHED = ("tests/test_engine.py",)
_RATES = ("tests/test_gate_rates.py",)
_REGRET = ("tests/test_regret_bound_rows.py", "tests/test_regret_matching.py")
_VERTEX = ("tests/test_vertex_round.py", "tests/test_matrix_games.py")
_REPRODUCE = ("tests/test_reproduce.py", "-m", "not slow")
_CERTIFICATES = ("tests/test_certificates.py",)
_CHECKPOINTS = ("tests/test_checkpoints.py",)
_EXPLORATION = ("tests/test_exploration.py",)
_ESTIMATOR = ("tests/test_sklearn.py",)
_SEE = ("tests/test_weak_spots.py",)  # issue 31: the tests that see
_SOFT = ("tests/test_soft_margin_game.py",)
_TWO_HULLS = ("tests/test_two_hulls.py",)
_RESOLVED = ("tests/test_resolved_columns.py",)
_SQUARED = ("tests/test_squared_hinge.py",)
_PAIRS = ("tests/test_squared_hinge_pairs.py",)
_BACKEND_MATRIX = ("tests/test_backends.py", "-k", "matrix or solve_game")
_BACKEND_FENCHEL = ("tests/test_backends.py", "-k", "fenchel")
_BACKEND_CHECKPOINTS = ("tests/test_backends.py", "-k", "checkpoint")
_BACKEND_BATCHED = ("tests/test_backends.py", "-k", "batched")
_TREEPLEX = ("tests/test_treeplex.py", "tests/test_efg_games.py")
_COUNTERFACTUAL = ("tests/test_counterfactual.py", "tests/test_efg_recipes.py")
_EFG_CERTIFICATE = ("tests/test_efg_games.py", "tests/test_efg_recipes.py")
_EFG_RECIPES = ("tests/test_efg_recipes.py",)
_EFG_SOLVE = ("tests/test_efg_solve.py",)  # issue 33 (i33a)
_EFG_FILES = ("tests/test_efg_files.py",)  # issue 33 (i33a)
_DILATED = ("tests/test_dilated.py", "tests/test_dilated_recipes.py")
_EFG_EXPLORER = ("tests/test_efg_explorer.py",)  # issue 33 (i33b): explore_efg
_OPTIMISTIC_MMD = ("tests/test_optimistic_mmd.py",)  # issue 33: the decreasing schedule
_EFG_PEERS = ("tests/test_efg_peers.py",)  # issue 33 (i33b): the peers of benchmarks/efg.py

MUTANTS = (
    # ---- the margin recipes (recipes/*perceptron*, nag_margin): published algorithms
    _mutant("alg4-eta-p", "margin recipes", "recipes/pnorm_perceptron.py",
            "Algorithm 4 with eta_p = 2/eta_w (breaks Theorem 7's eta_p <= 1/eta_w)",
            "    eta_p = 1 / eta_w\n", "    eta_p = 2 / eta_w\n", tests=_RECIPES, reproduce=True),
    _mutant("alg4-no-root", "margin recipes", "recipes/pnorm_perceptron.py",
            "Algorithm 4's eta_w without its square root: 1/(2(q-1) log n)",
            "eta_w = 1 / np.sqrt(2 * (q - 1) * log_range)", "eta_w = 1 / (2 * (q - 1) * log_range)",
            tests=_RECIPES, reproduce=True),
    _mutant("alg4-linear-weights", "margin recipes", "recipes/pnorm_perceptron.py",
            "Algorithm 4 on weights alpha_t = t (the smooth perceptron's) instead of 1",
            'weights="constant", first="w", **run_options)',
            'weights="linear", first="w", **run_options)', tests=_RECIPES, reproduce=True),
    _mutant("smooth-eta-half", "margin recipes", "recipes/smooth_perceptron.py",
            "smooth perceptron with the p-player's eta = 1/2 (Ji et al.'s theta = 1 step) instead of 1/4",
            "p_learner=FTRLPlus(soft.entropy, eta=1 / 4),", "p_learner=FTRLPlus(soft.entropy, eta=1 / 2),",
            tests=_RECIPES, reproduce=True),
    _mutant("smooth-p-first", "margin recipes", "recipes/smooth_perceptron.py",
            "smooth perceptron with the p-player moving first (it cannot see its loss: FTRL+ refuses, or plays stale)",
            'first="w", **run_options)', 'first="p", **run_options)',
            tests=_RECIPES, reproduce=True),
    _mutant("ji-output-scale", "margin recipes", "recipes/accelerated_perceptron.py",
            "accelerated perceptron's v_T = 1/2 sum alpha_t w_t (Ji's theta = 1 scale) for theta = wang",
            '"wang": (1 / 4, None, None, 1 / 4),', '"wang": (1 / 4, None, None, 1 / 2),',
            tests=_RECIPES, reproduce=True),
    _mutant("ji-theta1-eta", "margin recipes", "recipes/accelerated_perceptron.py",
            "Ji et al.'s theta = 1 with the p-player's eta = 1/4 instead of 1/2",
            '"ji": (1 / 2, _next_round, _next_round, 1 / 2),', '"ji": (1 / 4, _next_round, _next_round, 1 / 2),',
            tests=_RECIPES, reproduce=True),
    _mutant("nag-w-first", "margin recipes", "recipes/nag_margin.py",
            "NAG with the w-player first (Algorithm 3 moves p first)",
            'first="p", **run_options)', 'first="w", **run_options)', tests=_RECIPES, reproduce=True),
    _mutant("nag-not-optimistic", "margin recipes", "recipes/nag_margin.py",
            "NAG's p-player without optimism (FTRL instead of OFTRL)",
            (("from gamedyn.core import OFTRL, FTRLPlus", "from gamedyn.core import FTRL, OFTRL, FTRLPlus"),
             ("p_learner=OFTRL(soft.entropy, eta=1 / 4),", "p_learner=FTRL(soft.entropy, eta=1 / 4),")),
            tests=_RECIPES, reproduce=True),
    _mutant("nag-two-w-bar", "margin recipes", "recipes/nag_margin.py",
            "NAG's output s_T = 2 w_bar_T (the seed's misprint) instead of 1/4 sum alpha_t w_t",
            "w=game.w_sum / 4,", "w=2 * game.w_average,", tests=_RECIPES, reproduce=True),
    _mutant("mp-eta-p-double", "margin recipes", "recipes/mirror_prox_perceptron.py",
            "mirror prox with eta_p = 2 sqrt(2 log n) (eta_w eta_p = 2 > 1, Theorem 5's condition broken)",
            "eta_p = np.sqrt(2 * log_range) if eta_p is None", "eta_p = 2 * np.sqrt(2 * log_range) if eta_p is None",
            tests=_RECIPES, reproduce=True),
    _mutant("mp-shadow-step", "margin recipes", "recipes/mirror_prox_perceptron.py",
            "mirror prox's w-player shadows the p-player with the w-player's own step",
            "hint=OpponentSecondary(MirrorDescent(simplex, eta_p), payoff, player=\"w\")",
            "hint=OpponentSecondary(MirrorDescent(simplex, eta_w), payoff, player=\"w\")",
            tests=_RECIPES, reproduce=True),
    # ---- the original loops (the published forms the recipes are checked against)
    _mutant("orig-sp-theta", "margin recipes", "gamedyn/games/margin/original.py",
            "Algorithm 1 with theta_t = 2/(t+2) instead of 2/(t+3)",
            "theta = 2.0 / (t + 3.0)", "theta = 2.0 / (t + 2.0)", tests=_ORIGINAL, reproduce=True),
    _mutant("orig-ji-step", "margin recipes", "gamedyn/games/margin/original.py",
            "Algorithm 2 with theta_(t-1) = t/(t+1) instead of t/(2(t+1))",
            'step = t / (2.0 * (t + 1.0)) if theta == "wang"', 'step = t / (t + 1.0) if theta == "wang"',
            tests=_ORIGINAL, reproduce=True),
    _mutant("orig-nag-s", "margin recipes", "gamedyn/games/margin/original.py",
            "Algorithm 3 with s_t = s_(t-1) + v_t/(t+1) instead of v_t/(2(t+1))",
            "s = s + v / (2.0 * (t + 1.0))", "s = s + v / (t + 1.0)", tests=_ORIGINAL, reproduce=True),
    # ---- learners and hints
    _mutant("ftrl-hint-stale", "margin recipes", "gamedyn/core/learners.py",
            "FTRL's optimistic hint psi_t stays f_0 (the inlined LastLoss update dropped) instead of f_(t-1)",
            "            self.hint_state = loss  # LastLoss.update, inlined",
            "            pass  # LastLoss.update, inlined", tests=("tests/test_learners.py",) + _RECIPES, reproduce=True),
    _mutant("lastloss-stale", "learners", "gamedyn/core/hints.py",
            "LastLoss.update keeps f_0 (optimistic OMD's default hint; FTRL inlines its own update): psi_t = f_0",
            "    def update(self, state, point, loss: Loss, weight: float):\n        return loss\n",
            "    def update(self, state, point, loss: Loss, weight: float):\n        return state\n",
            tests=("tests/test_learners.py",) + _RECIPES),
    _mutant("hint-unweighted-curvature", "margin recipes", "gamedyn/core/learners.py",
            "FTRL adds the hint's curvature without its weight alpha_t",
            "curvature = self.curvature_sum + weight * guess.curvature",
            "curvature = self.curvature_sum + guess.curvature", tests=("tests/test_learners.py",) + _RECIPES,
            reproduce=True),
    _mutant("omd-hint-unweighted", "fenchel", "gamedyn/core/learners.py",
            "optimistic OMD takes its hint's step without the weight alpha_t",
            "argmin(_times(weight, guess.gradient(state.secondary)), 0.0, _step_at(learner.eta, state.round),",
            "argmin(guess.gradient(state.secondary), 0.0, _step_at(learner.eta, state.round),", tests=_FENCHEL + ("tests/test_learners.py",),
            reproduce=True),
    # ---- Fenchel recipes and their original loops
    _mutant("fw-constant-weights", "fenchel", "recipes/frank_wolfe.py",
            "Frank-Wolfe as a game on weights alpha_t = 1 (step c_t = 1/t instead of 2/(t+1))",
            'weights="linear",', 'weights="constant",', tests=_FENCHEL, reproduce=True),
    _mutant("fw-last-vertex", "fenchel", "recipes/frank_wolfe.py",
            "Frank-Wolfe returning the last best response x_T instead of the average x_bar_T",
            "    return fenchel_result(objective, game)\n",
            "    return fenchel_result(objective, attrs.evolve(game, p_average=game.p_last))\nimport attrs\n",
            tests=_FENCHEL, reproduce=True),
    _mutant("ag-heavy-ball-pair", "fenchel", "recipes/accelerated_gradient.py",
            "accelerated gradient with FTL instead of optimistic FTL for y (the non-optimistic pair: heavy ball)",
            (("from gamedyn.core import OFTL, OMD, Ball, CurrentLoss, Reals, SquaredEuclidean",
              "from gamedyn.core import OFTL, OMD, Ball, CurrentLoss, FirstRoundLoss, FollowTheRegularizedLeader, Reals, "
              "SquaredEuclidean, Zero"),
             ("w_learner=OFTL(),", "w_learner=FollowTheRegularizedLeader(Zero(), 1.0, FirstRoundLoss()),")),
            tests=_FENCHEL, reproduce=True),
    _mutant("ag-step-eighth", "fenchel", "recipes/accelerated_gradient.py",
            "accelerated gradient's default step gamma = 1/(8L) instead of 1/(4L)",
            "return 1.0 / (4.0 * objective.smoothness)", "return 1.0 / (8.0 * objective.smoothness)",
            tests=_FENCHEL, reproduce=True),
    _mutant("ag-constant-weights", "fenchel", "recipes/accelerated_gradient.py",
            "accelerated gradient on weights alpha_t = 1 (an averaged, extrapolated gradient method)",
            '        weights="linear",', '        weights="constant",', tests=_FENCHEL, reproduce=True),
    _mutant("ofw-step", "fenchel", "gamedyn/games/fenchel/original.py",
            "the original Frank-Wolfe loop with c_t = 2/(t+2) (Jaggi's 2/(k+2) with k = t)",
            "c = 2.0 / (t + 1)", "c = 2.0 / (t + 2)", tests=_FENCHEL, reproduce=True),
    _mutant("ohb-momentum", "fenchel", "gamedyn/games/fenchel/original.py",
            "the original heavy-ball loop with mu_t = (t-1)/(t+1) instead of (t-2)/(t+1)",
            "(t - 2.0) / (t + 1)", "(t - 1.0) / (t + 1)", tests=_FENCHEL, reproduce=True),
    _mutant("firstround-stays", "fenchel", "gamedyn/core/hints.py",
            "FirstRoundLoss keeps predicting (becomes psi_t = f_(t-1): optimistic FTL in Frank-Wolfe), its declaration "
            "restated to match (guess = \"last\", what such a hint declares; the lean round reads it)",
            (("    def update(self, state, point, loss: Loss, weight: float):\n        return None\n\n\n"
              "@attrs.frozen\nclass CurrentLoss:",
              "    def update(self, state, point, loss: Loss, weight: float):\n        return loss\n\n\n"
              "@attrs.frozen\nclass CurrentLoss:"),
             ('    guess = "first"\n', '    guess = "last"\n')), tests=_FENCHEL, reproduce=True),
    # ---- matrix games: recipes and their original loops
    _mutant("hedge-step-half", "matrix games", "recipes/hedge.py",
            "Hedge with half the stated step (sqrt(2 ln k/T)/r)",
            "default_w, default_p = default_hedge_steps(M, T)",
            "default_w, default_p = (eta / 2 for eta in default_hedge_steps(M, T))",
            tests=_MATRIX, reproduce=True),
    _mutant("hedge-step-double", "matrix games", "recipes/hedge.py",
            "Hedge with twice the stated step (sqrt(32 ln k/T)/r)",
            "default_w, default_p = default_hedge_steps(M, T)",
            "default_w, default_p = (2 * eta for eta in default_hedge_steps(M, T))",
            tests=_MATRIX, reproduce=True),
    _mutant("hedge-linear-weights", "matrix games", "recipes/hedge.py",
            "Hedge vs Hedge on weights alpha_t = t",
            'weights="constant",', 'weights="linear",', tests=_MATRIX, reproduce=True),
    _mutant("ohedge-step-half", "matrix games", "recipes/optimistic_hedge.py",
            "optimistic Hedge with eta = 1/(2r) instead of 1/r",
            "else default_optimistic_hedge_step(M)\n", "else default_optimistic_hedge_step(M) / 2\n",
            tests=_MATRIX, reproduce=True),
    _mutant("ohedge-not-optimistic", "matrix games", "recipes/optimistic_hedge.py",
            "optimistic Hedge without optimism (plain Hedge with eta = 1/r)",
            (("from gamedyn.core import OFTRL, Entropy", "from gamedyn.core import FTRL, OFTRL, Entropy"),
             ("w_learner=OFTRL(Entropy(), eta_w, centre=row_start),", "w_learner=FTRL(Entropy(), eta_w, centre=row_start),"),
             ("p_learner=OFTRL(Entropy(), eta_p, centre=column_start),",
              "p_learner=FTRL(Entropy(), eta_p, centre=column_start),")),
            tests=_MATRIX, reproduce=True),
    _mutant("fp-no-prior", "matrix games", "recipes/fictitious_play.py",
            "fictitious play without the prior belief (round 1 plays vertex 0, not the best reply to y_0)",
            (("from gamedyn.core import FollowTheRegularizedLeader, Simplex, Zero",
              "from gamedyn.core import FollowTheRegularizedLeader, NoHint, Simplex, Zero"),
             ("FollowTheRegularizedLeader(Zero(Simplex()), 1.0, InitialBelief())",
              "FollowTheRegularizedLeader(Zero(Simplex()), 1.0, NoHint())")),
            tests=_MATRIX, reproduce=True),
    _mutant("og-hedge-sign", "matrix games", "gamedyn/games/matrix/original.py",
            "the original Hedge loop with the column player maximising (exponent sign flipped)",
            "y = _exponential_weights(y0, -eta_column * column_payoff)",
            "y = _exponential_weights(y0, eta_column * column_payoff)", tests=_MATRIX, reproduce=True),
    _mutant("og-fp-argmax", "matrix games", "gamedyn/games/matrix/original.py",
            "the original fictitious play with the column player's argmin replaced by argmax",
            "y[np.argmin(column_payoff + M.T @ x0)] = 1.0", "y[np.argmax(column_payoff + M.T @ x0)] = 1.0",
            tests=_MATRIX, reproduce=True),
    # ---- the regret-matching family and AdaHedge (issue 18): each breaks its learner's rate row
    _mutant("rm-argmax", "matrix games", "gamedyn/core/regret_matching.py",
            "RM and RM+ playing the argmax of the regrets (follow the leader on regrets) instead of [R]^+/||[R]^+||_1",
            "        return regret_matching_into(theta)  # the local rule, on one segment\n",
            "        if not self._predictive:\n"
            "            best = int(np.argmax(theta))\n"
            "            theta = np.zeros_like(theta)\n"
            "            theta[best] = 1.0 if self.regrets[best] > 0.0 else 0.0\n"
            "        return regret_matching_into(theta)  # the local rule, on one segment\n",
            tests=_REGRET, reproduce=True),
    _mutant("prm-argmax", "matrix games", "gamedyn/core/regret_matching.py",
            "PRM and PRM+ playing the argmax of the predicted regrets (predictive best response)",
            "            axpy(self.prediction, theta, weight)\n",
            "            axpy(self.prediction, theta, weight)\n"
            "            best = int(np.argmax(theta))\n"
            "            theta = np.zeros_like(theta) if theta[best] <= 0.0 else np.eye(theta.size)[best]\n",
            tests=_REGRET, reproduce=True),
    _mutant("rmplus-no-clip", "matrix games", "gamedyn/core/regret_matching.py",
            "RM+ without the '+' clip of the stored regrets (it is RM: its rate row holds, its equivalence rows fail)",
            "        np.maximum(regrets, 0.0, out=regrets)\n", "        pass\n",
            tests=_REGRET, reproduce=True),
    _mutant("adahedge-fixed-step", "matrix games", "gamedyn/core/adaptive.py",
            "AdaHedge with a fixed step eta = 1 (Hedge) instead of eta_t = ln K / Delta_(t-1)",
            "return math.inf if self.gap == 0.0 else self._log_size / self.gap", "return 1.0",
            tests=_REGRET, reproduce=True),
    # ---- vertex plays (issue 18): fictitious play's best responses read a column or row of A, not a product
    _mutant("vertex-read-wrong-side", "matrix games", "gamedyn/engine/payoffs.py",
            "the loss of the vertex e_i read as row i of A (a transposed index) instead of column i",
            "        column = A[:, i]\n", "        column = A[i, :] if A.shape[0] == A.shape[1] else A[:, i]\n",
            tests=_VERTEX),
    _mutant("vertex-value-transposed", "matrix games", "gamedyn/engine/payoffs.py",
            "the played value g(e_i, e_j) read as A_ij instead of A_ji (the regrets of fictitious play go wrong)",
            "        return float(A[j, i])\n", "        return float(A[i, j] if A.shape[0] == A.shape[1] else A[j, i])\n",
            tests=_VERTEX),
    # ---- the lean vertex round (fictitious play nobody watches): the watched round's operations, bit for bit
    _mutant("lean-vertex-largest-tie", "matrix games", "gamedyn/engine/rounds.py",
            "the lean vertex round breaking a tie of the row player's best responses to the largest index",
            "                i = w_index(hinted(Lw, hw, bw, alpha))\n                j = p_index(",
            "                i = len(Lw) - 1 - int(np.argmin(hinted(Lw, hw, bw, alpha)[::-1]))\n                j = p_index(",
            tests=_VERTEX),
    _mutant("lean-vertex-own-row", "matrix games", "gamedyn/engine/rounds.py",
            "the lean vertex round adding to the row player's sum the row of its own play i instead of the column player's j",
            "            w_loss = w_loss_at(j).linear if W is None else W[j]  # -A^T e_j\n",
            "            w_loss = w_loss_at(j).linear if W is None else W[i if len(W) == len(P) else j]  # -A^T e_j\n",
            tests=_VERTEX),
    _mutant("lean-vertex-no-prior", "matrix games", "gamedyn/engine/rounds.py",
            "the lean vertex round dropping the prior belief psi_t = f_0 from the sum it best-responds to",
            "            if h is None:\n                return L\n            if not is_python_float(weight)",
            "            if h is None or True:\n                return L\n            if not is_python_float(weight)",
            tests=_VERTEX),
    _mutant("adaptive-eta-no-sqrt", "matrix games", "gamedyn/core/learners.py",
            "eta=\"adaptive\" as c / sum ||l_s||^2 (AdaGrad's square root dropped) instead of c / sqrt(sum ||l_s||^2)",
            "            eta = self._adaptive_scale / math.sqrt(self.squared_norms)\n",
            "            eta = self._adaptive_scale / self.squared_norms\n",
            tests=("tests/test_adaptive_eta.py",)),
    # ---- logistic (seed 2)
    _mutant("schedule-f0", "logistic", "gamedyn/logistic.py",
            "schedule (7) with the text's misprinted F(w_0): D_t = max{F(w_0), ln^2 S_(t-1)}",
            '        two_f0 = 2.0 * self.f0\n        plus = self.variant == "lnplus"',
            '        two_f0 = self.f0\n        plus = self.variant == "lnplus"', tests=_LOGISTIC, reproduce=True),
    _mutant("schedule-half", "logistic", "gamedyn/logistic.py",
            "schedule (7) with the 1/2 dropped from eta_t = S_(t-1)/(2 D_t)",
            "log_eta = log_s - _LN2 - math.log(d)", "log_eta = log_s - math.log(d)", tests=_LOGISTIC, reproduce=True),
    _mutant("sgd-no-min", "logistic", "gamedyn/logistic.py",
            "Adaptive SGD's step without min{1/eps, 1/l_i} (eta_t = 1)",
            "c = math.exp(_scalar_log_sigmoid_neg(m) - max(log_eps_t, _scalar_log_loss(m)))",
            "c = math.exp(_scalar_log_sigmoid_neg(m))", tests=_LOGISTIC, reproduce=True),
    _mutant("sgd-no-eps", "logistic", "gamedyn/logistic.py",
            "Adaptive SGD's step without the 1/eps cap (eta_t = 1/l_i)",
            "c = math.exp(_scalar_log_sigmoid_neg(m) - max(log_eps_t, _scalar_log_loss(m)))",
            "c = math.exp(_scalar_log_sigmoid_neg(m) - _scalar_log_loss(m))", tests=_LOGISTIC, reproduce=True),
    _mutant("gd-sum", "logistic", "gamedyn/logistic.py",
            "GD on the sum of the losses instead of the mean",
            "w = w + AT @ np.exp((log_eta_t - log_n) + log_sig)", "w = w + AT @ np.exp(log_eta_t + log_sig)",
            tests=_LOGISTIC, reproduce=True),
    # ---- one-pass round (an implementation path: reproduce's small A never takes it)
    _mutant("op-logit-sign", "one-pass", "gamedyn/arrays/one_pass.py",
            "the one-pass softmax with the step's sign flipped (logits = +eta(...))",
            "        logits *= -eta\n", "        logits *= eta\n", tests=_ONE_PASS),
    _mutant("op-no-rescale", "one-pass", "gamedyn/arrays/one_pass.py",
            "the one-pass softmax keeps the earlier groups' sums when a later group raises the maximum",
            "shrink = math.exp(top - high)  # 0.0 for the first group", "shrink = 1.0 if top > -np.inf else 0.0",
            tests=_ONE_PASS),
    _mutant("op-merge-unscaled", "one-pass", "gamedyn/arrays/one_pass.py",
            "the blocks' log-sum-exp merge adds the blocks without e^(m_k - m)",
            "        scale = math.exp(high - top)\n", "        scale = 1.0\n", tests=_ONE_PASS),
    _mutant("op-leader-weight", "one-pass", "gamedyn/engine/rounds.py",
            "NAG's one-pass round predicts p_(t+1) with alpha_(t+1) alone instead of alpha_t + alpha_(t+1)",
            "p_weight_of(t) + p_weight_of(t + 1)", "p_weight_of(t + 1)", tests=_ONE_PASS),
    # ---- batched games
    _mutant("batch-transpose-labels", "batched", "gamedyn/arrays/batched.py",
            "one-vs-rest A_k^T p_k without the labels (X^T P instead of X^T (Y * P))",
            "product = self.batch.X.T @ (P if self.batch.labels is None else self.batch.labels * P)",
            "product = self.batch.X.T @ P", tests=_BATCHED),
    _mutant("batch-product-labels", "batched", "gamedyn/arrays/batched.py",
            "one-vs-rest A_k w_k without the labels",
            "            return product if self.labels is None else self.labels * product",
            "            return product", tests=_BATCHED),  # the dense rows' branch (issue 35 added it; the tests' X)
    # ---- the rate theorems as code (wrong checks: a looser bound)
    _mutant("rates-th3-path", "rates", "gamedyn/paper/rates.py",
            "Theorem 3's R_w bound 4 sum ||p_t - p_(t-1)||_1^2 instead of 2",
            'RateCheck("3", "R_w", _regret(run.game.w_regret), 2 * path, "<=")',
            'RateCheck("3", "R_w", _regret(run.game.w_regret), 4 * path, "<=")', tests=_RATES),
    _mutant("rates-th6-linear", "rates", "gamedyn/paper/rates.py",
            "Theorem 6's excess (8 log n + 2)/T instead of /(T(T+1))",
            "excess = (8 * np.log(n) + 2) / (T * (T + 1))", "excess = (8 * np.log(n) + 2) / T", tests=_RATES),
    _mutant("rates-th7-constant", "rates", "gamedyn/paper/rates.py",
            "Theorem 7's constant sqrt(2 p log n) instead of sqrt(2(p-1) log n)",
            "constant = np.sqrt(2 * (p - 1) * np.log(n))", "constant = np.sqrt(2 * p * np.log(n))", tests=_RATES),
    _mutant("rates-th5-regret", "rates", "gamedyn/paper/rates.py",
            "Theorem 5's regret bound 1/eta_w + log n/eta_p instead of 1/(2 eta_w) + log n/eta_p",
            "regret_bound = 1 / (2 * eta_w) + np.log(n) / eta_p", "regret_bound = 1 / eta_w + np.log(n) / eta_p",
            tests=_RATES),
    # ---- reproduce's own checks
    _mutant("repro-nan-equivalence", "reproduce", "gamedyn/paper/reproduce.py",
            "an equivalence whose error is NaN no longer counts as the worst (it would pass)",
            "if not error <= worst:  # NaN counts as the worst", "if error > worst:", tests=_REPRODUCE),
    # ---- pending: files other work is changing now (revalidate the patterns after it merges)
    _mutant("hedge-default-constant", "matrix games", "gamedyn/games/matrix/game.py",
            "Hedge's default steps sqrt(2 ln k/T)/r instead of sqrt(8 ln k/T)/r",
            (("np.sqrt(8 * _log_size(m) / T) / spread", "np.sqrt(2 * _log_size(m) / T) / spread"),
             ("np.sqrt(8 * _log_size(n) / T) / spread", "np.sqrt(2 * _log_size(n) / T) / spread")),
            tests=_MATRIX, reproduce=True),
    _mutant("hedge-bound-constant", "matrix games", "gamedyn/games/matrix/game.py",
            "hedge_gap_bound with eta T r^2/4 instead of /8 (a looser bound)",
            "(eta * spread) * (spread * T) / 8", "(eta * spread) * (spread * T) / 4", tests=_MATRIX),
    _mutant("ohedge-bound-constant", "matrix games", "gamedyn/games/matrix/game.py",
            "optimistic_hedge_gap_bound without the first round's 2 eta r^2 (a bound that can fail)",
            "(range_terms / eta + 2 * (eta * spread) * spread) / T", "(range_terms / eta) / T", tests=_MATRIX),
    _mutant("lp-column-side", "matrix games", "gamedyn/games/matrix/game.py",
            "linprog's minimax column strategy solved on M^T instead of -M^T (the maximiser's LP twice)",
            "_, column = _maximin(-matrix.T)", "_, column = _maximin(matrix.T)", tests=_MATRIX, reproduce=True,
            ),
    _mutant("cert-lower-unnormalised", "certificates", "gamedyn/certify/certificates.py",
            "the certified lower end min_i (A w)_i without the division by ||w||",
            "float(np.min(matvec(self.A, self._output_sum))) / norm", "float(np.min(matvec(self.A, self._output_sum)))",
            tests=_CERTIFICATES),
    _mutant("cert-gordan-loose", "certificates", "gamedyn/certify/gordan.py",
            "Gordan's proof accepts the support's solution when its entries are positive in floating point, "
            "without the verified error bound (a looser proof)",
            "    if not float(np.min(x)) > error:\n        return None",
            "    if not float(np.min(x)) > 0.0:\n        return None",
            tests=_CERTIFICATES + ("tests/test_false_certificates.py",)),
    _mutant("stops-infeasible-proves-anyway", "stops", "gamedyn/certify/stops.py",
            "infeasible(eps, prove=False) still asks for Gordan's proof (the estimator proves twice: the oracle's "
            "proof, then the run's)",
            '    return _Rule(f"infeasible({eps:g})", verdicts, {"confirm_infeasible": [eps]} if prove else {})\n',
            '    return _Rule(f"infeasible({eps:g})", verdicts, {"confirm_infeasible": [eps]})\n',
            tests=("tests/test_certificates.py", "tests/test_sklearn.py", "-k", "without_the_proof or sought_twice")),
    _mutant("stops-infeasible-lower", "stops", "gamedyn/certify/stops.py",
            "infeasible(eps) fires on the lower end L_t <= eps instead of the upper end U_t <= eps",
            "return _each(tracker.upper <= seen[1])", "return _each(tracker.lower <= seen[1])",
            tests=_CERTIFICATES),
    _mutant("stops-separated-zero", "stops", "gamedyn/certify/stops.py",
            "separated fires at a zero margin (L_t >= 0)",
            "return _each(_tracker(round_state).lower > 0)", "return _each(_tracker(round_state).lower >= 0)",
            tests=_CERTIFICATES),
    _mutant("ckpt-any-config", "checkpoints", "gamedyn/engine/checkpoints.py",
            "a checkpoint resumes when a fingerprint part differs (only a missing or extra part is refused)",
            "if differing or set(saved) != set(fingerprint_):", "if set(saved) != set(fingerprint_):",
            tests=_CHECKPOINTS),
    _mutant("explore-intercept", "explorer", "gamedyn/paper/exploration.py",
            "the fitted rate exponent reads the intercept of the log-log fit instead of its slope",
            "return float(np.polyfit(t, value, 1)[0])", "return float(np.polyfit(t, value, 1)[1])",
            tests=_EXPLORATION),
    _mutant("estimator-predict-flip", "estimator", "gamedyn/sklearn.py",
            "MarginClassifier.predict on a dask X gives classes_[1] where the score is negative (numpy input: "
            "scikit-learn's LinearClassifierMixin.predict)",
            "index = (scores > 0).astype(int) if scores.ndim == 1 else scores.argmax(axis=1)",
            "index = (scores < 0).astype(int) if scores.ndim == 1 else scores.argmax(axis=1)",
            tests=("tests/test_sklearn_dask.py",)),
    _mutant("estimator-intercept-scaling", "estimator", "gamedyn/sklearn.py",
            "intercept_ divided by intercept_scaling instead of multiplied",
            "self.intercept_ = (directions[:, -1] * float(self.intercept_scaling)",
            "self.intercept_ = (directions[:, -1] / float(self.intercept_scaling)", tests=_ESTIMATOR),
    # ---- the two-hull game (issue 29): the free bias as the distance between the classes' reduced hulls
    _mutant("two-hulls-bias-in-the-norm", "estimator", "gamedyn/sklearn.py",
            "fit_intercept=True with nu plays the one-hull game with the intercept as a feature (the bias in the norm)",
            "two_hulls = nu is not None and bool(self.fit_intercept) and not joint and not distributed \\\n",
            "two_hulls = False and nu is not None and bool(self.fit_intercept) and not joint and not distributed \\\n",
            tests=_TWO_HULLS),
    _mutant("two-hulls-one-hull", "estimator", "gamedyn/certify/dual.py",
            "one capped simplex over both classes' rows (mass not split one half per class)",
            """        P += other
        return P, t""", """        P += other
        return project_capped_columns(V, float(np.max(caps)) / 2, None if tau is None else tau[0])[0], t""",
            tests=_TWO_HULLS),
    _mutant("two-hulls-caps-swapped", "estimator", "gamedyn/sklearn.py",
            "each class's reduced hull takes the other class's cap",
            "    return TwoHulls.from_signs(signs, hull_caps(signs, nu))",
            "    return TwoHulls.from_signs(signs, hull_caps(signs, nu)[::-1])", tests=_TWO_HULLS),
    _mutant("two-hulls-bias-sign", "estimator", "gamedyn/sklearn.py",
            "the bias between the hulls' thresholds with its sign flipped",
            "        biases[k] = -0.5 * (top - bottom)", "        biases[k] = 0.5 * (top - bottom)", tests=_TWO_HULLS),
    # ---- the 2-norm soft margin with a free bias (issue 29): wrong games and wrong brackets
    _mutant("squared-hinge-bias-in-the-norm", "estimator", "gamedyn/certify/squared_hinge.py",
            "the bias penalised like w (LinearSVC's intercept) in the Newton path: not the free-bias L2-SVM",
            (("            gradient[dim] = weights.sum(axis=0)\n",
              "            gradient[dim] = weights.sum(axis=0) + V[dim]\n"),
             ("            H[dim, dim] = 2.0 * penalty * max(int(active.sum()), 1)\n",
              "            H[dim, dim] = 2.0 * penalty * max(int(active.sum()), 1) + 1.0\n"),
             ("                H[:, dim, dim] *= 2.0 * penalty\n",
              "                H[:, dim, dim] = H[:, dim, dim] * 2.0 * penalty + 1.0\n"),
             ('        return 0.5 * np.einsum("ij,ij->j", V[:dim], V[:dim]) + penalty * np.einsum("ij,ij->j", xi, xi), xi\n',
              '        return (0.5 * np.einsum("ij,ij->j", V[:dim], V[:dim]) + (0.5 * V[dim] ** 2 if free_bias else 0.0)'
              ' + penalty * np.einsum("ij,ij->j", xi, xi)), xi\n')),
            tests=_SQUARED),
    _mutant("squared-hinge-slack-price", "estimator", "gamedyn/certify/squared_hinge.py",
            "the augmented coordinates at 1/sqrt(C) instead of 1/sqrt(2C) in the upper end",
            "    squared = norm * norm + float(p @ p) * (1 + 2 * (n + 2) * UNIT64) / (2.0 * penalty)\n",
            "    squared = norm * norm + float(p @ p) * (1 + 2 * (n + 2) * UNIT64) / (4.0 * penalty)\n", tests=_SQUARED),
    _mutant("squared-hinge-one-hull", "estimator", "gamedyn/certify/squared_hinge.py",
            "the multipliers normalised over all rows, not per class, with the free bias",
            "    groups = (positive, ~positive) if free_bias else (np.ones(n, dtype=bool),)\n",
            "    groups = (np.ones(n, dtype=bool),)\n", tests=_SQUARED),
    _mutant("squared-hinge-slack-sign", "estimator", "gamedyn/certify/squared_hinge.py",
            "the other class's slacks added to its scores in the lower end (the hulls' gap overstated)",
            "        bottom = float(np.max(scores[~positive] - xi[~positive]))\n",
            "        bottom = float(np.max(scores[~positive] + xi[~positive]))\n",
            tests=_SQUARED),
    # ---- the Weston-Watkins 2-norm soft margin with a free bias (issue 29): wrong game, wrong upper end
    _mutant("squared-hinge-pairs-bias-in-the-norm", "squared-hinge-pairs", "gamedyn/certify/squared_hinge.py",
            "the Weston-Watkins biases penalised like W: not the free-bias game",
            (("                                   D.sum(axis=0) if free_bias else np.zeros(0)])\n",
              "                                   D.sum(axis=0) + b if free_bias else np.zeros(0)])\n"),
             ("        return 0.5 * float(np.sum(W * W)) + penalty * float(np.sum(xi * xi)), gradient\n",
              "        return 0.5 * float(np.sum(W * W) + np.sum(b * b)) + penalty * float(np.sum(xi * xi)), gradient\n")),
            tests=_PAIRS),
    _mutant("squared-hinge-pairs-no-circulation", "squared-hinge-pairs", "gamedyn/certify/squared_hinge.py",
            "the circulation LP skipped: the raw KKT multipliers, normalised, give the upper end with a free bias",
            "    if free_bias:\n        # group (c, k)", "    if False:\n        # group (c, k)", tests=_PAIRS),
    _mutant("squared-hinge-pairs-sign", "squared-hinge-pairs", "gamedyn/certify/squared_hinge.py",
            "the pair rows' sign flipped (e_k - e_{y_i}) in the primal and the lower end",
            (("        xi = np.maximum(0.0, 1.0 - (own[:, None] - (M + b[None, :])))\n",
              "        xi = np.maximum(0.0, 1.0 - ((M + b[None, :]) - own[:, None]))\n"),
             ("    pair = own[:, None] - M + bias\n", "    pair = M - own[:, None] - bias\n")),
            tests=_PAIRS),
    # ---- exact proofs on columns dependent up to rounding (issue 29: make_classification's redundant features)
    _mutant("resolved-columns-never", "certificates", "gamedyn/certify/gordan.py",
            "no second LP on the resolved columns: the proofs one row short stay undecided",
            "    if rank >= d:\n        return None\n", "    if True:\n        return None\n", tests=_RESOLVED),
    _mutant("resolved-columns-plain-residual", "certificates", "gamedyn/certify/gordan.py",
            "the dependent columns' residuals computed in plain float64 (rounding noise, not the exact residual)",
            "    residual = total + carried\n", "    residual = rows[:, dependent] - rows[:, independent] @ fit\n",
            tests=_RESOLVED),
    # ---- the soft-margin game (issue 19): wrong algorithms on the capped simplex
    _mutant("soft-cvar-is-min", "soft margin", "gamedyn/certify/certificates.py",
            "the soft certificate's lower end min_i (A w)_i / ||w|| instead of the CVaR of the margins",
            "            return capped_simplex.cvar(margins, self.cap) / norm\n",
            "            return float(np.min(margins)) / norm\n", tests=_SOFT),
    _mutant("soft-entropy-uncapped", "soft margin", "gamedyn/core/capped_simplex.py",
            "the entropy step on Delta_c returns the plain softmax even where the cap binds",
            "        if cap >= 1.0 or _clearly_free(total, cap, n):\n            scal(1.0 / total, weights)\n"
            "            return (weights, logits - math.log(total)) if return_log else weights\n"
            "        result = _capped_softmax_one(theta, eta, cap, None)",
            "        if True:\n            scal(1.0 / total, weights)\n"
            "            return (weights, logits - math.log(total)) if return_log else weights\n"
            "        result = _capped_softmax_one(theta, eta, cap, None)", tests=_SOFT, reproduce=True),
    _mutant("soft-nag-log-n", "soft margin", "recipes/nag_margin.py",
            "NAG's bound on Delta_c with 4 log n + 1 (the simplex's range) instead of 4 D_c + 1",
            'return "Thm 6 on Delta_c: 4 D_c + 1", 4 * p_range(n, options) + 1',
            'return "Thm 6 on Delta_c: 4 D_c + 1", 4 * np.log(n) + 1', tests=_SOFT),
    _mutant("soft-mp-log-n-steps", "soft margin", "recipes/mirror_prox_perceptron.py",
            "mirror prox on Delta_c with the simplex's steps (tuned by log n, not by D_c)",
            "    log_range = np.log(n) if nu is None else soft.tuning_range\n", "    log_range = np.log(n)\n",
            tests=_SOFT, reproduce=True),
    # ---- any array (issue 20): a foreign M converted or downcast, a JAX sum dropped
    _mutant("backend-matrix-hidden-asarray", "backends", "gamedyn/games/matrix/game.py",
            "check_payoff_matrix turns a torch/JAX/array-API M into numpy (the old silent conversion): results in numpy",
            "            return check_matrix(M, name, allow_sparse=False)\n",
            "            return check_matrix(np.asarray(M), name, allow_sparse=False)\n", tests=_BACKEND_MATRIX),
    _mutant("backend-rm-float32-regrets", "backends", "gamedyn/core/regret_matching.py",
            "the device regret-matching player accumulates its regrets in float32",
            "        regrets = self.regrets + weight * regret\n",
            "        regrets = xp.astype(self.regrets + weight * regret, xp.float32)\n", tests=_BACKEND_MATRIX),
    _mutant("backend-seat-sum-not-rebound", "backends", "gamedyn/engine/seats.py",
            "Seat.output adds the play in place without rebinding: a JAX play sum (immutable) silently stays 0",
            "            self.play_sum = add_scaled(self.play_sum, output_weight, point)  # (rebound: a JAX array is immutable)",
            "            add_scaled(self.play_sum, output_weight, point)", tests=_BACKEND_MATRIX),
    _mutant("backend-adahedge-leader-max", "backends", "gamedyn/core/adaptive.py",
            "the device AdaHedge takes the largest cumulative loss as the leader (its rate-inf play follows the worst)",
            "    smallest_array = xp.min(cumulative)\n", "    smallest_array = xp.max(cumulative)\n",
            tests=_BACKEND_MATRIX),
    _mutant("backend-fenchel-float32-gradient", "backends", "gamedyn/games/fenchel/game.py",
            "a device objective's gradient is stored as float32 (the y-player's plays lose half their digits)",
            "    gradient = backend.asarray(raw)\n", "    gradient = backend.asarray(raw, dtype=backend.float32)\n",
            tests=_BACKEND_FENCHEL),
    _mutant("backend-fenchel-host-argmin", "backends", "gamedyn/games/fenchel/game.py",
            "the y-player's argmin pulls a device loss sum to the host (a hidden np.asarray every round)",
            "            x = linear / -strength\n",
            "            x = backend_of(linear).asarray(np.asarray(linear) / -strength)\n", tests=_BACKEND_FENCHEL),
    _mutant("backend-checkpoint-restored-as-numpy", "backends", "gamedyn/engine/checkpoints.py",
            "a device run's checkpoint is restored as numpy arrays (the resumed run leaves the device)",
            "            return backend_of(template).asarray(array, dtype=template.dtype)\n",
            "            return array.copy()\n", tests=_BACKEND_CHECKPOINTS),
    _mutant("backend-batch-labels-host", "backends", "gamedyn/arrays/batched.py",
            "a batch of a device X keeps its labels on the host (every round mixes a numpy array into the products)",
            "                           else self.backend.asarray(labels, dtype=self.X.dtype))",
            "                           else labels.astype(np.float64))", tests=_BACKEND_BATCHED),
    _mutant("soft-active-set-one-tau", "soft margin", "gamedyn/certify/soft_margin.py",
            "the two-hull active set's multipliers against one common value of g over both classes' free rows "
            "(each class's sum has its own multiplier)",
            "                tau = float(np.mean(g[free_rows]))\n",
            "                tau = float(np.mean(g[state == _FREE]))\n",
            tests=("tests/test_two_hulls.py", "-k", "active_set")),
    _mutant("soft-active-set-one-sum", "soft margin", "gamedyn/certify/soft_margin.py",
            "the two-hull active set's steps keep the sum over both classes, not each class's (mass moves between "
            "the hulls)",
            "            groups = [np.flatnonzero(blocks[free] == blocks[rows[0]]) for rows in members]\n",
            "            groups = [np.arange(free.size)]\n",
            tests=("tests/test_two_hulls.py", "-k", "active_set")),
    _mutant("soft-lbfgs-scalar-first-hessian", "soft margin", "gamedyn/certify/dual.py",
            "L-BFGS on the smoothed primal with a scalar first Hessian (the constant feature's coordinate "
            "not rescaled): the estimator's ill-conditioned direction is back",
            "    return min(max(ratio, 1.0), 2.0 ** 1000) if math.isfinite(length) and not math.isnan(ratio) else 1.0\n",
            "    return 1.0\n",  # (pattern updated by issue 30: the ratio without a squared norm)
            tests=("tests/test_sklearn_soft.py",)),
    _mutant("soft-float32-whole-copy", "soft margin", "gamedyn/certify/dual.py",
            "float32 X multiplied as numpy and scipy do it, on a float64 copy of the whole of X (2.0 X beyond X)",
            "    for start, stop in _row_blocks(X):\n        out[start:stop] = np.asarray(X[start:stop].astype(np.float64) @ V)\n",
            "    out[:] = np.asarray(X @ V, dtype=np.float64)\n",
            tests=("tests/test_sklearn_soft.py",)),
    _mutant("soft-pairs-own-class", "soft margin", "gamedyn/certify/dual.py",
            "the multiclass pairs (i, j) run over j = y_i, ..., y_i + K - 2: the own class in, one other class out",
            "        return (self.labels[:, None] + np.arange(1, self.classes)[None, :]) % self.classes\n",
            "        return (self.labels[:, None] + np.arange(0, self.classes - 1)[None, :]) % self.classes\n",
            tests=("tests/test_sklearn_soft.py",)),
    _mutant("soft-pairs-other-sign", "soft margin", "gamedyn/certify/dual.py",
            "A^T p of the pair rows with the other class's block added instead of subtracted",
            "        np.put_along_axis(Q, self.others(), -weights, axis=1)\n",
            "        np.put_along_axis(Q, self.others(), weights, axis=1)\n",
            tests=("tests/test_sklearn_soft.py",)),
    _mutant("soft-pairs-unscaled", "soft margin", "gamedyn/sklearn.py",
            "the pair rows (e_y - e_j) (x) z_i not divided by sqrt 2: norms up to sqrt 2, a certificate on other rows",
            "rows = PairRows(Z, np.searchsorted(classes, y), classes.size, column, scale * math.sqrt(2.0))\n",
            "rows = PairRows(Z, np.searchsorted(classes, y), classes.size, column, scale)\n",
            tests=("tests/test_sklearn_soft.py",)),
    _mutant("soft-lbfgs-product-per-trial", "soft margin", "gamedyn/certify/dual.py",
            "the line search multiplies A by every trial point instead of carrying A w + t A q",
            "            v, Mt, Pt = evaluate(trial, mu, searching, M[:, searching] + step[searching] * AQ[:, searching])\n",
            "            v, Mt, Pt = evaluate(trial, mu, searching)\n",
            tests=("tests/test_sklearn_soft.py",)),
    _mutant("soft-warm-start-p-ignored", "soft margin", "gamedyn/sklearn.py",
            "a warm start from the previous w alone: the certified p forgotten, a refit on the same data searches again",
            "                              start=start, start_p=start_p, zero_below=INFEASIBLE_BELOW)\n",
            "                              start=start, zero_below=INFEASIBLE_BELOW)\n",
            tests=("tests/test_sklearn_soft.py",)),
    _mutant("soft-shrink-offset-dropped", "soft margin", "gamedyn/certify/dual.py",
            "a shrinking round solves its window without the fixed rows' sum g (the rows a_i, not a_i + g/s)",
            "        inner = ShiftedRows(rows.subset(int(games[j]), window), kept[:, j:j + 1] / share)\n",
            "        inner = ShiftedRows(rows.subset(int(games[j]), window), 0.0 * kept[:, j:j + 1])\n",
            tests=("tests/test_sklearn_soft.py",)),
    _mutant("soft-shrink-below-at-zero", "soft margin", "gamedyn/certify/dual.py",
            "a shrinking round leaves the rows below its window at 0 instead of the cap (the point renormalised)",
            "        P[below, j] = cap\n",
            "        P[below, j] = 0.0\n",
            tests=("tests/test_sklearn_soft.py",)),
    _mutant("soft-shrink-never", "soft margin", "gamedyn/certify/dual.py",
            "no shrinking rounds: near-boundary games crawl to their stop",
            "    shrink_at = SHRINK_FIRST if shrinking and domain.shrinkable and n >= SHRINK_MIN_ROWS else max_iter + 1\n",
            "    shrink_at = max_iter + 1\n",
            tests=("tests/test_sklearn_soft.py",)),
    _mutant("soft-projection-no-room", "soft margin", "gamedyn/certify/dual.py",
            "the projection spreads a rounding shortfall over no room (cap = 1/n with n cap < 1): NaN",
            "            if spare > 0:  # (no room: every coordinate at the cap, the single point of n c = 1, short by rounding)\n",
            "            if True:\n",
            tests=("tests/test_sklearn_soft.py",)),
    _mutant("soft-lbfgs-upper-outside-capped-simplex", "soft margin", "gamedyn/certify/dual.py",
            "the upper end ||A^T p|| read at a p off the capped simplex (the smoothed point unprojected)",
            "        P, t = domain.project(u - M / mu[columns], None if tau[0] is None else tau[0][..., columns], columns)\n",
            "        P, t = domain.project(u - M / mu[columns], None if tau[0] is None else tau[0][..., columns], columns)\n"
            "        P = P + 0.5 * (u - P)\n        P[0] += 0.25\n",
            tests=("tests/test_sklearn_soft.py", "-k", "brackets_the_exact_soft_margin")),
    _mutant("fenchel-ftl-sign", "fenchel", "gamedyn/games/fenchel/game.py",
            "the Fenchel game's FTL play grad f(+sum alpha x / S) with the sign of the linear part dropped",
            "x = divide(linear, -strength)  # = -linear / strength",
            "x = divide(linear, strength)  # = -linear / strength",
            tests=_FENCHEL, reproduce=True),
    # ---- the lean Fenchel round (gamedyn.engine.rounds.ConjugateRound, issue 17's speed item)
    _mutant("lean-hint-sign", "fenchel", "gamedyn/engine/rounds.py",
            "the lean round's optimistic hint psi_t = +x_(t-1) instead of h_(t-1) = -x_(t-1) (a wrong momentum in "
            "Nesterov's extrapolation)",
            "hint_parts = (x, -1.0, 1.0)", "hint_parts = (x, 1.0, 1.0)", tests=_FENCHEL, reproduce=True),
    _mutant("lean-step-index", "fenchel", "gamedyn/engine/rounds.py",
            "the lean round takes the x-player's scheduled step eta at its next round (eta_(t+1) for eta_t)",
            "eta if eta_at is None else eta_at(x_round + rounds)", "eta if eta_at is None else eta_at(x_round + rounds + 1)",
            tests=_FENCHEL),
    _mutant("lean-leader-weight", "fenchel", "gamedyn/engine/rounds.py",
            "the lean round adds the x-player's play to the y-player's sum with the x-player's weight, not the y-player's",
            "axpy(x, L, -alpha)  # L_t", "axpy(x, L, -weight)  # L_t", tests=_FENCHEL),
    # ---- tests that see (issue 31): what the earlier tests looked past (each survived them)
    _mutant("prm-prediction-unweighted", "tests that see", "gamedyn/core/regret_matching.py",
            "PRM / PRM+ add the prediction with weight 1 instead of the round's alpha_t (invisible while alpha_t = 1)",
            "            axpy(self.prediction, theta, weight)", "            axpy(self.prediction, theta, 1.0)",
            tests=_SEE),
    _mutant("rm-regret-unweighted", "tests that see", "gamedyn/core/regret_matching.py",
            "RM / RM+ accumulate the instantaneous regret with weight 1 instead of alpha_t (non-constant weights)",
            "    axpy(regret, regrets, weight)\n", "    axpy(regret, regrets, 1.0)\n", tests=_SEE),
    _mutant("rmplus-clip-before-add", "tests that see", "gamedyn/core/regret_matching.py",
            "RM+ keeps [Q_(t-1)]^+ + alpha_t r_t as its state (the plays are RM+'s, the state Q_t >= 0 is not)",
            "    axpy(regret, regrets, weight)\n    if plus:\n        np.maximum(regrets, 0.0, out=regrets)\n",
            "    if plus:\n        np.maximum(regrets, 0.0, out=regrets)\n    axpy(regret, regrets, weight)\n", tests=_SEE),
    _mutant("solve-no-slack", "tests that see", "gamedyn/games/matrix/solve.py",
            "solve_game's bracket without its rounding slack (the float64 best replies taken as exact)",
            "    slack = _rounding_bound(matrix)  #", "    slack = 0.0 * _rounding_bound(matrix)  #", tests=_SEE),
    _mutant("solve-stop-linear-weights", "tests that see", "gamedyn/games/matrix/solve.py",
            "solve_game's stop averages with t while the run averages with t^2 (it stops at another round)",
            "    output_weight = lambda t: float(t * t)", "    output_weight = lambda t: float(t)", tests=_SEE),
    _mutant("capped-projection-unshifted", "tests that see", "gamedyn/core/capped_simplex.py",
            "the capped-simplex projection without the shift by the maximum (its precision then depends on the "
            "magnitude: what the scale-derived idempotence and shift-invariance bounds see, whatever the seed)",
            "        shifted = values - top if divisor == 1.0 else (values - top) / divisor",
            "        shifted = values if divisor == 1.0 else (values - top) / divisor",
            tests=("tests/test_capped_simplex.py", "-k", "idempotent")),
    # ---- issue 32: extensive-form games (the treeplex, the counterfactual pass, the local rules, the certificate,
    # the CFR recipes); the algorithm-changing ones also fail the `extensive-form games` rows of gamedyn reproduce
    _mutant("efg-pass-top-down", "extensive-form games", "gamedyn/core/treeplex.py",
            "the treeplex's backward pass taken shallowest level first (an infoset's value before the infosets below it)",
            "        for level, add_at in zip(reversed(self._levels), reversed(self._adders)):\n            add_at(",
            "        for level, add_at in zip(self._levels, self._adders):\n            add_at(", tests=_TREEPLEX,
            reproduce=True),
    _mutant("efg-pass-shared-parent-last-only", "extensive-form games", "gamedyn/core/treeplex.py",
            "the backward pass adds to a shared parent sequence only the last of its infosets' values",
            "    for value in values.tolist():\n        total += value\n",
            "    for value in values.tolist():\n        total = float(q[parent]) + value\n", tests=_TREEPLEX),
    _mutant("efg-pass-repeated-parents-scattered", "extensive-form games", "gamedyn/core/treeplex.py",
            "the backward pass scatters a level whose infosets share some parent sequences by one fancy add (a "
            "repeated parent keeps one of its values)",
            "    if np.unique(parents).size == parents.size:\n", "    if parents.size:\n", tests=_TREEPLEX),
    _mutant("efg-best-response-ties", "extensive-form games", "gamedyn/core/treeplex.py",
            "the best response follows every action attaining an infoset's value (ties: a point off the treeplex)",
            "first[1:] = chosen & (counts - np.repeat(before, self._sizes) == 1)", "first[1:] = chosen",
            tests=_TREEPLEX),
    _mutant("efg-contains-no-flow", "extensive-form games", "gamedyn/core/treeplex.py",
            "contains checks x >= 0 and x_empty = 1 but not that each infoset's actions sum to its parent",
            "        return bool(np.all(np.abs(self.segment_sum(z) - z[self._parents]) <= tolerance))",
            "        return True", tests=_TREEPLEX),
    _mutant("efg-forward-no-parent", "extensive-form games", "gamedyn/core/treeplex.py",
            "the sequence form of a behavioural strategy without the parent's probability (x_ja = b_j(a))",
            "            multiply(b[span], take(level.sequence_parents), out=x[span])",
            "            multiply(b[span], 1.0, out=x[span])", tests=_TREEPLEX, reproduce=True),
    _mutant("efg-counterfactual-myopic", "extensive-form games", "gamedyn/core/counterfactual.py",
            "the counterfactual pass without the values of the infosets below (q_ja = u_ja: a myopic regret)",
            "        values[level.infosets] = v\n        return v\n",
            "        values[level.infosets] = v\n        return 0.0 * v\n", tests=_COUNTERFACTUAL, reproduce=True),
    _mutant("efg-counterfactual-uniform", "extensive-form games", "gamedyn/core/counterfactual.py",
            "an infoset's value taken under the uniform strategy, not the one played (V_j = mean of q_j)",
            "        v = add(behaviour[level.sequences] * q, level.offsets)\n",
            "        v = add(q, level.offsets) / level.sizes\n", tests=_COUNTERFACTUAL, reproduce=True),
    _mutant("efg-charged-at-old-strategy", "extensive-form games", "gamedyn/core/counterfactual.py",
            "the player charges its loss at the strategy of the play before its last one (the new one not kept)",
            "        self.behaviour = b\n        return self._treeplex.to_sequence(b)",
            "        return self._treeplex.to_sequence(b)", tests=_COUNTERFACTUAL, reproduce=True),
    _mutant("efg-rm-plus-not-clipped", "extensive-form games", "gamedyn/core/counterfactual.py",
            "CFR+'s regrets not clipped at 0 (RM on every infoset: vanilla CFR's rule in CFR+'s order and averages)",
            'self._plus = learner.local in ("rm+", "prm+")', 'self._plus = learner.local in ("prm+",)',
            tests=_COUNTERFACTUAL, reproduce=True),
    _mutant("efg-dcfr-exponents-swapped", "extensive-form games", "gamedyn/core/counterfactual.py",
            "DCFR's discounts swapped: positive regrets times t^beta/(t^beta+1), negative ones times t^alpha/(t^alpha+1)",
            "discount_regrets(self.regrets, dcfr_factor(self.round, alpha), dcfr_factor(self.round, beta))",
            "discount_regrets(self.regrets, dcfr_factor(self.round, beta), dcfr_factor(self.round, alpha))",
            tests=_COUNTERFACTUAL, reproduce=True),
    _mutant("efg-prediction-unpaired", "extensive-form games", "gamedyn/core/counterfactual.py",
            "PCFR+'s counterfactual prediction not paired with the previous strategy (v = q_hat, not q_hat - <b, q_hat>)",
            "        v = q - add(previous[span] * q, offsets).repeat(sizes)\n", "        v = q\n",
            tests=_COUNTERFACTUAL, reproduce=True),
    _mutant("efg-segment-uniform-fallback", "extensive-form games", "gamedyn/core/regret_matching.py",
            "an infoset with no positive regret plays 1 on each action instead of 1/|A_j| (the shared local rule)",
            "        totals[empty] = sizes[empty]\n", "        totals[empty] = 1.0\n", tests=_COUNTERFACTUAL,
            reproduce=True),
    _mutant("efg-exploitability-full-gap", "extensive-form games", "gamedyn/certify/sequence_form.py",
            "exploitability reported as the full Nash gap (LiteEFG's naming) instead of NashConv / 2 (OpenSpiel's)",
            "        return 0.5 * self.nash_gap\n", "        return self.nash_gap\n", tests=_EFG_CERTIFICATE),
    _mutant("efg-bracket-not-widened", "extensive-form games", "gamedyn/certify/sequence_form.py",
            "the certified bracket's ends as computed, not widened by their rounding bound",
            "    upper = float(np.nextafter(upper + products.upper_widening, math.inf))\n",
            "    upper = float(upper)\n", tests=_EFG_CERTIFICATE),
    _mutant("efg-stop-learner-weights", "extensive-form games", "gamedyn/certify/sequence_form.py",
            "ExploitabilityStop sums the rounds with the learners' weights (1), not the output weights (t): it judges "
            "uniform averages a linear-averaging run does not report",
            "        weight = w_seat.output_weight(t)\n", "        weight = w_seat.weight(t)\n", tests=_EFG_CERTIFICATE),
    _mutant("efg-cfr-plus-simultaneous", "extensive-form games", "recipes/cfr_plus.py",
            "CFR+ with simultaneous updates instead of alternating ones",
            "check_alternating(alternating), check_averaging(averaging), run_options)",
            "False, check_averaging(averaging), run_options)", tests=_EFG_RECIPES, reproduce=True),
    _mutant("efg-cfr-plus-uniform-averages", "extensive-form games", "recipes/cfr_plus.py",
            "CFR+ with uniform instead of linear averaging",
            "check_alternating(alternating), check_averaging(averaging), run_options)",
            "check_alternating(alternating), None, run_options)", tests=_EFG_RECIPES, reproduce=True),
    # ---- general-sum games (issue 34): the game's utilities, the CE certificate, the swap-regret learners
    _mutant("general-sum-payoff-of-another", "general-sum", "gamedyn/games/general_sum/game.py",
            "player i's utilities contracted from player i+1's payoff tensor (a player's own tensor used for another)",
            "tuple(_own_axis_first(U, i) for i, U in enumerate(arrays))",
            "tuple(_own_axis_first(arrays[(i + 1) % len(arrays)], i) for i, U in enumerate(arrays))",
            tests=("tests/test_general_sum.py",)),
    _mutant("general-sum-swap-gap-external", "general-sum", "gamedyn/games/general_sum/certificates.py",
            "the CE (swap) gap computed as the external one: the best fixed deviation, not each action's best swap",
            (("        if swap:\n            own = profiles[:, i]", "        if False:\n            own = profiles[:, i]"),
             ("        rows = np.maximum(np.max(gains + bound, axis=1), 0.0)",
              "        rows = np.maximum(np.max(np.sum(gains + bound, axis=0)), 0.0)")),
            tests=("tests/test_general_sum.py",)),
    _mutant("general-sum-stationary-transpose", "general-sum", "gamedyn/core/swap_regret.py",
            "the stationary distribution off by a transpose: Q x = x (the uniform vector) for x Q = x",
            (("    system = Q.T - np.eye(K)\n", "    system = Q - np.eye(K)\n"),
             ("        if np.max(np.abs(x @ Q - x)) <= _RESIDUAL:", "        if np.max(np.abs(Q @ x - x)) <= _RESIDUAL:")),
            tests=("tests/test_swap_regret.py",), reproduce=True),
    _mutant("general-sum-copy-charge-transposed", "general-sum", "gamedyn/core/swap_regret.py",
            "Blum-Mansour's stacked copies charged x(k) l(j) (the loss matrix transposed) for copy j's x(j) l",
            "self._player.update(columns, Loss(np.outer(linear, point)), weight)  # column j: x(j) l",
            "self._player.update(columns, Loss(np.outer(point, linear)), weight)  # column j: x(j) l",
            tests=("tests/test_swap_regret.py",), reproduce=True),
    _mutant("general-sum-conditional-regret-transposed", "general-sum", "gamedyn/core/swap_regret.py",
            "Hart & Mas-Colell's conditional regret R[j, k] accumulated as R[k, j]",
            "self.regrets += (weighted * linear)[:, None] - np.outer(weighted, linear)",
            "self.regrets += ((weighted * linear)[:, None] - np.outer(weighted, linear)).T",
            tests=("tests/test_swap_regret.py",), reproduce=True),
    # ---- issue 35: the compiled one-pass round (gamedyn.arrays.compiled) and solve_game's LP switch
    _mutant("compiled-softmax-shift-dropped", "compiled and exact", "gamedyn/arrays/compiled.py",
            "the compiled round's exponentials e^l without the shift by the logits' maximum (e^(l - m)): equal in "
            "exact arithmetic, 0 / 0 once the logits are far from 0",
            "            e = _exp_nonpositive(logit - top)\n            total += e\n            for j in range(d):\n",
            "            e = _exp_nonpositive(logit)\n            total += e\n            for j in range(d):\n",
            tests=("tests/test_compiled.py",)),
    _mutant("compiled-rescale-skipped", "compiled and exact", "gamedyn/arrays/compiled.py",
            "the online softmax raises its reference maximum without rescaling the sum of the exponentials so far",
            "                total *= shrink\n                for j in range(d):\n                    v[j] *= shrink\n",
            "                for j in range(d):\n                    v[j] *= shrink\n", tests=("tests/test_compiled.py",)),
    _mutant("compiled-block-shift-dropped", "compiled and exact", "gamedyn/arrays/compiled.py",
            "the row-block kernel's (float32) exponentials e^l without the shift by the reference maximum m",
            "            exp_shifted(logits, count, top)  # e^(l - m)",
            "            exp_shifted(logits, count, 0.0)  # e^(l - m)", tests=("tests/test_compiled.py",)),
    _mutant("compiled-block-unrolled-share-row", "compiled and exact", "gamedyn/arrays/compiled.py",
            "the row-block kernel's four-row sweep of the shares takes the third row's weight with the fourth row",
            "(e2 * A[i + 2, j] + e3 * A[i + 3, j])", "(e2 * A[i + 3, j] + e3 * A[i + 3, j])",
            tests=("tests/test_compiled.py",)),
    _mutant("compiled-block-unrolled-remainder-dropped", "compiled and exact", "gamedyn/arrays/compiled.py",
            "the row-block kernel drops the rows of a block past its last multiple of four",
            "            while k < count:\n                e = shares[k]\n",
            "            while k < 0:\n                e = shares[k]\n", tests=("tests/test_compiled.py",)),
    _mutant("compiled-csr-declined-z-unfinished", "compiled and exact", "gamedyn/arrays/compiled.py",
            "the CSR kernel stops at a NaN / +inf logit without finishing z = A w on the rows after it",
            "        for i in range(stopped, stop):  # after a declined logit: z alone\n",
            "        for i in range(stop, stop):  # after a declined logit: z alone\n", tests=("tests/test_compiled.py",)),
    _mutant("compiled-csr-rescale-skipped", "compiled and exact", "gamedyn/arrays/compiled.py",
            "the CSR kernel raises m without rescaling v (the shares so far keep the old reference)",
            "                for j in range(v.shape[0]):\n                    v[j] *= shrink\n                top = logit\n",
            "                top = logit\n", tests=("tests/test_compiled.py",)),
    _mutant("compiled-vectorised-exp-exponent", "compiled and exact", "gamedyn/arrays/compiled.py",
            "the vectorised exponential's 2^k built with a bias of 1022 (every weight halved: the softmax is unchanged)",
            "(_as_int(t) - _ROUNDER_BITS + 1023) << 52", "(_as_int(t) - _ROUNDER_BITS + 1022) << 52",
            tests=("tests/test_compiled.py",)),
    _mutant("compiled-block-unflushed-shares-kept", "compiled and exact", "gamedyn/arrays/compiled.py",
            "the row-block kernel raises m and rescales v but not the float32 shares not yet flushed into it",
            "                    v[j] = (v[j] + partial[j]) * shrink\n                    partial[j] = 0.0\n",
            "                    v[j] = v[j] * shrink\n", tests=("tests/test_compiled.py",)),
    _mutant("compiled-block-last-flush-dropped", "compiled and exact", "gamedyn/arrays/compiled.py",
            "the row-block kernel never flushes the float32 shares of its last rows into v",
            "        for j in range(d):\n            v[j] += partial[j]\n        return top, total, valid\n",
            "        return top, total, valid\n", tests=("tests/test_compiled.py",)),
    _mutant("efg-dense-payoff-transposed", "compiled and exact", "gamedyn/games/efg/game.py",
            "a small game's dense payoff copied transposed (Kuhn's A is square: the shapes still agree)",
            "            A = np.asarray(A.toarray(), dtype=np.float64)\n",
            "            A = np.asarray(A.T.toarray(), dtype=np.float64)\n", tests=("tests/test_efg_dense_payoff.py",)),
    _mutant("compiled-rm-prediction-unweighted", "compiled and exact", "gamedyn/arrays/compiled.py",
            "the compiled matrix-game round's predictive regret matching adds the prediction unweighted (R + P, "
            "not R + alpha_t P)",
            "value = regrets[i] + weight * prediction[i] if predictive else regrets[i]",
            "value = regrets[i] + prediction[i] if predictive else regrets[i]", tests=("tests/test_compiled.py",)),
    _mutant("hinted-guess-sign", "compiled and exact", "gamedyn/engine/rounds.py",
            "mirror prox's one-pass hints: the w-player's hint loss +A^T p~ instead of -A^T p~ (the sign of h = -g(., p))",
            "        Aw, ATp = self.products(w_point, p_point)\n        np.negative(ATp, out=ATp)\n",
            "        Aw, ATp = self.products(w_point, p_point)\n", tests=("tests/test_one_pass.py", "tests/test_compiled.py")),
    _mutant("lp-dual-sign", "compiled and exact", "gamedyn/games/matrix/solve.py",
            "the LP's column strategy read from its duals without scipy's sign (a <= row's dual is <= 0)",
            "column = np.maximum(-solution.ineqlin.marginals, 0.0)", "column = np.maximum(solution.ineqlin.marginals, 0.0)",
            tests=("tests/test_solve_lp.py",)),
    _mutant("lp-bracket-wrong-player", "compiled and exact", "gamedyn/games/matrix/solve.py",
            "the LP's bracket certified with the two strategies swapped (the primal taken as the column player's)",
            "                lower, upper = _bracket(matrix, row, column)\n",
            "                lower, upper = _bracket(matrix, column, row) if matrix.shape[0] == matrix.shape[1] else "
            "_bracket(matrix, row, column)\n",
            tests=("tests/test_solve_lp.py",)),
    # ---- trust, round three (issue 30): checkpoints of every state, the soft margin at any scale and rounding,
    # float32 certificates on the given rows, one validation path, the command line's table
    _mutant("trust-lbfgs-unscaled-norm", "trust", "gamedyn/certify/dual.py",
            "soft_margin_lbfgs with the unscaled norm sqrt(sum w_j^2) on the unscaled rows (issue 30's false upper "
            "end 0 at 1e-154, [-inf, inf] at 1e154)",
            (("    exponent = math.frexp(bound)[1]\n", "    exponent = 0\n"),
             ('    return peaks * np.sqrt(np.einsum("ij,ij->j", unit, unit))',
              '    return np.sqrt(np.einsum("ij,ij->j", W, W))')),
            tests=("tests/test_soft_margin_trust.py", "-k", "every_scale")),
    _mutant("trust-lbfgs-no-row-scaling", "trust", "gamedyn/certify/dual.py",
            "soft_margin_lbfgs without the power-of-two scaling of the rows (hypot-way norms kept)",
            "    exponent = math.frexp(bound)[1]\n", "    exponent = 0\n",
            tests=("tests/test_soft_margin_trust.py", "-k", "every_scale")),
    _mutant("trust-soft-margin-squared-norm", "trust", "gamedyn/certify/soft_margin.py",
            "the exact oracle's upper end ||A^T p|| from the sum of squares (underflows for a margin 1e-160 of the rows)",
            "    upper = safe_norm(z)  #", "    upper = float(np.sqrt(z @ z))  #",
            tests=("tests/test_soft_margin_trust.py", "-k", "far_below")),
    _mutant("trust-soft-margin-uncertified-ends", "trust", "gamedyn/certify/soft_margin.py",
            "the exact oracle's bracket without its certified rounding step (lower > upper by ulps)",
            "    lower = _certified_lower(value, error, direction)\n    upper = _certified_upper(upper, dual, cap, d)\n",
            "    lower = max(0.0, value)\n",
            tests=("tests/test_soft_margin_trust.py", "-k", "never_inverts")),
    _mutant("trust-lbfgs-no-zero-exit", "trust", "gamedyn/certify/dual.py",
            "soft_margin_lbfgs without the exact proof of a zero value (a game of value 0 runs all its iterations)",
            "    zero_at = ZERO_PROOF_FIRST if prove is not None else max_iter + 1",
            "    zero_at = max_iter + 1",
            tests=("tests/test_soft_margin_trust.py", "-k", "proves_a_zero")),
    _mutant("trust-checkpoint-skips-unknown-state", "trust", "gamedyn/engine/checkpoints.py",
            "a checkpoint writer that skips a state of an unknown type (writes None for it) instead of refusing it",
            '    raise CheckpointError(f"cannot save {where} of type {type(value).__name__}: a checkpointed state holds arrays, "',
            '    return {"none": True}\n    raise CheckpointError(f"cannot save {where} of type {type(value).__name__}: a checkpointed state holds arrays, "',
            tests=("tests/test_checkpoint_recipes.py", "-k", "writer_cannot_save")),
    _mutant("trust-checkpoint-skips-attrs-state", "trust", "gamedyn/engine/checkpoints.py",
            "a checkpoint writer that skips attrs state objects (Entropy's CappedCentre: every nu= recipe resumes wrong)",
            "    if attrs.has(type(value)):  # a state object of gamedyn's (e.g. Entropy's CappedCentre): field by field\n",
            "    if attrs.has(type(value)):  # a state object of gamedyn's (e.g. Entropy's CappedCentre): field by field\n"
            "        return {\"none\": True}\n",
            tests=("tests/test_checkpoint_recipes.py", "-k", "bit_identically and nu")),
    _mutant("trust-checkpoint-no-check-before-round-1", "trust", "gamedyn/engine/observers.py",
            "the run's state not checked before round 1 (an unsaveable state found only at the first write)",
            "            _checkpoints.check_state(self._state(run))", "            pass",
            tests=("tests/test_checkpoint_recipes.py", "-k", "writer_cannot_save")),
    _mutant("trust-checkpoint-final-write-raises", "trust", "gamedyn/engine/observers.py",
            "a failed final write throws the complete run away (the CheckpointError raised)",
            "            _checkpoints.warn_unwritten(self.path, rounds, error)", "            raise",
            tests=("tests/test_checkpoint_recipes.py", "-k", "final_write")),
    _mutant("trust-float32-certificate-on-rounded-rows", "trust", "gamedyn/games/margin/result.py",
            "normalize=True recipes keep the certificate of the float32-rounded rescaled rows",
            '    if np.dtype(str(dtype).rsplit(".", 1)[-1]) == np.float64:',
            '    if np.dtype(str(dtype).rsplit(".", 1)[-1]) != object:',
            tests=("tests/test_soft_margin_trust.py", "-k", "normalize_recipes_certify")),
    _mutant("trust-estimator-float32-on-rounded-rows", "trust", "gamedyn/sklearn.py",
            "MarginClassifier keeps the certificate of the float32-rounded rescaled rows",
            'if solver != "lbfgs" and not distributed and getattr(Z, "dtype", None) == np.float32:',
            'if solver != "lbfgs" and not distributed and getattr(Z, "dtype", None) == "never":',
            tests=("tests/test_soft_margin_trust.py", "-k", "estimator_certifies")),
    _mutant("trust-digit-strings-read-as-numbers", "trust", "gamedyn/core/validation.py",
            "the one validation path converts digit strings to numbers",
            '    if kind in "US" or (kind == "O" and any(isinstance(item, (str, bytes)) for item in array.ravel().tolist())):',
            '    if kind in "US":\n        return array.astype(np.float64)\n    if False:',
            tests=("tests/test_one_validation_path.py",)),
    _mutant("trust-fingerprint-module-attributes-unseen", "trust", "gamedyn/engine/checkpoints.py",
            "a weights function's module attributes unseen by the fingerprint (resumed after settings.SCALE changed)",
            "        for chain in sorted(chains):", "        for chain in sorted(chains) if False else ():",
            tests=("tests/test_checkpoint_recipes.py", "-k", "module_attribute")),
    _mutant("trust-cli-table-not-kept", "trust", "gamedyn/cli/families.py",
            "gamedyn run's table not kept in the checkpoint (a resumed --json prints the rows after it only)",
            '        return {"t": np.array([row.t for row in self.rows], dtype=np.int64), "values": numbers, "known": known}',
            '        return {"t": np.zeros(0, dtype=np.int64), "values": numbers[:0], "known": known[:0]}',
            tests=("tests/test_cli_trust.py", "-k", "whole_table")),
    # ---- issue 33 (i33a): solve_efg's switch, the game files, the OpenSpiel walk
    _mutant("efg-real-leader-current-gap", "efg-real", "gamedyn/games/efg/solve.py",
            "solve_efg's race judges the lanes by their current gaps, not at equal CPU time (the lane given more time "
            "always looks better and keeps the lead)",
            "return (early, late) if early.gap < late.gap_at(early.cpu) else (late, early)",
            "return (early, late) if early.gap < late.gap else (late, early)", tests=_EFG_SOLVE),
    _mutant("efg-real-leader-flipped", "efg-real", "gamedyn/games/efg/solve.py",
            "solve_efg's race gives the lead to the lane that is behind at equal time",
            "return (early, late) if early.gap < late.gap_at(early.cpu) else (late, early)",
            "return (early, late) if early.gap > late.gap_at(early.cpu) else (late, early)", tests=_EFG_SOLVE),
    _mutant("efg-real-lp-at-once", "efg-real", "gamedyn/games/efg/solve.py",
            "solve_efg switches to the LP on its first extrapolation, before the race has run a quarter of the LP's time",
            "    return spent >= MIN_SPENT * predicted and LP_SAFETY * predicted",
            "    return LP_SAFETY * predicted", tests=_EFG_SOLVE),
    _mutant("efg-real-last-bracket", "efg-real", "gamedyn/games/efg/solve.py",
            "solve_efg keeps the last x and y it saw, not the best lower and upper ends over both lanes",
            "        if lower > self.lower:\n", "        if True:\n", tests=_EFG_SOLVE),
    _mutant("efg-real-no-probe", "efg-real", "gamedyn/games/efg/solve.py",
            "solve_efg's auto without the probe (PCFR+ alone first): Kuhn pays the second lane and the race's hand-overs",
            '        if method == "auto":  # the probe:', '        if False:  # the probe:', tests=_EFG_SOLVE),
    _mutant("efg-real-loader-parent-dropped", "efg-real", "gamedyn/games/efg/files.py",
            "the loader drops each infoset's parent (every infoset at the top: a flat, wrong treeplex)",
            "builder.infoset(player, label, None if parent is None else tuple(parent), actions)",
            "builder.infoset(player, label, None, actions)", tests=_EFG_FILES),
    _mutant("efg-real-loader-index-bound", "efg-real", "gamedyn/games/efg/files.py",
            "the loader's sequence-index check off by one (an index past the last sequence is let through)",
            "if not (0 <= i < sizes[0] and 0 <= j < sizes[1]):", "if not (0 <= i <= sizes[0] and 0 <= j <= sizes[1]):",
            tests=_EFG_FILES),
    _mutant("efg-real-openspiel-no-chance", "efg-real", "gamedyn/games/efg/openspiel.py",
            "from_openspiel drops the chance probabilities (each deal weighted 1)",
            "walk(state.child(action), last0, last1, probability * p)", "walk(state.child(action), last0, last1, probability)",
            tests=_EFG_FILES),
    # ---- issue 33 (item 2): the dilated entropy's prox and MMD's magnet step (family "efg-dilated"); the
    # algorithm-changing ones also fail the dilated rows of gamedyn reproduce
    _mutant("dilated-weights-dropped", "efg-dilated", "gamedyn/core/dilated.py",
            "the prox passes each infoset's log-sum-exp to its parent without its weight beta_j",
            "np.add.at(u, level.parents, beta[level.infosets] * lse)", "np.add.at(u, level.parents, lse)",
            tests=_DILATED),
    _mutant("dilated-parent-not-scaled", "efg-dilated", "gamedyn/core/dilated.py",
            "the values of the infosets below enter the parent's logits unscaled by 1/beta_j (the wrong parent scaling)",
            "logits = prior[span] + (gain[span] + u[span]) * inverse[span]",
            "logits = prior[span] + gain[span] * inverse[span] + u[span]", tests=_DILATED),
    _mutant("dilated-myopic-prox", "efg-dilated", "gamedyn/core/dilated.py",
            "the prox without the values of the infosets below (each infoset a separate Hedge step: not the argmin)",
            "np.add.at(u, level.parents, beta[level.infosets] * lse)",
            "np.add.at(u, level.parents, 0.0 * lse)", tests=_DILATED, reproduce=True),
    _mutant("mmd-magnet-not-scaled-by-eta", "efg-dilated", "gamedyn/core/dilated.py",
            "MMD's magnet pulls with alpha instead of eta alpha in the step's prior",
            "prior = (cache + (eta * self.alpha) * self._log_magnet) / scale",
            "prior = (cache + self.alpha * self._log_magnet) / scale", tests=_DILATED, reproduce=True),
    # ---- issue 33 (i33b): the explorer over treeplex pairs (family "explorer")
    _mutant("efg-explorer-last-is-average", "explorer", "gamedyn/paper/exploration.py",
            "explore_efg's 'last' rows read the uniform averages instead of the round's plays (MMD's last iterate lost)",
            "x, y = (state.w, state.p) if last else (state.w_sum / total[0], state.p_sum / total[0])",
            "x, y = (state.w_sum / total[0], state.p_sum / total[0])", tests=_EFG_EXPLORER),
    _mutant("efg-explorer-never-alternates", "explorer", "gamedyn/paper/exploration.py",
            "explore_efg plays every pair simultaneously (CFR+, DCFR and PCFR+ declare alternating updates)",
            'alternating=order == "alternating", observers=[each_round(record)])',
            "alternating=False, observers=[each_round(record)])", tests=_EFG_EXPLORER),
    # ---- issue 33 (i33b): the peers of benchmarks/efg.py --time-to-target (family "efg-peers")
    _mutant("liteefg-full-gap-as-exploitability", "efg-peers", "benchmarks/efg.py",
            "LiteEFG's summed best-response gains (the full Nash gap it prints as exploitability) taken as OpenSpiel's "
            "exploitability (twice it: its time to a target over-stated)",
            "return step, lambda: sum(env.exploitability(strategy(), kind_name)) / 2.0",
            "return step, lambda: sum(env.exploitability(strategy(), kind_name))", tests=_EFG_PEERS),
    _mutant("openspiel-mmd-stages-not-doubled", "efg-peers", "benchmarks/efg.py",
            "OpenSpiel's MMD driven with stages of constant length (alpha halved every 20 rounds, not after 20, 40, "
            "80, ...: not gamedyn's halving schedule)",
            '            state["length"] *= 2\n', "", tests=_EFG_PEERS),
    _mutant("mmd-step-not-divided", "efg-dilated", "gamedyn/core/dilated.py",
            "MMD's step takes the loss with eta instead of eta / (1 + eta alpha) (the magnet's strength not in the "
            "step)", "return self._bottom_up(prior, (-eta / scale) * linear)",
            "return self._bottom_up(prior, -eta * linear)", tests=_DILATED, reproduce=True),
    _mutant("mmd-moving-magnet-stays", "efg-dilated", "recipes/mmd.py",
            "MMD's moving schedule never moves its magnet (every stage pulls towards the uniform strategy: the alpha-QRE)",
            "            magnets = [moved_magnet(treeplex, start, share) for treeplex, start in zip(game.treeplexes, starts)]",
            "            magnets = [None, None]", tests=_DILATED),
    _mutant("mmd-moving-magnet-unmixed", "efg-dilated", "recipes/mmd.py",
            "MMD's moving magnet is the last iterate itself, not mixed with the uniform strategy",
            "            share = max(float(mix) * float(mix_decay) ** k, 1e-300)",
            "            share = 1e-300", tests=_DILATED),
    # ---- issue 33: optimistic MMD, the decreasing schedule that reaches 1e-2 on Leduc (family "efg-dilated")
    _mutant("optimistic-mmd-no-prediction", "efg-dilated", "recipes/optimistic_mmd.py",
            "optimistic MMD without its prediction (MirrorDescent in OMD's place: MMD's plain step, which does not "
            "settle at eta 4 as alpha falls)",
            "from gamedyn.core import OMD\n", "from gamedyn.core import MirrorDescent as OMD\n", tests=_OPTIMISTIC_MMD),
    _mutant("optimistic-mmd-alpha-not-halved", "efg-dilated", "recipes/optimistic_mmd.py",
            "optimistic MMD keeps its first alpha in every stage (it stops at the alpha-QRE)",
            "        strength = alpha * 0.5 ** k\n", "        strength = alpha\n", tests=_OPTIMISTIC_MMD),
    _mutant("optimistic-mmd-restarts-uniform", "efg-dilated", "recipes/optimistic_mmd.py",
            "optimistic MMD starts every stage at the uniform strategy instead of the last plays",
            "        starts = [result.w_last, result.p_last]\n", "", tests=_OPTIMISTIC_MMD),
    _mutant("stage-lengths-not-growing", "efg-dilated", "recipes/mmd.py",
            "the stages keep their first length (growth ignored: the decreasing and halving schedules outrun their "
            "QREs)", "        length *= growth\n", "", tests=_OPTIMISTIC_MMD),
)


# ------------------------------------------------------------------------------------------ the tree


def tree_files(source: pathlib.Path) -> list:
    """The files of the tree at ``source``: git-tracked plus untracked files git does not ignore (a
    git checkout), else every file except caches."""
    try:
        listed = subprocess.run(["git", "-C", str(source), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                                capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        skip = {".git", "__pycache__", ".pytest_cache", ".hypothesis", "gamedyn-report"}
        return sorted(str(path.relative_to(source)) for path in source.rglob("*")
                      if (path.is_file() or path.is_symlink()) and not skip.intersection(path.relative_to(source).parts))
    names = sorted({name for name in listed.decode().split("\0") if name})
    # a tracked file deleted in the work tree is gone; a symbolic link (gamedyn/recipes -> ../recipes) stays one
    return [name for name in names if (source / name).is_file() or (source / name).is_symlink()]


def copy_tree(source: pathlib.Path, destination: pathlib.Path, files=None) -> None:
    """Copy the tree's files (:func:`tree_files`) from ``source`` to ``destination``."""
    for name in tree_files(source) if files is None else files:
        target = destination / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if (source / name).is_symlink():  # copied as the link itself (relative: it points into the copy)
            os.symlink(os.readlink(source / name), target)
        else:
            shutil.copy2(source / name, target)


def apply(mutant: Mutant, tree: pathlib.Path) -> None:
    """Make the mutant's edits in the copy ``tree`` (its patterns are known to match once)."""
    target = tree / mutant.path
    text = target.read_text(encoding="utf-8")
    for original, mutated in mutant.edits:
        text = text.replace(original, mutated)
    target.write_text(text, encoding="utf-8")


def pattern_problems(mutant: Mutant, source: pathlib.Path) -> list:
    """Why the mutant's edits cannot apply to ``source`` exactly (empty when they can)."""
    path = source / mutant.path
    if not path.is_file():
        return [f"{mutant.path} does not exist"]
    text = path.read_text(encoding="utf-8")
    problems = []
    for index, (original, mutated) in enumerate(mutant.edits, 1):
        count = text.count(original)
        if count != 1:
            where = f"edit {index} of {len(mutant.edits)}: " if len(mutant.edits) > 1 else ""
            problems.append(f"{where}pattern found {count} times in {mutant.path} (must be once): {original[:60]!r}")
        elif original == mutated:
            problems.append(f"edit {index} changes nothing")
    return problems


# ----------------------------------------------------------------------------------- running in the copy

# Run inside the copy by every command: the first lines check where gamedyn and gamedyn.recipes came
# from, in the process that then runs pytest or reproduce (so nothing can swap them in between).
_BOOT = textwrap.dedent("""
    import os, runpy, sys
    tree = os.path.realpath(os.getcwd())
    import gamedyn
    found = {"gamedyn": gamedyn.__file__}
    try:
        import gamedyn.recipes
        found["gamedyn.recipes"] = gamedyn.recipes.__file__
    except Exception as error:
        found["gamedyn.recipes"] = f"nowhere ({type(error).__name__}: {error})"
    expected = {"gamedyn": os.path.join(tree, "gamedyn", "__init__.py"),
                "gamedyn.recipes": os.path.join(tree, "recipes", "__init__.py")}
    wrong = [f"{name} imported from {found[name]}, not {expected[name]}" for name in found
             if os.path.realpath(found[name]) != expected[name]]
    if wrong:
        print("GATE IMPORT ERROR: " + "; ".join(wrong), flush=True)
        sys.exit(@CODE@)
    if sys.argv[1:] == ["--check"]:
        print("gamedyn " + found["gamedyn"] + "; gamedyn.recipes " + found["gamedyn.recipes"])
        sys.exit(0)
    module, sys.argv = sys.argv[1], [sys.argv[1]] + sys.argv[2:]
    runpy.run_module(module, run_name="__main__", alter_sys=True)
""").replace("@CODE@", str(IMPORT_ERROR))


def environment(tree: pathlib.Path) -> dict:
    """The environment of a command in the copy: PYTHONPATH = the copy only, no user site, CI mode
    (derandomised hypothesis), the BLAS thread settings kept."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE", "PYTHONSAFEPATH")}
    env.update(PYTHONPATH=str(tree), PYTHONNOUSERSITE="1", CI="true")
    return env


class ImportMismatch(RuntimeError):
    """The copy imported gamedyn or gamedyn.recipes from somewhere else: no result of it can be trusted."""


def run_in(tree: pathlib.Path, arguments, python=None, timeout=COMMAND_SECONDS) -> tuple:
    """``(exit status, seconds, output)`` of ``python -c BOOT arguments`` in the copy (the import check
    first); raises :class:`ImportMismatch` when the check fails."""
    start = time.perf_counter()
    try:
        done = subprocess.run([python or sys.executable, "-c", _BOOT, *arguments], cwd=tree, env=environment(tree),
                              capture_output=True, text=True, timeout=timeout, check=False)
        code, output = done.returncode, done.stdout + done.stderr
    except subprocess.TimeoutExpired as error:
        code = -1
        output = f"timed out after {timeout} s\n" + (error.stdout or b"").decode(errors="replace")[-2000:]
    if code == IMPORT_ERROR and "GATE IMPORT ERROR" in output:
        raise ImportMismatch(next(line for line in output.splitlines() if "GATE IMPORT ERROR" in line))
    return code, time.perf_counter() - start, output


def verify_imports(tree: pathlib.Path, python=None) -> str:
    """Where the copy's gamedyn and gamedyn.recipes come from (raises :class:`ImportMismatch` elsewhere)."""
    code, _, output = run_in(tree, ["--check"], python)
    if code != 0:
        raise ImportMismatch(f"the import check in {tree} exited {code}: {output.strip()[-500:]}")
    return output.strip()


def run_tests(tree, arguments, python=None) -> tuple:
    """``(verdict, summary)`` of ``pytest -x`` on ``arguments``: ``"fail"`` (exit 1, a failing test),
    ``"pass"`` (exit 0) or ``"error"`` (anything else: collection errors, usage, timeout)."""
    code, seconds, output = run_in(tree, ["pytest", "-x", "-q", "-p", "no:cacheprovider", *arguments], python)
    lines = [line for line in output.splitlines() if line.strip()]
    failed = [line.split(" - ")[0].removeprefix("FAILED ") for line in lines if line.startswith("FAILED ")]
    last = lines[-1].strip("= ") if lines else ""
    summary = f"exit {code}: {last}" + (f"; first: {failed[0]}" if failed else "") + f" ({seconds:.0f} s)"
    return ("fail" if code == 1 else "pass" if code == 0 else "error"), summary


def run_reproduce(tree, out: pathlib.Path, claims=(), python=None) -> tuple:
    """``(verdict, summary, failing rows)`` of ``gamedyn reproduce --no-figures`` (default profile):
    ``"fail"`` needs exit 1 and at least one FAIL row in its report; ``"pass"`` exit 0; else ``"error"``."""
    code, seconds, output = run_in(tree, ["gamedyn", "reproduce", "--no-figures", "--out", str(out), *claims], python)
    report = out / "report.md"
    failing = []
    if report.exists():
        failing = [line.split("|")[1].strip() for line in report.read_text(encoding="utf-8").splitlines()
                   if line.startswith("| ") and "| FAIL |" in line]
    lines = [line for line in output.splitlines() if line.strip()]
    summary = f"exit {code}: {lines[-1] if lines else ''} ({seconds:.0f} s)"
    if code == 1 and failing:
        return "fail", summary, failing
    return ("pass" if code == 0 else "error"), summary, failing


@attrs.frozen
class Outcome:
    mutant: Mutant
    problem: str = ""  # a stale pattern or an error: the mutant was not judged
    tests: tuple = ()  # (verdict, summary)
    reproduce: tuple = ()  # (verdict, summary, failing rows); () when not run

    @property
    def killed(self) -> bool:
        if self.problem or not self.tests or self.tests[0] != "fail":
            return False
        return not self.mutant.reproduce or (bool(self.reproduce) and self.reproduce[0] == "fail")


def check(mutant: Mutant, source: pathlib.Path, files, claims=(), python=None, reproduce_all=False) -> Outcome:
    """Apply ``mutant`` to a fresh copy of ``source`` and run its tests (and reproduce when it needs it)."""
    with tempfile.TemporaryDirectory(prefix=f"gamedyn-mutant-{mutant.name}-") as folder:
        tree = pathlib.Path(folder) / "tree"
        copy_tree(source, tree, files)
        problems = pattern_problems(mutant, tree)
        if problems:
            return Outcome(mutant, "; ".join(problems))
        apply(mutant, tree)
        verify_imports(tree, python)
        tests = run_tests(tree, mutant.tests, python)
        report = ()
        if mutant.reproduce or reproduce_all:
            report = run_reproduce(tree, pathlib.Path(folder) / "out", claims, python)
        return Outcome(mutant, tests=tests, reproduce=report)


def baseline(chosen, source, files, claims=(), python=None, reproduce_all=False) -> list:
    """Problems of the unmutated copy: its import check, the chosen mutants' tests, reproduce."""
    with tempfile.TemporaryDirectory(prefix="gamedyn-mutant-baseline-") as folder:
        tree = pathlib.Path(folder) / "tree"
        copy_tree(source, tree, files)
        print(f"baseline copy imports {verify_imports(tree, python)}", flush=True)
        problems = []
        # the files of the mutants without options in one run; a mutant's own options ("-m", "-k") apply
        # to its files only, so each such argument list runs on its own
        plain = sorted({argument for mutant in chosen if not any(a.startswith("-") for a in mutant.tests)
                        for argument in mutant.tests})
        optioned = sorted({mutant.tests for mutant in chosen if any(a.startswith("-") for a in mutant.tests)})
        groups = ([tuple(plain)] if plain else []) + optioned
        for group in groups:
            verdict, summary = run_tests(tree, group, python)
            print(f"baseline tests {' '.join(group)}: {summary}", flush=True)
            if verdict != "pass":
                problems.append(f"the unmutated tree's tests {' '.join(group)} do not pass: {summary}")
        if any(mutant.reproduce for mutant in chosen) or reproduce_all:
            verdict, summary, failing = run_reproduce(tree, pathlib.Path(folder) / "out", claims, python)
            print(f"baseline reproduce: {summary}", flush=True)
            if verdict != "pass":
                problems.append(f"the unmutated tree's reproduce does not pass: {summary}; FAIL rows: {', '.join(failing)}")
        return problems


# -------------------------------------------------------------------------------------------- the table


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def table_row(outcome: Outcome) -> str:
    mutant = outcome.mutant
    files = " ".join(argument.removeprefix("tests/") for argument in mutant.tests)
    if outcome.problem:
        tests, report, verdict = outcome.problem, "-", "STALE" if "pattern" in outcome.problem else "ERROR"
    else:
        tests = outcome.tests[1]
        if outcome.reproduce:
            report = outcome.reproduce[1] + (f"; FAIL: {', '.join(outcome.reproduce[2])}" if outcome.reproduce[2] else "")
        else:
            report = "not required" if not mutant.reproduce else "not run"
        errors = [name for name, result in (("pytest", outcome.tests), ("reproduce", outcome.reproduce))
                  if result and result[0] == "error"]
        verdict = "killed" if outcome.killed else f"ERROR ({', '.join(errors)})" if errors else "SURVIVED"
    algorithm = "yes" if mutant.reproduce else "no"
    return (f"| {mutant.name} | {mutant.family} | {mutant.path} | {algorithm} | {_cell(files)} | {_cell(tests)} "
            f"| {_cell(report)} | {verdict} |")


HEADER = ("| mutant | family | file | changes an algorithm (reproduce must fail) | test files | pytest "
          "| gamedyn reproduce (default) | verdict |\n|---|---|---|---|---|---|---|---|")


def list_mutants(mutants) -> str:
    lines = []
    for mutant in mutants:
        marks = ("algorithm" if mutant.reproduce else "check") + (", pending" if mutant.pending else "")
        lines.append(f"{mutant.name:<28} [{mutant.family}; {marks}] {mutant.path}: {mutant.description}"
                     f"\n{'':<29}tests: {' '.join(mutant.tests)}")
    families = sorted({mutant.family for mutant in mutants})
    active = [mutant for mutant in mutants if not mutant.pending]
    lines.append(f"{len(mutants)} mutants ({len(active)} active, {len(mutants) - len(active)} pending, "
                 f"{sum(m.reproduce for m in mutants)} changing an algorithm) over {len(families)} families: "
                 + ", ".join(families))
    return "\n".join(lines)


def main(argv=None, mutants=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", help="mutants to check (default: every active one; a pending one by name too)")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    parser.add_argument("--family", action="append", default=[], help="only the mutants of this family (repeatable)")
    parser.add_argument("--pending", action="store_true", help="also run the pending mutants")
    parser.add_argument("--jobs", type=int, default=1, help="mutants checked at the same time (default 1)")
    parser.add_argument("--source", default=str(ROOT), help="the tree to copy (default: this checkout)")
    parser.add_argument("--python", default=sys.executable, help="the interpreter of the commands (default: this one)")
    parser.add_argument("--claims", nargs="*", default=[],
                        help="reproduce only these claims (names, recipes or groups; default: every claim)")
    parser.add_argument("--reproduce-all", action="store_true", help="run reproduce for every mutant, not only the "
                        "algorithm-changing ones (informative)")
    parser.add_argument("--no-baseline", action="store_true", help="skip the unmutated baseline run")
    parser.add_argument("--patterns-only", action="store_true", help="check the chosen mutants' patterns and exit")
    args = parser.parse_args(argv)
    mutants = MUTANTS if mutants is None else tuple(mutants)
    if args.list:
        print(list_mutants(mutants))
        return 0
    if args.jobs < 1:
        parser.error(f"--jobs must be >= 1, got {args.jobs}")
    known = {mutant.name for mutant in mutants}
    unknown = [name for name in args.names if name not in known]
    if unknown:
        parser.error(f"no mutant named {', '.join(unknown)}; see --list")
    source = pathlib.Path(args.source).resolve()
    chosen = [mutant for mutant in mutants
              if (mutant.name in args.names if args.names else (args.pending or not mutant.pending))
              and (not args.family or mutant.family in args.family)]
    skipped = [mutant for mutant in mutants if mutant.pending and mutant not in chosen and not args.names]
    print(f"BLAS threads: OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}, "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}; source {source}; "
          f"{len(chosen)} mutants, {args.jobs} at a time", flush=True)
    stale = [Outcome(mutant, "; ".join(pattern_problems(mutant, source))) for mutant in chosen
             if pattern_problems(mutant, source)]
    if skipped:
        stale_pending = [mutant.name for mutant in skipped if pattern_problems(mutant, source)]
        print(f"{len(skipped)} pending mutants skipped (run them with --pending): "
              f"{', '.join(mutant.name for mutant in skipped)}"
              + (f"; their patterns no longer match: {', '.join(stale_pending)}" if stale_pending else
                 "; their patterns all match"), flush=True)
    if stale or args.patterns_only:
        if stale:
            print(HEADER)
            for outcome in stale:
                print(table_row(outcome))
            print(f"{len(stale)} of {len(chosen)} chosen mutants have a pattern that does not match exactly once: "
                  f"update them; no mutant was run")
            return 1
        print(f"the patterns of all {len(chosen)} chosen mutants match exactly once")
        return 0
    started = time.perf_counter()
    snapshot_folder = tempfile.TemporaryDirectory(prefix="gamedyn-mutant-source-")
    try:
        # one snapshot of the tree at the start: the baseline and every mutant copy the same files,
        # whatever happens to the checkout while the gate runs
        snapshot = pathlib.Path(snapshot_folder.name) / "tree"
        files = tree_files(source)
        copy_tree(source, snapshot, files)
        if not args.no_baseline:
            problems = baseline(chosen, snapshot, files, args.claims, args.python, args.reproduce_all)
            if problems:
                print("BASELINE FAILS, no kill would mean anything:\n  " + "\n  ".join(problems))
                return 1
        print(HEADER, flush=True)
        outcomes = []
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            futures = [pool.submit(check, mutant, snapshot, files, args.claims, args.python, args.reproduce_all)
                       for mutant in chosen]
            for future in concurrent.futures.as_completed(futures):
                try:
                    outcome = future.result()
                except ImportMismatch:
                    for other in futures:  # nothing more is worth running
                        other.cancel()
                    raise
                outcomes.append(outcome)
                print(table_row(outcome), flush=True)
    except ImportMismatch as error:
        print(f"ABORT: {error}.\nThe copy of the tree did not import its own code (an installed gamedyn or an "
              f"editable install of another checkout wins), so no mutant result could be trusted. Run the gate "
              f"from a checkout (its gamedyn/recipes link points at its own recipes/, and Python finds it before an "
              f"editable install's finder), or uninstall the other gamedyn.", flush=True)
        return 1
    finally:
        snapshot_folder.cleanup()
    killed = sum(outcome.killed for outcome in outcomes)
    families = sorted({outcome.mutant.family for outcome in outcomes})
    needing = sum(outcome.mutant.reproduce for outcome in outcomes)
    print(f"{killed} of {len(outcomes)} mutants killed (by the tests; the {needing} that change an algorithm also by "
          f"reproduce) over {len(families)} families: {', '.join(families)} ({time.perf_counter() - started:.0f} s)")
    return 0 if killed == len(outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
