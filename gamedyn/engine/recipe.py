"""The declaration every recipe makes once, in its own file, and the result every recipe returns.

A recipe is a function ``name(problem, T, *, <its parameters>, **run_options)`` decorated with
:func:`recipe`, which records its :class:`Recipe` declaration: the family (:data:`MARGIN`,
:data:`MATRIX`, :data:`FENCHEL`, :data:`EFG`), the paper's reference, the box (:class:`Box`: payoff, the two
players, weights, first mover, output), its parameters (:class:`Parameter`), the output rule, the
comparator and the rates. Everything that shows or runs a recipe reads that one declaration:

- the recipe's docstring: its box table is generated from the declaration (:meth:`Recipe.box_table`);
- :data:`gamedyn.recipes.RECIPES` (every recipe of every family) and through it the registry
  (:func:`gamedyn.paper.registry.recipe_entries`), ``gamedyn list`` and ``gamedyn run`` (its options);
- the docs/recipes pages (their box tables are :meth:`Recipe.box_markdown`, checked by a test);
- the explorer's named pairs (:data:`gamedyn.paper.exploration.PAPER_PAIRS`) and the iterations
  experiment (which games it plays, each theorem's round count).

**Run options.** Every recipe takes the same run options, whatever its family
(:data:`gamedyn.engine.observers.RUN_OPTIONS`: ``stop``, ``record``, ``callback``, ``metrics``, the
comparators, ``checkpoint``, ``checkpoint_every``, ``resume_from``, ``observers``, ``regrets``). The
declaration turns them into observers (:func:`gamedyn.engine.observers.run_observers`) and the recipe
passes them to :func:`gamedyn.play` as ``observers=[...]``; a keyword that is neither a parameter of
the recipe nor a run option is a ``TypeError`` naming it, and so is one the box fixes (``weights``,
``first`` ...).

"""

from __future__ import annotations

import functools
import html
import inspect
import math
import re
from typing import Any, Callable, Generic, ParamSpec, Protocol, TypeVar, cast

import attrs

from gamedyn.engine.observers import RUN_OPTIONS, run_observers
from gamedyn.engine.results import GameResult

__all__ = ["BOX_KEYWORDS", "Box", "EFG", "FENCHEL", "Family", "MARGIN", "MATRIX", "Parameter", "Recipe", "RecipeResult",
           "average", "recipe", "run_options", "rounds_with_linear_rate", "rounds_with_quadratic_rate"]


# ----------------------------------------------------------------------------------- the result


@attrs.frozen(kw_only=True)
class RecipeResult:
    """What every recipe returns: the game that produced it, its certificate and the steps it used.

    ``game`` is the runner's :class:`gamedyn.GameResult` (regrets, Theorem 2's bound, the trace);
    ``steps`` holds the step sizes the recipe used (e.g. ``{"eta_w": ..., "eta_p": ...}``; empty when its
    box fixes them), so a rate check measures the recipe's own defaults instead of recomputing them.
    Each family's result subclasses it with the recipe's output in the original algorithm's terms:
    :class:`gamedyn.games.margin.MarginResult` (``w``, ``p``, ``row_scale``),
    :class:`gamedyn.games.matrix.MatrixGameResult` (``row``, ``column``, ``value``, ``nash_gap``),
    :class:`gamedyn.games.fenchel.FenchelResult` (``x``, ``value``).
    """

    game: GameResult
    steps: dict = attrs.field(factory=dict)

    @property
    def certificate(self):
        """The game's certificate (the margin bracket for the margin family), None where it has none."""
        return self.game.certificate


# ---------------------------------------------------------------------------------- the families


@attrs.frozen
class Family:
    """A problem family: what a recipe's first argument is and how its box names the two players.

    ``problem`` names the first argument; ``seats`` the box's names of the w- and p-player (a Fenchel
    game's are y and x); ``defaults`` are run options the family's recipes use unless given.
    """

    name: str
    problem: str
    seats: tuple = ("w-player", "p-player")
    defaults: dict = attrs.field(factory=dict)


