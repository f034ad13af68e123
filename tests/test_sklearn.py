"""gamedyn.sklearn.MarginClassifier: scikit-learn conformance, certified margins, non-separable data, input kinds."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("sklearn")

from sklearn.datasets import load_digits, load_iris  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

from gamedyn.datasets import make_separable, signed_rows  # noqa: E402
from gamedyn.margins import max_margin  # noqa: E402
from gamedyn.sklearn import MarginClassifier, NotSeparableWarning  # noqa: E402


# scikit-learn's own conformance suite, one test per check. Nothing is skipped by us; scikit-learn
# itself skips check_classifier_data_not_an_array when pandas is absent and check_array_api_input
# unless SCIPY_ARRAY_API is set (environment, not estimator, conditions). Many checks train on
# overlapping blobs, where the estimator warns NotSeparableWarning, as documented.
@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::gamedyn.sklearn.NotSeparableWarning")
@parametrize_with_checks([MarginClassifier(), MarginClassifier(recipe="smooth_perceptron", max_iter=2000)])
def test_scikit_learn_conformance(estimator, check):
    check(estimator)


def digits_pair(first, second):
    digits = load_digits()
    keep = np.isin(digits.target, (first, second))
    return digits.data[keep] / 16.0, np.where(digits.target[keep] == first, 1, 0)


@pytest.mark.parametrize("pair", [(0, 1), (3, 8), (1, 8)])
@pytest.mark.parametrize("recipe", ["auto", "smooth_perceptron"])
def test_certified_margin_on_digits_pairs_is_within_one_percent(pair, recipe):
    X, y = digits_pair(*pair)
    model = MarginClassifier(recipe=recipe, fit_intercept=False, tol=0.01).fit(X, y)
    A = signed_rows(X / model.row_scale_, 2.0 * y - 1.0)
    gamma = max_margin(A).gamma
    certificate = model.certificate_
    assert certificate.separable is True and certificate.lower >= 0.99 * gamma
    # the certificate speaks about coef_: its lower end is coef_'s normalised margin on the rescaled rows
    w = model.coef_.ravel()
    assert certificate.lower == pytest.approx(np.min(A @ w) / np.linalg.norm(w), rel=1e-10)
    assert model.score(X, y) == 1.0


def test_auto_picks_the_exact_oracle_for_small_problems_and_the_dynamics_for_large():
    X, y = digits_pair(0, 1)
    assert MarginClassifier().fit(X, y).solver_ == "exact"
    assert MarginClassifier(exact_threshold=10).fit(X, y).solver_ == "smooth_perceptron"


def test_non_separable_data_warn_with_the_certificate_and_stop():
    X = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]])  # XOR
    y = np.array([1, 1, 0, 0])
    for recipe in ("auto", "smooth_perceptron", "mirror_prox_perceptron"):
        with pytest.warns(NotSeparableWarning, match="not separable"):
            model = MarginClassifier(recipe=recipe, fit_intercept=False, max_iter=100_000).fit(X, y)
        assert model.certificate_.separable is False
        assert np.linalg.norm(signed_rows(X / model.row_scale_, 2.0 * y - 1).T @ model.certificate_.p) <= 1e-4
        assert model.n_iter_ < 100_000


def test_iris_multiclass_one_vs_rest_and_parallel_agree():
    X, y = load_iris(return_X_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotSeparableWarning)  # versicolor vs rest is not linearly separable
        serial = MarginClassifier().fit(X, y)
        parallel = MarginClassifier(n_jobs=2).fit(X, y)
    assert serial.coef_.shape == (3, 4) and len(serial.certificate_) == 3
    np.testing.assert_allclose(serial.coef_, parallel.coef_, rtol=1e-12)
    assert serial.certificate_[0].separable is True  # setosa vs rest
    assert serial.score(X, y) >= 0.9


def test_sparse_and_float32_input_agree_with_dense():
    X, y = digits_pair(3, 8)
    dense = MarginClassifier(fit_intercept=False).fit(X, y)
    sparse = MarginClassifier(fit_intercept=False).fit(sp.csr_matrix(X), y)
    single = MarginClassifier(fit_intercept=False).fit(X.astype(np.float32), y)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-9, atol=1e-12)
    assert single.certificate_.lower >= 0.99 * dense.certificate_.lower
    np.testing.assert_array_equal(sparse.predict(sp.csr_matrix(X)), dense.predict(X))


def test_warm_start_keeps_a_certified_direction():
    X, y = digits_pair(0, 1)
    model = MarginClassifier(recipe="smooth_perceptron", warm_start=True).fit(X, y)
    first = model.coef_.copy()
    model.fit(X, y)
    assert model.n_iter_ == 0 and np.array_equal(model.coef_, first)


def test_normalize_false_rejects_long_rows():
    X, y = digits_pair(0, 1)
    with pytest.raises(ValueError, match="normalize=True"):
        MarginClassifier(normalize=False).fit(X, y)


@pytest.mark.parametrize("parameter, value", [("recipe", "svm"), ("tol", 0), ("tol", -1.0), ("max_iter", 0),
                                              ("max_iter", 2.5), ("normalize", "yes"), ("intercept_scaling", 0),
                                              ("exact_threshold", -3)])
def test_bad_parameters_name_themselves(parameter, value):
    X, y = digits_pair(0, 1)
    with pytest.raises(ValueError, match=parameter):
        MarginClassifier(**{parameter: value}).fit(X, y)


def test_planted_margin_synthetic_is_certified_by_the_dynamics():
    X, y = make_separable(3000, 10, 0.02, 0)
    model = MarginClassifier(recipe="smooth_perceptron", fit_intercept=False, tol=0.01).fit(X, y)
    gamma = max_margin(signed_rows(X / model.row_scale_, y)).gamma
    assert model.certificate_.relative_gap <= 0.01 and model.certificate_.lower >= 0.99 * gamma


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

    X, y = make_separable(4000, 6, 0.01, 4)
    y = y.copy()
    y[::50] *= -1
    assert _exact(signed_rows(X, y)) is None


@pytest.mark.parametrize("recipe", ["smooth_perceptron", "nag_margin"])
def test_multiclass_dynamics_run_as_one_batched_game_equal_to_separate_runs(recipe):
    from gamedyn import recipes

    X, y = load_iris(return_X_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotSeparableWarning)
        model = MarginClassifier(recipe=recipe, tol=0.05, max_iter=400).fit(X, y)
    rounds = int(model.n_iter_[0])
    assert np.all(model.n_iter_ == rounds)  # one run for the three classes
    Z = np.hstack([X, np.ones((X.shape[0], 1))]) / model.row_scale_
    for k, label in enumerate(model.classes_):
        A = signed_rows(Z, np.where(y == label, 1.0, -1.0))
        alone = getattr(recipes, recipe)(A, rounds)  # class k on its own, the same number of rounds
        direction = alone.w / np.linalg.norm(alone.w)
        coef = np.append(model.coef_[k], model.intercept_[k])
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
