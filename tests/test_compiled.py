"""The compiled one-pass round (gamedyn.arrays.compiled, the numba extra; issue 35).

With numba installed, a dense A (and a CSR A when ``COMPILED_CSR``) takes :class:`CompiledRows`: the one-pass
rounds of gamedyn.engine.rounds, chosen by the same declarations, with each round's pass one compiled loop.
The sums run in another order than two BLAS calls, so every number a run reports must agree with the
two-pass round to 1e-12 relative (``same_game.TOLERANCE``): the recipes and the play() configurations of
tests/test_one_pass.py, float64, float32 (to the documented float32 accuracy: the kernel sums a float32 A in
float32, as its BLAS would), CSR, two threads, a resumed run, logits beyond float64. The thresholds are
lowered here so that small matrices take the path. Without numba (or with the kernels switched off)
the numpy path runs: tested here with ``ENABLED = False``, and by tests/test_one_pass.py.
"""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from same_game import TOLERANCE, assert_same_game, relative_error
from test_one_pass import GAMES, RECIPES, ROUNDS

pytest.importorskip("numba", reason="the compiled kernels are the optional extra gamedyn[numba]")

import gamedyn.arrays.compiled as compiled  # noqa: E402
import gamedyn.arrays.one_pass as one_pass  # noqa: E402
from gamedyn import OFTL, Entropy, FTRLPlus, RegularizedBilinear, play, recipes  # noqa: E402
from gamedyn.io import make_separable, signed_rows  # noqa: E402


@pytest.fixture(scope="module")
def A():
    X, y = make_separable(90, 6, 0.05, seed=3)
    return np.ascontiguousarray(signed_rows(X, y), dtype=np.float64)


@pytest.fixture
def built(monkeypatch):
    """Every dense and CSR A takes the compiled round; ``built[0]`` counts the CompiledRows made."""
    counter = [0]
    make = compiled.CompiledRows.__init__

    def counting(self, *args, **kwargs):
        counter[0] += 1
        make(self, *args, **kwargs)

    monkeypatch.setattr(compiled, "ENABLED", True)
    monkeypatch.setattr(one_pass, "COMPILED_MIN_BYTES", 0)
    monkeypatch.setattr(one_pass, "COMPILED_MIN_FLOAT32_ROW", 0)
    monkeypatch.setattr(one_pass, "COMPILED_CSR", True)
    monkeypatch.setattr(compiled.CompiledRows, "__init__", counting)
    return counter


def two_pass(run, A):
    """The run with neither the compiled nor the numpy one-pass kernels (one product per play)."""
    saved = compiled.ENABLED, one_pass.ONE_PASS_MIN_BYTES, one_pass.COMPILED_CSR
    compiled.ENABLED, one_pass.ONE_PASS_MIN_BYTES, one_pass.COMPILED_CSR = False, math.inf, False
    try:
        return run(A)
    finally:
        compiled.ENABLED, one_pass.ONE_PASS_MIN_BYTES, one_pass.COMPILED_CSR = saved


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_recipe_compiled_reports_what_the_two_pass_round_does(name, A, built):
    run, _ = RECIPES[name]
    reference = two_pass(run, A)
    assert built[0] == 0
    result = run(A)
    assert built[0] == 1  # the compiled round ran
    assert relative_error(result.w, reference.w) <= TOLERANCE and relative_error(result.p, reference.p) <= TOLERANCE
    assert_same_game(result.game, reference.game)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_play_compiled_reports_what_the_two_pass_round_does(name, A, built):
    game = GAMES[name]
    reference = two_pass(game, RegularizedBilinear(A))
    result = game(RegularizedBilinear(A))
    assert built[0] == 1
    assert_same_game(result, reference)


