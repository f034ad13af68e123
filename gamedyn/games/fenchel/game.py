r"""The Fenchel game of a convex objective (Abernethy & Wang 2017; Wang & Abernethy 2018).

For a convex, differentiable :math:`f` with conjugate :math:`f^*(y)=\sup_x\langle x,y\rangle-f(x)`,

.. math::

    g(y, x) = \langle x, y\rangle - f^*(y),\qquad \min_{x\in K}\max_{y}g(y,x)=\min_{x\in K}f(x),

since :math:`\max_yg(y,x)=f^{**}(x)=f(x)`. In Protocol 1's seats the y-player is ``w`` (it
maximises, on :math:`\mathbb R^d`) and the x-player is ``p`` (it minimises, on a domain K: the
simplex, an l2 or l1 ball, a box, or :math:`\mathbb R^d`). The round losses are

.. math::

    \ell_t(x)=\langle y_t,x\rangle\ \text{(x-player, linear)},\qquad
    h_t(y)=f^*(y)-\langle x_t,y\rangle\ \text{(y-player)}.

The y-player's losses are "strength times :math:`f^*` plus linear": a :class:`gamedyn.Loss` whose
``convex`` is :class:`FenchelConjugate`. Their weighted sum
:math:`S\,f^*(y)-\langle\sum_s\alpha_sx_s,y\rangle` is minimised by
:math:`y=\nabla f(\sum_s\alpha_sx_s/S)` (conjugacy: :math:`\nabla f^*=(\nabla f)^{-1}`), so follow
the leader is a gradient at a weighted average, with no special case in the runner.
"""

from __future__ import annotations

import collections
import math
from typing import Any, Callable

import attrs
import numpy as np

from gamedyn.core.domains import Reals
from gamedyn.core.kernels import NUMPY, Backend, backend_of, dot, is_foreign, is_numpy, to_host_scalar, to_numpy
from gamedyn.core.loss import Loss
from gamedyn.core.validation import check_count, check_positive
from gamedyn.engine.payoffs import ConjugateForm, Payoff, domain_validator

_MEMO_SIZE = 8
_FLOAT64 = np.dtype(np.float64)


def _optional_positive(value, name):
    return None if value is None else check_positive(value, name)


def _optional_dimension(value):
    """None, or the length of x as an int >= 1 (not a bool, a float or a string)."""
    return None if value is None else check_count(value, "dimension")


def _describe(point) -> str:
    return np.array2string(np.asarray(to_numpy(point), dtype=np.float64), threshold=6, edgeitems=2, precision=6, separator=", ")


class ObjectiveError(ValueError):
    """The objective (or its closed-form conjugate) returned NaN, inf or a wrong shape: the error names the
    function and the point, and, when raised inside :func:`gamedyn.play`'s rounds, the round."""

    def __init__(self, head: str, tail: str):
        self.head, self.tail = head, tail
        self.round: int | None = None
        super().__init__(f"{head}: {tail}")

    def in_round(self, t: int) -> None:
        """Name round t in the message (called by :func:`gamedyn.play` as the error leaves its loop)."""
        self.round = t
        self.args = (f"{self.head} in round {t}: {self.tail}",)


_NOT_AN_OVERFLOW = ("this is the objective's own output, not an overflow of the game: check the function there "
                    "(0/0, log or sqrt of a negative number, an overflow inside it)")


