"""DilatedEntropy (issue 33): the bottom-up prox lands on the treeplex, is the argmin (scipy on tiny treeplexes, and
no treeplex point does better), is consistent bottom-up, is Hedge on a single infoset, carries MMD's magnet, and the
Kroer et al. weights give the stated strong convexity."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.optimize
from hypothesis import given, settings
from hypothesis import strategies as st

from gamedyn.core import Entropy
from gamedyn.core.dilated import DilatedEntropy, kroer_weights
from gamedyn.core.treeplex import Treeplex


@st.composite
def treeplexes(draw, max_levels=3, max_width=3):
    """A random treeplex: level 0 hangs on the empty sequence, each deeper infoset on a sequence one level up."""
    parents, sizes = [], []
    previous = [0]  # the sequences of the level above (the empty one for the top)
    next_sequence = 1
    for level in range(draw(st.integers(1, max_levels))):
        width = draw(st.integers(1, max_width))
        current = []
        for _ in range(width):
            parent = draw(st.sampled_from(previous))
            size = draw(st.integers(1, 3))
            parents.append(parent)
            sizes.append(size)
            current.extend(range(next_sequence, next_sequence + size))
            next_sequence += size
        previous = current
    return Treeplex(parents, sizes)


def random_point(treeplex, rng, floor=0.0):
    b = rng.random(treeplex.dimension) + floor
    b[0] = 1.0
    totals = np.add.reduceat(b[1:], treeplex.offsets).repeat(treeplex.sizes)
    b[1:] /= totals
    return treeplex.to_sequence(b)


def softmax_point(treeplex, w):
    """The sequence form of the behavioural strategy softmax(w) on every infoset (w unconstrained)."""
    b = np.empty(treeplex.dimension)
    b[0] = 1.0
    top = np.maximum.reduceat(w, treeplex.offsets).repeat(treeplex.sizes)
    e = np.exp(w - top)
    b[1:] = e / np.add.reduceat(e, treeplex.offsets).repeat(treeplex.sizes)
    return treeplex.to_sequence(b)


def objective(R, theta, eta, centre, magnet=None, alpha=0.0):
    def value(x):
        total = eta * float(theta @ x) + R.bregman(x, centre)
        if alpha:
            total += eta * alpha * R.bregman(x, magnet)
        return total
    return value


CASE = st.tuples(treeplexes(), st.integers(0, 2**32 - 1), st.floats(0.05, 3.0))


@settings(max_examples=40, deadline=None)
@given(CASE)
def test_the_prox_lands_on_the_treeplex_with_positive_entries(case):
    treeplex, seed, eta = case
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=treeplex.dimension) * 5
    for weights in (None, "kroer"):
        R = DilatedEntropy(treeplex, weights)
        x = R.argmin(theta, 0.0, eta, random_point(treeplex, rng, 0.1))
        assert treeplex.contains(x, 1e-12) and np.all(x > 0)


@settings(max_examples=25, deadline=None)
@given(CASE, st.sampled_from([0.0, 0.7]))
def test_the_prox_is_the_argmin_scipy_and_random_points_do_no_better(case, alpha):
    treeplex, seed, eta = case
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=treeplex.dimension)
    centre = random_point(treeplex, rng, 0.2)
    magnet = random_point(treeplex, rng, 0.2)
    R = DilatedEntropy(treeplex, rng.uniform(0.5, 2.0, treeplex.number_of_infosets), magnet=magnet, alpha=alpha)
    x = R.argmin(theta, 0.0, eta, centre)
    f = objective(R, theta, eta, centre, magnet, alpha)
    best = f(x)
    # scipy over the unconstrained behavioural logits (every point of the relative interior), from the centre
    start = np.log(treeplex.to_behavioural(centre))[1:]
    solution = scipy.optimize.minimize(lambda w: f(softmax_point(treeplex, w)), start, method="BFGS",
                                       options={"gtol": 1e-10, "maxiter": 5000})
    assert best <= solution.fun + 1e-10
    assert np.max(np.abs(softmax_point(treeplex, solution.x) - x)) <= 1e-4
    for _ in range(20):  # no point of the treeplex does better (the minimum is unique: R is strictly convex)
        assert f(random_point(treeplex, rng)) >= best - 1e-12


@settings(max_examples=40, deadline=None)
@given(CASE)
def test_the_prox_is_consistent_bottom_up(case):
    """The behaviour chosen below a sequence depends only on the loss and the centre below it."""
    treeplex, seed, eta = case
    rng = np.random.default_rng(seed)
    R = DilatedEntropy(treeplex, "kroer")
    theta = rng.normal(size=treeplex.dimension)
    centre = random_point(treeplex, rng, 0.1)
    deepest = treeplex.levels[-1]
    below = np.zeros(treeplex.dimension, dtype=bool)
    below[deepest.sequences] = True
    other = np.where(below, theta, rng.normal(size=treeplex.dimension) * 10)
    b = treeplex.to_behavioural(R.argmin(theta, 0.0, eta, centre))
    b_other = treeplex.to_behavioural(R.argmin(other, 0.0, eta, centre))
    np.testing.assert_allclose(b[below], b_other[below], rtol=0, atol=1e-14)
    # and a deepest infoset alone is the Hedge step of its own simplex (the matrix-game learner)
    j = deepest.infosets.start
    lo, hi = int(treeplex.starts[j]), int(treeplex.starts[j + 1])
    local = centre[lo:hi] / centre[lo:hi].sum()
    hedge = Entropy().argmin(theta[lo:hi] / R.beta[j], 0.0, eta, local)
    np.testing.assert_allclose(b[lo:hi], hedge, rtol=0, atol=1e-14)


def test_one_infoset_is_hedge_on_the_simplex():
    treeplex = Treeplex([0], [4])
    theta, centre = np.array([0.0, 3.0, 1.0, -2.0, 0.5]), np.array([1.0, 0.1, 0.2, 0.3, 0.4])
    x = DilatedEntropy(treeplex).argmin(theta, 0.0, 0.7, centre)
    np.testing.assert_allclose(x[1:], Entropy().argmin(theta[1:], 0.0, 0.7, centre[1:]), rtol=0, atol=1e-15)


@settings(max_examples=40, deadline=None)
@given(CASE)
def test_the_mirror_maps_and_the_bregman_divergence(case):
    treeplex, seed, _ = case
    rng = np.random.default_rng(seed)
    R = DilatedEntropy(treeplex, rng.uniform(0.5, 2.0, treeplex.number_of_infosets))
    x, c = random_point(treeplex, rng, 0.1), random_point(treeplex, rng, 0.1)
    np.testing.assert_allclose(R.inverse_mirror_map(R.mirror_map(x)), x, rtol=0, atol=1e-12)
    generic = R.value(x) - R.value(c) - R.mirror_map(c) @ (x - c)
    assert abs(R.bregman(x, c) - generic) <= 1e-12 * (1 + abs(generic))
    assert R.bregman(x, c) >= 0.0 and R.bregman(x, x) == 0.0


@settings(max_examples=60, deadline=None)
@given(treeplexes(max_levels=4), st.integers(0, 2**32 - 1))
def test_the_kroer_weights_make_it_strongly_convex_in_l1(treeplex, seed):
    r"""Kroer et al. (2020): :math:`D_R(x,y)\ge\|x-y\|_1^2/(2M_X)` for every x, y of the treeplex."""
    rng = np.random.default_rng(seed)
    R = DilatedEntropy(treeplex, "kroer")
    _, M = kroer_weights(treeplex)
    assert M == pytest.approx(-treeplex.best_response_value(-np.r_[0.0, np.ones(treeplex.dimension - 1)]))
    for _ in range(10):
        x, y = random_point(treeplex, rng, 0.01 * rng.random()), random_point(treeplex, rng, 0.01)
        assert R.bregman(x, y) >= np.abs(x - y).sum() ** 2 / (2 * M) * (1 - 1e-12)


def test_bad_input_is_refused_with_the_fix():
    treeplex = Treeplex([0, 1], [2, 2])
    with pytest.raises(ValueError, match="weights"):
        DilatedEntropy(treeplex, [1.0, -1.0])
    with pytest.raises(ValueError, match="weights"):
        DilatedEntropy(treeplex, "heavy")
    with pytest.raises(TypeError, match="treeplex"):
        DilatedEntropy("kuhn")
    with pytest.raises(ValueError, match="magnet"):
        DilatedEntropy(treeplex, magnet=[1.0, 1.0, 0.0, 0.5, 0.5], alpha=0.1)
    with pytest.raises(ValueError, match="alpha"):
        DilatedEntropy(treeplex, alpha=-1.0)
    R = DilatedEntropy(treeplex)
    with pytest.raises(ValueError, match="curvature"):
        R.argmin(np.zeros(5), 1.0, 1.0, treeplex.default_centre(5))
    with pytest.raises(ValueError, match="non-finite"):
        R.argmin(np.array([0.0, np.nan, 0, 0, 0]), 0.0, 1.0, treeplex.default_centre(5))
