"""``gamedyn run`` for the matrix-game, Fenchel-game and extensive-form recipes: how each family builds its problem from
the command line and reports its progress (the margin family's run is in :mod:`gamedyn.cli.commands`).

Each family is one :class:`CommandLineFamily`: its problem sources (``--synthetic`` spec and default,
a file option), the function that builds the problem, the progress table's columns and the row each
reporting step prints. The recipes' own parameters (``--eta-w``, ``--eta-p``, ...) come from their
declarations (:class:`gamedyn.engine.recipe.Parameter`).

- matrix (:data:`MATRIX`): ``--matrix FILE`` (``.npy``: one 2-D array; ``.csv``: comma-separated rows, no
  header) or ``--synthetic m,n`` (a U(-1, 1) game drawn with ``--seed``, default ``50,50``); each step
  reports the averages' value, the certified value bracket [L_t, U_t] (:func:`gamedyn.games.matrix.value_bracket`)
  and the Nash gap.
- Fenchel (:data:`FENCHEL`): ``--problem least-squares|logistic`` on ``--synthetic n,d`` (Gaussian rows,
  ``--seed``, default ``200,50``; :func:`gamedyn.games.fenchel.objectives.synthetic_objective`) and
  ``--domain simplex|ball|l1|reals`` (radius 1; Frank-Wolfe's default the simplex, the others' R^d);
  each step reports f(x_bar_t) and Theorem 2's bound (R_y + R_x)/A_t on f(x_bar_t) - min_K f.
- extensive form (:data:`EFG`): ``--game`` a built-in game (:func:`gamedyn.games.efg.load_game`: ``kuhn_poker``,
  the default, ``leduc_poker``, ``goofspiel(N)``, ``liars_dice(N)``); each step reports the certified
  exploitability and value bracket of the averages (:meth:`gamedyn.games.efg.ExtensiveFormGame.bracket`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable

import attrs
import numpy as np

__all__ = ["FAMILY_COMMANDS", "CommandLineFamily", "FamilyStep", "ReportObserver", "run_family"]


@attrs.frozen
class FamilyStep:
    """One reporting step: the round and the family's columns (name -> number or None)."""

    t: int
    values: dict


def _finite_or_none(value):
    return value if value is not None and math.isfinite(value) else None


class ReportObserver:
    """``gamedyn run``'s table as an observer: a row after each reporting round ``t < T`` (``columns(state)``:
    name -> number or None; ``make(t, values)`` builds the row), shown through ``on_step``.

    The rows are its state in a checkpoint (``checkpoint_state`` / ``restore_state``): a resumed run's table
    starts with the rows of the rounds before the checkpoint, shown again, so it is the whole table of the
    uninterrupted run (issue 30: a resumed ``--json`` printed only the rows after the checkpoint, one row
    for a finished run).
    """

    needs_round_state = True
    name = "report"
    checkpoint_optional = True  # a checkpoint without the table resumes (its table starts at the checkpoint), and the reverse

    def __init__(self, steps, T: int, names: tuple, columns: Callable, make: Callable, on_step=None, progress=None):
        self.steps, self.T, self.names, self.columns, self.make = set(steps), T, tuple(names), columns, make
        self.on_step, self.progress = on_step, progress
        self.rows: list = []

    def observe(self, state) -> bool:
        if self.progress is not None:
            self.progress.update(state.t)
        if state.t in self.steps and state.t < self.T:
            self._add(state.t, self.columns(state))
        return False  # never stops: it only reads the round

    def _add(self, t: int, values: dict) -> None:
        self.rows.append(self.make(t, values))
        if self.on_step is not None:
            self.on_step(self.rows[-1])

    def checkpoint_state(self) -> dict:
        """The rows so far: their rounds, their numbers and which were None."""
        values = [[row.values[name] if isinstance(getattr(row, "values", None), dict) else getattr(row, name)
                   for name in self.names] for row in self.rows]
        known = np.array([[value is not None for value in line] for line in values], dtype=bool).reshape(-1, len(self.names))
        numbers = np.array([[float(value) if value is not None else 0.0 for value in line] for line in values],
                           dtype=np.float64).reshape(-1, len(self.names))
        return {"t": np.array([row.t for row in self.rows], dtype=np.int64), "values": numbers, "known": known}

    def restore_state(self, state: dict) -> None:
        """The rows of the rounds before the checkpoint, shown again."""
        rounds, numbers, known = state.get("t"), state.get("values"), state.get("known")
        if rounds is None:
            return
        for t, line, present in zip(np.asarray(rounds).tolist(), np.asarray(numbers), np.asarray(known)):
            self._add(int(t), {name: (float(value) if here else None)
                               for name, value, here in zip(self.names, line, present)})


