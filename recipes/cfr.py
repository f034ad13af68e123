r"""CFR against CFR on an extensive-form game (Zinkevich, Johanson, Bowling & Piccione 2007), and the family's game.

The box is declared once, below (``@recipe``). The family is one pair of learners,
:class:`gamedyn.CounterfactualRegret` on each player's treeplex, with different local rules,
orders and averages, a recipe each (:mod:`gamedyn.recipes.cfr_plus`, :mod:`gamedyn.recipes.dcfr`,
:mod:`gamedyn.recipes.pcfr_plus`):

* :func:`cfr` -- RM on every infoset, simultaneous updates, uniform averaging (Zinkevich et al. 2007);
* ``cfr_plus`` -- RM+, alternating updates, linear averaging (Tammelin 2014);
* ``dcfr`` -- discounted RM (alpha, beta), alternating, averaging weights t^gamma (Brown & Sandholm 2019);
* ``pcfr_plus`` -- PRM+ with the counterfactual prediction, alternating, quadratic averaging
  (Farina, Kroer & Sandholm 2021).

**Conventions.** The first player (x, player 0) moves first. Alternating (:class:`gamedyn.engine.rounds.AlternatingRound`):
player 0 is first charged once against player 1's uniform start; in round t player 0 plays
:math:`x_t`, player 1's update sees :math:`x_t` (charged at its previous strategy :math:`y_{t-1}`),
player 1 plays :math:`y_t`, player 0 is charged at :math:`x_t` against :math:`y_t`; the round's
plays :math:`(x_t,y_t)` are averaged with weights :math:`\omega_t` (1, t, t^2, t^gamma) from t = 1.
So :math:`x_t` is OpenSpiel's current policy after t iterations of ``CFRPlusSolver``, and the averages
hold one step later than OpenSpiel's (which average the policies before each update, the uniform
start included): tests/test_efg_recipes.py shows both. Each recipe equals its original-form loop in
:mod:`gamedyn.games.efg.original` to 1e-10, play by play and average by average.
"""

from __future__ import annotations

from gamedyn.core.counterfactual import CounterfactualRegret
from gamedyn.engine import play
from gamedyn.engine.recipe import EFG, Box, recipe
from gamedyn.games.efg import load_game
from gamedyn.games.efg.result import EFGResult, alternating_parameter, averaging_parameter, efg_result
from gamedyn.games.matrix.result import check_alternating, check_averaging

__all__ = ["PAYOFF", "cfr", "check_game", "counterfactual_game"]

PAYOFF = "g(x, y) = x^T A y   (game.payoff(): sequence form, A sparse; x = player 0 maximises, y = player 1)"


def check_game(game):
    """The extensive-form game a recipe plays: an :class:`gamedyn.games.efg.ExtensiveFormGame` (or a built-in name)."""
    if isinstance(game, str):
        return load_game(game)
    if not (callable(getattr(game, "payoff", None)) and len(getattr(game, "treeplexes", ())) == 2):
        raise TypeError(f"game must be an extensive-form game (gamedyn.games.efg.kuhn_poker(), leduc_poker(), "
                        f"goofspiel(4), liars_dice(6), a GameBuilder's) or one of their names, got {game!r}.")
    return game


def counterfactual_game(game, T, local_learners, alternating, output_weights, run_options) -> EFGResult:
    """The family's game: ``CounterfactualRegret`` in both seats (``local_learners(treeplex)``), learner weights 1."""
    game = check_game(game)
    x_learner, y_learner = (local_learners(treeplex) for treeplex in game.treeplexes)
    result = play(game.payoff(), w_learner=x_learner, p_learner=y_learner, T=T, weights="constant",
                  output_weights=output_weights, first="w", alternating=alternating, **run_options)
    return efg_result(game, result)


@recipe(
    name="cfr", family=EFG, reference="Zinkevich, Johanson, Bowling & Piccione 2007",
    summary="CFR vs CFR: regret matching on every infoset's counterfactual regrets; simultaneous, uniform averages",
    box=Box(payoff=PAYOFF,
            w_player="CounterfactualRegret(X, 'rm')   (R_j += r_j on every infoset j; x_{t+1} = seq. form of [R_j]^+ normalised)",
            p_player="CounterfactualRegret(Y, 'rm')   (the same on the second player's treeplex)",
            weights="alpha_t = 1 for the learners;  output weights 1, t or t^2 (averaging)",
            first="player 0; simultaneous, or alternating (the second player's update of round t sees x_t)",
            output="x = x_bar_T, y = y_bar_T (sequence form);  certified value bracket, Nash gap, exploitability"),
    parameters=(alternating_parameter(False), averaging_parameter("uniform")),
    page="extensive-form-games",
    pair=("CFR (RM)", "CFR (RM)", "uniform", "simultaneous"),  # efg_learners' names
)
def cfr(game, T, *, alternating=False, averaging="uniform", **run_options) -> EFGResult:
    r"""Vanilla CFR self-play for T rounds on an extensive-form game (Zinkevich et al. 2007, simultaneous updates).

    The counterfactual regrets of every infoset are accumulated and played by regret matching
    (:class:`gamedyn.CounterfactualRegret` with ``local="rm"``); the average strategies' exploitability
    falls like :math:`O(1/\sqrt T)` (the regret bound :math:`\Delta|J|\sqrt{|A|}\sqrt T`).

    Returns
    -------
    EFGResult
        ``x``, ``y``, ``lower``, ``upper``, ``nash_gap``, ``exploitability``, ``policy(player)``, ``game``.

    Examples
    --------
    >>> from gamedyn.games.efg import kuhn_poker
    >>> result = cfr(kuhn_poker(), T=1000)
    >>> bool(result.lower <= -1 / 18 <= result.upper), bool(result.exploitability < 0.01)
    (True, True)
    """
    return counterfactual_game(game, T, lambda treeplex: CounterfactualRegret(treeplex, "rm"),
                               check_alternating(alternating), check_averaging(averaging), run_options)
