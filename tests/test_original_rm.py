"""Laws of the reference loops in gamedyn/games/matrix/original_rm.py, and the benchmark's hand loops (benchmarks/matrix_games.py) equal to them.

Every regret quantity is recomputed here from the plays and the game (r_t = u_t - <u_t, x_t> 1 with
u_t formed from M and the opponent's play), never read back from the loop's own bookkeeping, and
every bound is the one derived in docs/explanation/regret-matching-bounds.md (the numbers of its equations are cited).
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from gamedyn.games.matrix import original_rm as orm


def _load_hand_loops():
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).resolve().parent.parent / "benchmarks" / "matrix_games.py"
    spec = importlib.util.spec_from_file_location("gamedyn_matrix_games_benchmark", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


hand_loops = _load_hand_loops()

LAW = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
RNG_SEEDS = (0, 1, 2, 3)
ROUND_COUNTS = (1, 2, 3, 10, 200)
RM_VARIANTS = [(False, False), (True, False), (False, True), (True, True)]  # (plus, predictive)
RM_IDS = ["RM", "RM+", "PRM", "PRM+"]

# ---------------------------------------------------------------------------------------- games

WEIGHTED_RPS = np.array([[0.0, -1.0, 2.0], [1.0, 0.0, -3.0], [-2.0, 3.0, 0.0]])  # equilibrium (3, 2, 1) / 6 both
WEIGHTED_RPS_EQ = (np.array([3.0, 2.0, 1.0]) / 6, np.array([3.0, 2.0, 1.0]) / 6)
TWO_BY_TWO = np.array([[2.0, -1.0], [-1.0, 1.0]])  # no saddle point: equilibrium (2/5, 3/5) both, value 1/5
TWO_BY_TWO_EQ = (np.array([0.4, 0.6]), np.array([0.4, 0.6]))


def random_game(seed, shape=(7, 5)):
    return np.random.default_rng(seed).uniform(-1.0, 1.0, shape)


def exact_gap(M, x, y):
    """The Nash gap in exact rational arithmetic."""
    M = [[Fraction(v) for v in row] for row in M]
    m, n = len(M), len(M[0])
    best_row = max(sum(M[i][j] * y[j] for j in range(n)) for i in range(m))
    best_column = min(sum(x[i] * M[i][j] for i in range(m)) for j in range(n))
    return best_row - best_column


def test_docstring_examples_run():
    import doctest

    failures, tried = doctest.testmod(orm, optionflags=doctest.ELLIPSIS)
    assert tried >= 5 and failures == 0


def test_known_equilibria_are_exact():
    third = Fraction(1, 6)
    assert exact_gap(WEIGHTED_RPS, [3 * third, 2 * third, third], [3 * third, 2 * third, third]) == 0
    two_fifths = Fraction(2, 5)
    assert exact_gap(TWO_BY_TWO, [two_fifths, 1 - two_fifths], [two_fifths, 1 - two_fifths]) == 0
    # negative control: the uniform profile is not an equilibrium of either game
    assert exact_gap(WEIGHTED_RPS, [Fraction(1, 3)] * 3, [Fraction(1, 3)] * 3) > 0
    assert exact_gap(TWO_BY_TWO, [Fraction(1, 2)] * 2, [Fraction(1, 2)] * 2) > 0


# ------------------------------------------------------------------------------------ validation

@pytest.mark.parametrize("bad, message", [
    ([1.0, 2.0], "2-D payoff matrix"), ([[1.0, np.nan]], "finite"), ("abc", "2-D array of payoffs"), (np.zeros((0, 3)), "shape"),
])
def test_bad_matrix_is_named(bad, message):
    with pytest.raises((ValueError, TypeError), match=message):
        orm.regret_matching(bad, 3)


@pytest.mark.parametrize("T", [0, -1, 2.5, True, "3"])
def test_bad_round_count_is_named(T):
    with pytest.raises(ValueError, match="T must be a positive integer"):
        orm.regret_matching(np.eye(2), T)


def test_bad_averaging_is_named():
    with pytest.raises(ValueError, match="averaging must be one of"):
        orm.regret_matching(np.eye(2), 3, averaging="cubic")


def test_learner_size_and_order_are_checked():
    with pytest.raises(ValueError, match="row learner must have 2 actions"):
        orm.play_matrix_game(np.eye(2), 3, orm.RegretMatching(3), orm.RegretMatching(2))
    for learner in (orm.RegretMatching(2), orm.AdaHedge(2), orm.AdaptiveFTRL(2)):
        with pytest.raises(RuntimeError, match="call next_strategy first"):
            learner.observe_utility([1.0, 0.0])
    learner = orm.RegretMatching(2)
    learner.next_strategy()
    with pytest.raises(ValueError, match="utility vector of length 2"):
        learner.observe_utility([1.0, 0.0, 3.0])
    with pytest.raises(ValueError, match="u must be finite"):
        learner.observe_utility([1.0, np.inf])
    with pytest.raises(ValueError, match="eta must be a positive finite step"):
        orm.OptimisticHedge(2, 0.0)


# ---------------------------------------------------------------------- regret matching strategy

@LAW
@given(hnp.arrays(np.float64, st.integers(1, 8), elements=st.floats(-5, 5)))
def test_regret_matching_strategy(theta):
    x = orm.regret_matching_strategy(theta)
    assert x.shape == theta.shape and np.all(x >= 0) and abs(x.sum() - 1) < 1e-12
    positive = np.maximum(theta, 0)
    if positive.sum() > 0:
        np.testing.assert_allclose(x * positive.sum(), positive, rtol=1e-12, atol=1e-300)
    else:  # all regrets <= 0: uniform (the convention stated in the module)
        np.testing.assert_array_equal(x, np.full(theta.size, 1 / theta.size))


def test_averaging_weights_start_at_one():
    assert orm.averaging_weights(4, "uniform").tolist() == [1, 1, 1, 1]
    assert orm.averaging_weights(4, "linear").tolist() == [1, 2, 3, 4]
    assert orm.averaging_weights(4, "quadratic").tolist() == [1, 4, 9, 16]


# -------------------------------------------------------------- learners against utility sequences

def run_learner(learner, adversary, T):
    """Plays, utilities and (for regret matching) the stored regrets and predictions after each round.

    ``adversary(t, x, history)`` returns u_t after seeing the current play x_t: adaptive adversaries.
    """
    plays, utilities, stored, predictions = [], [], [], []
    for t in range(1, T + 1):
        predictions.append(getattr(learner, "prediction", np.zeros(learner.size)).copy())
        x = learner.next_strategy()
        u = np.asarray(adversary(t, x, utilities), dtype=np.float64)
        learner.observe_utility(u)
        plays.append(x)
        utilities.append(u)
        stored.append(getattr(learner, "regrets", np.zeros(learner.size)).copy())
    return np.array(plays), np.array(utilities), np.array(stored), np.array(predictions)


def instantaneous_regrets(plays, utilities):
    return utilities - np.einsum("ti,ti->t", utilities, plays)[:, None]


def utility_range(utilities):
    return float(np.max(np.max(utilities, axis=1) - np.min(utilities, axis=1)))


def fixed_sequence(sequence):
    return lambda t, x, history: sequence[t - 1]


def adversary_least_played(scale):
    """All utility on the action the learner plays least: r_t = scale (e_i - x_t), the largest instant regret."""
    def adversary(t, x, history):
        u = np.zeros(x.size)
        u[int(np.argmin(x))] = scale
        return u
    return adversary


def adversary_flip(size, scale):
    """u_t = (-1)^t v: every prediction m_t = r_{t-1} points the wrong way (worst case for PRM / PRM+)."""
    v = scale * np.linspace(-1.0, 1.0, size)
    return lambda t, x, history: v if t % 2 else -v


def adversary_cycle(size, scale):
    """u_t = scale e_{t mod K}: a cyclic sequence on which follow-the-leader pays every round."""
    def adversary(t, x, history):
        u = np.zeros(size)
        u[t % size] = scale
        return u
    return adversary


def adversaries(size, scale, seed):
    rng = np.random.default_rng(seed)
    random_sequence = rng.uniform(-scale, scale, (400, size))
    return {"random": fixed_sequence(random_sequence), "least_played": adversary_least_played(scale),
            "flip": adversary_flip(size, scale), "cycle": adversary_cycle(size, scale)}


@pytest.mark.parametrize("plus, predictive", RM_VARIANTS, ids=RM_IDS)
@pytest.mark.parametrize("name", ["random", "least_played", "flip", "cycle"])
@pytest.mark.parametrize("size", [2, 5])
def test_regret_matching_regret_bounds(plus, predictive, name, size):
    """(measured, bound): R_T <= sqrt(sum ||r_t - m_t||^2) <= c Delta sqrt(K T), c = 1 (RM, RM+), 2 (PRM, PRM+)."""
    T, scale = 300, 1.7
    learner = orm.RegretMatching(size, plus=plus, predictive=predictive)
    plays, utilities, stored, predictions = run_learner(learner, adversaries(size, scale, size)[name], T)
    r = instantaneous_regrets(plays, utilities)
    measured = float(np.max(r.sum(axis=0)))
    m = np.vstack([np.zeros(size), r[:-1]]) if predictive else np.zeros_like(r)  # m_t = r_{t-1}, m_1 = 0
    np.testing.assert_allclose(predictions, m, atol=1e-12)  # the prediction the learner used is the last regret vector
    in_proof = math.sqrt(float(np.sum((r - m) ** 2)))  # docs/explanation/regret-matching-bounds.md (1) and (3)
    worst_case = (2.0 if predictive else 1.0) * utility_range(utilities) * math.sqrt(size * T)  # (2) and (4)
    assert measured <= in_proof * (1 + 1e-12) + 1e-12
    assert in_proof <= worst_case * (1 + 1e-12)
    if plus:  # RM+ / PRM+: R_T <= max Q_T <= ||Q_T|| <= sqrt(sum ||r||^2 + 2 ||m|| ||r||)   (docs/explanation/regret-matching-bounds.md (5))
        Q = stored[-1]
        assert measured <= Q.max() + 1e-10
        q_bound = math.sqrt(float(np.sum(r ** 2) + 2 * np.sum(np.linalg.norm(m, axis=1) * np.linalg.norm(r, axis=1))))
        assert np.linalg.norm(Q) <= q_bound * (1 + 1e-12) + 1e-12


class FollowTheLeader:
    """Greedy regret matching (play the action of largest cumulative regret = largest cumulative utility).

    The plausible wrong algorithm for the bound tests: it is what "regret matching" becomes if the
    proportional play [R]^+ / ||[R]^+||_1 is replaced by an argmax.
    """

    def __init__(self, size):
        self.size, self.total = size, np.zeros(size)

    def next_strategy(self):
        if not np.any(self.total != self.total[0]):
            return np.full(self.size, 1.0 / self.size)
        x = np.zeros(self.size)
        x[int(np.argmax(self.total))] = 1.0
        return x

    def observe_utility(self, u):
        self.total = self.total + u


@pytest.mark.parametrize("name", ["least_played", "cycle"])
def test_bounds_fail_for_follow_the_leader(name):
    """Negative control: the bounds of (1) and (9) fail by a wide margin for the greedy learner."""
    size, T, scale = 4, 3000, 1.0
    plays, utilities, _, _ = run_learner(FollowTheLeader(size), adversaries(size, scale, size)[name], T)
    r = instantaneous_regrets(plays, utilities)
    measured = float(np.max(r.sum(axis=0)))
    assert measured > 3 * math.sqrt(float(np.sum(r ** 2)))
    S = utility_range(utilities)
    assert measured > 3 * (S * math.sqrt(T * math.log(size)) + S * (16 / 3 * math.log(size) + 2))


@LAW
@given(st.integers(2, 6), st.integers(1, 60), st.integers(0, 2**31 - 1), st.sampled_from(RM_VARIANTS),
       st.floats(1e-3, 1e3))
def test_regret_matching_bound_for_any_sequence(size, T, seed, variant, scale):
    plus, predictive = variant
    sequence = scale * np.random.default_rng(seed).standard_normal((T, size))
    learner = orm.RegretMatching(size, plus=plus, predictive=predictive)
    plays, utilities, _, _ = run_learner(learner, fixed_sequence(sequence), T)
    r = instantaneous_regrets(plays, utilities)
    m = np.vstack([np.zeros(size), r[:-1]]) if predictive else np.zeros_like(r)
    assert np.max(r.sum(axis=0)) <= math.sqrt(float(np.sum((r - m) ** 2))) * (1 + 1e-10) + 1e-12 * scale


@LAW
@given(st.integers(1, 6), st.lists(hnp.arrays(np.float64, 6, elements=st.floats(-1e3, 1e3)), min_size=1, max_size=40),
       st.booleans())
def test_rm_plus_regrets_never_negative(size, sequence, predictive):
    learner = orm.RegretMatching(size, plus=True, predictive=predictive)
    for u in sequence:
        learner.next_strategy()
        learner.observe_utility(u[:size])
        assert np.all(learner.regrets >= 0.0)


def test_rm_regrets_do_go_negative_without_the_clip():
    """Negative control: the same sequence drives plain RM's cumulative regrets below 0."""
    learner = orm.RegretMatching(3)
    for u in np.random.default_rng(0).uniform(-1.0, 1.0, (50, 3)):
        learner.next_strategy()
        learner.observe_utility(u)
    assert learner.regrets.min() < -1.0


