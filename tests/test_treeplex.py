"""The treeplex as a domain (issue 32): its laws on random small trees, its passes against brute force, its refusals."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gamedyn
from gamedyn.core import protocols
from gamedyn.core.treeplex import Treeplex
from efg_references import brute_force_minimum, treeplex_from_records


@st.composite
def records(draw, most: int = 7):
    """Infoset records (parent, size): each parent an earlier record's action (or the empty sequence)."""
    count = draw(st.integers(1, most))
    made = []
    for _ in range(count):
        size = draw(st.integers(1, 3))
        if made and draw(st.booleans()):
            k = draw(st.integers(0, len(made) - 1))
            parent = (k, draw(st.integers(0, made[k][1] - 1)))
        else:
            parent = None
        made.append((parent, size))
    return made


@st.composite
def treeplexes(draw, most: int = 7):
    return treeplex_from_records(draw(records(most)))[0]


@st.composite
def behaviours(draw, treeplex):
    """A behavioural strategy: a random distribution on each infoset's actions, some entries exactly 0."""
    b = np.ones(treeplex.dimension)
    for j in range(treeplex.number_of_infosets):
        lo, hi = int(treeplex.starts[j]), int(treeplex.starts[j + 1])
        weights = np.array(draw(st.lists(st.sampled_from([0.0, 0.25, 1.0, 3.0, 7.5]), min_size=hi - lo,
                                         max_size=hi - lo)))
        if weights.sum() == 0:
            weights[0] = 1.0
        b[lo:hi] = weights / weights.sum()
    return b


SMALL = settings(max_examples=60, deadline=None)


@SMALL
@given(st.data())
def test_behavioural_and_sequence_form_round_trip(data):
    treeplex = data.draw(treeplexes())
    b = data.draw(behaviours(treeplex))
    x = treeplex.to_sequence(b)
    assert treeplex.contains(x)
    back = treeplex.to_behavioural(x)
    reached = x[treeplex.sequence_parents[1:]] > 0
    np.testing.assert_allclose(back[1:][reached], b[1:][reached], rtol=1e-14, atol=0.0)
    np.testing.assert_allclose(treeplex.to_sequence(back), x, rtol=1e-14, atol=1e-300)


@SMALL
@given(st.data())
def test_the_best_response_attains_the_minimum_over_pure_strategies(data):
    treeplex = data.draw(treeplexes())
    linear = np.array(data.draw(st.lists(st.integers(-4, 4), min_size=treeplex.dimension,
                                         max_size=treeplex.dimension)), dtype=np.float64) / 2
    value, x = treeplex.best_response(linear)
    assert value == brute_force_minimum(treeplex, linear)  # halves of small integers: exact in float64
    assert float(linear @ x) == value and treeplex.contains(x) and set(np.unique(x)) <= {0.0, 1.0}
    assert treeplex.best_response_value(linear) == value
    assert treeplex.best_response_value(-linear, maximize=True) == -value
    np.testing.assert_array_equal(treeplex.linear_minimizer(linear), x)
    np.testing.assert_array_equal(treeplex.minimize_quadratic(linear, 0.0), x)


@SMALL
@given(st.data())
def test_every_pure_strategy_is_a_vertex_in_the_set_and_the_centre_is_inside(data):
    treeplex = data.draw(treeplexes())
    pures = treeplex.pure_strategies()
    assert len(pures) == len({x.tobytes() for x in pures}) and all(treeplex.contains(x) for x in pures)
    centre = treeplex.default_centre(treeplex.dimension)
    assert treeplex.contains(centre)
    # the centre is the uniform behavioural strategy: each infoset splits its parent's entry evenly
    np.testing.assert_allclose(centre[1:], centre[treeplex.sequence_parents[1:]] / np.repeat(treeplex.sizes,
                                                                                              treeplex.sizes))


@SMALL
@given(st.data())
def test_the_segment_operations_are_the_per_infoset_sums_and_maxima(data):
    treeplex = data.draw(treeplexes())
    v = np.arange(treeplex.dimension, dtype=np.float64) ** 1.5 - 3.0
    for j in range(treeplex.number_of_infosets):
        lo, hi = int(treeplex.starts[j]), int(treeplex.starts[j + 1])
        assert treeplex.segment_sum(v)[j] == pytest.approx(v[lo:hi].sum(), rel=1e-15)
        assert treeplex.segment_max(v)[j] == v[lo:hi].max()
        assert np.all(treeplex.spread(treeplex.segment_max(v))[lo:hi] == v[lo:hi].max())
    for level in treeplex.levels:  # a level's infosets and sequences are contiguous and of one depth
        assert set(treeplex.depth[level.infosets].tolist()) == {level.depth}
        assert level.sequences.start == treeplex.starts[level.infosets.start]
        assert level.sequences.stop == treeplex.starts[level.infosets.stop]


def test_contains_checks_every_constraint():
    treeplex = Treeplex([0, 1], [2, 2])
    x = np.array([1.0, 0.5, 0.5, 0.25, 0.25])
    assert treeplex.contains(x)
    for bad in ([0.9, 0.5, 0.5, 0.25, 0.25], [1.0, 0.6, 0.5, 0.25, 0.25], [1.0, 0.5, 0.5, 0.3, 0.25],
                [1.0, 1.5, -0.5, 0.75, 0.75], [1.0, 0.5, 0.5, np.nan, 0.25], [1.0, 0.5, 0.5, 0.25]):
        assert not treeplex.contains(np.array(bad))


