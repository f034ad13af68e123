r"""Regret matching and adaptive Hedge-type learners in their original form, written without the runner.

Plain numpy, no other gamedyn import: these loops are the independent "original form" that the
matrix recipes (:func:`gamedyn.recipes.regret_matching`, :func:`gamedyn.recipes.regret_matching_plus`,
:func:`gamedyn.recipes.predictive_regret_matching_plus`, :func:`gamedyn.recipes.ada_hedge`) are
proven equal to (``tests/test_regret_matching.py``). Each learner is written as the papers write it, with the two
calls of Farina, Kroer & Sandholm (2021, Algorithms 1-2): ``next_strategy()`` and
``observe_utility(u)``. Everything is in *utility* (gain) form; a player with loss vector
:math:`\ell` observes :math:`u=-\ell`.

Zero-sum matrix game :math:`M\in\mathbb R^{m\times n}`: the row player maximises :math:`x^\top My`
and observes :math:`u^x=My`; the column player minimises it and observes :math:`u^y=-M^\top x`.

Learners (``K`` actions; :math:`r_t=u_t-\langle u_t,x_t\rangle\mathbf 1` is the instantaneous regret
vector of the strategy :math:`x_t` at which the utility :math:`u_t` is charged)
-------------------------------------------------------------------------------------------------
* :class:`RegretMatching` ``(plus=False, predictive=False)``

  - RM (Hart & Mas-Colell 2000, the unconditional-regret procedure; in game solving as in
    Zinkevich et al. 2007): :math:`R_t=R_{t-1}+r_t`, :math:`x_{t+1}=[R_t]^+/\|[R_t]^+\|_1`.
  - RM+ (Tammelin 2014; Tammelin, Burch, Johanson & Bowling 2015): :math:`Q_t=[Q_{t-1}+r_t]^+`,
    :math:`x_{t+1}=Q_t/\|Q_t\|_1`.
  - predictive RM / PRM+ (Farina, Kroer & Sandholm, AAAI 2021, Algorithms 1 and 2 with the
    prediction of the next utility :math:`m^{t+1}=u_t`): the strategy is
    :math:`x_{t+1}\propto[R_t+v_{t+1}]^+` (PRM) or :math:`[Q_t+v_{t+1}]^+` (PRM+), where the
    predicted regret vector is :math:`v_{t+1}=m^{t+1}-\langle m^{t+1},x_t\rangle\mathbf 1` --
    the prediction is paired with the *previous* strategy :math:`x_t` (the current one is not known
    yet), so with :math:`m^{t+1}=u_t` it is exactly the last regret vector :math:`r_t`. The
    prediction enters only the strategy, never the stored :math:`R_t` / :math:`Q_t`. Before any
    observation the prediction is 0.
  - All four: when the vector to normalise has no positive entry (all regrets <= 0, e.g. the first
    round) the strategy is **uniform** (the papers allow any point; uniform is the convention of
    Zinkevich et al. 2007 and of every implementation we know).

* :class:`AdaHedge` (de Rooij, van Erven, Grunwald & Koolen, JMLR 15, 2014, Sect. 2 and the Matlab
  code of their Figure 1): Hedge on the losses :math:`\ell_t=-u_t` with
  :math:`\eta_t=\ln K/\Delta_{t-1}` (:math:`\eta_1=\infty`, and :math:`\eta_t=\infty` while
  :math:`\Delta_{t-1}=0`: follow the leader, uniform over the leaders), weights
  :math:`w_{t,k}\propto e^{-\eta_tL_{t-1,k}}`, mix loss
  :math:`m_t=M_{\eta_t}(L_t)-M_{\eta_t}(L_{t-1})` with
  :math:`M_\eta(L)=\min_kL_k-\frac1\eta\ln\frac1K\sum_ke^{-\eta(L_k-\min L)}` (:math:`M_\infty=\min L`),
  mixability gap :math:`\delta_t=h_t-m_t\ge0` (:math:`h_t=w_t\cdot\ell_t`), clipped at 0 against
  rounding exactly as the paper's code does, and :math:`\Delta_t=\Delta_{t-1}+\delta_t`.

* :class:`AdaptiveFTRL`: an AdaGrad-style adaptive step for FTRL with the entropic regularizer on
  the simplex (the FTRL form of Hedge): :math:`x_t\propto\exp(\eta_tU_{t-1})`,
  :math:`U_{t-1}=\sum_{s<t}u_s`, with
  :math:`\eta_t=\sqrt{\ln K/\sum_{s<t}\rho_s^2}`, :math:`\rho_s=\max_ku_{s,k}-\min_ku_{s,k}` the range
  of the utility vector (the dual semi-norm that matters on the simplex: adding a constant to
  :math:`u` changes no play). The rate depends only on the past, as in AdaGrad (Duchi, Hazan &
  Singer 2011) and scale-free FTRL (Orabona & Pal 2018); uniform while the sum is 0. This exact
  parametrisation is ours; its regret bound is derived in docs/explanation/regret-matching-bounds.md.

* :class:`OptimisticHedge` (Rakhlin & Sridharan 2013; Syrgkanis et al. 2015):
  :math:`x_t\propto\exp(\eta(U_{t-1}+\hat u_t))` with the hint :math:`\hat u_t=u_{t-1}`; the first
  hint is supplied by the caller (the game loops pass the utility at the opponent's uniform start,
  gamedyn's convention).

Self-play (:func:`play_matrix_game`)
------------------------------------
*Simultaneous*: round :math:`t=1..T`: :math:`x_t` = row.next, :math:`y_t` = column.next; the row
observes :math:`My_t` (charged at :math:`x_t`), the column observes :math:`-M^\top x_t` (charged at
:math:`y_t`).

*Alternating* (the order of Tammelin's CFR+, as CFR+ codes run it: in every round the row player
updates first, against the column's current strategy; then the column player updates, and its
update sees the row player's CURRENT -- just updated -- strategy of the same round). Both players
start at :math:`x_0` = row.next, :math:`y_0` = column.next (uniform for every learner here); the
starts are not plays and are not averaged. Round :math:`t=1..T`:

1. the row observes :math:`My_{t-1}`, charged at :math:`x_{t-1}`, and plays :math:`x_t` = row.next;
2. the column observes :math:`-M^\top x_t`, charged at :math:`y_{t-1}`, and plays :math:`y_t` = column.next.

So :math:`x_t` has seen :math:`y_0,\dots,y_{t-1}` and :math:`y_t` has seen :math:`x_1,\dots,x_t`
(never :math:`x_0`); the round's play is :math:`(x_t,y_t)`. In code, step 1 of round t+1 is run at
the end of round t (the row observes :math:`My_t` at :math:`x_t`), after one observation of
:math:`My_0` at :math:`x_0` before round 1. Hence the row's regret over the plays is over the pairs
:math:`(x_t,y_t)` and the column's over :math:`(y_{t-1},x_t)`, t = 1..T. This is the loop that
reproduces the issue's measured rounds exactly (586 rounds for RM+ with linear averaging and 765
for PRM+ with quadratic averaging to a gap of 1e-4 on the 100 x 100 game of seed 0). The variant
without the observation of :math:`(x_0,y_0)` (row plays uniform first, the column's first update
sees it) is a different algorithm: 693 and 787 rounds on that game.

*Averaging*: :math:`\bar x=\sum_t\alpha_tx_t/\sum_t\alpha_t` over the plays :math:`t=1..T` (in
simultaneous play the uniform first play :math:`x_1` is averaged, as in Freund & Schapire 1999;
the starts :math:`x_0,y_0` of the alternating loop are not plays and are not averaged), with
:math:`\alpha_t=1` (uniform), :math:`t` (linear) or :math:`t^2` (quadratic); the weights start at
:math:`t=1` (the first play has weight 1).

The Nash gap is :math:`\max_i(M\bar y)_i-\min_j(\bar x^\top M)_j\ge0`.

Sources checked (search tool): Farina, Kroer & Sandholm (2021) abstract and the prediction pairing
:math:`\langle m^t,x^{t-1}\rangle` of their Algorithm 5 (PCFR+) as summarised in the noregret C++
project; de Rooij et al. (2014), the Python translation of their Figure 1 code (``mix`` with the
``eta == inf`` FTL limit, ``delta = max(0, h - (M - Mprev))``); Zhang, Anagnostides & Sandholm
(2025) abstract (PRM+ can converge as slowly as :math:`T^{-1/2}` in self-play). The theorem texts
themselves could not be retrieved; docs/explanation/regret-matching-bounds.md derives every constant that the tests check.
"""

