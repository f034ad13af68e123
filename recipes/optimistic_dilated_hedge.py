r"""Optimistic dilated Hedge against itself (Farina, Kroer & Sandholm 2019): OFTRL with the dilated entropy.

The box is declared once, below (``@recipe``); the family: :mod:`gamedyn.recipes.dilated_hedge`.
"""

from __future__ import annotations

from gamedyn.core import OFTRL
from gamedyn.core.dilated import DilatedEntropy
from gamedyn.core.validation import check_positive
from gamedyn.engine.recipe import EFG, Box, recipe
from gamedyn.games.efg.result import EFGResult
from gamedyn.recipes.cfr import PAYOFF
from gamedyn.recipes.dilated_hedge import dilated_game, eta_parameter, weights_parameter

__all__ = ["optimistic_dilated_hedge"]


@recipe(
    name="optimistic_dilated_hedge", family=EFG, reference="Farina, Kroer & Sandholm 2019; Kroer et al. 2020",
    summary="optimistic dilated Hedge vs itself: OFTRL with the dilated entropy, the last loss predicted; uniform "
            "averages, Nash gap O(1/T)",
    box=Box(payoff=PAYOFF,
            w_player="OFTRL(DilatedEntropy(X), eta)   (x_t = argmin_x eta <sum_{s<t} l_s + l_{t-1}, x> + D(x, x_0))",
            p_player="OFTRL(DilatedEntropy(Y), eta)   (the same on the second player's treeplex)",
            weights="alpha_t = 1;  l_0 from the opponent's start;  output weights 1 (uniform averages)",
            first="player 0; simultaneous (both losses at the round's plays)",
            output="x = x_bar_T, y = y_bar_T (sequence form);  certified value bracket, Nash gap, exploitability"),
    parameters=(eta_parameter(5.0), weights_parameter()),
    page="extensive-form-games",
    pair=("optimistic dilated Hedge", "optimistic dilated Hedge", "uniform", "simultaneous"),  # efg_learners' names
)
def optimistic_dilated_hedge(game, T, *, eta=5.0, entropy_weights=None, **run_options) -> EFGResult:
    r"""Optimistic dilated Hedge self-play (OFTRL with :class:`gamedyn.core.dilated.DilatedEntropy`) for T rounds.

    With a small enough step the averages' Nash gap is :math:`O(1/T)` (Farina, Kroer & Sandholm 2019;
    Syrgkanis et al. 2015's RVU argument on the treeplex).

    Returns
    -------
    EFGResult
        ``x``, ``y``, ``lower``, ``upper``, ``nash_gap``, ``exploitability``, ``policy(player)``, ``game``.

    Examples
    --------
    >>> from gamedyn.games.efg import kuhn_poker
    >>> result = optimistic_dilated_hedge(kuhn_poker(), T=1000)
    >>> bool(result.lower <= -1 / 18 <= result.upper), bool(result.exploitability < 1e-3)
    (True, True)
    """
    eta = check_positive(eta, "eta")
    return dilated_game(game, T, lambda treeplex: OFTRL(DilatedEntropy(treeplex, entropy_weights), eta), run_options,
                        {"eta": eta})
