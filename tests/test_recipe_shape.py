"""One shape for every recipe, declared once (issue 17): name(problem, T, *, <parameters>, **run_options).

Every family's recipes take the same run options (they go to play untouched: stop rules and checkpoints
for the matrix and Fenchel recipes too), share one result base, name their steps eta_w / eta_p, keep the
old names and orders for one release with a DeprecationWarning, and show the box they declare once
(docstring, docs page). MatrixGame: the w-player is the row player.
"""

from __future__ import annotations

import inspect
import pathlib
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gamedyn
from gamedyn import recipes
from gamedyn.core import FTRL, Entropy, Simplex
from gamedyn.engine import Bilinear, play
from gamedyn.engine.checkpoints import checkpoint_info
from gamedyn.engine.recipe import BOX_KEYWORDS, RecipeResult, run_options
from gamedyn.games.efg import kuhn_poker
from gamedyn.games.fenchel import Objective
from gamedyn.games.matrix import MatrixGame, solve_matrix_game, value_bracket
from gamedyn.io.datasets import make_separable, signed_rows

ROOT = pathlib.Path(__file__).resolve().parent.parent
A = signed_rows(*make_separable(40, 5, 0.1, seed=3))
M = np.random.default_rng(7).uniform(-1, 1, size=(6, 4))
TARGET = np.array([0.1, 0.7, 0.2, 0.4])
SQUARE = Objective(lambda x: float((x - TARGET) @ (x - TARGET)), lambda x: 2 * (x - TARGET), smoothness=2.0)
KUHN = kuhn_poker()

# name -> (problem, the parameters a run needs beyond T)
PROBLEMS = {
    "smooth_perceptron": (A, {}), "accelerated_perceptron": (A, {}), "mirror_prox_perceptron": (A, {}),
    "nag_margin": (A, {}), "pnorm_perceptron": (A, {"p": 3.0, "normalize": True}),
    "hedge": (M, {}), "optimistic_hedge": (M, {}), "fictitious_play": (M, {}),
    "regret_matching": (M, {}), "regret_matching_plus": (M, {}), "predictive_regret_matching_plus": (M, {}),
    "ada_hedge": (M, {}),
    "frank_wolfe": (SQUARE, {"domain": Simplex(), "dimension": 4}), "accelerated_gradient": (SQUARE, {"dimension": 4}),
    "heavy_ball": (SQUARE, {"dimension": 4}),
    # issue 32: the extensive-form family (Kuhn poker; its value is -1/18)
    "cfr": (KUHN, {}), "cfr_plus": (KUHN, {}), "dcfr": (KUHN, {}), "pcfr_plus": (KUHN, {}),
    "dilated_hedge": (KUHN, {}), "optimistic_dilated_hedge": (KUHN, {}), "mmd": (KUHN, {}),
    "optimistic_mmd": (KUHN, {}),
}


def run(name, T, **options):
    problem, parameters = PROBLEMS[name]
    return recipes.RECIPES[name].function(problem, T, **parameters, **options)


def test_every_recipe_is_listed_with_a_problem_here():
    assert set(PROBLEMS) == set(recipes.RECIPES)


# ---------------------------------------------------------------------------------------- the shape


@pytest.mark.parametrize("name", sorted(PROBLEMS))
def test_every_recipe_has_the_one_shape(name):
    parameters = list(inspect.signature(recipes.RECIPES[name].function).parameters.values())
    assert [p.kind for p in parameters[:2]] == [inspect.Parameter.POSITIONAL_OR_KEYWORD] * 2
    assert parameters[1].name == "T"
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in parameters[2:-1])
    assert parameters[-1].kind is inspect.Parameter.VAR_KEYWORD
    assert [p.name for p in parameters[2:-1]] == list(recipes.RECIPES[name].options)


def test_run_options_are_a_declared_tuple_each_turned_into_observers():
    """run_options() is its own declared tuple (RUN_OPTIONS), exactly the keywords of run_observers, which turns
    each into observers of play; play itself takes the protocol's arguments (the box's) and observers=, at most 12."""
    from gamedyn.engine.observers import RUN_OPTIONS, run_observers

    assert run_options() == RUN_OPTIONS
    assert set(inspect.signature(run_observers).parameters) == set(RUN_OPTIONS)
    assert {"stop", "callback", "record", "metrics", "checkpoint", "checkpoint_every", "resume_from", "w_comparators",
            "p_comparators", "regrets", "observers"} == set(run_options())
    keywords = set(inspect.signature(play).parameters)
    assert keywords == BOX_KEYWORDS | {"observers"} and len(keywords) <= 12
    assert not set(run_options()) & BOX_KEYWORDS


