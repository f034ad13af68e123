r"""Optimistic Hedge against optimistic Hedge (Syrgkanis et al. 2015): a Nash gap falling like 1/T.

The box is declared once, below (``@recipe``); :func:`optimistic_hedge`'s docstring, ``gamedyn list``
and docs/recipes/matrix-games.md show it.
"""

from gamedyn.core import OFTRL, Entropy
from gamedyn.core.validation import check_positive
from gamedyn.engine import play
from gamedyn.engine.recipe import MATRIX, Box, Parameter, recipe
from gamedyn.games.matrix import MatrixGame, default_optimistic_hedge_step
from gamedyn.games.matrix.result import COLUMN_START, ROW_START, matrix_game_inputs, matrix_game_result
from gamedyn.games.matrix import MatrixGameResult


@recipe(
    name="optimistic_hedge", family=MATRIX, reference="Syrgkanis, Agarwal, Luo & Schapire 2015",
    summary="optimistic Hedge vs optimistic Hedge (OFTRL entropy both), alpha_t = 1; Nash gap O(1/T)",
    box=Box(payoff="g(w, p) = x^T M y   (MatrixGame(M): w = the row player x maximises, p = the column player y)",
            w_player="OFTRL with entropy, eta_w, centre x_0, psi_t = h_{t-1}   "
                     "(x_t ~ x_0 exp(eta_w(sum_{s<t} M y_s + M y_{t-1})))",
            p_player="OFTRL with entropy, eta_p, centre y_0, psi_t = l_{t-1}   "
                     "(y_t ~ y_0 exp(-eta_p(sum_{s<t} M^T x_s + M^T x_{t-1})))",
            weights="alpha_t = 1;  h_0, l_0 from the opponent's start", first="w-player (simultaneous play)",
            rows=(("steps", "eta_w = eta_p = 1/r, r = max M - min M  (the RVU condition eta <= 1/r)"),),
            output="row = x_bar_T, column = y_bar_T;  Nash gap <= r (ln(1/min x_0) + ln(1/min y_0) + 2) / T"),
    parameters=(Parameter("eta_w", "the row player's step (default 1/r)"),
                Parameter("eta_p", "the column player's step (default 1/r)"), ROW_START, COLUMN_START),
    page="matrix-games",
)
def optimistic_hedge(M, T, *, eta_w=None, eta_p=None, row_start=None, column_start=None, **run_options) -> MatrixGameResult:
    r"""Optimistic Hedge vs optimistic Hedge for T rounds on M (rows maximise :math:`x^\top My`).

    Default step for both players: :func:`gamedyn.games.matrix.game.default_optimistic_hedge_step`
    :math:`=1/r`, under which the RVU bounds of the two players cancel and the Nash gap of the
    averages is at most :func:`gamedyn.games.matrix.game.optimistic_hedge_gap_bound` :math:`=O(1/T)`.
    ``eta_w`` is the row player's step, ``eta_p`` the column player's (each defaults to 1/r).
    ``row_start`` / ``column_start``
    (default uniform) must have positive entries, as for :func:`hedge`. The last iterates converge too
    when the equilibrium is unique (``.row_last``, ``.column_last``). ``run_options`` go to :func:`gamedyn.play`.

    Returns
    -------
    MatrixGameResult
        ``.row`` and ``.column`` (the averaged strategies), ``.value``, ``.nash_gap``, ``.row_last`` and
        ``.column_last``, ``.game``, ``.certificate`` (the certified value bracket) and ``.steps``.

    Examples
    --------
    >>> result = optimistic_hedge([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], T=1000, row_start=[0.6, 0.3, 0.1])
    >>> bool(result.nash_gap < 0.01)
    True
    """
    M, T, row_start, column_start = matrix_game_inputs(M, T, row_start, column_start, positive_starts=True)
    default = None if eta_w is not None and eta_p is not None else default_optimistic_hedge_step(M)
    eta_w = default if eta_w is None else check_positive(eta_w, "eta_w")
    eta_p = default if eta_p is None else check_positive(eta_p, "eta_p")
    game = play(MatrixGame(M), w_learner=OFTRL(Entropy(), eta_w, centre=row_start),
                p_learner=OFTRL(Entropy(), eta_p, centre=column_start), T=T, weights="constant", first="w",
                initial_w=row_start, initial_p=column_start, **run_options)
    return matrix_game_result(M, game, {"eta_w": eta_w, "eta_p": eta_p})