from __future__ import annotations

import math

import attrs
import numpy as np

__all__ = [
    "AVERAGING_POWERS", "AdaHedge", "AdaptiveFTRL", "GamePath", "OptimisticHedge", "RegretMatching",
    "ada_hedge", "adaptive_ftrl", "averaging_weights", "check_payoff_matrix", "fictitious_play", "nash_gap",
    "optimistic_hedge", "play_matrix_game", "predictive_regret_matching_plus", "regret_matching",
    "regret_matching_plus", "regret_matching_strategy",
]

AVERAGING_POWERS = {"uniform": 0, "linear": 1, "quadratic": 2}


# ----------------------------------------------------------------------------------------------- checks

def check_payoff_matrix(M, name: str = "M") -> np.ndarray:
    """A finite 2-D float64 payoff matrix with at least one row and one column, or a clear error (the numbers
    through :func:`gamedyn.core.validation.real_array`: no digit strings, booleans, complex or ragged lists)."""
    from gamedyn.core.validation import real_array

    try:
        matrix = real_array(M, name, "payoffs").astype(np.float64, copy=False)
    except TypeError as error:
        raise TypeError(f"{name} must be a 2-D array of payoffs (rows: the maximiser's actions): {error}") from None
    if matrix.ndim != 2 or matrix.shape[0] < 1 or matrix.shape[1] < 1:
        raise ValueError(f"{name} must be a 2-D payoff matrix of shape (rows, columns), got shape {matrix.shape}.")
    if not np.all(np.isfinite(matrix)):
        raise ValueError(f"{name} must have finite entries; it contains NaN or infinity.")
    return matrix


