"""Docstrings: every public name has one; the public API's follow numpydoc; the API pages list every name.

Everything is read from the code, so a new name is checked the day it is declared:

* **public** (must have a docstring): every public module of the new layout (the deprecated alias
  modules left out, as on the site: :func:`docsite.api_pages.public_modules`), every class and
  function its ``__all__`` lists (or, without one, that it defines), and their public methods and
  properties. That covers the face's ``gamedyn.__all__``, each layer package's ``__all__`` and
  ``gamedyn.recipes``' recipes (all three are checked to be covered). A method implementing a method
  of a protocol of :mod:`gamedyn.core.protocols` that its class satisfies may rely on the protocol's
  docstring; any other method inherits only from its own base classes (:func:`inspect.getdoc`).
* **the listed API** (numpydoc sections): the protocols of :mod:`gamedyn.core.protocols` (their
  methods), :func:`gamedyn.play`, every recipe of :data:`gamedyn.recipes.RECIPES`, every stop rule of
  :mod:`gamedyn.certify.stops`, the estimator(s) of :mod:`gamedyn.sklearn`, and every public class that
  is a learner, regularizer, domain or payoff (it has the methods of that protocol). Their docstring
  has a ``Parameters`` section naming every parameter (a class: its constructor's), a ``Returns``
  section where the function returns a value, a ``Raises`` section where its body raises, and
  ``play``, the recipes and the estimator an ``Examples`` section with a doctest (run, with every other
  docstring example, by ``tests/test_docs.py::test_docstring_examples``).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pathlib
import re
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
try:
    from docsite import api_pages
finally:
    sys.path.remove(str(ROOT))

SECTION = re.compile(r"^\s*(Parameters|Returns|Yields|Raises|Warns|Examples|Attributes|See Also|Notes|References|"
                     r"Other Parameters|Methods)\n\s*-{3,}\s*$", re.MULTILINE)


# --------------------------------------------------------------------------------- what is public


def _own_doc(value) -> str:
    """The object's own docstring (a class's is not inherited from its bases)."""
    doc = vars(value).get("__doc__") if inspect.isclass(value) else getattr(value, "__doc__", None)
    return (doc or "").strip()


def _public_objects() -> dict:
    """``{qualified name: object}``: the public classes and functions of every public module, at home."""
    objects = {}
    for module_name in api_pages.public_modules():
        module = importlib.import_module(module_name)
        objects[module_name] = module
        for name in api_pages.public_names(module):
            value = getattr(module, name)
            if not (inspect.isclass(value) or inspect.isfunction(value)):
                continue  # a constant, a module: documented where it is defined (module docstring, comment)
            home = getattr(value, "__module__", "") or ""
            if not home.startswith("gamedyn"):
                continue  # a re-export of another library's object
            objects.setdefault(f"{home}.{value.__qualname__}", value)
    return objects


def _methods(cls) -> dict:
    """``{name: function or property}``: the public methods and properties ``cls`` itself defines."""
    found = {}
    for name, member in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(member, property):
            found[name] = member
        elif isinstance(member, (staticmethod, classmethod)) or inspect.isfunction(member):
            found[name] = getattr(member, "__func__", member)
    return found


def _protocols() -> dict:
    """``{name: (protocol class, its public method names)}`` of :mod:`gamedyn.core.protocols`."""
    module = importlib.import_module("gamedyn.core.protocols")
    protocols = {name: getattr(module, name) for name in module.__all__}
    return {name: (protocol, tuple(sorted(method for method, member in _methods(protocol).items()
                                          if not isinstance(member, property))))  # members read-only: fields too
            for name, protocol in protocols.items() if getattr(protocol, "_is_protocol", False)}


def _satisfied_protocols(cls) -> list:
    """The protocols whose every method ``cls`` has (a structural match, as ``isinstance`` checks)."""
    return [protocol for protocol, methods in _protocols().values()
            if methods and protocol is not cls and all(callable(getattr(cls, method, None)) for method in methods)]


def _method_doc(cls, name, member) -> str:
    doc = inspect.getdoc(member) if isinstance(member, property) else inspect.getdoc(getattr(cls, name))
    if doc:
        return doc
    for protocol in _satisfied_protocols(cls):
        if name in vars(protocol):
            return inspect.getdoc(getattr(protocol, name)) or ""
    return ""


def _undocumented() -> list:
    missing = []
    for qualified, value in _public_objects().items():
        if not _own_doc(value):
            missing.append(qualified)
        if inspect.isclass(value):
            missing += [f"{qualified}.{name}" for name, member in _methods(value).items()
                        if not _method_doc(value, name, member)]
    return sorted(missing)


def test_public_objects_cover_the_declarations():
    """The face's ``__all__``, each layer package's ``__all__`` and every recipe are among the checked objects."""
    import gamedyn
    import gamedyn.recipes

    objects = _public_objects()
    checked = {id(value) for value in objects.values()}
    declared = {f"gamedyn.{name}": getattr(gamedyn, name) for name in gamedyn.__all__}
    for layer in [name for name in gamedyn.__all__ if inspect.ismodule(getattr(gamedyn, name))]:
        package = getattr(gamedyn, layer)
        declared.update({f"{package.__name__}.{name}": getattr(package, name) for name in package.__all__})
    declared.update({f"gamedyn.recipes.{name}": recipe.function for name, recipe in gamedyn.recipes.RECIPES.items()})
    uncovered = [name for name, value in declared.items()
                 if (inspect.isclass(value) or inspect.isfunction(value) or inspect.ismodule(value))
                 and id(value) not in checked]
    assert not uncovered, f"declared public names the docstring check does not see: {uncovered}"
    assert len(declared) > 100


def test_every_public_name_has_a_docstring():
    missing = _undocumented()
    assert not missing, f"{len(missing)} public names without a docstring: {missing}"


# ---------------------------------------------------------------------------------- the listed API


def _listed_api() -> dict:
    """``{qualified name: object}`` of the API whose docstrings need numpydoc sections (see the module docstring)."""
    import gamedyn.recipes

    listed = {}
    protocols = _protocols()
    for name, (protocol, methods) in protocols.items():
        for method in methods:
            listed[f"gamedyn.core.protocols.{name}.{method}"] = getattr(protocol, method)
    runner = importlib.import_module("gamedyn.engine.runner")
    listed["gamedyn.engine.runner.play"] = runner.play
    for name, recipe in gamedyn.recipes.RECIPES.items():
        listed[f"gamedyn.recipes.{name}"] = recipe.function
    stops = importlib.import_module("gamedyn.certify.stops")
    listed.update({f"gamedyn.certify.stops.{name}": getattr(stops, name) for name in stops.__all__})
    observers = importlib.import_module("gamedyn.engine.observers")  # play's observers, the recipes' run options
    listed.update({f"gamedyn.engine.observers.{name}": getattr(observers, name)
                   for name in ("stop_when", "record_plays", "each_round", "track_metrics", "checkpoint", "compare_with",
                                "skip_regrets", "run_observers")})
    kinds = [protocols[kind][0] for kind in ("Learner", "RegularizerProtocol", "Domain", "PayoffProtocol")]
    for qualified, value in _public_objects().items():
        if inspect.isclass(value) and any(protocol in _satisfied_protocols(value) for protocol in kinds):
            listed[qualified] = value
    if importlib.util.find_spec("sklearn") is not None:
        from sklearn.base import BaseEstimator

        estimators = importlib.import_module("gamedyn.sklearn")
        listed.update({f"gamedyn.sklearn.{name}": getattr(estimators, name) for name in estimators.__all__
                       if inspect.isclass(getattr(estimators, name)) and issubclass(getattr(estimators, name), BaseEstimator)})
    return listed


def _needs_examples(qualified: str) -> bool:
    return qualified == "gamedyn.engine.runner.play" or qualified.startswith(("gamedyn.recipes.", "gamedyn.sklearn."))


def _sections(doc: str) -> dict:
    """``{section title: its text}`` of a numpydoc docstring."""
    doc = inspect.cleandoc(doc)
    matches = list(SECTION.finditer(doc))
    return {match.group(1): doc[match.end(): matches[i + 1].start() if i + 1 < len(matches) else len(doc)]
            for i, match in enumerate(matches)}


def _documented_parameters(text: str) -> set:
    """The names a ``Parameters`` section describes (``name : type`` or ``name`` lines, ``a, b : ...`` too)."""
    names = set()
    for line in textwrap.dedent(text.strip("\n")).splitlines():
        if line and not line[0].isspace():
            for part in line.split(" : ")[0].split(","):
                names.add(part.strip().lstrip("*"))
    return names


def _signature_parameters(value) -> list:
    try:
        signature = inspect.signature(value)  # a class: how it is called (its __new__ or __init__)
    except (TypeError, ValueError):
        return []
    names = [name for name in signature.parameters if name not in ("self", "cls")]
    if inspect.isclass(value) and names == ["args", "kwargs"]:
        return []  # object's (or a Protocol's) generic constructor: nothing to document
    return names


def _function_node(function):
    """The ``ast`` node of ``function``'s definition (its source), or None."""
    try:
        source = textwrap.dedent(inspect.getsource(inspect.unwrap(function)))
    except (OSError, TypeError):
        return None
    tree = ast.parse(source)
    return next((node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))), None)


