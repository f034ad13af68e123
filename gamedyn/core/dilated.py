r"""The dilated entropy: a regularizer on a treeplex with a closed-form bottom-up prox (Hoda et al. 2010).

On a treeplex :math:`X` (:class:`gamedyn.core.treeplex.Treeplex`; :math:`b^x_j` the behavioural
strategy of x at infoset j, :math:`x_{ja}=x_{p(j)}b^x_j(a)`) the **dilated entropy** with weights
:math:`\beta_j>0` is (Hoda, Gilpin, Peña & Sandholm 2010)

.. math::

    R(x)=\sum_{j\in J}\beta_j\sum_{a\in A_j}x_{ja}\log\frac{x_{ja}}{x_{p(j)}}
        =\sum_{j}\beta_j\,x_{p(j)}\sum_a b^x_j(a)\log b^x_j(a),

the negative entropy of each infoset's local strategy, scaled by the probability of reaching it.
Its Bregman divergence is the reach-weighted sum of the local KL divergences,
:math:`D_R(x,c)=\sum_j\beta_jx_{p(j)}\mathrm{KL}(b^x_j\,\|\,b^c_j)`.

**The prox, bottom-up.** The learners of :mod:`gamedyn.core.learners` ask their regularizer for
:math:`\arg\min_{x\in X}\eta\langle\theta,x\rangle+D_R(x,c)`. With the magnet of MMD (Sokota et
al. 2023, eq. (3) on a treeplex), a centre :math:`\rho` and :math:`\alpha>0`, every step's loss also
carries :math:`\alpha D_R(x,\rho)`:

.. math::

    x^+=\arg\min_{x\in X}\ \eta\big(\langle\theta,x\rangle+\alpha D_R(x,\rho)\big)+D_R(x,c).

Writing it as :math:`s\,R(x)+\langle\ell,x\rangle` with :math:`s=1+\eta\alpha` (the constant parts
of :math:`\nabla R` cancel on the treeplex), the minimum over infoset j's local strategy, given the
values of the infosets below, is a log-sum-exp, and it is passed to the parent sequence, deepest
level first:

.. math::

    z_{ja}=\frac{\log b^c_j(a)+\eta\alpha\log b^\rho_j(a)}{s}-\frac{\eta\theta_{ja}}{s\beta_j}
          +\frac{1}{\beta_j}\sum_{k:\,p(k)=ja}\beta_k\,\mathrm{lse}(z_k),\qquad
    b^+_j=\mathrm{softmax}(z_j),

then :math:`x^+` is the sequence form of :math:`b^+` (one backward and one forward pass over the
levels, every infoset's log-sum-exp shifted by its maximum). Without a magnet (:math:`\alpha=0`) this
is dilated Hedge's step; FTRL, OFTRL and OMD give dilated Hedge, optimistic dilated Hedge and
dilated mirror descent with it, and mirror descent with a magnet is MMD.

**Weights.** ``weights=None`` is every :math:`\beta_j=1` (the weight-one dilated entropy of
OpenSpiel's ``mmd_dilated`` and of kernelized OMWU, near-optimal by Fan, Kroer & Farina 2024);
``weights="kroer"`` are the weights of Kroer, Waugh, Kılınç-Karzan & Sandholm (2020, Thm 5), under
which R is :math:`1/M_X`-strongly convex on X w.r.t. the :math:`\ell_1` norm,
:math:`M_X=\max_{x\in X}\|x\|_1` (the empty sequence not counted):

.. math::

    \beta_j=M_j\Big(2+\sum_{r=1}^{d_j}2^r\big(M_{j,r}-1\big)\Big),

with :math:`M_j` the largest :math:`\ell_1` norm of a strategy of the sub-treeplex at j (j's actions
summing to 1), :math:`d_j` its depth (the levels of infosets below j) and :math:`M_{j,r}` the largest
total of its entries at the infosets r levels below j (tests/test_dilated.py checks the strong
convexity :math:`D_R(x,y)\ge\|x-y\|_1^2/(2M_X)` on random treeplexes). An array gives the weights
directly (one positive entry per infoset).
"""

from __future__ import annotations

import math
from typing import Any

import attrs
import numpy as np

from gamedyn.core.regularizers import Regularizer
from gamedyn.core.treeplex import Treeplex

