"""The ``gamedyn`` command line (also ``python -m gamedyn``).

Commands::

    gamedyn list                                   recipes and original algorithms, with references
    gamedyn run RECIPE [--data FILE | --synthetic n,d,gamma] [--T N] [--seed S] [--every K] [--json]
    gamedyn run hedge [--matrix FILE | --synthetic m,n] [--seed S] [--eta-w E] [--eta-p E] ...   (matrix games)
    gamedyn run frank_wolfe [--problem least-squares|logistic] [--synthetic n,d] [--domain K] ...   (Fenchel games)
    gamedyn reproduce [NAMES...] [--quick | --full] [--out DIR] [--no-figures]
    gamedyn figures [--out DIR] [--quick]
    gamedyn explore [--data FILE | --synthetic n,d,gamma] [--T N] [--eta E] [--markdown] [--figure PNG]
    gamedyn explore --game kuhn_poker [--all-pairs] [--T N] [--markdown]   (treeplex pairs: the EFG recipes')

``run`` knows every recipe of every family (``gamedyn list``). For a matrix-game recipe it prints, at each
reporting step, the averages' value, the certified value bracket [L_t, U_t] and the Nash gap; for a
Fenchel-game recipe f(x_bar_t) and Theorem 2's bound (see :mod:`gamedyn.cli.families`). For a margin
recipe or an original it prints, at each reporting step t, the margin and normalised margin of the algorithm's
output, the two players' weighted regrets and Theorem 2's bound (R_w + R_p)/S_t. Steps are
1, 2, 5, 10, 20, 50, ... and T, or every K rounds with ``--every K``. On a terminal a progress bar
is drawn on stderr; in a pipe or a log nothing but the report is written. ``--json`` prints one
JSON document instead, with the final output vector under ``"output"`` (non-finite numbers, e.g.
an infinite regret, become null).

Data files (``--data``): ``.npz`` with arrays ``X`` and ``y`` (or ``A``, the signed rows); ``.npy``
holding ``A`` (or, with ``--npy-layout Xy``, features with the label in the last column; a last
column of only -1/+1 or 0/1 reads both ways and needs ``--npy-layout``); ``.csv`` with the label in
the last column (a first line of names only is a header); svmlight/libsvm text (``.svm``, ``.svmlight``, ``.libsvm``,
``.txt``; needs ``pip install gamedyn[data]``; kept sparse); or a folder of ``.npy`` row chunks
(``X_000.npy, ...`` + ``y.npy``, or ``A_000.npy, ...``), read out of core in row slabs (recipes only;
needs ``pip install gamedyn[dask]``). Labels in {-1, +1} or {0, 1}. Rows are scaled so
that max ||x_i|| = 1, and the output says so. Without ``--data`` the data are
``--synthetic 200,20,0.05`` (:func:`gamedyn.io.datasets.make_separable` with ``--seed``).

The header's exact max margin (:func:`gamedyn.certify.margins.max_margin`) runs only when it is cheap
(:func:`oracle_work` ``n d min(n, d)`` at most :data:`ORACLE_BUDGET`, a few seconds); otherwise
the header says it was skipped. ``--oracle`` forces it, ``--no-oracle`` skips it. For the p-norm
algorithms every margin (the header's, each row's normalised margin and upper end U_t) is in the
certificate's norm q = p/(p-1): ``gamma_q`` by :func:`gamedyn.certify.margins.max_margin_q`. ``--p``,
``--theta``, ``--npy-layout`` and ``--seed`` are refused where they do not apply (an algorithm
without that option, data that are not a ``.npy`` file, data that are not synthetic).

``reproduce`` runs every claim (see :mod:`gamedyn.paper.reproduce`), prints one table and exits 1 when a
claim fails. It writes ``report.md`` and the figures of both papers to ``--out`` (default
``./gamedyn-report``). ``--quick`` is a smoke run that writes nothing unless ``--out`` is given
(then with the short-horizon figures); ``--full`` runs larger T, more data sets and smaller margins.
Figures need matplotlib (``pip install gamedyn[plot]``); without it the run says so in one line
and skips them.

``run`` also prints U_t, the certified upper end of the max margin (:mod:`gamedyn.certify.certificates`;
the normalised margin is the lower end), and ends with a verdict line: separable with the
bracket, not separable (0 in the convex hull of the rows, Gordan: exit status 0, the data are
certified, not refused), or undecided.

Errors (unknown recipe, unreadable or corrupt file, bad labels, T <= 0, a bad ``--synthetic`` spec
or one too large for the memory, an unwritable ``--out``, out of memory) print ONE line on stderr naming the problem and the fix, and exit with status 2; ``--out`` is checked
before any claim runs. Ctrl-C prints one line and exits with status 130, also while the command
line is still importing numpy and scipy. With ``--checkpoint FILE`` (checked writable before the
data are read), Ctrl-C or SIGTERM lets the round in progress finish, writes FILE, prints where it
is and how to resume, and exits with status 130 (SIGINT) or 143 (SIGTERM). Set ``GAMEDYN_TRACEBACK=1`` to see the Python traceback
instead.
"""

