"""Typed (issue 17, item 8): mypy, configured in pyproject.toml, reports 0 errors on the package; the recipes
resolve for type checkers; the result fields are typed as what they hold.

mypy comes with the ``test`` extra (``pip install gamedyn[test]``); without it these tests are skipped.
"""

from __future__ import annotations

import ast
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _mypy(*arguments: str) -> subprocess.CompletedProcess:
    pytest.importorskip("mypy", reason="mypy is not installed: pip install gamedyn[test] (or pip install mypy)")
    # the repository root: [tool.mypy] in pyproject.toml names the files (gamedyn, recipes through the link)
    return subprocess.run([sys.executable, "-m", "mypy", *arguments], cwd=ROOT, capture_output=True, text=True,
                          timeout=900)


def test_mypy_reports_no_error_on_the_package():
    """``mypy`` from the repository root, as CI runs it: 0 errors in gamedyn (recipes included)."""
    done = _mypy()
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    match = re.search(r"Success: no issues found in (\d+) source files", output)
    assert match is not None, output
    # every module of gamedyn/ and recipes/ was checked (recipes/ through the gamedyn/recipes link)
    # (gamedyn/recipes is the link to recipes/ in a checkout, real files in an unpacked sdist: counted once)
    modules = (len([path for path in (ROOT / "gamedyn").rglob("*.py")
                    if path.relative_to(ROOT / "gamedyn").parts[0] != "recipes"])
               + len(list((ROOT / "recipes").glob("*.py"))))
    assert int(match.group(1)) >= modules, output


def test_the_type_checker_sees_recipes_and_result_types(tmp_path):
    """A recipe imported from gamedyn.recipes is the declared function (with its ``.recipe``), not the module
    of the same name; the result fields hold what their types say (batched games: arrays; regrets=False: None)."""
    program = "\n".join([
        "from gamedyn.recipes import hedge, smooth_perceptron",
        "from gamedyn.engine.results import GameResult, RoundState",
        "reveal_type(hedge.recipe)",
        "reveal_type(smooth_perceptron.recipe.family)",
        "def read(result: GameResult, state: RoundState) -> None:",
        "    reveal_type(result.w_regret)",
        "    reveal_type(result.duality_gap)",
        "    reveal_type(result.not_computed)",
        "    reveal_type(state.w_played_loss)",
        "    reveal_type(state.w_loss_sum)",
    ])
    script = tmp_path / "reveal.py"
    script.write_text(program + "\n", encoding="utf-8")
    done = _mypy(str(script))
    output = done.stdout + done.stderr
    revealed = re.findall(r'Revealed type is "([^"]+)"', output)
    assert len(revealed) == 7, output
    assert revealed[0] == "gamedyn.engine.recipe.Recipe", output
    assert revealed[1] == "gamedyn.engine.recipe.Family", output
    for field in revealed[2:4] + revealed[5:6]:
        assert re.fullmatch(r"(builtins\.)?float \| numpy\.ndarray\[.*\] \| None", field), output
    assert re.fullmatch(r"(builtins\.)?tuple\[(builtins\.)?str, \.\.\.\]", revealed[4]), output
    assert revealed[6] == "gamedyn.core.loss.Loss | None", output
    assert "error:" not in output, output


def test_the_recipes_named_for_type_checkers_are_every_recipe():
    """recipes/__init__.py names each recipe function for type checkers (a TYPE_CHECKING block; at run time
    RECIPES fills the package): that list is exactly RECIPES, each imported from its own module."""
    from gamedyn.recipes import RECIPES

    tree = ast.parse((ROOT / "recipes" / "__init__.py").read_text(encoding="utf-8"))
    blocks = [node for node in tree.body if isinstance(node, ast.If) and isinstance(node.test, ast.Name)
              and node.test.id == "TYPE_CHECKING"]
    assert len(blocks) == 1
    named = {}
    for statement in blocks[0].body:
        assert isinstance(statement, ast.ImportFrom), ast.dump(statement)
        for alias in statement.names:
            assert alias.asname == alias.name  # "import x as x": an explicit re-export
            named[alias.name] = statement.module
    assert named == {name: f"gamedyn.recipes.{name}" for name in RECIPES}


