"""The layered package's two faces (issue 17): the old module paths still work, and ``import gamedyn`` is light.

* Every old public module path (``gamedyn.protocol``, ..., ``gamedyn.experiments.*``) still imports for one
  release: it warns once with a ``DeprecationWarning`` naming its new modules, and gives the very same
  objects (``gamedyn.protocol.play is gamedyn.engine.runner.play``); a setting assigned through the old
  path reaches the module that reads it; ``python -m gamedyn.experiments.iterations`` still runs.
* ``import gamedyn`` (the face, PEP 562) loads none of scipy.optimize, scipy.sparse.linalg, dask,
  scikit-learn and matplotlib, and changes no signal handler; every public name resolves on first use.

Each check runs in a fresh interpreter: what an import loads, and whether it warns, depends on what
was imported before.
"""

from __future__ import annotations

import ast
import json
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent

# the old public module paths of issue 17 (the private _numerics, _validation, ... have no alias)
OLD_PATHS = (
    "gamedyn.protocol", "gamedyn.learners", "gamedyn.payoffs", "gamedyn.regularizers", "gamedyn.hints",
    "gamedyn.certificates", "gamedyn.margins", "gamedyn.stops", "gamedyn.checkpoints", "gamedyn.batched",
    "gamedyn.distributed", "gamedyn.one_pass", "gamedyn.matrix_games", "gamedyn.fenchel", "gamedyn.original",
    "gamedyn.original_games", "gamedyn.original_fenchel", "gamedyn.datasets", "gamedyn.exploration",
    "gamedyn.registry", "gamedyn.rates", "gamedyn.reproduce", "gamedyn.experiments", "gamedyn.experiments.fenchel",
    "gamedyn.experiments.game_figures", "gamedyn.experiments.iterations", "gamedyn.experiments.logistic_figures",
    "gamedyn.experiments.matrix_games",
)


def _python(code: str, *arguments: str) -> subprocess.CompletedProcess:
    environment = {key: value for key, value in os.environ.items() if not key.startswith("PYTHONWARNINGS")}
    return subprocess.run([sys.executable, *arguments, "-c", code] if arguments else [sys.executable, "-c", code],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, check=False, env=environment)


def _alias_tables(path: str) -> tuple:
    """``(table, also)`` of the ``moved(...)`` call in an old path's file, read with ``ast`` (not imported)."""
    relative = pathlib.Path(*path.split(".")[1:])
    file = ROOT / "gamedyn" / relative / "__init__.py"
    if not file.exists():
        file = (ROOT / "gamedyn" / relative).with_suffix(".py")
    call = next(node for node in ast.walk(ast.parse(file.read_text())) if isinstance(node, ast.Call)
                and getattr(node.func, "id", None) == "moved")
    assert ast.literal_eval(call.args[1]) == path, f"{file} names another old path"
    keywords = {keyword.arg: ast.literal_eval(keyword.value) for keyword in call.keywords}
    return ast.literal_eval(call.args[2]), keywords.get("also") or {}


def test_every_old_path_has_an_alias_and_every_alias_is_an_old_path():
    aliases = set()
    for file in (ROOT / "gamedyn").rglob("*.py"):
        if file.relative_to(ROOT / "gamedyn").parts[0] != "recipes" and \
                "from gamedyn.core.deprecation import moved" in file.read_text():
            parts = file.relative_to(ROOT).with_suffix("").parts
            aliases.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    assert aliases == set(OLD_PATHS)


_IMPORT_EVERY_OLD_PATH = textwrap.dedent("""
    import importlib, json, sys, warnings
    paths, tables = json.loads(sys.argv[1]), json.loads(sys.argv[2])
    problems = []
    for path in paths:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            module = importlib.import_module(path)
            again = importlib.import_module(path)
        mine = [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)
                and str(w.message).startswith(path + " is deprecated")]
        if len(mine) != 1 or again is not module:
            problems.append(f"{path}: {len(mine)} warnings of its own (want exactly 1): {mine}")
        table, also = tables[path]
        for new in sorted(set(table.values())):
            if mine and new not in mine[0]:
                problems.append(f"{path}: the warning does not name {new}: {mine[0]}")
        for name, new in {**also, **table}.items():
            if getattr(module, name) is not getattr(importlib.import_module(new), name):
                problems.append(f"{path}.{name} is not {new}.{name}")
        if sorted(getattr(module, "__all__")) != sorted(table):
            problems.append(f"{path}.__all__ is not its own names")
    print(json.dumps(problems))
""")


