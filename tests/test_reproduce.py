"""``gamedyn reproduce``: the claims table, a deliberately broken claim, selection, report and figures."""

import math
import os

import numpy as np
import pytest

from gamedyn import cli
from gamedyn.paper import reproduce
from gamedyn.paper.registry import EQUIVALENCES, Equivalence
from gamedyn.paper.claims import Claim, Measurement
from gamedyn.paper.reproduce import Context


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


def test_an_equivalence_with_a_nan_error_fails():
    """A NaN error (a recipe that diverged) is the worst case, never skipped as 'not larger'."""
    broken = Equivalence("diverged", "x = x", lambda A, T: [("x", np.full(3, np.nan), np.ones(3))])
    measurement = reproduce._equivalence_check(broken)(Context(reproduce.PROFILES["quick"]))
    assert not measurement.passed and math.isnan(measurement.measured) and "x; data" in measurement.detail


def test_a_rate_claim_fails_when_the_bound_is_violated(monkeypatch):
    from gamedyn.paper import rates

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


@pytest.mark.slow
def test_figure_phase_reports_each_figure_as_it_is_written(tmp_path):
    """The figures of `gamedyn reproduce` (57-108 s) report progress: a call per figure, once the file exists."""
    pytest.importorskip("matplotlib")
    seen = []

    def progress(path, seconds):
        assert os.path.getsize(path) > 0 and seconds >= 0  # written before it is reported
        seen.append(path)

    paths = reproduce.write_figures(str(tmp_path), quick=True, progress=progress)
    assert seen == paths and len(paths) >= 3


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
    from gamedyn.paper.experiments.iterations import HARD_PNORM, IterationTable

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


# --------------------------------------------- rows that tell a right algorithm from a wrong one (issue 16)


def _similar_triangles_outputs(step_factor):
    """w_t, t = 1..T, of Nesterov's similar-triangles loop with gamma = step_factor / (4L) (L = 1 here)."""
    def method(objective, T, x0):
        gamma = step_factor / (4 * objective.smoothness)
        z = np.array(x0, dtype=np.float64)
        w, outputs = z.copy(), []
        for t in range(1, T + 1):
            beta = 2.0 / (t + 1)
            v = (1 - beta) * w + beta * z
            z = z - gamma * t * objective.gradient(v)
            w = (1 - beta) * w + beta * z
            outputs.append(w)
        return np.array(outputs)

    return method


def _heavy_ball_outputs(objective, T, x0):
    """The heavy-ball recipe (FTL vs gradient descent: the non-optimistic pair), its x_bar_t after each round."""
    from gamedyn.recipes import heavy_ball

    result = heavy_ball(objective, T, x0=x0, record=True)
    t = np.arange(1, T + 1, dtype=np.float64)[:, None]
    return np.cumsum(t * result.game.trace["p"], axis=0) / (t * (t + 1) / 2)


def _gradient_descent_outputs(objective, T, x0):
    """Gradient descent with step 1/L."""
    x, outputs = np.array(x0, dtype=np.float64), []
    for _ in range(T):
        x = x - objective.gradient(x) / objective.smoothness
        outputs.append(x)
    return np.array(outputs)


def _largest_ratio(rows):
    return max(row[2] / row[3] for row in rows)


def test_the_accelerated_gradient_bound_is_nearly_attained_on_the_huber_starts():
    from gamedyn.paper.experiments.fenchel import accelerated_gradient_tight_table

    recipe = _largest_ratio(accelerated_gradient_tight_table(160))
    assert 0.98 < recipe <= 1 + 1e-12
    # the independent loop with the stated step gives the same, a step twice as large (still proven) less
    assert _largest_ratio(accelerated_gradient_tight_table(160, _similar_triangles_outputs(1.0))) == pytest.approx(recipe)
    assert _largest_ratio(accelerated_gradient_tight_table(160, _similar_triangles_outputs(2.0))) < 0.6


