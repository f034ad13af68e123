"""Stable numerical primitives shared by learners, originals and the logistic module.

The vector kernels (BLAS level 1) are :mod:`gamedyn.core.kernels`.
"""

from __future__ import annotations

import math

import numpy as np

from gamedyn.core.kernels import dot, is_foreign, is_numpy, namespace_of

_FLOAT64 = np.dtype(np.float64)


def log_sum_exp(x) -> float:
    """``log(sum(exp(x)))``, shifted by ``max(x)`` so it never overflows."""
    x = np.asarray(x, dtype=np.float64)
    top = np.max(x)
    if not np.isfinite(top):
        return float(top)
    return float(top + np.log(np.sum(np.exp(x - top))))


def softmin(z, scale: float = 1.0):
    """The paper's softmax convention sigma(scale * z)_i = exp(-scale z_i) / sum_j exp(-scale z_j).

    Computed stably by subtracting ``min_j z_j`` (spec section 1). It is the entropy argmin
    ``argmin_{p in simplex} scale <z, p> + KL(p || uniform)``.
    """
    z = np.asarray(z)
    if z.dtype not in (np.float32, np.float64):
        z = z.astype(np.float64)
    logits = -scale * (z - np.min(z))
    weights = np.exp(logits)
    return weights / np.sum(weights)


def softmax_logits(logits):
    """``exp(logits) / sum(exp(logits))`` along axis 0 with the max subtracted; ``-inf`` entries give 0.

    A trailing axis holds independent batched games (one softmax per column).
    """
    logits = np.asarray(logits)
    return softmax_in_place(logits - logits.max(axis=0), shifted=True)


def softmax_in_place(logits, *, shifted: bool = False):
    """:func:`softmax_logits` computed in the caller's own float array ``logits`` (overwritten)."""
    if not shifted:
        logits -= logits.max(axis=0)
    np.exp(logits, out=logits)
    logits /= logits.sum(axis=0)
    return logits


def pnorm_link(theta, p: float):
    """The p-norm link function f_p(theta) = grad (1/2)||theta||_p^2 (spec section 8).

    ``f_p(theta) = sign(theta) |theta|^(p-1) ||theta||_p^(2-p)``; it is 1-homogeneous with
    ``f_p(0) = 0``. The inverse of f_p is f_q with 1/p + 1/q = 1. Computed on theta / max|theta|
    so that large exponents p - 1 neither overflow nor underflow.
    """
    if is_foreign(theta):
        return _foreign_pnorm_link(theta, p)
    theta = np.asarray(theta, dtype=np.float64)
    if theta.ndim > 1:  # batched games: one link per column
        return np.stack([pnorm_link(column, p) for column in np.moveaxis(theta, -1, 0)], axis=-1)
    scale = np.max(np.abs(theta)) if theta.size else 0.0
    if scale == 0.0:
        return np.zeros_like(theta)
    unit = theta / scale
    norm = np.linalg.norm(unit, ord=p)
    return scale * np.sign(unit) * np.abs(unit) ** (p - 1.0) * norm ** (2.0 - p)


def _foreign_pnorm_link(theta, p: float):
    """:func:`pnorm_link` in theta's namespace, on its device (the same formula; 0 at theta = 0, by ``where``)."""
    xp = namespace_of(theta)
    scale = xp.max(xp.abs(theta), axis=0)
    safe = xp.where(scale > 0, scale, xp.ones_like(scale))
    unit = theta / safe
    magnitude = xp.abs(unit)
    norm = xp.sum(magnitude ** p, axis=0) ** (1.0 / p)
    link = scale * xp.sign(unit) * magnitude ** (p - 1.0) * norm ** (2.0 - p)
    return xp.where(scale > 0, link, xp.zeros_like(theta))


class NumericalRangeError(FloatingPointError):
    """A quantity left float64's range (overflowed to +-inf or became NaN) where no exact rescaling exists.

    Raised instead of returning a silently wrong value; the message names the quantity, its
    magnitude and a fix (usually: rescale the payoff and the learners' steps).
    """


