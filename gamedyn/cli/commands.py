"""The commands of the ``gamedyn`` command line (see :mod:`gamedyn.cli`): list, run, reproduce, figures, explore."""

from __future__ import annotations

import json
import math
import os
import sys
import time

import attrs
import numpy as np
from scipy.sparse.linalg import LinearOperator

from gamedyn.cli.progress import ProgressBar

DEFAULT_SYNTHETIC = "200,20,0.05"
DEFAULT_OUT = "gamedyn-report"
_TRAJECTORY_LIMIT = 10_000_000  # T (n + d): above it an original reports only its final output (memory)


# --------------------------------------------------------------------------------------- list


def _entries():
    from gamedyn.paper.registry import original_entries, recipe_entries

    return recipe_entries() + original_entries()


_FAMILY_TITLES = {
    "margin": ("Margin recipes (game form, gamedyn.recipes; A = signed rows)",
               "gamedyn run NAME [--data FILE | --synthetic n,d,gamma] [--T N]"),
    "matrix": ("Matrix-game recipes (gamedyn.recipes; M = payoff matrix, rows maximise)",
               "gamedyn run NAME [--matrix FILE.npy|.csv | --synthetic m,n] [--seed S] [--T N]"),
    "fenchel": ("Fenchel-game recipes (gamedyn.recipes; minimise a convex f)",
                "gamedyn run NAME [--problem least-squares|logistic] [--synthetic n,d] [--domain ...] [--T N]"),
    "efg": ("Extensive-form recipes (gamedyn.recipes; a two-player zero-sum game in sequence form)",
            "gamedyn run NAME [--game kuhn_poker|leduc_poker|goofspiel(N)|liars_dice(N)] [--T N]"),
}


def command_list(args) -> int:
    """``gamedyn list``: print every recipe and original algorithm with its reference; returns 0."""
    from gamedyn.engine.recipe import FAMILIES
    from gamedyn.paper.registry import original_entries, recipe_entries

    groups = [(*_FAMILY_TITLES[family], recipe_entries(family)) for family in FAMILIES]
    groups.append(("Originals (published form, gamedyn.games.margin.original)",
                   "gamedyn run NAME ... (also without 'original.', e.g. gamedyn run perceptron)", original_entries()))
    for title, usage, entries in groups:
        print(f"{title}:")
        width = max(len(entry.name) for entry in entries)
        for entry in entries:
            print(f"  {entry.name:<{width}}  {entry.summary}  [{entry.reference}]")
            options = [] if entry.recipe is None else [parameter for parameter in entry.recipe.parameters
                                                       if parameter.cli]
            if options:
                print(f"  {'':<{width}}  options: " + ", ".join(f"{parameter.flag} ({parameter.help})"
                                                             for parameter in options))
        print(f"  run: {usage}")
        print()
    print("Every recipe's box: python -c \"import gamedyn.recipes as r; help(r.NAME)\" or docs/recipes/.")
    return 0


def resolve_entry(name: str):
    """The registry entry called ``name``, or ``original.<name>`` when no recipe has that name."""
    entries = {entry.name: entry for entry in _entries()}
    for candidate in (name, f"original.{name}"):
        if candidate in entries:
            return entries[candidate]
    raise ValueError(f"unknown recipe {name!r}; valid names: {', '.join(entries)} (see `gamedyn list`).")


# ---------------------------------------------------------------------------------------- run


@attrs.frozen
class StepReport:
    """One reporting step of ``gamedyn run``: the output's margins, the regrets and Theorem 2's bound."""

    t: int
    margin: float
    normalized_margin: float
    w_regret: float | None = None
    p_regret: float | None = None
    theorem2_bound: float | None = None
    upper: float | None = None  # U_t: the certified upper end of the max margin (gamedyn.certify.certificates)
    verdict: str | None = None  # the final step's certificate verdict (separable / not separable / undecided)


_REPORTED = ("margin", "normalized_margin", "w_regret", "p_regret", "theorem2_bound", "upper")  # a row's numbers


