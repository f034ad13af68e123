r"""Regret matching against regret matching on a matrix game (Hart & Mas-Colell 2000), and its family.

The box is declared once, below (``@recipe``). The family is one dynamic with different defaults,
a recipe each (:mod:`gamedyn.recipes.regret_matching_plus`,
:mod:`gamedyn.recipes.predictive_regret_matching_plus`):

* :func:`regret_matching` -- RM, simultaneous, uniform averaging (Hart & Mas-Colell 2000);
* ``regret_matching_plus`` -- RM+, alternating, linear averaging: CFR+ on a matrix game
  (Tammelin 2014; Tammelin, Burch, Johanson & Bowling 2015);
* ``predictive_regret_matching_plus`` -- PRM+, alternating, quadratic averaging (Farina, Kroer &
  Sandholm 2021), the fastest of the family on most games.

Each equals its original-form loop in :mod:`gamedyn.games.matrix.original_rm` to 1e-10
(tests/test_regret_matching.py).
"""

from gamedyn.core.regret_matching import RegretMatching
from gamedyn.engine import play
from gamedyn.engine.recipe import MATRIX, Box, Parameter, recipe
from gamedyn.games.matrix import MatrixGame
from gamedyn.games.matrix.result import (
    alternating_parameter,
    averaging_parameter,
    check_alternating,
    check_averaging,
    matrix_game_inputs,
    matrix_game_result,
)
from gamedyn.games.matrix import MatrixGameResult

__all__ = ["regret_matching", "regret_matching_game"]

PAYOFF = "g(w, p) = x^T M y   (MatrixGame(M): w = the row player x maximises, p = the column player y)"


def regret_matching_game(M, T, learner, alternating, averaging, run_options) -> MatrixGameResult:
    """The regret-matching family's game: ``learner`` in both seats, weights 1, output weights by ``averaging``."""
    M, T, _, _ = matrix_game_inputs(M, T, None, None)
    output_weights = check_averaging(averaging)
    game = play(MatrixGame(M), w_learner=learner, p_learner=learner, T=T, weights="constant",
                output_weights=output_weights, first="w", alternating=check_alternating(alternating), **run_options)
    return matrix_game_result(M, game)


def _flag(value, name):
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, got {value!r}.")
    return value


@recipe(
    name="regret_matching", family=MATRIX, reference="Hart & Mas-Colell 2000",
    summary="RM vs RM (play [R_t]^+ normalised), alpha_t = 1; no step size; Nash gap <= 2 r sqrt(k/T)",
    box=Box(payoff=PAYOFF,
            w_player="RegretMatching(plus, predictive)   (x_{t+1} ~ [R_t]^+; RM+: Q_t = [Q_{t-1} + r_t]^+)",
            p_player="RegretMatching(plus, predictive)   (the same on the column's regrets)",
            weights="alpha_t = 1 for the learners;  output weights 1, t or t^2 (averaging)",
            first="w-player; simultaneous, or alternating (CFR+ order: the column's update sees x_t)",
            output="row = x_bar_T, column = y_bar_T (output-weighted averages);  Nash gap, value bracket"),
    parameters=(Parameter("plus", "clip the accumulated regrets at 0 (RM+)", False, kind=bool, cli=False),
                Parameter("predictive", "add the last regret vector as a prediction (PRM, PRM+)", False, kind=bool,
                          cli=False),
                alternating_parameter(False), averaging_parameter("uniform")),
    page="matrix-games",
)
def regret_matching(M, T, *, plus=False, predictive=False, alternating=False, averaging="uniform", **run_options) -> MatrixGameResult:
    r"""Regret matching self-play for T rounds on the payoff matrix M (rows maximise :math:`x^\top My`).

    Parameters
    ----------
    M : array_like, shape (m, n)
        Payoffs to the row player.
    T : int
        Rounds.
    plus, predictive : bool
        The learner: RM (default), RM+ (``plus``), predictive RM, PRM+ (both); see
        :class:`gamedyn.RegretMatching`.
    alternating : bool
        The CFR+ order (:class:`gamedyn.engine.rounds.AlternatingRound`): the column player's update
        of round t sees the row player's play of round t.
    averaging : {"uniform", "linear", "quadratic"}
        The output weights :math:`\alpha_t=1,t,t^2` of the averaged strategies.
    **run_options
        Passed to :func:`gamedyn.play` unchanged (``stop``, ``callback``, ``record``, ``checkpoint``, ...).

    Returns
    -------
    MatrixGameResult
        ``row``, ``column``, ``value``, ``nash_gap``, ``certificate`` (the value bracket), ``game``.

    Raises
    ------
    ValueError
        A bad M, T or averaging.
    TypeError
        ``plus``, ``predictive`` or ``alternating`` not a bool.

    Examples
    --------
    >>> result = regret_matching([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], T=1000)
    >>> bool(result.nash_gap < 0.05), result.certificate.contains(0.0)
    (True, True)
    """
    learner = RegretMatching(plus=_flag(plus, "plus"), predictive=_flag(predictive, "predictive"))
    return regret_matching_game(M, T, learner, alternating, averaging, run_options)
