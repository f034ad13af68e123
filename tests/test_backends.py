"""Any array through the array API (issue 20): the margin recipes end to end on numpy, array_api_strict, torch CPU
and JAX CPU (eager), equal to the numpy run, results in the input's namespace, and no hidden conversion to numpy
on the hot path.

Each backend's tests skip, with the reason printed, when its package is missing (``pip install
'gamedyn[torch]'``, ``'gamedyn[jax]'``, ``array-api-strict``). CUDA and CuPy run only where a GPU is.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from gamedyn.core.kernels import backend_of, is_foreign, to_host_scalar, to_numpy
from gamedyn.core.validation import check_matrix
from gamedyn.recipes import RECIPES


def _module(name):
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


torch = _module("torch")
strict = _module("array_api_strict")
jax = _module("jax")
if jax is not None:
    jax.config.update("jax_enable_x64", True)  # float64 in JAX (its default is float32)
    import jax.numpy as jnp
cupy = _module("cupy")


def _cuda() -> bool:
    return torch is not None and torch.cuda.is_available()


BACKENDS = [
    pytest.param("array_api_strict", marks=pytest.mark.skipif(strict is None, reason="array-api-strict is not installed")),
    # array_api_strict's second device stands in for a GPU: an array there refuses np.asarray (issue 31)
    pytest.param("array_api_strict-device1",
                 marks=pytest.mark.skipif(strict is None, reason="array-api-strict is not installed")),
    pytest.param("torch", marks=pytest.mark.skipif(torch is None, reason="torch is not installed (gamedyn[torch])")),
    pytest.param("jax", marks=pytest.mark.skipif(jax is None, reason="jax is not installed (gamedyn[jax])")),
    pytest.param("torch-cuda", marks=pytest.mark.skipif(not _cuda(), reason="no CUDA device on this machine")),
    pytest.param("cupy", marks=pytest.mark.skipif(cupy is None, reason="cupy is not installed (no GPU here)")),
]


def convert(name, array, dtype=np.float64):
    array = np.asarray(array, dtype=dtype)
    if name == "array_api_strict":
        return strict.asarray(array)
    if name == "array_api_strict-device1":
        return strict.asarray(array, device=strict.Device("device1"))
    if name == "torch":
        return torch.asarray(array)
    if name == "torch-cuda":  # pragma: no cover - needs a GPU
        return torch.asarray(array, device="cuda")
    if name == "jax":
        return jnp.asarray(array)
    if name == "cupy":  # pragma: no cover - needs a GPU
        return cupy.asarray(array)
    raise AssertionError(name)


def _rows(n=30, d=5, seed=0):
    """Separable rows of unit norm (a positive first coordinate)."""
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(n, d))
    A[:, 0] = np.abs(A[:, 0]) + 0.5
    return A / np.linalg.norm(A, axis=1, keepdims=True)


MARGIN = {
    "smooth_perceptron": {},
    "accelerated_perceptron": {},
    "mirror_prox_perceptron": {},
    "nag_margin": {},
    "pnorm_perceptron": {"p": 3.0},
}


def _relative(a, b) -> float:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(MARGIN))
def test_margin_recipe_equals_numpy_run(backend, name):
    A = _rows()
    recipe = RECIPES[name].function
    expected = recipe(A, 60, **MARGIN[name])
    result = recipe(convert(backend, A), 60, **MARGIN[name])
    for field in ("w_average", "p_average", "w_last", "p_last", "w_sum", "p_sum"):
        value = getattr(result.game, field)
        assert is_foreign(value) and backend_of(value) == backend_of(convert(backend, A)), field  # namespace and device
        assert _relative(to_numpy(value), getattr(expected.game, field)) <= 1e-12, field
    assert is_foreign(result.w)
    for field in ("w_regret", "p_regret", "theorem2_bound"):
        got, want = getattr(result.game, field), getattr(expected.game, field)
        assert isinstance(got, float), field  # a scalar genuinely needed: a host number
        assert got == want or abs(got - want) <= 1e-12 * max(1.0, abs(want)), field  # == for an unbounded (inf) regret
    if expected.game.certificate is not None:
        got, want = result.game.certificate, expected.game.certificate
        assert got.separable == want.separable
        assert abs(got.lower - want.lower) <= 1e-12 and abs(got.upper - want.upper) <= 1e-12


@pytest.mark.parametrize("backend", BACKENDS)
def test_float32_stays_float32_in_the_products(backend):
    """A float32 A is read as float32 (never copied to float64); the sums are float64 and agree with numpy's float32
    run to float32's accuracy (the products round to 2^-24 relative)."""
    A = _rows().astype(np.float32)
    expected = RECIPES["smooth_perceptron"].function(A, 60)
    foreign = convert(backend, A, np.float32)
    payoff_matrix = check_matrix(foreign)
    assert payoff_matrix.dtype == foreign.dtype  # float32 kept
    result = RECIPES["smooth_perceptron"].function(foreign, 60)
    w = result.game.w_average
    assert w.dtype == backend_of(w).float64
    assert _relative(to_numpy(w), expected.game.w_average) <= 1e-5


