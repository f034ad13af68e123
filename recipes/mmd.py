r"""Magnetic mirror descent against itself on an extensive-form game (Sokota et al. 2023); alpha halved or magnet moved.

The box is declared once, below (``@recipe``); the family: :mod:`gamedyn.recipes.dilated_hedge`.

MMD is :class:`gamedyn.MirrorDescent` with the dilated entropy carrying a magnet
(:class:`gamedyn.core.dilated.DilatedEntropy` ``(treeplex, magnet=rho, alpha=alpha)``): every step is

.. math::

    x_{t+1}=\arg\min_{x\in X}\ \eta\big(\langle\ell_t,x\rangle+\alpha D_R(x,\rho)\big)+D_R(x,x_t),

the bottom-up softmax of :math:`(\log b_{x_t}+\eta\alpha\log b_\rho-\eta\,\cdot)/(1+\eta\alpha)`. With a fixed
:math:`\alpha` the last iterate converges to the :math:`\alpha`-QRE of the game regularized by
:math:`\alpha D_R(\cdot,\rho)` (Sokota et al. 2023, Thm 3.4), which is not a Nash equilibrium: OpenSpiel's
default :math:`\alpha=0.05` stays at exploitability 1.63 on Leduc. ``schedule="halving"`` decreases
:math:`\alpha`: stage k (k = 0, 1, ...) lasts :math:`\text{stage}\cdot2^k` rounds and plays
:math:`\alpha_k=\alpha2^{-k}` (the step stays :math:`\eta`; each stage gets the same
:math:`\eta\alpha_k\cdot\text{length}_k`, the contraction towards its QRE, and after T rounds
:math:`\alpha_k=O(\alpha\,\text{stage}/T)`), each stage continuing from the last iterate
(mirror descent keeps nothing else), so the last iterate tracks the QREs towards a Nash equilibrium.

**The moving magnet** (``schedule="moving"``, the schedule that reaches a Nash equilibrium on Leduc).
Halving :math:`\alpha` is not enough where the payoffs are large: the :math:`\alpha`-QRE's exploitability is
about proportional to :math:`\alpha` (Leduc: 1.3 at 0.05, 0.43 at 0.01, so :math:`\alpha\approx2\cdot10^{-4}`
for 1e-2), and the step must shrink with :math:`\alpha` for the last iterate to converge (a step condition
of the form :math:`\eta\le\alpha/L^2` in Sokota et al. 2023's convergence theorem; measured on Leduc with unit
weights, :math:`\eta=6` no longer settles at :math:`\alpha=0.01`), so each stage's contraction
:math:`(1+\eta\alpha)^{-1}` per round tends to 1 and the halving stages fall behind (Leduc, 15,000 rounds:
0.13 with the defaults, 0.78 with ``alpha=0.01, eta=3, stage=300``). The
moving schedule keeps :math:`\alpha` and :math:`\eta` fixed and moves the **magnet** instead: every
``stage`` rounds (stage k = 0, 1, ...) the magnet becomes the last iterate, mixed with the uniform strategy
at every infoset by a share :math:`\epsilon_k=\text{mix}\cdot\text{mix\_decay}^k` (in behavioural form),

.. math::

    b^{\rho_{k+1}}_j=(1-\epsilon_k)\,b^{x_{\text{end of stage }k}}_j+\epsilon_k/|A_j|.

Within a stage MMD converges linearly to the QRE around its magnet (Thm 3.4: the rate
:math:`(1+\eta\alpha)^{-1}` per round, so a stage of :math:`\gg1/(\eta\alpha)` rounds ends near it); that
QRE is :math:`\arg\min_x\max_y` of the game plus :math:`\alpha D_R(x,\rho)-\alpha D_R(y,\sigma)`, one step
of the Bregman proximal-point method with step :math:`1/\alpha` on the game's monotone operator, whose
iterates converge to a Nash equilibrium (the iterated regularization of Perolat et al. 2021, behind R-NaD,
which moves its regularization policy the same way). The uniform share keeps the magnet inside the
treeplex's interior (an action the magnet nearly ruled out would otherwise take many stages to come back:
without it the exploitability on Leduc oscillates between 0.01 and 0.3), and its decay removes the
bias it adds (a fixed share of 0.01 stops at exploitability 0.0058 on Leduc). Measured on Leduc with
``alpha=0.01, eta=3, stage=300`` (mix 0.01, mix_decay 0.98): the exploitability at the stages' ends is below
1e-2 from stage 38 (about 11,400 rounds) on and 2e-4 at 70,000 rounds; this recipe's 15,000 rounds give
0.0066 in about 11 s CPU (tests/test_dilated_recipes.py), where a constant :math:`\alpha` with the same
settings stays at its QRE (0.43 at 2,000 rounds). With the defaults (alpha 0.2, eta 1,
stage 20) Kuhn poker is at 0.0013 after 1,000 rounds, but Leduc stays near 0.1: the settings scale with the
payoffs (a smaller alpha, a longer stage).

**Alpha decreasing to a Nash equilibrium** is :func:`gamedyn.recipes.optimistic_mmd`: the same magnetic step with
the last loss as a prediction (:class:`gamedyn.OMD`), whose step need not shrink with :math:`\alpha`.
"""

