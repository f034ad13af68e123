r"""A scikit-learn estimator: the certified max-margin linear classifier (``pip install gamedyn[sklearn]``).

:class:`MarginClassifier` finds the l2 max-margin direction through the origin,

.. math::

    w^* = \arg\max_{\|w\|_2\le1}\min_i y_i\langle x_i, w\rangle,\qquad
    \gamma^* = \min_{p\in\Delta_n}\|A^\top p\|_2\quad(a_i = y_ix_i),

with an optional intercept as a constant feature (``fit_intercept=True``, value
``intercept_scaling`` in units of max ||x_i||), and returns the certificate ``certificate_``
(:class:`gamedyn.certify.certificates.Certificate`) of :mod:`gamedyn.certify.certificates`: ``lower <= gamma* <=
upper`` on the rescaled rows. The rescaling makes the answer independent of X's units (see
:class:`MarginClassifier`).

Size-aware solver (``recipe="auto"``): the exact oracle when ``min(n, d) <= exact_threshold``
(default 500), else the game dynamics (``smooth_perceptron``) stopped by ``margin_within(tol)``.
The exact oracle is :func:`gamedyn.max_margin` (least-distance programming, gap <= 1e-14) on a
working set of rows that grows by the most violated rows, stopped as soon as the working-set
certificate (see :func:`_exact`) has relative gap <= ``tol``; its cost grows with the support size
squared, and the support holds at most ``min(n, d + 1)`` rows, while the number of rounds the
dynamics need barely depends on n or d. Measured CPU times (``benchmarks/head_to_head.py --threshold``, medians of 5, 1 BLAS thread,
loaded machine, tol = 0.01, planted margin 0.05), exact vs dynamics: n = d = 300: 0.015 s vs
0.066 s; n = d = 1000: 0.45 s vs 0.37 s; n = d = 2000: 7.0 s vs 2.0 s; d = 64 with n = 1000:
0.021 s vs 0.18 s and n = 10^4: 0.10 s vs 1.45 s. The crossover lies between min(n, d) = 300 and
1000; hence the threshold on min(n, d).

Non-separable training data (for one class against the rest): the fit never hangs (at most
``max_iter`` rounds, or the exact oracle's finite NNLS) and keeps the best direction found: the
dynamics' output, whose normalised margin is ``certificate_[k].lower`` (<= 0), stopped early by
``infeasible(1e-4)`` once no separator can have a normalised margin above 1e-4 (then the Gordan LP
decides separability). It warns :class:`NotSeparableWarning` only with a proof (the Gordan
witness, ``certificate_[k].separable is False``); a class left undecided (or separable but above
``tol``) gives scikit-learn's ``ConvergenceWarning`` with the bracket and the fix. One warning a
fit at most, naming the classes concerned.

Multiclass: one-vs-rest, one max-margin problem per class. With the dynamics
(``smooth_perceptron``, ``accelerated_perceptron``, ``nag_margin``) the K problems are one batched game
(:func:`gamedyn.one_vs_rest`: one ``X @ W`` and one ``X.T @ P`` per round for all K), each class with
its own certificate (:class:`gamedyn.certify.certificates.BatchedCertificateTracker`); it stops once every
class is within ``tol`` or certified infeasible, so ``n_iter_`` is the same for every class and
class k's ``coef_`` is its own run's output after that many rounds. The exact oracle and
``mirror_prox_perceptron`` (whose ball projection acts on whole vectors) solve the classes one by
one (``n_jobs`` runs them in parallel with joblib).
"""

from __future__ import annotations

import contextlib
import math
import numbers
import warnings
from typing import Any

import attrs
import numpy as np
import scipy.sparse as sp

try:  # the optional extra: without it this module imports, and constructing an estimator says what to install
    from sklearn.base import BaseEstimator, ClassifierMixin
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model._base import LinearClassifierMixin
    from sklearn.utils._param_validation import (
        Hidden,
        Interval,
        InvalidParameterError,
        StrOptions,
    )
    from sklearn.utils.multiclass import check_classification_targets
    from sklearn.utils.validation import check_is_fitted, validate_data

    _SKLEARN_MISSING = None
except ImportError as error:  # pragma: no cover - exercised by test_sklearn's monkeypatched import
    BaseEstimator = ClassifierMixin = LinearClassifierMixin = object
    ConvergenceWarning = UserWarning
    InvalidParameterError = ValueError
    Hidden = Interval = StrOptions = None
    _SKLEARN_MISSING = error

from gamedyn.arrays.operators import (
    check_unit_rows,
    largest_row_norm,
    matvec,
    row_norms,
    unit_of,
)
from gamedyn.certify import stops
from gamedyn.certify.certificates import (
    Certificate,
    certificate_of,
    certify_not_separable,
    margin_is_certified,
)
from gamedyn.certify.margins import NotSeparableError, max_margin
from gamedyn.core import capped_simplex
from gamedyn.core.numerics import safe_norm

__all__ = ["DEFAULT_C", "MarginClassifier", "NotSeparableWarning"]

# Non-separable data: stop once no direction can have normalised margin above this (rows of norm <= 1).
INFEASIBLE_BELOW = 1e-4


class NotSeparableWarning(UserWarning):
    """The training data (one class against the rest) are certified not separable through the origin:
    a Gordan witness (a distribution p on the rows with A^T p = 0) proves that no direction separates
    them. Undecided data give scikit-learn's ``ConvergenceWarning`` instead."""


def _recipes():
    import gamedyn.recipes as recipes

    return {
        "smooth_perceptron": recipes.smooth_perceptron,
        "accelerated_perceptron": recipes.accelerated_perceptron,
        "nag_margin": recipes.nag_margin,
        "mirror_prox_perceptron": recipes.mirror_prox_perceptron,
    }


RECIPES = ("auto", "exact", "smooth_perceptron", "accelerated_perceptron", "nag_margin", "mirror_prox_perceptron")
# The solvers: the recipes, the exact oracles, and L-BFGS on the smoothed primal (gamedyn.certify.dual).
SOLVERS = (*RECIPES, "lbfgs")


def _signed_rows(X, signs):
    return sp.csr_matrix(X.multiply(signs[:, None])) if sp.issparse(X) else X * signs[:, None].astype(X.dtype)


def _exact(A, tol=0.0, signs=None):
    """The exact oracle on a working set of rows, stopped at a certified relative gap ``tol``;
    ``(direction, certificate, passes)``; when not separable, Gordan's proof on all the rows (the
    distribution, zero off the working set, that the oracle proved exactly), or None without one.

    Working-set certificate: the max margin gamma_S of a subset S of the rows is >= gamma* (fewer
    constraints), and its dual, zero outside S, is a distribution on all rows with
    ||A^T p|| = gamma_S: a valid upper end. The subset's direction, a unit vector, has a normalised
    margin min_i (A w_S)_i over all rows: a valid lower end. So after every pass
    ``lower <= gamma* <= upper`` holds, and the passes stop once ``upper - lower <= tol * upper``
    (with lower > 0), or once no row falls below gamma_S (then S is exact: lower = gamma_S = upper up
    to the oracle's 1e-14). The first S is the 2(d + 1) rows of smallest margin along the mean row; each
    pass adds at most d + 1 rows (the support holds at most d + 1), the most violated first: small
    sets keep the oracle's NNLS cheap (its cost grows faster than |S|). A non-separable subset
    certifies the whole set non-separable. One product with A per pass; the oracle only ever sees
    |S| rows. One plain solve is the cheapest when n <= 4(d + 1) (the working set would be most of
    the rows) or when the rows hold at most 10^4 numbers (NNLS is then cheaper than a pass's
    overhead); measured with ``tol=0.01``: iris (150 x 5) 0.29 ms plain against 0.95 ms with the
    working set, digits 0/1 (360 x 65) 1.41 ms against 0.63 ms, digits 3/8 2.07 ms against 1.01 ms.

    ``signs`` (optional, +-1 per row): A is then the unsigned X and the rows are ``signs_i x_i``,
    never formed beyond the working set (no copy of X: half the memory traffic of a signed copy).
    """
    n, d = A.shape
    batch = d + 1
    if signs is None:
        signed = A
        times, rows = (lambda v: matvec(A, v)), (lambda chosen: A[chosen])
    else:
        signed = None
        times = lambda v: signs * matvec(A, v)
        rows = lambda chosen: _signed_rows(A[chosen], signs[chosen])
    if n <= 4 * batch or n * batch <= 10_000:
        chosen = np.arange(n)
    else:
        centre = matvec(A.T, np.full(n, 1.0 / n) if signs is None else signs / n)
        chosen = np.argpartition(times(centre), 2 * batch)[: 2 * batch]
    passes = 0
    while True:
        passes += 1
        try:
            oracle = max_margin(signed if signed is not None and chosen.size == n else rows(chosen), tol=tol)
        except NotSeparableError as error:  # proved on rows(chosen), the same floats as the whole set's rows
            if error.dual is None:
                return None
            proof = np.zeros(n)
            proof[chosen] = error.dual
            return proof
        except ValueError:
            return None
        values = times(oracle.direction)
        lower = float(np.min(values)) / float(np.linalg.norm(oracle.direction))
        outside = np.ones(n, dtype=bool)
        outside[chosen] = False
        violated = np.flatnonzero(outside & (values < oracle.gamma))
        if violated.size == 0 or (lower > 0 and oracle.upper - lower <= tol * oracle.upper):
            dual = np.zeros(n)
            dual[chosen] = oracle.dual
            proved = lower > 0 and margin_is_certified(lower, largest_row_norm(A), d, unit=unit_of(A))
            return oracle.direction, Certificate(lower=lower, upper=max(oracle.upper, lower),
                                                 separable=True if proved else None, p=dual, rounds=passes), passes
        if violated.size > batch:
            violated = violated[np.argpartition(values[violated], batch)[:batch]]
        chosen = np.concatenate([chosen, violated])


# Recipes whose learners act column by column, so K one-vs-rest games run as one batched game.
_BATCHED_RECIPES = ("smooth_perceptron", "accelerated_perceptron", "nag_margin")


def _stop_rule(tol, prove=True):
    return stops.any_of(stops.margin_within(tol), stops.infeasible(INFEASIBLE_BELOW, prove=prove))


def _direction(w):
    norm = float(np.linalg.norm(w))
    return w / norm if norm > 0 else np.asarray(w, dtype=np.float64)


