"""The ``gamedyn`` command line: list, run (every data format, JSON, progress bar) and its errors."""

import io
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from gamedyn import cli, recipes
from gamedyn._data_files import load_data_file, parse_synthetic_spec, signs_from_labels
from gamedyn._progress import ProgressBar
from gamedyn.datasets import make_separable, signed_rows
from gamedyn.margins import max_margin, normalized_margin
from gamedyn.registry import original_entries, recipe_entries


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
    first_words = [line.split()[0] for line in out.splitlines() if line.startswith("  ")]
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
    result = function(A, T, options["p"], stop=stop) if "p" in options else function(A, T, **options, stop=stop)
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
    from gamedyn import _data_files

    available = min(_data_files.available_memory(), 100 * 2.0**30)  # also on a machine with 149 GiB free
    monkeypatch.setattr(_data_files, "available_memory", lambda: available)
    code, out, err = run_cli(capsys, "run", "nag_margin", "--synthetic", "100000000,20,0.05")
    assert code == 2 and out == ""
    assert "--synthetic 100000000,20,0.05 needs about 149 GiB" in err and "smaller n or d" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_memory_error_anywhere_is_one_line(capsys, monkeypatch):
    from gamedyn import _data_files

    def exhausted(*args, **kwargs):
        raise MemoryError()

    monkeypatch.setattr(_data_files, "synthetic_data", exhausted)
    code, _, err = run_cli(capsys, "run", "nag_margin")
    assert code == 2 and err.startswith("gamedyn run: error: out of memory") and len(err.strip().splitlines()) == 1


def test_unwritable_out_is_found_before_any_claim_runs(tmp_path, capsys, monkeypatch):
    """Regression: an unwritable --out was found only after every claim had run."""
    from gamedyn import reproduce

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
        if name == "gamedyn.datasets":
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
    from gamedyn.datasets import symmetric_pair

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
def test_p_below_2_is_refused_exactly_for_the_algorithms_that_declare_a_p(capsys, name):
    """``--p`` is checked for the entries whose declaration (Recipe or OriginalForm) names a ``p`` option."""
    entry = next(entry for entry in recipe_entries() + original_entries() if entry.name == name)
    declares_p = "p" in (entry.recipe.options if entry.recipe is not None else entry.form.options)
    code, _, err = run_cli(capsys, "run", name, "--synthetic", "40,3,0.2", "--T", "3", "--p", "1.5")
    assert declares_p == ("pnorm" in name)  # the three p-norm algorithms, and only they, declare a p
    assert (code != 0 and "--p must be a number >= 2" in err) if declares_p else code == 0, (code, err)
