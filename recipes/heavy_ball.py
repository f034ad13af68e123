r"""Heavy ball as a Fenchel game (Wang & Abernethy 2018, Section 4): the non-optimistic Nesterov pair.

The box is declared once, below (``@recipe``).

Wang & Abernethy (2018) note that dropping the y-player's optimism from their Nesterov pair gives
Polyak's heavy ball. Unrolling (proof sketch): :math:`x_t=(A_t\bar x_t-A_{t-1}\bar x_{t-1})/\alpha_t`
in :math:`x_t=x_{t-1}-\gamma\alpha_t\nabla f(\bar x_{t-1})` gives

.. math::

    \bar x_t=\bar x_{t-1}-\eta_t\nabla f(\bar x_{t-1})+\mu_t(\bar x_{t-1}-\bar x_{t-2}),\qquad
    \eta_t=\frac{\gamma\alpha_t^2}{A_t}=\frac{2\gamma t}{t+1},\quad
    \mu_t=\frac{\alpha_tA_{t-2}}{\alpha_{t-1}A_t}=\frac{t-2}{t+1},

the loop of :func:`gamedyn.games.fenchel.original.heavy_ball`. Only on :math:`\mathbb R^d`: a projection
does not commute with this unrolling. The game's guarantee is the plain O(1/T) of non-optimistic
dynamics (no acceleration is claimed).
"""

from gamedyn.core import OMD, CurrentLoss, FirstRoundLoss, FollowTheRegularizedLeader, Reals, SquaredEuclidean, Zero
from gamedyn.core.validation import check_count, check_positive
from gamedyn.engine import play
from gamedyn.engine.recipe import FENCHEL, Box, recipe
from gamedyn.games.fenchel import FenchelGame
from gamedyn.games.fenchel.result import DIMENSION, STEP, X0, fenchel_inputs, fenchel_result
from gamedyn.recipes.accelerated_gradient import default_step
from gamedyn.games.fenchel import FenchelResult


@recipe(
    name="heavy_ball", family=FENCHEL, reference="Wang & Abernethy 2018, Section 4; Polyak 1964",
    summary="FTL (y) vs gradient descent shown y_t (x), alpha_t = t: heavy ball on R^d, O(1/T)",
    box=Box(payoff="g(y, x) = <x, y> - f*(y)",
            w_player="FTL on R^d, first play from x_0 (hint FirstRoundLoss): y_t = grad f(x_bar_{t-1})",
            p_player="gradient descent shown y_t first, step eta_p = gamma: x_t = x_{t-1} - gamma alpha_t y_t",
            weights="alpha_t = t", first="y-player", rows=(("steps", "gamma = 1/(4L) by default"),),
            output="x = x_bar_T"),
    parameters=(X0, STEP, DIMENSION), page="fenchel-games",
)
def heavy_ball(objective, T, *, x0=None, eta_p=None, dimension=None, **run_options) -> FenchelResult:
    r"""Heavy ball with :math:`\eta_t=2\gamma t/(t+1)`, :math:`\mu_t=(t-2)/(t+1)`, as a game on :math:`\mathbb R^d`.

    ``eta_p`` (default :math:`1/(4L)`) is the x-player's step
    :math:`\gamma`. ``run_options`` go to :func:`gamedyn.play`.

    Returns
    -------
    FenchelResult
        ``.x`` (the output named above), ``.value`` = f(x), ``.game`` (Theorem 2's bound is
        ``.game.theorem2_bound``) and ``.steps``.

    Examples
    --------
    >>> import numpy as np
    >>> from gamedyn import Objective
    >>> f = Objective(lambda x: 0.5 * float(x @ x), lambda x: x, smoothness=1.0)
    >>> bool(heavy_ball(f, T=50, x0=[1.0, -2.0]).value < 1e-2)
    True
    """
    T = check_count(T, "T")
    gamma = default_step(objective) if eta_p is None else check_positive(eta_p, "eta_p")
    x0, dimension = fenchel_inputs(objective, Reals(), x0, dimension)
    game = play(FenchelGame(objective, None, dimension=dimension),
                w_learner=FollowTheRegularizedLeader(Zero(), 1.0, FirstRoundLoss()),
                p_learner=OMD(SquaredEuclidean(), gamma, CurrentLoss(), centre=x0), T=T, weights="linear", first="w",
                initial_p=x0, **run_options)
    return fenchel_result(objective, game, {"eta_p": gamma})
