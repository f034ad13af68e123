"""Certificates: the bracket L_t <= gamma* <= U_t every round, certified stopping, Gordan witnesses, validation."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import gamedyn.recipes as recipes
from gamedyn import Bilinear, ConcaveConvex, OMD, Entropy, SquaredEuclidean, play, positive_margin, stops
from gamedyn.certificates import Certificate, CertificateTracker, vector_norm
from gamedyn.datasets import make_separable, make_separable_lp, signed_rows
from gamedyn.margins import max_margin, max_margin_q

# Rounding: the per-round ends are read off running sums of t terms; 1e-12 relative covers their
# accumulated rounding (t <= 2000 terms of size <= 1) and the oracle's own gap (<= 1e-14).
ROUNDING = 1e-12

# name -> (call(A, T, **options), norm of the data). Each recipe's output is its certificate's subject.
RECIPES = {
    "smooth": lambda A, T, **k: recipes.smooth_perceptron(A, T, **k),
    "accelerated_wang": lambda A, T, **k: recipes.accelerated_perceptron(A, T, **k),
    "accelerated_ji": lambda A, T, **k: recipes.accelerated_perceptron(A, T, theta="ji", **k),
    "nag": lambda A, T, **k: recipes.nag_margin(A, T, **k),
    "mirror_prox": lambda A, T, **k: recipes.mirror_prox_perceptron(A, T, **k),
    "pnorm_p3": lambda A, T, **k: recipes.pnorm_perceptron(A, T, 3.0, **k),
}
SEPARABLE = {"n>d": (120, 6, 0.08, 1), "n<d": (15, 30, 0.1, 2), "thin": (200, 3, 0.02, 3)}


def separable(name, recipe):
    n, d, gamma, seed = SEPARABLE[name]
    if recipe.startswith("pnorm"):
        return signed_rows(*make_separable_lp(n, d, 3.0, gamma, seed))
    return signed_rows(*make_separable(n, d, gamma, seed))


def exact_bracket(A, recipe):
    """(gamma* lower end, gamma* upper end) from the exact oracle in the recipe's norm."""
    if recipe.startswith("pnorm"):
        oracle = max_margin_q(A, 1.5)
        return oracle.lower, oracle.upper
    oracle = max_margin(A)
    return oracle.gamma, oracle.upper


class Recorder:
    """A stop rule that never fires and records the tracker's ends every round."""

    __name__ = "recorder"

    def __init__(self):
        self.lower, self.upper = [], []

    def __call__(self, state):
        self.lower.append(state.certificate_tracker.lower)
        self.upper.append(state.certificate_tracker.upper)
        return False


@pytest.mark.parametrize("data_name", sorted(SEPARABLE))
@pytest.mark.parametrize("recipe", sorted(RECIPES))
def test_bracket_holds_every_round(recipe, data_name):
    A = separable(data_name, recipe)
    gamma_low, gamma_high = exact_bracket(A, recipe)
    recorder = Recorder()
    result = RECIPES[recipe](A, 400, stop=recorder)
    lower, upper = np.array(recorder.lower), np.array(recorder.upper)
    assert len(lower) == 400
    assert np.all(lower <= gamma_high * (1 + ROUNDING)), f"L_t above gamma* at t = {np.argmax(lower > gamma_high) + 1}"
    assert np.all(upper >= gamma_low * (1 - ROUNDING)), f"U_t below gamma* at t = {np.argmax(upper < gamma_low) + 1}"
    assert np.all(np.diff(upper) <= 0), "U_t is a running minimum"
    certificate = result.certificate
    # The final certificate's ends are exact: the output's normalised margin and ||A^T p|| at the witness.
    q = 1.5 if recipe.startswith("pnorm") else 2.0
    w = result.w
    assert certificate.lower == pytest.approx(np.min(A @ w) / vector_norm(w, q), rel=1e-12)
    assert certificate.upper == pytest.approx(vector_norm(A.T @ certificate.p, 1 / (1 - 1 / q)), rel=1e-12)
    assert certificate.upper <= upper[-1] * (1 + ROUNDING)
    assert certificate.lower <= gamma_high * (1 + ROUNDING) and certificate.upper >= gamma_low * (1 - ROUNDING)
    assert np.all(certificate.p >= 0) and math.isclose(np.sum(certificate.p), 1.0, rel_tol=1e-12)
    assert certificate.separable is (True if certificate.lower > 0 else None)


