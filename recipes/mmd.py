r"""Magnetic mirror descent against itself on an extensive-form game (Sokota et al. 2023), with a decreasing alpha.

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
"""

from __future__ import annotations

from gamedyn.core import MirrorDescent
from gamedyn.core.dilated import DilatedEntropy
from gamedyn.core.protocols import declared
from gamedyn.core.validation import check_positive
from gamedyn.engine import play
from gamedyn.engine.recipe import EFG, Box, Parameter, recipe
from gamedyn.games.efg.result import EFGResult
from gamedyn.recipes.cfr import PAYOFF, check_game
from gamedyn.recipes.dilated_hedge import eta_parameter, weights_parameter

__all__ = ["alpha_at", "mmd"]

SCHEDULES = ("constant", "halving")


def alpha_at(t: int, alpha: float, schedule: str, stage: int) -> float:
    r"""The magnet strength of round t (1-based): :math:`\alpha` (``"constant"``) or :math:`\alpha_k=\alpha2^{-k}` in stage k (``"halving"``), stage k the
    :math:`\text{stage}\cdot2^k` rounds after the first :math:`\text{stage}(2^k-1)`."""
    if schedule == "constant":
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
            weights="alpha_t = alpha (schedule 'constant') or alpha 2^-k in stage k of stage 2^k rounds ('halving');  rho uniform",
            first="player 0; simultaneous (both losses at the round's plays)",
            output="x = x_{T+1}, y = y_{T+1} (the last iterates after T steps, sequence form);  certified value bracket, Nash gap, "
                   "exploitability"),
    parameters=(eta_parameter(1.0), Parameter("alpha", "the magnet strength (the first stage's)", 0.2),
                Parameter("schedule", "'constant' alpha (the alpha-QRE) or 'halving' (alpha halved, the stage doubled)",
                          "halving", kind=str, choices=SCHEDULES),
                Parameter("stage", "the rounds of the first stage of the halving schedule (each next one twice as long)", 20, kind=int),
                weights_parameter()),
    page="extensive-form-games",
)
def mmd(game, T, *, eta=1.0, alpha=0.2, schedule="halving", stage=20, entropy_weights=None,
        **run_options) -> EFGResult:
    r"""Magnetic mirror descent self-play for T rounds; the result holds the *last* iterates (see the module docstring).

    ``run_options`` go to every stage's :func:`gamedyn.play` (``result.game`` is the last stage's run).

    Returns
    -------
    EFGResult
        ``x``, ``y``: the iterates after T steps (the plays of round T + 1, sequence form), their certified ``lower``, ``upper``, ``nash_gap``,
        ``exploitability``, ``policy(player)``; ``steps``: eta, alpha, stage and halving (1.0 for the halving schedule, 0.0 for a constant alpha).

    Raises
    ------
    ValueError
        A schedule other than ``"constant"`` or ``"halving"``, a step, alpha or stage that is not positive; a
        checkpoint (``checkpoint=``, ``resume_from=``) with the halving schedule over more than one stage.

    Examples
    --------
    >>> from gamedyn.games.efg import kuhn_poker
    >>> result = mmd(kuhn_poker(), T=1000)
    >>> bool(result.lower <= -1 / 18 <= result.upper), bool(result.exploitability < 0.01)
    (True, True)
    """
    game = check_game(game)
    eta, alpha = check_positive(eta, "eta"), check_positive(alpha, "alpha")
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {SCHEDULES}, got {schedule!r}.")
    if isinstance(stage, bool) or not isinstance(stage, int) or stage < 1:
        raise ValueError(f"stage must be a positive integer (rounds per value of alpha), got {stage!r}.")
    if isinstance(T, bool) or not isinstance(T, int) or T < 1:
        raise ValueError(f"T must be a positive integer, got {T!r}.")
    payoff = game.payoff()
    starts = [treeplex.default_centre(treeplex.dimension) for treeplex in game.treeplexes]
    lengths = [T] if schedule == "constant" else _stage_lengths(T, stage)
    if len(lengths) > 1 and any(declared(observer, "saves_run") for observer in run_options.get("observers", ())):
        raise ValueError(f"mmd's halving schedule plays its {len(lengths)} stages as separate runs, and a checkpoint "
                         f"cannot span them: pass schedule='constant' (one run) to checkpoint or resume, or "
                         f"stage >= T (T = {T}, stage = {stage}).")
    result = None
    for k, rounds in enumerate(lengths):
        strength = alpha * 0.5 ** k if schedule == "halving" else alpha
        regularizers = [DilatedEntropy(treeplex, entropy_weights, alpha=strength) for treeplex in game.treeplexes]
        x_learner, y_learner = (MirrorDescent(regularizer, eta, centre=start)
                                for regularizer, start in zip(regularizers, starts))
        result = play(payoff, w_learner=x_learner, p_learner=y_learner, T=rounds, weights="constant", first="w",
                      alternating=False, initial_w=starts[0], initial_p=starts[1], **run_options)
        starts = _next_plays(game, regularizers, eta, result.w_last, result.p_last)
    assert result is not None
    x, y = starts
    steps = {"eta": eta, "alpha": alpha, "stage": stage, "halving": float(schedule == "halving")}  # numbers (the CLI prints them)
    return EFGResult(x=x, y=y, certificate=game.bracket(x, y), efg=game, game=result, steps=steps)


def _stage_lengths(T: int, stage: int) -> list:
    """The lengths of the halving schedule's stages in T rounds: stage, 2 stage, 4 stage, ... (the last one cut)."""
    lengths, done, length = [], 0, stage
    while done < T:
        lengths.append(min(length, T - done))
        done += length
        length *= 2
    return lengths


def _next_plays(game, regularizers, eta, x, y) -> list:
    """The plays after the run's last round, ``[x_{T+1}, y_{T+1}]``: the last step of each player (the first player
    maximises, so its loss is :math:`-Ay_T`; the second's :math:`A^\top x_T`)."""
    return [regularizers[0].argmin(-(game.A @ y), 0.0, eta, x), regularizers[1].argmin(game.A.T @ x, 0.0, eta, y)]