from __future__ import annotations

import math

from gamedyn.core import MirrorDescent
from gamedyn.core.dilated import DilatedEntropy
from gamedyn.core.protocols import declared
from gamedyn.core.validation import check_positive
from gamedyn.engine import play
from gamedyn.engine.recipe import EFG, Box, Parameter, recipe
from gamedyn.games.efg.result import EFGResult
from gamedyn.recipes.cfr import PAYOFF, check_game
from gamedyn.recipes.dilated_hedge import eta_parameter, weights_parameter

__all__ = ["alpha_at", "mmd", "moved_magnet", "stage_lengths"]

SCHEDULES = ("constant", "halving", "moving")


def alpha_at(t: int, alpha: float, schedule: str, stage: int) -> float:
    r"""The magnet strength of round t (1-based): :math:`\alpha` (``"constant"`` and ``"moving"``) or :math:`\alpha_k=\alpha2^{-k}` in stage k (``"halving"``), stage k the
    :math:`\text{stage}\cdot2^k` rounds after the first :math:`\text{stage}(2^k-1)`."""
    if schedule in ("constant", "moving"):
        return alpha
    k = 0
    while t > stage * (2 ** (k + 1) - 1):  # stage k ends at round stage (2^(k+1) - 1)
        k += 1
    return alpha * 0.5 ** k