@pytest.mark.parametrize("recipe", sorted(RECIPES))
def test_margin_within_stops_with_true_relative_gap(recipe):
    A = separable("n>d", recipe)
    gamma_low, gamma_high = exact_bracket(A, recipe)
    result = RECIPES[recipe](A, 20_000, stop=stops.margin_within(0.01))
    assert result.game.stopped_early
    certificate = result.certificate
    assert certificate.relative_gap <= 0.01 * (1 + ROUNDING)
    assert (gamma_high - certificate.lower) / gamma_high <= 0.01


def test_sharpened_bound_is_valid_and_stops_no_later():
    A = separable("thin", "smooth")
    gamma = max_margin(A).gamma
    plain = recipes.smooth_perceptron(A, 20_000, stop=stops.margin_within(0.05))
    sharp = recipes.smooth_perceptron(A, 20_000, stop=stops.margin_within(0.05, sharpen_every=5))
    assert sharp.game.rounds <= plain.game.rounds
    assert sharp.certificate.upper >= gamma * (1 - ROUNDING)
    assert (gamma - sharp.certificate.lower) / gamma <= 0.05


def test_separated_fires_with_positive_margin():
    A = separable("thin", "smooth")
    a = recipes.smooth_perceptron(A, 5000, stop=stops.separated)
    b = recipes.smooth_perceptron(A, 5000, stop=positive_margin)
    assert a.game.rounds == b.game.rounds and a.certificate.separable is True and a.certificate.lower > 0


# ----------------------------------------------------------------------------- non-separable data


def xor():
    X = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]]) / np.sqrt(2)
    return signed_rows(X, np.array([1.0, 1.0, -1.0, -1.0]))


def point_and_negation():
    x = np.array([0.6, 0.3, -0.2])
    return signed_rows(np.vstack([x, -x]), np.array([1.0, 1.0]))


def flipped_labels():
    X, y = make_separable(150, 5, 0.05, 7)
    y = y.copy()
    y[::10] *= -1  # 10 % of the labels flipped
    return signed_rows(X, y)


NON_SEPARABLE = {"xor": xor, "point_and_negation": point_and_negation, "flipped_labels": flipped_labels}


def budget(recipe, n, eps, p=2.0):
    """The first T at which the theorem guarantees U_T <= eps when gamma* = 0 (Theorem 2 with each recipe's regrets).

    smooth / accelerated (R_w + R_p <= 4 log n, S_T = T(T+1)/2):  ||A^T p_bar||^2 / 2 <= 8 log n / (T(T+1));
    NAG (R_w + R_p <= 4 log n + 1):  ||A^T p_bar||^2 / 2 <= 2 (4 log n + 1) / (T(T+1));
    mirror prox (Theorem 5, default steps):  ||A^T p_bar|| <= sqrt(2 log n) / T;
    p-norm (Theorem 7):  ||A^T pi_bar||_p <= sqrt(2 (p - 1) log n) / T.
    """
    bound = {
        "smooth": lambda T: math.sqrt(16 * math.log(n) / (T * (T + 1))),
        "accelerated_wang": lambda T: math.sqrt(16 * math.log(n) / (T * (T + 1))),
        "nag": lambda T: math.sqrt(4 * (4 * math.log(n) + 1) / (T * (T + 1))),
        "mirror_prox": lambda T: math.sqrt(2 * math.log(n)) / T,
        "pnorm_p3": lambda T: math.sqrt(2 * (p - 1) * math.log(n)) / T,
    }[recipe]
    T = 1
    while bound(T) > eps:
        T += 1
    return T


@pytest.mark.parametrize("data_name", sorted(NON_SEPARABLE))
@pytest.mark.parametrize("recipe", ["smooth", "accelerated_wang", "nag", "mirror_prox", "pnorm_p3"])
def test_infeasible_stops_within_budget_with_gordan_witness(recipe, data_name):
    A = NON_SEPARABLE[data_name]()
    if recipe.startswith("pnorm"):
        A, _ = A / np.max(np.sum(np.abs(A) ** 3, axis=1) ** (1 / 3)), None
    eps = 0.02
    T_budget = budget(recipe, A.shape[0], eps, p=3.0)
    result = RECIPES[recipe](A, 10 * T_budget, stop=stops.infeasible(eps))
    certificate = result.certificate
    assert result.game.stopped_early and result.game.rounds <= T_budget, (result.game.rounds, T_budget)
    assert certificate.separable is False
    dual = 3.0 if recipe.startswith("pnorm") else 2.0
    assert vector_norm(A.T @ certificate.p, dual) <= eps
    assert np.all(certificate.p >= 0) and math.isclose(np.sum(certificate.p), 1.0, rel_tol=1e-12)
    assert "not separable" in certificate.verdict()


