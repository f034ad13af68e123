r"""Regularizers: the geometry of an online learner (their domains: :mod:`gamedyn.core.domains`).

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
from typing import TYPE_CHECKING, Any, cast

import attrs
import numpy as np

from gamedyn.core import capped_simplex
from gamedyn.core.protocols import Domain
from gamedyn.core.protocols import RegularizerProtocol
from gamedyn.core.protocols import StructuralMeta
from gamedyn.core.domains import Ball, CappedSimplex, Reals, Simplex, is_simplex, simplex_cap
from gamedyn.core.kernels import dot, is_foreign, is_numpy, is_python_float, namespace_of, ones, scal, to_host_scalar
from gamedyn.core.numerics import out_of_range, pnorm_link, softmax_logits
from gamedyn.core.validation import check_q

# x.max(axis) / x.min(axis) / x.sum(axis) as the ufuncs' own reductions, without the Python method wrappers
_maximum, _add = np.maximum.reduce, np.add.reduce
_FLOAT64 = np.dtype(np.float64)
# BLAS level 1 (about 0.2 us a call at n = 100, a numpy ufunc about 1 us), never threaded
# (gamedyn.core.kernels): asum, sum |x_i| (finiteness checks only: its rounding depends on alignment),
# dot, x . y, and scal, x *= a in place.

# ---------------------------------------------------------------------------------- regularizers


class Regularizer(metaclass=StructuralMeta):
    """The interface every regularizer implements.

    Subclasses set ``domain`` and implement ``value(z)`` (R(z)), ``mirror_map(z)`` (grad R) and
    ``inverse_mirror_map(theta)`` (grad R*, landing in the domain). ``argmin`` defaults to the
    numerical solver; override it with a closed form where one exists.
    """

    __protocol__ = RegularizerProtocol  # isinstance(x, Regularizer): a subclass, or any object with its members
    domain: Domain = Reals()
    if TYPE_CHECKING:  # read-only to a type checker: a subclass states them as class attributes or properties
        @property
        def legendre(self) -> bool: ...
        @property
        def supports_batches(self) -> bool: ...
        @property
        def argmin_is_softmax(self) -> bool: ...
    else:
        legendre = True  # grad R blows up at the domain's boundary, so grad R* lands inside it
        # argmin acts column by column on (dim, K) arrays (batched games); unknown for user regularizers
        supports_batches = False
        # the argmin of a linear loss is softmax(log z_0 - eta theta), log z_0 = centre_cache(z_0) (None:
        # uniform); declared by Entropy, it lets the one-pass rounds fuse the play with the products
        argmin_is_softmax = False
    # the argmin lands in ``domain`` whenever the domain's oracles do (declared by the built-ins; a
    # subclass that changes its argmin must set it to False); see FollowTheRegularizedLeader.plays_in_domain
    plays_in_domain = False
    # the argmin of a linear loss (curvature 0) is the domain's own minimiser of it, domain.minimize_quadratic(
    # linear, 0): no regularization (declared by Zero); with a domain that declares vertex_index (the simplex)
    # the play is a vertex, see FollowTheRegularizedLeader.plays_vertices
    argmin_is_best_response = False

    def value(self, z) -> float:
        """R(z); a subclass defines it."""
        raise NotImplementedError

    def mirror_map(self, z):
        """grad R(z); a subclass defines it."""
        raise NotImplementedError

    def inverse_mirror_map(self, theta):
        """(grad R)^{-1}(theta); a subclass with a Legendre R defines it."""
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


@attrs.frozen(eq=False, repr=False)
class CappedCentre:
    """Entropy's centre cache on a capped simplex: ``log p_0`` (None for the uniform centre).

    Never None itself, so the plain simplex's uniform fast path (``cache is None``) is never taken
    on a capped domain, and that path pays nothing for the capped case. An attrs class (one field),
    so a checkpoint saves and rebuilds it like every state object (:mod:`gamedyn.engine.checkpoints`).
    """

    log: Any

    def __repr__(self):
        return "CappedCentre(uniform)" if self.log is None else f"CappedCentre(log={self.log!r})"

    def same_as(self, other) -> bool:
        """Equal log centres (the mirror-step memo's check in :mod:`gamedyn.core.learners`)."""
        mine, theirs = self.log, other.log
        if mine is theirs:
            return True
        if mine is None or theirs is None or mine.shape != theirs.shape:
            return False
        return bool((mine == theirs).all())


def _entropy_domain(instance, attribute, value):
    if not is_simplex(value):  # declared (gamedyn.core.domains.is_simplex): a subclass keeps the closed form
        raise ValueError(f"Entropy's domain must be Simplex() or CappedSimplex(cap), got {value!r}; "
                         "e.g. Entropy(domain=CappedSimplex.from_nu(0.1, n)) for the soft-margin game.")


@attrs.frozen(repr=False)
class Entropy(Regularizer):
    r"""Negative entropy E(p) = sum_i p_i log p_i on the simplex (or a capped simplex); D_E(p, p0) = KL(p || p0).

    Closed form for linear losses (spec section 1, "softmax convention"):
    :math:`\arg\min_{p\in\Delta}\eta\langle\theta,p\rangle+\mathrm{KL}(p\|p_0)\propto p_0\odot e^{-\eta\theta}`,
    computed from logits ``log p0 - eta theta`` shifted by their maximum.

    On ``domain=CappedSimplex(c)`` (the soft-margin game's p-player) the argmin is the capped
    softmax :math:`p_i=\min(c, p_{0i}e^{-\eta\theta_i-\lambda})`
    (:func:`gamedyn.core.capped_simplex.capped_entropy_step`: the plain softmax's cost when the cap
    does not bind, exact at any magnitude). Entropy stays 1-strongly convex w.r.t. ``||.||_1`` there
    (Pinsker), and its range from the uniform centre is ``D_c = log(n c) + r log(r/c) <= -log nu``
    (docs/explanation/soft-margin.md).

    Parameters
    ----------
    domain : Simplex or CappedSimplex, default Simplex()

    Examples
    --------
    >>> import numpy as np
    >>> Entropy().argmin(np.array([0.0, 0.0, 5.0]), 0.0, 1.0, np.full(3, 1 / 3)).round(3).tolist()
    [0.498, 0.498, 0.003]
    >>> Entropy(domain=CappedSimplex(0.4)).argmin(np.array([0.0, 0.0, 5.0]), 0.0, 1.0, np.full(3, 1 / 3)).round(3).tolist()
    [0.4, 0.4, 0.2]
    """

    plays_in_domain = True

    domain: Simplex | CappedSimplex = attrs.field(default=Simplex(), validator=_entropy_domain)
    supports_batches = True

    def __repr__(self):
        return "Entropy()" if self.domain == Simplex() else f"Entropy(domain={self.domain!r})"

    @property
    def legendre(self) -> bool:
        """True on the simplex; on a capped simplex the cap's faces are reached (no interior mirror image)."""
        return simplex_cap(self.domain) is None

    @property
    def argmin_is_softmax(self) -> bool:
        """The declaration the one-pass rounds read (:meth:`FollowTheRegularizedLeader.softmax_play`):
        True on the simplex, where the argmin is eq. (5)'s softmax of ``log z_0 - eta theta``; False on
        a capped simplex, where it is the capped softmax (the rounds then take the two-pass round)."""
        return simplex_cap(self.domain) is None

    def value(self, z) -> float:
        """R(z) = sum_i z_i log z_i (0 log 0 = 0)."""
        z = np.asarray(z, dtype=np.float64)
        positive = z > 0
        return float(np.sum(z[positive] * np.log(z[positive])))

    def mirror_map(self, z):
        """grad R(z) = log z + 1 (-inf where z_i = 0)."""
        with np.errstate(divide="ignore"):
            return np.log(np.asarray(z, dtype=np.float64)) + 1.0

    def inverse_mirror_map(self, theta):
        """The simplex point whose mirror image is theta up to a constant: softmax(theta) (capped on Delta_c)."""
        cap = simplex_cap(self.domain)
        if cap is not None:
            return capped_simplex.capped_softmax(-np.asarray(theta, dtype=np.float64), cap)
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
        move the softmax, so the argmin adds nothing. On a capped simplex the cache is a
        :class:`CappedCentre` (never None), checked once per call on the non-uniform path only.
        """
        if is_foreign(centre):  # once per centre, before the rounds: one host synchronisation
            xp = namespace_of(centre)
            low, high = to_host_scalar(xp.min(centre)), to_host_scalar(xp.max(centre))
            return None if low == high > 0 else xp.log(centre)
        centre = np.asarray(centre, dtype=np.float64)
        capped = simplex_cap(self.domain) is not None
        if centre.size and centre.min() == centre.max() > 0:
            return CappedCentre(None) if capped else None
        with np.errstate(divide="ignore"):
            log = np.log(centre)
        return CappedCentre(log) if capped else log

    def _capped_step(self, linear, curvature, eta, cache, return_log: bool):
        """The argmin on the capped simplex (``cache`` a :class:`CappedCentre`)."""
        if curvature != 0:
            raise ValueError("Entropy on a CappedSimplex has a closed form for linear losses only (curvature 0); "
                             "give this player a linear loss, or use SquaredEuclidean(domain=CappedSimplex(cap)).")
        linear = np.asarray(linear, dtype=np.float64)
        cap = cast(float, simplex_cap(self.domain))  # (called on a capped simplex only)
        capped_simplex.check_size(linear.shape[0], cap, "Entropy.argmin on CappedSimplex")
        if return_log:
            point, log_point = capped_simplex.capped_entropy_step(linear, float(eta), cap, cache.log, return_log=True)
            return point, CappedCentre(log_point)
        return capped_simplex.capped_entropy_step(linear, float(eta), cap, cache.log)

    def argmin_with_cache(self, linear, curvature: float, eta: float, centre, cache):
        """softmax(log z_0 - eta theta) along axis 0 (one per column for batched games)."""
        if curvature != 0:
            if isinstance(cache, CappedCentre):
                return self._capped_step(linear, curvature, eta, cache, False)  # a clear error
            return numerical_argmin(self, linear, curvature, eta, centre)
        if not is_numpy(linear) and is_foreign(linear):
            return _foreign_softmax(linear, eta, cache)
        if cache is None and linear.ndim == 1 and linear.dtype is _FLOAT64 and is_python_float(eta):
            # A uniform centre: logits -eta (theta - min theta), whose maximum is exactly 0, so the
            # exponentials lie in [0, 1] and sum to [1, n] (an entry +inf gives weight 0).
            bottom = linear[linear.argmin()]  # min theta (NaN if any entry is): a third of np.min's cost
            if not math.isfinite(bottom):  # NaN, or every entry infinite: the careful path decides
                return self._careful_argmin(linear, eta, centre)
            logits = linear - bottom
            scal(-eta, logits)
        else:
            if isinstance(cache, CappedCentre):  # the capped simplex (never on the uniform simplex path above)
                return self._capped_step(linear, curvature, eta, cache, False)
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
        if isinstance(cache, CappedCentre):
            return self._capped_step(linear, curvature, eta, cache, True)
        if curvature != 0:
            return super().argmin_and_cache(linear, curvature, eta, centre, cache)
        if not is_numpy(linear) and is_foreign(linear):
            return _foreign_log_softmax_step(linear, eta, cache)
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
            raise out_of_range("Entropy.argmin", "the loss's smallest entry", bottom)
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




def _foreign_softmax(linear, eta, cache):
    """:meth:`Entropy.argmin_with_cache` on a foreign array, in its namespace and on its device: the same
    formula as the numpy path (logits shifted to a maximum of 0, weights times the reciprocal of their sum),
    with no host synchronisation (an overflow, which the numpy path routes to its careful branch, becomes a NaN
    that the result's final check reports)."""
    xp = namespace_of(linear)
    if cache is None:
        logits = (linear - xp.min(linear, axis=0)) * -eta
    else:
        logits = linear * -eta + cache
        logits = logits - xp.max(logits, axis=0)
    weights = xp.exp(logits)
    if weights.ndim == 1:
        return weights * (1.0 / xp.sum(weights))
    return weights / xp.sum(weights, axis=0)


def _foreign_log_softmax_step(linear, eta, cache):
    """:meth:`Entropy.argmin_and_cache` (the mirror step in the log domain) on a foreign array."""
    xp = namespace_of(linear)
    log_point = linear * -eta
    if cache is not None:
        log_point = log_point + cache
    log_point = log_point - xp.max(log_point, axis=0)
    log_point = log_point - xp.log(xp.sum(xp.exp(log_point), axis=0))
    return xp.exp(log_point), log_point


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

    Parameters
    ----------
    radius : float, optional
        Play on the ball of this radius (default: no ball).
    domain : Domain, optional
        ``Reals()``, ``Ball(r)`` or ``Simplex()`` (default: ``Ball(radius)`` when ``radius`` is given, else
        ``Reals()``).
    """

    plays_in_domain = True

    radius: float | None = attrs.field(default=None)
    domain: Reals | Ball | Simplex | CappedSimplex = attrs.field(default=attrs.Factory(_euclidean_domain, takes_self=True))

    @property
    def legendre(self) -> bool:
        return isinstance(self.domain, Reals)

    @property
    def supports_batches(self) -> bool:
        return isinstance(self.domain, Reals)  # projections onto a ball or simplex act on one vector

    def value(self, z) -> float:
        """R(z) = ||z||^2 / 2."""
        return 0.5 * float(np.dot(z, z))

    def mirror_map(self, z):
        """grad R(z) = z."""
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

    Parameters
    ----------
    q : float
        The norm, in (1, 2] (q = p/(p-1) for data with ||x_i||_p <= 1).
    """

    plays_in_domain = True

    q: float = attrs.field(converter=check_q)
    supports_batches = True

    @property
    def p(self) -> float:
        """p = q/(q - 1), the dual exponent."""
        return self.q / (self.q - 1.0)

    def value(self, z) -> float:
        """R_q(z) = ||z||_q^2 / (2(q - 1)), without overflow."""
        z = np.asarray(z, dtype=np.float64)
        scale = float(np.max(np.abs(z))) if z.size else 0.0
        if scale == 0.0 or not np.isfinite(scale):
            return scale
        norm = scale * float(np.linalg.norm(z / scale, ord=self.q))  # no overflow or underflow inside
        return norm * norm / (2.0 * (self.q - 1.0))

    def mirror_map(self, z):
        """grad R_q(z) = f_q(z) / (q - 1), with f_q the q-norm link function."""
        return pnorm_link(z, self.q) / (self.q - 1.0)

    def inverse_mirror_map(self, theta):
        """(grad R_q)^{-1}(theta) = (q - 1) f_p(theta), with f_p the p-norm link function."""
        return (self.q - 1.0) * pnorm_link(theta, self.p)

    def argmin(self, linear, curvature: float, eta: float, centre):
        return self.argmin_with_cache(linear, curvature, eta, centre, self.centre_cache(centre))

    def centre_cache(self, centre):
        """The centre's mirror image grad R_q(z_0), computed once per centre."""
        return self.mirror_map(centre)

    def argmin_with_cache(self, linear, curvature: float, eta: float, centre, cache):
        if curvature != 0:
            return numerical_argmin(self, linear, curvature, eta, centre)
        return self.inverse_mirror_map(cache - eta * (linear if is_foreign(linear) else np.asarray(linear)))


@attrs.frozen
class Zero(Regularizer):
    """No regularizer (FTL, OFTL, and FTRL+ without regularizer): argmin of the loss alone.

    The minimiser must be unique or have a rule: on R^d the loss needs positive curvature; on the
    simplex a linear loss picks the vertex of its smallest entry (smallest index on ties); on a
    ball a linear loss picks ``-radius * theta/||theta||``.

    Parameters
    ----------
    domain : Domain, default Reals()
        ``Reals()``, ``Ball(r)`` or ``Simplex()``.
    """

    plays_in_domain = True
    argmin_is_best_response = True  # argmin_with_cache(linear, 0, ...) is domain.minimize_quadratic(linear, 0)
    # argmin_of_loss(loss, eta, centre) is loss.minimize_over(domain): no Bregman term, eta and centre unused
    # (FollowTheRegularizedLeader.leader_form reads it: the lean Fenchel round plays FTL without a player)
    argmin_is_loss_oracle = True

    domain: Reals | Ball | Simplex | CappedSimplex = Reals()
    legendre = False

    @property
    def supports_batches(self) -> bool:
        return isinstance(self.domain, Reals)

    def value(self, z) -> float:
        """R(z) = 0."""
        return 0.0

    def mirror_map(self, z):
        """grad R(z) = 0."""
        return np.zeros_like(np.asarray(z, dtype=np.float64))

    def inverse_mirror_map(self, theta):
        """Refused: the zero regularizer has no inverse mirror map (a ``ValueError``)."""
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
    import scipy.optimize  # here, not at import: a first import loads no optimiser
    linear = np.asarray(linear, dtype=np.float64)
    centre = np.asarray(centre, dtype=np.float64)
    shift = regularizer.mirror_map(centre)
    domain = regularizer.domain
    if not regularizer.legendre:
        def objective(z):
            value = eta * (linear @ z + 0.5 * curvature * (z @ z)) + regularizer.value(z) - shift @ z
            return value, eta * (linear + curvature * z) + regularizer.mirror_map(z) - shift

        if isinstance(domain, (Simplex, CappedSimplex)):
            bounds = [(0.0, getattr(domain, "cap", 1.0))] * linear.size
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
