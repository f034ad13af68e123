r"""Certificates of sequence-form games: the value bracket, the Nash gap (NashConv) and the exploitability.

A two-player zero-sum extensive-form game in sequence form is :math:`\max_{x\in X}\min_{y\in Y}x^\top Ay`
(X, Y the two treeplexes, :class:`gamedyn.core.treeplex.Treeplex`; A the sparse payoff of the first
player, chance included). For strategies :math:`(x,y)` the best responses are backward passes
(:meth:`Treeplex.best_response_value`):

.. math::

    \text{lower}=\min_{y'\in Y}x^\top Ay'\ \le\ v^\star\ \le\ \max_{x'\in X}x'^\top Ay=\text{upper},

the **Nash gap** (NashConv, the sum of both players' best-response gains) is upper - lower, and the
**exploitability** is half of it (OpenSpiel's ``exploitability``: NashConv over the number of
players; LiteEFG prints the full gap under that name).

:func:`sequence_form_bracket` certifies the bracket of the **behavioural strategies** of x and y
(what :meth:`gamedyn.games.efg.ExtensiveFormGame.policy` exports): it recomputes their sequence forms
from the local distributions, takes the two products and the two passes in float64 and widens each
end by a bound on every rounding on the way (Higham 2002, eq. 3.5: :math:`\gamma_K` times the pass
on the magnitudes :math:`|A|\mathbf 1`, K the longest chain of roundings; :class:`SequenceFormProducts`),
so that ``lower <= v* <= upper`` holds in exact arithmetic for those policies.

:class:`SequenceFormTracker` is :func:`gamedyn.play`'s certificate of such a game (nothing per round,
the bracket from the averaged strategies when asked); :class:`ExploitabilityStop` is the stop rule:
it keeps the output-weighted sums :math:`\sum_t\omega_tAy_t` and :math:`\sum_t\omega_tA^\top x_t` from
the products the rounds already computed (the round-to-round differences of the seats' loss sums,
O(|Σ|), no product) and checks the exploitability of the averages by two backward passes.
"""

from __future__ import annotations

import math
from typing import Any

import attrs
import numpy as np
import scipy.sparse as sp

__all__ = ["ExploitabilityStop", "SequenceFormBracket", "SequenceFormProducts", "SequenceFormTracker", "exploitability",
           "nash_gap", "sequence_form_bracket"]

_UNIT = 2.0 ** -53


@attrs.frozen
class SequenceFormBracket:
    r"""A certified bracket of a sequence-form game's value: ``lower`` :math:`\le v^\star\le` ``upper``.

    ``lower`` = :math:`\min_yx^\top Ay` and ``upper`` = :math:`\max_xx^\top Ay` for the policies of x
    and y, each rounded outwards (see the module docstring); ``nash_gap`` = upper - lower (NashConv, a
    certified upper bound on it), ``exploitability`` = ``nash_gap / 2`` (OpenSpiel's convention),
    ``value`` = :math:`x^\top Ay` (the policies' own value, as computed).
    """

    lower: float
    upper: float
    value: float = attrs.field(default=math.nan, kw_only=True)

    @property
    def nash_gap(self) -> float:
        """upper - lower: NashConv, the sum of the two best-response gains (>= 0)."""
        return self.upper - self.lower

    @property
    def exploitability(self) -> float:
        """NashConv / 2 (OpenSpiel's ``exploitability`` of the two policies)."""
        return 0.5 * self.nash_gap

    @property
    def width(self) -> float:
        """upper - lower (as :class:`gamedyn.games.matrix.ValueBracket`)."""
        return self.nash_gap

    def contains(self, value: float) -> bool:
        """Whether ``lower <= value <= upper``."""
        return bool(self.lower <= value <= self.upper)


def _as_csr(A):
    if sp.issparse(A):
        return sp.csr_matrix(A, dtype=np.float64)
    return sp.csr_matrix(np.asarray(A, dtype=np.float64))


def _chain(treeplex) -> int:
    """The roundings one level of a pass and of a policy's sequence form can add: each level's sums over an
    infoset's actions and into a parent sequence, and one product and one normalisation per level."""
    children = np.bincount(treeplex.parents, minlength=treeplex.dimension)
    return len(treeplex.levels) * (int(np.max(treeplex.sizes, initial=1)) + int(np.max(children, initial=1)) + 4)


