"""The declaration every recipe makes once, in its own file: :class:`Recipe`.

The registry (:func:`gamedyn.registry.recipe_entries`) and through it the command line
(``gamedyn list`` / ``gamedyn run``: options, output rule, comparator) read these declarations,
collected in :data:`gamedyn.recipes.RECIPES`, so a new recipe is one new module in ``recipes/``
that defines its function and a module-level ``RECIPE`` (its paper claims, if any, are added to
:data:`gamedyn.registry.EQUIVALENCES` or :mod:`gamedyn.rates`).
"""

from __future__ import annotations

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


def average(w_sum, total, options):
    """``w_bar_t = sum_s alpha_s w_s / S_t``: the output of most recipes."""
    return w_sum / total
