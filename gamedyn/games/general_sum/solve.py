r"""Certified coarse correlated and correlated equilibria: stop rules and the solvers :func:`solve_cce`, :func:`solve_ce`.

**Stop rules.** :class:`CCEGapStop` and :class:`CEGapStop` are observers of
:func:`gamedyn.engine.players.play_n`. Each keeps the running sums that give the gap of the empirical
joint distribution :math:`\sigma_t=\sum_s\beta_s\bigotimes_ix^i_s/\sum_s\beta_s` exactly (up to
rounding) from the rounds' utilities, which the round already computed:

* CCE: :math:`\sum_s\beta_su_i(\cdot,x^{-i}_s)` and :math:`\sum_s\beta_s\langle u_i(\cdot,x^{-i}_s),x^i_s\rangle`
  per player (O(a_i) a round); the gap is :math:`\max(0,\max_i(\max_k L_i[k]-P_i))/\sum_s\beta_s`;
* CE: :math:`C_i=\sum_s\beta_s\,x^i_s\,u_i(\cdot,x^{-i}_s)^\top` per player (O(a_i^2) a round); the gap
  is :math:`\max_i\sum_a\max_{a'}(C_i[a,a']-C_i[a,a])/\sum_s\beta_s`.

When the running estimate reaches the target the rule **certifies** before it stops: it forms the
dense joint distribution from the product terms it kept (``certify=True``, the default; O(T) memory)
and computes its certified gap (:mod:`~gamedyn.games.general_sum.certificates`); the run stops only
when that gap is at most the target (``certified``, ``joint`` hold the proof).

**Solvers.** :func:`solve_cce` / :func:`solve_ce` return an :class:`EquilibriumSolution` whose
``joint()`` is the dense joint distribution and whose ``gap`` is its certified gap, at most the one
asked for. The dynamics are those measured fastest in ``benchmarks/general_sum.py`` (see
:data:`CCE_DYNAMICS`, :data:`CE_DYNAMICS`); the exact LP (:mod:`~gamedyn.games.general_sum.lp`, the
welfare-maximising equilibrium) answers where it is faster (games of at most
:data:`LP_FIRST_NONZEROS` constraint entries, per kind) and where the dynamics do not reach the gap in
``max_rounds`` (if the LP is at most :data:`LP_LARGEST_NONZEROS` entries).
"""

from __future__ import annotations

import math
import numbers
import time
from typing import Any

import attrs
import numpy as np

from gamedyn.core.regret_matching import RegretMatching
from gamedyn.core.swap_regret import SwapRegret
from gamedyn.core.validation import check_count
from gamedyn.engine.players import play_n
from gamedyn.games.general_sum.certificates import cce_gap, ce_gap
from gamedyn.games.general_sum.game import NormalFormGame
from gamedyn.games.general_sum.joint import ProductJoint
from gamedyn.games.general_sum.lp import solve_cce_lp, solve_ce_lp

__all__ = ["CCEGapStop", "CEGapStop", "CCE_DYNAMICS", "CE_DYNAMICS", "EquilibriumSolution", "LP_FIRST_NONZEROS", "lp_nonzeros",
           "LP_LARGEST_NONZEROS", "solve_cce", "solve_ce"]


def _check_gap(gap, name: str = "gap") -> float:
    value = float(gap) if isinstance(gap, numbers.Real) and not isinstance(gap, bool) else math.nan
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a positive finite number (the largest gain a deviation may have), "
                         f"got {gap!r}.")
    return value


