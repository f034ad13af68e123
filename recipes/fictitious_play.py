r"""Fictitious play (Brown 1951; Robinson 1951): FTL against FTL on a matrix game.

=========  ==========================================================================
payoff     g(w, p) = p^T M^T w = x^T M y   (Bilinear(M.T); row player x = w maximises)
w-player   FTL on the simplex, hint psi_t = h_0   (x_t = best response to y_0 + sum_{s<t} y_s)
p-player   FTL on the simplex, hint psi_t = l_0   (y_t = best response to x_0 + sum_{s<t} x_s)
weights    alpha_t = 1;  w-player first (simultaneous play);  ties go to the smallest index
output     row = x_bar_T, column = y_bar_T  (converges, Robinson 1951, but slowly)
=========  ==========================================================================

The hint :class:`gamedyn.games.matrix.game.InitialBelief` counts each opponent's start as one observed
play (a prior belief); with the default uniform starts on rock-paper-scissors the first best
response is a tie, broken towards action 0.
"""

from gamedyn.core import FollowTheRegularizedLeader, Simplex, Zero
from gamedyn.engine import Bilinear, play
from gamedyn.games.matrix import InitialBelief
from gamedyn.games.matrix.result import matrix_game_inputs, matrix_game_result


def fictitious_play(M, T, *, row_start=None, column_start=None, record=False, callback=None):
    r"""Fictitious play for T rounds on M: each player best-responds to the other's empirical play.

    No step size. ``row_start`` / ``column_start`` (default uniform) are the prior beliefs
    :math:`x_0, y_0` each player's opponent starts from. The Nash gap of the averages converges to
    0 (Robinson 1951) at a rate far below optimistic Hedge's.

    >>> result = fictitious_play([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], T=1000)
    >>> bool(result.nash_gap < 0.2), result.row_last.tolist() in ([1, 0, 0], [0, 1, 0], [0, 0, 1])
    (True, True)
    """
    M, T, row_start, column_start = matrix_game_inputs(M, T, row_start, column_start)
    best_responder = FollowTheRegularizedLeader(Zero(Simplex()), 1.0, InitialBelief())
    game = play(
        Bilinear(M.T),
        w_learner=best_responder,
        p_learner=best_responder,
        T=T,
        weights="constant",
        first="w",
        initial_w=row_start,
        initial_p=column_start,
        record=record,
        callback=callback,
    )
    return matrix_game_result(M, game)
