"""Checkpoints: a resumed run is bit-identical to the uninterrupted one (np.array_equal, never
allclose), for every recipe at several checkpoint intervals and for adaptive SGD; damaged,
foreign and mismatched checkpoints are refused with a named error; Ctrl-C on `gamedyn run`
leaves a checkpoint that resumes."""

import json
import os
import signal
import subprocess
import sys
import time
import zipfile

import numpy as np
import pytest

import gamedyn.logistic as logistic
from gamedyn import (OMD, Bilinear, CheckpointError, CheckpointMismatchError, Entropy, FTRL, OFTRL,
                     RegularizedBilinear, SquaredEuclidean, checkpoint_info, play, recipes, signed_rows)
from gamedyn.checkpoints import CHECKPOINT_VERSION
from gamedyn.datasets import make_separable
from gamedyn.logistic import adaptive_sgd, sgd_indices
from gamedyn.stops import margin_within

T = 60
CRASH = 41  # the round at which the interrupted run dies (after its last checkpoint)


def _data(n=50, d=5, seed=1):
    A = signed_rows(*make_separable(n, d, 0.1, seed=seed))
    return A / np.max(np.linalg.norm(A, axis=1))


A = _data()

RECIPES = {
    "smooth_perceptron": lambda T, **k: recipes.smooth_perceptron(A, T, **k),
    "accelerated_perceptron": lambda T, **k: recipes.accelerated_perceptron(A, T, **k),
    "accelerated_perceptron_ji": lambda T, **k: recipes.accelerated_perceptron(A, T, theta="ji", **k),
    "mirror_prox_perceptron": lambda T, **k: recipes.mirror_prox_perceptron(A, T, **k),
    "nag_margin": lambda T, **k: recipes.nag_margin(A, T, **k),
    "pnorm_perceptron": lambda T, **k: recipes.pnorm_perceptron(A, T, 3, normalize=True, **k),
}


class Crash(Exception):
    """The simulated failure of a run (a kill, a power cut) after round CRASH - 1."""


def _crash_at(round_, seen=None):
    """A stop rule that never fires, records the certificate tracker's running state in ``seen``
    (a dict) and dies at ``round_``."""
    def stop(round_state):
        if round_state.t == round_:
            raise Crash
        if seen is not None:
            tracker = round_state.certificate_tracker
            seen[round_state.t] = (tracker.upper, tracker.upper_round, tracker.lower, tracker.witness.tobytes())
        return False
    return stop


def _assert_games_identical(first, second):
    """Every output of two GameResults, bit for bit."""
    for name in ("w_average", "p_average", "w_sum", "p_sum", "w_last", "p_last"):
        assert np.array_equal(getattr(first, name), getattr(second, name)), name
    for name in ("weight_total", "p_weight_total", "output_weight_total", "rounds", "w_regret", "p_regret",
                 "theorem2_bound", "duality_gap", "w_played_loss", "p_played_loss", "stopped_early", "stop_reason"):
        assert getattr(first, name) == getattr(second, name), name
    for name in ("w_loss_sum", "p_loss_sum"):
        assert np.array_equal(getattr(first, name).linear, getattr(second, name).linear), name
        assert getattr(first, name).curvature == getattr(second, name).curvature, name
    if first.certificate is not None:
        a, b = first.certificate, second.certificate
        assert (a.lower, a.upper, a.separable, a.rounds) == (b.lower, b.upper, b.separable, b.rounds)
        assert np.array_equal(a.p, b.p)


