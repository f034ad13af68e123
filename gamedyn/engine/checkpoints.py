r"""Checkpoints: save a run to a file and resume it bit for bit.

A checkpoint is one ``.npz`` file (numpy's zip of arrays, read with ``allow_pickle=False``: no code
is ever loaded from it) holding every number the run carries from round t to round t + 1 and a
small JSON header:

* ``format`` (``"gamedyn-checkpoint"``) and ``version`` (:data:`CHECKPOINT_VERSION`);
* ``kind`` (``"play"`` or ``"adaptive_sgd"``) and ``round``, the last completed round t;
* ``fingerprint``: one digest (SHA-256) per part of the configuration (payoff with its matrix,
  each learner with its regularizer, hint and steps, T, the weight schedules, initial points,
  ...), so a checkpoint from another configuration is refused with
  :class:`CheckpointMismatchError` naming the part that differs. A function in the configuration
  (weights, a step schedule, an objective) counts by what it computes: its bytecode, constants,
  defaults, closure values, the globals it reads and the attributes it reads through a module or
  class (see :func:`describe`); a callable that cannot be fingerprinted so (an object with
  ``__call__`` and state of its own, a function reading a file or the environment) is refused when
  the run starts, with the fix in the message;
* ``layout``: how the arrays rebuild the learner states (named tuples, :class:`gamedyn.Loss`,
  arrays, numbers), and ``digests``: one SHA-256 per array, so a damaged file is refused with
  :class:`CheckpointError` instead of resuming from wrong numbers.

Every number is stored as an array (a 0-d one for a scalar), so float64 values, -0.0 and inf
come back with the same bits; the resumed run repeats the uninterrupted one's operations on the
same inputs and is bit-identical to it (``np.array_equal`` on every output). Writing goes to a
temporary file in the same folder, then ``os.replace``: a crash mid-write leaves the previous
checkpoint intact; the folder is checked writable before round 1. Ctrl-C (SIGINT) and SIGTERM let
the round in progress finish, write the checkpoint and raise :class:`RunInterrupted`.

>>> import numpy as np, os, tempfile
>>> from gamedyn import recipes
>>> A = np.array([[0.6, 0.2], [0.3, -0.5], [0.5, 0.1]])
>>> path = os.path.join(tempfile.mkdtemp(), "run.npz")
>>> first = recipes.smooth_perceptron(A, 40, checkpoint=path, checkpoint_every=10)
>>> checkpoint_info(path)["round"]
40
>>> again = recipes.smooth_perceptron(A, 40, resume_from=path)
>>> bool(np.array_equal(first.w, again.w))
True
"""

from __future__ import annotations

import builtins
import dis
import enum
import functools
import hashlib
import json
import numbers
import os
import signal
import sys
import sysconfig
import tempfile
import threading
import types
import warnings
from typing import Any

import attrs
import numpy as np
import scipy.sparse as sp

from gamedyn.core.kernels import Backend, backend_of, is_foreign, to_numpy
from gamedyn.core.loss import Loss

__all__ = ["CHECKPOINT_VERSION", "CheckpointError", "CheckpointMismatchError", "CheckpointWarning", "RunInterrupted",
           "checkpoint_info"]

# 2: functions fingerprinted by what they compute (version 1: by their name alone)
CHECKPOINT_VERSION = 3
_FORMAT = "gamedyn-checkpoint"
_HEADER = "__header__"


class CheckpointError(ValueError):
    """A checkpoint that cannot be used or written: the file is missing, not a gamedyn checkpoint, of
    another format version or damaged (then the message names the file and what to do); the
    ``checkpoint=`` path cannot be written; or a part of the run cannot be fingerprinted."""


class CheckpointMismatchError(CheckpointError):
    """A valid checkpoint written by a different run configuration (payoff, learners, T, ...)."""


class CheckpointWarning(RuntimeWarning):
    """The checkpoint after a run's last round could not be written (the disk filled up, the folder went
    away, ...): the run's result is returned all the same, and this warning names the file, the error
    and what the file now holds (the previous checkpoint, if any, or nothing)."""


def warn_unwritten(path, round_: int, error: Exception) -> None:
    """Warn :class:`CheckpointWarning` for the final checkpoint of a complete run that could not be written."""
    path = os.fspath(path)
    held = ("holds the previous checkpoint, intact (resuming from it plays the rounds after it again)"
            if os.path.isfile(path) else "does not exist")
    warnings.warn(CheckpointWarning(
        f"the run is complete (round {round_}) and its result is returned, but its final checkpoint could not be "
        f"written: {error} The file {path!r} {held}."), stacklevel=2)


# ------------------------------------------------------------------------------------ fingerprints


def _digest_bytes(chunks) -> str:
    digest = hashlib.sha256()
    for chunk in chunks:
        digest.update(chunk)
    return digest.hexdigest()


def _array_digest(array) -> str:
    array = np.ascontiguousarray(array)
    header = f"{array.dtype.str}{array.shape}".encode()
    return _digest_bytes([header, memoryview(array).cast("B") if array.size else b""])


class _Unfingerprintable(Exception):
    """Raised while describing a value whose behaviour a checkpoint cannot pin down (see :func:`fingerprint`)."""

    def __init__(self, where: str, value, reason: str):
        super().__init__(where)
        self.where, self.value, self.reason = where, value, reason


# Bytecode that reads a global (the last one: Python 3.12's in class bodies), and that writes one or
# a cell: a function doing the latter keeps state between calls, which no fingerprint can see.
_GLOBAL_READS = frozenset({"LOAD_GLOBAL", "LOAD_NAME", "LOAD_FROM_DICT_OR_GLOBALS"})
_GLOBAL_WRITES = frozenset({"STORE_GLOBAL", "DELETE_GLOBAL"})
_CELL_WRITES = frozenset({"STORE_DEREF", "DELETE_DEREF"})
# co_flags that change what a function computes (varargs, generators, coroutines), not where it was defined
_SEMANTIC_FLAGS = 0x04 | 0x08 | 0x20 | 0x80 | 0x100 | 0x200