def _face_type_checking_imports() -> dict:
    """``{name: module}`` of the names the face imports under ``if TYPE_CHECKING:`` (read with ast)."""
    tree = ast.parse((ROOT / "gamedyn" / "__init__.py").read_text(encoding="utf-8"))
    blocks = [node for node in tree.body if isinstance(node, ast.If) and isinstance(node.test, ast.Name)
              and node.test.id == "TYPE_CHECKING"]
    assert len(blocks) == 1
    named = {}
    for statement in blocks[0].body:
        assert isinstance(statement, ast.ImportFrom), ast.dump(statement)
        for alias in statement.names:
            assert alias.asname == alias.name  # "from m import x as x": an explicit re-export
            named[alias.name] = statement.module
    return named


def test_the_face_names_every_export_for_type_checkers():
    """gamedyn/__init__.py loads its names lazily (_EXPORTS); its TYPE_CHECKING block imports exactly those names,
    each from the module _EXPORTS says, and the layer packages of __all__: a new name cannot be missed."""
    import gamedyn

    named = _face_type_checking_imports()
    layers = {name: module for name, module in named.items() if module == "gamedyn"}
    exports = {name: module for name, module in named.items() if module != "gamedyn"}
    assert exports == gamedyn._EXPORTS
    assert set(gamedyn.__all__) - set(gamedyn._EXPORTS) <= set(layers)
    assert set(layers) <= set(gamedyn._SUBMODULES)


def test_mypy_sees_every_public_name_with_its_type_not_any(tmp_path):
    """A user's script (issue 31): ``from gamedyn import play, FTRL, Entropy; reveal_type(play)`` shows play's
    signature; every name of gamedyn.__all__ and every recipe of gamedyn.recipes is revealed as its own type,
    never ``Any`` (what a lazily loaded face without types gives)."""
    import gamedyn
    from gamedyn.recipes import RECIPES

    names = [name for name in gamedyn.__all__ if name not in gamedyn._SUBMODULES and name not in ("games", "io")]
    lines = ["import gamedyn", "import gamedyn.recipes", "from gamedyn import play, FTRL, Entropy",
             "reveal_type(play)", "reveal_type(FTRL)", "reveal_type(Entropy)"]
    lines += [f"reveal_type(gamedyn.{name})" for name in names]
    lines += [f"reveal_type(gamedyn.recipes.{name})" for name in RECIPES]
    lines += [f"reveal_type(gamedyn.{layer})" for layer in ("core", "engine", "recipes", "io", "games")]
    script = tmp_path / "user_script.py"
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = _mypy(str(script))
    output = done.stdout + done.stderr
    revealed = re.findall(r'Revealed type is "([^"]+)"', output)
    assert len(revealed) == 3 + len(names) + len(RECIPES) + 5, output
    assert "error:" not in output, output
    anys = [line for line, kind in zip(lines[3:], revealed) if kind in ("Any", "builtins.object")]  # the lazy __getattr__
    assert anys == [], anys
    play = revealed[0]
    assert re.match(r"def \(payoff: gamedyn\.core\.protocols\.PayoffProtocol, w_learner: gamedyn\.core\.protocols\.Learner, "
                    r"p_learner: gamedyn\.core\.protocols\.Learner, T: (builtins\.)?int, \*, weights: ", play), play
    assert "observers: typing.Iterable[gamedyn.core.protocols.Observer]" in play and play.endswith(
        "-> gamedyn.engine.results.GameResult"), play
    assert revealed[1].endswith("-> gamedyn.core.learners.FTRL") and revealed[2].endswith(
        "-> gamedyn.core.regularizers.Entropy"), revealed[1:3]
    for recipe_type in revealed[3 + len(names):3 + len(names) + len(RECIPES)]:
        assert recipe_type.startswith("gamedyn.engine.recipe.RecipeFunction[") and recipe_type.endswith("Result]"), \
            recipe_type