from __future__ import annotations

from gamedyn.cli import startup

startup.install()  # first: Ctrl-C while the command line imports numpy and scipy prints one line (exit 130)

import argparse  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
import types  # noqa: E402
from typing import TYPE_CHECKING, cast  # noqa: E402

from gamedyn.cli import commands  # noqa: E402
from gamedyn.cli.commands import (  # noqa: E402
    DEFAULT_OUT,
    DEFAULT_SYNTHETIC,
    command_explore,
    command_figures,
    command_list,
    command_reproduce,
    command_run,
)

if TYPE_CHECKING:
    from gamedyn.engine.checkpoints import RunInterrupted

__all__ = ["build_parser", "main"]


# ------------------------------------------------------------------------------------- parser

_RUN_EPILOG = """data files (--data FILE):
  .npz                            arrays X (n x d) and y (n labels), or one array A of signed rows y_i x_i
  .npy                            one 2-D array: A (--npy-layout A, the signed rows) or Xy (--npy-layout Xy, the
                                  label in the last column); a last column of only -1/+1 (or 0/1) reads both
                                  ways, so it needs --npy-layout
  .csv                            label in the last column; a first line of names only is a header
  .svm .svmlight .libsvm .txt     svmlight/libsvm text, kept sparse (needs: pip install gamedyn[data])
  FOLDER/                         .npy row chunks X_000.npy X_001.npy ... + y.npy, or A_000.npy ... (signed
                                  rows), read out of core in row slabs; recipes only (needs: pip install gamedyn[dask])
labels in {-1,+1} or {0,1} (0 is read as -1); rows are scaled so that max ||x_i|| = 1.

output per reporting step: the margin min_i (A w)_i and the normalised margin of the algorithm's
output w, the weighted regrets R_w and R_p, and Theorem 2's bound (R_w + R_p)/S_t. For the p-norm
algorithms the normalised margin, the upper end U_t and the header's max margin are in the dual
norm q = p/(p-1) (gamma_q), the certificate's norm.

the exact max margin in the header runs only when it is cheap (n*d*min(n,d) <= 1e8, a few seconds);
--oracle forces it, --no-oracle skips it."""


class _OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (with a pointer to --help) and exit status 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def package_version() -> str:
    """gamedyn's version, ``gamedyn.__version__`` (written once, in the face): read from the package this
    module belongs to, which Python loaded before it, so the command line imports no face of its own."""
    return str(getattr(sys.modules[__name__.partition(".")[0]], "__version__"))