class SequenceFormProducts:
    r"""What a certificate of one game reuses: A (CSR) and its transpose, and the rounding bounds of each end.

    Every rounding on the way to :math:`\max_{x'}x'^\top Ay` (the product's sums, the policy's sequence
    form, the backward pass's sums) is at most :math:`\gamma_K\max_{x'}x'^\top|A|y` along the longest
    chain K of sums (Higham 2002, eq. 3.5), and, a policy's sequence form being at most 1 entrywise,
    :math:`\max_{x'}x'^\top|A|y\le C_X=\max_{x'}x'^\top|A|\mathbf 1`: a constant of the game, one
    product and one pass, computed here once (likewise :math:`C_Y` for the lower end). The widening of
    each end is then :math:`\gamma_KC` (the built-in games: at most 4e-11, Liar's dice with 6 faces).
    """

    def __init__(self, A, treeplexes):
        A = _as_csr(A)
        self.A, self.treeplexes = A, tuple(treeplexes)
        self.A_transpose = A.T.tocsr()
        rows = int(np.max(np.diff(A.indptr), initial=0))
        columns = int(np.max(np.diff(self.A_transpose.indptr), initial=0))
        k = rows + columns + sum(_chain(treeplex) for treeplex in self.treeplexes) + 16
        gamma = 2.0 * k * _UNIT / (1.0 - k * _UNIT)  # doubled: the bounds' own products and passes round too
        magnitude = abs(A)
        X, Y = self.treeplexes
        self.upper_widening = gamma * X.best_response_value(magnitude @ np.ones(Y.dimension), maximize=True)
        self.lower_widening = gamma * Y.best_response_value(magnitude.T @ np.ones(X.dimension), maximize=True)


def sequence_form_bracket(A, treeplexes, x, y, *, products: SequenceFormProducts | None = None) -> SequenceFormBracket:
    r"""The certified bracket of :math:`v^\star` from the policies of ``x`` and ``y`` (see the module docstring).

    Two products and two backward passes, each end widened by its rounding bound
    (:class:`SequenceFormProducts`).

    Parameters
    ----------
    A : scipy.sparse matrix or array, shape (|Σ_0|, |Σ_1|)
        The first player's sequence-form payoff (chance included); she maximises :math:`x^\top Ay`.
    treeplexes : (Treeplex, Treeplex)
        The two players' strategy sets.
    x, y : array_like
        Sequence-form strategies (the averages of a run); their behavioural strategies are certified
        (uniform at infosets they never reach).
    products : SequenceFormProducts, optional
        A's transpose and the rounding bounds, to reuse across calls (built here when not given).

    Returns
    -------
    SequenceFormBracket
        ``lower`` <= v* <= ``upper``, with ``nash_gap`` and ``exploitability``.
    """
    if products is None:
        products = SequenceFormProducts(A, treeplexes)
    X, Y = products.treeplexes
    x_policy = X.to_sequence(X.to_behavioural(x))
    y_policy = Y.to_sequence(Y.to_behavioural(y))
    utility = products.A @ y_policy  # the first player's: x'^T A y
    upper = X.best_response_value(utility, maximize=True)
    lower = Y.best_response_value(products.A_transpose @ x_policy)  # min over y' of x^T A y'
    value = float(x_policy @ utility)
    upper = float(np.nextafter(upper + products.upper_widening, math.inf))
    lower = float(np.nextafter(lower - products.lower_widening, -math.inf))
    return SequenceFormBracket(lower, upper, value=value)


def nash_gap(A, treeplexes, x, y) -> float:
    r"""NashConv of the policies of x and y: :math:`\max_{x'}x'^\top Ay-\min_{y'}x^\top Ay'` (certified, >= 0)."""
    return sequence_form_bracket(A, treeplexes, x, y).nash_gap


def exploitability(A, treeplexes, x, y) -> float:
    """NashConv / 2 of the policies of x and y, OpenSpiel's ``exploitability`` (certified upper bound)."""
    return sequence_form_bracket(A, treeplexes, x, y).exploitability


