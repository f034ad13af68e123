r"""The paper's rate theorems as code: each returns (measured quantity, bound) pairs for a run.

Every function runs its recipe on ``A`` for ``T`` rounds and returns a list of :class:`RateCheck`,
so a test asserts ``check.holds`` and a user sees how close each bound is (``check.slack``). The
reference margins come from the exact max-margin oracle (:func:`gamedyn.certify.margins.max_margin`), or,
for the q-norm margin, from the *upper* end of its certified bracket, which is conservative.

=========  =============================================================================  ========
theorem    statement checked (spec section)                                                recipe
=========  =============================================================================  ========
3          R_w <= 2 sum ||p_t - p_{t-1}||_1^2;  R_p <= 4 log n - 2 sum ||p_t - p_{t-1}||_1^2;
           m(w_bar_T) >= gamma^2/2 - 8 log n / (T(T+1))   (4.4)                           smooth
4          the regret bounds of 3 and min_i (A v_T)_i / ||v_T|| >= gamma - 8 log n / (gamma T(T+1))  (5.5)  accelerated
5          eta_w eta_p <= 1;  R_w + R_p <= 1/(2 eta_w) + log n / eta_p;  min_i (A w_bar_T)_i >= gamma - sqrt(2 log n)/T  (7.3)  mirror prox
6          R_w + R_p <= 4 log n + 1;  m(w_bar_T) >= gamma^2/2 - (8 log n + 2)/(T(T+1));
           min_i (A s_T)_i / ||s_T|| >= gamma - (8 log n + 2)/(gamma T(T+1))   (6.3)      NAG
7          eta_w eta_p <= 1;  R_w(u) + R_p <= R_q(u)/eta_w + eta_w log n;
           max_{||u||_q<=1} R_w(u) + R_p <= sqrt(2(p-1) log n);
           min_i (A w_bar_T)_i >= gamma_q - sqrt(2(p-1) log n)/T   (8)                    p-norm
=========  =============================================================================  ========
"""

from __future__ import annotations

import attrs
import numpy as np

from gamedyn.certify.margins import max_margin, max_margin_q, normalized_margin
from gamedyn.core.regularizers import QNorm


@attrs.frozen
class RateCheck:
    """One inequality of a theorem, measured: ``measured <= bound`` or ``measured >= bound``."""

    theorem: str
    quantity: str
    measured: float
    bound: float
    relation: str = attrs.field(validator=attrs.validators.in_(("<=", ">=")))
    tolerance: float = 1e-12

    @property
    def holds(self) -> bool:
        """Whether the measured value satisfies its relation to the bound, up to the tolerance."""
        scale = self.tolerance * max(1.0, abs(self.bound))
        if self.relation == "<=":
            return bool(self.measured <= self.bound + scale)
        return bool(self.measured >= self.bound - scale)

    @property
    def slack(self) -> float:
        """How far inside the bound the measurement is (negative when it fails)."""
        return self.bound - self.measured if self.relation == "<=" else self.measured - self.bound


def _path_length(p_plays, p0):
    """sum_t ||p_t - p_{t-1}||_1^2 with p_0 given."""
    previous = np.vstack([p0[None, :], p_plays[:-1]])
    return float(np.sum(np.sum(np.abs(p_plays - previous), axis=1) ** 2))


def _m_value(A, w):
    """m(w) = min_i (Aw)_i - 1/2 ||w||^2 for the paper's regularised payoff."""
    return float(np.min(A @ w) - 0.5 * w @ w)


def _dense(A):
    return A.toarray() if hasattr(A, "toarray") else np.asarray(A, dtype=np.float64)



def _plays(game) -> dict:
    """The run's recorded plays (``record=True``), typed: a run without them is refused, not read as None."""
    if game.trace is None:
        raise ValueError("this check reads every play: run the recipe with record=True.")
    return game.trace


def _regret(value) -> float:
    """A regret of one game (a float), typed: a run that skipped the regrets is refused, not read as None."""
    if value is None:
        raise ValueError("this check reads the regrets: run the recipe with regrets=True.")
    return float(value)

def theorem3(A, T, *, oracle=None):
    """Theorem 3 (smooth perceptron): regret bounds and m(w_bar_T) >= gamma^2/2 - 8 log n/(T(T+1))."""
    from gamedyn.recipes import smooth_perceptron

    A = _dense(A)
    oracle = max_margin(A) if oracle is None else oracle
    n = A.shape[0]
    run = smooth_perceptron(A, T, record=True)
    path = _path_length(_plays(run.game)["p"], np.full(n, 1.0 / n))
    return [
        RateCheck("3", "R_w", _regret(run.game.w_regret), 2 * path, "<="),
        RateCheck("3", "R_p", _regret(run.game.p_regret), 4 * np.log(n) - 2 * path, "<="),
        RateCheck("3", "m(w_bar_T)", _m_value(A, run.w), oracle.upper**2 / 2 - 8 * np.log(n) / (T * (T + 1)), ">="),
    ]


