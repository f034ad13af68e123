r"""Checkpoints: save a run to a file and resume it bit for bit.

A checkpoint is one ``.npz`` file (numpy's zip of arrays, read with ``allow_pickle=False``: no code
is ever loaded from it) holding every number the run carries from round t to round t + 1 and a
small JSON header:

* ``format`` (``"gamedyn-checkpoint"``) and ``version`` (:data:`CHECKPOINT_VERSION`);
* ``kind`` (``"play"`` or ``"adaptive_sgd"``) and ``round``, the last completed round t;
* ``fingerprint``: one digest (SHA-256) per part of the configuration (payoff with its matrix,
  each learner with its regularizer, hint and steps, T, the weight schedules, initial points,
  ...), so a checkpoint from another configuration is refused with
  :class:`CheckpointMismatchError` naming the part that differs;
* ``layout``: how the arrays rebuild the learner states (named tuples, :class:`gamedyn.Loss`,
  arrays, numbers), and ``digests``: one SHA-256 per array, so a damaged file is refused with
  :class:`CheckpointError` instead of resuming from wrong numbers.

Every number is stored as an array (a 0-d one for a scalar), so float64 values, -0.0 and inf
come back with the same bits; the resumed run repeats the uninterrupted one's operations on the
same inputs and is bit-identical to it (``np.array_equal`` on every output). Writing goes to a
temporary file in the same folder, then ``os.replace``: a crash mid-write leaves the previous
checkpoint intact.

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

import hashlib
import json
import numbers
import os
import signal
import tempfile
import threading
import zipfile

import attrs
import numpy as np
import scipy.sparse as sp

from gamedyn.payoffs import Loss

__all__ = ["CHECKPOINT_VERSION", "CheckpointError", "CheckpointMismatchError", "checkpoint_info"]

CHECKPOINT_VERSION = 1
_FORMAT = "gamedyn-checkpoint"
_HEADER = "__header__"


class CheckpointError(ValueError):
    """A checkpoint file that cannot be used: missing, not a gamedyn checkpoint, another format
    version, or damaged (an array whose digest does not match the header)."""


class CheckpointMismatchError(CheckpointError):
    """A valid checkpoint written by a different run configuration (payoff, learners, T, ...)."""


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


def describe(value, _seen=None):
    """A JSON-able description of a configuration value, exact to the bit: floats as ``float.hex``,
    arrays and sparse matrices by SHA-256 of their bytes, attrs objects field by field (so a
    learner's regularizer, step and hint, and a payoff's matrix, all count)."""
    seen = {} if _seen is None else _seen
    key = id(value)
    if key in seen:
        return seen[key]
    if value is None or isinstance(value, (bool, str)):
        result = value
    elif isinstance(value, numbers.Integral):
        result = int(value)
    elif isinstance(value, numbers.Real):
        result = float(value).hex()
    elif isinstance(value, np.ndarray):
        result = {"array": _array_digest(value)}
    elif sp.issparse(value):
        csr = sp.csr_matrix(value)
        result = {"sparse": [_array_digest(csr.data), _array_digest(csr.indices), _array_digest(csr.indptr),
                             list(csr.shape)]}
    elif isinstance(value, (tuple, list)):
        result = [describe(item, seen) for item in value]
    elif attrs.has(type(value)):
        result = {"type": type(value).__qualname__,
                  "fields": {field.name: describe(getattr(value, field.name), seen)
                             for field in attrs.fields(type(value)) if field.init}}
    elif getattr(value, "batch_size", None) is not None and hasattr(value, "X"):  # gamedyn.BatchedMatrix
        result = {"type": type(value).__qualname__, "X": describe(value.X, seen),
                  "labels": describe(value.labels, seen), "batch_size": int(value.batch_size)}
    elif callable(value) and hasattr(value, "__qualname__"):
        result = {"callable": f"{getattr(value, '__module__', '')}.{value.__qualname__}"}
    elif hasattr(value, "matvec") and hasattr(value, "rmatvec") and len(getattr(value, "shape", ())) == 2:
        # a LinearOperator: its entries cannot be read, so it is known by one product each way with
        # fixed pseudo-random vectors (another operator of the same shape gives other products)
        n, d = value.shape
        probes = np.random.default_rng(20240901)
        result = {"operator": type(value).__qualname__, "shape": [int(n), int(d)], "dtype": str(value.dtype),
                  "A @ probe": _array_digest(np.asarray(value.matvec(probes.standard_normal(d)))),
                  "A.T @ probe": _array_digest(np.asarray(value.rmatvec(probes.standard_normal(n))))}
    else:
        result = {"type": type(value).__qualname__, "repr": repr(value)}
    seen[key] = result
    return result


def fingerprint(parts: dict) -> dict:
    """One SHA-256 per named part of a configuration (see :func:`describe`)."""
    seen = {}
    return {name: hashlib.sha256(json.dumps(describe(value, seen), sort_keys=True).encode()).hexdigest()
            for name, value in parts.items()}


# -------------------------------------------------------------------------- states <-> arrays


def _flatten(value, arrays: dict, where: str):
    """The layout of ``value`` (JSON) with its numbers moved into ``arrays`` (key -> ndarray)."""
    if value is None:
        return {"none": True}
    if isinstance(value, Loss):
        # the convex term (a Fenchel game's phi) is a function of the game, not a number: only whether
        # it is present is saved, and resuming takes it from the fresh run's state (same configuration)
        return {"loss": [_flatten(value.linear, arrays, where + ".linear"),
                         _flatten(value.curvature, arrays, where + ".curvature")],
                "convex": value.convex is not None}
    if isinstance(value, np.ndarray) or isinstance(value, (numbers.Number, np.generic)):
        key = f"a{len(arrays)}"
        arrays[key] = np.array(value)  # a copy: later in-place updates of the run do not reach it
        return {"array": key, "scalar": type(value).__name__ if not isinstance(value, np.ndarray) else None}
    if isinstance(value, tuple):
        return {"tuple": type(value).__qualname__,
                "items": [_flatten(item, arrays, f"{where}[{i}]") for i, item in enumerate(value)]}
    if isinstance(value, list):
        return {"list": [_flatten(item, arrays, f"{where}[{i}]") for i, item in enumerate(value)]}
    raise CheckpointError(f"cannot save {where} of type {type(value).__name__}: a checkpointed state holds "
                          f"arrays, numbers, None, gamedyn.Loss and (named) tuples or lists of them.")


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
        return type(template)._make(items) if hasattr(type(template), "_make") else type(template)(items)
    if "list" in layout:
        template = template if isinstance(template, list) and len(template) == len(layout["list"]) \
            else [None] * len(layout["list"])
        return [_rebuild(item, arrays, part, f"{where}[{i}]", convex) for i, (item, part) in enumerate(zip(layout["list"], template))]
    raise CheckpointError(f"{where}: unknown entry {sorted(layout)} in the checkpoint layout.")


# ---------------------------------------------------------------------------------- file I/O


def write(path, kind: str, fingerprint_: dict, round_: int, state: dict, extra: dict | None = None) -> None:
    """Write ``state`` (a dict of named values) atomically to ``path``."""
    arrays: dict = {}
    layout = {name: _flatten(value, arrays, name) for name, value in state.items()}
    header = {"format": _FORMAT, "version": CHECKPOINT_VERSION, "kind": kind, "round": int(round_),
              "fingerprint": fingerprint_, "layout": layout,
              "digests": {key: _array_digest(array) for key, array in arrays.items()}}
    header.update(extra or {})
    arrays[_HEADER] = np.frombuffer(json.dumps(header, sort_keys=True).encode(), dtype=np.uint8)
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix=".checkpoint-", suffix=".npz", dir=folder)
    try:
        with os.fdopen(handle, "wb") as file:
            np.savez(file, **arrays)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.remove(temporary)
        raise


def _read_raw(path):
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise CheckpointError(f"no checkpoint at {path!r}; pass the file a run wrote with checkpoint=.")
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {key: archive[key] for key in archive.files}
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, KeyError) as error:
        raise CheckpointError(f"{path!r} is not a readable gamedyn checkpoint (damaged or another file): {error}") from error
    if _HEADER not in arrays:
        raise CheckpointError(f"{path!r} has no gamedyn checkpoint header; it is not a checkpoint written by gamedyn.")
    try:
        header = json.loads(arrays.pop(_HEADER).tobytes().decode())
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CheckpointError(f"{path!r}: the checkpoint header is damaged ({error}).") from error
    if not isinstance(header, dict) or header.get("format") != _FORMAT:
        raise CheckpointError(f"{path!r} is not a gamedyn checkpoint (format {header.get('format')!r}).")
    if header.get("version") != CHECKPOINT_VERSION:
        raise CheckpointError(f"{path!r} is a version {header.get('version')!r} checkpoint; this gamedyn reads "
                              f"version {CHECKPOINT_VERSION}. Resume it with the gamedyn that wrote it.")
    digests = header.get("digests", {})
    if set(digests) != set(arrays):
        raise CheckpointError(f"{path!r}: the checkpoint's arrays do not match its header (damaged file).")
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
        raise CheckpointMismatchError(
            f"{os.fspath(path)!r} was written by a run with a different {', '.join(differing)}; resume it with "
            f"exactly the arguments of the run that wrote it (same data, learners, T, weights, seed), or start afresh."
        )
    layout = header["layout"]
    convex_terms = convex_terms or {}
    state = {name: _rebuild(layout[name], arrays, templates.get(name), name, convex_terms.get(name.split(".", 1)[0]))
             for name in layout}
    return header, state


# ------------------------------------------------------------------------------------- Ctrl-C


class InterruptFlag:
    """While active (main thread only), the first Ctrl-C (SIGINT) sets ``raised`` instead of
    interrupting, so the run can finish its round and write a checkpoint; the previous handler is
    back at once, so a second Ctrl-C interrupts immediately."""

    def __init__(self):
        self.raised = False
        self._previous = None

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.getsignal(signal.SIGINT)
            signal.signal(signal.SIGINT, self._handle)
        return self

    def _handle(self, signum, frame):
        self.raised = True
        signal.signal(signal.SIGINT, self._previous)

    def __exit__(self, *exc):
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
        return False


def check_every(value, name: str = "checkpoint_every"):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer (write a checkpoint every k rounds), got {value!r}; "
                         f"pass e.g. {name}=1000, or None to write only at the end and on Ctrl-C.")
    return int(value)


def check_options(checkpoint, checkpoint_every, resume_from):
    """Validate the three checkpoint arguments; returns ``checkpoint_every`` as an int or None."""
    for name, value in (("checkpoint", checkpoint), ("resume_from", resume_from)):
        if value is not None and not isinstance(value, (str, os.PathLike)):
            raise TypeError(f"{name} must be a file path (str or os.PathLike), got {type(value).__name__}.")
    every = check_every(checkpoint_every)
    if every is not None and checkpoint is None:
        raise ValueError("checkpoint_every needs checkpoint=path, the file to write; pass both.")
    return every

