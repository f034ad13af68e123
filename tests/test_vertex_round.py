"""Vertex plays (issue 18): a best response e_i is read as its index, and the opponent's loss of it is a
row or column read of A instead of a matrix-vector product (fictitious play's O(n) round).

The vertex round must give the two-pass round's run bit for bit (the plays are the same vertices, the
reads the same numbers as the products): checked against a payoff that restates ``vertex_losses`` as
None, so the runner takes the products; and it must read no product after the start.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from gamedyn import FTRL, Bilinear, CurrentLoss, Entropy, FollowTheRegularizedLeader, NoHint, Reals, Simplex, Zero, play
from gamedyn.core.numerics import NumericalRangeError
from gamedyn.engine.payoffs import RegularizedBilinear
from gamedyn.engine.rounds import vertex_losses_of
from gamedyn.games.matrix import InitialBelief, MatrixGame
from gamedyn.games.matrix import original as original_games
from gamedyn.recipes import fictitious_play
from gamedyn import checkpoint, skip_regrets, stop_when
from play_options import play_with


class ProductsOnly(MatrixGame):
    """The same game, restating that it has no vertex reads: the runner takes the two-pass round."""

    def vertex_losses(self):
        return None


def _best_responder(hint=None):
    return FollowTheRegularizedLeader(Zero(Simplex()), 1.0, InitialBelief() if hint is None else hint)


_rng = np.random.default_rng(18)
GAMES = {
    "square 5x5": _rng.uniform(-1, 1, (5, 5)),
    "wide 3x7": _rng.normal(size=(3, 7)),
    "tall 8x2": _rng.integers(-2, 3, (8, 2)).astype(float),  # integer payoffs: many ties
}


def _assert_same_run(fast, slow):
    for name in ("w_average", "p_average", "w_last", "p_last", "w_sum", "p_sum"):
        assert np.array_equal(getattr(fast, name), getattr(slow, name)), name
    assert fast.w_regret == slow.w_regret and fast.p_regret == slow.p_regret
    assert np.array_equal(fast.w_loss_sum.linear, slow.w_loss_sum.linear)
    assert np.array_equal(fast.p_loss_sum.linear, slow.p_loss_sum.linear)


@pytest.mark.parametrize("weights", ["constant", "linear"])
@pytest.mark.parametrize("first", ["w", "p"])
@pytest.mark.parametrize("game", list(GAMES))
def test_vertex_round_is_the_two_pass_round_bit_for_bit(game, first, weights):
    M = GAMES[game]
    runs = [play(payoff, _best_responder(), _best_responder(), T=60, weights=weights, first=first)
            for payoff in (MatrixGame(M), ProductsOnly(M))]
    _assert_same_run(*runs)
    assert not np.allclose(runs[0].w_average, np.full(M.shape[0], 1 / M.shape[0]))  # the plays moved


@pytest.mark.parametrize("first", ["w", "p"])
def test_one_vertex_seat_against_hedge(first):
    """Only one seat plays vertices (FTL against Hedge): its opponent's loss is read, the other a product."""
    M = GAMES["wide 3x7"]
    hedge = FTRL(Entropy(), 0.3)
    for w_learner, p_learner in ((_best_responder(NoHint()), hedge), (hedge, _best_responder(NoHint()))):
        runs = [play(payoff, w_learner, p_learner, T=40, first=first) for payoff in (MatrixGame(M), ProductsOnly(M))]
        _assert_same_run(*runs)


def test_float32_game_reads_float32_entries():
    M = GAMES["square 5x5"].astype(np.float32)
    runs = [play(payoff, _best_responder(), _best_responder(), T=30) for payoff in (MatrixGame(M), ProductsOnly(M))]
    _assert_same_run(*runs)


def test_fictitious_play_reads_no_product(monkeypatch):
    """After the start (the losses f_0 at the opponents' starts) a round takes no matrix-vector product."""
    calls = {"products": 0}
    for name in ("loss_for_p", "loss_for_w"):
        original = getattr(Bilinear, name)

        def counted(self, *args, _original=original, **kwargs):
            calls["products"] += 1
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(Bilinear, name, counted)
    M = GAMES["wide 3x7"]
    counts = []
    for T in (20, 200):
        calls["products"] = 0
        result = fictitious_play(M, T)
        counts.append(calls["products"])
    assert counts[0] == counts[1] <= 4  # the starts' losses and the end's duality gap, none a round
    reference = original_games.fictitious_play(M, 200)
    assert np.max(np.abs(result.row - reference.row_average)) <= 1e-10


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 6)), elements=st.integers(-3, 3).map(float)),
       st.booleans())