def _check_rounds(T, name: str = "T") -> int:
    if isinstance(T, bool) or not isinstance(T, (int, np.integer)) or T < 1:
        raise ValueError(f"{name} must be a positive integer number of rounds, got {T!r}.")
    return int(T)


def _check_size(size, name: str = "size") -> int:
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
        raise ValueError(f"{name} must be a positive integer number of actions, got {size!r}.")
    return int(size)


def _check_averaging(averaging) -> int:
    if averaging not in AVERAGING_POWERS:
        raise ValueError(f"averaging must be one of {sorted(AVERAGING_POWERS)}, got {averaging!r}.")
    return AVERAGING_POWERS[averaging]


def _check_utility(u, size: int) -> np.ndarray:
    utility = np.asarray(u, dtype=np.float64)
    if utility.shape != (size,):
        raise ValueError(f"u must be a utility vector of length {size}, got shape {utility.shape}.")
    if not np.all(np.isfinite(utility)):
        raise ValueError("u must be finite; it contains NaN or infinity.")
    return utility


def averaging_weights(T: int, averaging: str = "uniform") -> np.ndarray:
    r"""The weights :math:`\alpha_t=t^p`, t = 1..T, p = 0 (uniform), 1 (linear) or 2 (quadratic).

    >>> averaging_weights(3, "quadratic").tolist()
    [1.0, 4.0, 9.0]
    """
    power = _check_averaging(averaging)
    T = _check_rounds(T)
    return np.arange(1, T + 1, dtype=np.float64) ** power


def nash_gap(M, row, column) -> float:
    r""":math:`\max_i(M\,\mathrm{column})_i-\min_j(\mathrm{row}^\top M)_j`, zero exactly at an equilibrium."""
    matrix = check_payoff_matrix(M)
    return float(np.max(matrix @ np.asarray(column, dtype=np.float64)) - np.min(np.asarray(row, dtype=np.float64) @ matrix))


