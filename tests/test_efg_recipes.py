"""The CFR recipes (issue 32): each equals its original-form loop play by play and average by average, the plausible
wrong algorithms do not, the certified brackets contain the exact values, and (with open_spiel) the plays are
OpenSpiel's CFR+ and DCFR, whose averages are one step earlier."""

from __future__ import annotations

import numpy as np
import pytest

from gamedyn import recipes
from gamedyn.certify.sequence_form import ExploitabilityStop, SequenceFormBracket
from gamedyn.core import CounterfactualRegret, RegretMatching
from gamedyn.engine import play
from gamedyn.engine.checkpoints import checkpoint_info
from gamedyn.games import efg
from gamedyn.games.efg import original
from gamedyn.games.matrix import MatrixGame
from efg_references import exact_value

try:
    import pyspiel
except ImportError:  # the comparisons with OpenSpiel need the optional extra `openspiel`
    pyspiel = None
needs_pyspiel = pytest.mark.skipif(pyspiel is None, reason="open_spiel is not installed (pip install gamedyn[openspiel])")

# recipe -> the original loop's arguments (the papers' rule, order and averaging exponent)
ORIGINALS = {
    "cfr": dict(local="rm", order="simultaneous", averaging=0),
    "cfr_plus": dict(local="rm+", order="alternating", averaging=1),
    "dcfr": dict(local="dcfr", order="alternating", averaging=2, alpha=1.5, beta=0.0),
    "pcfr_plus": dict(local="prm+", order="alternating", averaging=2, prediction="counterfactual"),
}
# game -> the horizon of the equivalence (the original walks every history every iteration)
HORIZONS = {"kuhn_poker": 200, "goofspiel(4)": 50, "liars_dice(3)": 50, "leduc_poker": 8}
_TREES: dict = {}


def game_of(name):
    return efg.load_game(name)


def tree_of(name):
    if name not in _TREES:
        _TREES[name] = original.HistoryTree(game_of(name).rules)
    return _TREES[name]


def as_vector(game, player, values) -> np.ndarray:
    """An original's ``{(infoset, action): value}`` as a sequence-form vector (the empty sequence 1)."""
    vector = np.zeros(game.treeplexes[player].dimension)
    vector[0] = 1.0
    for (infoset, action), value in values.items():
        vector[game.sequence(player, infoset, action)] = value
    return vector


def relative_error(value, reference) -> float:
    value, reference = np.asarray(value, dtype=np.float64), np.asarray(reference, dtype=np.float64)
    return float(np.linalg.norm(value - reference) / np.linalg.norm(reference))


def errors(name, game_name, T, **original_options):
    """Relative errors of the recipe ``name`` against the original loop: (averages, plays)."""
    game = game_of(game_name)
    path = original.cfr(tree_of(game_name), T, trajectory=True, **original_options)
    result = getattr(recipes, name)(game, T, record=True)
    averages = max(relative_error(result.x, as_vector(game, 0, path.x)), relative_error(result.y, as_vector(game, 1, path.y)))
    plays = max(relative_error(result.game.trace[seat], [as_vector(game, player, forms[player]) for forms in path.plays])
                for player, seat in ((0, "w"), (1, "p")))
    return averages, plays


@pytest.mark.parametrize("game_name", list(HORIZONS))
@pytest.mark.parametrize("name", list(ORIGINALS))
def test_each_recipe_equals_its_original_loop(name, game_name):
    averages, plays = errors(name, game_name, HORIZONS[game_name], **ORIGINALS[name])
    assert averages <= 1e-10 and plays <= 1e-10, (averages, plays)


@pytest.mark.parametrize("wrong, options", [
    ("simultaneous instead of alternating", dict(ORIGINALS["cfr_plus"], order="simultaneous")),
    ("uniform instead of linear averaging", dict(ORIGINALS["cfr_plus"], averaging=0)),
    ("regrets not clipped (RM)", dict(ORIGINALS["cfr_plus"], local="rm")),
    ("OpenSpiel's indexing (the averages one step earlier)", dict(ORIGINALS["cfr_plus"], order="openspiel")),
    ("DCFR without the discount of the negative regrets", dict(ORIGINALS["dcfr"], beta=float("inf"))),
    ("PCFR+ with the simple prediction", dict(ORIGINALS["pcfr_plus"], prediction="simple")),
])
def test_a_plausible_wrong_algorithm_is_told_apart(wrong, options):
    """Negative controls: the equivalence above fails for each neighbouring algorithm (error far above 1e-10)."""
    name = {"rm+": "cfr_plus", "rm": "cfr_plus", "dcfr": "dcfr", "prm+": "pcfr_plus"}[options["local"]]
    averages, plays = errors(name, "kuhn_poker", 50, **options)
    assert max(averages, plays) > 1e-3, wrong


