"""Property-based fuzzing of :func:`gamedyn.play` and :func:`gamedyn.max_margin` (issue 11).

Random shapes, payoffs (Bilinear, RegularizedBilinear, ConcaveConvex with and without declared
domains), learner pairs (every public learner and regularizer, legal and illegal seatings),
weights, steps and magnitudes from subnormal (1e-323) to 1e308. Asserted for every game:

* only documented exceptions: the ``ValueError`` refusals (wrong domain, FTRL+ moving first or
  facing a linearised payoff, FTL on R^d with a linear loss) and :class:`NumericalRangeError`;
* every play, last iterate and average lies in its player's domain (the simplex: entries >= 0
  and sum 1 within 1e-12; a ball: norm <= radius (1 + 1e-12); R^d: finite);
* regrets, Theorem 2's bound and the duality gap are never NaN, and +inf only where the domain
  has no best point (R^d with a linear loss);
* the bound is never below the duality gap by more than float64 rounding (see
  :func:`rounding_allowance`), also for the linearised ConcaveConvex payoff.

The hypothesis profile is deterministic (``derandomize=True``, no example database) with a
bounded number of examples, so CI runs the same games every time; ``GAMEDYN_FUZZ_EXAMPLES=N``
multiplies the main budget for a deeper local run.
"""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
import scipy.optimize
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from gamedyn import (
    FTL,
    FTRL,
    OFTL,
    OFTRL,
    OMD,
    Ball,
    Bilinear,
    ConcaveConvex,
    Entropy,
    FTRLPlus,
    MirrorDescent,
    NumericalRangeError,
    QNorm,
    Reals,
    RegularizedBilinear,
    Simplex,
    SquaredEuclidean,
    max_margin,
    play,
)
from gamedyn.core.numerics import euclidean_norm
from gamedyn import record_plays

EPS = np.finfo(np.float64).eps
TINY = 2.0**-1074  # the spacing of subnormals: the absolute rounding error of an underflowing operation
BIGGEST = np.finfo(np.float64).max
SCALE = int(os.environ.get("GAMEDYN_FUZZ_EXAMPLES", "1"))


def fuzz(examples: int):
    return settings(max_examples=examples * SCALE, derandomize=True, database=None, deadline=None,
                    suppress_health_check=list(HealthCheck), print_blob=True)


# --------------------------------------------------------------------------------------- strategies

exponents = st.one_of(st.integers(-6, 6), st.integers(-323, 308))


def power_of_ten(exponent: int) -> float:
    return min(10.0 ** exponent, BIGGEST)


@st.composite
def matrices(draw, n: int, d: int):
    """Entries in [-1, 1] (some exactly 0) times 10^k, k from -323 to 308."""
    unit = draw(st.lists(st.one_of(st.just(0.0), st.floats(-1.0, 1.0)), min_size=n * d, max_size=n * d))
    return np.clip(np.array(unit).reshape(n, d) * power_of_ten(draw(exponents)), -BIGGEST, BIGGEST)


@st.composite
def regularizers(draw):
    kind = draw(st.sampled_from(["entropy", "euclidean", "euclidean-ball", "euclidean-simplex", "qnorm"]))
    if kind == "entropy":
        return Entropy()
    if kind == "euclidean":
        return SquaredEuclidean()
    if kind == "euclidean-ball":
        return SquaredEuclidean(radius=power_of_ten(draw(st.integers(-3, 3))))
    if kind == "euclidean-simplex":
        return SquaredEuclidean(domain=Simplex())
    return QNorm(draw(st.sampled_from([1.25, 1.5, 2.0])))


domains = st.one_of(st.just(None), st.just(Simplex()), st.integers(-3, 3).map(lambda k: Ball(10.0**k)))