__all__ = ["DilatedEntropy", "kroer_weights"]


def kroer_weights(treeplex: Treeplex) -> tuple:
    r"""``(beta, M_X)``: the weights of Kroer et al. (2020) for ``treeplex`` (see the module docstring) and
    :math:`M_X=\max_{x\in X}\|x\|_1`, the empty sequence not counted.

    >>> beta, M = kroer_weights(Treeplex([0, 1], [2, 2]))
    >>> beta.tolist(), M
    ([4.0, 2.0], 2.0)
    """
    J = treeplex.number_of_infosets
    parents, starts = treeplex.parents, treeplex.starts
    infoset_of = treeplex.infoset_of
    children: list = [[] for _ in range(treeplex.dimension)]
    for j in range(J):
        children[int(parents[j])].append(j)
    largest = np.zeros(J)  # M_j
    profile: list = [None] * J  # M_{j,r}, r = 0 .. d_j
    for j in reversed(range(J)):  # the infosets are ordered by depth: children come later
        best, best_profile = 0.0, [1.0]
        for sequence in range(int(starts[j]), int(starts[j + 1])):
            below = children[sequence]
            best = max(best, 1.0 + sum(largest[k] for k in below))
            depth = max((len(profile[k]) for k in below), default=0)
            totals = [sum(profile[k][r] for k in below if r < len(profile[k])) for r in range(depth)]
            for r, total in enumerate(totals, start=1):
                if r < len(best_profile):
                    best_profile[r] = max(best_profile[r], total)
                else:
                    best_profile.append(total)
        largest[j] = best
        profile[j] = best_profile
    beta = np.array([largest[j] * (2.0 + sum(2.0 ** r * (profile[j][r] - 1.0) for r in range(1, len(profile[j]))))
                     for j in range(J)])
    top = float(sum(largest[j] for j in range(J) if infoset_of[int(parents[j])] < 0))
    return beta, top


def _weights(instance, attribute, value):
    treeplex = instance.treeplex
    if value is None:
        return
    if isinstance(value, str):
        if value != "kroer":
            raise ValueError(f"weights must be None (every beta_j = 1), 'kroer' (Kroer et al. 2020) or an array of "
                             f"one positive weight per infoset, got {value!r}.")
        return
    array = np.asarray(value, dtype=np.float64)
    if array.shape != (treeplex.number_of_infosets,) or not np.all(np.isfinite(array)) or np.any(array <= 0):
        raise ValueError(f"weights must hold one positive finite weight per infoset ({treeplex.number_of_infosets} "
                         f"for {treeplex!r}), got shape {array.shape}.")


def _check_treeplex(instance, attribute, value):
    if not isinstance(value, Treeplex):
        raise TypeError(f"treeplex must be a gamedyn.Treeplex (e.g. game.treeplexes[0]), got {type(value).__name__}.")