def regret_matching_strategy(theta) -> np.ndarray:
    r""":math:`[\theta]^+/\|[\theta]^+\|_1`, or the uniform strategy when no entry of theta is positive.

    >>> regret_matching_strategy([2.0, -1.0, 0.0]).tolist()
    [1.0, 0.0, 0.0]
    >>> regret_matching_strategy([-1.0, 0.0]).tolist()
    [0.5, 0.5]
    """
    positive = np.maximum(np.asarray(theta, dtype=np.float64), 0.0)
    total = positive.sum()
    if total > 0.0:
        return positive / total
    return np.full(positive.shape, 1.0 / positive.size)


# --------------------------------------------------------------------------------------------- learners

class RegretMatching:
    r"""RM, RM+, predictive RM or PRM+ on the simplex of ``size`` actions (utility form).

    The papers' two calls: :meth:`next_strategy` returns :math:`x_{t+1}` and remembers it;
    :meth:`observe_utility` charges the utility at the strategy last returned.

    Attributes read by the tests: ``regrets`` (:math:`R_t`, or :math:`Q_t\ge0` for RM+),
    ``prediction`` (the predicted regret vector the next strategy will use; 0 if not predictive),
    ``last_regret`` (:math:`r_t`) and ``strategy`` (the strategy last returned).
    """

    def __init__(self, size: int, *, plus: bool = False, predictive: bool = False):
        self.size = _check_size(size)
        self.plus = bool(plus)
        self.predictive = bool(predictive)
        self.regrets = np.zeros(self.size)
        self.prediction = np.zeros(self.size)
        self.last_regret: np.ndarray | None = None
        self.strategy: np.ndarray | None = None

    def next_strategy(self) -> np.ndarray:
        r""":math:`x_{t+1}=[\theta]^+/\|[\theta]^+\|_1` with :math:`\theta` the regrets (plus the prediction if predictive); remembered."""
        theta = self.regrets + self.prediction if self.predictive else self.regrets
        self.strategy = regret_matching_strategy(theta)
        return self.strategy.copy()

    def observe_utility(self, u) -> None:
        r"""Add :math:`r_t=u_t-\langle u_t,x_t\rangle\mathbf 1` to the regrets (clipped at 0 for RM+); predictive: :math:`m_{t+1}=r_t`.

        Raises
        ------
        RuntimeError
            Before the first :meth:`next_strategy`.
        ValueError
            If ``u`` is not a finite vector of length ``size``.
        """
        if self.strategy is None:
            raise RuntimeError("observe_utility needs a strategy to charge: call next_strategy first.")
        utility = _check_utility(u, self.size)
        regret = utility - utility @ self.strategy  # r_t = u_t - <u_t, x_t> 1
        self.regrets = self.regrets + regret
        if self.plus:
            self.regrets = np.maximum(self.regrets, 0.0)
        self.last_regret = regret
        if self.predictive:
            # m^{t+1} = u_t paired with x_t: v_{t+1} = u_t - <u_t, x_t> 1 = r_t (Farina et al. 2021)
            self.prediction = regret


def _mix(eta: float, cumulative: np.ndarray) -> tuple:
    """de Rooij et al. (2014), Figure 1: the Hedge weights at rate eta and the mix loss M_eta(L)."""
    smallest = float(np.min(cumulative))
    if eta == math.inf:  # the limit eta -> infinity: follow the leader(s), M = min L
        weights = (cumulative == smallest).astype(np.float64)
        total = weights.sum()
        return weights / total, smallest
    weights = np.exp(-eta * (cumulative - smallest))
    total = weights.sum()
    return weights / total, smallest - math.log(total / cumulative.size) / eta


