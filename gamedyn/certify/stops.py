r"""Certified stop rules for :func:`gamedyn.play` and every recipe's ``stop=`` (bilinear payoffs).

Each rule reads the running bracket :math:`L_t\le\gamma^*\le U_t` that the runner keeps for
bilinear payoffs (:class:`gamedyn.certify.certificates.CertificateTracker`, O(n + d) per round, no
matrix-vector product), so a rule costs no extra product per round; the sharper but costlier
bounds (a min-norm point, one product when the sums do not align) run only every ``every``
rounds.

=====================  ==========================================================================
rule                   fires after the first round t where
=====================  ==========================================================================
``separated``          :math:`L_t > 0` (the output separates the rows; :math:`L_t = 0` does not fire)
``margin_within(eps)`` :math:`L_t > 0` and :math:`(U_t - L_t)/U_t \le \varepsilon`, which certifies
                       :math:`(\gamma^* - L_t)/\gamma^* \le \varepsilon` (0 < eps < 1)
``infeasible(eps)``    :math:`U_t\le\varepsilon\,\max_i\|a_i\|_{q^*}`: no direction has normalised
                       margin above eps times the largest row norm (0 < eps < 1; the recipes' rows
                       have norms <= 1, so this is at most eps); it then looks for Gordan's proof
                       (:func:`gamedyn.certify.certificates.gordan_proof`), so ``certificate.separable`` is
                       False when 0 is proved to lie in the convex hull of the rows, and stays None
                       (undecided, with the bracket) when no exact proof is found
``any_of(r1, r2, ...)`` any of the rules fires (all are evaluated, so each sees every round)
=====================  ==========================================================================

The threshold of ``infeasible`` is relative to the data's scale, so ``c A`` stops where ``A`` does;
the largest row norm is computed once per run (one pass over A), at the rule's first check.

Batched games (:mod:`gamedyn.arrays.batched`, a :class:`gamedyn.certify.certificates.BatchedCertificateTracker`):
each rule decides game by game, and the run stops once every game is settled; under ``any_of`` a
game is settled when any of the rules settles it (game 1 within eps, game 2 certified infeasible).

>>> import numpy as np
>>> from gamedyn.recipes import smooth_perceptron
>>> A = np.array([[0.6, 0.2], [0.3, -0.5], [0.5, 0.1]])
>>> result = smooth_perceptron(A, T=10_000, stop=margin_within(0.01))
>>> result.game.stopped_early, result.certificate.relative_gap <= 0.01
(True, True)
"""

from __future__ import annotations

import math
import numbers
import weakref
from typing import Any

import numpy as np

__all__ = ["separated", "margin_within", "infeasible", "any_of", "positive_margin"]


def _tracker(round_state):
    tracker = getattr(round_state, "certificate_tracker", None)
    if tracker is None:
        raise ValueError(
            "this stop rule needs the certificate of a bilinear game: use a Bilinear or RegularizedBilinear "
            "payoff (every recipe does); for other payoffs write a rule on the RoundState fields."
        )
    return tracker


def _check_epsilon(eps, name: str, meaning: str) -> float:
    if isinstance(eps, bool) or not isinstance(eps, numbers.Real) or not (math.isfinite(eps) and 0 < float(eps) < 1):
        raise ValueError(f"{name} must be a number in (0, 1) ({meaning}), got {eps!r}; pass e.g. {name}=0.01 "
                         f"(eps >= 1 would fire at round 1).")
    return float(eps)


def _check_every(every, name: str = "every") -> int:
    if isinstance(every, bool) or not isinstance(every, numbers.Integral) or every < 1:
        raise ValueError(f"{name} must be a positive integer (act every k rounds), got {every!r}; pass e.g. {name}=5.")
    return int(every)