def _own_statements(node):
    """The nodes of a function's body, not descending into nested functions, lambdas or classes."""
    stack = list(node.body)
    while stack:
        item = stack.pop()
        yield item
        for child in ast.iter_child_nodes(item):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                stack.append(child)


def _returns_value(function) -> bool:
    annotation = inspect.signature(function).return_annotation
    if annotation is not inspect.Signature.empty:
        return annotation not in (None, "None", type(None))
    node = _function_node(function)
    if node is None:
        return False
    return any((isinstance(item, ast.Return) and item.value is not None
                and not (isinstance(item.value, ast.Constant) and item.value.value is None))
               or isinstance(item, (ast.Yield, ast.YieldFrom)) for item in _own_statements(node))


def _raises(function) -> bool:
    """True when the function's own body raises an exception it names (a bare ``raise`` re-raises)."""
    node = _function_node(function)
    return node is not None and any(isinstance(item, ast.Raise) and item.exc is not None for item in _own_statements(node))


def _problems(qualified: str, value) -> list:
    doc = value.__doc__ if not inspect.isclass(value) else vars(value).get("__doc__")
    if not (doc or "").strip():
        return [f"{qualified}: no docstring"]
    sections = _sections(doc)
    problems = []
    parameters = _signature_parameters(value)
    if parameters:
        if "Parameters" not in sections:
            problems.append(f"{qualified}: no Parameters section")
        else:
            undocumented = [name for name in parameters if name not in _documented_parameters(sections["Parameters"])]
            if undocumented:
                problems.append(f"{qualified}: Parameters section lacks {undocumented}")
    function = value.__init__ if inspect.isclass(value) else value
    if not inspect.isclass(value) and _returns_value(value) and "Returns" not in sections and "Yields" not in sections:
        problems.append(f"{qualified}: no Returns section")
    if inspect.isfunction(function) and _raises(function) and "Raises" not in sections:
        problems.append(f"{qualified}: raises but has no Raises section")
    if _needs_examples(qualified) and ">>>" not in sections.get("Examples", ""):
        problems.append(f"{qualified}: no Examples section with a doctest")
    return problems


