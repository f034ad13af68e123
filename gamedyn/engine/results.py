r"""What a run reports: the round state, the results, the regrets and the duality gap.

:class:`RoundState` is what a stop rule or callback sees after a round; :class:`GameResult` is the
outcome of :func:`gamedyn.play` and :class:`OnlineResult` of :func:`gamedyn.online`. :func:`regret`
and :func:`duality_gap` compute the weighted regret against the best point of a domain and the gap
at the averages; :func:`check_result` refuses a result with a NaN or an overflow
(:class:`gamedyn.NumericalRangeError`), naming where it came from.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import attrs
import numpy as np

from gamedyn.core.kernels import all_finite, backend_of, is_foreign, to_host_scalar, to_numpy
from gamedyn.core.loss import Loss
from gamedyn.core.numerics import NumericalRangeError

if TYPE_CHECKING:
    from gamedyn.engine.payoffs import Payoff

__all__ = ["GameResult", "OnlineResult", "RoundState", "check_result", "duality_gap", "regret"]


@attrs.frozen
class RoundState:
    """What a stop rule or callback sees after round t (all already computed by the round).

    ``w_sum``/``p_sum`` are the output-weighted sums of the plays; ``w_loss_sum``/``p_loss_sum``
    the weighted loss sums; the regrets so far are computed on demand (O(n + d)). The sums are the
    runner's running buffers, valid during the call: copy them (``np.array(state.w_sum)``) to keep them.
    A run with ``regrets=False`` keeps no played losses (None) and, for a learner that keeps no loss
    sum, no loss sum (None) unless an observer needs one.
    """

    t: int
    w: np.ndarray
    p: np.ndarray
    w_weight_total: float
    p_weight_total: float
    w_sum: np.ndarray
    p_sum: np.ndarray
    w_loss_sum: Loss | None
    p_loss_sum: Loss | None
    w_played_loss: float | np.ndarray | None  # one value per game for batched games; None: regrets=False
    p_played_loss: float | np.ndarray | None
    w_domain: Any
    p_domain: Any
    certificate_tracker: Any = None  # gamedyn.certify.certificates.CertificateTracker (bilinear payoffs), read by gamedyn.certify.stops

    @property
    def w_regret(self) -> float:
        """R_w(t), the w-player's weighted regret so far (needs the played losses: not with ``regrets=False``)."""
        played, loss_sum = _kept(self.w_played_loss, self.w_loss_sum)
        return float(regret(self.w_domain, loss_sum, played))

    @property
    def p_regret(self) -> float:
        """R_p(t), the p-player's weighted regret so far (needs the played losses: not with ``regrets=False``)."""
        played, loss_sum = _kept(self.p_played_loss, self.p_loss_sum)
        return float(regret(self.p_domain, loss_sum, played))


def _kept(played: float | np.ndarray | None, loss_sum: Loss | None) -> tuple[float | np.ndarray, Loss]:
    """The played loss and the loss sum behind a regret; an error when the run did not keep them."""
    if played is None or loss_sum is None:
        raise ValueError("the regrets were not computed: this run skipped them (skip_regrets(), a recipe's "
                         "regrets=False); drop skip_regrets() from play's observers (or pass regrets=True to the recipe) "
                         "to read them.")
    return played, loss_sum



@attrs.frozen
class GameResult:
    """Outcome of :func:`play`. Regrets are weighted, against the best fixed point of each domain.

    Never NaN. Every field is finite, except that ``w_regret`` / ``p_regret`` (and then
    ``theorem2_bound``) and ``duality_gap`` are ``+inf`` when a player's domain has no best point
    (R^d against a linear loss). Any other overflow raises :class:`NumericalRangeError` in
    :func:`play` instead of being returned.

    ``not_computed`` names the fields a run with ``regrets=False`` skipped (``w_regret``, ``p_regret``,
    ``theorem2_bound``, ``w_played_loss``, ``p_played_loss``, and the loss sums of learners that keep
    none when nothing else needed them); each of them is None. Empty for ``regrets=True``.
    """

    w_average: np.ndarray
    p_average: np.ndarray
    w_sum: np.ndarray
    p_sum: np.ndarray
    w_last: np.ndarray
    p_last: np.ndarray
    weight_total: float
    p_weight_total: float
    output_weight_total: float
    rounds: int
    w_regret: float | np.ndarray | None
    p_regret: float | np.ndarray | None
    theorem2_bound: float | np.ndarray | None
    duality_gap: float | np.ndarray | None
    w_loss_sum: Loss | None
    p_loss_sum: Loss | None
    w_played_loss: float | np.ndarray | None
    p_played_loss: float | np.ndarray | None
    stopped_early: bool
    stop_reason: str
    trace: dict[str, np.ndarray] | None = None  # record=True: {"w": (rounds, d), "p": (rounds, n)}
    # a gamedyn.certify.certificates.Certificate for bilinear payoffs (a list of them for batched games), None
    # without one; a payoff of the user's may declare a tracker of its own, whose certificate is kept as it is
    certificate: Any = None
    metrics: dict[str, np.ndarray] | None = None  # metrics=: one array per quantity (see gamedyn.play)
    not_computed: tuple[str, ...] = ()  # the fields a run with skip_regrets() (regrets=False) skipped (each None)

    def w_regret_against(self, u) -> float | np.ndarray:
        """R_w(u) = sum_t alpha_t (h_t(w_t) - h_t(u)) for a fixed comparator u (one per game when batched)."""
        played, loss_sum = _kept(self.w_played_loss, self.w_loss_sum)
        return played - loss_sum.value(np.asarray(u, dtype=np.float64))

    def p_regret_against(self, u) -> float | np.ndarray:
        """R_p(u) = sum_t alpha_t (l_t(p_t) - l_t(u)) for a fixed comparator u (one per game when batched)."""
        played, loss_sum = _kept(self.p_played_loss, self.p_loss_sum)
        return played - loss_sum.value(np.asarray(u, dtype=np.float64))


