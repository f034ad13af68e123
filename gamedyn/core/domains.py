r"""Domains: the sets a player plays on (R^d, a ball, the simplex, the capped simplex, an l1 ball, a box).

Each domain offers ``contains``, ``default_centre``, ``project``, ``linear_minimizer`` (the linear
minimisation oracle) and ``minimize_quadratic`` (argmin of <linear, z> + (c/2)||z||^2 over the
set), exact at every finite magnitude. The regularizers of :mod:`gamedyn.core.regularizers` live on
these domains.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, ClassVar

import attrs
import numpy as np

from gamedyn.core import capped_simplex
from gamedyn.core.kernels import asum, is_foreign, is_numpy, namespace_of, to_host_scalar
from gamedyn.core.numerics import SAFE_HIGH, SAFE_LOW, euclidean_norm, out_of_range, scaled_norm
from gamedyn.core.protocols import declared
from gamedyn.core.validation import check_positive

# x.max(axis) / x.min(axis) / x.sum(axis) as the ufuncs' own reductions, without the Python method wrappers
_maximum, _minimum, _add = np.maximum.reduce, np.minimum.reduce, np.add.reduce
_FLOAT64 = np.dtype(np.float64)
# BLAS level 1 (about 0.2 us a call at n = 100, a numpy ufunc about 1 us), never threaded
# (gamedyn.core.kernels): asum, sum |x_i| (finiteness checks only: its rounding depends on alignment),
# dot, x . y, and scal, x *= a in place.

def _foreign_minimize_quadratic(linear, curvature):
    """:meth:`Reals.minimize_quadratic` on the device: ``-linear / curvature`` without a host check per round
    (an overflow gives inf, which the result's final check reports); None when unbounded below."""
    if curvature > 0:
        return linear / -curvature
    xp = namespace_of(linear)
    return None if to_host_scalar(xp.any(linear != 0)) else xp.zeros_like(linear)


def _all_finite_any(z) -> bool:
    """Every entry finite, for an array of any namespace (one host synchronisation for a foreign one)."""
    if is_foreign(z):
        xp = namespace_of(z)
        return bool(to_host_scalar(xp.all(xp.isfinite(z))))
    return bool(np.all(np.isfinite(z)))


@attrs.frozen
class Reals:
    """The whole space R^d."""

    exact_oracles = True  # project / linear_minimizer / minimize_quadratic return points of the set

    def contains(self, z, tolerance: float = 1e-9) -> bool:
        return _all_finite_any(z)

    def default_centre(self, dimension: int):
        return np.zeros(dimension)

    def project(self, z):
        return z

    def linear_minimizer(self, linear):
        """argmin over R^d of <linear, z>: None (unbounded below) unless linear = 0."""
        return self.minimize_quadratic(linear, 0.0)

    def minimize_quadratic(self, linear, curvature: float):
        """argmin_z <linear, z> + (curvature/2)||z||^2 over R^d, or None when unbounded below.

        Raises :class:`NumericalRangeError` when the minimiser ``-linear / curvature`` lies beyond
        float64's range.
        """
        if not is_numpy(linear) or linear.dtype is not _FLOAT64:
            if is_foreign(linear):
                return _foreign_minimize_quadratic(linear, curvature)
            linear = np.asarray(linear, dtype=np.float64)
        if curvature >= 1.0:  # |linear / curvature| <= |linear|: the division cannot overflow
            point = np.divide(linear, -curvature)  # == -linear / curvature bit for bit, in one pass
            # One reduction checks every entry: the sum of |z_i| is finite only if each one is (NaN
            # and inf propagate); a sum of finite entries overflows only near 1.8e308, where the
            # careful check below decides.
            if math.isfinite(asum(point) if point.ndim == 1 and point.size else _add(point, axis=None)):
                return point
        if curvature > 0:
            # max |x_i| from two reductions (no |x| array, no method wrappers); NaN propagates through both.
            if linear.size:
                high, low = float(_maximum(linear, axis=None)), float(_minimum(linear, axis=None))
                top = high if high >= -low else -low
            else:
                top = 0.0
            if not top / float(curvature) < np.inf:  # NaN, or beyond float64
                raise out_of_range("Reals.minimize_quadratic", "-linear / curvature", top / float(curvature))
            return np.divide(linear, -curvature)
        return None if np.any(linear != 0) else np.zeros_like(linear)


@attrs.frozen
class Ball:
    """The Euclidean ball {z : ||z||_2 <= radius}.

    Norms are taken on ``z / max|z_i|`` outside the safe range (:func:`scaled_norm`), so the
    projection and the closed-form minimisers are exact for every finite input, 1e-320 to 1e308.

    Parameters
    ----------
    radius : float, default 1.0
        r > 0.
    """

    exact_oracles = True  # project / linear_minimizer / minimize_quadratic return points of the set
    # minimize_quadratic on a device array (defined below the class: _ball_foreign_minimize_quadratic)
    _foreign_minimize_quadratic: ClassVar[Callable[..., Any]]

    radius: float = attrs.field(default=1.0, converter=float)

    def __attrs_post_init__(self):
        check_positive(self.radius, "radius")

    def contains(self, z, tolerance: float = 1e-9) -> bool:
        if is_foreign(z):
            xp = namespace_of(z)
            return bool(to_host_scalar(xp.sqrt(xp.sum(z * z))) <= self.radius * (1 + tolerance))
        return bool(euclidean_norm(z) <= self.radius * (1 + tolerance))

    def default_centre(self, dimension: int):
        return np.zeros(dimension)

    def _onto_sphere(self, z, scale: float, unit_norm: float, where: str):
        """radius * z / ||z|| with ||z|| = scale * unit_norm, without overflow or subnormal factors."""
        if not np.isfinite(scale):
            raise out_of_range(where, "the point", scale)
        factor = self.radius / (scale * unit_norm)
        if SAFE_LOW < factor < SAFE_HIGH:  # one multiplication, no precision lost
            return z * factor
        return (z / scale / unit_norm) * self.radius  # the unit vector first, then its length

    def project(self, z):
        """Euclidean projection onto the ball: z if ||z|| <= radius, else radius z / ||z||."""
        if not is_numpy(z) or z.dtype is not _FLOAT64:
            if is_foreign(z):  # on the device: radius z / ||z|| where ||z|| > radius, no host synchronisation
                xp = namespace_of(z)
                norm = xp.sqrt(xp.sum(z * z))
                return z * xp.where(norm > self.radius, self.radius / norm, xp.ones_like(norm))
            z = np.asarray(z, dtype=np.float64)
        scale, unit_norm = scaled_norm(z)
        if scale == 0.0 or unit_norm <= self.radius / scale:
            return z
        return self._onto_sphere(z, scale, unit_norm, "Ball.project")

    def linear_minimizer(self, linear):
        """argmin over the ball of <linear, z>: -radius linear / ||linear|| (0 for linear = 0), the LMO."""
        return self.minimize_quadratic(linear, 0.0)

    def minimize_quadratic(self, linear, curvature: float):
        """argmin over the ball of <linear, z> + (curvature/2)||z||^2 (closed form).

        ``-linear / curvature`` when it lies in the ball, else ``-radius linear / ||linear||``
        (also the answer for ``curvature == 0``, and 0 when ``linear == 0``).
        """
        if is_foreign(linear):
            return self._foreign_minimize_quadratic(linear, curvature)
        linear = np.asarray(linear, dtype=np.float64)
        scale, unit_norm = scaled_norm(linear)
        if scale == 0.0:
            return np.zeros_like(linear)
        if curvature > 0 and unit_norm * (scale / float(curvature)) <= self.radius:
            return -linear / curvature
        return -self._onto_sphere(linear, scale, unit_norm, "Ball.minimize_quadratic")


def _ball_foreign_minimize_quadratic(self, linear, curvature: float):
    """:meth:`Ball.minimize_quadratic` on the device (the same closed form, chosen by ``where``)."""
    xp = namespace_of(linear)
    norm = xp.sqrt(xp.sum(linear * linear))
    safe = xp.where(norm > 0, norm, xp.ones_like(norm))
    on_sphere = linear * (-self.radius / safe)
    if curvature > 0:
        on_sphere = xp.where(norm / float(curvature) <= self.radius, linear / -curvature, on_sphere)
    return xp.where(norm > 0, on_sphere, xp.zeros_like(linear))


Ball._foreign_minimize_quadratic = _ball_foreign_minimize_quadratic


def _foreign_project_shifted(shifted):
    """:func:`_project_shifted` in the array's namespace, on its device (sort, cumulative sum, a count)."""
    xp = namespace_of(shifted)
    n = shifted.shape[0]
    ordered = xp.flip(xp.sort(shifted))
    cumulative = xp.cumulative_sum(ordered) - 1.0
    index = xp.arange(1, n + 1, dtype=shifted.dtype, device=_device_of(shifted))
    count = xp.sum(xp.astype(ordered * index > cumulative, xp.int64))  # the support: a prefix of the order
    rho = xp.reshape(count - 1, (1,))
    tau = xp.take(cumulative, rho) / xp.astype(count, shifted.dtype)
    projected = xp.maximum(shifted - tau, xp.zeros_like(shifted))
    return projected / xp.sum(projected)


def _device_of(x):
    from gamedyn.core.kernels import backend_of

    return backend_of(x).device


def _project_shifted(shifted):
    """Euclidean projection onto the simplex of a vector whose largest entry is 0 (sort-based, exact).

    The threshold tau lies in [-1, 0), so the sort's first entry (0) always qualifies (no empty
    support) and entries at or below -1, even -inf, only ever meet comparisons and max(., 0): no
    inf - inf can arise. The result is renormalised so that it sums to 1 within a few ulp.
    """
    ordered = np.sort(shifted)[::-1]
    cumulative = np.cumsum(ordered) - 1.0
    index = np.arange(1, shifted.size + 1)
    rho = np.flatnonzero(ordered * index > cumulative)[-1]
    projected = np.maximum(shifted - cumulative[rho] / (rho + 1), 0.0)
    total = projected.sum()
    return projected if total == 1.0 else projected / total


@attrs.frozen
class Simplex:
    """The probability simplex {p >= 0, sum p = 1}.

    It declares ``distributions = True`` (:func:`is_simplex`): Entropy's closed form and a
    :class:`gamedyn.Bilinear` p-player need that set, and a subclass that keeps its methods keeps it.
    """

    exact_oracles = True  # project / linear_minimizer / minimize_quadratic return points of the set
    distributions = True  # the set {p >= 0, sum p = 1} (no cap): is_simplex

    def contains(self, z, tolerance: float = 1e-9) -> bool:
        if is_foreign(z):
            xp = namespace_of(z)
            return bool(to_host_scalar(xp.all(z >= -tolerance))
                        and abs(to_host_scalar(xp.sum(z)) - 1.0) <= tolerance * max(1, z.shape[0]))
        z = np.asarray(z)
        return bool(np.all(z >= -tolerance) and abs(np.sum(z) - 1.0) <= tolerance * max(1, z.size))

    def default_centre(self, dimension: int):
        return np.full(dimension, 1.0 / dimension)

    @staticmethod
    def project(z):
        r"""Euclidean projection onto the simplex: :math:`\max(z-\tau,0)` with :math:`\sum=1`.

        Exact at any magnitude: the projection commutes with shifts along (1, ..., 1), so ``z`` is
        shifted by its maximum first (then tau lies in [-1, 0)); finite inputs up to 1.8e308 give
        a point with entries >= 0 summing to 1 within a few ulp. NaN or +inf entries raise
        :class:`NumericalRangeError`.
        """
        if is_foreign(z):
            return _foreign_project_shifted(z - namespace_of(z).max(z))
        z = np.asarray(z, dtype=np.float64)
        top = float(z.max())
        if not math.isfinite(top):
            raise out_of_range("Simplex.project", "the largest entry", top)
        if top - float(z.min()) <= _SPAN_LIMIT:
            return _project_shifted(z - top)
        with np.errstate(over="ignore"):  # entries below top - 1.8e308 become -inf: never in the support
            return _project_shifted(z - top)

    def linear_minimizer(self, linear):
        """argmin over the simplex of <linear, z>: the vertex of the smallest entry (the LMO)."""
        return self.minimize_quadratic(linear, 0.0)

    def vertex_index(self, linear) -> int:
        r"""The index i of the vertex :math:`e_i` that :meth:`linear_minimizer` returns, without forming it.

        The first smallest entry of a 1-D float64 ``linear`` (ties go to the smallest index), with
        the same refusals as :meth:`minimize_quadratic` (NaN, every entry +inf, or more than one
        entry -inf). A learner whose play is this vertex declares it
        (:attr:`gamedyn.FollowTheRegularizedLeader.plays_vertices`), and the round then hands the
        opponent the loss of the vertex as a row or column read of the payoff matrix
        (:meth:`gamedyn.Bilinear.vertex_losses`) instead of a matrix-vector product.

        Parameters
        ----------
        linear : numpy.ndarray of shape (n,)
            The linear loss.

        Returns
        -------
        int
            i with :math:`e_i=\arg\min_{z\in\Delta}\langle\mathrm{linear},z\rangle`.

        Raises
        ------
        NumericalRangeError
            ``linear`` holds NaN, is +inf everywhere, or -inf at more than one entry.

        Examples
        --------
        >>> Simplex().vertex_index(np.array([0.5, -1.0, -1.0]))
        1
        """
        index = int(linear.argmin())  # the first NaN if there is one, else the first smallest entry
        bottom = float(linear[index])
        if not bottom > -np.inf or bottom == np.inf:  # NaN, every entry +inf, or an entry -inf
            if not (bottom == -np.inf and np.count_nonzero(linear == -np.inf) == 1):
                raise out_of_range("Simplex.minimize_quadratic", "the loss's smallest entry", bottom)
        return index

    def minimize_quadratic(self, linear, curvature: float):
        """argmin over the simplex of <linear, z> + (curvature/2)||z||^2.

        With ``curvature > 0`` the projection of ``-linear / curvature``, computed as that of
        ``-(linear - min linear) / curvature`` (the same point, no overflow). With
        ``curvature == 0`` this is the best response: the vertex of the smallest entry of
        ``linear`` (ties go to the smallest index).
        """
        if is_foreign(linear):
            xp = namespace_of(linear)
            if curvature > 0:
                return _foreign_project_shifted(-((linear - xp.min(linear)) / float(curvature)))
            index = xp.arange(linear.shape[0], device=_device_of(linear))
            return xp.astype(index == xp.argmin(linear), linear.dtype)  # the first smallest entry's vertex
        linear = np.asarray(linear, dtype=np.float64)
        if linear.ndim == 1:
            index = int(linear.argmin())  # the first NaN if there is one, else the first smallest entry
            bottom = float(linear[index])  # = linear.min(), NaN included, without a second pass
        else:
            index, bottom = None, float(linear.min())
        if not bottom > -np.inf or bottom == np.inf:  # NaN, every entry +inf, or an entry -inf
            # One entry overflowed to -inf with a linear loss: its vertex is still the exact minimiser.
            exact = bottom == -np.inf and not curvature > 0 and np.count_nonzero(linear == -np.inf) == 1
            if not exact:
                raise out_of_range("Simplex.minimize_quadratic", "the loss's smallest entry", bottom)
        if curvature > 0:
            with np.errstate(over="ignore"):  # an overflow to -inf means "far below -1": not in the support
                return _project_shifted(-((linear - bottom) / float(curvature)))
        vertex = np.zeros(linear.shape)
        vertex[int(np.argmin(linear)) if index is None else index] = 1.0
        return vertex


_SPAN_LIMIT = 1.0e308


def _project_onto_l1_ball(z, radius: float):
    r"""Euclidean projection of a finite z onto {||z||_1 <= radius} (Duchi et al. 2008, Fig. 1), exact at any magnitude.

    Inside the ball (the float sum of |z_i| at most ``radius``) z itself. Outside, the projection
    is :math:`\mathrm{sign}(z)\max(|z|-\lambda,0)` with :math:`\lambda>0` fixed by
    :math:`\sum_i\max(|z_i|-\lambda,0)=r`, i.e. ``sign(z)`` times the projection of ``|z|`` onto the
    simplex scaled by r. That projection commutes with shifts along (1, ..., 1), so it is computed
    as ``r`` times the unit-simplex projection of ``(|z| - max|z|) / r`` (:func:`_project_shifted`):
    the entries that can be in the support lie in [-1, 0] whatever the magnitudes of z and r, and
    no ``cumsum - r`` of numbers far larger than r loses r (the old form's IndexError at
    ``[1e16, 0]`` and its ||p||_1 = 2 on near-ties at 1e16).
    """
    magnitude = np.abs(z)
    with np.errstate(over="ignore"):  # a sum beyond float64 is inf: outside the ball
        total = float(_add(magnitude, axis=None)) if magnitude.size else 0.0
    if total <= radius:
        return z
    return np.sign(z) * _onto_scaled_simplex(magnitude, 1.0, radius)


def _onto_scaled_simplex(magnitude, divisor: float, radius: float):
    """The projection of ``magnitude / divisor`` (entries >= 0, outside the l1 ball) onto {x >= 0, sum x = radius}.

    Formed from ``((magnitude - max) / divisor) / radius`` without dividing ``magnitude`` itself, so
    neither a huge quotient nor a tiny radius overflows: entries that overflow to -inf lie far below
    the threshold and only meet comparisons (see :func:`_project_shifted`).
    """
    top = float(_maximum(magnitude, axis=None))
    with np.errstate(over="ignore", under="ignore"):
        shifted = magnitude - top
        if divisor != 1.0:
            shifted /= divisor
        shifted /= radius
        return _project_shifted(shifted) * radius


@attrs.frozen
class L1Ball:
    r"""The l1 ball {z : ||z||_1 <= radius}; centre 0.

    Linear minimisation oracle :meth:`linear_minimizer`: :math:`-r\,\mathrm{sign}(g_i)e_i` at
    :math:`i=\arg\max_j|g_j|` (smallest index on ties; 0 for g = 0). Euclidean projection by the
    sort-based threshold of Duchi et al. (2008).

    Parameters
    ----------
    radius : float, default 1.0
        r > 0.
    """

    exact_oracles = True  # project / linear_minimizer / minimize_quadratic return points of the set

    radius: float = attrs.field(default=1.0, converter=float)

    def __attrs_post_init__(self):
        check_positive(self.radius, "radius")

    def contains(self, z, tolerance: float = 1e-9) -> bool:
        z = np.asarray(z, dtype=np.float64)
        return bool(np.all(np.isfinite(z)) and float(np.abs(z).sum()) <= self.radius * (1 + tolerance))

    def default_centre(self, dimension: int):
        return np.zeros(dimension)

    def project(self, z):
        """Euclidean projection onto the l1 ball, exact at every finite magnitude (see :func:`_project_onto_l1_ball`).

        The result has ||p||_1 <= radius (1 + (n + 6) eps); NaN or infinite entries raise
        :class:`NumericalRangeError`.
        """
        z = np.asarray(z, dtype=np.float64)
        if not np.all(np.isfinite(z)):
            raise out_of_range("L1Ball.project", "the point", float(np.max(np.abs(z))))
        return _project_onto_l1_ball(z, self.radius)

    def linear_minimizer(self, linear):
        """argmin over the l1 ball of <linear, z>: a signed vertex (the LMO).

        Raises :class:`NumericalRangeError` when ``linear`` holds NaN or an infinite entry.
        """
        linear = np.asarray(linear, dtype=np.float64)
        vertex = np.zeros_like(linear)
        if not linear.size:
            return vertex
        index = int(np.argmax(np.abs(linear)))  # the first NaN, if any: argmax propagates it
        top = float(linear.flat[index])
        if not math.isfinite(top):
            raise out_of_range("L1Ball.linear_minimizer", "the linear loss", top)
        if top != 0:
            vertex.flat[index] = -self.radius if top > 0 else self.radius
        return vertex

    def minimize_quadratic(self, linear, curvature: float):
        """argmin over the ball of <linear, z> + (curvature/2)||z||^2: the projection of -linear/c, or the LMO.

        ``-linear / c`` itself when it lies in the ball; otherwise its projection, formed from
        ``linear`` without the quotient (:func:`_onto_scaled_simplex`: the differences of near-tied
        entries are taken before the division, exactly, and a quotient beyond float64 is no
        obstacle). Raises :class:`NumericalRangeError` when ``linear`` holds NaN or inf.
        """
        if not curvature > 0:
            return self.linear_minimizer(linear)
        linear = np.asarray(linear, dtype=np.float64)
        if not np.all(np.isfinite(linear)):
            raise out_of_range("L1Ball.minimize_quadratic", "the linear loss", float(np.max(np.abs(linear))))
        with np.errstate(over="ignore", under="ignore"):
            point = -linear / curvature
            total = float(_add(np.abs(point), axis=None)) if point.size else 0.0  # inf beyond float64
        if total <= self.radius:
            return point
        return -np.sign(linear) * _onto_scaled_simplex(np.abs(linear), float(curvature), self.radius)


def _as_bound(value, name: str):
    array = np.atleast_1d(np.asarray(value, dtype=np.float64))
    if array.ndim != 1 or array.size == 0 or not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be a non-empty 1-D array of finite numbers, got {value!r}.")
    array.setflags(write=False)
    return array


@attrs.frozen(eq=False)
class Box:
    r"""The box {z : lower <= z <= upper} (coordinate-wise); centre (lower + upper) / 2.

    Linear minimisation oracle :meth:`linear_minimizer`: :math:`z_i=\mathrm{lower}_i` where
    :math:`g_i>0`, :math:`\mathrm{upper}_i` where :math:`g_i<0`, the midpoint where :math:`g_i=0`.
    Projection: clipping.

    Parameters
    ----------
    lower, upper : array_like
        The bounds, of one length, ``lower <= upper`` in every coordinate (finite).
    """

    exact_oracles = True  # project / linear_minimizer / minimize_quadratic return points of the set

    lower: np.ndarray = attrs.field(converter=lambda value: _as_bound(value, "lower"))
    upper: np.ndarray = attrs.field(converter=lambda value: _as_bound(value, "upper"))

    def __attrs_post_init__(self):
        if self.lower.shape != self.upper.shape:
            raise ValueError(f"lower and upper must have the same length, got {self.lower.size} and {self.upper.size}.")
        if np.any(self.lower > self.upper):
            raise ValueError("lower must be <= upper in every coordinate; swap the offending bounds.")

    def __eq__(self, other):
        if not isinstance(other, Box):
            return NotImplemented
        return bool(np.array_equal(self.lower, other.lower) and np.array_equal(self.upper, other.upper))

    __hash__ = None  # type: ignore[assignment]  # unhashable (array bounds); typeshed writes it so too

    @property
    def dimension(self) -> int:
        """The number of coordinates, the bounds' length."""
        return self.lower.size

    def _check_dimension(self, dimension: int):
        if dimension != self.lower.size:
            raise ValueError(f"Box has {self.lower.size} coordinates but the player has dimension {dimension}; "
                             f"give Box bounds of length {dimension}.")

    def contains(self, z, tolerance: float = 1e-9) -> bool:
        z = np.asarray(z, dtype=np.float64)
        if z.shape != self.lower.shape:
            return False
        slack = tolerance * np.maximum(1.0, np.maximum(np.abs(self.lower), np.abs(self.upper)))
        return bool(np.all(z >= self.lower - slack) and np.all(z <= self.upper + slack))

    def default_centre(self, dimension: int):
        self._check_dimension(dimension)
        return 0.5 * self.lower + 0.5 * self.upper

    def project(self, z):
        return np.clip(np.asarray(z, dtype=np.float64), self.lower, self.upper)

    def linear_minimizer(self, linear):
        """argmin over the box of <linear, z>: lower where linear > 0, upper where < 0, midpoint at 0."""
        linear = np.asarray(linear, dtype=np.float64)
        self._check_dimension(linear.size)
        return np.where(linear > 0, self.lower, np.where(linear < 0, self.upper, 0.5 * self.lower + 0.5 * self.upper))

    def minimize_quadratic(self, linear, curvature: float):
        """argmin over the box of <linear, z> + (curvature/2)||z||^2: clip(-linear/c), or the LMO."""
        if curvature > 0:
            return self.project(-np.asarray(linear, dtype=np.float64) / curvature)
        return self.linear_minimizer(linear)


@attrs.frozen
class CappedSimplex:
    r"""The capped simplex :math:`\Delta_c=\{p\in\Delta_n: p_i\le c\}`, the p-player's domain of the soft-margin game.

    With ``c = 1 / (nu n)`` the game :math:`\max_w\min_{p\in\Delta_c}p^\top Aw-\|w\|^2/2` is the
    reduced-convex-hull form of the nu-SVM (Crisp & Burges 2000; Bennett & Bredensteiner 2000):
    :math:`\min_{p\in\Delta_c}\|A^\top p\|` is the distance from 0 to the reduced convex hull of the
    rows, and :math:`\min_{p\in\Delta_c}p^\top z` the average of the :math:`1/c` smallest entries of z
    (a CVaR, the fractional one counted in part). ``CappedSimplex(1.0)`` is the plain simplex.
    The closed forms live in :mod:`gamedyn.core.capped_simplex`, each exact at any magnitude.

    Parameters
    ----------
    cap : float in (0, 1]
        The cap ``c``; a point needs ``n >= 1/c`` coordinates (checked where ``n`` is known).

    Raises
    ------
    TypeError, ValueError
        If ``cap`` is not a real number in (0, 1].

    Examples
    --------
    >>> domain = CappedSimplex(0.5)
    >>> domain.project([3.0, 1.0, 0.0]).tolist(), domain.linear_minimizer([3.0, 1.0, 0.0]).tolist()
    ([0.5, 0.5, 0.0], [0.0, 0.5, 0.5])
    >>> CappedSimplex.from_nu(0.1, 100)
    CappedSimplex(cap=0.1)
    """

    cap: float = attrs.field(converter=capped_simplex.check_cap)
    exact_oracles = True  # project / linear_minimizer / minimize_quadratic return points of the set
    distributions = True  # a set of distributions, capped at its declared ``cap``: is_simplex, simplex_cap

    @classmethod
    def from_nu(cls, nu, n: int) -> CappedSimplex:
        """``CappedSimplex(cap_from_nu(nu, n))``: ``c = 1/(nu n)``, rounded up so that the set is never
        empty by rounding (:func:`gamedyn.core.capped_simplex.cap_from_nu`)."""
        return cls(capped_simplex.cap_from_nu(nu, n))

    def check_dimension(self, dimension: int, where: str = "CappedSimplex") -> None:
        """A clear ``ValueError`` when ``dimension * cap < 1`` (the set is empty)."""
        capped_simplex.check_size(int(dimension), self.cap, where)

    def contains(self, z, tolerance: float = 1e-9) -> bool:
        return capped_simplex.contains(z, self.cap, tolerance)

    def default_centre(self, dimension: int):
        """The uniform point ``u_n`` (in every non-empty capped simplex; entropy's minimiser)."""
        self.check_dimension(dimension, "CappedSimplex.default_centre")
        return capped_simplex.centre(dimension)

    def project(self, z):
        """Euclidean projection onto Delta_c: ``clip(z_i - tau, 0, c)`` summing to 1, exact at any magnitude."""
        return capped_simplex.project(z, self.cap)

    def linear_minimizer(self, linear):
        """argmin over Delta_c of ``<linear, z>`` (the LMO): ``c`` on the ``floor(1/c)`` smallest entries,
        the rest on the next one (ties: smallest index)."""
        return capped_simplex.linear_minimizer(linear, self.cap)

    def minimize_quadratic(self, linear, curvature: float):
        """argmin over Delta_c of ``<linear, z> + (curvature/2)||z||^2``: the projection of
        ``-linear / curvature`` (differences taken before the division), or the LMO at curvature 0."""
        if not curvature > 0:
            return self.linear_minimizer(linear)
        linear = np.asarray(linear, dtype=np.float64)
        return capped_simplex.project_scaled(-linear, float(curvature), self.cap)

    def cvar(self, z) -> float:
        """``min_{p in Delta_c} <z, p>``: the average of the ``1/c`` smallest entries, correctly rounded."""
        return capped_simplex.cvar(z, self.cap)

    def kl_range(self, n: int) -> float:
        """``D_c = max_{p in Delta_c} KL(p || u_n) = log(n c) + r log(r/c)``: replaces ``log n`` in the rates."""
        return capped_simplex.kl_range(n, self.cap)


def learner_example(domain) -> str:
    """Learners that play on ``domain``, for error messages that name the fix."""
    if isinstance(domain, Simplex):
        return "FTRL(Entropy(), eta) or OMD(SquaredEuclidean(domain=Simplex()), eta)"
    if isinstance(domain, CappedSimplex):
        return (f"FTRL(Entropy(domain={domain!r}), eta) or "
                f"OMD(SquaredEuclidean(domain={domain!r}), eta)")
    if isinstance(domain, Ball):
        return f"FTL(Ball({domain.radius!r})) or FTRL(SquaredEuclidean(radius={domain.radius!r}), eta)"
    if isinstance(domain, Reals):
        return "FTRL(SquaredEuclidean(), eta) or FTRL(QNorm(q), eta)"
    return f"a learner whose regularizer has domain = {domain!r}"


_SIMPLEX_METHODS = ("contains", "project", "minimize_quadratic", "linear_minimizer")


def is_simplex(domain) -> bool:
    """Whether ``domain`` declares it is a set of distributions, ``{p >= 0, sum p = 1}`` capped or not
    (``distributions = True``: :class:`Simplex`, :class:`CappedSimplex`, and a subclass that keeps their
    methods). Read by capability, never by class: a subclass keeps the closed forms."""
    return declared(domain, "distributions", _SIMPLEX_METHODS, False) is True


def simplex_cap(domain) -> float | None:
    """The cap c of a capped simplex (its declared ``cap``), None on the plain simplex (or any other domain)."""
    cap = getattr(domain, "cap", None) if is_simplex(domain) else None
    return None if cap is None else float(cap)
