"""Old import paths that keep working for one release: :func:`moved` turns a module into an alias.

Every module that the layout of issue 17 moved (``gamedyn.protocol``, ``gamedyn.learners``, ...,
``gamedyn.experiments.*``) is a small file that calls :func:`moved` with a table name -> new module.
The old module then

* warns once, when it is first imported (a ``DeprecationWarning`` naming the new path, attributed to
  the line that imported it, so Python shows it for a script's own import);
* holds the very same objects as the new modules (``gamedyn.protocol.play is gamedyn.engine.runner.play``);
* forwards an assignment of a moved name (``gamedyn.one_pass.ONE_PASS_MIN_BYTES = math.inf``) to the
  module that reads it, so a setting made through the old path still takes effect;
* answers any other name of its new modules (module ``__getattr__``).
"""

from __future__ import annotations

import importlib
import sys
import types
import warnings

__all__ = ["moved"]


class _MovedModule(types.ModuleType):
    """A module whose moved names live elsewhere: reads are its own attributes (the same objects),
    assignments go to the new module too."""

    def __setattr__(self, name: str, value) -> None:
        owner = self.__dict__.get("_moved_to", {}).get(name)
        if owner is not None:
            setattr(importlib.import_module(owner), name, value)
        super().__setattr__(name, value)


def _importer_level() -> int:
    """The ``stacklevel`` of :func:`warnings.warn` called in :func:`moved` that names the importing line:
    the first frame above the old module's body that is not the import machinery."""
    frame: types.FrameType | None = sys._getframe(2).f_back  # the frame above the old module's body
    level = 3
    while frame is not None:
        filename = frame.f_code.co_filename
        if not (filename.startswith("<frozen importlib") or filename == importlib.__file__):
            break
        frame, level = frame.f_back, level + 1
    return level


def moved(name: str, old: str, table: dict, also: dict | None = None, *, new: str | None = None) -> None:
    """Make the module ``name`` (the caller's ``__name__``) the deprecated alias ``old`` of ``table``'s names.

    Parameters
    ----------
    name : str
        The calling module's ``__name__`` (``"__main__"`` when it runs as a script).
    old : str
        The deprecated path, e.g. ``"gamedyn.protocol"``, named in the warning.
    table : dict
        ``{public name: new module}``: the names the old module defined, each taken from its new module
        (the same object); the warning names these modules.
    also : dict, optional
        ``{public name: module}``: names the old module had imported from elsewhere in gamedyn, kept
        available under the old path (not named in the warning).
    new : str, optional
        The new path the warning names when ``table`` is empty (a package that only held modules).

    Raises
    ------
    ImportError
        If a new module lacks a name of the table (a stale alias).

    Examples
    --------
    A shim module holds one call (``gamedyn/protocol.py``)::

        moved(__name__, "gamedyn.protocol", {"play": "gamedyn.engine.runner", ...})
    """
    targets = sorted(set(table.values())) or [new]
    warnings.warn(
        f"{old} is deprecated (issue 17: the layered package) and will be removed in the next release; "
        f"import from {', '.join(targets)} instead.",
        # run as a script (python -m gamedyn.experiments.iterations): the warning is the script's own, so
        # Python's default filter (DeprecationWarning shown in __main__) shows it
        DeprecationWarning, stacklevel=2 if name == "__main__" else _importer_level())
    module = sys.modules[name]
    values, everything = {}, {**(also or {}), **table}
    for public, owner in everything.items():
        source = importlib.import_module(owner)
        try:
            values[public] = getattr(source, public)
        except AttributeError:
            raise ImportError(f"{old}: {owner} has no {public!r}; the alias table of {old} is stale.") from None

    def __getattr__(attribute: str):
        for owner in targets:
            source = importlib.import_module(owner)
            if hasattr(source, attribute):
                return getattr(source, attribute)
        raise AttributeError(f"module {old!r} has no attribute {attribute!r} (it moved to {', '.join(targets)})")

    module.__dict__.update(values)
    module.__dict__.update({"__all__": sorted(table), "__getattr__": __getattr__, "_moved_to": everything})
    module.__class__ = _MovedModule
