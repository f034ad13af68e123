r"""Accelerated perceptron (Ji, Srebro & Telgarsky 2021) as a game: Proposition 2 (spec section 5).

theta = "wang" (theta_{t-1} = t / (2(t+1))) is the same game as the smooth perceptron with another
output; theta = "ji" (Ji et al.'s original theta_{t-1} = 1) changes the p-player. Both boxes are
declared once, below (``@recipe``); :func:`accelerated_perceptron`'s docstring, ``gamedyn list`` and
docs/recipes/accelerated-perceptron.md show them.
"""

import numpy as np

from gamedyn.arrays.operators import check_unit_rows
from gamedyn.core import OFTL, FTRLPlus
from gamedyn.engine import RegularizedBilinear, play
from gamedyn.engine.recipe import MARGIN, Box, Parameter, recipe, rounds_with_quadratic_rate
from gamedyn.games.margin import NORMALIZE, MarginResult, on_given_rows
from gamedyn.games.margin.soft import NU, p_range, soft_margin_game


def _next_round(t):
    """alpha_{t+1} = t + 1: Ji et al.'s p-player and output weights (one function, so play calls it once a round)."""
    return t + 1


_P_PLAYER = {  # theta -> (eta, p-player weights, output weights, output scale)
    "wang": (1 / 4, None, None, 1 / 4),
    "ji": (1 / 2, _next_round, _next_round, 1 / 2),
}


def _rounds_to_separate(n, gamma, options):
    """Theorem 4 (theta = "wang"): min_i (A v_T)_i / ||v_T|| >= gamma - 8 log n / (gamma T(T+1)), positive
    once T(T+1) > 8 log n / gamma^2. None for Ji et al.'s theta = 1: not one of the paper's theorems."""
    if options.get("theta", "wang") != "wang":
        return None
    return rounds_with_quadratic_rate(8 * p_range(n, options), gamma)  # D_c for nu (soft-margin.md)


def _regret_bound(n, options):
    """Theorem 4 (theta = "wang"): R_w + R_p <= 4 log n (4 D_c with ``nu``). None for theta = 1: the players'
    weights differ."""
    if options.get("theta", "wang") != "wang":
        return None
    if options.get("nu") is not None:
        return "Thm 4 on Delta_c: 4 D_c", 4 * p_range(n, options)
    return "Thm 4: 4 log n", 4 * np.log(n)


_WANG = Box(payoff="g(w, p) = p^T A w - 1/2 ||w||^2", w_player="OFTL with psi_t = h_{t-1} on R^d, weights alpha_t = t",
            p_player="FTRL+ with entropy, eta = 1/4, weights alpha_t = t", weights="alpha_t = t", first="w-player",
            output="v_T = 1/4 sum_t alpha_t w_t = T(T+1)/8 w_bar_T,   q_T = p_T")
_JI = Box(payoff=_WANG.payoff, w_player=_WANG.w_player, p_player="FTRL+ with entropy, eta = 1/2, weights alpha_{t+1} = t + 1",
          weights="alpha_t = t (w-player);  alpha_{t+1} = t + 1 (p-player and output)", first="w-player",
          output="v_T = 1/2 sum_t alpha_{t+1} w_t,   q_T = p_T")


@recipe(
    name="accelerated_perceptron", family=MARGIN, reference="Prop. 2; Ji, Srebro & Telgarsky 2021",
    summary="the same game; output v_T = 1/4 sum alpha_t w_t (theta='ji': p on weights t+1, eta=1/2)",
    box=_WANG, box_variants=(('theta = "ji" (Ji et al.\'s theta_{t-1} = 1)', _JI),),
    parameters=(Parameter("theta", "theta_(t-1) = t/(2(t+1)) ('wang', the paper's) or 1 ('ji', Ji et al.'s)",
                          default="wang", kind=str, choices=("wang", "ji")), NU, NORMALIZE),
    output=lambda w_sum, total, options: _P_PLAYER[options.get("theta", "wang")][3] * w_sum,  # v_T
    rounds_to_separate=_rounds_to_separate, regret_bound=_regret_bound,
    variants=(("accelerated (theta=1)", {"theta": "ji"}),), page="accelerated-perceptron",
    pair=("OFTL", "FTRL+ entropy", "linear", "w"),  # theta="wang"
)
def accelerated_perceptron(A, T, *, theta="wang", nu=None, normalize=False, **run_options) -> MarginResult:
    r"""Proposition 2: :math:`v_T=\tfrac14\sum_t\alpha_tw_t`, :math:`q_T=p_T` (``theta="wang"``);
    :math:`v_T=\tfrac12\sum_t\alpha_{t+1}w_t` with the p-player on weights t + 1 and eta = 1/2 (``"ji"``).

    ``.w`` = v_T, ``.p`` = p_T. ``run_options`` go to :func:`gamedyn.play`.

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
        ``theta`` is neither ``'wang'`` nor ``'ji'``.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[0.6, 0.2], [0.3, -0.5], [0.5, 0.1]])
    >>> result = accelerated_perceptron(A, T=30)
    >>> bool(np.min(A @ result.w) > 0), bool(result.certificate.lower > 0)
    (True, True)
    """
    given, (A, row_scale) = A, check_unit_rows(A, normalize)  # the theorems assume ||x_i|| <= 1
    if theta not in _P_PLAYER:
        raise ValueError(f"theta must be 'wang' (theta_(t-1) = t/(2(t+1))) or 'ji' (theta = 1), got {theta!r}.")
    eta, p_weights, output_weights, scale = _P_PLAYER[theta]
    soft = soft_margin_game(A.shape[0], nu)
    game = play(RegularizedBilinear(A, **soft.payoff_options), w_learner=OFTL(), p_learner=FTRLPlus(soft.entropy, eta=eta), T=T,
                weights="linear", p_weights=p_weights, output_weights=output_weights, first="w", **run_options)
    result = MarginResult(w=scale * game.w_sum, p=game.p_last, game=game, row_scale=row_scale)
    return on_given_rows(result, A, given)  # the certificate on the rows given (float32: not the rounded A)
