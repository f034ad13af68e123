r"""AdaHedge against AdaHedge on a matrix game (de Rooij, van Erven, Grünwald & Koolen 2014): Hedge without a step to tune.

=========  ==========================================================================
payoff     g(w, p) = p^T M^T w = x^T M y   (Bilinear(M.T); row player x = w maximises)
w-player   AdaHedge   (x_t ~ exp(-eta_t L_{t-1}), eta_t = ln m / Delta_{t-1})
p-player   AdaHedge   (y_t ~ exp(-eta_t L_{t-1}), eta_t = ln n / Delta_{t-1})
weights    alpha_t = 1 for the learners; output weights 1, t or t^2 (``averaging``)
protocol   w-player first; simultaneous (default) or alternating
output     row = x_bar_T, column = y_bar_T;  Nash gap <= (sqrt(ln m + 4) + sqrt(ln n + 4)) r / sqrt(T) (uniform averaging)
=========  ==========================================================================
"""

from gamedyn.core.adaptive import AdaHedge
from gamedyn.engine import Bilinear, play
from gamedyn.games.matrix.result import matrix_game_inputs, matrix_game_result
from gamedyn.recipes.regret_matching import check_alternating, check_averaging

__all__ = ["ada_hedge"]


def ada_hedge(M, T, *, alternating=False, averaging="uniform", **run_options):
    r"""AdaHedge self-play for T rounds on M (rows maximise :math:`x^\top My`); no step size.

    Each player's regret is at most :math:`2\Delta_T\le r\sqrt{(\ln k+4)T}` (k its actions, r the
    payoff range), so by Theorem 2 the uniform average's Nash gap is at most
    :math:`r(\sqrt{\ln m+4}+\sqrt{\ln n+4})/\sqrt T`, whatever the scale of M.

    Parameters
    ----------
    M : array_like, shape (m, n)
    T : int
    alternating : bool
        The CFR+ order (see :func:`gamedyn.recipes.regret_matching`).
    averaging : {"uniform", "linear", "quadratic"}
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
    M, T, _, _ = matrix_game_inputs(M, T, None, None)
    output_weights = check_averaging(averaging)
    game = play(Bilinear(M.T), AdaHedge(), AdaHedge(), T, weights="constant", output_weights=output_weights,
                first="w", alternating=check_alternating(alternating), **run_options)
    return matrix_game_result(M, game)
