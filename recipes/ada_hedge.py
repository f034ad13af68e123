r"""AdaHedge against AdaHedge on a matrix game (de Rooij, van Erven, Grünwald & Koolen 2014): Hedge without a step to tune.

The box is declared once, below (``@recipe``).
"""

from gamedyn.core.adaptive import AdaHedge
from gamedyn.engine.recipe import MATRIX, Box, recipe
from gamedyn.games.matrix.result import alternating_parameter, averaging_parameter
from gamedyn.recipes.regret_matching import PAYOFF, regret_matching_game
from gamedyn.games.matrix import MatrixGameResult

__all__ = ["ada_hedge"]


@recipe(
    name="ada_hedge", family=MATRIX, reference="de Rooij, van Erven, Grünwald & Koolen 2014",
    summary="AdaHedge vs AdaHedge (eta_t = ln k / Delta_{t-1}), alpha_t = 1; no step size; Nash gap O(r / sqrt T)",
    box=Box(payoff=PAYOFF,
            w_player="AdaHedge   (x_t ~ exp(-eta_t L_{t-1}), eta_t = ln m / Delta_{t-1})",
            p_player="AdaHedge   (y_t ~ exp(-eta_t L_{t-1}), eta_t = ln n / Delta_{t-1})",
            weights="alpha_t = 1 for the learners;  output weights 1, t or t^2 (averaging)",
            first="w-player; simultaneous (default) or alternating",
            output="row = x_bar_T, column = y_bar_T;  Nash gap <= r (sqrt(ln m + 4) + sqrt(ln n + 4)) / sqrt T (uniform)"),
    parameters=(alternating_parameter(False), averaging_parameter("uniform")),
    page="matrix-games",
)
def ada_hedge(M, T, *, alternating=False, averaging="uniform", **run_options) -> MatrixGameResult:
    r"""AdaHedge self-play for T rounds on M (rows maximise :math:`x^\top My`); no step size.

    Each player's regret is at most :math:`2\Delta_T\le r\sqrt{(\ln k+4)T}` (k its actions, r the
    payoff range), so by Theorem 2 the uniform average's Nash gap is at most
    :math:`r(\sqrt{\ln m+4}+\sqrt{\ln n+4})/\sqrt T`, whatever the scale of M.

    Parameters
    ----------
    M : array_like, shape (m, n)
        Payoffs to the row player.
    T : int
        Rounds.
    alternating : bool
        The CFR+ order (see :func:`gamedyn.recipes.regret_matching`).
    averaging : {"uniform", "linear", "quadratic"}
        The output weights of the averages.
    **run_options
        Passed to :func:`gamedyn.play`.

    Returns
    -------
    MatrixGameResult

    Examples
    --------
    >>> result = ada_hedge([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], T=1000)
    >>> bool(result.nash_gap < 0.2)
    True
    """
    return regret_matching_game(M, T, AdaHedge(), alternating, averaging, run_options)