class SequenceFormTracker:
    """:func:`gamedyn.play`'s certificate of a sequence-form game: the bracket of the averaged strategies.

    It watches no round (``observes_rounds = False``); :func:`gamedyn.play` binds it to the run and
    :meth:`certificate` reads the seats' play sums when asked (:func:`sequence_form_bracket`). A
    resumed run restores the sums, so it needs no checkpoint state of its own.
    """

    observes_rounds = False

    def __init__(self, A, treeplexes, products: SequenceFormProducts | None = None):
        self.A, self.treeplexes = A, tuple(treeplexes)
        self._products = products  # built at the first certificate when not given
        self._run: Any = None  # the Run, set by bind()

    def bind(self, run) -> None:
        """Remember the run whose seats hold the sums (called once by :func:`gamedyn.play`)."""
        self._run = run

    def certificate(self) -> SequenceFormBracket:
        """The certified bracket at the output's averaged strategies now."""
        w_seat, p_seat = self._run.w_seat, self._run.p_seat
        if self._products is None:
            self._products = SequenceFormProducts(self.A, self.treeplexes)
        return sequence_form_bracket(self.A, self.treeplexes, w_seat.play_sum / w_seat.output_weight_total,
                                     p_seat.play_sum / p_seat.output_weight_total, products=self._products)


def _check_eps(eps) -> float:
    if isinstance(eps, bool) or not isinstance(eps, (int, float, np.integer, np.floating)) or not (
            math.isfinite(eps) and eps > 0):
        raise ValueError(f"eps must be a positive finite exploitability (NashConv / 2), got {eps!r}; e.g. "
                         "ExploitabilityStop(1e-3).")
    return float(eps)


def _check_every(every) -> int:
    if isinstance(every, bool) or not isinstance(every, (int, np.integer)) or every < 1:
        raise ValueError(f"every must be a positive integer (check every k rounds), got {every!r}.")
    return int(every)


