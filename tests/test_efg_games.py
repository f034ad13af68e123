"""The built-in extensive-form games (issue 32): their values against the exact sequence-form LP, their best responses
against brute force, the builder, and (where open_spiel is installed) the same games as OpenSpiel's."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from gamedyn.games import efg
from gamedyn.games.efg import GameBuilder, load_game
from efg_references import exact_value, named_entries, openspiel_game, openspiel_policy, structure

try:
    import pyspiel
except ImportError:  # the comparisons with OpenSpiel need the optional extra `openspiel`
    pyspiel = None
needs_pyspiel = pytest.mark.skipif(pyspiel is None, reason="open_spiel is not installed (pip install gamedyn[openspiel])")

GAMES = {  # ours -> OpenSpiel's specification
    "kuhn_poker": (efg.kuhn_poker, "kuhn_poker"),
    "leduc_poker": (efg.leduc_poker, "leduc_poker"),
    "goofspiel(4)": (lambda: efg.goofspiel(4), "goofspiel(imp_info=True,num_cards=4,points_order=descending)"),
    "liars_dice(3)": (lambda: efg.liars_dice(3), "liars_dice(numdice=1,dice_sides=3)"),
    "liars_dice(6)": (lambda: efg.liars_dice(6), "liars_dice(numdice=1,dice_sides=6)"),
}


def spiel(specification):
    game = pyspiel.load_game(specification)
    if game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
        game = pyspiel.convert_to_turn_based(game)
    return game


# ------------------------------------------------------------------------------------------------ sizes


@pytest.mark.parametrize("name, infosets, sequences, entries", [
    ("kuhn_poker", 6, 13, 30), ("leduc_poker", 468, 1093, 4920), ("goofspiel(4)", 81, 175, 464),
    ("liars_dice(6)", 12288, 24571, 147420)])
def test_sizes(name, infosets, sequences, entries):
    game = GAMES[name][0]()
    assert [t.number_of_infosets for t in game.treeplexes] == [infosets] * 2
    assert [t.dimension for t in game.treeplexes] == [sequences] * 2 and game.A.nnz == entries
    assert sp.isspmatrix_csr(game.A) and game.A.data.flags.writeable is False


def test_kuhn_is_worth_minus_one_eighteenth_to_the_first_player():
    value, x = exact_value(efg.kuhn_poker().A, efg.kuhn_poker().treeplexes)
    assert value == pytest.approx(-1 / 18, abs=1e-12)
    game = efg.kuhn_poker()
    # the exact LP's x guarantees the value: its worst case (a best response, one backward pass) is -1/18
    assert game.best_response(1, x)[0] == pytest.approx(1 / 18, abs=1e-9)


def test_the_kuhn_equilibrium_family_of_the_literature_is_optimal():
    """Kuhn's equilibria (Kuhn 1950): with card J the first player bets with probability a in [0, 1/3], with K 3a,
    with Q never; the second player's bets and calls are unique. Its bracket closes at -1/18."""
    game = efg.kuhn_poker()
    for a in (0.0, 0.2, 1 / 3):
        first = {"0": {0: 1 - a, 1: a}, "1": {0: 1.0, 1: 0.0}, "2": {0: 1 - 3 * a, 1: 3 * a},
                 "0pb": {0: 1.0, 1: 0.0}, "1pb": {0: 2 / 3 - a, 1: 1 / 3 + a}, "2pb": {0: 0.0, 1: 1.0}}
        second = {"0p": {0: 2 / 3, 1: 1 / 3}, "0b": {0: 1.0, 1: 0.0}, "1p": {0: 1.0, 1: 0.0},
                  "1b": {0: 2 / 3, 1: 1 / 3}, "2p": {0: 0.0, 1: 1.0}, "2b": {0: 0.0, 1: 1.0}}
        bracket = game.bracket(game.sequence_form(0, first), game.sequence_form(1, second))
        assert bracket.contains(-1 / 18) and bracket.nash_gap < 1e-12


@pytest.mark.parametrize("name", ["leduc_poker", "goofspiel(4)", "liars_dice(3)"])
def test_an_lp_solution_closes_the_certified_bracket(name):
    game = GAMES[name][0]()
    value, x = exact_value(game.A, game.treeplexes)
    _, y = exact_value(-game.A.T, game.treeplexes[::-1])
    bracket = game.bracket(x, y)
    assert bracket.contains(value) and bracket.nash_gap < 1e-7  # HiGHS's tolerance, not ours


