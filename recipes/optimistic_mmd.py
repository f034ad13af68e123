r"""Optimistic magnetic mirror descent against itself on an extensive-form game: MMD's magnet with OMD's
prediction, alpha decreasing.

The box is declared once, below (``@recipe``); the family: :mod:`gamedyn.recipes.dilated_hedge`.

Each player is :class:`gamedyn.OMD` (optimistic mirror descent, Rakhlin & Sridharan 2013, the last loss as
the hint) with the dilated entropy carrying MMD's magnet (:class:`gamedyn.core.dilated.DilatedEntropy`
``(treeplex, alpha=alpha_k)``, the uniform magnet :math:`\rho`): with secondary iterates :math:`z_t`,

.. math::

    x_t=\arg\min_{x\in X}\ \eta\big(\langle\ell_{t-1},x\rangle+\alpha_kD_R(x,\rho)\big)+D_R(x,z_{t-1}),\qquad
    z_t=\arg\min_{x\in X}\ \eta\big(\langle\ell_t,x\rangle+\alpha_kD_R(x,\rho)\big)+D_R(x,z_{t-1}),

:math:`\ell_t` the loss at the opponent's play :math:`y_t`: MMD's step (Sokota et al. 2023, eq. (3)) taken
twice, once with the predicted loss (the play) and once with the true one (the secondary). Its fixed
point is MMD's: the :math:`\alpha`-QRE of the game regularized by :math:`\alpha D_R(\cdot,\rho)`.

**Why the prediction.** MMD's last iterate converges to its QRE only under a step condition of the form
:math:`\eta\le\alpha/L^2` (Sokota et al. 2023, Thm 3.4), so as :math:`\alpha` decreases towards a Nash
equilibrium the step must shrink with it and the contraction :math:`(1+\eta\alpha)^{-1}` per round tends to
1 (:func:`gamedyn.recipes.mmd`'s halving schedule: Leduc 0.13 after 15,000 rounds). With the prediction the
step no longer depends on :math:`\alpha` (the entropy-regularized optimistic methods of Cen, Wei & Chi
2021 converge linearly for any step below about :math:`1/L`, the rate :math:`1-\Theta(\eta\alpha)`), so a
fixed :math:`\eta` follows :math:`\alpha` down.

**The decreasing schedule** (``schedule="decreasing"``, the default). Stage k = 0, 1, ... plays
:math:`\alpha_k=\alpha2^{-k}` for :math:`\lceil\text{stage}\cdot\text{growth}^k\rceil` rounds; each stage is
a run of :func:`gamedyn.play` started (its centre :math:`z_0` and its first hint) at the previous stage's
last plays. The QREs' exploitability falls about in proportion to :math:`\alpha` (Leduc: 0.072, 0.032,
0.015 at :math:`\alpha` = 1.6e-3, 7.8e-4, 3.9e-4), and a stage must last about :math:`1/(\eta\alpha_k)`
rounds for the iterate to settle, hence the growing stages; growth 1.5 measured fastest on Leduc (2 reached
1e-2 about twice as late; 1, a fixed length, stops settling below :math:`\alpha\approx2\cdot10^{-4}`).
Measured on Leduc with the defaults (eta 4, alpha 0.2, stage 50, growth 1.5): exploitability 0.0096 after
8,000 rounds, 0.0055 after 10,000 (about 4 s CPU), 0.0036 after 12,000 (tests/test_optimistic_mmd.py); Kuhn
poker 0.0036 after 1,000. The step is bounded by stability, not by :math:`\alpha`: on Kuhn poker eta 4
settles at every alpha, 5 no longer does below about 0.01 (Leduc: 8 settles, 20 does not).
``schedule="constant"`` keeps :math:`\alpha`: one run, its last iterate the :math:`\alpha`-QRE.
"""

from __future__ import annotations

from gamedyn.core import OMD
from gamedyn.core.dilated import DilatedEntropy
from gamedyn.core.protocols import declared
from gamedyn.core.validation import check_positive
from gamedyn.engine import play
from gamedyn.engine.recipe import EFG, Box, Parameter, recipe
from gamedyn.games.efg.result import EFGResult
from gamedyn.recipes.cfr import PAYOFF, check_game
from gamedyn.recipes.dilated_hedge import eta_parameter, weights_parameter
from gamedyn.recipes.mmd import stage_lengths

__all__ = ["optimistic_mmd"]

SCHEDULES = ("constant", "decreasing")


