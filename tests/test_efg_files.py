"""Any game in (issue 33): load / save of the JSON format, from_openspiel, policies to OpenSpiel's TabularPolicy."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from gamedyn.games.efg import GameBuilder, goofspiel, kuhn_poker, leduc_poker, liars_dice, load, save, sequence_form_lp
from gamedyn.games.efg.files import _same, from_json, to_json

BUILT_IN = [kuhn_poker, leduc_poker, lambda: goofspiel(4), lambda: goofspiel(5), lambda: liars_dice(4),
            lambda: liars_dice(6)]


@pytest.mark.parametrize("make", BUILT_IN, ids=["kuhn", "leduc", "goofspiel4", "goofspiel5", "liars4", "liars6"])
def test_round_trip_every_built_in_game(make, tmp_path):
    game = make()
    path = tmp_path / "game.json"
    save(game, path)
    again = load(path)
    assert _same(game, again) and again.name == game.name
    assert np.array_equal(game.A.data, again.A.data)  # bit for bit


def test_same_detects_a_changed_entry():
    game = kuhn_poker()
    document = to_json(game)
    document["utilities"][0][2] += 1e-12
    assert not _same(game, from_json(document))


def test_a_hand_written_file(tmp_path):
    """Matching pennies written by hand, infosets in any order: value 0, the LP's equilibrium 1/2, 1/2."""
    document = {"format": "gamedyn-efg", "version": 1, "name": "pennies",
                "players": [{"infosets": [{"name": "x", "parent": None, "actions": [0, 1]}]},
                            {"infosets": [{"name": "y", "parent": None, "actions": [0, 1]}]}],
                "utilities": [[1, 1, 1.0], [1, 2, -1.0], [2, 1, -1.0], [2, 2, 1.0]]}
    path = tmp_path / "pennies.json"
    path.write_text(json.dumps(document))
    value, x, y, _ = sequence_form_lp(load(path))
    assert abs(value) < 1e-9 and np.allclose(x, [1, 0.5, 0.5]) and np.allclose(y, [1, 0.5, 0.5])


def _kuhn_document():
    return json.loads(json.dumps(to_json(kuhn_poker())))


@pytest.mark.parametrize("edit, match", [
    (lambda d: d.update(format="other"), "'format' must be"),
    (lambda d: d.update(version=2), "'version' 2 is not supported"),
    (lambda d: d.update(players=[d["players"][0]]), "list of two objects"),
    (lambda d: d["players"][0]["infosets"][0].pop("actions"), r"players\[0\].infosets\[0\].actions"),
    (lambda d: d["players"][1]["infosets"].append(d["players"][1]["infosets"][0]), "two infosets named"),
    (lambda d: d["players"][0]["infosets"][3].update(parent=["nowhere", 0]), "is not a sequence of player 0"),
    (lambda d: d["utilities"].append([99, 0, 1.0]), r"utilities\[30\].*below 13"),
    (lambda d: d["utilities"].append([13, 0, 1.0]), r"utilities\[30\].*below 13"),  # one past the last
    (lambda d: d["utilities"].append([0, -1, 1.0]), r"utilities\[30\].*below 13"),
    (lambda d: d["utilities"].append([1, 1]), r"utilities\[30\] must be \[i, j, value\]"),
    (lambda d: d["players"][0]["infosets"][0].update(actions=[0, 0]), "distinct actions"),
])
def test_malformed_files_are_refused_with_the_place(edit, match, tmp_path):
    document = _kuhn_document()
    edit(document)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(document))
    with pytest.raises(ValueError, match=match):
        load(path)


def test_not_json_and_not_finite(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("{")
    with pytest.raises(ValueError, match="not valid JSON"):
        load(path)
    document = _kuhn_document()
    path.write_text(json.dumps(document).replace(document["utilities"][0][2].__repr__(), "NaN", 1))
    with pytest.raises(ValueError, match="NaN is not a number"):
        load(path)


def test_builder_game_saves_and_loads(tmp_path):
    builder = GameBuilder()
    builder.infoset(0, "x", None, [0, 1])
    builder.infoset(1, "y", None, [0, 1])
    for a in (0, 1):
        for b in (0, 1):
            builder.terminal(("x", a), ("y", b), 1.0 if a == b else -1.0)
    game = builder.build("pennies")
    save(game, tmp_path / "p.json")
    assert _same(game, load(tmp_path / "p.json"))


# ------------------------------------------------------------------------------------------ OpenSpiel

pyspiel = pytest.importorskip("pyspiel", reason="from_openspiel compares with OpenSpiel (pip install gamedyn[openspiel])")


@pytest.mark.parametrize("ours, theirs", [
    (kuhn_poker, "kuhn_poker"), (leduc_poker, "leduc_poker"),
    (lambda: goofspiel(4), "turn_based:goofspiel(imp_info=True,num_cards=4,points_order=descending)"),
    (lambda: liars_dice(6), "liars_dice(numdice=1,dice_sides=6)")])
def test_from_openspiel_reproduces_the_built_in_games_exactly(ours, theirs):
    from gamedyn.games.efg import from_openspiel

    if theirs.startswith("turn_based:"):
        spiel = pyspiel.convert_to_turn_based(pyspiel.load_game(theirs.removeprefix("turn_based:")))
    else:
        spiel = pyspiel.load_game(theirs)
    game = from_openspiel(spiel)
    assert _same(ours(), game)


def test_from_openspiel_refuses_what_it_cannot_hold():
    from gamedyn.games.efg import from_openspiel

    with pytest.raises(ValueError, match="two-player"):
        from_openspiel(pyspiel.load_game("kuhn_poker(players=3)"))
    with pytest.raises(ValueError, match="simultaneous"):
        from_openspiel(pyspiel.load_game("goofspiel(num_cards=3)"))


def test_tabular_policy_has_the_same_exploitability():
    from open_spiel.python.algorithms import exploitability

    from gamedyn.games.efg import solve_efg
    from gamedyn.games.efg.openspiel import to_tabular_policy

    game = leduc_poker()
    solution = solve_efg(game, gap=1e-3, method="dcfr")
    table = to_tabular_policy(game, solution.x, solution.y)
    theirs = exploitability.exploitability(pyspiel.load_game("leduc_poker"), table)
    assert math.isclose(theirs, solution.exploitability, abs_tol=1e-9)
