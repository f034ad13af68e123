"""Checkpoints: a resumed run is bit-identical to the uninterrupted one (np.array_equal, never
allclose), for every recipe at several checkpoint intervals and for adaptive SGD; damaged,
foreign and mismatched checkpoints are refused with a named error (a function counts by what it
computes, and a flip of any byte of the file is refused or harmless); an unwritable path is refused
before round 1; Ctrl-C and SIGTERM leave a checkpoint that resumes."""

import functools
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import zipfile

import attrs
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gamedyn.logistic as logistic
from gamedyn import (OMD, Bilinear, CheckpointError, CheckpointMismatchError, Entropy, FTRL, OFTRL,
                     RegularizedBilinear, SquaredEuclidean, checkpoint_info, play, recipes, signed_rows)
from gamedyn.engine.checkpoints import CHECKPOINT_VERSION, fingerprint
from gamedyn.io import make_separable
from gamedyn.logistic import adaptive_sgd, sgd_indices
from gamedyn.certify import margin_within
from gamedyn import checkpoint, record_plays, stop_when, track_metrics
from play_options import play_with

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
    "pnorm_perceptron": lambda T, **k: recipes.pnorm_perceptron(A, T, p=3, normalize=True, **k),
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
        play(payoff, w_learner, p_learner, T, observers=[stop_when(_crash_at(CRASH)), checkpoint(path, every=3)], **options)
    _assert_games_identical(uninterrupted, play(payoff, w_learner, p_learner, T, observers=[checkpoint(resume_from=path)], **options))


