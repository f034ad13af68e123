r"""Nesterov's accelerated gradient on the exponential loss as a game: Theorem 6 (spec section 6).

The box is declared once, below (``@recipe``). Its output is s_T = 1/4 sum_t alpha_t w_t =
T(T+1)/8 w_bar_T: the seed's "s_T = 2 w_bar_T" is false.
"""

import numpy as np

from gamedyn.arrays.operators import check_unit_rows
from gamedyn.core import OFTRL, FTRLPlus
from gamedyn.engine import RegularizedBilinear, play
from gamedyn.engine.recipe import MARGIN, Box, recipe, rounds_with_quadratic_rate
from gamedyn.games.margin import NORMALIZE, MarginResult, on_given_rows
from gamedyn.games.margin.soft import NU, p_range, soft_margin_game


def _rounds_to_separate(n, gamma, options):
    """Theorem 6: min_i (A s_T)_i / ||s_T|| >= gamma - (8 log n + 2) / (gamma T(T+1)), positive once
    T(T+1) > (8 log n + 2) / gamma^2 (log n becomes D_c with ``nu``: docs/explanation/soft-margin.md)."""
    return rounds_with_quadratic_rate(8 * p_range(n, options) + 2, gamma)


def _regret_bound(n, options):
    """Theorem 6: R_w + R_p <= 4 log n + 1 (4 D_c + 1 with ``nu``)."""
    if options.get("nu") is not None:
        return "Thm 6 on Delta_c: 4 D_c + 1", 4 * p_range(n, options) + 1
    return "Thm 6: 4 log n + 1", 4 * np.log(n) + 1


@recipe(
    name="nag_margin", family=MARGIN, reference="Thm. 6; Nesterov's accelerated gradient",
    summary="FTRL+ no regulariser (w) vs OFTRL entropy eta=1/4 (p), p first; s_T = 1/4 sum alpha_t w_t",
    box=Box(payoff="g(w, p) = p^T A w - 1/2 ||w||^2",
            w_player="FTRL+ with no regularizer                  (w_t = sum_{j<=t} a_j A^T p_j / S_t)",
            p_player="OFTRL with entropy, eta = 1/4, psi_t = l_{t-1}  (l_0 = g(w_0, .), w_0 = 0)",
            weights="alpha_t = t", first="p-player (Algorithm 3)",
            output="s_T = 1/4 sum_t alpha_t w_t = T(T+1)/8 w_bar_T"),
    parameters=(NU, NORMALIZE), output=lambda w_sum, total, options: w_sum / 4,  # s_T
    rounds_to_separate=_rounds_to_separate, regret_bound=_regret_bound, page="nag-margin", pair=("FTRL+", "OFTRL entropy", "linear", "p"),
)
def nag_margin(A, T, *, nu=None, normalize=False, **run_options) -> MarginResult:
    r"""Theorem 6: :math:`s_T=\tfrac14\sum_t\alpha_tw_t`. ``.w`` = s_T, ``.p`` = p_T = sigma(A u_T).

    ``run_options`` go to :func:`gamedyn.play`.

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
    >>> result = nag_margin(A, T=30)
    >>> bool(np.min(A @ result.w) > 0)
    True
    """
    given, (A, row_scale) = A, check_unit_rows(A, normalize)  # the theorems assume ||x_i|| <= 1
    soft = soft_margin_game(A.shape[0], nu)
    game = play(RegularizedBilinear(A, **soft.payoff_options), w_learner=FTRLPlus(), p_learner=OFTRL(soft.entropy, eta=1 / 4), T=T,
                weights="linear", first="p", **run_options)
    result = MarginResult(w=game.w_sum / 4, p=game.p_last, game=game, row_scale=row_scale)
    return on_given_rows(result, A, given)  # the certificate on the rows given (float32: not the rounded A)
