"""Independent references for the extensive-form tests: random treeplexes, the exact sequence-form LP, brute force,
and a walk of a pyspiel game into the same builder (the tests that use it skip without open_spiel)."""

from __future__ import annotations

import numpy as np
import scipy.optimize
import scipy.sparse as sp

from gamedyn.core.treeplex import Treeplex


def treeplex_from_records(records) -> tuple:
    """``(Treeplex, order)`` from infoset records ``(parent, size)``, parent = None or ``(record index, action)``
    naming an earlier record: the records sorted by depth (stably) and numbered as the treeplex wants."""
    depth = []
    for parent, _ in records:
        depth.append(0 if parent is None else depth[parent[0]] + 1)
    order = sorted(range(len(records)), key=lambda k: depth[k])
    first = {}
    count = 1
    for k in order:
        first[k] = count
        count += records[k][1]
    parents = [0 if records[k][0] is None else first[records[k][0][0]] + records[k][0][1] for k in order]
    return Treeplex(parents, [records[k][1] for k in order]), order


def constraint_matrix(treeplex) -> tuple:
    """``(F, f)`` with ``F x = f`` the treeplex's equalities: x_empty = 1, each infoset's actions sum to its parent."""
    J, n = treeplex.number_of_infosets, treeplex.dimension
    rows, columns, values = [0], [0], [1.0]
    for j in range(J):
        for s in range(int(treeplex.starts[j]), int(treeplex.starts[j + 1])):
            rows.append(j + 1), columns.append(s), values.append(1.0)
        rows.append(j + 1), columns.append(int(treeplex.parents[j])), values.append(-1.0)
    F = sp.csr_matrix((values, (rows, columns)), shape=(J + 1, n))
    f = np.zeros(J + 1)
    f[0] = 1.0
    return F, f


def exact_value(A, treeplexes) -> tuple:
    r"""The game value :math:`\max_x\min_yx^\top Ay` and an optimal x by the sequence-form LP (Koller, Megiddo &
    von Stengel 1996), solved by scipy's HiGHS: max :math:`f_Y^\top v` s.t. :math:`F_Y^\top v\le A^\top x`,
    :math:`F_Xx=f_X`, :math:`x\ge0` (v free)."""
    X, Y = treeplexes
    FX, fX = constraint_matrix(X)
    FY, fY = constraint_matrix(Y)
    n, m, k = X.dimension, Y.dimension, FY.shape[0]
    cost = np.concatenate([np.zeros(n), -fY])
    upper = sp.hstack([-sp.csr_matrix(A).T, FY.T], format="csr")
    equality = sp.hstack([FX, sp.csr_matrix((FX.shape[0], k))], format="csr")
    bounds = [(0, None)] * n + [(None, None)] * k
    solution = scipy.optimize.linprog(cost, A_ub=upper, b_ub=np.zeros(m), A_eq=equality, b_eq=fX, bounds=bounds,
                                      method="highs")
    assert solution.status == 0, solution.message
    return -solution.fun, solution.x[:n]


def brute_force_minimum(treeplex, linear) -> float:
    """min over the treeplex's pure strategies of <linear, x>, one by one."""
    return min(float(np.asarray(linear) @ x) for x in treeplex.pure_strategies())


def openspiel_game(spiel_game):
    """A pyspiel game walked once into a :class:`gamedyn.games.efg.GameBuilder` (information-state strings, action
    ids, chance probabilities, returns as pyspiel gives them): the reference the built-in games are held to."""
    from gamedyn.games.efg import GameBuilder

    builder = GameBuilder()

    def walk(state, last, probability):
        if state.is_terminal():
            builder.terminal(last[0], last[1], probability * state.returns()[0])
            return
        if state.is_chance_node():
            for action, chance in state.chance_outcomes():
                walk(state.child(action), last, probability * chance)
            return
        player = state.current_player()
        key = state.information_state_string(player)
        actions = state.legal_actions()
        builder.infoset(player, key, last[player], actions)
        for action in actions:
            sequence = (key, action)
            walk(state.child(action), (sequence, last[1]) if player == 0 else (last[0], sequence), probability)

    walk(spiel_game.new_initial_state(), (None, None), 1.0)
    return builder.build("pyspiel")


def named_entries(game) -> dict:
    """``{((infoset, action), (infoset, action)): payoff entry}`` of a game, by names (the order of the sequences aside)."""
    names = []
    for player in (0, 1):
        treeplex = game.treeplexes[player]
        keys = [None] * treeplex.dimension
        for j, name in enumerate(game.infosets[player]):
            for s in range(int(treeplex.starts[j]), int(treeplex.starts[j + 1])):
                keys[s] = (name, int(game.actions[player][s]))
        names.append(keys)
    A = game.A.tocoo()
    return {(names[0][i], names[1][j]): float(v) for i, j, v in zip(A.row, A.col, A.data)}


def structure(game, player) -> dict:
    """``{infoset: (parent sequence by name, action ids)}`` of one player."""
    treeplex = game.treeplexes[player]
    names = {0: None}
    for j, name in enumerate(game.infosets[player]):
        for s in range(int(treeplex.starts[j]), int(treeplex.starts[j + 1])):
            names[s] = (name, int(game.actions[player][s]))
    return {name: (names[int(treeplex.parents[j])],
                   tuple(int(a) for a in game.actions[player][int(treeplex.starts[j]):int(treeplex.starts[j + 1])]))
            for j, name in enumerate(game.infosets[player])}


def openspiel_policy(game, x, y) -> dict:
    """The behavioural strategies of x and y as pyspiel takes a policy: ``{information state: [(action, probability)]}``."""
    return {infoset: list(probabilities.items()) for player, strategy in ((0, x), (1, y))
            for infoset, probabilities in game.policy(player, strategy).items()}
