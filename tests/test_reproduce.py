"""``gamedyn reproduce``: the claims table, a deliberately broken claim, selection, report and figures."""

import math
import os

import numpy as np
import pytest

from gamedyn import cli, reproduce
from gamedyn.registry import EQUIVALENCES, Equivalence
from gamedyn.reproduce import Claim, Context, Measurement


def run_cli(capsys, *argv):
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def table_lines(out):
    """The rows of the claims table (every row ends in PASS or FAIL)."""
    return [line for line in out.splitlines() if line.rstrip().endswith(("PASS", "FAIL"))]


def broken_claim(check=None):
    return Claim("Deliberately broken", "a claim that never holds", "selftest", ("selftest",), "value", "<=",
                 check or (lambda context: Measurement(1.0, 0.5, False, "broken on purpose")))


def test_reproduce_quick_prints_one_table_with_every_claim_passing(capsys):
    code, out, err = run_cli(capsys, "reproduce", "--quick")
    header = next(line for line in out.splitlines() if line.startswith("claim"))
    for column in reproduce.HEADERS:
        assert column in header
    rows = table_lines(out)
    assert len(rows) == len(reproduce.CLAIMS)
    assert all(row.rstrip().endswith("PASS") for row in rows), "\n".join(rows)
    for claim in reproduce.CLAIMS:
        assert claim.name[:20] in out
    assert not any(line.startswith("FAIL ") for line in out.splitlines()) and code == 0
    assert f"{len(reproduce.CLAIMS)} of {len(reproduce.CLAIMS)} claims PASS, 0 FAIL" in out
    assert err == ""  # no progress bar in a pipe


def test_every_group_is_present():
    groups = {claim.group for claim in reproduce.CLAIMS}
    assert {"equivalences", "rates", "iterations"} <= groups
    if reproduce.logistic_available() is None:
        assert "logistic" in groups
    assert {claim.name for claim in reproduce.CLAIMS if claim.group == "equivalences"} == {
        equivalence.claim for equivalence in EQUIVALENCES}


def test_a_broken_claim_makes_the_run_fail(capsys, monkeypatch):
    monkeypatch.setattr(reproduce, "CLAIMS", reproduce.CLAIMS + [broken_claim()])
    code, out, _ = run_cli(capsys, "reproduce", "--quick", "Proposition 1", "selftest")
    assert code == 1
    rows = table_lines(out)
    assert any(row.startswith("Deliberately broken") and row.rstrip().endswith("FAIL") for row in rows)
    assert any(row.startswith("Proposition 1 ") and row.rstrip().endswith("PASS") for row in rows)
    assert "FAIL Deliberately broken: broken on purpose" in out


def test_a_crashing_check_is_a_fail_not_a_crash(capsys, monkeypatch):
    def crash(context):
        raise RuntimeError("the check itself broke")

    monkeypatch.setattr(reproduce, "CLAIMS", reproduce.CLAIMS + [broken_claim(crash)])
    code, out, err = run_cli(capsys, "reproduce", "--quick", "selftest")
    assert code == 1 and "Traceback" not in out + err
    assert "error: RuntimeError: the check itself broke" in out


def test_an_equivalence_with_a_wrong_constant_fails():
    # negative control: a pair that is off by 1% must not pass the 1e-10 tolerance
    wrong = Equivalence("wrong constant", "x = 1.01 x", lambda A, T: [("x", 1.01 * A[0], A[0])])
    check = reproduce._equivalence_check(wrong)
    measurement = check(Context(reproduce.PROFILES["quick"]))
    assert not measurement.passed and measurement.measured == pytest.approx(0.01, rel=1e-9)


def test_a_rate_claim_fails_when_the_bound_is_violated(monkeypatch):
    from gamedyn import rates

    def violated(A, T, *, oracle=None):
        return [rates.RateCheck("5", "R_w + R_p", 2.0, 1.0, "<=")]

    monkeypatch.setattr(rates, "theorem5", violated)
    claim = next(claim for claim in reproduce.CLAIMS if claim.name == "Theorem 5: R_w + R_p")
    measurement = claim.check(Context(reproduce.PROFILES["quick"]))
    assert not measurement.passed and measurement.measured == pytest.approx(-1.0)