def regret(domain, loss_sum: Loss, played_loss: Any) -> float | np.ndarray:
    """Weighted regret against the best fixed point of the domain (inf when none exists).

    Batched games (a trailing axis): one regret per game, each against its own best point.
    """
    if loss_sum.linear.ndim > 1:
        regrets = [regret(domain, Loss(loss_sum.linear[:, k], loss_sum.curvature), played_loss[k])
                   for k in range(loss_sum.linear.shape[1])]
        values = np.array(regrets, dtype=np.float64)
        return values.view(UnboundedGames) if any(isinstance(r, Unbounded) for r in regrets) else values
    best = loss_sum.minimize_over(domain)
    if best is None:
        return _UNBOUNDED
    value = played_loss - loss_sum.value(best)
    return to_host_scalar(value) if is_foreign(value) else value  # a device scalar: the regret, on the host


def _best_response(domain, loss: Loss):
    """argmin over the domain of the loss (None if unbounded), column by column for batched games:
    then ``(points, bounded)`` with a zero column where a game's loss is unbounded below."""
    if loss.linear.ndim == 1:
        return loss.minimize_over(domain)
    columns = [domain.minimize_quadratic(loss.linear[:, k], loss.curvature) for k in range(loss.linear.shape[1])]
    bounded = np.array([column is not None for column in columns])
    if is_foreign(loss.linear):  # a batch on a device: the best responses stacked there
        xp = backend_of(loss.linear).xp
        zeros = xp.zeros_like(loss.linear[:, 0])
        return xp.stack([zeros if column is None else column for column in columns], axis=1), bounded
    points = np.stack([np.zeros(loss.linear.shape[0]) if column is None else column for column in columns], axis=1)
    return points, bounded


def duality_gap(payoff: Payoff, w_domain, p_domain, w_bar, p_bar) -> float | np.ndarray | None:
    """max_w g(w, p_bar) - min_p g(w_bar, p): zero exactly at a saddle point (inf when unbounded).

    Batched games: one gap per game."""
    if not getattr(payoff, "structured", True):  # a payoff without loss structure may compute its gap numerically
        numerical = getattr(payoff, "numerical_duality_gap", None)
        return None if numerical is None else numerical(w_domain, p_domain, w_bar, p_bar)
    p_best = _best_response(p_domain, payoff.loss_for_p(w_bar))
    w_best = _best_response(w_domain, payoff.loss_for_w(p_bar))
    if w_bar.ndim > 1:
        (p_points, p_bounded), (w_points, w_bounded) = p_best, w_best
        gap = np.asarray(to_numpy(payoff.value(w_points, p_bar) - payoff.value(w_bar, p_points)), dtype=np.float64)
        bounded = p_bounded & w_bounded
        return gap if bounded.all() else np.where(bounded, gap, np.inf).view(UnboundedGames)
    if p_best is None or w_best is None:
        return _UNBOUNDED
    return payoff.value(w_best, p_bar) - payoff.value(w_bar, p_best)


class Unbounded(float):
    """+inf that means "no best point exists" (R^d with a linear loss), not an overflow."""


_UNBOUNDED = Unbounded("inf")


class UnboundedGames(np.ndarray):
    """Per-game values (batched games) where +inf means "no best point", as :class:`Unbounded`."""


def per_game(value):
    """A float, or a plain float64 array of one value per batched game."""
    return float(value) if np.ndim(value) == 0 else np.asarray(value, dtype=np.float64)



