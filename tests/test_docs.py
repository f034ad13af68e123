"""Every ```python block in README.md and docs/ runs, and every docstring example passes.

The blocks of one page run in order in one namespace, so a page reads as one session. The suite
fails if it collects no block at all, so the teaching material can never silently stop running.
A ```python block followed directly by an ```output block must print that output (compared as
doctest does, with ``...`` matching anything and runs of whitespace equal); on the pages under
``CHECKED_OUTPUT_FOLDERS`` every block that prints must show its output that way.
"""

import contextlib
import doctest
import importlib
import io
import pathlib
import pkgutil
import re

import pytest

import gamedyn

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
BLOCK = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)
# a python block, optionally followed (blank lines only between) by the output it prints
BLOCK_AND_OUTPUT = re.compile(r"^```python\n(.*?)^```[ \t]*(?:\n|\Z)(?:\s*\n)*(?:^```output\n(.*?)^```)?",
                              re.DOTALL | re.MULTILINE)
CHECKED_OUTPUT_FOLDERS = ("docs/recipes", "docs/explanation")
_OUTPUT_CHECKER = doctest.OutputChecker()
_OUTPUT_FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def test_pages_have_code_blocks():
    blocks = sum(len(BLOCK.findall(page.read_text())) for page in PAGES)
    for page in PAGES:  # the output-checking pattern sees every block the plain one does
        assert len(BLOCK_AND_OUTPUT.findall(page.read_text())) == len(BLOCK.findall(page.read_text())), page
    assert blocks >= 5, f"only {blocks} python blocks found in {len(PAGES)} pages"


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_page_code_blocks_run(page, tmp_path, monkeypatch):
    text = page.read_text()
    for requirement in re.findall(r"<!-- requires: (.*?) -->", text):  # a page on an optional extra
        for module in requirement.split():
            pytest.importorskip(module)
    monkeypatch.chdir(tmp_path)  # blocks that write files write them here
    namespace = {"__name__": "__docs__"}
    must_show = str(page.relative_to(ROOT)).startswith(CHECKED_OUTPUT_FOLDERS)
    for number, (block, expected) in enumerate(BLOCK_AND_OUTPUT.findall(page.read_text()), start=1):
        printed = io.StringIO()
        try:
            with contextlib.redirect_stdout(printed):
                exec(compile(block, f"{page.name}[block {number}]", "exec"), namespace)
        except Exception as error:  # pragma: no cover - the message is the point
            raise AssertionError(f"{page.relative_to(ROOT)} block {number} failed: {error!r}\n{block}") from error
        where = f"{page.relative_to(ROOT)} block {number}"
        if expected:
            assert _OUTPUT_CHECKER.check_output(expected, printed.getvalue(), _OUTPUT_FLAGS), (
                f"{where} printed\n{printed.getvalue()}\nbut the page shows\n{expected}")
        elif must_show:
            assert not printed.getvalue(), f"{where} prints but shows no ```output block:\n{printed.getvalue()}"


def test_output_blocks_follow_a_python_block():
    """An ```output block anywhere else would never be compared."""
    for page in PAGES:
        text = page.read_text()
        attached = sum(1 for _, output in BLOCK_AND_OUTPUT.findall(text) if output)
        assert text.count("```output\n") == attached, f"{page.relative_to(ROOT)}: an ```output block after no python block"


PRIVATE_IMPORT = re.compile(r"^\s*(from|import)\s+gamedyn(\.\w+)*\._\w+|gamedyn(\.\w+)*\._[a-z]\w*\b", re.MULTILINE)


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_pages_use_public_modules_only(page):
    """A reader copies the blocks: none may import a private module (gamedyn._x) or use a private name."""
    for number, block in enumerate(BLOCK.findall(page.read_text()), start=1):
        found = PRIVATE_IMPORT.search(block)
        assert found is None, f"{page.relative_to(ROOT)} block {number} uses a private name: {found.group(0)!r}"


