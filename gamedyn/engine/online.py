r"""Weighted online convex optimisation against a fixed sequence of losses: :func:`online` (no game)."""

from __future__ import annotations

import numpy as np

from gamedyn.core.loss import Loss
from gamedyn.core.weights import weight_function
from gamedyn.engine.results import OnlineResult, Unbounded, check_result, regret
from gamedyn.engine.seats import check_learner, checked_point, declares_plays_in_domain

__all__ = ["online"]


def online(learner, losses, weights=None, *, initial_loss: Loss | None = None) -> OnlineResult:
    """Weighted online convex optimisation against a fixed sequence of losses (no game).

    Round t: the learner plays z_t (shown f_t first if it needs the current loss, like FTRL+), then
    observes alpha_t f_t. Returns the plays and the weighted regret
    R_T = sum_t alpha_t f_t(z_t) - min_{z in Z} sum_t alpha_t f_t(z).
    As for :func:`play`, the result never holds NaN (the regret is +inf only where Z has no best
    point) and an overflow raises :class:`NumericalRangeError`.
    """
    check_learner(learner, "learner")
    losses = list(losses)
    if not losses or not all(isinstance(loss, Loss) for loss in losses):
        raise ValueError("losses must be a non-empty sequence of gamedyn.Loss objects.")
    T = len(losses)
    weight = weight_function("constant" if weights is None else weights, "weights", T)
    dimension = losses[0].linear.shape[0]
    sizes = {np.shape(loss.linear) for loss in losses}
    if sizes != {(dimension,)}:
        raise ValueError(f"every loss must have a 1-D linear part of the same length; got shapes {sorted(sizes)}.")
    state = learner.init(dimension, initial_loss)
    learner_keeps_sum = callable(getattr(learner, "loss_sum", None))  # then its sum is the only one
    checked = not declares_plays_in_domain(learner)
    plays, loss_sum, played = [], Loss.zero(dimension), 0.0
    for t, loss in enumerate(losses, start=1):
        alpha = weight(t)
        point = learner.play(state, alpha, loss if learner.needs_current_loss else None)
        if checked:
            point = checked_point(point, "online: learner", learner, (dimension,), t)
        state = learner.update(state, point, loss, alpha)
        plays.append(point)
        if not learner_keeps_sum:
            loss_sum = loss_sum.plus_scaled(loss, alpha)
        played += alpha * loss.value(point)
    if learner_keeps_sum:
        loss_sum = learner.loss_sum(state)
    check_result({"plays": plays, "loss_sum": loss_sum, "played_loss": played}, set(), "online")
    total = regret(learner.domain, loss_sum, played)
    check_result({"regret": total}, {"regret"} if isinstance(total, Unbounded) else set(), "online")
    return OnlineResult(np.array(plays), float(total), loss_sum, played)
