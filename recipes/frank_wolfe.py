r"""Frank-Wolfe as a Fenchel game (Abernethy & Wang 2017): FTL against the best responder.

The box is declared once, below (``@recipe``); :func:`frank_wolfe`'s docstring, ``gamedyn list``
and docs/recipes/fenchel-games.md show it.

Proof sketch (equal to the loop of :func:`gamedyn.games.fenchel.original.frank_wolfe`). With
:math:`A_t=t(t+1)/2`, :math:`\bar x_t=(A_{t-1}\bar x_{t-1}+t\,x_t)/A_t=(1-c_t)\bar x_{t-1}+c_tx_t`,
:math:`c_t=t/A_t=2/(t+1)`. FTL's y-loss sum is :math:`A_{t-1}f^*(y)-\langle A_{t-1}\bar x_{t-1},y\rangle`,
minimised by :math:`y_t=\nabla f(\bar x_{t-1})` (:math:`\nabla f^*=(\nabla f)^{-1}`); at t = 1 the
hint gives :math:`y_1=\nabla f(x_0)`. The best response is :math:`x_t=\arg\min_K\langle\nabla f(\bar
x_{t-1}),x\rangle=s_t`. So :math:`\bar x_t` obeys Frank-Wolfe's recursion with :math:`\bar x_0=x_0`
(and :math:`c_1=1` makes :math:`\bar x_1=s_1`). Rate: Theorem 2 gives
:math:`f(\bar x_T)-\min_Kf\le(R_y+R_x)/A_T` (BR+'s regret is :math:`\le0`; FTL's is small because
:math:`f^*` is :math:`1/L`-strongly convex, Abernethy & Wang 2017), and the classical bound is
:math:`f(x_T)-\min_Kf\le2LD^2/(T+2)`, D the l2 diameter of K (Jaggi 2013, Theorem 1).
"""

from gamedyn.core import BestResponse, FirstRoundLoss, FollowTheRegularizedLeader, Zero
from gamedyn.core.validation import check_count
from gamedyn.engine import play
from gamedyn.engine.recipe import FENCHEL, Box, Parameter, recipe
from gamedyn.games.fenchel import FenchelGame
from gamedyn.games.fenchel.result import DIMENSION, X0, check_fenchel_domain, fenchel_inputs, fenchel_result
from gamedyn.games.fenchel import FenchelResult


@recipe(
    name="frank_wolfe", family=FENCHEL, reference="Abernethy & Wang 2017; Frank & Wolfe 1956",
    summary="FTL (y) vs best response (x), alpha_t = t: Frank-Wolfe with step 2/(t+1) on a bounded K",
    box=Box(payoff="g(y, x) = <x, y> - f*(y)      (FenchelGame; y = w maximises, x = p in K minimises)",
            w_player="FTL on R^d, first play from x_0 (hint FirstRoundLoss): y_t = grad f(x_bar_{t-1}), x_bar_0 = x_0",
            p_player="BestResponse(K): x_t = argmin_{x in K} <y_t, x>, the linear minimisation oracle",
            weights="alpha_t = t", first="y-player (the x-player sees y_t: best response, BR+)",
            output="x = x_bar_T = sum_t t x_t / (T(T+1)/2)   (= Frank-Wolfe's x_T)"),
    parameters=(Parameter("domain", "the bounded domain K: Simplex(), Ball(r), L1Ball(r) or Box(lower, upper)",
                          required=True, cli=False), X0, DIMENSION),
    page="fenchel-games",
)
def frank_wolfe(objective, T, *, domain, x0=None, dimension=None, **run_options) -> FenchelResult:
    r"""Frank-Wolfe with step :math:`2/(t+1)` on ``domain`` (Simplex, Ball, L1Ball, Box), as a game.

    ``x0`` (default: the domain's centre) is the start; ``.x`` is Frank-Wolfe's :math:`x_T`.
    ``run_options`` (``stop``, ``record``, ``callback``, ``checkpoint`` ...) go to :func:`gamedyn.play`.

    Returns
    -------
    FenchelResult
        ``.x`` (the output named above), ``.value`` = f(x), ``.game`` (Theorem 2's bound is
        ``.game.theorem2_bound``) and ``.steps``.

    Examples
    --------
    >>> import numpy as np
    >>> from gamedyn import Objective, Simplex
    >>> target = np.array([0.2, 0.5, 0.3])
    >>> f = Objective(lambda x: float((x - target) @ (x - target)), lambda x: 2 * (x - target), smoothness=2.0)
    >>> result = frank_wolfe(f, T=200, domain=Simplex(), dimension=3, regrets=True)  # regrets: for the bound
    >>> bool(result.value < 1e-3), bool(result.value <= result.game.theorem2_bound)
    (True, True)
    """
    T = check_count(T, "T")
    check_fenchel_domain(domain, "frank_wolfe", bounded=True)
    x0, dimension = fenchel_inputs(objective, domain, x0, dimension)
    game = play(FenchelGame(objective, domain, dimension=dimension),
                w_learner=FollowTheRegularizedLeader(Zero(), 1.0, FirstRoundLoss()), p_learner=BestResponse(domain),
                T=T, weights="linear", first="w", initial_p=x0, **run_options)
    return fenchel_result(objective, game)