def _fenchel_play(**options):
    from gamedyn import FenchelGame, Objective, Simplex
    from gamedyn.core import FirstRoundLoss
    from gamedyn.core import BestResponse, FollowTheRegularizedLeader
    from gamedyn.core import Zero

    objective = Objective(_fenchel_value, _fenchel_gradient, smoothness=2.0)
    return play_with(FenchelGame(objective, Simplex(), dimension=3), FollowTheRegularizedLeader(Zero(), 1.0, FirstRoundLoss()),
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


def test_observers_that_keep_every_round_are_refused_on_resume(tmp_path):
    """The per-round metrics and the trace are not saved in a checkpoint, so a resumed run refuses them (it
    would lose the rounds before the checkpoint); a run that only writes checkpoints keeps them whole."""
    payoff, path = Bilinear(A), tmp_path / "run.npz"
    written = play(payoff, OFTRL(SquaredEuclidean(), 0.3), OMD(Entropy(), 0.7), T,
                   observers=[track_metrics(), checkpoint(path)])
    assert list(written.metrics["t"]) == list(range(1, T + 1))
    for kept, observer in ((r"the per-round metrics \(O\(T\) rows\)", track_metrics(2)),
                           ("the trace of every play", record_plays())):
        with pytest.raises(ValueError, match=f"keeps {kept}, which a checkpoint does not hold"):
            play(payoff, OFTRL(SquaredEuclidean(), 0.3), OMD(Entropy(), 0.7), T,
                 observers=[observer, checkpoint(resume_from=path)])


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

    from gamedyn.engine.checkpoints import read_header

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
    play(Bilinear(A), FTRL(SquaredEuclidean(), 1.0), FTRL(Entropy(), 0.5), 20, observers=[checkpoint(path)])
    with pytest.raises(CheckpointMismatchError, match="p_learner"):
        play(Bilinear(A), FTRL(SquaredEuclidean(), 1.0), FTRL(Entropy(), 0.5000000001), 20, observers=[checkpoint(resume_from=path)])
    with pytest.raises(CheckpointMismatchError, match="weights"):
        play(Bilinear(A), FTRL(SquaredEuclidean(), 1.0), FTRL(Entropy(), 0.5), 20, weights="linear", observers=[checkpoint(resume_from=path)])


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
    ({"resume_from": "x.npz", "record": True}, ValueError, "record=True and metrics= cannot resume"),
])
def test_bad_checkpoint_arguments_name_the_fix(options, error, match, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(error, match=match):
        recipes.smooth_perceptron(A, 10, **options)


# --------------------------------------------------------- functions count by what they compute


def _bilinear_play(T_=T, **options):
    return play_with(Bilinear(A), FTRL(SquaredEuclidean(), 1.0), FTRL(Entropy(), 0.5), T_, **options)


def _weights(kind):
    """Two weight functions under one qualified name (``_weights.<locals>.<lambda>``): what an edit of
    a script between a run and its resume gives."""
    return (lambda t: t) if kind == 0 else (lambda t: t * t)


def _scaled(c):
    return lambda t: c * t


def _defaulted(c):
    return lambda t, c=c: c * t


def _keyword_defaulted(c):
    def weight(t, *, c=c):
        return c * t
    return weight


def _nested(kind):
    if kind == 0:
        return lambda t: (lambda s: s + 1.0)(t)
    return lambda t: (lambda s: s + 2.0)(t)


_GROWTH = 1.0


def _grown(t):
    return t ** _GROWTH


def _helper(t):
    return t


def _via_helper(t):
    return _helper(t) + 1.0


def _other_helper():
    def _helper(t):  # the same name, another body
        return 2.0 * t
    _helper.__qualname__ = "_helper"
    return _helper


def _power(exponent, t):
    return t ** exponent


@attrs.frozen
class _Holder:
    scale: float

    def weight(self, t):
        return self.scale * t


@attrs.frozen
class _Linear:
    scale: float

    def __call__(self, t):
        return self.scale * t


def _set_global(monkeypatch, name, value):
    monkeypatch.setattr(sys.modules[__name__], name, value)


# each case: (monkeypatch, kind) -> a weight function; kind 0 and kind 1 differ in one place only
CHANGED_FUNCTIONS = {
    "body": lambda patch, kind: _weights(kind),
    "closure value": lambda patch, kind: _scaled([1.0, 1.5][kind]),
    "default": lambda patch, kind: _defaulted([1.0, 1.5][kind]),
    "keyword default": lambda patch, kind: _keyword_defaulted([1.0, 1.5][kind]),
    "nested function's constant": lambda patch, kind: _nested(kind),
    "global number it reads": lambda patch, kind: (_set_global(patch, "_GROWTH", [1.0, 1.5][kind]), _grown)[1],
    "body of a global function it calls": lambda patch, kind: (
        _set_global(patch, "_helper", [_helper, _other_helper()][kind]), _via_helper)[1],
    "partial's argument": lambda patch, kind: functools.partial(_power, [1.0, 2.0][kind]),
    "bound method's instance": lambda patch, kind: _Holder([1.0, 1.5][kind]).weight,
    "callable attrs object's field": lambda patch, kind: _Linear([1.0, 1.5][kind]),
}


@pytest.mark.parametrize("case", sorted(CHANGED_FUNCTIONS))
def test_a_weight_function_changed_under_the_same_name_is_refused(case, tmp_path, monkeypatch):
    """Regression (issue 16): functions were fingerprinted by module.qualname, so a run checkpointed
    with weights=lambda t: t resumed with lambda t: t * t and returned a mixture of both. The same
    function made afresh resumes bit-identically; one changed anywhere is refused, naming weights."""
    make, path = CHANGED_FUNCTIONS[case], tmp_path / "run.npz"
    with pytest.raises(Crash):
        _bilinear_play(weights=make(monkeypatch, 0), checkpoint=path, checkpoint_every=10, stop=_crash_at(CRASH))
    resumed = _bilinear_play(weights=make(monkeypatch, 0), resume_from=path)
    _assert_games_identical(_bilinear_play(weights=make(monkeypatch, 0)), resumed)
    changed = make(monkeypatch, 1)
    assert not np.array_equal(_bilinear_play(weights=changed).w_average, resumed.w_average)  # a real change
    with pytest.raises(CheckpointMismatchError, match="different weights"):
        _bilinear_play(weights=changed, resume_from=path)


@pytest.mark.parametrize("part", ["weights", "p_weights", "output_weights"])
def test_every_weight_schedule_counts_by_its_body(part, tmp_path):
    path = tmp_path / "run.npz"
    with pytest.raises(Crash):
        _bilinear_play(**{part: _weights(0)}, checkpoint=path, checkpoint_every=10, stop=_crash_at(CRASH))
    with pytest.raises(CheckpointMismatchError, match=f"different {part}"):
        _bilinear_play(**{part: _weights(1)}, resume_from=path)
    _assert_games_identical(_bilinear_play(**{part: _weights(0)}), _bilinear_play(**{part: _weights(0)}, resume_from=path))


def _step(c):
    return lambda t: c / math.sqrt(t)


def _concave_convex(c):
    """g(w, p) = p^T A w - c/2 ||w||^2 by its three functions (c lives in their closures)."""
    from gamedyn import ConcaveConvex, Simplex

    return ConcaveConvex(lambda w, p: p @ (A @ w) - 0.5 * c * (w @ w), lambda w, p: A.T @ p - c * w,
                         lambda w, p: A @ w, w_dimension=A.shape[1], p_dimension=A.shape[0], p_domain=Simplex())


GAMES_WITH_FUNCTIONS = {  # name -> ((monkeypatch, kind) -> run(**options), the part named on a change)
    "StepSchedule": (lambda patch, kind: lambda **k: play_with(Bilinear(A), FTRL(SquaredEuclidean(), 1.0),
                                                               OMD(Entropy(), _step([0.5, 0.7][kind])), T, **k),
                     "p_learner"),
    "ConcaveConvex": (lambda patch, kind: lambda **k: play_with(_concave_convex([1.0, 1.5][kind]),
                                                                OMD(SquaredEuclidean(), 0.3), OMD(Entropy(), 0.5), T, **k),
                      "payoff"),
    "Objective": (lambda patch, kind: (_set_global(patch, "_TARGET", [_TARGET, _TARGET[::-1].copy()][kind]),
                                       _fenchel_play)[1], "payoff"),  # the target its functions read
}


@pytest.mark.parametrize("name", sorted(GAMES_WITH_FUNCTIONS))
def test_step_schedules_payoff_and_objective_functions_count_by_their_values(name, tmp_path, monkeypatch):
    """Regression (issue 16): a step schedule's, a ConcaveConvex's and an Objective's functions were
    fingerprinted by name, so another closure value or global under the same name resumed silently."""
    game, part = GAMES_WITH_FUNCTIONS[name]
    path = tmp_path / "run.npz"
    with pytest.raises(Crash):
        game(monkeypatch, 0)(checkpoint=path, checkpoint_every=5, stop=_crash_at(CRASH))
    _assert_games_identical(game(monkeypatch, 0)(), game(monkeypatch, 0)(resume_from=path))
    with pytest.raises(CheckpointMismatchError, match=f"different {part}"):
        game(monkeypatch, 1)(resume_from=path)


class _CallCounter:
    """An object with __call__ and state of its own (the count), which no fingerprint sees."""

    def __init__(self):
        self.calls = 0

    def __call__(self, t):
        self.calls += 1
        return float(self.calls)


def _counting():
    calls = 0

    def weight(t):
        nonlocal calls
        calls += 1
        return float(calls)
    return weight


_GENERATOR = np.random.default_rng(0)


def _random_weight(t):
    return 1.0 + _GENERATOR.random()


UNFINGERPRINTABLE = {
    "object with __call__": (lambda: {"weights": _CallCounter()}, "weights", "sequence of T numbers"),
    "nonlocal counter": (lambda: {"weights": _counting()}, "weights", "sequence of T numbers"),
    "global generator": (lambda: {"p_weights": _random_weight}, "p_weights", "sequence of T numbers"),
    "generator method": (lambda: {"output_weights": np.random.default_rng(1).random}, "output_weights",
                         "sequence of T numbers"),
    "step schedule object": (lambda: {"p_learner": OMD(Entropy(), _CallCounter())}, "p_learner",
                             "sequence of T steps"),
}


@pytest.mark.parametrize("option", ["checkpoint", "resume_from"])
@pytest.mark.parametrize("case", sorted(UNFINGERPRINTABLE))
def test_a_callable_that_cannot_be_fingerprinted_is_refused_before_round_1(case, option, tmp_path):
    """Regression (issue 16): such a callable was known by its repr or name and resumed (or was
    written) without a check; now both options refuse it before any round, with the fix."""
    options, part, fix = UNFINGERPRINTABLE[case]
    options = dict(options())
    p_learner = options.pop("p_learner", FTRL(Entropy(), 0.5))
    rounds = []
    with pytest.raises(CheckpointError, match=fix) as error:
        play_with(Bilinear(A), FTRL(SquaredEuclidean(), 1.0), p_learner, T, callback=lambda state: rounds.append(state.t),
                  **{option: tmp_path / "run.npz"}, **options)
    assert rounds == [] and f"{part} cannot be fingerprinted" in str(error.value)
    assert not (tmp_path / "run.npz").exists()


@settings(max_examples=60)
@given(st.floats(allow_nan=False), st.floats(allow_nan=False))
def test_a_closure_value_counts_to_the_bit(a, b):
    """The fingerprints of lambda t: c * t for two values of c agree exactly when c has the same bits
    (0.0 and -0.0 differ)."""
    same_bits = np.float64(a).tobytes() == np.float64(b).tobytes()
    assert (fingerprint({"f": _scaled(a)}) == fingerprint({"f": _scaled(b)})) == same_bits


def test_library_functions_are_known_by_name_and_made_afresh_are_equal():
    """Builtins, ufuncs and numpy's functions are fingerprinted by name (no error); a function
    defined twice with the same code and values has one fingerprint."""
    import scipy.special

    for function in (math.sqrt, np.sqrt, np.sum, scipy.special.expit, float, len):
        fingerprint({"f": function})
    assert fingerprint({"f": np.sqrt}) != fingerprint({"f": np.cbrt})
    assert fingerprint({"f": _scaled(2.0)}) == fingerprint({"f": _scaled(2.0)})
    assert fingerprint({"f": lambda t: np.sqrt(t)}) != fingerprint({"f": lambda t: np.cbrt(t)})


def test_a_version_1_checkpoint_is_refused_with_the_reason(saved):
    def version_1(arrays):
        header = json.loads(arrays["__header__"].tobytes())
        header["version"] = 1
        arrays["__header__"] = np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)
    _rewrite(saved, version_1)
    with pytest.raises(CheckpointError, match="version 1 checkpoint, written by an older gamedyn") as error:
        recipes.smooth_perceptron(A, 30, resume_from=saved)
    assert "by its name" in str(error.value)


