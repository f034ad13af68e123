r"""Domains and regularizers: the geometry of an online learner.

A learner in the FTRL or mirror-descent family needs, from its regularizer :math:`R` on a domain
:math:`Z`, one operation above all (spec section 2):

.. math::

    \operatorname{argmin}(\theta, c, \eta, z_0)
      = \arg\min_{z\in Z}\ \eta\Big(\langle\theta, z\rangle + \tfrac{c}{2}\|z\|_2^2\Big) + D_R(z, z_0),

the minimiser of an accumulated "linear + quadratic" loss plus the Bregman divergence to a centre.
FTRL-type learners call it with the running loss sum and the fixed centre; mirror descent calls it
with one gradient and the previous secondary iterate as centre. ``eta`` multiplies the losses, the
convention of the paper's Section 3, so ``D_R / eta`` on unscaled losses is the same problem.

Each regularizer gives a closed form where one exists and falls back to
:func:`numerical_argmin` (scipy.optimize) elsewhere. A user adds a regularizer by subclassing
:class:`Regularizer` and implementing ``value``, ``mirror_map`` and ``inverse_mirror_map``; the
Bregman divergence and the numerical argmin then come for free.
"""

from __future__ import annotations

import math

import attrs
import numpy as np
import scipy.optimize

from gamedyn._numerics import (
    _SAFE_HIGH, _SAFE_LOW, NumericalRangeError, asum, dot, euclidean_norm, ones, pnorm_link, scal, scaled_norm,
    softmax_logits,
)
from gamedyn._validation import check_positive, check_q

# x.max(axis) / x.min(axis) / x.sum(axis) as the ufuncs' own reductions, without the Python method wrappers
_maximum, _minimum, _add = np.maximum.reduce, np.minimum.reduce, np.add.reduce
_FLOAT64 = np.dtype(np.float64)
# BLAS level 1 (about 0.2 us a call at n = 100, a numpy ufunc about 1 us), never threaded
# (gamedyn._numerics): asum, sum |x_i| (finiteness checks only: its rounding depends on alignment),
# dot, x . y, and scal, x *= a in place.

# --------------------------------------------------------------------------------------- domains


def _out_of_range(where: str, what: str, magnitude) -> NumericalRangeError:
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


@attrs.frozen
class Reals:
    """The whole space R^d."""

    def contains(self, z, tolerance: float = 1e-9) -> bool:
        return bool(np.all(np.isfinite(z)))

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
        if linear.__class__ is not np.ndarray or linear.dtype is not _FLOAT64:
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
                raise _out_of_range("Reals.minimize_quadratic", "-linear / curvature", top / float(curvature))
            return np.divide(linear, -curvature)
        return None if np.any(linear != 0) else np.zeros_like(linear)


