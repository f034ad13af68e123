r"""Games in normal form: n players, each maximising its own expected utility (issue 34).

:class:`NormalFormGame` ``(payoffs)`` holds n utility tensors :math:`U_1,\dots,U_n`, each of shape
:math:`(a_1,\dots,a_n)`: :math:`U_i[a]` is player i's utility at the pure profile a. Against the
others' mixed strategies :math:`x_{-i}`, player i's expected utility of its action k is

.. math::

    u_i(k,x_{-i})=\sum_{a_{-i}}U_i[k,a_{-i}]\prod_{j\ne i}x_j(a_j),

a tensor contraction whose order is fixed once, at construction: :math:`U_i` is stored with its
own axis first as an :math:`a_i\times\prod_{j\ne i}a_j` matrix :math:`M_i` (a view for player 1, one
contiguous copy for the others), and the contraction is the outer product of the others'
strategies (:math:`\prod_{j\ne i}a_j` entries) followed by one matrix-vector product (BLAS): about
:math:`N=\prod_ja_j` multiply-adds per player, with no transposed copy of a tensor per call.
:class:`BimatrixGame` ``(A, B)`` is the two-player spelling (the row player gets
:math:`x^\top Ay`, the column player :math:`x^\top By`); the zero-sum
:class:`gamedyn.MatrixGame` stays the max-min payoff of :func:`gamedyn.play`.

Both are :class:`gamedyn.core.protocols.NormalForm` games: :func:`gamedyn.engine.players.play_n` hands
player i the loss :math:`\ell_i=-u_i(\cdot,x_{-i})` (learners minimise).
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np

from gamedyn.core.loss import Loss

__all__ = ["BimatrixGame", "NormalFormGame", "check_payoff_tensors"]


def check_payoff_tensors(payoffs) -> tuple:
    """The n payoff tensors as read-only float64 arrays of one shape (a_1, ..., a_n), or a clear error.

    Raises
    ------
    TypeError
        ``payoffs`` is not a sequence of arrays, or an array is complex or not numeric.
    ValueError
        Fewer than 2 players; arrays of different shapes; an array whose number of axes is not the
        number of players; an empty axis; a NaN or infinite entry.
    """
    if isinstance(payoffs, np.ndarray) or not hasattr(payoffs, "__len__") or isinstance(payoffs, (str, bytes)):
        raise TypeError("payoffs must be a list of n arrays (one utility tensor per player, each of shape "
                        "(a_1, ..., a_n)); for a stacked array U of shape (n, a_1, ..., a_n) pass list(U).")
    arrays = []
    for i, value in enumerate(payoffs):
        if np.iscomplexobj(value):
            raise TypeError(f"payoffs[{i}] is complex; utilities are real numbers. Pass payoffs[{i}].real if the "
                            f"imaginary part is meant to be zero.")
        try:
            array = np.array(value, dtype=np.float64)
        except (TypeError, ValueError) as error:
            raise TypeError(f"payoffs[{i}] must be an array of real numbers, got {type(value).__name__}.") from error
        arrays.append(array)
    n = len(arrays)
    if n < 2:
        raise ValueError(f"a game needs n >= 2 players (one payoff tensor each), got {n}.")
    shape = arrays[0].shape
    for i, array in enumerate(arrays):
        if array.shape != shape:
            raise ValueError(f"every payoff tensor must have the same shape (a_1, ..., a_n); payoffs[0] has "
                             f"{shape}, payoffs[{i}] has {array.shape}.")
    if len(shape) != n:
        raise ValueError(f"with n = {n} players each payoff tensor has n axes (one per player's action), got shape "
                         f"{shape}; for two players use BimatrixGame(A, B).")
    if any(a < 1 for a in shape):
        raise ValueError(f"every player needs at least one action, got shape {shape}.")
    for i, array in enumerate(arrays):
        if not np.all(np.isfinite(array)):
            raise ValueError(f"payoffs[{i}] must have finite entries; it contains NaN or infinity.")
        array.flags.writeable = False
    return tuple(arrays)


def _own_axis_first(U: np.ndarray, i: int) -> np.ndarray:
    """U_i with player i's axis first, as a C-contiguous (a_i, N / a_i) matrix (the others in their order)."""
    moved = np.ascontiguousarray(np.moveaxis(U, i, 0)).reshape(U.shape[i], -1)
    moved.flags.writeable = False
    return moved