@pytest.mark.parametrize("name", sorted(RECIPES))
@pytest.mark.parametrize("every", [1, 7, 20])
def test_every_recipe_resumes_bit_identically(name, every, tmp_path):
    run = RECIPES[name]
    path = tmp_path / "run.npz"
    uninterrupted_tracker, resumed_tracker = {}, {}
    uninterrupted = run(T, stop=_crash_at(T + 1, uninterrupted_tracker))
    with pytest.raises(Crash):
        run(T, checkpoint=path, checkpoint_every=every, stop=_crash_at(CRASH))
    saved = checkpoint_info(path)
    assert saved["round"] == (CRASH - 1) // every * every and saved["finished"] is False
    resumed = run(T, resume_from=path, stop=_crash_at(T + 1, resumed_tracker))
    assert min(resumed_tracker) == saved["round"] + 1
    assert all(resumed_tracker[t] == uninterrupted_tracker[t] for t in resumed_tracker)  # the running bracket
    assert np.array_equal(uninterrupted.w, resumed.w) and np.array_equal(uninterrupted.p, resumed.p)
    assert uninterrupted.row_scale == resumed.row_scale
    _assert_games_identical(uninterrupted.game, resumed.game)


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_a_sharpened_bound_survives_the_checkpoint(name, tmp_path):
    """The tracker's running minimum is state: after a sharpening (min-norm point, below every U_t)
    the resumed run must carry the sharpened bound, not restart its minimum from U_{t+1}."""
    run, path = RECIPES[name], tmp_path / "run.npz"
    sharpen = margin_within(1e-12, sharpen_every=5)  # never fires; sharpens every 5 rounds once L_t > 0
    uninterrupted_tracker, resumed_tracker = {}, {}

    def rule(seen, crash=T + 1):
        recorder = _crash_at(crash, seen)
        return lambda round_state: recorder(round_state) or sharpen(round_state)

    run(T, stop=rule(uninterrupted_tracker))
    with pytest.raises(Crash):
        run(T, checkpoint=path, checkpoint_every=7, stop=rule({}, CRASH))
    run(T, resume_from=path, stop=rule(resumed_tracker))
    assert all(resumed_tracker[t] == uninterrupted_tracker[t] for t in resumed_tracker)
    assert min(resumed_tracker) == 36


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_a_chain_of_resumes_is_the_uninterrupted_run(name, tmp_path):
    """Crash, resume, crash again, resume: still the same bits (the file is rewritten in place)."""
    run, path = RECIPES[name], tmp_path / "run.npz"
    with pytest.raises(Crash):
        run(T, checkpoint=path, checkpoint_every=5, stop=_crash_at(13))
    with pytest.raises(Crash):
        run(T, checkpoint=path, checkpoint_every=5, resume_from=path, stop=_crash_at(37))
    assert checkpoint_info(path)["round"] == 35
    resumed = run(T, checkpoint=path, resume_from=path)
    assert checkpoint_info(path)["finished"] is True and checkpoint_info(path)["round"] == T
    assert np.array_equal(run(T).w, resumed.w)


def test_stop_rule_state_and_sharpened_bound_resume(tmp_path):
    """margin_within with sharpen_every mutates the certificate tracker; a resumed run stops at the
    same round with the same certificate, and a finished checkpoint returns that result at once."""
    data = _data(200, 6, seed=3)
    rule = margin_within(0.02, sharpen_every=5)
    uninterrupted = recipes.smooth_perceptron(data, 5000, stop=rule)
    assert uninterrupted.game.stopped_early
    stop_round = uninterrupted.game.rounds
    path = tmp_path / "run.npz"

    def crash_then_rule(round_state):
        if round_state.t == stop_round - 3:
            raise Crash
        return rule(round_state)

    with pytest.raises(Crash):
        recipes.smooth_perceptron(data, 5000, stop=crash_then_rule, checkpoint=path, checkpoint_every=1)
    resumed = recipes.smooth_perceptron(data, 5000, stop=rule, resume_from=path, checkpoint=path)
    _assert_games_identical(uninterrupted.game, resumed.game)
    assert checkpoint_info(path) == {"kind": "play", "version": CHECKPOINT_VERSION, "round": stop_round, "T": 5000,
                                     "finished": True, "stop_reason": uninterrupted.game.stop_reason}
    again = recipes.smooth_perceptron(data, 5000, stop=rule, resume_from=path)  # plays no round
    _assert_games_identical(uninterrupted.game, again.game)


