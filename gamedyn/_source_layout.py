"""Let a source checkout import ``gamedyn.recipes`` as an installed copy does.

The recipes live in the top-level ``recipes/`` folder and install as ``gamedyn.recipes`` (a
setuptools ``package-dir`` mapping). When Python imports ``gamedyn`` straight from a checkout
(``python -c ...`` or ``python -m pytest`` in the repository root), that mapping does not exist;
this finder supplies it, and only then.

It goes first in ``sys.meta_path``: ``gamedyn.recipes`` must be the ``recipes/`` next to the
``gamedyn`` being imported. An editable install (``pip install -e``) of *another* checkout puts a
finder of its own on ``sys.meta_path`` that maps ``gamedyn.recipes`` to that checkout's folder;
appended after it, this finder was never asked, and a checkout (or the mutation gate's temporary
copy of one) ran its own ``gamedyn`` with the other checkout's recipes.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import pathlib
import sys

_PACKAGE = pathlib.Path(__file__).resolve().parent
_SOURCE_RECIPES = _PACKAGE.parent / "recipes"


class _SourceRecipesFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name != "gamedyn.recipes":
            return None
        return importlib.util.spec_from_file_location(
            name, _SOURCE_RECIPES / "__init__.py", submodule_search_locations=[str(_SOURCE_RECIPES)]
        )


def install() -> None:
    """Register the finder when this is a source checkout without an installed ``gamedyn/recipes``."""
    in_checkout = (_PACKAGE.parent / "pyproject.toml").is_file() and (_SOURCE_RECIPES / "__init__.py").is_file()
    if in_checkout and not (_PACKAGE / "recipes").exists():
        if not any(isinstance(finder, _SourceRecipesFinder) for finder in sys.meta_path):
            sys.meta_path.insert(0, _SourceRecipesFinder())