def test_infeasible_on_separable_data_leaves_it_undecided():
    """A tiny margin below eps: U_t <= eps fires, but the LP finds no zero combination, so no false verdict."""
    A = signed_rows(*make_separable(60, 3, 0.01, 5))
    gamma = max_margin(A).gamma
    result = recipes.mirror_prox_perceptron(A, 100_000, stop=stops.infeasible(2 * gamma))
    assert result.game.stopped_early and result.certificate.separable is not False
    assert result.certificate.upper >= gamma * (1 - ROUNDING)


def test_any_of_sees_every_round_and_names_the_rule():
    A = flipped_labels()
    rule = stops.any_of(stops.margin_within(0.01), stops.infeasible(0.05))
    result = recipes.smooth_perceptron(A, 5000, stop=rule)
    assert result.game.stopped_early and "infeasible(0.05)" in result.game.stop_reason
    assert result.certificate.separable is False


# ------------------------------------------------------------------------------------------ runner


def test_game_result_has_a_certificate_for_bilinear_payoffs_only():
    A = separable("n>d", "smooth")
    ball, simplex = SquaredEuclidean(radius=1.0), Entropy()
    game = play(Bilinear(A), OMD(ball, 0.5), OMD(simplex, 0.5), 50)
    assert isinstance(game.certificate, Certificate)
    general = ConcaveConvex(lambda w, p: p @ A @ w, lambda w, p: A.T @ p, lambda w, p: A @ w,
                            w_dimension=A.shape[1], p_dimension=A.shape[0])
    game = play(general, OMD(ball, 0.5), OMD(simplex, 0.5), 5)
    assert game.certificate is None
    with pytest.raises(ValueError, match="bilinear game"):
        play(general, OMD(ball, 0.5), OMD(simplex, 0.5), 5, stop=stops.separated)


def test_certificate_on_sparse_and_float32_matches_dense():
    A = separable("n<d", "smooth")
    dense = recipes.smooth_perceptron(A, 100).certificate
    for variant in (sp.csr_matrix(A), A.astype(np.float32)):
        other = recipes.smooth_perceptron(variant, 100).certificate
        tolerance = 1e-12 if sp.issparse(variant) else 1e-5
        assert other.lower == pytest.approx(dense.lower, rel=tolerance)
        assert other.upper == pytest.approx(dense.upper, rel=tolerance)


@pytest.mark.parametrize("bad", [0, -0.1, math.inf, math.nan, "0.1", True])
def test_stop_rules_reject_bad_eps(bad):
    with pytest.raises((ValueError, TypeError), match="eps"):
        stops.margin_within(bad)
    with pytest.raises((ValueError, TypeError), match="eps"):
        stops.infeasible(bad)


def test_stop_rules_reject_bad_every_and_empty_any_of():
    with pytest.raises(ValueError, match="every"):
        stops.margin_within(0.1, every=0)
    with pytest.raises(TypeError, match="any_of"):
        stops.any_of()
    with pytest.raises(TypeError, match="any_of"):
        stops.any_of(0.1)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-10**6, 10**6), min_size=1, max_size=8),
       st.integers(-300, 300), st.sampled_from([2.0, 3.0, 1.5]))
def test_vector_norm_is_homogeneous_at_every_scale(values, exponent, order):
    z = np.array(values) / 1000.0  # entries 0 or of size 1e-3..1e3, so z * 10^exponent stays normal
    reference = float(np.sum(np.abs(z) ** order) ** (1 / order))
    assert vector_norm(z * 10.0**exponent, order) == pytest.approx(reference * 10.0**exponent, rel=1e-12, abs=0)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 12), st.integers(1, 6), st.integers(0, 10_000))
def test_tracker_upper_is_a_valid_dual_bound_on_any_data(n, d, seed):
    """Any rows, any run: U_t >= ||A^T p*|| for the min-norm point p* (weak duality), and L_t <= U_t."""
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, d))
    A /= np.max(np.linalg.norm(A, axis=1))
    recorder = Recorder()
    recipes.smooth_perceptron(A, 30, stop=recorder)
    try:
        gamma = max_margin(A).gamma
    except ValueError:
        gamma = 0.0
    assert np.all(np.array(recorder.upper) >= gamma * (1 - ROUNDING))
    assert np.all(np.array(recorder.lower) <= np.array(recorder.upper) * (1 + ROUNDING) + 1e-15)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 12), st.integers(1, 6), st.integers(0, 10_000), st.sampled_from(["smooth_perceptron", "nag_margin"]))
