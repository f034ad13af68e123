"""The accelerated perceptrons and their comparators in their ORIGINAL published forms.

Plain numpy loops transcribed from the spec (``shared/spec/accelerated-perceptrons.md``), never from
the game/learner forms, so that the recipes can be checked against them iterate by iterate.

``A`` is the ``n x d`` matrix with rows ``a_i = y_i x_i`` (spec section 1). It may be a numpy array
or a scipy.sparse matrix (kept sparse, as CSR); any input dtype, float32 included, is computed in
float64. ``sigma(z)_i = exp(-z_i) / sum_j exp(-z_j)`` is the paper's softmax convention, computed
stably by :func:`gamedyn.core.numerics.softmin`. Without ``trajectory=True`` every loop keeps O(n + d)
state; with it the iterates are returned as ``(rounds, dim)`` arrays in a frozen result.
"""

from __future__ import annotations

import numbers

import attrs
import numpy as np
import scipy.sparse as sp

from gamedyn.core.numerics import log_sum_exp, pnorm_link, softmin
from gamedyn.core.validation import check_count, check_matrix, check_positive

__all__ = [
    "SmoothPerceptronTrajectory",
    "AcceleratedPerceptronTrajectory",
    "MirrorProxTrajectory",
    "NAGTrajectory",
    "AcceleratedPNormTrajectory",
    "smooth_perceptron",
    "accelerated_perceptron",
    "mirror_prox",
    "nag",
    "accelerated_pnorm_perceptron",
    "perceptron",
    "pnorm_perceptron",
]


def _matrix(A):
    """Validated ``A`` in float64 (dense array or CSR)."""
    return check_matrix(A, "A", dtype=np.float64)


def _row(A, i: int) -> np.ndarray:
    return A[i].toarray().ravel() if sp.issparse(A) else A[i]


@attrs.frozen
class SmoothPerceptronTrajectory:
    """Iterates of :func:`smooth_perceptron` for ``t = 0, ..., T-1`` (row ``t`` is iterate ``t``).

    ``v`` (T, d), ``q`` (T, n), ``q_mu`` (T, n) = ``q_{mu_t}(v_t)`` and ``mu`` (T,).
    The outputs of the T-round run are ``v[-1]`` and ``q[-1]``.
    """

    v: np.ndarray
    q: np.ndarray
    q_mu: np.ndarray
    mu: np.ndarray


@attrs.frozen
class AcceleratedPerceptronTrajectory:
    """Iterates of :func:`accelerated_perceptron` for ``t = 0, ..., T``: ``v`` (T+1, d),
    ``q`` (T+1, n), ``g`` (T+1, d). The outputs are ``v[-1]`` and ``q[-1]``."""

    v: np.ndarray
    q: np.ndarray
    g: np.ndarray


@attrs.frozen
class MirrorProxTrajectory:
    """Iterates of :func:`mirror_prox`. Half iterates ``w_half`` (T, d), ``p_half`` (T, n): row
    ``t-1`` is ``w_{t-1/2}``; main iterates ``w`` (T+1, d), ``p`` (T+1, n) for ``t = 0, ..., T``.
    Outputs: ``w_bar = w_half.mean(0)``, ``p_bar = p_half.mean(0)``."""

    w_half: np.ndarray
    p_half: np.ndarray
    w: np.ndarray
    p: np.ndarray
    w_bar: np.ndarray
    p_bar: np.ndarray


@attrs.frozen
class NAGTrajectory:
    """Iterates of :func:`nag`: ``u`` (T, d) with row ``t-1`` = ``u_t`` (t = 1..T); ``v`` and ``s``
    (T+1, d) for ``t = 0, ..., T``. The output is ``s[-1]``."""

    u: np.ndarray
    v: np.ndarray
    s: np.ndarray


@attrs.frozen
class AcceleratedPNormTrajectory:
    """Iterates of :func:`accelerated_pnorm_perceptron`: ``w`` (T, d) and ``pi`` (T, n), row ``t-1``
    = ``w_t``, ``pi_t`` (t = 1..T). Outputs: ``w_bar = w.mean(0)``, ``pi_bar = pi.mean(0)``."""

    w: np.ndarray
    pi: np.ndarray
    w_bar: np.ndarray
    pi_bar: np.ndarray