@LAW
@given(st.integers(2, 6), st.integers(1, 40), st.integers(0, 2**31 - 1), st.floats(1e-2, 1e2), st.floats(-50, 50))
def test_scale_and_translation_invariance(size, T, seed, scale, shift):
    """RM family, AdaHedge and AdaptiveFTRL play the same on u and a u + b (a > 0); optimistic Hedge does not."""
    sequence = np.random.default_rng(seed).uniform(-1, 1, (T, size))
    makers = [lambda: orm.RegretMatching(size), lambda: orm.RegretMatching(size, plus=True, predictive=True),
              lambda: orm.AdaHedge(size), lambda: orm.AdaptiveFTRL(size)]
    for make in makers:
        plain, _, _, _ = run_learner(make(), fixed_sequence(sequence), T)
        moved, _, _, _ = run_learner(make(), fixed_sequence(scale * sequence + shift), T)
        np.testing.assert_allclose(moved, plain, atol=1e-7)


def test_optimistic_hedge_is_not_scale_invariant():
    """Negative control for the invariance law: a fixed step sees the scale of the utilities."""
    sequence = np.random.default_rng(0).uniform(-1, 1, (20, 4))
    plain, _, _, _ = run_learner(orm.OptimisticHedge(4, 1.0), fixed_sequence(sequence), 20)
    scaled, _, _, _ = run_learner(orm.OptimisticHedge(4, 1.0), fixed_sequence(10 * sequence), 20)
    assert np.max(np.abs(plain - scaled)) > 0.1


