r"""The soft-margin game: the margin recipes' ``nu=`` option (issue 19).

With ``nu`` in ``[1/n, 1]`` the p-player plays on the capped simplex
:math:`\Delta_c=\{p\in\Delta_n: p_i\le c\}`, ``c = 1/(nu n)``
(:meth:`gamedyn.CappedSimplex.from_nu`), and the game

.. math::

    \max_w\ \min_{p\in\Delta_c}\ p^\top Aw-\tfrac12\|w\|^2

is the reduced-convex-hull form of the nu-SVM (Crisp & Burges 2000; Bennett & Bredensteiner
2000). Each recipe keeps its box and its proof; only the p-player's range changes, ``log n`` becoming
:math:`D_c=\log(nc)+r\log(r/c)\le-\log\nu` (docs/explanation/soft-margin.md), which sets the
default steps of the recipes tuned by ``log n`` (mirror prox, p-norm). ``nu=None`` is the hard
margin: the recipes then build exactly the objects they built before the option existed.
"""

from __future__ import annotations

import math
from typing import Any

from gamedyn.core import Entropy
from gamedyn.core.capped_simplex import cap_from_nu, kl_range
from gamedyn.core.domains import CappedSimplex
from gamedyn.engine.recipe import Parameter

__all__ = ["NU", "SoftMarginGame", "p_range", "soft_margin_game"]


NU = Parameter(
    "nu", "the soft margin: the p-player on the capped simplex CappedSimplex.from_nu(nu, n), c = 1/(nu n), nu in "
    "[1/n, 1] (the nu-SVM's reduced convex hull; docs/explanation/soft-margin.md); None: the hard margin",
    default=None, kind=float)
"""The parameter every margin recipe declares (issue 19): ``nu=None`` builds exactly the hard-margin game."""


class SoftMarginGame:
    """What a margin recipe needs for ``nu``: the payoff's keyword arguments and the p-player's entropy.

    ``payoff_options`` is ``{}`` for the hard margin and ``{"p_domain": CappedSimplex(c)}`` otherwise;
    ``entropy`` is ``Entropy()`` or ``Entropy(domain=CappedSimplex(c))``; ``log_range`` is ``log n``
    or ``D_c``; ``cap`` is None or c.
    """

    __slots__ = ("cap", "domain", "entropy", "log_range", "payoff_options")

    def __init__(self, n: int, nu):
        self.payoff_options: dict[str, Any]
        if nu is None:
            self.cap, self.domain, self.entropy, self.payoff_options = None, None, Entropy(), {}
            self.log_range = math.log(n) if n >= 1 else 0.0
        else:
            self.cap = cap_from_nu(nu, n)
            self.domain = CappedSimplex(self.cap)
            self.entropy = Entropy(domain=self.domain)
            self.payoff_options = {"p_domain": self.domain}
            self.log_range = kl_range(n, self.cap)

    @property
    def tuning_range(self) -> float:
        """The range the default steps are tuned by: ``log_range``, or log 2 where it is 0 (``nu = 1``:
        the capped simplex is the single point u_n, and any step is optimal)."""
        return self.log_range if self.log_range > 0 else math.log(2.0)


def soft_margin_game(n: int, nu) -> SoftMarginGame:
    """The :class:`SoftMarginGame` for ``n`` rows and ``nu`` (None: the hard margin).

    Raises
    ------
    TypeError, ValueError
        If ``nu`` is not None and not a real number in [1/n, 1] (:func:`gamedyn.core.capped_simplex.cap_from_nu`).

    Examples
    --------
    >>> game = soft_margin_game(100, 0.1)
    >>> game.cap, round(game.log_range, 12) == round(math.log(10), 12)
    (0.1, True)
    >>> soft_margin_game(100, None).payoff_options
    {}
    """
    return SoftMarginGame(n, nu)


def p_range(n: int, options: dict) -> float:
    """``log n``, or ``D_c`` when the options carry ``nu``: the p-player's range in a recipe's rate."""
    return soft_margin_game(n, options.get("nu")).log_range
