"""The dilated-entropy recipes (issue 33): each equals its original loop (gamedyn.games.efg.original_dilated) play by
play to 1e-10, the plausible wrong algorithms do not, MMD's last iterate reaches the alpha-QRE computed independently
(a damped logit fixed-point iteration), and the halving schedule brings Leduc's exploitability to 1e-2."""

from __future__ import annotations

import numpy as np
import pytest

from gamedyn import recipes
from gamedyn.games import efg
from gamedyn.games.efg import original, original_dilated
from gamedyn.recipes.mmd import alpha_at

# recipe -> (the original loop's method, the recipe's options)
ORIGINALS = {
    "dilated_hedge": ("ftrl", dict(eta=2.0)),
    "optimistic_dilated_hedge": ("oftrl", dict(eta=2.0)),
    "mmd": ("mmd", dict(eta=2.0, alpha=0.3, schedule="halving", stage=4)),
}
HORIZONS = {"kuhn_poker": 40, "goofspiel(3)": 12, "liars_dice(2)": 12, "leduc_poker": 4}
_TREES: dict = {}


def tree_of(name):
    if name not in _TREES:
        _TREES[name] = original.HistoryTree(efg.load_game(name).rules)
    return _TREES[name]


def as_vector(game, player, values) -> np.ndarray:
    vector = np.zeros(game.treeplexes[player].dimension)
    vector[0] = 1.0
    for (infoset, action), value in values.items():
        vector[game.sequence(player, infoset, action)] = value
    return vector


def relative_error(value, reference) -> float:
    value, reference = np.asarray(value, dtype=np.float64), np.asarray(reference, dtype=np.float64)
    return float(np.linalg.norm(value - reference) / np.linalg.norm(reference))


def path_of(name, game_name, T, options):
    method, _ = ORIGINALS[name]
    alpha = 0.0
    if method == "mmd":
        alpha = lambda t: alpha_at(t, options["alpha"], options["schedule"], options["stage"])  # noqa: E731
    return original_dilated.dilated(tree_of(game_name), T, method=method, eta=options["eta"], alpha=alpha)


@pytest.mark.parametrize("game_name", list(HORIZONS))
@pytest.mark.parametrize("name", list(ORIGINALS))
def test_each_recipe_equals_its_original_loop(name, game_name):
    game, T = efg.load_game(game_name), HORIZONS[game_name]
    _, options = ORIGINALS[name]
    path = path_of(name, game_name, T, options)
    result = getattr(recipes, name)(game, T, record=True, **options)
    if name == "mmd":  # the last iterates after T steps (the stages' traces are each stage's own)
        errors = [relative_error(result.x, as_vector(game, 0, path.last[0])),
                  relative_error(result.y, as_vector(game, 1, path.last[1]))]
    else:
        errors = [relative_error(result.x, as_vector(game, 0, path.x)), relative_error(result.y, as_vector(game, 1, path.y))]
        errors += [relative_error(result.game.trace[seat], [as_vector(game, player, forms[player]) for forms in path.plays])
                   for player, seat in ((0, "w"), (1, "p"))]
    assert max(errors) <= 1e-10, errors


def test_mmd_with_a_constant_alpha_plays_the_original_play_by_play():
    game, T = efg.kuhn_poker(), 40
    path = original_dilated.dilated(tree_of("kuhn_poker"), T, method="mmd", eta=1.5, alpha=0.2)
    result = recipes.mmd(game, T, eta=1.5, alpha=0.2, schedule="constant", record=True)
    for player, seat in ((0, "w"), (1, "p")):
        plays = [as_vector(game, player, forms[player]) for forms in path.plays]
        assert relative_error(result.game.trace[seat], plays) <= 1e-10
    assert relative_error(result.x, as_vector(game, 0, path.last[0])) <= 1e-10


@pytest.mark.parametrize("wrong, method, options", [
    ("FTRL instead of optimistic FTRL", "ftrl", dict(eta=2.0)),
    ("mirror descent without the magnet", "mmd", dict(eta=2.0, alpha=0.0)),
    ("the magnet with alpha not halved", "mmd", dict(eta=2.0, alpha=0.3)),
])
def test_a_plausible_wrong_algorithm_is_told_apart(wrong, method, options):
    name = {"ftrl": "optimistic_dilated_hedge", "mmd": "mmd"}[method]
    game, T = efg.kuhn_poker(), 40
    path = original_dilated.dilated(tree_of("kuhn_poker"), T, method=method, **options)
    result = getattr(recipes, name)(game, T, **ORIGINALS[name][1])
    reference = path.last[0] if name == "mmd" else path.x
    assert relative_error(result.x, as_vector(game, 0, reference)) > 1e-4, wrong