def theorem4(A, T, *, oracle=None):
    """Theorem 4 (accelerated perceptron): normalised margin of v_T >= gamma - 8 log n/(gamma T(T+1))."""
    from gamedyn.recipes import accelerated_perceptron

    A = _dense(A)
    oracle = max_margin(A) if oracle is None else oracle
    n, gamma = A.shape[0], oracle.upper
    run = accelerated_perceptron(A, T, record=True)
    path = _path_length(_plays(run.game)["p"], np.full(n, 1.0 / n))
    return [
        RateCheck("4", "R_w", _regret(run.game.w_regret), 2 * path, "<="),
        RateCheck("4", "R_p", _regret(run.game.p_regret), 4 * np.log(n) - 2 * path, "<="),
        RateCheck("4", "normalised margin of v_T", normalized_margin(A, run.w),
                  gamma - 8 * np.log(n) / (gamma * T * (T + 1)), ">="),
    ]


def theorem5(A, T, *, eta_w=None, eta_p=None, oracle=None):
    """Theorem 5 (mirror prox): eta_w eta_p <= 1, R_w + R_p <= 1/(2 eta_w) + log n/eta_p and the margin of w_bar_T.

    Without ``eta_w`` / ``eta_p`` the recipe's own default steps are measured (read off its result).
    """
    from gamedyn.recipes import mirror_prox_perceptron

    A = _dense(A)
    oracle = max_margin(A) if oracle is None else oracle
    n = A.shape[0]
    run = mirror_prox_perceptron(A, T, eta_w=eta_w, eta_p=eta_p)
    eta_w, eta_p = run.steps["eta_w"], run.steps["eta_p"]
    regret_bound = 1 / (2 * eta_w) + np.log(n) / eta_p
    return [
        RateCheck("5", "eta_w eta_p", eta_w * eta_p, 1.0, "<="),
        RateCheck("5", "R_w + R_p", _regret(run.game.w_regret) + _regret(run.game.p_regret), regret_bound, "<="),
        RateCheck("5", "min_i (A w_bar_T)_i", float(np.min(A @ run.w)), oracle.upper - regret_bound / T, ">="),
    ]


def theorem6(A, T, *, oracle=None):
    """Theorem 6 (NAG): R_w + R_p <= 4 log n + 1, m(w_bar_T) and the normalised margin of s_T."""
    from gamedyn.recipes import nag_margin

    A = _dense(A)
    oracle = max_margin(A) if oracle is None else oracle
    n, gamma = A.shape[0], oracle.upper
    run = nag_margin(A, T)
    excess = (8 * np.log(n) + 2) / (T * (T + 1))
    return [
        RateCheck("6", "R_w + R_p", _regret(run.game.w_regret) + _regret(run.game.p_regret), 4 * np.log(n) + 1, "<="),
        RateCheck("6", "m(w_bar_T)", _m_value(A, run.game.w_average), gamma**2 / 2 - excess, ">="),
        RateCheck("6", "normalised margin of s_T", normalized_margin(A, run.w), gamma - excess / gamma, ">="),
    ]


def theorem7(A, T, p, *, oracle=None):
    """Theorem 7 (p-norm), with the recipe's own steps: eta_p eta_w <= 1 (the condition the proof needs),
    R_w(u) + R_p <= R_q(u)/eta_w + eta_w log n at the max-margin direction u, the worst case over the
    unit q-ball max_u R_w(u) + R_p <= sqrt(2(p-1) log n), and the margin of w_bar_T.

    ``max_{||u||_q <= 1} R_w(u) = sum_t h_t(w_t) + ||A^T sum_t pi_t||_p`` (Hoelder: the w-losses are
    ``h_t(u) = -pi_t^T A u``), measured, not the algebraic value of the bound.
    """
    from gamedyn.recipes import pnorm_perceptron

    A = _dense(A)
    q = p / (p - 1)
    oracle = max_margin_q(A, q) if oracle is None else oracle
    n = A.shape[0]
    run = pnorm_perceptron(A, T, p=p)
    eta_w, eta_p = run.steps["eta_w"], run.steps["eta_p"]
    u = oracle.direction  # ||u||_q = 1
    measured = _regret(run.game.w_regret_against(u)) + _regret(run.game.p_regret)
    worst_w_regret = _regret(run.game.w_played_loss) + float(np.linalg.norm(A.T @ run.game.p_sum, ord=p))
    constant = np.sqrt(2 * (p - 1) * np.log(n))
    return [
        RateCheck("7", "eta_w eta_p", eta_w * eta_p, 1.0, "<="),
        RateCheck("7", "R_w(u) + R_p", measured, QNorm(q).value(u) / eta_w + eta_w * np.log(n), "<="),
        RateCheck("7", "max_u R_w(u) + R_p", worst_w_regret + _regret(run.game.p_regret), constant, "<="),
        RateCheck("7", "min_i (A w_bar_T)_i", float(np.min(A @ run.w)), oracle.upper - constant / T, ">="),
    ]