class _Rule:
    """A stop rule: ``verdicts(round_state)`` settles each game (one entry for an unbatched game); the
    rule fires once every game is settled. It is pure: it reads the bracket and changes nothing.

    ``requests`` declares the work the rule wants done on the certificate, which the runner's
    :class:`gamedyn.engine.observers.CertificateObserver` does in its own state before the rule reads it:
    ``{"sharpen_every": k, "sharpen_check_every": every, "sharpen_eps": eps}`` (sharpen U_t every k
    rounds on the rule's check rounds, for the games not yet within eps) and ``{"confirm_infeasible":
    [eps]}`` (at the end of a run a stop rule ended, Gordan's proof on the games with U_t <= eps max_i ||a_i||).
    """

    def __init__(self, name, verdicts, requests=None):
        self.__name__ = name
        self.verdicts = verdicts
        self.requests = dict(requests or {})

    def __call__(self, round_state) -> bool:
        return bool(np.all(self.verdicts(round_state)))

    def __repr__(self):
        return self.__name__


def _each(value) -> np.ndarray:
    return np.atleast_1d(np.asarray(value, dtype=bool))


def _separated(round_state) -> np.ndarray:
    return _each(_tracker(round_state).lower > 0)


separated = _Rule("separated", _separated)
separated.__doc__ = """Stop once the output's normalised margin L_t is positive (it separates every row).

Parameters
----------
round_state : RoundState
    The round, with the certificate tracker of a bilinear game.

Returns
-------
bool
    True once L_t > 0 (batched games: in every game).

Raises
------
ValueError
    The game has no certificate (not a Bilinear or RegularizedBilinear payoff).

Examples
--------
>>> import numpy as np
>>> from gamedyn.recipes import smooth_perceptron
>>> A = np.array([[0.6, 0.2], [0.3, -0.5], [0.5, 0.1]])
>>> result = smooth_perceptron(A, T=1000, stop=separated)
>>> result.game.stopped_early, bool(result.certificate.lower > 0)
(True, True)
"""


def margin_within(eps, *, every: int = 1, sharpen_every: int | None = None):
    """Stop once the certified relative gap (U_t - L_t)/U_t is at most ``eps`` (0 < eps < 1).

    ``every=k`` checks every k rounds (useful when L_t costs a product: outputs whose weights differ
    from the p-player's). ``sharpen_every=k`` replaces U_t every k rounds by the min-norm point of
    the convex hull of the 2(d + 1) heaviest rows of the witness (O(d^3), l2 only), often certifying
    the gap many rounds earlier (batched games: for the games not yet within eps).

    Parameters
    ----------
    eps : float
        The relative gap, in (0, 1).
    every : int, default 1
        Check every this many rounds.
    sharpen_every : int, optional
        Sharpen U_t every this many rounds (l2 only).

    Returns
    -------
    callable
        The rule, ``rule(round_state) -> bool`` (pass it as ``play(..., observers=[stop_when(rule)])``, or
        as a recipe's ``stop=``).

    Raises
    ------
    ValueError
        If ``eps`` is not in (0, 1), or ``every`` / ``sharpen_every`` is not a positive integer.
    """
    eps = _check_epsilon(eps, "eps", "a relative gap (U_t - L_t) / U_t")
    every = _check_every(every)
    sharpen_every = None if sharpen_every is None else _check_every(sharpen_every, "sharpen_every")

    def verdicts(round_state) -> np.ndarray:
        tracker = _tracker(round_state)
        if round_state.t % every:
            return np.zeros(np.shape(tracker.upper) or 1, dtype=bool)
        lower = tracker.lower
        return _each((lower > 0) & (tracker.upper - lower <= eps * tracker.upper))

    requests = {} if sharpen_every is None else {"sharpen_every": sharpen_every, "sharpen_check_every": every,
                                                 "sharpen_eps": eps}
    return _Rule(f"margin_within({eps:g})", verdicts, requests)


