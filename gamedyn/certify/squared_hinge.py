r"""The 2-norm soft margin (the squared hinge of ``LinearSVC``) with a free bias, as a certified game.

The primal (Cortes & Vapnik 1995, the "2-norm soft margin"; Shawe-Taylor & Cristianini 2004, sec. 7.2;
liblinear's L2-loss SVM, without the bias in the norm) on rows :math:`z_i` (norm at most 1) with labels
:math:`s_i = \pm 1`:

.. math::

    \min_{w, b}\ \tfrac12\|w\|^2 + C\sum_i \xi_i^2,\qquad \xi_i = \max(0,\ 1 - s_i(\langle w, z_i\rangle + b)).

With :math:`\xi'_i = \sqrt{2C}\,\xi_i` the objective is :math:`\tfrac12\|(w,\xi')\|^2` under
:math:`s_i(\langle w, z_i\rangle + b) + \xi'_i/\sqrt{2C} \ge 1`: the hard margin with a free bias of the
**augmented rows** :math:`\hat z_i = (z_i,\ s_i e_i/\sqrt{2C})`, each with a coordinate of its own, so
the augmented classes are always separable and the value is positive whatever the data. The game is
the max-margin game of the augmented rows between the two classes' convex hulls (caps 1, a
:class:`gamedyn.certify.dual.TwoHulls` with every cap 1): its value

.. math::

    \gamma_C^* = \tfrac12\min_{p^\pm\in\Delta(\pm)}\Big\|\sum_{+}p_i\hat z_i - \sum_{-}p_j\hat z_j\Big\|
              = \tfrac12\min_{p}\sqrt{\|Z^\top(p\circ s)\|^2 + \|p\|^2/(2C)}
              = 1/\|(w^*, \xi'^*)\|

(half the distance between the hulls; the last equality is the hard-margin duality, with
:math:`\|(w^*,\xi'^*)\|^2 = \sum_i\alpha_i^*`). Both ends of the bracket come from a primal point
:math:`(w, b)`:

- lower: any direction :math:`(w, \xi')`, :math:`\xi \ge 0`, gives
  :math:`\gamma_C^* \ge (\min_{+}(\langle w, z_i\rangle + \xi_i) - \max_{-}(\langle w, z_j\rangle - \xi_j))
  / (2\sqrt{\|w\|^2 + 2C\|\xi\|^2})`, the bias cancelling (the distance of the hulls' projections on the
  direction); it is taken at the primal's own slacks;
- upper: the multipliers :math:`\alpha_i = 2C\xi_i` (KKT), normalised per class, are a point of the two
  simplices, and the middle expression at that point bounds :math:`\gamma_C^*` from above.

At the primal optimum the two ends agree (the multipliers of each class sum to the same total, the
bias's stationarity), so the certified relative gap goes to 0 with the solve. Both ends are rounded
outwards by the products' error (Higham, Thm 3.1), so the bracket holds for the rows' exact values.
Without a bias (``free_bias=False``) the same holds with one simplex over all the rows and ``b = 0``:
lower :math:`\min_i(s_i\langle w, z_i\rangle + \xi_i)/\sqrt{\|w\|^2 + 2C\|\xi\|^2}`, upper
:math:`\sqrt{\|Z^\top(p\circ s)\|^2 + \|p\|^2/(2C)}`.

The solver is L-BFGS-B (scipy) on the primal, which is convex with a Lipschitz gradient; each
evaluation is two products with X (never copied: signs, scale and float32 blocks folded in by
:class:`gamedyn.certify.dual.SignedRows`), and the bracket is checked every :data:`CHECK_EVERY`
iterations, stopping at the certified relative gap ``tol``.
"""

from __future__ import annotations

import math

import attrs
import numpy as np
import scipy.sparse as sp

from gamedyn.certify.dual import GameRows, SignedRows, times_in_float64
from gamedyn.core.numerics import UNIT64, rounding_factor

__all__ = ["CHECK_EVERY", "GRAM_ROWS", "JOINT_MAX_ENTRIES", "NEWTON_MAX_FEATURES", "NEWTON_MAX_WORK", "SMALL_ENTRIES",
           "SquaredHingeSolution", "WestonWatkinsSolution", "weston_watkins_margin",
           "squared_hinge_margin"]