MARGIN = Family("margin", "A: the signed rows y_i x_i (n x d), ||x_i|| <= 1")
MATRIX = Family("matrix", "M: the payoff matrix (m x n); the row player maximises x^T M y")
# The Fenchel recipes skip the regrets unless asked (regrets=True): a regret needs f* at each play, the
# objective's value on top of its gradient, and their rate rows need only the iterates' values.
FENCHEL = Family("fenchel", "objective: a gamedyn.Objective f (value, gradient, smoothness L)",
                 seats=("y-player", "x-player"), defaults={"regrets": False})
# The extensive-form recipes (issue 32): two treeplexes, the sparse sequence-form payoff of a built-in or loaded game.
EFG = Family("efg", "game: an extensive-form game (gamedyn.games.efg: kuhn_poker(), leduc_poker(), goofspiel(4), "
             "liars_dice(6), or one of their names)", seats=("x (player 0)", "y (player 1)"))
FAMILIES = {family.name: family for family in (MARGIN, MATRIX, FENCHEL, EFG)}


# ------------------------------------------------------------------------------- the declaration


@attrs.frozen
class Box:
    """The paper's box: one line (or a few, separated by newlines) for each part of the game.

    ``rows`` are further ``(label, text)`` lines (e.g. the default steps), shown after ``first``.
    """

    payoff: str
    w_player: str
    p_player: str
    weights: str
    first: str
    output: str
    rows: tuple = ()

    def lines(self, family: Family) -> list:
        """``(label, text)`` for each line of the table, in the box's order."""
        w_label, p_label = family.seats
        return [("payoff", self.payoff), (w_label, self.w_player), (p_label, self.p_player), ("weights", self.weights),
                ("first", self.first), *self.rows, ("output", self.output)]


@attrs.frozen
class Parameter:
    """A parameter of a recipe beyond ``(problem, T)``: its name, what it is, its default and choices.

    ``kind`` (``float``, ``int`` or ``str``) is how ``gamedyn run`` reads it from ``--name``;
    ``cli=False`` keeps it off the command line (e.g. a start vector); ``required=True``: no default.
    """

    name: str
    help: str
    default: Any = None
    kind: type = float
    choices: tuple | None = None
    cli: bool = True
    required: bool = False

    @property
    def flag(self) -> str:
        """The command-line option, ``--name`` with dashes."""
        return "--" + self.name.replace("_", "-")