def infeasible(eps, *, prove: bool = True):
    """Stop once U_t <= ``eps`` max_i ||a_i||_{q*} (0 < eps < 1): no direction has normalised margin
    above eps times the largest row norm (at most eps for the recipes' rows, of norm <= 1).

    The threshold is scale-invariant: the rows ``c A`` stop at the round ``A`` does. The largest row
    norm is computed once per run (one pass over A) at the rule's first check. On firing the rule
    looks for Gordan's proof on the heaviest rows of the witness
    (:meth:`gamedyn.certify.certificates.CertificateTracker.confirm_infeasible`): when 0 is proved to lie in
    the convex hull of the rows, ``certificate.separable`` is False and ``certificate.p`` is the
    proved distribution; otherwise the certificate stays undecided (None) with its bracket, as for
    separable data whose margin is below eps.

    Parameters
    ----------
    eps : float
        The fraction of the largest row norm, in (0, 1).
    prove : bool, default True
        Look for Gordan's proof when the rule fires; False when the caller already holds one (the
        estimator's exact oracle found it before the run: the run then only gives the best direction).

    Returns
    -------
    callable
        The rule, ``rule(round_state) -> bool`` (pass it as ``play(..., observers=[stop_when(rule)])``, or
        as a recipe's ``stop=``).

    Raises
    ------
    TypeError, ValueError
        If ``eps`` is not a number in (0, 1), or ``prove`` is not a bool.
    """
    eps = _check_epsilon(eps, "eps", "a fraction of the largest row norm")
    if not isinstance(prove, bool):
        raise TypeError(f"prove must be True or False, got {prove!r}.")
    seen: list[Any] = [None, 0.0]  # a weak reference to the current run's tracker, and eps * its largest row norm

    def verdicts(round_state) -> np.ndarray:
        tracker = _tracker(round_state)
        if seen[0] is None or seen[0]() is not tracker:  # a new run: its rows' scale, once
            seen[0], seen[1] = weakref.ref(tracker), eps * tracker.row_norm_max
        return _each(tracker.upper <= seen[1])

    return _Rule(f"infeasible({eps:g})", verdicts, {"confirm_infeasible": [eps]} if prove else {})


def any_of(*rules):
    """Stop when any of ``rules`` fires (batched games: once each game is settled by one of them);
    every rule sees every round (none is short-circuited).

    Parameters
    ----------
    *rules : callable
        Stop rules (those of this module or any callable ``round_state -> bool``).

    Returns
    -------
    callable
        The rule, ``rule(round_state) -> bool`` (pass it as ``play(..., observers=[stop_when(rule)])``, or
        as a recipe's ``stop=``).

    Raises
    ------
    TypeError
        If no rule is given, or one is not callable.
    """
    if not rules or not all(callable(rule) for rule in rules):
        raise TypeError(f"any_of needs one or more stop rules (callables round_state -> bool), got {rules!r}.")

    def verdicts_of(rule, round_state) -> np.ndarray:
        if isinstance(rule, _Rule):
            return rule.verdicts(round_state)
        return _each(rule(round_state))  # a plain callable: one verdict for every game

    def verdicts(round_state) -> np.ndarray:
        each = [verdicts_of(rule, round_state) for rule in rules]
        return np.logical_or.reduce(np.broadcast_arrays(*each))

    requests: dict = {}
    for rule in rules:
        for key, value in (getattr(rule, "requests", None) or {}).items():
            if key == "confirm_infeasible":
                requests.setdefault(key, []).extend(value)
            else:
                requests[key] = value
    name = "any_of(" + ", ".join(getattr(each, "__name__", repr(each)) for each in rules) + ")"
    return _Rule(name, verdicts, requests)


def positive_margin(round_state) -> bool:
    """Stop rule: the averaged iterate w_bar_t has a positive margin min_i (A w_bar_t)_i > 0.

    For the bilinear payoffs the p-player's loss sum is exactly sum_s alpha_s A w_s, so this costs
    no matrix-vector product.

    Parameters
    ----------
    round_state : RoundState
        The round (a bilinear payoff's, whose p-loss sum is A times the w-sum).

    Returns
    -------
    bool
        True when min_i (A w_bar_t)_i > 0.
    """
    return bool(np.min(round_state.p_loss_sum.linear) > 0)
