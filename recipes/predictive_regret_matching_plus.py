r"""PRM+ against PRM+ on a matrix game (Farina, Kroer & Sandholm, AAAI 2021): alternating, quadratic averaging.

The box is declared once, below (``@recipe``); the family: :mod:`gamedyn.recipes.regret_matching`.
"""

from gamedyn.core.regret_matching import RegretMatching
from gamedyn.engine.recipe import MATRIX, Box, recipe
from gamedyn.games.matrix.result import alternating_parameter, averaging_parameter
from gamedyn.recipes.regret_matching import PAYOFF, regret_matching_game
from gamedyn.games.matrix import MatrixGameResult

__all__ = ["predictive_regret_matching_plus"]


@recipe(
    name="predictive_regret_matching_plus", family=MATRIX, reference="Farina, Kroer & Sandholm 2021",
    summary="PRM+ vs PRM+, alternating, quadratic averaging; no step size (the fastest of the family)",
    box=Box(payoff=PAYOFF,
            w_player="RegretMatching(plus=True, predictive=True)   (x_{t+1} ~ [Q_t + m_{t+1}]^+, m_{t+1} = r_t)",
            p_player="RegretMatching(plus=True, predictive=True)   (the same on the column's regrets)",
            weights="alpha_t = 1 for the learners;  output weights alpha_t = t^2 (averaging='quadratic')",
            first="w-player; alternating (CFR+ order: the column's update of round t sees x_t)",
            output="row = x_bar_T, column = y_bar_T (quadratic averages);  Nash gap, value bracket"),
    parameters=(alternating_parameter(True), averaging_parameter("quadratic")),
    page="matrix-games",
)
def predictive_regret_matching_plus(M, T, *, alternating=True, averaging="quadratic", **run_options) -> MatrixGameResult:
    r"""PRM+ self-play, by default alternating with quadratic averaging (Farina, Kroer & Sandholm 2021).

    The parameters are those of :func:`gamedyn.recipes.regret_matching` (``plus=True, predictive=True``).

    Returns
    -------
    MatrixGameResult
        ``row``, ``column``, ``value``, ``nash_gap``, ``certificate`` (the value bracket), ``game``.

    Examples
    --------
    >>> result = predictive_regret_matching_plus([[2.0, -1.0], [-1.0, 1.0]], T=1000)
    >>> bool(result.nash_gap < 1e-6), result.row.round(6).tolist()
    (True, [0.4, 0.6])
    """
    return regret_matching_game(M, T, RegretMatching(plus=True, predictive=True), alternating, averaging,
                                run_options)
