r"""Batched games: K games that share one matrix X, played in one pass (issue 8, item 5).

Game k is the game of the matrix :math:`A_k=\operatorname{diag}(y_k)X` (one-vs-rest multiclass:
column k of ``Y`` holds the +-1 labels of class k against the rest) or, for a sweep over a
learner's parameters, :math:`A_k=X` for every k. Every iterate gets a trailing batch axis
(w: (d, K), p: (n, K)) and a round costs one ``X @ W`` and one ``X.T @ P`` for all K games:

.. math::

    (A_kw_k)_k = Y\odot(XW),\qquad (A_k^\top p_k)_k = X^\top(Y\odot P).

Learners, regularizers and the runner reduce along axis 0 only, so game k's iterates are exactly
those of game k played alone (up to the rounding of the shared product, ~1e-16 relative). Pass the
batch wherever a recipe or a payoff takes A::

    result = recipes.nag_margin(one_vs_rest(X, Y), T)     # result.w[:, k] is class k's s_T

Outputs carry the batch axis: ``result.w[:, k]``, ``result.game.w_regret[k]`` etc. Learners whose
regularizer cannot act column by column (projections onto a ball or a Euclidean simplex) refuse
batched losses with a clear error.
"""

from __future__ import annotations

import numpy as np

from gamedyn.core.kernels import backend_of, is_numpy, to_numpy
from gamedyn.core.validation import check_count, check_matrix


class BatchedMatrix:
    """K games sharing X: ``A_k = diag(labels[:, k]) X`` (``labels=None``: ``A_k = X``).

    Acts like A in every payoff: ``shape`` (n, d), ``dtype``, ``batch_size`` K, ``self @ W`` and
    ``self.T @ P``; a 1-D argument (an initial point) is the same point for every game.
    """

    def __init__(self, X, labels=None, size=None):
        self.X = check_matrix(X, "X", allow_operator=True, sparse_formats=("csr", "csc"))
        # A torch, JAX or array-API X (issue 20): the products in its namespace, on its device; the labels go there
        # once (checked on the host). Declared as ``backend``, which gamedyn.core.kernels.backend_of reads.
        self.backend = backend_of(self.X)
        n = self.X.shape[0]
        if labels is None:
            self.labels = None
            self.batch_size = check_count(size, "size")
        else:
            labels = np.asarray(to_numpy(labels))
            if labels.ndim != 2 or labels.shape[0] != n:
                raise ValueError(f"Y must have shape (n, K) = ({n}, K), one column of +-1 labels per game; got {labels.shape}.")
            if not np.all(np.isin(labels, (-1, 1))):
                raise ValueError("Y must contain only -1 and +1 (column k: +1 for class k, -1 for the rest); for 0/1 pass 2 * Y - 1.")
            self.labels = (labels.astype(self.X.dtype) if self.backend.is_numpy
                           else self.backend.asarray(labels, dtype=self.X.dtype))
            self.batch_size = labels.shape[1]
        self.shape = self.X.shape
        self.dtype = self.X.dtype

    def _columns(self, vectors):
        if not self.backend.is_numpy:
            vectors = self.backend.asarray(vectors, dtype=self.X.dtype)
            return (self.backend.xp.broadcast_to(vectors[:, None], (vectors.shape[0], self.batch_size))
                    if vectors.ndim == 1 else vectors)
        vectors = np.asarray(vectors)
        return np.repeat(vectors[:, None], self.batch_size, axis=1) if vectors.ndim == 1 else vectors

    def _dense_rows(self) -> bool:
        """A dense C-ordered numpy X: its products are taken as (W^T X^T)^T and (P^T X)^T (see __matmul__)."""
        X = self.X
        return is_numpy(X) and X.ndim == 2 and X.flags.c_contiguous

    def __matmul__(self, W):
        if self._dense_rows():
            # X W as (W^T X^T)^T: BLAS's gemm with the K games as the short side of the output ran 1.7x
            # faster than X @ W (20000 x 500, K = 10, one thread: 9.7 ms against 16.6 ms); the same sums to rounding
            product = (self._columns(W).T @ self.X.T).T
            return product if self.labels is None else self.labels * product
        product = self.X @ self._columns(W)
        if self.backend.is_numpy:
            product = np.asarray(product)  # (a sparse X's product is a matrix)
        return product if self.labels is None else self.labels * product

    @property
    def T(self):
        """The transposed operator (its products are the batched A_k^T p_k)."""
        return _Transposed(self)


class _Transposed:
    def __init__(self, batch: BatchedMatrix):
        self.batch = batch

    def __matmul__(self, P):
        P = self.batch._columns(P)
        if self.batch._dense_rows():  # X^T P as (P^T X)^T: 2.1x faster than X.T @ P there (9.9 ms against 20.5 ms)
            weights = P if self.batch.labels is None else self.batch.labels * P
            return (weights.T @ self.batch.X).T
        product = self.batch.X.T @ (P if self.batch.labels is None else self.batch.labels * P)
        return product if not self.batch.backend.is_numpy else np.asarray(product)


def one_vs_rest(X, Y) -> BatchedMatrix:
    """The K one-vs-rest games of ``X`` (n, d) and labels ``Y`` (n, K) in {-1, +1}: A_k = diag(Y[:, k]) X.

    >>> import numpy as np
    >>> from gamedyn import recipes
    >>> from gamedyn.io.datasets import signed_rows
    >>> rng = np.random.default_rng(0)
    >>> X, Y = rng.normal(size=(40, 3)), np.sign(rng.normal(size=(40, 2)))
    >>> X = X / np.max(np.linalg.norm(X, axis=1))  # rows of norm <= 1, as the recipes require
    >>> batch = recipes.nag_margin(one_vs_rest(X, Y), 20)
    >>> alone = recipes.nag_margin(signed_rows(X, Y[:, 1]), 20)
    >>> bool(np.allclose(batch.w[:, 1], alone.w, rtol=1e-12, atol=0))
    True
    """
    return BatchedMatrix(X, labels=Y)


def shared_matrix(A, K) -> BatchedMatrix:
    """K games on the same matrix A (a sweep: give the learners K step sizes, ``eta=np.array([...])``)."""
    return BatchedMatrix(A, size=K)
