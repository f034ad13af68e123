"""Iterations to a positive margin versus 1/gamma: the acceleration, measured.

For each margin on a grid, every algorithm runs until its output first separates the data
(min_i (A w)_i > 0), and the table records the count: perceptron updates, or game rounds for the
recipes (stopped by :func:`gamedyn.positive_margin`, which costs no extra product). A least-squares
line through (log 1/gamma, log iterations) gives each algorithm's slope: about 2 for the
perceptron on hard data (Novikoff's 1/gamma^2 is tight there), about 1 for the accelerated
recipes (their O(sqrt(log n)/gamma)).

Two data families, each with a decoy (:func:`gamedyn.io.datasets.add_decoy`): m copies of a unit
row that the rows' centroid misclassifies. Every recipe's first play is that centroid, so without
the decoy the symmetric hard instance is separated in round 1 and the count says nothing.

* ``"hard"``: :func:`gamedyn.io.datasets.perceptron_hard_instance` (m < 1/g^2 unit rows over a
  regular simplex, on which the perceptron needs about 1/g^2 updates) plus the decoy; the x-axis
  is the certified max margin of the result (about 0.4 g).
* ``"hard (p=2)"``: the same hard data for the p-norm perceptron and the accelerated p-norm recipe
  (Theorem 7) at p = 2, where the baseline p-norm perceptron *is* the perceptron and needs about
  1/g^2 updates; the acceleration of Theorem 7 is visible only on data hard for the baseline.
* ``"lp"``: :func:`gamedyn.io.datasets.make_separable_lp` rows (||x||_p <= 1, sparse target) plus
  the decoy, for the p-norm perceptron and the accelerated p-norm recipe (x-axis: certified gamma_q).

The x-axis values are measured by the oracles, never assumed from the generators.

What runs is read from the declarations, never from a list of names here: every recipe of
:data:`gamedyn.recipes.RECIPES` (with its ``variants``) and every original of
:func:`gamedyn.paper.registry.original_entries` that counts perceptron updates; those with a ``p`` option
run on the two p-norm families, the others on ``"hard"``. Each row carries its declaration's
``sufficient_rounds`` (the theorem's guaranteed count: Novikoff, Gentile, Theorems 4-7).
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np

from gamedyn.certify.margins import max_margin, max_margin_q
from gamedyn.certify.stops import positive_margin
from gamedyn.io.datasets import add_decoy, make_separable_lp, perceptron_hard_instance, signed_rows

HARD_PNORM = "hard (p=2)"  # the family of the hard data run by the p-norm algorithms
QUICK_MARGINS = (0.2, 0.1, 0.07)
DEFAULT_MARGINS = (0.2, 0.1, 0.07, 0.05)
FULL_MARGINS = (0.2, 0.1, 0.07, 0.05, 0.035, 0.025)


@attrs.frozen
class IterationRow:
    """One row of the iterations table: an algorithm on data of margin gamma, and the iterations it took to separate."""
    family: str
    algorithm: str
    gamma: float
    n: int
    iterations: int | None  # None: no positive margin within the cap
    sufficient_rounds: float | None = None  # the declared theorem's guaranteed count (None: no theorem)
    kind: str = "recipe"  # "recipe" (game rounds) or "original" (perceptron updates)


@attrs.frozen
class IterationTable:
    """The iterations table: its rows and the fitted slope of log(iterations) on log(1/gamma) per algorithm."""
    rows: tuple
    slopes: dict  # (family, algorithm) -> fitted slope of log(iterations) on log(1/gamma)

    def format(self) -> str:
        """A readable table: one line per algorithm, iterations per margin, then the slope."""
        lines = []
        for family in dict.fromkeys(row.family for row in self.rows):
            rows = [row for row in self.rows if row.family == family]
            gammas = sorted({row.gamma for row in rows}, reverse=True)
            header = f"{family + ' data':<24}" + "".join(f"{'g=' + format(g, '.3g'):>10}" for g in gammas) + f"{'slope':>8}"
            lines += [header, "-" * len(header)]
            for algorithm in dict.fromkeys(row.algorithm for row in rows):
                counts = {row.gamma: row.iterations for row in rows if row.algorithm == algorithm}
                cells = "".join(f"{('-' if counts.get(g) is None else counts[g]):>10}" for g in gammas)
                lines.append(f"{algorithm:<24}{cells}{self.slopes[(family, algorithm)]:>8.2f}")
            lines.append("")
        return "\n".join(lines).rstrip()


def _fit_slope(gammas, counts) -> float:
    pairs = [(np.log(1 / g), np.log(c)) for g, c in zip(gammas, counts) if c]
    if len(pairs) < 2:
        return float("nan")
    x, y = np.array(pairs).T
    return float(np.polyfit(x, y, 1)[0])


@attrs.frozen
class _Play:
    """One declared algorithm with fixed options: a table line."""

    label: str
    kind: str  # "recipe" or "original"
    declaration: Any  # a gamedyn.recipes.Recipe or a gamedyn.paper.registry.OriginalForm
    options: dict

    def count(self, A, cap) -> int | None:
        if self.kind == "original":
            w, updates = self.declaration.call(A, cap, self.options, False)
            return updates if np.min(A @ w) > 0 else None
        result = self.declaration.run(A, cap, stop=positive_margin, **self.options)
        return result.game.rounds if result.game.stopped_early or np.min(A @ result.w) > 0 else None

    def row(self, family, A, gamma, cap) -> IterationRow:
        n = A.shape[0]
        return IterationRow(family, self.label, gamma, n, self.count(A, cap),
                            self.declaration.sufficient_rounds(n, gamma, **self.options), self.kind)


def _plays(p_norm: bool, p: float | None = None) -> list:
    """The declared algorithms of a family: the update-counting originals (baselines) first, then the
    recipes and their variants; with ``p_norm`` those that take a ``p`` option, run at ``p``."""
    from gamedyn.paper.registry import original_entries
    from gamedyn.recipes import of_family

    def chosen(options):
        return ({**options, "p": p}, f" p={p:g}") if p_norm else (options, "")

    plays = []
    for entry in original_entries():
        form = entry.form
        if form is not None and form.updates and form.rounds_to_separate is not None and ("p" in form.options) == p_norm:
            options, suffix = chosen({})
            plays.append(_Play(form.label + suffix, "original", form, options))
    for recipe in of_family("margin").values():
        if ("p" in recipe.options) == p_norm:
            for label, options in ((recipe.name, {}), *recipe.variants):
                options, suffix = chosen(options)
                plays.append(_Play(label + suffix, "recipe", recipe, options))
    return plays


def iterations_to_separation(margins=DEFAULT_MARGINS, *, p=4.0, lp_n=2000, lp_d=10, seed=0, cap=200_000) -> IterationTable:
    """Run every declared algorithm on both data families over ``margins``; return the table and slopes."""
    rows = []
    for gamma in margins:
        A = add_decoy(perceptron_hard_instance(gamma))
        actual = max_margin(A).gamma
        rows += [play.row("hard", A, actual, cap) for play in _plays(p_norm=False)]
        rows += [play.row(HARD_PNORM, A, actual, cap) for play in _plays(p_norm=True, p=2.0)]
    for gamma in margins:
        A = add_decoy(signed_rows(*make_separable_lp(lp_n, lp_d, p, gamma, seed)))
        gamma_q = max_margin_q(A, p / (p - 1)).lower
        rows += [play.row("lp", A, gamma_q, cap) for play in _plays(p_norm=True, p=p)]
    slopes = {}
    for key in dict.fromkeys((row.family, row.algorithm) for row in rows):
        chosen = [row for row in rows if (row.family, row.algorithm) == key]
        slopes[key] = _fit_slope([row.gamma for row in chosen], [row.iterations for row in chosen])
    return IterationTable(tuple(rows), slopes)


if __name__ == "__main__":  # pragma: no cover - exercised through the CLI
    print(iterations_to_separation().format())
