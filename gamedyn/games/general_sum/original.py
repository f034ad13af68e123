r"""The published no-swap-regret procedures in their original loop form (the learners are checked against these).

Written from the papers, with no learner, no runner and no code of :mod:`gamedyn.core.swap_regret`:

* :func:`blum_mansour` -- Blum & Mansour (2007), Section 4: K copies of an external-regret algorithm
  (regret matching, RM+, or Hedge with step :math:`\eta`), copy j's distribution :math:`q_j` the j-th row
  of Q, the play p with :math:`p=pQ`, copy j charged :math:`p(j)\ell_t`;
* :func:`hart_mas_colell` -- Hart & Mas-Colell (2000), regret matching on the conditional regrets
  :math:`D[j,k]=\sum_t\alpha_tp_t(j)(u_t(k)-u_t(j))`, played as the invariant distribution of the
  transition matrix :math:`\Pi[j,k]=D^+[j,k]/\mu` (:math:`k\ne j`), :math:`\Pi[j,j]=1-\sum_{k\ne j}\Pi[j,k]`,
  :math:`\mu` the largest row sum (the expected-play version of Cesa-Bianchi & Lugosi 2006, Section 4.4);
  ``plus=True`` clips D at 0 after each round.

Each runs either against a fixed sequence of losses (``*_online``) or in self-play on a game
(:func:`swap_self_play`: every player runs the procedure on its expected utilities, simultaneously).
The invariant distribution (:func:`invariant_distribution`) is taken on the closed communicating class
of the smallest state among the closed classes (found by the transitive closure of the transition graph),
as the null vector of :math:`P^\top-I` there (singular value decomposition).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

__all__ = ["blum_mansour_online", "hart_mas_colell_online", "invariant_distribution", "swap_self_play"]


def invariant_distribution(P) -> np.ndarray:
    """An invariant distribution pi = pi P: on the closed class of the smallest state among the closed classes."""
    P = np.asarray(P, dtype=np.float64)
    K = P.shape[0]
    reach = (P > 0) | np.eye(K, dtype=bool)
    for k in range(K):  # Warshall's transitive closure
        reach |= reach[:, [k]] & reach[[k], :]
    closed = [j for j in range(K) if all(reach[i, j] for i in range(K) if reach[j, i])]  # j reaches only its class
    j = closed[0]
    members = [i for i in range(K) if reach[j, i] and reach[i, j]]
    block = P[np.ix_(members, members)]
    vector = scipy.linalg.null_space(block.T - np.eye(len(members)))[:, 0]
    vector = np.abs(vector) / np.abs(vector).sum()
    pi = np.zeros(K)
    pi[members] = vector
    return pi


def _rm_rows(R: np.ndarray) -> np.ndarray:
    rows = np.empty_like(R)
    for j in range(R.shape[0]):
        positive = np.clip(R[j], 0.0, None)
        rows[j] = positive / positive.sum() if positive.sum() > 0 else 1.0 / R.shape[1]
    return rows


class _BlumMansour:
    def __init__(self, K: int, base: str, eta: float | None):
        self.base, self.eta, self.K = base, 0.0 if eta is None else float(eta), K
        self.R = np.zeros((K, K))  # regret matching: copy j's regrets; Hedge: copy j's cumulative losses

    def play(self) -> np.ndarray:
        if self.base == "hedge":
            logits = -self.eta * self.R
            logits -= logits.max(axis=1, keepdims=True)
            self.Q = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
        else:
            self.Q = _rm_rows(self.R)
        self.p = invariant_distribution(self.Q)
        return self.p

    def update(self, loss: np.ndarray, alpha: float) -> None:
        for j in range(self.K):
            charged = self.p[j] * loss
            if self.base == "hedge":
                self.R[j] += alpha * charged
            else:
                self.R[j] += alpha * (charged @ self.Q[j] - charged)
                if self.base == "rm+":
                    self.R[j] = np.maximum(self.R[j], 0.0)


class _HartMasColell:
    def __init__(self, K: int, plus: bool):
        self.D, self.plus, self.K = np.zeros((K, K)), plus, K

    def play(self) -> np.ndarray:
        positive = np.clip(self.D, 0.0, None)
        for j in range(self.K):
            positive[j, j] = 0.0
        mu = positive.sum(axis=1).max()
        if mu <= 0:
            self.p = np.full(self.K, 1.0 / self.K)
            return self.p
        Pi = positive / mu
        for j in range(self.K):
            Pi[j, j] = 1.0 - Pi[j].sum()
        self.p = invariant_distribution(Pi)
        return self.p

    def update(self, loss: np.ndarray, alpha: float) -> None:
        utility = -loss
        for j in range(self.K):
            self.D[j] += alpha * self.p[j] * (utility - utility[j])
        if self.plus:
            self.D = np.maximum(self.D, 0.0)


def _procedure(rule: str, K: int, eta=None):
    if rule in ("bm-rm", "bm-rm+", "bm-hedge"):
        return _BlumMansour(K, rule[3:], eta)
    if rule in ("hmc", "hmc+"):
        return _HartMasColell(K, rule == "hmc+")
    raise ValueError(f"rule must be 'bm-rm', 'bm-rm+', 'bm-hedge', 'hmc' or 'hmc+', got {rule!r}.")


def blum_mansour_online(losses, base: str = "rm+", weights=None, eta: float | None = None) -> np.ndarray:
    """Blum-Mansour's plays (T, K) against the losses (T, K); ``base``: 'rm', 'rm+' or 'hedge' (step ``eta``)."""
    return _online(losses, "bm-" + base, weights, eta)


def hart_mas_colell_online(losses, plus: bool = False, weights=None) -> np.ndarray:
    """Hart & Mas-Colell's plays (T, K) against the losses (T, K)."""
    return _online(losses, "hmc+" if plus else "hmc", weights, None)


def _online(losses, rule, weights, eta) -> np.ndarray:
    losses = np.asarray(losses, dtype=np.float64)
    T, K = losses.shape
    alphas = np.ones(T) if weights is None else np.asarray(weights, dtype=np.float64)
    procedure = _procedure(rule, K, eta)
    plays = np.empty((T, K))
    for t in range(T):
        plays[t] = procedure.play()
        procedure.update(losses[t], alphas[t])
    return plays


def swap_self_play(payoffs, T: int, rule: str, weights=None, eta: float | None = None) -> tuple:
    """Every player of the game (a list of n utility tensors) runs ``rule`` on its expected utilities,
    simultaneously, for T rounds; returns each player's plays (T, a_i)."""
    payoffs = [np.asarray(U, dtype=np.float64) for U in payoffs]
    n = len(payoffs)
    shape = payoffs[0].shape
    alphas = np.ones(T) if weights is None else np.asarray(weights, dtype=np.float64)
    procedures = [_procedure(rule, a, eta) for a in shape]
    plays = [np.empty((T, a)) for a in shape]
    letters = "abcdefghij"[:n]
    for t in range(T):
        current = [procedure.play() for procedure in procedures]
        for i in range(n):
            others = ",".join(letters[j] for j in range(n) if j != i)
            utility = np.einsum(f"{letters},{others}->{letters[i]}", payoffs[i],
                                *[current[j] for j in range(n) if j != i])
            plays[i][t] = current[i]
            procedures[i].update(-utility, alphas[t])
    return tuple(plays)