# ------------------------------------------------------------------------------------- AdaHedge

def adahedge_figure1(losses):
    """A line-by-line transcription of de Rooij et al. (2014), Figure 1 (Matlab), written independently."""
    T, K = losses.shape
    L, Delta = np.zeros(K), 0.0
    weights, hedge = np.zeros((T, K)), np.zeros(T)

    def mix(eta, L):
        mn = L.min()
        w = (L == mn).astype(float) if eta == math.inf else np.exp(-eta * (L - mn))
        s = w.sum()
        return w / s, mn - math.log(s / K) / eta

    for t in range(T):
        eta = math.log(K) / Delta if Delta > 0 else math.inf
        w, Mprev = mix(eta, L)
        weights[t], hedge[t] = w, w @ losses[t]
        L = L + losses[t]
        _, Mnow = mix(eta, L)
        Delta += max(0.0, hedge[t] - (Mnow - Mprev))
    return weights, hedge, Delta


@LAW
@given(st.integers(2, 7), st.integers(1, 60), st.integers(0, 2**31 - 1), st.floats(1e-3, 1e3))
def test_adahedge_equals_the_papers_code(size, T, seed, scale):
    losses = scale * np.random.default_rng(seed).standard_normal((T, size))
    learner = orm.AdaHedge(size)
    plays, _, _, _ = run_learner(learner, fixed_sequence(-losses), T)
    weights, _, Delta = adahedge_figure1(losses)
    np.testing.assert_allclose(plays, weights, rtol=1e-10, atol=1e-12)
    assert math.isclose(learner.gap, Delta, rel_tol=1e-10, abs_tol=1e-12 * scale)


