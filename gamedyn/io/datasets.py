"""Separable data sets for the perceptron and logistic-regression experiments.

The generators return ``(X, y)`` with labels in {-1, +1}; :func:`signed_rows` turns them into the
matrix ``A`` with rows ``y_i x_i`` used throughout gamedyn (spec section 1). The exception is
:func:`perceptron_hard_instance`, whose labels are all +1: it returns ``A`` itself.
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp

from gamedyn.core.validation import check_count, check_labels, check_matrix

__all__ = [
    "signed_rows",
    "make_separable",
    "symmetric_pair",
    "perceptron_hard_instance",
    "make_separable_lp",
    "digits_pair",
    "add_decoy",
]

_MAX_BATCHES = 1000


def signed_rows(X, y):
    """The matrix ``A`` with rows ``a_i = y_i x_i`` (spec section 1).

    ``X`` may be a numpy array or a scipy.sparse matrix (returned as CSR); float32 stays float32,
    other dtypes become float64. ``y`` must hold only -1 and +1.
    """
    X = check_matrix(X, "X")
    y = check_labels(y, X.shape[0]).astype(X.dtype)
    if sp.issparse(X):
        return sp.csr_matrix(sp.diags(y) @ X)
    return X * y[:, None]


def _check_gamma(gamma, upper: float = 1.0, *, closed: bool = False) -> float:
    """``gamma`` as a float in ``(0, upper)`` (or ``(0, upper]`` when ``closed``)."""
    interval = f"(0, {upper:g}{']' if closed else ')'}"
    if isinstance(gamma, bool) or not isinstance(gamma, numbers.Real):
        raise TypeError(f"gamma must be a real number in {interval}, got {gamma!r}; pass e.g. gamma=0.1.")
    value = float(gamma)
    if not (0.0 < value < upper or (closed and value == upper)):
        raise ValueError(f"gamma must be a real number in {interval} (a margin of rows with norm <= 1), got {gamma!r}.")
    return value


def _check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise TypeError(f"seed must be a non-negative integer, got {seed!r}; pass e.g. seed=0.")
    return int(seed)


def _keep_margin(rng, n, d, target, gamma, norm_ord):
    """Batches of 4n points ``g / ||g|| * U^(1/d)``; keep ``|x . target| >= gamma``; first n."""
    kept, count = [], 0
    for _ in range(_MAX_BATCHES):
        g = rng.standard_normal((4 * n, d))
        g /= np.linalg.norm(g, ord=norm_ord, axis=1, keepdims=True)
        x = g * (rng.random(4 * n) ** (1.0 / d))[:, None]
        keep = x[np.abs(x @ target) >= gamma]
        kept.append(keep)
        count += keep.shape[0]
        if count >= n:
            X = np.concatenate(kept)[:n]
            return X, np.sign(X @ target)
    raise ValueError(
        f"only {count} of n={n} points with |x . w*| >= gamma={gamma} after {_MAX_BATCHES} batches of "
        f"{4 * n}; the planted margin is too large for d={d}: pass a smaller gamma (about 1/sqrt(d) or less)."
    )


def make_separable(n, d, gamma, seed):
    """Separable data in the unit l2 ball with planted margin ``gamma`` (logistic spec section 5).

    RNG order (``numpy.random.default_rng(seed)``), which reproduces the reference data exactly:
      1. ``w* = standard_normal(d)``, normalised to unit l2 norm;
      2. then, batch after batch of ``4n`` points until ``n`` are kept:
         ``g = standard_normal((4n, d))``, each row normalised, then ``U = random(4n)`` and
         ``x = g * U^(1/d)`` (uniform in the unit ball); keep the rows with ``|x . w*| >= gamma``
         in order;
      3. take the first ``n`` kept rows and ``y = sign(x . w*)``.

    So ``||x_i||_2 <= 1`` and ``y_i x_i . w* >= gamma``: the max margin is at least ``gamma``.
    Returns ``(X, y)`` with ``X`` of shape ``(n, d)`` and ``y`` in {-1, +1}.

    >>> X, y = make_separable(20, 5, 0.3, seed=7)
    >>> from gamedyn.certify.margins import max_margin
    >>> round(max_margin(signed_rows(X, y)).gamma, 4)  # the Block SGD check set of the logistic spec
    0.3635
    """
    n = check_count(n, "n")
    d = check_count(d, "d")
    gamma = _check_gamma(gamma)
    rng = np.random.default_rng(_check_seed(seed))
    w_star = rng.standard_normal(d)
    w_star /= np.linalg.norm(w_star)
    return _keep_margin(rng, n, d, w_star, gamma, 2)


def symmetric_pair(gamma):
    """Two points ``x = (gamma, +-sqrt(1 - gamma^2))`` with ``y = +1``: max margin exactly ``gamma``.

    The max-margin direction is ``e_1`` and both points are support vectors (logistic spec section 5).
    ``gamma`` must lie in (0, 1].
    """
    gamma = _check_gamma(gamma, closed=True)
    height = np.sqrt((1.0 - gamma) * (1.0 + gamma))
    return np.array([[gamma, height], [gamma, -height]]), np.ones(2)


def perceptron_hard_instance(gamma, m=None):
    """Rows on which the Perceptron needs exactly ``m`` updates and the max margin is exactly ``gamma``.

    ``a_i = (gamma, sqrt(1 - gamma^2) u_i)``, ``i = 1..m``, where ``u_1..u_m`` are the vertices of a
    regular simplex centred at 0 (``u_i = (e_i - 1/m) / sqrt(1 - 1/m)`` in R^m, so ``||u_i|| = 1``,
    ``u_i . u_j = -1/(m-1)`` and ``sum_i u_i = 0``). All rows have unit norm; the min-norm point of
    their hull is their mean ``(gamma, 0)``, attained by ``w = e_1``, so the max margin is ``gamma``.
    Default ``m``: the largest integer with ``m gamma^2 < 1``. While ``k < m`` rows have been added,
    every unused row has margin ``k (gamma^2 - (1 - gamma^2)/(m - 1)) <= 0`` and every used row a
    larger one, so the Perceptron adds each row once: exactly ``m`` updates, against Novikoff's
    ``1/gamma^2`` (spec section 9). ``gamma`` must lie in (0, 1/sqrt(2)) so that ``m >= 2``.

    All labels are +1, so this returns the matrix ``A`` (= ``X``) itself, of shape ``(m, m + 1)``.

    >>> from gamedyn.games.margin.original import perceptron
    >>> A = perceptron_hard_instance(0.2)
    >>> A.shape, perceptron(A, 10_000)[1]  # 24 updates, Novikoff allows 1/0.2^2 = 25
    ((24, 25), 24)
    """
    gamma = _check_gamma(gamma, np.sqrt(0.5))  # m >= 2 rows need gamma^2 < 1/2
    if m is None:
        m = int(np.ceil(1.0 / gamma**2)) - 1
        while m * gamma**2 >= 1.0:
            m -= 1
    m = check_count(m, "m", minimum=2)
    if m * gamma**2 > 1.0:
        raise ValueError(f"m={m} rows need m * gamma^2 <= 1 for m updates; pass m <= {int(1.0 / gamma**2)}.")
    simplex = (np.eye(m) - 1.0 / m) / np.sqrt(1.0 - 1.0 / m)
    height = np.sqrt((1.0 - gamma) * (1.0 + gamma))
    return np.hstack([np.full((m, 1), gamma), height * simplex])


def make_separable_lp(n, d, p, gamma, seed, *, target_support: int = 1):
    """Separable data in the unit l_p ball with q-norm margin at least ``gamma``, ``1/p + 1/q = 1``.

    For the p-norm Perceptron (spec sections 8 and 9): a sparse target and dense examples, the
    regime where a large ``p`` pays off. Construction (``numpy.random.default_rng(seed)``, in order):
      1. the target ``w*``: ``support = rng.choice(d, k, replace=False)`` with ``k = target_support``,
         ``signs = rng.choice([-1, 1], k)``, and ``w*_j = signs / k^(1/q)`` on the support, so
         ``||w*||_q = 1``;
      2. batches of ``4n`` points ``g / ||g||_p * U^(1/d)`` with ``g = standard_normal((4n, d))`` and
         ``U = random(4n)``, keeping rows with ``|x . w*| >= gamma``, as in :func:`make_separable`;
      3. the first ``n`` kept rows, ``y = sign(x . w*)``.

    Hence ``||x_i||_p <= 1`` and ``y_i x_i . w* >= gamma`` with ``||w*||_q = 1``, so
    ``gamma_q >= gamma``; by Hoelder ``|x . w*| <= 1``, so ``gamma`` must lie in (0, 1).
    ``p`` must be a finite real number >= 2. Returns ``(X, y)``.
    """
    n = check_count(n, "n")
    d = check_count(d, "d")
    if isinstance(p, bool) or not isinstance(p, numbers.Real):
        raise TypeError(f"p must be a finite real number >= 2, got {p!r}; pass e.g. p=2 * np.log(d).")
    if not 2.0 <= float(p) < np.inf:
        raise ValueError(f"p must be a finite real number >= 2, got {p!r}; pass e.g. p=2 * np.log(d).")
    p = float(p)
    gamma = _check_gamma(gamma)
    k = check_count(target_support, "target_support")
    if k > d:
        raise ValueError(f"target_support={k} exceeds d={d}; pass target_support <= d.")
    q = p / (p - 1.0)
    rng = np.random.default_rng(_check_seed(seed))
    support = rng.choice(d, k, replace=False)
    signs = rng.choice(np.array([-1.0, 1.0]), k)
    w_star = np.zeros(d)
    w_star[support] = signs / k ** (1.0 / q)
    return _keep_margin(rng, n, d, w_star, gamma, p)


def digits_pair(first, second, n=50, subset_seed=0):
    """Two classes of scikit-learn's bundled 8x8 digits (logistic spec section 2 item 10, section 5).

    Pixels are scaled by 1/16, the pool of images of the two digits (in data-set order) gets
    labels +1 for ``first`` and -1 for ``second``, and a subset is drawn with
    ``rng = default_rng(subset_seed)`` as ``rng.choice(pool, n, replace=False)``, redrawn from the
    same ``rng`` until the subset is linearly separable through the origin. Finally ``X`` is divided
    by ``max_i ||x_i||_2`` over the subset, so the largest row has norm 1.

    Needs the optional extra ``gamedyn[data]`` (scikit-learn).
    """
    try:
        from sklearn.datasets import load_digits
    except ImportError as error:
        raise ImportError("install gamedyn[data] (scikit-learn) for the digits data") from error
    from gamedyn.certify.margins import max_margin

    for name, digit in (("first", first), ("second", second)):
        if isinstance(digit, bool) or not isinstance(digit, numbers.Integral) or not 0 <= int(digit) <= 9:
            raise ValueError(f"{name} must be a digit 0..9, got {digit!r}; pass e.g. first=4, second=9.")
    if first == second:
        raise ValueError(f"first and second must differ, both are {first}; pass e.g. first=4, second=9.")
    digits = load_digits()
    pool = np.flatnonzero(np.isin(digits.target, (first, second)))
    n = check_count(n, "n")
    if n > pool.size:
        raise ValueError(f"n={n} exceeds the {pool.size} images of digits {first} and {second}; pass n <= {pool.size}.")
    rng = np.random.default_rng(_check_seed(subset_seed))
    for _ in range(100):
        chosen = rng.choice(pool, n, replace=False)
        X = digits.data[chosen] / 16.0
        y = np.where(digits.target[chosen] == first, 1.0, -1.0)
        try:
            max_margin(X * y[:, None])
        except ValueError:
            continue
        return X / np.max(np.linalg.norm(X, axis=1)), y
    raise ValueError(
        f"no separable subset of n={n} images of digits {first} and {second} in 100 draws; pass a smaller n."
    )


def add_decoy(A, beta=-0.9, copies=None):
    """Append ``copies`` copies of a decoy row that the centroid of ``A``'s rows misclassifies.

    The decoy is the unit row ``b = (beta c, sqrt(1 - beta^2))``, where ``c`` is the unit (l2)
    centroid direction of the rows of ``A`` and the last coordinate is new (0 in every old row).
    With ``beta < 0`` the centroid ``A^T u_n`` — the first play of every recipe — has a negative
    margin on ``b``, so no dynamic separates in one round; the rows stay separable (put weight
    on the new coordinate), every row keeps ||row||_p <= ||row||_2 <= 1 for p >= 2, and the max
    margin shrinks by a factor that depends on ``beta`` (measure it with the oracle).
    ``copies`` defaults to the number of rows of ``A``.
    """
    A = np.asarray(A.toarray() if sp.issparse(A) else A, dtype=np.float64)
    if A.ndim != 2:
        raise ValueError(f"A must be 2-D, got shape {A.shape}.")
    if isinstance(beta, bool) or not isinstance(beta, numbers.Real) or not -1.0 < float(beta) < 0.0:
        raise ValueError(f"beta must be a real number in (-1, 0) so that the centroid misclassifies the decoy, got {beta!r}.")
    beta = float(beta)
    copies = A.shape[0] if copies is None else check_count(copies, "copies")
    centroid = A.mean(axis=0)
    norm = np.linalg.norm(centroid)
    if norm == 0.0:
        raise ValueError("the rows of A have centroid 0, so no decoy direction exists; A is not separable.")
    decoy = np.append(beta * centroid / norm, np.sqrt(1.0 - beta**2))
    return np.vstack([np.hstack([A, np.zeros((A.shape[0], 1))]), np.tile(decoy, (copies, 1))])
