"""Iterations to separation: every count within its theorem's horizon; the slopes show acceleration."""

import numpy as np
import pytest

from gamedyn.datasets import add_decoy, perceptron_hard_instance
from gamedyn.experiments.iterations import QUICK_MARGINS, iterations_to_separation
from gamedyn.margins import max_margin


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
