"""The pair explorer: every legal seating, illegal ones marked, the paper's pairs rediscovered."""

import math

import numpy as np
import pytest

from gamedyn import FTL, FTRL, OFTL, OFTRL, Bilinear, Entropy, FTRLPlus, RegularizedBilinear, cli, explore, play
from gamedyn.io import make_separable, signed_rows
from gamedyn.paper.exploration import PAPER_PAIRS, fitted_exponent, geometric_checkpoints, separator_learners

A = signed_rows(*make_separable(100, 10, 0.1, 0))


@pytest.fixture(scope="module")
def table():
    return explore(RegularizedBilinear(A), separator_learners(), T=2000)


@pytest.mark.slow
def test_rediscovers_the_papers_table(table):
    """Props 1-2 and Thm 6 at about T^-2 on Theorem 2's bound, at the top; plain pairs about T^-1 or slower."""
    paper = [table.row(w, p, weights, first) for w, p, weights, first, _ in PAPER_PAIRS]
    for row in paper:
        assert row.status == "ok" and -2.3 <= row.bound_exponent <= -1.8, row
    plain = [row for row in table.rows if row.status == "ok" and row.weights == "constant"
             and row.w_name in ("FTL", "OFTL") and row.p_name in ("FTRL entropy", "MD entropy")]
    assert plain and all(-1.3 <= row.bound_exponent <= -0.5 for row in plain)
    best = table.ranked()[:len(paper)]
    worst_paper = max(row.bound_exponent for row in paper)
    assert all(row.bound_exponent <= worst_paper + 0.05 for row in best)
    assert max(row.bound for row in paper) < 0.01 * min(row.bound for row in plain)


def test_illegal_seatings_are_marked_not_run(table):
    """FTRL+ in the first seat: 4 p-learners x 2 weights for the w-player, 3 w-learners x 2 weights for the p-player."""
    illegal = [row for row in table.rows if row.status == "illegal"]
    expected = {(w, p, weights, "w") for w in ["FTRL+"] for p in separator_learners()["p"] for weights in ("constant", "linear")}
    expected |= {(w, "FTRL+ entropy", weights, "p") for w in separator_learners()["w"] for weights in ("constant", "linear")}
    assert {(row.w_name, row.p_name, row.weights, row.first) for row in illegal} == expected
    assert all("moves first" in row.reason and math.isnan(row.bound) for row in illegal)
    assert len(table.rows) == 3 * 4 * 2 * 2 - 6 * 2  # six order-free pairs are listed once per weights


def test_certificate_bounds_the_gap_at_every_checkpoint(table):
    """Theorem 2 with one weight sequence: 0 <= G_t <= B_t at every recorded t."""
    for row in table.rows:
        if row.status == "ok":
            bounds, gaps = np.array(row.bounds), np.array(row.gaps)
            assert np.all(gaps >= -1e-12) and np.all(gaps <= bounds + 1e-12), row.label


def test_final_numbers_equal_the_runners_result():
    learners = {"w": {"OFTL": OFTL()}, "p": {"OFTRL": OFTRL(Entropy(), 0.25)}}
    exploration = explore(RegularizedBilinear(A), learners, T=300, weights="linear", first="p")
    result = play(RegularizedBilinear(A), OFTL(), OFTRL(Entropy(), 0.25), 300, weights="linear", first="p")
    (row,) = exploration.rows
    assert row.bound == pytest.approx(result.theorem2_bound, rel=1e-12)
    assert row.gap == pytest.approx(result.duality_gap, rel=1e-9, abs=1e-15)
    assert row.checkpoints[-1] == 300


def test_runner_refusals_are_error_rows_not_crashes():
    """FTL on R^d with a linear loss (Bilinear, no quadratic part) has no minimiser."""
    exploration = explore(Bilinear(A), {"w": {"FTL": FTL()}, "p": {"FTRL": FTRL(Entropy(), 0.25)}}, T=5,
                          weights="constant", first="w")
    (row,) = exploration.rows
    assert row.status == "error" and "unbounded below" in row.reason
    assert "error" in exploration.format() and "| error" in exploration.to_markdown()