@attrs.frozen
class Recipe:
    """A recipe as its paper's box states it (see the module docstring).

    ``output(w_sum, total, options) -> w`` is how a margin recipe's ``.w`` reads off the running sums
    (``w_sum`` the output-weighted sum of the plays, ``total`` the total of those weights), so the same
    rule serves a final :class:`gamedyn.GameResult` and a per-round :class:`gamedyn.RoundState`
    (:meth:`read_output`). ``comparator(A, options)``, when given, is the fixed ``u`` that ``R_w(u)`` is
    measured against (the w-domain is unbounded, so the regret against its best point is infinite);
    ``comparator_note`` says so in words. ``rounds_to_separate(n, gamma, options) -> float | None`` is
    the number of rounds after which the recipe's theorem guarantees a positive margin on ``n`` rows of
    margin ``gamma`` (None where no theorem gives one); ``regret_bound(n, options) -> (label, bound) |
    None`` is the theorem's bound on ``R_w + R_p``; ``variants`` lists further ``(label, options)`` plays
    the experiments make besides the default one.
    ``page`` is the docs page that shows the box (``docs/recipes/<page>.md``). ``pair`` names the
    recipe's seating in the explorer's terms, ``(w-learner, p-learner, weights, first)`` with the names of
    :func:`gamedyn.paper.exploration.separator_learners` (the explorer's named pairs read it), or None; an
    extensive-form recipe's is ``(x-learner, y-learner, averaging, order)`` with the names of
    :func:`gamedyn.paper.exploration.efg_learners` (:func:`gamedyn.paper.exploration.efg_pairs` reads it).
    """

    name: str
    family: Family
    reference: str
    summary: str
    box: Box
    parameters: tuple = ()
    function: Callable | None = attrs.field(default=None, eq=False, repr=False)
    output: Callable | None = None
    comparator: Callable | None = None
    comparator_note: str = ""
    rounds_to_separate: Callable | None = None
    regret_bound: Callable | None = None
    variants: tuple = ()
    page: str | None = None
    box_variants: tuple = ()  # (title, Box) further tables, e.g. another theta
    pair: tuple | None = None
    run_defaults: dict = attrs.field(factory=dict)  # run options used unless given, over the family's defaults

    @property
    def options(self) -> tuple:
        """The names of the recipe's parameters (``gamedyn run`` options, experiments' variants)."""
        return tuple(parameter.name for parameter in self.parameters)

    @property
    def game(self) -> tuple:
        """The box as ``"label: text"`` lines (``gamedyn list``'s long form)."""
        return tuple(f"{label}: {' '.join(text.split())}" for label, text in self.box.lines(self.family))

    def parameter(self, name: str) -> Parameter:
        """The declared :class:`Parameter` called ``name`` (a ``KeyError`` naming the others when none)."""
        for parameter in self.parameters:
            if parameter.name == name:
                return parameter
        raise KeyError(f"{self.name} has no parameter {name!r}; its parameters are {list(self.options)}.")

    def chosen(self, options: dict) -> dict:
        """The entries of ``options`` this recipe takes (None values dropped: the recipe's default)."""
        return {key: value for key, value in options.items() if key in self.options and value is not None}

    def run(self, problem, T, **options):
        """``function(problem, T, ...)`` with only the parameters it declares among ``options``; every run
        option (``stop``, ``record``, ``checkpoint`` ...) goes through."""
        allowed = run_options()
        passed = {key: value for key, value in options.items() if key in allowed}
        if self.function is None:
            raise TypeError(f"recipe {self.name} has no function to run: declare it with @gamedyn.engine.recipe.recipe(...).")
        return self.function(problem, T, **self.chosen(options), **passed)

    def read_output(self, sums, **options):
        """The recipe's ``.w`` from a :class:`gamedyn.GameResult` or a :class:`gamedyn.RoundState`."""
        total = sums.output_weight_total if hasattr(sums, "output_weight_total") else sums.w_weight_total
        rule = average if self.output is None else self.output
        return rule(sums.w_sum, total, self.chosen(options))

    def w_comparator(self, A, **options):
        """The fixed comparator of ``R_w(u)``, or None when the regret is against the best point."""
        return None if self.comparator is None else self.comparator(A, self.chosen(options))

    def regret_sum_bound(self, n, **options):
        """``(label, bound)`` of the theorem's bound on ``R_w + R_p`` after any T rounds, or None."""
        return None if self.regret_bound is None else self.regret_bound(n, self.chosen(options))

    def sufficient_rounds(self, n, gamma, **options):
        """Rounds after which the recipe's theorem guarantees a positive margin (None: no theorem)."""
        return None if self.rounds_to_separate is None else self.rounds_to_separate(n, gamma, self.chosen(options))

    # ------------------------------------------------------------------------------ box tables

    def _tables(self) -> list:
        return [(None, self.box), *self.box_variants]

    def box_table(self) -> str:
        """The box as reStructuredText simple tables (the docstring's), one per variant."""
        blocks = []
        for title, box in self._tables():
            lines = [(label, part) for label, text in box.lines(self.family)
                     for label, part in zip([label] + [""] * text.count("\n"), text.split("\n"))]
            left = max(len(label) for label, _ in lines)
            right = max(len(text) for _, text in lines)
            rule = "=" * left + "  " + "=" * right
            table = [rule, *(f"{label:<{left}}  {text}".rstrip() for label, text in lines), rule]
            blocks.append(("" if title is None else f"{title}:\n\n") + "\n".join(table))
        return "\n\n".join(blocks)

    def box_markdown(self) -> str:
        """The box as Markdown tables (the docs/recipes page's), one per variant.

        Each cell is an HTML ``<code>`` element, its ``|`` written ``&#124;`` (and the other characters Markdown
        would read there as entities): a Markdown code span would
        show the table's escaped ``\\|`` literally (``\\|\\|w\\|\\|`` for ``||w||``, issue 31)."""
        blocks = []
        for title, box in self._tables():
            cells = [(label, html.escape(" ".join(text.split()), quote=False).translate(_MARKDOWN_ENTITIES))
                     for label, text in box.lines(self.family)]
            rows = [f"| {label} | <code>{cell}</code> |" for label, cell in cells]
            table = "\n".join([f"| {self.name} | {self.reference} |", "|---|---|", *rows])
            blocks.append(("" if title is None else f"{title}:\n\n") + table)
        return "\n\n".join(blocks)


