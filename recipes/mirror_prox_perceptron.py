r"""Yu, Kilinc-Karzan & Carbonell's mirror-prox perceptron as a game: Theorem 5 (spec section 7).

The box is declared once, below (``@recipe``). Each hint is the round loss at the *opponent's
secondary iterate*, which each player rebuilds from its own plays by running a shadow of the
opponent's mirror descent.
"""

import math

import numpy as np

from gamedyn.arrays.operators import check_unit_rows
from gamedyn.core import OMD, MirrorDescent, OpponentSecondary, SquaredEuclidean
from gamedyn.core.validation import check_positive
from gamedyn.engine import Bilinear, play
from gamedyn.engine.recipe import MARGIN, Box, Parameter, average, recipe, rounds_with_linear_rate
from gamedyn.games.margin import NORMALIZE, MarginResult, on_given_rows
from gamedyn.games.margin.soft import NU, soft_margin_game


def _rounds_to_separate(n, gamma, options):
    """Theorem 5 (default steps): min_i (A w_bar_T)_i >= gamma - sqrt(2 log n) / T, positive once
    T > sqrt(2 log n) / gamma."""
    if options.get("nu") is not None:  # D_c for nu (docs/explanation/soft-margin.md)
        return rounds_with_linear_rate(_regret_bound(n, options)[1], gamma)
    return rounds_with_linear_rate(math.sqrt(2 * math.log(n)), gamma)


def _regret_bound(n, options):
    """Theorem 5 (default steps): R_w + R_p <= 1/(2 eta_w) + log n / eta_p = sqrt(2 log n) (D_c with ``nu``)."""
    if options.get("nu") is not None:  # steps tuned by L = D_c (log 2 where D_c = 0): 1/(2 eta_w) + D_c/eta_p
        soft = soft_margin_game(n, options["nu"])
        tuned = math.sqrt(2 * soft.tuning_range)
        return "Thm 5 on Delta_c: sqrt(2 D_c)", tuned / 2 + soft.log_range / tuned
    return "Thm 5: sqrt(2 log n)", np.sqrt(2 * np.log(n))


@recipe(
    name="mirror_prox_perceptron", family=MARGIN, reference="Thm. 5; Yu, Kilinc-Karzan & Carbonell 2014",
    summary="optimistic OMD (ball) vs optimistic OMD (entropy), hints at the opponent's secondary iterate",
    box=Box(payoff="g(w, p) = p^T A w,  w in the unit ball, p in the simplex",
            w_player="optimistic OMD, Euclidean on the ball, step eta_w, hint -g(., y^p_{t-1})",
            p_player="optimistic OMD, entropy on the simplex, step eta_p, hint g(y^w_{t-1}, .)",
            weights="alpha_t = 1;  y^w_0 = 0, y^p_0 = u_n", first="w-player",
            rows=(("steps", "eta_w = 1/sqrt(2 log n), eta_p = sqrt(2 log n)  (Nemirovski's ball x simplex setup)"),),
            output="w_bar_T, p_bar_T  (the plays are mirror prox's half iterates)"),
    parameters=(Parameter("eta_w", "the w-player's step (default 1/sqrt(2 log n))"),
                Parameter("eta_p", "the p-player's step (default sqrt(2 log n))"), NU, NORMALIZE),
    output=average, rounds_to_separate=_rounds_to_separate, regret_bound=_regret_bound,
    page="mirror-prox-perceptron",
)
def mirror_prox_perceptron(A, T, *, eta_w=None, eta_p=None, nu=None, normalize=False, **run_options) -> MarginResult:
    r"""Theorem 5: the plays are mirror prox's half iterates; ``.w`` = w_bar_T, ``.p`` = p_bar_T.

    Default steps eta_w = 1/sqrt(2 log n), eta_p = sqrt(2 log n) (Nemirovski's ball x simplex setup);
    with ``nu``, log n becomes D_c = log(n c) + r log(r/c) (log 2 where D_c = 0, at nu = 1).
    ``.steps`` holds the ones used. ``run_options`` go to :func:`gamedyn.play`.

    ``nu`` (default None, the hard margin): the soft-margin game, the p-player on the capped simplex
    ``CappedSimplex.from_nu(nu, n)`` (c = 1/(nu n)); the certificate then brackets
    ``gamma_nu* = min_{p in Delta_c} ||A^T p||`` from the normalised CVaR of the output's margins
    (docs/explanation/soft-margin.md).
    Returns
    -------
    MarginResult
        ``.w`` (the output named above), ``.p``, ``.row_scale`` (the rows' scaling), ``.game`` (the
        :class:`gamedyn.GameResult`), ``.certificate`` (the certified margin bracket) and ``.steps``.

    Raises
    ------
    ValueError
        Default steps on fewer than 2 rows (they involve log n).

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[0.6, 0.2], [0.3, -0.5], [0.5, 0.1]])
    >>> result = mirror_prox_perceptron(A, T=200)
    >>> bool(np.min(A @ result.w) > 0)
    True
    """
    given, (A, row_scale) = A, check_unit_rows(A, normalize)  # the theorems assume ||x_i|| <= 1
    soft = soft_margin_game(A.shape[0], nu)
    payoff = Bilinear(A, **soft.payoff_options)
    n = payoff.p_dimension
    if (eta_w is None or eta_p is None) and n < 2:
        raise ValueError("The default steps need n >= 2 rows (they involve log n); pass eta_w and eta_p explicitly.")
    log_range = np.log(n) if nu is None else soft.tuning_range
    eta_w = 1 / np.sqrt(2 * log_range) if eta_w is None else check_positive(eta_w, "eta_w")
    eta_p = np.sqrt(2 * log_range) if eta_p is None else check_positive(eta_p, "eta_p")
    ball, simplex = SquaredEuclidean(radius=1.0), soft.entropy
    game = play(
        payoff,
        w_learner=OMD(ball, eta_w, hint=OpponentSecondary(MirrorDescent(simplex, eta_p), payoff, player="w")),
        p_learner=OMD(simplex, eta_p, hint=OpponentSecondary(MirrorDescent(ball, eta_w), payoff, player="p")),
        T=T, weights="constant", first="w", **run_options)
    result = MarginResult(w=game.w_average, p=game.p_average, game=game, row_scale=row_scale,
                          steps={"eta_w": eta_w, "eta_p": eta_p})
    return on_given_rows(result, A, given)  # the certificate on the rows given (float32: not the rounded A)