@pytest.mark.parametrize("name, method, at_least", [
    ("heavy ball (the non-optimistic pair)", _heavy_ball_outputs, 1.2),
    ("gradient descent, step 1/L", _gradient_descent_outputs, 5.0),
    ("step 1/(8L)", _similar_triangles_outputs(0.5), 1.9),
    ("step 1/(16L)", _similar_triangles_outputs(0.25), 3.5),
])
def test_the_accelerated_gradient_row_fails_for_a_wrong_algorithm(name, method, at_least):
    from gamedyn.paper.experiments.fenchel import (
        AG_HORIZONS, _accelerated_measurement, accelerated_gradient_table, accelerated_gradient_tight_table,
    )

    tight = accelerated_gradient_tight_table(160, method)
    assert _largest_ratio(tight) > at_least, name
    _, passed, detail = _accelerated_measurement(accelerated_gradient_table(AG_HORIZONS["quick"]), tight)
    assert not passed and "within it: NO" in detail, name


def _frank_wolfe_with(step):
    """Frank-Wolfe on the simplex with c_t = step(t), written here."""
    def method(objective, domain, T, x0):
        x = np.array(x0, dtype=np.float64)
        for t in range(1, T + 1):
            s = np.zeros_like(x)
            s[np.argmin(objective.gradient(x))] = 1.0
            x = (1 - step(t)) * x + step(t) * s
        return x

    return method


def test_frank_wolfe_meets_the_closed_form_on_jaggis_instance():
    from gamedyn.paper.experiments.fenchel import (
        FW_HORIZONS, _frank_wolfe_measurement, frank_wolfe_table, frank_wolfe_tight_table,
    )

    horizons = FW_HORIZONS["quick"]
    for method in (None, _frank_wolfe_with(lambda t: 2 / (t + 1))):
        tight = frank_wolfe_tight_table(horizons, method)
        for instance, T, excess, bound, lower, value, form in tight:
            assert excess <= bound
            if form is not None:
                assert lower <= excess and value == pytest.approx(form, rel=1e-12)
        assert _frank_wolfe_measurement(frank_wolfe_table(horizons), tight)[1]


@pytest.mark.parametrize("name, step", [
    ("1/t", lambda t: 1 / t), ("1/(t+1)", lambda t: 1 / (t + 1)), ("2/(t+2)", lambda t: 2 / (t + 2)),
    ("1/sqrt(t)", lambda t: 1 / math.sqrt(t)),
])
def test_the_frank_wolfe_row_fails_for_another_step_rule(name, step):
    from gamedyn.paper.experiments.fenchel import (
        FW_HORIZONS, _frank_wolfe_measurement, frank_wolfe_table, frank_wolfe_tight_table,
    )

    tight = frank_wolfe_tight_table(FW_HORIZONS["quick"], _frank_wolfe_with(step))
    _, passed, detail = _frank_wolfe_measurement(frank_wolfe_table(FW_HORIZONS["quick"]), tight)
    assert not passed, name
    if name in ("1/(t+1)", "2/(t+2)"):  # the start keeps a weight: the bound itself breaks (steep vertex)
        assert "within its bounds: NO" in detail


def test_frank_wolfe_with_step_one_over_sqrt_t_breaks_the_bound_itself():
    from gamedyn.paper.experiments.fenchel import frank_wolfe_tight_table

    rows = frank_wolfe_tight_table((1000,), _frank_wolfe_with(lambda t: 1 / math.sqrt(t)))
    assert max(row[2] / row[3] for row in rows) > 1.5


def _matrix_run(factor_row, factor_optimistic=1.0, power=1):
    """Hedge and optimistic Hedge with steps factor * the stated ones, and the range r to the power ``power``."""
    from gamedyn import recipes

    def run(name, M, T, row_start, column_start):
        r = float(np.max(M) - np.min(M))
        if name == "hedge":
            m, n = M.shape
            etas = [factor_row * math.sqrt(8 * math.log(max(k, 2)) / T) / r**power for k in (m, n)]
            return recipes.hedge(M, T, eta_w=etas[0], eta_p=etas[1], row_start=row_start, column_start=column_start)
        eta = factor_optimistic / r**power
        return recipes.optimistic_hedge(M, T, eta_w=eta, eta_p=eta, row_start=row_start, column_start=column_start)

    return run