# the characters Markdown would read inside a table cell's inline HTML (a cell, emphasis, a link, a code span, an
# escape), written as entities: the box shows its text as it is
_MARKDOWN_ENTITIES = str.maketrans({character: f"&#{ord(character)};" for character in "|*_[]`\\"})

BOX_KEYWORDS = frozenset({"payoff", "w_learner", "p_learner", "T", "weights", "p_weights", "output_weights", "first",
                          "initial_w", "initial_p", "alternating"})
"""The keywords of :func:`gamedyn.play` a recipe's box fixes: not run options."""


def run_options() -> tuple:
    """The run options every recipe takes (:data:`gamedyn.engine.observers.RUN_OPTIONS`), each turned into
    observers of :func:`gamedyn.play` by :func:`gamedyn.engine.observers.run_observers`."""
    return RUN_OPTIONS


def _arguments(name: str, args: tuple, kwargs: dict) -> tuple:
    """``(T, kwargs)``: T given positionally after the problem, or as ``T=``; every parameter by keyword."""
    if len(args) > 1:
        raise TypeError(f"{name}() takes the problem and T positionally; pass its other parameters by keyword.")
    if args:
        if "T" in kwargs:
            raise TypeError(f"{name}() got multiple values for argument 'T'.")
        kwargs["T"] = args[0]
    if "T" not in kwargs:
        raise TypeError(f"{name}() missing the required argument 'T' (the number of rounds).")
    return kwargs.pop("T"), kwargs


_P = ParamSpec("_P")
_R_co = TypeVar("_R_co", covariant=True)


class RecipeFunction(Protocol, Generic[_P, _R_co]):
    """What :func:`recipe` returns, to a type checker: the decorated function (same parameters, same
    result) carrying its declaration as ``.recipe``."""

    recipe: Recipe

    def __call__(self, *args: _P.args, **kwargs: _P.kwargs) -> _R_co: ...


