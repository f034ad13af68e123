"""The Fenchel game: Frank-Wolfe, Nesterov's method and heavy ball equal their published loops to
1e-10; their rates hold; wrong steps or weights fail by a wide margin; the new domains' oracles are
exact; the conjugate-term losses work without special cases in the runner."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from gamedyn import (
    FTL, OFTL, Ball, BestResponse, Box, FenchelGame, FTRL, FirstRoundLoss, L1Ball, Loss, Objective, Reals,
    Simplex, SquaredEuclidean, play,
)
from gamedyn.games.fenchel import original as original_fenchel
from gamedyn.games.fenchel import ObjectiveError
from gamedyn.paper.experiments.fenchel import (
    AG_HORIZONS, FW_HORIZONS, accelerated_gradient_table, distance_objective, fenchel_claims, fitted_slope, frank_wolfe_table, logistic_minimizer, logistic_objective, quadratic_objective,
)
from gamedyn.core import FollowTheRegularizedLeader, OMD
from gamedyn.core import CurrentLoss
from gamedyn.recipes import accelerated_gradient, frank_wolfe, heavy_ball
from gamedyn.paper.registry import relative_error
from gamedyn.core import Zero
from play_options import play_with

HORIZONS = [1, 2, 3, 10, 200]
D = 6


def _objectives():
    rng = np.random.default_rng(7)
    M = rng.normal(size=(D, D))
    H = M @ M.T + 0.05 * np.eye(D)
    A = rng.normal(size=(40, D)) * rng.choice([-1.0, 1.0], size=(40, 1))
    softplus_A = rng.normal(size=(15, D))
    # a log-sum-exp objective: f(x) = log sum_i exp(a_i x) + |x - c|^2/2, L = ||A||^2 + 1, with c far
    # enough out that the minimiser over each domain lies on its boundary (see the conditioning test)
    c = np.linspace(2.0, -3.0, D)
    lse = Objective(lambda x: float(np.logaddexp.reduce(softplus_A @ x)) + 0.5 * float((x - c) @ (x - c)),
                    lambda x: softplus_A.T @ np.exp(softplus_A @ x - np.logaddexp.reduce(softplus_A @ x)) + x - c,
                    smoothness=float(np.linalg.norm(softplus_A, 2) ** 2 + 1), dimension=D)
    return {"quadratic": quadratic_objective(H, rng.normal(size=D)),
            "logistic": logistic_objective(A, ridge=0.01),
            "log-sum-exp": lse}


OBJECTIVES = _objectives()
BOX = (np.linspace(-1.0, -0.2, D), np.linspace(0.3, 1.0, D))
DOMAINS = {"simplex": (Simplex(), "simplex", None), "ball": (Ball(1.5), "ball", 1.5),
           "l1": (L1Ball(2.0), "l1", 2.0), "box": (Box(*BOX), "box", BOX)}


# ------------------------------------------------------------------------------------ equivalences


@pytest.mark.parametrize("objective_name", sorted(OBJECTIVES))
@pytest.mark.parametrize("domain_name", sorted(DOMAINS))
def test_frank_wolfe_equals_its_loop(objective_name, domain_name):
    objective = OBJECTIVES[objective_name]
    domain, kind, parameters = DOMAINS[domain_name]
    for T in HORIZONS:
        recipe = frank_wolfe(objective, T, domain=domain)
        loop = original_fenchel.frank_wolfe(objective.gradient, kind, parameters, D, T)
        assert relative_error(recipe.x, loop) <= 1e-10, (objective_name, domain_name, T)
        assert recipe.value == pytest.approx(objective.value(loop), rel=1e-10, abs=1e-14)


@pytest.mark.parametrize("objective_name", sorted(OBJECTIVES))
@pytest.mark.parametrize("radius", [None, 0.4, 3.0])
def test_accelerated_gradient_equals_its_loop(objective_name, radius):
    objective = OBJECTIVES[objective_name]
    x0 = np.linspace(-0.3, 0.2, D)
    if radius is not None:
        x0 = x0 * min(1.0, 0.9 * radius / np.linalg.norm(x0))
    domain, kind = (None, "reals") if radius is None else (Ball(radius), "ball")
    step = 1 / (4 * objective.smoothness)
    for T in HORIZONS:
        recipe = accelerated_gradient(objective, T, domain=domain, x0=x0)
        loop = original_fenchel.accelerated_gradient(objective.gradient, step, x0, T, kind, radius)
        assert relative_error(recipe.x, loop) <= 1e-10, (objective_name, radius, T)


@pytest.mark.parametrize("objective_name", sorted(OBJECTIVES))
def test_heavy_ball_equals_its_loop(objective_name):
    objective = OBJECTIVES[objective_name]
    x0 = np.linspace(0.5, -0.5, D)
    for T in HORIZONS:
        recipe = heavy_ball(objective, T, x0=x0)
        loop = original_fenchel.heavy_ball(objective.gradient, 1 / (4 * objective.smoothness), x0, T)
        assert relative_error(recipe.x, loop) <= 1e-10, (objective_name, T)


def test_frank_wolfe_on_a_ball_around_an_interior_minimiser_is_ill_conditioned():
    """Why the equivalence tests put the minimiser on the boundary: inside a ball, grad f(x_t) -> 0
    and the oracle's direction g/||g|| amplifies rounding by 1/||g||, so a 1e-15 change of x_0 moves
    the original loop's own x_200 by about 1e-6 (no two implementations can agree to 1e-10 there)."""
    rng = np.random.default_rng(7)  # the log-sum-exp data of _objectives(), without the shift c
    rng.normal(size=(D, D)), rng.normal(size=(40, D)), rng.choice([-1.0, 1.0], size=(40, 1))
    A = rng.normal(size=(15, D))
    objective = Objective(lambda x: float(np.logaddexp.reduce(A @ x)) + 0.5 * float(x @ x),  # x* inside Ball(1.5)
                          lambda x: A.T @ np.exp(A @ x - np.logaddexp.reduce(A @ x)) + x)
    start = np.zeros(D)
    nudged = start.copy()
    nudged[0] = 1e-15
    a = original_fenchel.frank_wolfe(objective.gradient, "ball", 1.5, D, 200, start)
    b = original_fenchel.frank_wolfe(objective.gradient, "ball", 1.5, D, 200, nudged)
    assert relative_error(a, b) > 1e-9