def test_every_old_path_imports_warns_once_and_gives_the_same_objects():
    tables = {path: _alias_tables(path) for path in OLD_PATHS}
    assert sum(len(table) for table, _ in tables.values()) > 200  # the aliases really carry the old names
    done = subprocess.run([sys.executable, "-c", _IMPORT_EVERY_OLD_PATH, json.dumps(OLD_PATHS), json.dumps(tables)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


def test_the_old_paths_hold_the_objects_of_the_new_ones():
    """The identities a user relies on, spelled out (and the shims' tables match the old modules' names)."""
    code = textwrap.dedent("""
        import warnings
        warnings.simplefilter("ignore", DeprecationWarning)
        import gamedyn.protocol, gamedyn.engine.runner, gamedyn.payoffs, gamedyn.core, gamedyn.experiments.iterations
        import gamedyn.paper.experiments.iterations as new_iterations, gamedyn.reproduce, gamedyn.paper.claims
        assert gamedyn.protocol.play is gamedyn.engine.runner.play is gamedyn.play
        assert gamedyn.payoffs.Loss is gamedyn.core.Loss is gamedyn.Loss
        assert gamedyn.experiments.iterations.iterations_to_separation is new_iterations.iterations_to_separation
        assert gamedyn.reproduce.Claim is gamedyn.paper.claims.Claim
        print("ok")
    """)
    done = _python(code)
    assert done.stdout.strip() == "ok", done.stderr


def test_a_setting_made_through_an_old_path_takes_effect():
    """``gamedyn.one_pass.ONE_PASS_MIN_BYTES = 0`` (its docstring's advice, inverted) still switches the round."""
    code = textwrap.dedent("""
        import warnings
        warnings.simplefilter("ignore", DeprecationWarning)
        import math
        import gamedyn.one_pass, gamedyn.arrays.one_pass
        gamedyn.one_pass.ONE_PASS_MIN_BYTES = math.inf
        print(gamedyn.arrays.one_pass.ONE_PASS_MIN_BYTES, gamedyn.one_pass.ONE_PASS_MIN_BYTES)
    """)
    done = _python(code)
    assert done.stdout.split() == ["inf", "inf"], done.stderr


def test_python_m_the_old_iterations_module_still_runs_and_says_where_it_moved():
    old = subprocess.run([sys.executable, "-m", "gamedyn.experiments.iterations"], cwd=ROOT, capture_output=True,
                         text=True, timeout=600, check=False)
    assert old.returncode == 0, old.stderr
    new = _python("from gamedyn.paper.experiments.iterations import iterations_to_separation\n"
                  "print(iterations_to_separation().format())")
    assert new.returncode == 0, new.stderr
    # the same table (the rows of every data family and algorithm), printed through the old path
    assert old.stdout == new.stdout
    assert len(old.stdout.splitlines()) > 3 and "perceptron" in old.stdout
    assert "DeprecationWarning: gamedyn.experiments.iterations is deprecated" in old.stderr
    assert "gamedyn.paper.experiments.iterations" in old.stderr


# ----------------------------------------------------------------------------------------- the face

HEAVY = ("scipy.optimize", "scipy.sparse.linalg", "dask", "sklearn", "matplotlib")

_IMPORT_THE_FACE = textwrap.dedent("""
    import json, signal, sys
    signals = [s for s in signal.valid_signals() if s not in (signal.SIGKILL, signal.SIGSTOP)]
    before = {int(s): signal.getsignal(s) for s in signals}
    import gamedyn
    after = {int(s): signal.getsignal(s) for s in signals}
    heavy = sorted(name for name in sys.modules if name.split(".")[0] in ("dask", "sklearn", "matplotlib")
                   or name.startswith(("scipy.optimize", "scipy.sparse.linalg")))
    library = sorted(name for name in sys.modules if name.startswith("gamedyn"))
    print(json.dumps({"heavy": heavy, "changed": [s for s in before if before[s] is not after[s]], "library": library}))
""")


# A program whose name is the command line's ("gamedyn", as the installed script is called) that imports the
# face, not gamedyn.cli: before issue 17 the face itself installed the command line's Ctrl-C handler then.
_AS_THE_SCRIPT = "import sys\nsys.argv[0] = 'gamedyn'\n"


@pytest.mark.parametrize("launcher, prefix", [([], ""), (["-X", "importtime"], ""), ([], _AS_THE_SCRIPT)],
                         ids=["python", "python -X importtime", "a program named gamedyn"])
def test_import_gamedyn_loads_nothing_heavy_and_sets_no_signal_handler(launcher, prefix):
    done = subprocess.run([sys.executable, *launcher, "-c", prefix + _IMPORT_THE_FACE], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["heavy"] == [], f"import gamedyn loaded {found['heavy']}"
    assert found["changed"] == [], f"import gamedyn changed the handlers of signals {found['changed']}"
    assert found["library"] == ["gamedyn"], "the face imports its layers on first use only"


def test_the_face_resolves_every_public_name_to_its_layer():
    code = textwrap.dedent("""
        import importlib, json, gamedyn
        problems = []
        for name in gamedyn.__all__:
            value = getattr(gamedyn, name)
            if name in ("core", "arrays", "certify", "engine", "games", "io", "paper"):
                if value is not importlib.import_module("gamedyn." + name):
                    problems.append(name)
            elif value is not getattr(importlib.import_module(value.__module__), name):
                problems.append(name)
        problems += [name for name in gamedyn.__all__ if name not in dir(gamedyn)]
        namespace = {}
        exec("from gamedyn import *", namespace)
        problems += [name for name in gamedyn.__all__ if namespace.get(name) is not getattr(gamedyn, name)]
        try:
            gamedyn.no_such_name
        except AttributeError as error:
            problems += [] if "no_such_name" in str(error) else ["AttributeError without the name"]
        print(json.dumps(problems))
    """)
    done = _python(code)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


def test_the_face_offers_the_same_public_names_as_before_plus_the_layers():
    """The names ``import gamedyn`` offered before the layout (issue 17), read from the face's own table."""
    before = {
        "Ball", "Bilinear", "ConcaveConvex", "CurrentLoss", "Entropy", "FTL", "FTRL", "FTRLPlus",
        "FollowTheRegularizedLeader", "GameResult", "LastLoss", "Loss", "MirrorDescent", "NoHint", "OFTL", "OFTRL",
        "OMD", "OpponentSecondary", "Payoff", "QNorm", "Reals", "Regularizer", "RegularizedBilinear", "RoundState",
        "Simplex", "SquaredEuclidean", "Zero", "numerical_argmin", "OnlineResult", "online", "play", "positive_margin",
        "signed_rows", "margin", "max_margin", "max_margin_q", "normalized_margin", "NumericalRangeError",
        "BatchedMatrix", "one_vs_rest", "shared_matrix", "CheckpointError", "CheckpointMismatchError",
        "checkpoint_info", "Exploration", "explore", "nash_gap", "solve_matrix_game", "Objective", "FenchelGame",
        "FenchelConjugate", "L1Ball", "Box", "BestResponse", "FirstRoundLoss", "StepSchedule",
    }
    import gamedyn

    protocols = {"Domain", "Hint", "Learner", "Observer", "Player"}  # the contracts (issue 17; Payoff, Regularizer were there)
    added = {"MatrixGame"}  # issue 17 item 6: matrix games by name
    added |= {"CappedSimplex", "soft_margin"}  # issue 19: the soft-margin game's domain and exact oracle
    added |= {"AdaHedge", "AdaptiveFTRL", "AdaptiveStep", "GameSolution", "NashGapStop", "RegretMatching",
              "solve_game"}  # issue 18
    added |= {"Treeplex", "CounterfactualRegret", "ExploitabilityStop", "ExtensiveFormGame", "EFGResult"}  # issue 32
    added |= {"DilatedEntropy"}  # issue 33
    assert set(gamedyn.__all__) == before | protocols | added | {"core", "arrays", "certify", "engine", "games", "io", "paper"}
