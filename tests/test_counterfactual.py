"""CounterfactualRegret (issue 32): the counterfactual pass against the history walk, the local rules shared with the
matrix-game learners, and the regret bounds as (measured, bound) pairs."""

from __future__ import annotations

import math

import numpy as np
import pytest

import gamedyn
from gamedyn.core import FTRL, CounterfactualRegret, Entropy, Loss, RegretMatching, Treeplex
from gamedyn.core.counterfactual import counterfactual_regrets, dcfr_factor
from gamedyn.games import efg
from gamedyn.games.efg import original

RULES = [("rm", {}), ("rm+", {}), ("prm", {}), ("prm+", {}), ("prm+", {"prediction": "counterfactual"}),
         ("dcfr", {}), ("dcfr", {"alpha": 1.0, "beta": 1.0}), ("hedge", {"eta": 0.7})]


def random_behaviour(treeplex, rng):
    b = rng.uniform(0.0, 1.0, treeplex.dimension) ** 2
    b[0] = 1.0
    b[1:] /= np.repeat(treeplex.segment_sum(b), treeplex.sizes)
    return b


@pytest.mark.parametrize("name", ["kuhn_poker", "leduc_poker", "goofspiel(3)"])
def test_the_counterfactual_pass_gives_the_history_walks_counterfactual_values(name):
    """q_ja = sum over the histories h of infoset j of pi_{-i}(h) u_i(ha), the definition (Zinkevich et al. 2007)."""
    game = efg.load_game(name)
    tree = original.HistoryTree(game.rules)
    rng = np.random.default_rng(3)
    behaviours = [random_behaviour(treeplex, rng) for treeplex in game.treeplexes]
    strategies = [{infoset: np.array([behaviours[p][game.sequence(p, infoset, a)] for a in actions])
                   for infoset, actions in tree.actions[p].items()} for p in (0, 1)]
    x, y = (treeplex.to_sequence(b) for treeplex, b in zip(game.treeplexes, behaviours))
    for player, utility in ((0, game.A @ y), (1, -(game.A.T @ x))):
        regret, q = counterfactual_regrets(game.treeplexes[player], utility, behaviours[player])
        values, _, value = original.counterfactual_values(tree, player, strategies)
        for infoset, v in values.items():
            indices = [game.sequence(player, infoset, a) for a in tree.actions[player][infoset]]
            np.testing.assert_allclose(q[indices], v, rtol=1e-12, atol=1e-15)
            np.testing.assert_allclose(regret[indices], v - strategies[player][infoset] @ v, rtol=1e-12, atol=1e-14)
        assert q[0] == pytest.approx(value, abs=1e-14) and regret[0] == 0.0


@pytest.mark.parametrize("local, options, plus, predictive", [
    ("rm", {}, False, False), ("rm+", {}, True, False), ("prm", {}, False, True), ("prm+", {}, True, True)])
def test_on_one_infoset_the_local_rule_is_the_matrix_game_learner(local, options, plus, predictive):
    """A treeplex of one infoset is the simplex (plus the empty sequence): CFR's local rule is RegretMatching itself."""
    M = np.array([[0.0, -1.0, 1.0, 0.5], [1.0, 0.0, -1.0, -0.5], [-1.0, 1.0, 0.0, 0.25]])
    treeplex = Treeplex([0], [3])
    ours, theirs = CounterfactualRegret(treeplex, local, **options), RegretMatching(plus=plus, predictive=predictive)
    ours_state, their_state = ours.init(4), theirs.init(3)
    column = np.array([0.1, 0.2, 0.3, 0.4])
    for t in range(40):
        x, simplex_play = ours.play(ours_state, 1.0), theirs.play(their_state, 1.0)
        np.testing.assert_allclose(x[1:], simplex_play, rtol=1e-13, atol=1e-15)
        loss = -(M @ column)  # the row player's loss against a drifting column
        ours_state = ours.update(ours_state, x, Loss(np.concatenate([[0.0], loss])), 1.0)
        their_state = theirs.update(their_state, simplex_play, Loss(loss), 1.0)
        column = np.roll(column, 1) * (1 + 0.01 * t)
        column /= column.sum()


