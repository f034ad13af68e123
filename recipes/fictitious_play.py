r"""Fictitious play (Brown 1951; Robinson 1951): FTL against FTL on a matrix game.

The box is declared once, below (``@recipe``). The hint :class:`gamedyn.games.matrix.game.InitialBelief`
counts each opponent's start as one observed play (a prior belief); with the default uniform starts
on rock-paper-scissors the first best response is a tie, broken towards action 0.
"""

from gamedyn.core import FollowTheRegularizedLeader, Simplex, Zero
from gamedyn.engine import play
from gamedyn.engine.recipe import MATRIX, Box, recipe
from gamedyn.games.matrix import InitialBelief, MatrixGame
from gamedyn.games.matrix.result import COLUMN_START, ROW_START, matrix_game_inputs, matrix_game_result
from gamedyn.games.matrix import MatrixGameResult


@recipe(
    name="fictitious_play", family=MATRIX, reference="Brown 1951; Robinson 1951",
    summary="FTL vs FTL on the simplex with a prior belief (best responses), alpha_t = 1; no step size",
    box=Box(payoff="g(w, p) = x^T M y   (MatrixGame(M): w = the row player x maximises, p = the column player y)",
            w_player="FTL on the simplex, hint psi_t = h_0   (x_t = best response to y_0 + sum_{s<t} y_s)",
            p_player="FTL on the simplex, hint psi_t = l_0   (y_t = best response to x_0 + sum_{s<t} x_s)",
            weights="alpha_t = 1", first="w-player (simultaneous play);  ties go to the smallest index",
            output="row = x_bar_T, column = y_bar_T  (converges, Robinson 1951, but slowly)"),
    parameters=(ROW_START, COLUMN_START), page="matrix-games",
    run_defaults={"regrets": False},  # the averages and the Nash gap need no regrets (regrets=True: them too)
)
def fictitious_play(M, T, *, row_start=None, column_start=None, **run_options) -> MatrixGameResult:
    r"""Fictitious play for T rounds on M: each player best-responds to the other's empirical play.

    No step size. ``row_start`` / ``column_start`` (default uniform) are the prior beliefs
    :math:`x_0, y_0` each player's opponent starts from. The Nash gap of the averages converges to
    0 (Robinson 1951) at a rate far below optimistic Hedge's. ``run_options`` go to :func:`gamedyn.play`.
    A round costs O(m + n): both best responders declare vertex plays
    (:attr:`gamedyn.FollowTheRegularizedLeader.plays_vertices`) and the game the reads of their losses
    (:meth:`gamedyn.Bilinear.vertex_losses`), so each opponent's loss is a row or a column of M, not a product.
    The regrets are skipped unless asked (``regrets=True``; ``result.game.not_computed`` names what is
    skipped): a run nobody watches then plays :class:`gamedyn.engine.rounds.VertexRound`, the hand
    loop's operations and no more, with the same plays and sums bit for bit.

    Returns
    -------
    MatrixGameResult
        ``.row`` and ``.column`` (the averaged strategies), ``.value``, ``.nash_gap``, ``.row_last`` and
        ``.column_last``, ``.game``, ``.certificate`` (the certified value bracket) and ``.steps``.

    Examples
    --------
    >>> result = fictitious_play([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], T=1000)
    >>> bool(result.nash_gap < 0.2), result.row_last.tolist() in ([1, 0, 0], [0, 1, 0], [0, 0, 1])
    (True, True)
    """
    M, T, row_start, column_start = matrix_game_inputs(M, T, row_start, column_start)
    best_responder = FollowTheRegularizedLeader(Zero(Simplex()), 1.0, InitialBelief())
    game = play(MatrixGame(M), w_learner=best_responder, p_learner=best_responder, T=T, weights="constant", first="w",
                initial_w=row_start, initial_p=column_start, **run_options)
    return matrix_game_result(M, game)