def test_shared_dual_sum_gives_the_certificate_of_the_trackers_own_sum(n, d, seed, recipe):
    """One weight sequence: the tracker reads sum_t alpha_t p_t off the runner's p play sum
    (share_dual_sum). Every round's U_t, the final bracket and the witness (also when it is the
    average of an earlier round, taken back out of the shared sum) equal those of a tracker that
    keeps its own sum, to rounding; the witness stays a distribution."""
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, d))
    A /= np.max(np.linalg.norm(A, axis=1))
    runs = []
    for share in (True, False):
        recorder = Recorder()
        original_share = CertificateTracker.share_dual_sum
        if not share:
            CertificateTracker.share_dual_sum = lambda self, p_play_sum: None
        try:
            result = getattr(recipes, recipe)(A, 25, stop=recorder)
        finally:
            CertificateTracker.share_dual_sum = original_share
        runs.append((recorder, result.game.certificate))
    (shared, certificate), (own, reference) = runs
    assert shared.upper == own.upper  # U_t is read off the w-player's loss sum: untouched by the sharing
    # The witness differs by the rounding of its entries (<= 1): a few eps absolute. ||a_i|| <= 1, so
    # ||A^T p|| moves by at most about n eps however small it is (it is ~1e-5 on rows whose hull holds 0).
    assert np.max(np.abs(certificate.p - reference.p)) <= 8 * np.finfo(float).eps
    assert abs(certificate.upper - reference.upper) <= 8 * n * np.finfo(float).eps
    assert np.all(certificate.p >= 0) and abs(np.sum(certificate.p) - 1.0) <= 8 * n * np.finfo(float).eps


def test_tracker_confirm_infeasible_fails_on_separable_rows():
    A = separable("n>d", "smooth")
    tracker = CertificateTracker(A)
    assert tracker.confirm_infeasible() is False and tracker.separable_exact is None


# -------------------------------------------------------------------------------------- validation


@pytest.mark.parametrize("recipe", sorted(RECIPES))
def test_rows_longer_than_one_raise_naming_normalize(recipe):
    A = 3.0 * separable("n>d", recipe)
    with pytest.raises(ValueError, match="normalize=True"):
        RECIPES[recipe](A, 5)


@pytest.mark.parametrize("recipe", sorted(RECIPES))
def test_normalize_rescales_and_records_the_factor(recipe):
    A = separable("n>d", recipe)
    reference = RECIPES[recipe](A, 30)
    scaled = RECIPES[recipe](7.5 * A, 30, normalize=True)
    norm = 3.0 if recipe.startswith("pnorm") else 2.0
    expected = 7.5 * np.max(np.sum(np.abs(A) ** norm, axis=1) ** (1 / norm))
    assert scaled.row_scale == pytest.approx(expected, rel=1e-14)
    assert reference.row_scale == 1.0
    # the rescaled rows have max norm 1, so the run is the run on A / max||a_i||
    again = RECIPES[recipe](A / (expected / 7.5), 30)
    np.testing.assert_allclose(scaled.w, again.w, rtol=1e-12, atol=1e-300)


def test_normalize_accepts_sparse_and_float32_and_rejects_non_bool():
    A = 4.0 * separable("n<d", "smooth")
    result = recipes.smooth_perceptron(sp.csr_matrix(A), 10, normalize=True)
    assert result.row_scale == pytest.approx(4.0 * np.max(np.linalg.norm(A / 4.0, axis=1)), rel=1e-14)
    result = recipes.smooth_perceptron(A.astype(np.float32), 10, normalize=True)
    assert result.row_scale == pytest.approx(4.0 * np.max(np.linalg.norm(A / 4.0, axis=1)), rel=1e-6)
    with pytest.raises(TypeError, match="normalize"):
        recipes.smooth_perceptron(A, 10, normalize="yes")
    with pytest.raises(ValueError, match="zero"):
        recipes.smooth_perceptron(np.zeros((3, 2)), 10, normalize=True)


def test_rows_at_norm_one_within_rounding_are_accepted():
    A = separable("n>d", "smooth")
    A = A / np.linalg.norm(A, axis=1, keepdims=True)  # every row at norm 1 up to rounding
    assert recipes.smooth_perceptron(A, 3).row_scale == 1.0
    huge = 1e300 * A
    assert recipes.smooth_perceptron(huge, 3, normalize=True).row_scale == pytest.approx(1e300, rel=1e-14)


@pytest.mark.parametrize("bad", [3, 1, 0.5, "2", True, math.nan])
def test_play_rejects_a_bad_margin_norm(bad):
    A = separable("n>d", "smooth")
    with pytest.raises(ValueError, match="margin_norm"):
        play(Bilinear(A), OMD(SquaredEuclidean(radius=1.0), 0.5), OMD(Entropy(), 0.5), 5, margin_norm=bad)