@attrs.frozen
class Objective:
    r"""A convex objective f given by its value and gradient (optionally its smoothness L).

    ``value(x) -> float`` and ``gradient(x) -> array``; ``smoothness`` is L with
    :math:`\|\nabla f(x)-\nabla f(x')\|\le L\|x-x'\|` (needed by the accelerated recipes' default
    step); ``dimension`` (optional) is the length of x when no domain or start fixes it;
    ``conjugate`` (optional) is :math:`f^*(y)` in closed form, used where no gradient preimage is
    known (else it is computed numerically, see :class:`FenchelConjugate`).

    >>> import numpy as np
    >>> f = Objective(lambda x: 0.5 * float(x @ x), lambda x: x, smoothness=1.0, dimension=3)
    >>> float(f.conjugate_term.value(f.gradient(np.ones(3))))  # f*(y) = ||y||^2 / 2
    1.5
    """

    value: Callable = attrs.field()
    gradient: Callable = attrs.field()
    smoothness: float | None = attrs.field(default=None, converter=lambda s: _optional_positive(s, "smoothness"))
    dimension: int | None = attrs.field(default=None, kw_only=True, converter=_optional_dimension)
    conjugate: Callable | None = attrs.field(default=None, kw_only=True)
    # the namespace and device f computes on (issue 20): a Backend, or an array of it (its data); default numpy
    backend: Backend = attrs.field(default=None, kw_only=True, eq=False, repr=False,
                                   converter=lambda b: NUMPY if b is None else b if isinstance(b, Backend) else backend_of(b))
    conjugate_term: Any = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self):
        if not callable(self.value) or not callable(self.gradient):
            raise TypeError("Objective(value, gradient): both must be callables x -> f(x) and x -> grad f(x).")
        if self.conjugate is not None and not callable(self.conjugate):
            raise TypeError(f"conjugate must be a callable y -> f*(y) or None, got {self.conjugate!r}.")
        object.__setattr__(self, "conjugate_term", FenchelConjugate(self))

    def gradient_at(self, x) -> np.ndarray:
        """grad f(x) as a fresh float64 array, checked finite and of x's shape.

        Raises
        ------
        ObjectiveError
            (a ``ValueError``) naming the point when the gradient is NaN, infinite or of another
            shape; inside :func:`gamedyn.play` also the round.
        """
        raw = self.gradient(x)
        if is_foreign(raw):  # an objective written for a namespace: checked there (one host synchronisation, the NaN check)
            return _checked_foreign_gradient(raw, x)
        if is_numpy(raw) and raw.dtype is _FLOAT64 and raw.ndim == 1 and raw.size:  # the usual case, cheaply
            gradient = raw.copy()
            shape = x.shape if is_numpy(x) else np.shape(x)  # (np.shape is a call: skipped for an array)
            if gradient.shape == shape and math.isfinite(dot(gradient, gradient)):
                return gradient  # every entry finite (a NaN or inf, or an overflow of the square, goes below)
        elif np.iscomplexobj(raw):
            raise ObjectiveError(f"Objective.gradient returned a complex array at x = {_describe(x)}",
                                 "it must return a finite real array of the same shape as x")
        gradient = np.array(raw, dtype=np.float64)
        if gradient.shape != np.shape(x):
            raise ObjectiveError(f"Objective.gradient returned an array of shape {gradient.shape} at x of shape "
                                 f"{np.shape(x)}", "it must return a finite array of the same shape as x")
        if not np.all(np.isfinite(gradient)):
            raise ObjectiveError(f"Objective.gradient returned {_describe(gradient)} (not finite) at x = {_describe(x)}",
                                 f"it must return a finite array of the same shape as x; {_NOT_AN_OVERFLOW}")
        return gradient

    def value_at(self, x) -> float:
        """f(x) as a float, checked finite.

        Raises
        ------
        ObjectiveError
            (a ``ValueError``) naming the point when f(x) is NaN or infinite (or not a real number);
            inside :func:`gamedyn.play` also the round.
        """
        raw = self.value(x)
        try:
            value = float(raw)
        except (TypeError, ValueError):
            raise ObjectiveError(f"Objective.value returned {raw!r} at x = {_describe(x)}",
                                 "it must return a real number f(x)") from None
        if not math.isfinite(value):
            raise ObjectiveError(f"Objective.value returned {value!r} at x = {_describe(x)}",
                                 f"f must be finite on the domain; {_NOT_AN_OVERFLOW}")
        return value


def _checked_foreign_gradient(raw, x):
    """:meth:`Objective.gradient_at` for a gradient of a foreign namespace: a float64 array there, of x's shape, finite."""
    backend = backend_of(raw)
    gradient = backend.asarray(raw)
    if tuple(gradient.shape) != tuple(x.shape):
        raise ObjectiveError(f"Objective.gradient returned an array of shape {tuple(gradient.shape)} at x of shape "
                             f"{tuple(x.shape)}", "it must return a finite array of the same shape as x")
    if not to_host_scalar(backend.xp.all(backend.xp.isfinite(gradient))):
        raise ObjectiveError(f"Objective.gradient returned {_describe(gradient)} (not finite) at x = {_describe(x)}",
                             f"it must return a finite array of the same shape as x; {_NOT_AN_OVERFLOW}")
    return gradient if gradient is not raw else backend.xp.asarray(raw, copy=True)