def test_a_mismatch_under_another_python_says_so(tmp_path):
    path = tmp_path / "run.npz"
    _bilinear_play(weights=_weights(0), checkpoint=path)

    def other_python(arrays):
        header = json.loads(arrays["__header__"].tobytes())
        header["python"] = "2.7"
        arrays["__header__"] = np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)
    _rewrite(path, other_python)
    with pytest.raises(CheckpointMismatchError, match="written under Python 2.7"):
        _bilinear_play(weights=_weights(1), resume_from=path)


# ------------------------------------------------------------------ the path, before round 1


def _bad_path(tmp_path, where):
    if where == "missing folder":
        return tmp_path / "missing" / "run.npz", "does not exist"
    if where == "a file as its folder":
        (tmp_path / "a_file").write_text("x")
        return tmp_path / "a_file" / "run.npz", "is a file, not a folder"
    if where == "a folder":
        return tmp_path, "is a folder"
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o500)
    return folder / "run.npz", "cannot write a file in the folder"


BAD_PATHS = ["missing folder", "a file as its folder", "a folder", "read-only folder"]


def _skip_if_root(where):
    if where == "read-only folder" and hasattr(os, "geteuid") and os.geteuid() == 0:
        pytest.skip("root writes in a read-only folder")


@pytest.mark.parametrize("where", BAD_PATHS)
def test_an_unwritable_checkpoint_path_is_refused_before_round_1(where, tmp_path):
    """Regression (issue 16): the path was found bad only at the first write (by default after the
    last round), the run lost, with a raw OSError naming an internal temporary file."""
    _skip_if_root(where)
    path, reason = _bad_path(tmp_path, where)
    rounds = []
    runs = [lambda: _bilinear_play(checkpoint=path, callback=lambda state: rounds.append(state.t)),
            lambda: recipes.smooth_perceptron(A, T, checkpoint=path, stop=lambda state: rounds.append(state.t)),
            lambda: adaptive_sgd(SGD_DATA, 20000, 1e-6, seed=1, checkpoint=path)]
    for run in runs:
        with pytest.raises(CheckpointError, match=reason) as error:
            run()
        assert repr(str(path)) in str(error.value) and ".checkpoint-" not in str(error.value)
    assert rounds == []