@attrs.frozen
class Ball:
    """The Euclidean ball {z : ||z||_2 <= radius}.

    Norms are taken on ``z / max|z_i|`` outside the safe range (:func:`scaled_norm`), so the
    projection and the closed-form minimisers are exact for every finite input, 1e-320 to 1e308.
    """

    radius: float = attrs.field(default=1.0, converter=float)

    def __attrs_post_init__(self):
        check_positive(self.radius, "radius")

    def contains(self, z, tolerance: float = 1e-9) -> bool:
        return bool(euclidean_norm(z) <= self.radius * (1 + tolerance))

    def default_centre(self, dimension: int):
        return np.zeros(dimension)

    def _onto_sphere(self, z, scale: float, unit_norm: float, where: str):
        """radius * z / ||z|| with ||z|| = scale * unit_norm, without overflow or subnormal factors."""
        if not np.isfinite(scale):
            raise _out_of_range(where, "the point", scale)
        factor = self.radius / (scale * unit_norm)
        if _SAFE_LOW < factor < _SAFE_HIGH:  # one multiplication, no precision lost
            return z * factor
        return (z / scale / unit_norm) * self.radius  # the unit vector first, then its length

    def project(self, z):
        """Euclidean projection onto the ball: z if ||z|| <= radius, else radius z / ||z||."""
        if z.__class__ is not np.ndarray or z.dtype is not _FLOAT64:
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
        linear = np.asarray(linear, dtype=np.float64)
        scale, unit_norm = scaled_norm(linear)
        if scale == 0.0:
            return np.zeros_like(linear)
        if curvature > 0 and unit_norm * (scale / float(curvature)) <= self.radius:
            return -linear / curvature
        return -self._onto_sphere(linear, scale, unit_norm, "Ball.minimize_quadratic")


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
    """The probability simplex {p >= 0, sum p = 1}."""

    def contains(self, z, tolerance: float = 1e-9) -> bool:
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
        z = np.asarray(z, dtype=np.float64)
        top = float(z.max())
        if not math.isfinite(top):
            raise _out_of_range("Simplex.project", "the largest entry", top)
        if top - float(z.min()) <= _SPAN_LIMIT:
            return _project_shifted(z - top)
        with np.errstate(over="ignore"):  # entries below top - 1.8e308 become -inf: never in the support
            return _project_shifted(z - top)

    def linear_minimizer(self, linear):
        """argmin over the simplex of <linear, z>: the vertex of the smallest entry (the LMO)."""
        return self.minimize_quadratic(linear, 0.0)

    def minimize_quadratic(self, linear, curvature: float):
        """argmin over the simplex of <linear, z> + (curvature/2)||z||^2.

        With ``curvature > 0`` the projection of ``-linear / curvature``, computed as that of
        ``-(linear - min linear) / curvature`` (the same point, no overflow). With
        ``curvature == 0`` this is the best response: the vertex of the smallest entry of
        ``linear`` (ties go to the smallest index).
        """
        linear = np.asarray(linear, dtype=np.float64)
        bottom = float(linear.min())
        if not bottom > -np.inf or bottom == np.inf:  # NaN, every entry +inf, or an entry -inf
            # One entry overflowed to -inf with a linear loss: its vertex is still the exact minimiser.
            exact = bottom == -np.inf and not curvature > 0 and np.count_nonzero(linear == -np.inf) == 1
            if not exact:
                raise _out_of_range("Simplex.minimize_quadratic", "the loss's smallest entry", bottom)
        if curvature > 0:
            with np.errstate(over="ignore"):  # an overflow to -inf means "far below -1": not in the support
                return _project_shifted(-((linear - bottom) / float(curvature)))
        vertex = np.zeros_like(linear, dtype=np.float64)
        vertex[int(np.argmin(linear))] = 1.0
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
    """

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
            raise _out_of_range("L1Ball.project", "the point", float(np.max(np.abs(z))))
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
            raise _out_of_range("L1Ball.linear_minimizer", "the linear loss", top)
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
            raise _out_of_range("L1Ball.minimize_quadratic", "the linear loss", float(np.max(np.abs(linear))))
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
    """

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

    __hash__ = None

    @property
    def dimension(self) -> int:
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


# ---------------------------------------------------------------------------------- regularizers


