r"""The soft-margin rates (issue 19): each margin recipe with ``nu`` set, measured against its bound.

With ``nu`` the p-player plays on the capped simplex :math:`\Delta_c`, ``c = 1/(nu n)``, and every
rate of Theorems 3-7 keeps its proof with ``log n`` replaced by entropy's range on :math:`\Delta_c`,

.. math::

    D_c=\max_{p\in\Delta_c}\mathrm{KL}(p\,\|\,u_n)=\log(nc)+r\log(r/c),\qquad r=1-\lfloor 1/c\rfloor c,

and the margin by the soft margin :math:`\gamma_\nu=\min_{p\in\Delta_c}\|A^\top p\|` read off with
:math:`\mathrm{CVaR}_c(Aw)=\min_{p\in\Delta_c}p^\top Aw` (docs/explanation/soft-margin.md, section 3).
Each ``gamedyn reproduce`` row runs one recipe on non-separable data (labels flipped), several
``nu`` and horizons T, and checks every inequality of its theorem as a (measured, bound) pair; the
bound is computed here from the stated formula (``D_c`` from the line above, the steps of the stated
tuning), never from what the recipe returns or declares, and ``gamma_nu`` from the exact oracle
:func:`gamedyn.certify.soft_margin.soft_margin` (its upper end: the conservative side of every ">=" bound).
The measured side is the recipe's own run: its regrets (over the players' domains, Delta_c for p)
and the CVaR of its output's margins, computed here with a sort. The row's number is the smallest
slack (bound minus measurement, oriented so that >= 0 means the bound holds).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["D_c", "SOFT_DATA", "SOFT_NUS", "soft_margin_claims", "soft_rate_checks"]

SOFT_NUS = (0.5, 0.8)
"""The nu of every row (gamma_nu > 0 on each data set below, so the normalised bounds are defined)."""

SOFT_DATA = (("noisy n=60 d=5", 60, 5, 0.1, 0), ("noisy n=120 d=8", 120, 8, 0.1, 1))
"""``(label, n, d, fraction of labels flipped, seed)``: Gaussian features with an intercept column,
labels of a random hyperplane, rows scaled to ||a_i|| <= 1."""

RELATIVE = 1e-9  # rounding allowance on a bound of order 1



def _regret_sum(game) -> float:
    """R_w + R_p of a run that computed its regrets (the margin recipes do)."""
    if game.w_regret is None or game.p_regret is None:
        raise ValueError("this check reads the regrets: run the recipe with regrets=True.")
    return float(game.w_regret + game.p_regret)

def D_c(n: int, cap: float) -> float:
    """``log(n c) + r log(r / c)``, ``r = 1 - floor(1/c) c``: the stated formula (r log r = 0 at r = 0)."""
    whole = math.floor(1.0 / cap + 1e-12)
    r = max(0.0, 1.0 - whole * cap)
    return math.log(n * cap) + (r * math.log(r / cap) if r > 1e-15 else 0.0)


def _cvar(z, cap: float) -> float:
    """min over Delta_c of <z, p>, from a sort: c on the floor(1/c) smallest, the rest on the next."""
    z = np.sort(np.asarray(z, dtype=np.float64))
    whole = min(int(math.floor(1.0 / cap + 1e-12)), z.size)
    rest = 1.0 - whole * cap
    value = cap * math.fsum(z[:whole])
    if whole < z.size and rest > 0:
        value += rest * z[whole]
    return value


def soft_data(label_n_d_flip_seed) -> np.ndarray:
    """The signed rows of one :data:`SOFT_DATA` set (not separable: labels flipped)."""
    label, n, d, flip, seed = label_n_d_flip_seed
    rng = np.random.default_rng(1000 + seed)
    X = np.hstack([rng.standard_normal((n, d)), np.ones((n, 1))])
    y = np.sign(X @ rng.standard_normal(d + 1))
    y[y == 0] = 1
    y[rng.random(n) < flip] *= -1
    A = y[:, None] * X
    return A / np.max(np.linalg.norm(A, axis=1))


# recipe -> its theorem on Delta_c: (label, the regret bound R_w + R_p from D, the margin inequality)
def _inequalities(recipe: str, A, T: int, nu: float, gamma: float):
    """``[(quantity, measured, relation, bound)]`` for one run of ``recipe`` with ``nu``."""
    import gamedyn.recipes as recipes
    from gamedyn.core.capped_simplex import cap_from_nu

    n = A.shape[0]
    cap = cap_from_nu(nu, n)
    D = D_c(n, cap)
    tuned = D if D > 0 else math.log(2.0)  # the stated tuning: log 2 where D_c = 0 (nu = 1)
    checks = []
    if recipe in ("smooth_perceptron", "accelerated_perceptron", "nag_margin"):
        result = getattr(recipes, recipe)(A, T, nu=nu)
        game = result.game
        extra = 1.0 if recipe == "nag_margin" else 0.0
        checks.append(("R_w + R_p", _regret_sum(game), "<=", 4 * D + extra))
        w = result.w
        norm = float(np.linalg.norm(w))
        measured = _cvar(A @ w, cap) / norm if norm > 0 else -math.inf
        checks.append(("CVaR_c(A w) / ||w||", measured, ">=",
                       gamma - (8 * D + 2 * extra) / (gamma * T * (T + 1))))
    elif recipe == "mirror_prox_perceptron":
        eta_w, eta_p = 1 / math.sqrt(2 * tuned), math.sqrt(2 * tuned)
        result = recipes.mirror_prox_perceptron(A, T, nu=nu)
        game = result.game
        bound = 1 / (2 * eta_w) + D / eta_p
        checks.append(("R_w + R_p", _regret_sum(game), "<=", bound))
        checks.append(("CVaR_c(A w_bar_T)", _cvar(A @ result.w, cap), ">=", gamma - bound / T))
    elif recipe == "pnorm_perceptron":  # p = 2 (q = 2): gamma_{q,c} = gamma_nu
        eta_w = 1 / math.sqrt(2 * tuned)
        result = recipes.pnorm_perceptron(A, T, p=2.0, nu=nu)
        bound = 1 / (2 * eta_w) + eta_w * D
        checks.append(("CVaR_c(A w_bar_T)", _cvar(A @ result.w, cap), ">=", gamma - bound / T))
    else:
        raise KeyError(recipe)
    return checks


def soft_rate_checks(recipe: str, horizons, datasets=SOFT_DATA, nus=SOFT_NUS) -> list:
    """``[(slack, where, quantity, measured, relation, bound)]`` over data sets x nu x T."""
    from gamedyn.certify.soft_margin import soft_margin

    rows = []
    for spec in datasets:
        A = soft_data(spec)
        for nu in nus:
            gamma = soft_margin(A, nu).upper
            if not gamma > 1e-6:
                raise ValueError(f"{spec[0]}: gamma_nu = {gamma!r} at nu = {nu}: choose a larger nu")
            for T in horizons:
                for quantity, measured, relation, bound in _inequalities(recipe, A, T, nu, gamma):
                    allowance = RELATIVE * max(1.0, abs(bound))
                    slack = (bound - measured if relation == "<=" else measured - bound) + allowance
                    rows.append((slack, f"{spec[0]}, nu = {nu:g}, T = {T}", quantity, measured, relation, bound))
    return rows


_ROWS = (
    ("smooth_perceptron", "Theorem 3", "smooth perceptron on Delta_c: R_w + R_p <= 4 D_c; "
     "CVaR_c(A w_bar_T)/||w_bar_T|| >= gamma_nu - 8 D_c/(gamma_nu T(T+1))"),
    ("accelerated_perceptron", "Theorem 4", "accelerated perceptron on Delta_c: R_w + R_p <= 4 D_c; "
     "CVaR_c(A v_T)/||v_T|| >= gamma_nu - 8 D_c/(gamma_nu T(T+1))"),
    ("mirror_prox_perceptron", "Theorem 5", "mirror prox on Delta_c, steps tuned by D_c: R_w + R_p <= "
     "1/(2 eta_w) + D_c/eta_p = sqrt(2 D_c); CVaR_c(A w_bar_T) >= gamma_nu - sqrt(2 D_c)/T"),
    ("nag_margin", "Theorem 6", "NAG on Delta_c: R_w + R_p <= 4 D_c + 1; "
     "CVaR_c(A s_T)/||s_T|| >= gamma_nu - (8 D_c + 2)/(gamma_nu T(T+1))"),
    ("pnorm_perceptron", "Theorem 7", "p-norm perceptron (p = 2) on Delta_c, eta_w = 1/sqrt(2 D_c): "
     "CVaR_c(A w_bar_T) >= gamma_nu - sqrt(2 D_c)/T"),
)


def _check(recipe: str):
    def check(context):
        from gamedyn.paper.claims import Measurement

        horizons = context.profile.rate_horizons
        rows = soft_rate_checks(recipe, horizons)
        slack, where, quantity, measured, relation, bound = min(rows, key=lambda row: row[0])
        passed = all(row[0] >= 0 for row in rows)
        return Measurement(slack, 0.0, bool(passed),
                           f"{len(rows)} inequalities; tightest: {where}: {quantity} {measured:.6g} {relation} "
                           f"bound {bound:.6g} (D_c from the formula, gamma_nu from the exact QP)")

    return check


def soft_margin_claims() -> list:
    """The ``gamedyn reproduce`` rows of the soft-margin rates, one per margin recipe (group "soft margin")."""
    from gamedyn.paper.claims import Claim

    return [Claim(f"{theorem} on Delta_c (nu)", statement, "soft margin", (recipe, theorem, "nu"),
                  "min slack", ">=", _check(recipe))
            for recipe, theorem, statement in _ROWS]
