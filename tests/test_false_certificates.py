"""A hunt for a false certificate (issue 16).

Every verdict is checked against a reference that owes nothing to the code under test:

* separable data with a planted max margin known in closed form: rows ``(gamma, u)`` and
  ``(gamma, -u)`` (or three rows whose mean is ``(gamma, 0)``) and extra rows whose first coordinate
  is >= gamma, so the hull lies in ``{x_1 >= gamma}`` and holds ``(gamma, 0, ..., 0)``: gamma* = gamma
  exactly, in every norm (the float64 rows are built exactly; then signed permutations of the
  coordinates and powers of two, both exact). gamma goes down to 2^-998 (relative margins below
  1e-300); the extra rows are graded (norms over hundreds of orders of magnitude);
* non-separable data with 0 in the hull by construction: rows a and -a, or integer rows with an
  integer convex combination 0, each row then scaled by its own power of two (exact), among extras.

A false verdict is ``separable=False`` (or NotSeparableError) on separable data, ``separable=True``
(or a returned MaxMargin) on non-separable data, ``lower`` above gamma* or ``upper`` below it by
more than the rounding of computing them (Higham's gamma_k bounds, stated where used). A verdict
``separable=True`` is also re-proved exactly: the output direction's margins in rational arithmetic.
Completeness: on the structured non-separable data whose rows' entries span at most 2^60 (graded
as whole rows), ``certify_not_separable`` and ``max_margin`` must prove ``separable=False`` (the
exact checks apply there, within their caps; they must not just say None).

The number of examples is ``GAMEDYN_HUNT_EXAMPLES`` (default 800: 17 s on the quiet 2-core machine),
shared between the three tests below: 45 % recipes and stop rules, 30 % the oracles, 25 % the estimator.
"""

from __future__ import annotations

import math
import os
import warnings
from fractions import Fraction

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import gamedyn.recipes as recipes
from gamedyn.certify import stops
from gamedyn.certify import certify_not_separable
from gamedyn.certify import MarginUndecidedError, NotSeparableError, max_margin

EXAMPLES = int(os.environ.get("GAMEDYN_HUNT_EXAMPLES", "800"))
UNIT = 2.0 ** -53


def _share(fraction: float) -> int:
    return max(1, round(EXAMPLES * fraction))


def _hunt(fraction: float):
    return settings(max_examples=_share(fraction), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])


def gamma_k(k: int) -> float:
    """Higham's gamma_k = k u / (1 - k u)."""
    return k * UNIT / (1 - k * UNIT)


def _safe_norms(A: np.ndarray, order: float = 2.0) -> np.ndarray:
    peaks = np.max(np.abs(A), axis=1)
    safe = np.where(peaks > 0, peaks, 1.0)
    return peaks * np.linalg.norm(A / safe[:, None], ord=order, axis=1)


def exact_min_margin(A: np.ndarray, w: np.ndarray) -> Fraction:
    """min_i a_i . w in exact rational arithmetic (float64 values are dyadic rationals)."""
    w = [Fraction(float(value)) for value in w]
    return min(sum(Fraction(float(a)) * b for a, b in zip(row, w) if a) for row in A)


# ------------------------------------------------------------------------------------------ data


def _grid(draw, size: int, grades) -> np.ndarray:
    """A vector of dyadic entries i 2^(-24 - g_j), |i| < 2^20: sums of two of them are exact."""
    integers = draw(st.lists(st.integers(-(2 ** 20), 2 ** 20), min_size=size, max_size=size))
    return np.ldexp(np.array(integers, dtype=np.float64), -24 - np.asarray(grades))


def _signed_permutation(draw, A: np.ndarray):
    d = A.shape[1]
    order = draw(st.permutations(range(d)))
    signs = np.array(draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=d, max_size=d)))
    return A[:, order] * signs, order, signs


def _exact_power_of_two(A: np.ndarray, k: int) -> bool:
    """Whether 2^k A is exact and normal: no entry overflows, none is or becomes subnormal."""
    with np.errstate(over="ignore"):
        scaled = np.ldexp(A, k)
    nonzero = np.abs(scaled[scaled != 0])
    tiny = np.finfo(np.float64).tiny
    return bool(np.all(np.isfinite(scaled)) and np.array_equal(np.ldexp(scaled, -k), A)
                and np.count_nonzero(A) == nonzero.size and (not nonzero.size or np.min(nonzero) >= tiny))


