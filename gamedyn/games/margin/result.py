"""The result every recipe returns."""

from __future__ import annotations

import attrs
import numpy as np

from gamedyn.engine.results import GameResult


@attrs.frozen
class RecipeResult:
    """A recipe's output in the original algorithm's terms, plus the game that produced it.

    ``w`` and ``p`` mean what the recipe's docstring says (a public contract); ``game`` is the
    runner's :class:`gamedyn.GameResult` with the regrets and Theorem 2's bound. ``steps`` holds the
    step sizes the recipe used (e.g. ``{"eta_w": ..., "eta_p": ...}``; empty when its box fixes
    them), so a rate check measures the recipe's own defaults instead of recomputing them.
    ``row_scale`` is the factor max_i ||x_i|| the rows were divided by (``normalize=True``; 1.0
    otherwise): the game, ``w`` and the certificate are on the rescaled rows A / row_scale.
    """

    w: np.ndarray
    p: np.ndarray
    game: GameResult
    steps: dict = attrs.field(factory=dict)
    row_scale: float = 1.0

    @property
    def certificate(self):
        """The certified bracket lower <= gamma* <= upper of :mod:`gamedyn.certify.certificates` (on A / row_scale).

        Every recipe's output is proportional to the game's output sum, so ``lower`` is the normalised
        margin of ``w``.
        """
        return self.game.certificate
