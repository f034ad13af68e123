r"""The treeplex: one player's sequence-form strategy set of an extensive-form game, as a domain.

A player of a perfect-recall extensive-form game decides at her **information sets** (infosets)
:math:`j\in J`; the actions of infoset j are :math:`A_j`. A **sequence** is a pair
:math:`(j,a)`, :math:`a\in A_j`, plus the empty sequence :math:`\varnothing`; the **parent** p(j) of
an infoset is the last sequence of the player on the way to it (:math:`\varnothing` at the top).
The sequence form of a behavioural strategy b (a distribution :math:`b_j` on each :math:`A_j`) is
:math:`x_\varnothing=1`, :math:`x_{ja}=x_{p(j)}\,b_j(a)`, and the set of all of them is the
**treeplex** (Romanovskii 1962; Koller, Megiddo & von Stengel 1996; the name: Hoda, Gilpin, Peña &
Sandholm 2010)

.. math::

    X=\Big\{x\ge0:\ x_\varnothing=1,\ \textstyle\sum_{a\in A_j}x_{ja}=x_{p(j)}\ \text{for every } j\in J\Big\}.

**Layout.** :class:`Treeplex` ``(parents, sizes)`` stores only flat arrays. Sequence 0 is
:math:`\varnothing`; the infosets are numbered by **depth** (the number of the player's own
infosets above them: a parent sequence always belongs to a shallower infoset), and the actions of
infoset j are the contiguous sequences ``starts[j] .. starts[j+1]-1`` (``starts[0] = 1``). The
infosets of one depth, and so their sequences, are contiguous: a :class:`Level`. Every pass over the
tree is then a loop over the levels (a handful) of vectorised segment operations
(``np.add.reduceat``, ``np.minimum.reduceat``, ``np.repeat``, a gather of the parents):

* :meth:`Treeplex.bottom_up` -- the backward pass that the best response, the counterfactual
  values of :class:`gamedyn.core.counterfactual.CounterfactualRegret` and any dilated prox share:
  deepest level first, a per-level rule turns each infoset's action values into one value, which is
  added to the infoset's parent sequence;
* :meth:`Treeplex.to_sequence` -- the forward pass :math:`x_{ja}=x_{p(j)}b_j(a)`;
* :meth:`Treeplex.segment_sum`, :meth:`Treeplex.segment_max`, :meth:`Treeplex.spread` -- sums and
  maxima over every infoset's actions at once, and a per-infoset value back on its sequences.

As a domain (:class:`gamedyn.core.protocols.Domain`) it offers ``contains``, ``default_centre``
(the uniform behavioural strategy), ``linear_minimizer`` / ``minimize_quadratic`` with curvature 0
(the best response: one backward pass, a pure strategy) and refuses ``project`` and a positive
curvature (no Euclidean projection is built: the learners that play here need none).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import attrs
import numpy as np

__all__ = ["Level", "Treeplex"]

_INDEX = np.int64


@attrs.frozen(eq=False)
class Level:
    """The infosets of one depth of a :class:`Treeplex` and their sequences, for segment operations.

    ``infosets`` = ``slice(lo, hi)`` of the treeplex's infosets; ``sequences`` = ``slice(first, last)``
    of its sequences (contiguous: the actions of those infosets); ``offsets`` = the first sequence
    of each infoset relative to ``first`` (``np.add.reduceat(v[sequences], offsets)`` sums each
    infoset's actions); ``sizes`` the numbers of actions; ``parents`` the parent sequence of each
    infoset; ``sequence_parents`` the parent sequence of each sequence of the level (its infoset's
    parent: the gather of the forward pass).
    """

    depth: int
    infosets: slice
    sequences: slice
    offsets: np.ndarray
    sizes: np.ndarray
    parents: np.ndarray
    sequence_parents: np.ndarray


def _add_distinct(q, parents, values) -> None:
    """``np.add.at(q, parents, values)`` for distinct parents: one gather and scatter (a third of add.at's cost)."""
    q[parents] += values


def _add_in_order(q, parents, values) -> None:
    """``np.add.at(q, parents, values)`` for one shared parent: its entry plus each value in order (add.at's sums)."""
    parent = int(parents[0])
    total = float(q[parent])
    for value in values.tolist():
        total += value
    q[parent] = total


def _parent_adder(parents: np.ndarray):
    """The add of a level's values to its parent sequences, the same sums as ``np.add.at`` (the backward pass's
    fixed cost on a small game: Kuhn's levels have one shared parent or distinct ones)."""
    if parents.size and np.all(parents == parents[0]):
        return _add_in_order
    if np.unique(parents).size == parents.size:
        return _add_distinct
    return np.add.at


def _as_indices(values, name: str) -> np.ndarray:
    array = np.asarray(values)
    if array.ndim != 1 or (array.size and array.dtype.kind not in "iu"):
        raise ValueError(f"{name} must be a 1-D array of integers, got {array.dtype} of shape {array.shape}.")
    return np.ascontiguousarray(array, dtype=_INDEX)


@attrs.frozen(eq=False, repr=False)
class Treeplex:
    r"""The sequence-form strategy set of one player (see the module docstring), a domain.

    Parameters
    ----------
    parents : sequence of int, shape (J,)
        The parent sequence of each infoset (0 is the empty sequence), the infosets ordered by
        depth: infoset j's actions are the sequences ``1 + sum(sizes[:j]) ...``, and its parent is a
        sequence of a shallower infoset (or 0).
    sizes : sequence of int, shape (J,)
        The number of actions of each infoset (>= 1).

    Raises
    ------
    ValueError
        A parent that is not an earlier sequence, infosets not ordered by depth, an infoset without
        actions.

    Examples
    --------
    Kuhn poker's first player holding one card: pass or bet (sequences 1, 2); after passing and
    facing a bet, fold or call (sequences 3, 4), an infoset whose parent is sequence 1:

    >>> tp = Treeplex([0, 1], [2, 2])
    >>> tp.dimension, len(tp.levels)
    (5, 2)
    >>> tp.default_centre(5).tolist()
    [1.0, 0.5, 0.5, 0.25, 0.25]
    >>> value, x = tp.best_response([0.0, 1.0, 0.0, -2.0, 3.0])
    >>> value, x.tolist()
    (-1.0, [1.0, 1.0, 0.0, 1.0, 0.0])
    """

    exact_oracles = True  # linear_minimizer / minimize_quadratic(., 0) return pure points of the set; project refuses
    sequence_form = True  # a sequence-form strategy set: Bilinear accepts it as the p-player's domain

    _parents: np.ndarray = attrs.field(alias="parents", converter=lambda v: _as_indices(v, "parents"))
    _sizes: np.ndarray = attrs.field(alias="sizes", converter=lambda v: _as_indices(v, "sizes"))
    _starts: np.ndarray = attrs.field(init=False)
    _infoset_of: np.ndarray = attrs.field(init=False)
    _sequence_parents: np.ndarray = attrs.field(init=False)
    _depth: np.ndarray = attrs.field(init=False)
    _levels: tuple = attrs.field(init=False)
    _adders: tuple = attrs.field(init=False)  # per level: how bottom_up adds its values to the parent sequences
    _dimension: int = attrs.field(init=False)  # starts[-1] as a Python int (read a few times a round)
    _offsets: np.ndarray = attrs.field(init=False)
    _key: str = attrs.field(init=False)

    def __attrs_post_init__(self):
        parents, sizes = self._parents, self._sizes
        if parents.shape != sizes.shape:
            raise ValueError(f"parents and sizes must have one entry per infoset, got {parents.size} and {sizes.size}.")
        if np.any(sizes < 1):
            raise ValueError(f"every infoset needs at least one action; sizes has {int(np.sum(sizes < 1))} below 1.")
        J = sizes.size
        starts = np.empty(J + 1, dtype=_INDEX)
        starts[0] = 1
        np.cumsum(sizes, out=starts[1:])
        starts[1:] += 1
        n = int(starts[-1])
        if np.any(parents < 0) or np.any(parents >= starts[:-1]):
            bad = int(np.flatnonzero((parents < 0) | (parents >= starts[:-1]))[0])
            raise ValueError(f"infoset {bad}'s parent sequence {int(parents[bad])} is not an earlier sequence "
                             f"(0 or a sequence of a shallower infoset): order the infosets by depth.")
        infoset_of = np.full(n, -1, dtype=_INDEX)
        infoset_of[1:] = np.repeat(np.arange(J, dtype=_INDEX), sizes)
        depth = np.zeros(J, dtype=_INDEX)
        for j in range(J):  # once, at construction (a parent's infoset comes earlier)
            parent_infoset = infoset_of[parents[j]]
            depth[j] = 0 if parent_infoset < 0 else depth[parent_infoset] + 1
        if np.any(np.diff(depth) < 0):
            bad = int(np.flatnonzero(np.diff(depth) < 0)[0]) + 1
            raise ValueError(f"the infosets must be ordered by depth: infoset {bad} has depth {int(depth[bad])} after "
                             f"an infoset of depth {int(depth[bad - 1])}.")
        sequence_parents = np.full(n, -1, dtype=_INDEX)
        sequence_parents[1:] = parents[infoset_of[1:]]
        offsets = starts[:-1] - 1  # each infoset's first action in v[1:]
        for array in (parents, sizes, starts, infoset_of, sequence_parents, depth, offsets):
            array.flags.writeable = False
        levels = []
        bounds = np.flatnonzero(np.diff(depth)) + 1
        for lo, hi in zip(np.concatenate([[0], bounds]), np.concatenate([bounds, [J]])):
            lo, hi = int(lo), int(hi)
            if lo == hi:
                continue
            first, last = int(starts[lo]), int(starts[hi])
            levels.append(Level(int(depth[lo]), slice(lo, hi), slice(first, last), starts[lo:hi] - first,
                                sizes[lo:hi], parents[lo:hi], sequence_parents[first:last]))
        derived = {"_starts": starts, "_infoset_of": infoset_of, "_sequence_parents": sequence_parents,
                   "_depth": depth, "_levels": tuple(levels), "_offsets": offsets,
                   "_adders": tuple(_parent_adder(level.parents) for level in levels),
                   "_dimension": int(starts[-1]),
                   "_key": hashlib.sha256(parents.tobytes() + b"|" + sizes.tobytes()).hexdigest()}
        for name, value in derived.items():
            object.__setattr__(self, name, value)

    # ----------------------------------------------------------------------------------- structure

    @property
    def parents(self) -> np.ndarray:
        """The parent sequence of each infoset (read-only)."""
        return self._parents

    @property
    def sizes(self) -> np.ndarray:
        """The number of actions of each infoset (read-only)."""
        return self._sizes

    @property
    def starts(self) -> np.ndarray:
        """``starts[j]``: infoset j's first sequence; ``starts[J]`` = the number of sequences (read-only)."""
        return self._starts

    @property
    def offsets(self) -> np.ndarray:
        """Each infoset's first action as an index of ``v[1:]`` (the segments of ``np.add.reduceat(v[1:], offsets)``)."""
        return self._offsets

    @property
    def infoset_of(self) -> np.ndarray:
        """The infoset of each sequence (-1 for the empty sequence; read-only)."""
        return self._infoset_of

    @property
    def sequence_parents(self) -> np.ndarray:
        """The parent sequence of each sequence's infoset (-1 for the empty sequence; read-only)."""
        return self._sequence_parents

    @property
    def depth(self) -> np.ndarray:
        """Each infoset's depth: the number of the player's infosets above it (read-only)."""
        return self._depth

    @property
    def levels(self) -> tuple:
        """The :class:`Level` of each depth, shallowest first."""
        return self._levels

    @property
    def dimension(self) -> int:
        """The number of sequences, the empty one included."""
        return self._dimension

    @property
    def number_of_infosets(self) -> int:
        """J, the number of infosets."""
        return int(self._sizes.size)

    def __repr__(self) -> str:
        return (f"Treeplex({self.number_of_infosets} infosets, {self.dimension} sequences, "
                f"depth {len(self._levels)})")

    def __eq__(self, other) -> bool:
        return (isinstance(other, Treeplex) and self._key == other._key
                and np.array_equal(self._parents, other._parents) and np.array_equal(self._sizes, other._sizes))

    def __hash__(self) -> int:
        return hash(self._key)

    # ----------------------------------------------------------------------------- segment operations

    def segment_sum(self, values) -> np.ndarray:
        """Each infoset's sum of ``values`` over its actions (``values`` per sequence, shape (n,))."""
        return np.add.reduceat(np.asarray(values, dtype=np.float64)[1:], self._offsets)

    def segment_max(self, values) -> np.ndarray:
        """Each infoset's largest entry of ``values`` over its actions."""
        return np.maximum.reduceat(np.asarray(values, dtype=np.float64)[1:], self._offsets)

    def spread(self, per_infoset, empty: float = 0.0) -> np.ndarray:
        """A per-infoset vector on the sequences: entry (j, a) is ``per_infoset[j]``, the empty sequence ``empty``."""
        out = np.empty(self.dimension)
        out[0] = empty
        out[1:] = np.asarray(per_infoset, dtype=np.float64).repeat(self._sizes)
        return out

    def bottom_up(self, values, local: Callable[[Level, np.ndarray], np.ndarray]) -> np.ndarray:
        r"""The backward pass: ``q = values`` plus, on each sequence, the values of the infosets below it.

        Deepest level first: ``local(level, q[level.sequences])`` returns one value per infoset of the
        level (from its actions' entries of q, final by then), and each is added to its parent
        sequence's entry of q. Returns q (a new array); ``q[0]`` is the sum of the top infosets' values.
        With ``local`` the minimum over the actions this is the best response's value
        (:meth:`best_response`); with the expectation under a behavioural strategy, the counterfactual
        values (:class:`gamedyn.core.counterfactual.CounterfactualRegret`).
        """
        q = np.array(values, dtype=np.float64)
        for level, add_at in zip(reversed(self._levels), reversed(self._adders)):
            add_at(q, level.parents, local(level, q[level.sequences]))
        return q

    def to_sequence(self, behaviour) -> np.ndarray:
        r"""The sequence form :math:`x_{ja}=x_{p(j)}b_j(a)` of a behavioural strategy (the forward pass).

        ``behaviour`` holds :math:`b_j(a)` on sequence (j, a) (entry 0 is ignored); each infoset's
        entries are taken as given (a distribution on its actions for a point of the treeplex).
        """
        b = np.asarray(behaviour, dtype=np.float64)
        x = np.empty(self.dimension)
        x[0] = 1.0
        take, multiply = x.take, np.multiply
        for level in self._levels:
            span = level.sequences
            multiply(b[span], take(level.sequence_parents), out=x[span])
        return x

    def to_behavioural(self, x, fallback=None) -> np.ndarray:
        r"""The behavioural strategy of a sequence-form point: :math:`b_j(a)=x_{ja}/x_{p(j)}`.

        Where :math:`x_{p(j)}=0` (j is never reached) ``fallback``'s entries are used (default: the
        uniform distribution). Entry 0 is 1.0. ``to_sequence(to_behavioural(x)) == x`` up to rounding
        for every x of the treeplex.
        """
        x = np.asarray(x, dtype=np.float64)
        self._check_shape(x, "x")
        reach = x[self._sequence_parents[1:]]
        b = np.empty(self.dimension)
        b[0] = 1.0
        reached = reach > 0.0
        np.divide(x[1:], reach, out=b[1:], where=reached)
        if not np.all(reached):
            other = self.uniform_behaviour() if fallback is None else np.asarray(fallback, dtype=np.float64)
            b[1:][~reached] = other[1:][~reached]
        return b

    def uniform_behaviour(self) -> np.ndarray:
        """The uniform behavioural strategy (1/|A_j| on each action; entry 0 is 1.0)."""
        b = np.empty(self.dimension)
        b[0] = 1.0
        b[1:] = np.repeat(1.0 / self._sizes, self._sizes)
        return b

    # ------------------------------------------------------------------------------------ the domain

    def _check_shape(self, z, name: str) -> None:
        if np.shape(z) != (self.dimension,):
            raise ValueError(f"{name} must be a sequence-form vector of length {self.dimension} (one entry per "
                             f"sequence of {self!r}, the empty one first), got shape {np.shape(z)}.")

    def contains(self, z, tolerance: float = 1e-9) -> bool:
        r"""Whether z is in the treeplex: :math:`z\ge0`, :math:`z_\varnothing=1` and every infoset's
        actions sum to its parent's entry (each to ``tolerance``, relative to 1 = the empty sequence's entry)."""
        z = np.asarray(z)
        if z.shape != (self.dimension,) or z.dtype.kind not in "fiu" or not np.all(np.isfinite(z)):
            return False
        z = z.astype(np.float64, copy=False)
        if abs(z[0] - 1.0) > tolerance or np.any(z < -tolerance):
            return False
        return bool(np.all(np.abs(self.segment_sum(z) - z[self._parents]) <= tolerance))

    def default_centre(self, dimension: int) -> np.ndarray:
        """The sequence form of the uniform behavioural strategy (``dimension`` must be :attr:`dimension`)."""
        if dimension != self.dimension:
            raise ValueError(f"{self!r} has {self.dimension} sequences; the payoff gives this player {dimension} "
                             f"coordinates: the game and the treeplex do not match.")
        return self.to_sequence(self.uniform_behaviour())

    def best_response(self, linear, maximize: bool = False) -> tuple:
        r""":math:`(\min_{x\in X}\langle\ell,x\rangle,\ x^\star)` (or the max), by one backward pass.

        Deepest infoset first, each infoset's value is the best of its actions' values
        :math:`\ell_{ja}+\sum_{j'\text{ below }ja}v_{j'}`; then the best actions are followed top-down
        (ties to the first action). The minimiser is a pure strategy (0/1 entries).
        """
        linear = np.asarray(linear, dtype=np.float64)
        self._check_shape(linear, "linear")
        reduce = np.maximum.reduceat if maximize else np.minimum.reduceat
        best = np.empty(self.number_of_infosets)

        def local(level, q):
            values = reduce(q, level.offsets)
            best[level.infosets] = values
            return values

        q = self.bottom_up(linear, local)
        chosen = q[1:] == np.repeat(best, self._sizes)  # the actions attaining each infoset's value
        first = np.zeros(self.dimension)
        # the first attaining action of each infoset: a running count of attaining entries within its segment
        counts = np.cumsum(chosen)
        before = np.concatenate([[0], counts])[self._offsets]
        first[1:] = chosen & (counts - np.repeat(before, self._sizes) == 1)
        return float(q[0]), self.to_sequence(first)

    def best_response_value(self, linear, maximize: bool = False):
        r""":math:`\min_{x\in X}\langle\ell,x\rangle` (or the max): one backward pass, no strategy built.

        ``linear`` of shape (n, k) gives the k values of its columns in one pass (an array).
        """
        linear = np.asarray(linear, dtype=np.float64)
        if linear.shape[:1] != (self.dimension,) or linear.ndim > 2:
            self._check_shape(linear, "linear")
        reduce = np.maximum.reduceat if maximize else np.minimum.reduceat
        top = self.bottom_up(linear, lambda level, q: reduce(q, level.offsets))[0]
        return float(top) if linear.ndim == 1 else top

    def linear_minimizer(self, linear) -> np.ndarray:
        """argmin over the treeplex of <linear, x>: a pure strategy (the best response, one backward pass)."""
        return self.best_response(linear)[1]

    def minimize_quadratic(self, linear, curvature: float) -> np.ndarray:
        """argmin of <linear, x> + curvature/2 ||x||^2: the best response for curvature 0; a positive curvature
        needs the Euclidean projection, which is not built (a ``ValueError``)."""
        if curvature != 0.0:
            raise ValueError(f"{self!r} has no Euclidean projection (a loss of curvature {curvature!r} needs one); "
                             "play on it with CounterfactualRegret or a learner of linear losses.")
        return self.linear_minimizer(linear)

    def project(self, z):
        """Refused: the Euclidean projection onto a treeplex is not built (a ``ValueError`` naming the fix)."""
        raise ValueError(f"{self!r} has no Euclidean projection; play on it with CounterfactualRegret (its plays "
                         "are in the treeplex by construction) or convert a behavioural strategy with to_sequence.")

    def pure_strategies(self, limit: int = 100_000) -> list:
        """Every pure strategy (reduced: no choice at an infoset it never reaches) as a 0/1 sequence-form vector.

        For brute-force checks on small treeplexes: their number (the product over the infosets below
        a sequence of the sum over their actions, from the top) grows exponentially; more than ``limit``
        is refused with a ``ValueError``.
        """
        count = self._pure_count()
        if count > limit:
            raise ValueError(f"{self!r} has {count} pure strategies (more than limit = {limit}); enumerate them only "
                             "on small treeplexes.")
        children: dict = {}
        for j, parent in enumerate(self._parents.tolist()):
            children.setdefault(parent, []).append(j)

        def below(sequence) -> list:
            """Each way to play the infosets under ``sequence``, as a tuple of chosen sequences."""
            ways: list = [()]
            for j in children.get(sequence, ()):
                options = [(chosen, *rest) for chosen in range(int(self._starts[j]), int(self._starts[j + 1]))
                           for rest in below(chosen)]
                ways = [way + option for way in ways for option in options]
            return ways

        strategies = []
        for way in below(0):
            x = np.zeros(self.dimension)
            x[0] = 1.0
            x[list(way)] = 1.0
            strategies.append(x)
        return strategies

    def _pure_count(self) -> int:
        total = np.ones(self.dimension, dtype=object)
        for level in reversed(self._levels):
            for j in range(level.infosets.start, level.infosets.stop):
                lo, hi = int(self._starts[j]), int(self._starts[j + 1])
                total[int(self._parents[j])] *= sum(total[lo:hi])
        return int(total[0])

