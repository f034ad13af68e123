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

from typing import Any, Callable

import attrs
import numpy as np
from gamedyn._validation import check_matrix, check_positive
from gamedyn.regularizers import Simplex


class Loss:
    """f(z) = <linear, z> + (curvature / 2) ||z||^2, defined up to an additive constant.

    ``linear`` has the player's dimension as its first axis; a trailing axis (shape ``(dim, K)``)
    holds K batched games that share one round (see :func:`gamedyn.one_vs_rest`), and then
    :meth:`value` returns one value per game. A cheap value type (two slots, created several times
    per round): it is never modified in place, and neither is its ``linear`` array.
    """

    __slots__ = ("linear", "curvature")

    def __init__(self, linear, curvature: float = 0.0):
        self.linear = linear
        self.curvature = curvature

    def __repr__(self) -> str:
        return f"Loss(linear={self.linear!r}, curvature={self.curvature!r})"

    def __eq__(self, other) -> bool:
        if not isinstance(other, Loss):
            return NotImplemented
        return bool(np.array_equal(self.linear, other.linear) and self.curvature == other.curvature)

    __hash__ = None

    def value(self, z):
        """f(z); a float, or one float per game (shape ``(K,)``) for batched losses."""
        linear = self.linear
        if linear.ndim == 1:
            total = float(linear @ z)
            if self.curvature:
                total += 0.5 * self.curvature * float(z @ z)
            return total
        total = np.einsum("i...,i...->...", linear, z)
        if self.curvature:
            total = total + 0.5 * self.curvature * np.einsum("i...,i...->...", z, z)
        return total

    def gradient(self, z):
        """grad f(z) = linear + curvature z (the linear part itself when the curvature is 0)."""
        if not self.curvature:
            return self.linear
        return self.linear + self.curvature * z

    def scaled(self, weight: float) -> "Loss":
        return Loss(weight * self.linear, weight * self.curvature)

    def plus_scaled(self, other: "Loss", weight: float) -> "Loss":
        """self + weight * other in one step (what an FTRL learner adds each round)."""
        linear = weight * other.linear
        linear += self.linear  # one new array (the same sum as self.linear + weight * other.linear)
        return Loss(linear, self.curvature + weight * other.curvature)

    def __add__(self, other: "Loss") -> "Loss":
        return Loss(self.linear + other.linear, self.curvature + other.curvature)

    @classmethod
    def zero(cls, dimension) -> "Loss":
        """The zero loss; ``dimension`` is an int or a shape ``(dim, K)`` for K batched games."""
        return cls(np.zeros(dimension), 0.0)


class Payoff:
    """The interface of a payoff g(w, p): dimensions, value, and each player's round loss.

    ``loss_for_p(w, p_played)`` is l(p) = g(w, p); ``loss_for_w(p, w_played)`` is h(w) = -g(w, p).
    The second argument is the point where the loss is linearised (used only by payoffs without
    structure, see :class:`ConcaveConvex`); ``None`` asks for the loss before the player has played.

    ``w_domain`` / ``p_domain`` state the set each player must play on (a domain such as
    ``Simplex()``), or ``None`` when any domain makes a valid game; :func:`gamedyn.play` refuses a
    learner whose ``domain`` differs.
    """

    w_dimension: int
    p_dimension: int
    structured = True
    w_domain = None
    p_domain = None

    def value(self, w, p) -> float:
        raise NotImplementedError

    def loss_for_p(self, w, p_played=None) -> Loss:
        raise NotImplementedError

    def loss_for_w(self, p, w_played=None) -> Loss:
        raise NotImplementedError


def _check_domain(instance, attribute, value):
    if value is not None and not all(hasattr(value, name) for name in ("contains", "project", "minimize_quadratic")):
        raise TypeError(
            f"{attribute.name} must be a domain (Reals(), Ball(radius), Simplex()) or None for any "
            f"domain, got {value!r}."
        )


def _matrix_and_transpose(A):
    """A validated ``A`` and its transpose as a view: no copy of A is ever kept.

    Dense: ``A.T`` is a strided view. Sparse: CSR and CSC are kept as given and ``A.T`` is the
    other format's view of the same arrays. A ``scipy.sparse.linalg.LinearOperator`` (or any
    subclass, e.g. an out-of-core operator) is never densified: ``A.T @ p`` calls its ``rmatvec``.
    """
    A = check_matrix(A, "A", allow_operator=True, sparse_formats=("csr", "csc"))
    return A, A.T