class Regularizer:
    """The interface every regularizer implements.

    Subclasses set ``domain`` and implement ``value(z)`` (R(z)), ``mirror_map(z)`` (grad R) and
    ``inverse_mirror_map(theta)`` (grad R*, landing in the domain). ``argmin`` defaults to the
    numerical solver; override it with a closed form where one exists.
    """

    domain = Reals()
    legendre = True  # grad R blows up at the domain's boundary, so grad R* lands inside it
    # argmin acts column by column on (dim, K) arrays (batched games); unknown for user regularizers
    supports_batches = False

    def value(self, z) -> float:
        raise NotImplementedError

    def mirror_map(self, z):
        raise NotImplementedError

    def inverse_mirror_map(self, theta):
        raise NotImplementedError

    def bregman(self, z, centre) -> float:
        """D_R(z, centre) = R(z) - R(centre) - <grad R(centre), z - centre>."""
        return float(self.value(z) - self.value(centre) - np.dot(self.mirror_map(centre), z - centre))

    def argmin(self, linear, curvature: float, eta: float, centre):
        """argmin_z eta (<linear, z> + curvature/2 ||z||^2) + D_R(z, centre) over the domain."""
        return numerical_argmin(self, linear, curvature, eta, centre)

    def argmin_of_loss(self, loss, eta: float, centre):
        """argmin_z eta f(z) + D_R(z, centre) for a :class:`gamedyn.Loss` whose curvature multiplies
        its own convex function (``loss.convex``, e.g. a Fenchel conjugate). Only the zero
        regularizer has this in closed form (the loss's own oracle); others refuse it."""
        raise ValueError(
            f"{type(self).__name__} cannot minimise a loss whose curvature multiplies {loss.convex!r} "
            f"(no closed form for eta f + D_R); use a learner without regularizer for this player, "
            f"e.g. FTL(), OFTL() or BestResponse(domain)."
        )

    def centre_cache(self, centre):
        """What :meth:`argmin_with_cache` may reuse about a centre that never changes (default: nothing).

        FTRL learners compute it once, at ``init``; e.g. ``Entropy`` caches log z_0.
        """
        return None

    def argmin_with_cache(self, linear, curvature: float, eta: float, centre, cache):
        """:meth:`argmin` given ``cache = centre_cache(centre)``; the same point, computed faster."""
        return self.argmin(linear, curvature, eta, centre)

    def argmin_and_cache(self, linear, curvature: float, eta: float, centre, cache):
        """``(z, centre_cache(z))`` for z = :meth:`argmin_with_cache`: a mirror-descent step whose
        point is the next step's centre (default: the two calls; entropy gets both in one pass)."""
        point = self.argmin_with_cache(linear, curvature, eta, centre, cache)
        return point, self.centre_cache(point)


