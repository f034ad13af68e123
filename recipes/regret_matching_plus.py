r"""RM+ against RM+ on a matrix game, as CFR+ runs it (Tammelin 2014; Tammelin, Burch, Johanson & Bowling 2015).

The box is declared once, below (``@recipe``); the family: :mod:`gamedyn.recipes.regret_matching`.
"""

from gamedyn.core.regret_matching import RegretMatching
from gamedyn.engine.recipe import MATRIX, Box, recipe
from gamedyn.games.matrix.result import alternating_parameter, averaging_parameter
from gamedyn.recipes.regret_matching import PAYOFF, regret_matching_game
from gamedyn.games.matrix import MatrixGameResult

__all__ = ["regret_matching_plus"]


@recipe(
    name="regret_matching_plus", family=MATRIX, reference="Tammelin 2014; Tammelin et al. 2015 (CFR+)",
    summary="RM+ vs RM+, alternating, linear averaging (CFR+ on a matrix game); no step size",
    box=Box(payoff=PAYOFF,
            w_player="RegretMatching(plus=True)   (Q_t = [Q_{t-1} + r_t]^+, x_{t+1} = Q_t / ||Q_t||_1)",
            p_player="RegretMatching(plus=True)   (the same on the column's regrets)",
            weights="alpha_t = 1 for the learners;  output weights alpha_t = t (averaging='linear')",
            first="w-player; alternating (CFR+ order: the column's update of round t sees x_t)",
            output="row = x_bar_T, column = y_bar_T (linear averages);  Nash gap <= 2 r (sqrt m + sqrt n) / sqrt T (1 + O(1/T))"),
    parameters=(alternating_parameter(True), averaging_parameter("linear")),
    page="matrix-games",
)
def regret_matching_plus(M, T, *, alternating=True, averaging="linear", **run_options) -> MatrixGameResult:
    r"""RM+ self-play, by default as CFR+ runs it: alternating, linear averaging (Tammelin et al. 2015).

    The parameters are those of :func:`gamedyn.recipes.regret_matching` (``plus=True``). Nash gap of
    the linear average: at most :math:`2\Delta(\sqrt m+\sqrt n)/\sqrt T\,(1+O(1/T))` (Δ = max M - min
    M; eq. (13) of docs/explanation/regret-matching-bounds.md), far above what it reaches in practice.

    Returns
    -------
    MatrixGameResult
        ``row``, ``column``, ``value``, ``nash_gap``, ``certificate`` (the value bracket), ``game``.

    Examples
    --------
    >>> result = regret_matching_plus([[2.0, -1.0], [-1.0, 1.0]], T=1000)
    >>> result.row.round(2).tolist(), bool(result.nash_gap < 0.01)
    ([0.4, 0.6], True)
    """
    return regret_matching_game(M, T, RegretMatching(plus=True), alternating, averaging, run_options)
