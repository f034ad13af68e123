"""The result the extensive-form recipes return: the average strategies, their certificate and the policies."""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np

from gamedyn.certify.sequence_form import SequenceFormBracket
from gamedyn.engine.recipe import Parameter, RecipeResult
from gamedyn.engine.results import GameResult

__all__ = ["EFGResult", "efg_result"]


@attrs.frozen(kw_only=True)
class EFGResult(RecipeResult):
    r"""An extensive-form recipe's output: the average sequence-form strategies and their certified bracket.

    ``x`` = :math:`\bar x_T=\sum_t\omega_tx_t/\sum_t\omega_t` (the first player's average, sequence
    form) and ``y`` = :math:`\bar y_T` (the second player's), :math:`\omega_t` the recipe's averaging
    weights; ``certificate`` the certified :class:`gamedyn.certify.sequence_form.SequenceFormBracket`
    of their policies: ``lower`` :math:`\le v^\star\le` ``upper`` (the first player's value),
    ``nash_gap`` = upper - lower (NashConv) and ``exploitability`` = ``nash_gap / 2`` (OpenSpiel's).
    ``policy(player)`` is ``{information state: {action id: probability}}``; ``efg`` the
    :class:`gamedyn.games.efg.ExtensiveFormGame`; ``game`` the runner's :class:`gamedyn.GameResult`
    (the first player is w, the second p).
    """

    x: np.ndarray
    y: np.ndarray
    certificate: SequenceFormBracket
    efg: Any = attrs.field(repr=False, eq=False)

    @property
    def lower(self) -> float:
        """The certified lower end of the first player's value."""
        return self.certificate.lower

    @property
    def upper(self) -> float:
        """The certified upper end of the first player's value."""
        return self.certificate.upper

    @property
    def nash_gap(self) -> float:
        """NashConv of the average policies: upper - lower (certified)."""
        return self.certificate.nash_gap

    @property
    def exploitability(self) -> float:
        """NashConv / 2 of the average policies (OpenSpiel's convention; certified)."""
        return self.certificate.exploitability

    @property
    def value(self) -> float:
        """The first player's expected payoff at the averages, :math:`\\bar x^\\top A\\bar y`."""
        return self.certificate.value

    @property
    def x_last(self) -> np.ndarray:
        """The first player's last strategy x_T (sequence form)."""
        return self.game.w_last

    @property
    def y_last(self) -> np.ndarray:
        """The second player's last strategy y_T (sequence form)."""
        return self.game.p_last

    def policy(self, player: int) -> dict:
        """The average policy of ``player`` (0 or 1) as ``{information state: {action id: probability}}``."""
        return self.efg.policy(player, self.x if player == 0 else self.y)


def efg_result(efg, game: GameResult, steps: dict | None = None) -> EFGResult:
    """Package the runner's result of ``efg.payoff()`` (first player = w, second = p) with its certificate."""
    x, y = game.w_average, game.p_average
    bracket = game.certificate if isinstance(game.certificate, SequenceFormBracket) else efg.bracket(x, y)
    return EFGResult(x=x, y=y, certificate=bracket, efg=efg, game=game, steps=dict(steps or {}))


def averaging_parameter(default: str) -> Parameter:
    """The ``averaging`` parameter of the CFR recipes (its default per recipe)."""
    return Parameter("averaging", "the weights of the averages: 'uniform' (1), 'linear' (t), 'quadratic' (t^2)",
                     default, kind=str, choices=("uniform", "linear", "quadratic"), cli=False)


def alternating_parameter(default: bool) -> Parameter:
    """The ``alternating`` parameter: the CFR+ order or simultaneous updates."""
    return Parameter("alternating", "alternating updates (the second player's update of round t sees the first's "
                     "round-t play) or simultaneous", default, kind=bool, cli=False)