def reporting_steps(T: int, every: int | None = None) -> list:
    """1, 2, 5, 10, 20, 50, ... up to T (and T), or K, 2K, ... (and T) with ``every=K``."""
    if every is not None:
        steps = list(range(every, T + 1, every))
    else:
        steps, decade = [], 1
        while decade <= T:
            steps += [step for step in (decade, 2 * decade, 5 * decade) if step <= T]
            decade *= 10
    return sorted(set(steps) | {T})


def _margins(A, w, q=2.0) -> tuple[float, float]:
    """``(min_i (A w)_i, that / ||w||_q)``: the normalised margin in the certificate's norm q."""
    margin = float(np.min(A @ w))
    w = np.asarray(w, dtype=np.float64)
    norm = float(np.linalg.norm(w) if q == 2.0 else np.linalg.norm(w, ord=q))
    return margin, (margin / norm if norm > 0 else math.nan)


def recipe_output(name: str, state, theta: str = "wang", p: float = 2.0) -> np.ndarray:
    """The recipe's output ``.w`` after the round that ``state`` (a RoundState) describes: the output
    rule the recipe declares in its own file (:class:`gamedyn.recipes.Recipe`)."""
    from gamedyn.recipes import RECIPES

    return RECIPES[name].read_output(state, theta=theta, p=p)


def _theorem2(w_regret, p_regret, state_weights):
    w_total, p_total = state_weights
    if w_total != p_total:  # the players use different weights (Ji et al.'s theta = 1): no Theorem 2
        return None
    return (w_regret + p_regret) / w_total


def run_recipe(entry, A, T, steps, *, p=2.0, theta="wang", w_comparator=None, on_step=None, progress=None,
               checkpoint_options=None, q=2.0, parameters=None) -> tuple:
    """Play a recipe for T rounds, reporting at ``steps``; returns (reports, stop reason, output ``.w``).

    ``checkpoint_options`` (``checkpoint``, ``checkpoint_every``, ``resume_from``) go to the recipe.

    ``w_comparator`` (a fixed u) makes R_w the regret against u instead of against the best point
    of the w-domain (Theorem 7's R_w(u): the p-norm game's w-domain is all of R^d). ``q`` is the
    norm of the normalised margins (the certificate's: p/(p-1) for the p-norm game).
    """
    from gamedyn.certify.certificates import certify_not_separable

    from gamedyn.cli.families import ReportObserver

    recipe, options = entry.recipe, {**(parameters or {}), "p": p, "theta": theta}  # the declared ones are passed

    def columns(state) -> dict:
        w_regret, p_regret = state.w_regret, state.p_regret
        if w_comparator is not None:
            w_regret = state.w_played_loss - state.w_loss_sum.value(w_comparator)
        margin, normalized = _margins(A, recipe.read_output(state, **options), q)
        return {"margin": margin, "normalized_margin": normalized, "w_regret": w_regret, "p_regret": p_regret,
                "theorem2_bound": _theorem2(w_regret, p_regret, (state.w_weight_total, state.p_weight_total)),
                "upper": None if state.certificate_tracker is None else state.certificate_tracker.upper}

    # The table is an observer whose rows a checkpoint keeps: a resumed run prints the whole table.
    table = ReportObserver(steps, T, _REPORTED, columns, lambda t, values: StepReport(t, **values), on_step, progress)
    result = recipe.run(A, T, observers=[table], **(checkpoint_options or {}), **options)
    reports = table.rows
    game = result.game
    w_regret = game.w_regret if w_comparator is None else game.w_regret_against(w_comparator)
    certificate = result.certificate  # None for matrix-free data (an operator): no tracked bracket
    if certificate is not None and certificate.separable is None:
        certificate = certify_not_separable(A, certificate)
    reports.append(StepReport(T, *_margins(A, result.w, q), w_regret, game.p_regret,
                              _theorem2(w_regret, game.p_regret, (game.weight_total, game.p_weight_total)),
                              None if certificate is None else certificate.upper,
                              None if certificate is None else certificate.verdict()))
    if on_step is not None:
        on_step(reports[-1])
    return reports, game.stop_reason, np.asarray(result.w)