def smooth_perceptron(A, T, *, trajectory: bool = False):
    """Soheili-Pena smooth perceptron, original form (spec section 4.1, Algorithm 1).

    ``q_mu(v) = sigma(A v / mu)``; ``theta_0 = 2/3``, ``mu_0 = 4``, ``v_0 = A^T u_n``,
    ``q_0 = q_{mu_0}(v_0)``; for ``t = 1, ..., T-1``::

        v_t = (1 - theta_{t-1}) (v_{t-1} + theta_{t-1} A^T q_{t-1}) + theta_{t-1}^2 A^T q_{mu_{t-1}}(v_{t-1})
        mu_t = (1 - theta_{t-1}) mu_{t-1}
        q_t = (1 - theta_{t-1}) q_{t-1} + theta_{t-1} q_{mu_t}(v_t)
        theta_t = 2 / (t + 3)

    The loop runs ``T - 1`` times, which is ``T`` rounds of the game (Proposition 1:
    ``v_{T-1} = w_bar_T``). Returns ``(v_{T-1}, q_{T-1})``, or with ``trajectory=True`` a
    :class:`SmoothPerceptronTrajectory` of all ``v_t, q_t, q_{mu_t}(v_t), mu_t``, ``t = 0..T-1``.
    """
    A = _matrix(A)
    T = check_count(T, "T")
    n = A.shape[0]
    theta, mu = 2.0 / 3.0, 4.0
    v = A.T @ np.full(n, 1.0 / n)
    q_mu = softmin(A @ v, 1.0 / mu)
    q = q_mu
    record = [(v, q, q_mu, mu)] if trajectory else None
    for t in range(1, T):
        v = (1.0 - theta) * (v + theta * (A.T @ q)) + theta**2 * (A.T @ q_mu)
        mu = (1.0 - theta) * mu
        q_mu = softmin(A @ v, 1.0 / mu)
        q = (1.0 - theta) * q + theta * q_mu
        theta = 2.0 / (t + 3.0)
        if record is not None:
            record.append((v, q, q_mu, mu))
    if record is not None:
        vs, qs, qms, mus = zip(*record)
        return SmoothPerceptronTrajectory(v=np.array(vs), q=np.array(qs), q_mu=np.array(qms), mu=np.array(mus))
    return v, q


def accelerated_perceptron(A, T, theta: str = "wang", *, trajectory: bool = False):
    """Accelerated perceptron of Ji, Srebro & Telgarsky, primal-dual form (spec sections 5.1, 5.4).

    ``q_0 = u_n``, ``v_0 = 0``, ``g_0 = 0``; for ``t = 1, ..., T`` with ``beta_t = t / (t + 1)``::

        v_t = v_{t-1} - theta_{t-1} (g_{t-1} - A^T q_{t-1})
        q_t = sigma(A v_t)
        g_t = beta_t (g_{t-1} - A^T q_t)

    ``theta="wang"`` uses ``theta_{t-1} = t / (2(t+1))`` (Wang et al., Algorithm 2:
    ``v_T = T(T+1)/8 w_bar_T``); ``theta="ji"`` uses Ji et al.'s original ``theta_{t-1} = 1``.
    Returns ``(v_T, q_T)``, or with ``trajectory=True`` an :class:`AcceleratedPerceptronTrajectory`
    of ``v_t, q_t, g_t`` for ``t = 0..T``.

    Theorem 1 (spec 5.3): the smooth perceptron plays the same game, so ``v_T = T(T+1)/8 v^SP_{T-1}``:

    >>> from gamedyn.io.datasets import make_separable, signed_rows
    >>> A = signed_rows(*make_separable(30, 5, 0.1, seed=0))
    >>> v, q = accelerated_perceptron(A, 10)
    >>> v_sp, q_sp = smooth_perceptron(A, 10)
    >>> bool(np.allclose(v, 10 * 11 / 8 * v_sp, rtol=1e-12, atol=0))
    True
    """
    A = _matrix(A)
    T = check_count(T, "T")
    if theta not in ("wang", "ji"):
        raise ValueError(f"theta must be 'wang' (t/(2(t+1)), Wang et al.) or 'ji' (1, Ji et al.), got {theta!r}.")
    n, d = A.shape
    q = np.full(n, 1.0 / n)
    v, g = np.zeros(d), np.zeros(d)
    At_q = A.T @ q
    record = [(v, q, g)] if trajectory else None
    for t in range(1, T + 1):
        step = t / (2.0 * (t + 1.0)) if theta == "wang" else 1.0
        v = v - step * (g - At_q)
        q = softmin(A @ v)
        At_q = A.T @ q
        g = (t / (t + 1.0)) * (g - At_q)
        if record is not None:
            record.append((v, q, g))
    if record is not None:
        vs, qs, gs = zip(*record)
        return AcceleratedPerceptronTrajectory(v=np.array(vs), q=np.array(qs), g=np.array(gs))
    return v, q


