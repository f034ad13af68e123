"""The ``gamedyn`` command line: list, run (every data format, JSON, progress bar) and its errors."""

import io
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from gamedyn import cli, recipes
from gamedyn.core.validation import signs_from_labels
from gamedyn.io.data_files import load_data_file, parse_synthetic_spec
from gamedyn.cli.progress import ProgressBar
from gamedyn.io import make_separable, signed_rows
from gamedyn.certify import max_margin, normalized_margin
from gamedyn.paper.registry import original_entries, recipe_entries


def run_cli(capsys, *argv):
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def run_json(capsys, *argv):
    code, out, err = run_cli(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


# ------------------------------------------------------------------------------------------ list


def test_list_shows_every_recipe_and_original_exactly_once(capsys):
    code, out, _ = run_cli(capsys, "list")
    assert code == 0
    first_words = [line.split()[0] for line in out.splitlines()  # a recipe's options / a family's usage: "word:"
                   if line.startswith("  ") and not line.split()[0].endswith(":")]
    names = [entry.name for entry in recipe_entries() + original_entries()]
    assert sorted(first_words) == sorted(names)
    for entry in recipe_entries() + original_entries():
        assert entry.reference in out


# ------------------------------------------------------------------------------------------- run


def test_run_synthetic_prints_one_row_per_reporting_step(capsys):
    code, out, err = run_cli(capsys, "run", "nag_margin", "--synthetic", "60,5,0.1", "--T", "50")
    assert code == 0 and err == ""
    rows = [line.split() for line in out.splitlines() if line.strip() and line.split()[0].isdigit()]
    assert [int(row[0]) for row in rows] == [1, 2, 5, 10, 20, 50]
    assert "max margin gamma" in out and "make_separable(n=60, d=5, gamma=0.1, seed=0)" in out


def test_run_json_matches_the_recipe_and_theorem2(capsys):
    document = run_json(capsys, "run", "smooth_perceptron", "--synthetic", "80,6,0.1", "--T", "40", "--every", "10")
    A = signed_rows(*make_separable(80, 6, 0.1, 0))
    result = recipes.smooth_perceptron(A, 40)
    assert [step["t"] for step in document["steps"]] == [10, 20, 30, 40]
    final = document["steps"][-1]
    assert final["normalized_margin"] == pytest.approx(normalized_margin(A, result.w), rel=1e-12)
    assert final["theorem2_bound"] == pytest.approx(result.game.theorem2_bound, rel=1e-12)
    assert document["max_margin"] == pytest.approx(max_margin(A).gamma, rel=1e-12)
    np.testing.assert_allclose(document["output"], result.w, rtol=1e-15)  # the output vector itself
    for step in document["steps"]:  # Theorem 2's bound is (R_w + R_p) / S_t with S_t = t(t+1)/2
        t = step["t"]
        assert step["theorem2_bound"] == pytest.approx((step["w_regret"] + step["p_regret"]) / (t * (t + 1) / 2))


@pytest.mark.parametrize("name, options", [
    ("smooth_perceptron", {}), ("accelerated_perceptron", {"theta": "wang"}), ("accelerated_perceptron", {"theta": "ji"}),
    ("mirror_prox_perceptron", {}), ("nag_margin", {}), ("pnorm_perceptron", {"p": 3.0}),
])
def test_recipe_output_read_from_the_running_sums_is_the_recipes_output(name, options):
    A = signed_rows(*make_separable(40, 5, 0.1, 1))
    T, seen = 25, {}

    def stop(state):
        if state.t == T:
            seen["w"] = cli.recipe_output(name, state, options.get("theta", "wang"))
        return False

    function = getattr(recipes, name)
    result = function(A, T, **options, stop=stop)
    np.testing.assert_allclose(seen["w"], result.w, rtol=1e-13, atol=1e-15)


def test_run_accelerated_theta_ji_reports_no_theorem2_bound(capsys):
    document = run_json(capsys, "run", "accelerated_perceptron", "--theta", "ji", "--synthetic", "50,5,0.1", "--T", "20")
    assert all(step["theorem2_bound"] is None for step in document["steps"])
    assert all(step["w_regret"] is not None for step in document["steps"])


def test_run_pnorm_reports_the_regret_against_the_max_margin_direction(capsys):
    document = run_json(capsys, "run", "pnorm_perceptron", "--synthetic", "50,5,0.1", "--T", "30")
    assert all(np.isfinite(step["w_regret"]) for step in document["steps"])
    assert any("R_w(u)" in note for note in document["notes"])


@pytest.mark.parametrize("name", ["original.smooth_perceptron", "accelerated_perceptron", "mirror_prox", "nag"])
def test_originals_give_the_same_normalised_margin_as_their_recipe(capsys, name):
    recipe = {"original.smooth_perceptron": "smooth_perceptron", "accelerated_perceptron": "accelerated_perceptron",
              "mirror_prox": "mirror_prox_perceptron", "nag": "nag_margin"}[name]
    original_name = name if name.startswith("original.") else f"original.{name}"
    arguments = ["--synthetic", "60,5,0.1", "--T", "30"]
    original_steps = run_json(capsys, "run", original_name, *arguments)["steps"]
    recipe_steps = run_json(capsys, "run", recipe, *arguments)["steps"]
    assert [step["t"] for step in original_steps] == [step["t"] for step in recipe_steps]
    original_output = np.array(run_json(capsys, "run", original_name, *arguments)["output"])
    recipe_output_ = np.array(run_json(capsys, "run", recipe, *arguments)["output"])
    np.testing.assert_allclose(original_output, recipe_output_, rtol=1e-9, atol=1e-12)  # the output vectors agree
    for ours, theirs in zip(original_steps, recipe_steps):  # Propositions 1, 2, Theorems 5, 6
        assert ours["normalized_margin"] == pytest.approx(theirs["normalized_margin"], rel=1e-10, abs=1e-12)


def test_run_perceptron_alias_reports_its_updates(capsys):
    document = run_json(capsys, "run", "perceptron", "--synthetic", "60,5,0.1", "--T", "10000")
    assert document["algorithm"] == "original.perceptron"
    (step,) = document["steps"]
    assert step["margin"] > 0 and 1 <= step["t"] <= 1 / document["max_margin"] ** 2  # Novikoff


# ------------------------------------------------------------------------------------ data files


@pytest.fixture()
def separable():
    X, y = make_separable(40, 4, 0.1, 3)
    return 3.0 * X, y  # rows up to norm 3: the loader must scale them back to max norm 1


def _write_formats(folder, X, y):
    labels01 = (y > 0).astype(int)
    paths = {}
    paths["npz_xy"] = folder / "xy.npz"
    np.savez(paths["npz_xy"], X=X, y=y)
    paths["npz_a"] = folder / "a.npz"
    np.savez(paths["npz_a"], A=X * y[:, None])
    paths["npy_a"] = folder / "a.npy"
    np.save(paths["npy_a"], X * y[:, None])
    paths["npy_xy"] = folder / "xy.npy"
    np.save(paths["npy_xy"], np.column_stack([X, y]))
    paths["csv"] = folder / "points.csv"
    with open(paths["csv"], "w") as handle:
        handle.write(",".join([f"x{j}" for j in range(X.shape[1])] + ["label"]) + "\n")  # a header line
        for row, label in zip(X, labels01):  # 0/1 labels
            handle.write(",".join(repr(float(value)) for value in row) + f",{label}\n")
    return paths


def test_every_file_format_gives_the_same_scaled_signed_rows(tmp_path, separable):
    X, y = separable
    expected = X * y[:, None]
    expected = expected / np.max(np.linalg.norm(expected, axis=1))
    for kind, path in _write_formats(tmp_path, X, y).items():
        data = load_data_file(path, layout="Xy" if kind == "npy_xy" else "A")
        np.testing.assert_allclose(data.A, expected, rtol=1e-12, atol=1e-15, err_msg=kind)
        assert data.scaled_by == pytest.approx(np.max(np.linalg.norm(X, axis=1)), rel=1e-12)
        assert np.max(np.linalg.norm(data.A, axis=1)) == pytest.approx(1.0)


def test_run_on_each_file_format(tmp_path, capsys, separable):
    X, y = separable
    margins = set()
    for kind, path in _write_formats(tmp_path, X, y).items():
        extra = ["--npy-layout", "Xy"] if kind == "npy_xy" else []
        document = run_json(capsys, "run", "mirror_prox_perceptron", "--data", str(path), "--T", "20", *extra)
        assert (document["data"]["n"], document["data"]["d"]) == X.shape
        margins.add(round(document["max_margin"], 10))
    assert len(margins) == 1  # the same data, whatever the format
    code, out, _ = run_cli(capsys, "run", "nag_margin", "--data", str(tmp_path / "points.csv"), "--T", "5")
    assert code == 0 and "scaled by 1/max||x_i||" in out


def test_run_on_svmlight_written_by_scikit_learn(tmp_path, capsys, separable):
    datasets = pytest.importorskip("sklearn.datasets")
    X, y = separable
    path = tmp_path / "train.svmlight"
    datasets.dump_svmlight_file(X, y, str(path))
    document = run_json(capsys, "run", "nag_margin", "--data", str(path), "--T", "20")
    A = X * y[:, None]
    assert document["max_margin"] == pytest.approx(max_margin(A / np.max(np.linalg.norm(A, axis=1))).gamma, rel=1e-6)
    assert document["steps"][-1]["margin"] > 0


def test_labels_in_zero_one_become_minus_one_plus_one_and_others_are_rejected():
    np.testing.assert_array_equal(signs_from_labels([0, 1, 1, 0], "f"), [-1, 1, 1, -1])
    np.testing.assert_array_equal(signs_from_labels([-1, 1], "f"), [-1, 1])
    with pytest.raises(ValueError, match=r"\{-1, 0, 1\}"):
        signs_from_labels([-1, 0, 1], "f")


@pytest.mark.parametrize("text, expected", [("200,20,0.05", (200, 20, 0.05)), (" 5, 2 ,0.3", (5, 2, 0.3))])
def test_synthetic_spec_parses(text, expected):
    assert parse_synthetic_spec(text) == expected


# ---------------------------------------------------------------------------------------- errors


def _error_files(folder):
    bad_labels = folder / "bad_labels.csv"
    bad_labels.write_text("0.1,0.2,1\n0.3,0.1,2\n")
    xor = folder / "xor.csv"  # not separable through the origin
    xor.write_text("1,0,1\n-1,0,1\n0,1,-1\n0,-1,-1\n")
    unknown = folder / "data.parquet"
    unknown.write_text("x")
    broken = folder / "broken.npy"
    broken.write_text("not numpy")
    return {"bad_labels": bad_labels, "xor": xor, "unknown": unknown, "broken": broken}


@pytest.mark.parametrize("argv, expected", [
    (["run", "no_such_recipe"], "valid names: smooth_perceptron"),
    (["run", "nag_margin", "--data", "{missing}"], "no such file"),
    (["run", "nag_margin", "--data", "{bad_labels}"], "labels must be in {-1, +1} or {0, 1}"),
    (["run", "nag_margin", "--data", "{unknown}"], "unknown data format"),
    (["run", "nag_margin", "--data", "{broken}"], "cannot be read"),
    (["run", "nag_margin", "--T", "0"], "--T must be a positive integer"),
    (["run", "nag_margin", "--T", "-5"], "--T must be a positive integer"),
    (["run", "nag_margin", "--synthetic", "1,2"], "--synthetic expects n,d,gamma"),
    (["run", "nag_margin", "--synthetic", "a,b,c"], "--synthetic expects n,d,gamma"),
    (["run", "nag_margin", "--synthetic", "20,2,1.5"], "--synthetic expects n,d,gamma"),
    (["run", "nag_margin", "--every", "0"], "--every must be a positive integer"),
    (["run", "nag_margin", "--T", "ten"], "invalid int value"),
    (["run", "nag_margin", "--no-such-option"], "unrecognized arguments"),
    (["reproduce", "--quick", "no_such_claim"], "valid names:"),
    ([], "required"),
])
def test_errors_are_one_line_on_stderr_with_exit_status_2(tmp_path, capsys, argv, expected):
    files = _error_files(tmp_path)
    argv = [part.format(missing=tmp_path / "missing.csv", **files) for part in argv]
    code, out, err = run_cli(capsys, *argv)
    assert code == 2
    assert expected in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_svmlight_without_scikit_learn_says_how_to_install(tmp_path, capsys, monkeypatch):
    path = tmp_path / "data.svm"
    path.write_text("1 1:0.5\n-1 1:-0.5\n")
    monkeypatch.setitem(sys.modules, "sklearn.datasets", None)  # makes the import fail
    code, _, err = run_cli(capsys, "run", "nag_margin", "--data", str(path))
    assert code == 2 and "pip install gamedyn[data]" in err and len(err.strip().splitlines()) == 1


def test_console_entry_point_prints_no_traceback():
    completed = subprocess.run([sys.executable, "-m", "gamedyn", "run", "no_such_recipe"],
                               capture_output=True, text=True, timeout=60)
    assert completed.returncode == 2
    assert completed.stderr.count("\n") == 1 and "Traceback" not in completed.stderr
    assert "gamedyn list" in completed.stderr


# -------------------------------------------------------------------------------------- progress


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_bar_draws_on_a_terminal_and_erases_itself():
    stream = FakeTerminal()
    with ProgressBar(total=4, label="work", stream=stream, min_interval=0.0) as bar:
        for done in range(1, 5):
            bar.update(done)
    text = stream.getvalue()
    assert "work [" in text and "4/4" in text and "100%" in text
    assert text.endswith("\r")  # erased: the next line starts clean


def test_progress_bar_writes_nothing_when_not_a_terminal():
    stream = io.StringIO()
    with ProgressBar(total=4, label="work", stream=stream, min_interval=0.0) as bar:
        bar.update(2)
    assert stream.getvalue() == ""


def test_run_shows_progress_on_a_terminal_only(capsys, monkeypatch):
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    code = cli.main(["run", "nag_margin", "--synthetic", "40,4,0.1", "--T", "30"])
    assert code == 0 and "nag_margin, round [" in terminal.getvalue()
    monkeypatch.undo()
    code, out, err = run_cli(capsys, "run", "nag_margin", "--synthetic", "40,4,0.1", "--T", "30")
    assert code == 0 and err == "" and "\r" not in out  # piped: plain lines, no bar anywhere


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_progress_bar_on_a_real_pseudo_terminal_and_not_in_a_pipe():
    master, slave = os.openpty()
    command = [sys.executable, "-m", "gamedyn", "run", "nag_margin", "--synthetic", "40,4,0.1", "--T", "300"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=slave) as process:
        os.close(slave)
        out, _ = process.communicate(timeout=60)
    drawn = b""
    while True:  # the bar is far smaller than the terminal's buffer; EIO once it is drained
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        drawn += chunk
    os.close(master)
    assert process.returncode == 0
    assert b"nag_margin, round [" in drawn and b"300/300" in drawn  # on the terminal (stderr)
    assert b"round [" not in out and b"\r" not in out  # stdout is a pipe: plain lines only


@pytest.mark.parametrize("name", ["nag_margin", "smooth_perceptron", "mirror_prox_perceptron", "original.nag"])
def test_run_certifies_non_separable_data_with_exit_status_0(tmp_path, capsys, name):
    files = _error_files(tmp_path)
    code, out, err = run_cli(capsys, "run", name, "--data", str(files["xor"]), "--T", "200")
    assert code == 0, err
    assert "verdict: not separable: 0 lies in the convex hull of the rows (Gordan)" in out


def test_run_reports_the_certified_upper_end_each_step(capsys):
    code, out, err = run_cli(capsys, "run", "smooth_perceptron", "--synthetic", "60,5,0.1", "--T", "100")
    assert code == 0 and "upper U_t" in out and "verdict: separable" in out
    gamma = float(out.split("max margin gamma = ")[1].split()[0])
    rows = [line.split() for line in out.splitlines() if line.strip() and line.split()[0].isdigit()]
    uppers = [float(row[-1]) for row in rows]
    assert all(upper >= gamma * (1 - 1e-5) for upper in uppers)  # gamma is printed to 6 digits


# ------------------------------------------------------------------ leaks (issue 11, item 7)


def test_synthetic_data_too_large_for_memory_is_one_line_before_allocating(capsys, monkeypatch):
    """Regression: --synthetic 100000000,20,0.05 printed a MemoryError traceback."""
    from gamedyn.io import data_files

    available = min(data_files.available_memory(), 100 * 2.0**30)  # also on a machine with 149 GiB free
    monkeypatch.setattr(data_files, "available_memory", lambda: available)
    code, out, err = run_cli(capsys, "run", "nag_margin", "--synthetic", "100000000,20,0.05")
    assert code == 2 and out == ""
    assert "--synthetic 100000000,20,0.05 needs about 149 GiB" in err and "smaller n or d" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_memory_error_anywhere_is_one_line(capsys, monkeypatch):
    from gamedyn.io import data_files

    def exhausted(*args, **kwargs):
        raise MemoryError()

    monkeypatch.setattr(data_files, "synthetic_data", exhausted)
    code, _, err = run_cli(capsys, "run", "nag_margin")
    assert code == 2 and err.startswith("gamedyn run: error: out of memory") and len(err.strip().splitlines()) == 1


def test_unwritable_out_is_found_before_any_claim_runs(tmp_path, capsys, monkeypatch):
    """Regression: an unwritable --out was found only after every claim had run."""
    from gamedyn.paper import reproduce

    def never(*args, **kwargs):
        raise AssertionError("a claim ran before --out was checked")

    monkeypatch.setattr(reproduce, "run_claims", never)
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    for command in (["reproduce", "--quick"], ["reproduce"], ["figures"]):
        if command == ["figures"] and reproduce.matplotlib_missing():
            continue
        code, _, err = run_cli(capsys, *command, "--out", str(a_file / "report"))
        assert code == 2 and "--out" in err and "not a writable folder" in err, (command, err)
        assert len(err.strip().splitlines()) == 1


_TRIP = """import os, signal, sys

class Trip:  # Ctrl-C arrives while gamedyn imports its dependencies
    def find_spec(self, name, path=None, target=None):
        if name == "numpy":  # the first dependency the command line imports, after its start-up handler
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, Trip())
"""


@pytest.mark.parametrize("launcher", ["module", "script"])
def test_ctrl_c_during_start_up_prints_one_line_and_exits_130(tmp_path, launcher):
    """Regression: an interrupt during the imports printed a KeyboardInterrupt traceback."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(_TRIP)
    if launcher == "module":
        command = [sys.executable, "-m", "gamedyn", "list"]
    else:  # what pip's console script does, under the script's name
        script = tmp_path / "gamedyn"
        script.write_text("import sys\nfrom gamedyn.cli import main\nsys.exit(main())\n")
        command = [sys.executable, str(script), "list"]
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), root]))
    completed = subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=root, env=environment)
    assert completed.returncode == 130, completed.stderr
    assert completed.stderr == "gamedyn: interrupted while starting\n" and completed.stdout == ""


def test_importing_gamedyn_elsewhere_keeps_the_default_interrupt_handler():
    code = "import signal, gamedyn; print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)"
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=root)
    assert completed.stdout.strip() == "True", completed.stderr


def _corrupt_files(folder):
    not_numpy = folder / "text.npy"
    not_numpy.write_text("not numpy")
    pickled = folder / "objects.npy"
    np.save(pickled, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    truncated = folder / "truncated.npy"
    np.save(truncated, np.ones((100, 3)))
    truncated.write_bytes(truncated.read_bytes()[:300])
    not_zip = folder / "garbage.npz"
    not_zip.write_bytes(b"PK\x03\x04garbage")
    pickled_member = folder / "objects.npz"
    np.savez(pickled_member, A=np.array([{"a": 1}], dtype=object))
    binary_csv = folder / "binary.csv"
    binary_csv.write_bytes(bytes(range(256)) * 4)
    return [not_numpy, pickled, truncated, not_zip, pickled_member, binary_csv]


def test_corrupt_numpy_and_binary_csv_files_are_one_line_naming_the_file(tmp_path, capsys):
    """Regression: numpy's allow_pickle advice, and a UTF-8 decode error without the file name."""
    for path in _corrupt_files(tmp_path):
        code, _, err = run_cli(capsys, "run", "nag_margin", "--data", str(path))
        assert code == 2, (path, err)
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
        assert str(path) in err and "allow_pickle" not in err, err


@pytest.mark.parametrize("gamma", [1e-9, 1e-12])
def test_run_accepts_a_tiny_margin_data_file(tmp_path, capsys, gamma):
    """Regression (issue 11 item 1, knock-on): `gamedyn run` called tiny-margin data not separable."""
    from gamedyn.io import symmetric_pair

    X, y = symmetric_pair(gamma)
    path = tmp_path / "tiny.csv"
    np.savetxt(path, np.column_stack([X, y]), delimiter=",")
    document = run_json(capsys, "run", "perceptron", "--data", str(path), "--T", "10")
    assert document["max_margin"] == pytest.approx(gamma, rel=1e-6)
    assert document["steps"][-1]["margin"] > 0


@pytest.mark.parametrize("name", ["smooth_perceptron", "accelerated_perceptron", "mirror_prox", "nag",
                                  "accelerated_pnorm_perceptron"])
def test_original_output_read_from_its_trajectory_is_its_final_output(name):
    """The registry's OriginalForm: w after round t (read from the trajectory) = the output of the t-round run."""
    A = signed_rows(*make_separable(40, 5, 0.1, 1))
    entry = cli.resolve_entry(f"original.{name}")
    reports, _, output = cli.run_original(entry, A, 12, [1, 5, 12], p=3.0)
    assert [step.t for step in reports] == [1, 5, 12]
    for step in reports:
        w = entry.form.final(entry.form.call(A, step.t, {"p": 3.0, "theta": "wang"}, False))
        assert step.margin == pytest.approx(float(np.min(A @ w)), rel=1e-12, abs=1e-15)
    np.testing.assert_allclose(output, w, rtol=1e-12, atol=1e-15)  # the final output vector (run --json)


@pytest.mark.parametrize("name", [entry.name for entry in recipe_entries() + original_entries()])
def test_p_and_theta_are_refused_where_they_do_not_apply(capsys, name):
    """Regression (issue 16): ``--p`` and ``--theta`` were silently ignored by the algorithms without them.
    ``--p`` is checked (>= 2) for the entries whose declaration names a ``p`` option, refused elsewhere
    with the algorithms that take it; the same for ``--theta``."""
    entry = next(entry for entry in recipe_entries() + original_entries() if entry.name == name)
    declared = entry.recipe.options if entry.recipe is not None else entry.form.options
    assert ("p" in declared) == ("pnorm" in name)  # the three p-norm algorithms, and only they, declare a p
    assert ("theta" in declared) == ("accelerated_perceptron" in name)
    code, _, err = run_cli(capsys, "run", name, "--synthetic", "40,3,0.2", "--T", "3", "--p", "1.5")
    expected = "--p must be a number >= 2" if "p" in declared else "--p applies to the p-norm algorithms ("
    assert code == 2 and expected in err and len(err.strip().splitlines()) == 1, (code, err)
    if "p" not in declared:
        assert "original.pnorm_perceptron" in err and f"{name} has no p: drop --p" in err
    code, _, err = run_cli(capsys, "run", name, "--synthetic", "40,3,0.2", "--T", "3", "--p", "3")
    assert code == (0 if "p" in declared else 2), err
    code, _, err = run_cli(capsys, "run", name, "--synthetic", "40,3,0.2", "--T", "3", "--theta", "ji")
    assert code == (0 if "theta" in declared else 2), err
    if "theta" not in declared:
        assert "--theta applies to the accelerated perceptron (accelerated_perceptron, " in err


# ------------------------------------------------------- tried as a new user would (issue 16)


def test_npy_with_the_label_column_last_needs_a_layout(tmp_path, capsys, separable):
    """Regression: `run --data Xy.npy` with Xy = np.c_[X, y] read the labels as a feature and printed
    "not separable" with exit status 0. A last column of only +-1 reads two ways (labels last, or the
    intercept column of signed rows y_i [x_i, 1]): refused in one line naming both, unless --npy-layout says."""
    X, y = separable
    labels_last = tmp_path / "Xy.npy"
    np.save(labels_last, np.c_[X, y])
    intercept = tmp_path / "A1.npy"
    np.save(intercept, np.c_[X, np.ones(len(y))] * y[:, None])  # signed rows with an intercept: last column +-1 too
    zero_one = tmp_path / "Xy01.npy"
    np.save(zero_one, np.c_[X, (y > 0).astype(float)])
    for path in (labels_last, intercept, zero_one):
        code, out, err = run_cli(capsys, "run", "smooth_perceptron", "--data", str(path), "--T", "50")
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, (path, code, out, err)
        assert str(path) in err and "--npy-layout Xy" in err and "--npy-layout A" in err
    document = run_json(capsys, "run", "smooth_perceptron", "--data", str(labels_last), "--T", "50", "--npy-layout", "Xy")
    assert document["separable"] is True
    assert document["max_margin"] == pytest.approx(max_margin(load_data_file(tmp_path / "Xy.npy", "Xy").A).gamma)
    assert run_json(capsys, "run", "smooth_perceptron", "--data", str(intercept), "--T", "5", "--npy-layout", "A")["data"]["d"] == 5
    generic = tmp_path / "A.npy"  # signed rows whose last column is an ordinary feature: no question to ask
    np.save(generic, X * y[:, None])
    assert run_json(capsys, "run", "smooth_perceptron", "--data", str(generic), "--T", "5")["separable"] is True


def test_npy_layout_and_seed_are_refused_where_they_do_not_apply(tmp_path, capsys, separable):
    """Regression: --npy-layout (and --seed) were silently ignored on data they do not describe."""
    X, y = separable
    paths = _write_formats(tmp_path, X, y)
    folder = tmp_path / "chunks"
    folder.mkdir()
    np.save(folder / "A_000.npy", X * y[:, None])
    cases = [
        (["--synthetic", "30,3,0.2", "--npy-layout", "Xy"], "--npy-layout says how to read a .npy file"),
        (["--data", str(paths["csv"]), "--npy-layout", "Xy"], "--npy-layout applies to a .npy file; "),
        (["--data", str(paths["npz_xy"]), "--npy-layout", "A"], "is a .npz file"),
        (["--data", str(folder), "--npy-layout", "A"], "names its layout by its chunk files"),
        (["--data", str(paths["csv"]), "--seed", "3"], "--seed seeds the synthetic data"),
    ]
    for arguments, expected in cases:
        for command in (["run", "nag_margin", "--T", "3"], ["explore", "--T", "3"]):
            code, out, err = run_cli(capsys, *command, *arguments)
            assert code == 2 and expected in err and len(err.strip().splitlines()) == 1, (command, arguments, err)
    assert run_json(capsys, "run", "nag_margin", "--T", "3", "--synthetic", "30,3,0.2", "--seed", "3")["data"]["source"] \
        == "make_separable(n=30, d=3, gamma=0.2, seed=3)"


def test_pnorm_rows_and_header_are_in_the_certificates_q_norm(capsys):
    """Regression: `run pnorm_perceptron --p 4` printed an l2 normalised margin (0.0533) beside a q-norm
    upper end (0.0528) in one row, and an l2 gamma in its header. Every number is now in q = p/(p-1):
    normalised_q(w_t) <= gamma_q <= U_t in every row (weak duality), gamma_q from max_margin_q."""
    from gamedyn.certify import max_margin_q

    q = 4 / 3
    A = signed_rows(*make_separable(200, 20, 0.05, 0))
    document = run_json(capsys, "run", "pnorm_perceptron", "--p", "4", "--synthetic", "200,20,0.05", "--T", "200")
    bracket = max_margin_q(A, q)
    for step in document["steps"]:
        assert step["normalized_margin"] <= bracket.upper * (1 + 1e-12) and bracket.lower <= step["upper"] * (1 + 1e-12)
    assert any(step["normalized_margin"] > 0.8 * bracket.lower for step in document["steps"])  # l2 would exceed U_t
    w = np.array(document["output"])
    final = document["steps"][-1]
    assert final["normalized_margin"] == pytest.approx(np.min(A @ w) / np.sum(np.abs(w) ** q) ** (1 / q), rel=1e-12)
    assert document["max_margin"] == pytest.approx(bracket.lower) and document["margin_norm_q"] == pytest.approx(q)
    code, out, _ = run_cli(capsys, "run", "pnorm_perceptron", "--p", "4", "--synthetic", "200,20,0.05", "--T", "200")
    assert code == 0 and f"max margin gamma_q = {bracket.lower:.6g} (q = p/(p-1) = 1.33333" in out
    assert "normalised_q" in out and "upper_q U_t" in out and "(exact l2 oracle)" not in out
    rows = [line.split() for line in out.splitlines() if line.strip() and line.split()[0].isdigit()]
    assert all(float(row[2]) <= float(row[-1]) for row in rows)  # normalised_q <= upper_q in each row
    two = run_json(capsys, "run", "pnorm_perceptron", "--synthetic", "200,20,0.05", "--T", "20")  # p = 2: l2, as before
    assert two["margin_norm_q"] == 2.0 and two["max_margin"] == pytest.approx(max_margin(A).gamma, rel=1e-12)


def test_csv_first_line_mixing_numbers_and_text_is_an_error_not_a_header(tmp_path, capsys):
    """Regression: a CSV whose first line is `1,2,abc` silently lost it as a header (and with it an example)."""
    path = tmp_path / "mixed.csv"
    path.write_text("1,2,abc\n0.5,0.1,1\n-0.2,-0.4,-1\n")
    code, out, err = run_cli(capsys, "run", "nag_margin", "--data", str(path), "--T", "5")
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert str(path) in err and "line 1" in err and "field 3 is 'abc'" in err
    names = tmp_path / "names.csv"  # every field non-numeric: a header, skipped (after comments and blank lines)
    names.write_text("# points\n\nx1,x2,label\n0.5,0.1,1\n-0.2,-0.4,-1\n0.3,-0.1,1\n")
    numbers = tmp_path / "numbers.csv"  # every field numeric: the first example, kept
    numbers.write_text("0.5,0.1,1\n-0.2,-0.4,-1\n0.3,-0.1,1\n")
    assert load_data_file(names).n == load_data_file(numbers).n == 3
    np.testing.assert_array_equal(load_data_file(names).A, load_data_file(numbers).A)


def test_exact_oracle_runs_only_when_cheap_or_asked(capsys, monkeypatch):
    """Regression: `run` ran the exact oracle on all the data only to print the max margin (8 min 27 s
    and 2 GB at n = 5e5, d = 100 before a 4 s run), with no way to skip it. Over the budget it is
    skipped and says how to force it; --oracle forces it, --no-oracle skips it."""
    from gamedyn.certify import margins

    calls = []
    exact = margins.max_margin
    monkeypatch.setattr(margins, "max_margin", lambda A, **kw: calls.append(A.shape) or exact(A, **kw))
    assert cli.oracle_work(500, 100) == 500 * 100 * 100 and cli.oracle_work(5 * 10**5, 100) > 10 * cli.ORACLE_BUDGET
    assert cli.oracle_work(10**4, 100) <= cli.ORACLE_BUDGET  # the measured few seconds
    monkeypatch.setattr(cli, "ORACLE_BUDGET", 60 * 5 * 5 - 1)  # just below n d min(n, d) of 60 x 5
    code, out, err = run_cli(capsys, "run", "smooth_perceptron", "--synthetic", "60,5,0.1", "--T", "20")
    assert code == 0 and calls == [] and "max margin gamma: skipped" in out and "--oracle" in out
    assert "verdict: separable" in out  # the run's own certificate still decides
    document = run_json(capsys, "run", "smooth_perceptron", "--synthetic", "60,5,0.1", "--T", "20")
    assert calls == [] and document["oracle"] == "skipped" and document["max_margin"] is None and document["separable"] is None
    document = run_json(capsys, "run", "smooth_perceptron", "--synthetic", "60,5,0.1", "--T", "20", "--oracle")
    assert calls == [(60, 5)] and document["oracle"] == "computed" and document["max_margin"] > 0
    monkeypatch.setattr(cli, "ORACLE_BUDGET", 60 * 5 * 5)  # at the budget: computed by default
    assert run_json(capsys, "run", "smooth_perceptron", "--synthetic", "60,5,0.1", "--T", "20")["oracle"] == "computed"
    calls.clear()
    code, out, _ = run_cli(capsys, "run", "smooth_perceptron", "--synthetic", "60,5,0.1", "--T", "20", "--no-oracle")
    assert code == 0 and calls == [] and "max margin gamma: not computed (--no-oracle)" in out


def test_version_prints_the_packages_one_version(capsys):
    """``gamedyn --version`` (issue 31): the version written once, gamedyn.__version__, exit status 0."""
    import gamedyn

    code, out, err = run_cli(capsys, "--version")
    assert code == 0 and out.strip() == f"gamedyn {gamedyn.__version__}" and err == ""


def test_reproduce_prints_a_line_per_claim_as_it_ends(capsys):
    """``gamedyn reproduce`` says how far it is (issue 31: it printed nothing for the whole claims phase): one line
    per claim, in order, as each ends, before the table."""
    code, out, _ = run_cli(capsys, "reproduce", "--quick", "Theorem 1", "Hedge")
    lines = [line for line in out.splitlines() if line.startswith("[")]
    assert code == 0 and len(lines) >= 2
    total = len(lines)
    for number, line in enumerate(lines, start=1):
        assert line.startswith(f"[{number:>{len(str(total))}}/{total}] PASS "), line
    assert out.index(lines[-1]) < out.index("paper's statement")
