r"""Hedge against Hedge on a matrix game (Freund & Schapire 1999): the averaged strategies converge.

=========  ==========================================================================
payoff     g(w, p) = p^T M^T w = x^T M y   (Bilinear(M.T); row player x = w maximises)
w-player   FTRL with entropy, eta_row, centre x_0     (x_t ~ x_0 exp(eta_row sum_{s<t} M y_s))
p-player   FTRL with entropy, eta_column, centre y_0  (y_t ~ y_0 exp(-eta_column sum_{s<t} M^T x_s))
weights    alpha_t = 1;  w-player first (neither player sees its round's loss: simultaneous play)
steps      eta = sqrt(8 ln k / T) / r for a player with k actions, r = max M - min M
output     row = x_bar_T, column = y_bar_T;  Nash gap <= r (sqrt(ln m / 2T) + sqrt(ln n / 2T))
=========  ==========================================================================
"""

from gamedyn.core import FTRL, Entropy
from gamedyn.core.validation import check_positive
from gamedyn.engine import Bilinear, play
from gamedyn.games.matrix import default_hedge_steps
from gamedyn.games.matrix.result import matrix_game_inputs, matrix_game_result


def hedge(M, T, *, eta_row=None, eta_column=None, row_start=None, column_start=None, record=False, callback=None):
    r"""Hedge vs Hedge for T rounds on the payoff matrix M (rows maximise :math:`x^\top My`).

    Default steps: :func:`gamedyn.games.matrix.game.default_hedge_steps`, which minimise the Hoeffding
    regret bound :math:`\ln k/\eta+\eta Tr^2/8`; by Theorem 2 the Nash gap of the averages is then
    at most :func:`gamedyn.games.matrix.game.hedge_gap_bound` :math:`=O(1/\sqrt T)`. ``row_start`` /
    ``column_start`` (default uniform) are the learners' centres :math:`x_0, y_0`; every entry must be
    positive (an action of start weight 0 is never played: refused with a ``ValueError``).
    A default step from a range :math:`r` beyond float64 is refused, naming M (rescale it).

    >>> result = hedge([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], T=1000, row_start=[0.6, 0.3, 0.1])
    >>> bool(result.nash_gap < 0.1), result.row.shape
    (True, (3,))
    """
    M, T, row_start, column_start = matrix_game_inputs(M, T, row_start, column_start, positive_starts=True)
    default_row, default_column = default_hedge_steps(M, T)
    eta_row = default_row if eta_row is None else check_positive(eta_row, "eta_row")
    eta_column = default_column if eta_column is None else check_positive(eta_column, "eta_column")
    game = play(
        Bilinear(M.T),
        w_learner=FTRL(Entropy(), eta_row, centre=row_start),
        p_learner=FTRL(Entropy(), eta_column, centre=column_start),
        T=T,
        weights="constant",
        first="w",
        initial_w=row_start,
        initial_p=column_start,
        record=record,
        callback=callback,
    )
    return matrix_game_result(M, game)