def _parse_counts(text: str, names: str, example: str) -> tuple:
    fix = f"--synthetic expects {names} such as {example} (integers >= 1)"
    parts = [part.strip() for part in str(text).split(",")]
    try:
        counts = tuple(int(part) for part in parts)
    except ValueError:
        raise ValueError(f"{fix}; got {text!r}.") from None
    if len(counts) != 2 or min(counts) < 1:
        raise ValueError(f"{fix}; got {text!r}.")
    return counts


# ------------------------------------------------------------------------------------- matrix


def load_matrix_file(path: str) -> np.ndarray:
    """A payoff matrix from ``.npy`` (one 2-D array) or ``.csv`` (numbers separated by commas, one row a line)."""
    from gamedyn.games.matrix import check_payoff_matrix

    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no such file; check the path given to --matrix.")
    extension = os.path.splitext(path)[1].lower()
    if extension == ".npy":
        matrix = np.load(path, allow_pickle=False)
    elif extension == ".csv":
        try:
            matrix = np.loadtxt(path, delimiter=",", ndmin=2)
        except ValueError as error:
            raise ValueError(f"{path}: not a CSV of numbers ({error}); write one row of payoffs per line.") from None
    else:
        raise ValueError(f"--matrix {path}: a payoff matrix is read from .npy or .csv, got "
                         f"{extension or 'a file without extension'}.")
    return check_payoff_matrix(matrix, f"the matrix in {path}")


def _matrix_problem(args):
    if args.matrix is not None:
        if args.seed is not None:
            raise ValueError(f"--seed draws a synthetic game (--synthetic m,n); it has no effect on --matrix "
                             f"{args.matrix}: drop --seed.")
        M = load_matrix_file(args.matrix)
        return M, f"{args.matrix}: {M.shape[0]} x {M.shape[1]} payoff matrix (rows maximise x^T M y)"
    spec = args.synthetic or MATRIX.synthetic_default
    m, n = _parse_counts(spec, "m,n", "50,60")
    seed = 0 if args.seed is None else args.seed
    M = np.random.default_rng(seed).uniform(-1.0, 1.0, size=(m, n))
    return M, f"U(-1, 1) payoff matrix, m={m} rows (maximise), n={n} columns (seed {seed})"


def _matrix_step(M, row, column):
    from gamedyn.games.matrix import value_bracket

    bracket = value_bracket(M, row, column)
    return {"value": float(row @ M @ column), "lower": bracket.lower, "upper": bracket.upper,
            "nash_gap": float(np.max(M @ column) - np.min(row @ M))}


def _matrix_round(M, state):
    # The sums are output-weighted (linear or quadratic averaging: not the learners' weights): on the simplex
    # each one's entries add up to its own weight total.
    return _matrix_step(M, state.w_sum / state.w_sum.sum(), state.p_sum / state.p_sum.sum())


def _matrix_final(M, result):
    bracket = result.certificate
    return ({"value": result.value, "lower": bracket.lower, "upper": bracket.upper, "nash_gap": result.nash_gap},
            {"row": result.row, "column": result.column},
            f"value in [{bracket.lower:.6g}, {bracket.upper:.6g}] (certified), Nash gap {result.nash_gap:.3g}")


# ------------------------------------------------------------------------------------ Fenchel


def _fenchel_problem(args):
    from gamedyn.games.fenchel.objectives import synthetic_objective

    spec = args.synthetic or FENCHEL.synthetic_default
    n, d = _parse_counts(spec, "n,d", "200,50")
    seed = 0 if args.seed is None else args.seed
    return synthetic_objective(args.problem or "least-squares", n, d, seed)


_DOMAINS = ("simplex", "ball", "l1", "reals")