@st.composite
def simplex_learners(draw):
    """Learners on the simplex, the p-player's domain in the bilinear payoffs."""
    kind = draw(st.sampled_from(["FTL", "OFTL", "FTRL", "FTRLPlus", "OFTRL", "OMD", "MirrorDescent"]))
    if kind == "FTL":
        return FTL(Simplex())
    if kind == "OFTL":
        return OFTL(Simplex())
    regularizer = draw(st.sampled_from([Entropy(), SquaredEuclidean(domain=Simplex())]))
    eta = power_of_ten(draw(exponents))
    return {"FTRL": FTRL, "FTRLPlus": FTRLPlus, "OFTRL": OFTRL, "OMD": OMD, "MirrorDescent": MirrorDescent}[kind](regularizer, eta)


@st.composite
def learners(draw):
    """Every public learner with every regularizer (or domain, for the unregularized ones)."""
    kind = draw(st.sampled_from(["FTL", "OFTL", "FTRLPlus-none", "FTRL", "FTRLPlus", "OFTRL", "OMD", "MirrorDescent"]))
    if kind == "FTL":
        return FTL(draw(domains))
    if kind == "OFTL":
        return OFTL(draw(domains))
    if kind == "FTRLPlus-none":
        return FTRLPlus(None, 1.0)
    regularizer, eta = draw(regularizers()), power_of_ten(draw(exponents))
    return {"FTRL": FTRL, "FTRLPlus": FTRLPlus, "OFTRL": OFTRL, "OMD": OMD, "MirrorDescent": MirrorDescent}[kind](regularizer, eta)


@st.composite
def weight_schedules(draw, T: int):
    kind = draw(st.sampled_from(["constant", "linear", "number", "sequence"]))
    if kind in ("constant", "linear"):
        return kind
    scale = power_of_ten(draw(st.integers(-320, 308)))
    if kind == "number":
        return max(scale, 5e-324)
    spread = draw(st.lists(st.floats(0.001, 1000.0), min_size=T, max_size=T))
    with np.errstate(over="ignore"):
        return np.maximum(np.minimum(np.array(spread) * scale, BIGGEST), 5e-324)


class BilinearCallables:
    """g(w, p) = p^T A w - (strength / 2) ||w||^2 given as callables, for ConcaveConvex."""

    def __init__(self, A, strength):
        self.A, self.strength = A, strength

    def value(self, w, p):
        return float(p @ self.A @ w) - 0.5 * self.strength * float(w @ w)

    def gradient_w(self, w, p):
        return self.A.T @ p - self.strength * w

    def gradient_p(self, w, p):
        return self.A @ w


@st.composite
def games(draw):
    n, d, T = draw(st.integers(1, 5)), draw(st.integers(1, 4)), draw(st.integers(1, 6))
    A = draw(matrices(n, d))
    kind = draw(st.sampled_from(["Bilinear", "RegularizedBilinear", "ConcaveConvex"]))
    strength = power_of_ten(draw(st.integers(-3, 3))) if kind != "Bilinear" else 0.0
    if kind == "Bilinear":
        payoff = Bilinear(A)
    elif kind == "RegularizedBilinear":
        payoff = RegularizedBilinear(A, strength)
    else:
        strength = draw(st.sampled_from([0.0, strength]))
        callables = BilinearCallables(A, strength)
        declared = draw(st.sampled_from(["none", "p", "both"]))
        payoff = ConcaveConvex(callables.value, callables.gradient_w, callables.gradient_p, w_dimension=d,
                               p_dimension=n, p_domain=None if declared == "none" else Simplex(),
                               w_domain=draw(domains) if declared == "both" else None)
    schedule = draw(weight_schedules(T))
    return {"payoff": payoff, "A": A, "strength": strength, "w_learner": draw(learners()),
            "p_learner": draw(learners() if draw(st.integers(0, 4)) == 0 else simplex_learners()), "T": T, "weights": schedule, "first": draw(st.sampled_from("wp"))}


# --------------------------------------------------------------------------------------- the oracle