def test_a_treeplex_is_a_domain_and_compares_by_its_arrays():
    treeplex = Treeplex([0, 1, 1], [2, 2, 3])
    assert isinstance(treeplex, gamedyn.Domain) and isinstance(treeplex, protocols.Domain)
    assert treeplex == Treeplex(np.array([0, 1, 1]), [2, 2, 3]) and treeplex != Treeplex([0, 2, 1], [2, 2, 3])
    assert treeplex != gamedyn.Simplex() and hash(treeplex) == hash(Treeplex([0, 1, 1], [2, 2, 3]))
    assert pickle.loads(pickle.dumps(treeplex)) == treeplex
    assert repr(treeplex) == "Treeplex(3 infosets, 8 sequences, depth 2)"
    assert treeplex.parents.flags.writeable is False


@pytest.mark.parametrize("parents, sizes, match", [
    ([0, 3], [2, 2], "not an earlier sequence"),
    ([0, -1], [2, 2], "not an earlier sequence"),
    ([0, 1, 0], [2, 2, 2], "ordered by depth"),
    ([0], [0], "at least one action"),
    ([0, 1], [2], "one entry per infoset"),
    ([0.5], [2], "integers"),
])
def test_a_bad_layout_is_refused_naming_what_is_wrong(parents, sizes, match):
    with pytest.raises(ValueError, match=match):
        Treeplex(parents, sizes)


def test_no_euclidean_projection_and_no_curvature():
    treeplex = Treeplex([0], [2])
    with pytest.raises(ValueError, match="no Euclidean projection"):
        treeplex.project(np.zeros(3))
    with pytest.raises(ValueError, match="no Euclidean projection"):
        treeplex.minimize_quadratic(np.zeros(3), 1.0)
    with pytest.raises(ValueError, match="sequence-form vector of length 3"):
        treeplex.best_response(np.zeros(4))
    with pytest.raises(ValueError, match="3 sequences"):
        treeplex.default_centre(4)


def test_unreached_infosets_get_the_fallback_behaviour():
    treeplex = Treeplex([0, 1, 2], [2, 2, 3])  # infosets 1 and 2 below sequences 1 and 2
    x = treeplex.to_sequence(np.array([1.0, 1.0, 0.0, 0.25, 0.75, 0.2, 0.3, 0.5]))
    b = treeplex.to_behavioural(x)
    np.testing.assert_allclose(b, [1.0, 1.0, 0.0, 0.25, 0.75, 1 / 3, 1 / 3, 1 / 3])
    fallback = np.array([1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0])
    np.testing.assert_allclose(treeplex.to_behavioural(x, fallback)[5:], [0.0, 1.0, 0.0])


def test_the_brute_force_is_refused_beyond_its_limit():
    treeplex = Treeplex([0] * 12, [3] * 12)  # 3^12 pure strategies
    with pytest.raises(ValueError, match="531441 pure strategies"):
        treeplex.pure_strategies()


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_the_backward_pass_adds_as_np_add_at_bit_for_bit(data):
    """bottom_up adds each level's values to its parents by one of three plans (one shared parent: its entry plus
    each value in order; distinct parents: one gather and scatter; otherwise np.add.at): the same sums as
    np.add.at level after level, bit for bit, on random trees (levels of each kind; values of mixed magnitudes
    so that another order of the additions would round differently)."""
    treeplex = data.draw(treeplexes())
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    values = rng.normal(size=treeplex.dimension) * 10.0 ** rng.integers(-8, 9, size=treeplex.dimension)
    weights = rng.normal(size=treeplex.dimension) * 10.0 ** rng.integers(-8, 9, size=treeplex.dimension)

    def local(level, q):
        return np.add.reduceat(weights[level.sequences] * q, level.offsets)

    expected = np.array(values)
    for level in reversed(treeplex.levels):
        np.add.at(expected, level.parents, local(level, expected[level.sequences]))
    assert np.array_equal(treeplex.bottom_up(values, local), expected)


def test_the_backward_pass_on_levels_of_every_plan():
    """Shared parent (three infosets under the empty sequence), distinct parents, and a level of both (two
    infosets under one action, one under another): bit for bit np.add.at's sums."""
    treeplex = Treeplex(parents=[0, 0, 0, 1, 3, 3, 5], sizes=[2, 2, 2, 2, 2, 2, 2])
    assert [level.parents.tolist() for level in treeplex.levels] == [[0, 0, 0], [1, 3, 3, 5]]
    values = np.array([1e-9, 1e8, 3.0, -1e8, 7e-3, 1.0, 2.0, 5e7, -5e7, 1e-12, 3.3, 1e16, -1e16, 0.5, 0.25])

    def local(level, q):
        return np.add.reduceat(q, level.offsets) * 1.1

    expected = np.array(values)
    for level in reversed(treeplex.levels):
        np.add.at(expected, level.parents, local(level, expected[level.sequences]))
    assert np.array_equal(treeplex.bottom_up(values, local), expected)
