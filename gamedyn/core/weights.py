r"""Weights and steps: the schedules alpha_t of the runner and eta_t of the learners.

:func:`weight_function` turns :func:`gamedyn.play`'s ``weights=`` (``"constant"``, ``"linear"``, a
positive number, a sequence of at least T numbers, or a callable t -> alpha_t) into t -> alpha_t,
checking that every weight is positive, finite and normal. The named **averaging schemes** of game
solving (Tammelin et al. 2015; Farina, Kroer & Sandholm 2021) are weights too: ``"uniform"``
(:math:`\alpha_t=1`, the same as ``"constant"``), ``"linear"`` (:math:`\alpha_t=t`) and
``"quadratic"`` (:math:`\alpha_t=t^2`), given as ``output_weights=`` to average the plays
:math:`\bar x_T=\sum_t\alpha_tx_t/\sum_t\alpha_t` without changing what the learners see. :class:`StepSchedule` is a learner's
step-size schedule eta_t.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any, Callable, Union

import attrs
import numpy as np

__all__ = ["AVERAGING", "StepSchedule", "Weights", "step_kind", "weight_function"]

Weights = Union[str, float, Sequence[float], np.ndarray, Callable[[int], float]]
"""What ``weights=`` takes: a named schedule, a positive number, a sequence of T numbers or t -> alpha_t."""

AVERAGING = ("uniform", "linear", "quadratic")  # the named averaging schemes: alpha_t = 1, t, t^2


def weight_function(weights, name: str, T: int) -> Callable[[int], float]:
    """Turn the ``weights`` argument into t -> alpha_t, checking every alpha_t is positive and finite."""
    if isinstance(weights, str):
        if weights in ("constant", "uniform"):
            return lambda t: 1.0
        if weights == "linear":
            return float
        if weights == "quadratic":
            return lambda t: float(t * t)
        raise ValueError(f"{name}={weights!r} is not a known schedule; use 'constant' (or 'uniform'), 'linear', "
                         f"'quadratic', a sequence or a callable t -> alpha_t.")
    if isinstance(weights, numbers.Real) and not isinstance(weights, bool):
        value = float(weights)
        if not (np.isfinite(value) and value > 0):
            raise ValueError(f"{name} must be positive and finite, got {value!r}.")
        _check_normal(value, name)
        return lambda t: value
    if callable(weights):
        def checked(t, function=weights):
            value = float(function(t))
            if not SMALLEST_NORMAL <= value < math.inf:  # one comparison per round; the reason below
                if not (math.isfinite(value) and value > 0):
                    raise ValueError(f"{name}({t}) = {value!r}; every weight alpha_t must be positive and finite.")
                _check_normal(value, f"{name}({t})")
            return value
        return checked
    sequence = np.asarray(weights, dtype=np.float64)
    if sequence.ndim != 1 or sequence.shape[0] < T:
        raise ValueError(f"{name} must be a 1-D sequence of at least T = {T} weights, got shape {sequence.shape}.")
    if not np.all(np.isfinite(sequence[:T])) or np.any(sequence[:T] <= 0):
        raise ValueError(f"{name} must contain positive finite weights; got min {np.min(sequence[:T])!r}.")
    _check_normal(float(np.min(sequence[:T])), f"min({name})")
    return lambda t: float(sequence[t - 1])


SMALLEST_NORMAL = float(np.finfo(np.float64).tiny)


def _check_normal(value: float, name: str):
    """A subnormal weight carries fewer than 52 bits: alpha_t p_t would lose the simplex's sum."""
    if value < SMALLEST_NORMAL:
        raise ValueError(
            f"{name} = {value!r} is subnormal (below {SMALLEST_NORMAL!r}, float64's smallest normal "
            f"number), so alpha_t times a play loses precision. Multiply every weight by a constant "
            f"c and divide each learner's eta by c: the plays are unchanged."
        )


@attrs.frozen
class StepSchedule:
    r"""A step-size schedule :math:`\eta_t`, t = 1, 2, ...: a sequence ``(eta_1, eta_2, ...)`` or a
    callable ``t -> eta_t``. Every learner's ``eta`` accepts one (a list or tuple, or a callable,
    is turned into a ``StepSchedule``); each learner counts its own rounds, so round t uses
    :math:`\eta_t` in both its play and its update. A NumPy array as ``eta`` means something else:
    one constant step per batched game (a sweep).

    >>> StepSchedule([1.0, 0.5])(2), StepSchedule(lambda t: 1 / t)(4)
    (0.5, 0.25)

    It declares ``step_kind = "schedule"`` (:func:`step_kind`): a learner calls it with its round.
    """

    step_kind = "schedule"
    steps: Any = attrs.field()

    def __attrs_post_init__(self):
        if not callable(self.steps):
            steps = tuple(float(step) for step in self.steps)
            if not steps or not all(np.isfinite(step) and step > 0 for step in steps):
                raise ValueError(f"a step sequence must hold positive finite steps, got {self.steps!r}.")
            object.__setattr__(self, "steps", steps)

    def __call__(self, t: int) -> float:
        if callable(self.steps):
            step = float(self.steps(t))
            if not (np.isfinite(step) and step > 0):
                raise ValueError(f"eta({t}) = {step!r}; every step eta_t must be positive and finite.")
            return step
        if t > len(self.steps):
            raise ValueError(f"the step sequence holds {len(self.steps)} steps but round {t} needs eta_{t}; "
                             f"give at least T steps, or a callable t -> eta_t.")
        return self.steps[t - 1]


def step_kind(eta) -> str:
    """What a learner's step ``eta`` declares it is (``step_kind``): ``"schedule"`` (:class:`StepSchedule`:
    eta_t = eta(t)), ``"adaptive"`` (:class:`gamedyn.AdaptiveStep`: from the losses seen), else ``"constant"``
    (a number, or one per batched game). A subclass keeps its parent's kind; read once per player."""
    kind = getattr(eta, "step_kind", "constant")
    return kind if isinstance(kind, str) else "constant"
