"""A small extensive-form game plays a dense copy of its payoff (issue 35: the per-iteration cost on Kuhn).

``ExtensiveFormGame.payoff()`` gives a game of at most ``DENSE_PAYOFF_MAX_ENTRIES`` payoff entries a dense
float64 A (a BLAS product of ~2 us where scipy's sparse product costs ~5-9 us a call); a larger one keeps the
sparse A. The runs are those of the sparse payoff up to the order of the products' sums: every recipe's
averages (relative, as tests/same_game.py measures), bracket and exploitability agree with the sparse run's to
1e-12 (``same_game.TOLERANCE``).
"""

import numpy as np
import pytest
import scipy.sparse as sp
from same_game import TOLERANCE, relative_error

import gamedyn.games.efg.game as efg_game
from gamedyn import recipes
from gamedyn.games.efg import kuhn_poker, load_game


def test_small_game_plays_a_dense_copy_and_a_large_one_the_sparse_a():
    kuhn = kuhn_poker()
    payoff = kuhn.payoff()
    assert isinstance(payoff.M, np.ndarray) and payoff.M.dtype == np.float64
    assert np.array_equal(payoff.M, kuhn.A.toarray())
    leduc = load_game("leduc_poker")
    assert leduc.A.shape[0] * leduc.A.shape[1] > efg_game.DENSE_PAYOFF_MAX_ENTRIES
    assert sp.issparse(leduc.payoff().M)


@pytest.mark.parametrize("name", ["cfr", "cfr_plus", "dcfr", "pcfr_plus"])
@pytest.mark.parametrize("alternating", [False, True])
def test_dense_payoff_runs_as_the_sparse_one(name, alternating, monkeypatch):
    """Kuhn, 100 rounds: the dense payoff's run equals the sparse payoff's to 1e-12 (averages relative, bracket, gap).

    The products' sums run in another order, and the rules' clipping switches amplify that rounding with the
    rounds (measured: <= 1.6e-14 at 100 rounds; 1.3e-12 for simultaneous PCFR+ at 300), as between any two
    implementations: 100 rounds keep the comparison at the house tolerance."""
    recipe = getattr(recipes, name)
    game = kuhn_poker()
    dense = recipe(game, 100, alternating=alternating)
    monkeypatch.setattr(efg_game, "DENSE_PAYOFF_MAX_ENTRIES", 0)
    assert sp.issparse(game.payoff().M)
    sparse = recipe(game, 100, alternating=alternating)
    for field in ("x", "y"):
        assert relative_error(getattr(dense, field), getattr(sparse, field)) <= TOLERANCE, field
    for field in ("lower", "upper", "exploitability"):
        assert abs(getattr(dense, field) - getattr(sparse, field)) <= TOLERANCE, field
