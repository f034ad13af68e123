"""Recipes equal their original forms to machine precision; the rate theorems hold; wrong constants fail."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import gamedyn.recipes
from gamedyn import Entropy, FTRL, FTRLPlus, OFTL, OFTRL, RegularizedBilinear, play
from gamedyn.games.margin import original
from gamedyn.paper import rates
from gamedyn.io import make_separable, make_separable_lp, signed_rows
from gamedyn.certify import max_margin, max_margin_q
from gamedyn.paper.registry import EQUIVALENCES, relative_error
from gamedyn import record_plays

# n < d, n > d, a margin near 0.01, square, and a tiny one.
DATASETS = {
    "n<d": (20, 50, 0.05, 0),
    "n>d": (200, 5, 0.1, 1),
    "margin~0.01": (300, 3, 0.01, 2),
    "square": (40, 40, 0.03, 3),
    "tiny": (3, 2, 0.2, 4),
}


def data(name):
    return signed_rows(*make_separable(*DATASETS[name]))


@pytest.fixture(scope="module", params=sorted(DATASETS))
def A(request):
    return data(request.param)


def test_margin_dataset_is_near_001():
    assert 0.01 <= max_margin(data("margin~0.01")).gamma < 0.02


@pytest.mark.parametrize("equivalence", EQUIVALENCES, ids=[e.claim for e in EQUIVALENCES])
@pytest.mark.parametrize("T", [1, 2, 3, 10, 100])
def test_recipe_equals_original(A, equivalence, T):
    for label, error in equivalence.errors(A, T).items():
        assert error <= 1e-10, f"{equivalence.claim}, {label}: relative error {error:.2e} at T = {T}"


@pytest.mark.slow
@pytest.mark.parametrize("equivalence", EQUIVALENCES, ids=[e.claim for e in EQUIVALENCES])
def test_recipe_equals_original_at_long_horizon(equivalence):
    A = data("margin~0.01")
    for label, error in equivalence.errors(A, 1500).items():
        assert error <= 1e-9, f"{equivalence.claim}, {label}: relative error {error:.2e} at T = 1500"


@pytest.mark.parametrize("eta_w, eta_p", [(0.3, 2.0), (1.0, 1.0), (5.0, 3.0)])
def test_mirror_prox_equivalence_holds_for_any_steps(eta_w, eta_p):
    A = data("n>d")
    recipe = gamedyn.recipes.mirror_prox_perceptron(A, 50, eta_w=eta_w, eta_p=eta_p)
    w_bar, p_bar = original.mirror_prox(A, 50, eta_w, eta_p)
    assert relative_error(recipe.w, w_bar) <= 1e-12 and relative_error(recipe.p, p_bar) <= 1e-12


def test_recipes_accept_sparse_and_float32():
    A = data("n<d")
    for recipe in (gamedyn.recipes.smooth_perceptron, gamedyn.recipes.nag_margin, gamedyn.recipes.mirror_prox_perceptron):
        dense = recipe(A, 30)
        assert relative_error(recipe(sp.csr_matrix(A), 30).w, dense.w) <= 1e-12
        assert relative_error(recipe(A.astype(np.float32), 30).w, dense.w) <= 1e-5


# ------------------------------------------------------------------------------- negative controls


def test_wrong_theorem6_constant_fails():
    A = data("n>d")
    for T in (1, 2, 10, 100):
        result = gamedyn.recipes.nag_margin(A, T)
        assert relative_error(original.nag(A, T), 2 * result.game.w_average) > 0.2  # the seed's "s_T = 2 w_bar_T"
        assert relative_error(original.nag(A, T), T * (T + 1) / 8 * result.game.w_average) <= 1e-12


def test_wrong_proposition2_constants_fail():
    A = data("n>d")
    for T in (2, 10, 100):
        v, q = original.accelerated_perceptron(A, T)
        right = play(RegularizedBilinear(A), OFTL(), FTRLPlus(Entropy(), 1 / 4), T, weights="linear")
        wrong_eta = play(RegularizedBilinear(A), OFTL(), FTRLPlus(Entropy(), 1 / 2), T, weights="linear")
        assert relative_error(right.w_sum / 4, v) <= 1e-12
        assert relative_error(right.w_sum / 2, v) > 0.5          # c = 1/2
        assert relative_error(wrong_eta.w_sum / 2, v) > 0.5      # eta = c = 1/2
        assert relative_error(wrong_eta.w_sum / 4, v) > 5e-3     # eta = 1/2 alone
        assert relative_error(wrong_eta.p_last, q) > 5e-2


def _algorithm4_game(A, T, p, eta_w, eta_p):
    from gamedyn import Bilinear, QNorm

    return play(Bilinear(A), OFTRL(QNorm(p / (p - 1)), eta_w), FTRLPlus(Entropy(), eta_p), T, observers=[record_plays()])


@pytest.mark.parametrize("p", [2.0, 4.0])
def test_wrong_algorithm4_constants_fail(A, p):
    """Issue 11 item 8: Algorithm 4 with eta_p = 2/eta_w (breaks Theorem 7's eta_p <= 1/eta_w) or without
    the square root of eta_w is caught by the independent loop, by at least 7 orders of magnitude."""
    n = A.shape[0]
    q = p / (p - 1)
    eta_w = 1 / np.sqrt(2 * (q - 1) * np.log(n))
    no_root = 1 / (2 * (q - 1) * np.log(n))
    for T in (1, 2, 3, 10, 100):
        path = original.accelerated_pnorm_perceptron(A, T, p, trajectory=True)

        def error(game):
            return max(relative_error(game.trace["w"], path.w), relative_error(game.trace["p"], path.pi))

        assert error(_algorithm4_game(A, T, p, eta_w, 1 / eta_w)) <= 1e-12  # the right constants
        assert error(_algorithm4_game(A, T, p, eta_w, 2 / eta_w)) > 1e-3  # eta_p = 2/eta_w
        # Without the root, w_t is rescaled by sqrt(2(q-1) log n)^-1 and pi_t is unchanged (f_p is 1-homogeneous):
        # the direction survives, the iterates do not.
        assert error(_algorithm4_game(A, T, p, no_root, 1 / no_root)) > 0.1


def test_non_optimistic_nag_player_fails():
    A = data("n>d")
    v = original.nag(A, 20)
    game = play(RegularizedBilinear(A), FTRLPlus(), FTRL(Entropy(), 1 / 4), 20, weights="linear", first="p")
    assert relative_error(game.w_sum / 4, v) > 1e-3


def test_plain_omd_is_not_mirror_prox():
    from gamedyn import OMD, Bilinear, MirrorDescent, SquaredEuclidean

    A = data("n>d")
    n = A.shape[0]
    w_bar, _ = original.mirror_prox(A, 30)
    eta_w, eta_p = 1 / np.sqrt(2 * np.log(n)), np.sqrt(2 * np.log(n))
    path = original.mirror_prox(A, 30, trajectory=True)
    last_loss = play(Bilinear(A), OMD(SquaredEuclidean(radius=1.0), eta_w), OMD(Entropy(), eta_p), 30, observers=[record_plays()])
    plain = play(Bilinear(A), MirrorDescent(SquaredEuclidean(radius=1.0), eta_w), MirrorDescent(Entropy(), eta_p), 30,
                 observers=[record_plays()])
    assert relative_error(last_loss.trace["w"], path.w_half) > 1e-3  # the "last loss" hints of spec 7.2's table
    assert relative_error(plain.trace["w"], path.w_half) > 1e-2


# ------------------------------------------------------------------------------------- rate bounds


@pytest.mark.parametrize("T", [1, 2, 5, 20, 100, 300])
def test_rate_theorems_3_to_6_hold(A, T):
    oracle = max_margin(A)
    for theorem in (rates.theorem3, rates.theorem4, rates.theorem5, rates.theorem6):
        for check in theorem(A, T, oracle=oracle):
            assert check.holds, f"Theorem {check.theorem}: {check.quantity} = {check.measured} vs bound {check.bound} at T = {T}"


@pytest.mark.parametrize("p", [2.0, 3.0, 6.0])
@pytest.mark.parametrize("T", [1, 5, 50, 300])
def test_rate_theorem_7_holds(p, T):
    A = signed_rows(*make_separable_lp(60, 30, p, 0.05, 5))
    oracle = max_margin_q(A, p / (p - 1))
    for check in rates.theorem7(A, T, p, oracle=oracle):
        assert check.holds, f"Theorem 7: {check.quantity} = {check.measured} vs bound {check.bound} at T = {T}, p = {p}"


def test_rate_checks_detect_a_violation():
    check = rates.RateCheck("x", "q", measured=2.0, bound=1.0, relation="<=")
    assert not check.holds and check.slack == -1.0


def test_positive_margin_within_the_theorem_horizons():
    A = data("margin~0.01")
    oracle = max_margin(A)
    n, gamma = A.shape[0], oracle.gamma
    T = int(np.ceil(np.sqrt(8 * np.log(n)) / gamma)) + 1  # T(T+1) > 8 log n / gamma^2
    assert np.min(A @ gamedyn.recipes.smooth_perceptron(A, T).w) > 0
    assert np.min(A @ gamedyn.recipes.nag_margin(A, int(np.ceil(np.sqrt(8 * np.log(n) + 2) / gamma)) + 1).w) > 0
    T5 = int(np.floor(np.sqrt(2 * np.log(n)) / gamma)) + 1
    assert np.min(A @ gamedyn.recipes.mirror_prox_perceptron(A, T5).w) > 0


# ---------------------------------------------------------------------------------------- contract


def test_recipe_contract_meanings():
    A = data("n>d")
    T = 7
    smooth = gamedyn.recipes.smooth_perceptron(A, T)
    accelerated = gamedyn.recipes.accelerated_perceptron(A, T)
    np.testing.assert_allclose(accelerated.w, T * (T + 1) / 8 * smooth.w, rtol=1e-13)
    np.testing.assert_allclose(smooth.w, smooth.game.w_average)
    assert smooth.game.theorem2_bound is not None
    ji = gamedyn.recipes.accelerated_perceptron(A, T, theta="ji")
    assert ji.game.theorem2_bound is None  # the two players use different weights


@pytest.mark.parametrize("call, message", [
    (lambda A: gamedyn.recipes.accelerated_perceptron(A, 5, theta="nesterov"), "theta must be"),
    (lambda A: gamedyn.recipes.pnorm_perceptron(A, 5, p=1.5), "p must be a real number >= 2"),
    (lambda A: gamedyn.recipes.mirror_prox_perceptron(A, 5, eta_w=-1.0), "eta_w"),
    (lambda A: gamedyn.recipes.smooth_perceptron(A, 0), "T must be >= 1"),
    (lambda A: gamedyn.recipes.nag_margin(A[:, :, None], 5), "2-D"),
])
def test_recipes_validate_inputs(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call(data("tiny"))


def test_signed_rows_validates_labels():
    with pytest.raises(ValueError, match=r"-1 and \+1"):
        signed_rows(np.ones((3, 2)), np.array([0, 1, 1]))


def test_recipes_import_as_gamedyn_recipes_modules():
    import importlib

    for name in ("smooth_perceptron", "accelerated_perceptron", "mirror_prox_perceptron", "nag_margin", "pnorm_perceptron"):
        module = importlib.import_module(f"gamedyn.recipes.{name}")
        assert callable(getattr(module, name))


@pytest.mark.parametrize("p", [2.0, 4.0])
def test_theorem7_worst_case_regret_is_the_sup_over_the_q_ball(p):
    """rates.theorem7's 'max_u R_w(u) + R_p' is the supremum over ||u||_q <= 1: no sampled u exceeds it, and
    u = f_p(A^T sum_t pi_t) / ||.||_q attains it (Hoelder's equality case)."""
    from gamedyn.core.numerics import pnorm_link

    A = signed_rows(*make_separable_lp(60, 8, p, 0.05, 5))
    q = p / (p - 1)
    checks = {check.quantity: check for check in rates.theorem7(A, 50, p)}
    run = gamedyn.recipes.pnorm_perceptron(A, 50, p=p)
    sup = checks["max_u R_w(u) + R_p"].measured
    rng = np.random.default_rng(0)
    for _ in range(200):
        u = rng.standard_normal(A.shape[1])
        u /= np.linalg.norm(u, ord=q)
        assert run.game.w_regret_against(u) + run.game.p_regret <= sup + 1e-12 * abs(sup)
    u = pnorm_link(A.T @ run.game.p_sum, p)  # grad ||theta||_p^2 / 2 has q-norm ||theta||_p
    u /= np.linalg.norm(u, ord=q)
    assert run.game.w_regret_against(u) + run.game.p_regret == pytest.approx(sup, rel=1e-12)
    assert checks["eta_w eta_p"].measured == pytest.approx(1.0, rel=1e-15)


# ------------------------------------------------------------------ declarations (issue 8 item 6)


def test_every_recipe_module_declares_itself_once():
    """Every public module of recipes/ declares the recipe named after it (one ``@recipe``), of every family."""
    import importlib
    import pkgutil

    from gamedyn.engine.recipe import Recipe
    from gamedyn.paper.registry import recipe_entries

    modules = [info.name for info in pkgutil.iter_modules(gamedyn.recipes.__path__) if not info.name.startswith("_")]
    assert sorted(gamedyn.recipes.RECIPES) == sorted(modules)  # every declaration found, nothing else
    assert {recipe.family.name for recipe in gamedyn.recipes.RECIPES.values()} == {"margin", "matrix", "fenchel", "efg"}
    # 5 margin, 7 matrix (issue 18: regret matching x 3, AdaHedge), 3 Fenchel, 8 extensive-form (issue 32: the CFR
    # family x 4; issue 33: dilated Hedge, optimistic dilated Hedge, MMD, optimistic MMD)
    assert len(modules) == 23
    for name in modules:
        declaration = getattr(importlib.import_module(f"gamedyn.recipes.{name}"), name).recipe
        assert isinstance(declaration, Recipe)
        assert declaration.name == name and declaration.function is getattr(gamedyn.recipes, name)
        assert len(declaration.game) >= 6  # payoff, w-player, p-player, weights, first mover, output
    assert [entry.name for entry in recipe_entries()] == list(gamedyn.recipes.RECIPES)
    assert all(entry.recipe is gamedyn.recipes.RECIPES[entry.name] for entry in recipe_entries())


@pytest.mark.parametrize("name, options", [
    ("smooth_perceptron", {}), ("accelerated_perceptron", {"theta": "wang"}), ("accelerated_perceptron", {"theta": "ji"}),
    ("mirror_prox_perceptron", {}), ("nag_margin", {}), ("pnorm_perceptron", {"p": 3.0}),
])
def test_a_declared_output_rule_reads_the_final_result_and_every_round(name, options):
    recipe = gamedyn.recipes.RECIPES[name]
    A = data("n>d")
    rounds = {}

    def stop(state):
        rounds[state.t] = recipe.read_output(state, **options)
        return False

    result = recipe.run(A, 12, stop=stop, **options)
    np.testing.assert_allclose(recipe.read_output(result.game, **options), result.w, rtol=1e-13, atol=0)
    for t in (1, 5, 12):  # round t's output is the T = t run's output
        np.testing.assert_allclose(rounds[t], recipe.run(A, t, **options).w, rtol=1e-12, atol=0)


@settings(max_examples=200, deadline=None)
@given(constant=st.floats(1e-3, 1e3), gamma=st.floats(1e-3, 1.0))
def test_declared_round_counts_are_the_first_rounds_the_bounds_turn_positive(constant, gamma):
    """``rounds_with_quadratic_rate``: the smallest T with gamma - constant/(gamma T(T+1)) > 0 (Theorems 4, 6);
    ``rounds_with_linear_rate``: the smallest T with gamma - constant/T > 0 (Theorems 5, 7)."""
    from gamedyn.engine.recipe import rounds_with_linear_rate, rounds_with_quadratic_rate

    T = rounds_with_quadratic_rate(constant, gamma)
    assert T >= 1 and T * (T + 1) > constant / gamma**2 * (1 - 1e-12)
    assert (T - 1) * T <= constant / gamma**2 * (1 + 1e-12)
    T = rounds_with_linear_rate(constant, gamma)
    assert T >= 1 and T > constant / gamma * (1 - 1e-12) and T - 1 <= constant / gamma * (1 + 1e-12)
