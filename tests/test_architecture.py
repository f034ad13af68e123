"""The layered package (issue 17): the import graph of gamedyn/ and recipes/ has no cycle, no import from a
layer to a higher one, and no private name imported from another module.

Every module is parsed with ``ast`` (nothing is imported): module-level AND function-level imports,
imports under ``if TYPE_CHECKING:`` and ``importlib.import_module("...")`` with a literal name are edges. ``from gamedyn import play`` is an import of the face (``gamedyn/__init__.py``), the top
layer: no library module may use it. docs/explanation/architecture.md draws the same layers.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent

# Bottom first. A module may import from its own layer (without a cycle) and the layers below it.
LAYERS = (
    ("core", ("gamedyn.core",)),
    ("arrays", ("gamedyn.arrays",)),
    ("certify", ("gamedyn.certify",)),
    ("engine", ("gamedyn.engine",)),
    ("games", ("gamedyn.games",)),
    ("recipes", ("gamedyn.recipes",)),
    ("logistic", ("gamedyn.logistic",)),
    ("io", ("gamedyn.io",)),
    ("paper", ("gamedyn.paper",)),
    ("front ends", ("gamedyn.sklearn", "gamedyn.plot")),
    ("cli", ("gamedyn.cli", "gamedyn.__main__")),
    ("face", ("gamedyn",)),
)
LAYER_NAMES = [name for name, _ in LAYERS]


def _modules() -> dict:
    """dotted name -> path, for gamedyn/ (the recipes through their real folder) and recipes/."""
    found = {}
    for path in sorted((ROOT / "gamedyn").rglob("*.py")):
        relative = path.relative_to(ROOT / "gamedyn")
        if relative.parts[0] == "recipes":  # the link to ../recipes: read through the real folder below
            continue
        found[_dotted("gamedyn", relative)] = path
    for path in sorted((ROOT / "recipes").rglob("*.py")):
        found[_dotted("gamedyn.recipes", path.relative_to(ROOT / "recipes"))] = path
    return found


def _dotted(prefix: str, relative: pathlib.PurePath) -> str:
    parts = list(relative.with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([prefix, *parts])


MODULES = _modules()
TREES = {name: ast.parse(path.read_text(), str(path)) for name, path in MODULES.items()}


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def layer_of(name: str) -> str | None:
    best = None
    for layer, prefixes in LAYERS:
        for prefix in prefixes:
            if (name == prefix or name.startswith(prefix + ".")) and (best is None or len(prefix) > len(best[1])):
                best = (layer, prefix)
    return None if best is None else best[0]


def _absolute(module: str | None, level: int, importer: str) -> str:
    if not level:
        return module or ""
    package = importer if _is_package(importer) else importer.rpartition(".")[0]
    base = package.split(".")[: len(package.split(".")) - level + 1]
    return ".".join(base + ([module] if module else []))


def _is_private(part: str) -> bool:
    return part.startswith("_") and not (part.startswith("__") and part.endswith("__"))


class Import:
    """One edge: ``importer`` line ``line`` imports ``target`` (a module of MODULES), by ``how``."""

    def __init__(self, importer, line, target, how, private=None):
        self.importer, self.line, self.target, self.how, self.private = importer, line, target, how, private

    def __repr__(self):
        return f"{MODULES[self.importer].relative_to(ROOT)}:{self.line}: {self.how}"


def imports_of(name: str) -> list:
    """Every edge out of module ``name`` to a gamedyn module, and the private names it reaches."""
    edges = []
    bound = {}  # local name -> module it is bound to (for attribute access on modules)

    def add(line, dotted, how, private=None):
        if dotted in MODULES:
            edges.append(Import(name, line, dotted, how, private))
        elif dotted.split(".")[0] == "gamedyn":
            edges.append(Import(name, line, None, f"{how} (no such module: {dotted})", private))

    for node in ast.walk(TREES[name]):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] != "gamedyn":
                    continue
                private = next((part for part in alias.name.split(".") if _is_private(part)), None)
                add(node.lineno, alias.name, f"import {alias.name}", private)
                if alias.asname:
                    bound[alias.asname] = alias.name
                else:
                    bound["gamedyn"] = "gamedyn"
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(node.module, node.level, name)
            if module.split(".")[0] != "gamedyn":
                continue
            for alias in node.names:
                private_path = next((part for part in module.split(".") if _is_private(part)), None)
                if f"{module}.{alias.name}" in MODULES:  # a submodule
                    target = f"{module}.{alias.name}"
                    private = private_path or (alias.name if _is_private(alias.name) else None)
                    add(node.lineno, target, f"from {module} import {alias.name}", private)
                    bound[alias.asname or alias.name] = target
                else:
                    private = private_path or (alias.name if _is_private(alias.name) else None)
                    add(node.lineno, module, f"from {module} import {alias.name}", private)
        elif isinstance(node, ast.Call):
            function = node.func
            called = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", None)
            if called == "import_module" and node.args and isinstance(node.args[0], ast.Constant):
                target = node.args[0].value
                if isinstance(target, str) and target.split(".")[0] == "gamedyn":
                    private = next((part for part in target.split(".") if _is_private(part)), None)
                    add(node.lineno, target, f"importlib.import_module({target!r})", private)
    for node in ast.walk(TREES[name]):  # module._private, on a module bound by an import
        if isinstance(node, ast.Attribute) and _is_private(node.attr):
            dotted = _dotted_name(node.value)
            if dotted is None or dotted.split(".")[0] not in bound:
                continue
            head, _, rest = dotted.partition(".")
            module = bound[head] + (f".{rest}" if rest else "")
            if module in MODULES:
                edges.append(Import(name, node.lineno, module, f"{dotted}.{node.attr}", node.attr))
    return edges


def _dotted_name(node) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted_name(node.value)
        return None if inner is None else f"{inner}.{node.attr}"
    return None


EDGES = {name: imports_of(name) for name in MODULES}


def test_the_graph_is_not_empty():
    """The parser sees the package: a broken collection cannot pass the checks below vacuously."""
    assert len(MODULES) > 60 and "gamedyn.recipes.hedge" in MODULES
    assert any(edge.target == "gamedyn.core.loss" for edge in EDGES["gamedyn.core.learners"])
    function_level = [edge for edge in EDGES["gamedyn.engine.payoffs"] if edge.target == "gamedyn.certify.certificates"]
    assert function_level, "Bilinear.certificate's function-level import of the certificates is an edge"


def test_every_module_belongs_to_a_layer():
    unplaced = sorted(name for name in MODULES if layer_of(name) is None)
    assert not unplaced, f"modules outside every layer (add them to LAYERS and to docs/explanation/architecture.md): {unplaced}"


def test_every_import_names_a_module_that_exists():
    dangling = [edge for edges in EDGES.values() for edge in edges if edge.target is None]
    assert not dangling, "\n".join(map(repr, dangling))


def _cycles() -> list:
    """The strongly connected components of more than one module (Tarjan), each with one of its edges."""
    graph = {name: sorted({edge.target for edge in EDGES[name] if edge.target and edge.target != name}) for name in MODULES}
    index, low, stack, on_stack, components, counter = {}, {}, [], set(), [], [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for successor in graph[node]:
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return components


def test_no_import_cycle():
    """No cycle, not even through a function-level import (an import cycle that only works because one side
    imports late is still a cycle: the two modules cannot be understood, tested or moved apart)."""
    found = []
    for component in _cycles():
        members = set(component)
        witnesses = [edge for name in component for edge in EDGES[name] if edge.target in members]
        found.append(f"{component}:\n    " + "\n    ".join(map(repr, witnesses)))
    assert not found, "import cycles:\n" + "\n".join(found)


def test_no_import_from_a_higher_layer():
    upward = []
    for name in MODULES:
        source = layer_of(name)
        for edge in EDGES[name]:
            target = layer_of(edge.target) if edge.target else None
            if source is None or target is None:
                continue
            if LAYER_NAMES.index(target) > LAYER_NAMES.index(source):
                upward.append(f"{edge!r}  ({source} -> {target})")
    assert not upward, "imports from a higher layer:\n" + "\n".join(upward)


def test_no_private_name_imported_from_another_module():
    private = [f"{edge!r}  (private: {edge.private})" for edges in EDGES.values() for edge in edges
               if edge.private is not None and edge.target != edge.importer]
    assert not private, "private names used across modules (make them public inside their layer):\n" + "\n".join(private)


def test_the_face_is_imported_by_no_library_module():
    """``gamedyn/__init__.py`` re-exports lazily; a library module importing from it would load the whole face."""
    users = [edge for name, edges in EDGES.items() for edge in edges if edge.target == "gamedyn" and name != "gamedyn"]
    assert not users, "\n".join(map(repr, users))


@pytest.mark.parametrize("name, how, expected", [
    ("gamedyn.core.learners", "from gamedyn.engine.runner import play", "engine"),
    ("gamedyn.engine.payoffs", "from gamedyn import play", "face"),
])
def test_the_check_sees_an_upward_import(name, how, expected, monkeypatch):
    """Negative control: an upward import (module- or function-level) written into a module is reported."""
    source = MODULES[name].read_text() + f"\n\ndef _late():\n    {how}\n"
    monkeypatch.setitem(TREES, name, ast.parse(source))
    monkeypatch.setitem(EDGES, name, imports_of(name))
    with pytest.raises(AssertionError, match=expected):
        test_no_import_from_a_higher_layer()


def test_the_check_sees_a_cycle_and_a_private_name(monkeypatch):
    """Negative control: a function-level import back into the importer's importer, and a private name."""
    source = MODULES["gamedyn.core.loss"].read_text() + "\n\ndef _late():\n    from gamedyn.core.learners import _same_array\n"
    monkeypatch.setitem(TREES, "gamedyn.core.loss", ast.parse(source))
    monkeypatch.setitem(EDGES, "gamedyn.core.loss", imports_of("gamedyn.core.loss"))
    with pytest.raises(AssertionError, match="gamedyn.core.learners"):
        test_no_import_cycle()
    with pytest.raises(AssertionError, match="_same_array"):
        test_no_private_name_imported_from_another_module()


# ------------------------------------------------------------------ behaviour by capability, not by class

_EXACT_CLASS = __import__("re").compile(r"\.__class__\s*(is|in|not in|==|!=)\b|\btype\([^()]*\)\s*(is|in|not in|==|!=)\s")


def test_no_module_chooses_behaviour_by_exact_class():
    """Behaviour is chosen by what objects declare (gamedyn.core.protocols.declared, e.g. a domain's
    ``distributions``, a step's ``step_kind``), never by exact class: ``type(x) is C`` / ``x.__class__ is C``
    would make a subclass silently lose a closed form. The numpy fast-path test (``is_numpy``,
    ``is_python_float``) lives in one place, the backend seam gamedyn/core/kernels.py."""
    seam = "gamedyn.core.kernels"
    found = []
    for name, path in MODULES.items():
        if name == seam:
            continue
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            code = line.split("#", 1)[0]
            if _EXACT_CLASS.search(code) and "__class__ =" not in code:
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert found == []
    kernels = MODULES[seam].read_text()  # the seam tests against exactly numpy's ndarray and Python's float
    tested = __import__("re").findall(r"\.__class__ is (?:not )?(\w+)", kernels)
    assert tested and set(tested) == {"_NDARRAY", "float"}, tested