_SITE_FOLDERS = frozenset({"site-packages", "dist-packages"})


def _library_roots() -> tuple:
    """The folders whose modules are installed code: this interpreter's standard library and site folders,
    and any other ``site-packages`` / ``dist-packages`` folder on ``sys.path`` (one added by a ``.pth``
    file or ``PYTHONPATH``, as a venv layered on another does). A user's own code (a script's folder, an
    editable install's source tree) is in none of them, so its functions are fingerprinted by content."""
    paths = sysconfig.get_paths()
    roots = [paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib") if paths.get(key)]
    roots += [entry for entry in sys.path if os.path.basename(os.path.normpath(entry or ".")) in _SITE_FOLDERS]
    return tuple(sorted({os.path.realpath(root) + os.sep for root in roots}))


_LIBRARY_ROOTS = _library_roots()


_LIBRARY_MODULES: dict = {}


def _is_library_module(name) -> bool:
    """Whether code of the module ``name`` is known by name in a fingerprint: gamedyn itself (the
    version that reads the checkpoint), the standard library and installed packages."""
    if not isinstance(name, str):
        return False
    known = _LIBRARY_MODULES.get(name)
    if known is not None:
        return known
    top = name.partition(".")[0]
    if top == "gamedyn" or top in sys.builtin_module_names:
        return True
    if name not in sys.modules:
        return False  # not remembered: the module may be imported later
    file = getattr(sys.modules[name], "__file__", None)
    known = _LIBRARY_MODULES[name] = isinstance(file, str) and os.path.realpath(file).startswith(_LIBRARY_ROOTS)
    return known


def _is_installed(name: str) -> bool:
    """Whether the top-level module ``name`` is gamedyn, the standard library or an installed package (found
    without importing it when it is not imported yet)."""
    if name in sys.modules or name == "gamedyn" or name in sys.builtin_module_names:
        return _is_library_module(name)
    import importlib.util

    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return False
    places = [spec.origin] if spec is not None and spec.origin not in (None, "built-in", "frozen") else []
    places += list(getattr(spec, "submodule_search_locations", None) or [])
    if spec is not None and spec.origin in ("built-in", "frozen"):
        return True
    return bool(places) and all(os.path.realpath(place).startswith(_LIBRARY_ROOTS) for place in places)


def _named(value):
    """``"module.qualname"`` when that name, looked up in a library module, is ``value`` itself."""
    module, qualname = getattr(value, "__module__", None), getattr(value, "__qualname__", None)
    if not isinstance(qualname, str) or not _is_library_module(module) or module not in sys.modules:
        return None
    target: Any = sys.modules[module]
    for part in qualname.split("."):
        target = getattr(target, part, None)
    return f"{module}.{qualname}" if target is value else None


def _cell_value(cell):
    try:
        return cell.cell_contents
    except ValueError:  # a cell not yet assigned
        return _EMPTY_CELL


_EMPTY_CELL = object()
_SCALAR_TYPES = (bool, int, float, str)  # immutable scalars: described at once, never memoised


class _Describer:
    """Builds the JSON-able description of configuration values (see :func:`describe`).

    ``strict``: inside a callable, where a value that cannot be described exactly (an object of an
    arbitrary class) is refused with :class:`_Unfingerprintable` instead of being known by its repr.
    Each value is described in full at its first visit; later visits reuse that description (the
    value is kept alive meanwhile, so its id cannot be reused), and a value reached again while it is
    being described (a recursive function, a cyclic list) is a back-reference up the stack.
    """

    def __init__(self):
        self.memo = {}
        self.stack = []

    def __call__(self, value, where: str, strict: bool = False):
        if value is None or isinstance(value, _SCALAR_TYPES):
            return self._describe(value, where, strict)
        key = (id(value), strict)
        if key in self.memo:
            return self.memo[key][1]
        if id(value) in self.stack:
            return {"cycle": len(self.stack) - self.stack.index(id(value))}
        self.stack.append(id(value))
        try:
            result = self._describe(value, where, strict)
        finally:
            self.stack.pop()
        self.memo[key] = (value, result)
        return result

    def _describe(self, value, where, strict):
        if value is None or isinstance(value, (bool, str)):
            return value
        if isinstance(value, numbers.Integral):
            return int(value)
        if isinstance(value, numbers.Real):
            return {"float": float(value).hex()}  # tagged: a float is never confused with a string
        if isinstance(value, numbers.Complex):
            return {"complex": [float(value.real).hex(), float(value.imag).hex()]}
        if isinstance(value, (bytes, bytearray)):
            return {"bytes": hashlib.sha256(value).hexdigest()}
        if isinstance(value, np.generic):
            return {"array": _array_digest(np.asarray(value))}
        if is_foreign(value):  # a torch, JAX, ... array: known by its values (a host copy), whatever its namespace
            return {"array": _array_digest(np.asarray(to_numpy(value)))}
        if isinstance(value, Backend):  # an objective's namespace: not part of the game's numbers
            return {"backend": "any"}
        if isinstance(value, np.ndarray):
            if value.dtype.hasobject:
                return {"objects": list(value.shape),
                        "items": [self(item, f"{where}[...]", strict) for item in value.ravel().tolist()]}
            return {"array": _array_digest(value)}
        if sp.issparse(value):
            csr = sp.csr_matrix(value)
            return {"sparse": [_array_digest(csr.data), _array_digest(csr.indices), _array_digest(csr.indptr),
                               list(csr.shape)]}
        if isinstance(value, (tuple, list)):
            return [self(item, f"{where}[{i}]", strict) for i, item in enumerate(value)]
        if isinstance(value, dict):
            items = [(self(key, f"{where} key", strict), self(item, f"{where}[{key!r}]", strict))
                     for key, item in value.items()]
            return {"dict": sorted(([key, item] for key, item in items), key=lambda pair: json.dumps(pair[0], sort_keys=True))}
        if isinstance(value, (set, frozenset)):
            items = [self(item, f"{where} item", strict) for item in value]
            return {"set": sorted(items, key=lambda item: json.dumps(item, sort_keys=True))}
        if isinstance(value, range):
            return {"range": [value.start, value.stop, value.step]}
        if value is Ellipsis or value is _EMPTY_CELL:
            return {"constant": "..." if value is Ellipsis else "empty cell"}
        if isinstance(value, enum.Enum):
            return {"enum": f"{type(value).__module__}.{type(value).__qualname__}", "name": value.name}
        if isinstance(value, types.ModuleType):
            return {"module": value.__name__}
        if isinstance(value, type):
            return {"class": f"{value.__module__}.{value.__qualname__}"}
        if isinstance(value, types.CodeType):
            return self._code(value, where)
        if attrs.has(type(value)):
            result = {"type": type(value).__qualname__,
                      "fields": {field.name: self(getattr(value, field.name), f"{where}.{field.name}", strict)
                                 for field in attrs.fields(type(value)) if field.init}}
            if callable(value):  # what a call computes: the class's __call__ (known by name in gamedyn)
                result["call"] = self(type(value).__call__, f"{where}.__call__", True)
            return result
        if getattr(value, "batch_size", None) is not None and hasattr(value, "X"):  # gamedyn.BatchedMatrix
            return {"type": type(value).__qualname__, "X": self(value.X, f"{where}.X", strict),
                    "labels": self(value.labels, f"{where}.labels", strict), "batch_size": int(value.batch_size)}
        if hasattr(value, "matvec") and hasattr(value, "rmatvec") and len(getattr(value, "shape", ())) == 2:
            # a LinearOperator: its entries cannot be read, so it is known by one product each way with
            # fixed pseudo-random vectors (another operator of the same shape gives other products)
            n, d = value.shape
            probes = np.random.default_rng(20240901)
            return {"operator": type(value).__qualname__, "shape": [int(n), int(d)], "dtype": str(value.dtype),
                    "A @ probe": _array_digest(np.asarray(value.matvec(probes.standard_normal(d)))),
                    "A.T @ probe": _array_digest(np.asarray(value.rmatvec(probes.standard_normal(n))))}
        if isinstance(value, types.FunctionType):
            return self._function(value, where)
        if isinstance(value, types.MethodType):  # a bound method: its function and its instance
            return {"method": self(value.__func__, f"{where}.__func__", True),
                    "self": self(value.__self__, f"{where}.__self__", True)}
        if isinstance(value, functools.partial):
            return {"partial": self(value.func, f"{where}.func", True), "args": self(value.args, f"{where}.args", True),
                    "keywords": self(value.keywords, f"{where}.keywords", True)}
        if isinstance(value, (staticmethod, classmethod)):
            return {type(value).__name__: self(value.__func__, f"{where}.__func__", True)}
        if callable(value):
            return self._named_callable(value, where)
        if strict:
            raise _Unfingerprintable(where, value, f"a {type(value).__qualname__} object, whose content the checkpoint "
                                                   f"cannot compare")
        return {"type": type(value).__qualname__, "repr": repr(value)}

    def _named_callable(self, value, where):
        """Callables of C types: builtins, ufuncs, numpy's dispatchers, methods of builtin types."""
        name = _named(value)
        if name is not None:
            return {"named": name}
        if isinstance(value, np.ufunc):  # e.g. scipy.special's, which carry no module
            return {"ufunc": value.__name__, "loops": list(value.types)}
        owner = getattr(value, "__self__", None)
        if isinstance(value, (types.BuiltinFunctionType, types.MethodWrapperType)):
            if owner is None or isinstance(owner, types.ModuleType):
                module = owner.__name__ if owner is not None else getattr(value, "__module__", None)
                return {"builtin": f"{module}.{value.__qualname__}"}
            return {"builtin method": value.__name__, "self": self(owner, f"{where}.__self__", True)}
        if isinstance(value, (types.WrapperDescriptorType, types.MethodDescriptorType, types.ClassMethodDescriptorType)):
            owner = value.__objclass__
            return {"descriptor": f"{owner.__module__}.{owner.__qualname__}.{value.__name__}"}
        raise _Unfingerprintable(where, value, f"a {type(value).__qualname__} object with __call__, which may keep "
                                               f"state between calls that the checkpoint cannot see")

    def _function(self, function, where):
        """A Python function: what it computes (code, defaults, closure, the globals it reads).

        gamedyn's, the standard library's and installed packages' functions are known by their name
        (plus, for a closure they made at run time, the values it closes over)."""
        module = getattr(function, "__module__", None)
        library = _is_library_module(module)
        if library and _named(function) is not None:
            return {"function": f"{module}.{function.__qualname__}"}
        values = {"defaults": self(function.__defaults__, f"{where}.__defaults__", True),
                  "kwdefaults": self(function.__kwdefaults__, f"{where}.__kwdefaults__", True),
                  "closure": [self(_cell_value(cell), f"{where}.<nonlocal {name}>", True)
                              for name, cell in zip(function.__code__.co_freevars, function.__closure__ or ())]}
        if library:  # a closure a library function made at run time: its name and the values it holds
            return dict(values, function=f"{module}.{function.__qualname__}")
        code = function.__code__
        namespace = function.__globals__
        builtins_ = getattr(function, "__builtins__", None)
        builtins_ = vars(builtins_) if isinstance(builtins_, types.ModuleType) else builtins_ or vars(builtins)
        read = {}
        chains = _attribute_chains(code)
        for name in sorted(self._globals_read(code, where, frozenset())):
            if name in namespace:
                value = namespace[name]
                uses = [chain for chain in chains if chain[0] == name]
                if not (uses and all(f"{getattr(value, '__name__', name)}.{chain[1]}" in _PURE_PARTS for chain in uses)):
                    _refuse_outside(value, name, where)  # (os.path.join is pure: only os.path read is fine)
                read[name] = self(value, f"{where}.<global {name}>", True)
            elif name in builtins_:
                if name in _OUTSIDE_BUILTINS:
                    raise _Unfingerprintable(where, None, f"a function that calls {name}(), whose result (a file, the "
                                                          f"terminal, code made at run time) no fingerprint sees")
                read[name] = self(builtins_[name], f"{where}.<builtin {name}>", True)
            else:
                read[name] = {"undefined": True}
        # An attribute read through a global module or class (``mymod.SCALE``, ``Config.rate``): its value counts,
        # as the module's or class's name alone would let a changed value resume (issue 30).
        attributes = {}
        for chain in sorted(chains):
            target = namespace.get(chain[0], _MISSING)
            for depth, attribute in enumerate(chain[1:], 1):
                if not isinstance(target, (types.ModuleType, type)):
                    break
                target = getattr(target, attribute, _MISSING)
                label = ".".join(chain[:depth + 1])
                if target is _MISSING:
                    attributes[label] = {"undefined": True}
                    break
                _refuse_outside(target, label, where)
                if not isinstance(target, (types.ModuleType, type)) or depth == len(chain) - 1:
                    attributes[label] = self(target, f"{where}.<global {label}>", True)
        return dict(values, code=self(code, where, True), globals=read,
                    **({"attributes": attributes} if attributes else {}))

    def _globals_read(self, code, where, enclosing_cells) -> set:
        """The global names ``code`` (and the functions nested in it) may read; refuses one that
        assigns a global, or a variable of an enclosing scope outside the function (state kept
        between calls)."""
        names = set()
        for instruction in dis.get_instructions(code):
            operation = instruction.opname
            if operation in _GLOBAL_READS:
                names.add(instruction.argval)
            elif operation == "IMPORT_NAME" and str(instruction.argval).partition(".")[0] in _OUTSIDE_MODULES:
                raise _Unfingerprintable(where, None, f"a function that imports {instruction.argval}, which reads "
                                                      f"files, the clock or the environment: what no fingerprint sees")
            elif operation == "IMPORT_NAME" and not _is_installed(str(instruction.argval).partition(".")[0]):
                raise _Unfingerprintable(where, None, f"a function that imports {instruction.argval} in its body, "
                                                      f"whose values no fingerprint sees there; import it at the "
                                                      f"module's top")
            elif operation in _GLOBAL_WRITES:
                raise _Unfingerprintable(where, None, f"a function that assigns the global {instruction.argval!r}, "
                                                      f"so it keeps state between calls")
            elif (operation in _CELL_WRITES and instruction.argval in code.co_freevars
                  and instruction.argval not in enclosing_cells):
                raise _Unfingerprintable(where, None, f"a function that assigns the nonlocal {instruction.argval!r}, "
                                                      f"so it keeps state between calls")
        cells = enclosing_cells | frozenset(code.co_cellvars)
        for constant in code.co_consts:
            if isinstance(constant, types.CodeType):
                names |= self._globals_read(constant, where, cells)
        return names

    def _code(self, code, where):
        return {"bytecode": hashlib.sha256(code.co_code).hexdigest(),
                "exceptions": hashlib.sha256(getattr(code, "co_exceptiontable", b"")).hexdigest(),
                "constants": [self(constant, f"{where}.<constant>", True) for constant in code.co_consts],
                "names": list(code.co_names),
                "arguments": [code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount],
                "flags": code.co_flags & _SEMANTIC_FLAGS}


_MISSING = object()
# What a function may read that no description of its values sees: the builtins that read a file, the terminal
# or make code at run time; the modules of files, the clock, the environment and randomness; and the installed
# callables whose name says they read a file (np.load, np.loadtxt, pandas.read_csv, json.load ...).
_OUTSIDE_BUILTINS = frozenset({"open", "input", "eval", "exec", "compile", "__import__", "globals", "vars", "breakpoint"})
_OUTSIDE_MODULES = frozenset({"os", "io", "pathlib", "shutil", "tempfile", "glob", "fileinput", "socket", "subprocess",
                              "urllib", "http", "shelve", "sqlite3", "pickle", "marshal", "time", "datetime", "random",
                              "secrets", "uuid", "select", "mmap", "builtins", "importlib"})
_PURE_PARTS = frozenset({"os.path", "time.struct_time", "datetime.timedelta"})  # (read through those modules)
_OUTSIDE_WORDS = frozenset({"open", "load", "loadtxt", "loadmat", "genfromtxt", "fromfile", "fromregex", "memmap",
                            "read", "readline", "readlines", "input", "getenv", "urlopen", "environ", "now", "today"})


def _refuse_outside(value, label: str, where: str) -> None:
    """Refuse a global a function reads when it is a door to the outside (see :data:`_OUTSIDE_MODULES`)."""
    if isinstance(value, types.ModuleType):
        if value.__name__.partition(".")[0] in _OUTSIDE_MODULES:
            raise _Unfingerprintable(where, value, f"a function that reads the module {value.__name__} ({label}), "
                                                   f"whose files, clock or environment no fingerprint sees")
        return
    if not callable(value) or isinstance(value, type):
        return
    module = getattr(value, "__module__", None) or ""
    if module.partition(".")[0] == "gamedyn":
        return
    name = f"{module}.{getattr(value, '__qualname__', getattr(value, '__name__', ''))}"
    words = {word.lower() for word in name.replace("_", ".").split(".") if word}
    if module.partition(".")[0] in _OUTSIDE_MODULES or words & _OUTSIDE_WORDS:
        raise _Unfingerprintable(where, value, f"a function that calls {label} ({name}), which reads a file or the "
                                               f"environment: what it returns no fingerprint sees")


def _attribute_chains(code) -> set:
    """``(global, attribute, ...)`` for each ``LOAD_GLOBAL`` followed by attribute reads in ``code`` and the code
    nested in it (``mymod.SCALE`` -> ``("mymod", "SCALE")``)."""
    chains = set()
    current: list = []
    for instruction in dis.get_instructions(code):
        if instruction.opname in _GLOBAL_READS:
            if len(current) > 1:
                chains.add(tuple(current))
            current = [instruction.argval]
        elif instruction.opname in ("LOAD_ATTR", "LOAD_METHOD") and current:
            current.append(instruction.argval)
        elif instruction.opname in ("CACHE", "EXTENDED_ARG", "NOP"):
            continue
        else:
            if len(current) > 1:
                chains.add(tuple(current))
            current = []
    if len(current) > 1:
        chains.add(tuple(current))
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            chains |= _attribute_chains(constant)
    return chains


def describe(value):
    """A JSON-able description of a configuration value, exact to the bit.

    Floats as ``float.hex``; arrays and sparse matrices by SHA-256 of their bytes; tuples, lists,
    dicts and sets item by item; attrs objects field by field (so a learner's regularizer, step and
    hint, and a payoff's matrix, all count); a LinearOperator by one product each way. A callable by
    what it computes: a function by its bytecode, constants (nested functions' code included),
    names, defaults, closure values and the values of the globals it reads (functions recursively;
    modules, classes and builtins by qualified name, and every attribute read through them,
    ``mymod.SCALE`` or ``Config.rate``, by its value; numbers, strings, arrays and attrs objects by
    value); a bound method by its function and instance; ``functools.partial`` by its function,
    arguments and keywords; a callable attrs object by its fields. The functions of gamedyn, the
    standard library and installed packages are known by qualified name.

    Raises
    ------
    CheckpointError
        For a callable whose result may depend on what no description sees: an object of an
        arbitrary class with ``__call__``, a function assigning a global or a nonlocal, one that
        reads an object of an arbitrary class (a random generator, an open file, ...), one that
        reads a file or the environment (``open``, ``input``, ``eval``; the modules ``os``, ``io``,
        ``pathlib``, ``time``, ``random`` ...; installed functions named for reading, such as
        ``np.load`` or ``pandas.read_csv``), or one that imports a module of the user's in its body.
    """
    return _describe_part(_Describer(), value, "value", None)


_DEFAULT_FIX = ("pass plain functions (def or lambda) whose defaults, closure and globals hold numbers, strings, "
                "arrays, tuples, lists or dicts of them, attrs objects or other such functions")


def _describe_part(describer, value, name, fix):
    try:
        return describer(value, name)
    except _Unfingerprintable as error:
        raise CheckpointError(
            f"checkpoint= and resume_from= need a fingerprint of every part of the run, to refuse a checkpoint of "
            f"another configuration; {name} cannot be fingerprinted: {error.where} is {error.reason}. "
            f"Fix: {fix or _DEFAULT_FIX}."
        ) from None


def fingerprint(parts: dict, fixes: dict | None = None) -> dict:
    """One SHA-256 per named part of a configuration (see :func:`describe`).

    ``fixes`` (part -> text) is the advice given when a part cannot be fingerprinted."""
    describer, fixes = _Describer(), fixes or {}
    return {name: hashlib.sha256(json.dumps(_describe_part(describer, value, name, fixes.get(name)),
                                            sort_keys=True).encode()).hexdigest()
            for name, value in parts.items()}


# -------------------------------------------------------------------------- states <-> arrays


def _flatten(value, arrays: dict | None, where: str):
    """The layout of ``value`` (JSON) with its numbers moved into ``arrays`` (key -> ndarray).

    ``arrays=None`` checks only that ``value`` can be saved (no copy is made): what
    :func:`check_state` runs before round 1. A value of any other type raises
    :class:`CheckpointError`: the writer never skips a part of a state.
    """
    if value is None:
        return {"none": True}
    if isinstance(value, Loss):
        # the convex term (a Fenchel game's phi) is a function of the game, not a number: only whether
        # it is present is saved, and resuming takes it from the fresh run's state (same configuration)
        return {"loss": [_flatten(value.linear, arrays, where + ".linear"),
                         _flatten(value.curvature, arrays, where + ".curvature")],
                "convex": value.convex is not None}
    if is_foreign(value):  # saved as numpy (a host copy); restored onto the resuming run's namespace and device
        key = _key(arrays)
        if arrays is not None:
            arrays[key] = np.array(to_numpy(value))
        return {"array": key, "scalar": None, "device": True}
    if isinstance(value, np.ndarray) or isinstance(value, (numbers.Number, np.generic)):
        if (value.dtype if isinstance(value, np.ndarray) else np.asarray(value).dtype).hasobject:  # (a Fraction ...)
            raise CheckpointError(f"cannot save {where} of type {type(value).__name__}: it is not an array of numbers "
                                  f"(numpy holds it as Python objects); a checkpointed state holds float, int and "
                                  f"bool arrays and numbers.")
        key = _key(arrays)
        if arrays is not None:
            arrays[key] = np.array(value)  # a copy: later in-place updates of the run do not reach it
        return {"array": key, "scalar": type(value).__name__ if not isinstance(value, np.ndarray) else None}
    if isinstance(value, tuple):
        return {"tuple": type(value).__qualname__,
                "items": [_flatten(item, arrays, f"{where}[{i}]") for i, item in enumerate(value)]}
    if isinstance(value, list):
        return {"list": [_flatten(item, arrays, f"{where}[{i}]") for i, item in enumerate(value)]}
    if attrs.has(type(value)):  # a state object of gamedyn's (e.g. Entropy's CappedCentre): field by field
        fields = attrs.fields(type(value))
        hidden = [field.name for field in fields if not field.init]
        if hidden:
            raise CheckpointError(f"cannot save {where} of type {type(value).__name__}: its fields {hidden} are not "
                                  f"arguments of its constructor, so it could not be rebuilt from the checkpoint.")
        return {"object": type(value).__qualname__,
                "fields": {field.name: _flatten(getattr(value, field.name), arrays, f"{where}.{field.name}")
                           for field in fields}}
    raise CheckpointError(f"cannot save {where} of type {type(value).__name__}: a checkpointed state holds arrays, "
                          f"numbers, None, gamedyn.Loss, attrs objects and (named) tuples or lists of them. Make the "
                          f"learner's state of those (an attrs class for an object of its own).")


def _key(arrays) -> str:
    return "a?" if arrays is None else f"a{len(arrays)}"


def check_state(state: dict) -> None:
    """Before round 1: every part of ``state`` (the run's named values) can be saved, so a run is never
    lost to a state found unsaveable only at its first write (the end, by default).

    Raises
    ------
    CheckpointError
        Naming the part and its type.
    """
    for name, value in state.items():
        _flatten(value, None, name)


_SCALARS = {"float": float, "int": int, "bool": bool}


def _rebuild(layout, arrays, template, where: str, convex=None):
    """The value described by ``layout``, in the types of ``template`` (a state built by ``init``);
    ``convex`` is the game's convex loss term, for a saved Loss that had one and a template without it."""
    if "none" in layout:
        return None
    if "loss" in layout:
        if not isinstance(template, Loss):
            raise CheckpointMismatchError(f"{where}: the checkpoint holds a Loss where this run's learner has "
                                          f"{type(template).__name__}.")
        linear, curvature = layout["loss"]
        saved_convex, convex = convex, None
        if layout.get("convex", False):
            convex = template.convex if template.convex is not None else saved_convex
            if convex is None:
                raise CheckpointMismatchError(f"{where}: the checkpoint holds a Loss with a convex term where this "
                                              f"run's learner has none.")
        return Loss(_rebuild(linear, arrays, template.linear, where + ".linear"),
                    _rebuild(curvature, arrays, template.curvature, where + ".curvature"), convex)
    if "array" in layout:
        array = arrays[layout["array"]]
        scalar = layout["scalar"]
        if is_foreign(template):  # the resuming run computes on a device: the saved numbers go there, in its dtype
            return backend_of(template).asarray(array, dtype=template.dtype)
        if layout.get("device") and array.ndim == 0 and isinstance(template, float):
            return float(array[()])  # a device scalar (a running total) whose fresh run holds a host 0.0
        if scalar is None:
            return array.copy()
        if scalar in _SCALARS:
            return _SCALARS[scalar](array[()])
        return array[()]  # a numpy scalar keeps its dtype
    if "tuple" in layout:
        if not isinstance(template, tuple) or type(template).__qualname__ != layout["tuple"] \
                or len(template) != len(layout["items"]):
            raise CheckpointMismatchError(f"{where}: the checkpoint holds a {layout['tuple']} where this run's "
                                          f"learner has {type(template).__qualname__}.")
        items = [_rebuild(item, arrays, part, f"{where}[{i}]", convex)
                 for i, (item, part) in enumerate(zip(layout["items"], template))]
        kind: Any = type(template)  # a named tuple rebuilds from its fields with _make
        return kind._make(items) if hasattr(kind, "_make") else kind(items)
    if "list" in layout:
        template = template if isinstance(template, list) and len(template) == len(layout["list"]) \
            else [None] * len(layout["list"])
        return [_rebuild(item, arrays, part, f"{where}[{i}]", convex) for i, (item, part) in enumerate(zip(layout["list"], template))]
    if "object" in layout:
        kind = type(template)
        fields = layout["fields"]
        if (not attrs.has(kind) or kind.__qualname__ != layout["object"]
                or sorted(field.name for field in attrs.fields(kind)) != sorted(fields)):
            raise CheckpointMismatchError(f"{where}: the checkpoint holds a {layout['object']} where this run's "
                                          f"learner has {kind.__qualname__}.")
        return kind(**{name: _rebuild(item, arrays, getattr(template, name), f"{where}.{name}", convex)
                       for name, item in fields.items()})  # the fresh run's own class: no class read from the file
    raise CheckpointError(f"{where}: unknown entry {sorted(layout)} in the checkpoint layout.")


# ---------------------------------------------------------------------------------- file I/O


def _python() -> str:
    return f"{sys.version_info[0]}.{sys.version_info[1]}"


def write(path, kind: str, fingerprint_: dict, round_: int, state: dict, extra: dict | None = None) -> None:
    """Write ``state`` (a dict of named values) atomically to ``path``."""
    arrays: dict = {}
    layout = {name: _flatten(value, arrays, name) for name, value in state.items()}
    header = {"format": _FORMAT, "version": CHECKPOINT_VERSION, "kind": kind, "round": int(round_),
              "fingerprint": fingerprint_, "layout": layout, "python": _python(),
              "digests": {key: _array_digest(array) for key, array in arrays.items()}}
    header.update(extra or {})
    arrays[_HEADER] = np.frombuffer(json.dumps(header, sort_keys=True).encode(), dtype=np.uint8)
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    temporary = None
    try:
        handle, temporary = tempfile.mkstemp(prefix=".checkpoint-", suffix=".npz", dir=folder)
        with os.fdopen(handle, "wb") as file:
            np.savez(file, **arrays)
        os.replace(temporary, path)
    except OSError as error:  # e.g. the disk filled up, or the folder went away, during the run
        _remove(temporary)
        raise CheckpointError(
            f"could not write the checkpoint {path!r} after round {round_} ({error.strerror or error}); the previous "
            f"checkpoint there, if any, is intact. Free space or fix the folder, then resume from it."
        ) from error
    except BaseException:
        _remove(temporary)
        raise


def _remove(temporary):
    if temporary is not None and os.path.exists(temporary):
        os.remove(temporary)


def _unreadable(path, what: str) -> CheckpointError:
    return CheckpointError(
        f"{path!r} is not a readable gamedyn checkpoint: {what}. The file is damaged (or is not a checkpoint): "
        f"resume from an earlier copy of it, or start the run afresh without resume_from."
    )


def _check_header(path, header):
    """The header's entries a resumed run reads, of the types it reads them as."""
    expected = {"kind": str, "round": int, "fingerprint": dict, "layout": dict, "digests": dict}
    for key, kind in expected.items():
        if not isinstance(header.get(key), kind) or isinstance(header.get(key), bool):
            raise _unreadable(path, f"its header's {key!r} entry is missing or of the wrong type")
    if not all(isinstance(value, str) for value in list(header["fingerprint"].values()) + list(header["digests"].values())):
        raise _unreadable(path, "its header's digests are not digests")


def _read_raw(path):
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise CheckpointError(f"no checkpoint at {path!r}; pass the file a run wrote with checkpoint=.")
    try:
        archive = np.load(path, allow_pickle=False)
    except OSError as error:
        raise CheckpointError(f"cannot read the checkpoint {path!r} ({error.strerror or error}); check the file's "
                              f"permissions.") from error
    except Exception as error:  # not a zip (numpy then reads it as .npy or pickle), or a damaged one
        raise _unreadable(path, "it is not a zip of arrays") from error
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise _unreadable(path, "it holds one array, not a zip of arrays")
    try:
        with archive:
            arrays = {key: archive[key] for key in archive.files}
    except Exception as error:  # zipfile and numpy raise many kinds (BadZipFile, NotImplementedError, ...)
        raise _unreadable(path, f"its zip or array structure cannot be read ({type(error).__name__})") from error
    if _HEADER not in arrays:
        raise CheckpointError(f"{path!r} has no gamedyn checkpoint header; it is not a checkpoint written by gamedyn.")
    try:
        header = json.loads(arrays.pop(_HEADER).tobytes().decode())
    except (UnicodeDecodeError, ValueError, TypeError) as error:
        raise _unreadable(path, "its header is not the JSON gamedyn writes") from error
    if not isinstance(header, dict) or header.get("format") != _FORMAT:
        raise CheckpointError(f"{path!r} is not a gamedyn checkpoint (format "
                              f"{header.get('format') if isinstance(header, dict) else None!r}).")
    version = header.get("version")
    if version != CHECKPOINT_VERSION:
        if isinstance(version, int) and not isinstance(version, bool) and version < CHECKPOINT_VERSION:
            why = {1: " (version 1 knew a function, such as weights=lambda t: t, only by its name, so a resumed run "
                      "with another function under that name could not be refused)",
                   2: " (version 2 fingerprinted the learner names FTRL, OFTRL, MirrorDescent, ... as their base "
                      "classes; since version 3 each name is a class of its own, and the run's observers save "
                      "their own state)"}.get(version, "")
            raise CheckpointError(f"{path!r} is a version {version} checkpoint, written by an older gamedyn; this one "
                                  f"reads version {CHECKPOINT_VERSION}{why}. Finish the run with the gamedyn that wrote "
                                  f"it, or start it afresh.")
        raise CheckpointError(f"{path!r} is a version {version!r} checkpoint; this gamedyn reads version "
                              f"{CHECKPOINT_VERSION}. Resume it with the gamedyn that wrote it.")
    _check_header(path, header)
    digests = header["digests"]
    if set(digests) != set(arrays):
        raise CheckpointError(f"{path!r}: the checkpoint's arrays do not match its header (damaged file); "
                              f"resume from an earlier copy of it, or start the run afresh.")
    for key, array in arrays.items():
        if _array_digest(array) != digests[key]:
            raise CheckpointError(f"{path!r}: array {key} does not match its digest (damaged file); "
                                  f"resume from an earlier checkpoint or start again.")
    return header, arrays


def read_header(path) -> dict:
    """The whole header of a checkpoint (checked: format, version, digests)."""
    return _read_raw(path)[0]


def checkpoint_info(path) -> dict:
    """The header of a checkpoint: ``kind``, ``version``, ``round`` (last completed round), ``T``,
    ``finished`` and ``stop_reason`` (after the last round or a stop rule). Checks the file's digests.
    """
    header, _ = _read_raw(path)
    return {key: header.get(key) for key in ("kind", "version", "round", "T", "finished", "stop_reason")}


def read(path, kind: str, fingerprint_: dict, templates: dict, convex_terms: dict | None = None):
    """``(header, state)``: the checkpoint at ``path`` checked against this run's fingerprint and rebuilt
    in the types of ``templates`` (name -> a value of the same structure, e.g. a fresh learner state).
    ``convex_terms`` (owner -> the game's convex loss term, owner being a name's part before its first
    dot) restores the convex term of saved losses, which a checkpoint records only as present."""
    header, arrays = _read_raw(path)
    if header.get("kind") != kind:
        raise CheckpointMismatchError(f"{os.fspath(path)!r} is a checkpoint of {header.get('kind')!r}, not of {kind!r}.")
    saved = header.get("fingerprint", {})
    differing = [name for name in fingerprint_ if saved.get(name) != fingerprint_[name]]
    if differing or set(saved) != set(fingerprint_):
        differing = differing or sorted(set(saved) ^ set(fingerprint_))
        python = header.get("python")
        note = (f" (it was written under Python {python}, this is Python {_python()}: a function is fingerprinted by "
                f"its bytecode, which differs between Python versions; resume under Python {python})"
                if isinstance(python, str) and python != _python() else "")
        raise CheckpointMismatchError(
            f"{os.fspath(path)!r} was written by a run with a different {', '.join(differing)}{note}; resume it with "
            f"exactly the arguments of the run that wrote it (same data, learners, T, weights and the same "
            f"functions, seed), or start afresh."
        )
    layout = header["layout"]
    convex_terms = convex_terms or {}
    try:
        state = {name: _rebuild(layout[name], arrays, templates.get(name), name,
                                convex_terms.get(name.split(".", 1)[0])) for name in layout}
    except CheckpointError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as error:
        raise _unreadable(path, "its layout does not match its arrays") from error
    return header, state


# ------------------------------------------------------------------------ Ctrl-C and SIGTERM


_STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM") if hasattr(signal, name))


class RunInterrupted(KeyboardInterrupt):
    """A run with ``checkpoint=`` stopped by Ctrl-C (SIGINT) or SIGTERM (``kill``, ``timeout``, a batch
    scheduler) after finishing its round and writing its checkpoint.

    A ``KeyboardInterrupt``, so code that handles Ctrl-C handles both. ``signum`` is the signal,
    ``round`` the last completed round (saved), ``path`` the checkpoint; the command line exits with
    128 + ``signum`` (130 for SIGINT, 143 for SIGTERM).
    """

    def __init__(self, signum: int, round_: int, path):
        self.signum, self.round, self.path = int(signum), int(round_), os.fspath(path)
        super().__init__(f"{self.signal_name} after round {self.round}; checkpoint written to {self.path!r} "
                         f"(resume with resume_from={self.path!r} and the same arguments).")

    @property
    def signal_name(self) -> str:
        """The signal's name (``SIGINT``, ``SIGTERM``), or its number when it has none."""
        try:
            return signal.Signals(self.signum).name
        except ValueError:
            return f"signal {self.signum}"


class InterruptFlag:
    """While active (main thread only), the first Ctrl-C (SIGINT) or SIGTERM sets ``raised`` (and
    ``signum``) instead of stopping the process, so the run can finish its round and write a
    checkpoint (then :meth:`stop` raises :class:`RunInterrupted`). The previous handlers are back at
    once, so a second signal acts immediately, and again on leaving. A signal whose handler is not
    Python's (or that is ignored, as SIGINT is for a background job) is left alone."""

    def __init__(self, path=None):
        self.raised = False
        self.signum: int | None = None  # set with raised, by the first signal
        self.path = path  # the checkpoint, for the message of stop()
        self._previous: dict = {}

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for signum in _STOP_SIGNALS:
                previous = signal.getsignal(signum)
                if previous is None or previous is signal.SIG_IGN:
                    continue
                self._previous[signum] = previous
                signal.signal(signum, self._handle)
        return self

    def _handle(self, signum, frame):
        if self.signum is None:
            self.signum = signum
        self.raised = True
        self._restore()

    def _restore(self):
        previous, self._previous = self._previous, {}
        for signum, handler in previous.items():
            signal.signal(signum, handler)

    def __exit__(self, *exc):
        self._restore()
        return False

    def stop(self, round_: int, path=None) -> None:
        """Raise :class:`RunInterrupted` if a signal came (call it once the checkpoint of ``round_`` is written)."""
        if self.raised and self.signum is not None:  # (raised is set with signum)
            raise RunInterrupted(self.signum, round_, self.path if path is None else path)


def check_every(value, name: str = "checkpoint_every"):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer (write a checkpoint every k rounds), got {value!r}; "
                         f"pass e.g. {name}=1000, or None to write only at the end and on Ctrl-C or SIGTERM.")
    return int(value)


