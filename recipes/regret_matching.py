r"""Regret matching against regret matching on a matrix game: RM, RM+ (CFR+'s core) and predictive RM+.

=========  ==========================================================================
payoff     g(w, p) = p^T M^T w = x^T M y   (Bilinear(M.T); row player x = w maximises)
w-player   RegretMatching(plus, predictive)   (x_{t+1} ~ [R_t]^+, [Q_t]^+, or with + r_t: the PRM forms)
p-player   RegretMatching(plus, predictive)   (the same on the column's regrets)
weights    alpha_t = 1 for the learners;  output weights alpha_t = 1, t or t^2 (``averaging``)
protocol   w-player first; simultaneous, or alternating (CFR+ order: the column's update sees x_t)
output     row = x_bar_T, column = y_bar_T  (averages with the output weights); Nash gap, value bracket
=========  ==========================================================================

The three recipes are one dynamic with different defaults:

* :func:`regret_matching` -- RM, simultaneous, uniform averaging (Hart & Mas-Colell 2000);
* :func:`regret_matching_plus` -- RM+, alternating, linear averaging: CFR+ on a matrix game
  (Tammelin 2014; Tammelin, Burch, Johanson & Bowling 2015);
* :func:`predictive_regret_matching_plus` -- PRM+, alternating, quadratic averaging (Farina, Kroer &
  Sandholm 2021), the fastest of the family on most games.

Each equals its original-form loop in :mod:`gamedyn.games.matrix.original_rm` to 1e-10
(tests/test_regret_matching.py).
"""

from gamedyn.core.regret_matching import RegretMatching
from gamedyn.core.weights import AVERAGING
from gamedyn.engine import Bilinear, play
from gamedyn.games.matrix.result import matrix_game_inputs, matrix_game_result

__all__ = ["predictive_regret_matching_plus", "regret_matching", "regret_matching_plus"]


def check_averaging(averaging) -> str | None:
    """The ``output_weights`` of a named averaging scheme (None for uniform), or a clear error."""
    if not isinstance(averaging, str) or averaging not in AVERAGING:
        raise ValueError(f"averaging must be one of {list(AVERAGING)} (alpha_t = 1, t, t^2), got {averaging!r}.")
    return None if averaging == "uniform" else averaging


def check_alternating(alternating) -> bool:
    if not isinstance(alternating, bool):
        raise TypeError(f"alternating must be True or False, got {alternating!r}.")
    return alternating


def regret_matching(M, T, *, plus=False, predictive=False, alternating=False, averaging="uniform", **run_options):
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
        ``row``, ``column``, ``value``, ``nash_gap``, ``lower`` / ``upper`` (the value bracket), ``game``.

    Raises
    ------
    ValueError
        A bad M, T or averaging.

    Examples
    --------
    >>> result = regret_matching([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], T=1000)
    >>> bool(result.nash_gap < 0.05), bool(result.lower <= 0.0 <= result.upper)
    (True, True)
    """
    M, T, _, _ = matrix_game_inputs(M, T, None, None)
    output_weights = check_averaging(averaging)
    learner = RegretMatching(plus=plus, predictive=predictive)
    game = play(Bilinear(M.T), learner, learner, T, weights="constant", output_weights=output_weights, first="w",
                alternating=check_alternating(alternating), **run_options)
    return matrix_game_result(M, game)


def regret_matching_plus(M, T, *, alternating=True, averaging="linear", **run_options):
    r"""RM+ self-play, by default as CFR+ runs it: alternating, linear averaging (Tammelin et al. 2015).

    The parameters are those of :func:`regret_matching`. Nash gap of the linear average:
    at most :math:`2\Delta(\sqrt m+\sqrt n)/\sqrt T\,(1+O(1/T))` (Δ = max M - min M; eq. (13) of
    docs/explanation/regret-matching-bounds.md), far above what it reaches in practice.

    Examples
    --------
    >>> result = regret_matching_plus([[2.0, -1.0], [-1.0, 1.0]], T=1000)
    >>> result.row.round(2).tolist(), bool(result.nash_gap < 0.01)
    ([0.4, 0.6], True)
    """
    return regret_matching(M, T, plus=True, alternating=alternating, averaging=averaging, **run_options)


def predictive_regret_matching_plus(M, T, *, alternating=True, averaging="quadratic", **run_options):
    r"""PRM+ self-play, by default alternating with quadratic averaging (Farina, Kroer & Sandholm 2021).

    The parameters are those of :func:`regret_matching`.

    Examples
    --------
    >>> result = predictive_regret_matching_plus([[2.0, -1.0], [-1.0, 1.0]], T=1000)
    >>> bool(result.nash_gap < 1e-6), result.row.round(6).tolist()
    (True, [0.4, 0.6])
    """
    return regret_matching(M, T, plus=True, predictive=True, alternating=alternating, averaging=averaging,
                           **run_options)