def test_the_simple_prediction_is_pcfr_plus_with_prediction_simple():
    averages, plays = errors("pcfr_plus", "kuhn_poker", 1, **dict(ORIGINALS["pcfr_plus"], prediction="simple"))
    assert averages == plays == 0.0  # round 1 has no prediction yet
    game = efg.kuhn_poker()
    path = original.cfr(tree_of("kuhn_poker"), 50, trajectory=True, **dict(ORIGINALS["pcfr_plus"], prediction="simple"))
    result = recipes.pcfr_plus(game, 50, prediction="simple")
    assert relative_error(result.x, as_vector(game, 0, path.x)) <= 1e-10


# ------------------------------------------------------------------------------------------ certificates


@pytest.mark.parametrize("name, T", [("kuhn_poker", 2000), ("leduc_poker", 500)])
def test_cfr_plus_brackets_the_exact_value(name, T):
    game = game_of(name)
    value, _ = exact_value(game.A, game.treeplexes)
    if name == "kuhn_poker":
        assert value == pytest.approx(-1 / 18, abs=1e-12)
    result = recipes.cfr_plus(game, T)
    assert isinstance(result.certificate, SequenceFormBracket) and result.certificate is result.game.certificate
    assert result.lower <= value <= result.upper
    assert result.nash_gap == pytest.approx(result.upper - result.lower) and result.exploitability == result.nash_gap / 2
    assert result.nash_gap < (2e-4 if name == "kuhn_poker" else 5e-3)
    policy = result.policy(0)
    assert len(policy) == game.treeplexes[0].number_of_infosets
    assert result.value == pytest.approx(game.value(result.x, result.y), abs=1e-12)


def test_the_certificate_is_the_duality_gap_of_the_averages_when_the_weights_agree():
    game = efg.kuhn_poker()
    result = recipes.cfr(game, 300)  # uniform averages: the runner computes its own duality gap too
    assert result.game.duality_gap == pytest.approx(result.nash_gap, abs=1e-12)
    # a bilinear game: the averages' gap is exactly (R_x + R_y) / T, the two treeplex regrets (Theorem 2 with equality)
    assert result.game.theorem2_bound == pytest.approx(result.game.duality_gap, rel=1e-12)