def test_a_write_that_fails_mid_run_names_the_checkpoint(tmp_path):
    """Regression: a write failing during the run (the folder removed, a full disk) raised a raw
    FileNotFoundError naming the temporary file; now a CheckpointError names the checkpoint."""
    folder = tmp_path / "runs"
    folder.mkdir()
    path = folder / "run.npz"

    def remove_folder(state):
        if state.t == 15:
            shutil.rmtree(folder)

    with pytest.raises(CheckpointError, match="could not write the checkpoint") as error:
        _bilinear_play(checkpoint=path, checkpoint_every=10, callback=remove_folder)
    message = str(error.value)
    assert repr(str(path)) in message and "after round 20" in message and ".checkpoint-" not in message


@pytest.mark.parametrize("where", BAD_PATHS)
@pytest.mark.parametrize("option", ["--checkpoint", "--resume"])
def test_gamedyn_run_refuses_an_unwritable_checkpoint_before_reading_the_data(where, option, tmp_path, capsys):
    """Regression: `gamedyn run --checkpoint F` ran all its rounds before finding F's folder unwritable."""
    from gamedyn import cli

    _skip_if_root(where)
    path, reason = _bad_path(tmp_path, where)
    code = cli.main(["run", "smooth_perceptron", "--synthetic", "40,4,0.1", "--T", "30", option, str(path)])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == "", captured
    assert len(captured.err.strip().splitlines()) == 1 and reason in captured.err and option in captured.err
    assert str(path) in captured.err