@st.composite
def planted(draw, unit_rows: bool = True):
    """(A, gamma*, (row, column) of an entry +-gamma*): separable rows with a closed-form max margin."""
    d = draw(st.integers(2, 6))
    gamma = math.ldexp(draw(st.floats(1.0, 2.0, exclude_max=True)), -draw(st.integers(3, 998)))
    grades = draw(st.lists(st.integers(0, 60), min_size=d - 1, max_size=d - 1))
    u = _grid(draw, d - 1, grades)
    if not np.any(u):
        u[0] = 2.0 ** -24
    if draw(st.booleans()):  # a pair, mean (gamma, 0)
        support = [np.r_[gamma, u], np.r_[gamma, -u]]
    else:  # three rows with mean (gamma, 0): u, v, -(u + v), exact on the grid
        v = _grid(draw, d - 1, grades)
        support = [np.r_[gamma, u], np.r_[gamma, v], np.r_[gamma, -(u + v)]]
    extras = []
    for _ in range(draw(st.integers(0, 25))):
        grade = draw(st.integers(0, 300))  # graded rows: norms from 2^-300 up
        lift = draw(st.floats(0.0, 0.2))
        rest = np.array(draw(st.lists(st.floats(-0.2, 0.2), min_size=d - 1, max_size=d - 1)))
        first = gamma + math.ldexp(lift, -grade)  # rounded, still >= gamma (rounding is monotone)
        extras.append(np.r_[first, np.ldexp(rest, -grade)])
    rows = np.array(support + extras)
    assert np.all(rows[:, 0] >= gamma)
    rows = rows[np.array(draw(st.permutations(range(len(rows)))))]
    where = (int(np.flatnonzero(rows[:, 0] == gamma)[0]), 0)
    A, order, _ = _signed_permutation(draw, rows)
    column = int(np.flatnonzero(np.asarray(order) == 0)[0])
    scale = draw(st.integers(-60, 0) if unit_rows else st.integers(-700, 700))
    if not _exact_power_of_two(A, scale):
        scale = 0
    A = np.ldexp(A, scale)
    gamma_star = abs(float(A[where[0], column]))
    assert gamma_star == math.ldexp(gamma, scale)
    if unit_rows:
        assert np.max(_safe_norms(A)) <= 1.0
    return A, gamma_star, (where[0], column)


@st.composite
def hull_holds_zero(draw, unit_rows: bool = True, kinds=("negation", "integer")):
    """(A, kind, tame): rows with 0 in their convex hull by construction, among extra rows. ``tame``:
    the entries of every row span at most 2^60 (rows graded as wholes only), where the exact checks
    are within their caps; otherwise the extras' entries are anything."""
    d = draw(st.integers(2, 6))
    tame = draw(st.booleans())
    entry = (st.one_of(st.just(0.0), st.floats(2.0 ** -60, 1.0), st.floats(-1.0, -(2.0 ** -60))) if tame
             else st.floats(-1.0, 1.0))
    kind = draw(st.sampled_from(kinds))
    if kind == "negation":
        a = np.array(draw(st.lists(entry if tame else st.floats(-1.0, 1.0, allow_subnormal=False),
                                   min_size=d, max_size=d)))
        if not np.any(a):
            a[0] = 0.5
        core = [a, -a]
    else:  # integer rows r_1..r_k, weights c_j >= 1, r_k = -(sum_j c_j r_j): 0 = (sum_j c_j r_j + r_k) / (sum c + 1)
        k = draw(st.integers(1, d))
        integer = np.array([draw(st.lists(st.integers(-50, 50), min_size=d, max_size=d)) for _ in range(k)], dtype=float)
        if not np.any(integer):
            integer[0, 0] = 1.0  # (all-zero rows are refused by the recipes, rightly)
        weights = np.array(draw(st.lists(st.integers(1, 9), min_size=k, max_size=k)), dtype=float)
        core = list(integer) + [-(weights @ integer)]
        # each row scaled by its own power of two: 0 stays in the hull (weights c_j 2^-e_j), exactly
        core = [np.ldexp(row, -draw(st.integers(0, 200))) for row in core]
    extras = [np.ldexp(np.array(draw(st.lists(entry, min_size=d, max_size=d))), -draw(st.integers(0, 300)))
              for _ in range(draw(st.integers(0, 20)))]
    rows = np.array(core + extras)
    rows = rows[np.array(draw(st.permutations(range(len(rows)))))]
    A, _, _ = _signed_permutation(draw, rows)
    if unit_rows:  # to norms <= 1 by a power of two; when that would lose bits of tiny extras, drop them
        for candidate in (A, _signed_permutation(draw, np.array(core))[0]):
            scale = -math.frexp(float(np.max(_safe_norms(candidate))))[1]
            if _exact_power_of_two(candidate, scale):
                break
        A = candidate
    else:
        scale = draw(st.integers(-700, 700))
        if not _exact_power_of_two(A, scale):
            scale = 0
    assume(_exact_power_of_two(A, scale))
    A = np.ldexp(A, scale)
    if unit_rows:
        assert np.max(_safe_norms(A)) <= 1.0
    return A, kind, tame