def _project_ball(w: np.ndarray) -> np.ndarray:
    norm = np.linalg.norm(w)
    return w / norm if norm > 1.0 else w


def _log_normalize(log_p: np.ndarray) -> np.ndarray:
    return log_p - log_sum_exp(log_p)


def mirror_prox(A, T, eta_w=None, eta_p=None, *, trajectory: bool = False):
    """Mirror prox of Yu, Kilinc-Karzan & Carbonell on ``max_{||w||<=1} min_p p^T A w`` (spec 7.1).

    ``w_0 = 0``, ``p_0 = u_n``; for ``t = 1, ..., T`` (``Pi_B`` = projection on the unit ball)::

        w_{t-1/2} = Pi_B(w_{t-1} + eta_w A^T p_{t-1}),   p_{t-1/2} ~ p_{t-1} * exp(-eta_p A w_{t-1})
        w_t       = Pi_B(w_{t-1} + eta_w A^T p_{t-1/2}), p_t       ~ p_{t-1} * exp(-eta_p A w_{t-1/2})

    with the p updates carried in the log domain. Defaults ``eta_w = 1/sqrt(2 log n)`` and
    ``eta_p = sqrt(2 log n)`` (spec 7.1, reconstructed; they need ``n >= 2``). Theorem 5:
    ``min_i (A w_bar_T)_i >= gamma - sqrt(2 log n)/T``. Returns ``(w_bar_T, p_bar_T)``, the averages
    of the half iterates, or with ``trajectory=True`` a :class:`MirrorProxTrajectory`.

    >>> from gamedyn.io.datasets import make_separable, signed_rows
    >>> from gamedyn.certify.margins import margin, max_margin
    >>> A = signed_rows(*make_separable(30, 5, 0.1, seed=0))
    >>> w_bar, p_bar = mirror_prox(A, 100)
    >>> bool(margin(A, w_bar) >= max_margin(A).gamma - np.sqrt(2 * np.log(30)) / 100)
    True
    """
    A = _matrix(A)
    T = check_count(T, "T")
    n, d = A.shape
    if eta_w is None or eta_p is None:
        if n < 2:
            raise ValueError("the default step sizes need n >= 2 rows (log n > 0); pass eta_w and eta_p explicitly.")
        root = np.sqrt(2.0 * np.log(n))
        eta_w = 1.0 / root if eta_w is None else eta_w
        eta_p = root if eta_p is None else eta_p
    eta_w = check_positive(eta_w, "eta_w")
    eta_p = check_positive(eta_p, "eta_p")
    w = np.zeros(d)
    log_p = np.full(n, -np.log(n))
    p = np.exp(log_p)
    sum_w_half, sum_p_half = np.zeros(d), np.zeros(n)
    record = {"w_half": [], "p_half": [], "w": [w], "p": [p]} if trajectory else None
    for _ in range(T):
        w_half = _project_ball(w + eta_w * (A.T @ p))
        p_half = np.exp(_log_normalize(log_p - eta_p * (A @ w)))
        w = _project_ball(w + eta_w * (A.T @ p_half))
        log_p = _log_normalize(log_p - eta_p * (A @ w_half))
        p = np.exp(log_p)
        sum_w_half += w_half
        sum_p_half += p_half
        if record is not None:
            for key, value in (("w_half", w_half), ("p_half", p_half), ("w", w), ("p", p)):
                record[key].append(value)
    w_bar, p_bar = sum_w_half / T, sum_p_half / T
    if record is not None:
        return MirrorProxTrajectory(**{key: np.array(value) for key, value in record.items()}, w_bar=w_bar, p_bar=p_bar)
    return w_bar, p_bar