class ExploitabilityStop:
    r"""An observer of :func:`gamedyn.play` on a sequence-form game: stop when the averages' exploitability <= ``eps``.

    Every ``every`` rounds it computes :math:`\max_xx^\top A\bar y-\min_y\bar x^\top Ay` by two backward
    passes on running sums :math:`\sum_t\omega_tAy_t`, :math:`\sum_t\omega_tA^\top x_t` (:math:`\omega_t`
    the output weights). It reads each round's products off the seats' loss sums (their round-to-round
    difference, O(|Σ|), no product); the first round it sees takes the two products itself (round 1's
    first-mover sum also holds an alternating run's start charge). So the run must keep the loss sums
    (``regrets=True``, or a sequence-form payoff, whose certificate keeps them). After each check
    ``estimate`` is the exploitability (NashConv / 2) of the averages, ``lower`` / ``upper`` the value
    bracket, ``nash_gap`` their difference: running values, equal to those of the averages up to
    rounding; the recipe's result certifies them (:func:`sequence_form_bracket`). It carries its sums
    in a checkpoint (``checkpoint_state`` / ``restore_state``).

    Parameters
    ----------
    eps : float
        The target exploitability (NashConv / 2, OpenSpiel's convention), > 0.
    every : int, default 1
        Check every this many rounds (the sums are kept every round).

    Examples
    --------
    >>> from gamedyn.core import CounterfactualRegret
    >>> from gamedyn.engine import play
    >>> from gamedyn.games.efg import kuhn_poker
    >>> game = kuhn_poker()
    >>> stop = ExploitabilityStop(1e-3)
    >>> result = play(game.payoff(), CounterfactualRegret(game.treeplexes[0], "rm+"),
    ...               CounterfactualRegret(game.treeplexes[1], "rm+"), 10_000, alternating=True,
    ...               output_weights="linear", observers=[stop])
    >>> bool(stop.estimate <= 1e-3), result.rounds < 10_000
    (True, True)
    """

    needs_round_state = False
    name = "ExploitabilityStop"

    def __init__(self, eps: float, every: int = 1):
        self.eps, self.every = _check_eps(eps), _check_every(every)
        self.estimate = self.lower = self.upper = self.nash_gap = math.nan
        self._run: Any = None
        self._sums: Any = None  # (sum omega A y_t, sum omega A^T x_t, sum omega)
        self._previous: Any = None  # the last round's loss sums and weight totals

    def start(self, run) -> None:
        """Attach to the run: its payoff's products and its players' treeplexes."""
        payoff = run.payoff
        if not all(callable(getattr(payoff, name, None)) for name in ("times", "transpose_times")) or not all(
                getattr(domain, "sequence_form", False) is True for domain in (run.w_domain, run.p_domain)):
            raise ValueError("ExploitabilityStop needs a sequence-form game: a MatrixGame whose two players play on "
                             "treeplexes (e.g. gamedyn.games.efg.kuhn_poker().payoff()), got "
                             f"{type(payoff).__name__} on {run.w_domain!r} and {run.p_domain!r}.")
        self._run = run  # a fresh run starts from zero sums (a resumed one then restores its own)
        self._sums = (np.zeros(run.w_domain.dimension), np.zeros(run.p_domain.dimension), 0.0)
        self._previous = None
        self.estimate = self.lower = self.upper = self.nash_gap = math.nan

    def observe(self, t) -> bool:
        run = self._run
        w_seat, p_seat = run.w_seat, run.p_seat
        w_sum, p_sum = w_seat.linear_loss_sum(), p_seat.linear_loss_sum()
        if w_sum is None or p_sum is None:
            raise ValueError("ExploitabilityStop reads the seats' loss sums; this run keeps none (regrets=False and "
                             "no certificate): pass regrets=True.")
        if self._previous is None:  # A y_t (the first player's utility) and A^T x_t by products, once
            by_y, by_x = run.payoff.transpose_times(p_seat.last), run.payoff.times(w_seat.last)
        else:
            w_before, p_before, w_total, p_total = self._previous
            by_y = (w_before - w_sum) / (w_seat.weight_total - w_total)  # -h_t / alpha_t = A y_t
            by_x = (p_sum - p_before) / (p_seat.weight_total - p_total)  # l_t / beta_t = A^T x_t
        self._previous = (np.array(w_sum), np.array(p_sum), w_seat.weight_total, p_seat.weight_total)
        utility_sum, loss_sum, total = self._sums
        weight = w_seat.output_weight(t)
        utility_sum += weight * by_y
        loss_sum += weight * by_x
        self._sums = (utility_sum, loss_sum, total + weight)
        if t % self.every:
            return False
        return self.check()

    def check(self) -> bool:
        """Compute the running bracket and exploitability now (two backward passes); True when <= eps."""
        utility_sum, loss_sum, total = self._sums
        if total <= 0.0:
            return False
        run = self._run
        self.upper = run.w_domain.best_response_value(utility_sum, maximize=True) / total
        self.lower = run.p_domain.best_response_value(loss_sum) / total
        self.nash_gap = self.upper - self.lower
        self.estimate = 0.5 * self.nash_gap
        return bool(self.estimate <= self.eps)

    def checkpoint_state(self) -> dict:
        """The running sums and the last round's loss sums (the same keys before the first round: zeros)."""
        utility_sum, loss_sum, total = self._sums
        previous = self._previous
        w_before, p_before, w_total, p_total = previous if previous is not None else (
            np.zeros_like(utility_sum), np.zeros_like(loss_sum), 0.0, 0.0)
        return {"utility_sum": utility_sum, "loss_sum": loss_sum, "total": total, "seen": previous is not None,
                "w_before": w_before, "p_before": p_before, "w_total": w_total, "p_total": p_total}

    def restore_state(self, state: dict) -> None:
        """Restore what :meth:`checkpoint_state` saved."""
        self._sums = (np.array(state["utility_sum"], dtype=np.float64), np.array(state["loss_sum"], dtype=np.float64),
                      float(state["total"]))
        self._previous = None
        if bool(state.get("seen", False)):
            self._previous = (np.array(state["w_before"]), np.array(state["p_before"]), float(state["w_total"]),
                              float(state["p_total"]))
        if self._sums[2] > 0:
            self.check()