_CONVERSIONS = ("asarray", "array", "ascontiguousarray", "asanyarray")


def guard_conversions(monkeypatch, *more):
    """Make np.asarray & co. (and the numpy functions ``more``) raise on a foreign array for the rest of the test."""
    for name in (*_CONVERSIONS, *more):
        real = getattr(np, name)

        def convert_(*args, _name=name, _real=real, **kwargs):
            foreign = [value for value in args if is_foreign(value)]
            if foreign:
                raise AssertionError(f"np.{_name} called on a {type(foreign[0]).__module__} array")
            return _real(*args, **kwargs)

        monkeypatch.setattr(np, name, convert_)


@pytest.mark.skipif(torch is None, reason="torch is not installed (gamedyn[torch])")
def test_no_hidden_conversion_to_numpy_on_the_hot_path(monkeypatch):
    """np.asarray / np.array / np.ascontiguousarray raise on a foreign array during the run: only the one named
    boundary (gamedyn.core.kernels.to_numpy, for the certificate's final verdict) may convert."""
    A = torch.asarray(_rows())
    guard_conversions(monkeypatch)
    for name in sorted(MARGIN):
        result = RECIPES[name].function(A, 30, **MARGIN[name])
        assert isinstance(result.game.w_average, torch.Tensor)
    monkeypatch.undo()
    with pytest.raises(AssertionError, match="np.asarray called"):  # the guard itself bites
        guard_conversions(monkeypatch)
        np.asarray(A)


@pytest.mark.skipif(torch is None, reason="torch is not installed (gamedyn[torch])")
def test_check_matrix_gives_the_real_reason_for_a_refusal():
    A = torch.ones((3, 2), dtype=torch.float64, requires_grad=True)
    with pytest.raises(TypeError, match=r"requires grad.*\.detach\(\)"):
        check_matrix(A)
    assert check_matrix(A.detach()).dtype == torch.float64
    with pytest.raises(ValueError, match="must be 2-D"):
        check_matrix(torch.ones(3, dtype=torch.float64))
    with pytest.raises(ValueError, match="NaN or infinite"):
        check_matrix(torch.tensor([[1.0, float("nan")]], dtype=torch.float64))
    with pytest.raises(TypeError, match="real numeric"):
        check_matrix(torch.ones((2, 2), dtype=torch.complex128))
    integers = check_matrix(torch.ones((2, 2), dtype=torch.int64))
    assert integers.dtype == torch.float64 and isinstance(integers, torch.Tensor)


@pytest.mark.skipif(strict is None, reason="array-api-strict is not installed")
def test_backend_handle_and_host_scalar():
    x = strict.asarray([1.0, 2.0])
    backend = backend_of(x)
    assert backend.name == "array_api_strict" and backend == backend_of(strict.asarray([3.0]))
    assert to_host_scalar(backend.xp.sum(x)) == 3.0
    assert backend_of(np.ones(2)).is_numpy
    with pytest.raises(AttributeError):
        backend.name = "other"


