"""The result the Fenchel-game recipes return."""

from __future__ import annotations

import attrs
import numpy as np

from gamedyn.engine.recipe import Parameter, RecipeResult


@attrs.frozen(kw_only=True)
class FenchelResult(RecipeResult):
    r"""A Fenchel-game recipe's output point and the game that produced it.

    ``x`` is the recipe's output (the x-player's weighted average :math:`\bar x_T`, the original
    algorithm's last iterate); ``value`` is :math:`f(x)`; ``game`` is the runner's
    :class:`gamedyn.GameResult` (y-player = w, x-player = p), whose ``theorem2_bound`` bounds
    :math:`f(\bar x_T)-\min_Kf` (Abernethy & Wang 2017, Theorem 1); ``steps`` the step used
    (``eta_p``, the x-player's, where the recipe has one). ``certificate`` is None: a Fenchel game
    has none.
    """

    x: np.ndarray
    value: float


_DOMAINS = "Simplex(), Ball(radius), L1Ball(radius) or Box(lower, upper)"


def check_fenchel_domain(domain, recipe: str, *, bounded: bool):
    """A domain with the methods the recipe uses (``bounded``: a linear minimisation oracle with a
    minimiser, so not R^d), or a clear error naming ``domain`` and the fix."""
    from gamedyn.core.domains import Reals

    needed = ("contains", "default_centre", "linear_minimizer" if bounded else "project")
    if domain is None or not all(callable(getattr(domain, method, None)) for method in needed):
        raise TypeError(f"{recipe} needs domain= a domain K to minimise over ({_DOMAINS}), got {domain!r}.")
    if bounded and isinstance(domain, Reals):
        raise ValueError(f"{recipe} needs a bounded domain K: its linear minimisation oracle has no minimiser on "
                         f"R^d (domain=Reals()); pass {_DOMAINS}, or use accelerated_gradient(objective, T) for an "
                         f"unconstrained f.")
    return domain


def fenchel_inputs(objective, domain, x0, dimension):
    """The checked start x_0 (default: the domain's centre) and the dimension.

    ``dimension`` is an int >= 1 or None; every place that states the length of x (``x0``,
    ``dimension``, ``Objective(..., dimension=)``, a Box) must agree.
    """
    from gamedyn.core.validation import check_vector
    from gamedyn.games.fenchel.game import Objective, agreed_dimension

    if not isinstance(objective, Objective):
        raise TypeError(f"objective must be a gamedyn.Objective(value, gradient, smoothness), got {objective!r}.")
    if x0 is not None:
        x0 = check_vector(x0, "x0")
        if x0.shape[0] == 0:
            raise ValueError("x0 is empty; pass a start point with at least one coordinate.")
    dimension = agreed_dimension(objective, domain, dimension=dimension, x0=x0)
    if x0 is None:
        x0 = domain.default_centre(dimension)
    elif not domain.contains(x0):
        raise ValueError(f"x0 must lie in the domain {domain!r}; pass a point inside it.")
    return x0, dimension


def fenchel_result(objective, game, steps: dict | None = None) -> FenchelResult:
    """The recipe's output x = x_bar_T with f(x), checked finite (the objective's NaN named, not returned)."""
    x = game.p_average
    return FenchelResult(x=x, value=objective.value_at(x), game=game, steps=dict(steps or {}))


X0 = Parameter("x0", "the start x_0 (default: the domain's centre, 0 on R^d)", cli=False)
DIMENSION = Parameter("dimension", "the length d of x (when nothing else states it)", kind=int, cli=False)
STEP = Parameter("eta_p", "the x-player's step gamma (default 1/(4L), L = objective.smoothness)")
"""Parameters the Fenchel recipes share (x0 and the dimension; the x-player's step)."""