def test_adahedge_first_round_is_follow_the_leader():
    learner = orm.AdaHedge(3)
    np.testing.assert_array_equal(learner.next_strategy(), np.full(3, 1 / 3))
    assert learner.rate() == math.inf
    learner.observe_utility([0.0, 0.0, 0.0])  # no gap: still FTL, now with all three tied
    assert learner.gap == 0.0 and learner.rate() == math.inf
    learner.next_strategy()
    learner.observe_utility([-1.0, 0.0, 0.0])  # action 0 loses 1 under uniform weights: h = 1/3, m = 0
    assert math.isclose(learner.gap, 1 / 3)
    assert math.isclose(learner.rate(), math.log(3) / (1 / 3))


def test_one_action_learners():
    for learner in (orm.AdaHedge(1), orm.AdaptiveFTRL(1), orm.RegretMatching(1, plus=True, predictive=True)):
        for u in ([0.3], [-2.0], [0.1]):
            assert learner.next_strategy().tolist() == [1.0]
            learner.observe_utility(u)
    path = orm.ada_hedge(np.array([[1.0, -1.0, 0.5]]), 5)
    assert path.row_average.tolist() == [1.0] and path.nash_gap >= 0


def adahedge_regret_pieces(size, adversary, T):
    learner = orm.AdaHedge(size)
    plays, utilities, _, _ = run_learner(learner, adversary, T)
    regret = float(np.max(utilities.sum(axis=0)) - np.einsum("ti,ti->", utilities, plays))
    ranges = np.max(utilities, axis=1) - np.min(utilities, axis=1)
    return learner, regret, ranges


@pytest.mark.parametrize("name", ["random", "least_played", "flip", "cycle"])
@pytest.mark.parametrize("size", [2, 5, 40])
def test_adahedge_regret_bounds(name, size):
    """(measured, bound) for AdaHedge: docs/explanation/regret-matching-bounds.md (6)-(8), derived, and (9), the paper's worst case."""
    T, scale = 400, 2.5
    learner, regret, ranges = adahedge_regret_pieces(size, adversaries(size, scale, size)[name], T)
    gaps = np.array(learner.gaps)
    assert np.all(gaps >= 0) and np.all(gaps <= ranges + 1e-9)  # 0 <= delta_t <= rho_t (rounding of M(L_t) - M(L_{t-1}), |L| ~ 1e3)
    Delta_T, Delta_before = learner.gap, float(gaps[:-1].sum())
    assert regret <= Delta_before + Delta_T + 1e-9  # (6): R_T <= ln K / eta_T + Delta_T = Delta_{T-1} + Delta_T
    assert Delta_T <= math.sqrt((math.log(size) / 4 + 1) * float(np.sum(ranges ** 2))) + 1e-9  # (7)
    S = float(ranges.max())
    assert regret <= S * math.sqrt(T * math.log(size)) + S * (16 / 3 * math.log(size) + 2)  # (9)


