"""Every recipe of every family checkpoints and resumes bit-identically, with every option it declares (issue 30).

The cases are read from the declarations (:data:`gamedyn.recipes.RECIPES`): every recipe, and every
combination of its declared parameters' values -- a bool both ways, every declared choice, and for a
value parameter (``nu``, a step, a start, a domain ...) its default and the example values of
:data:`EXAMPLES` (keyed by the parameter's *name*, so a new recipe reusing a name is covered at
once; a new name without examples fails :func:`test_every_declared_parameter_has_examples`). A
recipe added later, of a family listed in :data:`PROBLEMS`, is in the test without any edit here.

Each case runs four times on a tiny problem: uninterrupted; with ``checkpoint_every`` and a crash
mid-run; resumed from that checkpoint; and once more to its end with only the final checkpoint
(the default ``checkpoint_every=None``), which a resume returns at once. Every output of the
resumed runs (the recipe's own fields and every field of the game, certificates included) must equal
the uninterrupted run's to the bit. A state type the checkpoint cannot write (issue 30: Entropy's
``CappedCentre`` on the capped simplex of ``nu=``) fails before round 1, so it fails here too.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import time
import math
from typing import Any

import attrs
import numpy as np
import pytest
import scipy.sparse

from gamedyn.core.domains import Ball, Box, L1Ball, Reals, Simplex
from gamedyn.core.loss import Loss
from gamedyn.engine.checkpoints import checkpoint_info
from gamedyn.games.fenchel.objectives import least_squares
from gamedyn.recipes import RECIPES

T, EVERY, CRASH = 12, 3, 8  # a checkpoint at rounds 3 and 6; the crash in round 8


def _margin_rows():
    """8 rows in R^3 of norm <= 0.8 (so normalize=True changes them), separable (the first coordinate > 0)."""
    rng = np.random.default_rng(5)
    A = np.column_stack([rng.uniform(0.1, 0.5, 8), rng.uniform(-0.4, 0.4, (8, 2))])
    return A * (0.8 / np.max(np.linalg.norm(A, axis=1)))


def _payoffs():
    return np.random.default_rng(6).uniform(-1.0, 1.0, (3, 4))


def _objective():
    rng = np.random.default_rng(7)
    return least_squares(rng.standard_normal((6, 3)), rng.standard_normal(6))


def _kuhn():
    from gamedyn.games.efg import kuhn_poker

    return kuhn_poker()


PROBLEMS = {"margin": _margin_rows, "matrix": _payoffs, "fenchel": _objective, "efg": _kuhn}
"""family name -> a tiny problem of that family (a family added later needs one here)."""

EXAMPLES = {
    "nu": lambda problem: [0.5],  # c = 1 / (0.5 * 8) = 1/4: the capped simplex binds
    "eta_w": lambda problem: [0.3],
    "eta_p": lambda problem: [0.2],
    "p": lambda problem: [3.0],
    "row_start": lambda problem: [np.array([0.2, 0.3, 0.5])],
    "column_start": lambda problem: [np.array([0.1, 0.2, 0.3, 0.4])],
    "domain": lambda problem: [Simplex(), Ball(1.0), L1Ball(1.0), Box(np.zeros(3), np.ones(3)), Reals()],
    "x0": lambda problem: [np.array([0.2, 0.3, 0.5])],  # in every domain above
    "dimension": lambda problem: [3],
    "alpha": lambda problem: [1.0],  # DCFR's positive-regret discount; MMD's magnet weight
    "beta": lambda problem: [0.5],
    "gamma": lambda problem: [1.0],
    "eta": lambda problem: [0.5],
    "stage": lambda problem: [5],  # MMD's halving: alpha halves after 5, 10, ... rounds (within T = 12)
    "entropy_weights": lambda problem: ["kroer"],
    "mix": lambda problem: [0.1],  # MMD's moving magnet: its first uniform share
    "mix_decay": lambda problem: [0.5],
    "growth": lambda problem: [1.0],  # optimistic MMD: stages of equal length
}
"""parameter name -> values beyond its default (a function of the problem)."""


def _values(parameter, problem) -> list:
    if parameter.kind is bool:
        return [False, True]
    if parameter.choices:
        return list(parameter.choices)
    given = EXAMPLES[parameter.name](problem) if parameter.name in EXAMPLES else []
    return given if parameter.required else [parameter.default, *given]


def _cases():
    cases = []
    for name, declaration in RECIPES.items():
        family = declaration.family.name
        if family not in PROBLEMS:
            continue  # test_every_family_has_a_problem names it
        problem = PROBLEMS[family]()
        grids = [_values(parameter, problem) for parameter in declaration.parameters]
        for chosen in itertools.product(*grids):
            options = {parameter.name: value for parameter, value in zip(declaration.parameters, chosen)
                       if not (value is None and not parameter.required)}
            label = ",".join(f"{key}={_label(value)}" for key, value in options.items()
                             if value is not declaration.parameter(key).default)
            cases.append(pytest.param(name, options, id=f"{name}[{label or 'defaults'}]"))
    return cases


def _label(value) -> str:
    if isinstance(value, np.ndarray):
        return "vector"
    return type(value).__name__ if attrs.has(type(value)) else repr(value)


CASES = _cases()


class Crash(Exception):
    """A kill in the middle of round CRASH."""


class _CrashAt:
    """An observer that kills the run in round ``t`` and watches nothing else (it reads no round state,
    so the run keeps exactly what an unwatched run keeps: the checkpoint must hold all of that)."""

    needs_round_state = False

    def __init__(self, t):
        self.t = t

    def observe(self, t):
        if t == self.t:
            raise Crash
        return False


COMPILED_ROUND_POSSIBLE = importlib.util.find_spec("numba") is not None


def _same(first, second, where="result", rtol=0.0):
    """Every field, recursively, to the bit (arrays: dtype, shape, values with NaN equal to NaN); with ``rtol`` > 0,
    floating-point values to that relative tolerance (of the largest entry)."""
    if scipy.sparse.issparse(first) or scipy.sparse.issparse(second):  # an extensive-form game's payoff (CSR)
        assert type(first) is type(second) and first.shape == second.shape, where
        _same(first.toarray(), second.toarray(), where, rtol)
        return
    if isinstance(first, np.ndarray) or isinstance(second, np.ndarray):
        first, second = np.asarray(first), np.asarray(second)
        assert first.dtype == second.dtype and first.shape == second.shape, where
        if rtol and first.dtype.kind == "f" and first.size:
            scale = float(np.nanmax(np.abs(first))) if np.any(np.isfinite(first)) else 0.0
            assert np.allclose(first, second, rtol=0.0, atol=rtol * scale, equal_nan=True), where
            return
        assert np.array_equal(first, second, equal_nan=first.dtype.kind in "fc"), where
        return
    if attrs.has(type(first)):
        assert type(first) is type(second), where
        for field in attrs.fields(type(first)):
            _same(getattr(first, field.name), getattr(second, field.name), f"{where}.{field.name}", rtol)
        return
    if isinstance(first, Loss):
        _same(first.linear, second.linear, f"{where}.linear", rtol)
        _same(first.curvature, second.curvature, f"{where}.curvature", rtol)
        return
    if isinstance(first, (tuple, list)):
        assert type(first) is type(second) and len(first) == len(second), where
        for i, (a, b) in enumerate(zip(first, second)):
            _same(a, b, f"{where}[{i}]", rtol)
        return
    if isinstance(first, dict):
        assert first.keys() == second.keys(), where
        for key in first:
            _same(first[key], second[key], f"{where}[{key!r}]", rtol)
        return
    if isinstance(first, float) and isinstance(second, float) and math.isnan(first):
        assert math.isnan(second), where
        return
    if rtol and isinstance(first, float) and isinstance(second, float) and first != second:
        assert abs(first - second) <= rtol * max(abs(first), abs(second)), (where, first, second)
        return
    assert type(first) is type(second) and first == second, (where, first, second)


def _runnable(name, options) -> bool:
    """Whether the recipe takes this combination (a refusal before round 1 names one of its options)."""
    try:
        RECIPES[name].function(PROBLEMS[RECIPES[name].family.name](), 1, **options)
    except (ValueError, TypeError) as error:
        if any(key in str(error) for key in options):
            return False
        raise
    return True


@pytest.mark.parametrize("name, options", CASES)
def test_every_recipe_and_option_resumes_bit_identically(name, options, tmp_path):
    if not _runnable(name, options):
        pytest.skip(f"{name} refuses {options} before round 1 (a combination it does not take)")
    declaration = RECIPES[name]
    problem = PROBLEMS[declaration.family.name]()

    def run(**run_options):
        return declaration.function(problem, T, **options, **run_options)

    plain = run()
    mid, end = tmp_path / "mid.npz", tmp_path / "end.npz"
    try:
        with pytest.raises(Crash):
            run(checkpoint=mid, checkpoint_every=EVERY, observers=[_CrashAt(CRASH)])
    except ValueError as error:  # a run of several plays (mmd's halving stages) refuses a checkpoint, naming the fix
        assert "a checkpoint cannot span them" in str(error) and name in ("mmd", "optimistic_mmd"), error
        pytest.skip(f"{name} with {options} refuses checkpoints (its stages are separate runs): {error}")
    assert checkpoint_info(mid)["round"] == (CRASH - 1) // EVERY * EVERY
    finished = run(checkpoint=end)  # checkpoint_every=None: the one write is the final one
    assert checkpoint_info(end)["round"] == T and checkpoint_info(end)["finished"] is True
    _same(finished, run(resume_from=mid))
    _same(finished, run(resume_from=end))  # a finished run: returned at once, the same bits
    # An unwatched run may take the compiled round (issue 35, the numba extra: regret matching on a small dense
    # game in compiled chunks), equal to the Python round to rounding (tests/test_compiled.py: 1e-12); without
    # it, the same bits.
    _same(plain, finished, rtol=1e-12 if COMPILED_ROUND_POSSIBLE else 0.0)


def test_every_family_has_a_problem():
    missing = sorted({declaration.family.name for declaration in RECIPES.values()} - set(PROBLEMS))
    assert not missing, f"add a tiny problem of the families {missing} to PROBLEMS in this file"


def test_every_declared_parameter_has_examples():
    """A value parameter (not a bool, without choices) needs example values, or its option is never exercised."""
    missing = sorted({(name, parameter.name) for name, declaration in RECIPES.items()
                      for parameter in declaration.parameters
                      if parameter.kind is not bool and not parameter.choices and parameter.name not in EXAMPLES})
    assert not missing, f"add example values for these (recipe, parameter) to EXAMPLES in this file: {missing}"


def test_every_recipe_takes_some_case_and_every_declared_variant_is_a_case():
    """No recipe is skipped whole, and each declared variant's options are among the cases."""
    taken = {name for name in RECIPES if any(case.values[0] == name and _runnable(*case.values) for case in CASES)}
    assert taken == set(RECIPES) - {name for name, d in RECIPES.items() if d.family.name not in PROBLEMS}
    for name, declaration in RECIPES.items():
        for _, variant in declaration.variants:
            assert any(case.values[0] == name and all(case.values[1].get(k) == v for k, v in variant.items())
                       for case in CASES), (name, variant)