def check_result(fields: dict, unbounded: set, where: str, context: dict | None = None):
    """No NaN, and inf only where a player's domain has no best point (``unbounded``): else raise.

    ``context`` holds the run's sums behind ``fields`` (the loss sums behind the regrets): they are
    not checked here, but they tell whether a NaN may be an overflow (see :func:`_nan_source`).

    Overflow is not rescaled silently: the dynamics are scale-equivariant (payoff / s with
    eta * s gives the same plays, with regrets / s), so the fix is the caller's to choose. A NaN
    is called an overflow only when a number of the run reached float64's limit; otherwise the
    error names where it is first seen (the plays, the losses or the played values), see
    :func:`_nan_source`.
    """
    for name, value in fields.items():
        part = value.linear if isinstance(value, Loss) else value
        # checked where it lives (one reduction, and for a device array one host synchronisation for the
        # verdict); only a failed check copies the values to the host, to say what went wrong
        if all_finite(part) and (not isinstance(value, Loss) or all_finite(value.curvature)):
            continue
        array = np.asarray(to_numpy(part), dtype=np.float64)
        if name in unbounded and bool(np.all(array == np.inf)):
            continue
        finite_part = np.abs(array[np.isfinite(array)])
        largest = float(np.max(finite_part)) if finite_part.size else float("nan")
        nan = bool(np.any(np.isnan(array))) or (isinstance(value, Loss) and math.isnan(value.curvature))
        if nan:
            source = _nan_source({**(context or {}), **fields})
            if source is not None:
                raise NumericalRangeError(f"{where}: the result's {name} is NaN. {source}")
        raise NumericalRangeError(
            f"{where}: the result's {name} is {'NaN' if nan else 'infinite'} "
            f"(its largest finite entry: {largest:.3g}): the run overflowed float64. Rescale the game: divide "
            f"the payoff by s > 0 (e.g. Bilinear(A / s); RegularizedBilinear(A / s, strength / s)) and "
            f"multiply each learner's eta by s (the plays are unchanged, the regrets, bound and gap "
            f"are divided by s), or use smaller weights alpha_t."
        )


_NEAR_OVERFLOW = 1e300  # beyond this a product or a sum of a few terms may overflow, and inf - inf is NaN
_PLAY_FIELDS = ("w_sum", "p_sum", "w_last", "p_last", "plays", "w_average", "p_average")
_LOSS_FIELDS = ("w_loss_sum", "p_loss_sum", "loss_sum")
_VALUE_FIELDS = ("w_played_loss", "p_played_loss", "played_loss")


def _nan_source(fields: dict) -> str | None:
    """Where a NaN of the run's sums came from, or None when an overflow may have made it.

    A NaN that float64 makes itself needs an infinity first (inf - inf, 0 * inf): with no infinite
    entry anywhere and every finite one far below float64's limit, it came in from a function the
    run calls. The sums tell which kind was NaN first: values at finite plays and losses come from
    the payoff's value; losses at finite plays from the payoff's losses; NaN plays from a learner
    (or from the NaN losses it was given).
    """
    largest, nan_fields = 0.0, []
    for name, value in fields.items():
        parts = (value.linear, value.curvature) if isinstance(value, Loss) else (value,)
        if isinstance(value, Loss) and np.all(np.isfinite(to_numpy(value.linear))):
            # The best reply to a curved loss sits at -linear / curvature, its value at -|linear|^2 / (2 curvature):
            # that product may overflow while every stored number is moderate (|A^T p| = 1e154, curvature 0.1).
            curvature = float(np.min(value.curvature)) if np.size(value.curvature) else 0.0
            top = float(np.max(np.abs(to_numpy(value.linear)))) if np.size(to_numpy(value.linear)) else 0.0
            if curvature > 0 and top > 0 and (top / curvature > _NEAR_OVERFLOW or top * (top / curvature) > _NEAR_OVERFLOW):
                return None
        for part in parts:
            array = np.asarray(to_numpy(part), dtype=np.float64)
            if np.any(np.isinf(array)):
                return None
            finite = np.abs(array[np.isfinite(array)])
            largest = max(largest, float(np.max(finite)) if finite.size else 0.0)
            if np.any(np.isnan(array)) and name not in nan_fields:
                nan_fields.append(name)
    if largest > _NEAR_OVERFLOW or largest * largest > _NEAR_OVERFLOW:
        return None  # a product of two numbers of the run (a play times a loss) may have overflowed
    kinds = {kind for kind, names in (("plays", _PLAY_FIELDS), ("losses", _LOSS_FIELDS), ("values", _VALUE_FIELDS))
             if any(name in names for name in nan_fields)}
    if kinds <= {"values"}:
        where = ("the payoff's value at the plays (payoff.played_values / payoff.value) returned NaN at finite "
                 "plays and losses")
    elif "plays" not in kinds:
        where = "the payoff's losses (payoff.loss_for_w / payoff.loss_for_p) returned NaN at finite plays"
    else:
        where = ("a play is NaN: a learner returned it, or computed it from a NaN loss (the built-in learners "
                 "only pass on a NaN they are given)")
    return (f"NaN holds in {', '.join(nan_fields)}, and no number of the run, nor a product of two of them, comes near "
            f"float64's limit (the largest finite one is {largest:.3g}), so this is no overflow: a NaN entered the run from a "
            f"function it calls, first seen in its {' and '.join(sorted(kinds))}: {where}. Check the functions "
            f"you passed for NaN (0/0, inf - inf, log or sqrt of a negative number).")



@attrs.frozen
class OnlineResult:
    """Outcome of :func:`online`: every play (O(T) by request) and the weighted regret."""

    plays: np.ndarray
    regret: float
    loss_sum: Loss
    played_loss: float