@pytest.mark.parametrize("name", ["smooth_perceptron", "nag_margin", "mirror_prox_perceptron", "pnorm_perceptron"])
def test_float32_compiled_keeps_the_documented_float32_accuracy(name, A, built):
    """float32 A: the run agrees with the float64 run of the same (float32-rounded) matrix to the float32 bound of
    docs/explanation/architecture.md (1e-6): the payoff's other products (the starts' losses, the certificate)
    stay float32 products."""
    run, _ = RECIPES[name]
    A32 = A.astype(np.float32)
    single = run(A32)
    assert built[0] == 1
    double = two_pass(run, A32.astype(np.float64))
    assert relative_error(single.w, double.w) <= 1e-6 and relative_error(single.p, double.p) <= 1e-6


@pytest.mark.parametrize("kind", ["float64", "float32", "csr"])
@pytest.mark.parametrize("threads", [1, 2])
def test_kernels_equal_the_float64_products_of_the_entries(A, kind, threads, monkeypatch):
    """One step of each kernel against numpy's float64 products on the same entries (a float32 A widened):
    z = A w and r = A^T softmax(log p_0 - eta (base + alpha z)) to 1e-12 relative (float32: to 1e-6, the
    documented float32 accuracy, since its kernel sums in float32 as float32 BLAS does), also with every logit near
    -1800 (only the shift by their maximum keeps the weights), spanning ~150 (the running maximum rescales);
    both products likewise."""
    monkeypatch.setattr(compiled, "ENABLED", True)
    matrix = {"float64": A, "float32": A.astype(np.float32), "csr": sp.csr_matrix(np.where(np.abs(A) > 0.15, A, 0.0))}[kind]
    wide = matrix.astype(np.float64)
    rng = np.random.default_rng(7)
    w, base = rng.normal(size=A.shape[1]), rng.normal(size=A.shape[0]) * 30
    centre = np.log(rng.dirichlet(np.ones(A.shape[0])))
    rows = compiled.CompiledRows(matrix, threads=threads)
    for log_centre, shift in ((None, 0.0), (centre, 0.0), (None, 1000.0)):  # shift: logits near -1800, all e^l = 0
        z, r = rows.softmax_pass(log_centre)(w, base + shift, 1.7, 0.9)
        base_shifted = base + shift
        expected_z = wide @ w
        logits = -0.9 * (base_shifted + 1.7 * expected_z) + (0.0 if log_centre is None else log_centre)
        p = np.exp(logits - logits.max())
        p /= p.sum()
        tolerance = 1e-6 if kind == "float32" else TOLERANCE
        assert relative_error(z, expected_z) <= tolerance and relative_error(r, wide.T @ p) <= tolerance
    z, v = rows.products(w, p)  # (mirror prox's products widen every entry: float64 sums)
    assert relative_error(z, wide @ w) <= TOLERANCE and relative_error(v, wide.T @ p) <= TOLERANCE


@pytest.mark.parametrize("block", [1, 5, 16, 64])
def test_row_block_kernel_equals_the_float64_products_at_any_block(block, monkeypatch):
    """The row-block kernel (a float32 A's) at block sizes 1 .. 64 on 301 x 9 (a last, short block), against
    numpy's float64 products of the widened entries to the float32 accuracy 1e-6 (its float32 arithmetic is the
    row-at-a-time kernel's: see the module docstring): logits spanning ~2700 (the maximum is raised mid-run, with
    unflushed float32 shares to rescale), some logits -inf (weights 0) and all near -1800 (only the shift keeps the
    weights); a NaN or +inf logit declines (r None) and z is still written."""
    monkeypatch.setattr(compiled, "ENABLED", True)
    rng = np.random.default_rng(17)
    A = rng.normal(size=(301, 9)).astype(np.float32)
    wide = A.astype(np.float64)
    w = rng.normal(size=9)
    base = np.sort(rng.normal(size=301)) * -500.0  # increasing logits: m raised block after block
    kernel = compiled.kernels()["dense_softmax_blocks"]

    def step(base, centre=None):
        z, v = np.empty(301), np.empty(9)
        _, total, valid = kernel(A, w, base, 1.7, 0.9, np.zeros(1) if centre is None else centre, centre is not None,
                                 z, v, 0, 301, block)
        return z, (v / total if valid else None)

    centre = np.log(rng.dirichlet(np.ones(301)))
    vanished = base.copy()
    vanished[::17] = np.inf  # logit -inf: weight 0
    for b, c in ((base, None), (base, centre), (base + 2000.0, None), (vanished, None)):
        z, r = step(b, c)
        logits = -0.9 * (b + 1.7 * (wide @ w)) + (0.0 if c is None else c)
        p = np.exp(logits - logits.max())
        assert relative_error(z, wide @ w) <= 1e-6 and relative_error(r, wide.T @ (p / p.sum())) <= 1e-6
    for bad in (np.nan, -np.inf):  # logit NaN, +inf
        broken = base.copy()
        broken[200] = bad
        z, r = step(broken)
        assert r is None and relative_error(z, wide @ w) <= 1e-6