def test_any_step_gives_the_same_equivalence():
    objective = OBJECTIVES["logistic"]
    x0 = np.full(D, 0.1)
    for step in (0.01, 1.0 / objective.smoothness, 0.3 / objective.smoothness):
        assert relative_error(accelerated_gradient(objective, 50, x0=x0, eta_p=step).x,
                              original_fenchel.accelerated_gradient(objective.gradient, step, x0, 50)) <= 1e-10


def test_frank_wolfe_from_a_given_start():
    objective = OBJECTIVES["quadratic"]
    x0 = np.array([0.5, 0.5, 0, 0, 0, 0])
    recipe = frank_wolfe(objective, 30, domain=Simplex(), x0=x0)
    assert relative_error(recipe.x, original_fenchel.frank_wolfe(objective.gradient, "simplex", None, D, 30, x0)) <= 1e-10


# ------------------------------------------------------------------------------- negative controls


def test_frank_wolfe_with_wrong_weights_fails_by_a_wide_margin():
    """Constant weights give the step c_t = 1/t, not 2/(t+1): far from Frank-Wolfe's x_T."""
    objective = OBJECTIVES["quadratic"]
    for T in (3, 10, 200):
        game = play(FenchelGame(objective, Simplex()), FollowTheRegularizedLeader(Zero(), 1.0, FirstRoundLoss()),
                    BestResponse(Simplex()), T, weights="constant", initial_p=Simplex().default_centre(D))
        loop = original_fenchel.frank_wolfe(objective.gradient, "simplex", None, D, T)
        assert relative_error(game.p_average, loop) > 1e-2


def test_frank_wolfe_without_the_first_round_hint_fails():
    """Plain FTL has no loss at t = 1 and plays y_1 = grad f(0) instead of grad f(x_0)."""
    objective = OBJECTIVES["quadratic"]
    game = play(FenchelGame(objective, Simplex()), FTL(), BestResponse(Simplex()), 10, weights="linear")
    loop = original_fenchel.frank_wolfe(objective.gradient, "simplex", None, D, 10)
    assert relative_error(game.p_average, loop) > 1e-2


def test_accelerated_gradient_with_a_wrong_step_or_weights_fails():
    objective = OBJECTIVES["quadratic"]
    x0 = np.full(D, 0.2)
    step = 1 / (4 * objective.smoothness)
    loop = original_fenchel.accelerated_gradient(objective.gradient, step, x0, 50)
    assert relative_error(accelerated_gradient(objective, 50, x0=x0, eta_p=2 * step).x, loop) > 1e-2
    game = play(FenchelGame(objective), OFTL(), OMD(SquaredEuclidean(), step, CurrentLoss(), centre=x0), 50,
                weights="constant", initial_p=x0)
    assert relative_error(game.p_average, loop) > 1e-2