def nag(A, T, *, trajectory: bool = False):
    """Nesterov's accelerated gradient on ``R(v) = (1/n) sum_i exp(-(A v)_i)`` (spec 6.1, Algorithm 3).

    ``v_0 = s_0 = 0``; for ``t = 1, ..., T``::

        u_t = s_{t-1} + v_{t-1} / (2(t-1))        (the second term is 0 for t = 1)
        v_t = v_{t-1} - eta_t grad R(u_t),  eta_t = t / R(u_t)
        s_t = s_{t-1} + v_t / (2(t+1))

    ``eta_t grad R(u_t) = -t A^T sigma(A u_t)`` exactly, which is how it is computed: ``R(u_t)``
    itself underflows for large ``t``. Theorem 6: ``s_T = T(T+1)/8 w_bar_T``. Returns ``s_T``, or
    with ``trajectory=True`` an :class:`NAGTrajectory`.

    >>> from gamedyn.io.datasets import make_separable, signed_rows
    >>> from gamedyn.certify.margins import max_margin, normalized_margin
    >>> A = signed_rows(*make_separable(30, 5, 0.1, seed=0))
    >>> gamma, T = max_margin(A).gamma, 200
    >>> bool(normalized_margin(A, nag(A, T)) >= gamma - (8 * np.log(30) + 2) / (gamma * T * (T + 1)))
    True
    """
    A = _matrix(A)
    T = check_count(T, "T")
    d = A.shape[1]
    v, s = np.zeros(d), np.zeros(d)
    record = {"u": [], "v": [v], "s": [s]} if trajectory else None
    for t in range(1, T + 1):
        u = s + v / (2.0 * (t - 1.0)) if t > 1 else s
        v = v + t * (A.T @ softmin(A @ u))
        s = s + v / (2.0 * (t + 1.0))
        if record is not None:
            for key, value in (("u", u), ("v", v), ("s", s)):
                record[key].append(value)
    if record is not None:
        return NAGTrajectory(**{key: np.array(value) for key, value in record.items()})
    return s


def _check_p(p) -> float:
    if isinstance(p, bool) or not isinstance(p, numbers.Real):
        raise TypeError(f"p must be a real number >= 2, got {p!r}.")
    p = float(p)
    if not (2.0 <= p < np.inf):
        raise ValueError(f"p must be finite and >= 2 (p = 2 is the classical Perceptron), got {p!r}; pass e.g. p=4.")
    return p


def _perceptron_loop(A, max_updates: int, link):
    """Shared batch loop: update on the most violated row (smallest index on ties)."""
    theta = np.zeros(A.shape[1])
    w = link(theta)
    for updates in range(max_updates + 1):
        values = A @ w
        worst = int(np.argmin(values))
        if values[worst] > 0 or updates == max_updates:
            return w, updates
        theta = theta + _row(A, worst)
        w = link(theta)


def perceptron(A, max_updates):
    """The batch Perceptron (spec section 9): ``w = 0``; while ``min_i (A w)_i <= 0``, add the row
    ``a_{i*}``, ``i* = argmin_i (A w)_i`` (smallest index on ties).

    Novikoff: at most ``1/gamma^2`` updates when ``||a_i||_2 <= 1``. Returns ``(w, updates)``. It
    raises nothing when it does not converge: ``updates == max_updates`` and ``margin(A, w) <= 0``
    then means "not separated within max_updates" (``min_i (A w)_i > 0`` always means separated).
    """
    A = _matrix(A)
    max_updates = check_count(max_updates, "max_updates")
    return _perceptron_loop(A, max_updates, lambda theta: theta)


def pnorm_perceptron(A, p, max_updates):
    """The p-norm Perceptron (Gentile & Littlestone; Grove, Littlestone & Schuurmans; spec section 9).

    ``theta = 0``, ``w = f_p(theta)`` with the link ``f_p(theta) = grad (1/2)||theta||_p^2``; while
    ``min_i (A w)_i <= 0``, ``theta += a_{i*}`` on the most violated row (smallest index on ties).
    Bound: at most ``(p - 1)/gamma_q^2`` updates when ``||a_i||_p <= 1`` (``1/p + 1/q = 1``);
    ``p = 2`` is :func:`perceptron`. Returns ``(w, updates)`` with the same convention as
    :func:`perceptron`.
    """
    A = _matrix(A)
    p = _check_p(p)
    max_updates = check_count(max_updates, "max_updates")
    return _perceptron_loop(A, max_updates, lambda theta: pnorm_link(theta, p))