@pytest.mark.parametrize("size", [2, 5, 40])
def test_adahedge_bounds_on_random_games(size):
    """Each seat of AdaHedge self-play has regret within (6)-(7): the sequence is the opponent's plays."""
    M = random_game(size, (size, size + 1))
    row, column = orm.AdaHedge(size), orm.AdaHedge(size + 1)
    path = orm.play_matrix_game(M, 300, row, column, trajectory=True)
    for learner, plays, opponent, sign in ((row, path.rows, path.columns, 1.0), (column, path.columns, path.rows, -1.0)):
        utilities = opponent @ M.T if sign > 0 else -(opponent @ M)
        regret = float(np.max(utilities.sum(axis=0)) - np.einsum("ti,ti->", utilities, plays))
        ranges = np.max(utilities, axis=1) - np.min(utilities, axis=1)
        assert regret <= 2 * learner.gap + 1e-9
        assert learner.gap <= math.sqrt((math.log(plays.shape[1]) / 4 + 1) * float(np.sum(ranges ** 2))) + 1e-9


def mixability_gaps(plays, utilities, rates):
    """delta_t = h_t - m_t of Hedge at rate eta_t (eta = inf: m_t = min L_t - min L_{t-1}), computed here."""
    losses = -utilities
    L = np.zeros(plays.shape[1])
    out = []
    for x, loss, eta in zip(plays, losses, rates):
        h = float(x @ loss)
        if eta == math.inf:
            m = float((L + loss).min() - L.min())
        else:
            w = x[x > 0]
            z = -eta * loss[x > 0]
            m = -(math.log(np.sum(w * np.exp(z - z.max()))) + z.max()) / eta
        out.append(h - m)
        L = L + loss
    return np.array(out)


@pytest.mark.parametrize("name", ["random", "least_played", "flip", "cycle"])
@pytest.mark.parametrize("size", [2, 5, 40])
def test_adaptive_ftrl_regret_bounds(name, size):
    """docs/explanation/regret-matching-bounds.md (10)-(11): R_T <= ln K / eta_T + sum delta_t <= (sqrt(ln K) + 2 sqrt2 max(sqrt(ln K) / 8, 1)) sqrt(sum rho^2)."""
    T, scale = 400, 0.3
    learner = orm.AdaptiveFTRL(size)
    plays, utilities, _, _ = run_learner(learner, adversaries(size, scale, size)[name], T)
    regret = float(np.max(utilities.sum(axis=0)) - np.einsum("ti,ti->", utilities, plays))
    ranges = np.max(utilities, axis=1) - np.min(utilities, axis=1)
    deltas = mixability_gaps(plays, utilities, learner.rates)
    assert np.all(deltas >= -1e-12) and np.all(deltas <= np.minimum(ranges, [r ** 2 * e / 8 if e < math.inf else math.inf
                                                                             for r, e in zip(ranges, learner.rates)]) + 1e-12)
    last_rate = learner.rates[-1]
    assert regret <= (math.log(size) / last_rate if last_rate < math.inf else 0.0) + deltas.sum() + 1e-9  # (10)
    c = math.sqrt(math.log(size)) + 2 * math.sqrt(2) * max(math.sqrt(math.log(size)) / 8, 1.0)
    assert regret <= c * math.sqrt(float(np.sum(ranges ** 2))) + 1e-9  # (11)


# ------------------------------------------------------------------------------------ self-play

def regrets_of_path(M, path, alternating):
    """Instantaneous regret vectors of both seats over the plays, formed here from M and the plays.

    Row: pairs (x_t, y_t). Column: (y_t, x_t) simultaneous, (y_{t-1}, x_t) alternating (y_0 the start).
    """
    row_u = path.columns @ M.T  # M y_t
    column_u = -(path.rows @ M)  # -M^T x_t
    charged = path.columns if not alternating else np.vstack([path.column_start, path.columns[:-1]])
    return (row_u - np.einsum("ti,ti->t", row_u, path.rows)[:, None],
            column_u - np.einsum("ti,ti->t", column_u, charged)[:, None], charged)


