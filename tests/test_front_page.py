"""One source for every figure the front page states (issue 31): README.md's recipe and family counts, its
reproduce table and the mutation gate's counts are the code's (docsite/readme.py reads them from
gamedyn.recipes.RECIPES, gamedyn.paper.reproduce.CLAIMS and benchmarks/mutants.py). A new recipe, claim or
mutant makes this test fail until ``python -m docsite.readme`` (``--reproduce`` for the table) rewrites them.
"""

from __future__ import annotations

import re

from docsite import readme


def test_readme_states_the_codes_figures():
    assert readme.problems() == []


def test_a_stale_figure_is_seen():
    """The check is no formality: a count one off, a claim missing from the table, a gate count of an older
    gate each make a problem."""
    text = readme.README.read_text(encoding="utf-8")
    recipes, families = readme.recipe_counts()
    stale_count = text.replace(f"<!-- recipes -->{readme.number(recipes)} of them",
                               f"<!-- recipes -->{readme.number(recipes - 1)} of them")
    assert any("recipes" in problem for problem in readme.problems(stale_count))
    first = readme.claim_names()[0]
    table = readme.reproduce_block(text)
    row = next(line for line in table.splitlines() if line.startswith(first))
    assert any("reproduce table" in problem for problem in readme.problems(text.replace(row + "\n", "")))
    gate = readme.gate_counts()
    older = re.sub(r"<!-- gate -->re-injects \d+ ", f"<!-- gate -->re-injects {gate['active'] - 6} ", text)
    assert any("gate says" in problem for problem in readme.problems(older))