def out_of_range(where: str, what: str, magnitude) -> NumericalRangeError:
    """The :class:`NumericalRangeError` for ``what`` (at ``where``) of ``magnitude``: an overflow, or a NaN passed in."""
    rescale = ("Rescale the game: divide the payoff by s (e.g. Bilinear(A / s)) and multiply each learner's "
               "eta by s, or use smaller weights alpha_t.")
    if np.isnan(magnitude):  # an overflow makes a NaN only through inf (inf - inf); a user's function directly
        return NumericalRangeError(
            f"{where}: {what} is NaN. Either an earlier step overflowed float64 (to inf, then inf - inf); then: "
            f"{rescale} Or a NaN came in from a function you passed (the payoff's losses, an objective, a "
            f"learner's play, a hint): check it for 0/0, inf - inf, log or sqrt of a negative number."
        )
    return NumericalRangeError(
        f"{where}: {what} is not finite (magnitude {magnitude!r}): an earlier step overflowed float64. {rescale}"
    )


# Below this magnitude squares cannot overflow or lose precision to underflow.
SAFE_LOW, SAFE_HIGH = 1e-150, 1e150


def scaled_norm(z) -> tuple[float, float]:
    """``(scale, unit_norm)`` with ``||z||_2 = scale * unit_norm``, safe from overflow and underflow.

    In the common range the scale is 1 and the norm is ``sqrt(z @ z)``; outside it the vector is
    divided by ``scale = max|z_i|`` first (so ``1 <= unit_norm <= sqrt(d)``), as in LAPACK's
    ``dnrm2``. ``scale`` is NaN or inf when ``z`` holds one; ``(0, 0)`` for the zero vector.
    """
    if not is_numpy(z) or z.dtype is not _FLOAT64:
        z = np.asarray(z, dtype=np.float64)
    if not z.size:
        return 0.0, 0.0
    square = dot(z, z) if z.ndim == 1 else float(np.sum(z * z))
    if 1e-290 < square < 1e290:  # then SAFE_LOW < max|z_i| < SAFE_HIGH (d < 1e10): one dot product
        return 1.0, math.sqrt(square)
    top = float(np.abs(z).max())
    if SAFE_LOW < top < SAFE_HIGH:
        return 1.0, math.sqrt(dot(z, z) if z.ndim == 1 else float(np.sum(z * z)))
    if top == 0.0 or not math.isfinite(top):
        return top, (0.0 if top == 0.0 else top)
    unit = z / top
    return top, math.sqrt(dot(unit, unit) if unit.ndim == 1 else float(np.sum(unit * unit)))


def euclidean_norm(z) -> float:
    """``||z||_2`` without spurious overflow or underflow (inf only when the norm exceeds float64)."""
    scale, unit_norm = scaled_norm(z)
    return scale * unit_norm  # Python floats: an overflow gives inf, without a warning


def safe_norm(z, order: float = 2.0) -> float:
    """``||z||_order`` computed on ``z / max|z|``: no overflow or underflow at any scale (no checks)."""
    z = np.asarray(z, dtype=np.float64)
    scale = float(np.max(np.abs(z))) if z.size else 0.0
    if scale == 0.0 or not math.isfinite(scale):
        return scale
    unit = z / scale
    if order == 2.0:
        return scale * math.sqrt(dot(unit, unit))
    return scale * float(np.sum(np.abs(unit) ** order) ** (1.0 / order))


# ------------------------------------------------------------------------- rounding-error bounds

UNIT64 = 2.0 ** -53  # unit roundoff of float64
UNIT32 = 2.0 ** -24  # unit roundoff of float32
TINY = 2.0 ** -1070  # an absolute allowance for underflow in a sum of products (2^-1075 each)


def rounding_factor(k: int, unit: float = UNIT64) -> float:
    """Higham's ``gamma_k = k u / (1 - k u)``: a sum of k products is within gamma_k times the sum of
    the absolute values of its terms of the exact sum, in any order (Higham, Thm 3.1), FMA or not."""
    return k * unit / (1.0 - k * unit)