@pytest.mark.parametrize("game_name, alpha", [("kuhn_poker", 0.1), ("kuhn_poker", 0.05), ("goofspiel(3)", 0.1)])
def test_mmd_last_iterate_reaches_the_alpha_qre(game_name, alpha):
    """MMD with a constant alpha converges to the QRE of the game regularized by alpha R (Sokota et al. 2023, Thm 3.4),
    found here independently by a damped fixed-point iteration of the logit best response."""
    game = efg.load_game(game_name)
    qx, qy, _ = original_dilated.qre_fixed_point(tree_of(game_name), alpha, damping=0.2)
    result = recipes.mmd(game, 3000, eta=1.0, alpha=alpha, schedule="constant")
    distance = max(np.abs(result.x - as_vector(game, 0, qx)).max(), np.abs(result.y - as_vector(game, 1, qy)).max())
    assert distance <= 1e-8, distance
    # the QRE is not a Nash equilibrium: alpha > 0 leaves an exploitability a fixed alpha cannot remove
    assert result.exploitability > 1e-4


def test_the_halving_schedule_moves_past_the_qre_where_a_constant_alpha_stalls():
    """A constant alpha stops at the alpha-QRE (Kuhn, alpha = 0.2: exploitability 0.168 at T = 1000, as at T = 3000);
    halving alpha as the stages double goes on towards a Nash equilibrium (0.0025 at T = 1000)."""
    game = efg.kuhn_poker()
    constant = [recipes.mmd(game, T, schedule="constant").exploitability for T in (1000, 3000)]
    halving = recipes.mmd(game, 1000, schedule="halving").exploitability
    assert constant[1] >= 0.1 and abs(constant[1] - constant[0]) <= 1e-6
    assert halving <= 0.01


MOVING = dict(eta=2.0, alpha=0.3, schedule="moving", stage=5, mix=0.05, mix_decay=0.5)


@pytest.mark.parametrize("game_name", list(HORIZONS))
def test_the_moving_magnet_equals_its_original_loop(game_name):
    """schedule="moving": the recipe's last iterates equal the original loop's with its magnet moved every stage rounds to
    the next iterate mixed with uniform (gamedyn.games.efg.original_dilated.dilated(moving=...)), to 1e-10."""
    game = efg.load_game(game_name)
    T = max(HORIZONS[game_name], 12)  # at least two moves of the magnet (stage 5)
    path = original_dilated.dilated(tree_of(game_name), T, method="mmd", eta=2.0, alpha=0.3, moving=(5, 0.05, 0.5))
    result = recipes.mmd(game, T, **MOVING)
    errors = [relative_error(result.x, as_vector(game, 0, path.last[0])), relative_error(result.y, as_vector(game, 1, path.last[1]))]
    assert max(errors) <= 1e-10, errors
    unmoved = original_dilated.dilated(tree_of(game_name), T, method="mmd", eta=2.0, alpha=0.3)  # told apart
    assert relative_error(result.x, as_vector(game, 0, unmoved.last[0])) > 1e-6


def test_the_moving_magnet_reaches_exploitability_1e_2_on_leduc():
    """The acceptance item (issue 33): MMD's last iterate on Leduc reaches exploitability <= 1e-2 with the moving magnet
    (alpha = 0.01, eta = 3, stage = 300; 0.0066 at T = 15,000, about 11 s CPU), where a constant alpha with the same
    settings stays at its alpha-QRE (0.43; Sokota et al. 2023, and see gamedyn.recipes.mmd's docstring)."""
    game = efg.leduc_poker()
    settings = dict(eta=3.0, alpha=0.01, stage=300)
    moving = recipes.mmd(game, 15_000, schedule="moving", **settings)
    assert moving.exploitability <= 1e-2, moving.exploitability
    assert moving.lower <= moving.upper and moving.nash_gap == pytest.approx(2 * moving.exploitability)
    constant = recipes.mmd(game, 2_000, schedule="constant", **settings)
    assert constant.exploitability >= 0.3, constant.exploitability  # the QRE: not a Nash equilibrium


@pytest.mark.parametrize("options, match", [(dict(mix=0.0), "mix must be"), (dict(mix=1.5), "mix must be"),
                                            (dict(mix_decay=0.0), "mix_decay must be"), (dict(mix=True), "mix must be")])
def test_the_moving_magnet_checks_its_shares(options, match):
    with pytest.raises(ValueError, match=match):
        recipes.mmd(efg.kuhn_poker(), 10, schedule="moving", **options)
