r"""The exact linear programs of the coarse correlated and correlated equilibria (scipy's HiGHS), the reference.

The CCE polytope is :math:`\{\sigma\in\Delta_N:\ G_{\mathrm{CCE}}\,\sigma\le0\}` with one row per player i and
deviation :math:`a'` (:math:`\sum_ia_i` rows, every one of the :math:`N=\prod_ia_i` columns),
:math:`G[(i,a'),a]=U_i(a',a_{-i})-U_i(a)`; the CE polytope has one row per player i and pair
:math:`a\ne a'` (:math:`\sum_ia_i(a_i-1)` rows, :math:`N/a_i` entries each),
:math:`G[(i,a,a'),(a,a_{-i})]=U_i(a',a_{-i})-U_i(a,a_{-i})`. :func:`solve_cce_lp` and :func:`solve_ce_lp`
solve them with an objective (by default the **welfare-maximising** equilibrium,
:math:`\max\sum_a\sigma(a)\sum_iU_i(a)`; ``"feasibility"``: any point) by ``scipy.optimize.linprog``
(HiGHS). HiGHS's tolerances are absolute (about 1e-7), so the payoffs are divided by a power of two
(exact) that brings them into [-1, 1), and the answer (clipped at 0, divided by its sum) carries the
certified gap of :mod:`gamedyn.games.general_sum.certificates`, not the LP's own feasibility claim.
"""

from __future__ import annotations

import math
import time

import attrs
import numpy as np
import scipy.sparse

from gamedyn.games.general_sum.certificates import cce_gap, ce_gap

__all__ = ["LPSolution", "cce_constraints", "ce_constraints", "solve_cce_lp", "solve_ce_lp"]


def _scale(game) -> float:
    largest = max(float(np.max(np.abs(U))) for U in game.payoffs)
    return math.ldexp(1.0, math.frexp(largest)[1]) if largest > 0 else 1.0


def cce_constraints(game) -> np.ndarray:
    r"""The dense :math:`(\sum_ia_i)\times N` matrix :math:`G_{\mathrm{CCE}}` (rows: player 1's deviations, then
    player 2's, ...; columns: the pure profiles in C order)."""
    rows = []
    for i, a in enumerate(game.shape):
        M = game.matrix(i)  # (a_i, rest)
        for deviation in range(a):
            gain = (M[deviation][None, :] - M).reshape((a,) + tuple(s for j, s in enumerate(game.shape) if j != i))
            rows.append(np.moveaxis(gain, 0, i).ravel())
    return np.array(rows)


def ce_constraints(game) -> scipy.sparse.csr_matrix:
    r"""The sparse :math:`(\sum_ia_i(a_i-1))\times N` matrix :math:`G_{\mathrm{CE}}` (rows (i, a, a') with
    :math:`a'\ne a`, in that order; columns: the pure profiles in C order)."""
    shape = tuple(game.shape)
    N = int(np.prod(shape))
    profiles = np.arange(N).reshape(shape)
    data, rows, columns = [], [], []
    row = 0
    for i, a in enumerate(shape):
        M = game.matrix(i)
        moved = np.moveaxis(profiles, i, 0).reshape(a, -1)  # the column index of (a, rest)
        for own in range(a):
            for deviation in range(a):
                if deviation == own:
                    continue
                data.append(M[deviation] - M[own])
                columns.append(moved[own])
                rows.append(np.full(moved.shape[1], row))
                row += 1
    if not rows:
        return scipy.sparse.csr_matrix((0, N))
    return scipy.sparse.csr_matrix((np.concatenate(data), (np.concatenate(rows), np.concatenate(columns))),
                                   shape=(row, N))


@attrs.frozen(eq=False)
class LPSolution:
    """An LP's equilibrium: the joint distribution (shape of the game), its certified gap, the objective value.

    ``status`` is linprog's (0: solved); ``seconds`` the CPU time of the build and the solve.
    """

    joint: np.ndarray
    gap: float
    value: float
    status: int
    message: str
    seconds: float