def test_csr_kernel_equals_the_float64_products_and_declines_with_z_written(monkeypatch):
    """The CSR kernel (one test a row on its common path) on 301 x 9 with empty rows, against numpy's products:
    logits rising over ~2700 (m raised mid-run), -inf logits (weight 0) first and inside, all near -1800; a NaN
    or +inf logit declines (r None) with every z_i still A w's."""
    monkeypatch.setattr(compiled, "ENABLED", True)
    rng = np.random.default_rng(23)
    dense = np.where(rng.random((301, 9)) < 0.4, rng.normal(size=(301, 9)), 0.0)
    dense[[0, 50, 51, 300]] = 0.0  # empty rows
    A = sp.csr_matrix(dense)
    w = rng.normal(size=9)
    base = np.sort(rng.normal(size=301)) * -500.0
    kernel = compiled.kernels()["csr_softmax"]

    def step(base, centre=None):
        z, v = np.empty(301), np.empty(9)
        _, total, valid = kernel(A.data, A.indices, A.indptr, w, base, 1.7, 0.9,
                                 np.zeros(1) if centre is None else centre, centre is not None, z, v, 0, 301)
        return z, (v / total if valid else None)

    centre = np.log(rng.dirichlet(np.ones(301)))
    vanished = base.copy()
    vanished[:3] = vanished[::17] = np.inf  # logit -inf: weight 0 (the first rows' too, while m is -inf)
    for b, c in ((base, None), (base, centre), (base + 2000.0, None), (vanished, None)):
        z, r = step(b, c)
        logits = -0.9 * (b + 1.7 * (dense @ w)) + (0.0 if c is None else c)
        p = np.exp(logits - logits.max())
        assert relative_error(z, dense @ w) <= TOLERANCE and relative_error(r, dense.T @ (p / p.sum())) <= TOLERANCE
    for bad in (np.nan, -np.inf):  # logit NaN, +inf
        broken = base.copy()
        broken[200] = bad
        z, r = step(broken)
        assert r is None and relative_error(z, dense @ w) <= TOLERANCE


def test_block_rows_by_row_length():
    """16 rows a block for rows under 1 KiB, 64 above (the measured choice); never over the float32 flush (64)."""
    assert compiled.block_rows(400) == compiled.BLOCK_ROWS == 16
    assert compiled.block_rows(2000) == compiled.LONG_ROW_BLOCK_ROWS == 64
    assert all(1 <= compiled.block_rows(b) <= 64 for b in (1, 4, 1023, 1024, 10**6))


@pytest.mark.parametrize("name", ["smooth_perceptron", "accelerated_perceptron_ji", "nag_margin", "mirror_prox_perceptron"])
def test_csr_compiled_reports_what_the_two_pass_round_does(name, A, built):
    sparse = sp.csr_matrix(np.where(np.abs(A) > 0.15, A, 0.0))  # about half the entries stored
    run, _ = RECIPES[name]
    reference = two_pass(run, sparse)
    result = run(sparse)
    assert built[0] == 1
    assert relative_error(result.w, reference.w) <= TOLERANCE and relative_error(result.p, reference.p) <= TOLERANCE
    assert_same_game(result.game, reference.game)