@pytest.mark.parametrize("alternating", [False, True], ids=["simultaneous", "alternating"])
@pytest.mark.parametrize("plus, predictive", RM_VARIANTS, ids=RM_IDS)
@pytest.mark.parametrize("seed", RNG_SEEDS)
def test_self_play_regret_and_gap_bounds(alternating, plus, predictive, seed):
    """Uniform averaging: gap = (R_x + R_y + E) / T, each R within (1) / (3), and E <= 0 for RM / RM+ alternating."""
    M = random_game(seed)
    T = 250
    row, column = orm.RegretMatching(7, plus=plus, predictive=predictive), orm.RegretMatching(5, plus=plus, predictive=predictive)
    path = orm.play_matrix_game(M, T, row, column, alternating=alternating, trajectory=True)
    rx, ry, charged = regrets_of_path(M, path, alternating)
    # the loop's own records agree with the plays (who saw what)
    np.testing.assert_allclose(path.column_charged, charged, atol=0)
    bounds = []
    for r, start in ((rx, path.row_start_utility), (ry, None)):
        regret = float(np.max(r.sum(axis=0)))
        allr = r
        if start is not None:  # the alternating row's first update, against the starts, is part of its sequence
            r0 = start - start @ path.row_start
            allr = np.vstack([r0, r])
        m = np.vstack([np.zeros(allr.shape[1]), allr[:-1]]) if predictive else np.zeros_like(allr)
        bound = math.sqrt(float(np.sum((allr - m) ** 2)))
        if start is not None:  # regret over the plays = regret over all charges minus the first one
            bound += float(np.max(-r0))
        assert regret <= bound * (1 + 1e-12) + 1e-12
        bounds.append(bound)
    E = float(np.sum(np.einsum("ti,ij,tj->t", path.rows, M, path.columns - charged)))
    gap = path.nash_gap
    assert math.isclose(T * gap, float(np.max(rx.sum(0))) + float(np.max(ry.sum(0))) + E, rel_tol=1e-9, abs_tol=1e-9)
    if alternating and not predictive:
        assert np.all(np.einsum("ti,ij,tj->t", path.rows, M, path.columns - charged) <= 1e-12)  # monotone column update
    if not (alternating and predictive):
        assert gap <= (bounds[0] + bounds[1]) / T + 1e-12
        spread = float(M.max() - M.min())
        c = 2.0 if predictive else 1.0
        extra = spread if alternating else 0.0  # the alternating row's extra first charge
        assert gap <= (c * spread * (math.sqrt(7 * (T + alternating)) + math.sqrt(5 * T)) + extra) / T


@pytest.mark.parametrize("alternating", [False, True], ids=["simultaneous", "alternating"])
@pytest.mark.parametrize("predictive", [False, True], ids=["RM+", "PRM+"])
@pytest.mark.parametrize("averaging", ["uniform", "linear", "quadratic"])
@pytest.mark.parametrize("seed", RNG_SEEDS)
def test_weighted_averaging_gap_bound(alternating, predictive, averaging, seed):
    """RM+ / PRM+ with nondecreasing weights: weighted regret <= alpha_T ||Q_final|| (docs/explanation/regret-matching-bounds.md (5), (12)-(13))."""
    M = random_game(seed, (6, 8))
    T = 200
    row, column = orm.RegretMatching(6, plus=True, predictive=predictive), orm.RegretMatching(8, plus=True, predictive=predictive)
    path = orm.play_matrix_game(M, T, row, column, alternating=alternating, averaging=averaging, trajectory=True)
    rx, ry, charged = regrets_of_path(M, path, alternating)
    alpha = path.weights
    Wx, Wy = float(np.max(alpha @ rx)), float(np.max(alpha @ ry))
    assert Wx <= alpha[-1] * row.regrets.max() + 1e-9 and Wy <= alpha[-1] * column.regrets.max() + 1e-9
    E = float(alpha @ np.einsum("ti,ij,tj->t", path.rows, M, path.columns - charged))
    assert math.isclose(alpha.sum() * path.nash_gap, Wx + Wy + E, rel_tol=1e-9, abs_tol=1e-9)
    bound = alpha[-1] * (np.linalg.norm(row.regrets) + np.linalg.norm(column.regrets)) + max(E, 0.0)
    assert path.nash_gap <= bound / alpha.sum() + 1e-12
    if not predictive:
        assert E <= 1e-9 or not alternating


@pytest.mark.parametrize("plus, predictive", RM_VARIANTS, ids=RM_IDS)
@pytest.mark.parametrize("seed", RNG_SEEDS[:3])
def test_alternation_differs_from_simultaneous(plus, predictive, seed):
    M = random_game(seed)
    a = orm.regret_matching(M, 20, plus=plus, predictive=predictive, alternating=False)
    b = orm.regret_matching(M, 20, plus=plus, predictive=predictive, alternating=True)
    assert np.max(np.abs(a.row_average - b.row_average)) + np.max(np.abs(a.column_average - b.column_average)) > 1e-3


@pytest.mark.parametrize("seed", RNG_SEEDS[:3])
def test_negative_controls_differ(seed):
    """No '+' clip = RM, no prediction, a wrong averaging: each changes the result by a wide margin.

    Compared at T = 20, before the dynamics have all converged to the same equilibrium.
    """
    M, T = random_game(seed), 20
    reference = orm.predictive_regret_matching_plus(M, T)  # PRM+, alternating, quadratic
    for other in (orm.regret_matching(M, T, plus=False, predictive=True, alternating=True, averaging="quadratic"),
                  orm.regret_matching(M, T, plus=True, predictive=False, alternating=True, averaging="quadratic"),
                  orm.regret_matching(M, T, plus=True, predictive=True, alternating=True, averaging="linear")):
        assert max(np.max(np.abs(reference.row_average - other.row_average)),
                   np.max(np.abs(reference.column_average - other.column_average))) > 1e-3
    rm_plus = orm.regret_matching_plus(M, T)
    rm = orm.regret_matching(M, T, alternating=True, averaging="linear")
    assert max(np.max(np.abs(rm_plus.row_average - rm.row_average)), np.max(np.abs(rm_plus.column_average - rm.column_average))) > 1e-3