class _GapStop:
    """The common part of the two stop rules: the product terms, the certification, the state."""

    needs_round_state = False
    kind = ""

    def __init__(self, eps: float, certify: bool = True):
        self.eps = _check_gap(eps, "eps")
        self.certify = bool(certify)
        self.estimate = math.inf
        self.certified = math.inf  # the last certified gap (inf: none yet)
        self.joint: np.ndarray | None = None  # the dense joint the last certificate is about
        self.total = 0.0
        self._plays: list[list] = []
        self._weights: list[float] = []
        self._slack = 0.0  # how far the estimate must go below eps after a failed certificate
        self._run: Any = None

    def start(self, run) -> None:
        """Attach to the :func:`play_n` run (its game must have ``payoffs``: a :class:`NormalFormGame`)."""
        if not hasattr(run.game, "payoffs"):
            raise TypeError(f"{type(self).__name__} certifies from the game's payoff tensors; give play_n a "
                            f"NormalFormGame (or BimatrixGame), got {type(run.game).__name__}.")
        self._run = run
        self._plays = [[] for _ in run.seats]
        self._start(run)

    def _start(self, run) -> None:
        raise NotImplementedError

    def _accumulate(self, plays, utilities, weight) -> float:
        raise NotImplementedError

    def _certificate(self, game, joint) -> float:
        raise NotImplementedError

    def observe(self, t) -> bool:
        run = self._run
        plays = [seat.last for seat in run.seats]
        weight = run.output_weight(t)
        if self.certify:
            for kept, x in zip(self._plays, plays):
                kept.append(x)
            self._weights.append(weight)
        self.total += weight
        self.estimate = self._accumulate(plays, [-loss.linear for loss in run.last_losses], weight) / self.total
        if self.estimate > self.eps - self._slack:
            return False
        if not self.certify:
            return True
        joint = ProductJoint(tuple(np.array(kept) for kept in self._plays), np.array(self._weights)).dense()
        self.certified, self.joint = self._certificate(run.game, joint), joint
        if self.certified <= self.eps:
            return True
        self._slack = min(self.eps, 2.0 * (self.certified - self.estimate))  # rounding: ask for a margin
        return False

    def product_joint(self) -> ProductJoint:
        """The product terms kept so far (``certify=True``)."""
        return ProductJoint(tuple(np.array(kept) for kept in self._plays), np.array(self._weights))


class CCEGapStop(_GapStop):
    r"""Stop :func:`gamedyn.engine.players.play_n` when the empirical joint distribution is an ``eps``-CCE (certified).

    ``estimate`` is the running CCE gap (O(a_i) a round per player); when it is at most ``eps`` the
    rule forms the dense joint (``joint``) from the product terms it keeps and stops if its certified
    gap (``certified``, :func:`gamedyn.games.general_sum.cce_gap`) is at most ``eps``. With
    ``certify=False`` it keeps no product terms (O(sum a_i) memory) and stops on the estimate.

    Examples
    --------
    >>> import numpy as np
    >>> from gamedyn import BimatrixGame, RegretMatching
    >>> from gamedyn.engine.players import play_n
    >>> rng = np.random.default_rng(0)
    >>> game = BimatrixGame(rng.uniform(size=(10, 10)), rng.uniform(size=(10, 10)))
    >>> stop = CCEGapStop(1e-3)
    >>> result = play_n(game, [RegretMatching(plus=True)] * 2, 10_000, weights="linear", observers=[stop])
    >>> result.stopped_early, bool(stop.certified <= 1e-3), stop.joint.shape
    (True, True, (10, 10))
    """

    name = "CCEGapStop"
    kind = "CCE"

    def _start(self, run) -> None:
        self.utility_sums = [np.zeros(seat.play_sum.shape[0]) for seat in run.seats]
        self.played = np.zeros(len(run.seats))

    def _accumulate(self, plays, utilities, weight) -> float:
        worst = -math.inf
        for i, (x, u) in enumerate(zip(plays, utilities)):
            sums = self.utility_sums[i]
            sums += weight * u
            self.played[i] += weight * float(u @ x)
            worst = max(worst, float(sums.max()) - self.played[i])
        return max(worst, 0.0)

    def _certificate(self, game, joint) -> float:
        return cce_gap(game, joint)


