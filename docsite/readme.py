"""The figures README.md states, from the code (issue 31): one source for each.

* the recipes: how many, in how many families (``gamedyn.recipes.RECIPES``);
* the claims: the table ``gamedyn reproduce --no-figures`` prints, row for row (``gamedyn.paper.reproduce.CLAIMS``);
* the mutation gate: how many mutants are active, how many change a published algorithm, how many are
  pending (``benchmarks/mutants.py``). (A full run's kill count is a measurement, stated with its commit: no
  rewrite may claim one that was not run.)

Each figure stands between HTML comment markers (``<!-- name -->...<!-- /name -->``, invisible once
rendered). ``python -m docsite.readme`` rewrites the counts (and, with ``--reproduce``, reruns
``gamedyn reproduce --no-figures`` for the table, which takes a minute); ``tests/test_front_page.py`` fails
when README.md differs from what the code says, so a new recipe, claim or mutant cannot leave it stale.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import pathlib
import re
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
          "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty")


def number(count: int) -> str:
    """A count as the README writes it: a word up to twenty, digits beyond."""
    return _WORDS[count] if 0 <= count < len(_WORDS) else str(count)


def recipe_counts() -> tuple[int, int]:
    """``(recipes, families)`` of ``gamedyn.recipes.RECIPES``."""
    from gamedyn.recipes import RECIPES

    return len(RECIPES), len({recipe.family.name for recipe in RECIPES.values()})


def claim_names() -> list[str]:
    """The names of ``gamedyn reproduce``'s claims, in the table's order."""
    from gamedyn.paper.reproduce import CLAIMS

    return [claim.name for claim in CLAIMS]


def mutants():
    """``benchmarks/mutants.py``'s ``MUTANTS`` (the gate lives outside the package: loaded from its file)."""
    spec = importlib.util.spec_from_file_location("gamedyn_gate_mutants", ROOT / "benchmarks" / "mutants.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module.MUTANTS


def gate_counts() -> dict:
    """``active``, ``algorithms`` (active and changing a published algorithm: reproduce must fail too),
    ``pending`` and ``families`` of the mutation gate."""
    every = mutants()
    active = [mutant for mutant in every if not mutant.pending]
    return {"active": len(active), "algorithms": sum(mutant.reproduce for mutant in active),
            "pending": len(every) - len(active), "families": len({mutant.family for mutant in active})}


def expected_blocks() -> dict:
    """``{marker: text}`` of the generated counts (the reproduce table is checked row by row instead)."""
    recipes, families = recipe_counts()
    gate = gate_counts()
    pending = (f"{number(gate['pending']).capitalize()} more are marked pending while their files change: `--pending` runs "
               "them" if gate["pending"] else "None is pending now (`--pending` would run those marked so)")
    return {
        "recipes": f"{number(recipes)} of them in {number(families)} families",
        "gate": (f"re-injects {gate['active']} plausible wrong algorithms and wrong checks, over {gate['families']} "
                 f"families,"),
        "gate-algorithms": f"each of the {gate['algorithms']} that change a published algorithm",
        "gate-pending": pending,
    }


def blocks(text: str) -> dict:
    """``{marker: text}`` of README's generated blocks."""
    return {name: body for name, body in re.findall(r"<!-- ([\w-]+) -->(.*?)<!-- /\1 -->", text, flags=re.S)}


def reproduce_block(text: str) -> str:
    """The text between ``<!-- reproduce -->`` and ``<!-- /reproduce -->`` (a fenced block of the table)."""
    return blocks(text).get("reproduce", "")


def table_claims(output: str) -> tuple[int | None, list[str], tuple[int, int] | None]:
    """From ``gamedyn reproduce``'s printed output: the header's claim count, the table's claim names (the first
    column of each row, its wrapped lines joined) and the summary's ``(passed, total)``."""
    header = re.search(r"gamedyn reproduce: (\d+) claims", output)
    summary = re.search(r"^(\d+) of (\d+) claims PASS", output, flags=re.M)
    lines = output.splitlines()
    names: list[str] = []
    for index, line in enumerate(lines):
        if line.startswith("claim ") and index + 1 < len(lines) and lines[index + 1].startswith("---"):
            rule = lines[index + 1]
            width, result = len(rule.split("  ")[0]), rule.rindex("  ") + 2  # the name column; the result column
            for row in lines[index + 2:]:
                if not row.strip():
                    break
                part = row[:width].strip()
                if row[result:].strip():  # a row of its own (its result), else the cells' wrapped lines
                    names.append(part)
                elif part and names:  # a wrapped name: "Hart & Mas-" + "Colell 2000)"
                    names[-1] += part if names[-1].endswith("-") else " " + part
            break
    return (int(header.group(1)) if header else None, names,
            (int(summary.group(1)), int(summary.group(2))) if summary else None)


def problems(text: str | None = None) -> list[str]:
    """What README.md states that the code does not (empty when every figure holds)."""
    text = README.read_text(encoding="utf-8") if text is None else text
    found, wrong = blocks(text), []
    for name, expected in expected_blocks().items():
        if name not in found:
            wrong.append(f"README.md has no <!-- {name} --> block")
        elif " ".join(found[name].split()) != " ".join(expected.split()):
            wrong.append(f"README.md's {name} says {' '.join(found[name].split())!r}; the code says {expected!r}")
    names = claim_names()
    header, rows, summary = table_claims(reproduce_block(text))
    if header != len(names) or rows != names or summary is None or summary[1] != len(names):
        wrong.append(f"README.md's reproduce table shows {header} claims ({len(rows)} rows, summary {summary}); "
                     f"gamedyn reproduce has {len(names)}: rerun `python -m docsite.readme --reproduce`")
    return wrong


def reproduce_output() -> str:
    """``gamedyn reproduce --no-figures`` as it prints (the default profile), run in a scratch folder; the
    per-claim progress lines left out (the table shows every claim)."""
    from gamedyn.cli import main

    buffer = io.StringIO()
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as scratch:
        os.chdir(scratch)
        try:
            with contextlib.redirect_stdout(buffer):
                main(["reproduce", "--no-figures"])
        finally:
            os.chdir(here)
    return "\n".join(line for line in buffer.getvalue().splitlines() if not line.startswith("["))


def write(rerun_reproduce: bool = False) -> None:
    """Rewrite README.md's generated blocks (the table too when ``rerun_reproduce``)."""
    text = README.read_text(encoding="utf-8")
    replacements = dict(expected_blocks())
    if rerun_reproduce:
        replacements["reproduce"] = "\n```text\n" + reproduce_output().strip("\n") + "\n```\n"
    for name, body in replacements.items():
        text, count = re.subn(rf"<!-- {name} -->.*?<!-- /{name} -->", lambda _: f"<!-- {name} -->{body}<!-- /{name} -->",
                              text, flags=re.S)
        if count != 1:
            raise SystemExit(f"README.md needs exactly one <!-- {name} -->...<!-- /{name} --> block, found {count}")
    README.write_text(text, encoding="utf-8")


if __name__ == "__main__":  # pragma: no cover - a maintenance command
    write(rerun_reproduce="--reproduce" in sys.argv[1:])
    left = problems()
    print("\n".join(left) if left else "README.md: every figure is the code's")
    raise SystemExit(1 if left else 0)