def test_hedge_on_one_infoset_is_ftrl_with_entropy():
    treeplex = Treeplex([0], [3])
    ours, theirs = CounterfactualRegret(treeplex, "hedge", eta=0.3), FTRL(Entropy(), 0.3)
    ours_state, their_state = ours.init(4), theirs.init(3)
    rng = np.random.default_rng(0)
    for _ in range(30):
        x, y = ours.play(ours_state, 1.0), theirs.play(their_state, 1.0)
        np.testing.assert_allclose(x[1:], y, rtol=1e-12)
        loss = rng.normal(size=3)
        ours_state = ours.update(ours_state, x, Loss(np.concatenate([[0.0], loss])), 1.0)
        their_state = theirs.update(their_state, y, Loss(loss), 1.0)


@pytest.mark.parametrize("local, options", RULES)
def test_the_pure_functions_and_the_player_agree_bit_for_bit(local, options):
    game = efg.leduc_poker()
    treeplex = game.treeplexes[0]
    learner = CounterfactualRegret(treeplex, local, **options)
    state = learner.init(treeplex.dimension)
    player = learner.player(learner.init(treeplex.dimension))
    rng = np.random.default_rng(1)
    for t in range(6):
        weight = 1.0 + 0.5 * t
        x, x_player = learner.play(state, weight), player.play(weight)
        assert np.array_equal(x, x_player) and treeplex.contains(x)
        loss = Loss(game.A @ game.treeplexes[1].to_sequence(random_behaviour(game.treeplexes[1], rng)))
        state = learner.update(state, x, loss, weight)
        player.update(x_player, loss, weight)
        for ours, theirs in zip(state, player.state):
            assert np.array_equal(ours, theirs)


def test_the_learner_declares_its_contract_and_refuses_what_it_cannot_do():
    treeplex = efg.kuhn_poker().treeplexes[0]
    learner = CounterfactualRegret(treeplex, "rm+")
    assert isinstance(learner, gamedyn.Learner) and isinstance(learner.player(learner.init(13)), gamedyn.Player)
    assert learner.domain is treeplex and learner.plays_in_domain and not learner.needs_current_loss
    assert [CounterfactualRegret(treeplex, rule, **options).name for rule, options in RULES] == [
        "CFR", "CFR+", "PCFR", "PCFR+", "PCFR+", "DCFR", "DCFR", "Hedge-CFR"]
    for arguments, options, match in ((("rm*",), {}, "local must be one of"),
                                      (("rm",), {"prediction": "simple"}, "only the predictive rules"),
                                      (("prm+",), {"prediction": "last"}, "'simple' or 'counterfactual'"),
                                      (("rm+",), {"alpha": 2.0}, "DCFR's discount exponent"),
                                      (("hedge",), {}, "needs a positive finite step"),
                                      (("rm",), {"eta": 0.1}, "Hedge's step")):
        with pytest.raises(ValueError, match=match):
            CounterfactualRegret(treeplex, *arguments, **options)
    with pytest.raises(TypeError, match="must be a gamedyn.Treeplex"):
        CounterfactualRegret(gamedyn.Simplex())
    with pytest.raises(ValueError, match="not the treeplex's 13 sequences"):
        learner.init(12)


def test_dcfrs_discounts_and_their_limits():
    assert dcfr_factor(1, 1.5) == dcfr_factor(1, -math.inf) == dcfr_factor(1, math.inf) == 0.5
    assert dcfr_factor(4, 1.5) == 8.0 / 9.0 and dcfr_factor(3, 0.0) == 0.5
    assert dcfr_factor(7, math.inf) == 1.0 and dcfr_factor(7, -math.inf) == 0.0


# ------------------------------------------------------------------------------------------ regret bounds