def test_first_rounds_by_hand():
    """T = 1 and 2 on the 2 x 2 game, worked out by hand from the module's conventions."""
    M = TWO_BY_TWO
    simultaneous = orm.regret_matching(M, 1)
    assert simultaneous.row_average.tolist() == [0.5, 0.5] and simultaneous.column_average.tolist() == [0.5, 0.5]
    # alternating: the row's first update sees y_0 = (1/2, 1/2): M y_0 = (1/2, 0), regret (1/4, -1/4) -> x_1 = (1, 0);
    # the column sees x_1: -M^T x_1 = (-2, 1), charged at y_0: regret (-3/2, 3/2) -> y_1 = (0, 1)
    alternating = orm.regret_matching(M, 1, alternating=True)
    assert alternating.row_average.tolist() == [1.0, 0.0] and alternating.column_average.tolist() == [0.0, 1.0]
    # round 2: the row's update sees y_1 = (0, 1): M y_1 = (-1, 1) at x_1: regret (0, 2); R = (1/4, 7/4) -> x_2 = (1/8, 7/8)
    two = orm.regret_matching(M, 2, alternating=True, trajectory=True)
    np.testing.assert_allclose(two.rows[1], [1 / 8, 7 / 8], atol=1e-15)
    # PRM, alternating: the row adds the last regret (0, 2) once more: theta = (1/4, 15/4) -> x_2 = (1/16, 15/16)
    predicted = orm.regret_matching(M, 2, predictive=True, alternating=True, trajectory=True)
    np.testing.assert_allclose(predicted.rows[0], [1.0, 0.0], atol=1e-15)
    np.testing.assert_allclose(predicted.rows[1], [1 / 16, 15 / 16], atol=1e-15)


def _spread(M):
    return float(np.max(M) - np.min(M))


def _rm_bound(M, T):  # (2) for both seats and the folk theorem: gap <= (R_x + R_y) / T
    m, n = M.shape
    return _spread(M) * (math.sqrt(m) + math.sqrt(n)) / math.sqrt(T)


def _rm_plus_alternating_linear_bound(M, T):  # (13): alpha_T (||Q^x|| + ||Q^y||) / sum alpha, E <= 0, T + 1 row charges
    m, n = M.shape
    return T * _spread(M) * (math.sqrt(m * (T + 1)) + math.sqrt(n * T)) / (T * (T + 1) / 2)


def _prm_plus_simultaneous_quadratic_bound(M, T):  # (5) with ||m|| ||r|| <= K Delta^2, E = 0
    m, n = M.shape
    return T**2 * math.sqrt(3) * _spread(M) * (math.sqrt(m * T) + math.sqrt(n * T)) / (T * (T + 1) * (2 * T + 1) / 6)


def _adahedge_bound(M, T):  # (7): R <= 2 Delta_T <= sqrt((ln K + 4) T) Delta per seat
    m, n = M.shape
    return _spread(M) * (math.sqrt((math.log(m) + 4) * T) + math.sqrt((math.log(n) + 4) * T)) / T


def _adaptive_ftrl_bound(M, T):  # (11) per seat
    c = lambda K: math.sqrt(math.log(K)) + 2 * math.sqrt(2) * max(math.sqrt(math.log(K)) / 8, 1.0)
    m, n = M.shape
    return _spread(M) * (c(m) + c(n)) * math.sqrt(T) / T


# name: (dynamic, a-priori gap bound or None, gap strictly decreasing at every checkpoint)
DYNAMICS = {
    "RM": (lambda M, T: orm.regret_matching(M, T), _rm_bound, False),
    "RM+ alt linear": (lambda M, T: orm.regret_matching_plus(M, T), _rm_plus_alternating_linear_bound, True),
    "PRM+ alt quadratic": (lambda M, T: orm.predictive_regret_matching_plus(M, T), None, True),
    "PRM+ simultaneous quadratic": (lambda M, T: orm.predictive_regret_matching_plus(M, T, alternating=False),
                                    _prm_plus_simultaneous_quadratic_bound, True),
    "AdaHedge": (lambda M, T: orm.ada_hedge(M, T), _adahedge_bound, False),
    "AdaHedge alt linear": (lambda M, T: orm.ada_hedge(M, T, alternating=True, averaging="linear"), None, True),
    "adaptive FTRL": (lambda M, T: orm.adaptive_ftrl(M, T), _adaptive_ftrl_bound, False),
    "optimistic Hedge": (lambda M, T: orm.optimistic_hedge(M, T), None, True),
}


