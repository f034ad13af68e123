r"""PCFR+ against PCFR+ on an extensive-form game (Farina, Kroer & Sandholm 2021): PRM+ on every infoset.

The box is declared once, below (``@recipe``); the family and its conventions: :mod:`gamedyn.recipes.cfr`.
"""

from __future__ import annotations

from gamedyn.core.counterfactual import CounterfactualRegret
from gamedyn.engine.recipe import EFG, Box, Parameter, recipe
from gamedyn.games.efg.result import EFGResult, alternating_parameter, averaging_parameter
from gamedyn.games.matrix.result import check_alternating, check_averaging
from gamedyn.recipes.cfr import PAYOFF, counterfactual_game

__all__ = ["pcfr_plus"]


@recipe(
    name="pcfr_plus", family=EFG, reference="Farina, Kroer & Sandholm 2021",
    summary="PCFR+ vs PCFR+: PRM+ on every infoset, the counterfactual prediction; alternating, quadratic averages",
    box=Box(payoff=PAYOFF,
            w_player="CounterfactualRegret(X, 'prm+', prediction)   (x_{t+1} = seq. form of [Q_j + v_j]^+ normalised, "
                     "v_j the predicted regret)",
            p_player="CounterfactualRegret(Y, 'prm+', prediction)   (the same on the second player's treeplex)",
            weights="alpha_t = 1 for the learners;  output weights alpha_t = t^2 (averaging='quadratic')",
            first="player 0; alternating (the second player's update of round t sees x_t)",
            output="x = x_bar_T, y = y_bar_T (quadratic averages, sequence form);  certified value bracket, Nash gap, "
                   "exploitability"),
    parameters=(Parameter("prediction", "the prediction: 'counterfactual' (the last loss, bottom-up with the new "
                          "strategies below) or 'simple' (each infoset's last regrets)", "counterfactual", kind=str,
                          choices=("counterfactual", "simple"), cli=False),
                alternating_parameter(True), averaging_parameter("quadratic")),
    page="extensive-form-games",
    pair=("PCFR+ (PRM+)", "PCFR+ (PRM+)", "quadratic", "alternating"),  # efg_learners' names
)
def pcfr_plus(game, T, *, prediction="counterfactual", alternating=True, averaging="quadratic",
              **run_options) -> EFGResult:
    r"""Predictive CFR+ self-play, by default alternating with quadratic averaging (Farina, Kroer & Sandholm 2021).

    Returns
    -------
    EFGResult
        ``x``, ``y``, ``lower``, ``upper``, ``nash_gap``, ``exploitability``, ``policy(player)``, ``game``.

    Raises
    ------
    ValueError
        A ``prediction`` other than ``"counterfactual"`` or ``"simple"``.

    Examples
    --------
    >>> from gamedyn.games.efg import kuhn_poker
    >>> result = pcfr_plus(kuhn_poker(), T=1000)
    >>> bool(result.lower <= -1 / 18 <= result.upper), bool(result.exploitability < 1e-4)
    (True, True)
    """
    if prediction not in ("counterfactual", "simple"):
        raise ValueError(f"prediction must be 'counterfactual' or 'simple', got {prediction!r}.")
    return counterfactual_game(game, T, lambda treeplex: CounterfactualRegret(treeplex, "prm+", prediction=prediction),
                               check_alternating(alternating), check_averaging(averaging), run_options)