#: The bracket (two products) is computed every this many L-BFGS-B iterations, and at the end.
CHECK_EVERY = 8
#: Problems of at most this many entries (n d) solve their K games as one L-BFGS-B problem (scipy's
#: per-evaluation overhead paid once for all classes), and Newton runs the K games at once while n K is at
#: most this (its (n, K) work arrays); larger ones game by game (a shared line search slows the games that
#: would stop first; the work arrays would outgrow X).
JOINT_MAX_ENTRIES = 2**12
#: Dense problems of at most this many features, and at most NEWTON_MAX_WORK = n d^2, are solved by the
#: semismooth Newton method (the primal is piecewise quadratic: liblinear's TRON idea, Keerthi & DeCoste
#: 2005): a handful of iterations, each one (d + 1)-square solve, where L-BFGS-B pays scipy's overhead per
#: evaluation on many more (iris 4 ms against LinearSVC's 1.3 ms).
NEWTON_MAX_FEATURES = 256
NEWTON_MAX_WORK = 2**26
#: The most rows of a block of the Newton Hessian's Gram sum (a block's active rows are its only copy of X;
#: at most an eighth of X's rows, and at least 64).
GRAM_ROWS = 1024
#: Newton's Hessians are one Gram product per game (its active rows at once, no row blocks) while X is
#: float64 and n d K is at most this (iris, wine: the per-block loop costs more than the arithmetic there).
SMALL_ENTRIES = 2**13


def _transpose_times(X, v: np.ndarray) -> np.ndarray:
    """``X^T v`` in float64 (float32 X summed over row blocks, as :class:`SignedRows` does); v (n,) or (n, G)."""
    if X.dtype == np.float64:
        return np.asarray(X.T @ v, dtype=np.float64)
    out = np.zeros((X.shape[1],) + v.shape[1:])
    for begin in range(0, X.shape[0], GRAM_ROWS):
        out += X[begin:begin + GRAM_ROWS].astype(np.float64).T @ v[begin:begin + GRAM_ROWS]
    return out