def check_writable(path, name: str = "checkpoint") -> None:
    """Before round 1: a checkpoint can be written at ``path`` (its folder exists and a file can be
    created and removed there), so a run is never lost to a path found bad only at its first write.

    Raises
    ------
    CheckpointError
        Naming the path and the fix.
    """
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise CheckpointError(f"{name}={path!r} is a folder; pass a file path in it, e.g. "
                              f"{os.path.join(path, 'run.npz')!r}.")
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise CheckpointError(f"{name}={path!r}: {folder!r} is a file, not a folder, so no checkpoint could be "
                              f"written there; pass a path in a folder.")
    if not os.path.isdir(folder):
        raise CheckpointError(f"{name}={path!r}: the folder {folder!r} does not exist, so no checkpoint could be "
                              f"written; create it first (os.makedirs, mkdir -p) or pass a path in an existing folder.")
    try:
        handle, temporary = tempfile.mkstemp(prefix=".checkpoint-", suffix=".npz", dir=folder)
        os.close(handle)
        os.remove(temporary)
    except OSError as error:
        raise CheckpointError(f"{name}={path!r}: cannot write a file in the folder {folder!r} "
                              f"({error.strerror or error}); pass a path in a folder you can write to, or fix "
                              f"its permissions.") from error


def check_options(checkpoint, checkpoint_every, resume_from):
    """Validate the three checkpoint arguments (and that ``checkpoint`` can be written, before the
    run starts); returns ``checkpoint_every`` as an int or None."""
    for name, value in (("checkpoint", checkpoint), ("resume_from", resume_from)):
        if value is not None and not isinstance(value, (str, os.PathLike)):
            raise TypeError(f"{name} must be a file path (str or os.PathLike), got {type(value).__name__}.")
    every = check_every(checkpoint_every)
    if every is not None and checkpoint is None:
        raise ValueError("checkpoint_every needs checkpoint=path, the file to write; pass both.")
    if checkpoint is not None:
        check_writable(checkpoint)
    return every