# ------------------------------------------------------------------ the issue-18 learners' regret bounds

#: The instances of :func:`learner_regret_bounds`: ``(label, utility sequence u_t)`` for ``t = 1..T``.
#: ``flip``: K = 2, ``u_t = (-1)^{t+1} (-1, 1)``; every bound below is nearly attained on it (R_T is
#: 1/sqrt 2 of sqrt(sum ||r_t||^2) for RM: one of the two coordinates of each r_t is the regret);
#: ``cycle``: K = 5, ``u_t = e_{t mod 5}``, on which playing the leader pays every round.
REGRET_INSTANCES = ("flip", "cycle")


def regret_instance(name: str, T: int) -> np.ndarray:
    """The ``(T, K)`` utilities of the instance ``name`` (see :data:`REGRET_INSTANCES`)."""
    t = np.arange(1, T + 1)
    if name == "flip":
        signs = np.where(t % 2 == 1, 1.0, -1.0)
        return signs[:, None] * np.array([-1.0, 1.0])[None, :]
    if name == "cycle":
        return np.eye(5)[t % 5]
    raise ValueError(f"name must be one of {REGRET_INSTANCES}, got {name!r}.")


def _learner_of(kind: str):
    from gamedyn.core.adaptive import AdaHedge
    from gamedyn.core.regret_matching import RegretMatching

    return {"RM": RegretMatching(), "RM+": RegretMatching(plus=True),
            "PRM+": RegretMatching(plus=True, predictive=True), "AdaHedge": AdaHedge()}[kind]


LEARNER_BOUNDS = {
    "RM": "R_T <= sqrt(sum_t ||r_t||_2^2)  (Blackwell's potential; <= Delta sqrt(K T))",
    "RM+": "R_T <= sqrt(sum_t ||r_t||_2^2)  (||Q_T|| bounds it; <= Delta sqrt(K T))",
    "PRM+": "R_T <= sqrt(sum_t ||r_t - m_t||_2^2), m_t = r_{t-1}, m_1 = 0  (<= 2 Delta sqrt(K T))",
    "AdaHedge": "R_T <= sqrt((ln K + 4) sum_t rho_t^2), rho_t = max u_t - min u_t  (2 Delta_T bounds it)",
}


def learner_regret_bound(kind: str, utilities) -> RateCheck:
    r"""One learner of issue 18 (``"RM"``, ``"RM+"``, ``"PRM+"``, ``"AdaHedge"``) against the fixed utility
    sequence ``utilities`` (shape ``(T, K)``), run through :func:`gamedyn.engine.online` on the losses
    :math:`-u_t`: the measured regret :math:`R_T=\max_i\sum_tu_{t,i}-\sum_t\langle u_t,x_t\rangle` against
    the stated bound of :data:`LEARNER_BOUNDS` (docs/explanation/regret-matching-bounds.md (1), (3), (7)),
    computed here from the plays and the utilities, not read from the learner's state."""
    from gamedyn.core.loss import Loss
    from gamedyn.engine.online import online

    U = np.asarray(utilities, dtype=np.float64)
    result = online(_learner_of(kind), [Loss(-u) for u in U])
    plays = result.plays
    r = U - np.einsum("ti,ti->t", U, plays)[:, None]  # r_t = u_t - <u_t, x_t> 1
    measured = float(np.max(r.sum(axis=0)))
    if kind in ("RM", "RM+"):
        bound = float(np.sqrt(np.sum(r**2)))
    elif kind == "PRM+":
        m = np.vstack([np.zeros(U.shape[1]), r[:-1]])
        bound = float(np.sqrt(np.sum((r - m) ** 2)))
    else:
        rho = U.max(axis=1) - U.min(axis=1)
        bound = float(np.sqrt((np.log(U.shape[1]) + 4.0) * np.sum(rho**2)))
    return RateCheck(kind, "R_T", measured, bound, "<=")
