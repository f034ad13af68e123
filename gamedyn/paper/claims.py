"""The claims of both papers as data: :class:`Claim` (a statement and how to measure it),
:class:`Measurement` (what its check found) and :class:`Outcome` (a claim, its measurement, its time).

The experiments (:mod:`gamedyn.paper.experiments`) declare claims; :mod:`gamedyn.paper.reproduce`
runs them and prints the table.
"""

from __future__ import annotations

import re
from typing import Callable

import attrs

__all__ = ["Claim", "Measurement", "Outcome"]


@attrs.frozen
class Measurement:
    """What a claim's check found: the measured number, the bound it is held to, and the verdict.

    ``detail`` names the worst case (data set, T, quantity) or what went wrong.
    """

    measured: float
    bound: float
    passed: bool
    detail: str = ""


@attrs.frozen
class Claim:
    """One claim of a paper and how to measure it.

    ``measures`` names the measured number in the table (``"max rel err"``, ``"min slack"``,
    ``"slope"``, ...); ``relation`` (``"<="``, ``">="``, ``"<"``) is how it must compare with the
    bound. ``tags`` (group, recipe names, paper reference) are what command-line names select.
    """

    name: str
    statement: str
    group: str
    tags: tuple
    measures: str
    relation: str
    check: Callable  # Context -> Measurement

    def matches(self, name: str) -> bool:
        """Whether ``name`` is the claim's group, name or one of its tags (case and punctuation ignored)."""
        return _normalise(name) in {_normalise(tag) for tag in (self.group, self.name, *self.tags)}


@attrs.frozen
class Outcome:
    """A claim with its measurement and the seconds its check took."""

    claim: Claim
    measurement: Measurement
    seconds: float

    @property
    def passed(self) -> bool:
        """Whether the measurement passed."""
        return self.measurement.passed


def _normalise(name: str) -> str:
    return re.sub(r"[^a-z0-9.]", "", str(name).lower())