def run_original(entry, A, T, steps, *, p=2.0, theta="wang", on_step=None, q=2.0) -> tuple:
    """Run an original algorithm; report its output at ``steps`` (from its trajectory when it fits).

    How to call it and read its output is the entry's :class:`gamedyn.paper.registry.OriginalForm`.
    Returns (reports, reason, the final output vector).
    """
    form, options = entry.form, {"p": p, "theta": theta}
    if form.updates:
        w, updates = form.call(A, T, options, False)
        reports, final = [StepReport(updates, *_margins(A, w, q))], w
        reason = (f"separated after {updates} updates" if reports[0].margin > 0
                  else f"not separated within T = {T} updates")
    else:
        n, d = A.shape
        if T * (n + d) > _TRAJECTORY_LIMIT or form.at is None:
            steps = [T]  # the whole trajectory would not fit comfortably in memory
        if steps == [T]:
            outputs = {T: form.final(form.call(A, T, options, False))}
        else:
            path = form.call(A, T, options, True)
            outputs = {t: form.at(path, t) for t in steps}
        reports = [StepReport(t, *_margins(A, outputs[t], q)) for t in sorted(outputs)]
        final = outputs[max(outputs)]
        reason = f"completed T = {T} iterations"
    if on_step is not None:
        for step in reports:
            on_step(step)
    return reports, reason, np.asarray(final)


_COLUMNS = ("t", "margin", "normalised", "R_w", "R_p", "(R_w+R_p)/S_t", "upper U_t")
_WIDTH = 15


def _cell(value) -> str:
    return ("-" if value is None else f"{value:.6g}").rjust(_WIDTH)


def _row(step: StepReport) -> str:
    values = (step.margin, step.normalized_margin, step.w_regret, step.p_regret, step.theorem2_bound, step.upper)
    return f"{step.t:>8}" + "".join(_cell(value) for value in values)


_HEADER = f"{_COLUMNS[0]:>8}" + "".join(name.rjust(_WIDTH) for name in _COLUMNS[1:])


def _header(q: float) -> str:
    """The table's header; in the q-norm (q != 2) its normalised margin and upper end say so."""
    if q == 2.0:
        return _HEADER
    names = [{"normalised": "normalised_q", "upper U_t": "upper_q U_t"}.get(name, name) for name in _COLUMNS]
    return f"{names[0]:>8}" + "".join(name.rjust(_WIDTH) for name in names[1:])


# ------------------------------------------------------------------------- the exact oracle

ORACLE_BUDGET = 1e8
"""The default ``gamedyn run`` computes the exact max margin when :func:`oracle_work` is at most
this: measured on one core of the 2-core test machine, 1.5 s of CPU at n = 10^4, d = 100 (1e8) and
0.7 s at n = 5 * 10^4, d = 20 (2e7), against 11 s at n = 5 * 10^4, d = 100 (5e8) and over 8 minutes
at n = 5 * 10^5, d = 100 (5e9); see docs/how-to/run-on-your-data.md."""


def oracle_work(n: int, d: int, q: float = 2.0) -> float:
    """The cost model of the exact oracle on n x d rows: ``n d min(n, d)``.

    :func:`gamedyn.certify.margins.max_margin` (NNLS) takes about min(n, d) active-set steps over the n x d
    rows; :func:`gamedyn.certify.margins.max_margin_q` (q != 2) starts from it and adds Newton steps on the
    support, measured 3-11x the l2 oracle for min(n, d) = 100-500: the factor 2 + min(n, d)/50.
    """
    k = min(n, d)
    return float(n) * float(d) * float(k) * (1.0 if q == 2.0 else 2.0 + k / 50.0)


@attrs.frozen
class OracleReport:
    """The exact max margin for ``gamedyn run``'s header, or why it was not computed."""

    state: str  # "computed", "not separable", "skipped" (over the budget), "off" (--no-oracle), "out of core"
    gamma: float | None = None  # in the certificate's norm q; 0.0 when not separable, None when not computed
    line: str | None = None  # the header line (None: nothing to print)


