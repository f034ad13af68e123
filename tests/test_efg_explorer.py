"""The explorer over treeplex pairs (issue 33): the extensive-form recipes declare their seating (``Recipe.pair``,
in the names of ``efg_learners``), ``efg_pairs`` reads them, and ``explore_efg`` runs them on Kuhn poker: each
recipe's row is the recipe's own run (its certified Nash gap at T, to 1e-12), a cross pair's row is an independent
``play`` of that pair, and the last-iterate row is MMD's last iterate."""

from __future__ import annotations

import numpy as np
import pytest

from gamedyn.engine import play
from gamedyn.games.efg import kuhn_poker
from gamedyn.paper.exploration import EFG_AVERAGING, efg_learners, efg_pairs, explore_efg, paper_pairs, separator_learners
from gamedyn.recipes import RECIPES, of_family

T = 120


def _recipe_name(label: str) -> str:
    return label.split(" ", 1)[0]


def test_every_extensive_form_recipe_declares_a_pair_of_efg_learners():
    learners = efg_learners()
    pairs = efg_pairs()
    assert sorted(_recipe_name(label) for *_, label in pairs) == sorted(of_family("efg"))
    for x_name, y_name, averaging, order, _ in pairs:
        assert x_name in learners and y_name in learners and averaging in EFG_AVERAGING
        assert order in ("simultaneous", "alternating")
    separator = separator_learners()
    for w_name, p_name, *_ in paper_pairs():  # the paper's pairs stay in the separator game's names
        assert w_name in separator["w"] and p_name in separator["p"]


def test_each_recipe_row_is_the_recipes_own_run():
    game = kuhn_poker()
    table = explore_efg(game, T, pairs=efg_pairs())
    assert [row.status for row in table.rows] == ["ok"] * len(efg_pairs())
    for x_name, y_name, averaging, order, label in efg_pairs():
        name = _recipe_name(label)
        if name == "mmd":  # the recipe returns x_{T+1}: the plays after T steps; the row's last plays are x_T
            result = RECIPES["mmd"].function(game, T - 1, schedule="constant")
        elif name == "optimistic_mmd":  # the recipe returns the last plays x_T; its declared pair is one alpha
            result = RECIPES[name].function(game, T, schedule="constant")
        else:
            result = RECIPES[name].function(game, T)
        row = table.row(x_name, y_name, averaging, order)
        assert row.gap == pytest.approx(result.nash_gap, rel=1e-12, abs=1e-14), name
        assert row.checkpoints[-1] == T and len(row.gaps) == len(row.checkpoints)


def test_a_cross_pair_is_an_independent_play():
    """CFR+ (x) against optimistic dilated Hedge (y), alternating, linear averages; and the same pair's last plays."""
    game = kuhn_poker()
    learners = efg_learners()
    table = explore_efg(game, T, learners={name: learners[name] for name in ("CFR+ (RM+)", "optimistic dilated Hedge")},
                        alternating=(True,), averaging=("linear", "last"))
    assert len(table.rows) == 2 * 2 * 2 and all(row.status == "ok" for row in table.rows)
    result = play(game.payoff(), learners["CFR+ (RM+)"](game.treeplexes[0]),
                  learners["optimistic dilated Hedge"](game.treeplexes[1]), T, weights="constant",
                  output_weights="linear", first="w", alternating=True)
    total = float(np.sum(np.arange(1, T + 1)))  # the linear output weights 1, ..., T
    assert result.output_weight_total == pytest.approx(total, rel=1e-15)
    expected = game.nash_gap(result.w_sum / total, result.p_sum / total)
    row = table.row("CFR+ (RM+)", "optimistic dilated Hedge", "linear", "alternating")
    assert row.gap == pytest.approx(expected, rel=1e-12)
    last = table.row("CFR+ (RM+)", "optimistic dilated Hedge", "last", "alternating")
    assert last.gap == pytest.approx(game.nash_gap(result.w_last, result.p_last), rel=1e-12)
    assert last.gap != pytest.approx(row.gap, rel=1e-3)


def test_a_pair_of_unknown_learners_is_refused():
    with pytest.raises(ValueError, match="the learners must be among"):
        explore_efg(kuhn_poker(), 10, pairs=[("CFR (RM)", "CFR-", "uniform", "simultaneous")])
    with pytest.raises(ValueError, match="averaging must be among"):
        explore_efg(kuhn_poker(), 10, averaging=("cubic",))


def test_the_command_line_explores_the_recipes_pairs_on_kuhn(capsys):
    from gamedyn.cli import main

    assert main(["explore", "--game", "kuhn_poker", "--T", "60", "--markdown"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| ") and not line.startswith("| w-learner")]
    assert len(rows) == len(efg_pairs())
    assert {row.split(" | ")[0].lstrip("| ") for row in rows} == {x_name for x_name, *_ in efg_pairs()}
    assert main(["explore", "--game", "kuhn_poker", "--T", "5", "--figure", "x.png"]) == 2
    assert main(["explore", "--all-pairs", "--T", "5"]) == 2