@attrs.frozen
class Entropy(Regularizer):
    r"""Negative entropy E(p) = sum_i p_i log p_i on the simplex; D_E(p, p0) = KL(p || p0).

    Closed form for linear losses (spec section 1, "softmax convention"):
    :math:`\arg\min_{p\in\Delta}\eta\langle\theta,p\rangle+\mathrm{KL}(p\|p_0)\propto p_0\odot e^{-\eta\theta}`,
    computed from logits ``log p0 - eta theta`` shifted by their maximum.
    """

    domain = Simplex()
    supports_batches = True

    def value(self, z) -> float:
        z = np.asarray(z, dtype=np.float64)
        positive = z > 0
        return float(np.sum(z[positive] * np.log(z[positive])))

    def mirror_map(self, z):
        with np.errstate(divide="ignore"):
            return np.log(np.asarray(z, dtype=np.float64)) + 1.0

    def inverse_mirror_map(self, theta):
        """The simplex point whose mirror image is theta up to a constant: softmax(theta)."""
        return softmax_logits(np.asarray(theta, dtype=np.float64))

    def bregman(self, z, centre) -> float:
        z, centre = np.asarray(z, dtype=np.float64), np.asarray(centre, dtype=np.float64)
        positive = z > 0
        return float(np.sum(z[positive] * (np.log(z[positive]) - np.log(centre[positive]))))

    def argmin(self, linear, curvature: float, eta: float, centre):
        return self.argmin_with_cache(np.asarray(linear), curvature, eta, centre, self.centre_cache(centre))

    def centre_cache(self, centre):
        """log z_0 up to an additive constant (``-inf`` at a zero entry), computed once per centre.

        A uniform centre (the default u_n) gives ``None``: a constant shift of the logits does not
        move the softmax, so the argmin adds nothing.
        """
        centre = np.asarray(centre, dtype=np.float64)
        if centre.size and centre.min() == centre.max() > 0:
            return None
        with np.errstate(divide="ignore"):
            return np.log(centre)

    def argmin_with_cache(self, linear, curvature: float, eta: float, centre, cache):
        """softmax(log z_0 - eta theta) along axis 0 (one per column for batched games)."""
        if curvature != 0:
            return numerical_argmin(self, linear, curvature, eta, centre)
        if cache is None and linear.ndim == 1 and linear.dtype is _FLOAT64 and eta.__class__ is float:
            # A uniform centre: logits -eta (theta - min theta), whose maximum is exactly 0, so the
            # exponentials lie in [0, 1] and sum to [1, n] (an entry +inf gives weight 0).
            bottom = linear[linear.argmin()]  # min theta (NaN if any entry is): a third of np.min's cost
            if not math.isfinite(bottom):  # NaN, or every entry infinite: the careful path decides
                return self._careful_argmin(linear, eta, centre)
            logits = linear - bottom
            scal(-eta, logits)
        else:
            logits = linear * -eta
            if cache is not None:
                logits += cache  # log z_0 - eta theta, in one new array
            top = logits[logits.argmax()] if logits.ndim == 1 else _maximum(logits, axis=0)  # NaN propagates
            if not (math.isfinite(top) if top.ndim == 0 else _all_finite(top)):  # overflow, NaN, or no weight left
                return self._careful_argmin(linear, eta, centre)
            logits -= top
        np.exp(logits, out=logits)
        if logits.ndim == 1 and logits.dtype is _FLOAT64:  # BLAS level 1: ~0.2 us a call, not ~1 us
            scal(1.0 / dot(logits, ones(logits.shape[0])), logits)  # the sum of the weights is in [1, n]
        else:
            logits /= _add(logits, axis=0)
        return logits

    def argmin_and_cache(self, linear, curvature: float, eta: float, centre, cache):
        """The step in the log domain: log z = log z_0 - eta theta - logsumexp(...), z = exp(log z)."""
        if curvature != 0:
            return super().argmin_and_cache(linear, curvature, eta, centre, cache)
        log_point = linear * -eta
        if cache is not None:
            log_point += cache
        top = log_point[log_point.argmax()] if log_point.ndim == 1 else _maximum(log_point, axis=0)  # NaN propagates
        if not _all_finite(top):
            point = self._careful_argmin(linear, eta, centre)
            return point, self.centre_cache(point)
        log_point -= top
        if log_point.ndim == 1 and log_point.dtype is _FLOAT64:
            log_point -= math.log(dot(np.exp(log_point), ones(log_point.shape[0])))  # the sum is in [1, n]
        else:
            log_point -= np.log(_add(np.exp(log_point), axis=0))
        return np.exp(log_point), log_point

    def _careful_argmin(self, linear, eta, centre):
        """The closed form at any magnitude (column by column for batched games).

        Taken only when the fast logits ``log z_0 - eta theta`` overflow or vanish: the logits are
        shifted by eta * min(theta) first (softmax is shift-invariant), so eta * (theta - min) >= 0
        cannot overflow except to +inf where the true weight is 0.
        """
        linear = np.asarray(linear, dtype=np.float64)
        if linear.ndim > 1:
            centre = np.broadcast_to(centre, linear.shape)
            etas = np.broadcast_to(eta, linear.shape[1:])
            return np.stack([self._careful_argmin(linear[:, k], float(etas[k]), centre[:, k])
                             for k in range(linear.shape[1])], axis=1)
        bottom = float(linear.min())
        if not math.isfinite(bottom):
            raise _out_of_range("Entropy.argmin", "the loss's smallest entry", bottom)
        with np.errstate(divide="ignore", over="ignore"):
            excess = eta * linear - eta * bottom if eta <= 1.0 else eta * (linear - bottom)
            logits = np.log(centre) - excess
            top = logits.max()
            if not top > -np.inf:  # every weight vanished: min(linear) is off the centre's support
                support = np.asarray(centre) > 0
                excess = eta * (linear[support] - float(linear[support].min()))
                logits = np.full_like(linear, -np.inf)
                logits[support] = np.log(np.asarray(centre)[support]) - excess
                top = logits.max()
        weights = np.exp(logits - top)
        return weights / weights.sum()




def _all_finite(top) -> bool:
    """Is the logits' maximum (a scalar, or one per batched game) finite? Cheap for a scalar."""
    return math.isfinite(top) if top.ndim == 0 else bool(np.isfinite(top).all())


def _euclidean_domain(instance):
    return Reals() if instance.radius is None else Ball(instance.radius)