def test_fitted_exponent_recovers_a_power_law():
    grid = geometric_checkpoints(10_000)
    assert grid[0] == 1 and grid[-1] == 10_000 and len(grid) >= 20
    assert fitted_exponent(grid, [3.0 * t**-1.7 for t in grid], 10) == pytest.approx(-1.7, abs=1e-12)
    assert math.isnan(fitted_exponent(grid, [0.0 for t in grid], 10))


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="learners must be"):
        explore(RegularizedBilinear(A), {"w": [OFTL()]}, T=10)
    with pytest.raises(TypeError, match=r"learners\['p'\]\['x'\] is not a learner"):
        explore(RegularizedBilinear(A), {"w": [OFTL()], "p": {"x": 3}}, T=10)
    with pytest.raises(ValueError, match="first must be"):
        explore(RegularizedBilinear(A), separator_learners(), T=10, first="q")
    with pytest.raises(TypeError, match="payoff"):
        explore(A, separator_learners(), T=10)
    with pytest.raises(ValueError, match="T"):
        explore(RegularizedBilinear(A), separator_learners(), T=0)


def test_command_line_explore(capsys):
    code = cli.main(["explore", "--synthetic", "30,5,0.1", "--T", "60", "--markdown"])
    out = capsys.readouterr().out
    assert code == 0
    assert out.count("illegal") == 14 and "| w-learner | p-learner |" in out


def test_issue_fit_from_beyond_the_checkpoints_is_refused():
    """Old: fit_from > T (or past the second-to-last checkpoint) gave NaN exponents in every row, silently."""
    payoff, learners = RegularizedBilinear(A), {"w": {"OFTL": OFTL()}, "p": {"OFTRL": OFTRL(Entropy(), 0.25)}}
    grid = geometric_checkpoints(100)
    for fit_from in (101, 1000, 100, grid[-2] + 1):
        with pytest.raises(ValueError, match=rf"fit_from={fit_from} leaves [01] of the checkpoints .* needs two; "
                                             rf"pass fit_from <= {grid[-2]}"):
            explore(payoff, learners, T=100, weights="linear", first="w", fit_from=fit_from)
    row, = explore(payoff, learners, T=100, weights="linear", first="w", fit_from=grid[-2]).rows
    expected = fitted_exponent(grid, row.bounds, grid[-2])
    assert math.isfinite(row.bound_exponent) and row.bound_exponent == expected
    assert expected == pytest.approx(math.log(row.bounds[-1] / row.bounds[-2]) / math.log(grid[-1] / grid[-2]), rel=1e-9)
    with pytest.raises(TypeError, match="fit_from must be an integer"):
        explore(payoff, learners, T=100, fit_from=2.5)


def test_a_pair_in_which_neither_sees_its_loss_is_listed_once(table):
    """OFTL vs OFTRL (neither sees its round's loss) was listed twice, w first and p first, with the same
    numbers: it is one row, first = "either", found under both orders, equal to play() in each order."""
    learners = separator_learners()
    order_free = [(w, p) for w, wl in learners["w"].items() for p, pl in learners["p"].items()
                  if not wl.needs_current_loss and not pl.needs_current_loss]
    assert len(order_free) == 6
    for w, p in order_free:
        for weights in ("constant", "linear"):
            rows = [row for row in table.rows if (row.w_name, row.p_name, row.weights) == (w, p, weights)]
            assert len(rows) == 1 and rows[0].first == "either"
            assert table.row(w, p, weights, "w") is rows[0] is table.row(w, p, weights, "p")
    assert len(table.rows) == 3 * 4 * 2 * 2 - len(order_free) * 2
    payoff = RegularizedBilinear(A)
    row = explore(payoff, {"w": {"OFTL": OFTL()}, "p": {"OFTRL": OFTRL(Entropy(), 0.25)}}, T=300, weights="linear").rows
    (row,) = row
    for first in ("w", "p"):
        result = play(payoff, OFTL(), OFTRL(Entropy(), 0.25), 300, weights="linear", first=first)
        assert row.bound == result.theorem2_bound
    assert "either order" in row.label


