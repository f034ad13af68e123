"""The two-hull soft-margin game (issue 29): the free bias of the nu-SVM as the distance between the two
classes' reduced convex hulls (:class:`gamedyn.certify.dual.TwoHulls`), and the estimator that plays it.

References, each independent of the code under test: the exact QP of the two hulls solved by the interior
point solver Clarabel (the test extra), libsvm's nu-SVC with a free bias (scikit-learn's ``NuSVC``), and the
capped-simplex projection of :mod:`gamedyn.core.capped_simplex` (a sort-based algorithm; the solver's is a
Newton iteration).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gamedyn.certify.dual import SignedRows, TwoHulls, soft_margin_lbfgs
from gamedyn.core import capped_simplex


def exact_two_hulls(X, positive, cap_positive, cap_negative):
    r"""Half the distance between the reduced hulls, ``min ||X_P^T p - X_N^T q|| / 2`` over ``p in Delta_{c+}``,
    ``q in Delta_{c-}``, by Clarabel on the rows divided by their largest norm (the value scaled back)."""
    clarabel = pytest.importorskip("clarabel")
    import scipy.sparse as sp

    scale = float(np.max(np.linalg.norm(X, axis=1)))
    B = np.vstack([X[positive], -X[~positive]]).T / scale  # d x (n_P + n_N)
    a, m = int(positive.sum()), B.shape[1]
    equal = np.zeros((2, m))
    equal[0, :a], equal[1, a:] = 1.0, 1.0
    G = sp.csc_matrix(np.vstack([equal, -np.eye(m), np.eye(m)]))
    h = np.concatenate([[1.0, 1.0], np.zeros(m), np.full(a, cap_positive), np.full(m - a, cap_negative)])
    settings_ = clarabel.DefaultSettings()
    settings_.verbose = False
    settings_.tol_gap_abs = settings_.tol_gap_rel = settings_.tol_feas = 1e-12
    solution = clarabel.DefaultSolver(sp.csc_matrix(B.T @ B), np.zeros(m), G, h,
                                      [clarabel.ZeroConeT(2), clarabel.NonnegativeConeT(2 * m)], settings_).solve()
    return 0.5 * float(np.linalg.norm(B @ np.asarray(solution.x))) * scale, scale


def caps_of(positive, nu):
    """libsvm's nu-SVC caps, written out: 2 / (nu n) for both classes, at least 1 / (class size), at most 1."""
    n = positive.size
    sizes = (int(positive.sum()), int((~positive).sum()))
    return [min(1.0, max(2.0 / (nu * n), capped_simplex.smallest_cap(size))) for size in sizes]


def imbalanced_classes(ratio, shift, exponent, seed):
    """``(rng, X, positive)``: about 100 rows in 3 dimensions, classes 1 : ``ratio``, the minority shifted by
    ``shift``, X scaled by ``2^exponent`` (the generator returned for the test's further draws)."""
    rng = np.random.default_rng(seed)
    minority = max(2, 102 // (ratio + 1))
    n = minority * (ratio + 1)
    X = rng.normal(size=(n, 3))
    positive = np.zeros(n, dtype=bool)
    positive[rng.choice(n, minority, replace=False)] = True
    X[positive] += shift
    return rng, np.ldexp(X, exponent), positive


@settings(max_examples=40, deadline=None)
@given(ratio=st.integers(1, 50), nu=st.sampled_from([0.05, 0.1, 0.2, 0.4, 0.7, 1.0]),
       exponent=st.integers(-40, 40), shift=st.floats(0.0, 3.0), seed=st.integers(0, 2**16))
def test_the_bracket_contains_the_exact_value_of_the_two_hull_game(ratio, nu, exponent, shift, seed):
    # Imbalanced classes (1:1 to 1:50), any nu, rows at scales 2^-40 .. 2^40: lower <= value <= upper.
    _, X, positive = imbalanced_classes(ratio, shift, exponent, seed)
    caps = caps_of(positive, nu)
    signs = np.where(positive, 1.0, -1.0)[:, None]
    # (60 iterations: the bracket holds at every iteration; overlapping hulls with equal caps are proved 0 at
    # iteration 10, with unequal caps the solver would crawl towards 0 up to max_iter)
    found = soft_margin_lbfgs(SignedRows(X, signs), TwoHulls.from_signs(signs, [[caps[0]], [caps[1]]]), tol=1e-3,
                              max_iter=60)
    value, scale = exact_two_hulls(X, positive, *caps)
    slack = 1e-8 * scale  # Clarabel's accuracy, in the units of the rows
    assert found.lower[0] <= value * (1 + 1e-7) + slack
    assert value <= found.upper[0] * (1 + 1e-7) + slack
    assert found.lower[0] <= found.upper[0]
    if found.upper[0] == 0.0:  # a proof that the hulls meet: an exact point of both (equal caps only)
        assert caps[0] == caps[1] and value <= slack


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 40), seed=st.integers(0, 2**16), spread=st.floats(1e-3, 1e3), share=st.floats(0.05, 1.0))
def test_the_projection_is_the_projection_onto_each_class_reduced_hull(n, seed, spread, share):
    # Each class's block is the Euclidean projection of its part onto its capped simplex of mass one half
    # (gamedyn.core.capped_simplex.project, a sort-based algorithm, on the doubled block, halved).
    rng = np.random.default_rng(seed)
    positive = np.zeros(n + 2, dtype=bool)
    positive[: max(1, int(share * (n + 1)))] = True
    rng.shuffle(positive)
    V = rng.normal(size=(n + 2, 1)) * spread
    caps = [min(1.0, 1.5 / positive.sum()), min(1.0, 1.2 / (~positive).sum())]
    domain = TwoHulls.from_signs(np.where(positive, 1.0, -1.0)[:, None], [[caps[0]], [caps[1]]])
    P, _ = domain.project(V)
    for block, cap in ((positive, caps[0]), (~positive, caps[1])):
        expected = 0.5 * capped_simplex.project(2.0 * V[block, 0], cap)
        np.testing.assert_allclose(P[block, 0], expected, rtol=1e-9, atol=1e-12 * max(1.0, 1.0 / block.sum()))
        assert abs(math.fsum(P[block, 0]) - 0.5) <= 1e-12