def test_heavy_ball_is_not_nesterov():
    """Optimism is the difference: the two loops (and recipes) part by a wide margin."""
    objective = OBJECTIVES["quadratic"]
    x0 = np.full(D, 0.2)
    assert relative_error(heavy_ball(objective, 20, x0=x0).x, accelerated_gradient(objective, 20, x0=x0).x) > 1e-2


# ------------------------------------------------------------------------------------------ rates


def test_accelerated_gradient_rate_on_quadratics_and_logistic_loss():
    rows = accelerated_gradient_table(AG_HORIZONS["quick"] + (80,))
    for name, T, excess, bound in rows:
        assert -1e-12 <= excess <= bound, (name, T, excess, bound)
    worst = [row for row in rows if row[0] == "worst quadratic"]
    assert fitted_slope([row[1] for row in worst], [row[2] for row in worst]) < -1.8
    # negative control: the bound with T instead of T^2 in the denominator would not be tight
    assert max(row[2] / row[3] for row in worst) > 0.05


def test_accelerated_gradient_rate_with_logistic_minimiser_known():
    rng = np.random.default_rng(3)
    A = rng.normal(size=(100, 8)) * rng.choice([-1.0, 1.0], size=(100, 1))
    objective = logistic_objective(A)
    minimiser = logistic_minimizer(A, 0.0)
    assert np.linalg.norm(objective.gradient(minimiser)) < 1e-12
    x0 = np.ones(8)
    for T in (1, 5, 25, 125):
        result = accelerated_gradient(objective, T, x0=x0)
        assert result.value - objective.value(minimiser) <= 4 * objective.smoothness * np.sum((x0 - minimiser) ** 2) / (T * (T + 1))


def test_frank_wolfe_rate_and_certificates():
    rows = frank_wolfe_table(FW_HORIZONS["quick"])
    for T, excess, bound, theorem2 in rows:
        assert 0 <= excess <= bound and excess <= theorem2
    assert fitted_slope([row[0] for row in rows], [row[1] for row in rows]) < -0.9


@pytest.mark.parametrize("domain_name", sorted(DOMAINS))
def test_frank_wolfe_game_certificates(domain_name):
    """f(x_bar) - min f <= duality gap <= ... and f(x_bar) - min f <= Theorem 2's bound."""
    import scipy.optimize

    objective = OBJECTIVES["quadratic"]
    domain = DOMAINS[domain_name][0]
    result = frank_wolfe(objective, 100, domain=domain, regrets=True)
    constraints = {"simplex": [{"type": "eq", "fun": lambda x: x.sum() - 1}],
                   "ball": [{"type": "ineq", "fun": lambda x: 1.5**2 - x @ x}],
                   "l1": [], "box": []}[domain_name]
    bounds = {"simplex": [(0, 1)] * D, "box": list(zip(*BOX))}.get(domain_name)
    if domain_name == "l1":  # min over the l1 ball as a problem in (u, v) >= 0, x = u - v
        fun = lambda z: objective.value(z[:D] - z[D:])  # noqa: E731
        solution = scipy.optimize.minimize(fun, np.zeros(2 * D), method="SLSQP", bounds=[(0, None)] * (2 * D),
                                           constraints=[{"type": "ineq", "fun": lambda z: 2.0 - z.sum()}],
                                           options={"ftol": 1e-14, "maxiter": 1000})
    else:
        solution = scipy.optimize.minimize(objective.value, domain.default_centre(D), method="SLSQP", bounds=bounds,
                                           constraints=constraints, options={"ftol": 1e-14, "maxiter": 1000})
    excess = result.value - solution.fun
    assert -1e-8 <= excess <= result.game.theorem2_bound + 1e-9
    assert excess <= result.game.duality_gap + 1e-8


# ---------------------------------------------------------------------------- domains and oracles


vectors = arrays(np.float64, st.integers(1, 8), elements=st.floats(-1e3, 1e3, allow_nan=False))


@settings(max_examples=100, deadline=None)
@given(vectors, st.floats(0.1, 10.0))
def test_l1_projection_is_the_closest_point(z, radius):
    """KKT for a polytope: <z - P z, v - P z> <= 0 at every vertex v = +-r e_i."""
    ball = L1Ball(radius)
    projected = ball.project(z)
    assert ball.contains(projected, 1e-9)
    scale = max(1.0, float(np.abs(z).max()))
    for i in range(z.size):
        for sign in (1.0, -1.0):
            vertex = np.zeros(z.size)
            vertex[i] = sign * radius
            assert (z - projected) @ (vertex - projected) <= 1e-9 * scale * max(scale, radius)