# ------------------------------------------------------------------------------------ the checks


def check_bracket(lower: float, upper: float, A: np.ndarray, gamma_star: float, q: float = 2.0,
                  unit: float = UNIT) -> None:
    """lower <= gamma* <= upper up to the rounding of computing them.

    lower = min_i fl(a_i . w) / fl(||w||_q): each product is within gamma_{d+3} ||a_i||_{q*} ||w||_q
    of the exact one (Higham 3.1 with Hoelder), the norm and the division add a few units relative;
    upper = fl(||A^T p||_{q*}): the computed vector is within gamma_n sum_i p_i ||a_i||_2 of the exact
    one (and ||.||_{q*} <= ||.||_2 for q* >= 2), sum p = 1 up to n u, the norm a few units relative.
    """
    n, d = A.shape
    dual = q / (q - 1)
    rows_dual, rows_l2 = float(np.max(_safe_norms(A, dual))), float(np.max(_safe_norms(A)))
    lower_slack = 2 * gamma_k(d + 4) * rows_dual / UNIT * unit + 8 * (d + 4) * UNIT * gamma_star
    upper_slack = 2 * gamma_k(n + 4) * rows_l2 + 8 * (n + d + 4) * UNIT * gamma_star
    assert lower <= upper, (lower, upper)
    assert lower <= gamma_star + lower_slack, ("lower above gamma*", lower, gamma_star, lower_slack)
    assert upper >= gamma_star - upper_slack, ("upper below gamma*", upper, gamma_star, upper_slack)


def check_certificate(certificate, A, gamma_star, w=None) -> None:
    """No false verdict in a Certificate of the rows A (gamma* = 0: 0 in the hull)."""
    check_bracket(certificate.lower, certificate.upper, A, gamma_star, certificate.q)
    if gamma_star > 0:
        assert certificate.separable is not False, ("separable data certified not separable", certificate)
    else:
        assert certificate.separable is not True, ("non-separable data certified separable", certificate)
    if certificate.separable and w is not None:  # re-prove the verdict exactly
        assert exact_min_margin(A, w) > 0
    if certificate.separable is False:
        assert np.all(certificate.p >= 0) and abs(np.sum(certificate.p) - 1.0) <= A.shape[0] * 4 * UNIT


RECIPES = {
    "smooth_perceptron": lambda A, T, stop: recipes.smooth_perceptron(A, T, stop=stop),
    "accelerated_perceptron (wang)": lambda A, T, stop: recipes.accelerated_perceptron(A, T, stop=stop),
    "accelerated_perceptron (ji)": lambda A, T, stop: recipes.accelerated_perceptron(A, T, theta="ji", stop=stop),
    "mirror_prox_perceptron": lambda A, T, stop: recipes.mirror_prox_perceptron(A, T, stop=stop),
    "nag_margin": lambda A, T, stop: recipes.nag_margin(A, T, stop=stop),
    "pnorm_perceptron (p = 3)": lambda A, T, stop: recipes.pnorm_perceptron(A, T, p=3.0, stop=stop),
}
RULES = {
    "separated": lambda: stops.separated,
    "margin_within(0.05)": lambda: stops.margin_within(0.05),
    "infeasible(1e-3)": lambda: stops.infeasible(1e-3),
    "any_of(margin_within(0.05), infeasible(1e-3))": lambda: stops.any_of(stops.margin_within(0.05),
                                                                            stops.infeasible(1e-3)),
}


