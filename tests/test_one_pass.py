"""The in-memory one-pass round (gamedyn.arrays.one_pass.InMemoryRows).

A dense numpy A of at least ``ONE_PASS_MIN_BYTES`` is read once per round in cache-sized row
groups (two passes for mirror prox's four products' worth, see gamedyn.engine.rounds). The sums run in a
different order from two BLAS calls, so every number a run reports must agree with the two-pass
round to rounding: asserted at 1e-12 relative, with the number of reads of A counted. The
threshold and the group size are lowered here so that small matrices take the path in several groups.
"""

import math
from types import SimpleNamespace

import numpy as np
import pytest
from same_game import TOLERANCE, assert_same_game, relative_error

import gamedyn.arrays.one_pass as one_pass
import gamedyn.engine.rounds as rounds
from gamedyn import FTRL, OFTL, OFTRL, Entropy, FTRLPlus, QNorm, RegularizedBilinear, StepSchedule, play, recipes
from gamedyn.io import make_separable, signed_rows

ROUNDS = 12
RECIPES = {  # name -> (run, reads of A by the one-pass kernels in the run's ROUNDS rounds)
    "smooth_perceptron": (lambda A: recipes.smooth_perceptron(A, ROUNDS), ROUNDS),
    "accelerated_perceptron": (lambda A: recipes.accelerated_perceptron(A, ROUNDS), ROUNDS),
    "accelerated_perceptron_ji": (lambda A: recipes.accelerated_perceptron(A, ROUNDS, theta="ji"), ROUNDS),
    "pnorm_perceptron": (lambda A: recipes.pnorm_perceptron(A, ROUNDS, p=3), ROUNDS),
    # its hints' two products from a pass of their own (HintedProductsRound): two reads a round
    "mirror_prox_perceptron": (lambda A: recipes.mirror_prox_perceptron(A, ROUNDS), 2 * ROUNDS),
    # p first: each round's pass also gives the next round's A^T p, so the last round's A w is a plain product
    "nag_margin": (lambda A: recipes.nag_margin(A, ROUNDS), ROUNDS - 1),
}

CENTRE = np.linspace(1.0, 3.0, 90) / np.linspace(1.0, 3.0, 90).sum()
GAMES = {  # play() configurations of each one-pass round: name -> call(payoff)
    "FTRL+ follows, scheduled eta, p_0 given, three weight sequences": lambda payoff: play(
        payoff, OFTL(), FTRLPlus(Entropy(), eta=lambda t: 0.5 / np.sqrt(t)), ROUNDS, weights="linear",
        p_weights=lambda t: t + 1.0, output_weights=lambda t: t + 2.0, initial_p=CENTRE),
    "FTRL+ follows a p-norm w-player": lambda payoff: play(
        payoff, OFTRL(QNorm(1.5), eta=0.7), FTRLPlus(Entropy(), eta=1.3), ROUNDS, weights="constant"),
    "OFTRL p follows": lambda payoff: play(payoff, OFTL(), OFTRL(Entropy(), eta=0.25), ROUNDS, weights="linear"),
    "p leads, OFTL w follows": lambda payoff: play(payoff, OFTL(), FTRL(Entropy(), eta=0.5), ROUNDS,
                                                   first="p", weights="linear"),
    "FTRL p follows (no hint)": lambda payoff: play(payoff, OFTL(), FTRL(Entropy(), eta=StepSchedule([0.3] * ROUNDS)),
                                                    ROUNDS, weights=2.0),
    # NAG's order: the pass of A w_t gives A^T p_{t+1} (rounds 1 to T - 1), T steps exactly, p on its own weights
    "OFTRL p leads, FTRL+ w follows, scheduled eta": lambda payoff: play(
        payoff, FTRLPlus(), OFTRL(Entropy(), eta=StepSchedule([0.25 / (1 + 0.1 * t) for t in range(ROUNDS)])),
        ROUNDS, first="p", weights="linear", p_weights=lambda t: t + 0.5, initial_p=CENTRE),
}


@pytest.fixture(scope="module")
def A():
    X, y = make_separable(90, 6, 0.05, seed=3)
    return np.ascontiguousarray(signed_rows(X, y), dtype=np.float64)


@pytest.fixture
def reads(monkeypatch):
    """Every in-memory array of at least 0 bytes takes the one-pass round, in groups of 16 rows
    (6 groups of A); ``reads[0]`` counts the kernels' reads of A."""
    counter = [0]
    slabs = one_pass.slabs

    def counting_slabs(block):
        counter[0] += 1
        return slabs(block)

    monkeypatch.setattr(one_pass, "ONE_PASS_MIN_BYTES", 0)
    monkeypatch.setattr(one_pass, "GROUP_BYTES", 16 * 6 * 8)
    monkeypatch.setattr(one_pass, "slabs", counting_slabs)
    return counter