@settings(max_examples=100, deadline=None)
@given(vectors, st.floats(0.1, 10.0))
def test_l1_and_box_oracles_minimise_over_the_vertices(g, radius):
    s = L1Ball(radius).linear_minimizer(g)
    assert g @ s == pytest.approx(-radius * np.abs(g).max(), rel=1e-12, abs=1e-12)
    lower, upper = -np.arange(1, g.size + 1.0), np.arange(1, g.size + 1.0) / 2
    corner = Box(lower, upper).linear_minimizer(g)
    assert g @ corner == pytest.approx(np.sum(np.minimum(g * lower, g * upper)), rel=1e-12, abs=1e-9)


def test_box_and_l1_errors_name_the_argument():
    with pytest.raises(ValueError, match="lower must be <= upper"):
        Box([0.0, 1.0], [1.0, 0.0])
    with pytest.raises(ValueError, match="same length"):
        Box([0.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="radius"):
        L1Ball(-1.0)
    with pytest.raises(ValueError, match="Box has 2 coordinates"):
        frank_wolfe(OBJECTIVES["quadratic"], 3, domain=Box([0, 0], [1, 1]))
    with pytest.raises(ValueError, match="x0 must lie in the domain"):
        frank_wolfe(OBJECTIVES["quadratic"], 3, domain=Simplex(), x0=np.ones(D))


def test_box_projection_and_argmin_with_squared_euclidean():
    box = Box(*BOX)
    z = np.linspace(-3, 3, D)
    assert np.array_equal(box.project(z), np.clip(z, *BOX))
    assert np.array_equal(SquaredEuclidean(domain=box).argmin(z, 0.0, 1.0, box.default_centre(D)),
                          np.clip(box.default_centre(D) - z, *BOX))


# ------------------------------------------------------------------------ losses with a convex term


def test_conjugate_value_is_exact_at_gradient_points_and_numerical_elsewhere():
    rng = np.random.default_rng(0)
    M = rng.normal(size=(4, 4))
    H, b = M @ M.T + np.eye(4), rng.normal(size=4)
    objective = quadratic_objective(H, b)
    conjugate = objective.conjugate_term
    closed_form = lambda y: 0.5 * (y + b) @ np.linalg.solve(H, y + b)  # noqa: E731
    y = conjugate.minimize(-np.ones(4), 2.0, Reals())  # grad f(1/2)
    assert np.allclose(y, objective.gradient(np.full(4, 0.5)), rtol=1e-14)
    assert conjugate.value(y) == pytest.approx(closed_form(y), rel=1e-13)
    other = rng.normal(size=4)
    assert conjugate.value(other) == pytest.approx(closed_form(other), rel=1e-7)
    assert np.allclose(conjugate.gradient(other), np.linalg.solve(H, other + b), rtol=1e-6)
    with_closed_form = Objective(objective.value, objective.gradient, conjugate=closed_form)
    assert with_closed_form.conjugate_term.value(other) == closed_form(other)


def test_loss_sums_keep_the_convex_term_and_refuse_two_different_ones():
    f, g = OBJECTIVES["quadratic"], OBJECTIVES["logistic"]
    a = Loss(np.ones(D), 1.0, f.conjugate_term)
    total = Loss.zero(D).plus_scaled(a, 2.0) + Loss(np.ones(D), 0.0)
    assert total.convex is f.conjugate_term and total.curvature == 2.0
    with pytest.raises(ValueError, match="different convex functions"):
        a + Loss(np.ones(D), 1.0, g.conjugate_term)
    with pytest.raises(ValueError, match="different convex functions"):
        a + Loss(np.ones(D), 1.0)  # f* plus a quadratic


def test_a_regularized_learner_refuses_a_conjugate_loss_clearly():
    objective = OBJECTIVES["quadratic"]
    with pytest.raises(ValueError, match="cannot minimise a loss whose curvature multiplies"):
        play(FenchelGame(objective, Simplex()), FTRL(SquaredEuclidean(), 1.0), BestResponse(Simplex()), 3)
    with pytest.raises(ValueError, match="w_learner plays on Ball"):
        play(FenchelGame(objective, Simplex()), FTL(Ball(1.0)), BestResponse(Simplex()), 3)
    with pytest.raises(ValueError, match="y-player plays on R\\^d"):
        objective.conjugate_term.minimize(np.ones(D), 1.0, Ball(1.0))


def test_objective_and_game_errors():
    with pytest.raises(TypeError, match="callables"):
        Objective(1.0, lambda x: x)
    with pytest.raises(ValueError, match="smoothness"):
        Objective(lambda x: 0.0, lambda x: x, smoothness=-1.0)
    with pytest.raises(ValueError, match="needs the dimension"):
        FenchelGame(Objective(lambda x: 0.0, lambda x: x))
    bad = Objective(lambda x: 0.0, lambda x: np.full(x.size, np.nan), smoothness=1.0, dimension=3)
    with pytest.raises(ValueError, match="finite array"):
        frank_wolfe(bad, 2, domain=Simplex())
    with pytest.raises(ValueError, match="smoothness=L"):
        accelerated_gradient(Objective(lambda x: 0.0, lambda x: x, dimension=2), 3)
    with pytest.raises(ValueError, match="R\\^d \\(domain=None\\) or a Ball"):
        accelerated_gradient(OBJECTIVES["quadratic"], 3, domain=Simplex())


def test_best_response_has_nonpositive_regret_and_plays_the_oracle():
    objective = distance_objective(np.array([2.0, -1.0, 0.5]))
    result = frank_wolfe(objective, 20, domain=Simplex(), record=True, regrets=True)
    assert result.game.p_regret <= 1e-12
    for y, x in zip(result.game.trace["w"], result.game.trace["p"]):
        assert np.array_equal(x, Simplex().linear_minimizer(y))


def test_reproduce_rows_pass_quick_and_fail_when_held_to_a_faster_rate(monkeypatch):
    from gamedyn.paper import reproduce
    from gamedyn.paper.experiments import fenchel

    context = reproduce.Context(reproduce.PROFILES["quick"])
    for claim in fenchel_claims():
        measurement = claim.check(context)
        assert measurement.passed, measurement
    monkeypatch.setattr(fenchel, "AG_SLOPE_AT_MOST", -2.5)
    claim = next(claim for claim in fenchel.fenchel_claims() if claim.name.startswith("Accelerated"))
    measurement = claim.check(reproduce.Context(reproduce.PROFILES["quick"]))
    assert not measurement.passed and -2.2 < measurement.measured < -1.8


# ----------------------------------------------- recipe inputs and NaN objectives (issue 16, defect 2)

SQUARE = Objective(lambda x: float(x @ x), lambda x: 2 * x, smoothness=2.0)
RECIPES = {
    "frank_wolfe": lambda objective, **kw: frank_wolfe(objective, 5, domain=Simplex(), **kw),
    "accelerated_gradient": lambda objective, **kw: accelerated_gradient(objective, 5, **kw),
    "heavy_ball": lambda objective, **kw: heavy_ball(objective, 5, **kw),
}


def test_issue_frank_wolfe_needs_a_domain():
    """Old: AttributeError 'NoneType' object has no attribute 'default_centre'."""
    with pytest.raises(TypeError, match=r"frank_wolfe needs domain= a domain K .*Simplex\(\), Ball\(radius\).*got None"):
        frank_wolfe(SQUARE, 5, domain=None, dimension=3)
    with pytest.raises(ValueError, match=r"bounded domain.*accelerated_gradient"):
        frank_wolfe(SQUARE, 5, domain=Reals(), dimension=3)


@pytest.mark.parametrize("recipe", sorted(RECIPES))
@pytest.mark.parametrize("dimension, error, message", [
    (0, ValueError, r"dimension must be >= 1, got 0"),            # old: ZeroDivisionError / raw BLAS error
    (2.5, TypeError, r"dimension must be an integer >= 1, got 2\.5"),  # old: silently 2
    ("3", TypeError, r"dimension must be an integer >= 1, got '3'"),   # old: accepted
    (True, TypeError, r"dimension must be an integer >= 1, got True"),  # old: accepted as 1
    (-2, ValueError, r"dimension must be >= 1"),
])
def test_issue_fenchel_recipes_check_dimension(recipe, dimension, error, message):
    with pytest.raises(error, match=message):
        RECIPES[recipe](SQUARE, dimension=dimension)


@pytest.mark.parametrize("recipe", sorted(RECIPES))
def test_issue_x0_and_dimension_must_agree(recipe):
    """Old: an x0 of length 2 silently won over dimension=3."""
    with pytest.raises(ValueError, match=r"disagree: x0 has 2 coordinates; dimension=3"):
        RECIPES[recipe](SQUARE, x0=[0.5, 0.5], dimension=3)
    with pytest.raises(ValueError, match=r"disagree: x0 has 2 coordinates; Objective\(\.\.\., dimension=4\)"):
        RECIPES[recipe](Objective(SQUARE.value, SQUARE.gradient, smoothness=2.0, dimension=4), x0=[0.5, 0.5])
    agreed = RECIPES[recipe](SQUARE, x0=[0.5, 0.5], dimension=2)  # the same length twice is fine
    assert agreed.x.shape == (2,) and np.array_equal(agreed.x, RECIPES[recipe](SQUARE, x0=[0.5, 0.5]).x)


def test_objective_and_game_dimension_checks():
    for bad, error in ((True, TypeError), (2.5, TypeError), ("3", TypeError), (0, ValueError)):
        with pytest.raises(error, match="dimension must be"):
            Objective(lambda x: 0.0, lambda x: x, dimension=bad)
        with pytest.raises(error, match="dimension must be"):
            FenchelGame(SQUARE, dimension=bad)
    with pytest.raises(ValueError, match=r"disagree: dimension=3; Box has 2 coordinates"):
        FenchelGame(SQUARE, Box([0, 0], [1, 1]), dimension=3)
    assert FenchelGame(SQUARE, Box([0, 0], [1, 1])).dimension == 2
    assert FenchelGame(SQUARE, dimension=np.int64(4)).dimension == 4


def _nan_away_from(start, *, where):
    """An objective |x - c|^2 whose value (where="value") or gradient (where="gradient") is NaN at every x
    but the start: the recipes' round 1 uses the start, round 2 the first move."""
    c = np.array([0.1, 0.7, 0.2])

    def value(x):
        return float((x - c) @ (x - c)) if where != "value" or np.array_equal(x, start) else float("nan")

    def gradient(x):
        return 2 * (x - c) if where != "gradient" or np.array_equal(x, start) else np.full(3, np.nan)

    return Objective(value, gradient, smoothness=2.0, dimension=3)


@pytest.mark.parametrize("where", ["value", "gradient"])
@pytest.mark.parametrize("recipe", sorted(RECIPES))
def test_issue_a_nan_objective_is_named_with_the_round_and_the_point(recipe, where):
    """Old: NumericalRangeError 'the result's w_played_loss is NaN ... the run overflowed float64'.

    f's value is evaluated each round only for the regrets (regrets=True); without them the NaN value is
    still named, when the output's f(x) is taken after the rounds."""
    start = np.full(3, 1 / 3)
    objective = _nan_away_from(start, where=where)
    with pytest.raises(ObjectiveError, match=rf"Objective\.{where} returned .*nan.* at x = \[.*\] in round 2: "
                                             r".*not an overflow of the game") as raised:
        RECIPES[recipe](objective, x0=start, regrets=True)
    assert isinstance(raised.value, ValueError) and not isinstance(raised.value, FloatingPointError)
    assert raised.value.round == 2
    with pytest.raises(ObjectiveError, match=rf"Objective\.{where} returned .*nan.* at x = \[.*\]") as raised:
        RECIPES[recipe](objective, x0=start)  # the default, regrets=False
    assert raised.value.round == (2 if where == "gradient" else None)


def test_a_nan_objective_outside_the_rounds_is_named_without_a_round():
    """Frank-Wolfe for T = 1 plays a vertex; f is NaN only there, met after the rounds (gap and output)."""
    c = np.array([0.1, 0.7, 0.2])
    vertex_nan = Objective(lambda x: float("nan") if np.max(x) == 1.0 else float((x - c) @ (x - c)),
                           lambda x: 2 * (x - c), smoothness=2.0)
    with pytest.raises(ObjectiveError, match=r"Objective\.value returned nan at x = \[.*1\..*\]: f must be finite") as raised:
        frank_wolfe(vertex_nan, 1, domain=Simplex(), dimension=3)
    assert raised.value.round is None
    closed = Objective(SQUARE.value, SQUARE.gradient, smoothness=2.0, dimension=3, conjugate=lambda y: float("nan"))
    with pytest.raises(ObjectiveError, match=r"Objective\.conjugate returned nan at y"):
        closed.conjugate_term.value(np.ones(3))
    with pytest.raises(ObjectiveError, match=r"Objective\.gradient returned an array of shape \(2,\) at x of shape \(3,\)"):
        Objective(SQUARE.value, lambda x: x[:2]).gradient_at(np.ones(3))


def test_fenchel_recipes_skip_the_regrets_unless_asked():
    """regrets=False by default (issue 17): the same x bit for bit, the skipped fields None and named."""
    objective = OBJECTIVES["quadratic"]
    for recipe, options in ((frank_wolfe, {"domain": Simplex()}), (accelerated_gradient, {}), (heavy_ball, {})):
        lean, full = recipe(objective, 30, **options), recipe(objective, 30, regrets=True, **options)
        assert np.array_equal(lean.x, full.x) and lean.value == full.value
        assert lean.game.theorem2_bound is None and lean.game.w_regret is None and lean.game.p_regret is None
        assert {"w_regret", "p_regret", "theorem2_bound"} <= set(lean.game.not_computed)
        assert full.game.not_computed == () and full.game.theorem2_bound is not None


@pytest.mark.parametrize("learner", ["best_response", "squared_euclidean"])
def test_mirror_descent_shown_its_loss_reuses_the_play_as_its_step(learner):
    """OMD with hint CurrentLoss on linear losses: the runner's player (which takes y_t = x_t, the step's
    very inputs) and the learner's pure play/update (which take the step) agree bit for bit, states included."""
    from gamedyn.core import OMD, BestResponse, CurrentLoss, Loss, SquaredEuclidean

    rng = np.random.default_rng(3)
    learner = BestResponse(Simplex()) if learner == "best_response" else OMD(SquaredEuclidean(), 0.3, CurrentLoss())
    state = learner.init(5, Loss(rng.normal(size=5), 0.0))
    player = learner.player(state)
    for t in range(1, 40):
        loss, weight = Loss(rng.normal(size=5), 0.0), float(t)
        point = learner.play(state, weight, loss)
        played = player.play(weight, loss)
        assert np.array_equal(point, played)
        state = learner.update(state, point, loss, weight)
        player.update(played, loss, weight)
        assert np.array_equal(player.state.secondary, state.secondary) and player.state.round == state.round
        assert (player.state.secondary_cache is None) == (state.secondary_cache is None)


# ------------------------------------------------------------------ the lean round (issue 17, speed)


def _watched(**options):
    """The same run with an observer that reads nothing: round_of's round, the players' objects."""
    return {**options, "observers": [_Silent()]}


class _Silent:
    needs_round_state = False

    def observe(self, t):
        return False


LEAN_CASES = {
    "frank_wolfe simplex": lambda f, **k: frank_wolfe(f, 40, domain=Simplex(), **k),
    "frank_wolfe l1": lambda f, **k: frank_wolfe(f, 40, domain=L1Ball(2.0), **k),
    "frank_wolfe box": lambda f, **k: frank_wolfe(f, 40, domain=Box(*BOX), **k),
    "accelerated_gradient": lambda f, **k: accelerated_gradient(f, 40, x0=np.linspace(-1, 1, D), **k),
    "accelerated_gradient ball": lambda f, **k: accelerated_gradient(f, 40, domain=Ball(0.3), **k),
    "heavy_ball": lambda f, **k: heavy_ball(f, 40, x0=np.linspace(-1, 1, D), **k),
    "OFTL vs OMD, step schedule": lambda f, **k: play_with(
        FenchelGame(f, None, dimension=D), OFTL(), OMD(SquaredEuclidean(), lambda t: 0.05 / np.sqrt(t), CurrentLoss()),
        40, weights="linear", initial_p=np.full(D, 0.1), regrets=False, **k),
    "FTL vs best response, constant weights": lambda f, **k: play_with(
        FenchelGame(f, Simplex(), dimension=D), FollowTheRegularizedLeader(Zero(), 1.0, FirstRoundLoss()),
        BestResponse(Simplex()), 40, weights=2.5, regrets=False, **k),
    "p_weights and output_weights": lambda f, **k: play_with(
        FenchelGame(f, Simplex(), dimension=D), FollowTheRegularizedLeader(Zero(), 1.0, FirstRoundLoss()),
        BestResponse(Simplex()), 40, weights="linear", p_weights=lambda t: 1.0 + t % 3,
        output_weights=lambda t: float(t * t), regrets=False, **k),
}


def _game(result):
    return getattr(result, "game", result)


def _assert_same_run(lean, watched):
    a, b = _game(lean), _game(watched)
    for name in ("w_average", "p_average", "w_sum", "p_sum", "w_last", "p_last"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    for name in ("weight_total", "p_weight_total", "output_weight_total", "rounds", "duality_gap", "not_computed"):
        assert getattr(a, name) == getattr(b, name), name
    assert np.array_equal(a.w_loss_sum.linear, b.w_loss_sum.linear) and a.w_loss_sum.curvature == b.w_loss_sum.curvature
    assert a.w_loss_sum.convex is b.w_loss_sum.convex


@pytest.mark.parametrize("objective_name", sorted(OBJECTIVES))
@pytest.mark.parametrize("case", sorted(LEAN_CASES))
def test_the_lean_round_is_bit_for_bit_the_watched_round(case, objective_name, monkeypatch):
    """A Fenchel run nobody watches takes the lean round (no FTRL player plays), and its plays, sums and
    the learners' loss sums are those of the run an observer watches (round_of's round), bit for bit."""
    from gamedyn.core.learners import FTRLPlayer

    objective = OBJECTIVES[objective_name]
    watched = LEAN_CASES[case](objective, **_watched())
    calls = []
    original_play = FTRLPlayer.play
    monkeypatch.setattr(FTRLPlayer, "play", lambda self, *a: calls.append(1) or original_play(self, *a))
    lean = LEAN_CASES[case](objective)
    assert not calls, "the lean round did not run"
    _assert_same_run(lean, watched)


@pytest.mark.parametrize("case", ["accelerated_gradient", "heavy_ball", "frank_wolfe simplex", "OFTL vs OMD, step schedule"])
def test_the_lean_round_leaves_the_learners_states_as_their_players_would(case, monkeypatch):
    """After the loop the lean round writes the seats back: each learner's state (FTRL's loss sum, hint
    state and round; OMD's secondary iterate, its cache and round) is the watched run's, bit for bit."""
    from gamedyn.engine.rounds import ConjugateRound

    def states(run):
        return run.w_seat.state, run.p_seat.state

    class Finish:
        needs_round_state = False

        def observe(self, t):
            return False

    objective = OBJECTIVES["logistic"]
    seen = {}
    original_settle = ConjugateRound.settle

    def settle(self):
        original_settle(self)
        seen["states"] = (self.leader.state, self.follower.state)

    monkeypatch.setattr(ConjugateRound, "settle", settle)
    LEAN_CASES[case](objective)
    watched_states = {}

    class Record(Finish):
        def finish(self, run, rounds, reason):
            watched_states["states"] = states(run)

    LEAN_CASES[case](objective, observers=[Record()])
    (w_lean, p_lean), (w_watched, p_watched) = seen["states"], watched_states["states"]
    assert np.array_equal(w_lean.loss_sum.linear, w_watched.loss_sum.linear)
    assert w_lean.loss_sum.curvature == w_watched.loss_sum.curvature and w_lean.loss_sum.convex is w_watched.loss_sum.convex
    assert w_lean.round == w_watched.round
    if w_watched.hint_state is None:
        assert w_lean.hint_state is None
    else:
        assert w_lean.hint_state == w_watched.hint_state  # OFTL's h_T = f* - <x_T, .>
    assert np.array_equal(p_lean.secondary, p_watched.secondary) and p_lean.round == p_watched.round
    assert (p_lean.secondary_cache is None) == (p_watched.secondary_cache is None)


def test_a_subclass_keeps_the_lean_round_and_an_override_loses_it(monkeypatch):
    """Chosen by declarations: trivial subclasses of the game and the learners keep the lean round; a learner
    whose play is overridden (below the class that declares leader_form) gets round_of's round, same bits."""
    from gamedyn.core.learners import FTRLPlayer

    class MyGame(FenchelGame):
        pass

    class MyFTL(FollowTheRegularizedLeader):
        pass

    class MyBR(BestResponse):
        pass

    class Counted(FollowTheRegularizedLeader):
        def play(self, state, weight, current_loss=None):
            return super().play(state, weight, current_loss)

    objective = OBJECTIVES["quadratic"]
    calls = []
    original_play = FTRLPlayer.play
    monkeypatch.setattr(FTRLPlayer, "play", lambda self, *a: calls.append(1) or original_play(self, *a))

    def run(game_class, ftl_class, br_class, regrets=False):
        return play_with(game_class(objective, Simplex(), dimension=D), ftl_class(Zero(), 1.0, FirstRoundLoss()),
                         br_class(Simplex()), 30, weights="linear", regrets=regrets)

    sub = run(MyGame, MyFTL, MyBR)
    assert not calls
    overridden = run(FenchelGame, Counted, BestResponse)
    assert len(calls) == 30
    _assert_same_run(sub, overridden)
    calls.clear()
    run(FenchelGame, MyFTL, BestResponse, regrets=True)  # the regrets need the played values: round_of's round
    assert len(calls) == 30


@pytest.mark.parametrize("T", [1, 2, 3])
def test_the_lean_round_is_the_watched_round_for_the_shortest_runs(T):
    """Round 1 takes the hint h_0 (FTL with FirstRoundLoss, OFTL); the first rounds agree bit for bit too."""
    for recipe, objective, options in ((frank_wolfe, "quadratic", {"domain": Simplex()}),
                                       (accelerated_gradient, "logistic", {}), (heavy_ball, "log-sum-exp", {})):
        run = lambda **k: recipe(OBJECTIVES[objective], T, **options, **k)  # noqa: E731
        _assert_same_run(run(), run(**_watched()))