# ------------------------------------------------------------------- a state the writer cannot save


class _Opaque:
    """An object of a class of the user's own: no checkpoint can save it (not an array, number, tuple,
    list, Loss or attrs object)."""


@attrs.frozen
class _Remembering:
    """FTRL with a memo in its state: ``(FTRL's state, memo)``, the memo an opaque object from round
    ``from_round`` on (None before)."""

    inner: Any
    from_round: int = 0
    needs_current_loss = False

    @property
    def domain(self):
        return self.inner.domain

    def init(self, dimension, initial_loss=None):
        return self.inner.init(dimension, initial_loss), (_Opaque() if self.from_round == 0 else None), 0

    def play(self, state, weight, current_loss=None):
        return self.inner.play(state[0], weight, current_loss)

    def update(self, state, point, loss, weight):
        t = state[2] + 1
        return (self.inner.update(state[0], point, loss, weight), _Opaque() if t >= self.from_round else None, t)


def _observers(observers=(), checkpoint=None, checkpoint_every=None, resume_from=None) -> dict:
    """play's observers for a recipe's run options (checkpoint=, checkpoint_every=, resume_from=)."""
    from gamedyn import checkpoint as saving

    chosen = list(observers)
    if checkpoint is not None or resume_from is not None:
        chosen.append(saving(checkpoint, every=checkpoint_every, resume_from=resume_from))
    return {"observers": chosen}


