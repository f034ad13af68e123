r"""Nesterov's accelerated gradient as a Fenchel game (Wang & Abernethy 2018): optimistic FTL vs OMD.

The box is declared once, below (``@recipe``); :func:`accelerated_gradient`'s docstring,
``gamedyn list`` and docs/recipes/fenchel-games.md show it.

This is Algorithm 1 of Wang & Abernethy (2018, "Acceleration through optimistic no-regret
dynamics", NeurIPS): OptimisticFTL for y, OMD with the Euclidean Bregman divergence for x,
alpha_t = t. The form proven equal here (to 1e-10, :func:`gamedyn.games.fenchel.original.accelerated_gradient`)
is the "similar triangles" form of Nesterov's method that their Section 4 derives from it:
with :math:`\beta_t=\alpha_t/A_t=2/(t+1)`,

.. math::

    v_t=(1-\beta_t)w_{t-1}+\beta_tz_{t-1},\quad z_t=\Pi_K(z_{t-1}-\gamma t\nabla f(v_t)),\quad
    w_t=(1-\beta_t)w_{t-1}+\beta_tz_t .

Proof sketch: :math:`\tilde x_t=(A_{t-1}\bar x_{t-1}+\alpha_tx_{t-1})/A_t=(1-\beta_t)\bar x_{t-1}+\beta_tx_{t-1}`
is :math:`v_t` (with :math:`w=\bar x`, :math:`z=x`); OFTL's loss sum
:math:`A_tf^*(y)-\langle A_t\tilde x_t,y\rangle` is minimised by :math:`y_t=\nabla f(v_t)`; the x-step is
the z-step; and :math:`\bar x_t=(1-\beta_t)\bar x_{t-1}+\beta_tx_t` is the w-step. Rate (the
similar-triangles potential :math:`\gamma LA_t(f(w_t)-f^\star)+\tfrac L2\|z_t-x^\star\|^2` does not
increase while :math:`\gamma L t^2\le A_t`, i.e. :math:`\gamma\le1/(2L)`):

.. math::

    f(\bar x_T)-f(x^\star)\le\frac{\|x_0-x^\star\|^2}{\gamma T(T+1)}=\frac{4L\|x_0-x^\star\|^2}{T(T+1)}
    \quad(\gamma=1/(4L)).
"""

from gamedyn.core import OFTL, OMD, Ball, CurrentLoss, Reals, SquaredEuclidean
from gamedyn.core.validation import check_count, check_positive
from gamedyn.engine import play
from gamedyn.engine.recipe import FENCHEL, Box, Parameter, recipe
from gamedyn.games.fenchel import FenchelGame
from gamedyn.games.fenchel.result import DIMENSION, STEP, X0, fenchel_inputs, fenchel_result
from gamedyn.games.fenchel import FenchelResult


def default_step(objective) -> float:
    """gamma = 1/(4L), Wang & Abernethy's choice; needs ``objective.smoothness``."""
    if objective.smoothness is None:
        raise ValueError("the default step is 1/(4L): give the objective its smoothness, "
                         "Objective(value, gradient, smoothness=L), or pass eta_p=gamma.")
    return 1.0 / (4.0 * objective.smoothness)


@recipe(
    name="accelerated_gradient", family=FENCHEL, reference="Wang & Abernethy 2018; Nesterov 1983",
    summary="optimistic FTL (y) vs OMD shown y_t (x), alpha_t = t: Nesterov's method, f(x_T) - f* = O(L/T^2)",
    box=Box(payoff="g(y, x) = <x, y> - f*(y)      (FenchelGame; y = w maximises, x = p minimises)",
            w_player="OFTL on R^d (psi_t = h_{t-1}, h_0 from x_0): y_t = grad f(x~_t),\n"
                     "x~_t = (sum_{s<t} alpha_s x_s + alpha_t x_{t-1}) / A_t",
            p_player="mirror descent with 1/2||.||^2 on K (R^d or a ball), step eta_p = gamma, shown y_t first\n"
                     "(hint CurrentLoss): x_t = Pi_K(x_{t-1} - gamma alpha_t y_t)",
            weights="alpha_t = t", first="y-player",
            rows=(("steps", "gamma = 1/(4L) by default (L = objective.smoothness)"),),
            output="x = x_bar_T = sum_t t x_t / A_T,  A_T = T(T+1)/2"),
    parameters=(Parameter("domain", "R^d (None) or a Ball(radius)", cli=False), X0, STEP, DIMENSION),
    page="fenchel-games",
)
def accelerated_gradient(objective, T, *, domain=None, x0=None, eta_p=None, dimension=None, **run_options) -> FenchelResult:
    r"""Nesterov's method for an L-smooth convex f, on :math:`\mathbb R^d` (``domain=None``) or a ``Ball``.

    ``x0`` (default 0) is the start; ``eta_p`` (default :math:`1/(4L)`)
    is the x-player's step :math:`\gamma`. ``.x`` is :math:`\bar x_T` (= the similar-triangles
    :math:`w_T`); :math:`f(\bar x_T)-f^\star\le\|x_0-x^\star\|^2/(\gamma T(T+1))`. ``run_options`` go
    to :func:`gamedyn.play`.

    Returns
    -------
    FenchelResult
        ``.x`` (the output named above), ``.value`` = f(x), ``.game`` (Theorem 2's bound is
        ``.game.theorem2_bound``) and ``.steps``.

    Raises
    ------
    ValueError
        ``domain`` is neither None nor a ``Ball``; the default step without ``objective.smoothness``.

    Examples
    --------
    >>> import numpy as np
    >>> from gamedyn import Objective
    >>> H = np.diag([1.0, 10.0])
    >>> f = Objective(lambda x: 0.5 * float(x @ H @ x), lambda x: H @ x, smoothness=10.0)
    >>> result = accelerated_gradient(f, T=100, x0=[1.0, 1.0])
    >>> bool(result.value <= 4 * 10.0 * 2.0 / (100 * 101))
    True
    """
    T = check_count(T, "T")
    domain = Reals() if domain is None else domain
    if not isinstance(domain, (Reals, Ball)):
        raise ValueError(f"accelerated_gradient runs on R^d (domain=None) or a Ball(radius), got {domain!r}.")
    gamma = default_step(objective) if eta_p is None else check_positive(eta_p, "eta_p")
    x0, dimension = fenchel_inputs(objective, domain, x0, dimension)
    regularizer = SquaredEuclidean() if isinstance(domain, Reals) else SquaredEuclidean(domain=domain)
    game = play(FenchelGame(objective, None if isinstance(domain, Reals) else domain, dimension=dimension),
                w_learner=OFTL(), p_learner=OMD(regularizer, gamma, CurrentLoss(), centre=x0), T=T,
                weights="linear", first="w", initial_p=x0, **run_options)
    return fenchel_result(objective, game, {"eta_p": gamma})