def refusal(game) -> str | None:
    """The ValueError play must raise before any round, computed independently of play."""
    payoff = game["payoff"]
    for player in ("w", "p"):
        required = getattr(payoff, f"{player}_domain")
        if required is not None and game[f"{player}_learner"].domain != required:
            return f"{player}_learner plays on"
    first = game["w_learner"] if game["first"] == "w" else game["p_learner"]
    if first.needs_current_loss:
        return "moves first"
    if not isinstance(game["weights"], str) and np.min(game["weights"]) < np.finfo(np.float64).tiny:
        return "is subnormal"
    return None


def may_have_no_minimiser(game) -> bool:
    """FTL-type learners (no regularizer) on R^d facing a linear loss: documented ValueError."""
    for player in ("w", "p"):
        learner = game[f"{player}_learner"]
        linear = player == "p" or isinstance(game["payoff"], (Bilinear, ConcaveConvex)) and not (
            isinstance(game["payoff"], RegularizedBilinear))
        if type(learner.regularizer).__name__ == "Zero" and isinstance(learner.domain, Reals) and linear:
            return True
    return False


def in_domain(domain, point) -> bool:
    point = np.asarray(point, dtype=np.float64)
    if not np.all(np.isfinite(point)):
        return False
    if isinstance(domain, Simplex):
        return bool(np.all(point >= 0) and abs(np.sum(point) - 1.0) <= 1e-12)
    if isinstance(domain, Ball):
        return euclidean_norm(point) <= domain.radius * (1 + 1e-12)
    return True


def rounding_allowance(game, result, w_best, p_best) -> float:
    """How far the bound (R_w + R_p)/S_T may fall below the gap by float64 rounding alone.

    For g = p^T A w - (lambda/2)||w||^2 and the reported (linearised) losses, the regrets satisfy
    R_w + R_p = S_T gap + sum_t alpha_t lambda/2 ||w_t||^2 - S_T lambda/2 ||w_bar||^2 >= S_T gap
    (equality for Bilinear) whatever the plays. Both sides are sums of at most
    m = T + n + d + 4 products, each bounded by alpha_t K with
    K = max|A| max||w||_1 max||p||_1 + lambda/2 max||w||_2^2 over the plays, averages and best
    responses; a float64 sum of m terms errs by at most m eps times the sum of their magnitudes
    (Higham, Thm 4.4: gamma_m), plus m * 2^-1074 per underflowing operation. Six such sums enter,
    the regrets divided by S_T, so the allowance is 6 m eps K + 6 m' 2^-1074 (1 + 1/S_T), with
    m' = T (nd + n + d) + nd the number of operations that may underflow.
    """
    A, strength = game["A"], game["strength"]
    n, d = A.shape
    ws = [*result.trace["w"], result.w_average, w_best]
    ps = [*result.trace["p"], result.p_average, p_best]
    w1 = max(float(np.sum(np.abs(w))) for w in ws)
    w2 = max(euclidean_norm(w) for w in ws)
    p1 = max(float(np.sum(np.abs(p))) for p in ps)
    with np.errstate(over="ignore"):
        K = float(np.max(np.abs(A))) * w1 * p1 + 0.5 * strength * w2 * w2
    terms = result.rounds + n + d + 4
    operations = result.rounds * (n * d + n + d) + n * d
    return 6 * terms * EPS * K + 6 * operations * TINY * (1 + 1 / result.weight_total)