def test_exploitability_stop_ends_the_run_where_the_averages_reach_eps():
    game = efg.leduc_poker()
    stop = ExploitabilityStop(5e-3)
    result = recipes.cfr_plus(game, 5000, observers=[stop])
    assert result.game.stopped_early and "ExploitabilityStop fired" in result.game.stop_reason
    rounds = result.game.rounds
    assert stop.estimate <= 5e-3 and result.exploitability == pytest.approx(stop.estimate, abs=1e-9)
    assert stop.lower == pytest.approx(result.lower, abs=1e-9) and stop.upper == pytest.approx(result.upper, abs=1e-9)
    before = recipes.cfr_plus(game, rounds - 1)
    assert before.exploitability > 5e-3  # it fired at the first round that reached eps
    every = ExploitabilityStop(5e-3, every=10)
    assert recipes.cfr_plus(game, 5000, observers=[every]).game.rounds == -(-rounds // 10) * 10
    with pytest.raises(ValueError, match="eps must be a positive"):
        ExploitabilityStop(0.0)
    with pytest.raises(ValueError, match="sequence-form game"):
        play(MatrixGame(np.eye(2)), RegretMatching(), RegretMatching(), 3, observers=[ExploitabilityStop(0.1)])


@pytest.mark.parametrize("name", list(ORIGINALS))
def test_a_checkpointed_recipe_resumes_bit_identically(name, tmp_path):
    game = efg.kuhn_poker()
    path = tmp_path / "run.npz"
    stop = ExploitabilityStop(1e-12)

    def crash_at(round_):
        def rule(state):
            if state.t == round_:
                raise KeyError("crash")
            return False
        return rule

    run = getattr(recipes, name)
    fresh = ExploitabilityStop(1e-12)
    uninterrupted = run(game, 40, observers=[fresh])
    with pytest.raises(KeyError):
        run(game, 40, checkpoint=path, checkpoint_every=7, stop=crash_at(30), observers=[stop])
    assert checkpoint_info(path)["round"] == 28
    resumed = run(game, 40, resume_from=path, observers=[stop])
    for field in ("w_sum", "p_sum", "w_last", "p_last"):
        assert np.array_equal(getattr(uninterrupted.game, field), getattr(resumed.game, field)), field
    assert np.array_equal(uninterrupted.x, resumed.x) and uninterrupted.certificate == resumed.certificate
    assert stop.estimate == fresh.estimate and stop.lower == fresh.lower  # the stop's sums came back too


def test_the_recipes_take_a_game_by_name_and_refuse_other_problems():
    by_name = recipes.cfr_plus("kuhn_poker", 20)
    assert np.array_equal(by_name.x, recipes.cfr_plus(efg.kuhn_poker(), 20).x)
    with pytest.raises(TypeError, match="extensive-form game"):
        recipes.cfr(np.eye(3), 10)
    with pytest.raises(ValueError, match="prediction must be"):
        recipes.pcfr_plus("kuhn_poker", 5, prediction="last")
    with pytest.raises(ValueError, match="gamma must be >= 0"):
        recipes.dcfr("kuhn_poker", 5, gamma=-1.0)


def test_linear_cfr_is_dcfr_one_one_one():
    """Brown & Sandholm's LCFR = DCFR(1, 1, 1) equals the original loop with those discounts."""
    game = efg.kuhn_poker()
    path = original.cfr(tree_of("kuhn_poker"), 100, local="dcfr", order="alternating", averaging=1, alpha=1.0, beta=1.0)
    result = recipes.dcfr(game, 100, alpha=1.0, beta=1.0, gamma=1.0)
    assert relative_error(result.x, as_vector(game, 0, path.x)) <= 1e-10


# ------------------------------------------------------------------------------------------- OpenSpiel


def _current(game, player, policy):
    """An OpenSpiel policy's sequence form for ``player`` (its probabilities at every infoset)."""
    return game.sequence_form(player, lambda infoset: dict(policy.get_state_policy(infoset)))


@needs_pyspiel
@pytest.mark.parametrize("name, T", [("kuhn_poker", 60), ("leduc_poker", 20)])
def test_cfr_plus_plays_openspiels_cfr_plus_and_averages_one_step_later(name, T, capsys):
    """OpenSpiel's C++ CFRPlusSolver: after t iterations its current policy is our x_t, y_t; its average (the
    policies before each update, weights 1..T, the uniform start included) is ours shifted by one round."""
    game = game_of(name)
    solver = pyspiel.CFRPlusSolver(pyspiel.load_game(name))
    result = recipes.cfr_plus(game, T, record=True)
    worst = 0.0
    for t in range(T):
        solver.evaluate_and_update_policy()
        current = solver.current_policy()
        for player, seat in ((0, "w"), (1, "p")):
            worst = max(worst, float(np.max(np.abs(_current(game, player, current) - result.game.trace[seat][t]))))
    assert worst <= 1e-10
    average = solver.average_policy()
    theirs = [_current(game, player, average) for player in (0, 1)]
    weights = np.arange(1, T + 1, dtype=np.float64)
    for player, seat in ((0, "w"), (1, "p")):
        plays = result.game.trace[seat]
        earlier = np.vstack([game.uniform(player)[None, :], plays[:-1]])  # x_0 (uniform), ..., x_{T-1}
        shifted = weights @ earlier / weights.sum()
        ours = result.x if player == 0 else result.y
        assert np.max(np.abs(shifted - theirs[player])) <= 1e-10  # OpenSpiel's averages: ours one step earlier
        assert np.max(np.abs(ours - theirs[player])) > 1e-4  # the negative control: the indexing is not ours
    path = original.cfr(tree_of(name), T, **dict(ORIGINALS["cfr_plus"], order="openspiel"))
    assert max(np.max(np.abs(as_vector(game, 0, path.x) - theirs[0])),
               np.max(np.abs(as_vector(game, 1, path.y) - theirs[1]))) <= 1e-10
    with capsys.disabled():
        print(f"\n{name}: cfr_plus vs pyspiel.CFRPlusSolver over {T} iterations: largest difference of the plays "
              f"{worst:.1e}; averages equal OpenSpiel's one step earlier")


@needs_pyspiel
def test_dcfr_plays_openspiels_dcfr():
    from open_spiel.python.algorithms import discounted_cfr

    game = efg.kuhn_poker()
    solver = discounted_cfr.DCFRSolver(pyspiel.load_game("kuhn_poker"))
    T = 40
    result = recipes.dcfr(game, T, record=True)
    for t in range(T):
        solver.evaluate_and_update_policy()
        current = solver.current_policy()
        for player, seat in ((0, "w"), (1, "p")):
            theirs = game.sequence_form(player, lambda infoset: _python_policy(current, infoset))
            assert np.max(np.abs(theirs - result.game.trace[seat][t])) <= 1e-10


def _python_policy(tabular, infoset):
    row = tabular.state_lookup[infoset]
    probabilities = tabular.action_probability_array[row]
    return {action: float(probabilities[action]) for action in range(probabilities.size)}


# --------------------------------------------------------------------------------------------- the learner


def test_the_alternating_runner_charges_the_second_player_after_the_first_plays():
    """Who sees what: y_1 is CFR+'s answer to x_1 (its update after round 1's x); x_1 has seen only y_0."""
    game = efg.kuhn_poker()
    X, Y = game.treeplexes
    result = recipes.cfr_plus(game, 1, record=True)
    x_learner, y_learner = CounterfactualRegret(X, "rm+"), CounterfactualRegret(Y, "rm+")
    payoff = game.payoff()
    xs, ys = x_learner.init(X.dimension), y_learner.init(Y.dimension)
    x0, y0 = x_learner.play(xs, 1.0), y_learner.play(ys, 1.0)
    xs = x_learner.update(xs, x0, payoff.loss_for_w(y0), 1.0)
    x1 = x_learner.play(xs, 1.0)
    ys = y_learner.update(ys, y0, payoff.loss_for_p(x1), 1.0)
    y1 = y_learner.play(ys, 1.0)
    assert np.array_equal(result.game.trace["w"][0], x1) and np.array_equal(result.game.trace["p"][0], y1)