def self_play(game, local, T):
    """Simultaneous self-play of ``local`` with the players' own objects, recording each round's local regrets."""
    learners = [CounterfactualRegret(treeplex, local) for treeplex in game.treeplexes]
    players = [learner.player(learner.init(treeplex.dimension)) for learner, treeplex in zip(learners,
                                                                                            game.treeplexes)]
    payoff = game.payoff()
    regrets = [[], []]
    loss_sums = [np.zeros(t.dimension) for t in game.treeplexes]
    played = [0.0, 0.0]
    for _ in range(T):
        x, y = players[0].play(1.0), players[1].play(1.0)
        losses = (payoff.loss_for_w(y), payoff.loss_for_p(x))
        for p, (point, loss) in enumerate(zip((x, y), losses)):
            regrets[p].append(counterfactual_regrets(game.treeplexes[p], -loss.linear, players[p].behaviour)[0])
            loss_sums[p] += loss.linear
            played[p] += float(loss.linear @ point)
            players[p].update(point, loss, 1.0)
    return regrets, loss_sums, played


def payoff_range(game) -> float:
    """Delta: the range of the terminal payoffs (the largest and smallest entry of A over chance, per terminal)."""
    values = [game.rules.returns(state) for state in terminal_states(game.rules)]
    return max(values) - min(values)


def terminal_states(rules):
    from gamedyn.games.efg.rules import CHANCE, TERMINAL

    stack = [rules.initial()]
    while stack:
        state = stack.pop()
        kind = rules.to_move(state)
        if kind == TERMINAL:
            yield state
        elif kind == CHANCE:
            stack.extend(rules.child(state, a) for a, _ in rules.chance_outcomes(state))
        else:
            stack.extend(rules.child(state, a) for a in rules.legal_actions(state))


@pytest.mark.parametrize("name", ["kuhn_poker", "goofspiel(3)", "liars_dice(3)", "leduc_poker"])
@pytest.mark.parametrize("local", ["rm", "rm+"])
def test_cfr_regret_bounds_hold_as_measured_bound_pairs(name, local, capsys):
    """Measured treeplex regret <= the laminar decomposition max_x sum_j x_p(j) [R_j]^+ (Farina, Kroer & Sandholm 2019,
    Thm 1) <= the same with R_j <= sqrt(sum_t ||r_t^j||^2) (RM's and RM+'s bound on each infoset, eq. (1) and (5) of
    docs/explanation/regret-matching-bounds.md) <= Delta |J| sqrt(max |A_j|) sqrt(T) (Zinkevich et al. 2007, Thm 4)."""
    game = efg.load_game(name)
    T = 150 if name != "leduc_poker" else 60
    regrets, loss_sums, played = self_play(game, local, T)
    delta = payoff_range(game)
    rows = []
    for p, treeplex in enumerate(game.treeplexes):
        measured = played[p] - treeplex.best_response_value(loss_sums[p])
        stacked = np.array(regrets[p])
        local_regret = treeplex.segment_max(stacked.sum(axis=0))  # max_a sum_t r_t^j(a), per infoset
        local_bound = np.sqrt(treeplex.segment_sum((stacked ** 2).sum(axis=0)))  # sqrt(sum_t ||r_t^j||^2)
        assert np.all(local_regret <= local_bound * (1 + 1e-12))
        # max_x sum_j x_p(j) v_j = max_x <x, v spread on each infoset's actions> (sum_a x_ja = x_p(j)): one pass
        laminar = treeplex.best_response_value(treeplex.spread(np.maximum(local_regret, 0.0)), maximize=True)
        laminar_bound = treeplex.best_response_value(treeplex.spread(local_bound), maximize=True)
        zinkevich = delta * treeplex.number_of_infosets * math.sqrt(int(np.max(treeplex.sizes))) * math.sqrt(T)
        assert measured <= laminar + 1e-9 and laminar <= laminar_bound + 1e-9 and laminar_bound <= zinkevich
        rows.append(f"player {p}: R_T {measured:.4g} <= laminar {laminar:.4g} <= {laminar_bound:.4g} <= "
                    f"Delta|J|sqrt(|A|)sqrt(T) {zinkevich:.4g}")
    with capsys.disabled():
        print(f"\n{name} {local} T={T}: " + "; ".join(rows))