@pytest.mark.parametrize("first", ["w", "p"])
def test_play_with_its_own_weights_and_outputs_resumes(first, tmp_path):
    """The runner's general case: OMD and OFTRL, p-player weights and output weights of their own."""
    payoff = RegularizedBilinear(A, strength=0.5)
    w_learner = OFTRL(SquaredEuclidean(), 0.3)
    p_learner = OMD(Entropy(), 0.7)
    options = dict(weights="linear", p_weights=lambda t: t + 1.0, output_weights=np.arange(1.0, 80.0), first=first)
    uninterrupted = play(payoff, w_learner, p_learner, T, **options)
    path = tmp_path / "run.npz"
    with pytest.raises(Crash):
        play(payoff, w_learner, p_learner, T, checkpoint=path, checkpoint_every=3, stop=_crash_at(CRASH), **options)
    _assert_games_identical(uninterrupted, play(payoff, w_learner, p_learner, T, resume_from=path, **options))


def _fenchel_play(**options):
    from gamedyn import FenchelGame, Objective, Simplex
    from gamedyn.hints import FirstRoundLoss
    from gamedyn.learners import BestResponse, FollowTheRegularizedLeader
    from gamedyn.regularizers import Zero

    objective = Objective(_fenchel_value, _fenchel_gradient, smoothness=2.0)
    return play(FenchelGame(objective, Simplex(), dimension=3), FollowTheRegularizedLeader(Zero(), 1.0, FirstRoundLoss()),
                BestResponse(Simplex()), T, weights="linear", first="w", initial_p=np.full(3, 1 / 3), **options)


_TARGET = np.array([0.2, 0.5, 0.3])


def _fenchel_value(x):
    return float((x - _TARGET) @ (x - _TARGET))


def _fenchel_gradient(x):
    return 2 * (x - _TARGET)


def test_a_fenchel_game_resumes_bit_identically(tmp_path):
    """Losses with a convex term (f*): the term is the game's, restored from the fresh run, not saved."""
    uninterrupted = _fenchel_play()
    path = tmp_path / "fenchel.npz"
    with pytest.raises(Crash):
        _fenchel_play(checkpoint=path, checkpoint_every=4, stop=_crash_at(CRASH))
    resumed = _fenchel_play(resume_from=path)
    _assert_games_identical(uninterrupted, resumed)
    assert resumed.w_loss_sum.convex is not None and resumed.duality_gap == uninterrupted.duality_gap


def test_metrics_are_refused_with_checkpoints(tmp_path):
    """The per-round metrics record is not saved, so metrics= with checkpoint= or resume_from= is refused."""
    payoff, path = Bilinear(A), tmp_path / "run.npz"
    with pytest.raises(ValueError, match="metrics= cannot be combined"):
        play(payoff, OFTRL(SquaredEuclidean(), 0.3), OMD(Entropy(), 0.7), T, checkpoint=path, metrics=True)
    with pytest.raises(ValueError, match="metrics= cannot be combined"):
        play(payoff, OFTRL(SquaredEuclidean(), 0.3), OMD(Entropy(), 0.7), T, resume_from=path, metrics=2)


def test_batched_games_resume_bit_identically(tmp_path):
    """K one-vs-rest games in one pass (states with a trailing batch axis)."""
    from gamedyn import one_vs_rest

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    X /= np.max(np.linalg.norm(X, axis=1))
    Y = np.where(rng.normal(size=(60, 3)) + 2 * X[:, :3] > 0, 1.0, -1.0)
    uninterrupted = recipes.nag_margin(one_vs_rest(X, Y), T)
    path = tmp_path / "batch.npz"
    with pytest.raises(Crash):
        recipes.nag_margin(one_vs_rest(X, Y), T, checkpoint=path, checkpoint_every=4, stop=_crash_at(CRASH))
    resumed = recipes.nag_margin(one_vs_rest(X, Y), T, resume_from=path)
    assert np.array_equal(uninterrupted.w, resumed.w)
    assert np.array_equal(uninterrupted.game.w_regret, resumed.game.w_regret)
    with pytest.raises(CheckpointMismatchError, match="payoff"):
        recipes.nag_margin(one_vs_rest(X, -Y), T, resume_from=path)