def _modules():
    """Every module of gamedyn (its recipes included)."""
    names = []

    def walk(folder, name):
        names.append(name)
        for info in pkgutil.iter_modules([str(folder)]):
            path = folder / info.name / "__init__.py" if info.ispkg else folder / f"{info.name}.py"
            if info.name == "__main__":
                continue
            if info.ispkg:
                walk(folder / info.name, f"{name}.{info.name}")
            else:
                names.append(f"{name}.{info.name}")

    walk(ROOT / "gamedyn", "gamedyn")
    return sorted(set(names))


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples(name):
    module = importlib.import_module(name)  # optional extras are imported lazily, so this never needs them
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(module, name):
        runner.run(test)
    assert runner.failures == 0, f"{runner.failures} docstring example(s) failed in {name}"


def _public_names(module):
    import inspect

    if hasattr(module, "__all__"):
        return list(module.__all__)
    return [name for name, value in vars(module).items() if not name.startswith("_")
            and (inspect.isfunction(value) or inspect.isclass(value)) and value.__module__ == module.__name__]


REFERENCED_MODULES = ["gamedyn", "gamedyn.recipes", "gamedyn.games.margin.original", "gamedyn.certify.margins",
                      "gamedyn.io.datasets", "gamedyn.paper.rates", "gamedyn.paper.registry", "gamedyn.logistic",
                      "gamedyn.paper.experiments.iterations", "gamedyn.paper.experiments.logistic_figures",
                      "gamedyn.games.matrix.game", "gamedyn.games.matrix.original", "gamedyn.paper.exploration",
                      "gamedyn.plot", "gamedyn.paper.experiments.matrix_games", "gamedyn.arrays.distributed",
                      "gamedyn.certify.certificates", "gamedyn.certify.gordan", "gamedyn.certify.stops", "gamedyn.sklearn",
                      "gamedyn.games.fenchel.game", "gamedyn.games.fenchel.original", "gamedyn.paper.experiments.fenchel",
                      "gamedyn.engine.checkpoints", "gamedyn.arrays.one_pass", "gamedyn.engine.rounds", "gamedyn.core",
                      "gamedyn.arrays", "gamedyn.certify", "gamedyn.engine", "gamedyn.games", "gamedyn.io", "gamedyn.paper",
                      "gamedyn.core.regret_matching", "gamedyn.core.adaptive", "gamedyn.games.matrix.solve",
                      "gamedyn.games.matrix.original_rm",
                      # issue 32: the extensive-form family
                      "gamedyn.core.treeplex", "gamedyn.core.counterfactual", "gamedyn.certify.sequence_form",
                      "gamedyn.games.efg", "gamedyn.games.efg.original", "gamedyn.games.efg.rules",
                      # issue 33: the dilated entropy and its recipes
                      "gamedyn.core.dilated", "gamedyn.games.efg.original_dilated", "gamedyn.recipes.dilated_hedge",
                      "gamedyn.recipes.mmd", "gamedyn.paper.experiments.efg_dilated"]


@pytest.mark.parametrize("name", REFERENCED_MODULES)
def test_reference_page_names_every_public_name(name):
    page = (ROOT / "docs" / "reference" / "api.md").read_text()
    missing = [public for public in _public_names(importlib.import_module(name)) if f"`{public}" not in page
               and f"{public}`" not in page and f" {public}(" not in page and f"`{public}(" not in page]
    assert not missing, f"docs/reference/api.md does not mention {missing} from {name}"


def test_readme_test_command_is_what_ci_runs():
    """README's test command (the bash block right after "Then the tests") appears verbatim in .ci/run,
    and installs the extras whose tests would otherwise be skipped (matplotlib: plot, scikit-learn: data and
    sklearn, dask: dask)."""
    readme = (ROOT / "README.md").read_text()
    after = readme[readme.index("Then the tests"):]
    command = re.search(r"```bash\n(.*?)\n```", after, re.DOTALL).group(1).strip()
    assert command in (ROOT / ".ci" / "run").read_text().splitlines()
    extras = re.search(r'"\.\[(.*?)\]"', command).group(1).split(",")
    assert {"test", "plot", "data", "sklearn", "dask"} <= set(extras) or "all" in extras, command