def fenchel_domain(name: str, recipe: str):
    """The domain ``--domain`` names (radius 1), or the recipe's default (None: the simplex for frank_wolfe)."""
    from gamedyn.core.domains import Ball, L1Ball, Reals, Simplex

    if name is None:
        name = "simplex" if recipe == "frank_wolfe" else "reals"
    return {"simplex": Simplex(), "ball": Ball(1.0), "l1": L1Ball(1.0), "reals": Reals()}[name]


def _fenchel_parameters(args, entry) -> dict:
    if "domain" not in entry.recipe.options:
        if args.domain not in (None, "reals"):
            raise ValueError(f"--domain: {entry.name} runs on R^d only; drop --domain or run frank_wolfe or "
                             "accelerated_gradient.")
        return {}
    domain = fenchel_domain(args.domain, entry.name)
    if entry.name == "accelerated_gradient" and args.domain not in (None, "reals", "ball"):
        raise ValueError(f"--domain {args.domain}: accelerated_gradient runs on R^d (reals) or a ball; pass "
                         "--domain reals or --domain ball.")
    if entry.name == "accelerated_gradient" and args.domain in (None, "reals"):
        return {}
    return {"domain": domain}


def _fenchel_round(objective, state):
    bound = None
    if state.w_regret is not None and state.p_regret is not None and state.w_weight_total == state.p_weight_total:
        bound = (state.w_regret + state.p_regret) / state.w_weight_total
    return {"f": objective.value_at(state.p_sum / state.p_weight_total), "bound": bound}


def _fenchel_final(objective, result):
    return ({"f": result.value, "bound": result.game.theorem2_bound}, {"x": result.x},
            f"f(x_bar_T) = {result.value:.6g}; Theorem 2: f(x_bar_T) - min_K f <= "
            f"{result.game.theorem2_bound if result.game.theorem2_bound is not None else float('nan'):.3g}")


# --------------------------------------------------------------------------------- extensive form


def _efg_problem(args):
    from gamedyn.games.efg import load_game

    for given, flag in ((args.synthetic, "--synthetic"), (args.seed, "--seed")):
        if given is not None:
            raise ValueError(f"{flag} has no effect on the extensive-form recipes; name a built-in game with --game "
                             "(kuhn_poker, leduc_poker, goofspiel(N), liars_dice(N)) or a game file (FILE.json): drop it.")
    name = args.game or "kuhn_poker"
    if name.lower().endswith(".json"):  # a game file (gamedyn.games.efg.files; issue 33)
        from gamedyn.games.efg import load

        game = load(name)
    else:
        game = load_game(name)
    sizes = " and ".join(str(treeplex.dimension) for treeplex in game.treeplexes)
    return game, f"{game.name}: {sizes} sequences, {game.A.nnz} payoff entries (player 0 maximises x^T A y)"


def _efg_columns(bracket):
    return {"exploitability": bracket.exploitability, "lower": bracket.lower, "upper": bracket.upper}


def _efg_round(game, state):
    # the output-weighted sums: their empty-sequence entry is the sum of the weights
    return _efg_columns(game.bracket(state.w_sum / state.w_sum[0], state.p_sum / state.p_sum[0]))


def _efg_final(game, result):
    bracket = result.certificate
    return (_efg_columns(bracket), {"x": result.x, "y": result.y},
            f"value in [{bracket.lower:.6g}, {bracket.upper:.6g}] (certified), exploitability {bracket.exploitability:.3g}")


# ----------------------------------------------------------------------------------- families


@attrs.frozen
class CommandLineFamily:
    """How ``gamedyn run`` builds a family's problem and reports each step.

    ``problem(args) -> (problem, description)``; ``parameters(args, entry) -> dict`` the family's own
    recipe arguments from the command line (beyond the declared ``--eta-w`` ...); ``each_round(problem,
    state)`` and ``final(problem, result) -> (columns, output vectors, verdict line)``.
    """

    name: str
    synthetic_default: str
    synthetic_help: str
    columns: tuple
    problem: Callable
    each_round: Callable
    final: Callable
    parameters: Callable | None = None
    options: tuple = ()  # command-line options only this family reads (refused for the others)


MATRIX = CommandLineFamily("matrix", "50,50", "m,n: a U(-1, 1) game with m rows and n columns",
                           ("value", "lower", "upper", "nash_gap"), _matrix_problem, _matrix_round, _matrix_final,
                           options=("matrix",))