def test_listed_api_is_found():
    """The lists are read from the code: they hold what the issue names (protocols, play, recipes, ...)."""
    listed = _listed_api()
    for name in ("gamedyn.engine.runner.play", "gamedyn.recipes.hedge", "gamedyn.certify.stops.separated",
                 "gamedyn.core.learners.FollowTheRegularizedLeader", "gamedyn.core.regularizers.Entropy",
                 "gamedyn.core.domains.Simplex", "gamedyn.engine.payoffs.Bilinear", "gamedyn.core.protocols.Learner.play"):
        assert name in listed, f"{name} is not in the listed API"
    assert len(listed) > 40


def test_listed_api_has_numpydoc_sections():
    problems = [problem for qualified, value in _listed_api().items() for problem in _problems(qualified, value)]
    assert not problems, f"{len(problems)} numpydoc problems:\n" + "\n".join(problems)


def test_sections_checker_reads_numpydoc():
    """The checker itself: it finds sections and parameter names, and flags what is missing."""

    def documented(a, b, *, c=1, **options):
        """Summary.

        Parameters
        ----------
        a, b : float
            Two numbers.
        c : int, optional
            A count.
        **options
            More.

        Returns
        -------
        float
            The sum.
        """
        return a + b

    def undocumented(x):
        """Summary, Google style.

        Args:
            x: a number.
        """
        if x < 0:
            raise ValueError("x")
        return x

    assert _problems("documented", documented) == []
    assert _problems("undocumented", undocumented) == [
        "undocumented: no Parameters section", "undocumented: no Returns section",
        "undocumented: raises but has no Raises section"]