@pytest.mark.parametrize("name", ["smooth_perceptron", "nag_margin", "mirror_prox_perceptron"])
def test_two_threads_merge_their_chunks_exactly(name, A, built, monkeypatch):
    """Two row chunks in parallel, merged by log-sum-exp: the same run to 1e-12."""
    monkeypatch.setattr(compiled, "THREADS", 2)
    run, _ = RECIPES[name]
    reference = two_pass(run, A)
    assert_same_game(run(A).game, reference.game)


def test_numba_switched_off_takes_the_numpy_path(A, built, monkeypatch):
    """ENABLED = False (what a machine without numba has): no CompiledRows; the numpy one-pass kernels take
    a large A (here every A) and the run is the same."""
    monkeypatch.setattr(compiled, "ENABLED", False)
    monkeypatch.setattr(one_pass, "ONE_PASS_MIN_BYTES", 0)
    assert not compiled.available()
    assert compiled.compiled_operator(A) is None
    assert isinstance(one_pass.one_pass_operator(A), one_pass.InMemoryRows)
    assert one_pass.one_pass_operator(sp.csr_matrix(A)) is None
    run, _ = RECIPES["smooth_perceptron"]
    result = run(A)
    assert built[0] == 0
    assert_same_game(result.game, two_pass(run, A).game)