def separated(n_positive, n_negative, d=4, gap=1.0, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_positive + n_negative, d))
    y = np.zeros(n_positive + n_negative, dtype=int)
    y[:n_positive] = 1
    X[:n_positive] += gap
    return X, y


@pytest.mark.parametrize("n_positive, n_negative, nu", [(40, 40, 0.33), (20, 60, 0.32), (10, 80, 0.15), (10, 80, 0.17),
                                                      (12, 36, 0.45)])
def test_the_free_bias_classifier_is_libsvms_nu_svc(n_positive, n_negative, nu):
    # libsvm's nu-SVC (a free bias; multipliers at most 1/n summing to nu) is the same classifier: the same unit
    # direction and the same bias, to the certified tolerance. (Not at nu n / 2 an integer: there a class may
    # have no free point and every bias of an interval is optimal; libsvm takes an end of it, chosen by its
    # tolerance on "at the bound", gamedyn the middle.)
    svm = pytest.importorskip("sklearn.svm")
    from gamedyn.sklearn import MarginClassifier

    X, y = separated(n_positive, n_negative)
    reference = svm.NuSVC(kernel="linear", nu=nu, tol=1e-10).fit(X, y)
    tol = 1e-5
    model = MarginClassifier(nu=nu, tol=tol, max_iter=5000).fit(X, y)
    assert model.certificate_[0].lower > 0 and model.certificate_[0].relative_gap <= tol
    w, b = reference.coef_[0], reference.intercept_[0]
    v, c = model.coef_[0], model.intercept_[0]
    # ||L u - w*||^2 <= 2 gamma^2 tol for the unit direction u of a lower end L >= (1 - tol) gamma (1-strong
    # concavity of the primal), so the unit directions differ by at most about 2 sqrt(2 tol).
    assert np.linalg.norm(v / np.linalg.norm(v) - w / np.linalg.norm(w)) <= 2 * math.sqrt(2 * tol)
    assert c / np.linalg.norm(v) == pytest.approx(b / np.linalg.norm(w), abs=4 * math.sqrt(2 * tol) * np.abs(X).max())
    clear = np.abs(reference.decision_function(X)) > 1e-2 * np.abs(reference.decision_function(X)).max()
    np.testing.assert_array_equal(model.predict(X)[clear], reference.predict(X)[clear])  # (not the free points)


