"""The 2-norm soft margin (squared hinge) with a free bias (issue 29): gamedyn.certify.squared_hinge and
``MarginClassifier(C=...)``.

The reference, independent of the code under test: the dual QP of the L2-loss SVM,
``min 1/2 a^T (Q + I/(2C)) a - 1^T a`` over ``a >= 0`` (and ``s^T a = 0`` with a free bias),
``Q_ij = s_i s_j <z_i, z_j>``, solved by the interior-point solver Clarabel (the test extra). Its value
gives the primal ``w* = sum_i a_i s_i z_i``, ``xi* = a / (2C)`` and, with a free bias, ``b*`` from any row
with ``a_i > 0`` (``s_i (<w*, z_i> + b*) = 1 - a_i / (2C)``); the reference bracket on ``gamma_C*`` is
written out from them in this file.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gamedyn.certify.squared_hinge import squared_hinge_margin


def exact_l2_svm(Z, s, C, free_bias=True):
    """``((low, high), w*, b*)`` of the rows Z (labels s) by Clarabel on the dual QP: ``gamma_C*`` lies in
    [low, high], both ends written out here from Clarabel's multipliers (the margin of the augmented rows
    at ``(w*, xi*)``, and half the distance of the hull points they weigh), so the reference's own
    accuracy is part of it."""
    clarabel = pytest.importorskip("clarabel")
    import scipy.sparse as sp

    n = s.size
    signed = s[:, None] * Z
    Q = signed @ signed.T + np.eye(n) / (2.0 * C)
    A = [-sp.identity(n, format="csc")]
    b = [np.zeros(n)]
    cones = [clarabel.NonnegativeConeT(n)]
    if free_bias:
        A, b, cones = [sp.csc_matrix(s[None, :])] + A, [np.zeros(1)] + b, [clarabel.ZeroConeT(1)] + cones
    options = clarabel.DefaultSettings()
    options.verbose = False
    options.tol_gap_abs = options.tol_gap_rel = options.tol_feas = 1e-10  # (1e-13: "InsufficientProgress")
    solution = clarabel.DefaultSolver(sp.csc_matrix(np.triu(Q)), -np.ones(n), sp.vstack(A).tocsc(),
                                      np.concatenate(b), cones, options).solve()
    alpha = np.clip(np.asarray(solution.x), 0.0, None)
    w = signed.T @ alpha
    xi = alpha / (2.0 * C)
    scores = Z @ w
    if free_bias:
        positive = s > 0
        i = int(np.argmax(alpha))
        bias = float(s[i] * (1.0 - xi[i]) - scores[i])
        low = (np.min(scores[positive] + xi[positive]) - np.max(scores[~positive] - xi[~positive])) / (
            2.0 * math.sqrt(w @ w + 2.0 * C * xi @ xi))
        p = np.where(positive, alpha / alpha[positive].sum(), alpha / alpha[~positive].sum())
        high = 0.5 * math.sqrt(np.sum((signed.T @ p) ** 2) + p @ p / (2.0 * C))
    else:
        bias = 0.0
        low = np.min(s * scores + xi) / math.sqrt(w @ w + 2.0 * C * xi @ xi)
        p = alpha / alpha.sum()
        high = math.sqrt(np.sum((signed.T @ p) ** 2) + p @ p / (2.0 * C))
    assert low <= high * (1 + 1e-12) and high - low <= 1e-6 * high  # the reference solved the QP
    return (low, high), w, bias


def rows_of(seed, n, d, ratio):
    """Rows of norm <= 1 (a noisy linear rule, overlapping classes) with a minority class 1 : ``ratio``."""
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, d))
    Z /= np.max(np.linalg.norm(Z, axis=1))
    s = -np.ones(n)
    s[: max(2, n // (ratio + 1))] = 1.0
    Z[s > 0] += 0.3 / math.sqrt(d)  # the minority shifted: a rule with some overlap
    Z /= np.max(np.linalg.norm(Z, axis=1))
    return Z, s


@pytest.fixture(params=["newton", "newton-row-blocks", "lbfgs"])
def solver_path(request, monkeypatch):
    """Both solvers: semismooth Newton (small dense problems; its Hessians in one product per game on tiny X, else
    summed over row blocks) and L-BFGS-B (the others), chosen by size."""
    from gamedyn.certify import squared_hinge

    if request.param == "lbfgs":
        monkeypatch.setattr(squared_hinge, "NEWTON_MAX_FEATURES", 0)
    if request.param == "newton-row-blocks":
        monkeypatch.setattr(squared_hinge, "SMALL_ENTRIES", 0)
    return request.param


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])  # (a setting)
@given(ratio=st.integers(1, 50), C=st.sampled_from([0.01, 0.1, 1.0, 10.0, 100.0, 1e4]),
       free_bias=st.booleans(), seed=st.integers(0, 2**16))
def test_the_bracket_contains_the_exact_value(solver_path, ratio, C, free_bias, seed):
    Z, s = rows_of(seed, 102, 4, ratio)
    found = squared_hinge_margin(Z, s[:, None], C, free_bias=free_bias, tol=1e-3)
    (low, high), _, _ = exact_l2_svm(Z, s, C, free_bias)
    assert found.lower[0] > 0
    assert found.lower[0] <= high and low <= found.upper[0]  # both brackets hold gamma_C*: they must meet
    assert found.relative_gap[0] <= 1e-3


@pytest.mark.parametrize("layout", ["dense", "float32", "csr"])
@pytest.mark.parametrize("free_bias", [True, False])
@pytest.mark.parametrize("C", [0.1, 10.0])
def test_the_solution_equals_the_exact_qp(solver_path, C, free_bias, layout):
    import scipy.sparse

    Z, s = rows_of(3, 120, 5, 3)
    if layout != "dense":
        Z = Z.astype(np.float32).astype(np.float64)  # (the reference on the same values)
    X = {"dense": Z, "float32": Z.astype(np.float32), "csr": scipy.sparse.csr_matrix(Z)}[layout]
    found = squared_hinge_margin(X, s[:, None], C, free_bias=free_bias, tol=1e-10, max_iter=5000)
    _, w, bias = exact_l2_svm(Z, s, C, free_bias)
    # a relative gap of 1e-10 on the value puts (w, b) within about sqrt(1e-10) of the optimum (strong convexity)
    assert np.linalg.norm(found.w[:, 0] - w) <= 1e-4 * np.linalg.norm(w)
    assert abs(found.b[0] - bias) <= 1e-4 * (1 + abs(bias))
    assert np.array_equal(np.sign(Z @ found.w[:, 0] + found.b[0]), np.sign(Z @ w + bias))


@settings(max_examples=8, deadline=None)
@given(exponent=st.integers(-40, 40), seed=st.integers(0, 2**16))
def test_the_estimator_is_the_same_at_every_scale(exponent, seed):
    pytest.importorskip("sklearn")
    from gamedyn.sklearn import MarginClassifier

    Z, s = rows_of(seed, 90, 3, 4)
    X = 3.0 * Z
    base = MarginClassifier(C=10.0).fit(X, s)
    scaled = MarginClassifier(C=10.0).fit(np.ldexp(X, exponent), s)
    assert np.array_equal(np.ldexp(scaled.coef_, exponent), base.coef_)
    assert np.array_equal(scaled.intercept_, base.intercept_)
    (low, high), _, _ = exact_l2_svm(X / base.feature_scale_, s, 10.0)
    certificate = scaled.certificate_[0]
    assert certificate.lower <= high and low <= certificate.upper
    assert certificate.penalty == 10.0 and certificate.hulls == 2 and "2-norm soft margin" in certificate.verdict()


def test_imbalanced_one_vs_rest_finds_every_class():
    # Four small classes (10 rows each) against a large one (400 rows), each a cluster at a vertex of the
    # simplex (linearly distinguishable one against the rest): no class may come out as "never".
    pytest.importorskip("sklearn")
    from gamedyn.sklearn import MarginClassifier

    rng = np.random.default_rng(7)
    centres = 4.0 * np.eye(5)
    sizes = [400, 10, 10, 10, 10]
    X = np.vstack([centres[k] + rng.normal(size=(size, 5)) for k, size in enumerate(sizes)])
    y = np.repeat(np.arange(5), sizes)
    model = MarginClassifier(C=10.0).fit(X, y)
    predicted = model.predict(X)
    for k in range(1, 5):
        assert np.mean(predicted[y == k] == k) >= 0.9
    assert model.predict(centres).tolist() == [0, 1, 2, 3, 4]


def test_noisy_multiclass_matches_liblinear_and_warns_nothing():
    # issue 29's 7-class set, on a fixed split: within one point of LinearSVC (the same loss, squared hinge)
    pytest.importorskip("sklearn")
    from sklearn.datasets import make_classification
    from sklearn.model_selection import train_test_split
    from sklearn.svm import LinearSVC

    from gamedyn.sklearn import MarginClassifier

    X, y = make_classification(n_samples=10_000, n_features=54, n_informative=30, n_redundant=10, n_classes=7,
                               n_clusters_per_class=1, flip_y=0.03, random_state=5)
    X_train, X_test, y_train, y_test = train_test_split(X, y, train_size=0.8, stratify=y, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = MarginClassifier(C=10.0).fit(X_train, y_train)
    reference = LinearSVC().fit(X_train, y_train).score(X_test, y_test)
    assert model.score(X_test, y_test) >= reference - 0.01
    assert all(c.relative_gap <= 0.01 for c in model.certificate_)


def test_a_warm_start_on_the_same_data_ends_at_iteration_zero():
    pytest.importorskip("sklearn")
    from gamedyn.sklearn import MarginClassifier

    Z, s = rows_of(5, 200, 6, 2)
    model = MarginClassifier(C=10.0, warm_start=True, tol=1e-6).fit(Z, s)
    first, coef = model.n_iter_.copy(), model.coef_.copy()
    model.fit(Z, s)
    assert model.n_iter_[0] == 0 < first[0]
    np.testing.assert_allclose(model.coef_, coef, rtol=1e-15, atol=0)  # (w / m) * m / m: rounding only
    assert model.certificate_[0].relative_gap <= 1e-6


@pytest.mark.parametrize("arguments, words", [
    ({"C": 0.0}, "'C' parameter"), ({"C": float("inf")}, "'C' parameter"),
    ({"C": 1.0, "solver": "smooth_perceptron"}, "solver='auto'"),
])
def test_bad_arguments_name_the_fix(arguments, words):
    pytest.importorskip("sklearn")
    from gamedyn.sklearn import MarginClassifier

    Z, s = rows_of(1, 40, 3, 1)
    with pytest.raises((ValueError, TypeError), match=words.replace("(", r"\(")):
        MarginClassifier(**arguments).fit(Z, s)
    with pytest.raises(ValueError, match="penalty"):
        squared_hinge_margin(Z, s[:, None], -1.0)


def test_the_default_on_noisy_data_warns_nothing_and_is_certified():
    # issue 29: MarginClassifier() on make_classification 5000 x 40 with 10 % of labels flipped
    pytest.importorskip("sklearn")
    from sklearn.datasets import make_classification

    from gamedyn.sklearn import DEFAULT_C, MarginClassifier

    X, y = make_classification(n_samples=5000, n_features=40, flip_y=0.1, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = MarginClassifier().fit(X, y)
    certificate = model.certificate_[0]
    assert certificate.penalty == DEFAULT_C and certificate.separable is True and certificate.relative_gap <= 0.01
    from sklearn.svm import LinearSVC

    assert model.score(X, y) >= LinearSVC().fit(X, y).score(X, y) - 0.01  # (the same loss, on the training rows)