def two_pass(run, A):
    old = one_pass.ONE_PASS_MIN_BYTES
    one_pass.ONE_PASS_MIN_BYTES = math.inf
    try:
        return run(A)
    finally:
        one_pass.ONE_PASS_MIN_BYTES = old


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_recipe_in_one_pass_reports_what_the_two_pass_round_does(name, A, reads):
    run, kernel_reads = RECIPES[name]
    reference = two_pass(run, A)
    assert reads[0] == 0
    result = run(A)
    assert reads[0] == kernel_reads
    assert relative_error(result.w, reference.w) <= TOLERANCE and relative_error(result.p, reference.p) <= TOLERANCE
    assert_same_game(result.game, reference.game)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_play_in_one_pass_reports_what_the_two_pass_round_does(name, A, reads):
    game = GAMES[name]
    reference = two_pass(game, RegularizedBilinear(A))
    result = game(RegularizedBilinear(A))
    assert reads[0] == (ROUNDS - 1 if name.startswith("OFTRL p leads") else ROUNDS)
    assert_same_game(result, reference)


def test_only_large_dense_c_ordered_float_arrays_take_it(A, monkeypatch):
    """The threshold is in bytes of A; Fortran order, other dtypes, sparse and operators keep two passes."""
    import scipy.sparse as sp
    from scipy.sparse.linalg import aslinearoperator

    monkeypatch.setattr(one_pass, "ONE_PASS_MIN_BYTES", A.nbytes)
    seats = [SimpleNamespace(name="w", learner=OFTL(), weight=float), SimpleNamespace(name="p", learner=FTRLPlus(Entropy(), 0.25))]
    takes = lambda matrix: rounds.one_pass_round(RegularizedBilinear(matrix), *seats, ROUNDS) is not None  # noqa: E731
    assert takes(A)
    assert not takes(A[:-1])  # one row fewer than the threshold
    assert not takes(np.asfortranarray(A))
    assert not takes(sp.csr_matrix(A)) and not takes(aslinearoperator(A))
    monkeypatch.setattr(one_pass, "ONE_PASS_MIN_BYTES", A.nbytes // 2)
    assert takes(A.astype(np.float32))


@pytest.mark.parametrize("name", ["smooth_perceptron", "accelerated_perceptron_ji", "mirror_prox_perceptron"])
def test_float32_in_one_pass_keeps_the_documented_float32_accuracy(name, A, reads):
    """float32 A, read once per round in float32: outputs agree with the float64 run of the same
    (float32-rounded) matrix to the float32 bound of docs/explanation/architecture.md (1e-6)."""
    run, kernel_reads = RECIPES[name]
    A32 = A.astype(np.float32)
    single = run(A32)
    assert reads[0] == kernel_reads
    double = two_pass(run, A32.astype(np.float64))
    assert single.w.dtype == np.float64
    assert relative_error(single.w, double.w) <= 1e-6 and relative_error(single.p, double.p) <= 1e-6


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # Entropy's own fast path, the reference's too
def test_logits_beyond_range_take_the_careful_path(A, reads):
    """Logits beyond float64 (eta = 1e308): the kernel's merge declines, the learner's careful
    softmax plays p_t and A^T p_t comes from a second product; the run equals the two-pass round's."""
    game = lambda matrix: play(RegularizedBilinear(matrix), OFTL(), FTRLPlus(Entropy(), eta=1e308), 6,  # noqa: E731
                               weights="linear")
    A = 10 * A * np.where(np.arange(A.shape[0]) % 7 == 0, -1.0, 1.0)[:, None]  # logits up to ~1e309: +inf
    reference = two_pass(game, A)
    merges, merge = [], one_pass.merge_log_sum_exp
    one_pass.merge_log_sum_exp = lambda pieces, d: merges.append(merge(pieces, d)) or merges[-1]
    try:
        result = game(A)
    finally:
        one_pass.merge_log_sum_exp = merge
    assert reads[0] == 6 and any(vector is None for vector in merges)  # some rounds declined the merge
    assert_same_game(result, reference)


@pytest.mark.parametrize("name", ["smooth_perceptron", "nag_margin"])
def test_resumed_run_is_bit_identical(name, A, reads, tmp_path):
    """Crash after round 8, resume from round 6's checkpoint: the same bits as the uninterrupted
    run (NAG's round 7 uses the w-loss that round 6's pass computed, saved in the checkpoint)."""
    class Crash(Exception):
        pass

    def crash_at_8(state):
        if state.t == 8:
            raise Crash
        return False

    run = getattr(recipes, name)
    uninterrupted = run(A, ROUNDS)
    path = tmp_path / "run.npz"
    with pytest.raises(Crash):
        run(A, ROUNDS, checkpoint=path, checkpoint_every=3, stop=crash_at_8)
    resumed = run(A, ROUNDS, resume_from=path)
    assert np.array_equal(resumed.w, uninterrupted.w) and np.array_equal(resumed.p, uninterrupted.p)
    certificates = resumed.game.certificate, uninterrupted.game.certificate
    assert certificates[0].upper == certificates[1].upper and np.array_equal(certificates[0].p, certificates[1].p)
    assert resumed.game.w_regret == uninterrupted.game.w_regret and resumed.game.p_regret == uninterrupted.game.p_regret