@recipe(
    name="optimistic_mmd", family=EFG,
    reference="Sokota et al. 2023 (MMD); Rakhlin & Sridharan 2013 (optimism); Cen, Wei & Chi 2021",
    summary="optimistic MMD vs itself: optimistic mirror descent with the dilated entropy and a magnet; the last "
            "iterate, alpha halved as the stages grow",
    box=Box(payoff=PAYOFF,
            w_player="OMD(DilatedEntropy(X, magnet=rho, alpha=alpha_k), eta)   (x_t = argmin_x eta(<l_{t-1}, x> + "
                     "alpha_k D(x, rho)) + D(x, z_{t-1});  z_t the same with l_t)",
            p_player="OMD(DilatedEntropy(Y, magnet=rho, alpha=alpha_k), eta)   (the same on the second player's "
                     "treeplex)",
            weights="alpha_k = alpha 2^-k in stage k of ceil(stage growth^k) rounds ('decreasing'), or alpha "
                    "('constant');  rho uniform;  each stage starts at the last plays",
            first="player 0; simultaneous (both losses at the round's plays)",
            output="x = x_T, y = y_T (the last plays, sequence form);  certified value bracket, Nash gap, "
                   "exploitability"),
    parameters=(eta_parameter(4.0), Parameter("alpha", "the magnet strength (the first stage's)", 0.2),
                Parameter("schedule", "'decreasing' (alpha halved each stage, the stages growing) or 'constant' "
                          "(one alpha: its QRE)", "decreasing", kind=str, choices=SCHEDULES),
                Parameter("stage", "the rounds of the first stage of the decreasing schedule", 50, kind=int),
                Parameter("growth", "the decreasing schedule: each stage this many times as long as the one before "
                          "(>= 1)", 1.5),
                weights_parameter()),
    page="extensive-form-games",
    pair=("optimistic MMD (alpha 0.2)", "optimistic MMD (alpha 0.2)", "last", "simultaneous"),  # schedule='constant'
)
def optimistic_mmd(game, T, *, eta=4.0, alpha=0.2, schedule="decreasing", stage=50, growth=1.5, entropy_weights=None,
                   **run_options) -> EFGResult:
    r"""Optimistic magnetic mirror descent self-play for T rounds; the result holds the *last plays* (see the module
    docstring).

    ``run_options`` go to every stage's :func:`gamedyn.play` (``result.game`` is the last stage's run).

    Returns
    -------
    EFGResult
        ``x``, ``y``: the plays of round T (sequence form), their certified ``lower``, ``upper``, ``nash_gap``,
        ``exploitability``, ``policy(player)``; ``steps``: eta, alpha, stage, growth and decreasing (1.0 for the
        decreasing schedule, else 0.0).

    Raises
    ------
    ValueError
        A schedule other than ``"constant"`` or ``"decreasing"``; a step or alpha that is not positive; a stage that
        is not a positive integer; a growth below 1; a checkpoint (``checkpoint=``, ``resume_from=``) with the
        decreasing schedule over more than one stage.

    Examples
    --------
    >>> from gamedyn.games.efg import kuhn_poker
    >>> result = optimistic_mmd(kuhn_poker(), T=1000)
    >>> bool(result.lower <= -1 / 18 <= result.upper), bool(result.exploitability < 1e-2)
    (True, True)
    """
    game = check_game(game)
    eta, alpha = check_positive(eta, "eta"), check_positive(alpha, "alpha")
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {SCHEDULES}, got {schedule!r}.")
    if isinstance(stage, bool) or not isinstance(stage, int) or stage < 1:
        raise ValueError(f"stage must be a positive integer (the first stage's rounds), got {stage!r}.")
    if isinstance(growth, bool) or not isinstance(growth, (int, float)) or not 1.0 <= float(growth) < float("inf"):
        raise ValueError(f"growth must be a finite number >= 1 (each stage's length over the one before), got "
                         f"{growth!r}.")
    if isinstance(T, bool) or not isinstance(T, int) or T < 1:
        raise ValueError(f"T must be a positive integer, got {T!r}.")
    payoff = game.payoff()
    starts = [treeplex.default_centre(treeplex.dimension) for treeplex in game.treeplexes]
    lengths = [T] if schedule == "constant" else stage_lengths(T, stage, float(growth))
    if len(lengths) > 1 and any(declared(observer, "saves_run") for observer in run_options.get("observers", ())):
        raise ValueError(f"optimistic_mmd's decreasing schedule plays its {len(lengths)} stages as separate runs, and "
                         f"a checkpoint cannot span them: pass schedule='constant' (one run) to checkpoint or resume, "
                         f"or stage >= T (T = {T}, stage = {stage}).")
    result = None
    for k, rounds in enumerate(lengths):
        strength = alpha * 0.5 ** k
        x_learner, y_learner = (OMD(DilatedEntropy(treeplex, entropy_weights, alpha=strength), eta, centre=start)
                                for treeplex, start in zip(game.treeplexes, starts))
        result = play(payoff, w_learner=x_learner, p_learner=y_learner, T=rounds, weights="constant", first="w",
                      alternating=False, initial_w=starts[0], initial_p=starts[1], **run_options)
        starts = [result.w_last, result.p_last]
    assert result is not None
    x, y = starts
    steps = {"eta": eta, "alpha": alpha, "stage": stage, "growth": float(growth),
             "decreasing": float(schedule == "decreasing")}  # numbers (the CLI prints them)
    return EFGResult(x=x, y=y, certificate=game.bracket(x, y), efg=game, game=result, steps=steps)
