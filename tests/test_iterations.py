"""Iterations to separation: every count within its theorem's horizon; the slopes show acceleration."""

import numpy as np
import pytest

from gamedyn.io import add_decoy, perceptron_hard_instance
from gamedyn.paper.experiments.iterations import QUICK_MARGINS, iterations_to_separation
from gamedyn.certify import max_margin


@pytest.fixture(scope="module")
def table():
    return iterations_to_separation(QUICK_MARGINS)


def horizon(algorithm, n, gamma, p=4.0):
    """The round (or update) count by which each theorem guarantees a positive margin."""
    log_n = np.log(n)
    if algorithm == "perceptron":
        return 1 / gamma**2                                   # Novikoff
    if algorithm.startswith("p-norm perceptron"):
        return (p - 1) / gamma**2                             # Gentile
    if algorithm.startswith("pnorm_perceptron"):
        return np.sqrt(2 * (p - 1) * log_n) / gamma + 1       # Theorem 7
    if algorithm == "mirror_prox_perceptron":
        return np.sqrt(2 * log_n) / gamma + 1                 # Theorem 5
    if algorithm == "nag_margin":
        return np.sqrt(8 * log_n + 2) / gamma + 1             # Theorem 6
    if algorithm == "accelerated (theta=1)":
        return np.inf                                         # no bound stated for Ji et al.'s theta = 1 here
    return np.sqrt(8 * log_n) / gamma + 1                     # Theorems 3 and 4


def test_every_algorithm_separates_within_its_theorem_horizon(table):
    for row in table.rows:
        assert row.iterations is not None, row
        assert row.iterations <= horizon(row.algorithm, row.n, row.gamma), row


def test_slopes_show_the_acceleration(table):
    assert table.slopes[("hard", "perceptron")] >= 1.8
    for algorithm in ("smooth_perceptron", "accelerated_perceptron", "mirror_prox_perceptron", "nag_margin"):
        assert table.slopes[("hard", algorithm)] <= 1.2, algorithm


def test_smooth_and_accelerated_perceptrons_stop_at_the_same_round(table):
    counts = {row.algorithm: row.iterations for row in table.rows if row.family == "hard" and row.gamma == table.rows[0].gamma}
    assert counts["smooth_perceptron"] == counts["accelerated_perceptron"]  # Theorem 1: same plays, same direction


def test_decoy_defeats_the_centroid_and_keeps_separability():
    A = add_decoy(perceptron_hard_instance(0.1))
    centroid = A[: A.shape[0] // 2].mean(axis=0)
    assert np.min(A @ centroid) < 0 and max_margin(A).gamma > 0
    assert np.allclose(np.linalg.norm(A, axis=1), 1.0)


def test_table_prints_every_algorithm_and_slope(table):
    text = table.format()
    for family, algorithm in table.slopes:
        assert algorithm in text
    assert "slope" in text and "hard data" in text and "lp data" in text


# ------------------------------------------------------------ declared horizons (issue 8 item 6)


def test_every_row_carries_the_horizon_its_declaration_states(table):
    """Each row's ``sufficient_rounds`` is the theorem's count: the smallest T whose bound is positive."""
    for row in table.rows:
        n, gamma, T = row.n, row.gamma, row.sufficient_rounds
        log_n = np.log(n)
        if row.algorithm == "accelerated (theta=1)":
            assert T is None and row.kind == "recipe"
        elif row.kind == "original":  # Novikoff 1/gamma^2, Gentile (p-1)/gamma_q^2
            p = float(row.algorithm.split("p=")[1]) if "p=" in row.algorithm else 2.0
            assert T == pytest.approx((p - 1) / gamma**2, rel=1e-14), row
        elif row.algorithm.startswith(("mirror_prox", "pnorm")):  # gamma - c / T > 0 (Theorems 5, 7)
            p = float(row.algorithm.split("p=")[1]) if "p=" in row.algorithm else 2.0
            c = np.sqrt(2 * (p - 1) * log_n)
            assert T == int(T) and gamma - c / T > 0 >= gamma - c / (T - 1), row
        else:  # gamma - c / (gamma T (T+1)) > 0 (Theorems 4, 6)
            c = 8 * log_n + (2 if row.algorithm == "nag_margin" else 0)
            assert T == int(T) and gamma - c / (gamma * T * (T + 1)) > 0 >= gamma - c / (gamma * (T - 1) * T), row


def test_a_new_declared_recipe_joins_the_experiments_without_edits(monkeypatch):
    """A new recipe module's ``RECIPE`` is all the iterations table and the game figures need."""
    from gamedyn.paper.experiments import game_figures
    from gamedyn.recipes import RECIPES, Recipe

    nag = RECIPES["nag_margin"]
    new = Recipe(name="nag_twice", family=nag.family, reference="test", summary="NAG again", box=nag.box,
                 parameters=nag.parameters, function=nag.function, output=nag.output,
                 rounds_to_separate=lambda n, gamma, options: 10**6,
                 regret_bound=lambda n, options: ("Thm 6 again", 4 * np.log(n) + 1),
                 variants=(("nag_twice (variant)", {}),))
    monkeypatch.setitem(RECIPES, "nag_twice", new)
    table = iterations_to_separation((0.2,), lp_n=200)
    rows = {row.algorithm: row for row in table.rows if row.family == "hard"}
    assert rows["nag_twice"].iterations == rows["nag_margin"].iterations  # the same game, declared again
    assert rows["nag_twice"].sufficient_rounds == rows["nag_twice (variant)"].sufficient_rounds == 10**6
    assert "nag_twice" not in {row.algorithm for row in table.rows if row.family != "hard"}  # no p option
    assert [label for label, *_ in game_figures._runs()][-2:] == ["nag_twice", "nag_twice (variant)"]