class CEGapStop(_GapStop):
    r"""Stop :func:`gamedyn.engine.players.play_n` when the empirical joint distribution is an ``eps``-CE (certified).

    As :class:`CCEGapStop`, with the swap gains :math:`C_i=\sum_s\beta_sx^i_su_i^\top` (O(a_i^2) a round
    per player) and :func:`gamedyn.games.general_sum.ce_gap`.
    """

    name = "CEGapStop"
    kind = "CE"

    def _start(self, run) -> None:
        self.swap_sums = [np.zeros((seat.play_sum.shape[0],) * 2) for seat in run.seats]

    def _accumulate(self, plays, utilities, weight) -> float:
        worst = 0.0
        for i, (x, u) in enumerate(zip(plays, utilities)):
            C = self.swap_sums[i]
            C += np.outer(weight * x, u)
            gains = C - np.diag(C)[:, None]
            worst = max(worst, float(np.maximum(gains.max(axis=1), 0.0).sum()))
        return worst

    def _certificate(self, game, joint) -> float:
        return ce_gap(game, joint)


@attrs.frozen(eq=False)
class EquilibriumSolution:
    """A certified approximate (coarse) correlated equilibrium.

    ``kind``: ``"CCE"`` or ``"CE"``; ``gap``: the certified gap of :meth:`joint` (an upper bound of its
    exact gap, :func:`gamedyn.games.general_sum.cce_gap` / ``ce_gap``); ``requested``: the gap asked
    for; ``reached``: ``gap <= requested``; ``method``: what produced it (the dynamics or the LP);
    ``rounds``: the dynamics' rounds (None for the LP); ``seconds``: CPU time.
    """

    kind: str
    gap: float
    requested: float
    method: str
    rounds: int | None
    seconds: float
    _joint: np.ndarray = attrs.field(alias="joint_array")

    @property
    def reached(self) -> bool:
        """Whether the certified gap is at most the requested one."""
        return bool(self.gap <= self.requested)

    def joint(self) -> np.ndarray:
        """The joint distribution over the pure profiles, a dense array of shape (a_1, ..., a_n) (a copy)."""
        return np.array(self._joint)

    def marginals(self) -> tuple:
        """Each player's marginal distribution of :meth:`joint`."""
        axes = range(self._joint.ndim)
        return tuple(self._joint.sum(axis=tuple(j for j in axes if j != i)) for i in axes)


# The dynamics solve_cce / solve_ce run: measured fastest in benchmarks/general_sum.py (its "which dynamics"
# section): name -> (a learner for an action count, the weights alpha_t = beta_t).
CCE_DYNAMICS = ("PRM+ self-play, linear weights", lambda actions: RegretMatching(plus=True, predictive=True), "linear")
CE_DYNAMICS = ("Blum-Mansour over RM+ copies, linear weights", lambda actions: SwapRegret(RegretMatching(plus=True)),
               "linear")
# constraint entries up to which the LP (welfare) answers first: measured faster there (benchmarks/general_sum.py,
# section 2: CCE, the LP wins up to 8 x 8 x 8 (12288 entries) and the dynamics from 20 x 20 (16000); CE, the LP wins
# on every size measured, up to 50 x 50 (245000 entries))
LP_FIRST_NONZEROS = {"CCE": 15_000, "CE": 250_000}
LP_LARGEST_NONZEROS = 20_000_000  # the largest LP tried after the dynamics missed the gap


def _check_game(game) -> NormalFormGame:
    if not isinstance(getattr(game, "payoffs", None), tuple) or not callable(getattr(game, "matrix", None)):
        raise TypeError(f"game must be a gamedyn.NormalFormGame or BimatrixGame, got {type(game).__name__}; build "
                        f"one with NormalFormGame([U_1, ..., U_n]) or BimatrixGame(A, B).")
    return game