def test_a_matrix_free_payoff_is_known_by_its_products(tmp_path):
    """A LinearOperator cannot be hashed entry by entry: its fingerprint is one product each way,
    so another operator of the same shape is refused and the same one resumes."""
    from scipy.sparse.linalg import aslinearoperator

    path = tmp_path / "operator.npz"
    uninterrupted = recipes.smooth_perceptron(aslinearoperator(A), T)
    with pytest.raises(Crash):
        recipes.smooth_perceptron(aslinearoperator(A), T, checkpoint=path, checkpoint_every=10, stop=_crash_at(CRASH))
    assert np.array_equal(recipes.smooth_perceptron(aslinearoperator(A), T, resume_from=path).w, uninterrupted.w)
    with pytest.raises(CheckpointMismatchError, match="payoff"):
        recipes.smooth_perceptron(aslinearoperator(A[::-1].copy()), T, resume_from=path)


# ---------------------------------------------------------------------------------- adaptive SGD


SGD_DATA = signed_rows(*make_separable(80, 5, 0.1, seed=2))


def _crash_sgd_after(monkeypatch, step):
    segment = logistic._sgd_segment

    def crashing(*arguments):
        segment(*arguments)
        if arguments[7].t > step:  # the state after the segment
            raise Crash

    monkeypatch.setattr(logistic, "_sgd_segment", crashing)


@pytest.mark.parametrize("every", [97, 1000, 8192])
@pytest.mark.parametrize("given", [False, True])
def test_adaptive_sgd_resumes_bit_identically(every, given, tmp_path, monkeypatch):
    """T spans several chunks of 8192 indices; the checkpoint falls inside the second chunk (or on
    its start, every = 8192), so the current chunk and the generator's state must both be restored."""
    T, record = 20000, [0, 5000, 9999, 10000, 15000, 20000]
    source = dict(indices=sgd_indices(SGD_DATA.shape[0], T, 5)) if given else dict(seed=5)
    uninterrupted = adaptive_sgd(SGD_DATA, T, 1e-6, record=record, **source)
    path = tmp_path / "sgd.npz"
    with monkeypatch.context() as patch:
        _crash_sgd_after(patch, 10000)
        with pytest.raises(Crash):
            adaptive_sgd(SGD_DATA, T, 1e-6, record=record, checkpoint=path, checkpoint_every=every, **source)
    assert checkpoint_info(path)["round"] == 10000 // every * every >= 8192
    resumed = adaptive_sgd(SGD_DATA, T, 1e-6, record=record, resume_from=path, **source)
    for name in ("w", "times", "log_loss"):
        assert np.array_equal(getattr(uninterrupted, name), getattr(resumed, name)), name
    assert (uninterrupted.hitting_time, uninterrupted.loss_evaluations) == (resumed.hitting_time, resumed.loss_evaluations)


def test_block_adaptive_sgd_resumes_bit_identically(tmp_path, monkeypatch):
    """The block schedule (14) (its first block is longer than T here: the block index is saved, but
    a crossing of blocks is not exercised at this size)."""
    options = dict(eps0=0.5, delta=0.5, gamma="auto", seed=4)
    uninterrupted = logistic.block_adaptive_sgd(SGD_DATA, 4000, **options)
    path = tmp_path / "block.npz"
    with monkeypatch.context() as patch:
        _crash_sgd_after(patch, 2500)
        with pytest.raises(Crash):
            logistic.block_adaptive_sgd(SGD_DATA, 4000, checkpoint=path, checkpoint_every=300, **options)
    resumed = logistic.block_adaptive_sgd(SGD_DATA, 4000, resume_from=path, **options)
    assert np.array_equal(uninterrupted.w, resumed.w) and np.array_equal(uninterrupted.log_loss, resumed.log_loss)
    assert uninterrupted.hitting_time == resumed.hitting_time


