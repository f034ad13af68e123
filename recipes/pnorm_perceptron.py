r"""Accelerated p-norm perceptron (the paper's Algorithm 4): Theorem 7 (spec section 8).

The box is declared once, below (``@recipe``). Rows must have ||x_i||_p <= 1 (p >= 2, q = p/(p-1)).
"""

import math
import numbers

import numpy as np

from gamedyn.arrays.operators import check_unit_rows
from gamedyn.core import OFTRL, FTRLPlus, QNorm
from gamedyn.engine import Bilinear, play
from gamedyn.engine.recipe import MARGIN, Box, Parameter, average, recipe, rounds_with_linear_rate
from gamedyn.games.margin import NORMALIZE, MarginResult, on_given_rows
from gamedyn.games.margin.soft import NU, soft_margin_game


def _max_margin_direction(A, options):
    from gamedyn.certify import max_margin_q

    p = options.get("p", 2.0)
    return max_margin_q(A, p / (p - 1)).direction


def _rounds_to_separate(n, gamma_q, options):
    """Theorem 7: min_i (A w_bar_T)_i >= gamma_q - sqrt(2(p-1) log n) / T, positive once
    T > sqrt(2(p-1) log n) / gamma_q (``gamma_q``: the margin in the dual norm q = p/(p-1))."""
    if options.get("nu") is not None:  # D_c for nu (docs/explanation/soft-margin.md)
        return rounds_with_linear_rate(_regret_bound(n, options)[1], gamma_q)
    p = options.get("p", 2.0)
    return rounds_with_linear_rate(math.sqrt(2 * (p - 1) * math.log(n)), gamma_q)


def _regret_bound(n, options):
    """Theorem 7: max_{||u||_q <= 1} R_w(u) + R_p <= sqrt(2(p-1) log n) (D_c with ``nu``)."""
    if options.get("nu") is not None:  # eta_w = 1/sqrt(2(q-1) L), L = D_c (log 2 where D_c = 0)
        soft = soft_margin_game(n, options["nu"])
        q = options.get("p", 2.0) / (options.get("p", 2.0) - 1)
        eta_w = 1 / math.sqrt(2 * (q - 1) * soft.tuning_range)
        return "Thm 7 on Delta_c: sqrt(2(p-1) D_c)", 1 / (2 * (q - 1) * eta_w) + eta_w * soft.log_range
    return "Thm 7: sqrt(2(p-1) log n)", np.sqrt(2 * (options.get("p", 2.0) - 1) * np.log(n))


@recipe(
    name="pnorm_perceptron", family=MARGIN, reference="Thm. 7; Algorithm 4",
    summary="OFTRL with ||w||_q^2/(2(q-1)) (w) vs FTRL+ entropy (p), alpha_t = 1",
    box=Box(payoff="g(w, pi) = pi^T A w   (rows with ||x_i||_p <= 1, p >= 2, q = p/(p-1))",
            w_player="OFTRL with R_q(w) = ||w||_q^2 / (2(q-1)), centre 0, psi_t = h_{t-1}, eta_w",
            p_player="FTRL+ with entropy, eta_p = 1 / eta_w", weights="alpha_t = 1;  pi_0 = u_n", first="w-player",
            rows=(("steps", "eta_w = 1 / sqrt(2 (q-1) log n)"),), output="w_bar_T = 1/T sum_t w_t"),
    parameters=(Parameter("p", "the norm of the data, ||x_i||_p <= 1 (p >= 2); margins in q = p/(p-1)", required=True),
                NU, NORMALIZE),
    output=average, rounds_to_separate=_rounds_to_separate, regret_bound=_regret_bound,
    comparator=_max_margin_direction,
    comparator_note="R_w is R_w(u) against the unit q-norm max-margin direction u (Theorem 7): the w-player's "
                    "domain is all of R^d, where the regret against the best point is infinite",
    page="pnorm-perceptron",
)
def pnorm_perceptron(A, T, *, p, nu=None, normalize=False, **run_options) -> MarginResult:
    r"""Theorem 7: min_i (A w_bar_T)_i >= gamma_q - sqrt(2(p-1) log n)/T. ``.w`` = w_bar_T, ``.p`` = pi_bar_T.

    ``.steps`` holds eta_w and eta_p; ``run_options`` go to :func:`gamedyn.play`.

    With ``nu`` the step is tuned by D_c instead of log n: eta_w = 1/sqrt(2(q-1) D_c) (log 2 where
    D_c = 0, at nu = 1), and the bound reads CVaR_c(A w_bar_T) >= gamma_{q,c} - sqrt(2(p-1) D_c)/T.

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
        ``p`` is not a real number >= 2, or A has fewer than 2 rows.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[0.6, 0.2], [0.3, -0.5], [0.5, 0.1]])
    >>> result = pnorm_perceptron(A, T=200, p=2)
    >>> bool(np.min(A @ result.w) > 0)
    True
    """
    if isinstance(p, bool) or not isinstance(p, numbers.Real) or not (2 <= float(p) < np.inf):
        raise ValueError(f"p must be a real number >= 2 (the norm of the data, ||x_i||_p <= 1), got {p!r}.")
    p = float(p)
    given, (A, row_scale) = A, check_unit_rows(A, normalize, norm=p)  # rows with ||x_i||_p <= 1 (Theorem 7)
    soft = soft_margin_game(A.shape[0], nu)
    q = p / (p - 1)
    payoff = Bilinear(A, margin_norm=q, **soft.payoff_options)  # the certificate measures w in the q-norm
    n = payoff.p_dimension
    if n < 2:
        raise ValueError("Theorem 7's steps need n >= 2 rows (they involve log n).")
    log_range = np.log(n) if nu is None else soft.tuning_range
    eta_w = 1 / np.sqrt(2 * (q - 1) * log_range)
    eta_p = 1 / eta_w
    game = play(payoff, w_learner=OFTRL(QNorm(q), eta=eta_w), p_learner=FTRLPlus(soft.entropy, eta=eta_p), T=T,
                weights="constant", first="w", **run_options)
    result = MarginResult(w=game.w_average, p=game.p_average, game=game, row_scale=row_scale,
                          steps={"eta_w": eta_w, "eta_p": eta_p})
    return on_given_rows(result, A, given)  # the certificate on the rows given (float32: not the rounded A)