class AdaHedge:
    r"""AdaHedge of de Rooij, van Erven, Grunwald & Koolen (2014): Hedge with :math:`\eta_t=\ln K/\Delta_{t-1}`.

    Attributes read by the tests: ``cumulative_loss`` (:math:`L_t`), ``gap`` (:math:`\Delta_t`),
    ``gaps`` (every :math:`\delta_t`), ``rates`` (every :math:`\eta_t` used) and ``strategy``.
    With one action the play is that action and every mixability gap is 0.
    """

    def __init__(self, size: int):
        self.size = _check_size(size)
        self.cumulative_loss = np.zeros(self.size)
        self.gap = 0.0
        self.gaps: list[float] = []
        self.rates: list[float] = []
        self.strategy: np.ndarray | None = None
        self._eta = math.inf
        self._mix_before = 0.0

    def rate(self) -> float:
        r""":math:`\eta=\ln K/\Delta` (:math:`\infty` while :math:`\Delta=0`)."""
        if self.gap == 0.0:
            return math.inf
        return math.log(self.size) / self.gap

    def next_strategy(self) -> np.ndarray:
        r"""The Hedge weights :math:`w_t\propto e^{-\eta_tL_{t-1}}` at :math:`\eta_t=\ln K/\Delta_{t-1}` (the leaders while :math:`\Delta=0`)."""
        self._eta = self.rate()
        if self.size == 1:
            self.strategy, self._mix_before = np.ones(1), float(self.cumulative_loss[0])
        else:
            self.strategy, self._mix_before = _mix(self._eta, self.cumulative_loss)
        return self.strategy.copy()

    def observe_utility(self, u) -> None:
        r"""Charge the loss :math:`-u_t`: add it to :math:`L_t` and the mixability gap :math:`\delta_t=h_t-m_t` to :math:`\Delta_t`.

        Raises
        ------
        RuntimeError
            Before the first :meth:`next_strategy`.
        ValueError
            If ``u`` is not a finite vector of length ``size``.
        """
        if self.strategy is None:
            raise RuntimeError("observe_utility needs a strategy to charge: call next_strategy first.")
        loss = -_check_utility(u, self.size)
        hedge_loss = float(self.strategy @ loss)
        self.cumulative_loss = self.cumulative_loss + loss
        if self.size == 1:
            delta = 0.0
        else:
            _, mix_after = _mix(self._eta, self.cumulative_loss)
            delta = max(0.0, hedge_loss - (mix_after - self._mix_before))  # the paper clips rounding below 0
        self.gap += delta
        self.gaps.append(delta)
        self.rates.append(self._eta)


def _softmax(logits: np.ndarray) -> np.ndarray:
    weights = np.exp(logits - np.max(logits))
    return weights / weights.sum()


class AdaptiveFTRL:
    r"""FTRL with the entropic regularizer and the AdaGrad-style step :math:`\eta_t=\sqrt{\ln K/\sum_{s<t}\rho_s^2}`.

    :math:`x_t\propto\exp(\eta_tU_{t-1})`; :math:`\rho_s` is the range (max - min) of the utility
    vector of round s; uniform while :math:`\sum\rho^2=0`. Attributes: ``cumulative_utility``,
    ``squared_ranges`` (the sum), ``rates`` (every :math:`\eta_t` used), ``strategy``.
    """

    def __init__(self, size: int):
        self.size = _check_size(size)
        self.cumulative_utility = np.zeros(self.size)
        self.squared_ranges = 0.0
        self.rates: list[float] = []
        self.strategy: np.ndarray | None = None
        self._eta = math.inf

    def rate(self) -> float:
        r""":math:`\eta_t=\sqrt{\ln K/\sum_{s<t}\rho_s^2}` (:math:`\infty` while the sum is 0)."""
        if self.squared_ranges == 0.0:
            return math.inf
        return math.sqrt(math.log(self.size) / self.squared_ranges)

    def next_strategy(self) -> np.ndarray:
        r""":math:`x_t\propto\exp(\eta_tU_{t-1})`, uniform while every past utility vector was constant."""
        self._eta = self.rate()
        if self._eta == math.inf:  # every past utility vector was constant: all actions tie
            self.strategy = np.full(self.size, 1.0 / self.size)
        else:
            self.strategy = _softmax(self._eta * self.cumulative_utility)
        return self.strategy.copy()

    def observe_utility(self, u) -> None:
        r"""Add :math:`u_t` to :math:`U_t` and its squared range :math:`\rho_t^2` to the sum.

        Raises
        ------
        RuntimeError
            Before the first :meth:`next_strategy`.
        ValueError
            If ``u`` is not a finite vector of length ``size``.
        """
        if self.strategy is None:
            raise RuntimeError("observe_utility needs a strategy to charge: call next_strategy first.")
        utility = _check_utility(u, self.size)
        self.cumulative_utility = self.cumulative_utility + utility
        self.squared_ranges += float(np.max(utility) - np.min(utility)) ** 2
        self.rates.append(self._eta)