# ------------------------------------------------------------------------------------------ hunts


@_hunt(0.45)
@given(st.one_of(planted().map(lambda x: ("separable",) + x), hull_holds_zero().map(lambda x: ("hull",) + x)),
       st.sampled_from(sorted(RECIPES)), st.sampled_from(sorted(RULES)), st.integers(20, 300))
def test_no_recipe_and_stop_rule_certifies_the_wrong_thing(case, recipe, rule, T):
    if case[0] == "separable":
        _, A, gamma_star, _ = case
    else:
        _, A, _, _ = case
        gamma_star = 0.0
    result = RECIPES[recipe](A, T, RULES[rule]())
    certificate = result.certificate
    check_certificate(certificate, A, gamma_star, result.w)
    if certificate.separable is None:  # what the CLI and the estimator do next
        check_certificate(certify_not_separable(A, certificate), A, gamma_star)


@_hunt(0.30)
@given(st.one_of(planted(unit_rows=False).map(lambda x: ("separable",) + x),
                 hull_holds_zero(unit_rows=False).map(lambda x: ("hull",) + x)))
def test_no_oracle_verdict_is_false(case):
    """certify_not_separable and max_margin on data of any scale (2^-700 .. 2^700 times the planted rows)."""
    if case[0] == "separable":
        _, A, gamma_star, _ = case
    else:
        _, A, kind, tame = case
        gamma_star = 0.0
    certificate = certify_not_separable(A)
    check_certificate(certificate, A, gamma_star)
    try:
        oracle = max_margin(A)
    except NotSeparableError as error:
        assert gamma_star == 0.0, ("max_margin called separable data not separable", error)
        assert np.all(error.dual >= 0)
        oracle_verdict = False
    except MarginUndecidedError as error:
        assert error.upper >= gamma_star * (1 - 8 * (A.shape[0] + A.shape[1] + 4) * UNIT) \
            - 2 * gamma_k(A.shape[0] + 4) * float(np.max(_safe_norms(A)))
        oracle_verdict = None
    else:
        assert gamma_star > 0, ("max_margin returned a margin for non-separable data", oracle)
        check_bracket(oracle.gamma, oracle.upper, A, gamma_star)
        assert exact_min_margin(A, oracle.direction) > 0
        oracle_verdict = True
    if gamma_star == 0.0 and tame:  # completeness: 0 lies in the hull of these rows exactly, and is proved
        assert certificate.separable is False, ("no proof on", kind, A)
        assert oracle_verdict is False, ("no proof on", kind, A)


@_hunt(0.25)
@given(st.one_of(planted().map(lambda x: ("separable",) + x),
                 hull_holds_zero(kinds=("negation",)).map(lambda x: ("hull",) + x)),
       st.sampled_from(["exact", "smooth_perceptron"]), st.randoms(use_true_random=False))
def test_the_estimator_never_certifies_the_wrong_thing(case, recipe, random):
    """MarginClassifier (fit_intercept=False) on X = y_i a_i. Its certificate is on the rows a_i /
    row_scale_, rounded: the planted structure survives the division (rounding is monotone and odd),
    so gamma* = fl(gamma / row_scale_); rows a, -a stay each other's negation."""
    from gamedyn.io import signed_rows
    from gamedyn.sklearn import MarginClassifier

    A = case[1]
    y = np.array([random.choice([-1.0, 1.0]) for _ in range(A.shape[0])])
    y[0], y[-1] = 1.0, -1.0  # two classes
    X = A * y[:, None]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = MarginClassifier(C=None, solver=recipe, fit_intercept=False, tol=0.05, max_iter=300).fit(X, y)
    Z = signed_rows(X / model.row_scale_, y)
    if case[0] == "separable":
        _, _, gamma, (row, column) = case
        gamma_star = abs(float(Z[row, column]))
        assert gamma_star == gamma / model.row_scale_
        assert not any("not separable" in str(warning.message) for warning in caught)
    else:
        gamma_star = 0.0
    check_certificate(model.certificate_[0], Z, gamma_star, model.coef_[0])