_CLASSIFIER_SCRIPT = """
import numpy as np, sklearn, torch
from gamedyn.sklearn import MarginClassifier
rng = np.random.default_rng(3)
X = rng.normal(size=(60, 4))
y = np.where(X @ np.array([1.0, -0.5, 0.25, 0.0]) + 0.1 > 0, 1, 0)
expected = MarginClassifier(C=None).fit(X, y)
assert MarginClassifier(C=None).__sklearn_tags__().array_api_support is True
with sklearn.config_context(array_api_dispatch=True):
    fitted = MarginClassifier(C=None).fit(torch.asarray(X), torch.asarray(y))
    scores = fitted.decision_function(torch.asarray(X))
    labels = fitted.predict(torch.asarray(X))
assert isinstance(fitted.coef_, torch.Tensor) and isinstance(fitted.intercept_, torch.Tensor)
assert isinstance(scores, torch.Tensor)
np.testing.assert_allclose(fitted.coef_.numpy(), expected.coef_, rtol=1e-10, atol=1e-12)
np.testing.assert_allclose(fitted.intercept_.numpy(), expected.intercept_, rtol=1e-10, atol=1e-12)
np.testing.assert_array_equal(labels, expected.predict(X))
print("ok")
"""


@pytest.mark.skipif(torch is None, reason="torch is not installed (gamedyn[torch])")
def test_margin_classifier_under_array_api_dispatch_returns_torch_coef():
    """scikit-learn's array_api_dispatch needs SCIPY_ARRAY_API=1 before scipy is imported: a fresh interpreter."""
    pytest.importorskip("sklearn")
    import os
    import pathlib
    import subprocess
    import sys

    root = pathlib.Path(__file__).resolve().parent.parent
    env = dict(os.environ, SCIPY_ARRAY_API="1", PYTHONPATH=str(root))
    done = subprocess.run([sys.executable, "-c", _CLASSIFIER_SCRIPT], cwd=root, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-3000:]


_DEVICE_CLASSIFIER_SCRIPT = """
import numpy as np
import array_api_strict as xp
import sklearn
from gamedyn.sklearn import MarginClassifier

rng = np.random.default_rng(0)
X = rng.normal(size=(60, 4))
y = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, 3, 7)  # integer labels, not 0/1
device = xp.Device("device1")
expected = MarginClassifier(C=None).fit(X, y)
with sklearn.config_context(array_api_dispatch=True):
    fitted = MarginClassifier(C=None).fit(xp.asarray(X, device=device), xp.asarray(y, device=device))
    labels = fitted.predict(xp.asarray(X, device=device))
for name in ("coef_", "intercept_", "n_iter_"):
    value = getattr(fitted, name)
    assert value.device == device and value.dtype == getattr(xp, getattr(expected, name).dtype.name), name
assert labels.device == device and labels.dtype == xp.int64 and type(labels).__module__.startswith("array_api_strict")
host = np.asarray(labels.to_device(xp.Device("CPU_DEVICE")))
np.testing.assert_array_equal(host, expected.predict(X))
print("ok")
"""


@pytest.mark.skipif(strict is None, reason="array-api-strict is not installed")
def test_margin_classifier_under_array_api_dispatch_on_a_second_device():
    """Under array_api_dispatch (SCIPY_ARRAY_API=1, a fresh interpreter) an array on array_api_strict's
    Device("device1") fits; coef_, intercept_ and n_iter_ are on that device with numpy's dtypes, and predict
    returns the labels in the input's namespace and on its device (scikit-learn's array-API classifiers do)."""
    pytest.importorskip("sklearn")
    import os
    import pathlib
    import subprocess
    import sys

    root = pathlib.Path(__file__).resolve().parent.parent
    env = dict(os.environ, SCIPY_ARRAY_API="1", PYTHONPATH=str(root))
    done = subprocess.run([sys.executable, "-c", _DEVICE_CLASSIFIER_SCRIPT], cwd=root, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-3000:]