def test_the_matrix_game_rows_hold_the_stated_bound_nearly_attained():
    from gamedyn.paper.experiments import matrix_games

    for recipe, at_most in (("hedge", -0.4), ("optimistic_hedge", -0.9)):
        measurement = matrix_games.measure(recipe, at_most, "quick")
        assert measurement.passed, measurement
        ratio = float(measurement.detail.split("largest gap / stated bound ")[1].split()[0])
        assert 0.75 < ratio <= 1.0, (recipe, ratio)
        # the stated steps, passed explicitly, give the same rows
        assert matrix_games.measure(recipe, at_most, "quick", _matrix_run(1.0)) == measurement


@pytest.mark.parametrize("recipe, run, why", [
    ("hedge", _matrix_run(0.5), "eta = sqrt(2 ln k/T)/r"),
    ("hedge", _matrix_run(1.0, power=0), "eta = sqrt(8 ln k/T), no 1/r"),
    ("hedge", _matrix_run(1.0, power=2), "eta = sqrt(8 ln k/T)/r^2"),
    ("optimistic_hedge", _matrix_run(1.0, 0.5), "eta = 1/(2r)"),
    ("optimistic_hedge", _matrix_run(1.0, 1.0, power=0), "eta = 1, no 1/r"),
])
def test_the_matrix_game_rows_fail_for_a_wrong_step(recipe, run, why):
    """The bound is computed from the stated formula, so a wrong step cannot carry its own bound along."""
    from gamedyn.paper.experiments import matrix_games

    measurement = matrix_games.measure(recipe, -0.4 if recipe == "hedge" else -0.9, "quick", run)
    assert not measurement.passed and "every gap within its bound: NO" in measurement.detail, why


def test_the_matrix_game_rows_need_a_certified_linprog_value(monkeypatch):
    """The replaced v*-bracket check held for any pair; the certificate fails when linprog's pair is not optimal."""
    from gamedyn.games.matrix import game as library
    from gamedyn.paper.experiments import matrix_games

    real = library.solve_matrix_game

    def off(M):
        solution = real(M)
        m = len(solution.row)
        uniform = np.full(m, 1.0 / m)
        M = np.asarray(M, dtype=np.float64)
        return __import__("attrs").evolve(solution, row=uniform, lower=float(np.min(uniform @ M)))

    monkeypatch.setattr(matrix_games, "solve_matrix_game", off)
    measurement = matrix_games.measure("hedge", -0.4, "quick")
    assert not measurement.passed and "certifies v* (its Nash gap / r = " in measurement.detail
    assert "<= 1e-09): NO" in measurement.detail


@pytest.mark.parametrize("name", ["Hedge (Freund & Schapire 1999)", "Optimistic Hedge (Syrgkanis et al. 2015)",
                                  "Fictitious play (Brown 1951)"])
def test_the_matrix_game_equivalence_rows_pass_and_see_a_doubled_step(name, monkeypatch):
    from gamedyn import recipes
    from gamedyn.games.matrix import default_hedge_steps, default_optimistic_hedge_step

    equivalence = next(item for item in EQUIVALENCES if item.claim == name)
    A = reproduce._logistic_data("n=200 d=2")[:30]
    assert max(equivalence.errors(A, 50).values()) <= 1e-10
    if name.startswith("Fictitious"):
        return
    recipe = name.split(" (")[0].lower().replace(" ", "_")
    real = getattr(recipes, recipe)
    steps = {"hedge": lambda M, T: dict(zip(("eta_w", "eta_p"), (2 * eta for eta in
                                             default_hedge_steps(M, T)))),
             "optimistic_hedge": lambda M, T: dict.fromkeys(("eta_w", "eta_p"), 0.5 * default_optimistic_hedge_step(M))}
    monkeypatch.setattr(recipes, recipe, lambda M, T, **options: real(M, T, **steps[recipe](M, T), **options))
    assert max(equivalence.errors(A, 50).values()) > 1e-3