def test_what_takes_the_compiled_round(A, monkeypatch):
    """Dense C-ordered float32/float64 of at least COMPILED_MIN_BYTES (float32 rows of at least
    COMPILED_MIN_FLOAT32_ROW entries); CSR only with COMPILED_CSR; never Fortran order."""
    monkeypatch.setattr(compiled, "ENABLED", True)
    monkeypatch.setattr(one_pass, "COMPILED_MIN_FLOAT32_ROW", A.shape[1] + 1)
    assert one_pass.one_pass_operator(A.astype(np.float32)) is None
    monkeypatch.setattr(one_pass, "COMPILED_MIN_FLOAT32_ROW", A.shape[1])
    monkeypatch.setattr(one_pass, "COMPILED_MIN_BYTES", A.nbytes)
    monkeypatch.setattr(one_pass, "ONE_PASS_MIN_BYTES", math.inf)
    assert isinstance(one_pass.one_pass_operator(A), compiled.CompiledRows)
    assert one_pass.one_pass_operator(A[:-1]) is None
    assert one_pass.one_pass_operator(np.asfortranarray(A)) is None
    assert one_pass.one_pass_operator(sp.csr_matrix(A)) is None
    monkeypatch.setattr(one_pass, "COMPILED_MIN_BYTES", A.nbytes // 2)
    assert isinstance(one_pass.one_pass_operator(A.astype(np.float32)), compiled.CompiledRows)
    monkeypatch.setattr(one_pass, "COMPILED_CSR", True)
    assert isinstance(one_pass.one_pass_operator(sp.csr_matrix(A)), compiled.CompiledRows)


def test_exponential_within_two_ulps():
    """The kernels' e^x (Cody-Waite reduction, degree-13 polynomial, exponent bits) against numpy's, on
    [-708, 32] within 2 ulp; below -708 it is 0 (a weight relative to the maximum's 1: error < 3.3e-308)."""
    x = np.concatenate([np.linspace(32.0, -708.0, 400_001), -np.logspace(-300, 2.8, 2000), [0.0, -0.0]])
    got, expected = compiled.exp_nonpositive(x), np.exp(x)
    assert np.max(np.abs(got - expected) / np.spacing(expected)) <= 2.0
    tail = np.linspace(-708.01, -800.0, 1000)
    assert np.all(compiled.exp_nonpositive(tail) == 0.0) and np.max(np.exp(tail)) < 3.3e-308


def test_vectorised_exponential_within_two_ulps_and_equal_to_the_row_kernels():
    """The row-block kernel's e^(x - m) (:func:`gamedyn.arrays.compiled.exp_shifted`: k by the rounding constant
    1.5 * 2^52) against numpy's within 2 ulp on [-708, 32] after the shift, 0 below -708, and equal to the row
    kernels' exponential but where y / ln 2 is a tie (none of these points); only the first ``count`` entries."""
    shifted = compiled.kernels()["exp_shifted"]
    x = np.concatenate([np.linspace(32.0, -708.0, 400_001), -np.logspace(-300, 2.8, 2000), [0.0, -0.0]])
    for top in (0.0, 1000.0, -37.5):
        got = x + top
        difference = got - top  # the kernel's argument (x to rounding)
        shifted(got, got.shape[0], top)
        expected = np.exp(difference)
        assert np.max(np.abs(got - expected) / np.spacing(expected)) <= 2.0
        assert np.array_equal(got, compiled.exp_nonpositive(difference))
    tail = np.linspace(-708.01, -800.0, 1000)
    shifted(tail, tail.shape[0], 0.0)
    assert np.all(tail == 0.0)
    partial = np.array([-1.0, -2.0, 5.0, 7.0])
    shifted(partial, 2, 0.0)
    assert partial[2:].tolist() == [5.0, 7.0] and np.allclose(partial[:2], np.exp([-1.0, -2.0]), rtol=1e-15)


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
def test_logits_beyond_range_decline_the_merge(A, built):
    """Logits beyond float64 (eta = 1e308): the compiled step returns no A^T p, the learner's careful softmax
    plays and a second product follows; the run equals the two-pass round's."""
    game = lambda matrix: play(RegularizedBilinear(matrix), OFTL(), FTRLPlus(Entropy(), eta=1e308), 6,  # noqa: E731
                               weights="linear")
    A = 10 * A * np.where(np.arange(A.shape[0]) % 7 == 0, -1.0, 1.0)[:, None]
    reference = two_pass(game, A)
    declined = []
    step_of = compiled.CompiledRows.softmax_pass

    def watched(self, log_centre=None):
        step = step_of(self, log_centre)
        return lambda *args: declined.append(step(*args)[1] is None) or step(*args)

    compiled.CompiledRows.softmax_pass = watched
    try:
        result = game(A)
    finally:
        compiled.CompiledRows.softmax_pass = step_of
    assert any(declined)
    assert_same_game(result, reference)


def test_resumed_compiled_run_is_bit_identical(A, built, tmp_path):
    """A compiled NAG run crashed after round 8 and resumed from round 6's checkpoint: the same bits."""
    class Crash(Exception):
        pass

    def crash_at_8(state):
        if state.t == 8:
            raise Crash
        return False

    uninterrupted = recipes.nag_margin(A, ROUNDS)
    path = tmp_path / "run.npz"
    with pytest.raises(Crash):
        recipes.nag_margin(A, ROUNDS, checkpoint=path, checkpoint_every=3, stop=crash_at_8)
    resumed = recipes.nag_margin(A, ROUNDS, resume_from=path)
    assert np.array_equal(resumed.w, uninterrupted.w) and np.array_equal(resumed.p, uninterrupted.p)


# ------------------------------------------------------------- the compiled matrix-game round (item 3)

import gamedyn.engine.compiled_rounds as compiled_rounds  # noqa: E402
from gamedyn import MatrixGame, NashGapStop, RegretMatching  # noqa: E402
from gamedyn.engine.observers import skip_regrets  # noqa: E402


@pytest.fixture
def rounds_built(monkeypatch):
    """``rounds_built[0]`` counts the CompiledAlternatingRound made; chunks of 7 rounds (several calls a run)."""
    counter = [0]
    make = compiled_rounds.CompiledAlternatingRound.__init__

    def counting(self, *args, **kwargs):
        counter[0] += 1
        make(self, *args, **kwargs)

    monkeypatch.setattr(compiled, "ENABLED", True)
    monkeypatch.setattr(compiled_rounds, "CHUNK", 7)
    monkeypatch.setattr(compiled_rounds.CompiledAlternatingRound, "__init__", counting)
    return counter


def python_rounds(run):
    before, compiled.ENABLED = compiled.ENABLED, False
    try:
        return run()
    finally:
        compiled.ENABLED = before


@pytest.mark.parametrize("plus, predictive, averaging", [(False, False, "uniform"), (True, False, "linear"),
                                                        (False, True, None), (True, True, "quadratic")])
@pytest.mark.parametrize("regrets", [True, False])
def test_compiled_regret_matching_round_reports_what_the_alternating_round_does(plus, predictive, averaging, regrets,
                                                                                 rounds_built):
    """RM, RM+, PRM, PRM+ alternating on a 7 x 5 game (rows maximise), 20 rounds in chunks of 7: every sum, regret,
    play and state equals AlternatingRound's to 1e-12 (the products' sums run in another order; over hundreds of
    rounds the clipping's switches amplify that rounding, as between any two implementations)."""
    M = np.random.default_rng(11).uniform(-1, 1, (7, 5))
    learner = RegretMatching(plus=plus, predictive=predictive)
    run = lambda: play(MatrixGame(M), learner, learner, 20, alternating=True, output_weights=averaging,  # noqa: E731
                       weights="linear" if predictive else "constant",
                       observers=[] if regrets else [skip_regrets()])
    reference = python_rounds(run)
    assert rounds_built[0] == 0
    result = run()
    assert rounds_built[0] == 1
    if regrets:
        assert_same_game(result, reference)
    else:  # (no played losses, regrets or bound: the plays, sums and the duality gap)
        for field in ("w_average", "p_average", "w_sum", "p_sum", "w_last", "p_last"):
            assert relative_error(getattr(result, field), getattr(reference, field)) <= TOLERANCE, field
        assert relative_error(result.p_loss_sum.linear, reference.p_loss_sum.linear) <= TOLERANCE
        assert result.w_played_loss is None and result.w_regret is None
        assert (result.duality_gap is None if reference.duality_gap is None
                else abs(result.duality_gap - reference.duality_gap) <= TOLERANCE)
        assert (result.weight_total, result.output_weight_total) == (reference.weight_total,
                                                                     reference.output_weight_total)
    assert result.rounds == 20 and result.w_last.shape == (7,) and result.p_last.shape == (5,)


def test_compiled_regret_matching_learner_states_continue_as_the_python_ones(rounds_built):
    """The states written back (regrets, prediction, round) are the Python round's: a pure play from them agrees."""
    M = np.random.default_rng(12).uniform(-1, 1, (4, 6))
    learner = RegretMatching(plus=True, predictive=True)
    from gamedyn.games.matrix import solve_game  # noqa: F401  (the module's import order, as users have it)

    result = play(MatrixGame(M), learner, learner, 25, alternating=True, output_weights="quadratic")
    reference = python_rounds(lambda: play(MatrixGame(M), learner, learner, 25, alternating=True,
                                           output_weights="quadratic"))
    assert rounds_built[0] == 1
    assert relative_error(result.w_sum, reference.w_sum) <= TOLERANCE
    assert relative_error(result.p_loss_sum.linear, reference.p_loss_sum.linear) <= TOLERANCE


def test_an_observer_or_simultaneous_play_keeps_the_python_round(rounds_built):
    M = np.random.default_rng(13).uniform(-1, 1, (5, 5))
    learner = RegretMatching(plus=True)
    stop = NashGapStop(M, 1e-12, lambda t: 1.0)
    play(MatrixGame(M), learner, learner, 20, alternating=True, observers=[stop])
    play(MatrixGame(M), learner, learner, 20)  # simultaneous
    play(RegularizedBilinear(M.T), learner, learner, 20, alternating=True)  # curved w-losses: not a matrix game
    assert rounds_built[0] == 0
    play(MatrixGame(M), learner, learner, 20, alternating=True)
    assert rounds_built[0] == 1
