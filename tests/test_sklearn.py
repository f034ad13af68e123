"""gamedyn.sklearn.MarginClassifier: scikit-learn conformance, certified margins, non-separable data, input kinds."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("sklearn")

from sklearn.datasets import load_digits, load_iris  # noqa: E402
from sklearn.exceptions import ConvergenceWarning  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

from gamedyn.io import make_separable, signed_rows  # noqa: E402
from gamedyn.certify import max_margin  # noqa: E402
from gamedyn.sklearn import MarginClassifier, NotSeparableWarning  # noqa: E402


# scikit-learn's own conformance suite, one test per check. Nothing is skipped by us; scikit-learn
# itself skips check_classifier_data_not_an_array when pandas is absent and check_array_api_input
# unless SCIPY_ARRAY_API is set (environment, not estimator, conditions). Many checks train on
# overlapping blobs, where the estimator warns NotSeparableWarning, as documented, or, with
# max_iter=2000, ConvergenceWarning (a small margin not certified within tol in 2000 rounds).
@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::gamedyn.sklearn.NotSeparableWarning")
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@parametrize_with_checks([MarginClassifier(C=None), MarginClassifier(C=None, solver="smooth_perceptron", max_iter=2000)])
def test_scikit_learn_conformance(estimator, check):
    check(estimator)


# The default (the 2-norm soft margin, issue 29) with no warning filter: it never warns of overlap.
@parametrize_with_checks([MarginClassifier()])
def test_the_default_passes_scikit_learns_checks(estimator, check):
    check(estimator)


def digits_pair(first, second):
    digits = load_digits()
    keep = np.isin(digits.target, (first, second))
    return digits.data[keep] / 16.0, np.where(digits.target[keep] == first, 1, 0)


@pytest.mark.parametrize("pair", [(0, 1), (3, 8), (1, 8)])
@pytest.mark.parametrize("recipe", ["auto", "smooth_perceptron"])
def test_certified_margin_on_digits_pairs_is_within_one_percent(pair, recipe):
    X, y = digits_pair(*pair)
    model = MarginClassifier(C=None, solver=recipe, fit_intercept=False, tol=0.01).fit(X, y)
    A = signed_rows(X / model.row_scale_, 2.0 * y - 1.0)
    gamma = max_margin(A).gamma
    certificate = model.certificate_[0]
    assert certificate.separable is True and certificate.lower >= 0.99 * gamma
    # the certificate speaks about coef_: its lower end is coef_'s normalised margin on the rescaled rows
    w = model.coef_.ravel()
    assert certificate.lower == pytest.approx(np.min(A @ w) / np.linalg.norm(w), rel=1e-10)
    assert model.score(X, y) == 1.0


def test_auto_picks_the_exact_oracle_for_small_problems_and_the_dynamics_for_large():
    X, y = digits_pair(0, 1)
    assert MarginClassifier(C=None).fit(X, y).solver_ == "exact"
    assert MarginClassifier(C=None, exact_threshold=10).fit(X, y).solver_ == "smooth_perceptron"


def test_non_separable_data_warn_with_the_certificate_and_stop():
    X = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]])  # XOR
    y = np.array([1, 1, 0, 0])
    for recipe in ("auto", "smooth_perceptron", "mirror_prox_perceptron"):
        with pytest.warns(NotSeparableWarning, match="not separable"):
            model = MarginClassifier(C=None, solver=recipe, fit_intercept=False, max_iter=100_000).fit(X, y)
        assert model.certificate_[0].separable is False
        assert np.linalg.norm(signed_rows(X / model.row_scale_, 2.0 * y - 1).T @ model.certificate_[0].p) <= 1e-4
        assert model.n_iter_ < 100_000


def test_iris_multiclass_one_vs_rest_and_parallel_agree():
    X, y = load_iris(return_X_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotSeparableWarning)  # versicolor vs rest is not linearly separable
        serial = MarginClassifier(C=None).fit(X, y)
        parallel = MarginClassifier(C=None, n_jobs=2).fit(X, y)
    assert serial.coef_.shape == (3, 4) and len(serial.certificate_) == 3
    np.testing.assert_allclose(serial.coef_, parallel.coef_, rtol=1e-12)
    assert serial.certificate_[0].separable is True  # setosa vs rest
    assert serial.score(X, y) >= 0.9


def test_sparse_and_float32_input_agree_with_dense():
    X, y = digits_pair(3, 8)
    dense = MarginClassifier(C=None, fit_intercept=False).fit(X, y)
    sparse = MarginClassifier(C=None, fit_intercept=False).fit(sp.csr_matrix(X), y)
    single = MarginClassifier(C=None, fit_intercept=False).fit(X.astype(np.float32), y)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-9, atol=1e-12)
    assert single.certificate_[0].lower >= 0.99 * dense.certificate_[0].lower
    np.testing.assert_array_equal(sparse.predict(sp.csr_matrix(X)), dense.predict(X))


def test_warm_start_keeps_a_certified_direction():
    X, y = digits_pair(0, 1)
    model = MarginClassifier(C=None, solver="smooth_perceptron", warm_start=True).fit(X, y)
    first = model.coef_.copy()
    model.fit(X, y)
    assert model.n_iter_ == 0 and np.array_equal(model.coef_, first)


def test_normalize_false_rejects_long_rows():
    X, y = digits_pair(0, 1)
    with pytest.raises(ValueError, match="normalize=True"), pytest.warns(FutureWarning, match="'normalize' is deprecated"):
        MarginClassifier(C=None, normalize=False).fit(X, y)


@pytest.mark.parametrize("parameter, value", [("recipe", "svm"), ("tol", 0), ("tol", -1.0), ("max_iter", 0),
                                              ("max_iter", 2.5), ("normalize", "yes"), ("intercept_scaling", 0),
                                              ("exact_threshold", -3)])
def test_bad_parameters_name_themselves(parameter, value):
    X, y = digits_pair(0, 1)
    with pytest.raises(ValueError, match=parameter):
        MarginClassifier(**{parameter: value}).fit(X, y)


def test_planted_margin_synthetic_is_certified_by_the_dynamics():
    X, y = make_separable(3000, 10, 0.02, 0)
    model = MarginClassifier(C=None, solver="smooth_perceptron", fit_intercept=False, tol=0.01).fit(X, y)
    gamma = max_margin(signed_rows(X / model.row_scale_, y)).gamma
    assert model.certificate_[0].relative_gap <= 0.01 and model.certificate_[0].lower >= 0.99 * gamma


@pytest.mark.parametrize("kind", ["dense", "sparse"])
def test_working_set_oracle_is_exact_on_many_rows(kind):
    from gamedyn.sklearn import _exact

    A = signed_rows(*make_separable(4000, 6, 0.01, 4))
    oracle = max_margin(A)
    direction, certificate, passes = _exact(sp.csr_matrix(A) if kind == "sparse" else A)
    assert certificate.rounds == passes >= 2  # 4000 rows: the working set, not one plain solve
    assert certificate.lower <= oracle.upper * (1 + 1e-12) and certificate.upper >= oracle.gamma * (1 - 1e-12)
    assert certificate.gap <= 1e-12 * certificate.upper
    assert certificate.lower == pytest.approx(np.min(A @ direction), rel=1e-12)
    assert np.linalg.norm(A.T @ certificate.p) == pytest.approx(certificate.upper, rel=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("tol", [0.01, 0.1])
def test_working_set_certificate_is_a_true_bracket_and_stops_at_tol(seed, tol):
    from gamedyn.sklearn import _exact

    A = signed_rows(*make_separable(6000, 12, 0.002, seed))
    oracle = max_margin(A)
    direction, certificate, passes = _exact(A, tol)
    _, exact_certificate, exact_passes = _exact(A)
    assert certificate.lower <= oracle.upper * (1 + 1e-12) and certificate.upper >= oracle.gamma * (1 - 1e-12)
    assert 0 < certificate.relative_gap <= tol or certificate.gap <= 1e-12 * certificate.upper
    assert (oracle.upper - certificate.lower) <= tol * oracle.upper * (1 + 1e-12)  # the true gap is within tol too
    assert certificate.lower == pytest.approx(np.min(A @ direction) / np.linalg.norm(direction), rel=1e-12)
    assert np.linalg.norm(A.T @ certificate.p) == pytest.approx(certificate.upper, rel=1e-12)
    assert passes <= exact_passes and exact_certificate.gap <= 1e-12 * exact_certificate.upper


def test_working_set_oracle_reports_non_separable_rows():
    from gamedyn.sklearn import _exact

    from gamedyn.certify.gordan import gordan_proof

    X, y = make_separable(4000, 6, 0.01, 4)
    y = y.copy()
    y[::50] *= -1
    A = signed_rows(X, y)
    proof = _exact(A)  # not separable: Gordan's proof on all the rows, zero off the working set
    assert isinstance(proof, np.ndarray) and proof.shape == (4000,) and abs(np.sum(proof) - 1.0) <= 1e-12
    support = np.flatnonzero(proof > 0)
    assert gordan_proof(A[support], proof[support]) is not None  # (exact: 0 in the hull of those rows)


@pytest.mark.parametrize("recipe", ["smooth_perceptron", "nag_margin"])
def test_multiclass_dynamics_run_as_one_batched_game_equal_to_separate_runs(recipe):
    from gamedyn import recipes

    X, y = load_iris(return_X_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotSeparableWarning)
        model = MarginClassifier(C=None, solver=recipe, tol=0.05, max_iter=400).fit(X, y)
    rounds = int(model.n_iter_[0])
    assert np.all(model.n_iter_ == rounds)  # one run for the three classes
    m = np.max(np.linalg.norm(X, axis=1))  # the rows (x_i / max ||x_j||, 1), scaled to norm <= 1
    Z = np.hstack([X / m, np.ones((X.shape[0], 1))])
    Z /= np.max(np.linalg.norm(Z, axis=1))
    for k, label in enumerate(model.classes_):
        A = signed_rows(Z, np.where(y == label, 1.0, -1.0))
        alone = getattr(recipes, recipe)(A, rounds)  # class k on its own, the same number of rounds
        direction = alone.w / np.linalg.norm(alone.w)
        coef = np.append(model.coef_[k] * m, model.intercept_[k])  # w = (m coef_, intercept_ / s), s = 1
        np.testing.assert_allclose(coef, direction, rtol=1e-12, atol=1e-12 * np.max(np.abs(direction)))
        certificate, oracle_upper = model.certificate_[k], None
        assert certificate.upper == pytest.approx(np.linalg.norm(A.T @ certificate.p), rel=1e-12)
        assert certificate.lower == pytest.approx(np.min(A @ direction), rel=1e-10, abs=1e-14)
        try:
            oracle = max_margin(A)
        except ValueError:  # versicolor / virginica against the rest: not separable
            assert certificate.separable is not True and certificate.lower <= 0
            continue
        assert certificate.lower <= oracle.upper * (1 + 1e-12) and certificate.upper >= oracle.gamma * (1 - 1e-12)
        assert certificate.separable is True


# ---------------------------------------------------------------------------------------------
# Units (issue 16): X and c X give the same rows z_i, hence the same answer.

def offset_blobs(n=300, d=5, seed=0):
    """Separable data whose separator needs an intercept (the classes sit off the origin)."""
    X, y = make_separable(n, d, 0.05, seed)
    return X + 0.5 * np.arange(1, d + 1) / d, y


def assert_same_answer_bit_for_bit(model, scaled, c, X):
    np.testing.assert_array_equal(scaled.predict(c * X), model.predict(X))
    np.testing.assert_array_equal(scaled.decision_function(c * X), model.decision_function(X))
    np.testing.assert_array_equal(scaled.coef_ * c, model.coef_)  # coef_ scales by 1/c, exactly
    np.testing.assert_array_equal(scaled.intercept_, model.intercept_)
    np.testing.assert_array_equal(scaled.n_iter_, model.n_iter_)
    ours = scaled.certificate_ if isinstance(scaled.certificate_, list) else [scaled.certificate_]
    theirs = model.certificate_ if isinstance(model.certificate_, list) else [model.certificate_]
    for a, b in zip(ours, theirs):
        assert (a.lower, a.upper, a.separable, a.rounds) == (b.lower, b.upper, b.separable, b.rounds)
        np.testing.assert_array_equal(a.p, b.p)
    assert scaled.feature_scale_ == c * model.feature_scale_ and scaled.row_scale_ == c * model.row_scale_


@pytest.mark.parametrize("recipe", ["exact", "smooth_perceptron"])
@pytest.mark.parametrize("exponent", [-960, -200, -27, -13, 0, 20, 300, 960])
def test_units_never_change_the_answer_powers_of_two_bit_for_bit(recipe, exponent):
    # Before: the intercept feature was 1 in the user's units, so at c = 2^-27 (~1e-8) the dynamics saw
    # rows (c x_i, 1) of margin ~c, stopped by infeasible(1e-4) after 10 rounds: accuracy 0.53.
    X, y = offset_blobs()
    model = MarginClassifier(C=None, solver=recipe).fit(X, y)
    assert model.score(X, y) == 1.0 and model.certificate_[0].separable is True
    c = 2.0 ** exponent
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning either
        scaled = MarginClassifier(C=None, solver=recipe).fit(c * X, y)
    assert_same_answer_bit_for_bit(model, scaled, c, X)


@pytest.mark.parametrize("kind", ["multiclass batched", "sparse", "float32", "no intercept"])
def test_units_never_change_the_answer_for_every_input_kind(kind):
    X, y = offset_blobs(240, 4, 3)
    options = {"recipe": "smooth_perceptron"}
    if kind == "multiclass batched":  # one batched game for three classes
        y = np.where(y > 0, np.where(X[:, 1] > 0.6, 2, 1), 0)
        options.update(tol=0.05, max_iter=300)
    elif kind == "sparse":
        X = sp.csr_matrix(np.where(np.abs(X) < 0.3, 0.0, X))
        y = np.sign(X @ np.array([1.0, -1.0, 0.5, 0.2]) - 0.1).astype(int)
    elif kind == "float32":
        X = X.astype(np.float32)
    else:
        options.update(fit_intercept=False)
        X, y = make_separable(240, 4, 0.05, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the multiclass and sparse cases need not converge in 300 rounds
        model = MarginClassifier(**options).fit(X, y)
        for exponent in (-100, -40, 33, 100) if kind == "float32" else (-700, -40, 33, 700):
            c = np.float32(2.0 ** exponent) if kind == "float32" else 2.0 ** exponent
            assert_same_answer_bit_for_bit(model, MarginClassifier(**options).fit(c * X, y), c, X)


@pytest.mark.parametrize("recipe", ["exact", "smooth_perceptron"])
@pytest.mark.parametrize("c", [1e-8, 1e-4, 1.0 / 3.0, 3.7, 1e5, 1e12])
def test_units_never_change_the_answer_other_factors_to_rounding(recipe, c):
    X, y = offset_blobs()
    model = MarginClassifier(C=None, solver=recipe).fit(X, y)
    scaled = MarginClassifier(C=None, solver=recipe).fit(c * X, y)
    np.testing.assert_array_equal(scaled.predict(c * X), model.predict(X))
    assert scaled.score(c * X, y) == 1.0
    np.testing.assert_allclose(scaled.coef_ * c, model.coef_, rtol=1e-12, atol=1e-12 * np.abs(model.coef_).max())
    np.testing.assert_allclose(scaled.intercept_, model.intercept_, rtol=1e-12)
    assert scaled.certificate_[0].lower == pytest.approx(model.certificate_[0].lower, rel=1e-12)
    assert scaled.certificate_[0].upper == pytest.approx(model.certificate_[0].upper, rel=1e-12)


@settings(max_examples=30, deadline=None)
@given(exponent=st.integers(-900, 900), seed=st.integers(0, 2**16), intercept_scaling=st.sampled_from([0.5, 1.0, 4.0]))
def test_units_law_exact_oracle(exponent, seed, intercept_scaling):
    X, y = offset_blobs(60, 3, seed)
    model = MarginClassifier(C=None, intercept_scaling=intercept_scaling).fit(X, y)
    c = 2.0 ** exponent
    assert_same_answer_bit_for_bit(model, MarginClassifier(C=None, intercept_scaling=intercept_scaling).fit(c * X, y), c, X)


# ---------------------------------------------------------------------------------------------
# intercept_scaling: against the augmented rows written out by hand.

@pytest.mark.parametrize("s", [0.25, 3.0, 10.0])
def test_intercept_scaling_equals_the_augmented_column_construction(s):
    from gamedyn import recipes

    X, y = offset_blobs(200, 4, 5)  # labels +-1
    signs = np.where(y > 0, 1.0, -1.0)
    m = np.max(np.linalg.norm(X, axis=1))
    R = np.hstack([X / m, np.full((X.shape[0], 1), s)])  # x_{d+1} = s, in units of the longest row
    R /= np.max(np.linalg.norm(R, axis=1))
    A = signs[:, None] * R
    # the dynamics: the same rounds on the hand-made rows give the same direction
    model = MarginClassifier(C=None, solver="smooth_perceptron", intercept_scaling=s, tol=0.05).fit(X, y)
    alone = recipes.smooth_perceptron(A, int(model.n_iter_[0]))
    w = alone.w / np.linalg.norm(alone.w)
    np.testing.assert_allclose(model.coef_.ravel(), w[:-1] / m, rtol=1e-10, atol=1e-12 / m)
    np.testing.assert_allclose(model.intercept_, [s * w[-1]], rtol=1e-10)  # intercept_ = s * w_{d+1}
    # the exact oracle: coef_, intercept_ as a direction on A has A's max margin within tol
    exact = MarginClassifier(C=None, intercept_scaling=s, tol=1e-6).fit(X, y)
    direction = np.append(exact.coef_.ravel() * m, exact.intercept_ / s)
    gamma = max_margin(A).gamma
    margin = np.min(A @ direction) / np.linalg.norm(direction)
    assert (1 - 1e-6) * gamma <= margin <= gamma * (1 + 1e-12)
    np.testing.assert_allclose(exact.decision_function(X), np.hstack([X / m, np.full((X.shape[0], 1), s)])
                               @ (direction / np.linalg.norm(direction)), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("s", [0.25, 0.6])
@pytest.mark.filterwarnings("ignore:MarginClassifier. 'normalize' is deprecated:FutureWarning")
def test_intercept_scaling_with_normalize_false_is_the_users_own_column(s):
    from gamedyn import recipes

    X, y = offset_blobs(200, 4, 6)
    X = X * (np.sqrt(1 - s * s) / np.max(np.linalg.norm(X, axis=1))) / 8  # rows (x_i, s) of norm <= 1
    A = np.where(y > 0, 1.0, -1.0)[:, None] * np.hstack([X, np.full((X.shape[0], 1), s)])
    model = MarginClassifier(C=None, solver="smooth_perceptron", intercept_scaling=s, normalize=False, tol=0.05).fit(X, y)
    assert model.feature_scale_ == model.row_scale_ == 1.0
    # the solver runs on A / q for the power of two q with max norm in (1/2, 1]; the direction is A's
    q = 2.0 ** np.ceil(np.log2(np.max(np.linalg.norm(A, axis=1))))
    alone = recipes.smooth_perceptron(A / q, int(model.n_iter_[0]))
    w = alone.w / np.linalg.norm(alone.w)
    np.testing.assert_allclose(model.coef_.ravel(), w[:-1], rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(model.intercept_, [s * w[-1]], rtol=1e-10)
    # the certificate speaks about the user's rows A
    certificate = model.certificate_[0]
    assert certificate.lower == pytest.approx(np.min(A @ w), rel=1e-10)
    assert certificate.upper == pytest.approx(np.linalg.norm(A.T @ certificate.p), rel=1e-10)
    assert certificate.lower <= max_margin(A).gamma * (1 + 1e-12) <= certificate.upper * (1 + 2e-12)


# ---------------------------------------------------------------------------------------------
# Warm start: kept only within the current tol.

def test_warm_start_is_kept_only_within_the_current_tol():
    X, y = digits_pair(3, 8)
    model = MarginClassifier(C=None, solver="smooth_perceptron", tol=0.05, warm_start=True).fit(X, y)
    gap = model.certificate_[0].relative_gap
    assert 0 < gap <= 0.05 and model.n_iter_ > 0
    model.set_params(tol=gap / 2).fit(X, y)  # the previous fit is within 2 x tol, not within tol: solve again
    assert model.n_iter_ > 0 and model.certificate_[0].relative_gap <= gap / 2
    gamma = max_margin(signed_rows(X / model.row_scale_, 2.0 * y - 1.0)).gamma
    assert model.certificate_[0].lower >= (1 - gap / 2) * gamma
    first = model.coef_.copy()
    model.set_params(tol=gap).fit(X, y)  # now within tol: kept, bit for bit
    assert model.n_iter_ == 0 and np.array_equal(model.coef_, first)


# ---------------------------------------------------------------------------------------------
# Warnings: a proof, or a ConvergenceWarning; one a fit; classes as the user wrote them.

def standardized_breast_cancer():
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    return (X - X.mean(axis=0)) / X.std(axis=0), y


def test_undecided_dynamics_warn_convergence_not_not_separable():
    X, y = standardized_breast_cancer()
    exact = MarginClassifier(C=None, solver="exact").fit(X, y)
    assert exact.certificate_[0].separable is True and exact.score(X, y) == 1.0  # the exact oracle: separable
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = MarginClassifier(C=None, solver="smooth_perceptron", max_iter=1000).fit(X, y)
    assert model.certificate_[0].separable is None  # undecided after 1000 rounds: no proof either way
    assert [w.category for w in caught] == [ConvergenceWarning]
    message = str(caught[0].message)
    assert f"{model.certificate_[0].upper:.3g}" in message and f"{model.certificate_[0].lower:.3g}" in message
    assert "max_iter=1000" in message and "raise max_iter" in message and "solver='exact'" in message
    assert "class 1 against class 0" in message and "rest" not in message and "np." not in message
    assert "soft-margin" not in message


def test_separable_but_above_tol_at_max_iter_warns_convergence():
    X, y = digits_pair(3, 8)
    with pytest.warns(ConvergenceWarning, match=r"separable, but the certified relative gap .* above tol=0\.01"):
        model = MarginClassifier(C=None, solver="smooth_perceptron", max_iter=200).fit(X, y)
    assert model.certificate_[0].separable is True and model.certificate_[0].relative_gap > 0.01


def test_not_separable_warning_only_with_a_proof_and_once_per_fit():
    from sklearn.model_selection import cross_val_score

    X, y = load_iris(return_X_y=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cross_val_score(MarginClassifier(C=None), X, y, cv=5)
    assert 1 <= len(caught) <= 5  # one warning per fit at most (before: one per class and fold, 11)
    for w in caught:
        assert w.category is NotSeparableWarning
        assert "class 1 against the rest" in str(w.message) and "np.int64" not in str(w.message)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = MarginClassifier(C=None).fit(X, load_iris().target_names[y])
    assert len(caught) == 1 and "class 'versicolor' against the rest" in str(caught[0].message)
    proven = [label for label, c in zip(model.classes_, model.certificate_) if c.separable is False]
    assert "versicolor" in proven
    for label in model.classes_:  # the message names exactly the classes with a proof
        assert (f"class '{label}' against the rest" in str(caught[0].message)) == (label in proven)


def test_the_exact_oracles_proof_is_the_certificate_and_is_not_sought_twice(monkeypatch):
    # The hard margin on noisy data: the exact oracle proves Gordan's alternative once; the dynamics that follow
    # give coef_ (the best direction) and do not look for the proof again (before: a second find_witness, a
    # third of the fit's time on 5000 x 40). The certificate's p is that proof, a distribution on few rows.
    from sklearn.datasets import make_classification

    import gamedyn.certify.gordan as gordan

    X, y = make_classification(n_samples=600, n_features=10, flip_y=0.2, random_state=0)
    calls = []
    original = gordan.find_witness
    monkeypatch.setattr(gordan, "find_witness", lambda *args: calls.append(1) or original(*args))
    with pytest.warns(NotSeparableWarning, match="not separable"):
        model = MarginClassifier(C=None).fit(X, y)
    certificate = model.certificate_[0]
    assert certificate.separable is False and len(calls) == 1
    p = certificate.p
    support = np.flatnonzero(p > 0)
    assert abs(np.sum(p) - 1.0) <= 1e-12 and support.size <= X.shape[1] + 2
    assert certificate.upper <= 1e-12  # ||A^T p|| for the float64 p: rounding only


def test_binary_not_separable_names_the_other_class():
    X = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]])  # XOR
    with pytest.warns(NotSeparableWarning, match="class 1 against class 0: not separable") as caught:
        model = MarginClassifier(C=None, fit_intercept=False).fit(X, np.array([1, 1, 0, 0]))
    assert len(caught) == 1 and "rest" not in str(caught[0].message) and model.certificate_[0].separable is False


# ---------------------------------------------------------------------------------------------
# Parameters: every one checked at fit, in scikit-learn's words.

@pytest.mark.parametrize("parameter, value", [
    ("tol", 5), ("tol", 1), ("tol", 1.0), ("tol", float("nan")), ("tol", "0.1"), ("tol", True),
    ("n_jobs", "a"), ("n_jobs", 0), ("n_jobs", 1.5), ("n_jobs", True),
    ("max_iter", True), ("max_iter", 10.0), ("max_iter", -1), ("exact_threshold", 2.5),
    ("intercept_scaling", float("inf")), ("intercept_scaling", float("nan")), ("intercept_scaling", -1.0),
    ("intercept_scaling", "1"), ("recipe", None), ("recipe", ["exact"]), ("recipe", "Exact"),
    ("fit_intercept", 1), ("warm_start", None), ("normalize", "yes"), ("client", "cluster"), ("client", 3),
])
def test_every_parameter_is_validated_at_fit(parameter, value):
    X, y = digits_pair(0, 1)
    model = MarginClassifier(**{parameter: value})  # construction stores (scikit-learn's rule) ...
    with pytest.raises(ValueError, match=f"The '{parameter}' parameter of MarginClassifier must be") as error:
        model.fit(X, y)  # ... fit checks
    assert isinstance(error.value, TypeError)  # as scikit-learn's InvalidParameterError: both