@recipe(
    name="mmd", family=EFG, reference="Sokota, D'Orazio, Kolter, Loizou, Lanctot, Mitliagkas, Brown & Kroer 2023",
    summary="magnetic mirror descent vs itself: mirror descent with the dilated entropy and a magnet; the last "
            "iterate, alpha halved as the stages double",
    box=Box(payoff=PAYOFF,
            w_player="MirrorDescent(DilatedEntropy(X, magnet=rho, alpha=alpha_t), eta)   (x_{t+1} = argmin_x "
                     "eta(<l_t, x> + alpha_t D(x, rho)) + D(x, x_t))",
            p_player="MirrorDescent(DilatedEntropy(Y, magnet=rho, alpha=alpha_t), eta)   (the same on the second "
                     "player's treeplex)",
            weights="alpha_t = alpha (schedule 'constant') or alpha 2^-k in stage k of stage 2^k rounds ('halving');  rho uniform;\n"
                    "'moving': alpha_t = alpha, rho <- (1 - e_k) x + e_k uniform (behavioural) after each stage k of stage rounds, "
                    "e_k = mix mix_decay^k",
            first="player 0; simultaneous (both losses at the round's plays)",
            output="x = x_{T+1}, y = y_{T+1} (the last iterates after T steps, sequence form);  certified value bracket, Nash gap, "
                   "exploitability"),
    parameters=(eta_parameter(1.0), Parameter("alpha", "the magnet strength (the first stage's)", 0.2),
                Parameter("schedule", "'constant' alpha (the alpha-QRE), 'halving' (alpha halved, the stage doubled) or "
                          "'moving' (the magnet moved to the last iterate every stage: towards a Nash equilibrium)",
                          "halving", kind=str, choices=SCHEDULES),
                Parameter("stage", "the rounds of the first stage of the halving schedule (each next one twice as long), "
                          "or of every stage of the moving one", 20, kind=int),
                Parameter("mix", "the moving schedule: the uniform share of the first moved magnet", 0.01),
                Parameter("mix_decay", "the moving schedule: the uniform share's factor per stage", 0.98),
                weights_parameter()),
    page="extensive-form-games",
    pair=("MMD (alpha 0.2)", "MMD (alpha 0.2)", "last", "simultaneous"),  # schedule='constant': one alpha, the last iterate
)
def mmd(game, T, *, eta=1.0, alpha=0.2, schedule="halving", stage=20, mix=0.01, mix_decay=0.98, entropy_weights=None,
        **run_options) -> EFGResult:
    r"""Magnetic mirror descent self-play for T rounds; the result holds the *last* iterates (see the module docstring).

    ``run_options`` go to every stage's :func:`gamedyn.play` (``result.game`` is the last stage's run).

    Returns
    -------
    EFGResult
        ``x``, ``y``: the iterates after T steps (the plays of round T + 1, sequence form), their certified ``lower``, ``upper``, ``nash_gap``,
        ``exploitability``, ``policy(player)``; ``steps``: eta, alpha, stage, halving (1.0 for the halving schedule, else
        0.0), moving (1.0 for the moving magnet, else 0.0), mix and mix_decay.

    Raises
    ------
    ValueError
        A schedule other than ``"constant"``, ``"halving"`` or ``"moving"``, a step, alpha or stage that is not
        positive, a mix or mix_decay outside (0, 1]; a checkpoint (``checkpoint=``, ``resume_from=``) with the
        halving or moving schedule over more than one stage.

    Examples
    --------
    >>> from gamedyn.games.efg import kuhn_poker
    >>> result = mmd(kuhn_poker(), T=1000)
    >>> bool(result.lower <= -1 / 18 <= result.upper), bool(result.exploitability < 0.01)
    (True, True)
    >>> bool(mmd(kuhn_poker(), T=1000, schedule="moving").exploitability < 0.01)
    True
    """
    game = check_game(game)
    eta, alpha = check_positive(eta, "eta"), check_positive(alpha, "alpha")
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {SCHEDULES}, got {schedule!r}.")
    if isinstance(stage, bool) or not isinstance(stage, int) or stage < 1:
        raise ValueError(f"stage must be a positive integer (rounds per value of alpha), got {stage!r}.")
    for name, value in (("mix", mix), ("mix_decay", mix_decay)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 < float(value) <= 1.0:
            raise ValueError(f"{name} must be a number in (0, 1] (the moving magnet's uniform share), got {value!r}.")
    if isinstance(T, bool) or not isinstance(T, int) or T < 1:
        raise ValueError(f"T must be a positive integer, got {T!r}.")
    payoff = game.payoff()
    starts = [treeplex.default_centre(treeplex.dimension) for treeplex in game.treeplexes]
    lengths = [T] if schedule == "constant" else stage_lengths(T, stage, 2.0 if schedule == "halving" else 1.0)
    if len(lengths) > 1 and any(declared(observer, "saves_run") for observer in run_options.get("observers", ())):
        raise ValueError(f"mmd's {schedule} schedule plays its {len(lengths)} stages as separate runs, and a checkpoint "
                         f"cannot span them: pass schedule='constant' (one run) to checkpoint or resume, or "
                         f"stage >= T (T = {T}, stage = {stage}).")
    result = None
    magnets: list = [None, None]  # uniform; the moving schedule moves them after each stage
    for k, rounds in enumerate(lengths):
        strength = alpha * 0.5 ** k if schedule == "halving" else alpha
        regularizers = [DilatedEntropy(treeplex, entropy_weights, magnet=magnet, alpha=strength)
                        for treeplex, magnet in zip(game.treeplexes, magnets)]
        x_learner, y_learner = (MirrorDescent(regularizer, eta, centre=start)
                                for regularizer, start in zip(regularizers, starts))
        result = play(payoff, w_learner=x_learner, p_learner=y_learner, T=rounds, weights="constant", first="w",
                      alternating=False, initial_w=starts[0], initial_p=starts[1], **run_options)
        starts = _next_plays(game, regularizers, eta, result.w_last, result.p_last)
        if schedule == "moving":
            share = max(float(mix) * float(mix_decay) ** k, 1e-300)  # e_k (kept positive: the magnet stays interior)
            magnets = [moved_magnet(treeplex, start, share) for treeplex, start in zip(game.treeplexes, starts)]
    assert result is not None
    x, y = starts
    steps = {"eta": eta, "alpha": alpha, "stage": stage, "halving": float(schedule == "halving"),
             "moving": float(schedule == "moving"), "mix": float(mix), "mix_decay": float(mix_decay)}  # numbers (the CLI prints them)
    return EFGResult(x=x, y=y, certificate=game.bracket(x, y), efg=game, game=result, steps=steps)


def moved_magnet(treeplex, x, share: float):
    r"""The moving schedule's next magnet: x mixed with the uniform strategy at every infoset,
    :math:`b_j=(1-\epsilon)b^x_j+\epsilon/|A_j|` (behavioural form), as a sequence-form point with positive entries."""
    uniform = treeplex.uniform_behaviour()
    return treeplex.to_sequence((1.0 - share) * treeplex.to_behavioural(x) + share * uniform)


def stage_lengths(T: int, stage: int, growth: float) -> list:
    r"""The lengths of the stages in T rounds: :math:`\lceil\text{stage}\cdot\text{growth}^k\rceil` for stage k
    (growth 2: the halving schedule; 1: the moving one), the last one cut so that they add up to T."""
    lengths, done, length = [], 0, float(stage)
    while done < T:
        rounds = min(math.ceil(length - 1e-9), T - done)
        lengths.append(rounds)
        done += rounds
        length *= growth
    return lengths


def _next_plays(game, regularizers, eta, x, y) -> list:
    """The plays after the run's last round, ``[x_{T+1}, y_{T+1}]``: the last step of each player (the first player
    maximises, so its loss is :math:`-Ay_T`; the second's :math:`A^\top x_T`)."""
    return [regularizers[0].argmin(-(game.A @ y), 0.0, eta, x), regularizers[1].argmin(game.A.T @ x, 0.0, eta, y)]