def _solve_batched(Z, signs, recipe, tol, max_iter, options=None):
    """One batched run (:func:`gamedyn.one_vs_rest`) for the K games A_k = diag(signs[:, k]) Z, stopped
    once every game is within ``tol`` or certified infeasible; [(direction, certificate, rounds)] per game.
    Game k's iterates are those of its own run (the learners reduce along axis 0 only)."""
    from gamedyn.arrays.batched import one_vs_rest

    batch = one_vs_rest(Z, signs)
    result = _recipes()[recipe](batch, max_iter, stop=_stop_rule(tol), **(options or {}))
    solved = []
    for k, certificate in enumerate(result.certificate):
        if certificate.separable is None and certificate.cap is None:
            certificate = certify_not_separable(_signed_rows(Z, signs[:, k]), certificate)
        solved.append((_direction(result.w[:, k]), certificate, result.game.rounds))
    return solved


def _kept(A, tol, previous, cap=None):
    """Warm start: (w, certificate, 0) when the previous direction still certifies tol on A, else None."""
    if previous is not None:
        w, p = previous
        if p.shape[0] == A.shape[0]:
            certificate = certificate_of(A, w, p, cap=None if cap is None or cap == 1.0 else cap)
            if certificate.relative_gap <= tol:
                return w, certificate, 0
    return None


def _largest_row_norm(X) -> float:
    """max_i ||x_i||_2 of a dense or CSR X as :func:`gamedyn.core.validation.check_unit_rows` computes it
    (on X / max|X|: no overflow; scaling X by a power of two scales it exactly); 0.0 when X = 0."""
    data = X.data if sp.issparse(X) else X
    top = float(max(np.max(data), -np.min(data))) if data.size else 0.0
    if top == 0.0:
        return 0.0
    return top * float(np.max(row_norms(X, 2.0, top)))


def _power_of_two_at_least(value: float) -> float:
    """The smallest power of two >= ``value`` (> 0): dividing by it is exact and leaves max norm in (1/2, 1]."""
    mantissa, exponent = math.frexp(value)
    return math.ldexp(1.0, exponent - 1 if mantissa == 0.5 else exponent)


def _intercept_value(intercept_scaling, feature_scale):
    value = float(intercept_scaling) * feature_scale
    if not math.isfinite(value):
        raise ValueError(f"intercept_scaling * max ||x_i|| = {intercept_scaling!r} * {feature_scale!r} overflows "
                         "float64; pass a smaller intercept_scaling.")
    return value


def _dask_largest_row_norm(X, client) -> float:
    """max_i ||x_i||_2 of a dask array X in one pass over its row chunks (overflow-safe, one task per chunk)."""
    import dask

    from gamedyn.arrays.distributed import largest_row_norm_and_finite

    if len(X.chunks[1]) > 1:
        X = X.rechunk({1: -1})
    tasks = [dask.delayed(largest_row_norm_and_finite)(block, None) for block in X.to_delayed().ravel()]
    if client is None or isinstance(client, str):
        results = dask.compute(*tasks, scheduler="threads")
    else:
        results = client.compute(tasks, sync=True)
    if not all(finite for _, finite in results):
        raise ValueError("X contains NaN or infinite entries; remove or impute them first.")
    return max(largest for largest, _ in results)


