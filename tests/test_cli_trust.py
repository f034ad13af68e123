"""The command line's issue-30 defects, one regression test each (each fails on 970ab2a):

* ``gamedyn list`` advertised ``--nu`` for the margin recipes and ``gamedyn run`` refused it: every option a
  recipe declares for the command line is now an option of ``gamedyn run``, refused by the recipes without it;
* SIGTERM during start-up exited -15 silently where SIGINT explained: one line and 143;
* a resumed ``gamedyn run --json`` printed only the rows after the checkpoint (one row for a finished run):
  the table is kept in the checkpoint, so the resumed document equals the uninterrupted one;
* ``--data`` with X times 1e300 said "every row of A is zero" (the squared norms overflowed).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from gamedyn import cli
from gamedyn.io import make_separable
from gamedyn.recipes import RECIPES

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _json(capsys, argv) -> dict:
    assert cli.main(argv) == 0
    document = json.loads(capsys.readouterr().out)
    document.pop("seconds")
    return document


# --------------------------------------------------------------------------------- declared options


TAKING_NU = sorted(name for name, declaration in RECIPES.items() if "nu" in declaration.options)


@pytest.mark.parametrize("name", TAKING_NU)
def test_gamedyn_run_takes_nu_where_the_recipe_declares_it(name, capsys):
    extra = ["--p", "3"] if "p" in RECIPES[name].options else []
    document = _json(capsys, ["run", name, "--synthetic", "40,4,0.1", "--T", "60", "--nu", "0.25", "--no-oracle",
                              "--json", *extra])
    assert "soft margin (nu = 0.25)" in document["steps"][-1]["verdict"]


def test_every_declared_command_line_option_is_an_option_of_gamedyn_run():
    parser = cli.build_parser()
    run = next(action for action in parser._subparsers._group_actions[0].choices.values()
               if action.prog.endswith(" run"))
    flags = {option for action in run._actions for option in action.option_strings}
    declared = {parameter.flag for declaration in RECIPES.values() for parameter in declaration.parameters
                if parameter.cli}
    assert declared <= flags, declared - flags


def test_nu_is_refused_where_no_recipe_declares_it(capsys):
    assert cli.main(["run", "hedge", "--T", "10", "--nu", "0.2"]) == 2
    message = capsys.readouterr().err
    assert "--nu applies to" in message and "smooth_perceptron" in message and "hedge has no nu" in message


# --------------------------------------------------------------------------------------- SIGTERM

_TRIP = """import os, signal, sys

class Trip:  # SIGTERM arrives while gamedyn imports its dependencies
    def find_spec(self, name, path=None, target=None):
        if name == "numpy":
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGTERM)
        return None

sys.meta_path.insert(0, Trip())
"""


def test_sigterm_during_start_up_prints_one_line_and_exits_143(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(_TRIP)
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), ROOT]))
    completed = subprocess.run([sys.executable, "-m", "gamedyn", "list"], capture_output=True, text=True, timeout=60,
                               cwd=ROOT, env=environment)
    assert completed.returncode == 143, (completed.returncode, completed.stderr)
    assert completed.stderr == "gamedyn: terminated (SIGTERM) while starting\n" and completed.stdout == ""


# -------------------------------------------------------------------------------- resumed --json


class Crash(Exception):
    """A kill in the middle of a run."""


def _crashing_progress(at):
    class Progress:
        def __init__(self, *args, **keywords):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def update(self, t):
            if t == at:
                raise Crash

        def clear(self):
            pass

    return Progress


RUNS = {
    "smooth_perceptron": ["--synthetic", "60,5,0.1", "--no-oracle"],
    "accelerated_perceptron": ["--synthetic", "60,5,0.1", "--no-oracle", "--nu", "0.3"],
    "hedge": ["--synthetic", "6,5"],
    "frank_wolfe": ["--synthetic", "30,4"],
}


@pytest.mark.parametrize("name", sorted(RUNS))
def test_a_resumed_json_run_prints_the_whole_table(name, tmp_path, capsys, monkeypatch):
    argv = ["run", name, "--T", "300", "--json", *RUNS[name]]
    whole = _json(capsys, argv)
    path = str(tmp_path / "run.npz")
    with monkeypatch.context() as patch:
        patch.setattr("gamedyn.cli.commands.ProgressBar", _crashing_progress(157))
        with pytest.raises(Crash):
            cli.main([*argv, "--checkpoint", path, "--checkpoint-every", "40"])
    capsys.readouterr()
    assert _json(capsys, [*argv, "--resume", path]) == whole  # from round 120: the rows 1 .. 100 from the file
    assert _json(capsys, [*argv, "--resume", path]) == whole  # a finished run: every row from the file


def test_a_checkpoint_without_the_table_still_resumes(tmp_path, capsys):
    """The table is an optional part of a checkpoint: one written by the library (no table) resumes on the
    command line, its table starting after the checkpoint; and the command line's resumes in the library."""
    from gamedyn import recipes
    from gamedyn.io.data_files import synthetic_data

    A = synthetic_data("60,5,0.1", seed=0).A
    path = str(tmp_path / "lib.npz")
    library = recipes.smooth_perceptron(A, 300, checkpoint=path)
    document = _json(capsys, ["run", "smooth_perceptron", "--synthetic", "60,5,0.1", "--no-oracle", "--T", "300",
                              "--json", "--resume", path])
    assert [step["t"] for step in document["steps"]] == [300] and document["output"] == library.w.tolist()
    resumed = recipes.smooth_perceptron(A, 300, resume_from=path)  # the file now holds the command line's table
    assert np.array_equal(resumed.w, library.w)


# ------------------------------------------------------------------------------------ --data scale


def test_data_of_1e300_runs_as_the_same_data_of_1(tmp_path, capsys):
    X, y = make_separable(50, 4, 0.1, seed=1)
    np.savez(tmp_path / "one.npz", X=X, y=y)
    np.savez(tmp_path / "big.npz", X=X * 2.0 ** 997, y=y)  # about 1e300, a power of two: the same rows scaled
    one = _json(capsys, ["run", "smooth_perceptron", "--data", str(tmp_path / "one.npz"), "--T", "50", "--json"])
    big = _json(capsys, ["run", "smooth_perceptron", "--data", str(tmp_path / "big.npz"), "--T", "50", "--json"])
    assert big["data"]["scaled_by"] == one["data"]["scaled_by"] * 2.0 ** 997
    for document in (one, big):
        document["data"].pop("scaled_by"), document["data"].pop("source")
    assert big == one
