r"""Empirical joint distributions of play, kept sparse: the plays' product terms, or counts of pure profiles.

The empirical joint distribution of T rounds of play with output weights :math:`\beta_t` is

.. math::

    \sigma_T=\frac1{S_T}\sum_t\beta_t\,x^1_t\otimes\cdots\otimes x^n_t,\qquad S_T=\sum_t\beta_t,

:class:`ProductJoint` keeps its T product terms (:math:`O(T\sum_ia_i)` numbers, never the
:math:`\prod_ia_i` of the dense array until :meth:`ProductJoint.dense` is asked for), and
:class:`CountJoint` the weighted counts of pure profiles (sampled play, fictitious play's vertices).
Both give the dense array of shape :math:`(a_1,\dots,a_n)` for small games, which
:func:`gamedyn.games.general_sum.cce_gap` and :func:`gamedyn.games.general_sum.ce_gap` certify.
"""

from __future__ import annotations

import attrs
import numpy as np

__all__ = ["CountJoint", "ProductJoint"]


@attrs.frozen(eq=False)
class ProductJoint:
    """The joint distribution :math:`\\sum_t\\beta_t\\bigotimes_ix^i_t/\\sum_t\\beta_t` as its product terms.

    Parameters
    ----------
    plays : tuple of arrays
        ``plays[i]`` has shape (T, a_i): player i's mixed strategy in each round.
    weights : array, shape (T,)
        The output weights :math:`\\beta_t > 0`.

    Examples
    --------
    >>> joint = ProductJoint.from_trace({"plays": ([[1.0, 0.0], [0.0, 1.0]], [[0.5, 0.5], [0.0, 1.0]]),
    ...                                  "weights": [1.0, 1.0]})
    >>> joint.dense().tolist()
    [[0.25, 0.25], [0.0, 0.5]]
    """

    plays: tuple
    weights: np.ndarray

    @classmethod
    def from_trace(cls, trace: dict) -> "ProductJoint":
        """From :class:`gamedyn.engine.players.PlaysTrace`'s ``{"plays": ..., "weights": ...}``."""
        plays = tuple(np.asarray(x, dtype=np.float64) for x in trace["plays"])
        weights = np.asarray(trace["weights"], dtype=np.float64)
        if weights.ndim != 1 or any(x.ndim != 2 or x.shape[0] != weights.shape[0] for x in plays):
            raise ValueError("a trace's plays must be (T, a_i) arrays and its weights a (T,) array, T rounds each.")
        if weights.size == 0 or not np.all(weights > 0) or not np.all(np.isfinite(weights)):
            raise ValueError("a trace's weights must be positive and finite (at least one round).")
        return cls(plays, weights)

    @property
    def shape(self) -> tuple:
        """(a_1, ..., a_n)."""
        return tuple(x.shape[1] for x in self.plays)

    @property
    def rounds(self) -> int:
        """T, the number of product terms."""
        return int(self.weights.shape[0])

    def dense(self) -> np.ndarray:
        """The joint distribution as an array of shape (a_1, ..., a_n) (BLAS for two players, einsum beyond)."""
        beta = self.weights / self.weights.sum()
        if len(self.plays) == 2:
            X, Y = self.plays
            return (X.T * beta) @ Y
        letters = "abcdefghijklmnopqrsuvwxyz"[:len(self.plays)]
        subscripts = "t," + ",".join(f"t{letter}" for letter in letters) + "->" + letters
        return np.einsum(subscripts, beta, *self.plays, optimize=True)

    def marginals(self) -> tuple:
        """Each player's averaged strategy (the joint's marginals)."""
        beta = self.weights / self.weights.sum()
        return tuple(beta @ x for x in self.plays)


@attrs.frozen(init=False, eq=False)
class CountJoint:
    """A joint distribution on pure profiles: ``profiles`` (m, n) action indices with ``counts`` (m,) > 0.

    Examples
    --------
    >>> joint = CountJoint([[0, 1], [1, 0], [0, 1]], shape=(2, 2))
    >>> joint.dense().tolist()
    [[0.0, 0.6666666666666666], [0.3333333333333333, 0.0]]
    """

    profiles: np.ndarray
    counts: np.ndarray
    shape: tuple

    def __init__(self, profiles, counts=None, *, shape):
        profiles = np.asarray(profiles, dtype=np.int64)
        shape = tuple(int(a) for a in shape)
        if profiles.ndim != 2 or profiles.shape[1] != len(shape) or profiles.shape[0] == 0:
            raise ValueError(f"profiles must be an (m, n) array of action indices, n = {len(shape)}, m >= 1; got "
                             f"shape {profiles.shape}.")
        if np.any(profiles < 0) or np.any(profiles >= np.array(shape)):
            raise ValueError(f"profiles hold action indices outside the game's shape {shape}.")
        counts = np.ones(profiles.shape[0]) if counts is None else np.asarray(counts, dtype=np.float64)
        if counts.shape != (profiles.shape[0],) or not np.all(counts > 0) or not np.all(np.isfinite(counts)):
            raise ValueError("counts must be one positive finite number per profile.")
        self.__attrs_init__(profiles, counts, shape)

    def dense(self) -> np.ndarray:
        """The joint distribution as an array of shape ``shape``."""
        joint = np.zeros(self.shape)
        np.add.at(joint, tuple(self.profiles.T), self.counts)
        return joint / self.counts.sum()
