"""Every field of a recipe's result as a flat ``{name: array}`` (tests only; numpy and attrs alone).

Used to save the hard-margin results of the code before issue 19's ``nu=`` option
(tests/data/hard_margin_parent.npz, made by tests/make_hard_margin_reference.py from commit b7dd74d)
and to compare today's ``nu=None`` results with them bit for bit. ``None`` fields are left out, so
a field added later with the default ``None`` (``Certificate.cap``) does not count as a change.
"""

from __future__ import annotations

import attrs
import numpy as np


def flatten(value, prefix: str = "") -> dict:
    out: dict = {}
    if value is None:
        return out
    if attrs.has(type(value)):
        for field in attrs.fields(type(value)):
            out.update(flatten(getattr(value, field.name), f"{prefix}.{field.name}"))
        for name in ("certificate",):  # properties that are part of the public result
            if hasattr(type(value), name) and isinstance(getattr(type(value), name), property):
                out.update(flatten(getattr(value, name), f"{prefix}.{name}"))
        return out
    if isinstance(value, dict):
        for key in sorted(value):
            out.update(flatten(value[key], f"{prefix}[{key}]"))
        return out
    if isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            out.update(flatten(item, f"{prefix}[{index}]"))
        return out
    if isinstance(value, str):
        out[prefix] = np.array(value)
        return out
    if hasattr(value, "linear") and hasattr(value, "curvature"):  # a gamedyn Loss
        out.update(flatten(value.linear, f"{prefix}.linear"))
        out.update(flatten(value.curvature, f"{prefix}.curvature"))
        return out
    array = np.asarray(value)
    if array.dtype == object:
        raise TypeError(f"{prefix}: cannot flatten {type(value).__name__}; add it to result_fields.flatten.")
    out[prefix] = array
    return out