def test_progress_names_each_seating_as_its_row_does():
    """The progress lines name the seatings the table lists: an order-free pair as "either order" (it read
    "either first"), a seated pair as "w first" / "p first"."""
    payoff = RegularizedBilinear(A)
    learners = {"w": {"OFTL": OFTL(), "FTRL+": FTRLPlus(Entropy(), 0.25)}, "p": {"OFTRL": OFTRL(Entropy(), 0.25)}}
    seen = []
    table = explore(payoff, learners, T=50, weights="linear", progress=lambda index, total, text: seen.append(text))
    assert seen == [row.label for row in table.rows]
    assert "OFTL | OFTRL | linear | either order" in seen and "FTRL+ | OFTRL | linear | p first" in seen


# ------------------------------------------------------------------ the matrix-game table (issue 18)


def test_matrix_game_table_has_every_pair_and_matches_the_recipes():
    """294 runs (7 x 7 learners, 2 protocols, 3 averagings); rows of the regret-matching recipes' settings
    equal the recipes' Nash gaps (computed independently, by gamedyn.recipes on their own play) to 1e-10."""
    from gamedyn import recipes
    from gamedyn.paper.exploration import explore_matrix_game, matrix_game_learners

    M = np.random.default_rng(3).uniform(-1.0, 1.0, (6, 5))
    T = 120
    table = explore_matrix_game(M, T, checkpoints=6)
    names = list(matrix_game_learners(M))
    assert names == ["Hedge", "optimistic Hedge", "RM", "RM+", "PRM+", "AdaHedge", "FTL"]
    assert len(table.rows) == 294 and all(row.status == "ok" for row in table.rows)
    assert {(r.w_name, r.p_name, r.weights, r.first) for r in table.rows} == {
        (a, b, s, f) for a in names for b in names for s in ("uniform", "linear", "quadratic")
        for f in ("simultaneous", "alternating")}
    pairs = [(("RM", "RM", "uniform", "simultaneous"), recipes.regret_matching(M, T)),
             (("RM+", "RM+", "linear", "alternating"), recipes.regret_matching_plus(M, T)),
             (("PRM+", "PRM+", "quadratic", "alternating"), recipes.predictive_regret_matching_plus(M, T)),
             (("AdaHedge", "AdaHedge", "uniform", "simultaneous"), recipes.ada_hedge(M, T))]
    for key, result in pairs:
        assert abs(table.row(*key).gap - result.nash_gap) <= 1e-10, key
    gaps = [row.gap for row in table.ranked()]
    assert gaps == sorted(gaps)
    # Theorem 2 on simultaneous uniform rows: the gap equals (R_x + R_y) / T for a bilinear game
    row = table.row("Hedge", "optimistic Hedge", "uniform", "simultaneous")
    assert abs(row.bound - row.gap) <= 1e-10 * max(1.0, row.gap)
    assert math.isnan(table.row("RM+", "RM+", "linear", "alternating").bound)


def test_matrix_game_table_names_bad_input():
    from gamedyn.paper.exploration import explore_matrix_game

    M = [[1.0, -1.0], [-1.0, 1.0]]
    with pytest.raises(ValueError, match="averaging"):
        explore_matrix_game(M, 10, averaging=("cubic",))
    with pytest.raises(ValueError, match="alternating"):
        explore_matrix_game(M, 10, alternating=("yes",))
    with pytest.raises(ValueError, match="M must be"):
        explore_matrix_game([[np.nan]], 10)