# ------------------------------------------------------------------ matrix games (issue 20, item 1)

MATRIX = {
    "hedge": {},
    "optimistic_hedge": {},
    "fictitious_play": {},
    "regret_matching": {},
    "regret_matching_plus": {},
    "predictive_regret_matching_plus": {},
    "ada_hedge": {},
}
MATRIX_VARIANTS = [(name, options) for name, options in sorted(MATRIX.items())] + [
    ("regret_matching", {"plus": True, "predictive": True, "alternating": True, "averaging": "quadratic"}),
    ("ada_hedge", {"alternating": True, "averaging": "linear"}),
]


def _payoffs(m=7, n=5, seed=1):
    return np.random.default_rng(seed).normal(size=(m, n))


def _close(got, want, rtol=1e-12):
    return got == want or abs(got - want) <= rtol * max(1.0, abs(want))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name, options", MATRIX_VARIANTS, ids=lambda v: v if isinstance(v, str) else
                         ",".join(f"{k}={x}" for k, x in v.items()) or "default")
def test_matrix_recipe_equals_numpy_run(backend, name, options):
    M = _payoffs()
    recipe = RECIPES[name].function
    start = np.linspace(1.0, 2.0, 7) / np.linspace(1.0, 2.0, 7).sum()
    takes_start = "row_start" in {parameter.name for parameter in RECIPES[name].parameters}
    expected = recipe(M, 80, **options, **({"row_start": start} if takes_start else {}))
    foreign = convert(backend, M)
    result = recipe(foreign, 80, **options, **({"row_start": convert(backend, start)} if takes_start else {}))
    kind = backend_of(foreign)
    for field in ("row", "column", "row_last", "column_last"):
        value = getattr(result, field)
        assert is_foreign(value) and backend_of(value) == kind, field  # namespace and device
        assert _relative(to_numpy(value), getattr(expected, field)) <= 1e-12, field
    for field in ("w_sum", "p_sum"):
        assert _relative(to_numpy(getattr(result.game, field)), getattr(expected.game, field)) <= 1e-12, field
    for field in ("value", "nash_gap"):
        got, want = getattr(result, field), getattr(expected, field)
        assert isinstance(got, float) and _close(got, want), field
    got, want = result.certificate, expected.certificate
    assert _close(got.lower, want.lower) and _close(got.upper, want.upper)
    assert got.lower <= want.upper and want.lower <= got.upper  # both certified brackets hold v*


@pytest.mark.parametrize("backend", BACKENDS)
def test_solve_game_and_the_exact_oracle_on_the_namespace(backend):
    """solve_game (PRM+ to a certified gap) runs in M's namespace; the LP oracle converts at its boundary and
    returns its strategies there; nash_gap and value_bracket accept foreign strategies."""
    from gamedyn.games.matrix import nash_gap, solve_matrix_game, value_bracket
    from gamedyn.games.matrix.solve import solve_game

    M = _payoffs(9, 6, seed=4)
    foreign = convert(backend, M)
    kind = backend_of(foreign).name
    expected, got = solve_game(M, 1e-7, method="dynamics"), solve_game(foreign, 1e-7)  # (a foreign M: the dynamics)
    assert got.rounds == expected.rounds and got.converged
    assert backend_of(got.row).name == kind and backend_of(got.column).name == kind
    assert _relative(to_numpy(got.row), expected.row) <= 1e-12
    assert _close(got.lower, expected.lower) and _close(got.upper, expected.upper)
    exact = solve_matrix_game(foreign)
    assert backend_of(exact.row).name == kind
    assert got.lower <= exact.value <= got.upper
    assert _close(nash_gap(foreign, got.row, got.column), nash_gap(M, expected.row, expected.column))
    assert value_bracket(foreign, got.row, got.column).contains(exact.value)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", ["hedge", "regret_matching_plus", "optimistic_hedge"])
