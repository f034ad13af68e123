r"""CFR+ against CFR+ on an extensive-form game (Tammelin 2014): RM+ on every infoset, alternating, linear averaging.

The box is declared once, below (``@recipe``); the family and its conventions: :mod:`gamedyn.recipes.cfr`.
"""

from __future__ import annotations

from gamedyn.core.counterfactual import CounterfactualRegret
from gamedyn.engine.recipe import EFG, Box, recipe
from gamedyn.games.efg.result import EFGResult, alternating_parameter, averaging_parameter
from gamedyn.games.matrix.result import check_alternating, check_averaging
from gamedyn.recipes.cfr import PAYOFF, counterfactual_game

__all__ = ["cfr_plus"]


@recipe(
    name="cfr_plus", family=EFG, reference="Tammelin 2014; Tammelin, Burch, Johanson & Bowling 2015",
    summary="CFR+ vs CFR+: RM+ on every infoset's counterfactual regrets; alternating, linear averages",
    box=Box(payoff=PAYOFF,
            w_player="CounterfactualRegret(X, 'rm+')   (Q_j = [Q_j + r_j]^+ on every infoset j; x_{t+1} = seq. form of Q_j normalised)",
            p_player="CounterfactualRegret(Y, 'rm+')   (the same on the second player's treeplex)",
            weights="alpha_t = 1 for the learners;  output weights alpha_t = t (averaging='linear')",
            first="player 0; alternating (the second player's update of round t sees x_t)",
            output="x = x_bar_T, y = y_bar_T (linear averages, sequence form);  certified value bracket, Nash gap, "
                   "exploitability"),
    parameters=(alternating_parameter(True), averaging_parameter("linear")),
    page="extensive-form-games",
    pair=("CFR+ (RM+)", "CFR+ (RM+)", "linear", "alternating"),  # efg_learners' names
)
def cfr_plus(game, T, *, alternating=True, averaging="linear", **run_options) -> EFGResult:
    r"""CFR+ self-play, by default alternating with linear averaging (Tammelin 2014).

    Returns
    -------
    EFGResult
        ``x``, ``y``, ``lower``, ``upper``, ``nash_gap``, ``exploitability``, ``policy(player)``, ``game``.

    Examples
    --------
    >>> from gamedyn.games.efg import kuhn_poker
    >>> result = cfr_plus(kuhn_poker(), T=1000)
    >>> bool(result.lower <= -1 / 18 <= result.upper), bool(result.exploitability < 1e-3)
    (True, True)
    """
    return counterfactual_game(game, T, lambda treeplex: CounterfactualRegret(treeplex, "rm+"),
                               check_alternating(alternating), check_averaging(averaging), run_options)