def test_reads_equal_the_products(M, single):
    """p_loss_at(i) = A e_i and w_loss_at(j) = -A^T e_j exactly, value_at(i, j) = g(e_i, e_j), float64 and float32."""
    for matrix in (M, M.astype(np.float32)):
        game = MatrixGame(matrix)
        reads = game.vertex_losses()
        m, n = M.shape
        for i in range(m):
            for j in range(n):
                x, y = np.eye(m)[i], np.eye(n)[j]
                assert np.array_equal(reads.p_loss_at(i).linear, game.loss_for_p(x).linear)
                assert np.array_equal(reads.w_loss_at(j).linear, game.loss_for_w(y).linear)
                assert reads.value_at(i, j) == game.value(x, y)
                if single:
                    break


def test_the_read_of_a_column_cannot_write_into_the_matrix():
    M = GAMES["square 5x5"].copy()
    column = MatrixGame(M).vertex_losses().p_loss_at(2).linear
    with pytest.raises(ValueError):
        column[0] = 99.0
    assert M[2, 0] != 99.0


def test_declarations():
    """Who plays vertices, and which payoffs hand the reads: declared by the parts, lost by overriding."""
    assert _best_responder().plays_vertices
    assert not FTRL(Entropy(), 1.0).plays_vertices  # a softmax, not a vertex
    assert not FollowTheRegularizedLeader(Zero(Reals()), 1.0).plays_vertices  # R^d has no vertices
    assert not FollowTheRegularizedLeader(Zero(Simplex()), 1.0, CurrentLoss()).plays_vertices  # FTRL+ moves second

    class OwnPlay(FollowTheRegularizedLeader):
        def play(self, state, weight, current_loss=None):
            return super().play(state, weight, current_loss)

    learner = OwnPlay(Zero(Simplex()), 1.0)
    assert learner.player(learner.init(3)).vertex(1.0) is None  # an own play() loses the declaration
    assert _best_responder().player(_best_responder().init(3)).vertex(1.0) == 0  # ties: the smallest index

    class OwnMinimizer(Simplex):
        def minimize_quadratic(self, linear, curvature):
            return super().minimize_quadratic(linear, curvature)

    assert not FollowTheRegularizedLeader(Zero(OwnMinimizer()), 1.0).plays_vertices

    M = GAMES["square 5x5"]
    assert vertex_losses_of(MatrixGame(M)) is not None
    assert vertex_losses_of(RegularizedBilinear(M)) is None  # its w-losses have curvature
    import scipy.sparse

    assert vertex_losses_of(Bilinear(scipy.sparse.csr_matrix(M))) is None


@settings(max_examples=80, deadline=None)
@given(arrays(np.float64, st.integers(1, 8), elements=st.integers(-2, 2).map(float)))
def test_vertex_index_is_the_linear_minimizer(linear):
    simplex = Simplex()
    assert np.array_equal(np.eye(linear.size)[simplex.vertex_index(linear)], simplex.linear_minimizer(linear))


def test_vertex_index_refuses_what_the_minimizer_refuses():
    simplex = Simplex()
    for bad in ([np.nan, 0.0], [np.inf, np.inf], [-np.inf, -np.inf]):
        with pytest.raises(NumericalRangeError):
            simplex.vertex_index(np.array(bad))
        with pytest.raises(NumericalRangeError):
            simplex.linear_minimizer(np.array(bad))
    assert simplex.vertex_index(np.array([0.0, -np.inf, 1.0])) == 1


def test_a_resumed_fictitious_play_is_bit_identical(tmp_path):
    M = GAMES["tall 8x2"]
    path = str(tmp_path / "fp.npz")

    def power_cut(round_state):
        if round_state.t == 45:
            raise RuntimeError("power cut")
        return False

    with pytest.raises(RuntimeError):
        play(MatrixGame(M), _best_responder(), _best_responder(), 100, observers=[stop_when(power_cut), checkpoint(path, every=10)])
    resumed = play(MatrixGame(M), _best_responder(), _best_responder(), 100, observers=[checkpoint(resume_from=path)])
    _assert_same_run(resumed, play(MatrixGame(M), _best_responder(), _best_responder(), 100))