def _remembering_play(from_round, rounds, **options):
    from gamedyn import FTRL, Bilinear, Entropy, SquaredEuclidean, each_round, play

    watched = []
    options = _observers(**options)
    options["observers"].append(each_round(lambda state: watched.append(state.t)))
    result = play(Bilinear(_margin_rows()), FTRL(SquaredEuclidean(), 1.0), _Remembering(FTRL(Entropy(), 0.5), from_round),
                  T, **options)
    rounds.extend(watched)
    return result


def test_a_state_the_writer_cannot_save_is_refused_before_round_1(tmp_path):
    """The writer never skips a part of a state: an unknown type is a CheckpointError naming the part and its
    type, raised before round 1 (issue 30: the soft-margin runs failed only at their final write)."""
    from gamedyn import CheckpointError

    rounds: list = []
    with pytest.raises(CheckpointError, match=r"p\.state\[1\] of type _Opaque") as error:
        _remembering_play(0, rounds, checkpoint=tmp_path / "run.npz")
    assert rounds == [] and not (tmp_path / "run.npz").exists()
    assert "attrs" in str(error.value)  # the fix: a state of arrays, numbers, tuples, ... or an attrs class


def test_a_final_write_that_fails_returns_the_result_with_a_warning(tmp_path):
    """A state that becomes unsaveable after round 1 (seen by no check before it) fails the final write: the
    complete run's result is returned, equal to the run without a checkpoint, and a CheckpointWarning
    names the file and the part (never a result thrown away for a file)."""
    from gamedyn import CheckpointWarning

    path = tmp_path / "run.npz"
    rounds: list = []
    plain = _remembering_play(5, [])
    with pytest.warns(CheckpointWarning, match=r"its result is returned.*p\.state\[1\] of type _Opaque") as caught:
        result = _remembering_play(5, rounds, checkpoint=path)
    assert rounds == list(range(1, T + 1)) and str(path) in str(caught[0].message)
    assert "does not exist" in str(caught[0].message) and not path.exists()
    _same(plain, result)


