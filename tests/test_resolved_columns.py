"""Exact proofs on data whose columns are dependent up to rounding (gamedyn.certify.gordan.resolved_columns).

A feature computed from others (scikit-learn's ``make_classification`` makes ``n_redundant`` of them) is a
linear combination of them in real arithmetic and not in float64: exactly, the rows span every
coordinate, so a proof that 0 lies in the (reduced) hull needs one row more than a float LP, which
cannot see the rounding-sized direction, names. Without the transform these proofs came back
undecided; every proof below is checked here again in rational arithmetic, independently of the
library's own check.
"""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from gamedyn.certify.certificates import certify_not_separable
from gamedyn.certify.gordan import resolved_columns
from gamedyn.certify.soft_margin import reduced_hull_proof


def redundant_rows(seed, n=240, informative=5, redundant=2, scale_exponent=0):
    """Signed rows y_i (x_i, 1) with ``redundant`` columns computed (rounded) from the informative ones and
    labels of a noisy linear rule (a quarter flipped: not separable, overlapping reduced hulls)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, informative))
    X = np.hstack([X, X @ rng.standard_normal((informative, redundant))])
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, 1.0, -1.0)
    y[rng.random(n) < 0.25] *= -1
    rows = y[:, None] * np.hstack([X, np.ones((n, 1))])
    return np.ldexp(rows / np.abs(rows).max(), scale_exponent)


def _solve_exactly(M, b, guess):
    """A rational solution of M x = b (Fractions; Gauss-Jordan), its free variables (if the solution set is
    larger than a point) pinned at ``guess``'s values; None when M x = b has no solution."""
    rows = [list(r) + [v] for r, v in zip(M, b)]
    m, k = len(rows), len(M[0])
    pivot_row, pivot_of = 0, {}
    for col in range(k):
        r = next((i for i in range(pivot_row, m) if rows[i][col] != 0), None)
        if r is None:
            continue  # a free variable
        rows[pivot_row], rows[r] = rows[r], rows[pivot_row]
        head = rows[pivot_row][col]
        rows[pivot_row] = [v / head for v in rows[pivot_row]]
        for i in range(m):
            if i != pivot_row and rows[i][col] != 0:
                factor = rows[i][col]
                rows[i] = [a - factor * c for a, c in zip(rows[i], rows[pivot_row])]
        pivot_of[col] = pivot_row
        pivot_row += 1
    if any(rows[i][k] != 0 for i in range(pivot_row, m)):
        return None  # inconsistent
    x = [Fraction(guess[col]) for col in range(k)]
    for col, r in pivot_of.items():
        x[col] = rows[r][k] - sum((rows[r][j] * x[j] for j in range(k) if j not in pivot_of), Fraction(0))
    return x


def exactly_balanced(A, p, cap=None):
    """An independent exact check of a proof whose entries were rounded to float64: on p's face (entries
    at the cap, free entries), the free weights solved again in rational arithmetic from
    ``sum_i p_i a_i = 0`` and ``sum p = 1`` on the rows' float64 values (any variables the equations leave
    free pinned at p's own values) must exist, lie in (0, cap) and be within rounding of p: an exact point
    of the (reduced) hull at 0."""
    cap_q = None if cap is None else Fraction(float(cap))
    at_cap = [i for i in range(len(p)) if cap is not None and p[i] == cap]
    free = [i for i in range(len(p)) if p[i] > 0 and i not in at_cap]
    if not free:
        return False
    d = A.shape[1]
    entries = [[Fraction(float(A[i, j])) for j in range(d)] for i in range(A.shape[0])]
    M = [[entries[i][j] for i in free] for j in range(d)] + [[Fraction(1)] * len(free)]
    rest = [-(cap_q * sum((entries[i][j] for i in at_cap), Fraction(0))) if at_cap else Fraction(0) for j in range(d)]
    b = rest + [1 - (cap_q * len(at_cap) if at_cap else 0)]
    keep = [r for r in range(len(M)) if any(M[r]) or b[r] != 0]  # (a coordinate no free row uses, balanced by C)
    if any(not any(M[r]) and b[r] != 0 for r in range(len(M))):
        return False
    solution = _solve_exactly([M[r] for r in keep], [b[r] for r in keep], [float(p[i]) for i in free])
    if solution is None:
        return False
    if any(x <= 0 or (cap_q is not None and x >= cap_q) for x in solution):
        return False
    return all(abs(float(x) - p[i]) <= 1e-12 for x, i in zip(solution, free))


def test_the_float_lp_alone_misses_these_proofs():
    # The premise: on these rows the LP's vertex is one row short of an exact proof (numerical rank < d).
    A = redundant_rows(0)
    assert np.linalg.matrix_rank(A) < A.shape[1]
    resolved = resolved_columns(A)
    assert resolved is not None and np.linalg.matrix_rank(resolved) == A.shape[1]


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), redundant=st.integers(1, 3), scale_exponent=st.integers(-40, 40))
def test_gordan_proves_overlap_with_redundant_columns(seed, redundant, scale_exponent):
    A = redundant_rows(seed, redundant=redundant, scale_exponent=scale_exponent)
    certificate = certify_not_separable(A)
    assert certificate.separable is False
    assert exactly_balanced(A, certificate.p)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("nu", [0.3, 0.6])
def test_reduced_hull_proof_with_redundant_columns(seed, nu):
    A = redundant_rows(seed)
    cap = 1.0 / (nu * A.shape[0])
    p = reduced_hull_proof(A, cap)
    assert p is not None
    assert exactly_balanced(A, p, cap)


def test_resolved_columns_is_none_without_dependent_columns():
    A = np.random.default_rng(3).standard_normal((50, 6))
    assert resolved_columns(A) is None


def test_estimator_proves_overlap_at_once_on_redundant_features():
    pytest.importorskip("sklearn")
    from gamedyn.sklearn import MarginClassifier, NotSeparableWarning
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=600, n_features=10, n_redundant=2, flip_y=0.1, random_state=0)
    with pytest.warns(NotSeparableWarning):
        model = MarginClassifier(nu=0.1).fit(X, y)
    assert model.certificate_[0].separable is False and model.n_iter_[0] <= 40