@attrs.frozen(eq=False, repr=False)
class DilatedEntropy(Regularizer):
    r"""The dilated entropy on a treeplex (Hoda et al. 2010), with its closed-form bottom-up prox.

    See the module docstring for the formula, the prox and the weights.

    Parameters
    ----------
    treeplex : Treeplex
        The strategy set (the regularizer's domain).
    weights : None, "kroer" or array_like, default None
        :math:`\beta_j`: 1 on every infoset (None), the weights of Kroer et al. (2020) that make R
        :math:`1/M_X`-strongly convex w.r.t. :math:`\ell_1` (``"kroer"``), or one positive weight per infoset.
    magnet : array_like, optional
        MMD's magnet :math:`\rho`, a point of the treeplex with positive entries (default: the uniform strategy
        when ``alpha > 0``).
    alpha : float, default 0.0
        MMD's magnet strength: every step's loss carries :math:`\alpha D_R(x,\rho)` (Sokota et al. 2023).

    Examples
    --------
    >>> tp = Treeplex([0, 1], [2, 2])
    >>> R = DilatedEntropy(tp)
    >>> x = R.argmin([0.0, 1.0, 0.0, 0.0, 2.0], 0.0, 1.0, tp.default_centre(5))
    >>> bool(tp.contains(x)), x.round(3).tolist()
    (True, [1.0, 0.173, 0.827, 0.152, 0.021])
    """

    plays_in_domain = True

    treeplex: Treeplex = attrs.field(validator=_check_treeplex)
    weights: object = attrs.field(default=None, validator=_weights, eq=False)
    magnet: object = attrs.field(default=None, kw_only=True, eq=False)
    alpha: float = attrs.field(default=0.0, kw_only=True, converter=float)
    _beta: np.ndarray = attrs.field(init=False)
    _log_magnet: Any = attrs.field(init=False)

    def __attrs_post_init__(self):
        treeplex = self.treeplex
        if self.weights is None:
            beta = np.ones(treeplex.number_of_infosets)
        elif isinstance(self.weights, str):
            beta = kroer_weights(treeplex)[0]
        else:
            beta = np.array(self.weights, dtype=np.float64)
        beta.flags.writeable = False
        if not (math.isfinite(self.alpha) and self.alpha >= 0.0):
            raise ValueError(f"alpha must be a finite number >= 0 (MMD's magnet strength), got {self.alpha!r}.")
        log_magnet = None
        if self.alpha > 0.0 or self.magnet is not None:
            magnet = treeplex.default_centre(treeplex.dimension) if self.magnet is None else np.asarray(
                self.magnet, dtype=np.float64)
            if not treeplex.contains(magnet) or np.any(magnet[1:] <= 0.0):
                raise ValueError(f"magnet must be a point of {treeplex!r} with positive entries (e.g. "
                                 "treeplex.default_centre(treeplex.dimension)).")
            log_magnet = np.log(treeplex.to_behavioural(magnet))
        object.__setattr__(self, "_beta", beta)
        object.__setattr__(self, "_log_magnet", log_magnet)

    @property
    def domain(self) -> Treeplex:  # type: ignore[override]
        """The treeplex."""
        return self.treeplex

    @property
    def beta(self) -> np.ndarray:
        r"""The weights :math:`\beta_j`, one per infoset (read-only)."""
        return self._beta

    def __repr__(self) -> str:
        parts = [repr(self.treeplex)]
        if self.weights is not None:
            parts.append("weights='kroer'" if isinstance(self.weights, str) else "weights=[...]")
        if self.alpha > 0.0:
            parts.append(f"alpha={self.alpha!r}")
        return f"DilatedEntropy({', '.join(parts)})"

    def __eq__(self, other) -> bool:
        return (isinstance(other, DilatedEntropy) and self.treeplex == other.treeplex
                and np.array_equal(self._beta, other._beta) and self.alpha == other.alpha
                and (self._log_magnet is other._log_magnet or (
                    self._log_magnet is not None and other._log_magnet is not None
                    and np.array_equal(self._log_magnet, other._log_magnet))))

    def __hash__(self) -> int:
        return hash((self.treeplex, self.alpha))

    def with_magnet(self, magnet=None, alpha: float = 0.0) -> "DilatedEntropy":
        """This regularizer with MMD's magnet ``magnet`` (default uniform) and strength ``alpha``."""
        return DilatedEntropy(self.treeplex, self.weights, magnet=magnet, alpha=alpha)

    # ------------------------------------------------------------------------------ the functions

    def _behaviour_logs(self, z) -> np.ndarray:
        z = np.asarray(z, dtype=np.float64)
        self.treeplex._check_shape(z, "z")
        with np.errstate(divide="ignore"):
            return np.log(self.treeplex.to_behavioural(z))

    def value(self, z) -> float:
        r""":math:`R(z)=\sum_j\beta_j\sum_az_{ja}\log(z_{ja}/z_{p(j)})` (0 log 0 = 0)."""
        z = np.asarray(z, dtype=np.float64)
        logs = self._behaviour_logs(z)
        terms = np.where(z[1:] > 0.0, z[1:] * logs[1:], 0.0)
        return float(self._beta @ np.add.reduceat(terms, self.treeplex.offsets))

    def mirror_map(self, z) -> np.ndarray:
        r""":math:`\nabla R(z)_{ja}=\beta_j(\log b^z_j(a)+1)-\sum_{k:p(k)=ja}\beta_k` (entry 0: :math:`-\sum_{\rm top}\beta_k`)."""
        treeplex = self.treeplex
        gradient = treeplex.spread(self._beta) * (self._behaviour_logs(z) + 1.0)
        gradient[0] = 0.0
        np.subtract.at(gradient, treeplex.parents, self._beta)
        return gradient

    def inverse_mirror_map(self, theta) -> np.ndarray:
        r""":math:`\arg\max_{x\in X}\langle\theta,x\rangle-R(x)`: the point whose mirror image is theta up to the
        treeplex's normal directions (the bottom-up softmax, no centre)."""
        theta = np.asarray(theta, dtype=np.float64)
        self.treeplex._check_shape(theta, "theta")
        return self._bottom_up(np.zeros(self.treeplex.dimension), theta)[0]

    def bregman(self, z, centre) -> float:
        r""":math:`D_R(z,c)=\sum_j\beta_jz_{p(j)}\mathrm{KL}(b^z_j\|b^c_j)`."""
        z = np.asarray(z, dtype=np.float64)
        mine, theirs = self._behaviour_logs(z), self._behaviour_logs(centre)
        with np.errstate(invalid="ignore"):
            terms = np.where(z[1:] > 0.0, z[1:] * (mine[1:] - theirs[1:]), 0.0)
        return float(self._beta @ np.add.reduceat(terms, self.treeplex.offsets))

    # ------------------------------------------------------------------------------------- the prox

    def _bottom_up(self, prior, gain) -> tuple:
        r"""``(x, log b)``: the logits :math:`z_{ja}=\text{prior}_{ja}+(\text{gain}_{ja}+u_{ja})/\beta_j`,
        :math:`u_{ja}=\sum_{p(k)=ja}\beta_k\,\mathrm{lse}(z_k)`, deepest level first; b = softmax(z) per infoset."""
        treeplex = self.treeplex
        inverse = treeplex.spread(1.0 / self._beta, empty=0.0)
        u = np.zeros(treeplex.dimension)
        log_b = np.zeros(treeplex.dimension)
        beta = self._beta
        for level in reversed(treeplex.levels):
            span = level.sequences
            logits = prior[span] + (gain[span] + u[span]) * inverse[span]
            top = np.maximum.reduceat(logits, level.offsets)
            if not np.all(np.isfinite(top)):
                raise ValueError("DilatedEntropy's prox met a non-finite logit (a NaN or infinite loss, or a centre "
                                 "with no weight left at an infoset): give finite losses and a centre inside the "
                                 "treeplex's relative interior.")
            shifted = logits - top.repeat(level.sizes)
            lse = top + np.log(np.add.reduceat(np.exp(shifted), level.offsets))
            log_b[span] = logits - lse.repeat(level.sizes)
            np.add.at(u, level.parents, beta[level.infosets] * lse)
        return treeplex.to_sequence(np.exp(log_b)), log_b

    def centre_cache(self, centre):
        """log of the centre's behavioural strategy (``-inf`` where it is 0), computed once per centre."""
        return self._behaviour_logs(centre)

    def argmin(self, linear, curvature: float, eta: float, centre):
        return self.argmin_with_cache(linear, curvature, eta, centre, self.centre_cache(centre))

    def argmin_with_cache(self, linear, curvature: float, eta: float, centre, cache):
        return self.argmin_and_cache(linear, curvature, eta, centre, cache)[0]

    def argmin_and_cache(self, linear, curvature: float, eta: float, centre, cache):
        r"""``(x, log b^x)``: the bottom-up prox of the module docstring (with the magnet when ``alpha > 0``)."""
        if curvature != 0:
            raise ValueError(f"DilatedEntropy has a closed-form prox for linear losses only (curvature 0), got "
                             f"curvature {curvature!r}; play it on a bilinear game (e.g. game.payoff()).")
        linear = np.asarray(linear, dtype=np.float64)
        if linear.ndim != 1:
            raise ValueError(f"DilatedEntropy plays one game at a time: linear must be a vector, got shape {linear.shape}.")
        self.treeplex._check_shape(linear, "linear")
        eta = float(eta)
        cache = self.centre_cache(centre) if cache is None else cache
        if self._log_magnet is None or self.alpha == 0.0:
            return self._bottom_up(cache, -eta * linear)
        scale = 1.0 + eta * self.alpha
        with np.errstate(invalid="ignore"):
            prior = (cache + (eta * self.alpha) * self._log_magnet) / scale
        return self._bottom_up(prior, (-eta / scale) * linear)