@attrs.frozen
class SquaredHingeSolution:
    """The solution of K 2-norm soft-margin games (one per column of the rows' signs).

    Attributes
    ----------
    w : ndarray, shape (d, K)
        The directions (not normalised: the primal's ``w``).
    b : ndarray, shape (K,)
        The biases (0 without a free bias).
    lower, upper : ndarray, shape (K,)
        The certified bracket ``lower <= gamma_C* <= upper`` per game (module docstring).
    p : ndarray, shape (n, K)
        The dual point: the multipliers normalised per class (per game, over all rows without a bias).
    iterations : ndarray of int, shape (K,)
        L-BFGS-B iterations per game.
    """

    w: np.ndarray
    b: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    p: np.ndarray
    iterations: np.ndarray

    @property
    def relative_gap(self) -> np.ndarray:
        """``(upper - lower) / upper`` per game (infinite unless lower > 0)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.lower > 0, (self.upper - self.lower) / self.upper, np.inf)


def _bracket(rows: GameRows, signs: np.ndarray, margins: np.ndarray, w: np.ndarray, b: float, penalty: float,
             free_bias: bool, bound: float) -> tuple[float, float, np.ndarray]:
    """``(lower, upper, p)`` of one game at the primal point (w, b); ``margins`` = the rows' signed products
    ``s_i <w, z_i>`` (no bias). Rounded outwards: each computed margin is within ``gamma_k B ||w||`` of the
    exact one and ``||Z^T q||`` within ``gamma_k B sum|q|`` (``k`` the terms of a product, B the rows' bound)."""
    n, dim = rows.shape
    slack_terms = rounding_factor(2 * (n + dim) + 16)
    xi = np.maximum(0.0, 1.0 - (margins + signs * b))
    norm_w = math.sqrt(float(w @ w))
    scale = math.sqrt(float(w @ w) + 2.0 * penalty * float(xi @ xi))
    error = slack_terms * bound * norm_w  # one margin's rounding
    positive = signs > 0
    if free_bias:
        scores = signs * margins  # <w, z_i>, exact sign flips
        if not positive.any() or positive.all():
            raise ValueError("the free bias needs both classes in every game (signs of both kinds).")
        top = float(np.min(scores[positive] + xi[positive]))
        bottom = float(np.max(scores[~positive] - xi[~positive]))
        numerator = top - bottom
        # each extreme term's own sum rounds by u |term| (the bias, not in the numerator, can make them large)
        numerator -= 2.0 * error + (abs(top) + abs(bottom) + abs(numerator)) * 4 * UNIT64
        denominator = 2.0 * scale
    else:
        numerator = float(np.min(margins + xi)) - error
        numerator -= abs(numerator) * 4 * UNIT64
        denominator = scale
    relative = (n + dim + 8) * UNIT64
    lower = numerator / (denominator * (1 + relative)) if numerator >= 0 else numerator / (denominator * (1 - relative))
    lower = float(np.nextafter(lower, -np.inf)) if scale > 0 else -math.inf
    alpha = xi  # (2 C xi, normalised: the factor cancels)
    p = np.zeros(n)
    groups = (positive, ~positive) if free_bias else (np.ones(n, dtype=bool),)
    for group in groups:
        total = math.fsum(alpha[group])
        if total > 0:
            p[group] = alpha[group] / total
        else:  # (a class with no multiplier yet: its centroid, still a point of its simplex)
            p[group] = 1.0 / np.count_nonzero(group)
    halves = 0.5 if free_bias else 1.0
    joint = rows.transpose_times(p[:, None])[:, 0]  # sum_i p_i s_i z_i
    norm = math.sqrt(float(joint @ joint)) + slack_terms * bound * len(groups) + (n + 2) * UNIT64 * bound
    squared = norm * norm + float(p @ p) * (1 + 2 * (n + 2) * UNIT64) / (2.0 * penalty)
    upper = float(np.nextafter(halves * math.sqrt(squared) * (1 + (dim + n + 16) * UNIT64), np.inf))
    return lower, max(upper, lower), p


def _newton(X, signs: np.ndarray, scale: float, penalty: float, free_bias: bool, start: np.ndarray, max_iter: int,
            settles) -> np.ndarray:
    """Semismooth Newton on G games' primals at once (columns of ``signs`` and of ``start``, shape (d + 1, G)),
    dense X: per game the generalised Hessian ``[[I + 2C Z_A^T Z_A, 2C Z_A^T 1], [., 2C |A|]]`` on its rows
    ``A`` with margin below 1, the steps by one batched solve and a backtracking (Armijo) search per game on
    shared evaluations; ``settles[j](x)`` (game j's bracket, True once within tol) once a step leaves its
    rows with a slack unchanged (or after 20 steps), and at the end. Returns the iterations per game."""
    n, dim = X.shape
    G = signs.shape[1]
    size = dim + 1 if free_bias else dim
    V = np.array(start[:size], dtype=np.float64)
    rows = max(64, min(GRAM_ROWS, n // 8))  # (a Gram block at most an eighth of X, as far as it can)
    X64 = X if n * dim * G <= SMALL_ENTRIES and isinstance(X, np.ndarray) and X.dtype == np.float64 else None
    identity = np.eye(dim)

    def value(V):
        M = X64 @ (V[:dim] / scale) if X64 is not None else times_in_float64(X, np.ascontiguousarray(V[:dim])) / scale
        if free_bias:
            M += V[dim]
        xi = 1.0 - signs * M
        np.maximum(xi, 0.0, out=xi)
        return 0.5 * np.einsum("ij,ij->j", V[:dim], V[:dim]) + penalty * np.einsum("ij,ij->j", xi, xi), xi

    def hessian(active):
        """One game's ``[[I + 2C Z_A^T Z_A, 2C Z_A^T 1], [., 2C |A|]]``, the Gram sum over row blocks (no copy
        of X beyond a block's active rows)."""
        square, sums = np.zeros((dim, dim)), np.zeros(dim)
        for begin in range(0, n, rows):
            block = X[begin:begin + rows][active[begin:begin + rows]].astype(np.float64, copy=False)
            square += block.T @ block
            sums += block.sum(axis=0)
        H = np.empty((size, size))
        H[:dim, :dim] = (2.0 * penalty / (scale * scale)) * square
        H[:dim, :dim][np.diag_indices(dim)] += 1.0
        if free_bias:
            H[:dim, dim] = H[dim, :dim] = (2.0 * penalty / scale) * sums
            H[dim, dim] = 2.0 * penalty * max(int(active.sum()), 1)
        return H

    def settle(j):
        full = np.zeros(dim + 1)
        full[:size] = V[:, j]
        return settles[j](full)

    f, xi = value(V)
    still = np.ones(G, dtype=bool)
    spent = np.full(G, max_iter, dtype=np.int64)
    previous = None
    for iteration in range(1, max_iter + 1):
        active = xi > 0
        if previous is not None:
            unchanged = ~np.any(active != previous, axis=0) | (iteration > 20)
            for j in np.flatnonzero(still & unchanged):
                if settle(j):
                    still[j], spent[j] = False, iteration - 1
            if not still.any():
                return spent
        previous = active
        weights = (-2.0 * penalty) * xi * signs  # (0 off the active rows: xi is)
        gradient = np.empty((size, G))
        gradient[:dim] = V[:dim] + _transpose_times(X, weights) / scale
        if free_bias:
            gradient[dim] = weights.sum(axis=0)
        if X64 is not None:  # tiny X: one Gram product per game, the scalings on all games at once
            H = np.zeros((G, size, size))
            for j in np.flatnonzero(still):
                block = X64[active[:, j]]
                H[j, :dim, :dim] = block.T @ block
                if free_bias:
                    H[j, :dim, dim] = block.sum(axis=0)
                    H[j, dim, dim] = max(block.shape[0], 1)
            H[:, :dim, :dim] *= 2.0 * penalty / (scale * scale)
            H[:, :dim, :dim] += identity
            if free_bias:
                H[:, :dim, dim] *= 2.0 * penalty / scale
                H[:, dim, :dim] = H[:, :dim, dim]
                H[:, dim, dim] *= 2.0 * penalty
            if not still.all():
                H[~still] = np.eye(size)
        else:
            H = np.stack([hessian(active[:, j]) if still[j] else np.eye(size) for j in range(G)])
        try:
            steps = -np.linalg.solve(H, gradient.T[:, :, None])[:, :, 0].T
        except np.linalg.LinAlgError:
            steps = -gradient
        steps[:, ~still] = 0.0
        slope = np.einsum("ij,ij->j", gradient, steps)
        t = np.ones(G)
        while True:
            candidate = V + t * steps
            f_new, xi_new = value(candidate)
            short = (f_new > f + 1e-4 * t * slope) & (t >= 1e-10)
            if not short.any():
                break
            t = np.where(short, 0.5 * t, t)
        V, f, xi = candidate, f_new, xi_new
    for j in np.flatnonzero(still):
        settle(j)
    return spent


def _one_game_settle(group, group_signs, j, penalty, free_bias, bound, tol, best, out):
    """``settle(x)`` for game j of a group: its bracket at ``x = (w, b)``, the best kept in ``best[j]``."""
    rows = group.restricted(np.array([j]))

    def settle(x):
        w, b = x[:-1], (float(x[-1]) if free_bias else 0.0)
        margins = rows.times(w[:, None])[:, 0]
        low, high, p = _bracket(rows, group_signs[:, j], margins, w, b, penalty, free_bias, bound)
        if best[j] is None or high - low < best[j][1] - best[j][0]:
            out[:] = p  # (the best p goes straight to the result's column: no second copy per game)
            best[j] = (low, high, out, w.copy(), b)
        return best[j][0] > 0 and best[j][1] - best[j][0] <= tol * best[j][1]

    return settle


def _watcher(settle, count):
    """scipy's callback (its one-argument form, named as scipy reads it): the bracket every CHECK_EVERY iterations."""

    def watch(intermediate_result):
        count[0] += 1
        if count[0] % CHECK_EVERY == 0 and settle(intermediate_result.x):
            raise StopIteration

    return watch


def squared_hinge_margin(X, signs: np.ndarray, penalty: float, *, scale: float = 1.0, free_bias: bool = True,
                         tol: float = 0.01, max_iter: int = 1000, start: np.ndarray | None = None) -> SquaredHingeSolution:
    r"""Solve the 2-norm soft-margin games of the rows ``z_i = x_i / scale`` (K games: column k of ``signs``
    labels the rows of game k) to a certified relative gap.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix, shape (n, d)
        The unsigned rows, float64 or float32, never copied; ``||x_i|| / scale`` at most about 1.
    signs : ndarray, shape (n, K)
        +-1 per row and game.
    penalty : float > 0
        ``C``, the price of a squared slack (module docstring). Larger is closer to the hard margin.
    scale : float > 0, default 1
        The divisor of the rows.
    free_bias : bool, default True
        A free (unpenalised) bias: the game between the two classes' hulls. False: ``b = 0`` and one
        simplex over all the rows.
    tol : float in (0, 1), default 0.01
        Stop once a game's certified relative gap ``(upper - lower) / upper`` is at most ``tol``.
    max_iter : int >= 1, default 1000
        The most L-BFGS-B iterations per game.
    start : ndarray of shape (d + 1, K), optional
        A warm start: ``(w, b)`` per game (the bias row ignored without a free bias); a game whose start
        already meets ``tol`` ends at iteration 0.

    Returns
    -------
    SquaredHingeSolution

    Raises
    ------
    ValueError
        ``penalty`` not a positive finite number, ``tol`` outside (0, 1), ``max_iter < 1``, a game with
        one class only under ``free_bias``, a ``start`` of another shape.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.6, 0.1], [0.5, -0.2], [-0.4, 0.3], [-0.5, -0.1], [0.1, 0.05]])
    >>> signs = np.array([[1.0], [1.0], [-1.0], [-1.0], [-1.0]])
    >>> found = squared_hinge_margin(X, signs, penalty=10.0, tol=1e-9)
    >>> bool(found.lower[0] <= found.upper[0] <= found.lower[0] * (1 + 1e-9))
    True
    """
    import scipy.optimize  # here, not at import: a first import loads no optimiser

    penalty = float(penalty)
    if not (math.isfinite(penalty) and penalty > 0):
        raise ValueError(f"penalty (C) must be a positive finite number, got {penalty!r}; e.g. C=10.0.")
    if not 0 < tol < 1:
        raise ValueError(f"tol must lie in (0, 1), got {tol!r}; e.g. tol=0.01.")
    if int(max_iter) < 1:
        raise ValueError(f"max_iter must be at least 1, got {max_iter!r}.")
    all_signs = np.asarray(signs, dtype=np.float64)
    if all_signs.ndim == 1:
        all_signs = all_signs[:, None]
    rows = SignedRows(X, all_signs, None, float(scale))
    bound = float(rows.largest_row_norm())  # (also checks X, the signs and the scale)
    if not np.all(np.abs(all_signs) == 1.0):
        raise ValueError("signs must be +-1 (one column per game).")
    n, dim = rows.shape
    K = rows.games
    if start is not None and np.shape(start) != (dim + 1, K):
        raise ValueError(f"start must have shape (d + 1, K) = ({dim + 1}, {K}), got {np.shape(start)}.")
    W, B = np.zeros((dim, K)), np.zeros(K)
    lower, upper, P = np.full(K, -math.inf), np.full(K, math.inf), np.zeros((n, K))
    spent = np.zeros(K, dtype=np.int64)
    newton = (not sp.issparse(X) and dim <= NEWTON_MAX_FEATURES and n * dim * dim <= NEWTON_MAX_WORK)
    groups = [np.arange(K)] if n * dim <= JOINT_MAX_ENTRIES or newton else [np.array([k]) for k in range(K)]
    for games in groups:
        G = games.size
        group = rows.restricted(games)
        group_signs = all_signs if games.size == K else all_signs[:, games]  # (no copy for one group)

        def unpack(v, G=G):
            return v[:dim * G].reshape(dim, G), (v[dim * G:] if free_bias else np.zeros(G))

        def objective(v, group=group, group_signs=group_signs, unpack=unpack):
            w, b = unpack(v)
            xi = np.maximum(0.0, 1.0 - (group.times(w) + group_signs * b))
            g = -2.0 * penalty * xi  # d/dm of C xi^2
            gradient = np.concatenate([(w + group.transpose_times(g)).ravel(), (g * group_signs).sum(axis=0)
                                       if free_bias else np.zeros(0)])
            return 0.5 * float(np.sum(w * w)) + penalty * float(np.sum(xi * xi)), gradient

        best: list = [None] * G

        def settle(v, group=group, group_signs=group_signs, unpack=unpack, best=best):
            w, b = unpack(v)
            margins = group.times(w)
            met = True
            for j in range(w.shape[1]):
                low, high, p = _bracket(group.restricted(np.array([j])), group_signs[:, j], margins[:, j], w[:, j],
                                        float(b[j]), penalty, free_bias, bound)
                if best[j] is None or high - low < best[j][1] - best[j][0]:
                    P[:, games[j]] = p
                    best[j] = (low, high, P[:, games[j]], w[:, j].copy(), float(b[j]))
                met = met and best[j][0] > 0 and best[j][1] - best[j][0] <= tol * best[j][1]
            return met

        count = [0]
        watch = _watcher(settle, count)

        x0 = np.zeros((dim + 1, G)) if start is None else np.asarray(start[:, games], dtype=np.float64)
        x0 = np.concatenate([x0[:dim].ravel(), x0[dim] if free_bias else np.zeros(0)])
        if start is not None and settle(x0):  # a warm start that already meets tol: iteration 0
            spent[games] = 0
        elif newton:
            begin = np.zeros((dim + 1, G)) if start is None else np.asarray(start[:, games], dtype=np.float64)
            settles = [_one_game_settle(group, group_signs, j, penalty, free_bias, bound, tol, best, P[:, k])
                       for j, k in enumerate(games)]
            # all the games in one Newton run when their (n, G) work arrays are small, else game by game (memory)
            for part in ([np.arange(G)] if n * G <= JOINT_MAX_ENTRIES else [np.array([j]) for j in range(G)]):
                spent[games[part]] = _newton(X, group_signs[:, part], float(scale), penalty, free_bias, begin[:, part],
                                             int(max_iter), [settles[j] for j in part])
        else:
            result = scipy.optimize.minimize(objective, x0, jac=True, method="L-BFGS-B", callback=watch,
                                             options={"maxiter": int(max_iter), "ftol": 1e-15, "gtol": 1e-12})
            settle(result.x)
            spent[games] = max(int(result.nit), count[0])
        for j, k in enumerate(games):
            lower[k], upper[k], _, W[:, k], B[k] = best[j]  # (P[:, k] holds its p already)
    return SquaredHingeSolution(w=W, b=B, lower=lower, upper=upper, p=P, iterations=spent)


@attrs.frozen
class WestonWatkinsSolution:
    """The solution of the Weston-Watkins 2-norm soft-margin game (:func:`weston_watkins_margin`).

    Attributes
    ----------
    W : ndarray, shape (d, K)
        One direction per class (not normalised: the primal's ``W``).
    b : ndarray, shape (K,)
        The biases (0 without a free bias).
    lower, upper : float
        The certified bracket ``lower <= gamma_C* <= upper`` on the pair rows' margin.
    alpha : ndarray, shape (n, K)
        The dual point on the pairs ``(i, k)``, ``k != y_i`` (0 at ``k = y_i``), a circulation between the
        classes with a free bias, summing to 1.
    iterations : int
        L-BFGS-B iterations.
    """

    W: np.ndarray
    b: np.ndarray
    lower: float
    upper: float
    alpha: np.ndarray
    iterations: int

    @property
    def relative_gap(self) -> float:
        """``(upper - lower) / upper`` (infinite unless lower > 0)."""
        return (self.upper - self.lower) / self.upper if self.lower > 0 else math.inf


def _circulation(F: np.ndarray) -> np.ndarray:
    """The largest circulation ``f <= F`` arc by arc (``f_ck = s_ck F_ck``, ``0 <= s <= 1``, the LP of
    :func:`weston_watkins_margin`), then made an exact circulation in rational arithmetic (each class's
    imbalance moved onto arcs to or from class 0). Returns the flows as Fractions (a K x K object array)."""
    from fractions import Fraction

    import scipy.optimize

    K = F.shape[0]
    arcs = [(c, k) for c in range(K) for k in range(K) if c != k and F[c, k] > 0]
    flows = np.zeros((K, K))
    if arcs:
        balance = np.zeros((K, len(arcs)))
        for j, (c, k) in enumerate(arcs):
            balance[c, j] += F[c, k]
            balance[k, j] -= F[c, k]
        weights = np.array([F[c, k] for c, k in arcs])
        found = scipy.optimize.linprog(-weights / weights.max(), A_eq=balance / weights.max(), b_eq=np.zeros(K),
                                       bounds=(0.0, 1.0), method="highs")
        if found.status == 0:
            for j, (c, k) in enumerate(arcs):
                flows[c, k] = min(max(float(found.x[j]), 0.0), 1.0) * F[c, k]
    t = np.empty((K, K), dtype=object)
    for c in range(K):
        for k in range(K):
            t[c, k] = Fraction(flows[c, k]) if c != k else Fraction(0)
    for c in range(1, K):  # exact: the imbalances sum to 0, so class 0 ends balanced
        excess = sum(t[c, :], Fraction(0)) - sum(t[:, c], Fraction(0))
        if excess > 0:
            t[0, c] += excess
        elif excess < 0:
            t[c, 0] -= excess
    if sum((t[c, k] for c in range(K) for k in range(K)), Fraction(0)) == 0:
        t[0, 1] = t[1, 0] = Fraction(1)  # (no flow at all: the 2-cycle 0 <-> 1, still a circulation)
    return t


def _pair_bracket(X, labels: np.ndarray, K: int, M: np.ndarray, W: np.ndarray, b: np.ndarray, scale: float,
                  penalty: float, free_bias: bool, bound: float) -> tuple[float, float, np.ndarray]:
    """``(lower, upper, alpha)`` of the Weston-Watkins game at the primal point (W, b); ``M = Z W`` computed.
    Rounded outwards (the argument is in :func:`weston_watkins_margin`'s notes)."""
    n, dim = X.shape
    rows = np.arange(n)
    own = M[rows, labels]
    bias = b[labels][:, None] - b[None, :]
    pair = own[:, None] - M + bias
    xi = np.maximum(0.0, 1.0 - pair)
    xi[rows, labels] = 0.0
    margin = pair + xi
    margin[rows, labels] = math.inf
    norm_w2 = float(np.sum(W * W))
    size = rounding_factor(2 * (n + dim + n * K) + 16)
    # each M entry within gamma B ||w_k|| of the exact one; the pair's own sum within 8 u of its terms
    error = 2.0 * size * bound * math.sqrt(float(np.max(np.sum(W * W, axis=0))))
    terms = 2.0 * float(np.max(np.abs(M))) + 2.0 * float(np.max(np.abs(b))) + float(np.max(xi)) + 1.0
    numerator = float(np.min(margin)) - error - 8 * UNIT64 * terms
    scale_n = math.sqrt(norm_w2 + 2.0 * penalty * float(np.sum(xi * xi)))
    relative = (n * K + dim * K + 8) * UNIT64
    if scale_n > 0:
        lower = numerator / (scale_n * (1 + relative)) if numerator >= 0 else numerator / (scale_n * (1 - relative))
        lower = float(np.nextafter(lower, -np.inf))
    else:
        lower = -math.inf
    alpha = xi  # (the KKT multipliers 2 C xi: the factor cancels in the normalisation)
    if free_bias:
        # group (c, k): the pairs of class c's rows against class k, each group a distribution q over the class's
        # rows (alpha / its exact total, or uniform), times an exact circulation t_ck of the groups' totals
        F = np.zeros((K, K))
        member = [labels == c for c in range(K)]
        for c in range(K):
            for k in range(K):
                if c != k:
                    F[c, k] = math.fsum(alpha[member[c], k])
        t = _circulation(F)
        total = sum((t[c, k] for c in range(K) for k in range(K)), t[0, 0])
        scaled = np.zeros((n, K))
        for c in range(K):
            for k in range(K):
                if c == k or t[c, k] == 0:
                    continue
                if F[c, k] > 0:
                    scaled[member[c], k] = alpha[member[c], k] * (float(t[c, k] / total) / F[c, k])
                else:
                    scaled[member[c], k] = float(t[c, k] / total) / np.count_nonzero(member[c])
        alpha = scaled
    else:
        total_f = math.fsum(alpha.ravel())
        alpha = alpha / total_f if total_f > 0 else np.where(np.arange(K)[None, :] == labels[:, None], 0.0,
                                                                1.0 / (n * (K - 1)))
    A = -alpha
    A[rows, labels] = alpha.sum(axis=1)
    joint = _transpose_times(X, A) / scale  # Z^T A
    absolute = 2.0 * float(np.sum(alpha))
    norm = math.sqrt(float(np.sum(joint * joint))) + (size + 16 * UNIT64) * bound * absolute
    squared = norm * norm + float(np.sum(alpha * alpha)) * (1 + (2 * n * K + 32) * UNIT64) / (2.0 * penalty)
    upper = float(np.nextafter(math.sqrt(squared) * (1 + (dim + n * K + 32) * UNIT64), np.inf))
    return lower, max(upper, lower), alpha


def weston_watkins_margin(X, labels: np.ndarray, K: int, penalty: float, *, scale: float = 1.0,
                          free_bias: bool = True, tol: float = 0.01, max_iter: int = 1000,
                          start: np.ndarray | None = None) -> WestonWatkinsSolution:
    r"""Solve the Weston-Watkins 2-norm soft-margin game of the rows ``z_i = x_i / scale`` (labels in 0..K-1)
    to a certified relative gap.

    The primal (Weston & Watkins 1999 with the squared hinge; the 2-norm soft margin of the module
    docstring on pairs)

    .. math::

        \min_{W, b}\ \tfrac12\|W\|_F^2 + C\sum_i\sum_{k\ne y_i}\xi_{ik}^2,\qquad
        \xi_{ik} = \max(0,\ 1 - (\langle w_{y_i} - w_k, z_i\rangle + b_{y_i} - b_k))

    is the hard margin with a free bias of the pair rows :math:`r_{ik} = (z_i\otimes(e_{y_i} - e_k),\
    e_{ik}/\sqrt{2C})`, value :math:`\gamma_C^* = 1/\|(W^*, \sqrt{2C}\xi^*)\|`.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix, shape (n, d)
        The rows, float64 or float32, never copied; ``||x_i|| / scale`` at most about 1.
    labels : ndarray of int, shape (n,)
        Class codes in ``0..K-1``.
    K : int >= 2
        The number of classes.
    penalty : float > 0
        ``C``.
    scale : float > 0, default 1
        The divisor of the rows.
    free_bias : bool, default True
        A free bias ``b`` (K entries); False: ``b = 0``.
    tol : float in (0, 1), default 0.01
        Stop once the certified relative gap is at most ``tol``.
    max_iter : int >= 1, default 1000
        The most L-BFGS-B iterations.
    start : ndarray of shape (d + 1, K), optional
        A warm start ``(W, b)`` (the bias row ignored without a free bias).

    Returns
    -------
    WestonWatkinsSolution

    Raises
    ------
    ValueError
        ``penalty`` not a positive finite number, ``tol`` outside (0, 1), ``max_iter < 1``, ``K < 2``,
        labels outside ``0..K-1`` or of another length, a class without rows under ``free_bias``, a ``start``
        of another shape.

    Notes
    -----
    Lower end: any :math:`(W, b)` with its own slacks gives
    :math:`\gamma_C^* \ge \min_{ik}(m_{ik} + b_{y_i} - b_k + \xi_{ik})/\sqrt{\|W\|^2 + 2C\|\xi\|^2}`.
    Upper end: any :math:`\alpha \ge 0` on the pairs with :math:`\sum\alpha = 1` that is a circulation
    between the classes (what leaves class c, the pairs (i, k) with :math:`y_i = c`, equals what enters it,
    the pairs with k = c) bounds :math:`\gamma_C^* \le \|R^\top\alpha\| = \sqrt{\|Z^\top A\|_F^2 +
    \|\alpha\|^2/(2C)}` (the bias terms cancel by the circulation; without a bias any :math:`\alpha` does).
    The KKT multipliers :math:`2C\xi` are a circulation only at the optimum: each arc group (c, k) is
    scaled by :math:`s_{ck}\in[0, 1]`, the largest circulation (a K^2-variable LP), which is then made an
    exact circulation :math:`t` of rationals (each class's rounding imbalance moved onto an arc to or
    from class 0). The point of the proof is the exact rational
    :math:`\alpha_{ik} = t_{ck}\,\xi_{ik}/T_{ck}/\sum t` with :math:`T_{ck}` the *exact* total of the
    group's :math:`\xi` (uniform weights where it is 0): its group totals are :math:`t_{ck}/\sum t`
    exactly, so it is a circulation exactly. It is never formed: its floats (``math.fsum`` totals, correctly
    rounded) are within a few units of rounding of it entry by entry, a perturbation of at most
    :math:`16u\,B\sum|A|` in :math:`\|Z^\top A\|` and a relative :math:`O(u)` in :math:`\|\alpha\|^2`,
    both added outwards with the products' own error (Higham, Thm 3.1). At the optimum :math:`s = 1`,
    :math:`t = F` and the two ends meet.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.6, 0.1], [0.5, -0.2], [-0.4, 0.3], [-0.5, -0.1], [0.1, 0.5], [0.0, 0.6]])
    >>> found = weston_watkins_margin(X, np.array([0, 0, 1, 1, 2, 2]), 3, penalty=10.0, tol=1e-9)
    >>> bool(0 < found.lower <= found.upper <= found.lower * (1 + 1e-9))
    True
    """
    import scipy.optimize

    penalty = float(penalty)
    if not (math.isfinite(penalty) and penalty > 0):
        raise ValueError(f"penalty (C) must be a positive finite number, got {penalty!r}; e.g. C=10.0.")
    if not 0 < tol < 1:
        raise ValueError(f"tol must lie in (0, 1), got {tol!r}; e.g. tol=0.01.")
    if int(max_iter) < 1:
        raise ValueError(f"max_iter must be at least 1, got {max_iter!r}.")
    K = int(K)
    if K < 2:
        raise ValueError(f"K must be at least 2 (the number of classes), got {K!r}.")
    labels = np.asarray(labels)
    if labels.ndim != 1 or labels.shape[0] != X.shape[0] or labels.dtype.kind not in "iu" \
            or labels.size and (labels.min() < 0 or labels.max() >= K):
        raise ValueError(f"labels must be integer class codes in 0..K-1 = 0..{K - 1}, one per row of X "
                         f"({X.shape[0]}); got {labels.dtype} of shape {labels.shape}.")
    labels = labels.astype(np.intp)
    if free_bias and np.unique(labels).size < K:
        raise ValueError(f"labels must use every class 0..K-1 = 0..{K - 1} with free_bias (a class without rows "
                         "leaves its bias unbounded); pass K = the number of classes present, or free_bias=False.")
    bound = float(SignedRows(X, np.ones((X.shape[0], 1)), None, float(scale)).largest_row_norm())
    n, dim = X.shape
    if start is not None and np.shape(start) != (dim + 1, K):
        raise ValueError(f"start must have shape (d + 1, K) = ({dim + 1}, {K}), got {np.shape(start)}.")
    rows = np.arange(n)
    size = dim * K

    def unpack(v):
        return v[:size].reshape(dim, K), (v[size:] if free_bias else np.zeros(K))

    def objective(v):
        W, b = unpack(v)
        M = times_in_float64(X, np.ascontiguousarray(W)) / scale
        own = M[rows, labels] + b[labels]
        xi = np.maximum(0.0, 1.0 - (own[:, None] - (M + b[None, :])))
        xi[rows, labels] = 0.0
        G = 2.0 * penalty * xi  # -d/dm_ik
        D = G.copy()  # d/dM: +G at (i, k), -sum_k G at (i, y_i)
        D[rows, labels] = -G.sum(axis=1)
        gradient = np.concatenate([(W + _transpose_times(X, D) / scale).ravel(),
                                   D.sum(axis=0) if free_bias else np.zeros(0)])
        return 0.5 * float(np.sum(W * W)) + penalty * float(np.sum(xi * xi)), gradient

    best: list = [None]

    def settle(v):
        W, b = unpack(v)
        M = times_in_float64(X, np.ascontiguousarray(W)) / scale
        low, high, alpha = _pair_bracket(X, labels, K, M, W, b, float(scale), penalty, free_bias, bound)
        if best[0] is None or high - low < best[0][1] - best[0][0]:
            best[0] = (low, high, alpha, W.copy(), np.array(b, dtype=np.float64))
        return best[0][0] > 0 and best[0][1] - best[0][0] <= tol * best[0][1]

    count = [0]
    x0 = np.zeros((dim + 1, K)) if start is None else np.asarray(start, dtype=np.float64)
    x0 = np.concatenate([x0[:dim].ravel(), x0[dim] if free_bias else np.zeros(0)])
    if start is not None and settle(x0):
        spent = 0
    else:
        spent, watch = 0, _watcher(settle, count)
        for _ in range(8):  # L-BFGS-B can stop on its ftol short of tol (large C): restarted from its end point
            result = scipy.optimize.minimize(objective, x0, jac=True, method="L-BFGS-B", callback=watch,
                                             options={"maxiter": int(max_iter) - spent, "ftol": 1e-15, "gtol": 1e-12})
            spent += int(result.nit)
            if settle(result.x) or spent >= int(max_iter) or int(result.nit) == 0:
                break
            x0 = result.x
        spent = max(spent, count[0])
    low, high, alpha, W, b = best[0]
    return WestonWatkinsSolution(W=W, b=b, lower=low, upper=high, alpha=alpha, iterations=spent)