def _oracle(data, q: float, choice, comparator_needed: bool) -> OracleReport:
    """Run the exact oracle when asked (``choice`` True), never (False), or when it is cheap (None)."""
    from gamedyn.certify.margins import MarginUndecidedError, NotSeparableError, max_margin, max_margin_q

    name = "gamma" if q == 2.0 else "gamma_q"
    if isinstance(data.A, LinearOperator):
        return OracleReport("out of core")
    if choice is False:
        return OracleReport("off", line=f"max margin {name}: not computed (--no-oracle)")
    work = oracle_work(data.n, data.d, q) * (2.0 if comparator_needed else 1.0)  # the comparator solves it again
    if choice is None and work > ORACLE_BUDGET:
        return OracleReport("skipped", line=(
            f"max margin {name}: skipped (the exact oracle on n = {data.n}, d = {data.d} would cost about "
            f"{work:.2g} operations, over the {ORACLE_BUDGET:.0e} that take a few seconds); pass --oracle to compute it"))
    try:
        if q == 2.0:
            gamma = max_margin(data.A).gamma
            return OracleReport("computed", gamma, f"max margin gamma = {gamma:.6g} (exact l2 oracle)")
        bracket = max_margin_q(data.A, q)
        return OracleReport("computed", bracket.lower, (
            f"max margin gamma_q = {bracket.lower:.6g} (q = p/(p-1) = {q:.6g}; the q-norm oracle max_margin_q "
            f"certifies [{bracket.lower:.6g}, {bracket.upper:.6g}])"))
    except NotSeparableError:  # not separable: the run certifies it (Gordan) instead of refusing the data
        oracle = "l2" if q == 2.0 else "q-norm"
        return OracleReport("not separable", 0.0,
                            f"max margin {name} = 0: the exact {oracle} oracle finds the data not separable through the origin")
    except MarginUndecidedError as error:
        raise ValueError(
            f"{data.source}: float64 cannot decide whether the data are separable through the origin (the max "
            f"margin lies in [{error.lower:.3g}, {error.upper:.3g}], no direction is certified positive); "
            "these algorithms need a margin float64 can resolve: check the labels and near-duplicate rows."
        ) from None


# ------------------------------------------------------------------------ options that apply


def _declared(entry) -> tuple:
    return entry.recipe.options if entry.recipe is not None else entry.form.options


def _check_options_apply(args, entry) -> None:
    """--p, --theta, --nu ... only for the algorithms that declare them (never silently ignored): every option a
    recipe declares for the command line (:class:`gamedyn.engine.recipe.Parameter`), and --p, --theta."""
    from gamedyn.recipes import RECIPES

    described = {"p": "the p-norm algorithms", "theta": "the accelerated perceptron",
                 "eta_w": "the recipes with a w-player step", "eta_p": "the recipes with a p-player step"}
    options = dict.fromkeys(["p", "theta", "eta_w", "eta_p"])
    options.update({parameter.name: None for declaration in RECIPES.values() for parameter in declaration.parameters
                    if parameter.cli})
    for option, flag, what in ((name, "--" + name.replace("_", "-"), described.get(name, "the recipes that declare it"))
                               for name in options):
        if getattr(args, option, None) is not None and option not in _declared(entry):
            takers = ", ".join(other.name for other in _entries() if option in _declared(other))
            raise ValueError(f"{flag} applies to {what} ({takers}); {entry.name} has no {option}: drop {flag}, "
                             "or run one of those.")


def _check_data_options(args) -> None:
    """--npy-layout only for a .npy file, --seed only for synthetic data (never silently ignored)."""
    if args.seed is not None and args.seed < 0:
        raise ValueError(f"--seed must be a non-negative integer, got {args.seed}.")
    if args.seed is not None and args.data is not None:
        raise ValueError(f"--seed seeds the synthetic data (--synthetic n,d,gamma); it has no effect on --data "
                         f"{args.data}: drop --seed.")
    if args.npy_layout is None:
        return
    if args.data is None:
        raise ValueError("--npy-layout says how to read a .npy file given with --data FILE.npy; the synthetic data "
                         "have no layout: drop --npy-layout.")
    if os.path.isdir(args.data):
        raise ValueError(f"--npy-layout applies to a single .npy file; the folder {args.data} names its layout by its "
                         "chunk files (X_000.npy ... + y.npy, or A_000.npy ...): drop --npy-layout.")
    extension = os.path.splitext(args.data)[1].lower()
    if extension != ".npy":
        raise ValueError(f"--npy-layout applies to a .npy file; {args.data} is a {extension or 'file without extension'} "
                         "file, whose layout is fixed (see `gamedyn run --help`): drop --npy-layout.")