def build_parser() -> argparse.ArgumentParser:
    """The ``argparse`` parser of the command line: every command and its options."""
    parser = _OneLineParser(prog="gamedyn", description="No-regret game dynamics: the accelerated perceptrons "
                            "as games, and separable logistic regression.")
    parser.add_argument("--version", action="version", version=f"gamedyn {package_version()}",
                        help="print gamedyn's version and exit")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    listing = commands.add_parser("list", help="list the recipes and original algorithms")
    listing.set_defaults(handler=command_list)

    run = commands.add_parser("run", help="run a recipe or an original algorithm and report its margin and regrets",
                              description="Run a recipe (game form) or an original algorithm on a data set.",
                              epilog=_RUN_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    run.add_argument("recipe", help="a name from `gamedyn list` (originals also without 'original.', e.g. perceptron)")
    source = run.add_mutually_exclusive_group()
    source.add_argument("--data", metavar="FILE", help=".npz (X, y or A), .npy, .csv (label last), svmlight, or a folder of .npy row chunks")
    source.add_argument("--synthetic", metavar="SPEC",
                        help=f"synthetic problem: margin recipes n,d,gamma (make_separable, default {DEFAULT_SYNTHETIC}); "
                             "matrix recipes m,n (a U(-1, 1) game, default 50,50); Fenchel recipes n,d (data for "
                             "--problem, default 200,50)")
    source.add_argument("--matrix", metavar="FILE", help="matrix recipes: the payoff matrix (.npy, or .csv rows); rows maximise")
    run.add_argument("--game", metavar="NAME",
                     help="extensive-form recipes: kuhn_poker (default), leduc_poker, goofspiel(N), liars_dice(N), or "
                          "a game file FILE.json (gamedyn.games.efg.save's format)")
    run.add_argument("--problem", choices=("least-squares", "logistic"),
                     help="Fenchel recipes: the built-in objective on the --synthetic data (default least-squares)")
    run.add_argument("--domain", choices=("simplex", "ball", "l1", "reals"),
                     help="Fenchel recipes: the domain K, radius 1 (frank_wolfe: default simplex; accelerated_gradient: "
                          "reals or ball; heavy_ball: reals)")
    run.add_argument("--eta-w", dest="eta_w", type=float, metavar="ETA",
                     help="the w-player's step (matrix games: the row player's) for the recipes that declare eta_w")
    run.add_argument("--eta-p", dest="eta_p", type=float, metavar="ETA",
                     help="the p-player's step (matrix games: the column player's; Fenchel: the x-player's)")
    run.add_argument("--npy-layout", choices=("A", "Xy"),
                     help="a .npy file holds signed rows A or Xy: features, label in the last column (needed when the "
                          "last column holds only -1/+1 or 0/1, which reads both ways)")
    run.add_argument("--T", type=int, default=1000, metavar="N", help="rounds (updates for the perceptrons); default 1000")
    run.add_argument("--seed", type=int, help="seed of the synthetic data (default 0; --synthetic only)")
    run.add_argument("--every", type=int, metavar="K", help="report every K rounds (default: 1, 2, 5, 10, 20, ...)")
    run.add_argument("--json", action="store_true", help="print one JSON document instead of the table")
    run.add_argument("--p", type=float, help="p of the p-norm algorithms (default 2; only they take it): margins are "
                                            "then reported in the dual norm q = p/(p-1)")
    run.add_argument("--oracle", action=argparse.BooleanOptionalAction, default=None,
                     help="compute the exact max margin for the header (default: only when it is cheap, about "
                          "n*d*min(n,d) <= 1e8; --oracle always, --no-oracle never)")
    run.add_argument("--checkpoint", metavar="FILE",
                     help="keep a checkpoint of the run in FILE (.npz): at the end, every --checkpoint-every rounds, "
                          "and on Ctrl-C or SIGTERM after the round in progress (recipes only)")
    run.add_argument("--checkpoint-every", type=int, metavar="K", help="write the checkpoint every K rounds")
    run.add_argument("--resume", metavar="FILE",
                     help="continue the run saved in FILE (same recipe, data and --T); it keeps FILE up to date "
                          "unless --checkpoint names another file")
    run.add_argument("--theta", choices=("wang", "ji"),
                     help="accelerated perceptron only: theta_(t-1) = t/(2(t+1)) (wang, default) or 1 (ji)")
    _declared_run_options(run)
    run.set_defaults(handler=command_run)

    reproduce = commands.add_parser("reproduce", help="check every claim of both papers; PASS/FAIL table",
                                    description="Run every claim (or those NAMES select) and print one table; "
                                    "exit 1 if any claim fails.")
    reproduce.add_argument("names", nargs="*", metavar="NAME",
                           help="select claims by group (equivalences, rates, iterations, logistic), recipe "
                                "name or reference (e.g. nag_margin, 'Theorem 4')")
    size = reproduce.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true",
                      help="smoke run (seconds); writes nothing unless --out is given")
    size.add_argument("--full", action="store_true", help="larger T, more data sets, smaller margins")
    reproduce.add_argument("--out", metavar="DIR", help=f"report.md and figures (default ./{DEFAULT_OUT})")
    reproduce.add_argument("--no-figures", action="store_true", help="write report.md only")
    reproduce.set_defaults(handler=command_reproduce)

    figures = commands.add_parser("figures", help="write every figure of both papers (PNG)")
    figures.add_argument("--out", metavar="DIR", default=DEFAULT_OUT, help=f"output folder (default ./{DEFAULT_OUT})")
    figures.add_argument("--quick", action="store_true", help="short horizons (seconds instead of minutes)")
    figures.set_defaults(handler=command_figures)

    explorer = commands.add_parser("explore", help="every legal pair of learners on the separator game, with rates",
                                   description="Run every legal (w-learner, p-learner, weights, first) seating of "
                                   "gamedyn.paper.exploration.separator_learners on g = p'Aw - |w|^2/2 and rank them by the "
                                   "fitted rate exponent of Theorem 2's bound (R_w + R_p)/S_t.")
    source = explorer.add_mutually_exclusive_group()
    source.add_argument("--data", metavar="FILE", help="a data file, as for `gamedyn run`")
    source.add_argument("--synthetic", metavar="n,d,gamma", help=f"make_separable data (default {DEFAULT_SYNTHETIC})")
    source.add_argument("--game", metavar="NAME",
                        help="a built-in extensive-form game (kuhn_poker, leduc_poker, goofspiel(4), liars_dice(6)): "
                             "the treeplex pairs of gamedyn.paper.exploration.efg_learners instead, ranked by the "
                             "Nash gap of the averages (default: the extensive-form recipes' own pairs)")
    explorer.add_argument("--all-pairs", action="store_true",
                          help="with --game: every (x-learner, y-learner, averaging, order) combination (512 runs)")
    explorer.add_argument("--npy-layout", choices=("A", "Xy"), help="layout of a .npy file (see run)")
    explorer.add_argument("--seed", type=int, help="seed of the synthetic data (default 0; --synthetic only)")
    explorer.add_argument("--T", type=int, default=2000, metavar="N", help="rounds per seating (default 2000)")
    explorer.add_argument("--eta", type=float, default=0.25, help="the p-player's entropy step (default 1/4)")
    explorer.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    explorer.add_argument("--figure", metavar="PNG", help="also write the heat map of the rate exponents (matplotlib)")
    explorer.set_defaults(handler=command_explore)
    return parser