@pytest.mark.parametrize("name", sorted(PROBLEMS))
def test_every_result_shares_one_base(name):
    result = run(name, 12)
    assert isinstance(result, RecipeResult)
    assert isinstance(result.game, gamedyn.GameResult) and isinstance(result.steps, dict)
    family = recipes.RECIPES[name].family.name
    if family == "margin":
        assert result.certificate is result.game.certificate and result.certificate.lower <= result.certificate.upper
    elif family == "matrix":
        assert result.certificate.contains(solve_matrix_game(M).value)
    elif family == "efg" and name in ("mmd", "optimistic_mmd"):  # the last iterate: its own certificate
        assert result.certificate == result.efg.bracket(result.x, result.y) and result.certificate.contains(-1 / 18)
    elif family == "efg":
        assert result.certificate is result.game.certificate and result.certificate.contains(-1 / 18)
    else:
        assert result.certificate is None


@pytest.mark.parametrize("name", sorted(PROBLEMS))
def test_an_unknown_option_is_an_error_naming_it(name):
    with pytest.raises(TypeError, match="'bogus'"):
        run(name, 5, bogus=1)
    with pytest.raises(TypeError, match="'weights'.*fixed by the recipe's box"):
        run(name, 5, weights="linear")


@pytest.mark.parametrize("name", sorted(PROBLEMS))
def test_every_recipe_takes_callback_and_record(name):
    seen = []
    result = run(name, 9, callback=lambda state: seen.append(state.t), record=True)
    assert seen == list(range(1, 10)) and result.game.trace["w"].shape[0] == 9


@pytest.mark.parametrize("name", ["hedge", "optimistic_hedge", "fictitious_play", "frank_wolfe",
                                  "accelerated_gradient", "heavy_ball"])
def test_matrix_and_fenchel_recipes_take_stop_rules(name):
    result = run(name, 50, stop=lambda state: state.t >= 17)
    assert result.game.rounds == 17 and result.game.stopped_early


@pytest.mark.parametrize("name", ["hedge", "optimistic_hedge", "fictitious_play", "accelerated_gradient",
                                  "heavy_ball", "frank_wolfe"])
def test_matrix_and_fenchel_recipes_resume_bit_identically(name, tmp_path):
    path = tmp_path / "run.npz"

    def crash_at(round_):
        def stop(state):
            if state.t == round_:
                raise KeyError("crash")
            return False
        return stop

    uninterrupted = run(name, 40, regrets=True)  # the Fenchel recipes compute the regrets only when asked
    with pytest.raises(KeyError):
        run(name, 40, checkpoint=path, checkpoint_every=7, stop=crash_at(30), regrets=True)
    assert checkpoint_info(path)["round"] == 28
    resumed = run(name, 40, resume_from=path, regrets=True)
    for field in ("w_average", "p_average", "w_sum", "p_sum", "w_last", "p_last"):
        assert np.array_equal(getattr(uninterrupted.game, field), getattr(resumed.game, field)), field
    assert uninterrupted.game.w_regret == resumed.game.w_regret and uninterrupted.game.p_regret == resumed.game.p_regret
    if hasattr(uninterrupted, "row"):
        assert np.array_equal(uninterrupted.row, resumed.row) and uninterrupted.nash_gap == resumed.nash_gap
    else:
        assert np.array_equal(uninterrupted.x, resumed.x) and uninterrupted.value == resumed.value


# ---------------------------------------------------------------------------- deprecated call forms


def _same(old, new):
    for field in ("w_average", "p_average", "w_last", "p_last"):
        assert np.array_equal(getattr(old.game, field), getattr(new.game, field)), field
    assert old.steps == new.steps


