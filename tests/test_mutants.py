"""The mutation gate (``benchmarks/mutants.py``): its mutants, its mechanics, and a few mutants end to end.

The whole gate runs every mutant against its tests and ``gamedyn reproduce`` (long; see README
"What `gamedyn reproduce` checks"). Here: the list is what issue 16 asks for, a pattern that does not
match exactly once fails the gate, the copy's imports are checked (an editable install of another
checkout must not be what the copy runs), and three cheap mutants are killed through the script.
"""

import importlib.util
import pathlib
import re
import subprocess
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "mutants.py"


def _load():
    spec = importlib.util.spec_from_file_location("gamedyn_mutation_gate", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


gate = _load()
FAMILIES = {"margin recipes", "fenchel", "matrix games", "certificates", "stops", "one-pass", "batched",
            "checkpoints", "explorer", "estimator", "logistic", "extensive-form games"}


def test_at_least_forty_mutants_over_every_family_each_with_existing_tests():
    assert len(gate.MUTANTS) >= 40 and len([mutant for mutant in gate.MUTANTS if not mutant.pending]) >= 40
    assert FAMILIES <= {mutant.family for mutant in gate.MUTANTS}
    assert len({mutant.name for mutant in gate.MUTANTS}) == len(gate.MUTANTS)
    for mutant in gate.MUTANTS:
        files = [argument for argument in mutant.tests if argument.endswith(".py")]
        assert files and all((ROOT / name).is_file() for name in files), mutant.name
        assert (ROOT / mutant.path).is_file(), mutant.name


def test_every_active_pattern_matches_exactly_once():
    problems = {mutant.name: gate.pattern_problems(mutant, ROOT) for mutant in gate.MUTANTS if not mutant.pending}
    assert not any(problems.values()), {name: found for name, found in problems.items() if found}


def _fake(name, original, path="gamedyn/paper/rates.py"):
    return gate.Mutant(name, "rates", path, "a test's mutant", ((original, original + " "),), ("tests/test_gate_rates.py",))


@pytest.mark.parametrize("original, count", [("this text is nowhere in the file", 0), ("import", None)])
def test_a_pattern_that_does_not_match_once_fails_the_gate_and_the_table_says_which(original, count, capsys):
    text = (ROOT / "gamedyn" / "paper" / "rates.py").read_text()
    count = text.count(original) if count is None else count
    assert count != 1
    mutants = gate.MUTANTS + (_fake("stale-one", original),)
    code = gate.main(["stale-one", "rates-th3-path"], mutants=mutants)
    out = capsys.readouterr().out
    assert code == 1
    row = next(line for line in out.splitlines() if line.startswith("| stale-one |"))
    assert f"pattern found {count} times in gamedyn/paper/rates.py" in row and row.rstrip().endswith("| STALE |")
    assert "no mutant was run" in out and "| rates-th3-path |" not in out


def test_patterns_only_checks_without_running(capsys):
    assert gate.main(["--patterns-only"]) == 0
    assert "match exactly once" in capsys.readouterr().out


# An editable install of another checkout, as setuptools makes it: a finder on sys.meta_path, put
# there at start-up (here by a sitecustomize module on PYTHONPATH), that answers for gamedyn.recipes
# (or, for a shadowing install, for gamedyn itself) with another folder. setuptools appends its finder
# (after Python's own path finder, which finds the checkout's gamedyn/recipes link first); ``first``
# puts it in front, as a finder that shadows the checkout would be.
_EDITABLE_LIKE = textwrap.dedent('''
    import importlib.util, sys
    DECOY = {decoy!r}
    NAME = {name!r}

    class OtherCheckout:
        @classmethod
        def find_spec(cls, name, path=None, target=None):
            if name == NAME:
                return importlib.util.spec_from_file_location(
                    name, DECOY + "/__init__.py", submodule_search_locations=[DECOY])
            return None

    if {first!r}:
        sys.meta_path.insert(0, OtherCheckout)
    else:
        sys.meta_path.append(OtherCheckout)
''')


def _tree_with_another_checkout(tmp_path, name, first=False):
    source = tmp_path / "source"
    gate.copy_tree(ROOT, source)
    decoy = tmp_path / "other-checkout" / ("gamedyn" if name == "gamedyn" else "recipes")
    decoy.mkdir(parents=True)
    (decoy / "__init__.py").write_text("raise ImportError('the other checkout was imported')\n"
                                       if name == "gamedyn.recipes" else "DECOY = True\n")
    (source / "sitecustomize.py").write_text(_EDITABLE_LIKE.format(decoy=str(decoy), name=name,
                                                                  first=first or name == "gamedyn"))
    return source, decoy


def test_the_copy_runs_its_own_recipes_with_another_checkout_installed(tmp_path):
    source, decoy = _tree_with_another_checkout(tmp_path, "gamedyn.recipes")
    assert (source / "gamedyn" / "recipes").is_symlink()  # the copy keeps the link, pointing into the copy
    where = gate.verify_imports(source)
    assert f"gamedyn.recipes {source / 'gamedyn' / 'recipes' / '__init__.py'}" in where and str(decoy) not in where


@pytest.mark.parametrize("name", ["gamedyn.recipes", "gamedyn"])
def test_the_import_check_refuses_a_copy_that_imports_another_checkout(tmp_path, name):
    source, decoy = _tree_with_another_checkout(tmp_path, name, first=True)
    if name == "gamedyn.recipes":  # the decoy must import, for the check (not an ImportError) to see it
        (decoy / "__init__.py").write_text("DECOY = True\n")
    with pytest.raises(gate.ImportMismatch, match=re.escape(f"{name} imported from {decoy}")):
        gate.verify_imports(source)


def test_the_gate_aborts_loudly_when_the_copy_imports_another_checkout(tmp_path):
    source, decoy = _tree_with_another_checkout(tmp_path, "gamedyn.recipes", first=True)
    (decoy / "__init__.py").write_text("DECOY = True\n")
    done = subprocess.run([sys.executable, str(SCRIPT), "--source", str(source), "--no-baseline", "rates-th3-path"],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 1
    assert "ABORT: GATE IMPORT ERROR: gamedyn.recipes imported from " + str(decoy) in done.stdout
    assert "killed" not in done.stdout


def test_three_cheap_mutants_are_killed_end_to_end():
    """Two wrong checks (tests only) and one wrong algorithm (tests and reproduce, its row alone)."""
    done = subprocess.run([sys.executable, str(SCRIPT), "rates-th5-regret", "batch-product-labels", "og-fp-argmax",
                           "--claims", "Fictitious play (Brown 1951)"], capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = {line.split(" | ")[0].removeprefix("| "): line for line in done.stdout.splitlines() if line.startswith("| ")}
    for name in ("rates-th5-regret", "batch-product-labels", "og-fp-argmax"):
        assert rows[name].rstrip().endswith("| killed |"), rows[name]
    assert "FAIL: Fictitious play (Brown 1951)" in rows["og-fp-argmax"]
    assert "not required" in rows["rates-th5-regret"]
    assert "3 of 3 mutants killed" in done.stdout
    assert "baseline copy imports gamedyn" in done.stdout