class OptimisticHedge:
    r"""Optimistic Hedge with a constant step: :math:`x_t\propto\exp(\eta(U_{t-1}+u_{t-1}))`, the first hint given."""

    def __init__(self, size: int, eta: float, first_hint=None):
        self.size = _check_size(size)
        if not (isinstance(eta, (int, float, np.floating)) and math.isfinite(eta) and eta > 0):
            raise ValueError(f"eta must be a positive finite step, got {eta!r}.")
        self.eta = float(eta)
        self.cumulative_utility = np.zeros(self.size)
        self.hint = np.zeros(self.size) if first_hint is None else _check_utility(first_hint, self.size)
        self.strategy: np.ndarray | None = None

    def next_strategy(self) -> np.ndarray:
        r""":math:`x_t\propto\exp(\eta(U_{t-1}+u_{t-1}))` (the hint :math:`u_{t-1}`: the first hint before any utility)."""
        self.strategy = _softmax(self.eta * (self.cumulative_utility + self.hint))
        return self.strategy.copy()

    def observe_utility(self, u) -> None:
        r"""Add :math:`u_t` to :math:`U_t`; it is the next round's hint.

        Raises
        ------
        ValueError
            If ``u`` is not a finite vector of length ``size``.
        """
        utility = _check_utility(u, self.size)
        self.cumulative_utility = self.cumulative_utility + utility
        self.hint = utility


# ------------------------------------------------------------------------------------------- self-play

@attrs.frozen
class GamePath:
    """Averaged strategies, last plays, Nash gap and (with ``trajectory=True``) every round's data.

    Trajectory arrays (row t-1 is round t): ``rows`` / ``columns`` (the plays x_t, y_t),
    ``row_utilities`` (M y_t), ``column_utilities`` (-M^T x_t), ``row_charged`` / ``column_charged``
    (the strategy each utility was charged at: x_t; y_t when simultaneous, y_{t-1} when
    alternating), ``weights`` (alpha_t); alternating only: ``row_start`` / ``column_start``
    (x_0, y_0) and ``row_start_utility`` (M y_0, the row's observation before round 1).
    """

    row_average: np.ndarray
    column_average: np.ndarray
    row_last: np.ndarray
    column_last: np.ndarray
    nash_gap: float
    rows: np.ndarray | None = None
    columns: np.ndarray | None = None
    row_utilities: np.ndarray | None = None
    column_utilities: np.ndarray | None = None
    row_charged: np.ndarray | None = None
    column_charged: np.ndarray | None = None
    weights: np.ndarray | None = None
    row_start: np.ndarray | None = None
    column_start: np.ndarray | None = None
    row_start_utility: np.ndarray | None = None