class CurvedBelief:
    """A hint with curvature: psi_t = f_0 + (1/2) ||z||^2, so the play is a projection, not a vertex."""

    needs_current_loss = False

    def init(self, dimension, initial_loss):
        from gamedyn import Loss

        return Loss(initial_loss.linear, 1.0)

    def predict(self, state, current_loss=None):
        return state

    def update(self, state, point, loss, weight):
        return state


def test_a_curved_sum_falls_back_to_the_play():
    """A vertex player whose hinted sum has curvature answers None, and the round plays it as the two-pass round."""
    M = GAMES["square 5x5"]
    curved = _best_responder(CurvedBelief())
    assert curved.plays_vertices
    assert curved.player(curved.init(5, MatrixGame(M).loss_for_p(np.full(5, 0.2)))).vertex(1.0) is None
    for w_learner, p_learner in ((curved, _best_responder()), (_best_responder(), curved)):
        runs = [play(payoff, w_learner, p_learner, T=40) for payoff in (MatrixGame(M), ProductsOnly(M))]
        _assert_same_run(*runs)
        plain = play(MatrixGame(M), _best_responder(), _best_responder(), T=40)
        assert not np.array_equal(runs[0].w_average, plain.w_average)  # the curved plays were played


def test_without_regrets_the_same_plays():
    M = GAMES["wide 3x7"]
    fast, slow = (play(payoff, _best_responder(), _best_responder(), T=50, observers=[skip_regrets()])
                  for payoff in (MatrixGame(M), ProductsOnly(M)))
    assert fast.w_regret is None and np.array_equal(fast.w_average, slow.w_average)
    assert np.array_equal(fast.p_average, slow.p_average)


# ------------------------------------------------------------- the lean vertex round (a run nobody watches)

from gamedyn.engine import rounds as _rounds  # noqa: E402


def _watched(**options):
    """The same run through round_of's vertex round: a callback is an observer, so no lean round."""
    return dict(options, callback=lambda state: None)


def _lean_chosen(monkeypatch):
    built = []
    original = _rounds.VertexRound.__init__

    def counting(self, *args, **kwargs):
        built.append(self)
        original(self, *args, **kwargs)

    monkeypatch.setattr(_rounds.VertexRound, "__init__", counting)
    return built


def _assert_same_lean_run(fast, slow):
    for name in ("w_average", "p_average", "w_last", "p_last", "w_sum", "p_sum"):
        assert np.array_equal(getattr(fast, name), getattr(slow, name)), name
    assert np.array_equal(fast.w_loss_sum.linear, slow.w_loss_sum.linear)
    assert np.array_equal(fast.p_loss_sum.linear, slow.p_loss_sum.linear)
    for name in ("weight_total", "p_weight_total", "output_weight_total", "rounds"):
        assert getattr(fast, name) == getattr(slow, name), name
    assert fast.not_computed == slow.not_computed


GAMES_32 = {**GAMES, "square 5x5 float32": GAMES["square 5x5"].astype(np.float32)}


@pytest.mark.parametrize("tables", [True, False])
@pytest.mark.parametrize("T", [1, 2, 3, 10, 200])
@pytest.mark.parametrize("weights", ["constant", "linear", "p_weights", "output_weights"])
@pytest.mark.parametrize("first", ["w", "p"])
@pytest.mark.parametrize("game", list(GAMES_32))
def test_lean_vertex_round_is_the_watched_round_bit_for_bit(game, first, weights, T, tables, monkeypatch):
    """VertexRound's plays, sums, loss sums and totals equal round_of's vertex round's (ties: the integer game)."""
    if not tables:
        monkeypatch.setattr(_rounds, "TABLE_MAX_BYTES", 0)  # the reads of A themselves, no copy
    M = GAMES_32[game]
    options = {"constant": {}, "linear": {"weights": "linear"},
               "p_weights": {"weights": "linear", "p_weights": [1.0 + (t % 3) for t in range(T)]},
               "output_weights": {"output_weights": [float(t * t) for t in range(1, T + 1)]},
               }[weights]
    built = _lean_chosen(monkeypatch)
    for hint in (None, NoHint()):
        built.clear()
        fast = play_with(MatrixGame(M), _best_responder(hint), _best_responder(hint), T=T, first=first, regrets=False,
                         **options)
        assert len(built) == 1  # the lean round played it
        slow = play_with(MatrixGame(M), _best_responder(hint), _best_responder(hint), T=T, first=first, regrets=False,
                         **_watched(**options))
        assert len(built) == 1  # the watched run did not
        _assert_same_lean_run(fast, slow)


