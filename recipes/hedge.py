r"""Hedge against Hedge on a matrix game (Freund & Schapire 1999): the averaged strategies converge.

The box is declared once, below (``@recipe``); :func:`hedge`'s docstring, ``gamedyn list`` and
docs/recipes/matrix-games.md show it.
"""

from gamedyn.core import FTRL, Entropy
from gamedyn.core.validation import check_positive
from gamedyn.engine import play
from gamedyn.engine.recipe import MATRIX, Box, Parameter, recipe
from gamedyn.games.matrix import MatrixGame, default_hedge_steps
from gamedyn.games.matrix.result import COLUMN_START, ROW_START, matrix_game_inputs, matrix_game_result
from gamedyn.games.matrix import MatrixGameResult


@recipe(
    name="hedge", family=MATRIX, reference="Freund & Schapire 1999",
    summary="Hedge vs Hedge (FTRL entropy both), alpha_t = 1; Nash gap O(1/sqrt T)",
    box=Box(payoff="g(w, p) = x^T M y   (MatrixGame(M): w = the row player x maximises, p = the column player y)",
            w_player="FTRL with entropy, eta_w, centre x_0     (x_t ~ x_0 exp(eta_w sum_{s<t} M y_s))",
            p_player="FTRL with entropy, eta_p, centre y_0     (y_t ~ y_0 exp(-eta_p sum_{s<t} M^T x_s))",
            weights="alpha_t = 1", first="w-player (neither player sees its round's loss: simultaneous play)",
            rows=(("steps", "eta = sqrt(8 ln k / T) / r for a player with k actions, r = max M - min M"),),
            output="row = x_bar_T, column = y_bar_T;  Nash gap <= r (sqrt(ln m / 2T) + sqrt(ln n / 2T))"),
    parameters=(Parameter("eta_w", "the row player's step (default sqrt(8 ln m / T) / r)"),
                Parameter("eta_p", "the column player's step (default sqrt(8 ln n / T) / r)"), ROW_START, COLUMN_START),
    page="matrix-games",
)
def hedge(M, T, *, eta_w=None, eta_p=None, row_start=None, column_start=None, **run_options) -> MatrixGameResult:
    r"""Hedge vs Hedge for T rounds on the payoff matrix M (rows maximise :math:`x^\top My`).

    Default steps: :func:`gamedyn.games.matrix.game.default_hedge_steps`, which minimise the Hoeffding
    regret bound :math:`\ln k/\eta+\eta Tr^2/8`; by Theorem 2 the Nash gap of the averages is then
    at most :func:`gamedyn.games.matrix.game.hedge_gap_bound` :math:`=O(1/\sqrt T)`. ``eta_w`` is the
    row player's step, ``eta_p`` the column player's.
    ``row_start`` / ``column_start`` (default uniform) are the learners' centres :math:`x_0, y_0`; every
    entry must be positive (an action of start weight 0 is never played: refused with a ``ValueError``).
    A default step from a range :math:`r` beyond float64 is refused, naming M (rescale it).
    ``run_options`` (``stop``, ``record``, ``callback``, ``checkpoint`` ...) go to :func:`gamedyn.play`.

    Returns
    -------
    MatrixGameResult
        ``.row`` and ``.column`` (the averaged strategies), ``.value``, ``.nash_gap``, ``.row_last`` and
        ``.column_last``, ``.game``, ``.certificate`` (the certified value bracket) and ``.steps``.

    Examples
    --------
    >>> result = hedge([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], T=1000, row_start=[0.6, 0.3, 0.1])
    >>> bool(result.nash_gap < 0.1), result.row.shape, result.certificate.contains(0.0)
    (True, (3,), True)
    """
    M, T, row_start, column_start = matrix_game_inputs(M, T, row_start, column_start, positive_starts=True)
    default_w, default_p = default_hedge_steps(M, T)
    eta_w = default_w if eta_w is None else check_positive(eta_w, "eta_w")
    eta_p = default_p if eta_p is None else check_positive(eta_p, "eta_p")
    game = play(MatrixGame(M), w_learner=FTRL(Entropy(), eta_w, centre=row_start),
                p_learner=FTRL(Entropy(), eta_p, centre=column_start), T=T, weights="constant", first="w",
                initial_w=row_start, initial_p=column_start, **run_options)
    return matrix_game_result(M, game, {"eta_w": eta_w, "eta_p": eta_p})