FENCHEL = CommandLineFamily("fenchel", "200,50", "n,d: n Gaussian rows in d dimensions for --problem",
                            ("f", "bound"), _fenchel_problem, _fenchel_round, _fenchel_final, _fenchel_parameters,
                            options=("problem", "domain"))
EFG = CommandLineFamily("efg", "", "(none: --game names a built-in game)", ("exploitability", "lower", "upper"),
                        _efg_problem, _efg_round, _efg_final, options=("game",))
FAMILY_COMMANDS = {"matrix": MATRIX, "fenchel": FENCHEL, "efg": EFG}
_FLAGS = {"matrix": "--matrix", "problem": "--problem", "domain": "--domain", "data": "--data",
          "npy_layout": "--npy-layout", "game": "--game"}


def check_family_options(args, family: str) -> None:
    """Options of another family are refused, naming the family they belong to (never silently ignored)."""
    own = FAMILY_COMMANDS[family].options if family in FAMILY_COMMANDS else ("data", "npy_layout")
    for owner, options in [("margin", ("data", "npy_layout")),
                           *((name, spec.options) for name, spec in FAMILY_COMMANDS.items())]:
        for option in options:
            if option not in own and getattr(args, option, None) is not None:
                raise ValueError(f"{_FLAGS[option]} applies to the {owner} recipes; {args.recipe} is a {family} recipe: "
                                 f"drop {_FLAGS[option]} (see `gamedyn list`).")


def recipe_parameters(args, entry) -> dict:
    """The declared parameters given on the command line (``--eta-w 0.1`` -> ``eta_w=0.1``)."""
    chosen = {}
    for parameter in entry.recipe.parameters:
        value = getattr(args, parameter.name, None)
        if parameter.cli and value is not None:
            if parameter.kind is float and not (math.isfinite(value) and value > 0) and parameter.name.startswith("eta"):
                raise ValueError(f"{parameter.flag} must be a positive step, got {value:g}.")
            chosen[parameter.name] = value
    return chosen


def run_family(entry, args, reporting, *, built=None, on_step=None, progress=None, checkpoint_options=None) -> dict:
    """Run a matrix or Fenchel recipe as ``gamedyn run`` does, reporting after the rounds ``reporting``;
    returns the report (JSON-ready). ``built``: the ``(problem, description)`` already built from ``args``
    (default: built here)."""
    family = FAMILY_COMMANDS[entry.recipe.family.name]
    problem, description = family.problem(args) if built is None else built
    parameters = {**recipe_parameters(args, entry), **(family.parameters(args, entry) if family.parameters else {})}
    table = ReportObserver(reporting, args.T, family.columns, lambda state: family.each_round(problem, state),
                           FamilyStep, on_step, progress)
    result = entry.recipe.run(problem, args.T, observers=[table], regrets=True,  # the report shows Theorem 2's bound
                              **parameters, **(checkpoint_options or {}))
    reports = table.rows
    columns, outputs, verdict = family.final(problem, result)
    reports.append(FamilyStep(result.game.rounds, columns))
    if on_step is not None:
        on_step(reports[-1])
    return {"description": description, "steps": reports, "outputs": outputs, "verdict": verdict,
            "stop_reason": result.game.stop_reason, "result": result,
            "parameters": {key: value for key, value in parameters.items() if key != "domain"},
            "domain": repr(parameters["domain"]) if "domain" in parameters else None}


_WIDTH = 15


_SHOWN = {"lower": "lower L_t", "upper": "upper U_t", "nash_gap": "Nash gap", "f": "f(x_bar_t)",
          "bound": "(R_y+R_x)/A_t", "exploitability": "exploitability"}


def header(family: str) -> str:
    return f"{'t':>8}" + "".join(_SHOWN.get(name, name).rjust(_WIDTH) for name in FAMILY_COMMANDS[family].columns)


def row(step: FamilyStep, family: str) -> str:
    cells = ("-" if step.values[name] is None else f"{step.values[name]:.6g}" for name in FAMILY_COMMANDS[family].columns)
    return f"{step.t:>8}" + "".join(cell.rjust(_WIDTH) for cell in cells)


def json_steps(reports) -> list:
    return [{"t": step.t, **{key: _finite_or_none(value) for key, value in step.values.items()}} for step in reports]
