r"""Certified coarse correlated and correlated equilibrium gaps of a joint distribution.

For a joint distribution :math:`\sigma` on the pure profiles of a game with utilities :math:`U_i`:

* the gain of player i's **fixed deviation** to :math:`a'` is
  :math:`g_i(a')=\sum_a\sigma(a)\big(U_i(a',a_{-i})-U_i(a)\big)`, and the **CCE gap** is
  :math:`\max\big(0,\max_{i,a'}g_i(a')\big)`: :math:`\sigma` is an :math:`\varepsilon`-coarse correlated
  equilibrium (Moulin & Vial 1978; Hannan's set) iff the gap is at most :math:`\varepsilon`;
* the gain of player i's **swap** :math:`a\mapsto a'` is
  :math:`c_i(a,a')=\sum_{a_{-i}}\sigma(a,a_{-i})\big(U_i(a',a_{-i})-U_i(a,a_{-i})\big)`, and the **CE gap**
  is :math:`\max_i\sum_a\max_{a'}c_i(a,a')` (each term >= 0: :math:`a'=a` gains 0), the largest gain of
  any player's swap function; :math:`\sigma` is a correlated equilibrium (Aumann 1974) iff it is 0.

Both are linear in :math:`\sigma`: the rows of the exact LPs (:mod:`gamedyn.games.general_sum.lp`)
evaluated at :math:`\sigma`. The gap of a float array ``joint`` is that of the distribution
``joint / sum(joint)`` (the exact quotient), and :func:`cce_gap` / :func:`ce_gap` return a number
that is **at least** it, whatever the rounding: on a small support (at most
:data:`EXACT_WORK` multiply-adds) the gap is computed exactly, in integers (every float is an
integer times a power of two), and rounded up; otherwise each computed gain is widened by Higham's
bound :math:`\gamma_k\sum|\sigma||U|` for its k-term sums (and the total by its own), the
normaliser taken at its lower bound, and the quotient rounded up. :func:`deviation_gains` and
:func:`swap_gains` are the plain float gains.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

__all__ = ["EXACT_WORK", "cce_gap", "ce_gap", "check_joint", "deviation_gains", "swap_gains"]

EXACT_WORK = 100_000  # exact integer multiply-adds the certificate may spend on a small support
_UNIT = 2.0 ** -53


def _gamma(k: int) -> float:
    return k * _UNIT / (1.0 - k * _UNIT)


def check_joint(game, joint) -> np.ndarray:
    """``joint`` as a float64 array of the game's shape: non-negative, finite, with a positive sum, or a clear error.

    A :class:`gamedyn.games.general_sum.ProductJoint` or ``CountJoint`` (anything with ``dense()``) gives its
    dense array.
    """
    dense = getattr(joint, "dense", None)
    array = np.asarray(dense() if callable(dense) else joint, dtype=np.float64)
    if array.shape != tuple(game.shape):
        raise ValueError(f"joint must be a distribution over the game's pure profiles, of shape {tuple(game.shape)}; "
                         f"got shape {array.shape}.")
    if not np.all(np.isfinite(array)) or np.any(array < 0) or not array.sum() > 0:
        raise ValueError("joint must have non-negative finite entries with a positive sum (it is divided by its sum).")
    return array


def _round_up(value: Fraction) -> float:
    rounded = float(value)
    return rounded if Fraction(rounded) >= value else float(np.nextafter(rounded, np.inf))


def _dyadic(values) -> tuple:
    """(integers k, exponent e) with values == k * 2**e exactly (Python ints in an object array)."""
    values = np.asarray(values, dtype=np.float64)
    mantissa, exponent = np.frexp(values)
    ints = (mantissa * 2.0 ** 53).astype(np.int64)  # exact: a float's mantissa has 53 bits
    exponent = exponent.astype(np.int64) - 53
    nonzero = ints != 0
    low = int(exponent[nonzero].min()) if np.any(nonzero) else 0
    shifted = np.empty(values.shape, dtype=object)
    flat, ints_flat, exps_flat = shifted.reshape(-1), ints.reshape(-1), exponent.reshape(-1)
    for index in range(flat.size):
        k = int(ints_flat[index])
        flat[index] = k << (int(exps_flat[index]) - low) if k else 0
    return shifted, low


def _deviation_values(game, i: int, profiles) -> tuple:
    """(U_i(a', a_-i(s)) for every a' and support profile s: (a_i, m); U_i(a(s)): (m,))."""
    U = game.payoffs[i]
    index = [profiles[:, j] for j in range(len(game.shape))]
    current = U[tuple(index)]
    index[i] = np.arange(game.shape[i])[:, None]
    others = [column[None, :] if j != i else column for j, column in enumerate(index)]
    return U[tuple(others)], current


def _exact(game, joint: np.ndarray, swap: bool) -> float:
    """The exact gap of joint / sum(joint), rounded up (integers: every float is k 2^e)."""
    profiles = np.argwhere(joint > 0)
    weights, scale = _dyadic(joint[tuple(profiles.T)])
    total = sum(weights)
    best = Fraction(0)
    for i in range(len(game.shape)):
        deviated, current = _deviation_values(game, i, profiles)
        values, exponent = _dyadic(np.concatenate([deviated.ravel(), current]))
        deviated_int = values[:deviated.size].reshape(deviated.shape)
        current_int = values[deviated.size:]
        gains = (deviated_int - current_int[None, :]) * weights[None, :]  # (a_i, m) exact integers
        if swap:
            own = profiles[:, i]
            numerator = 0
            for a in np.unique(own):
                columns = gains[:, own == a]
                numerator += max(0, max(sum(row) for row in columns))
        else:
            numerator = max(0, max(sum(row) for row in gains))
        gap = Fraction(numerator) * (Fraction(2) ** exponent) / total
        best = max(best, gap)
    return _round_up(best)


def _moved(joint: np.ndarray, i: int) -> np.ndarray:
    """The joint with player i's axis first, as an (a_i, N / a_i) matrix in :meth:`NormalFormGame.matrix`'s order."""
    return np.moveaxis(joint, i, 0).reshape(joint.shape[i], -1)


def deviation_gains(game, joint) -> tuple:
    """Each player's fixed-deviation gains :math:`g_i(a')` against ``joint / sum(joint)`` (floats, not certified)."""
    joint = check_joint(game, joint)
    total = joint.sum()
    gains = []
    for i in range(len(game.shape)):
        M, P = game.matrix(i), _moved(joint, i)
        gains.append((M @ P.sum(axis=0) - float(np.vdot(P, M))) / total)
    return tuple(gains)


def swap_gains(game, joint) -> tuple:
    """Each player's swap gains :math:`c_i(a,a')` (an (a_i, a_i) matrix, row a swapped to column a') against
    ``joint / sum(joint)`` (floats, not certified)."""
    joint = check_joint(game, joint)
    total = joint.sum()
    gains = []
    for i in range(len(game.shape)):
        M, P = game.matrix(i), _moved(joint, i)
        C = P @ M.T  # C[a, a'] = sum_r sigma(a, r) U_i(a', r)
        gains.append((C - np.diag(C)[:, None]) / total)
    return tuple(gains)


def _exact_work(game, joint: np.ndarray) -> int:
    return int(np.count_nonzero(joint)) * int(sum(game.shape))


def cce_gap(game, joint) -> float:
    r"""A certified upper bound of the CCE gap :math:`\max(0,\max_{i,a'}g_i(a'))` of ``joint / sum(joint)``.

    Exact (rounded up) on a small support, else widened by the rounding bounds (module docstring).

    Parameters
    ----------
    game : NormalFormGame
        The game (its ``payoffs`` and ``matrix(i)``).
    joint : array_like of shape game.shape, ProductJoint or CountJoint
        Non-negative weights of the pure profiles (divided by their sum).

    Returns
    -------
    float
        An upper bound of the gap, >= 0 (the gap itself, rounded up, on a small support).

    Examples
    --------
    Chicken's correlated equilibrium (1/3 on each of (dare, chicken), (chicken, dare), (chicken, chicken)):

    >>> from gamedyn.games.general_sum import BimatrixGame
    >>> chicken = BimatrixGame([[0, 7], [2, 6]], [[0, 2], [7, 6]])
    >>> cce_gap(chicken, [[0, 1], [1, 1]]), ce_gap(chicken, [[0, 1], [1, 1]])
    (0.0, 0.0)
    >>> cce_gap(chicken, [[1, 0], [0, 0]])  # both dare: either gains 2 by chickening out
    2.0
    """
    joint = check_joint(game, joint)
    if _exact_work(game, joint) <= EXACT_WORK:
        return _exact(game, joint, swap=False)
    N = joint.size
    total = float(joint.sum())
    worst = 0.0
    for i in range(len(game.shape)):
        M, P = game.matrix(i), _moved(joint, i)
        marginal = P.sum(axis=0)
        deviated, current = M @ marginal, float(np.vdot(P, M))
        absolute = np.abs(M) @ marginal + float(np.vdot(P, np.abs(M)))
        gains = deviated - current
        bound = 1.01 * (_gamma(N + 2) * absolute + _UNIT * np.abs(gains))  # 1.01: the bound's own rounding
        worst = max(worst, float(np.max(gains + bound)))
    return _quotient_up(worst, total, N)


def ce_gap(game, joint) -> float:
    r"""A certified upper bound of the CE gap :math:`\max_i\sum_a\max_{a'}c_i(a,a')` of ``joint / sum(joint)``.

    Exact (rounded up) on a small support, else widened by the rounding bounds (module docstring).
    Parameters and result as :func:`cce_gap`.
    """
    joint = check_joint(game, joint)
    if _exact_work(game, joint) <= EXACT_WORK:
        return _exact(game, joint, swap=True)
    N = joint.size
    total = float(joint.sum())
    worst = 0.0
    for i, a in enumerate(game.shape):
        M, P = game.matrix(i), _moved(joint, i)
        C, absolute = P @ M.T, P @ np.abs(M).T
        diagonal, absolute_diagonal = np.diag(C), np.diag(absolute)
        gains = C - diagonal[:, None]
        bound = 1.01 * (_gamma(N // a + 2) * (absolute + absolute_diagonal[:, None]) + _UNIT * np.abs(gains))
        rows = np.maximum(np.max(gains + bound, axis=1), 0.0)
        worst = max(worst, float(rows.sum()) * (1.0 + 1.01 * _gamma(a)))
    return _quotient_up(worst, total, N)


def _quotient_up(numerator: float, total: float, N: int) -> float:
    """An upper bound of numerator* / total* given numerator* <= numerator (>= 0) and |total - total*| <= gamma_N total*."""
    if numerator <= 0.0:
        return 0.0
    low = total * (1.0 - 1.01 * _gamma(N))
    return float(np.nextafter(numerator / low, np.inf))
