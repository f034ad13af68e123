"""The result the Fenchel-game recipes return."""

from __future__ import annotations

import attrs
import numpy as np

from gamedyn.protocol import GameResult


@attrs.frozen
class FenchelResult:
    r"""A Fenchel-game recipe's output point and the game that produced it.

    ``x`` is the recipe's output (the x-player's weighted average :math:`\bar x_T`, the original
    algorithm's last iterate); ``value`` is :math:`f(x)`; ``game`` is the runner's
    :class:`gamedyn.GameResult` (y-player = w, x-player = p), whose ``theorem2_bound`` bounds
    :math:`f(\bar x_T)-\min_Kf` (Abernethy & Wang 2017, Theorem 1).
    """

    x: np.ndarray
    value: float
    game: GameResult


def fenchel_inputs(objective, domain, x0, dimension):
    """The checked start x_0 (default: the domain's centre) and the dimension."""
    from gamedyn._validation import check_vector
    from gamedyn.fenchel import Objective

    if not isinstance(objective, Objective):
        raise TypeError(f"objective must be a gamedyn.Objective(value, gradient, smoothness), got {objective!r}.")
    if x0 is not None:
        x0 = check_vector(x0, "x0")
        dimension = x0.size
    for source in (dimension, objective.dimension, getattr(domain, "dimension", None)):
        if dimension is None:
            dimension = source
    if dimension is None:
        raise ValueError("the dimension of x is unknown: pass x0=..., dimension=d, or Objective(..., dimension=d).")
    if x0 is None:
        x0 = domain.default_centre(int(dimension))
    elif not domain.contains(x0):
        raise ValueError(f"x0 must lie in the domain {domain!r}; pass a point inside it.")
    return x0, int(dimension)