# ------------------------------------------------------------------------------------- the API pages


def test_api_pages_list_every_declared_name():
    """Without mkdocs: the generated pages render every public name on its home page, and each page that
    re-exports a name links to that home; no page for a deprecated alias module."""
    import gamedyn
    import gamedyn.recipes

    pages = api_pages.api_pages(summaries=False)  # no griffe needed
    rendered = {}  # module -> names its page renders
    linked = {}  # module -> names its page links to their home
    for module, names in api_pages.homes().items():
        text = pages[api_pages.page_path(module)]
        members = re.search(r"members: \[(.*)\]", text)
        rendered[module] = ((set(members.group(1).split(", ")) if members else set()) & api_pages.static_names(module)
                            | set(re.findall(rf"{{ #{re.escape(module)}\.(\w+) }}", text)))
        linked[module] = set(re.findall(r"\| \[`([^`]+)`\]\[", text)) | set(re.findall(r"\| \[`([^`]+)`\]\(", text))
    missing = []
    declared = [("gamedyn", name) for name in gamedyn.__all__]
    for layer in [name for name in gamedyn.__all__ if inspect.ismodule(getattr(gamedyn, name))]:
        package = getattr(gamedyn, layer)
        declared += [(package.__name__, name) for name in package.__all__]
    declared += [("gamedyn.recipes", name) for name in gamedyn.recipes.__all__]
    where = api_pages.homes()
    for module, name in declared:
        home = where.get(module, {}).get(name)
        if inspect.ismodule(getattr(importlib.import_module(module), name)):  # a layer package: linked to its page
            if home not in pages and api_pages.page_path(home) not in pages or name not in linked[module]:
                missing.append(f"{module}.{name} (no link to its page)")
        elif home is None or name not in rendered.get(home, set()):
            missing.append(f"{module}.{name}")
        elif home != module and name not in linked[module]:
            missing.append(f"{module}.{name} (no link to {home})")
    assert not missing, f"declared names no API page renders: {missing}"
    assert api_pages.page_path("gamedyn.protocol") not in pages and api_pages.page_path("gamedyn.engine.runner") in pages


def test_protocol_1_renders_as_four_numbered_steps():
    """The runner's page lists Protocol 1's steps 1-4 (issue 31: written on two lines, Markdown rendered step 4
    as "2."); and no docstring runs numbered steps together on one line (``1. ...  2. ...``)."""
    markdown = pytest.importorskip("markdown", reason="Python-Markdown comes with the docs extra: pip install '.[docs]'")
    import re

    from docsite.griffe_rst import rewrite

    runner = importlib.import_module("gamedyn.engine.runner")
    rendered = markdown.markdown(rewrite(inspect.getdoc(runner)), extensions=["tables"])
    first = re.search(r"<ol>(.*?)</ol>", rendered, flags=re.S)
    assert first is not None
    steps = re.findall(r"<li>(.*?)</li>", first.group(1), flags=re.S)
    assert len(steps) == 4 and steps[0].startswith("w_t") and steps[3].startswith("OL_w receives"), steps
    run_together = [name for name in api_pages.public_modules()
                    if re.search(r"^[ \t]*1\. [^\n]*[ \t]2\. ", inspect.getdoc(importlib.import_module(name)) or "", re.M)]
    assert run_together == []