@attrs.frozen
class SquaredEuclidean(Regularizer):
    """R(z) = 1/2 ||z||^2 on R^d, on the l2 ball (``radius=r`` or ``domain=Ball(r)``) or on the simplex.

    D_R(z, z0) = 1/2 ||z - z0||^2. Closed form for every domain: the unconstrained minimiser
    ``(z0 - eta theta) / (1 + eta c)`` projected onto the domain (exact, since the objective is an
    isotropic quadratic, whose minimiser over a convex set is that projection).
    """

    radius: float | None = attrs.field(default=None)
    domain: Reals | Ball | Simplex = attrs.field(default=attrs.Factory(_euclidean_domain, takes_self=True))

    @property
    def legendre(self) -> bool:
        return isinstance(self.domain, Reals)

    @property
    def supports_batches(self) -> bool:
        return isinstance(self.domain, Reals)  # projections onto a ball or simplex act on one vector

    def value(self, z) -> float:
        return 0.5 * float(np.dot(z, z))

    def mirror_map(self, z):
        return np.asarray(z, dtype=np.float64)

    def inverse_mirror_map(self, theta):
        """grad of the conjugate of R + indicator(domain): the Euclidean projection."""
        return self.domain.project(np.asarray(theta, dtype=np.float64))

    def argmin(self, linear, curvature: float, eta: float, centre):
        return self.argmin_with_cache(np.asarray(linear), curvature, eta, np.asarray(centre), None)

    def argmin_with_cache(self, linear, curvature: float, eta: float, centre, cache):
        """Pi((z_0 - eta theta) / (1 + eta c)): the projection of the unconstrained minimiser."""
        point = centre - eta * linear
        if curvature:
            point /= 1.0 + eta * curvature
        return self.domain.project(point)


@attrs.frozen
class QNorm(Regularizer):
    r"""The p-norm link regularizer R_q(z) = ||z||_q^2 / (2(q-1)), q in (1, 2], on R^d (spec section 8).

    It is 1-strongly convex w.r.t. ||.||_q. Mirror map ``f_q(z)/(q-1)``; inverse
    ``(q-1) f_p(theta)`` with 1/p + 1/q = 1 and f_p the p-norm link function. Closed-form argmin
    for linear losses: :math:`\nabla R_q^*(\nabla R_q(z_0)-\eta\theta)`.
    """

    q: float = attrs.field(converter=check_q)
    supports_batches = True

    @property
    def p(self) -> float:
        return self.q / (self.q - 1.0)

    def value(self, z) -> float:
        z = np.asarray(z, dtype=np.float64)
        scale = float(np.max(np.abs(z))) if z.size else 0.0
        if scale == 0.0 or not np.isfinite(scale):
            return scale
        norm = scale * float(np.linalg.norm(z / scale, ord=self.q))  # no overflow or underflow inside
        return norm * norm / (2.0 * (self.q - 1.0))

    def mirror_map(self, z):
        return pnorm_link(z, self.q) / (self.q - 1.0)

    def inverse_mirror_map(self, theta):
        return (self.q - 1.0) * pnorm_link(theta, self.p)

    def argmin(self, linear, curvature: float, eta: float, centre):
        return self.argmin_with_cache(linear, curvature, eta, centre, self.centre_cache(centre))

    def centre_cache(self, centre):
        """The centre's mirror image grad R_q(z_0), computed once per centre."""
        return self.mirror_map(centre)

    def argmin_with_cache(self, linear, curvature: float, eta: float, centre, cache):
        if curvature != 0:
            return numerical_argmin(self, linear, curvature, eta, centre)
        return self.inverse_mirror_map(cache - eta * np.asarray(linear))