def test_sharpen_every_is_named_in_its_error():
    with pytest.raises(ValueError, match="sharpen_every"):
        stops.margin_within(0.1, sharpen_every=-1)


def test_matrix_games_carry_no_margin_certificate():
    """w in a simplex (a matrix game's row player) is not the margin game: no certificate is claimed."""
    from gamedyn.recipes import hedge

    assert hedge([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], 20).game.certificate is None


def test_unit_rows_in_high_dimension_pass_despite_rounding():
    """Regression: perceptron_hard_instance(0.02) + decoy (d = 2501) computes a row norm of 1 + 83 eps."""
    from gamedyn.datasets import add_decoy, perceptron_hard_instance

    A = add_decoy(perceptron_hard_instance(0.02))
    assert recipes.smooth_perceptron(A, 2).row_scale == 1.0
    with pytest.raises(ValueError, match="normalize=True"):
        recipes.smooth_perceptron(A * (1 + 1e-9), 2)


# ---- batched games: one bracket per game -------------------------------------------------------


def _three_games(seed):
    """Three one-vs-rest games on one X: two separable with different margins, and a third whose
    labels flip 5 % of the second's (not separable)."""
    X, y = make_separable(300, 5, 0.05, seed)
    _, z = make_separable(300, 5, 0.02, seed + 1)
    flipped = y.copy()
    flipped[::20] *= -1
    Y = np.stack([y, np.where(np.sign(X @ np.arange(1.0, 6.0)) >= 0, 1.0, -1.0), flipped], axis=1)
    return X / np.max(np.linalg.norm(X, axis=1)), Y


@pytest.mark.parametrize("recipe", ["smooth_perceptron", "accelerated_perceptron", "nag_margin"])
@pytest.mark.parametrize("seed", [0, 3])
def test_batched_brackets_hold_for_every_game_every_round_and_match_separate_runs(recipe, seed):
    from gamedyn.batched import one_vs_rest

    X, Y = _three_games(seed)
    rows = [signed_rows(X, Y[:, k]) for k in range(3)]
    bounds = []
    for A in rows:
        try:
            oracle = max_margin(A)
            bounds.append((oracle.gamma, oracle.upper))
        except ValueError:
            bounds.append((-math.inf, 0.0))  # not separable: gamma* <= 0 (lower must stay <= 0)
    seen = []

    def check(round_state):
        tracker = round_state.certificate_tracker
        for k, (gamma, upper) in enumerate(bounds):
            assert tracker.lower[k] <= max(upper, 0.0) * (1 + 1e-12) + 1e-15
            if gamma > -math.inf:
                assert tracker.upper[k] >= gamma * (1 - 1e-12)
        seen.append(round_state.t)
        return False

    batch = getattr(recipes, recipe)(one_vs_rest(X, Y), 150, stop=check)
    assert seen == list(range(1, 151))
    for k, A in enumerate(rows):
        alone = getattr(recipes, recipe)(A, 150).certificate
        mine = batch.certificate[k]
        assert mine.lower == pytest.approx(alone.lower, rel=1e-12, abs=1e-15)
        assert mine.upper == pytest.approx(alone.upper, rel=1e-12)
        np.testing.assert_allclose(mine.p, alone.p, rtol=1e-11, atol=1e-15)
        assert mine.upper == pytest.approx(np.linalg.norm(A.T @ mine.p), rel=1e-12)
        assert mine.separable == alone.separable


def test_batched_stop_rules_settle_each_game_by_its_own_rule():
    from gamedyn.batched import one_vs_rest

    X, Y = _three_games(0)
    rule = stops.any_of(stops.margin_within(0.05), stops.infeasible(1e-3))  # game 1: gamma* = 0.003
    result = recipes.smooth_perceptron(one_vs_rest(X, Y), 100_000, stop=rule)
    assert result.game.stopped_early
    for k in range(3):
        A = signed_rows(X, Y[:, k])
        certificate = result.certificate[k]
        if k < 2:
            gamma = max_margin(A).gamma
            assert certificate.separable is True and certificate.relative_gap <= 0.05
            assert certificate.lower <= gamma * (1 + 1e-12) <= certificate.upper * (1 + 2e-12)
        else:
            assert certificate.separable is False  # the Gordan LP ran for this game only
            assert np.linalg.norm(A.T @ certificate.p) <= 1e-8
    alone = recipes.smooth_perceptron(signed_rows(X, Y[:, 0]), 100_000, stop=stops.margin_within(0.05))
    assert alone.game.rounds <= result.game.rounds  # the batch runs until its slowest game is settled