def _objective(game, objective) -> np.ndarray:
    N = int(np.prod(game.shape))
    if isinstance(objective, str):
        if objective == "welfare":
            return -game.welfare().ravel()
        if objective == "feasibility":
            return np.zeros(N)
        raise ValueError(f"objective must be 'welfare', 'feasibility' or an array of the game's shape (a cost to "
                         f"minimise), got {objective!r}.")
    cost = np.asarray(objective, dtype=np.float64)
    if cost.shape != tuple(game.shape) or not np.all(np.isfinite(cost)):
        raise ValueError(f"objective must be an array of the game's shape {tuple(game.shape)} (finite), got "
                         f"shape {cost.shape}.")
    return cost.ravel()


def _solve(game, constraints, objective, time_limit, certify, started) -> LPSolution:
    import scipy.optimize  # here, not at import: a first import loads no optimiser

    scale = _scale(game)
    N = int(np.prod(game.shape))
    cost = _objective(game, objective)
    options = {} if time_limit is None else {"time_limit": float(time_limit)}
    solution = scipy.optimize.linprog(cost / scale, A_ub=constraints / scale, b_ub=np.zeros(constraints.shape[0]),
                                      A_eq=np.ones((1, N)), b_eq=[1.0], bounds=(0.0, None), method="highs",
                                      options=options)
    if solution.status != 0 or solution.x is None:
        return LPSolution(np.full(game.shape, np.nan), math.inf, math.nan, int(solution.status), str(solution.message),
                          time.process_time() - started)
    joint = np.maximum(solution.x, 0.0)
    joint = (joint / joint.sum()).reshape(game.shape)
    return LPSolution(joint, certify(game, joint), float(cost @ joint.ravel()), 0, str(solution.message),
                      time.process_time() - started)


def solve_cce_lp(game, objective="welfare", *, time_limit: float | None = None) -> LPSolution:
    """A coarse correlated equilibrium by the exact LP (HiGHS): by default the welfare-maximising one.

    ``objective``: ``"welfare"``, ``"feasibility"`` (zero cost) or a cost array of the game's shape
    (minimised). ``time_limit`` (seconds) is HiGHS's; a run that does not finish has ``status`` != 0,
    a NaN joint and an infinite gap. The returned joint is clipped at 0 and divided by its sum; its
    ``gap`` is :func:`gamedyn.games.general_sum.cce_gap` of it (certified).

    Examples
    --------
    >>> from gamedyn.games.general_sum import BimatrixGame
    >>> chicken = BimatrixGame([[0, 7], [2, 6]], [[0, 2], [7, 6]])
    >>> solution = solve_cce_lp(chicken)
    >>> solution.joint.round(6).tolist(), solution.gap <= 1e-9
    ([[0.0, 0.25], [0.25, 0.5]], True)
    """
    started = time.process_time()
    return _solve(game, cce_constraints(game), objective, time_limit, cce_gap, started)


def solve_ce_lp(game, objective="welfare", *, time_limit: float | None = None) -> LPSolution:
    """A correlated equilibrium by the exact LP (HiGHS): by default the welfare-maximising one.

    As :func:`solve_cce_lp`, on the CE polytope; ``gap`` is :func:`gamedyn.games.general_sum.ce_gap`.

    Examples
    --------
    >>> from gamedyn.games.general_sum import BimatrixGame
    >>> chicken = BimatrixGame([[0, 7], [2, 6]], [[0, 2], [7, 6]])
    >>> solution = solve_ce_lp(chicken)  # welfare 10.5 (Aumann's 1/3 each: 10)
    >>> solution.joint.round(6).tolist(), round(-solution.value, 6)
    ([[0.0, 0.25], [0.25, 0.5]], 10.5)
    """
    started = time.process_time()
    return _solve(game, ce_constraints(game), objective, time_limit, ce_gap, started)