@attrs.frozen
class Zero(Regularizer):
    """No regularizer (FTL, OFTL, and FTRL+ without regularizer): argmin of the loss alone.

    The minimiser must be unique or have a rule: on R^d the loss needs positive curvature; on the
    simplex a linear loss picks the vertex of its smallest entry (smallest index on ties); on a
    ball a linear loss picks ``-radius * theta/||theta||``.
    """

    domain: Reals | Ball | Simplex = Reals()
    legendre = False

    @property
    def supports_batches(self) -> bool:
        return isinstance(self.domain, Reals)

    def value(self, z) -> float:
        return 0.0

    def mirror_map(self, z):
        return np.zeros_like(np.asarray(z, dtype=np.float64))

    def inverse_mirror_map(self, theta):
        raise ValueError("The zero regularizer has no inverse mirror map; use argmin on a strongly convex loss.")

    def argmin_of_loss(self, loss, eta: float, centre):
        """The loss's own minimiser over the domain (e.g. grad f at a weighted average, Fenchel game)."""
        point = loss.minimize_over(self.domain)
        if point is None:
            raise ValueError("FTL's loss has no minimiser on this domain (unbounded below); use a bounded domain.")
        return point

    def argmin(self, linear, curvature: float, eta: float, centre):
        return self.argmin_with_cache(np.asarray(linear), curvature, eta, centre, None)

    def argmin_with_cache(self, linear, curvature: float, eta: float, centre, cache):
        point = self.domain.minimize_quadratic(linear, curvature)
        if point is None:
            raise ValueError(
                "FTL on R^d with a linear loss has no minimiser (the loss is unbounded below); "
                "give the loss a quadratic part (e.g. the payoff RegularizedBilinear) or use a "
                "bounded domain, e.g. Zero(domain=Ball(1.0))."
            )
        return point


# ------------------------------------------------------------------------------ numerical argmin


def numerical_argmin(regularizer: Regularizer, linear, curvature: float, eta: float, centre, *, tolerance: float = 1e-13):
    """Generic argmin of eta(<linear,z> + c/2||z||^2) + D_R(z, centre) over the domain (scipy.optimize).

    Used where no closed form exists. Two routes:

    * Legendre regularizers (the inverse mirror map lands in the domain: entropy on the simplex,
      R_q and 1/2||.||^2 on R^d): the optimality condition, written for the mirror image
      u = grad R(z) (up to the simplex's normalising constant), is
      ``u - grad R(centre) + eta (linear + c grad R*(u)) = 0``; scipy's ``root`` solves it from
      u = grad R(centre) (df-sane, then Powell's hybrid method to polish). It needs
      only the mirror maps and stays accurate where R has unbounded curvature (R_q at a zero
      coordinate, entropy at the simplex's boundary), where quasi-Newton methods on z stall.
    * Otherwise (Euclidean on a ball or simplex, the zero regularizer): SLSQP on z with the
      domain's constraints.
    """
    linear = np.asarray(linear, dtype=np.float64)
    centre = np.asarray(centre, dtype=np.float64)
    shift = regularizer.mirror_map(centre)
    domain = regularizer.domain
    if not regularizer.legendre:
        def objective(z):
            value = eta * (linear @ z + 0.5 * curvature * (z @ z)) + regularizer.value(z) - shift @ z
            return value, eta * (linear + curvature * z) + regularizer.mirror_map(z) - shift

        if isinstance(domain, Simplex):
            bounds = [(0.0, 1.0)] * linear.size
            constraints = [{"type": "eq", "fun": lambda z: np.sum(z) - 1.0, "jac": lambda z: np.ones_like(z)}]
        elif isinstance(domain, Ball):
            bounds = None
            constraints = [{"type": "ineq", "fun": lambda z: domain.radius**2 - z @ z, "jac": lambda z: -2.0 * z}]
        else:
            bounds, constraints = None, []
        solution = scipy.optimize.minimize(
            objective, domain.project(centre), jac=True, method="SLSQP", bounds=bounds,
            constraints=constraints, options={"ftol": 1e-15, "maxiter": 1000},
        )
        return domain.project(solution.x)
    finite_shift = np.where(np.isfinite(shift), shift, -745.0)  # a zero entry of an entropy centre

    def residual(mirror):
        return mirror - finite_shift + eta * (linear + curvature * regularizer.inverse_mirror_map(mirror))

    # From the centre's own mirror image: the derivative-free spectral method (df-sane) gets close
    # whatever the scale, then Powell's hybrid method polishes to full precision.
    with np.errstate(invalid="ignore", divide="ignore"):
        rough = scipy.optimize.root(residual, finite_shift, method="df-sane",
                                    options={"fatol": 1e-6, "ftol": 0.0, "maxfev": 20000})
    solution = scipy.optimize.root(residual, rough.x, method="hybr", options={"xtol": tolerance})
    return regularizer.inverse_mirror_map(solution.x)