def recipe(*, name: str, family: Family, reference: str, summary: str, box: Box, parameters=(),
           **declared) -> Callable[[Callable[_P, _R_co]], RecipeFunction[_P, _R_co]]:
    """Declare the decorated function a recipe: its :class:`Recipe` is built once, here.

    The function's signature must be ``(problem, T, *, <the declared parameters>, **run_options)``
    (checked at import). The returned function has the same signature; it refuses keywords that are
    neither parameters nor run options,
    adds the family's default run options, and carries the declaration as ``.recipe``. Its docstring
    gets the box table after its first paragraph and a ``Parameters`` section read from the declaration.
    """

    def decorate(function: Callable[_P, _R_co]) -> RecipeFunction[_P, _R_co]:
        signature = inspect.signature(function)
        values = list(signature.parameters.values())
        keyword_only = [p.name for p in values if p.kind is inspect.Parameter.KEYWORD_ONLY]
        positional = [p.name for p in values if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
        declared_names = [parameter.name for parameter in parameters]
        if (len(positional) != 2 or positional[1] != "T" or keyword_only != declared_names
                or values[-1].kind is not inspect.Parameter.VAR_KEYWORD):
            raise TypeError(f"recipe {name}: the signature must be ({positional[0] if positional else 'problem'}, T, *, "
                            f"{', '.join(declared_names)}, **run_options), got {signature}.")
        for parameter in parameters:
            default = signature.parameters[parameter.name].default
            if parameter.required != (default is inspect.Parameter.empty):
                raise TypeError(f"recipe {name}: parameter {parameter.name} is required in one of the function and "
                                "the declaration only.")
            if not parameter.required and default != parameter.default:
                raise TypeError(f"recipe {name}: parameter {parameter.name} defaults to "
                                f"{signature.parameters[parameter.name].default!r} in the function but "
                                f"{parameter.default!r} in the declaration.")

        @functools.wraps(function)
        def run(problem, *args, **kwargs):
            T, kwargs = _arguments(name, args, kwargs)
            allowed = run_options()
            unknown = [key for key in kwargs if key not in declared_names and key not in allowed]
            if unknown:
                key = unknown[0]
                why = (f"{key}= is fixed by the recipe's box" if key in BOX_KEYWORDS
                       else f"{key}= is neither a parameter nor a run option")
                raise TypeError(f"{name}() got an unexpected keyword argument {key!r} ({why}); its parameters are "
                                f"{declared_names or 'none'} and its run options (passed to gamedyn.play) "
                                f"{list(allowed)}.")
            options = {key: kwargs.pop(key) for key in allowed if key in kwargs}
            for key, value in {**family.defaults, **declaration.run_defaults}.items():
                options.setdefault(key, value)
            call: Callable[..., Any] = function  # (problem, T, its parameters, observers=...)
            return call(problem, T, **kwargs, observers=run_observers(**options))

        declaration = Recipe(name=name, family=family, reference=reference, summary=summary, box=box,
                             parameters=tuple(parameters), function=run, **declared)
        declared_run = cast("RecipeFunction[_P, _R_co]", run)
        declared_run.recipe = declaration
        declared_run.__doc__ = _with_box(function.__doc__ or "", declaration, positional[0])
        return declared_run

    return decorate


def _parameters_section(declaration: Recipe, problem: str) -> str:
    """The numpydoc ``Parameters`` section of a recipe, from its declaration: the problem, T, each
    :class:`Parameter` (its ``help``) and the run options."""
    described = declaration.family.problem
    if described.startswith(f"{problem}:"):
        described = described[len(problem) + 1:].strip()
    lines = ["Parameters", "----------", problem, f"    {described[:1].upper()}{described[1:]}.", "T : int",
             "    The number of rounds (>= 1)."]
    for parameter in declaration.parameters:
        kind = ("{" + ", ".join(repr(choice) for choice in parameter.choices) + "}" if parameter.choices
                else parameter.kind.__name__ if parameter.cli else "")
        optional = "" if parameter.required else "optional"
        annotation = ", ".join(part for part in (kind, optional) if part)
        lines.append(f"{parameter.name} : {annotation}" if annotation else parameter.name)
        lines.append(f"    {parameter.help[:1].upper()}{parameter.help[1:]}.")
    lines += ["**run_options", "    ``stop``, ``record``, ``callback``, ``metrics``, ``checkpoint`` ... (:func:`run_options`), "
              "passed to", "    :func:`gamedyn.play` as its observers (:func:`gamedyn.engine.observers.run_observers`)."]
    return "\n".join(lines)


def _with_box(doc: str, declaration: Recipe, problem: str = "problem") -> str:
    """The docstring with the generated box table after its first paragraph, and the generated
    ``Parameters`` section (:func:`_parameters_section`) before its first numpydoc section."""
    doc = inspect.cleandoc(doc)
    first, _, rest = doc.partition("\n\n")
    table = declaration.box_table()
    if "\nParameters\n---" not in f"\n{rest}":
        heading = re.search(r"^[A-Z][A-Za-z ]+\n-{3,}$", rest, re.MULTILINE)
        where = heading.start() if heading else len(rest)
        section = _parameters_section(declaration, problem)
        rest = f"{rest[:where].rstrip()}\n\n{section}\n\n{rest[where:]}".strip()
    return f"{first}\n\n{table}\n\n{rest}\n"


# ------------------------------------------------------------------------------------ helpers


def average(w_sum, total, options):
    """``w_bar_t = sum_s alpha_s w_s / S_t``: the output of most recipes."""
    return w_sum / total


def rounds_with_quadratic_rate(constant, gamma):
    """The smallest T with ``T(T+1) > constant / gamma^2``: when a margin gap ``constant / (gamma T(T+1))``
    drops below ``gamma`` (Theorems 4 and 6)."""
    return math.floor((-1 + math.sqrt(1 + 4 * constant / gamma**2)) / 2) + 1


def rounds_with_linear_rate(constant, gamma):
    """The smallest integer T > ``constant / gamma``: when a margin gap ``constant / T`` drops below
    ``gamma`` (Theorems 5 and 7)."""
    return math.floor(constant / gamma) + 1
