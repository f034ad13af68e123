"""The API reference pages, generated from the package itself (one Markdown page per public module).

A public module is every module of ``gamedyn`` and ``gamedyn.recipes`` with no ``_``-prefixed part
(``__main__`` left out). Its public names are its ``__all__`` or, without one, the functions and
classes it defines (the rule ``tests/test_docs.py`` applies to ``docs/reference/api.md``). Each
public object is rendered once, on the page of the public module that defines it; a page that
re-exports a name (``gamedyn`` itself, ``gamedyn.recipes``) links to that home instead of
rendering it again. The mkdocs hook (``docsite/hooks.py``) adds these pages to the build; nothing
is written into ``docs/``.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pathlib
import pkgutil

PACKAGES = ("gamedyn", "gamedyn.recipes")
FOLDER = "api"


def _package_folder(package_name: str) -> pathlib.Path:
    return pathlib.Path(importlib.import_module(package_name).__file__).parent


def _all_modules() -> dict[str, pathlib.Path]:
    """``{name: source file}`` of every module under :data:`PACKAGES` with no ``_``-prefixed part (found on
    disk)."""
    found = {name: _package_folder(name) / "__init__.py" for name in PACKAGES}

    def walk(package_name: str, folder: pathlib.Path) -> None:
        for info in pkgutil.iter_modules([str(folder)]):
            if info.name.startswith("_"):
                continue
            name = f"{package_name}.{info.name}"
            found[name] = folder / info.name / "__init__.py" if info.ispkg else folder / f"{info.name}.py"
            if info.ispkg:
                walk(name, folder / info.name)

    for package_name in PACKAGES:
        walk(package_name, _package_folder(package_name))
    return dict(sorted(found.items()))


def public_modules() -> list[str]:
    """Dotted names of the public modules, packages first, sorted."""
    return list(_all_modules())


def public_names(module) -> list[str]:
    """``__all__``, or the functions and classes the module defines (in source order)."""
    if hasattr(module, "__all__"):
        return list(module.__all__)
    return [name for name, value in vars(module).items() if not name.startswith("_")
            and (inspect.isfunction(value) or inspect.isclass(value)) and value.__module__ == module.__name__]


def page_path(module_name: str) -> str:
    return f"{FOLDER}/{module_name}.md"


def homes() -> dict[str, dict[str, str]]:
    """``{module: {name: home module}}``: where each public name is rendered.

    A class or function is at home in the public module that defines it and lists it; anything
    else (a constant, or an object defined in a private module) in the module that lists it; a module
    (the face's layer packages) on its own page.
    """
    modules = {name: importlib.import_module(name) for name in public_modules()}
    listed = {name: set(public_names(module)) for name, module in modules.items()}
    result = {}
    for module_name, module in modules.items():
        result[module_name] = {}
        for name in public_names(module):
            value = getattr(module, name)
            if inspect.ismodule(value) and value.__name__ in listed:  # a layer package in the face's __all__: its page
                result[module_name][name] = value.__name__
                continue
            defined_in = getattr(value, "__module__", None) if (inspect.isclass(value) or inspect.isfunction(value)) else None
            home = defined_in if defined_in in listed and name in listed[defined_in] and defined_in != module_name else module_name
            result[module_name][name] = home
    return result


def static_names(module_name: str) -> set[str]:
    """The names the module's source binds at its top level (what griffe can render); a name of ``__all__``
    outside it is provided on first use by the module's ``__getattr__`` (e.g. ``PAPER_PAIRS``)."""
    tree = ast.parse(_all_modules()[module_name].read_text(encoding="utf-8"))
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                names.update(item.id for item in ast.walk(target) if isinstance(item, ast.Name))
    return names


def _summary(module) -> str:
    """The first paragraph of the module's docstring, in the site's Markdown, on one line."""
    from docsite.griffe_rst import rewrite

    doc = inspect.getdoc(module) or ""
    return rewrite(doc.strip().split("\n\n")[0]).replace("\n", " ") if doc else ""


def api_pages(summaries: bool = True) -> dict[str, str]:
    """``{path under docs/: Markdown}`` for the index and every public module (``summaries=False``: the
    index without the modules' summaries, which need griffe; what tests/test_docstrings.py reads)."""
    where = homes()
    pages = {}
    index = ["# API reference", "",
             ("Generated from the docstrings: one page per public module, every public name on the page of the "
              "module that defines it. `docs/reference/api.md` is the hand-written tour of the same names."), "",
             "| module | summary |", "|---|---|"]
    for module_name, names in where.items():
        module = importlib.import_module(module_name)
        index.append(f"| [`{module_name}`]({module_name}.md) | {_summary(module).replace('|', '/') if summaries else ''} |")
        static = static_names(module_name)
        own = [name for name, home in names.items() if home == module_name and name in static]
        lazy = [name for name, home in names.items() if home == module_name and name not in static]
        packages = {name: home for name, home in names.items() if inspect.ismodule(getattr(module, name))}
        elsewhere = {name: home for name, home in names.items() if home != module_name and name not in packages}
        lines = [f"# `{module_name}`", "", f"::: {module_name}", "    options:", "      show_root_heading: false",
                 "      show_root_toc_entry: false", f"      members: [{', '.join(own)}]" if own else "      members: false", ""]
        for name in lazy:  # provided by the module's __getattr__: griffe cannot see it
            value = getattr(module, name)
            lines += [f"## `{name}` {{ #{module_name}.{name} }}", "",
                      f"A `{type(value).__name__}` computed on first use (the module's `__getattr__`; see the module's "
                      "description above).", ""]
        if packages:
            lines += ["## Layer packages", "", "| name | module |", "|---|---|"]
            lines += [f"| [`{name}`]({home}.md) | [`{home}`]({home}.md) |" for name, home in packages.items()]
            lines.append("")
        if elsewhere:
            lines += ["## Re-exported names", "", "| name | defined in |", "|---|---|"]
            for name, home in elsewhere.items():
                lines.append(f"| [`{name}`][{home}.{name}] | [`{home}`]({home}.md) |")
            lines.append("")
        pages[page_path(module_name)] = "\n".join(lines)
    pages[f"{FOLDER}/index.md"] = "\n".join(index) + "\n"
    return pages