def test_adaptive_sgd_without_a_seed_resumes_on_its_own_stream(tmp_path, monkeypatch):
    """seed=None: the checkpoint keeps the generator's state, so the resumed run draws the same stream."""
    path = tmp_path / "sgd.npz"
    with monkeypatch.context() as patch:
        _crash_sgd_after(patch, 9000)
        with pytest.raises(Crash):
            adaptive_sgd(SGD_DATA, 12000, 1e-6, record=[0, 500, 10000, 12000], checkpoint=path, checkpoint_every=2500)
    resumed = adaptive_sgd(SGD_DATA, 12000, 1e-6, record=[0, 500, 10000, 12000], resume_from=path)
    import numpy.random as random

    from gamedyn.checkpoints import read_header

    state = read_header(path)["rng_state"]
    generator = random.Generator(getattr(random, state["bit_generator"])())
    generator.bit_generator.state = state
    replay = adaptive_sgd(SGD_DATA, 12000, 1e-6, record=[0, 500, 10000, 12000],
                          indices=sgd_indices(SGD_DATA.shape[0], 12000, generator))
    assert np.array_equal(replay.w, resumed.w) and np.array_equal(replay.log_loss, resumed.log_loss)
    assert replay.hitting_time == resumed.hitting_time


def test_adaptive_sgd_refuses_another_seed_or_eps(tmp_path):
    path = tmp_path / "sgd.npz"
    adaptive_sgd(SGD_DATA, 500, 1e-3, seed=1, checkpoint=path)
    with pytest.raises(CheckpointMismatchError, match="stream"):
        adaptive_sgd(SGD_DATA, 500, 1e-3, seed=2, resume_from=path)
    with pytest.raises(CheckpointMismatchError, match="eps"):
        adaptive_sgd(SGD_DATA, 500, 1e-4, seed=1, resume_from=path)
    with pytest.raises(CheckpointMismatchError, match="adaptive_sgd"):
        recipes.smooth_perceptron(A, 10, resume_from=path)


# ----------------------------------------------------------------------- refused checkpoints


@pytest.fixture
def saved(tmp_path):
    path = tmp_path / "run.npz"
    recipes.smooth_perceptron(A, 30, checkpoint=path, checkpoint_every=10)
    return path


@pytest.mark.parametrize("change, part", [
    (lambda path: recipes.smooth_perceptron(A, 31, resume_from=path), "T"),
    (lambda path: recipes.nag_margin(A, 30, resume_from=path), "w_learner"),
    (lambda path: recipes.smooth_perceptron(np.where(np.arange(A.size).reshape(A.shape) == 7, 0.0, A), 30,
                                       resume_from=path), "payoff"),
    (lambda path: recipes.smooth_perceptron(A[:-1], 30, resume_from=path), "payoff"),
])
def test_a_checkpoint_of_another_configuration_is_refused(saved, change, part):
    with pytest.raises(CheckpointMismatchError, match=part):
        change(saved)


def test_a_learner_with_another_step_is_refused(tmp_path):
    path = tmp_path / "run.npz"
    play(Bilinear(A), FTRL(SquaredEuclidean(), 1.0), FTRL(Entropy(), 0.5), 20, checkpoint=path)
    with pytest.raises(CheckpointMismatchError, match="p_learner"):
        play(Bilinear(A), FTRL(SquaredEuclidean(), 1.0), FTRL(Entropy(), 0.5000000001), 20, resume_from=path)
    with pytest.raises(CheckpointMismatchError, match="weights"):
        play(Bilinear(A), FTRL(SquaredEuclidean(), 1.0), FTRL(Entropy(), 0.5), 20, weights="linear", resume_from=path)


def _rewrite(path, edit):
    """Rewrite the npz at ``path`` with ``edit(arrays)`` applied (a valid zip, altered content)."""
    with np.load(path, allow_pickle=False) as archive:
        arrays = {key: archive[key] for key in archive.files}
    edit(arrays)
    np.savez(path, **arrays)


