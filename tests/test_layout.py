"""The layered package's face (issues 17 and 31): no scaffolding at the root, and ``import gamedyn`` is light.

* 0.1.0 was never released, so the old module paths of issue 17 (``gamedyn.protocol``, ...,
  ``gamedyn.experiments.*``) have no alias: no deprecation shim remains (no module calls a ``moved``
  helper, ``gamedyn.core.deprecation`` is gone, an old path does not import), and the root of ``gamedyn/``
  holds the face, the command line's entry, the marker ``py.typed``, the user-facing modules and the
  recipes' link only: at most 8 files.
* ``import gamedyn`` (the face, PEP 562) loads none of scipy.optimize, scipy.sparse.linalg, dask,
  scikit-learn and matplotlib, and changes no signal handler; every public name resolves on first use.

Each check runs in a fresh interpreter: what an import loads depends on what was imported before.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent

# the old public module paths of issue 17, never released: none may come back
OLD_PATHS = (
    "gamedyn.protocol", "gamedyn.learners", "gamedyn.payoffs", "gamedyn.regularizers", "gamedyn.hints",
    "gamedyn.certificates", "gamedyn.margins", "gamedyn.stops", "gamedyn.checkpoints", "gamedyn.batched",
    "gamedyn.distributed", "gamedyn.one_pass", "gamedyn.matrix_games", "gamedyn.fenchel", "gamedyn.original",
    "gamedyn.original_games", "gamedyn.original_fenchel", "gamedyn.datasets", "gamedyn.exploration",
    "gamedyn.registry", "gamedyn.rates", "gamedyn.reproduce", "gamedyn.experiments", "gamedyn.experiments.iterations",
)
# the root of gamedyn/: the face, `python -m gamedyn`, the typing marker, the user-facing modules, the recipes' link
ROOT_FILES = {"__init__.py", "__main__.py", "py.typed", "logistic.py", "plot.py", "sklearn.py", "recipes"}


def _python(code: str, *arguments: str) -> subprocess.CompletedProcess:
    environment = {key: value for key, value in os.environ.items() if not key.startswith("PYTHONWARNINGS")}
    return subprocess.run([sys.executable, *arguments, "-c", code] if arguments else [sys.executable, "-c", code],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, check=False, env=environment)


def test_the_root_of_gamedyn_holds_the_face_and_the_user_facing_modules_only():
    """At most 8 files (a file or link, not a layer folder) at the root of gamedyn/, and exactly these."""
    # gamedyn/recipes: the link to recipes/ in a checkout (a file at the root), real files in an unpacked sdist
    files = {path.name for path in (ROOT / "gamedyn").iterdir()
             if not path.is_dir() or path.is_symlink() or path.name == "recipes"}
    assert files == ROOT_FILES and len(files) <= 8, sorted(files)


def test_no_deprecation_shim_remains():
    """No module of gamedyn or recipes/ calls a ``moved(...)`` alias helper or warns a DeprecationWarning, and
    gamedyn.core.deprecation is gone."""
    assert not (ROOT / "gamedyn" / "core" / "deprecation.py").exists()
    sources = [*(ROOT / "gamedyn").rglob("*.py"), *(ROOT / "recipes").rglob("*.py")]
    shims = [str(path.relative_to(ROOT)) for path in sources
             if "deprecation import moved" in (text := path.read_text(encoding="utf-8")) or "DeprecationWarning" in text]
    assert shims == []


def test_the_old_paths_do_not_import():
    code = textwrap.dedent("""
        import importlib, json, sys, gamedyn
        found = []
        for path in json.loads(sys.argv[1]):
            try:
                importlib.import_module(path)
            except ModuleNotFoundError:
                continue
            found.append(path)
        for name in ("margins", "protocol", "experiments"):
            if hasattr(gamedyn, name):
                found.append("gamedyn." + name + " as an attribute")
        print(json.dumps(found))
    """)
    done = subprocess.run([sys.executable, "-c", code, json.dumps(OLD_PATHS)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


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
    added |= {"checkpoint", "compare_with", "each_round", "record_plays", "skip_regrets", "stop_when",
              "track_metrics"}  # issue 31: the observers of play
    added |= {"Treeplex", "CounterfactualRegret", "ExploitabilityStop", "ExtensiveFormGame", "EFGResult"}  # issue 32
    added |= {"BimatrixGame", "CCEGapStop", "CEGapStop", "NormalFormGame", "SwapRegret", "SwapRegretMatching", "cce_gap",
              "ce_gap", "play_n", "solve_cce", "solve_ce"}  # issue 34: general-sum games, CCE and CE
    added |= {"CheckpointWarning"}  # issue 30: a complete run whose final checkpoint could not be written
    added |= {"solve_efg", "EFGSolution"}  # issue 33 (solve_efg)
    added |= {"DilatedEntropy"}  # issue 33
    assert set(gamedyn.__all__) == before | protocols | added | {"core", "arrays", "certify", "engine", "games", "io", "paper"}


def test_the_first_recipe_loads_no_optimiser():
    """``import gamedyn.recipes; gamedyn.recipes.hedge`` (and ``gamedyn.play``) load none of scipy.optimize,
    scipy.spatial, scipy.fft, scipy.special (issue 31: 0.55 s of CPU a matrix game never needs); each module
    imports scipy.optimize in the function that calls it."""
    code = textwrap.dedent("""
        import json, sys
        import gamedyn.recipes
        gamedyn.recipes.hedge
        import gamedyn
        gamedyn.play
        print(json.dumps(sorted(name for name in sys.modules if name.startswith(
            ("scipy.optimize", "scipy.spatial", "scipy.fft", "scipy.special")))))
    """)
    for launcher in ([], ["-X", "importtime"]):
        done = _python(code, *launcher)
        assert done.returncode == 0, done.stderr[-2000:]
        assert json.loads(done.stdout.strip().splitlines()[-1]) == []