def test_matrix_float32_products_float64_sums(backend, name):
    """A float32 M keeps float32 products on the namespace (numpy widens M to float64); the averages are float64
    and agree with the float64 run on the same (float32-rounded) matrix to 1e-5 relative."""
    M = _payoffs().astype(np.float32)
    expected = RECIPES[name].function(M.astype(np.float64), 80)
    foreign = convert(backend, M, np.float32)
    result = RECIPES[name].function(foreign, 80)
    assert result.matrix.dtype == foreign.dtype  # float32 kept for the products
    assert result.row.dtype == backend_of(result.row).float64  # float64 sums
    assert _relative(to_numpy(result.row), expected.row) <= 1e-5
    assert _relative(to_numpy(result.column), expected.column) <= 1e-5


@pytest.mark.skipif(torch is None, reason="torch is not installed (gamedyn[torch])")
def test_no_hidden_conversion_on_the_matrix_games_hot_path(monkeypatch):
    """np.asarray & co. raise on a foreign array while every matrix recipe and solve_game run: only
    gamedyn.core.kernels.to_numpy (the value bracket's exact evaluation, the LP) converts."""
    from gamedyn.games.matrix.solve import solve_game

    M = torch.asarray(_payoffs())
    guard_conversions(monkeypatch)
    for name, options in MATRIX_VARIANTS:
        result = RECIPES[name].function(M, 30, **options)
        assert isinstance(result.row, torch.Tensor) and isinstance(result.nash_gap, float)
    assert isinstance(solve_game(M, 1e-3).row, torch.Tensor)


# ---------------------------------------------------------- Fenchel games (issue 20, item 2)

FENCHEL = [
    ("frank_wolfe", {"domain": "simplex"}),
    ("frank_wolfe", {"domain": "ball"}),
    ("accelerated_gradient", {}),
    ("accelerated_gradient", {"domain": "ball"}),
    ("heavy_ball", {}),
]


def _fenchel_domain(options):
    from gamedyn.core import Ball, Simplex

    named = {"simplex": Simplex(), "ball": Ball(0.5)}
    return {key: named[value] if key == "domain" else value for key, value in options.items()}


def _objective(kind, X, seed=2):
    """The built-in objectives, written for X's namespace (gamedyn.games.fenchel.objectives)."""
    from gamedyn.games.fenchel.objectives import least_squares, logistic_regression

    rng = np.random.default_rng(seed)
    n = X.shape[0]
    if kind == "least-squares":
        return least_squares(X, rng.normal(size=n))
    return logistic_regression(X, np.where(rng.normal(size=n) > 0, 1.0, -1.0))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", ["least-squares", "logistic"])
@pytest.mark.parametrize("name, options", FENCHEL, ids=lambda v: v if isinstance(v, str) else
                         ",".join(f"{k}={x}" for k, x in v.items()) or "default")
def test_fenchel_recipe_equals_numpy_run(backend, kind, name, options):
    X = np.random.default_rng(5).normal(size=(20, 4)) / 2.0
    recipe = RECIPES[name].function
    expected = recipe(_objective(kind, X), 40, regrets=True, **_fenchel_domain(options))
    foreign = convert(backend, X)
    result = recipe(_objective(kind, foreign), 40, regrets=True, **_fenchel_domain(options))
    kind_name = backend_of(foreign)
    for value in (result.x, result.game.w_average, result.game.p_last, result.game.w_sum):
        assert is_foreign(value) and backend_of(value) == kind_name  # namespace and device
    assert _relative(to_numpy(result.x), expected.x) <= 1e-12
    assert _relative(to_numpy(result.game.w_average), expected.game.w_average) <= 1e-12
    assert isinstance(result.value, float) and _close(result.value, expected.value)
    for field in ("w_regret", "p_regret", "theorem2_bound"):
        got, want = getattr(result.game, field), getattr(expected.game, field)
        assert isinstance(got, float) and _close(got, want, 1e-10), field