@pytest.mark.parametrize("player", [0, 1])
def test_the_best_response_beats_every_pure_strategy_in_kuhn(player):
    game = efg.kuhn_poker()
    rng = np.random.default_rng(player)
    opponent = game.treeplexes[1 - player]
    for _ in range(5):
        b = rng.uniform(0.1, 1.0, opponent.dimension)
        b[1:] /= np.repeat(opponent.segment_sum(b), opponent.sizes)
        y = opponent.to_sequence(b)
        value, best = game.best_response(player, y)
        payoffs = [game.value(x, y) if player == 0 else -game.value(y, x) for x in game.treeplexes[player].pure_strategies()]
        assert value == pytest.approx(max(payoffs), abs=1e-15) and any(np.array_equal(best, x) for x in
                                                                        game.treeplexes[player].pure_strategies())


def test_policies_and_sequence_forms_round_trip_by_name():
    game = efg.leduc_poker()
    rng = np.random.default_rng(5)
    for player in (0, 1):
        treeplex = game.treeplexes[player]
        b = rng.uniform(0.1, 1.0, treeplex.dimension)
        b[1:] /= np.repeat(treeplex.segment_sum(b), treeplex.sizes)
        x = treeplex.to_sequence(b)
        policy = game.policy(player, x)
        assert len(policy) == treeplex.number_of_infosets
        assert all(abs(sum(p.values()) - 1.0) < 1e-12 for p in policy.values())
        np.testing.assert_allclose(game.sequence_form(player, policy), x, rtol=1e-13)
    assert game.sequence(0, game.infosets[0][0], 2) == 2


def test_the_builder_sums_duplicates_and_refuses_what_is_not_a_game():
    builder = GameBuilder()
    builder.infoset(0, "a", None, [0, 1])
    builder.infoset(1, "b", None, [5])
    builder.terminal(("a", 0), ("b", 5), 0.5)
    builder.terminal(("a", 0), ("b", 5), 0.25)
    builder.terminal(("a", 1), ("b", 5), -1.0)
    game = builder.build("two terminals")
    assert game.A.toarray().tolist() == [[0.0, 0.0], [0.0, 0.75], [0.0, -1.0]]
    assert game.policy(1, game.uniform(1)) == {"b": {5: 1.0}}
    with pytest.raises(ValueError, match="not of perfect recall"):
        builder.infoset(0, "a", None, [0, 2])
    with pytest.raises(ValueError, match="distinct actions"):
        builder.infoset(0, "c", None, [1, 1])
    builder.terminal(("z", 0), None, 1.0)
    with pytest.raises(ValueError, match="no infoset declares"):
        builder.build("broken")
    orphan = GameBuilder()
    orphan.infoset(0, "a", ("nowhere", 0), [0])
    orphan.infoset(1, "b", None, [0])
    with pytest.raises(ValueError, match="not a sequence of player 0"):
        orphan.build("orphan")


def test_load_game_reads_the_names():
    assert load_game("kuhn_poker") is efg.kuhn_poker()
    assert load_game("goofspiel(cards=3)") is efg.goofspiel(3) and load_game("liars_dice(4)") is efg.liars_dice(4)
    for bad, match in (("chess", "unknown game"), ("kuhn_poker(3)", "takes no parameter"),
                       ("goofspiel(9)", "from 2 to 6"), ("liars_dice(x)", "liars_dice")):
        with pytest.raises(ValueError, match=match):
            load_game(bad)


# ----------------------------------------------------------------------------------- the same as OpenSpiel


@needs_pyspiel
@pytest.mark.parametrize("name", list(GAMES))
def test_each_game_is_openspiels(name, capsys):
    """The same information-state strings with the same parents and action ids, the same payoff entries
    (chance probability times return, summed per pair of sequences), for both players."""
    ours, theirs = GAMES[name][0](), openspiel_game(spiel(GAMES[name][1]))
    for player in (0, 1):
        assert structure(ours, player) == structure(theirs, player)
    mine, reference = named_entries(ours), named_entries(theirs)
    assert set(mine) == set(reference)
    difference = max(abs(mine[key] - reference[key]) for key in mine)
    assert difference == 0.0
    with capsys.disabled():
        print(f"\n{name}: {len(structure(ours, 0)) + len(structure(ours, 1))} infosets and {len(mine)} payoff entries "
              f"as {GAMES[name][1]}'s; largest payoff difference {difference}")


