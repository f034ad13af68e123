r"""Optimistic Hedge against optimistic Hedge (Syrgkanis et al. 2015): a Nash gap falling like 1/T.

=========  ==========================================================================
payoff     g(w, p) = p^T M^T w = x^T M y   (Bilinear(M.T); row player x = w maximises)
w-player   OFTRL with entropy, eta, centre x_0, psi_t = h_{t-1}   (x_t ~ x_0 exp(eta(sum_{s<t} M y_s + M y_{t-1})))
p-player   OFTRL with entropy, eta, centre y_0, psi_t = l_{t-1}   (y_t ~ y_0 exp(-eta(sum_{s<t} M^T x_s + M^T x_{t-1})))
weights    alpha_t = 1;  w-player first (simultaneous play);  h_0, l_0 from the opponent's start
steps      eta = 1/r, r = max M - min M  (the RVU condition eta <= 1/r)
output     row = x_bar_T, column = y_bar_T;  Nash gap <= r (ln(1/min x_0) + ln(1/min y_0) + 2) / T
=========  ==========================================================================
"""

from gamedyn.core import OFTRL, Entropy
from gamedyn.core.validation import check_positive
from gamedyn.engine import Bilinear, play
from gamedyn.games.matrix import default_optimistic_hedge_step
from gamedyn.games.matrix.result import matrix_game_inputs, matrix_game_result


def optimistic_hedge(M, T, *, eta=None, eta_column=None, row_start=None, column_start=None, record=False,
                     callback=None):
    r"""Optimistic Hedge vs optimistic Hedge for T rounds on M (rows maximise :math:`x^\top My`).

    Default step for both players: :func:`gamedyn.games.matrix.game.default_optimistic_hedge_step`
    :math:`=1/r`, under which the RVU bounds of the two players cancel and the Nash gap of the
    averages is at most :func:`gamedyn.games.matrix.game.optimistic_hedge_gap_bound` :math:`=O(1/T)`.
    ``eta_column`` (default: ``eta``) gives the column player its own step. ``row_start`` /
    ``column_start`` (default uniform) must have positive entries, as for :func:`hedge`. The last iterates
    converge too when the equilibrium is unique (``.row_last``, ``.column_last``).

    >>> result = optimistic_hedge([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], T=1000, row_start=[0.6, 0.3, 0.1])
    >>> bool(result.nash_gap < 0.01)
    True
    """
    M, T, row_start, column_start = matrix_game_inputs(M, T, row_start, column_start, positive_starts=True)
    eta = default_optimistic_hedge_step(M) if eta is None else check_positive(eta, "eta")
    eta_column = eta if eta_column is None else check_positive(eta_column, "eta_column")
    game = play(
        Bilinear(M.T),
        w_learner=OFTRL(Entropy(), eta, centre=row_start),
        p_learner=OFTRL(Entropy(), eta_column, centre=column_start),
        T=T,
        weights="constant",
        first="w",
        initial_w=row_start,
        initial_p=column_start,
        record=record,
        callback=callback,
    )
    return matrix_game_result(M, game)
