r"""Built-in convex objectives for the Fenchel recipes (``gamedyn run frank_wolfe --problem ...``).

Each returns a :class:`gamedyn.Objective` with its smoothness :math:`L` (the accelerated recipes'
default step is :math:`1/(4L)`); :func:`synthetic_objective` draws the data from a seed.

* ``least-squares``: :math:`f(x)=\frac1{2n}\|Xx-b\|^2`, :math:`L=\lambda_{\max}(X^\top X)/n`;
* ``logistic``: :math:`f(x)=\frac1n\sum_i\log(1+e^{-b_ix_i^\top x})+\frac\lambda2\|x\|^2`,
  :math:`L=\lambda_{\max}(X^\top X)/(4n)+\lambda` (log-sum-exp, no overflow).
"""

from __future__ import annotations

import numpy as np

from gamedyn.core.kernels import backend_of, to_host_scalar, to_numpy
from gamedyn.core.validation import check_matrix, check_vector
from gamedyn.games.fenchel.game import Objective

__all__ = ["OBJECTIVES", "least_squares", "logistic_regression", "synthetic_objective"]


def least_squares(X, b) -> Objective:
    r""":math:`f(x)=\frac1{2n}\|Xx-b\|^2` on rows X (n x d) and targets b (n), with :math:`L=\|X\|_2^2/n`.

    >>> f = least_squares([[1.0, 0.0], [0.0, 2.0]], [1.0, 2.0])
    >>> f.value([1.0, 1.0]), f.smoothness
    (0.0, 2.0)
    """
    X = check_matrix(X, "X", allow_sparse=False, dtype=np.float64)
    backend = backend_of(X)  # a torch, JAX or array-API X: f and its gradient in its namespace, on its device
    b = np.asarray(b, dtype=np.float64) if backend.is_numpy else backend.asarray(check_vector(b, "b"))
    if tuple(b.shape) != (X.shape[0],):
        raise ValueError(f"b must have one target per row of X ({X.shape[0]}), got shape {tuple(b.shape)}.")
    n = X.shape[0]
    xp = backend.xp

    def value(x):
        residual = X @ x - b
        return 0.5 * to_host_scalar(xp.sum(residual * residual)) / n

    def gradient(x):
        return X.T @ (X @ x - b) / n

    return Objective(value, gradient, smoothness=_spectral_norm(X) ** 2 / n, dimension=X.shape[1], backend=backend)


def _spectral_norm(X) -> float:
    """||X||_2, the largest singular value (on a host copy for a foreign X: once, before the rounds; the boundary)."""
    return float(np.linalg.norm(np.asarray(to_numpy(X), dtype=np.float64), 2))


def logistic_regression(X, labels, ridge: float = 0.1) -> Objective:
    r""":math:`f(x)=\frac1n\sum_i\log(1+e^{-y_ix_i^\top x})+\frac{\lambda}2\|x\|^2` (``ridge`` = :math:`\lambda\ge0`).

    Labels in {-1, +1}; :math:`L=\|X\|_2^2/(4n)+\lambda`.
    """
    X = check_matrix(X, "X", allow_sparse=False, dtype=np.float64)
    backend = backend_of(X)  # a torch, JAX or array-API X: f and its gradient in its namespace, on its device
    host_labels = np.asarray(to_numpy(labels), dtype=np.float64)
    if host_labels.shape != (X.shape[0],) or not np.all(np.isin(host_labels, (-1.0, 1.0))):
        raise ValueError("labels must be -1 or +1, one per row of X.")
    if not ridge >= 0:
        raise ValueError(f"ridge must be >= 0, got {ridge!r}.")
    xp = backend.xp
    A = X * (host_labels[:, None] if backend.is_numpy else backend.asarray(host_labels)[:, None])
    n = A.shape[0]

    if backend.is_numpy:
        def value(x):
            return float(np.mean(np.logaddexp(0.0, -(A @ x)))) + 0.5 * ridge * float(x @ x)

        def gradient(x):
            weights = np.exp(-np.logaddexp(0.0, A @ x))  # 1 / (1 + e^{a x}), without overflow
            return -(A.T @ weights) / n + ridge * x
    else:
        def value(x):
            return to_host_scalar(xp.mean(xp.logaddexp(xp.zeros_like(A[:, 0]), -(A @ x)))) + 0.5 * ridge * to_host_scalar(
                xp.sum(x * x))

        def gradient(x):
            margins = A @ x
            weights = xp.exp(-xp.logaddexp(xp.zeros_like(margins), margins))  # 1 / (1 + e^{a x}), without overflow
            return -(A.T @ weights) / n + ridge * x

    return Objective(value, gradient, smoothness=_spectral_norm(A) ** 2 / (4 * n) + ridge, dimension=A.shape[1],
                     backend=backend)


OBJECTIVES = ("least-squares", "logistic")


def synthetic_objective(kind: str, n: int, d: int, seed: int = 0) -> tuple:
    """``(objective, description)``: a built-in objective on n x d Gaussian rows (scaled by 1/sqrt(d)).

    least-squares: b = X x* + 0.1 noise with x* uniform on [-1, 1]^d; logistic: labels sign(X x* + 0.5 noise),
    ridge 0.1.
    """
    if kind not in OBJECTIVES:
        raise ValueError(f"the objective must be one of {list(OBJECTIVES)}, got {kind!r}.")
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) / np.sqrt(d)
    truth = rng.uniform(-1.0, 1.0, d)
    if kind == "least-squares":
        b = X @ truth + 0.1 * rng.standard_normal(n)
        return least_squares(X, b), f"least squares 1/(2n) ||X x - b||^2 on n={n}, d={d} (seed {seed})"
    labels = np.where(X @ truth + 0.5 * rng.standard_normal(n) >= 0, 1.0, -1.0)
    return (logistic_regression(X, labels, 0.1),
            f"ridge logistic loss (ridge 0.1) on n={n}, d={d} (seed {seed})")