def _load(args):
    from gamedyn.io.data_files import load_data_file, synthetic_data

    _check_data_options(args)
    if args.data is not None:
        return load_data_file(args.data, layout=args.npy_layout)
    return synthetic_data(args.synthetic or DEFAULT_SYNTHETIC, seed=0 if args.seed is None else args.seed)


def _finite_or_none(value):
    return value if value is not None and math.isfinite(value) else None


def _family_of(entry) -> str:
    return "margin" if entry.recipe is None else entry.recipe.family.name


def command_run(args) -> int:
    """``gamedyn run``: run one recipe or original on the data and print its report; returns the exit status."""
    from gamedyn.cli.families import check_family_options

    entry = resolve_entry(args.recipe)
    if args.T < 1:
        raise ValueError(f"--T must be a positive integer (the number of rounds), got {args.T}.")
    if args.every is not None and args.every < 1:
        raise ValueError(f"--every must be a positive integer, got {args.every}.")
    _check_options_apply(args, entry)
    check_family_options(args, _family_of(entry))
    if _family_of(entry) != "margin":
        return _run_other_family(args, entry)
    _check_data_options(args)
    p = 2.0 if args.p is None else args.p
    theta = "wang" if args.theta is None else args.theta
    if "p" in _declared(entry) and not (2.0 <= p < math.inf):  # the p-norm algorithms declare a p
        raise ValueError(f"--p must be a number >= 2 for the p-norm algorithms, got {p:g}.")
    q = p / (p - 1.0) if "p" in _declared(entry) else 2.0  # the certificate's norm (Theorem 7's gamma_q)
    checkpoint_options = _checkpoint_options(args, entry)
    data = _load(args)
    out_of_core = isinstance(data.A, LinearOperator)  # a folder of .npy chunks: only products, no rows
    if out_of_core and entry.kind != "recipe":
        raise ValueError(f"{entry.name} reads rows of A in memory; on a folder of .npy chunks run a recipe "
                         "(`gamedyn list` shows them), which needs only A @ w and A.T @ p.")
    is_recipe = entry.kind == "recipe"
    wants_comparator = is_recipe and entry.recipe.comparator is not None  # declared (Theorem 7's R_w(u))
    oracle = _oracle(data, q, args.oracle, wants_comparator)
    steps = reporting_steps(args.T, args.every)
    comparator, notes = None, []
    if out_of_core:
        notes.append("out-of-core data: the exact max margin and Theorem 7's comparator need A in memory "
                     "and are not computed")
    if wants_comparator and oracle.state == "computed":
        comparator = entry.recipe.w_comparator(data.A, p=p, theta=theta)
        notes.append(entry.recipe.comparator_note)
    elif wants_comparator and oracle.state in ("skipped", "off"):
        notes.append("R_w is the regret against the best point of the w-domain (all of R^d: infinite): Theorem 7's "
                     "comparator u, the max-margin direction, needs the exact oracle (--oracle)")
    if q != 2.0:
        notes.append(f"margins in the q-norm of the certificate, q = p/(p-1) = {q:.6g}: normalised_q = "
                     "min_i (A w)_i / ||w||_q and upper_q U_t bracket gamma_q")
    if not is_recipe:
        notes.append("an original algorithm: regrets and Theorem 2's bound belong to the game form ('-')")
    if not args.json:
        print(f"gamedyn run {entry.name}  [{entry.reference}]")
        print(f"data: {data.describe()}")
        if oracle.line is not None:
            print(oracle.line)
        for note in notes:
            print(note)
        if args.resume is not None:
            from gamedyn.engine.checkpoints import checkpoint_info

            print(f"resumed from {args.resume} after round {checkpoint_info(args.resume)['round']}")
        print(_header(q), flush=True)

    start = time.perf_counter()
    with ProgressBar(args.T, f"{entry.name}, round", stream=sys.stderr) as progress:
        def show(step):
            if not args.json:
                progress.clear()
                print(_row(step), flush=True)

        if is_recipe:
            from gamedyn.cli.families import recipe_parameters

            reports, reason, output = run_recipe(entry, data.A, args.T, steps, p=p, theta=theta,
                                                 w_comparator=comparator, on_step=show, progress=progress,
                                                 checkpoint_options=checkpoint_options, q=q,
                                                 parameters=recipe_parameters(args, entry))
        else:
            reports, reason, output = run_original(entry, data.A, args.T, steps, p=p, theta=theta, on_step=show, q=q)
    seconds = time.perf_counter() - start

    if args.json:
        document = {
            "algorithm": entry.name, "kind": entry.kind, "reference": entry.reference,
            "data": {"source": data.source, "n": data.n, "d": data.d, "scaled_by": data.scaled_by},
            "max_margin": _finite_or_none(oracle.gamma),  # in the norm q below; None when not computed
            "separable": {"computed": True, "not separable": False}.get(oracle.state), "oracle": oracle.state,
            "margin_norm_q": q, "T": args.T, "stop_reason": reason, "seconds": round(seconds, 3), "notes": notes,
            "steps": [{key: (_finite_or_none(value) if isinstance(value, float) else value)
                       for key, value in attrs.asdict(step).items()} for step in reports],
            "output": [_finite_or_none(float(value)) for value in output],
        }
        print(json.dumps(document, allow_nan=False))
    else:
        print(f"{reason}; {seconds:.2f} s")
        print(f"verdict: {_verdict(reports, data.A)}")
    return 0