def play_matrix_game(M, T, row, column, *, alternating: bool = False, averaging: str = "uniform",
                     trajectory: bool = False) -> GamePath:
    """T rounds of two learners on the matrix game M (row maximises x^T M y); see the module docstring.

    Parameters
    ----------
    M : array_like, shape (m, n)
        Payoffs to the row player.
    T : int
        Number of rounds (>= 1).
    row, column : learner
        Objects with ``next_strategy()`` and ``observe_utility(u)`` over m and n actions, fresh.
    alternating : bool
        False: simultaneous rounds. True: the CFR+ order (the row updates first, against the
        column's current strategy; the column's update sees the row's current strategy).
    averaging : {"uniform", "linear", "quadratic"}
        The weights alpha_t = 1, t, t^2 of the averaged plays, t = 1..T.
    trajectory : bool
        Keep every round's plays, utilities and charged strategies.

    Returns
    -------
    GamePath

    Raises
    ------
    ValueError
        For a bad M, T or averaging, or learners of the wrong size.

    Examples
    --------
    The first alternating round on a 2 x 2 game, by hand: the row's update against the uniform
    starts makes it play its first action; the column, seeing that, plays its second.

    >>> M = [[2.0, -1.0], [-1.0, 1.0]]
    >>> path = play_matrix_game(M, 1, RegretMatching(2), RegretMatching(2), alternating=True)
    >>> path.row_average.tolist(), path.column_average.tolist()
    ([1.0, 0.0], [0.0, 1.0])
    """
    matrix = check_payoff_matrix(M)
    T = _check_rounds(T)
    power = _check_averaging(averaging)
    m, n = matrix.shape
    for learner, size, name in ((row, m, "row"), (column, n, "column")):
        if getattr(learner, "size", None) != size:
            raise ValueError(f"the {name} learner must have {size} actions (M has shape {matrix.shape}), got {getattr(learner, 'size', None)!r}.")
    row_sum, column_sum, total = np.zeros(m), np.zeros(n), 0.0
    keep: dict[str, list] = {key: [] for key in ("rows", "columns", "row_utilities", "column_utilities", "row_charged", "column_charged")}
    starts = None
    if alternating:  # the starts x_0, y_0, and the row's first update: M y_0 charged at x_0
        x_start, y_previous = row.next_strategy(), column.next_strategy()
        start_utility = matrix @ y_previous
        row.observe_utility(start_utility)
        starts = (x_start, y_previous.copy(), start_utility)
    for t in range(1, T + 1):
        if alternating:
            x = row.next_strategy()
            column_utility = -(x @ matrix)
            column.observe_utility(column_utility)  # charged at y_{t-1}: the column sees the row's current x_t
            y = column.next_strategy()
            row_utility = matrix @ y
            row.observe_utility(row_utility)  # charged at x_t: step 1 of round t + 1
            column_charged = y_previous
            y_previous = y
        else:
            x = row.next_strategy()
            y = column.next_strategy()
            row_utility = matrix @ y
            column_utility = -(x @ matrix)
            row.observe_utility(row_utility)
            column.observe_utility(column_utility)
            column_charged = y
        weight = float(t) ** power
        row_sum += weight * x
        column_sum += weight * y
        total += weight
        if trajectory:
            for key, value in (("rows", x), ("columns", y), ("row_utilities", row_utility),
                               ("column_utilities", column_utility), ("row_charged", x), ("column_charged", column_charged)):
                keep[key].append(value)
    row_average, column_average = row_sum / total, column_sum / total
    gap = nash_gap(matrix, row_average, column_average)
    if not trajectory:
        return GamePath(row_average, column_average, x, y, gap)
    arrays = {key: np.array(values) for key, values in keep.items()}
    if starts is not None:
        arrays.update(row_start=starts[0], column_start=starts[1], row_start_utility=starts[2])
    return GamePath(row_average, column_average, x, y, gap, weights=averaging_weights(T, averaging), **arrays)


# --------------------------------------------------------------------------------- named dynamics

def regret_matching(M, T, *, plus: bool = False, predictive: bool = False, alternating: bool = False,
                    averaging: str = "uniform", trajectory: bool = False) -> GamePath:
    """Self-play of RM (default), RM+ (``plus``), predictive RM (``predictive``) or PRM+ (both).

    >>> path = regret_matching([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], 1)
    >>> path.row_average.tolist(), path.nash_gap
    ([0.3333333333333333, 0.3333333333333333, 0.3333333333333333], 0.0)
    """
    matrix = check_payoff_matrix(M)
    m, n = matrix.shape
    return play_matrix_game(matrix, T, RegretMatching(m, plus=plus, predictive=predictive),
                            RegretMatching(n, plus=plus, predictive=predictive),
                            alternating=alternating, averaging=averaging, trajectory=trajectory)


def regret_matching_plus(M, T, *, alternating: bool = True, averaging: str = "linear", trajectory: bool = False) -> GamePath:
    """RM+ self-play, by default as CFR+ runs it: alternating, linear averaging (Tammelin et al. 2015)."""
    return regret_matching(M, T, plus=True, alternating=alternating, averaging=averaging, trajectory=trajectory)