@pytest.mark.parametrize("name, tag", [("nag_margin", "nag_margin"), ("logistic", None), ("Theorem 4", "Theorem 4")])
def test_names_select_by_recipe_group_or_reference(name, tag):
    if name == "logistic" and reproduce.logistic_available() is not None:
        pytest.skip("gamedyn.logistic is not importable here")
    chosen = reproduce.select_claims(reproduce.CLAIMS, [name])
    assert chosen
    for claim in chosen:
        assert claim.group == name or tag in claim.tags


def test_unknown_names_are_an_error_listing_the_valid_ones():
    with pytest.raises(ValueError, match="valid names: .*nag_margin"):
        reproduce.select_claims(reproduce.CLAIMS, ["nag_margin", "no_such_claim"])


def test_logistic_claims_are_skipped_when_the_module_does_not_import(monkeypatch):
    monkeypatch.setattr(reproduce, "logistic_available", lambda: "ImportError: not here")
    assert all(claim.group != "logistic" for claim in reproduce.build_claims())


def test_report_md_holds_the_same_table(capsys, tmp_path):
    code, out, _ = run_cli(capsys, "reproduce", "--quick", "iterations", "--out", str(tmp_path), "--no-figures")
    assert code == 0
    report = (tmp_path / "report.md").read_text()
    assert "| claim | paper's statement | measured | bound / tolerance | result | details |" in report
    assert report.count("| PASS |") == len(table_lines(out))
    assert "## Iterations to a positive margin" in report and "hard data" in report