def _declared_run_options(run) -> None:
    """``--NAME`` for every command-line parameter a recipe declares that has no option above (e.g. ``--nu`` of
    the margin recipes): ``gamedyn list`` shows the declarations, so ``gamedyn run`` takes what it shows (issue
    30: ``--nu`` was listed and refused). Its help names the recipes that take it; the others refuse it."""
    from gamedyn.recipes import RECIPES

    taken = {action.dest for action in run._actions}
    found: dict = {}
    for name, declaration in RECIPES.items():
        for parameter in declaration.parameters:
            if parameter.cli and parameter.name not in taken:
                found.setdefault(parameter.name, (parameter, []))[1].append(name)
    for name, (parameter, takers) in found.items():
        run.add_argument(parameter.flag, dest=name, type=parameter.kind, choices=parameter.choices,
                         metavar=name.upper(), help=f"{parameter.help} ({', '.join(takers)})")


def main(argv=None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 a claim failed, 2 an error, 130 Ctrl-C,
    143 SIGTERM during a run with --checkpoint)."""
    startup.restore()  # Ctrl-C is a KeyboardInterrupt again, handled below
    try:
        parser = build_parser()
    except KeyboardInterrupt:
        print("gamedyn: interrupted", file=sys.stderr)
        return 130
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit:  # --help (0) or a usage error (2), already printed by argparse
        return exit.code if isinstance(exit.code, int) else 2
    try:
        return args.handler(args)
    except BrokenPipeError:  # e.g. `gamedyn list | head -1`
        sys.stderr.close()
        return 1
    except (ValueError, TypeError, OSError, ImportError, MemoryError) as error:
        if os.environ.get("GAMEDYN_TRACEBACK"):
            raise
        message = " ".join(str(error).split()) or type(error).__name__
        if isinstance(error, MemoryError):
            message = f"out of memory ({message}); use smaller data, a smaller --T or fewer claims"
        print(f"gamedyn {args.command}: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as interrupt:
        signum = getattr(interrupt, "signum", None)  # gamedyn.engine.checkpoints.RunInterrupted: Ctrl-C or SIGTERM
        if signum is not None:
            stopped = cast("RunInterrupted", interrupt)  # (only a RunInterrupted carries a signum)
            print(f"gamedyn {args.command}: interrupted by {stopped.signal_name} after round {stopped.round}; "
                  f"checkpoint written to {stopped.path!r}; to resume, run the same command with "
                  f"--resume {stopped.path}", file=sys.stderr)
            return 128 + signum  # 130 for SIGINT, 143 for SIGTERM
        detail = f": {interrupt}" if str(interrupt) else ""
        print(f"gamedyn {args.command}: interrupted{detail}", file=sys.stderr)
        return 130


def __getattr__(name: str):
    """The commands' public names (``gamedyn.cli.run_recipe``, ``gamedyn.cli.ORACLE_BUDGET`` ...), as before the
    package split: they live in :mod:`gamedyn.cli.commands`."""
    if not name.startswith("_") and hasattr(commands, name):
        return getattr(commands, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _CommandLine(types.ModuleType):
    """``gamedyn.cli.ORACLE_BUDGET = x`` sets the value the commands read (in :mod:`gamedyn.cli.commands`)."""

    def __setattr__(self, name: str, value) -> None:
        if not name.startswith("_") and name not in ("commands", "progress", "startup") and hasattr(commands, name):
            setattr(commands, name, value)
            return
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        if name not in self.__dict__ and hasattr(commands, name):
            return  # a setting forwarded to the commands (e.g. monkeypatch's undo): nothing of ours to delete
        super().__delattr__(name)


sys.modules[__name__].__class__ = _CommandLine