def check_result(game, result):
    w_domain, p_domain = game["w_learner"].domain, game["p_learner"].domain
    for player, domain in (("w", w_domain), ("p", p_domain)):
        for name in ("average", "last"):
            point = getattr(result, f"{player}_{name}")
            assert in_domain(domain, point), f"{player}_{name} = {point!r} is not in {domain!r}"
        for t, point in enumerate(result.trace[player], start=1):
            assert in_domain(domain, point), f"{player}_{t} = {point!r} is not in {domain!r}"
    values = {"w_regret": result.w_regret, "p_regret": result.p_regret,
              "theorem2_bound": result.theorem2_bound, "duality_gap": result.duality_gap}
    for name, value in values.items():
        assert value is None or not np.isnan(value), f"{name} is NaN"
        assert value is None or value != -np.inf, f"{name} is -inf"
    for player, domain, loss_sum in (("w", w_domain, result.w_loss_sum), ("p", p_domain, result.p_loss_sum)):
        if getattr(result, f"{player}_regret") == np.inf:
            assert isinstance(domain, Reals) and loss_sum.curvature == 0, f"{player}_regret = inf on {domain!r}"
    if result.theorem2_bound is None or result.theorem2_bound == np.inf:
        return
    # The gap, computed here for every payoff (ConcaveConvex's is numerical, checked to 1e-7 of its terms).
    A, strength = game["A"], game["strength"]
    w_best = w_domain.minimize_quadratic(-(A.T @ result.p_average), strength)
    p_best = p_domain.minimize_quadratic(A @ result.w_average, 0.0)
    if w_best is None or p_best is None:
        return
    callables = BilinearCallables(A, strength)
    with np.errstate(over="ignore", invalid="ignore"):
        gap = callables.value(w_best, result.p_average) - callables.value(result.w_average, p_best)
    if result.duality_gap is not None and not isinstance(game["payoff"], ConcaveConvex):
        assert result.duality_gap == pytest.approx(gap, rel=1e-12, abs=1e-300) or not np.isfinite(gap)
    elif result.duality_gap is not None:  # ConcaveConvex: by scipy.optimize, accurate to ~1e-9 of g's magnitude
        w_size = max(float(np.linalg.norm(w_best)), float(np.linalg.norm(result.w_average)))
        p_size = max(float(np.sum(np.abs(p_best))), float(np.sum(np.abs(result.p_average))))
        with np.errstate(over="ignore"):
            scale = (abs(callables.value(w_best, result.p_average)) + abs(callables.value(result.w_average, p_best))
                     + float(np.max(np.abs(A))) * w_size * p_size + 0.5 * strength * w_size * w_size)
        assert abs(result.duality_gap - gap) <= 1e-7 * scale + rounding_allowance(game, result, w_best, p_best) \
            or not np.isfinite(gap)
    allowance = rounding_allowance(game, result, w_best, p_best)
    if np.isfinite(gap) and np.isfinite(allowance):
        event("bound checked against the gap")
        assert result.theorem2_bound >= gap - allowance, (
            f"Theorem 2 bound {result.theorem2_bound!r} < duality gap {gap!r} - rounding {allowance!r}")


@fuzz(1000)
@given(games())
def test_play_only_documented_outcomes(game):
    expected = refusal(game)
    try:
        with np.errstate(all="ignore"):  # numpy's warnings are not the subject; the outcome is
            result = play(game["payoff"], game["w_learner"], game["p_learner"], game["T"],
                          weights=game["weights"], first=game["first"], observers=[record_plays()])
    except NumericalRangeError as error:
        assert expected is None, f"expected the refusal {expected!r}, got {error}"
        assert "Rescale" in str(error)
        event("NumericalRangeError")
        return
    except ValueError as error:
        message = str(error)
        if expected is not None:
            assert expected in message, f"expected the refusal {expected!r}, got {message}"
            event(f"refused: {expected}")
            return
        if "ConcaveConvex payoffs give linearised losses only" in message:
            assert isinstance(game["payoff"], ConcaveConvex)
            assert (game["p_learner"] if game["first"] == "w" else game["w_learner"]).needs_current_loss
            event("refused: FTRL+ on a linearised payoff")
            return
        assert "has no minimiser" in message and may_have_no_minimiser(game), message
        event("refused: FTL on R^d with a linear loss")
        return
    assert expected is None, f"play accepted a game it must refuse ({expected!r})"
    event("completed")
    check_result(game, result)


# ------------------------------------------------------------------ max_margin against an exact LP