def test_the_lean_round_is_for_runs_nobody_watches(monkeypatch):
    M = GAMES["square 5x5"]
    built = _lean_chosen(monkeypatch)
    play(MatrixGame(M), _best_responder(), _best_responder(), T=5)  # regrets=True: round_of's round
    play(MatrixGame(M), _best_responder(), _best_responder(), T=5, observers=[stop_when(lambda s: False), skip_regrets()])
    play(MatrixGame(M), _best_responder(), FTRL(Entropy(), 0.3), T=5, observers=[skip_regrets()])  # one softmax seat
    play(ProductsOnly(M), _best_responder(), _best_responder(), T=5, observers=[skip_regrets()])  # no reads declared
    assert built == []
    fictitious_play(M, 5)  # the recipe skips the regrets by default
    assert len(built) == 1
    assert fictitious_play(M, 5).game.w_regret is None and "w_regret" in fictitious_play(M, 5).game.not_computed
    assert fictitious_play(M, 5, regrets=True).game.w_regret is not None


@pytest.mark.parametrize("T", [1, 2, 3, 10, 200])
@pytest.mark.parametrize("game", list(GAMES))
def test_lean_fictitious_play_equals_the_original_loop(game, T):
    """The recipe's default run (the lean round) equals Brown's loop written without the runner, to 1e-10."""
    M = GAMES[game]
    rng = np.random.default_rng(T)
    for starts in ({}, {"row_start": rng.dirichlet(np.ones(M.shape[0])),
                        "column_start": rng.dirichlet(np.ones(M.shape[1]))}):
        result = fictitious_play(M, T, **starts)
        reference = original_games.fictitious_play(M, T, starts.get("row_start"), starts.get("column_start"))
        assert np.max(np.abs(result.row - reference.row_average)) <= 1e-10
        assert np.max(np.abs(result.column - reference.column_average)) <= 1e-10



def test_a_resumed_watched_run_equals_the_lean_run(tmp_path, monkeypatch):
    """A checkpointed run (watched: round_of's round), cut and resumed, ends where the lean run of the same game does."""
    M = GAMES["tall 8x2"]
    path = str(tmp_path / "fp.npz")

    def power_cut(round_state):
        if round_state.t == 45:
            raise RuntimeError("power cut")
        return False

    with pytest.raises(RuntimeError):
        play(MatrixGame(M), _best_responder(), _best_responder(), 100,
             observers=[stop_when(power_cut), checkpoint(path, every=10), skip_regrets()])
    resumed = play(MatrixGame(M), _best_responder(), _best_responder(), 100,
                   observers=[checkpoint(resume_from=path), skip_regrets()])
    built = _lean_chosen(monkeypatch)
    lean = play(MatrixGame(M), _best_responder(), _best_responder(), 100, observers=[skip_regrets()])
    assert len(built) == 1
    _assert_same_lean_run(lean, resumed)


def test_vertex_form_declarations():
    """Who the lean round may drive: declared by the parts (vertex plays, a hint whose guess is none or initial)."""
    from gamedyn import OFTL, FTL

    assert _best_responder().vertex_form().guess == "initial"
    assert _best_responder(NoHint()).vertex_form().guess == "none"
    assert FTL(Simplex()).vertex_form() is not None
    assert OFTL(Simplex()).vertex_form() is None  # psi_t = f_{t-1}: a hint that changes each round
    assert FTRL(Entropy(), 1.0).vertex_form() is None  # a softmax, not a vertex
    assert FollowTheRegularizedLeader(Zero(Simplex()), "adaptive").vertex_form() is None  # its first play is z_0

    class OwnBelief(InitialBelief):
        def update(self, state, point, loss, weight):
            return loss  # a changed update: the declaration "initial" no longer holds

    assert _best_responder(OwnBelief()).vertex_form() is None