def test_figures_are_skipped_in_one_line_without_matplotlib(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(reproduce, "matplotlib_missing", lambda: True)
    code, out, _ = run_cli(capsys, "reproduce", "--quick", "Theorem 1", "--out", str(tmp_path))
    assert code == 0
    assert "figures skipped: matplotlib is not installed (pip install gamedyn[plot])" in out
    assert os.listdir(tmp_path) == ["report.md"]


def test_quick_without_out_writes_nothing(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, _ = run_cli(capsys, "reproduce", "--quick", "Theorem 6")
    assert code == 0 and os.listdir(tmp_path) == []


def test_measurements_of_the_quick_profile_are_finite_and_inside_their_bounds():
    context = Context(reproduce.PROFILES["quick"])
    for outcome in reproduce.run_claims(reproduce.select_claims(reproduce.CLAIMS, ["rates", "iterations"]), context):
        measured = outcome.measurement.measured
        assert math.isfinite(measured), outcome
        if outcome.claim.group == "rates":
            assert measured >= -1e-12 * max(1.0, abs(outcome.measurement.bound))  # slack >= 0
    table = context.iteration_table()
    perceptron = table.slopes[("hard", "perceptron")]
    accelerated = [slope for (family, name), slope in table.slopes.items() if family == "hard" and name != "perceptron"]
    assert perceptron >= reproduce.PERCEPTRON_SLOPE_AT_LEAST > reproduce.ACCELERATED_SLOPE_AT_MOST >= max(accelerated)


@pytest.mark.slow
def test_reproduce_full_passes_without_figures(capsys, tmp_path):
    code, out, _ = run_cli(capsys, "reproduce", "--full", "--out", str(tmp_path), "--no-figures")
    assert code == 0, out
    assert all(row.rstrip().endswith("PASS") for row in table_lines(out))


@pytest.mark.slow
def test_figures_command_writes_every_png(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    code, out, _ = run_cli(capsys, "figures", "--quick", "--out", str(tmp_path))
    assert code == 0
    written = sorted(name for name in os.listdir(tmp_path) if name.endswith(".png"))
    assert len(written) >= 3
    for name in written:
        with open(tmp_path / name, "rb") as handle:
            assert handle.read(8) == b"\x89PNG\r\n\x1a\n"
    assert all(str(tmp_path / name) in out for name in written)
    assert np.all([os.path.getsize(tmp_path / name) > 10_000 for name in written])


# ------------------------------------------------------------------ every row can fail (issue 11 item 9)


def test_a_claim_past_its_time_limit_fails_fast():
    import time

    import attrs

    def slow(context):
        time.sleep(30)
        return Measurement(0.0, 1.0, True)

    profile = attrs.evolve(reproduce.PROFILES["quick"], claim_seconds=0.5)
    start = time.perf_counter()
    outcome = reproduce.run_claim(broken_claim(slow), Context(profile))
    assert time.perf_counter() - start < 5
    assert not outcome.passed and "ClaimTimeout" in outcome.measurement.detail


def test_claims_after_the_run_limit_fail_unrun():
    import attrs

    import time

    ran = []
    claim = broken_claim(lambda context: ran.append(time.sleep(0.2)) or Measurement(0.0, 1.0, True))
    profile = attrs.evolve(reproduce.PROFILES["quick"], total_seconds=0.1)
    outcomes = reproduce.run_claims([claim, claim], Context(profile))
    assert len(ran) == 1  # the first claim starts inside the budget; the second does not run
    assert outcomes[0].passed and not outcomes[1].passed and "not run" in outcomes[1].measurement.detail


def test_the_quick_and_default_profiles_have_time_limits():
    for name in ("quick", "default"):
        assert reproduce.PROFILES[name].claim_seconds and reproduce.PROFILES[name].total_seconds


def _claim(name):
    return next(claim for claim in reproduce.CLAIMS if claim.name == name)


def test_the_theorem7_acceleration_row_needs_data_hard_for_the_baseline():
    from gamedyn.experiments.iterations import HARD_PNORM, IterationTable

    def measure(baseline, recipe):
        context = Context(reproduce.PROFILES["quick"])
        context._cache["iterations"] = IterationTable((), {(HARD_PNORM, "p-norm perceptron p=2"): baseline,
                                                           (HARD_PNORM, "pnorm_perceptron p=2"): recipe})
        return _claim("Acceleration (Thm 7)").check(context)

    assert measure(2.1, 0.9).passed
    assert not measure(2.1, 1.6).passed  # no acceleration
    assert not measure(0.8, 0.1).passed  # data easy for the baseline: the row would show nothing
    assert "not hard" in measure(0.8, 0.1).detail


def test_theorem_3_3_i_reports_a_measured_value_not_the_t0_equality():
    measurement = _claim("Theorem 3.3 (i)").check(Context(reproduce.PROFILES["quick"]))
    assert measurement.passed and measurement.measured < -0.1  # ln(L eta) at t = 0 is 0 up to rounding


def test_the_schedule_formula_is_schedule_7():
    """The transcription used by the 'Schedule (7)' row, against the spec's printed values (section 2 item 1:
    eta_1 = S_0/(2 ln^2 S_0) = 4.0e-4 for gamma = 0.1, 5.7e-5 for 0.05, 5.2e-6 for 0.02)."""
    for gamma, eta_1 in ((0.1, 4.0e-4), (0.05, 5.7e-5), (0.02, 5.2e-6)):
        eta, S = reproduce.schedule_by_the_formula(gamma, 3)
        assert eta[0] == pytest.approx(1 / math.log(2), rel=1e-15)
        assert eta[1] == pytest.approx(eta_1, rel=0.03)
        assert S[2] == pytest.approx(S[1] + gamma**2 * eta[2], rel=1e-15)


@pytest.mark.skipif(reproduce.logistic_available() is not None, reason="gamedyn.logistic is not importable")
@pytest.mark.parametrize("row, target, perturb", [
    ("Schedule (7)", "IncreasingSchedule.compute", lambda out: (out[0] + math.log(2), out[1])),  # the 1/2 dropped
    ("GD (6)", "gd", lambda out: __import__("attrs").evolve(out, w=out.w * (1 + 1e-6))),
    ("Adaptive SGD (10)+(11)", "adaptive_sgd", lambda out: __import__("attrs").evolve(out, w=out.w * (1 + 1e-6))),
])
def test_the_seed2_exact_rows_fail_when_the_library_drifts(monkeypatch, row, target, perturb):
    from gamedyn import logistic

    owner, name = (logistic.IncreasingSchedule, "compute") if "." in target else (logistic, target)
    real = getattr(owner, name)
    monkeypatch.setattr(owner, name, lambda *args, **kwargs: perturb(real(*args, **kwargs)))
    measurement = _claim(row).check(Context(reproduce.PROFILES["quick"]))
    assert not measurement.passed, measurement


def test_a_broken_recipe_makes_quick_fail_fast(capsys, monkeypatch):
    import time

    import attrs

    import gamedyn.recipes

    def stuck(*args, **kwargs):  # a recipe that never returns in reasonable time
        time.sleep(120)

    monkeypatch.setattr(gamedyn.recipes, "pnorm_perceptron", stuck)
    monkeypatch.setitem(reproduce.PROFILES, "quick",
                        attrs.evolve(reproduce.PROFILES["quick"], claim_seconds=1.0, total_seconds=3.0))
    start = time.perf_counter()
    code, out, _ = run_cli(capsys, "reproduce", "--quick", "pnorm_perceptron")
    assert code == 1 and time.perf_counter() - start < 30
    assert "ClaimTimeout" in out and "not run" in out