class FenchelConjugate:
    r"""The convex function :math:`\phi=f^*` of the y-player's losses, with its argmin oracle.

    * ``minimize(linear, strength, Reals())`` :math:`=\arg\min_y\langle\mathrm{linear},y\rangle+
      s\,f^*(y)=\nabla f(-\mathrm{linear}/s)`; it remembers the preimage of each point it returns;
    * ``value(y)`` :math:`=f^*(y)`: exactly :math:`\langle x,y\rangle-f(x)` when y was returned
      for x (every FTL / OFTL play); else the objective's ``conjugate`` if given; else numerically,
      :math:`-\min_x f(x)-\langle x,y\rangle` by L-BFGS (only the duality gap needs this, once);
    * ``gradient(y)`` :math:`=\nabla f^*(y)` = the remembered preimage (numerically otherwise).
    """

    __slots__ = ("objective", "_memo", "_on_reals")

    def __init__(self, objective: Objective):
        self.objective = objective
        self._memo: collections.deque[tuple[np.ndarray, np.ndarray]] = collections.deque(maxlen=_MEMO_SIZE)  # the last few (y, x) with y = grad f(x)
        self._on_reals = _minimize_on_reals(objective.gradient_at, self._memo.append)

    def __repr__(self) -> str:
        return "FenchelConjugate(objective)"

    def _preimage(self, y):
        for point, preimage in reversed(self._memo):
            if point is y:
                return preimage
        for point, preimage in reversed(self._memo):
            if is_foreign(point):
                if is_foreign(y) and tuple(point.shape) == tuple(y.shape) and to_host_scalar(
                        backend_of(point).xp.all(point == y)):
                    return preimage
            elif point.shape == np.shape(y) and np.array_equal(point, y):
                return preimage
        return None

    def minimize(self, linear, strength: float, domain):
        """argmin over y in R^d of <linear, y> + strength f*(y) (a gradient of f); R^d only."""
        if not isinstance(domain, Reals):
            raise ValueError(f"The Fenchel game's y-player plays on R^d (its argmin is a gradient of f); got the "
                             f"domain {domain!r}. Use FTL() or OFTL() without a domain for the y-player.")
        if is_foreign(linear):  # in its namespace, on its device
            x = linear / -strength
            y = self.objective.gradient_at(x)
            self._memo.append((y, x))  # a deque of the last _MEMO_SIZE pairs
            return y
        return self._on_reals(np.asarray(linear, dtype=np.float64), strength)

    def minimizer(self, domain):
        """:meth:`minimize` on ``domain`` as a function ``(linear, strength) -> y`` of a float64 array ``linear``, the domain checked once
        (None for a domain other than R^d, which :meth:`minimize` refuses); the same operations, so the same bits."""
        if not isinstance(domain, Reals):
            return None
        return self._on_reals

    def _numerical_preimage(self, y):
        import scipy.optimize  # here, not at import: a first import loads no optimiser
        backend = self.objective.backend
        y = np.asarray(to_numpy(y), dtype=np.float64)
        start = np.asarray(to_numpy(self._memo[-1][1]), dtype=np.float64) if self._memo else np.zeros_like(y)
        if not backend.is_numpy:  # a numerical oracle on the host (L-BFGS), f evaluated on its device: the boundary
            def on_device(x):
                x_device = backend.asarray(x)
                gradient = np.asarray(to_numpy(self.objective.gradient_at(x_device)), dtype=np.float64)
                return self.objective.value_at(x_device) - float(x @ y), gradient - y

            solution = scipy.optimize.minimize(on_device, start, jac=True, method="L-BFGS-B",
                                               options={"gtol": 1e-13, "ftol": 1e-16, "maxiter": 10000})
            return backend.asarray(solution.x)

        def objective(x):
            return self.objective.value_at(x) - float(x @ y), self.objective.gradient_at(x) - y

        solution = scipy.optimize.minimize(objective, start, jac=True, method="L-BFGS-B",
                                           options={"gtol": 1e-13, "ftol": 1e-16, "maxiter": 10000})
        return solution.x

    def value(self, y) -> float:
        """f*(y) = sup_x <x, y> - f(x) (the objective's conjugate, or at the preimage of y)."""
        x = self._preimage(y)
        if x is None and self.objective.conjugate is not None:
            value = float(self.objective.conjugate(y))
            if not math.isfinite(value):
                raise ObjectiveError(f"Objective.conjugate returned {value!r} at y = {_describe(y)}",
                                     f"f* must be finite at the gradients of f; {_NOT_AN_OVERFLOW}")
            return value
        if x is None:
            x = self._numerical_preimage(to_numpy(y))
        if is_foreign(x) or is_foreign(y):
            backend = backend_of(x if is_foreign(x) else y)
            return to_host_scalar(backend.xp.sum(backend.asarray(x) * backend.asarray(y))) - self.objective.value_at(x)
        return float(x @ np.asarray(y)) - self.objective.value_at(x)

    def gradient(self, y):
        """grad f*(y) = argmax_x <x, y> - f(x) (numerically when f has no closed form)."""
        x = self._preimage(y)
        return self._numerical_preimage(y) if x is None else x


def _minimize_on_reals(gradient_at, remember):
    """:meth:`FenchelConjugate.minimize` on R^d of a float64 array ``linear``, its parts bound once (the one
    place the sign of the linear part is taken)."""
    divide = np.divide

    def minimize(linear, strength: float):
        x = divide(linear, -strength)  # = -linear / strength, bit for bit, one pass
        y = gradient_at(x)
        remember((y, x))  # a deque of the last _MEMO_SIZE pairs
        return y

    return minimize