def _run_other_family(args, entry) -> int:
    """``gamedyn run`` for a matrix-game or Fenchel-game recipe (:mod:`gamedyn.cli.families`)."""
    from gamedyn.cli import families

    family = entry.recipe.family.name
    if args.seed is not None and args.seed < 0:
        raise ValueError(f"--seed must be a non-negative integer, got {args.seed}.")
    checkpoint_options = _checkpoint_options(args, entry)
    built = families.FAMILY_COMMANDS[family].problem(args)
    if not args.json:
        print(f"gamedyn run {entry.name}  [{entry.reference}]")
        print(f"problem: {built[1]}", flush=True)
    start = time.perf_counter()
    printed_header: list[bool] = []
    with ProgressBar(args.T, f"{entry.name}, round", stream=sys.stderr) as progress:
        def show(step):
            if not args.json:
                progress.clear()
                if not printed_header:
                    printed_header.append(True)
                    print(families.header(family), flush=True)
                print(families.row(step, family), flush=True)

        if not args.json and args.resume is not None:
            from gamedyn.engine.checkpoints import checkpoint_info

            print(f"resumed from {args.resume} after round {checkpoint_info(args.resume)['round']}")
        run = families.run_family(entry, args, reporting_steps(args.T, args.every), built=built, on_step=show, progress=progress,
                                  checkpoint_options=checkpoint_options)
    seconds = time.perf_counter() - start
    result = run["result"]
    if args.json:
        document = {
            "algorithm": entry.name, "kind": entry.kind, "family": family, "reference": entry.reference,
            "problem": run["description"], "domain": run["domain"], "parameters": run["parameters"],
            "steps_used": {key: float(value) for key, value in result.steps.items()}, "T": args.T,
            "stop_reason": run["stop_reason"], "seconds": round(seconds, 3), "steps": families.json_steps(run["steps"]),
            "output": {key: [_finite_or_none(float(v)) for v in value] for key, value in run["outputs"].items()},
        }
        print(json.dumps(document, allow_nan=False))
    else:
        if run["domain"]:
            print(f"domain: {run['domain']}")
        if result.steps:
            print("steps: " + ", ".join(f"{key} = {value:.6g}" for key, value in result.steps.items()))
        print(f"{run['stop_reason']}; {seconds:.2f} s")
        print(f"verdict: {run['verdict']}")
    return 0