@attrs.frozen
class Bilinear(Payoff):
    """g(w, p) = p^T A w, A of shape (n, d): w in R^d (or a ball), p in the n-simplex.

    l(p) = <A w, p>, h(w) = <-A^T p, w>. ``A`` may be a numpy array, a scipy.sparse matrix, a
    ``scipy.sparse.linalg.LinearOperator`` or a batch of games (:func:`gamedyn.one_vs_rest`).
    The p-player must play on the simplex (``p_domain = Simplex()``: the rows are mixed); the
    w-player on any domain (``w_domain = None``).

    **Products and dtype.** Each round costs one ``A @ w`` (the p-player's loss) and one
    ``A.T @ p`` (the w-player's). They run in A's dtype: a float32 A is never copied to float64;
    the iterate is cast to float32 (O(d) or O(n)) and the product's result is upcast to float64, so
    every accumulator (loss sums, play sums, played losses, logits) stays float64.
    """

    A: np.ndarray = attrs.field()
    _A_transpose: np.ndarray = attrs.field(init=False, repr=False)
    _product_dtype: np.dtype = attrs.field(init=False, repr=False)
    p_domain = Simplex()

    def __attrs_post_init__(self):
        A, A_transpose = _matrix_and_transpose(self.A)
        object.__setattr__(self, "A", A)
        object.__setattr__(self, "_A_transpose", A_transpose)
        # None: a float64 numpy array, whose products need no cast and no conversion.
        dtype = None if isinstance(A, np.ndarray) and A.dtype == np.float64 else np.dtype(A.dtype)
        object.__setattr__(self, "_product_dtype", dtype)

    @property
    def w_dimension(self) -> int:
        return self.A.shape[1]

    @property
    def p_dimension(self) -> int:
        return self.A.shape[0]

    @property
    def batch_size(self) -> int | None:
        """K for a batch of K games sharing one matrix (:func:`gamedyn.one_vs_rest`), else None."""
        return getattr(self.A, "batch_size", None)

    def times(self, w):
        """A @ w in A's dtype, returned as float64 (w of shape (d,) or (d, K))."""
        if self._product_dtype is None:
            return self.A @ w
        product = self.A @ np.asarray(w).astype(self._product_dtype, copy=False)
        return np.asarray(product).astype(np.float64, copy=False)

    def transpose_times(self, p):
        """A^T @ p in A's dtype, returned as float64 (p of shape (n,) or (n, K))."""
        if self._product_dtype is None:
            return self._A_transpose @ p
        product = self._A_transpose @ np.asarray(p).astype(self._product_dtype, copy=False)
        return np.asarray(product).astype(np.float64, copy=False)

    def value(self, w, p):
        """g(w, p); one value per game for batched points."""
        return Loss(self.times(np.asarray(w)), 0.0).value(np.asarray(p))

    def loss_for_p(self, w, p_played=None) -> Loss:
        return Loss(self.times(w), 0.0)

    def loss_for_w(self, p, w_played=None) -> Loss:
        return Loss(self._minus_transpose_times(p), 0.0)

    def _minus_transpose_times(self, p):
        """-A^T p; negated in place when the product is known to be a fresh array (dense float64 A)."""
        if self._product_dtype is None:
            product = self._A_transpose @ p  # a new array: numpy's matmul never returns its input
            return np.negative(product, out=product)
        return -self.transpose_times(p)


@attrs.frozen
class RegularizedBilinear(Bilinear):
    """g(w, p) = p^T A w - (strength / 2) ||w||^2 (the paper's payoff with strength = 1).

    l(p) = <A w, p> (+ constant), h(w) = <-A^T p, w> + (strength / 2) ||w||^2. The max over w of
    min_p g is gamma^2 / 2 (strength 1), attained at gamma times the max-margin direction.
    """

    strength: float = attrs.field(default=1.0, converter=lambda s: check_positive(s, "strength"))

    def value(self, w, p):
        w = np.asarray(w)
        return Bilinear.value(self, w, p) - Loss(np.zeros_like(w), self.strength).value(w)

    def loss_for_w(self, p, w_played=None) -> Loss:
        return Loss(self._minus_transpose_times(p), self.strength)


@attrs.frozen
class ConcaveConvex(Payoff):
    """A general payoff g(w, p), concave in w and convex in p, given by callables.

    ``value(w, p)``, ``gradient_w(w, p)`` and ``gradient_p(w, p)``. The learners see the
    **linearised** losses: the p-player's round loss is <grad_p g(w_t, p_t), p>, the w-player's is
    <-grad_w g(w_t, p_t), w>, both taken at the point the player itself played (gradient feedback,
    as in online mirror descent). By convexity the regret on these linear losses upper-bounds the
    regret on the true losses, so Theorem 2 still holds for the reported regrets. A player that must
    see the current loss before playing (FTRL+) cannot be used: there is no point to linearise at.
    ``w_domain`` / ``p_domain`` (optional, default ``None``: any) declare the sets W and Q the
    payoff is defined on, e.g. ``p_domain=Simplex()``; :func:`gamedyn.play` then refuses learners
    on other domains.
    """

    value_function: Callable = attrs.field()
    gradient_w: Callable = attrs.field()
    gradient_p: Callable = attrs.field()
    w_dimension: int = attrs.field(kw_only=True)
    p_dimension: int = attrs.field(kw_only=True)
    w_domain: Any = attrs.field(default=None, kw_only=True, validator=_check_domain)
    p_domain: Any = attrs.field(default=None, kw_only=True, validator=_check_domain)
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
