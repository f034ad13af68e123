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
    modules = len(list((ROOT / "gamedyn").rglob("*.py"))) + len(list((ROOT / "recipes").glob("*.py")))
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