def test_a_damaged_array_is_refused(saved):
    def flip(arrays):
        key = next(key for key, array in arrays.items() if key != "__header__" and array.size > 3)
        arrays[key] = arrays[key].copy()
        arrays[key].flat[2] = np.nextafter(arrays[key].flat[2], np.inf)  # one bit of one number
    _rewrite(saved, flip)
    with pytest.raises(CheckpointError, match="digest"):
        recipes.smooth_perceptron(A, 30, resume_from=saved)


def test_a_truncated_or_foreign_file_is_refused(saved, tmp_path):
    data = saved.read_bytes()
    saved.write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="not a readable"):
        recipes.smooth_perceptron(A, 30, resume_from=saved)
    foreign = tmp_path / "foreign.npz"
    np.savez(foreign, A=A)
    with pytest.raises(CheckpointError, match="header"):
        recipes.smooth_perceptron(A, 30, resume_from=foreign)
    with pytest.raises(CheckpointError, match="no checkpoint"):
        recipes.smooth_perceptron(A, 30, resume_from=tmp_path / "missing.npz")


def test_another_format_version_is_refused(saved):
    def bump(arrays):
        header = json.loads(arrays["__header__"].tobytes())
        header["version"] = CHECKPOINT_VERSION + 1
        arrays["__header__"] = np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)
    _rewrite(saved, bump)
    with pytest.raises(CheckpointError, match="version"):
        recipes.smooth_perceptron(A, 30, resume_from=saved)


def test_the_file_holds_plain_arrays_only(saved):
    """No pickle: every entry loads with allow_pickle=False and none is an object array."""
    with np.load(saved, allow_pickle=False) as archive:
        assert all(archive[key].dtype != object for key in archive.files)
    with zipfile.ZipFile(saved) as archive:
        assert all(name.endswith(".npy") for name in archive.namelist())


@pytest.mark.parametrize("options, error, match", [
    ({"checkpoint_every": 5}, ValueError, "checkpoint_every needs checkpoint"),
    ({"checkpoint": "x.npz", "checkpoint_every": 0}, ValueError, "checkpoint_every must be a positive integer"),
    ({"checkpoint": 3}, TypeError, "checkpoint must be a file path"),
    ({"resume_from": "x.npz", "record": True}, ValueError, "record=True cannot resume"),
])
def test_bad_checkpoint_arguments_name_the_fix(options, error, match, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(error, match=match):
        recipes.smooth_perceptron(A, 10, **options)


# ------------------------------------------------------------------------------------- Ctrl-C


@pytest.mark.slow
def test_ctrl_c_on_gamedyn_run_leaves_a_checkpoint_that_resumes(tmp_path):
    """SIGINT to a long `gamedyn run --checkpoint`: exit 130 and a checkpoint after a complete round,
    which resumes bit-identically to an uninterrupted run of the same data."""
    from gamedyn._data_files import synthetic_data

    path, big_T = tmp_path / "run.npz", 10**7
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    environment = dict(os.environ, PYTHONPATH=root, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    process = subprocess.Popen(
        [sys.executable, "-m", "gamedyn", "run", "smooth_perceptron", "--synthetic", "300,8,0.05", "--T", str(big_T),
         "--checkpoint", str(path), "--checkpoint-every", "200"],
        cwd=tmp_path, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not path.exists() and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.1)
    assert path.exists(), process.communicate()
    process.send_signal(signal.SIGINT)
    _, errors = process.communicate(timeout=120)
    assert process.returncode == 130, errors
    assert "checkpoint written" in errors
    saved = checkpoint_info(path)
    assert saved["finished"] is False and saved["round"] >= 200 and saved["T"] == big_T

    data = synthetic_data("300,8,0.05", seed=0).A
    stop_next = saved["round"] + 1
    resumed = recipes.smooth_perceptron(data, big_T, resume_from=path, stop=lambda state: state.t == stop_next)
    uninterrupted = recipes.smooth_perceptron(data, big_T, stop=lambda state: state.t == stop_next)
    assert np.array_equal(resumed.w, uninterrupted.w)
    assert resumed.game.rounds == uninterrupted.game.rounds == stop_next
