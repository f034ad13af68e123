"""``gamedyn list`` and ``gamedyn run`` for the extensive-form recipes (issue 32): ``--game`` names a built-in game,
the numbers are the API's, the other families' options are refused and so are theirs elsewhere."""

import json

import numpy as np
import pytest

from gamedyn import cli, recipes
from gamedyn.games.efg import leduc_poker
from gamedyn.paper.registry import recipe_entries


def run_cli(capsys, *argv):
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_list_shows_the_extensive_form_recipes(capsys):
    code, out, _ = run_cli(capsys, "list")
    block = out.split("Extensive-form recipes", 1)[1].split("\n\n", 1)[0]
    names = [line.split()[0] for line in block.splitlines()[1:] if line.startswith("  ") and not line.split()[0].endswith(":")]
    assert code == 0 and names == [entry.name for entry in recipe_entries("efg")] == ["cfr", "cfr_plus", "dcfr", "pcfr_plus",
                                                                          "dilated_hedge", "optimistic_dilated_hedge", "mmd",
                                                                          "optimistic_mmd"]
    assert "--game kuhn_poker|leduc_poker" in block


def test_run_cfr_plus_on_leduc_equals_the_api(capsys):
    code, out, err = run_cli(capsys, "run", "cfr_plus", "--game", "leduc_poker", "--T", "60", "--json")
    assert code == 0, err
    document = json.loads(out)
    result = recipes.cfr_plus(leduc_poker(), 60)
    final = document["steps"][-1]
    assert document["family"] == "efg" and final["t"] == 60
    assert (final["exploitability"], final["lower"], final["upper"]) == (result.exploitability, result.lower, result.upper)
    assert np.array_equal(document["output"]["x"], result.x) and np.array_equal(document["output"]["y"], result.y)
    step = next(step for step in document["steps"] if step["t"] == 20)
    assert step["exploitability"] == pytest.approx(recipes.cfr_plus(leduc_poker(), 20).exploitability, rel=1e-12)


def test_run_prints_the_table_and_the_certified_verdict(capsys):
    code, out, _ = run_cli(capsys, "run", "pcfr_plus", "--T", "50", "--every", "25")
    assert code == 0 and "kuhn_poker: 13 and 13 sequences" in out and "exploitability" in out
    assert any("(certified)" in line for line in out.splitlines())


@pytest.mark.parametrize("argv, expected", [
    (["run", "cfr", "--game", "chess"], "unknown game 'chess'"),
    (["run", "cfr", "--synthetic", "3,3"], "--synthetic has no effect on the extensive-form recipes"),
    (["run", "cfr", "--matrix", "M.npy"], "--matrix applies to the matrix recipes"),
    (["run", "hedge", "--game", "kuhn_poker"], "--game applies to the efg recipes"),
    (["run", "smooth_perceptron", "--game", "kuhn_poker"], "--game applies to the efg recipes"),
])
def test_options_of_another_family_are_refused_in_one_line(tmp_path, capsys, monkeypatch, argv, expected):
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(capsys, *argv)
    assert code == 2, (out, err)
    assert expected in err and len(err.strip().splitlines()) == 1


def test_run_on_a_game_file_equals_the_api(capsys, tmp_path):
    """``--game FILE.json`` (issue 33): the saved Kuhn poker runs as the built-in one does."""
    from gamedyn.games.efg import kuhn_poker, save

    path = tmp_path / "kuhn.json"
    save(kuhn_poker(), path)
    code, out, err = run_cli(capsys, "run", "cfr_plus", "--game", str(path), "--T", "40", "--json")
    assert code == 0, err
    document = json.loads(out)
    result = recipes.cfr_plus(kuhn_poker(), 40)
    assert document["steps"][-1]["exploitability"] == result.exploitability
    assert np.array_equal(document["output"]["x"], result.x)


def test_run_on_a_malformed_game_file_names_it(capsys, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"format": "other"}')
    code, _, err = run_cli(capsys, "run", "cfr_plus", "--game", str(path), "--T", "5")
    assert code != 0 and "bad.json" in err and "'format' must be" in err