@needs_pyspiel
@pytest.mark.parametrize("name", ["kuhn_poker", "leduc_poker", "goofspiel(4)", "liars_dice(3)"])
def test_exploitability_is_openspiels_on_the_same_policy(name, capsys):
    """Random policies and a run's averages: the certified exploitability equals pyspiel.exploitability to 1e-9."""
    from gamedyn.recipes import cfr_plus

    game, spiel_game = GAMES[name][0](), spiel(GAMES[name][1])
    rng = np.random.default_rng(11)
    strategies = []
    for _ in range(2):
        pair = []
        for treeplex in game.treeplexes:
            b = rng.uniform(0.0, 1.0, treeplex.dimension) ** 3
            b[1:] /= np.repeat(treeplex.segment_sum(b), treeplex.sizes)
            pair.append(treeplex.to_sequence(b))
        strategies.append(pair)
    result = cfr_plus(game, 30)
    strategies.append([result.x, result.y])
    worst = 0.0
    for x, y in strategies:
        theirs = pyspiel.exploitability(spiel_game, openspiel_policy(game, x, y))
        ours = game.exploitability(x, y)
        assert abs(ours - theirs) <= 1e-9 and ours >= theirs - 1e-15  # ours is certified: never below
        worst = max(worst, abs(ours - theirs))
    assert result.exploitability == game.exploitability(result.x, result.y)
    with capsys.disabled():
        print(f"\n{name}: exploitability of 3 policy pairs: largest |gamedyn - pyspiel.exploitability| = {worst:.2e}")


# ------------------------------------------------------------------------------------ the certificate


def test_the_certified_bracket_holds_in_exact_arithmetic():
    """Kuhn, random policies: the exact best-response values of the policies (rational sequence forms of the float
    local distributions, normalised exactly; every pure strategy evaluated in fractions) lie inside the bracket."""
    from fractions import Fraction

    game = efg.kuhn_poker()
    X, Y = game.treeplexes
    A = game.A.toarray()
    exact_A = [[Fraction(float(a)) for a in row] for row in A]
    pures = [[int(v) for v in x] for x in X.pure_strategies()], [[int(v) for v in y] for y in Y.pure_strategies()]
    rng = np.random.default_rng(2)

    def exact_form(treeplex, b):
        b = [Fraction(float(v)) for v in b]
        totals = {}
        for j in range(treeplex.number_of_infosets):
            lo, hi = int(treeplex.starts[j]), int(treeplex.starts[j + 1])
            totals.update({s: sum(b[lo:hi]) for s in range(lo, hi)})
        form = [Fraction(1)] + [Fraction(0)] * (treeplex.dimension - 1)
        for s in range(1, treeplex.dimension):  # parents come first: the infosets are ordered by depth
            form[s] = form[int(treeplex.sequence_parents[s])] * b[s] / totals[s]
        return form

    def random_form(treeplex):
        b = rng.uniform(0.01, 1.0, treeplex.dimension) ** 3
        b[1:] /= np.repeat(treeplex.segment_sum(b), treeplex.sizes)
        return treeplex.to_sequence(b)

    for _ in range(20):
        x, y = random_form(X), random_form(Y)
        bracket = game.bracket(x, y)
        ex, ey = exact_form(X, X.to_behavioural(x)), exact_form(Y, Y.to_behavioural(y))
        Ay = [sum(a * v for a, v in zip(row, ey)) for row in exact_A]
        xA = [sum(ex[i] * exact_A[i][j] for i in range(len(ex))) for j in range(len(ey))]
        upper = max(sum(Fraction(p) * u for p, u in zip(pure, Ay)) for pure in pures[0])
        lower = min(sum(Fraction(p) * u for p, u in zip(pure, xA)) for pure in pures[1])
        assert Fraction(bracket.lower) <= lower and upper <= Fraction(bracket.upper)


def test_each_end_is_widened_by_its_rounding_bound():
    from gamedyn.certify.sequence_form import SequenceFormProducts

    game = efg.leduc_poker()
    X, Y = game.treeplexes
    products = SequenceFormProducts(game.A, game.treeplexes)
    x, y = X.default_centre(X.dimension), Y.default_centre(Y.dimension)
    bracket = game.bracket(x, y)
    raw_upper = X.best_response_value(game.A @ y, maximize=True)
    raw_lower = Y.best_response_value(game.A.T @ x)
    assert 0 < products.upper_widening < 1e-10 and 0 < products.lower_widening < 1e-10
    assert bracket.upper - raw_upper >= products.upper_widening and raw_lower - bracket.lower >= products.lower_widening