def test_a_mid_run_write_that_fails_still_raises(tmp_path):
    """Between checkpoints the error stops the run (the last checkpoint is intact, a resume continues from it)."""
    from gamedyn import CheckpointError

    with pytest.raises(CheckpointError, match=r"p\.state\[1\] of type _Opaque"):
        _remembering_play(5, [], checkpoint=tmp_path / "run.npz", checkpoint_every=3)
    assert checkpoint_info(tmp_path / "run.npz")["round"] == 3


def _shipped_p_learners():
    """The shipped learners on the p-player's domains beyond the recipes' seatings: each rule with each
    regularizer on the simplex and on the capped simplex (whose Entropy carries a CappedCentre)."""
    from gamedyn import (FTL, FTRL, OFTRL, OMD, AdaHedge, AdaptiveFTRL, BestResponse, CappedSimplex, Entropy,
                         FTRLPlus, MirrorDescent, RegretMatching, Simplex, SquaredEuclidean)

    learners = {"AdaHedge": AdaHedge(), "AdaptiveFTRL": AdaptiveFTRL(Entropy()), "RM": RegretMatching(),
                "PRM+": RegretMatching(plus=True, predictive=True)}
    for label, domain in (("simplex", Simplex()), ("capped", CappedSimplex.from_nu(0.5, 8))):
        for regularizer in (Entropy(domain=domain), SquaredEuclidean(domain=domain)):
            name = f"{type(regularizer).__name__} {label}"
            learners.update({f"FTRL {name}": FTRL(regularizer, 0.5), f"FTRL+ {name}": FTRLPlus(regularizer, 0.5),
                             f"FTRL adaptive {name}": FTRL(regularizer, "adaptive"),
                             f"OFTRL {name}": OFTRL(regularizer, 0.5), f"MD {name}": MirrorDescent(regularizer, 0.5),
                             f"OMD {name}": OMD(regularizer, 0.5)})
        learners.update({f"FTL {label}": FTL(domain), f"BR {label}": BestResponse(domain)})
    return learners