@pytest.mark.parametrize("name", list(DYNAMICS))
@pytest.mark.parametrize("game, equilibrium", [(WEIGHTED_RPS, WEIGHTED_RPS_EQ), (TWO_BY_TWO, TWO_BY_TWO_EQ)],
                         ids=["weighted RPS", "2x2"])
def test_nash_gap_decreases_on_games_with_a_unique_equilibrium(name, game, equilibrium):
    """From T = 30 to 3000 the gap of the averages falls (by 3x or more), stays under the proven bound
    where one exists (a 1/sqrt(T) envelope), and the averages approach the unique equilibrium.

    The O(1/sqrt T) dynamics (RM, AdaHedge, adaptive FTRL) need not fall at every checkpoint (adaptive
    FTRL rises between T = 300 and 3000 on weighted RPS); the others fall at each one.
    """
    dynamic, bound, monotone = DYNAMICS[name]
    gaps, distances = [], []
    for T in (30, 300, 3000):
        path = dynamic(game, T)
        gaps.append(path.nash_gap)
        distances.append(max(np.abs(path.row_average - equilibrium[0]).max(), np.abs(path.column_average - equilibrium[1]).max()))
        if bound is not None:
            assert path.nash_gap <= bound(game, T)
    assert gaps[2] < gaps[0] / 3
    if monotone:
        assert gaps[1] < gaps[0] and gaps[2] < gaps[1]
    assert distances[2] < distances[0] and distances[2] < 0.05


def test_fictitious_play_gap_decreases():
    gaps = [orm.fictitious_play(WEIGHTED_RPS, T).nash_gap for T in (30, 300, 3000)]
    assert gaps[2] < gaps[0] / 3


# ------------------------------------------------------------------------- hand loops = originals

GAMES = [random_game(0, (7, 5)), random_game(1, (4, 9)), random_game(2, (6, 6)), WEIGHTED_RPS, TWO_BY_TWO]


def assert_same(a, b, tol=1e-10):
    assert np.max(np.abs(a.row_average - b.row_average)) <= tol
    assert np.max(np.abs(a.column_average - b.column_average)) <= tol


@pytest.mark.parametrize("game", range(len(GAMES)))
@pytest.mark.parametrize("T", ROUND_COUNTS)
def test_hand_loops_equal_originals(game, T):
    M = GAMES[game]
    assert_same(hand_loops.rm_plus(M, T), orm.regret_matching_plus(M, T))
    assert_same(hand_loops.prm_plus(M, T), orm.predictive_regret_matching_plus(M, T))
    for alternating in (False, True):
        for averaging in ("uniform", "linear", "quadratic"):
            assert_same(hand_loops.rm_plus(M, T, alternating=alternating, averaging=averaging),
                        orm.regret_matching(M, T, plus=True, alternating=alternating, averaging=averaging))
            assert_same(hand_loops.prm_plus(M, T, alternating=alternating, averaging=averaging),
                        orm.regret_matching(M, T, plus=True, predictive=True, alternating=alternating, averaging=averaging))
    assert_same(hand_loops.optimistic_hedge(M, T), orm.optimistic_hedge(M, T))
    assert_same(hand_loops.fictitious_play(M, T), orm.fictitious_play(M, T))


@pytest.mark.parametrize("game", range(3))
def test_hand_loop_negative_controls(game):
    """The equivalence above fails by a wide margin against a wrong original (order, averaging, clip)."""
    M, T = GAMES[game], 20
    fast = hand_loops.prm_plus(M, T)
    for wrong in (orm.regret_matching(M, T, plus=True, predictive=True, alternating=False, averaging="quadratic"),
                  orm.regret_matching(M, T, plus=True, predictive=True, alternating=True, averaging="linear"),
                  orm.regret_matching(M, T, plus=False, predictive=True, alternating=True, averaging="quadratic")):
        assert max(np.max(np.abs(fast.row_average - wrong.row_average)),
                   np.max(np.abs(fast.column_average - wrong.column_average))) > 1e-3


@pytest.mark.parametrize("loop", ["rm_plus", "prm_plus", "optimistic_hedge", "fictitious_play"])
def test_hand_loop_certified_gap_is_the_gap(loop):
    """The O(m + n) running-sum gap the benchmark stops on equals the gap recomputed with two products."""
    M = random_game(5, (9, 7))
    result = getattr(hand_loops, loop)(M, 40, targets=[1e-12])  # never reached: runs all 40 rounds with checks
    assert result.stop == "rounds" and result.hits[1e-12] is None
    assert math.isclose(result.gap, orm.nash_gap(M, result.row_average, result.column_average), rel_tol=1e-9, abs_tol=1e-12)


def test_linprog_solution_is_certified():
    M = random_game(3, (12, 9))
    solved = hand_loops.linprog_solve(M)
    assert solved["status"] == 0 and 0 <= solved["gap"] <= 1e-9
    assert math.isclose(solved["gap"], orm.nash_gap(M, solved["row"], solved["column"]), abs_tol=1e-15)
