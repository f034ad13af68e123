r"""DCFR against DCFR on an extensive-form game (Brown & Sandholm 2019): discounted regrets, weighted averages.

The box is declared once, below (``@recipe``); the family and its conventions: :mod:`gamedyn.recipes.cfr`.
"""

from __future__ import annotations

import math

from gamedyn.core.counterfactual import CounterfactualRegret
from gamedyn.engine.recipe import EFG, Box, Parameter, recipe
from gamedyn.games.efg.result import EFGResult, alternating_parameter
from gamedyn.games.matrix.result import check_alternating
from gamedyn.recipes.cfr import PAYOFF, counterfactual_game

__all__ = ["dcfr"]


def _exponent(value, name: str, allow_infinite: bool) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value) or (
            not allow_infinite and not math.isfinite(value)):
        raise ValueError(f"{name} must be a {'number' if allow_infinite else 'finite number'}, got {value!r}.")
    return float(value)


@recipe(
    name="dcfr", family=EFG, reference="Brown & Sandholm 2019",
    summary="DCFR vs DCFR: discounted regrets (alpha, beta) on every infoset; alternating, averages weighted t^gamma",
    box=Box(payoff=PAYOFF,
            w_player="CounterfactualRegret(X, 'dcfr', alpha, beta)   (R_j += r_j, then R_j >= 0 times t^alpha/(t^alpha+1), "
                     "R_j < 0 times t^beta/(t^beta+1))",
            p_player="CounterfactualRegret(Y, 'dcfr', alpha, beta)   (the same; t = the learner's own round)",
            weights="alpha_t = 1 for the learners;  output weights t^gamma",
            first="player 0; alternating (the second player's update of round t sees x_t)",
            output="x = x_bar_T, y = y_bar_T (sequence form);  certified value bracket, Nash gap, exploitability"),
    parameters=(Parameter("alpha", "the discount exponent of the positive regrets", 1.5, cli=False),
                Parameter("beta", "the discount exponent of the negative regrets", 0.0, cli=False),
                Parameter("gamma", "the exponent of the averaging weights t^gamma", 2.0, cli=False),
                alternating_parameter(True)),
    page="extensive-form-games",
    pair=("DCFR (1.5, 0)", "DCFR (1.5, 0)", "quadratic", "alternating"),  # gamma = 2: output weights t^2
)
def dcfr(game, T, *, alpha=1.5, beta=0.0, gamma=2.0, alternating=True, **run_options) -> EFGResult:
    r"""Discounted CFR self-play, DCFR(3/2, 0, 2) by default (Brown & Sandholm 2019), alternating.

    ``alpha = inf, beta = -inf`` keeps the positive regrets and drops the negative ones (RM+'s rule up
    to the first round); ``alpha = beta = gamma = 1`` is linear CFR.

    Returns
    -------
    EFGResult
        ``x``, ``y``, ``lower``, ``upper``, ``nash_gap``, ``exploitability``, ``policy(player)``, ``game``.

    Raises
    ------
    ValueError
        A NaN ``alpha`` or ``beta``, a negative or infinite ``gamma``.

    Examples
    --------
    >>> from gamedyn.games.efg import kuhn_poker
    >>> result = dcfr(kuhn_poker(), T=1000)
    >>> bool(result.lower <= -1 / 18 <= result.upper), bool(result.exploitability < 1e-3)
    (True, True)
    """
    alpha, beta = _exponent(alpha, "alpha", True), _exponent(beta, "beta", True)
    gamma = _exponent(gamma, "gamma", False)
    if gamma < 0:
        raise ValueError(f"gamma must be >= 0 (the averaging weights t^gamma grow or stay), got {gamma!r}.")

    def output_weights(t):
        return float(t) ** gamma

    return counterfactual_game(game, T, lambda treeplex: CounterfactualRegret(treeplex, "dcfr", alpha=alpha, beta=beta),
                               check_alternating(alternating), output_weights, run_options)