@pytest.mark.parametrize("nu", [0.1, 0.3, 0.8])
def test_the_estimators_certificate_brackets_the_two_hull_value(nu):
    # On imbalanced classes, where nu = 0.3 and 0.8 make the minority class its centroid (cap 1 / n_P) and
    # leave the majority's cap 2 / (nu n): the certificate is the two-hull game's with those caps.
    from gamedyn.sklearn import MarginClassifier

    X, y = separated(12, 60, gap=1.5, seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = MarginClassifier(nu=nu, tol=1e-3, max_iter=2000).fit(X, y)
    positive = y == 1
    value, scale = exact_two_hulls(X / model.row_scale_, positive, *caps_of(positive, nu))
    certificate = model.certificate_[0]
    assert certificate.lower <= value * (1 + 1e-7) + 1e-9 and value <= certificate.upper * (1 + 1e-7) + 1e-9


def test_imbalanced_one_vs_rest_never_returns_the_constant_classifier():
    # Four small classes (10 rows each) against a large one (400 rows), each class a cluster: with the bias in
    # the norm, "not this class" everywhere already had a positive CVaR margin (issue 29); with the free bias
    # every class is found.
    from gamedyn.sklearn import MarginClassifier

    rng = np.random.default_rng(7)
    centres = 4.0 * np.eye(5)
    sizes = [400, 10, 10, 10, 10]
    X = np.vstack([centres[k] + rng.normal(size=(size, 5)) for k, size in enumerate(sizes)])
    y = np.repeat(np.arange(5), sizes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = MarginClassifier(nu=0.1).fit(X, y)
    predicted = model.predict(X)
    for k in range(1, 5):
        assert np.mean(predicted[y == k] == k) >= 0.9
    scores = model.decision_function(X)
    assert np.all(np.max(scores[y != 0], axis=0)[1:] > 0)  # no class is "never"


@settings(max_examples=40, deadline=None)
@given(ratio=st.integers(1, 50), nu=st.sampled_from([0.02, 0.05, 0.1, 0.3, 0.7, 1.0]),
       exponent=st.integers(-40, 40), shift=st.floats(0.0, 3.0), seed=st.integers(0, 2**16),
       started=st.booleans())
def test_the_active_set_point_is_the_exact_qp_of_the_two_hulls(ratio, nu, exponent, shift, seed, started):
    # reduced_hulls_point (the small problems' start of the estimator) against Clarabel's QP: the same value,
    # ||A^T p|| / 2 with p on the product of the two capped simplices (each block summing to 1), from the
    # centres or from any point of the domain; imbalanced 1:1 to 1:50, scales 2^-40 .. 2^40.
    from gamedyn.certify.soft_margin import reduced_hulls_point

    rng, X, positive = imbalanced_classes(ratio, shift, exponent, seed)
    caps = caps_of(positive, nu)
    A = np.where(positive, 1.0, -1.0)[:, None] * X
    row_caps = np.where(positive, caps[0], caps[1])
    start = None
    if started:  # a point of the domain: each block's centre moved towards a random point of it
        start = np.empty(X.shape[0])
        for block, cap in ((positive, caps[0]), (~positive, caps[1])):
            start[block] = capped_simplex.project(rng.dirichlet(np.ones(block.sum())), cap)
    p = reduced_hulls_point(A, row_caps, (~positive).astype(int), start=start)
    for block, cap in ((positive, caps[0]), (~positive, caps[1])):
        assert abs(math.fsum(p[block]) - 1.0) <= 1e-12
        assert np.all(p[block] >= 0) and np.all(p[block] <= cap * (1 + 1e-12))
    value, scale = exact_two_hulls(X, positive, *caps)
    found = 0.5 * float(np.linalg.norm(A.T @ p))
    assert found >= value * (1 - 1e-7) - 1e-8 * scale  # (a point of the domain: never below the minimum)
    assert found <= value * (1 + 1e-6) + 1e-8 * scale


def test_the_active_set_point_refuses_caps_below_a_blocks_centre():
    from gamedyn.certify.soft_margin import reduced_hulls_point

    with pytest.raises(ValueError, match=r"block 1's caps must be in \[1 / 3, 1\]"):
        reduced_hulls_point(np.eye(5), [0.5, 0.5, 0.2, 0.2, 0.2], [0, 0, 1, 1, 1])
    with pytest.raises(ValueError, match="blocks must hold one integer per row"):
        reduced_hulls_point(np.eye(3), 1.0, [0.5, 0.5, 0.5])


@pytest.mark.parametrize("nu", [0.01, 0.03])
def test_a_small_nu_on_small_data_is_settled_by_the_qps_active_set(nu):
    # Near the hard margin L-BFGS crawls (breast cancer at nu = 0.01: 10,000 iterations, 29 CPU s, the gap still
    # 0.99); on small data the QP's active set takes over at ACTIVE_SET_AFTER iterations and the bracket at its
    # point closes: certified to tol at once, no warning, and the value is Clarabel's.
    from sklearn.datasets import load_breast_cancer
    from sklearn.preprocessing import StandardScaler

    from gamedyn.sklearn import ACTIVE_SET_AFTER, MarginClassifier

    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = MarginClassifier(nu=nu).fit(X, y)
    certificate = model.certificate_[0]
    assert certificate.lower > 0 and certificate.relative_gap <= model.tol
    assert model.n_iter_[0] == ACTIVE_SET_AFTER  # (the restart at the active set's point settled at iteration 0)
    positive = y == 1
    value, _ = exact_two_hulls(X / model.row_scale_, positive, *caps_of(positive, nu))
    assert certificate.lower <= value * (1 + 1e-7) + 1e-9 and value <= certificate.upper * (1 + 1e-7) + 1e-9