SHIPPED = _shipped_p_learners()


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_every_shipped_p_learner_resumes_bit_identically(name, tmp_path):
    from gamedyn import FTRL, Bilinear, SquaredEuclidean, play

    learner = SHIPPED[name]
    A = _margin_rows()

    def run(**options):
        return play(Bilinear(A, p_domain=learner.domain), FTRL(SquaredEuclidean(), 1.0), learner, T, **_observers(**options))

    plain = run()
    path = tmp_path / "run.npz"
    with pytest.raises(Crash):
        run(checkpoint=path, checkpoint_every=EVERY, observers=[_CrashAt(CRASH)])
    _same(plain, run(resume_from=path))


# ------------------------------------------------------------- what a weights function reads outside


def _bilinear(weights, **options):
    from gamedyn import FTRL, Bilinear, Entropy, SquaredEuclidean, play

    return play(Bilinear(_margin_rows()), FTRL(SquaredEuclidean(), 1.0), FTRL(Entropy(), 0.5), T, weights=weights,
                **_observers(**options))


def test_a_module_attribute_a_weights_function_reads_counts(tmp_path, monkeypatch):
    """Regression: ``weights = lambda t: settings.SCALE * t`` resumed after ``settings.SCALE`` changed (the module
    was known by its name only); now the attribute's value is in the fingerprint."""
    from gamedyn import CheckpointMismatchError

    (tmp_path / "run_settings.py").write_text("SCALE = 2.0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import run_settings

    namespace = {"run_settings": run_settings}
    exec("def weights(t):\n    return run_settings.SCALE * t\n", namespace)
    path = tmp_path / "run.npz"
    with pytest.raises(Crash):
        _bilinear(namespace["weights"], checkpoint=path, checkpoint_every=EVERY, observers=[_CrashAt(CRASH)])
    _same(_bilinear(namespace["weights"]), _bilinear(namespace["weights"], resume_from=path))  # unchanged: resumes
    monkeypatch.setattr(run_settings, "SCALE", 3.0)
    with pytest.raises(CheckpointMismatchError, match="different weights"):
        _bilinear(namespace["weights"], resume_from=path)


def _reads_a_file(folder):
    def weights(t):
        with open(os.path.join(folder, "scale.txt")) as file:
            return float(file.read()) * t
    return weights


def _reads_np_load(folder):
    def weights(t):
        return float(np.load(os.path.join(folder, "scale.npy"))) * t
    return weights


def _reads_the_clock():
    def weights(t):
        return 1.0 + time.time() * 0.0 * t
    return weights


@pytest.mark.parametrize("make, said", [(_reads_a_file, r"calls open\(\)"), (_reads_np_load, "numpy.load"),
                                        (lambda folder: _reads_the_clock(), "module time")])
def test_a_weights_function_reading_a_file_is_refused_before_round_1(make, said, tmp_path):
    """Regression: the docstring promised a refusal for what no description sees; a function reading a file
    (or the clock) was fingerprinted by its code alone and resumed after the file changed."""
    from gamedyn import CheckpointError

    (tmp_path / "scale.txt").write_text("2")
    np.save(tmp_path / "scale.npy", 2.0)
    with pytest.raises(CheckpointError, match=said):
        _bilinear(make(str(tmp_path)), checkpoint=tmp_path / "run.npz")
    assert not (tmp_path / "run.npz").exists()


def test_pure_library_reads_still_count_by_name(tmp_path):
    """np.exp, np.pi, os.path.join: pure, known by their names and values; the run checkpoints and resumes."""
    folder = str(tmp_path)

    def weights(t):
        return float(np.exp(-t / 100.0)) + np.pi + len(os.path.join(folder, "x")) * 0.0

    path = tmp_path / "run.npz"
    _same(_bilinear(weights), _bilinear(weights, checkpoint=path))
    _same(_bilinear(weights), _bilinear(weights, resume_from=path))
