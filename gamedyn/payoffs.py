r"""Payoffs g(w, p) and the structured per-round losses they hand to the two players.

The game is :math:`\max_{w\in W}\min_{p\in Q} g(w,p)` (spec section 3). In round t the runner turns
the payoff into one loss per player:

.. math::

    \ell_t(p) = g(w_t, p) \quad\text{(p-player)},\qquad h_t(w) = -g(w, p_t) \quad\text{(w-player)}.

Every loss keeps its structure, "linear part + quadratic strength", as a :class:`Loss`
:math:`f(z)=\langle a, z\rangle+\tfrac{c}{2}\|z\|^2` (up to an additive constant, which cancels in
every regret and argmin). Sums of losses are again losses, so an FTRL learner updates its running
sum in O(dimension) per round and closed-form argmins apply.
"""

from __future__ import annotations

from typing import Callable

import attrs
import numpy as np
import scipy.sparse as sp

from gamedyn._validation import check_matrix, check_positive


@attrs.frozen
class Loss:
    """f(z) = <linear, z> + (curvature / 2) ||z||^2, defined up to an additive constant."""

    linear: np.ndarray
    curvature: float = 0.0

    def value(self, z) -> float:
        return float(self.linear @ z + 0.5 * self.curvature * (z @ z))

    def gradient(self, z):
        return self.linear + self.curvature * z

    def scaled(self, weight: float) -> "Loss":
        return Loss(weight * self.linear, weight * self.curvature)

    def __add__(self, other: "Loss") -> "Loss":
        return Loss(self.linear + other.linear, self.curvature + other.curvature)

    @classmethod
    def zero(cls, dimension: int) -> "Loss":
        return cls(np.zeros(dimension), 0.0)


class Payoff:
    """The interface of a payoff g(w, p): dimensions, value, and each player's round loss.

    ``loss_for_p(w, p_played)`` is l(p) = g(w, p); ``loss_for_w(p, w_played)`` is h(w) = -g(w, p).
    The second argument is the point where the loss is linearised (used only by payoffs without
    structure, see :class:`ConcaveConvex`); ``None`` asks for the loss before the player has played.
    """

    w_dimension: int
    p_dimension: int
    structured = True

    def value(self, w, p) -> float:
        raise NotImplementedError

    def loss_for_p(self, w, p_played=None) -> Loss:
        raise NotImplementedError

    def loss_for_w(self, p, w_played=None) -> Loss:
        raise NotImplementedError


def _matrix_and_transpose(A):
    if type(A).__module__.startswith("dask.array"):  # keep the blocks where they are: one task per block
        from gamedyn.distributed import RowBlockedOperator

        A = RowBlockedOperator.from_dask_array(A)
    A = check_matrix(A, "A", allow_operator=True)
    return A, (A.T.tocsr() if sp.issparse(A) else A.T)


@attrs.frozen
class Bilinear(Payoff):
    """g(w, p) = p^T A w, A of shape (n, d): w in R^d (or a ball), p in the n-simplex.

    l(p) = <A w, p>, h(w) = <-A^T p, w>. ``A`` may be a numpy array, a scipy.sparse matrix, a
    ``scipy.sparse.linalg.LinearOperator``, or a row-chunked dask array (wrapped in
    :class:`gamedyn.distributed.RowBlockedOperator`: one task per row block, blocks persisted).
    """

    A: np.ndarray = attrs.field()
    _A_transpose: np.ndarray = attrs.field(init=False, repr=False)

    def __attrs_post_init__(self):
        A, A_transpose = _matrix_and_transpose(self.A)
        object.__setattr__(self, "A", A)
        object.__setattr__(self, "_A_transpose", A_transpose)

    @property
    def w_dimension(self) -> int:
        return self.A.shape[1]

    @property
    def p_dimension(self) -> int:
        return self.A.shape[0]

    def value(self, w, p) -> float:
        return float(p @ (self.A @ w))

    def loss_for_p(self, w, p_played=None) -> Loss:
        return Loss(np.asarray(self.A @ w), 0.0)

    def loss_for_w(self, p, w_played=None) -> Loss:
        return Loss(-np.asarray(self._A_transpose @ p), 0.0)


@attrs.frozen
class RegularizedBilinear(Bilinear):
    """g(w, p) = p^T A w - (strength / 2) ||w||^2 (the paper's payoff with strength = 1).

    l(p) = <A w, p> (+ constant), h(w) = <-A^T p, w> + (strength / 2) ||w||^2. The max over w of
    min_p g is gamma^2 / 2 (strength 1), attained at gamma times the max-margin direction.
    """

    strength: float = attrs.field(default=1.0, converter=lambda s: check_positive(s, "strength"))

    def value(self, w, p) -> float:
        return float(p @ (self.A @ w)) - 0.5 * self.strength * float(w @ w)

    def loss_for_w(self, p, w_played=None) -> Loss:
        return Loss(-np.asarray(self._A_transpose @ p), self.strength)


@attrs.frozen
class ConcaveConvex(Payoff):
    """A general payoff g(w, p), concave in w and convex in p, given by callables.

    ``value(w, p)``, ``gradient_w(w, p)`` and ``gradient_p(w, p)``. The learners see the
    **linearised** losses: the p-player's round loss is <grad_p g(w_t, p_t), p>, the w-player's is
    <-grad_w g(w_t, p_t), w>, both taken at the point the player itself played (gradient feedback,
    as in online mirror descent). By convexity the regret on these linear losses upper-bounds the
    regret on the true losses, so Theorem 2 still holds for the reported regrets. A player that must
    see the current loss before playing (FTRL+) cannot be used: there is no point to linearise at.
    """

    value_function: Callable = attrs.field()
    gradient_w: Callable = attrs.field()
    gradient_p: Callable = attrs.field()
    w_dimension: int = attrs.field(kw_only=True)
    p_dimension: int = attrs.field(kw_only=True)
    structured = False

    def value(self, w, p) -> float:
        return float(self.value_function(w, p))

    def loss_for_p(self, w, p_played=None) -> Loss:
        if p_played is None:
            raise ValueError(
                "ConcaveConvex payoffs give linearised losses only; a p-player that sees the current "
                "loss before playing (FTRLPlus) is not supported. Use OFTRL or OMD for this player."
            )
        return Loss(np.asarray(self.gradient_p(w, p_played), dtype=np.float64), 0.0)

    def loss_for_w(self, p, w_played=None) -> Loss:
        if w_played is None:
            raise ValueError(
                "ConcaveConvex payoffs give linearised losses only; a w-player that sees the current "
                "loss before playing (FTRLPlus) is not supported. Use OFTRL or OMD for this player."
            )
        return Loss(-np.asarray(self.gradient_w(w_played, p), dtype=np.float64), 0.0)
