r"""Smooth perceptron (Soheili & Pena 2012) as a game: Proposition 1 (spec section 4).

The box is declared once, below (``@recipe``); :func:`smooth_perceptron`'s docstring, ``gamedyn list``
and docs/recipes/smooth-perceptron.md show it.
"""

import numpy as np

from gamedyn.arrays.operators import check_unit_rows
from gamedyn.core import OFTL, FTRLPlus
from gamedyn.engine import RegularizedBilinear, play
from gamedyn.engine.recipe import MARGIN, Box, average, recipe, rounds_with_quadratic_rate
from gamedyn.games.margin import NORMALIZE, MarginResult, on_given_rows
from gamedyn.games.margin.soft import NU, p_range, soft_margin_game


def _rounds_to_separate(n, gamma, options):
    """Theorem 4: min_i (A v_T)_i / ||v_T|| >= gamma - 8 log n / (gamma T(T+1)), positive once
    T(T+1) > 8 log n / gamma^2 (w_bar_T = v_{T-1} has the accelerated perceptron's direction, Theorem 1).
    With ``nu``: log n becomes D_c and the margin the normalised CVaR (docs/explanation/soft-margin.md)."""
    return rounds_with_quadratic_rate(8 * p_range(n, options), gamma)


def _regret_bound(n, options):
    """Theorem 3: R_w + R_p <= 4 log n (the path-length terms of R_w and R_p cancel); 4 D_c with ``nu``."""
    if options.get("nu") is not None:
        return "Thm 3 on Delta_c: 4 D_c", 4 * p_range(n, options)
    return "Thm 3: 4 log n", 4 * np.log(n)


@recipe(
    name="smooth_perceptron", family=MARGIN, reference="Prop. 1; Soheili & Pena 2012",
    summary="OFTL (w) vs FTRL+ entropy eta=1/4 (p), alpha_t = t, g = p'Aw - |w|^2/2",
    box=Box(payoff="g(w, p) = p^T A w - 1/2 ||w||^2",
            w_player="OFTL with psi_t = h_{t-1} on R^d      (w_t = [sum_{j<t} a_j A^T p_j + a_t A^T p_{t-1}] / S_t)",
            p_player="FTRL+ with entropy, eta = 1/4          (p_t = sigma(1/4 sum_{s<=t} a_s A w_s))",
            weights="alpha_t = t;  p_0 = u_n", first="w-player",
            output="w_bar_T = v_{T-1}  and  sum_t alpha_t p_t / S_T = q_{T-1}"),
    parameters=(NU, NORMALIZE), output=average,  # w_bar_T = v_{T-1}
    rounds_to_separate=_rounds_to_separate, regret_bound=_regret_bound, page="smooth-perceptron",
    pair=("OFTL", "FTRL+ entropy", "linear", "w"),  # theta="wang": the default p-player
)
def smooth_perceptron(A, T, *, nu=None, normalize=False, **run_options) -> MarginResult:
    r"""Proposition 1: :math:`v_{T-1}=\bar w_T` and :math:`q_{T-1}=\sum_t\alpha_tp_t/S_T`.

    ``.w`` = w_bar_T, ``.p`` = sum_t alpha_t p_t / S_T. ``run_options`` (``stop``, ``record``,
    ``callback``, ``checkpoint`` ...) go to :func:`gamedyn.play`.

    ``nu`` (default None, the hard margin): the soft-margin game, the p-player on the capped simplex
    ``CappedSimplex.from_nu(nu, n)`` (c = 1/(nu n)); the certificate then brackets
    ``gamma_nu* = min_{p in Delta_c} ||A^T p||`` from the normalised CVaR of the output's margins
    (docs/explanation/soft-margin.md).

    Returns
    -------
    MarginResult
        ``.w`` (the output named above), ``.p``, ``.row_scale`` (the rows' scaling), ``.game`` (the
        :class:`gamedyn.GameResult`), ``.certificate`` (the certified margin bracket) and ``.steps``.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[0.6, 0.2], [0.3, -0.5], [0.5, 0.1]])
    >>> result = smooth_perceptron(A, T=30)
    >>> bool(np.min(A @ result.w) > 0)
    True
    """
    given, (A, row_scale) = A, check_unit_rows(A, normalize)  # the theorems assume ||x_i|| <= 1
    soft = soft_margin_game(A.shape[0], nu)
    game = play(RegularizedBilinear(A, **soft.payoff_options), w_learner=OFTL(), p_learner=FTRLPlus(soft.entropy, eta=1 / 4), T=T,
                weights="linear", first="w", **run_options)
    result = MarginResult(w=game.w_average, p=game.p_average, game=game, row_scale=row_scale)
    return on_given_rows(result, A, given)  # the certificate on the rows given (float32: not the rounded A)
