r"""Dilated Hedge against dilated Hedge on an extensive-form game: FTRL with the dilated entropy on each treeplex.

The box is declared once, below (``@recipe``). The family of first-order methods on the treeplex
(Hoda, Gilpin, Peña & Sandholm 2010; Kroer, Waugh, Kılınç-Karzan & Sandholm 2020; Farina, Kroer &
Sandholm 2019; Sokota et al. 2023) is one regularizer, :class:`gamedyn.core.dilated.DilatedEntropy`,
in the existing learners:

* :func:`dilated_hedge` -- :class:`gamedyn.FTRL` (dilated Hedge; the matrix game's Hedge on every infoset,
  each infoset's value passed to its parent by a log-sum-exp), uniform averages, :math:`O(1/\sqrt T)`;
* ``optimistic_dilated_hedge`` -- :class:`gamedyn.OFTRL` (the last loss as the prediction), uniform
  averages, :math:`O(1/T)` (the RVU property of the dilated entropy; Farina, Kroer & Sandholm 2019);
* ``mmd`` -- :class:`gamedyn.MirrorDescent` with the magnet (magnetic mirror descent, Sokota et al. 2023),
  whose *last* iterate converges to the :math:`\alpha`-QRE, and, with a decreasing :math:`\alpha`, to a Nash
  equilibrium.

Both players update simultaneously (each round's losses are taken at the round's two plays). Each
recipe equals its original loop of :mod:`gamedyn.games.efg.original_dilated` to 1e-10
(tests/test_dilated_recipes.py).
"""

from __future__ import annotations

from gamedyn.core import FTRL
from gamedyn.core.dilated import DilatedEntropy
from gamedyn.core.validation import check_positive
from gamedyn.engine import play
from gamedyn.engine.recipe import EFG, Box, Parameter, recipe
from gamedyn.games.efg.result import EFGResult, efg_result
from gamedyn.recipes.cfr import PAYOFF, check_game

__all__ = ["dilated_hedge", "dilated_game", "eta_parameter", "weights_parameter"]


def weights_parameter() -> Parameter:
    """The ``entropy_weights`` parameter of the dilated recipes (``weights`` is the learners' run option)."""
    return Parameter("entropy_weights", "the dilated entropy's weights: None (every beta_j = 1) or 'kroer' (Kroer et al. 2020)",
                     None, kind=str, cli=False)


def eta_parameter(default: float) -> Parameter:
    """The step ``eta`` of the dilated recipes."""
    return Parameter("eta", "the step eta (both players)", default)


def dilated_game(game, T, learner, run_options, steps):
    """The family's game: ``learner(treeplex)`` in both seats, simultaneous, learner weights 1, uniform averages."""
    game = check_game(game)
    x_learner, y_learner = (learner(treeplex) for treeplex in game.treeplexes)
    result = play(game.payoff(), w_learner=x_learner, p_learner=y_learner, T=T, weights="constant",
                  output_weights=None, first="w", alternating=False, **run_options)
    return efg_result(game, result, steps)


@recipe(
    name="dilated_hedge", family=EFG, reference="Hoda, Gilpin, Peña & Sandholm 2010; Kroer et al. 2020",
    summary="dilated Hedge vs dilated Hedge: FTRL with the dilated entropy on each treeplex; simultaneous, uniform "
            "averages",
    box=Box(payoff=PAYOFF,
            w_player="FTRL(DilatedEntropy(X), eta)   (x_t = argmin_x eta <sum_{s<t} l_s, x> + D(x, x_0): bottom-up "
                     "softmax, each infoset's log-sum-exp passed to its parent)",
            p_player="FTRL(DilatedEntropy(Y), eta)   (the same on the second player's treeplex)",
            weights="alpha_t = 1;  output weights 1 (uniform averages)",
            first="player 0; simultaneous (both losses at the round's plays)",
            output="x = x_bar_T, y = y_bar_T (sequence form);  certified value bracket, Nash gap, exploitability"),
    parameters=(eta_parameter(1.0), weights_parameter()),
    page="extensive-form-games",
    pair=("dilated Hedge", "dilated Hedge", "uniform", "simultaneous"),  # efg_learners' names
)
def dilated_hedge(game, T, *, eta=1.0, entropy_weights=None, **run_options) -> EFGResult:
    r"""Dilated Hedge self-play (FTRL with :class:`gamedyn.core.dilated.DilatedEntropy`) for T rounds.

    The average strategies' Nash gap falls like :math:`O(1/\sqrt T)` for a step of order
    :math:`1/\sqrt T` (the FTRL regret bound with the dilated entropy's range and strong convexity).

    Returns
    -------
    EFGResult
        ``x``, ``y``, ``lower``, ``upper``, ``nash_gap``, ``exploitability``, ``policy(player)``, ``game``.

    Examples
    --------
    >>> from gamedyn.games.efg import kuhn_poker
    >>> result = dilated_hedge(kuhn_poker(), T=1000)
    >>> bool(result.lower <= -1 / 18 <= result.upper), bool(result.exploitability < 0.01)
    (True, True)
    """
    eta = check_positive(eta, "eta")
    return dilated_game(game, T, lambda treeplex: FTRL(DilatedEntropy(treeplex, entropy_weights), eta), run_options,
                        {"eta": eta})
