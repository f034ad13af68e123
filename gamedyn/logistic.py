"""Seed paper 2: exponential convergence of (stochastic) gradient descent for separable logistic
regression (spec ``separable-logistic.md``).

Conventions. ``A`` holds the signed rows ``z_i = y_i x_i`` (n x d, NumPy or scipy.sparse); the
margin of point i is ``m_i(w) = z_i . w``; the loss is ``L(w) = (1/n) sum_i l(m_i)`` with
``l(m) = ln(1 + e^{-m})`` (eq. 1). Everything is computed in float64 (float32 input is upcast)
and every loss is carried as ``ln L`` so that values like ``e^{-10000}`` stay representable
(spec section 4).

Contents
* stable primitives: :func:`logistic_loss`, :func:`log_logistic_loss`, :func:`log_sigmoid`,
  :func:`log_loss`, :func:`exp_potential`;
* GD with the increasing schedule (6)+(7): :class:`IncreasingSchedule`, :func:`gd`;
* Adaptive SGD (10)+(11): :func:`adaptive_sgd`, :func:`sgd_indices`;
* Block Adaptive SGD (14): :func:`block_adaptive_sgd`;
* the bounds: :func:`theorem_3_3_i_log`, :func:`theorem_3_3_ii_log`, :func:`lemma_3_2_log`,
  :func:`theorem_3_4`, :func:`theorem_3_5_blocks`, :func:`theorem_3_5_horizon`.
"""

from __future__ import annotations

import json
import math
import numbers
import os
from collections.abc import Iterator
from fractions import Fraction

import attrs
import numpy as np
import scipy.integrate
import scipy.sparse as sp

from gamedyn.core.numerics import log_sum_exp
from gamedyn.core.validation import check_count, check_matrix, check_positive, check_vector
from gamedyn.engine import checkpoints as _checkpoints

__all__ = [
    "logistic_loss",
    "log_logistic_loss",
    "log_sigmoid",
    "log_loss",
    "exp_potential",
    "resolve_margin",
    "IncreasingSchedule",
    "GDResult",
    "gd",
    "SGDResult",
    "sgd_indices",
    "sgd_coefficient",
    "adaptive_sgd",
    "block_adaptive_sgd",
    "theorem_3_3_i_log",
    "theorem_3_3_ii_log",
    "lemma_3_2_log",
    "theorem_3_4",
    "theorem_3_5_blocks",
    "theorem_3_5_horizon",
]

_LN2 = math.log(2.0)
_SERIES_FROM = 33.0  # above this margin ln l(m) = -m - e^{-m}/2 to full precision (spec 4.1)
_CHUNK = 8192  # the SGD index stream is drawn in chunks of this size (spec section 5)
_TINY = np.finfo(np.float64).tiny
_ABEL_LIMIT = 1e-3  # IncreasingSchedule leaps over phase 1 where gamma^2/(2 ln^2 S) is below this  # smallest normal float64: below it gamma^2 is computed in logs


# --------------------------------------------------------------------------------------------
# Stable primitives
# --------------------------------------------------------------------------------------------


def logistic_loss(m):
    """Per-sample logistic loss ``l(m) = ln(1 + e^{-m})`` (eq. 1), as ``logaddexp(0, -m)``.

    Exact down to ``m ~ 745`` where it underflows to 0; use :func:`log_logistic_loss` beyond.
    """
    return np.logaddexp(0.0, -np.asarray(m, dtype=np.float64))


def log_logistic_loss(m):
    """``ln l(m)``: ``-m - e^{-m}/2`` for ``m > 33``, else ``log(logaddexp(0, -m))`` (spec 4.1).

    Finite for every finite ``m`` (relative error about 2e-16), so ``l(m) = e^{-10000}`` is
    represented as ``-10000``.
    """
    m = np.asarray(m, dtype=np.float64)
    big = m > _SERIES_FROM
    safe = np.where(big, 0.0, m)
    out = np.log(np.logaddexp(0.0, -safe))
    return np.where(big, -m - 0.5 * np.exp(-np.where(big, m, _SERIES_FROM)), out)


def log_sigmoid(u):
    """``ln sigma(u) = -ln(1 + e^{-u})`` computed as ``-logaddexp(0, -u)`` (never ``log(0)``)."""
    return -np.logaddexp(0.0, -np.asarray(u, dtype=np.float64))


def _log_mean_loss(m) -> float:
    """``ln((1/n) sum_i l(m_i))`` by log-sum-exp of :func:`log_logistic_loss`."""
    return log_sum_exp(log_logistic_loss(m)) - math.log(m.shape[0])


_LINEAR_OK = 650.0  # below this smallest margin the linear-domain mean of l(m_i) is exact enough


def _loss_and_log_sigmoid(m):
    """``(ln L, ln sigma(-m))`` from one ``logaddexp``: ``ln sigma(-m) = -(m + l(m))``.

    When ``min m < 650`` the largest term ``l(m_i) >= e^{-650}/2`` is a normal float and terms
    that underflow (``< e^{-708}``) change the mean by less than ``1e-25`` relative, so
    ``log(mean(l))`` is as accurate as log-sum-exp; otherwise fall back to :func:`_log_mean_loss`.
    """
    loss = np.logaddexp(0.0, -m)
    log_l = math.log(np.mean(loss)) if np.min(m) < _LINEAR_OK else _log_mean_loss(m)
    return log_l, -(m + loss)


def log_loss(A, w) -> float:
    """``ln L(w)`` for the rows ``z_i = y_i x_i`` of ``A`` (eq. 1), via log-sum-exp.

    >>> import numpy as np
    >>> round(log_loss(np.array([[1.0, 0.0]]), np.array([1e4, 0.0])))
    -10000
    """
    A = _check_data(A)
    w = check_vector(w, "w", size=A.shape[1])
    return _log_mean_loss(np.asarray(A @ w))


def exp_potential(A, w) -> float:
    """The exponential potential ``F(w) = (1/n) sum_i exp(-m_i(w))``; ``F(0) = 1``.

    Can overflow to ``inf`` when some margin is below about -709.
    """
    A = _check_data(A)
    w = check_vector(w, "w", size=A.shape[1])
    m = np.asarray(A @ w)
    log_f = log_sum_exp(-m) - math.log(m.shape[0])
    return math.exp(log_f) if log_f < 709.78 else math.inf