def predictive_regret_matching_plus(M, T, *, alternating: bool = True, averaging: str = "quadratic",
                                    trajectory: bool = False) -> GamePath:
    """PRM+ self-play, by default alternating with quadratic averaging (Farina, Kroer & Sandholm 2021)."""
    return regret_matching(M, T, plus=True, predictive=True, alternating=alternating, averaging=averaging,
                           trajectory=trajectory)


def ada_hedge(M, T, *, alternating: bool = False, averaging: str = "uniform", trajectory: bool = False) -> GamePath:
    """AdaHedge self-play (de Rooij et al. 2014): each player runs AdaHedge on its own losses."""
    matrix = check_payoff_matrix(M)
    m, n = matrix.shape
    return play_matrix_game(matrix, T, AdaHedge(m), AdaHedge(n), alternating=alternating, averaging=averaging,
                            trajectory=trajectory)


def adaptive_ftrl(M, T, *, alternating: bool = False, averaging: str = "uniform", trajectory: bool = False) -> GamePath:
    """Self-play of entropic FTRL with the AdaGrad-style step of :class:`AdaptiveFTRL`."""
    matrix = check_payoff_matrix(M)
    m, n = matrix.shape
    return play_matrix_game(matrix, T, AdaptiveFTRL(m), AdaptiveFTRL(n), alternating=alternating, averaging=averaging,
                            trajectory=trajectory)


def optimistic_hedge(M, T, eta=None, *, trajectory: bool = False) -> GamePath:
    """Simultaneous optimistic Hedge, one step eta (default 1/r, r = max M - min M, 1 if r = 0).

    The first round's hints are the utilities at the opponent's uniform start: M y_0 and -M^T x_0.
    """
    matrix = check_payoff_matrix(M)
    m, n = matrix.shape
    if eta is None:
        spread = float(np.max(matrix) - np.min(matrix))
        eta = 1.0 / spread if spread > 0 else 1.0
    row = OptimisticHedge(m, eta, first_hint=matrix @ np.full(n, 1.0 / n))
    column = OptimisticHedge(n, eta, first_hint=-(np.full(m, 1.0 / m) @ matrix))
    return play_matrix_game(matrix, T, row, column, trajectory=trajectory)


def fictitious_play(M, T, *, trajectory: bool = False) -> GamePath:
    r"""Simultaneous fictitious play with the uniform starts as one prior observation (Brown 1951).

    :math:`x_t=e_{i_t}`, :math:`i_t=\arg\max_i(M(y_0+\sum_{s<t}y_s))_i`,
    :math:`y_t=e_{j_t}`, :math:`j_t=\arg\min_j((x_0+\sum_{s<t}x_s)^\top M)_j` (smallest index on ties);
    uniform averaging of the plays. Written with dense products (the reference, not the fast loop).
    """
    matrix = check_payoff_matrix(M)
    T = _check_rounds(T)
    m, n = matrix.shape
    row_payoff = matrix @ np.full(n, 1.0 / n)  # M (y_0 + sum_{s<t} y_s)
    column_payoff = np.full(m, 1.0 / m) @ matrix  # (x_0 + sum_{s<t} x_s)^T M
    row_plays, column_plays = [], []
    for _ in range(T):
        x, y = np.zeros(m), np.zeros(n)
        x[np.argmax(row_payoff)] = 1.0
        y[np.argmin(column_payoff)] = 1.0
        row_payoff = row_payoff + matrix @ y
        column_payoff = column_payoff + x @ matrix
        row_plays.append(x)
        column_plays.append(y)
    rows, columns = np.array(row_plays), np.array(column_plays)
    row_average, column_average = rows.mean(axis=0), columns.mean(axis=0)
    gap = nash_gap(matrix, row_average, column_average)
    if trajectory:
        return GamePath(row_average, column_average, rows[-1], columns[-1], gap, rows=rows, columns=columns,
                        weights=np.ones(T))
    return GamePath(row_average, column_average, rows[-1], columns[-1], gap)
