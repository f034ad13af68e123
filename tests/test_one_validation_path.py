"""One validation path for every public entry point (issue 30): the numbers a function reads go through
:func:`gamedyn.core.validation.real_array` (or scikit-learn's own checks, for the estimator's non-text input).

Regressions (each failed on 970ab2a): digit strings were read as numbers by ``solve_game``,
``solve_matrix_game``, the matrix recipes, ``nash_gap`` and ``MarginClassifier`` while ``max_margin`` refused
them; ragged lists got numpy's raw message at those entries; ``solve_matrix_game`` refused a scipy sparse
``M`` that ``solve_game`` accepts; ``certify_not_separable`` turned a soft-margin certificate "not separable"
on a proof of 0 in the convex hull, which says nothing of the reduced hull.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from gamedyn import recipes
from gamedyn.certify import certify_not_separable, max_margin
from gamedyn.certify.certificates import Certificate
from gamedyn.certify.margins import max_margin_q
from gamedyn.certify.soft_margin import reduced_hull_proof, soft_margin
from gamedyn.games.matrix.game import MatrixGame, nash_gap, solve_matrix_game
from gamedyn.games.matrix.solve import NashGapStop, solve_game
from gamedyn.io import signed_rows

BAD = {  # name -> (value, exception, what the message must say)
    "digit strings": ([["1", "2"], ["3", "4"]], TypeError, "string"),
    "numbers and a digit string": ([[1.0, "2"], [3.0, 4.0]], TypeError, "string"),
    "digit strings as objects": (np.array([[1.0, "2"], [3.0, 4.0]], dtype=object), TypeError, "string"),
    "ragged": ([[1.0, 2.0], [3.0]], ValueError, "ragged"),
    "complex": (np.array([[1 + 1j, 2.0], [3.0, 4.0]]), TypeError, "complex"),
    "NaN": ([[np.nan, 1.0], [1.0, 2.0]], ValueError, "NaN|finite"),
    "empty": (np.zeros((0, 2)), ValueError, "shape|at least one row"),
}

ENTRIES = {
    "solve_game": lambda M: solve_game(M),
    "solve_matrix_game": lambda M: solve_matrix_game(M),
    "nash_gap": lambda M: nash_gap(M, [0.5, 0.5], [0.5, 0.5]),
    "MatrixGame": lambda M: MatrixGame(M),
    "NashGapStop": lambda M: NashGapStop(M, 1e-3, float),
    **{f"recipes.{name}": (lambda name: lambda M: recipes.RECIPES[name].function(M, 3))(name)
       for name in recipes.of_family("matrix")},
    **{f"recipes.{name}": (lambda name: lambda A: recipes.RECIPES[name].function(
        A, 3, **({"p": 3.0} if "p" in recipes.RECIPES[name].options else {})))(name)
       for name in recipes.of_family("margin")},
    "max_margin": lambda A: max_margin(A),
    "max_margin_q": lambda A: max_margin_q(A, 1.5),
    "certify_not_separable": lambda A: certify_not_separable(A),
    "soft_margin": lambda A: soft_margin(A, nu=1.0),
    "reduced_hull_proof": lambda A: reduced_hull_proof(A, 1.0),
    "signed_rows": lambda X: signed_rows(X, [1, -1]),
}


@pytest.mark.parametrize("bad", sorted(BAD))
@pytest.mark.parametrize("entry", sorted(ENTRIES))
def test_every_entry_refuses_bad_numbers_by_name(entry, bad):
    value, kind, said = BAD[bad]
    with pytest.raises(kind, match=said):
        ENTRIES[entry](value)


@pytest.mark.parametrize("bad", ["digit strings", "numbers and a digit string", "digit strings as objects", "ragged"])
def test_the_estimator_refuses_text_and_names_ragged_rows(bad):
    from gamedyn.sklearn import MarginClassifier

    value, kind, said = BAD[bad]
    with pytest.raises(kind, match=said):
        MarginClassifier(C=None).fit(value, [1, -1])


@pytest.mark.parametrize("where", ["row", "column"])
def test_strategies_are_numbers_too(where):
    M = np.array([[1.0, 0.0], [0.0, 1.0]])
    strategies = {"row": [0.5, 0.5], "column": [0.5, 0.5]}
    strategies[where] = ["0.5", "0.5"]
    with pytest.raises(TypeError, match=f"{where} holds strings"):
        nash_gap(M, strategies["row"], strategies["column"])


@pytest.mark.parametrize("form", ["csr", "csc", "coo"])
def test_solve_matrix_game_takes_a_sparse_matrix_like_solve_game(form):
    M = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]]) + 0.1 * np.eye(3)
    M[0, 1] = 0.0  # a stored zero less
    dense, sparse = solve_matrix_game(M), solve_matrix_game(sp.csr_matrix(M).asformat(form))
    assert sparse.value == dense.value and sparse.lower == dense.lower and sparse.upper == dense.upper
    assert np.array_equal(sparse.row, dense.row) and np.array_equal(sparse.column, dense.column)
    assert sparse.lower <= solve_game(sp.csr_matrix(M), 1e-6).upper


def test_a_soft_margin_certificate_is_never_made_not_separable_by_a_hard_margin_proof():
    """0 lies in the convex hull of these rows (rows 0 and 1), not in the reduced hull of cap 0.3 (the only row
    with a negative first coordinate carries at most 0.3): certify_not_separable called the soft margin 0."""
    A = np.array([[1.0, 0.0], [-1.0, 0.0], [5.0, 1.0], [5.0, -1.0], [6.0, 0.0]])
    undecided = Certificate(lower=0.0, upper=1.0, separable=None, p=np.array([0.3, 0.3, 0.2, 0.1, 0.1]), cap=0.3)
    assert soft_margin(A, cap=0.3).verdict == "positive"
    assert certify_not_separable(A, undecided).separable is None
    overlapping = np.vstack([A, [[-1.0, 0.0], [-1.0, 0.0]]])  # now three rows at -1: weights 0.3, 0.3, 0.1 reach it
    proved = certify_not_separable(overlapping, Certificate(lower=0.0, upper=1.0, separable=None,
                                                            p=np.full(7, 1 / 7), cap=0.3))
    assert proved.separable is False and soft_margin(overlapping, cap=0.3).verdict == "zero"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert abs(float(np.linalg.norm(overlapping.T @ proved.p))) <= 1e-15