# --------------------------------------------------------------------------------------------
# Validation helpers
# --------------------------------------------------------------------------------------------


def _check_data(A):
    """Signed rows as float64 (dense) or float64 CSR with duplicate entries summed (sparse)."""
    A = check_matrix(A, "A", dtype=np.float64)
    if sp.issparse(A) and not A.has_canonical_format:
        A = A.copy()
        A.sum_duplicates()
    return A


def _check_open_unit(value, name: str, example: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number in (0, 1), got {value!r}.")
    value = float(value)
    if not (0.0 < value < 1.0):
        raise ValueError(f"{name} must lie strictly between 0 and 1, got {value!r}; pass e.g. {name}={example}.")
    return value


def _check_gamma_number(gamma) -> float:
    if isinstance(gamma, bool) or not isinstance(gamma, numbers.Real):
        raise TypeError(
            f"gamma must be a positive margin (a real number) or 'auto', got {gamma!r}; "
            "pass gamma='auto' to compute it with gamedyn.certify.margins.max_margin."
        )
    gamma = float(gamma)
    if not (math.isfinite(gamma) and gamma > 0.0):
        raise ValueError(
            f"gamma must be a finite margin > 0, got {gamma!r}; separable data have a positive margin. "
            "Pass any valid 0 < gamma <= gamma_max, or gamma='auto' to compute the certified "
            "margin with gamedyn.certify.margins.max_margin."
        )
    return gamma


def _schedule_gamma(gamma) -> float:
    if gamma is None or isinstance(gamma, str):
        raise TypeError(
            f"IncreasingSchedule needs a numeric gamma > 0, got {gamma!r}; to compute the margin from "
            "data use IncreasingSchedule.from_data(A, gamma='auto')."
        )
    return _check_gamma_number(gamma)


def resolve_margin(gamma, A=None) -> float:
    """Margin for Assumption 3.1: a number (checked > 0) or ``"auto"``/``None``.

    ``"auto"`` calls :func:`gamedyn.certify.margins.max_margin` on ``A`` and returns its certified LOWER
    value ``min_i z_i . w_hat`` (spec 1.0), a valid margin; that function raises ``ValueError``
    when ``A`` is not separable.
    """
    if gamma is None or (isinstance(gamma, str) and gamma == "auto"):
        if A is None:
            raise ValueError("gamma='auto' needs the data A to compute the margin; pass A or a number gamma > 0.")
        from gamedyn.certify.margins import max_margin  # lazy: sibling module

        A = _check_data(A)
        return _check_gamma_number(max_margin(A.toarray() if sp.issparse(A) else A).gamma)
    if isinstance(gamma, str):
        raise ValueError(f"gamma must be a number > 0 or 'auto', got {gamma!r}; pass gamma='auto'.")
    return _check_gamma_number(gamma)


# --------------------------------------------------------------------------------------------
# GD with the increasing schedule (6)+(7)
# --------------------------------------------------------------------------------------------


@attrs.frozen
class IncreasingSchedule:
    """The non-adaptive increasing step sizes (7), computed in the log domain.

    ``eta_0 = 1/(ln 2 + ||w_0||)``, ``S_0 = gamma^2 eta_0`` and for ``t >= 1``
    ``D_t = max(2 F(w_0), ln^2 S_{t-1})``, ``eta_t = S_{t-1} / (2 D_t)``,
    ``S_t = S_{t-1} (1 + gamma^2/(2 D_t))``, i.e.
    ``ln eta_t = ln S_{t-1} - ln 2 - ln D_t`` and ``ln S_t = ln S_{t-1} + log1p(gamma^2/(2 D_t))``.
    The schedule depends only on ``gamma``, ``w0_norm = ||w_0||`` and ``f0 = F(w_0)`` and never
    evaluates the loss. ``variant="lnplus"`` (not in the paper, spec section 2 item 1) uses
    ``max(ln S, 0)^2`` in place of ``ln^2 S``, which removes the phase-1 stall for small gamma.

    Use :meth:`from_data` to fill ``gamma`` (``"auto"``), ``w0_norm`` and ``f0`` from data.
    """

    gamma: float = attrs.field(converter=lambda g: _schedule_gamma(g))
    variant: str = attrs.field(default="paper")
    w0_norm: float = attrs.field(default=0.0, converter=lambda v: check_positive(v, "w0_norm", allow_zero=True))
    f0: float = attrs.field(default=1.0, converter=lambda v: check_positive(v, "f0"))

    @variant.validator
    def _check_variant(self, attribute, value):
        if value not in ("paper", "lnplus"):
            raise ValueError(f"variant must be 'paper' or 'lnplus', got {value!r}; pass variant='paper' for (7).")

    @classmethod
    def from_data(cls, A, gamma="auto", w0=None, variant: str = "paper") -> "IncreasingSchedule":
        """Schedule for data ``A`` started at ``w0`` (default 0): fills ``||w0||`` and ``F(w0)``."""
        A = _check_data(A)
        gamma = resolve_margin(gamma, A)
        if w0 is None:
            return cls(gamma, variant)
        w0 = check_vector(w0, "w0", size=A.shape[1])
        return cls(gamma, variant, float(np.linalg.norm(w0)), exp_potential(A, w0))

    @property
    def log_eta0(self) -> float:
        """log eta_0 = -log(ln 2 + ||w_0||)."""
        return -math.log(_LN2 + self.w0_norm)

    def _growth(self, d: float) -> float:
        """``ln(S_t / S_{t-1}) = log1p(gamma^2 / (2 D_t))``; in logs when ``gamma^2`` underflows."""
        g2 = self.gamma**2
        if g2 >= _TINY:
            return math.log1p(g2 / (2.0 * d))
        return math.log1p(math.exp(2.0 * math.log(self.gamma) - _LN2 - math.log(d)))

    def _steps(self):
        """Yield ``(ln eta_t, ln S_t)`` for t = 0, 1, 2, ... (the recursion (7))."""
        two_f0 = 2.0 * self.f0
        plus = self.variant == "lnplus"
        log_eta = self.log_eta0
        log_s = 2.0 * math.log(self.gamma) + log_eta
        yield log_eta, log_s
        while True:
            base = max(log_s, 0.0) if plus else log_s
            d = max(two_f0, base * base)
            log_eta = log_s - _LN2 - math.log(d)
            log_s = log_s + self._growth(d)
            yield log_eta, log_s

    def compute(self, T: int):
        """``(log_eta, log_S)``, both of length ``T + 1``: ``ln eta_t`` and ``ln S_t``, t = 0..T."""
        T = check_count(T, "T", minimum=0)
        out = np.empty((2, T + 1))
        for t, pair in zip(range(T + 1), self._steps()):
            out[:, t] = pair
        return out[0], out[1]

    def log_eta(self, T: int):
        """``ln eta_t`` for t = 0..T-1 (the steps used by ``T`` GD iterations)."""
        T = check_count(T, "T")
        return self.compute(T - 1)[0]

    def log_S(self, T: int):
        """``ln S_t`` for t = 0..T, with ``S_t = gamma^2 sum_{k<=t} eta_k``."""
        return self.compute(T)[1]

    def _first_above(self, level: float) -> int:
        """First t with ``ln S_t > level`` (``level`` is ``-sqrt(2 F0)`` or ``+sqrt(2 F0)``), without
        running the whole recursion step by step.

        Write ``x_t = ln S_t``. While ``x_t <= sqrt(2 F0)`` the recursion (7) has two regimes:
        ``x < -sqrt(2 F0)`` (paper variant): ``x <- x + h(x)``, ``h(x) = log1p(c / x^2)``,
        ``c = gamma^2/2``; otherwise (and always for ``lnplus``) ``D = 2 F0`` and ``x <- x + b`` with
        ``b = log1p(gamma^2/(4 F0))``, so the count is ``floor((level - x)/b) + 1``. The first regime
        is leapt over with an Abel function ``alpha`` (``alpha(x + h(x)) = alpha(x) + 1``):
        ``alpha(x) = int dx / v(x)`` where ``v = h - h h'/2 + h h'^2/3 + h^2 h''/12`` is the vector
        field whose time-1 flow is the step (truncation error ``O((c/x^2)^3)`` per step), so
        ``x_t > L`` iff ``t > alpha(L) - alpha(x_0)``; the integral is one ``quad`` call. Where
        ``c / x^2 > 1e-3`` (at most a few thousand steps) the recursion itself is run, which also
        corrects the last step of the leap. Counts beyond ``2^53`` are exact Python ints of the
        computed ratio (relative accuracy about 1e-13).
        """
        two_f0 = 2.0 * self.f0
        x = 2.0 * math.log(self.gamma) + self.log_eta0
        if x > level:
            return 0
        border = -math.sqrt(two_f0)
        t = 0
        if self.variant == "paper" and x <= border:
            target = min(level, border)
            t, x = self._phase_one(x, target)
            if target == level or x > level:
                return t
        return t + self._geometric_count(level - x)

    def _phase_one(self, x0: float, target: float):
        """``(t, x_t)`` for the first t with ``x_t > target``, ``x_0 = x0 <= target <= -sqrt(2 F0)``."""
        log_c = 2.0 * math.log(self.gamma) - _LN2
        switch = -math.exp(0.5 * (log_c - math.log(_ABEL_LIMIT)))  # where c / x^2 = _ABEL_LIMIT
        leap_to = min(target, switch)
        t, x = 0, x0
        if leap_to > x0:
            t, fraction = self._steps_between(x0, leap_to)  # x_t <= leap_to < x_{t+1}
            x = self._abel_inverse(leap_to, fraction)
        two_f0 = 2.0 * self.f0
        while x <= target:  # the recursion (7) itself, as in _steps
            step = x + self._growth(max(two_f0, x * x))
            t += 1
            if step == x:  # below one ulp: after the leap alpha says x_t > target, float cannot show it
                break
            x = step
        return t, x
    def _geometric_count(self, distance: float) -> int:
        """Smallest k >= 1 with ``k b > distance >= 0``, ``b = log1p(gamma^2/(4 F0))``."""
        g2 = self.gamma**2
        if g2 >= _TINY:
            b = math.log1p(g2 / (4.0 * self.f0))
            ratio = distance / b
            if ratio < 2.0**53:
                return math.floor(ratio) + 1
            exact = Fraction(b)
        else:  # b = gamma^2/(4 F0) to full precision (log1p(u) = u below 1e-17), as an exact rational
            exact = Fraction(self.gamma) ** 2 / (4 * Fraction(self.f0))
        return math.floor(Fraction(distance) / exact) + 1

    def _abel_density(self, x):
        """``c / v(x)`` (see :meth:`_first_above`), finite even when ``c = gamma^2/2`` underflows."""
        x = np.asarray(x, dtype=np.float64)
        log_c = 2.0 * math.log(self.gamma) - _LN2
        u = np.exp(log_c - 2.0 * np.log(-x))  # c / x^2 (x < 0 here)
        h = np.log1p(u)
        g = np.where(u > 0, u / np.where(h > 0, h, 1.0), 1.0)  # c / h = x^2 g
        h1 = -2.0 * u / (x * (1.0 + u))
        h2 = 6.0 * u / (x * x * (1.0 + u)) - (2.0 * u / x) ** 2 / (1.0 + u) ** 2
        return x * x * g / (1.0 - 0.5 * h1 + h1 * h1 / 3.0 + h * h2 / 12.0)

    def _steps_between(self, a: float, b: float):
        """``alpha(b) - alpha(a)`` as ``(integer part, fractional part)``."""
        value, _ = scipy.integrate.quad(self._abel_density, a, b, epsabs=0.0, epsrel=1.2e-14, limit=200)
        c = self.gamma**2 / 2.0
        if c >= _TINY and value / c < 2.0**53:
            steps = value / c
            whole = math.floor(steps)
            return whole, steps - whole
        exact = Fraction(value) / (Fraction(self.gamma) ** 2 / 2)
        whole = math.floor(exact)
        return whole, float(exact - whole)

    def _abel_inverse(self, point: float, fraction: float) -> float:
        """``y <= point`` with ``alpha(point) - alpha(y) = fraction`` (in [0, 1)), by chord steps."""
        slope = math.exp(2.0 * math.log(self.gamma) - _LN2) / float(self._abel_density(point))  # 1/alpha'
        y = point
        for _ in range(4):
            gone = self._steps_between(y, point)[1] if y < point else 0.0
            y = min(point, y - (fraction - gone) * slope)
        return y

    @property
    def tau1(self) -> int:
        """First t with ``ln S_t > -sqrt(2 F0)``: end of phase 1 (Lemma A.3).

        Phase 1 is non-empty iff ``S_0 < exp(-sqrt(2 F0))`` (``gamma < 0.4105`` for ``w_0 = 0``).
        About ``(2/(3 gamma^2)) |ln S_0|^3`` steps; counted without stepping (see :meth:`_first_above`),
        so ``gamma = 0.001`` (1.6e9 steps) takes milliseconds.
        """
        return self._first_above(-math.sqrt(2.0 * self.f0))

    @property
    def tau2(self) -> int:
        """First t with ``ln S_t > +sqrt(2 F0)``: end of the geometric phase 2 (Lemma A.4).

        After it (phase 3) ``ln^3 S_t`` grows by about ``1.5 gamma^2`` per step.
        """
        return self._first_above(math.sqrt(2.0 * self.f0))


@attrs.frozen(eq=False)
class GDResult:
    """Output of :func:`gd`: ``w`` = w_T, ``log_loss[t] = ln L(w_t)`` (t = 0..T),
    ``log_eta[t] = ln eta_t`` (t = 0..T-1) and, when asked for, ``snapshots[k] = w_{snapshot_times[k]}``.

    With ``gd(..., record=times)`` only those times are kept: ``times`` holds them (sorted),
    ``log_loss[k] = ln L(w_{times[k]})`` and ``log_eta[k] = ln eta_{times[k]}`` (the step the
    schedule gives at that time, also at t = T). ``times`` is None when every t is kept."""

    w: np.ndarray
    log_loss: np.ndarray
    log_eta: np.ndarray
    snapshot_times: np.ndarray = attrs.field(factory=lambda: np.zeros(0, dtype=np.int64))
    snapshots: np.ndarray = attrs.field(factory=lambda: np.zeros((0, 0)))
    times: np.ndarray | None = None


def _physical_memory() -> float:
    try:
        return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - not POSIX
        return math.inf


def _history_arrays(T: int):
    """``ln L`` (T + 1) and ``ln eta`` (T) for every t, or a MemoryError that says how to avoid them."""
    needed = 16.0 * (T + 1)
    advice = (f"gd keeps ln L(w_t) and ln eta_t for every t by default, {needed:.3g} bytes for T = {T}; "
              "pass record=[0, T] (or any few times) to keep only those, in O(1) memory.")
    if needed > _physical_memory():
        raise MemoryError(advice)
    try:
        return np.empty(T + 1), np.empty(T)
    except MemoryError:
        raise MemoryError(advice) from None


def gd(A, T: int, step, w0=None, *, snapshots=None, record=None) -> GDResult:
    """Full-batch GD ``w_{t+1} = w_t - eta_t grad L(w_t)`` (eq. 6) for ``T`` iterations.

    ``step`` is a positive float (constant step, section 1.2 of the spec) or an
    :class:`IncreasingSchedule` (eq. 7); for a non-zero ``w0`` build the schedule with
    ``IncreasingSchedule.from_data(A, gamma, w0)``. The update is
    ``w += A^T exp(ln eta_t + ln sigma(-m) - ln n)``, so a huge step times a vanishing sigmoid
    never forms ``inf * 0``. ``snapshots`` (optional iterations in [0, T]) keeps those ``w_t``.
    ``record`` (optional iterations in [0, T]) keeps ``ln L`` and ``ln eta`` only there (O(1)
    memory in T); by default every t is kept, O(T) memory, and a ``T`` whose history cannot fit
    raises a ``MemoryError`` saying to pass ``record`` before anything runs. The schedule is
    evaluated lazily, step by step, in both cases (the same floating-point operations).
    """
    A = _check_data(A)
    T = check_count(T, "T")
    keep = _check_record(snapshots, T, "snapshots") if snapshots is not None else np.zeros(0, dtype=np.int64)
    times = _check_record(record, T) if record is not None else None
    n, d = A.shape
    w = np.zeros(d) if w0 is None else check_vector(w0, "w0", size=d).copy()
    if isinstance(step, IncreasingSchedule):
        norm = float(np.linalg.norm(w))
        f0 = exp_potential(A, w)
        if not (math.isclose(norm, step.w0_norm, rel_tol=1e-9, abs_tol=1e-12)
                and math.isclose(f0, step.f0, rel_tol=1e-9)):
            raise ValueError(
                f"step was built for ||w0|| = {step.w0_norm!r}, F(w0) = {step.f0!r} but w0 has "
                f"||w0|| = {norm!r}, F(w0) = {f0!r}; build it with IncreasingSchedule.from_data(A, gamma, w0)."
            )
        log_etas: Iterator[float] = (pair[0] for pair in step._steps())
    elif isinstance(step, (numbers.Real, np.floating)) and not isinstance(step, bool):
        constant = math.log(check_positive(step, "step"))
        log_etas = iter(lambda: constant, None)
    else:
        raise TypeError(
            f"step must be a positive float (constant step) or an IncreasingSchedule, got {step!r}; "
            "pass e.g. step=4.0 or step=IncreasingSchedule.from_data(A)."
        )
    if times is None:
        log_loss, log_eta = _history_arrays(T)
    else:
        log_loss, log_eta = np.empty(times.size), np.empty(times.size)
    AT = A.T
    kept = np.empty((keep.size, d))
    log_n = math.log(n)
    k = r = 0
    for t in range(T + 1):
        if k < keep.size and keep[k] == t:
            kept[k] = w
            k += 1
        m = np.asarray(A @ w)
        value, log_sig = _loss_and_log_sigmoid(m)
        log_eta_t = next(log_etas)
        if times is None:
            log_loss[t] = value
            if t < T:
                log_eta[t] = log_eta_t
        elif r < times.size and times[r] == t:
            log_loss[r], log_eta[r] = value, log_eta_t
            r += 1
        if t < T:
            w = w + AT @ np.exp((log_eta_t - log_n) + log_sig)
    return GDResult(w=w, log_loss=log_loss, log_eta=log_eta, snapshot_times=keep, snapshots=kept, times=times)


# --------------------------------------------------------------------------------------------
# Adaptive SGD (10)+(11) and Block Adaptive SGD (14)
# --------------------------------------------------------------------------------------------


@attrs.frozen(eq=False)
class SGDResult:
    """Output of :func:`adaptive_sgd` / :func:`block_adaptive_sgd`.

    ``w`` = w_T; ``times`` the recorded iterations and ``log_loss[k] = ln L(w_{times[k]})`` (full
    batch); ``hitting_time`` = first t <= T with ``L(w_t) <= target`` (None if never);
    ``target`` the tolerance it refers to; ``loss_evaluations`` how many full losses were computed
    (records plus the exact skip-rule checks). For the block version ``block_starts`` holds
    ``s_0 = 0, s_1, ..., s_K`` (the last one >= T; int64, or exact Python ints in an object array
    when a block is longer than int64) and ``block_eps`` the ``eps_k`` of each block; both are
    empty for :func:`adaptive_sgd`.
    """

    w: np.ndarray
    times: np.ndarray
    log_loss: np.ndarray
    hitting_time: int | None
    target: float
    loss_evaluations: int
    block_starts: np.ndarray = attrs.field(factory=lambda: np.zeros(0, dtype=np.int64))
    block_eps: np.ndarray = attrs.field(factory=lambda: np.zeros(0))


def _index_chunks(n: int, seed):
    """The chunks ``default_rng(seed).integers(0, n, 8192)``, one after the other, drawn lazily."""
    rng = np.random.default_rng(seed)
    while True:
        yield rng.integers(0, n, size=_CHUNK)


def sgd_indices(n: int, T: int, seed=None):
    """The index stream ``i_0, ..., i_{T-1}`` that ``seed`` produces in the SGD functions.

    ``default_rng(seed).integers(0, n, 8192)`` drawn chunk after chunk (spec section 5); pass
    the result as ``indices=`` to replay a run exactly. The SGD functions draw the same chunks
    lazily, so they never hold the O(T) stream.
    """
    n, T = check_count(n, "n"), check_count(T, "T")
    out = np.empty(T, dtype=np.int64)
    for start, chunk in zip(range(0, T, _CHUNK), _index_chunks(n, seed)):
        out[start:start + _CHUNK] = chunk[:T - start]
    return out


def _check_indices(indices, n: int, T: int, seed):
    """The index stream as an iterator of chunks of length 8192 (the last may be longer than needed)."""
    if indices is None:
        return _index_chunks(n, seed)
    if seed is not None:
        raise ValueError("pass either seed or indices, not both; indices replays a fixed stream.")
    idx = np.asarray(indices)
    if idx.ndim != 1 or idx.shape[0] < T or not np.issubdtype(idx.dtype, np.integer):
        raise ValueError(
            f"indices must be a 1-D integer array of length >= T = {T}, got dtype {idx.dtype} and "
            f"shape {idx.shape}; build one with sgd_indices(n, T, seed)."
        )
    idx = idx[:T].astype(np.int64)
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise ValueError(f"indices must lie in [0, n) = [0, {n}), got range [{idx.min()}, {idx.max()}].")
    return (idx[start:start + _CHUNK] for start in range(0, T, _CHUNK))


def _check_record(record, T: int, name: str = "record"):
    if record is None:  # the first and last iterate: O(1) memory and two full losses by default
        return np.array([0, T], dtype=np.int64)
    times = np.asarray(record)
    if times.ndim != 1 or not np.issubdtype(times.dtype, np.integer) or times.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array of integer times in [0, T], got {record!r}.")
    times = np.unique(times)
    if times[0] < 0 or times[-1] > T:
        raise ValueError(f"{name} times must lie in [0, T] = [0, {T}], got range [{times[0]}, {times[-1]}].")
    return times.astype(np.int64)


def _row_access(A):
    """Return ``(dot, axpy, row_norms)`` for row i: ``z_i . w`` and ``w += c z_i``."""
    if sp.issparse(A):
        ptr, col, val = A.indptr, A.indices, A.data

        def dot(i, w):
            lo, hi = ptr[i], ptr[i + 1]
            return float(val[lo:hi] @ w[col[lo:hi]])

        def axpy(i, c, w):
            lo, hi = ptr[i], ptr[i + 1]
            w[col[lo:hi]] += c * val[lo:hi]

        norms = np.sqrt(np.asarray(A.multiply(A).sum(axis=1)).ravel())
    else:

        def dot(i, w):
            return float(A[i] @ w)

        def axpy(i, c, w):
            w += c * A[i]

        norms = np.linalg.norm(A, axis=1)
    return dot, axpy, norms


def _scalar_log_sigmoid_neg(m: float) -> float:
    """``ln sigma(-m) = -ln(1 + e^{m})``."""
    return -(m + math.log1p(math.exp(-m))) if m > 0 else -math.log1p(math.exp(m))


def _scalar_log_loss(m: float) -> float:
    """Scalar :func:`log_logistic_loss`."""
    if m > _SERIES_FROM:
        return -m - 0.5 * math.exp(-m)
    return math.log(-m + math.log1p(math.exp(m)) if m < 0 else math.log1p(math.exp(-m)))


def sgd_coefficient(m, eps):
    """Update coefficient of (10)+(11): ``c = eta sigma(-m) = sigma(-m) / max(eps, l(m))``.

    Formed as ``exp(ln sigma(-m) - max(ln eps, ln l(m)))``; it lies in (0, 1] because
    ``sigma(-m) <= l(m)`` (it underflows to 0 only when ``sigma(-m)`` does, for m above ~745), and
    never overflows even when ``1/eps = inf``.
    """
    eps = check_positive(eps, "eps")
    m = np.asarray(m, dtype=np.float64)
    return np.exp(log_sigmoid(-m) - np.maximum(math.log(eps), log_logistic_loss(m)))


class _SGDState:
    """Everything the SGD loop carries from iteration t to t + 1 (saved in a checkpoint)."""

    __slots__ = ("t", "w", "recorded", "k", "evaluations", "hit", "budget", "block", "chunk")
    FIELDS = __slots__

    def __init__(self, d: int, records: int):
        self.t, self.w, self.recorded = 0, np.zeros(d), np.empty(records)
        self.k, self.evaluations, self.hit, self.budget, self.block = 0, 0, None, -math.inf, 0
        self.chunk = None  # the chunk of the index stream that holds i_{t-1} (None before t = 1)


def _run_sgd(A, T, starts, log_eps, idx, times, log_target, state=None, every=None, save=None, interrupt=None):
    """Shared loop of (10): ``w += c_t z_{i_t}`` with ``c_t = exp(ln sigma(-m) - max(ln eps_t, ln l(m)))``.

    The hitting time of ``ln L <= log_target`` is exact: with ``R = max_j ||z_j||`` one step
    moves every margin by at most ``c_t ||z_i|| R`` and ``l(m + D) >= e^{-D} l(m)``, so
    ``ln L(w_{t+1}) >= ln L(w_t) - c_t ||z_i|| R`` (spec section 2 item 11, scaled for rows of norm
    above 1). The full loss is only re-evaluated once that lower bound may have reached the target.

    ``state`` (default: w_0 = 0 at t = 0) is where the loop starts; with ``every = k`` it runs in
    segments of k iterations and calls ``save(state)`` between them (no per-iteration cost). With
    ``interrupt`` (a :class:`gamedyn.engine.checkpoints.InterruptFlag`) segments also end every 8192
    iterations, where a Ctrl-C or SIGTERM is answered: ``save(state)``, then ``RunInterrupted``.
    """
    n, d = A.shape
    dot, axpy, norms = _row_access(A)
    scale = norms * float(np.max(norms))
    state = _SGDState(d, times.shape[0]) if state is None else state
    slack = 1e-6 * (1.0 + abs(log_target))  # absorbs rounding in ln L and in the sum; the bound is exact
    while state.t <= T:
        end = T + 1 if every is None else min(T + 1, (state.t // every + 1) * every)
        if interrupt is not None:
            end = min(end, (state.t // _CHUNK + 1) * _CHUNK)  # a look at the flag every 8192 iterations
        _sgd_segment(A, T, starts, log_eps, idx, times, log_target, state, end, dot, axpy, scale, slack)
        if interrupt is not None and interrupt.raised:
            save(state)
            interrupt.stop(min(state.t, T))
        if save is not None and state.t <= T and every is not None and state.t % every == 0:
            save(state)
    return state.w, state.recorded, state.hit, state.evaluations


def _sgd_segment(A, T, starts, log_eps, idx, times, log_target, state, end, dot, axpy, scale, slack):
    """Iterations t = state.t .. end - 1 of :func:`_run_sgd` (the record check at t, then the step)."""
    w, recorded = state.w, state.recorded
    k, evaluations, hit, budget, block = state.k, state.evaluations, state.hit, state.budget, state.block
    chunk, log_eps_t = state.chunk, log_eps[block]
    for t in range(state.t, end):
        on_record = k < times.shape[0] and times[k] == t
        if on_record or (hit is None and budget <= slack):
            value = _loss_and_log_sigmoid(np.asarray(A @ w))[0]
            evaluations += 1
            if on_record:
                recorded[k] = value
                k += 1
            if hit is None:
                budget = value - log_target
                if budget <= 0.0:
                    hit = t
        if t == T:
            break
        while block + 1 < len(log_eps) and t >= starts[block + 1]:
            block += 1
            log_eps_t = log_eps[block]
        if t % _CHUNK == 0:
            chunk = next(idx)
        i = chunk[t % _CHUNK]
        m = dot(i, w)
        c = math.exp(_scalar_log_sigmoid_neg(m) - max(log_eps_t, _scalar_log_loss(m)))
        axpy(i, c, w)
        budget -= c * scale[i]
    state.t, state.k, state.evaluations, state.hit, state.budget, state.block = end, k, evaluations, hit, budget, block
    state.chunk = chunk


def _generator_chunks(n: int, generator):
    """The chunks ``generator.integers(0, n, 8192)``, one after the other (as :func:`_index_chunks`)."""
    while True:
        yield generator.integers(0, n, size=_CHUNK)


def _generator_from_state(state: dict):
    generator = np.random.Generator(getattr(np.random, state["bit_generator"])())
    generator.bit_generator.state = state
    return generator


def _sgd_run_with_checkpoints(kind, A, T, parts, seed, indices, times, starts, log_eps, log_target,
                              checkpoint, checkpoint_every, resume_from):
    """The index stream, then :func:`_run_sgd`, writing / resuming checkpoints (gamedyn.engine.checkpoints).

    The stream is drawn lazily in chunks of 8192. A checkpoint keeps the generator's state at the
    start (``rng_state``, which names the stream: a run with ``seed=None`` resumes on the same one),
    its state now (``rng_now``, after the current chunk) and the current chunk itself, so the
    resumed run draws exactly the chunks the uninterrupted one would.
    """
    every = _checkpoints.check_options(checkpoint, checkpoint_every, resume_from)
    n = A.shape[0]
    if checkpoint is None and resume_from is None:
        return _run_sgd(A, T, starts, log_eps, _check_indices(indices, n, T, seed), times, log_target)
    header = _checkpoints.read_header(resume_from) if resume_from is not None else {}
    generator = None
    given: np.ndarray | None = None
    stream: str | np.ndarray
    if indices is None:
        saved = header.get("rng_state")
        generator = _generator_from_state(saved) if seed is None and saved is not None else np.random.default_rng(seed)
        rng_state = generator.bit_generator.state
        stream = json.dumps(rng_state, sort_keys=True)
    else:
        _check_indices(indices, n, T, seed)  # the checks, with their messages
        given, rng_state = np.asarray(indices)[:T].astype(np.int64), None
        stream = given
    configuration = _checkpoints.fingerprint(dict(parts, A=A, T=T, stream=stream, record=times))
    state = _SGDState(A.shape[1], times.shape[0])
    if resume_from is not None:
        templates = {field: getattr(state, field) for field in _SGDState.FIELDS}
        header, saved_state = _checkpoints.read(resume_from, kind, configuration, templates)
        for field in _SGDState.FIELDS:
            value = saved_state[field]
            if field == "recorded":
                state.recorded[:value.shape[0]] = value
            else:
                setattr(state, field, value)
        if generator is not None:
            generator.bit_generator.state = header["rng_now"]
    drawn = -(-min(state.t, T) // _CHUNK)  # chunks the loop has drawn before iteration state.t
    if given is not None:  # the caller's indices (else the generator draws them)
        idx = (given[start:start + _CHUNK] for start in range(drawn * _CHUNK, T, _CHUNK))
    else:
        idx = _generator_chunks(n, generator)

    def save(current):
        values = {field: getattr(current, field) for field in _SGDState.FIELDS}
        values["recorded"] = current.recorded[:current.k]
        _checkpoints.write(checkpoint, kind, configuration, min(current.t, T), values,
                           {"T": T, "finished": current.t > T, "rng_state": rng_state,
                            "rng_now": None if generator is None else generator.bit_generator.state,
                            "stop_reason": f"completed T = {T} steps" if current.t > T else None})

    if checkpoint is None:
        return _run_sgd(A, T, starts, log_eps, idx, times, log_target, state, every)
    with _checkpoints.InterruptFlag(checkpoint) as interrupt:  # Ctrl-C or SIGTERM: a checkpoint, then RunInterrupted
        result = _run_sgd(A, T, starts, log_eps, idx, times, log_target, state, every, save, interrupt)
        if interrupt.raised:
            save(state)
        else:
            try:
                save(state)
            except _checkpoints.CheckpointError as error:  # a complete run: its result is returned, with a warning
                _checkpoints.warn_unwritten(checkpoint, min(state.t, T), error)
        interrupt.stop(T)
    return result


def adaptive_sgd(A, T: int, eps: float, seed=None, indices=None, record=None, *, checkpoint=None,
                 checkpoint_every=None, resume_from=None) -> SGDResult:
    """Adaptive SGD (10)+(11) from ``w_0 = 0`` for ``T`` steps.

    ``eta_t = min(1/eps, 1/l(m_{i_t}))`` and ``w_{t+1} = w_t + eta_t sigma(-m_{i_t}) z_{i_t}`` with
    ``i_t`` uniform (stream :func:`sgd_indices` of ``seed``, drawn lazily in chunks of 8192:
    ``T = 10**12`` allocates nothing up front; ``indices`` replays a given stream).
    ``record`` = iterations at which the full-batch ``ln L(w_t)`` is stored (default ``[0, T]``;
    ``record=np.arange(T + 1)`` keeps the whole curve at one full loss per step and O(T) memory).
    ``hitting_time`` is ``tau = inf{t : L(w_t) <= eps}`` of Theorem 3.4, computed exactly whatever
    ``record`` is: the full loss is evaluated only when a lower bound on it may have reached ``eps``
    (see ``_run_sgd``), which ``loss_evaluations`` counts.

    Checkpoints (:mod:`gamedyn.engine.checkpoints`): ``checkpoint=path`` writes the iterate, the records,
    the skip rule's budget, the current chunk of indices and the generator's state every
    ``checkpoint_every`` steps (if given) and at the end; on Ctrl-C (SIGINT) or SIGTERM after at
    most 8192 more steps (then :class:`gamedyn.engine.checkpoints.RunInterrupted` is raised; the folder
    is checked writable before step 1). ``resume_from=path`` continues, with the same arguments,
    bit-identically (with ``seed=None`` the stream comes from the generator state saved in the
    checkpoint).
    """
    A = _check_data(A)
    T = check_count(T, "T")
    eps = _check_open_unit(eps, "eps", "1e-8")
    times = _check_record(record, T)
    log_eps = math.log(eps)
    w, recorded, hit, evaluations = _sgd_run_with_checkpoints(
        "adaptive_sgd", A, T, {"eps": eps, "indices_given": indices is not None}, seed, indices, times, [0],
        [log_eps], log_eps, checkpoint, checkpoint_every, resume_from)
    return SGDResult(w=w, times=times, log_loss=recorded, hitting_time=hit, target=eps, loss_evaluations=evaluations)


def block_adaptive_sgd(
    A, T: int, eps0: float, delta: float, gamma, seed=None, indices=None, record=None, target=None, *,
    checkpoint=None, checkpoint_every=None, resume_from=None,
) -> SGDResult:
    """Block Adaptive SGD (14): the step of (11) with ``eps_k = eps0 / 2^k`` on ``[s_k, s_{k+1})``.

    ``N_k = ceil((4n/(delta gamma^2)) ln^2(8n/(delta eps_k)))`` (Theorem 3.5); iterate and index
    stream continue across blocks. ``gamma`` is a margin > 0 or ``"auto"``. ``hitting_time``
    refers to ``target`` (default ``eps0``); Theorem 3.5 (i) says it is at most
    ``theorem_3_5_horizon(n, gamma, eps0, delta, target)`` with probability >= 1 - delta.
    ``record`` and the index stream behave as in :func:`adaptive_sgd`. Block lengths are exact
    Python ints (a tiny ``gamma`` gives blocks beyond int64; ``block_starts`` is then an object array).
    ``checkpoint``, ``checkpoint_every``, ``resume_from``: as in :func:`adaptive_sgd`.
    """
    A = _check_data(A)
    T = check_count(T, "T")
    eps0 = _check_open_unit(eps0, "eps0", "0.5")
    delta = _check_open_unit(delta, "delta", "0.1")
    gamma = resolve_margin(gamma, A)
    target = eps0 if target is None else _check_open_unit(target, "target", "1e-6")
    n = A.shape[0]
    times = _check_record(record, T)
    lengths: list[int] = []
    total = 0
    while total < T:  # Python ints: a block may be longer than int64 for a tiny gamma
        lengths.append(_block_length(n, gamma, eps0, delta, len(lengths)))
        total += lengths[-1]
    starts = [0]
    for length in lengths:
        starts.append(starts[-1] + length)
    log_eps = [math.log(eps0) - _LN2 * k for k in range(len(lengths))]
    w, recorded, hit, evaluations = _sgd_run_with_checkpoints(
        "block_adaptive_sgd", A, T, {"eps0": eps0, "delta": delta, "gamma": gamma, "target": target,
                                     "indices_given": indices is not None},
        seed, indices, times, starts, log_eps, math.log(target), checkpoint, checkpoint_every, resume_from)
    return SGDResult(
        w=w, times=times, log_loss=recorded, hitting_time=hit, target=target, loss_evaluations=evaluations,
        block_starts=_integer_array(starts), block_eps=np.exp(np.array(log_eps)),
    )


# --------------------------------------------------------------------------------------------
# The theorems' bounds
# --------------------------------------------------------------------------------------------


def theorem_3_3_i_log(schedule: IncreasingSchedule, T: int):
    """Theorem 3.3 (i): ``ln(1/eta_t)`` for t = 0..T; GD with ``schedule`` has ``L(w_t) <= 1/eta_t``."""
    if not isinstance(schedule, IncreasingSchedule):
        raise TypeError(f"schedule must be an IncreasingSchedule, got {schedule!r}; pass IncreasingSchedule(gamma).")
    return -schedule.compute(check_count(T, "T", minimum=0))[0]


def theorem_3_3_ii_log(gamma, t):
    """Theorem 3.3 (ii) (``w_0 = 0``): ``ln(C t^{2/3} exp(-c t^{1/3}))`` for ``t >= 1``,
    with ``c = (3 gamma^2/4)^{1/3}``, ``C = (9 gamma^2/2)^{2/3} / S_0^2`` and ``S_0 = gamma^2/ln 2``."""
    gamma = _check_gamma_number(gamma)
    t = np.asarray(t, dtype=np.float64)
    if t.size == 0 or not np.all(np.isfinite(t)) or np.any(t < 1):
        raise ValueError(f"t must be finite iterations >= 1, got {t!r}; pass e.g. t=np.arange(1, T + 1).")
    log_gamma = math.log(gamma)  # in logs: gamma^2 may underflow
    c = math.exp((math.log(0.75) + 2.0 * log_gamma) / 3.0)
    log_C = (2.0 / 3.0) * (math.log(4.5) + 2.0 * log_gamma) - 2.0 * (2.0 * log_gamma - math.log(_LN2))
    return log_C + (2.0 / 3.0) * np.log(t) - c * np.cbrt(t)


def lemma_3_2_log(schedule: IncreasingSchedule, s: int, t: int, F_s: float) -> float:
    """Lemma 3.2: ``ln((2 F(w_s) + ln^2 S_{s,t}) / S_{s,t})`` with ``S_{s,t} = gamma^2 sum_{k=s}^{t-1} eta_k``.

    Bounds ``L(w_t)`` when ``L(w_k) <= 1/eta_k`` for k in [s, t-1]. ``F_s = F(w_s)`` may be given
    as a float (see :func:`exp_potential`).
    """
    if not isinstance(schedule, IncreasingSchedule):
        raise TypeError(f"schedule must be an IncreasingSchedule, got {schedule!r}.")
    s = check_count(s, "s", minimum=0)
    t = check_count(t, "t", minimum=s + 1)
    F_s = check_positive(F_s, "F_s")
    log_eta = schedule.compute(t - 1)[0][s:t]
    log_S = 2.0 * math.log(schedule.gamma) + log_sum_exp(log_eta)
    return math.log(2.0 * F_s + log_S**2) - log_S


def theorem_3_4(n: int, gamma, eps: float, delta: float | None = None) -> float:
    """Theorem 3.4: ``E[tau] <= (2n/gamma^2) ln^2(4n/eps)``; with ``delta`` the bound
    ``(1/delta)(2n/gamma^2) ln^2(4n/eps)`` that ``tau`` stays below with probability >= 1 - delta.

    Evaluated in logs, so tiny margins never divide by an underflowed ``gamma^2``; a bound beyond
    the float64 range (``gamma`` below about 1e-153) is returned as ``inf`` (true, and vacuous).
    """
    n = check_count(n, "n")
    gamma = _check_gamma_number(gamma)
    eps = _check_open_unit(eps, "eps", "1e-8")
    log_term = math.log(4.0 * n) - math.log(eps)
    if gamma**2 >= _TINY:
        bound = (2.0 * n / gamma**2) * log_term**2
    else:
        log_bound = math.log(2.0 * n) - 2.0 * math.log(gamma) + 2.0 * math.log(log_term)
        bound = math.exp(log_bound) if log_bound < 709.0 else math.inf
    return bound if delta is None else bound / _check_open_unit(delta, "delta", "0.1")


def _block_length(n: int, gamma: float, eps0: float, delta: float, k: int) -> int:
    """``N_k`` as a Python int: the ceiling of the float formula, or, where ``gamma^2`` underflows or
    the value exceeds the float64 range, the ceiling of the same formula in exact rationals."""
    log_arg = math.log(8.0 * n / delta) - math.log(eps0) + k * _LN2  # ln(8n/(delta eps_k))
    denominator = delta * gamma**2
    if denominator >= _TINY:
        value = (4.0 * n / denominator) * log_arg**2
        if math.isfinite(value):
            return math.ceil(value)
    return math.ceil(4 * n * Fraction(log_arg) ** 2 / (Fraction(delta) * Fraction(gamma) ** 2))


def _integer_array(values) -> np.ndarray:
    """int64 when every value fits, else an object array of exact Python ints (never a wrap-around)."""
    if all(value <= np.iinfo(np.int64).max for value in values):
        return np.array(values, dtype=np.int64)
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out


def theorem_3_5_blocks(n: int, gamma, eps0: float, delta: float, num_blocks: int):
    """Theorem 3.5 / (14): block lengths ``N_k = ceil((4n/(delta gamma^2)) ln^2(8n/(delta eps_k)))``,
    k = 0..num_blocks-1, with ``eps_k = eps0/2^k``: an int64 array, or, when some ``N_k`` exceeds
    int64 (``gamma`` below about 3e-7), an object array of exact Python ints."""
    n = check_count(n, "n")
    gamma = _check_gamma_number(gamma)
    eps0 = _check_open_unit(eps0, "eps0", "0.5")
    delta = _check_open_unit(delta, "delta", "0.1")
    num_blocks = check_count(num_blocks, "num_blocks")
    return _integer_array([_block_length(n, gamma, eps0, delta, k) for k in range(num_blocks)])


def theorem_3_5_horizon(n: int, gamma, eps0: float, delta: float, eps: float) -> tuple[int, int]:
    """Theorem 3.5 (i): ``(k_eps, s_{k_eps+1})`` with ``k_eps = min{k : eps0/2^k <= eps}``;
    ``min_{t <= s_{k_eps+1}} L(w_t) <= eps`` with probability >= 1 - delta."""
    eps0 = _check_open_unit(eps0, "eps0", "0.5")
    eps = _check_open_unit(eps, "eps", "1e-6")
    if eps > eps0:
        raise ValueError(f"eps must be <= eps0 = {eps0!r}, got {eps!r}; pass a target eps <= eps0.")
    k_eps = 0
    while eps0 / 2.0**k_eps > eps:
        k_eps += 1
    lengths = theorem_3_5_blocks(n, gamma, eps0, delta, k_eps + 1)
    return k_eps, int(sum(int(length) for length in lengths))