def lp_verdict(A) -> bool:
    """Separable through the origin iff max t s.t. A w >= t, -1 <= w <= 1, t <= 1 has t > 0.

    Solved (HiGHS) on A / max|A|, so the LP sees entries of order 1 whatever the scale.
    """
    A = A / np.max(np.abs(A))
    n, d = A.shape
    cost = np.zeros(d + 1)
    cost[-1] = -1.0
    constraints = np.hstack([-A, np.ones((n, 1))])  # t - (A w)_i <= 0
    bounds = [(-1.0, 1.0)] * d + [(None, 1.0)]
    solution = scipy.optimize.linprog(cost, A_ub=constraints, b_ub=np.zeros(n), bounds=bounds, method="highs")
    assert solution.status == 0, solution.message
    return -solution.fun > 1e-9


@st.composite
def margin_data(draw):
    """Data whose verdict is known by construction, far from the boundary in relative terms.

    Separable: rows whose component along a unit u is >= gamma0 (0.01 to 1) times the row
    norm's order. Not separable: a positive combination of the rows is 0 (a last row closes it).
    """
    n, d = draw(st.integers(2, 8)), draw(st.integers(1, 5))
    rows = np.array(draw(st.lists(st.floats(-1, 1), min_size=n * d, max_size=n * d))).reshape(n, d)
    if draw(st.booleans()):
        u = np.array(draw(st.lists(st.floats(-1, 1), min_size=d, max_size=d)))
        if np.linalg.norm(u) < 0.1:
            u = np.eye(d)[0]
        u = u / np.linalg.norm(u)
        gamma0 = draw(st.floats(0.01, 1.0))
        along = rows @ u
        rows = rows - np.outer(along, u) + np.outer(np.abs(along) + gamma0, u)
        separable = True
    else:
        coefficients = np.array(draw(st.lists(st.floats(0.1, 1.0), min_size=n - 1, max_size=n - 1)))
        rows[-1] = -(coefficients @ rows[:-1])
        if np.max(np.abs(rows)) == 0:
            rows[0, 0], rows[-1, 0] = 1.0, -1.0
        separable = False
    return rows, separable, draw(st.integers(-290, 290))


def max_margin_verdict(A):
    try:
        result = max_margin(A)
    except ValueError:
        return False, None
    return True, result


@fuzz(60)
@given(margin_data())
def test_max_margin_agrees_with_an_exact_lp_at_ordinary_scales(data):
    """Largest entry 10^-2 to 10^6, so absolute margins stay above 1e-5: the verdicts agree now."""
    rows, separable, exponent = data
    assert lp_verdict(rows) == separable
    A = rows / np.max(np.abs(rows)) * 10.0 ** (exponent % 9 - 2)
    decided, result = max_margin_verdict(A)
    assert decided == separable
    if decided:
        assert np.min(A @ result.direction) >= result.gamma * (1 - 1e-12) > 0


@fuzz(60)
@given(margin_data())
def test_max_margin_agrees_with_an_exact_lp_at_every_scale(data):
    """Scales 10^-290 to 10^290: a verdict must not depend on the units of the data (issue 11 item 1).

    The data are scaled by a power of two, kept out of the subnormal range, so the scaled rows are
    exactly the constructed ones: multiplying by 10^k rounds, and in the subnormal range the rounding
    can turn exactly dependent (non-separable) rows into separable ones (found by hypothesis: two
    rows of size 1e-294 whose subnormal second coordinates stopped being exactly anti-parallel).
    """
    rows, separable, exponent = data
    nonzero = np.abs(rows[rows != 0])
    power = round(exponent * math.log2(10))
    power = max(power, math.ceil(math.log2(np.finfo(np.float64).tiny) - math.log2(nonzero.min())))
    power = min(power, math.floor(math.log2(np.finfo(np.float64).max) - math.log2(4 * rows.shape[1] * nonzero.max())))
    A = np.ldexp(rows, power)
    assert np.array_equal(np.ldexp(A, -power), rows)  # the scaling is exact
    assert lp_verdict(A) == separable
    decided, result = max_margin_verdict(A)
    assert decided == separable
    if decided:
        assert np.min(A @ result.direction) >= result.gamma * (1 - 1e-12) > 0