@pytest.mark.parametrize("call, message", [
    (lambda: recipes.hedge(M, 30, eta_row=0.3), "unexpected keyword argument 'eta_row'"),
    (lambda: recipes.optimistic_hedge(M, 30, eta=0.4), "unexpected keyword argument 'eta'"),
    (lambda: recipes.accelerated_gradient(SQUARE, 30, x0=np.zeros(4), step=0.1), "unexpected keyword argument 'step'"),
    (lambda: recipes.frank_wolfe(SQUARE, Simplex(), 30, dimension=4), "takes the problem and T positionally"),
    (lambda: recipes.pnorm_perceptron(A, 30, 3.0), "takes the problem and T positionally"),
    (lambda: recipes.accelerated_perceptron(A, 30, "ji"), "takes the problem and T positionally"),
])
def test_the_never_released_call_forms_are_refused_with_the_fix(call, message):
    """0.1.0 was never released: the old step names and positional orders are gone (no shim), each refused
    with a TypeError naming the keyword or the one shape, ``name(problem, T, *, <parameters>)``."""
    with pytest.raises(TypeError, match=message):
        call()


def test_positional_parameters_are_refused():
    with pytest.raises(TypeError, match="pass its other parameters by keyword"):
        recipes.hedge(M, 5, 0.1)
    with pytest.raises(TypeError, match="missing the required argument 'T'"):
        recipes.smooth_perceptron(A)


def test_optimistic_hedges_steps_default_independently():
    """eta_p does not follow eta_w: each defaults to 1/r."""
    r = float(np.max(M) - np.min(M))
    result = recipes.optimistic_hedge(M, 10, eta_w=0.1)
    assert result.steps == {"eta_w": 0.1, "eta_p": pytest.approx(1 / r, rel=1e-15)}


# ------------------------------------------------------------------------------------- MatrixGame


def _hedge_loop(matrix, T, eta_x, eta_y):
    """Hedge vs Hedge written out: x_t ~ exp(eta_x sum_{s<t} M y_s), y_t ~ exp(-eta_y sum_{s<t} M^T x_s)."""
    m, n = matrix.shape
    row_sum, column_sum = np.zeros(m), np.zeros(n)
    x_total, y_total = np.zeros(m), np.zeros(n)
    for _ in range(T):
        x = np.exp(eta_x * row_sum - np.max(eta_x * row_sum))
        x /= x.sum()
        y = np.exp(-eta_y * column_sum - np.max(-eta_y * column_sum))
        y /= y.sum()
        row_sum += matrix @ y
        column_sum += matrix.T @ x
        x_total += x
        y_total += y
    return x_total / T, y_total / T