def _dual_link(theta: np.ndarray, p: float) -> np.ndarray:
    """``f_p(theta) = sign(theta) |theta|^(p-1) / ||theta||_p^(p-2)``, the gradient of ``||theta||_p^2 / 2``.

    Written out here (not shared with the learners' ``QNorm``) so the loop below checks the recipe
    independently. ``theta`` is divided by ``max |theta_j|`` first (f_p is 1-homogeneous), so
    ``|theta_j|^(p-1)`` neither overflows nor underflows for large ``p``.
    """
    top = float(np.max(np.abs(theta))) if theta.size else 0.0
    if top == 0.0:
        return np.zeros_like(theta)
    u = theta / top
    magnitudes = np.abs(u)
    norm_p = float(np.sum(magnitudes**p)) ** (1.0 / p)
    return top * np.sign(u) * magnitudes ** (p - 1.0) / norm_p ** (p - 2.0)


def accelerated_pnorm_perceptron(A, T, p, *, trajectory: bool = False):
    """The accelerated p-norm Perceptron (the paper's Algorithm 4, spec section 8), as a plain loop.

    Rows ``||a_i||_p <= 1``, ``p >= 2``, ``q = p/(p-1)``. Steps
    ``eta_w = 1/sqrt(2 (q-1) log n)`` and ``eta_p = 1/eta_w``. ``pi_0 = u_n``; for ``t = 1, ..., T``::

        theta_t = A^T (pi_1 + ... + pi_{t-1} + pi_{t-1})          (the last term counts twice: the hint)
        w_t     = eta_w (q - 1) f_p(theta_t)                    (f_p(theta) = grad ||theta||_p^2 / 2)
        pi_t    = sigma(eta_p A (w_1 + ... + w_t))

    The algorithm exists only as a game in the paper; this is its closed form, written from the
    spec's formulas, never from the learners. Theorem 7:
    ``min_i (A w_bar_T)_i >= gamma_q - sqrt(2(p-1) log n)/T``. Returns ``(w_bar_T, pi_bar_T)``, the
    averages of the plays, or with ``trajectory=True`` an :class:`AcceleratedPNormTrajectory`.

    >>> from gamedyn.io.datasets import make_separable_lp, signed_rows
    >>> from gamedyn.certify.margins import max_margin_q
    >>> A = signed_rows(*make_separable_lp(60, 10, 4.0, 0.1, seed=0))
    >>> w_bar, pi_bar = accelerated_pnorm_perceptron(A, 100, 4.0)
    >>> bool(np.min(A @ w_bar) >= max_margin_q(A, 4 / 3).upper - np.sqrt(2 * 3 * np.log(60)) / 100)
    True
    """
    A = _matrix(A)
    T = check_count(T, "T")
    p = _check_p(p)
    n, d = A.shape
    if n < 2:
        raise ValueError("Algorithm 4's steps need n >= 2 rows (eta_w = 1/sqrt(2(q-1) log n)); pass more rows.")
    q = p / (p - 1.0)
    eta_w = 1.0 / np.sqrt(2.0 * (q - 1.0) * np.log(n))
    eta_p = 1.0 / eta_w
    pi_previous = np.full(n, 1.0 / n)  # pi_0 = u_n
    pi_before = np.zeros(n)  # pi_1 + ... + pi_{t-1}
    w_total = np.zeros(d)  # w_1 + ... + w_t
    plays: dict[str, list[np.ndarray]] | None = {"w": [], "pi": []} if trajectory else None
    for _ in range(T):
        theta = A.T @ (pi_before + pi_previous)
        w = eta_w * (q - 1.0) * _dual_link(theta, p)
        w_total = w_total + w
        pi = softmin(A @ w_total, eta_p)
        pi_before = pi_before + pi
        pi_previous = pi
        if plays is not None:
            plays["w"].append(w)
            plays["pi"].append(pi)
    w_bar, pi_bar = w_total / T, pi_before / T
    if plays is not None:
        return AcceleratedPNormTrajectory(w=np.array(plays["w"]), pi=np.array(plays["pi"]), w_bar=w_bar, pi_bar=pi_bar)
    return w_bar, pi_bar