def lp_nonzeros(game, kind: str) -> int:
    """The entries of the CCE (``kind="CCE"``) or CE LP's inequality rows for ``game``."""
    N = int(np.prod(game.shape))
    if kind == "CCE":
        return N * int(sum(game.shape))
    return int(sum(N // a * a * (a - 1) for a in game.shape))


def _solve(game, gap, kind, method, max_rounds, dynamics, stop_type, lp, certify) -> EquilibriumSolution:
    game = _check_game(game)
    gap = _check_gap(gap)
    max_rounds = check_count(max_rounds, "max_rounds")
    if method not in ("auto", "dynamics", "lp"):
        raise ValueError(f"method must be 'auto', 'dynamics' or 'lp', got {method!r}.")
    started = time.process_time()
    nonzeros = lp_nonzeros(game, kind)
    if method == "lp" or (method == "auto" and nonzeros <= LP_FIRST_NONZEROS[kind]):
        return _from_lp(lp(game), kind, gap, started)
    label, learner_for, weights = dynamics
    stop = stop_type(gap)
    result = play_n(game, [learner_for(a) for a in game.shape], max_rounds, weights=weights, observers=[stop])
    if stop.joint is None or stop.certified > gap:  # the gap was not reached: certify the joint we have
        joint = stop.product_joint().dense()
        found = EquilibriumSolution(kind, certify(game, joint), gap, label, result.rounds,
                                    time.process_time() - started, joint_array=joint)
        if method == "auto" and not found.reached and nonzeros <= LP_LARGEST_NONZEROS:
            return _from_lp(lp(game), kind, gap, started)
        return found
    return EquilibriumSolution(kind, stop.certified, gap, label, result.rounds, time.process_time() - started,
                               joint_array=stop.joint)


def _from_lp(solution, kind, gap, started) -> EquilibriumSolution:
    if solution.status != 0:
        raise RuntimeError(f"the {kind} LP did not solve: {solution.message}")
    return EquilibriumSolution(kind, solution.gap, gap, "LP (HiGHS), welfare-maximising", None,
                               time.process_time() - started, joint_array=solution.joint)


def solve_cce(game, gap: float = 1e-3, *, method: str = "auto", max_rounds: int = 20_000) -> EquilibriumSolution:
    r"""A coarse correlated equilibrium of ``game`` with a certified gap at most ``gap``.

    The dynamics (:data:`CCE_DYNAMICS`, the fastest measured) run in
    :func:`gamedyn.engine.players.play_n` until :class:`CCEGapStop` certifies the empirical joint
    distribution; the exact LP (welfare-maximising) answers first for small games and after
    ``max_rounds`` rounds that missed the gap (see the module docstring).

    Parameters
    ----------
    game : NormalFormGame
        The game (:class:`gamedyn.NormalFormGame`, :class:`gamedyn.BimatrixGame`).
    gap : float, default 1e-3
        The largest gain any player's fixed deviation may have, in the payoffs' units.
    method : {"auto", "dynamics", "lp"}, default "auto"
        Force the dynamics or the LP, or choose as above.
    max_rounds : int, default 20000
        The dynamics' round budget.

    Returns
    -------
    EquilibriumSolution
        ``joint()`` (dense, shape (a_1, ..., a_n)) and its certified ``gap``; ``reached`` is False only
        when the dynamics missed the gap and the LP was too large to try (``method="dynamics"``, or auto
        beyond :data:`LP_LARGEST_NONZEROS`).

    Examples
    --------
    >>> import numpy as np
    >>> from gamedyn import NormalFormGame
    >>> rng = np.random.default_rng(0)
    >>> game = NormalFormGame(list(rng.uniform(size=(3, 6, 6, 6))))
    >>> solution = solve_cce(game, gap=1e-3)
    >>> solution.reached, solution.joint().shape, bool(solution.gap <= 1e-3)
    (True, (6, 6, 6), True)
    """
    return _solve(game, gap, "CCE", method, max_rounds, CCE_DYNAMICS, CCEGapStop, solve_cce_lp, cce_gap)


def solve_ce(game, gap: float = 1e-3, *, method: str = "auto", max_rounds: int = 20_000) -> EquilibriumSolution:
    r"""A correlated equilibrium of ``game`` with a certified gap at most ``gap``.

    As :func:`solve_cce`, with no-swap-regret dynamics (:data:`CE_DYNAMICS`), :class:`CEGapStop` and the
    CE LP.

    Examples
    --------
    >>> from gamedyn import BimatrixGame
    >>> chicken = BimatrixGame([[0, 7], [2, 6]], [[0, 2], [7, 6]])
    >>> solution = solve_ce(chicken, gap=1e-6)
    >>> solution.reached, solution.method
    (True, 'LP (HiGHS), welfare-maximising')
    """
    return _solve(game, gap, "CE", method, max_rounds, CE_DYNAMICS, CEGapStop, solve_ce_lp, ce_gap)