def agreed_dimension(objective: Objective, domain, *, dimension=None, x0=None) -> int:
    """The length of x, from every place that states it (``x0``, ``dimension``, the objective's, a
    Box's), checked to agree; a clear error when none does or two differ."""
    given = []
    if x0 is not None:
        size = math.prod(np.shape(x0))  # (x0.shape: no conversion of a foreign x0)
        given.append((f"x0 has {size} coordinates", size))
    if dimension is not None:
        dimension = check_count(dimension, "dimension")
        given.append((f"dimension={dimension}", dimension))
    if objective.dimension is not None:
        given.append((f"Objective(..., dimension={objective.dimension})", objective.dimension))
    if getattr(domain, "dimension", None) is not None:
        given.append((f"{type(domain).__name__} has {domain.dimension} coordinates", int(domain.dimension)))
    if not given:
        raise ValueError("the Fenchel game needs the dimension of x: pass dimension=d (or x0=..., "
                         "Objective(..., dimension=d), or a Box domain).")
    if len({size for _, size in given}) > 1:
        raise ValueError(f"the dimension of x is stated in ways that disagree: {'; '.join(text for text, _ in given)}; "
                         "make them agree (or state it once).")
    return given[0][1]


@attrs.frozen
class FenchelGame(Payoff):
    r""":math:`g(y,x)=\langle x,y\rangle-f^*(y)`: y (the w seat, on :math:`\mathbb R^d`) maximises,
    x (the p seat, on ``domain`` K) minimises; :math:`\min_{x\in K}\max_yg=\min_{x\in K}f`.

    ``loss_for_p(y)`` :math:`=\langle y,\cdot\rangle` (linear), ``loss_for_w(x)``
    :math:`=f^*-\langle x,\cdot\rangle` (``Loss(-x, 1, f*)``). ``domain=None`` lets the x-player
    play on any domain (then its learner's domain is K). ``dimension`` defaults to the objective's,
    or a box's.

    Parameters
    ----------
    objective : Objective
        f, with its value, gradient and (optionally) smoothness.
    domain : Domain, optional
        K, the x-player's set (default None: any).
    dimension : int, optional
        The length d of x (default: the objective's or the box's).
    """

    objective: Objective = attrs.field()
    domain: Any = attrs.field(default=None, validator=domain_validator)
    # None (the default) is resolved by __attrs_post_init__ (agreed_dimension): the field always holds an int
    dimension: int = attrs.field(default=None, kw_only=True, converter=_optional_dimension)
    w_domain = Reals()

    def __attrs_post_init__(self):
        if not isinstance(self.objective, Objective):
            raise TypeError(f"objective must be a gamedyn.Objective(value, gradient), got {self.objective!r}.")
        object.__setattr__(self, "dimension", agreed_dimension(self.objective, self.domain, dimension=self.dimension))

    @property
    def p_domain(self):
        """K, the x-player's set (None: any)."""
        return self.domain

    @property
    def w_dimension(self) -> int:
        """d, the length of y."""
        return self.dimension

    @property
    def p_dimension(self) -> int:
        """d, the length of x."""
        return self.dimension

    @property
    def backend(self) -> Backend:
        """The namespace and device of the run: the objective's (``Objective(..., backend=X)``; numpy by default)."""
        return self.objective.backend

    def value(self, w, p) -> float:
        """g(y, x) = <x, y> - f*(y) with y = w, x = p."""
        backend = self.objective.backend
        if not backend.is_numpy:
            return (to_host_scalar(backend.xp.sum(backend.asarray(p) * backend.asarray(w)))
                    - self.objective.conjugate_term.value(w))
        return float(np.asarray(p) @ np.asarray(w)) - self.objective.conjugate_term.value(w)

    def loss_for_p(self, w, p_played=None) -> Loss:
        return Loss(w if is_foreign(w) else np.asarray(w, dtype=np.float64), 0.0)

    def loss_for_w(self, p, w_played=None) -> Loss:
        return Loss(-p if is_foreign(p) else -np.asarray(p, dtype=np.float64), 1.0, self.objective.conjugate_term)

    def conjugate_form(self) -> ConjugateForm | None:
        """The declaration that the losses are ``Loss(y)`` and ``Loss(-x, 1, f*)`` (the lean round's; see
        :class:`gamedyn.engine.payoffs.ConjugateForm`); None for an objective on another namespace (the lean
        round's kernels are numpy's: such a run takes the watched round, in its namespace)."""
        if not self.objective.backend.is_numpy:
            return None
        conjugate = self.objective.conjugate_term
        return ConjugateForm(conjugate, conjugate.minimizer)
