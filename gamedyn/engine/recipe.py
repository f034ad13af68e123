"""The declaration every recipe makes once, in its own file: :class:`Recipe`.

The registry (:func:`gamedyn.paper.registry.recipe_entries`) and through it the command line
(``gamedyn list`` / ``gamedyn run``: options, output rule, comparator), the iterations experiment
(:mod:`gamedyn.paper.experiments.iterations`: which games it plays, each theorem's round count) and through
it ``gamedyn reproduce`` read these declarations, collected in :data:`gamedyn.recipes.RECIPES`, so a new recipe is one new module in ``recipes/``
that defines its function and a module-level ``RECIPE`` (its paper claims, if any, are added to
:data:`gamedyn.paper.registry.EQUIVALENCES` or :mod:`gamedyn.paper.rates`).
"""

from __future__ import annotations

import math
from typing import Callable

import attrs


@attrs.frozen
class Recipe:
    """A recipe as its paper's box states it.

    ``game`` names the payoff, the two learners, the weights and the first mover (one line each,
    as in the box); ``output`` is how the recipe's ``.w`` reads off the running sums:
    ``output(w_sum, total, options) -> w`` with ``w_sum`` the output-weighted sum of the plays and
    ``total`` the total of those weights, so the same rule serves a final
    :class:`gamedyn.GameResult` and a per-round :class:`gamedyn.RoundState` (:meth:`read_output`).
    ``options`` names the keyword options of ``function`` beyond ``(A, T)`` (e.g. ``("p",)``).
    ``comparator(A, options)``, when given, is the fixed ``u`` that ``R_w(u)`` is measured against
    (the w-domain is unbounded, so the regret against its best point is infinite); ``comparator_note``
    says so in words.
    ``rounds_to_separate(n, gamma, options) -> float | None`` is the number of rounds after which the
    recipe's theorem guarantees a positive margin ``min_i (A w)_i > 0`` on ``n`` rows of margin
    ``gamma`` (the q-norm margin ``gamma_q`` for a recipe with a ``p`` option), None where no theorem
    gives one; ``variants`` lists further ``(label, options)`` plays the experiments make besides the
    default one (e.g. another step rule). ``regret_bound(n, options) -> (label, bound) | None`` is the
    theorem's bound on ``R_w + R_p`` (the figures draw it), None where no theorem gives one.
    """

    name: str
    reference: str
    summary: str
    game: tuple
    function: Callable
    output: Callable
    options: tuple = ()
    comparator: Callable | None = None
    comparator_note: str = ""
    rounds_to_separate: Callable | None = None
    variants: tuple = ()
    regret_bound: Callable | None = None

    def chosen(self, options: dict) -> dict:
        """The entries of ``options`` this recipe takes."""
        return {key: value for key, value in options.items() if key in self.options and value is not None}

    def run(self, A, T, *, stop=None, record=False, checkpoints=None, **options):
        """``function(A, T, stop=..., record=..., **options)`` with only the options it declares;
        ``checkpoints`` (``checkpoint``, ``checkpoint_every``, ``resume_from``) go to every recipe."""
        return self.function(A, T, stop=stop, record=record, **self.chosen(options), **(checkpoints or {}))

    def read_output(self, sums, **options):
        """The recipe's ``.w`` from a :class:`gamedyn.GameResult` or a :class:`gamedyn.RoundState`."""
        total = sums.output_weight_total if hasattr(sums, "output_weight_total") else sums.w_weight_total
        return self.output(sums.w_sum, total, self.chosen(options))

    def w_comparator(self, A, **options):
        """The fixed comparator of ``R_w(u)``, or None when the regret is against the best point."""
        return None if self.comparator is None else self.comparator(A, self.chosen(options))

    def regret_sum_bound(self, n, **options):
        """``(label, bound)`` of the theorem's bound on ``R_w + R_p`` after any T rounds, or None."""
        return None if self.regret_bound is None else self.regret_bound(n, self.chosen(options))

    def sufficient_rounds(self, n, gamma, **options):
        """Rounds after which the recipe's theorem guarantees a positive margin (None: no theorem)."""
        return None if self.rounds_to_separate is None else self.rounds_to_separate(n, gamma, self.chosen(options))


def average(w_sum, total, options):
    """``w_bar_t = sum_s alpha_s w_s / S_t``: the output of most recipes."""
    return w_sum / total


def rounds_with_quadratic_rate(constant, gamma):
    """The smallest T with ``T(T+1) > constant / gamma^2``: when a margin gap ``constant / (gamma T(T+1))``
    drops below ``gamma`` (Theorems 4 and 6)."""
    return math.floor((-1 + math.sqrt(1 + 4 * constant / gamma**2)) / 2) + 1


def rounds_with_linear_rate(constant, gamma):
    """The smallest integer T > ``constant / gamma``: when a margin gap ``constant / T`` drops below
    ``gamma`` (Theorems 5 and 7)."""
    return math.floor(constant / gamma) + 1