# ----------------------------------------------------------------------------- damaged files


def _small_checkpoint(tmp_path):
    """A checkpoint of a 3 x 2 game after round 5 of 8, and the result of resuming it."""
    path, game = tmp_path / "small.npz", np.array([[0.6, 0.2], [0.3, -0.5], [0.5, 0.1]])

    def run(**options):
        return recipes.smooth_perceptron(game, 8, **options)

    with pytest.raises(Crash):
        run(checkpoint=path, checkpoint_every=5, stop=_crash_at(6))
    return path, run, run(resume_from=path)


def _damages(path):
    """(position, mask) pairs: each byte of the zip structure a reader parses first (the first entry's
    local header, the header entry's local header, the central directory's last record and its end)
    inverted and with one bit flipped; >= 300 more positions spread over the file, one of the two."""
    size = os.path.getsize(path)
    with zipfile.ZipFile(path) as archive:
        header_entry = archive.getinfo("__header__.npy").header_offset
    structure = set(range(64)) | set(range(header_entry, header_entry + 80)) | set(range(size - 150, size))
    spread = set(range(0, size, max(1, size // 300))) - structure
    return ([(position, mask) for position in sorted(structure) for mask in (0xFF, 1 << (position % 8))]
            + [(position, 0xFF if position % 2 else 1 << (position % 8)) for position in sorted(spread)])


def test_every_flipped_byte_is_refused_or_harmless(tmp_path):
    """Regression (issue 16): some flipped bytes raised a raw NotImplementedError from zipfile, and two
    CheckpointError messages quoted numpy's allow_pickle advice. Each damaged copy (the byte inverted,
    or one bit of it flipped) either raises a CheckpointError naming the file, or resumes to the very
    same result (a byte nobody reads, e.g. a timestamp)."""
    path, run, expected = _small_checkpoint(tmp_path)
    original = path.read_bytes()
    damaged = tmp_path / "damaged.npz"
    damages = _damages(path)
    assert len({position for position, _ in damages}) >= 300
    refused = harmless = 0
    for position, mask in damages:
        data = bytearray(original)
        data[position] ^= mask
        damaged.write_bytes(bytes(data))
        try:
            result = run(resume_from=damaged)
        except CheckpointError as error:
            message = str(error)
            assert repr(str(damaged)) in message and "allow_pickle" not in message, (position, mask, message)
            refused += 1
            continue
        assert np.array_equal(result.w, expected.w) and result.game.rounds == expected.game.rounds, (position, mask)
        _assert_games_identical(result.game, expected.game)
        harmless += 1
    assert refused > harmless > 0


@pytest.mark.parametrize("content", ["pickle", "npy", "text", "empty"])
def test_a_file_of_another_kind_gets_a_gamedyn_message(content, tmp_path):
    """Regression: a non-zip file was read by numpy as a pickle (its message quoted allow_pickle) and a
    .npy file reached `with` on an array (a raw AttributeError)."""
    path = tmp_path / "run.npz"
    if content == "pickle":
        import pickle

        path.write_bytes(pickle.dumps({"w": [1.0, 2.0]}))
    elif content == "npy":
        np.save(path.with_suffix(".npy"), A)
        os.replace(path.with_suffix(".npy"), path)
    else:
        path.write_text("" if content == "empty" else "round,w\n1,0.5\n")
    with pytest.raises(CheckpointError, match="not a readable gamedyn checkpoint") as error:
        recipes.smooth_perceptron(A, 30, resume_from=path)
    assert repr(str(path)) in str(error.value) and "allow_pickle" not in str(error.value)
    assert "start the run afresh" in str(error.value)


# ---------------------------------------------------------------------------- Ctrl-C, SIGTERM


@pytest.mark.slow
@pytest.mark.parametrize("signum, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_to_gamedyn_run_leaves_a_checkpoint_that_resumes(signum, status, tmp_path):
    """SIGINT (Ctrl-C) or SIGTERM (kill, timeout, a batch scheduler) to a long `gamedyn run --checkpoint`:
    exit 130 or 143 and a checkpoint after a complete round, which resumes bit-identically to an
    uninterrupted run of the same data. Regression (issue 16): SIGTERM ended the run silently, no
    checkpoint written."""
    from gamedyn.io.data_files import synthetic_data

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
    process.send_signal(signum)
    _, errors = process.communicate(timeout=120)
    assert process.returncode == status, errors
    name = signal.Signals(signum).name
    assert f"interrupted by {name}" in errors and "checkpoint written" in errors and f"--resume {path}" in errors
    saved = checkpoint_info(path)
    assert saved["finished"] is False and saved["round"] >= 200 and saved["T"] == big_T
    assert f"after round {saved['round']};" in errors

    data = synthetic_data("300,8,0.05", seed=0).A
    stop_next = saved["round"] + 1
    resumed = recipes.smooth_perceptron(data, big_T, resume_from=path, stop=lambda state: state.t == stop_next)
    uninterrupted = recipes.smooth_perceptron(data, big_T, stop=lambda state: state.t == stop_next)
    assert np.array_equal(resumed.w, uninterrupted.w)
    assert resumed.game.rounds == uninterrupted.game.rounds == stop_next


def _run_script(script, *arguments):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    environment = dict(os.environ, PYTHONPATH=root, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    completed = subprocess.run([sys.executable, "-c", script, *map(str, arguments)], capture_output=True, text=True,
                               timeout=300, check=False, cwd=root, env=environment)
    assert completed.returncode == 0, (completed.returncode, completed.stderr)
    return json.loads(completed.stdout.strip().splitlines()[-1])


_SIGTERM_IN_PLAY = """
import json, os, signal, sys
import numpy as np
from gamedyn import recipes
from gamedyn.engine.checkpoints import RunInterrupted
from gamedyn.io import make_separable, signed_rows

A = signed_rows(*make_separable(50, 5, 0.1, seed=1))
A = A / np.max(np.linalg.norm(A, axis=1))
seen = {}

def terminate_in_round_50(state):
    if state.t == 50:
        os.kill(os.getpid(), signal.SIGTERM)  # what `kill` or a batch scheduler sends
        seen["restored at once"] = signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    return False

try:
    recipes.smooth_perceptron(A, 1000, checkpoint=sys.argv[1], checkpoint_every=30, stop=terminate_in_round_50)
except KeyboardInterrupt as stop:  # RunInterrupted is one, so code that handles Ctrl-C handles SIGTERM
    seen.update(kind=type(stop).__name__, signum=stop.signum, round=stop.round, message=str(stop))
seen["handlers back"] = (signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
                         and signal.getsignal(signal.SIGINT) is signal.default_int_handler)
print(json.dumps(seen))
"""


def test_sigterm_during_a_checkpointed_play_writes_the_round_and_raises(tmp_path):
    """Regression (issue 16): SIGTERM killed a run with checkpoint= at once (only Ctrl-C was handled).
    Now round 50 finishes, its checkpoint is written, RunInterrupted says where, the handlers are
    restored (at once, so a second SIGTERM kills, and after the run), and the checkpoint resumes."""
    path = tmp_path / "run.npz"
    seen = _run_script(_SIGTERM_IN_PLAY, path)
    assert seen["kind"] == "RunInterrupted" and seen["signum"] == signal.SIGTERM and seen["round"] == 50
    assert seen["restored at once"] and seen["handlers back"]
    assert "SIGTERM after round 50" in seen["message"] and f"resume_from={str(path)!r}" in seen["message"]
    assert checkpoint_info(path)["round"] == 50 and checkpoint_info(path)["finished"] is False
    assert np.array_equal(recipes.smooth_perceptron(A, 1000, resume_from=path).w, recipes.smooth_perceptron(A, 1000).w)


_SIGTERM_IN_SGD = """
import json, os, signal, sys
import numpy as np
import gamedyn.logistic as logistic
from gamedyn.io import make_separable, signed_rows

segment = logistic._sgd_segment

def terminate_after_step_20000(*arguments):
    segment(*arguments)
    if arguments[7].t > 20000 and not sent:
        sent.append(True)
        os.kill(os.getpid(), signal.SIGTERM)

sent = []
logistic._sgd_segment = terminate_after_step_20000
A = signed_rows(*make_separable(80, 5, 0.1, seed=2))
seen = {}
try:
    logistic.adaptive_sgd(A, 60000, 1e-6, seed=5, record=[0, 30000, 60000], checkpoint=sys.argv[1])
except KeyboardInterrupt as stop:
    seen.update(signum=stop.signum, round=stop.round)
print(json.dumps(seen))
"""


def test_sigterm_during_a_checkpointed_adaptive_sgd_writes_and_resumes(tmp_path):
    """adaptive_sgd answers SIGTERM within 8192 steps (at the next segment end: no per-step cost),
    writes its checkpoint there and resumes bit-identically."""
    path = tmp_path / "sgd.npz"
    seen = _run_script(_SIGTERM_IN_SGD, path)
    assert seen == {"signum": signal.SIGTERM, "round": 3 * 8192}
    assert checkpoint_info(path)["round"] == 3 * 8192
    SGD = signed_rows(*make_separable(80, 5, 0.1, seed=2))
    options = {"seed": 5, "record": [0, 30000, 60000]}
    resumed = adaptive_sgd(SGD, 60000, 1e-6, resume_from=path, **options)
    uninterrupted = adaptive_sgd(SGD, 60000, 1e-6, **options)
    for name in ("w", "log_loss"):
        assert np.array_equal(getattr(uninterrupted, name), getattr(resumed, name)), name
    assert (uninterrupted.hitting_time, uninterrupted.loss_evaluations) == (resumed.hitting_time, resumed.loss_evaluations)


def test_the_signal_handlers_are_restored_and_threads_are_left_alone(tmp_path):
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    during = []
    _bilinear_play(checkpoint=tmp_path / "run.npz",
                   callback=lambda state: during.append((signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM))))
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before
    assert all(handler not in before for handler in during[0])  # both caught while the run went on
    outcome = []
    worker = threading.Thread(target=lambda: outcome.append(_bilinear_play(checkpoint=tmp_path / "thread.npz").rounds))
    worker.start()
    worker.join()
    assert outcome == [T] and checkpoint_info(tmp_path / "thread.npz")["finished"] is True


def test_a_string_constant_is_not_a_float_constant():
    """Two functions that differ only in a constant's type (the float 1.5, the string of its hex)."""
    assert fingerprint({"f": lambda t: 1.5}) != fingerprint({"f": lambda t: "0x1.8000000000000p+0"})


def test_a_package_in_a_site_folder_added_to_sys_path_is_installed_code(tmp_path):
    """A venv layered on another (a ``.pth`` file or ``PYTHONPATH`` naming the other's site-packages) keeps
    numpy, scipy ... there. Their callables (numpy's functions are dispatcher objects with ``__call__``) are
    installed code, fingerprinted by name, not refused as user objects that may keep state: found when the
    mutation gate ran in such a venv and ``checkpoint=`` refused a run whose objective held ``np.sum``."""
    site = tmp_path / "other-venv" / "lib" / "site-packages"
    site.mkdir(parents=True)
    (site / "layered_library.py").write_text(
        "class Dispatcher:  # as numpy's functions: an object with __call__, named like a function\n"
        "    def __call__(self, t):\n        return float(t)\n\n\n"
        "linear = Dispatcher()\nlinear.__qualname__ = 'linear'\n")
    user = tmp_path / "user-code"
    user.mkdir()
    (user / "own_library.py").write_text((site / "layered_library.py").read_text())
    script = (
        "import sys, numpy as np, layered_library, own_library\n"
        "from gamedyn import Bilinear, Entropy, FTRL, SquaredEuclidean, checkpoint, play\n"
        "from gamedyn.engine.checkpoints import CheckpointError\n"
        "A = np.array([[1.0, -0.5], [0.25, 1.0]])\n"
        "def run(weights, path):\n"
        "    return play(Bilinear(A), FTRL(SquaredEuclidean(), 1.0), FTRL(Entropy(), 0.5), 5, weights=weights,\n"
        "                observers=[checkpoint(path)])\n"
        "run(layered_library.linear, sys.argv[1] + '/a.npz')\n"
        "try:\n"
        "    run(own_library.linear, sys.argv[1] + '/b.npz')\n"
        "except CheckpointError as error:\n"
        "    print('refused:', 'cannot be fingerprinted' in str(error))\n")
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(user), os.getcwd()])}
    finished = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True,
                              env=environment, timeout=120)
    assert finished.returncode == 0, finished.stderr
    assert finished.stdout.strip() == "refused: True"  # the same object in the user's folder: still refused