@pytest.mark.skipif(torch is None, reason="torch is not installed (gamedyn[torch])")
def test_no_hidden_conversion_on_the_fenchel_hot_path(monkeypatch):
    """np.asarray & co. raise on a foreign array while the Fenchel recipes run an objective written for torch (its
    smoothness is computed before, at the boundary)."""
    X = torch.asarray(np.random.default_rng(5).normal(size=(20, 4)) / 2.0)
    objectives = {kind: _objective(kind, X) for kind in ("least-squares", "logistic")}
    guard_conversions(monkeypatch)
    for objective in objectives.values():
        for name, options in FENCHEL:
            result = RECIPES[name].function(objective, 30, **_fenchel_domain(options))
            assert isinstance(result.x, torch.Tensor)


# ------------------------------------------------- checkpoints and batched games (issue 20, item 3)


class _Crash(Exception):
    """The simulated kill of a run."""


def _crash_at(round_):
    def stop(round_state):
        if round_state.t == round_:
            raise _Crash
        return False
    return stop


def _checkpointed_runs():
    from gamedyn.core import Simplex
    from gamedyn.games.fenchel.objectives import least_squares

    b = np.random.default_rng(8).normal(size=30)
    return {
        "smooth_perceptron": (_rows(), lambda P, **k: RECIPES["smooth_perceptron"].function(P, 40, **k)),
        "hedge": (_payoffs(), lambda P, **k: RECIPES["hedge"].function(P, 40, **k)),
        "prm+": (_payoffs(), lambda P, **k: RECIPES["predictive_regret_matching_plus"].function(P, 40, **k)),
        "frank_wolfe": (_rows(), lambda P, **k: RECIPES["frank_wolfe"].function(
            least_squares(P, b if not is_foreign(P) else backend_of(P).asarray(b)), 40, domain=Simplex(), **k)),
    }


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", ["smooth_perceptron", "hedge", "prm+", "frank_wolfe"])
def test_checkpoint_saved_as_numpy_resumes_on_the_device(backend, name, tmp_path):
    """A run killed after its checkpoint resumes bit for bit in its namespace (the file holds numpy arrays); a numpy
    run's checkpoint resumes on the device too (equal to 1e-12; a Fenchel objective is known by its functions, and
    one written for torch differs from numpy's, so that crossing is refused as another payoff)."""
    P, run = _checkpointed_runs()[name]
    foreign = convert(backend, P)
    uninterrupted = run(foreign, stop=_crash_at(10**6))
    path = str(tmp_path / "run.npz")
    with pytest.raises(_Crash):
        run(foreign, checkpoint=path, checkpoint_every=5, stop=_crash_at(23))
    with np.load(path, allow_pickle=False) as archive:  # saved as numpy: no pickled device arrays
        assert all(archive[key].dtype != object for key in archive.files)
    resumed = run(foreign, resume_from=path, stop=_crash_at(10**6))
    game, again = uninterrupted.game, resumed.game
    for field in ("w_average", "p_average", "w_sum", "p_sum", "w_last", "p_last"):
        value = getattr(again, field)
        assert is_foreign(value) and backend_of(value) == backend_of(foreign), field
        assert np.array_equal(to_numpy(value), to_numpy(getattr(game, field))), field
    if name == "frank_wolfe":  # an objective written for torch is another function than numpy's: refused, by name
        return
    numpy_path = str(tmp_path / "numpy.npz")
    with pytest.raises(_Crash):
        run(P, checkpoint=numpy_path, checkpoint_every=5, stop=_crash_at(23))
    crossed = run(foreign, resume_from=numpy_path, stop=_crash_at(10**6)).game
    assert backend_of(crossed.w_average) == backend_of(foreign)
    assert _relative(to_numpy(crossed.w_average), to_numpy(game.w_average)) <= 1e-12


