r"""The structured per-round loss :math:`f(z)=\langle a, z\rangle+c\,\phi(z)` every player receives.

Every loss keeps its structure, "linear part + quadratic strength", as a :class:`Loss` (up to an
additive constant, which cancels in every regret and argmin). Sums of losses are again losses, so
an FTRL learner updates its running sum in O(dimension) per round and closed-form argmins apply.
The payoffs that hand these losses to the players are :mod:`gamedyn.engine.payoffs`.
"""

from __future__ import annotations

import numpy as np

from gamedyn.core.kernels import axpy, backend_of, inner, is_foreign, is_numpy, is_python_float, plus_scaled

__all__ = ["Loss"]

_FLOAT64 = np.dtype(np.float64)


class Loss:
    r"""f(z) = <linear, z> + curvature * phi(z), defined up to an additive constant.

    ``phi`` is ``convex``: ``None`` (the default) means :math:`\phi(z)=\tfrac12\|z\|^2`, the
    "linear + quadratic" losses of every bilinear payoff. Any other fixed convex function with a
    known argmin oracle can take its place, e.g. the Fenchel conjugate :math:`f^*` of an
    :class:`gamedyn.Objective` (the y-player's loss in the Fenchel game): it must provide
    ``value(z)``, ``gradient(z)`` and ``minimize(linear, strength, domain)`` =
    :math:`\arg\min_{z\in Z}\langle\mathrm{linear},z\rangle+\mathrm{strength}\,\phi(z)` (or None when
    unbounded). Sums keep the structure: the strengths add, the linear parts add, so an FTL learner
    still updates in O(dimension) and :meth:`minimize_over` is the oracle's closed form.

    ``linear`` has the player's dimension as its first axis; a trailing axis (shape ``(dim, K)``)
    holds K batched games that share one round (see :func:`gamedyn.one_vs_rest`), and then
    :meth:`value` returns one value per game. A cheap value type (three slots, created several times
    per round): it is never modified in place, and neither is its ``linear`` array.
    """

    __slots__ = ("linear", "curvature", "convex")

    def __init__(self, linear, curvature: float = 0.0, convex=None):
        self.linear = linear
        self.curvature = curvature
        self.convex = convex

    def __repr__(self) -> str:
        extra = "" if self.convex is None else f", convex={self.convex!r}"
        return f"Loss(linear={self.linear!r}, curvature={self.curvature!r}{extra})"

    def __eq__(self, other) -> bool:
        if not isinstance(other, Loss):
            return NotImplemented
        return bool(np.array_equal(self.linear, other.linear) and self.curvature == other.curvature
                    and self.convex is other.convex)

    __hash__ = None  # type: ignore[assignment]  # unhashable (mutable arrays inside); typeshed writes it so too

    def value(self, z):
        """f(z); a float, or one float per game (shape ``(K,)``) for batched losses."""
        linear = self.linear
        if linear.ndim == 1:
            total = inner(linear, z)
            if self.curvature:
                if self.convex is None:
                    total += 0.5 * self.curvature * inner(z, z)
                else:
                    total += self.curvature * float(self.convex.value(z))
            return total
        if is_foreign(linear):  # batched losses of a foreign namespace: one sum per game there, on the device
            xp = backend_of(linear).xp
            total = xp.sum(linear * z, axis=0)
            if self.curvature:
                total = total + 0.5 * self.curvature * xp.sum(z * z, axis=0)
            return total
        total = np.einsum("i...,i...->...", linear, z)
        if self.curvature:
            total = total + 0.5 * self.curvature * np.einsum("i...,i...->...", z, z)
        return total

    def gradient(self, z):
        """grad f(z) = linear + curvature grad phi(z) (the linear part itself when the curvature is 0)."""
        if not self.curvature:
            return self.linear
        if self.convex is None:
            return self.linear + self.curvature * z
        return self.linear + self.curvature * self.convex.gradient(z)

    def minimize_over(self, domain):
        """argmin over the domain of f (None when unbounded below): the domain's closed form for
        phi = 1/2 ||.||^2 (``domain.minimize_quadratic``), else phi's own oracle."""
        if self.convex is None or not self.curvature:
            return domain.minimize_quadratic(self.linear, self.curvature)
        return self.convex.minimize(self.linear, self.curvature, domain)

    def _convex_of_sum(self, other: "Loss", weight: float = 1.0):
        if self.convex is other.convex or not (weight * other.curvature):
            return self.convex
        if not self.curvature:
            return other.convex
        raise ValueError(
            "Cannot add losses whose curvature multiplies different convex functions "
            f"({self.convex!r} and {other.convex!r}); a player's losses must share one phi."
        )

    def scaled(self, weight: float) -> "Loss":
        """The loss times ``weight``: its linear part and its curvature (the strength of phi) scaled, phi kept."""
        return Loss(weight * self.linear, weight * self.curvature, self.convex)

    def plus_scaled(self, other: "Loss", weight: float) -> "Loss":
        """self + weight * other in one step (what an FTRL learner adds each round)."""
        convex = self.convex if self.convex is other.convex else self._convex_of_sum(other, weight)
        if is_python_float(weight) and weight == 1.0:  # alpha_t = 1: one pass (1.0 * x == x exactly)
            return Loss(self.linear + other.linear, self.curvature + other.curvature, convex)
        mine, theirs = self.linear, other.linear
        if (is_numpy(mine) and is_numpy(theirs) and mine.dtype is _FLOAT64
                and mine.shape == theirs.shape and is_python_float(weight)):  # one copy, one BLAS axpy
            linear = mine.copy()
            axpy(theirs.reshape(-1), linear.reshape(-1), weight)
        else:
            linear = plus_scaled(mine, weight, theirs)
        return Loss(linear, self.curvature + weight * other.curvature, convex)

    def __add__(self, other: "Loss") -> "Loss":
        convex = self.convex if self.convex is other.convex else self._convex_of_sum(other)
        return Loss(self.linear + other.linear, self.curvature + other.curvature, convex)

    @classmethod
    def zero(cls, dimension) -> "Loss":
        """The zero loss; ``dimension`` is an int or a shape ``(dim, K)`` for K batched games."""
        return cls(np.zeros(dimension), 0.0)
