"""``gamedyn list`` and ``gamedyn run`` know every family (issue 17): matrix games and Fenchel games on the
command line, their numbers equal to the API's, their options refused where they do not apply."""

import json

import numpy as np
import pytest

from gamedyn import cli, recipes
from gamedyn.core import Ball, Simplex
from gamedyn.games.fenchel.objectives import synthetic_objective
from gamedyn.games.matrix import value_bracket
from gamedyn.paper.registry import recipe_entries


def run_cli(capsys, *argv):
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def run_json(capsys, *argv):
    code, out, err = run_cli(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def test_list_shows_every_family_with_its_recipes(capsys):
    code, out, _ = run_cli(capsys, "list")
    assert code == 0
    for family, title in (("margin", "Margin recipes"), ("matrix", "Matrix-game recipes"),
                          ("fenchel", "Fenchel-game recipes")):
        block = out.split(title, 1)[1].split("\n\n", 1)[0]
        names = [line.split()[0] for line in block.splitlines()[1:] if line.startswith("  ")
                 and not line.split()[0].endswith(":")]
        assert names == [entry.name for entry in recipe_entries(family)]
    assert "--eta-w" in out and "--theta" in out  # the declared parameters


def _matrix(seed, m, n):
    return np.random.default_rng(seed).uniform(-1.0, 1.0, size=(m, n))


def test_run_hedge_on_a_synthetic_game_equals_the_api(capsys):
    document = run_json(capsys, "run", "hedge", "--synthetic", "50,60", "--seed", "3", "--T", "200")
    M = _matrix(3, 50, 60)
    result = recipes.hedge(M, 200, record=True)
    final = document["steps"][-1]
    assert final["t"] == 200 and document["family"] == "matrix"
    assert final["value"] == result.value and final["nash_gap"] == result.nash_gap
    assert (final["lower"], final["upper"]) == (result.certificate.lower, result.certificate.upper)
    assert np.array_equal(document["output"]["row"], result.row)
    assert np.array_equal(document["output"]["column"], result.column)
    assert document["steps_used"] == result.steps
    t = 20  # a reporting step: the averages after round t, bracketed as the API brackets them
    step = next(step for step in document["steps"] if step["t"] == t)
    row, column = result.game.trace["w"][:t].mean(axis=0), result.game.trace["p"][:t].mean(axis=0)
    bracket = value_bracket(M, row, column)
    assert step["lower"] == pytest.approx(bracket.lower, rel=1e-12) and step["upper"] == pytest.approx(bracket.upper, rel=1e-12)



@pytest.mark.parametrize("name", ["regret_matching_plus", "predictive_regret_matching_plus"])
def test_run_a_weighted_average_recipe_reports_its_averages(capsys, name):
    """A recipe whose averages use other output weights (linear, quadratic) reports each step's averages
    (before the fix the step divided the output-weighted sums by the learners' weight total: not a strategy)."""
    document = run_json(capsys, "run", name, "--synthetic", "20,30", "--seed", "1", "--T", "60")
    M = _matrix(1, 20, 30)
    result = getattr(recipes, name)(M, 60, record=True)
    final = document["steps"][-1]
    assert final["nash_gap"] == result.nash_gap
    weights = np.arange(1, 61, dtype=float) ** (1 if name == "regret_matching_plus" else 2)
    t = 20
    step = next(step for step in document["steps"] if step["t"] == t)
    row = weights[:t] @ result.game.trace["w"][:t] / weights[:t].sum()
    column = weights[:t] @ result.game.trace["p"][:t] / weights[:t].sum()
    bracket = value_bracket(M, row, column)
    assert step["lower"] == pytest.approx(bracket.lower, rel=1e-9) and step["upper"] == pytest.approx(bracket.upper, rel=1e-9)


@pytest.mark.parametrize("extension", [".npy", ".csv"])
def test_run_on_a_matrix_file_equals_the_api(tmp_path, capsys, extension):
    M = _matrix(5, 7, 4)
    path = tmp_path / f"game{extension}"
    np.save(path, M) if extension == ".npy" else np.savetxt(path, M, delimiter=",", fmt="%.17g")
    document = run_json(capsys, "run", "optimistic_hedge", "--matrix", str(path), "--T", "300",
                        "--eta-w", "0.2", "--eta-p", "0.3")
    result = recipes.optimistic_hedge(M, 300, eta_w=0.2, eta_p=0.3)
    assert document["steps"][-1]["nash_gap"] == result.nash_gap
    assert np.array_equal(document["output"]["row"], result.row) and document["steps_used"] == {"eta_w": 0.2, "eta_p": 0.3}


def test_run_table_for_a_matrix_game(capsys):
    code, out, err = run_cli(capsys, "run", "fictitious_play", "--synthetic", "6,5", "--T", "50")
    assert code == 0 and err == ""
    rows = [line.split() for line in out.splitlines() if line.strip() and line.split()[0].isdigit()]
    assert [int(row[0]) for row in rows] == [1, 2, 5, 10, 20, 50]
    assert "lower L_t" in out and "Nash gap" in out and "(certified)" in out


@pytest.mark.parametrize("name, options, domain", [
    ("frank_wolfe", ("--problem", "least-squares"), Simplex()),
    ("frank_wolfe", ("--problem", "logistic", "--domain", "ball"), Ball(1.0)),
    ("accelerated_gradient", ("--problem", "least-squares"), None),
    ("accelerated_gradient", ("--problem", "logistic", "--domain", "ball"), Ball(1.0)),
    ("heavy_ball", ("--problem", "logistic", "--eta-p", "0.5"), None),
])
def test_run_a_fenchel_recipe_equals_the_api(capsys, name, options, domain):
    document = run_json(capsys, "run", name, *options, "--synthetic", "200,50", "--T", "100")
    objective, _ = synthetic_objective(options[1], 200, 50, 0)
    parameters = {} if domain is None else {"domain": domain}
    if "--eta-p" in options:
        parameters["eta_p"] = 0.5
    result = recipes.RECIPES[name].function(objective, 100, **parameters)
    assert document["steps"][-1]["f"] == result.value
    assert document["steps"][-1]["bound"] == result.game.theorem2_bound or result.game.theorem2_bound == np.inf
    assert np.array_equal(document["output"]["x"], result.x) and document["family"] == "fenchel"


def test_run_frank_wolfe_table(capsys):
    code, out, err = run_cli(capsys, "run", "frank_wolfe", "--problem", "least-squares", "--synthetic", "200,50",
                             "--T", "20")
    assert code == 0 and err == "" and "f(x_bar_t)" in out and "least squares" in out and "Simplex()" in out


def test_a_matrix_run_resumes_from_its_checkpoint(tmp_path, capsys):
    path = str(tmp_path / "run.npz")
    whole = run_json(capsys, "run", "hedge", "--synthetic", "9,8", "--T", "60")
    run_json(capsys, "run", "hedge", "--synthetic", "9,8", "--T", "60", "--checkpoint", path, "--checkpoint-every", "10")
    resumed = run_json(capsys, "run", "hedge", "--synthetic", "9,8", "--T", "60", "--resume", path)
    assert resumed["output"] == whole["output"] and resumed["steps"][-1] == whole["steps"][-1]


@pytest.mark.parametrize("argv, expected", [
    (["run", "hedge", "--data", "x.csv"], "--data applies to the margin recipes; hedge is a matrix recipe"),
    (["run", "nag_margin", "--matrix", "m.npy"], "--matrix applies to the matrix recipes"),
    (["run", "hedge", "--problem", "logistic"], "--problem applies to the fenchel recipes"),
    (["run", "nag_margin", "--eta-w", "0.1"], "--eta-w applies to the recipes with a w-player step"),
    (["run", "fictitious_play", "--eta-p", "0.1"], "fictitious_play has no eta_p"),
    (["run", "hedge", "--synthetic", "3"], "--synthetic expects m,n"),
    (["run", "frank_wolfe", "--synthetic", "3,x"], "--synthetic expects n,d"),
    (["run", "heavy_ball", "--domain", "simplex"], "heavy_ball runs on R^d only"),
    (["run", "accelerated_gradient", "--domain", "l1"], "accelerated_gradient runs on R^d (reals) or a ball"),
    (["run", "frank_wolfe", "--domain", "reals"], "needs a bounded domain"),
    (["run", "hedge", "--matrix", "missing.npy"], "no such file"),
    (["run", "hedge", "--eta-w", "-1"], "--eta-w must be a positive step"),
])
def test_family_errors_are_one_line_with_exit_status_2(tmp_path, capsys, monkeypatch, argv, expected):
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(capsys, *argv)
    assert code == 2, (out, err)
    assert expected in err and len(err.strip().splitlines()) == 1