def _checkpoint_options(args, entry) -> dict:
    """--checkpoint / --checkpoint-every / --resume as a recipe's keyword arguments."""
    if args.checkpoint is None and args.resume is None:
        if args.checkpoint_every is not None:
            raise ValueError("--checkpoint-every needs --checkpoint FILE, the file to write; pass both.")
        return {}
    if entry.kind != "recipe":
        raise ValueError(f"--checkpoint and --resume work with the recipes (the games); {entry.name} is an original "
                         f"algorithm. Run a recipe, e.g. `gamedyn run smooth_perceptron ... --checkpoint FILE`.")
    if args.checkpoint_every is not None and args.checkpoint_every < 1:
        raise ValueError(f"--checkpoint-every must be a positive integer, got {args.checkpoint_every}.")
    checkpoint = args.checkpoint if args.checkpoint is not None else args.resume
    from gamedyn.engine.checkpoints import check_writable

    check_writable(checkpoint, "--checkpoint" if args.checkpoint is not None else "--resume")  # before the data load and the run
    return {"checkpoint": checkpoint, "checkpoint_every": args.checkpoint_every, "resume_from": args.resume}


def _verdict(reports, A) -> str:
    """The final step's certificate verdict (recipes); for an original, the margin proved positive
    (above its rounding bound) or Gordan's proof; otherwise undecided."""
    if reports[-1].verdict is not None:
        return reports[-1].verdict
    from gamedyn.arrays.operators import largest_row_norm, unit_of
    from gamedyn.certify import certificates

    margin = reports[-1].normalized_margin
    if margin > 0 and certificates.margin_is_certified(margin, largest_row_norm(A), A.shape[1], unit=unit_of(A)):
        return f"separable: the output's normalised margin is {margin:.6g}"
    return certificates.certify_not_separable(A).verdict()


# -------------------------------------------------------------------------------- reproduce