BATCHED = {"nag_margin": {}, "smooth_perceptron": {}, "accelerated_perceptron": {}, "pnorm_perceptron": {"p": 3.0}}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(BATCHED))
def test_batched_games_on_the_namespace(backend, name):
    """one_vs_rest of a foreign X: the K games' products in X's namespace (the labels moved there once), the
    batched outputs there too, equal to the numpy batch to 1e-12."""
    from gamedyn.arrays.batched import one_vs_rest

    rng = np.random.default_rng(6)
    X = rng.normal(size=(40, 3))
    X /= np.max(np.linalg.norm(X, axis=1))
    Y = np.where(rng.normal(size=(40, 3)) > 0, 1.0, -1.0)
    recipe = RECIPES[name].function
    expected = recipe(one_vs_rest(X, Y), 30, **BATCHED[name])
    foreign = convert(backend, X)
    batch = one_vs_rest(foreign, Y)
    assert backend_of(batch) == backend_of(foreign)  # the batch declares its backend (a capability)
    result = recipe(batch, 30, **BATCHED[name])
    for field in ("w_average", "p_average", "w_last", "p_last"):
        value = getattr(result.game, field)
        assert is_foreign(value) and backend_of(value) == backend_of(foreign), field
        assert tuple(value.shape) == getattr(expected.game, field).shape, field
        assert _relative(to_numpy(value), getattr(expected.game, field)) <= 1e-12, field
    got, want = np.asarray(to_numpy(result.game.w_regret), dtype=np.float64), np.asarray(expected.game.w_regret)
    assert np.array_equal(np.isinf(got), np.isinf(want))
    finite = np.isfinite(want)
    assert np.all(np.abs(got[finite] - want[finite]) <= 1e-12 * np.maximum(1.0, np.abs(want[finite])))


@pytest.mark.skipif(torch is None, reason="torch is not installed (gamedyn[torch])")
def test_no_hidden_conversion_on_the_batched_hot_path(monkeypatch):
    """np.asarray & co. raise on a foreign array while batched games of a torch X run (the labels went to the device
    once, when the batch was built)."""
    from gamedyn.arrays.batched import one_vs_rest

    rng = np.random.default_rng(6)
    X = rng.normal(size=(40, 3))
    X /= np.max(np.linalg.norm(X, axis=1))
    batch = one_vs_rest(torch.asarray(X), np.where(rng.normal(size=(40, 3)) > 0, 1.0, -1.0))
    guard_conversions(monkeypatch, "einsum")
    for name in sorted(BATCHED):
        result = RECIPES[name].function(batch, 20, **BATCHED[name])
        assert isinstance(result.game.w_average, torch.Tensor)



# ------------------------------------------------------- every recipe on a second device (issue 31, item 5)

_DEVICE_PROBLEMS = {  # family -> (problem for an array X on the device, its numpy twin)
    "margin": lambda to: to(_rows()),
    "matrix": lambda to: to(_payoffs()),
    "fenchel": lambda to: _objective("least-squares", to(np.random.default_rng(5).normal(size=(20, 4)) / 2.0)),
}


@pytest.mark.skipif(strict is None, reason="array-api-strict is not installed")
@pytest.mark.parametrize("name", sorted(RECIPES))
def test_every_recipe_returns_its_result_on_the_inputs_device(name):
    """array_api_strict's Device("device1") stands in for a GPU: its arrays refuse np.asarray. Every recipe
    plays there and returns its arrays on that very device (no host copy on the way: the result check reduces
    on the device and copies to the host only to explain a failure)."""
    device = strict.Device("device1")
    declaration = RECIPES[name]
    make = _DEVICE_PROBLEMS.get(declaration.family.name)
    if make is None:
        pytest.skip(f"no device problem for the {declaration.family.name} family yet: add one to _DEVICE_PROBLEMS")
    options = {"p": 3.0} if name == "pnorm_perceptron" else {"domain": _fenchel_domain({"domain": "simplex"})["domain"]} \
        if name == "frank_wolfe" else {}
    result = declaration.function(make(lambda array: strict.asarray(array, device=device)), 30, **options)
    arrays = {field: getattr(result.game, field) for field in ("w_average", "p_average", "w_sum", "p_sum", "w_last",
                                                               "p_last")}
    arrays.update({field: getattr(result, field) for field in ("w", "p", "row", "column", "x") if hasattr(result, field)})
    for field, value in arrays.items():
        assert is_foreign(value) and value.device == device, (field, getattr(value, "device", type(value)))