def _dask_operator(X, fit_intercept, intercept_scaling, normalize, client):
    """X (numpy, scipy sparse or a dask array) as a RowBlockedOperator on ``client``: the features of
    :meth:`MarginClassifier._scaled_rows` before their division (the intercept column, when asked for,
    holds ``intercept_scaling * feature_scale``), with ``(row_scale, feature_scale, solver_scale)``
    (one pass over the blocks for the row norms, two with an intercept and ``normalize=True``)."""
    import dask.array as da

    from gamedyn.arrays.distributed import RowBlockedOperator
    from gamedyn.arrays.operators import is_dask_array

    if not is_dask_array(X):
        X = np.asarray(X.toarray() if sp.issparse(X) else X)
        workers = len(client.scheduler_info().get("workers", {})) if hasattr(client, "scheduler_info") else 1
        X = da.from_array(X, chunks=(max(1, -(-X.shape[0] // (2 * max(workers, 1)))), -1))
    if X.dtype not in (np.float32, np.float64):
        X = X.astype(np.float64)
    feature_scale = 1.0
    if fit_intercept:
        value = float(intercept_scaling)
        if normalize:  # the column is intercept_scaling in the units of max ||x_i|| (see _scaled_rows)
            feature_scale = _dask_largest_row_norm(X, client) or 1.0
            value = _intercept_value(intercept_scaling, feature_scale)
        X = da.hstack([X, da.full((X.shape[0], 1), value, dtype=X.dtype, chunks=(X.chunks[0], 1))])
    operator = RowBlockedOperator.from_dask_array(X, client=client)
    largest = operator.largest_row_norm()
    if largest == 0.0:
        raise ValueError("every row of X is zero; no direction has a positive margin on zero rows.")
    if normalize:
        return operator, largest, (feature_scale if fit_intercept else largest), 1.0
    if largest > 1.0 + (operator.shape[1] + 16) * np.finfo(np.float64).eps:
        raise ValueError(f"X has rows with ||x_i|| > 1 (largest {largest!r}); pass normalize=True to rescale "
                         "the rows by max ||x_i|| (the theorems assume <= 1).")
    return operator, 1.0, 1.0, _power_of_two_at_least(largest)


# A round's products of at most this many multiply-adds (n d, times K for a batched game) run on one
# BLAS thread during fit: on one core they take under ~0.3 ms (1797 x 65 x 10, the digits' batched
# game: 0.12 ms), less than OpenBLAS's threads cost to wake, and on a busy machine a threaded call
# waits for a core (that product: 8.2 ms of CPU and 41 ms of wall time with 2 threads on a loaded
# 2-core machine, against 0.11 ms and 1.1 ms with one). Larger products keep the BLAS setting.
ONE_THREAD_WORK = 1 << 21
# Products of at most this many entries never wake BLAS threads (OpenBLAS threads a product from about
# 10^4 multiply-adds on), so no limit is set for them: iris's fit would pay threadpoolctl more than its solve.
UNTHREADED_WORK = 1 << 12
_THREADPOOL_CONTROLLER = None


def _blas_threads_for(work: int, distributed: bool):
    """One BLAS thread (threadpoolctl, a dependency of scikit-learn) while a fit's products are small;
    a no-op for larger ones, for dask (the products run on the workers) or without threadpoolctl."""
    global _THREADPOOL_CONTROLLER
    if distributed or work > ONE_THREAD_WORK or work <= UNTHREADED_WORK:
        return contextlib.nullcontext()
    if _THREADPOOL_CONTROLLER is None:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:  # pragma: no cover - scikit-learn requires threadpoolctl
            return contextlib.nullcontext()
        _THREADPOOL_CONTROLLER = ThreadpoolController()  # numpy's and scipy's BLAS are loaded by now
    return _THREADPOOL_CONTROLLER.limit(limits=1, user_api="blas")


def _signed_operator(operator, factors):
    """The operator's rows times ``factors`` (e.g. signs / scale) as row factors: the blocks never move."""
    import copy

    signed = copy.copy(operator)
    o = operator.offsets
    signed.row_factors = [factors[o[k]:o[k + 1]] for k in range(len(operator.blocks))]
    signed._placed_factors = None
    return signed


def _solve_one(A, recipe, tol, max_iter, previous, signs=None, options=None):
    """(direction, certificate, rounds) for the rows A (norms <= 1) of one binary problem; with
    ``signs`` A is the unsigned X and the rows are signs_i x_i (formed only where needed).
    ``options``: ``{"nu": nu}`` for the soft margin (the recipes' ``nu=``; the exact oracle is then
    :func:`gamedyn.certify.soft_margin.soft_margin`)."""
    options = options or {}
    nu = options.get("nu")
    cap = None if nu is None else capped_simplex.cap_from_nu(nu, A.shape[0])
    if previous is not None and signs is not None:
        A, signs = _signed_rows(A, signs), None
    kept = _kept(A, tol, previous, cap) if (isinstance(A, np.ndarray) or sp.issparse(A)) else None
    if kept is not None:
        return kept
    if recipe == "exact" and nu is not None:
        from gamedyn.certify.soft_margin import soft_margin

        oracle = soft_margin(A, cap=cap)
        direction = oracle.direction if oracle.direction is not None else np.zeros(A.shape[1])
        separable = True if oracle.verdict == "positive" else (False if oracle.verdict == "zero" else None)
        lower = oracle.cvar_margin if math.isfinite(oracle.cvar_margin) else 0.0
        return direction, Certificate(lower=lower, upper=max(oracle.upper, lower), separable=separable,
                                      p=oracle.dual, rounds=oracle.iterations,
                                      cap=None if cap == 1.0 else cap), oracle.iterations
    proof = None
    if recipe == "exact":
        found = _exact(A, tol, signs)
        if isinstance(found, tuple):
            return found
        proof = found  # Gordan's proof, or None
        recipe = "smooth_perceptron"  # not separable: the dynamics give a direction (and, without a proof, one)
    if signs is not None:
        A = _signed_rows(A, signs)
    result = _recipes()[recipe](A, max_iter, stop=_stop_rule(tol, prove=proof is None), **options)
    certificate = result.certificate
    if proof is not None:  # (the oracle's proof: not looked for twice)
        certificate = attrs.evolve(certificate, upper=safe_norm(np.asarray(A.T @ proof, dtype=np.float64).ravel()),
                                   separable=False, p=proof)
    elif certificate.separable is None and certificate.cap is None:
        certificate = certify_not_separable(A, certificate)
    return _direction(result.w), certificate, result.game.rounds


def _is_live_client(client) -> bool:
    """A dask.distributed.Client (or anything that submits and gathers like one)."""
    return client is not None and not isinstance(client, str) and hasattr(client, "submit") and hasattr(client, "gather")


def _positive_nus(Z, y, problems, directions, solver, column, distributed):
    """Per class, the smallest nu = k/n for which the direction found has a positive CVaR of its
    margins (the mean of its k smallest margins is > 0), or None: with that nu (and any larger one)
    the soft margin is positive, since gamma_nu* >= CVaR_nu(A w)/||w|| (weak duality). None on dask
    blocks (one more pass, not worth a warning)."""
    if distributed:
        return None
    from gamedyn.certify.dual import times_in_float64

    found = []
    for k, label in enumerate(problems):
        signs = np.where(y == label, 1.0, -1.0)
        w = directions[k]
        if solver == "lbfgs":
            scores = times_in_float64(Z, w[: Z.shape[1], None])[:, 0]
            if column is not None:
                scores = scores + column * w[-1]
        else:
            scores = np.asarray(Z @ w, dtype=np.float64)
        sums = np.cumsum(np.sort(signs * scores))
        positive = np.flatnonzero(sums > 0)
        found.append(None if positive.size == 0 else (int(positive[0]) + 1) / sums.size)
    return found


def _suggested_nu(smallest: float) -> float:
    """``smallest`` rounded up to two significant digits (at most 1)."""
    digits = -int(math.floor(math.log10(smallest))) + 1
    return min(1.0, math.ceil(smallest * 10 ** digits * (1 - 1e-12)) / 10 ** digits)


# L-BFGS iterations after which an unsettled class of a larger problem is checked for overlap (an exact proof, for
# games of at most EXACT_HULL_SIZE_CAP numbers, the rational solve's budget). Below EXACT_START_SIZE the QP's active
# set restarts the unsettled classes first and the proof comes after the run; the early check serves games between
# the two sizes (none while both are 200,000, as today; a test sets EXACT_START_SIZE = 0 to run L-BFGS alone).
PROOF_AFTER = 200

# Rows times features up to which a soft-margin game L-BFGS has not settled in ACTIVE_SET_AFTER iterations is
# solved by the QP's active set (:func:`gamedyn.certify.soft_margin.reduced_hulls_point`) and restarted there:
# breast cancer (569 x 30) at nu = 0.01, 29 CPU s unconverged before, 0.3 s with the bracket closed to 1e-8.
EXACT_START_SIZE = 200_000
ACTIVE_SET_AFTER = 40


def _solve_lbfgs(rows, cap, tol, max_iter, previous):
    """[(direction, certificate, iterations)] for the games of ``rows`` (a :class:`gamedyn.certify.dual.GameRows`:
    the K one-vs-rest games ``signs_ik (x_i, column) / scale``, or the one multiclass game on the pairs)
    by :func:`gamedyn.certify.dual.soft_margin_lbfgs`, all at once; X is never copied.

    ``cap``: c = 1/(nu n), or None for the hard margin (solved with c = 1). ``previous``: per game
    None or ``(unit direction, upper, p)`` of the previous fit, the warm start ``w = upper * direction``
    with the previous certified ``p`` as the first point of the capped simplex (the centre for a game
    without one).
    The certificate's lower end is recomputed from the final direction's margins, correctly rounded
    (:func:`gamedyn.core.capped_simplex.cvar`; the minimum for the hard margin); ``separable`` is
    True when it is positive beyond the products' rounding (:func:`margin_is_certified`), False only
    with an exact proof that 0 lies in the reduced hull (small problems:
    :func:`gamedyn.certify.soft_margin.reduced_hull_proof`), else None.
    """
    from gamedyn.certify.dual import CappedColumns, DualDomain, soft_margin_lbfgs
    from gamedyn.certify.soft_margin import EXACT_HULL_SIZE_CAP, reduced_hull_proof

    n, dim = rows.shape
    K = rows.games
    domain = cap if isinstance(cap, DualDomain) else None  # the two classes' reduced hulls (a free bias)
    start = start_p = None
    if any(one is not None for one in previous):
        start, start_p = np.zeros((dim, K)), np.full((n, K), 1.0 / n)
        for k, one in enumerate(previous):
            if one is not None:  # (a proved value 0 has upper 0: its direction kept at the smallest scale that counts)
                start[:, k] = one[0] * (one[1] if one[1] > 0 else INFEASIBLE_BELOW)
                start_p[:, k] = one[2]
    small = cap is not None and n * dim <= EXACT_START_SIZE  # (the QP's active set restarts what is unsettled)
    first = min(max_iter, ACTIVE_SET_AFTER if small else PROOF_AFTER)
    found = soft_margin_lbfgs(rows, 1.0 if cap is None else cap, tol=tol, max_iter=first,
                              start=start, start_p=start_p, zero_below=INFEASIBLE_BELOW)
    proofs = [None] * K
    unsettled = [k for k in range(K) if not (found.upper[k] - found.lower[k] <= tol * found.upper[k]
                                             or found.upper[k] <= INFEASIBLE_BELOW)]
    if unsettled and max_iter > first:
        # Overlap (0 in the reduced hull) makes L-BFGS crawl towards U = 0: on small problems look for
        # the exact proof first, and go on only with the classes it does not settle.
        if cap is not None and domain is None and n * dim <= EXACT_HULL_SIZE_CAP and not small:
            for k in unsettled:
                if not found.lower[k] > 0:
                    proofs[k] = reduced_hull_proof(_exact_rows(rows, k), cap)
        rest = [k for k in unsettled if proofs[k] is None]
        if rest:
            start, start_p = found.w[:, rest], found.p[:, rest]
            if small:  # the QP's own point, then the bracket there (the proof of a value 0 comes after)
                start, start_p = _active_set_starts(rows, CappedColumns(cap=cap, n=n) if domain is None else domain,
                                                    rest, start_p)
            more = soft_margin_lbfgs(rows.restricted(rest), 1.0 if cap is None else
                                     cap if domain is None else domain.restricted(np.array(rest)), tol=tol,
                                     max_iter=max_iter - first, start=start,
                                     start_p=start_p, zero_below=INFEASIBLE_BELOW)
            w, p_all, lower, upper, spent = (found.w.copy(), found.p.copy(), found.lower.copy(), found.upper.copy(),
                                             found.iterations.copy())
            w[:, rest], p_all[:, rest], lower[rest], upper[rest] = more.w, more.p, more.lower, more.upper
            spent[rest] = spent[rest] + more.iterations
            found = attrs.evolve(found, w=w, p=p_all, lower=lower, upper=upper, iterations=spent)
    margins = rows.times(found.w)
    solved = []
    for k in range(K):
        w = found.w[:, k]
        norm = float(np.linalg.norm(w))
        if norm > 0 and domain is not None:
            low = float(domain.support(margins[:, k:k + 1], np.array([k]))[0]) / norm
        elif norm > 0:
            low = (float(np.min(margins[:, k])) if cap is None else capped_simplex.cvar(margins[:, k], cap)) / norm
        else:
            low = 0.0
        high = max(float(found.upper[k]), low)
        separable = True if low > 0 and margin_is_certified(low, 1.0, dim) else None
        p = found.p[:, k]
        if domain is not None and found.upper[k] == 0.0:  # (the solver's exact proof that the value is 0)
            separable = False
        if proofs[k] is not None:
            separable, p = False, np.asarray(proofs[k], dtype=np.float64)
        elif separable is None and high <= INFEASIBLE_BELOW and n * dim <= EXACT_HULL_SIZE_CAP and domain is None:
            A = _exact_rows(rows, k)
            if cap is None:
                certificate = certify_not_separable(A, Certificate(lower=low, upper=high, separable=None, p=p,
                                                                   rounds=int(found.iterations[k])))
                separable, p = certificate.separable, certificate.p
            else:
                proof = reduced_hull_proof(A, cap)
                if proof is not None:
                    separable, p = False, np.asarray(proof, dtype=np.float64)
        kept_cap = domain.largest_cap(k) if domain is not None else cap
        certificate = Certificate(lower=low, upper=high, separable=separable, p=p, rounds=int(found.iterations[k]),
                                  cap=None if kept_cap is None or (kept_cap == 1.0 and domain is None) else kept_cap,
                                  hulls=1 if domain is None else 2)
        solved.append((_direction(w), certificate, int(found.iterations[k])))
    return solved


def _active_set_starts(rows, domain, games, points):
    """``(w, p)`` per listed game (columns) from the active-set minimiser of ``||A_k^T p||`` over its domain (a
    :class:`gamedyn.certify.dual.DualDomain`, in its form as a product of capped simplices), started at
    ``points`` (the L-BFGS run's): ``w = A_k^T p``, the primal's optimum for the optimal ``p``. Uncertified:
    the solver's bracket at this start is the proof."""
    from gamedyn.certify.soft_margin import reduced_hulls_point

    w, p = np.empty((rows.shape[1], len(games))), np.empty((rows.shape[0], len(games)))
    for j, k in enumerate(games):
        A = np.asarray(rows.formed(k), dtype=np.float64)
        blocks, caps, mass = domain.blocks(k)
        p[:, j] = mass * reduced_hulls_point(A, caps, blocks, start=points[:, j] / mass)
        w[:, j] = A.T @ p[:, j]
    return w, p


def hull_caps(signs: np.ndarray, nu: float) -> np.ndarray:
    r"""The caps of the two classes' reduced hulls for ``nu``, shape (2, K): ``c = 2 / (nu n)`` for both classes
    (libsvm's nu-SVC with a free bias, whose multipliers are at most ``1/n`` with ``sum = nu``: each class
    holds half of them, so each class's weights, divided by ``nu / 2``, are at most ``2 / (nu n)``), but at
    least ``1 / n_k``: a class too small for that cap (``nu > 2 n_k / n``, where libsvm reports nu infeasible)
    is its centroid. At most 1 (``nu <= 2 / n``: the hard margin between the hulls)."""
    positive = np.asarray(signs) > 0
    n = positive.shape[0]
    sizes = np.stack([positive.sum(axis=0), (~positive).sum(axis=0)])
    smallest = np.vectorize(lambda size: capped_simplex.smallest_cap(int(size)) if size else 1.0)(sizes)
    return np.minimum(1.0, np.maximum(2.0 / (nu * n), smallest))


def _two_hulls(signs: np.ndarray, nu: float):
    from gamedyn.certify.dual import TwoHulls

    return TwoHulls.from_signs(signs, hull_caps(signs, nu))


def _margin_threshold(margins: np.ndarray, cap: float) -> float:
    """The margin at which the minimiser of ``<p, margins>`` over the capped simplex leaves the cap: the
    ``(K+1)``-th smallest margin, ``K = floor(1/c)``, the one point free between 0 and ``c`` (the middle of the
    K-th and (K+1)-th when ``K c = 1``: every point between them is a threshold; the largest at ``n c = 1``)."""
    count, remainder = capped_simplex.capacity(cap)
    n = margins.size
    close = 8 * np.finfo(np.float64).eps
    if remainder >= cap * (1 - close):  # (K c = 1 in exact arithmetic, K one below it by the cap's rounding)
        count, remainder = count + 1, 0.0
    if count >= n:
        return float(np.max(margins))
    if remainder > close:
        return float(np.partition(margins, count)[count])
    part = np.partition(margins, [count - 1, count])
    return 0.5 * (float(part[count - 1]) + float(part[count]))


def _midway_biases(Z, y, problems, directions, nu, scale) -> np.ndarray:
    r"""Per class, the bias ``b`` of ``<w, z / r> + b`` that the nu-SVM with a free bias takes for the unit
    direction ``w`` (Schoelkopf et al. 2000; libsvm's nu-SVC): its margin boundaries pass through the points
    free in the two reduced hulls, so with ``t_+`` the threshold of the class's scores
    (:func:`_margin_threshold` at ``c_+``) and ``t_-`` that of the other's negated scores (at ``c_-``),
    ``b = -(t_+ - t_-) / 2``: both boundaries then sit at the same margin ``rho = (t_+ + t_-) / 2``. (The
    value of the game does not depend on ``b``: a shift moves one hull's CVaR up and the other's down.)"""
    from gamedyn.certify.dual import times_in_float64

    signs = np.where(np.asarray(y)[:, None] == np.asarray(problems)[None, :], 1.0, -1.0)
    caps = hull_caps(signs, nu)
    scores = times_in_float64(Z, np.ascontiguousarray(directions.T)) / scale
    biases = np.empty(len(problems))
    for k in range(len(problems)):
        positive = signs[:, k] > 0
        top = _margin_threshold(scores[positive, k], float(caps[0, k]))
        bottom = _margin_threshold(-scores[~positive, k], float(caps[1, k]))
        biases[k] = -0.5 * (top - bottom)
    return biases


def _on_given_rows(certificates, directions, X, y, problems, column, scale):
    """Each class's certificate recomputed in float64 on the user's signed rows ``s_i (x_i, column) / scale``
    (:func:`gamedyn.certify.certificates.on_float64_rows`; X read exactly, never copied)."""
    from gamedyn.certify.certificates import on_float64_rows
    from gamedyn.certify.dual import SignedRows

    return [on_float64_rows(certificate, direction,
                            SignedRows(X, np.where(y == label, 1.0, -1.0)[:, None], column, scale))
            for certificate, direction, label in zip(certificates, directions, problems)]


def _refuse_text(X) -> None:
    """X's strings refused and a ragged X named, as at every entry point (:func:`gamedyn.core.validation.real_array`):
    scikit-learn's conversion to float would read the digit string "1" as the number 1. Everything else is
    left to its own checks (its messages, which its conformance tests read)."""
    if sp.issparse(X):
        return
    from gamedyn.core.validation import real_array

    try:
        array = np.asarray(X)
    except ValueError:
        real_array(X, "X")  # ragged: the named error
        raise
    kind = array.dtype.kind
    if kind in "US" or (kind == "O" and any(isinstance(item, (str, bytes)) for item in array.ravel().tolist())):
        real_array(array, "X")


def _exact_rows(rows, k):
    """Game k's rows for an exact proof: ``rows.exact_rows(k)`` (the rows times a positive constant, every entry
    exact: a proof on ``rows.formed(k)``, rounded by the division by the scale, would prove it for other rows),
    else the formed rows."""
    exact = getattr(rows, "exact_rows", None)
    found = exact(k) if callable(exact) else None
    return rows.formed(k) if found is None else found


class _InvalidParameterError(ValueError, TypeError):
    """A constructor parameter of :class:`MarginClassifier` is out of its range or of the wrong type
    (a ValueError and a TypeError, as scikit-learn's own ``InvalidParameterError``)."""


def _shown(label) -> str:
    """A class label as the user wrote it: ``1``, ``'setosa'`` (not ``np.int64(1)``)."""
    return repr(label.item() if isinstance(label, np.generic) else label)


def _is_real(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _is_integer(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def _fit_warning(names, certificates, rounds, tol, max_iter, nu=None, positive_nus=None):
    """The fit's one warning as ``(category, message)``, or None.

    :class:`NotSeparableWarning` only with a proof (some class has ``certificate.separable is
    False``: the Gordan witness, or with ``nu`` the proof that 0 lies in the reduced hull);
    otherwise :class:`sklearn.exceptions.ConvergenceWarning` when some class is undecided
    (``separable is None``) or certified with a relative gap above ``tol``, with its bracket and the
    fix. One message names every class concerned. With ``nu=None`` a proof of overlap comes with
    a ``nu`` that makes every such class's soft margin positive (``positive_nus``, per class: see
    :func:`_positive_nus`).
    """
    soft = nu is not None
    what = "soft margin" if soft else "normalised margin"
    proven, unsettled, at_max_iter, needed = [], [], False, []
    for index, (name, certificate, spent) in enumerate(zip(names, certificates, rounds)):
        if certificate.separable is False:
            proven.append(f"{name}: {certificate.verdict()}; coef_ is the best direction found ({what} "
                          f"{certificate.lower:.3g})")
            if positive_nus is not None:
                needed.append(positive_nus[index])
            continue
        if certificate.separable is None:
            if soft:
                unsettled.append(f"{name}: undecided, the soft margin (nu={nu:g}) is at most {certificate.upper:.3g} "
                                 f"(best direction found: {certificate.lower:.3g})")
            else:
                unsettled.append(f"{name}: undecided, no separator has normalised margin above "
                                 f"{certificate.upper:.3g} (best direction found: {certificate.lower:.3g})")
        elif not certificate.relative_gap <= tol:
            unsettled.append(f"{name}: {'soft margin positive' if soft else 'separable'}, but the certified relative "
                             f"gap {certificate.relative_gap:.3g} is above tol={tol:g} ({what} {certificate.lower:.3g} "
                             f"<= gamma* <= {certificate.upper:.3g})")
        else:
            continue
        at_max_iter = at_max_iter or spent >= max_iter
    summary = ""
    if unsettled:
        if at_max_iter:
            fix = (f"the solver stopped at max_iter={max_iter}: raise max_iter (or tol, for a looser certified gap)"
                   + ("" if soft else ", or use solver='exact'"))
        elif soft:
            fix = (f"the solver stops once no direction can have a soft margin above {INFEASIBLE_BELOW:g}: nu={nu:g} "
                   "is probably too small for these data (raise nu)")
        else:
            fix = (f"the dynamics stop once no separator can have a normalised margin above {INFEASIBLE_BELOW:g}; "
                   "smaller margins need solver='exact' (the exact oracle)")
        summary = f"{'; '.join(unsettled)}. Not converged: {fix}."
    if proven:
        if soft:
            advice = f"Raise nu (nu={nu:g} lets too few rows be margin errors for these data)."
        else:
            if needed and all(value is not None for value in needed):
                advice = (f"For overlapping classes fit the soft margin: MarginClassifier(nu={_suggested_nu(max(needed)):g})"
                          " has a positive soft margin (the best direction found has a positive average over its "
                          "smallest nu n margins); larger nu are smoother; search nu with GridSearchCV.")
            else:
                advice = ("For overlapping classes fit the soft margin, MarginClassifier(nu=...) with nu in (0, 1] "
                          "(nu bounds the fraction of margin errors from above); search nu with GridSearchCV.")
        message = f"MarginClassifier: {'; '.join(proven)}. {advice}"
        return NotSeparableWarning, message + (f" Also {summary}" if summary else "")
    if summary:
        return ConvergenceWarning, f"MarginClassifier: {summary}"
    return None


# The default C of the 2-norm soft margin, on the rows x / max ||x_i|| (issue 29; measured on a fixed stratified
# 80/20 split of iris, wine, breast cancer, digits, its 7-class set and make_classification 5000 x 40: every
# C in [10, 100] is within one point of the better of LinearSVC() and LogisticRegression() on all six, 1 and
# 1000 are not; benchmarks/soft_head_to_head.py --defaults).
DEFAULT_C = 10.0

_DEVICE_ATTRIBUTES = ("coef_", "intercept_", "n_iter_")  # fitted arrays kept in X's namespace under array_api_dispatch


class MarginClassifier(LinearClassifierMixin, BaseEstimator):
    r"""Certified max-margin linear classifier (one-vs-rest for more than two classes).

    Each binary problem (class ``k`` against the rest; ``classes_[1]`` against ``classes_[0]`` for
    two classes) is the l2 max-margin problem of the rows

    .. math::

        z_i = \frac{y_i}{r}\,(x_i,\ s\,m),\qquad m = \max_j\|x_j\|_2,\quad r = \max_j\|(x_j,\ s\,m)\|_2

    (``s = intercept_scaling``; without ``fit_intercept`` the last entry is absent and r = m): the
    rows :math:`(x_i/m,\ s)` up to the factor m/r that gives them norm <= 1, as the theorems
    assume. It is solved for a unit direction ``w``, with the certificate
    ``lower <= gamma* <= upper`` of :mod:`gamedyn.certify.certificates` on the rows z_i.

    Units never change the answer: X and ``c * X`` (c > 0) give the same rows z_i, hence the same
    direction, certificate, rounds and predictions (bit for bit when c is a power of two, to
    rounding otherwise), and ``coef_`` scales by 1/c. The intercept's feature is ``s`` in units of
    the longest row, whatever the units of X. With ``normalize=False`` the rows are the user's own
    :math:`y_i(x_i, s)` (m = r = 1), which must have norm <= 1; the solver still divides them by
    the power of two q with max norm in (1/2, 1] (exactly: rows far shorter than 1 do not slow the
    dynamics), and ``certificate_`` is stated on the user's rows (times q, exact).

    Parameters
    ----------
    nu : float in (0, 1] or None, default=None
        None: the game ``C`` names. A number: the nu-SVM's soft margin (docs/explanation/soft-margin.md), in
        place of ``C`` (a ``C`` other than its default beside ``nu`` is an error).
        With ``fit_intercept=True`` (and solver ``"auto"`` or ``"lbfgs"``) it is libsvm's nu-SVC with a
        free bias: the game of the two classes' reduced convex hulls
        (:class:`gamedyn.certify.dual.TwoHulls`), both with cap ``c = 2/(nu n)`` (a class of fewer than
        ``nu n / 2`` rows, for which libsvm calls nu infeasible, is its centroid); the value is half the
        distance between the hulls, the direction and bias those of ``sklearn.svm.NuSVC(kernel="linear",
        nu=nu)`` (tests/test_two_hulls.py), and ``certificate_[k].cap`` the larger of the two caps.
        Otherwise one capped simplex over all signed rows, cap ``c = 1/(nu n)``, the intercept (if any) a
        feature. ``nu`` bounds the fraction of margin errors from above and must be >= 1/n.
    C : float > 0 or None, default=10.0
        With ``nu=None``: the 2-norm soft margin, ``min 1/2 ||w||^2 + C sum_i max(0, 1 - y_i(<w, z_i> + b))^2``
        on the rows ``z_i = x_i / max_j ||x_j||`` (``LinearSVC``'s squared hinge, with the bias free with
        ``fit_intercept``, outside the norm): the hard margin of the augmented rows ``(z_i, y_i e_i / sqrt(2C))``
        between the two classes' hulls (:mod:`gamedyn.certify.squared_hinge`), positive for any data, so it
        never warns that the data overlap; ``certificate_[k]`` brackets its value (``penalty`` = C),
        ``coef_`` and ``intercept_`` are the primal's (not normalised: one-vs-rest compares them). Solved by
        L-BFGS-B on X in memory (solver ``"auto"``), X never copied. The default 10 (:data:`DEFAULT_C`) was
        measured: within one point of the better of ``LinearSVC()`` and ``LogisticRegression()`` on six
        standard sets (benchmarks/soft_head_to_head.py). ``None`` (with ``nu=None``): the hard margin, the
        certified max-margin separator, or a proof that there is none. Larger C is closer to the hard margin:
        on separable data the default is still a soft margin, not the hard one. The dynamics (a recipe
        ``solver``), the exact oracle and a dask client play the other games: with them the default C steps
        aside (the hard margin, or ``nu``) and any other C is an error. ``multi_class="weston_watkins"`` with
        C plays the Weston-Watkins 2-norm soft margin (see ``multi_class``).
    solver : str, default="auto"
        ``"auto"`` (with ``C`` and ``nu=None``, in memory, one-vs-rest: L-BFGS-B on the 2-norm soft margin; with
        ``nu``: ``"lbfgs"``; else the exact oracle when ``min(n, d) <=
        exact_threshold``, else the smooth perceptron; with a dask client the smooth perceptron),
        ``"exact"``, ``"lbfgs"`` (L-BFGS on the smoothed primal, :func:`gamedyn.certify.dual.soft_margin_lbfgs`;
        a game of at most :data:`EXACT_START_SIZE` numbers unsettled after :data:`ACTIVE_SET_AFTER` iterations
        restarts at the QP's exact point, :func:`gamedyn.certify.soft_margin.reduced_hulls_point`),
        or a recipe name: ``"smooth_perceptron"``, ``"accelerated_perceptron"``, ``"nag_margin"``,
        ``"mirror_prox_perceptron"``.
    multi_class : {"ovr", "weston_watkins"}, default="ovr"
        For more than two classes: ``"ovr"``, one game per class against the rest; ``"weston_watkins"``,
        one game for all K classes on the ``n (K - 1)`` pairs ``(i, j != y_i)``, whose margin is how far
        class ``y_i`` scores above class ``j`` (Weston & Watkins 1999, in nu-form:
        :class:`gamedyn.certify.dual.PairRows`; ``nu`` then bounds the fraction of pairs that are margin
        errors, ``c = 1 / (nu n (K - 1))``). With ``C`` (the default, ``nu=None``): the Weston-Watkins
        squared hinge ``1/2 ||W||^2 + C sum_i sum_{k != y_i} xi_ik^2`` with a free bias per class
        (:func:`gamedyn.certify.squared_hinge.weston_watkins_margin`), certified on the augmented pair rows
        (one certificate, upper end from a circulation of the pairs' multipliers). Solver ``"auto"`` or ``"lbfgs"``, in memory. For two classes
        both are the one binary game (the same rows up to a factor sqrt 2).
    tol : float in (0, 1), default=0.01
        Certified relative margin gap (U - L)/U at which the solver stops; it bounds
        (gamma* - margin)/gamma*.
    max_iter : int >= 1, default=10000
        The most rounds of the dynamics per binary problem.
    fit_intercept : bool, default=True
        A bias: with ``nu`` and solver ``"auto"`` / ``"lbfgs"`` a free one, outside the norm (the two-hull
        game above; ``intercept_scaling`` is then unused); otherwise the constant feature
        ``intercept_scaling`` appended to every row (the bias in the norm: the hard margin, the
        dynamics' recipes and the exact oracle).
    intercept_scaling : float > 0, default=1.0
        The value of that feature, in units of ``max_i ||x_i||`` (with ``normalize=True``).
    normalize : bool, default=True
        Rescale as above (the theorems assume ``||z_i|| <= 1``); with False, rows ``(x_i, s)`` of
        norm > 1 raise a ValueError.
    warm_start : bool, default=False
        Start from the previous fit (same classes, features, ``nu``, ``multi_class`` and n): solver
        ``"lbfgs"`` from its ``w`` and its certified ``p`` (a refit that still certifies ``tol`` ends at
        iteration 0 with the same classifier); the other solvers keep the previous classifier when it
        still certifies ``tol`` on the new data, else fit anew.
    n_jobs : int or None, default=None
        Binary problems solved in parallel (joblib) for multiclass data (``-1``: all cores); not 0.
    exact_threshold : int >= 1, default=500
        ``"auto"`` uses the exact oracle when ``min(n, d) <= exact_threshold``.
    client : dask.distributed.Client or None, default=None
        (``pip install gamedyn[dask]``; dask is imported only then.) With a client, or when X is a
        dask array, the rows become a :class:`gamedyn.arrays.distributed.RowBlockedOperator` (numpy X is
        split into 2 row blocks per worker; a dask X keeps its row chunks) and the dynamics run on
        the blocks: ``"auto"`` means the smooth perceptron (``"exact"`` is refused: it needs the
        rows in memory), each class is its own game (labels and 1/r are row factors, so the
        blocks never move), and the certificate is computed the same way (one pass over the blocks
        per product). coef_ equals the in-memory fit up to rounding (~1e-12 relative).
        ``predict`` and ``decision_function`` take numpy/sparse data, or a dask array (lazy result).
    recipe : str, deprecated
        The old name of ``solver`` (a FutureWarning; removed in gamedyn 1.0).

    Attributes
    ----------
    coef_ : ndarray of shape (1, d) or (K, d)
        ``w[:d] / feature_scale_``: ``decision_function(x) = <(x / m, s), w>``, the same for X and c X.
    intercept_ : ndarray of shape (1,) or (K,)
        ``intercept_scaling * w[d]`` (zeros without ``fit_intercept``).
    classes_ : ndarray
        The class labels.
    n_iter_ : ndarray of shape (1,) or (K,)
        Rounds of the dynamics per game (one game for two classes or ``multi_class="weston_watkins"``);
        the working-set passes for the exact oracle; 0 for a kept warm start.
    certificate_ : list of Certificate, one per game
        ``lower <= gamma* <= upper`` for the rows z_i above (``separable`` True, False with a Gordan
        witness, or None: undecided); for ``"weston_watkins"`` one, on the pair rows
        ``(e_{y_i} - e_j) (x) z_i / sqrt 2`` (norm <= 1), its ``p`` over the pairs in
        :class:`gamedyn.certify.dual.PairRows`' order.
    feature_scale_ : float
        m = max_i ||x_i|| (1 with ``normalize=False``): the intercept feature is ``s * m``.
    row_scale_ : float
        r, the factor the rows ``(x_i, s m)`` were divided by (max_i ||x_i|| without an intercept;
        1 with ``normalize=False``).
    solver_ : str
        What ``"auto"`` chose.

    Warns
    -----
    NotSeparableWarning
        Only with a proof: some class is certified not separable (``certificate.separable is
        False``, a Gordan witness). coef_ is then the best direction found.
    sklearn.exceptions.ConvergenceWarning
        Some class is undecided, or separable with a certified gap above ``tol``, when the dynamics
        stop (``max_iter``, or no separator above normalised margin 1e-4); the message gives the
        bracket and the fix. Each fit warns at most once, naming the classes concerned.

    Raises
    ------
    ValueError
        A parameter out of its range (also a TypeError: a wrong type), checked at ``fit``;
        rows longer than 1 with ``normalize=False``; a single class.

    Notes
    -----
    BLAS threads: OpenBLAS runs a call on its thread pool above a size threshold (axpy and dot above
    10,000 numbers, products above a few hundred thousand multiply-adds); on a busy machine each
    threaded call waits for a core, and small threaded calls cost 10-100x their work. Every vector
    operation of a round (axpy, dot, scal, asum) goes through :mod:`gamedyn.core.numerics`, which never
    wakes a thread. The products with X (``X @ w``, ``X.T @ p``; ``X @ W`` for a batched game) keep
    the BLAS setting when large, and run on one thread during ``fit`` while a round's products hold
    at most :data:`ONE_THREAD_WORK` (2^21) multiply-adds, n d (times K for the batched game): there
    one core takes under ~0.3 ms, less than waking the threads. To pin the large products too, set
    ``OPENBLAS_NUM_THREADS=1`` (or ``OMP_NUM_THREADS=1``) before Python starts, or fit inside
    ``threadpoolctl.threadpool_limits(1, "blas")``. With a dask ``client`` the products run on the
    workers, under their own settings.

    Probabilities: there is no ``predict_proba`` (a margin classifier scores); wrap the estimator in
    ``sklearn.calibration.CalibratedClassifierCV``, which maps ``decision_function`` to probabilities
    on held-out folds (the last example; docs/how-to/certify-your-data.md, "Probabilities").

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 1.0], [1.0, 3.0], [-1.0, -2.0], [-3.0, -1.0]])
    >>> model = MarginClassifier(C=None, fit_intercept=False).fit(X, [1, 1, 0, 0])
    >>> model.predict([[1.0, 1.0], [-1.0, -1.0]]).tolist(), model.certificate_[0].separable
    ([1, 0], True)
    >>> small = MarginClassifier(C=None, fit_intercept=False).fit(X * 2.0**-40, [1, 1, 0, 0])
    >>> bool(np.array_equal(small.coef_ * 2.0**-40, model.coef_)), small.certificate_[0].lower == model.certificate_[0].lower
    (True, True)
    >>> from sklearn.calibration import CalibratedClassifierCV
    >>> rows = np.random.default_rng(0).standard_normal((60, 2))
    >>> labels = (rows[:, 0] + 0.5 * rows[:, 1] > 0).astype(int)
    >>> calibrated = CalibratedClassifierCV(MarginClassifier(nu=0.2), cv=3).fit(rows, labels)
    >>> calibrated.predict_proba([[3.0, 0.0], [-3.0, 0.0]]).round(1).tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """

    # the fitted attributes (annotations only: set by fit, absent before it, as scikit-learn expects)
    coef_: np.ndarray
    intercept_: np.ndarray
    certificate_: list  # one Certificate per one-vs-rest game (a list of one for two classes)
    _fitted_cap: tuple[Any, ...]  # what a warm start must match: the game and the data's size

    _parameter_constraints = {} if Interval is None else {
        "nu": [None, Interval(numbers.Real, 0, 1, closed="right")],
        "C": [None, Interval(numbers.Real, 0, None, closed="neither")],
        "solver": [StrOptions(set(SOLVERS))],
        "multi_class": [StrOptions({"ovr", "weston_watkins"})],
        "tol": [Interval(numbers.Real, 0, 1, closed="neither")],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "fit_intercept": ["boolean"],
        "intercept_scaling": [Interval(numbers.Real, 0, None, closed="neither")],
        "warm_start": ["boolean"],
        "n_jobs": [None, numbers.Integral],
        "exact_threshold": [Interval(numbers.Integral, 1, None, closed="left")],
        "client": [None, str, callable, object],
        "recipe": [StrOptions(set(RECIPES)), Hidden(StrOptions({"deprecated"}))],
        "normalize": ["boolean", Hidden(StrOptions({"deprecated"}))],
    }

    def __init__(self, nu=None, *, C=DEFAULT_C, solver="auto", multi_class="ovr", tol=0.01, max_iter=10_000,
                 fit_intercept=True, intercept_scaling=1.0, warm_start=False, n_jobs=None, exact_threshold=500,
                 client=None, recipe="deprecated", normalize="deprecated"):
        if _SKLEARN_MISSING is not None:
            raise ImportError("gamedyn.sklearn.MarginClassifier needs scikit-learn: pip install gamedyn[sklearn]")
        self.nu = nu
        self.C = C
        self.solver = solver
        self.multi_class = multi_class
        self.tol = tol
        self.max_iter = max_iter
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.warm_start = warm_start
        self.n_jobs = n_jobs
        self.exact_threshold = exact_threshold
        self.client = client
        self.recipe = recipe
        self.normalize = normalize

    def __sklearn_clone__(self):
        """``sklearn.base.clone``: every parameter copied as usual, except a live dask client, which is
        shared (a ``Client`` holds sockets and tasks: it cannot be copied, and a copy would be a second
        connection). So ``clone(MarginClassifier(C=None, client=Client(...)))`` and ``GridSearchCV`` work."""
        client = self.client
        if client is None or isinstance(client, str) or not _is_live_client(client):
            return super().__sklearn_clone__()
        self.client = None
        try:
            twin = super().__sklearn_clone__()
        finally:
            self.client = client
        twin.client = client
        return twin

    def __getstate__(self):
        """Pickling (joblib's processes, ``GridSearchCV(n_jobs=...)``): a live client travels as its
        scheduler's address, to which the copy connects at ``fit``."""
        state = super().__getstate__() if hasattr(super(), "__getstate__") else dict(self.__dict__)
        state = dict(state)
        if _is_live_client(state.get("client")):
            state["client"] = state["client"].scheduler.address
        return state

    def _resolved_options(self):
        """(solver, normalize) after the deprecations: ``recipe`` (renamed ``solver``) and
        ``normalize`` (removed: the rows are always rescaled) warn a FutureWarning and still act."""
        solver = self.solver
        if not (isinstance(self.recipe, str) and self.recipe == "deprecated"):
            if solver != "auto" and solver != self.recipe:
                raise InvalidParameterError(
                    f"MarginClassifier got recipe={self.recipe!r} and solver={solver!r}; 'recipe' is the old name "
                    "of 'solver': pass solver= only.")
            warnings.warn("MarginClassifier: 'recipe' was renamed 'solver' (scikit-learn's name) and will be "
                          f"removed in gamedyn 1.0; use solver={self.recipe!r}.", FutureWarning, stacklevel=3)
            solver = self.recipe
        normalize = True
        if not (isinstance(self.normalize, str) and self.normalize == "deprecated"):
            warnings.warn("MarginClassifier: 'normalize' is deprecated and will be removed in gamedyn 1.0 (scikit-learn "
                          "removed it from its linear models); the rows are rescaled by max ||x_i||, which never "
                          "changes the classifier. normalize=False (certificates in the units of X) still acts "
                          "until then.", FutureWarning, stacklevel=3)
            normalize = bool(self.normalize)
        return solver, normalize

    def _check_parameters(self):
        """Every constructor parameter, in scikit-learn's words (checked at fit, as scikit-learn does):
        ``_parameter_constraints``, then what they cannot say (finite, not a bool, not 0, a client)."""

        def refuse(name, expected, example):
            value = getattr(self, name)
            text = repr(value)
            text = text if len(text) <= 60 else text[:57] + "..."
            raise _InvalidParameterError(f"The '{name}' parameter of MarginClassifier must be {expected}. Got {text} "
                                         f"instead; e.g. {name}={example}.")

        self._validate_params()
        if self.nu is not None and not (_is_real(self.nu) and 0 < self.nu <= 1):
            refuse("nu", "None or a float in the range (0, 1]", "0.1")
        if self.C is not None and not (_is_real(self.C) and math.isfinite(self.C) and self.C > 0):
            refuse("C", "None or a positive finite float", "10.0")
        if self.C is not None and self.nu is not None and self.C != DEFAULT_C:
            raise ValueError(f"MarginClassifier takes nu (the nu-SVM) or C (the 2-norm soft margin), not both; got "
                             f"nu={self.nu!r} and C={self.C!r}. Drop one: e.g. MarginClassifier(C={self.C!r}) or "
                             f"MarginClassifier(nu={self.nu!r}).")
        if not (_is_real(self.tol) and 0 < self.tol < 1):
            refuse("tol", "a float in the range (0, 1) (a certified relative gap)", "0.01")
        for name, example in (("max_iter", "10000"), ("exact_threshold", "500")):
            value = getattr(self, name)
            if not (_is_integer(value) and value >= 1):
                refuse(name, "an int in the range [1, inf)", example)
        if not (_is_real(self.intercept_scaling) and math.isfinite(self.intercept_scaling)
                and self.intercept_scaling > 0):
            refuse("intercept_scaling", "a positive finite float", "1.0")
        if not (self.n_jobs is None or (_is_integer(self.n_jobs) and self.n_jobs != 0)):
            refuse("n_jobs", "None or a nonzero int (-1: all cores)", "2")
        client = self.client
        if not (client is None or isinstance(client, str) or _is_live_client(client) or callable(client)):
            refuse("client", "None, 'threads', a scheduler address, a dask.distributed.Client or a callable "
                   "returning one", "Client(LocalCluster())")
        if isinstance(client, str) and client != "threads" and "://" not in client and ":" not in client:
            refuse("client", "None, 'threads', a scheduler address ('tcp://host:port'), a dask.distributed.Client "
                   "or a callable returning one", "'tcp://127.0.0.1:8786'")

    @contextlib.contextmanager
    def _live_client(self):
        """The client for this fit: None, 'threads', a Client; an address or a callable is connected
        (and an address closed again after the fit)."""
        client = self.client
        if client is None or _is_live_client(client) or (isinstance(client, str) and client == "threads"):
            yield client
            return
        if isinstance(client, str):
            from distributed import Client

            connected = Client(client)
            try:
                yield connected
            finally:
                connected.close()
            return
        yield client()

    def _features(self, X, value):
        if not self.fit_intercept:
            return X
        column = np.full((X.shape[0], 1), value, dtype=X.dtype)
        return sp.hstack([X, sp.csr_matrix(column)], format="csr") if sp.issparse(X) else np.hstack([X, column])

    def _scaled_rows(self, X, normalize=True):
        """``(Z, row_scale, feature_scale, solver_scale)``: Z holds the unsigned rows (x_i, s m) / r of
        the class docstring (one copy of X for the column, one for the division, as before). Scaling X
        by a power of two c scales m and r by c exactly (both are computed on X / max|X|), so Z is
        the same bit for bit. With ``normalize=False``, Z = (x_i, s) / q for the power of two q with
        max norm in (1/2, 1]; certificates on Z are multiplied back by ``solver_scale = q`` (exact)."""
        if normalize:
            if not self.fit_intercept:
                Z, row_scale = check_unit_rows(X, True, name="X")
                return Z, row_scale, row_scale, 1.0
            feature_scale = _largest_row_norm(X) or 1.0  # X = 0: the intercept alone
            Z, row_scale = check_unit_rows(self._features(X, _intercept_value(self.intercept_scaling, feature_scale)),
                                           True, name="X")
            return Z, row_scale, feature_scale, 1.0
        F, _ = check_unit_rows(self._features(X, float(self.intercept_scaling)), False, name="X")
        solver_scale = _power_of_two_at_least(_largest_row_norm(F))
        if solver_scale != 1.0:  # a power of two: the division is exact
            F = (F / solver_scale).astype(F.dtype) if sp.issparse(F) else F / np.asarray(solver_scale, dtype=F.dtype)
        return F, 1.0, 1.0, solver_scale

    def _folded_scales(self, X, normalize, with_column=True):
        """``(column, scale, row_scale, feature_scale, solver_scale)`` for solver='lbfgs', which reads X
        itself (no copy): the rows are ``(x_i, column) / scale``, the same rows as :meth:`_scaled_rows`
        (to rounding: r = sqrt(m^2 + (s m)^2) here, the largest norm of the formed rows there)."""
        m = _largest_row_norm(X)
        if not np.isfinite(m):
            raise ValueError("X contains NaN or infinite entries; remove or impute them first.")
        s = float(self.intercept_scaling)
        fit_intercept = self.fit_intercept and with_column
        if normalize:
            if not fit_intercept:
                if m == 0.0:
                    raise ValueError("every row of X is zero; no direction has a positive margin on zero rows.")
                return None, m, m, m, 1.0
            m = m or 1.0
            column = _intercept_value(s, m)
            r = math.hypot(m, column)
            return column, r, r, m, 1.0
        column = s if fit_intercept else None
        largest = math.hypot(m, s) if fit_intercept else m
        if largest > 1.0 + (X.shape[1] + 16) * np.finfo(np.float64).eps:
            raise ValueError(f"X has rows with ||x_i|| > 1 (largest {largest!r}); drop normalize=False (the rows are "
                             "then rescaled by max ||x_i||; the theorems assume <= 1).")
        if largest == 0.0:
            raise ValueError("every row of X is zero; no direction has a positive margin on zero rows.")
        q = _power_of_two_at_least(largest)
        return column, q, 1.0, 1.0, q

    def fit(self, X, y):
        """Fit one certified (soft) margin direction per class (one-vs-rest), or one for two classes.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n, d), or a dask array
            The training rows.
        y : array-like of shape (n,)
            The class labels (at least two classes).

        Returns
        -------
        self : MarginClassifier
            The fitted estimator.

        Raises
        ------
        ValueError
            A bad parameter (also a TypeError), a single class, ``nu`` below ``1 / n``, rows longer
            than 1 with ``normalize=False``, NaN or infinite entries.
        """
        self._check_parameters()
        from gamedyn.core.kernels import backend_of, is_foreign, to_numpy

        solver, normalize = self._resolved_options()
        if is_foreign(X):  # array_api_dispatch (issue 20): fit on host copies, fitted arrays in X's namespace and device
            backend = backend_of(X)
            for name in _DEVICE_ATTRIBUTES:  # a warm start reads the previous fit on the host
                if is_foreign(getattr(self, name, None)):
                    setattr(self, name, to_numpy(getattr(self, name)))
            with self._live_client() as client:
                self._fit(to_numpy(X), to_numpy(y) if is_foreign(y) else y, solver, normalize, client)
            for name in _DEVICE_ATTRIBUTES:  # (classes_ stays on the host: labels may be strings)
                value = getattr(self, name)
                setattr(self, name, backend.xp.asarray(value, dtype=getattr(backend.xp, value.dtype.name),
                                                       device=backend.device))
            return self
        with self._live_client() as client:
            return self._fit(X, y, solver, normalize, client)

    def _fit(self, X, y, solver, normalize, client):
        from gamedyn.arrays.operators import is_dask_array

        tol, max_iter = float(self.tol), int(self.max_iter)
        distributed = client is not None or is_dask_array(X)
        if distributed:  # the rows stay in dask blocks; only y (n labels) and O(n + d) vectors per round here
            if solver in ("exact", "lbfgs"):
                raise ValueError(f"solver={solver!r} needs the rows in memory; with client= or a dask X use "
                                 "solver='auto' or a recipe name (the dynamics run on the dask blocks).")
            y = np.asarray(y.compute() if is_dask_array(y) else y)
            if y.ndim != 1 or y.shape[0] != X.shape[0]:
                raise ValueError(f"y must be 1-D with one label per row of X ({X.shape[0]}), got shape {y.shape}.")
            self.n_features_in_ = X.shape[1]
        else:
            _refuse_text(X)
            X, y = validate_data(self, X, y, accept_sparse="csr", dtype=[np.float64, np.float32])
        if not (isinstance(y, np.ndarray) and y.ndim == 1 and y.dtype.kind in "biu"):
            check_classification_targets(y)  # (1-D integer or boolean labels are binary or multiclass: nothing to check)
        classes = np.unique(y)
        if classes.size < 2:
            raise ValueError(f"y has only one class ({classes.tolist()}); a classifier needs at least two classes.")
        n_rows = X.shape[0]
        if self.C is not None and self.nu is None:
            pairs = self.multi_class == "weston_watkins" and classes.size > 2
            if solver in ("auto", "lbfgs") and not distributed:
                if pairs:
                    return self._fit_weston_watkins(X, y, classes, normalize, tol, max_iter)
                return self._fit_squared_hinge(X, y, classes, normalize, tol, max_iter)
            if self.C != DEFAULT_C:  # (the default C steps aside for the games only the others play)
                raise ValueError(f"C={self.C!r} (the 2-norm soft margin) is solved by L-BFGS on X in memory (one game "
                                 f"per class, or one on the pairs with multi_class='weston_watkins'): use solver='auto' "
                                 f"without a dask client or array; got solver={solver!r}, multi_class={self.multi_class!r}"
                                 f"{' and dask' if distributed else ''}. For the dynamics or dask use "
                                 "nu=... or C=None (the hard margin).")
        nu = None if self.nu is None else float(self.nu)
        cap = None
        if nu is not None:
            if nu * n_rows < 1 * (1 - 1e-12):
                raise ValueError(f"nu={nu!r} is below 1/n = {1 / n_rows:.3g} for the {n_rows} training rows (the capped "
                                 "simplex would be empty); pass nu >= 1/n (nu = 1/n is the hard margin).")
            cap = capped_simplex.cap_from_nu(nu, n_rows)
        joint = self.multi_class == "weston_watkins" and classes.size > 2
        if joint and (distributed or solver not in ("auto", "lbfgs")):
            raise ValueError(f"multi_class='weston_watkins' is solved by solver='lbfgs' on X in memory; got solver="
                             f"{solver!r}{' and a dask client or array' if distributed else ''}. Use solver='auto' "
                             "without client=, or multi_class='ovr'.")
        if joint:
            solver = "lbfgs"
        # A free bias: the two classes' reduced hulls (TwoHulls), solved by L-BFGS on X in memory.
        two_hulls = nu is not None and bool(self.fit_intercept) and not joint and not distributed \
            and solver in ("auto", "lbfgs")
        if solver == "auto":
            if distributed:
                solver = "smooth_perceptron"
            elif nu is not None:
                solver = "lbfgs"
            else:
                solver = "exact" if min(n_rows, X.shape[1] + int(self.fit_intercept)) <= self.exact_threshold \
                    else "smooth_perceptron"
        if solver == "lbfgs":
            column, scale, row_scale, feature_scale, solver_scale = self._folded_scales(X, normalize, not two_hulls)
            Z = X
            d = X.shape[1] + (column is not None)
        elif distributed:
            Z, row_scale, feature_scale, solver_scale = _dask_operator(X, self.fit_intercept, self.intercept_scaling,
                                                                       normalize, client)
            divisor = row_scale * solver_scale  # (one of the two is 1)
            d = Z.shape[1]
        else:
            Z, row_scale, feature_scale, solver_scale = self._scaled_rows(X, normalize)
            d = Z.shape[1]
        n = n_rows
        problems = [classes[1]] if classes.size == 2 else list(classes)
        keep = (self.warm_start and hasattr(self, "coef_") and np.array_equal(getattr(self, "classes_", []), classes)
                and self.coef_.shape[1] + int(self.fit_intercept and not two_hulls) == d
                and getattr(self, "_fitted_cap", None) == (nu, n, joint, two_hulls))
        previous: list[tuple | None] = [None] * (1 if joint else len(problems))
        if keep:  # the previous classifier <x, coef_> + intercept_ as a direction on this fit's rows z_i
            kept_coef, kept_intercept = self.coef_.copy(), self.intercept_.copy()
            old = kept_coef * feature_scale
            if self.fit_intercept and not two_hulls:
                old = np.hstack([old, kept_intercept[:, None] / self.intercept_scaling])
            if joint:  # one W, stacked class by class
                previous = [(_direction(old.ravel()), self.certificate_[0].upper / solver_scale,
                             self.certificate_[0].p)]
            elif solver == "lbfgs":  # a warm start: L-BFGS starts from the previous w (its norm the previous upper end)
                previous = [(_direction(old[k]), self.certificate_[k].upper / solver_scale, self.certificate_[k].p)
                            for k in range(len(problems))]
            else:
                previous = [(_direction(old[k]), self.certificate_[k].p) for k in range(len(problems))]
        recipe_options = {} if nu is None else {"nu": nu}

        def solve(k):
            signs = np.where(y == problems[k], 1.0, -1.0)
            if distributed:
                return _solve_one(_signed_operator(Z, signs / divisor), solver, tol, max_iter, previous[k],
                                  options=recipe_options)
            if solver == "exact" and nu is None:  # the rows signs_i x_i are formed on the working set only
                return _solve_one(Z, solver, tol, max_iter, previous[k], signs)
            return _solve_one(_signed_rows(Z, signs), solver, tol, max_iter, previous[k], options=recipe_options)

        def solve_all():
            solved = [None] * len(problems)
            if solver == "lbfgs":
                from gamedyn.certify.dual import PairRows, SignedRows

                if joint:  # pair rows of norm <= 1: (e_y - e_j) (x) z_i / sqrt 2
                    rows = PairRows(Z, np.searchsorted(classes, y), classes.size, column, scale * math.sqrt(2.0))
                    pair_cap = None if nu is None else capped_simplex.cap_from_nu(nu, rows.shape[0])
                    return _solve_lbfgs(rows, pair_cap, tol, max_iter, previous)
                signs = np.where(y[:, None] == np.asarray(problems)[None, :], 1.0, -1.0)
                if two_hulls:
                    assert nu is not None
                    return _solve_lbfgs(SignedRows(Z, signs, None, scale), _two_hulls(signs, nu), tol, max_iter,
                                        previous)
                return _solve_lbfgs(SignedRows(Z, signs, column, scale), cap, tol, max_iter, previous)
            if distributed:  # one game per class on the blocks (the batched certificate needs X in memory)
                return [solve(k) for k in range(len(problems))]
            if len(problems) > 1 and solver in _BATCHED_RECIPES:  # one batched game for the classes not kept
                for k in range(len(problems)):
                    if previous[k] is not None:
                        solved[k] = _kept(_signed_rows(Z, np.where(y == problems[k], 1.0, -1.0)), tol, previous[k],
                                          cap)
                left = [k for k in range(len(problems)) if solved[k] is None]
                signs = np.where(y[:, None] == np.asarray(problems)[left][None, :], 1.0, -1.0)
                for k, one in zip(left, _solve_batched(Z, signs, solver, tol, max_iter, recipe_options)):
                    solved[k] = one
                return solved
            if self.n_jobs is not None and len(problems) > 1:
                from joblib import Parallel, delayed

                return Parallel(n_jobs=self.n_jobs)(delayed(solve)(k) for k in range(len(problems)))
            return [solve(k) for k in range(len(problems))]

        batched = len(problems) > 1 and solver in (*_BATCHED_RECIPES, "lbfgs")
        with _blas_threads_for(n * d * (len(problems) if batched else 1), distributed):
            solved = solve_all()
        directions = np.array([direction for direction, _, _ in solved])
        if joint:  # one direction W = (w_0, ..., w_{K-1}): row k of coef_ from w_k
            directions = directions.reshape(classes.size, -1)
        certificates = [certificate for _, certificate, _ in solved]
        if solver != "lbfgs" and not distributed and getattr(Z, "dtype", None) == np.float32:
            # The rows were rescaled in float32 (2^-24 from the user's in every entry): the certificates
            # again, in float64, on the user's rows (x_i, b) / r (issue 30; L-BFGS reads X itself, exactly).
            b = None if not self.fit_intercept else (_intercept_value(self.intercept_scaling, feature_scale)
                                                     if normalize else float(self.intercept_scaling))
            certificates = _on_given_rows(certificates, directions, X, y, problems, b,
                                          row_scale if normalize else solver_scale)
        if solver_scale != 1.0:  # normalize=False: the certificate on the user's rows (a power of two: exact)
            certificates = [attrs.evolve(c, lower=c.lower * solver_scale, upper=c.upper * solver_scale)
                            for c in certificates]
        rounds = [r for _, _, r in solved]
        if joint:
            names = [f"the {classes.size} classes' pairs (multi_class='weston_watkins')"]
        elif len(problems) == 1:
            names = [f"class {_shown(classes[1])} against class {_shown(classes[0])}"]
        else:
            names = [f"class {_shown(label)} against the rest" for label in problems]
        warning = _fit_warning(names, certificates, rounds, tol, max_iter, nu,
                               None if joint or two_hulls else _positive_nus(Z, y, problems, directions, solver, column if solver ==
                                                                "lbfgs" else None, distributed))
        if warning is not None:
            warnings.warn(warning[1], warning[0], stacklevel=3)
        self.classes_ = classes
        self.solver_ = solver
        self.feature_scale_ = float(feature_scale)
        self.row_scale_ = float(row_scale)
        self.coef_ = (directions[:, : self.n_features_in_] / feature_scale).astype(np.float64)
        if two_hulls:  # the bias midway between the hulls' supporting hyperplanes, in the units of X
            self.intercept_ = _midway_biases(Z, y, problems, directions, nu, scale) * (scale / feature_scale)
        else:
            self.intercept_ = (directions[:, -1] * float(self.intercept_scaling) if self.fit_intercept
                               else np.zeros(len(problems)))
        if keep and solver != "lbfgs":  # a kept warm start keeps the classifier itself, bit for bit
            for k in np.flatnonzero(np.array(rounds) == 0):
                self.coef_[k], self.intercept_[k] = kept_coef[k], kept_intercept[k]
        self.certificate_ = certificates
        self.n_iter_ = np.array([max(r, 0) for r in rounds], dtype=np.int64)
        self._fitted_cap = (nu, n, joint, two_hulls)
        return self

    def _fit_squared_hinge(self, X, y, classes, normalize, tol, max_iter):
        """The 2-norm soft margin (``C``): :func:`gamedyn.certify.squared_hinge.squared_hinge_margin` on the rows
        ``x_i / m`` (one game per class, or one for two classes), X never copied."""
        from gamedyn.certify.squared_hinge import squared_hinge_margin

        penalty = float(self.C)
        _, scale, row_scale, feature_scale, _ = self._folded_scales(X, normalize, with_column=False)
        problems = [classes[1]] if classes.size == 2 else list(classes)
        signs = np.where(np.asarray(y)[:, None] == np.asarray(problems)[None, :], 1.0, -1.0)
        free_bias = bool(self.fit_intercept)
        n = X.shape[0]
        fitted = ("C", penalty, n, free_bias, scale)
        start = None
        if (self.warm_start and getattr(self, "_fitted_cap", None) == fitted
                and np.array_equal(getattr(self, "classes_", []), classes) and self.coef_.shape[1] == X.shape[1]):
            start = np.vstack([self.coef_.T * scale, self.intercept_[None, :]])
        with _blas_threads_for(n * X.shape[1], False):
            found = squared_hinge_margin(X, signs, penalty, scale=scale, free_bias=free_bias, tol=tol,
                                         max_iter=max_iter, start=start)
        certificates = [Certificate(lower=float(found.lower[k]), upper=float(found.upper[k]),
                                    separable=True if found.lower[k] > 0 else None, p=found.p[:, k],
                                    rounds=int(found.iterations[k]), hulls=2 if free_bias else 1, penalty=penalty)
                        for k in range(len(problems))]
        names = ([f"class {_shown(classes[1])} against class {_shown(classes[0])}"] if len(problems) == 1
                 else [f"class {_shown(label)} against the rest" for label in problems])
        warning = _fit_warning(names, certificates, [int(r) for r in found.iterations], tol, max_iter)
        if warning is not None:
            warnings.warn(warning[1], warning[0], stacklevel=4)
        self.classes_ = classes
        self.solver_ = "lbfgs"
        self.feature_scale_ = float(feature_scale)
        self.row_scale_ = float(row_scale)
        self.coef_ = np.ascontiguousarray(found.w.T / scale, dtype=np.float64)
        self.intercept_ = np.asarray(found.b, dtype=np.float64).copy()
        self.certificate_ = certificates
        self.n_iter_ = np.asarray(found.iterations, dtype=np.int64)
        self._fitted_cap = fitted
        return self

    def _fit_weston_watkins(self, X, y, classes, normalize, tol, max_iter):
        """The Weston-Watkins 2-norm soft margin (``C``): :func:`gamedyn.certify.squared_hinge.weston_watkins_margin`
        on the rows ``x_i / m``, X never copied; one certificate on the pair rows."""
        from gamedyn.certify.squared_hinge import weston_watkins_margin

        penalty = float(self.C)
        _, scale, row_scale, feature_scale, _ = self._folded_scales(X, normalize, with_column=False)
        codes = np.searchsorted(classes, np.asarray(y))
        K = classes.size
        free_bias = bool(self.fit_intercept)
        n = X.shape[0]
        fitted = ("C-pairs", penalty, n, free_bias, scale)
        start = None
        if (self.warm_start and getattr(self, "_fitted_cap", None) == fitted
                and np.array_equal(getattr(self, "classes_", []), classes) and self.coef_.shape[1] == X.shape[1]):
            start = np.vstack([self.coef_.T * scale, self.intercept_[None, :]])
        with _blas_threads_for(n * X.shape[1], False):
            found = weston_watkins_margin(X, codes, K, penalty, scale=scale, free_bias=free_bias, tol=tol,
                                          max_iter=max_iter, start=start)
        certificates = [Certificate(lower=float(found.lower), upper=float(found.upper),
                                    separable=True if found.lower > 0 else None, p=found.alpha.ravel(),
                                    rounds=int(found.iterations), hulls=0, penalty=penalty)]
        names = [f"the {K} classes' pairs (multi_class='weston_watkins')"]
        warning = _fit_warning(names, certificates, [int(found.iterations)], tol, max_iter)
        if warning is not None:
            warnings.warn(warning[1], warning[0], stacklevel=4)
        self.classes_ = classes
        self.solver_ = "lbfgs"
        self.feature_scale_ = float(feature_scale)
        self.row_scale_ = float(row_scale)
        self.coef_ = np.ascontiguousarray(found.W.T / scale, dtype=np.float64)
        self.intercept_ = np.asarray(found.b, dtype=np.float64).copy()
        self.certificate_ = certificates
        self.n_iter_ = np.asarray([found.iterations], dtype=np.int64)
        self._fitted_cap = fitted
        return self

    def decision_function(self, X):
        """<x, coef_> + intercept_: positive for classes_[1] (binary), one column per class otherwise.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (m, d), or a dask array (then a lazy result)

        Returns
        -------
        ndarray of shape (m,) or (m, K)
        """
        check_is_fitted(self)
        from gamedyn.arrays.operators import is_dask_array

        if is_dask_array(X):  # lazy: a dask array of scores, block by block
            if X.ndim != 2 or X.shape[1] != self.n_features_in_:
                raise ValueError(f"X has {X.shape[-1]} features, but MarginClassifier was fitted with {self.n_features_in_}.")
            scores = X.astype(np.float64) @ self.coef_.T + self.intercept_
            return scores[:, 0] if scores.shape[1] == 1 else scores
        from gamedyn.core.kernels import backend_of, is_foreign

        if is_foreign(X):  # array_api_dispatch: the scores in X's namespace and on its device
            backend = backend_of(X)
            if X.ndim != 2 or X.shape[1] != self.n_features_in_:
                raise ValueError(f"X has {X.shape[-1]} features, but MarginClassifier was fitted with {self.n_features_in_}.")
            scores = backend.asarray(X) @ backend.asarray(self.coef_).T + backend.asarray(self.intercept_)
            return backend.xp.reshape(scores, (-1,)) if scores.shape[1] == 1 else scores
        return super().decision_function(X)

    def predict(self, X):
        """The class of the largest score (binary: classes_[1] where the score is positive).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (m, d), a dask array (then a lazy result), or an array-API
            array under ``array_api_dispatch`` (the labels in its namespace and on its device; string
            labels, which no array API holds, picked on the host)

        Returns
        -------
        ndarray of shape (m,)
        """
        from gamedyn.arrays.operators import is_dask_array
        from gamedyn.core.kernels import is_foreign, to_numpy

        if is_foreign(X):  # the labels in X's namespace and on its device, as scikit-learn's array-API classifiers
            from gamedyn.core.kernels import backend_of

            scores, backend = self.decision_function(X), backend_of(X)
            xp = backend.xp
            index = xp.astype(scores > 0, xp.int64) if scores.ndim == 1 else xp.argmax(scores, axis=1)
            classes = np.asarray(self.classes_)
            if classes.dtype.kind not in "biuf":  # labels an array API cannot hold (strings): picked on the host
                return classes[to_numpy(index)]
            labels = xp.asarray(classes, dtype=getattr(xp, classes.dtype.name), device=backend.device)
            return xp.take(labels, index, axis=0)
        if not is_dask_array(X):
            return super().predict(X)
        scores = self.decision_function(X)
        index = (scores > 0).astype(int) if scores.ndim == 1 else scores.argmax(axis=1)
        return index.map_blocks(lambda block: self.classes_[block], dtype=self.classes_.dtype)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.array_api_support = True  # under array_api_dispatch=True: coef_ / intercept_ in X's namespace and device
        return tags