@settings(max_examples=15, deadline=None)
@given(st.integers(1, 6), st.integers(1, 6), st.integers(0, 2**31 - 1))
def test_play_on_a_matrix_game_gives_the_row_players_strategy_and_brackets_the_value(m, n, seed):
    matrix = np.random.default_rng(seed).uniform(-1, 1, size=(m, n))
    game = play(MatrixGame(matrix), FTRL(Entropy(), 0.3), FTRL(Entropy(), 0.2), 300)
    x_bar, y_bar = _hedge_loop(matrix, 300, 0.3, 0.2)
    assert game.w_average.shape == (m,) and game.p_average.shape == (n,)
    np.testing.assert_allclose(game.w_average, x_bar, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(game.p_average, y_bar, rtol=1e-10, atol=1e-13)
    bracket = MatrixGame(matrix).value_bracket(game.w_average, game.p_average)
    assert bracket.contains(solve_matrix_game(matrix).value)
    assert bracket.width == pytest.approx(gamedyn.nash_gap(matrix, game.w_average, game.p_average), abs=1e-12)


def test_the_orientation_trap_of_the_issue():
    """Bilinear(M) has M's columns maximise; MatrixGame(M) has its rows maximise, as solve_matrix_game(M)."""
    matrix = np.array([[2.0, 0.0, 1.0], [0.0, 1.0, -1.0]])
    learners = (FTRL(Entropy(), 0.05), FTRL(Entropy(), 0.05))
    rows_maximise = play(MatrixGame(matrix), *learners, 4000)
    columns_maximise = play(Bilinear(matrix), *learners, 4000)
    value = solve_matrix_game(matrix).value
    assert value == pytest.approx(1 / 3, abs=1e-9) and solve_matrix_game(matrix.T).value == pytest.approx(2 / 3, abs=1e-9)
    assert abs(float(rows_maximise.w_average @ matrix @ rows_maximise.p_average) - value) < 0.02
    assert abs(float(columns_maximise.p_average @ matrix @ columns_maximise.w_average) - 2 / 3) < 0.02
    assert MatrixGame(matrix).value_bracket(rows_maximise.w_average, rows_maximise.p_average).contains(value)


def test_matrix_game_is_a_bilinear_on_the_transpose():
    game = MatrixGame(M)
    assert isinstance(game, Bilinear) and np.array_equal(game.A, M.T) and np.array_equal(game.M, M)
    assert game.w_domain == Simplex() and game.p_domain == Simplex()
    w, p = np.full(6, 1 / 6), np.full(4, 1 / 4)
    assert game.value(w, p) == pytest.approx(float(w @ M @ p), rel=1e-14)
    with pytest.raises(ValueError, match="M must have finite entries"):
        MatrixGame([[1.0, np.nan]])


def test_the_matrix_recipes_play_matrix_game():
    result = recipes.hedge(M, 20, record=True)
    again = play(MatrixGame(M), FTRL(Entropy(), result.steps["eta_w"]), FTRL(Entropy(), result.steps["eta_p"]), 20)
    assert np.array_equal(result.row, again.w_average) and np.array_equal(result.column, again.p_average)


def test_the_value_bracket_survives_rounding_at_an_exact_equilibrium():
    """Matching pennies at the exact equilibrium: both ends are exactly 0 (no ulp crossing)."""
    bracket = value_bracket([[1.0, -1.0], [-1.0, 1.0]], [0.5, 0.5], [0.5, 0.5])
    assert bracket.lower <= 0.0 <= bracket.upper and bracket.width == 0.0


# -------------------------------------------------------------------------- the box, declared once


@pytest.mark.parametrize("name", sorted(PROBLEMS))
def test_the_docstring_shows_the_declared_box(name):
    declaration = recipes.RECIPES[name]
    assert declaration.box_table() in inspect.getdoc(declaration.function)
    module_doc = inspect.getdoc(inspect.getmodule(inspect.unwrap(declaration.function)))
    assert "=========" not in module_doc  # no second hand-written table


def _page_tables(text):
    return re.findall(r"<!-- box: (\w+) -->\n(.*?)\n<!-- /box -->", text, flags=re.S)


@pytest.mark.parametrize("name", sorted(PROBLEMS))
def test_the_docs_page_shows_the_declared_box(name):
    """Each page's table is the declaration's (PYTHONPATH=. python tests/test_recipe_shape.py rewrites them)."""
    declaration = recipes.RECIPES[name]
    page = ROOT / "docs" / "recipes" / f"{declaration.page}.md"
    tables = dict(_page_tables(page.read_text()))
    assert name in tables, f"{page} has no <!-- box: {name} --> table"
    assert tables[name] == declaration.box_markdown(), f"{page}: run `PYTHONPATH=. python tests/test_recipe_shape.py` to regenerate"


def _write_pages():  # pragma: no cover - a maintenance command
    for declaration in recipes.RECIPES.values():
        page = ROOT / "docs" / "recipes" / f"{declaration.page}.md"
        text = page.read_text()
        marker = f"<!-- box: {declaration.name} -->\n"
        start = text.index(marker) + len(marker)
        end = text.index("<!-- /box -->", start)
        page.write_text(text[:start] + declaration.box_markdown() + "\n" + text[end:])


if __name__ == "__main__":  # pragma: no cover
    _write_pages()


@pytest.mark.parametrize("name", sorted(PROBLEMS))
def test_the_docs_pages_box_renders_as_its_text(name):
    """Rendered as the site renders it (Python-Markdown's tables), each cell of the box shows the declared text
    exactly: no ``\\|\\|w\\|\\|`` for ``||w||`` (issue 31), no emphasis made of the subscripts' underscores."""
    markdown = pytest.importorskip("markdown", reason="Python-Markdown comes with the docs extra: pip install '.[docs]'")
    import html

    declaration = recipes.RECIPES[name]
    rendered = markdown.markdown(declaration.box_markdown(), extensions=["tables"])
    cells = [html.unescape(cell) for cell in re.findall(r"<code>(.*?)</code>", rendered, flags=re.S)]
    assert cells == [" ".join(text.split()) for _, box in declaration._tables() for _, text in box.lines(declaration.family)]
    assert "\\|" not in rendered and "<em>" not in rendered
