r"""The ``gamedyn reproduce`` rows of issue 34: the no-swap-regret learners and the certified equilibria.

* **Blum-Mansour and Hart & Mas-Colell, as published**: :class:`gamedyn.SwapRegret` (RM+ copies, stacked
  and one player per copy) and :class:`gamedyn.SwapRegretMatching` (with and without the + clip) against
  the original loops of :mod:`gamedyn.games.general_sum.original`, online (fixed losses) and in self-play
  on a 3-player game: the largest difference of the plays (<= 1e-10).
* **Swap-regret bounds**: Blum & Mansour's Theorem 5 is an equality when the play is a stationary
  distribution (swap regret = the sum of the copies' external regrets; measured: the relative
  difference), and Hart & Mas-Colell's swap regret is at most
  :math:`\sqrt K\sqrt{\sum_t\|r_t\|_F^2}` (measured / bound <= 1).
* **Correlated equilibria from no-swap-regret self-play**: the CE gap of the joint distribution of
  play equals the largest player's swap regret / T (measured: the difference, <= 1e-9).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["general_sum_claims"]

_LOSSES = np.random.default_rng(34).uniform(-1.0, 1.0, size=(300, 5))
_WEIGHTS = np.random.default_rng(35).uniform(0.5, 2.0, size=300)


class _OnePlayerPerCopy:
    """A regret-matching learner without the batched capability (SwapRegret then drives one player per copy)."""

    def __init__(self, learner):
        self.learner, self.domain = learner, learner.domain

    def init(self, dimension, initial_loss=None):
        return self.learner.init(dimension, initial_loss)

    def play(self, state, weight, current_loss=None):
        return self.learner.play(state, weight)

    def update(self, state, point, loss, weight, **_):
        return self.learner.update(state, point, loss, weight)


def _online(learner) -> np.ndarray:
    from gamedyn.core import Loss

    player = learner.player(learner.init(_LOSSES.shape[1]))
    plays = []
    for loss, weight in zip(_LOSSES, _WEIGHTS):
        plays.append(player.play(weight))
        player.update(plays[-1], Loss(loss), weight)
    return np.array(plays)


def _game():
    from gamedyn.games.general_sum import NormalFormGame

    return NormalFormGame(list(np.random.default_rng(8).uniform(size=(3, 3, 4, 2))))


def equivalence_check(context):
    """The largest difference between the learners' plays and the original loops' (online and in self-play)."""
    from gamedyn.core import RegretMatching, SwapRegret, SwapRegretMatching
    from gamedyn.engine.players import PlaysTrace, play_n
    from gamedyn.games.general_sum import original
    from gamedyn.paper.claims import Measurement

    worst, where = 0.0, ""
    cases = [
        ("SwapRegret(RM+), stacked", _online(SwapRegret(RegretMatching(plus=True))),
         original.blum_mansour_online(_LOSSES, "rm+", _WEIGHTS)),
        ("SwapRegret(RM), one player per copy", _online(SwapRegret(lambda: _OnePlayerPerCopy(RegretMatching()))),
         original.blum_mansour_online(_LOSSES, "rm", _WEIGHTS)),
        ("SwapRegretMatching()", _online(SwapRegretMatching()), original.hart_mas_colell_online(_LOSSES, False, _WEIGHTS)),
        ("SwapRegretMatching(plus=True)", _online(SwapRegretMatching(plus=True)),
         original.hart_mas_colell_online(_LOSSES, True, _WEIGHTS)),
    ]
    game, T = _game(), 120
    for rule, learner in (("bm-rm+", SwapRegret(RegretMatching(plus=True))), ("hmc+", SwapRegretMatching(plus=True))):
        trace = PlaysTrace()
        play_n(game, [learner] * 3, T, weights="linear", observers=[trace])
        reference = original.swap_self_play(game.payoffs, T, rule, weights=np.arange(1.0, T + 1))
        for i, (kept, expected) in enumerate(zip(trace.plays, reference)):
            cases.append((f"{rule} self-play, player {i + 1}", np.array(kept), expected))
    for label, mine, theirs in cases:
        difference = float(np.max(np.abs(mine - theirs)))
        if difference >= worst:
            worst, where = difference, label
    return Measurement(worst, 1e-10, worst <= 1e-10, f"largest: {where}")


def bound_check(context):
    """Blum-Mansour's identity (relative difference) and Hart & Mas-Colell's bound (measured / bound)."""
    from gamedyn.core import Loss, RegretMatching, SwapRegret, SwapRegretMatching
    from gamedyn.core.swap_regret import swap_regret
    from gamedyn.paper.claims import Measurement

    K = _LOSSES.shape[1]
    learner = SwapRegret(RegretMatching(plus=True))
    player = learner.player(learner.init(K))
    plays, copy_losses, copy_played = [], np.zeros((K, K)), np.zeros(K)
    for loss, weight in zip(_LOSSES, _WEIGHTS):
        x = player.play(weight)
        Q = player.proposals
        plays.append(x)
        charged = x[:, None] * loss[None, :]
        copy_losses += weight * charged
        copy_played += weight * np.einsum("jk,jk->j", charged, Q)
        player.update(x, Loss(loss), weight)
    copies = float(np.sum(copy_played - copy_losses.min(axis=1)))
    swap = swap_regret(np.array(plays), _LOSSES, _WEIGHTS)[0]
    identity = abs(swap - copies) / copies
    hmc = _online(SwapRegretMatching(plus=True))
    increments = sum(float(np.sum(((w * x * l)[:, None] - np.outer(w * x, l)) ** 2))
                     for x, l, w in zip(hmc, _LOSSES, _WEIGHTS))
    ratio = swap_regret(hmc, _LOSSES, _WEIGHTS)[0] / (math.sqrt(K) * math.sqrt(increments))
    worst = max(identity * 1e9, ratio)  # both <= 1: the identity to 1e-9, the bound
    return Measurement(worst, 1.0, worst <= 1.0, f"Blum-Mansour: |swap - sum_j R_j| / sum_j R_j = {identity:.2g}; "
                                                 f"Hart & Mas-Colell: swap / sqrt(K sum ||r_t||^2) = {ratio:.3g}")


def correlated_check(context):
    """|CE gap of the joint of swap-RM+ self-play - max swap regret / T| on a 2-player game."""
    from gamedyn.core import SwapRegretMatching
    from gamedyn.core.swap_regret import swap_regret
    from gamedyn.engine.players import PlaysTrace, play_n
    from gamedyn.games.general_sum import BimatrixGame, ProductJoint, ce_gap
    from gamedyn.paper.claims import Measurement

    game = BimatrixGame(*np.random.default_rng(7).uniform(size=(2, 4, 6)))
    T = 400
    trace = PlaysTrace()
    play_n(game, [SwapRegretMatching(plus=True)] * 2, T, observers=[trace])
    plays = [np.array(kept) for kept in trace.plays]
    utilities = [np.array([game.utilities([x, y])[i] for x, y in zip(*plays)]) for i in range(2)]
    largest = max(swap_regret(plays[i], -utilities[i])[0] for i in range(2)) / T
    gap = ce_gap(game, ProductJoint(tuple(plays), np.ones(T)))
    return Measurement(abs(gap - largest), 1e-9, abs(gap - largest) <= 1e-9,
                       f"CE gap {gap:.6g}, largest swap regret / T {largest:.6g}")


def general_sum_claims() -> list:
    """The reproduce rows of the general-sum family (issue 34)."""
    from gamedyn.paper.claims import Claim

    return [
        Claim("Swap regret: the published loops", "SwapRegret (Blum & Mansour 2007: one RM / RM+ copy per action, the "
              "play x = xQ) and SwapRegretMatching (Hart & Mas-Colell 2000) play as their original loops, online and in "
              "3-player self-play", "general-sum games", ("swap regret", "Blum & Mansour 2007", "Hart & Mas-Colell 2000"),
              "max abs diff", "<=", equivalence_check),
        Claim("Swap regret: the bounds", "Blum-Mansour: swap regret = sum of the copies' external regrets (x = xQ); "
              "Hart & Mas-Colell: swap regret <= sqrt(K sum_t ||r_t||_F^2)", "general-sum games",
              ("swap regret", "Blum & Mansour 2007", "Hart & Mas-Colell 2000"), "max ratio", "<=", bound_check),
        Claim("Correlated equilibrium of self-play", "the CE gap of the empirical joint distribution of no-swap-regret "
              "self-play is the largest player's swap regret / T (Foster & Vohra 1997; Hart & Mas-Colell 2000)",
              "general-sum games", ("correlated equilibrium", "Hart & Mas-Colell 2000"), "abs diff", "<=",
              correlated_check),
    ]