def check_writable_folder(path: str, option: str = "--out") -> None:
    """Create ``path`` if needed and write a scratch file there; an ``OSError`` naming ``option`` if not."""
    import tempfile

    try:
        os.makedirs(path, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise OSError(f"{option} {path}: not a writable folder ({reason}); pass {option} with a folder you can "
                      "write to.") from None


def command_reproduce(args) -> int:
    """``gamedyn reproduce``: run the claims, print the table, write the report; 1 when a claim fails."""
    from gamedyn.paper import reproduce

    profile = reproduce.PROFILES["quick" if args.quick else "full" if args.full else "default"]
    claims = reproduce.select_claims(reproduce.CLAIMS, args.names)
    out_dir = args.out if args.out is not None else (None if args.quick else DEFAULT_OUT)
    if out_dir is not None:
        check_writable_folder(out_dir)  # before any claim runs, not after minutes of them
    notes = []
    missing_logistic = reproduce.logistic_available()
    if missing_logistic is not None:
        notes.append(f"logistic claims skipped: gamedyn.logistic is not importable ({missing_logistic})")
    want_figures = out_dir is not None and not args.no_figures
    if want_figures and reproduce.matplotlib_missing():
        notes.append("figures skipped: matplotlib is not installed (pip install gamedyn[plot])")
        want_figures = False

    print(f"gamedyn reproduce: {len(claims)} claims, profile '{profile.name}'", flush=True)
    context = reproduce.Context(profile)
    start = time.perf_counter()
    width = len(str(len(claims)))
    with ProgressBar(len(claims), "claim", stream=sys.stderr) as progress:
        def finished(done, outcome):  # a line per claim as it ends (the bar, on a terminal, redrawn under it)
            progress.clear()
            print(f"[{done + 1:>{width}}/{len(claims)}] {'PASS' if outcome.passed else 'FAIL'} "
                  f"{outcome.claim.name} ({outcome.seconds:.1f} s)", flush=True)

        outcomes = reproduce.run_claims(claims, context, progress=lambda done, claim: progress.update(done),
                                        finished=finished)
    seconds = time.perf_counter() - start

    print()
    print(reproduce.format_table(outcomes))
    failures = [outcome for outcome in outcomes if not outcome.passed]
    for outcome in failures:
        print(f"FAIL {outcome.claim.name}: {outcome.measurement.detail}")
    for outcome in outcomes:
        if outcome.passed and "vacuous" in outcome.measurement.detail:
            print(f"note: {outcome.claim.name}: {outcome.measurement.detail}")
    if context.has("iterations"):
        print()
        print(context.iteration_table().format())
    for note in notes:
        print(note)

    if out_dir is not None:
        os.makedirs(out_dir, exist_ok=True)
        figures = []
        if want_figures:
            figure_start = time.perf_counter()
            print(f"writing figures to {out_dir} ...", flush=True)
            figures = reproduce.write_figures(out_dir, quick=profile.quick_figures,
                                              iteration_table=context.iteration_table(), progress=reproduce.print_figure)
            print(f"{len(figures)} figures in {time.perf_counter() - figure_start:.1f} s")
        report = reproduce.write_report(os.path.join(out_dir, "report.md"), outcomes, profile, context, figures,
                                        seconds, notes)
        print(f"wrote {report}")
    print(f"{len(outcomes) - len(failures)} of {len(outcomes)} claims PASS, {len(failures)} FAIL "
          f"({seconds:.1f} s for the claims)")
    return 1 if failures else 0


# ---------------------------------------------------------------------------------- figures


def command_figures(args) -> int:
    """``gamedyn figures``: draw both papers' figures into ``--out``; returns the exit status."""
    from gamedyn.paper import reproduce

    if reproduce.matplotlib_missing():
        raise ImportError("figures need matplotlib: pip install gamedyn[plot]")
    check_writable_folder(args.out)
    start = time.perf_counter()
    print(f"writing figures to {args.out} ...", flush=True)
    paths = reproduce.write_figures(args.out, quick=args.quick, progress=reproduce.print_figure)
    print(f"{len(paths)} figures in {time.perf_counter() - start:.1f} s")
    return 0


# ------------------------------------------------------------------------------------- explore


def _explore_efg(args) -> int:
    """``gamedyn explore --game NAME``: the treeplex pairs (the extensive-form recipes', or every one)."""
    from gamedyn.games.efg import load_game
    from gamedyn.paper.exploration import efg_learners, efg_pairs, explore_efg

    if args.figure is not None:
        print("gamedyn explore: --figure draws the separator game's rate exponents; not with --game", file=sys.stderr)
        return 2
    try:
        game = load_game(args.game)
    except (KeyError, ValueError) as error:
        print(f"gamedyn explore: {error}", file=sys.stderr)
        return 2
    pairs = None if args.all_pairs else efg_pairs()
    total = len(efg_learners()) ** 2 * 2 * 4 if pairs is None else len(pairs)
    with ProgressBar(total, "explore") as bar:
        table = explore_efg(game, args.T, pairs=pairs, progress=lambda done, total, label: bar.update(done))
    print(f"game: {game.name}; gap G_T: the certified Nash gap of the averages (NashConv = 2 x exploitability); "
          "'first': the order")
    if pairs is not None:
        for x_name, y_name, averaging, order, label in pairs:
            print(f"  {label}: {x_name} | {y_name} | {averaging} | {order}")
    print(table.to_markdown() if args.markdown else table.format())
    return 0



def command_explore(args) -> int:
    """``gamedyn explore``: run the explorer's seatings and print their table; returns the exit status."""
    from gamedyn.engine.payoffs import RegularizedBilinear
    from gamedyn.paper.exploration import explore, seatings, separator_learners

    if getattr(args, "game", None) is not None:
        return _explore_efg(args)
    if getattr(args, "all_pairs", False):
        print("gamedyn explore: --all-pairs goes with --game (the treeplex pairs)", file=sys.stderr)
        return 2
    if args.figure is not None:
        from gamedyn.plot import new_figure

        new_figure()  # fail before the runs when matplotlib is missing
    data = _load(args)
    learners = separator_learners(args.eta)
    with ProgressBar(len(seatings(learners)), "explore") as bar:
        table = explore(RegularizedBilinear(data.A), learners, args.T, progress=lambda done, total, label: bar.update(done))
    print(f"data: {data.source}")
    print(table.to_markdown() if args.markdown else table.format())
    if args.figure is not None:
        from gamedyn.plot import plot_exploration

        plot_exploration(table).savefig(args.figure, dpi=110)
        print(f"wrote {args.figure}")
    return 0