@attrs.frozen(init=False, repr=False, eq=False)
class NormalFormGame:
    r"""An n-player game in normal form: ``payoffs[i]`` is player i's utility tensor, of shape (a_1, ..., a_n).

    Every player maximises its expected utility; :meth:`utilities` gives each player's utility vector
    against the others' mixed strategies (see the module docstring for the contraction), and
    :meth:`losses` their negations, what :func:`gamedyn.engine.players.play_n` hands the learners.

    Parameters
    ----------
    payoffs : sequence of n array_like, each of shape (a_1, ..., a_n)
        The utilities (finite, real), n >= 2.

    Raises
    ------
    TypeError, ValueError
        See :func:`check_payoff_tensors`.

    Examples
    --------
    Jordan's three-player matching pennies: player 1 wants to match player 2, player 2 to match player
    3, player 3 to mismatch player 1.

    >>> import numpy as np
    >>> same = np.array([[1.0, -1.0], [-1.0, 1.0]])
    >>> U1 = np.einsum("ab,c->abc", same, np.ones(2))
    >>> U2 = np.einsum("bc,a->abc", same, np.ones(2))
    >>> U3 = np.einsum("ca,b->abc", -same, np.ones(2))
    >>> game = NormalFormGame([U1, U2, U3])
    >>> game.shape, [u.tolist() for u in game.utilities([np.array([1.0, 0.0])] * 3)]
    ((2, 2, 2), [[1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]])
    """

    payoffs: tuple
    shape: tuple
    _matrices: tuple  # M_i: U_i with its own axis first, (a_i, N / a_i)

    def __init__(self, payoffs):
        arrays = check_payoff_tensors(payoffs)
        self.__attrs_init__(arrays, arrays[0].shape, tuple(_own_axis_first(U, i) for i, U in enumerate(arrays)))

    @property
    def players(self) -> int:
        """n, the number of players."""
        return len(self.shape)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(n = {self.players} players, actions {self.shape})"

    def matrix(self, i: int) -> np.ndarray:
        """Player i's utilities with its own axis first, as an (a_i, N / a_i) matrix (read-only; the others'
        actions in their order, the last fastest)."""
        return self._matrices[i]

    def others(self, plays, i: int) -> Any:
        """The product :math:`\\bigotimes_{j\\ne i}x_j` of the others' strategies, flattened in :meth:`matrix`'s order."""
        product = None
        for j, x in enumerate(plays):
            if j == i:
                continue
            product = x if product is None else np.multiply.outer(product, x).ravel()
        return product

    def utility(self, plays, i: int) -> np.ndarray:
        """:math:`u_i(\\cdot,x_{-i})`, player i's expected utility of each of its actions (length a_i)."""
        return self._matrices[i] @ self.others(plays, i)

    def utilities(self, plays) -> tuple:
        """Every player's utility vector against the others' mixed strategies ``plays`` (n vectors)."""
        if len(plays) != len(self.shape):
            raise ValueError(f"plays must hold one mixed strategy per player ({len(self.shape)}), got {len(plays)}.")
        if len(self.shape) == 2:  # two players: two matrix-vector products, no outer product
            x, y = plays
            return self._matrices[0] @ y, self._matrices[1] @ x
        return tuple(self.utility(plays, i) for i in range(len(self.shape)))

    def losses(self, plays) -> tuple:
        """The players' round losses :math:`\\ell_i=-u_i(\\cdot,x_{-i})` (a :class:`gamedyn.Loss` each)."""
        return tuple(Loss(-u, 0.0) for u in self.utilities(plays))

    def expected(self, plays) -> np.ndarray:
        """Each player's expected utility :math:`u_i(x)` at the mixed profile ``plays`` (length n)."""
        return np.array([float(u @ x) for u, x in zip(self.utilities(plays), plays)])

    def welfare(self) -> np.ndarray:
        """The sum of the players' utilities at each pure profile (shape (a_1, ..., a_n))."""
        return np.sum(self.payoffs, axis=0)


@attrs.frozen(init=False, repr=False, eq=False)
class BimatrixGame(NormalFormGame):
    r"""A two-player game: the row player (x) gets :math:`x^\top Ay`, the column player (y) gets :math:`x^\top By`.

    ``BimatrixGame(M, -M)`` is the zero-sum game :class:`gamedyn.MatrixGame` ``(M)`` plays.

    Parameters
    ----------
    A, B : array_like, shape (m, n)
        The row and the column player's payoff matrices (rows: the row player's actions).

    Examples
    --------
    >>> game = BimatrixGame([[2.0, 0.0], [0.0, 1.0]], [[1.0, 0.0], [0.0, 2.0]])  # battle of the sexes
    >>> [u.tolist() for u in game.utilities([[0.5, 0.5], [1.0, 0.0]])]
    [[2.0, 0.0], [0.5, 1.0]]
    """

    def __init__(self, A, B):
        for name, value in (("A", A), ("B", B)):
            if np.ndim(value) != 2:
                raise ValueError(f"{name} must be a 2-D payoff matrix of shape (m, n) (rows: the row player's "
                                 f"actions), got shape {np.shape(value)}.")
        super().__init__([A, B])

    @property
    def A(self) -> np.ndarray:
        """The row player's payoffs (m x n)."""
        return self.payoffs[0]

    @property
    def B(self) -> np.ndarray:
        """The column player's payoffs (m x n)."""
        return self.payoffs[1]
