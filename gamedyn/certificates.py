r"""Margin and infeasibility certificates for the bilinear margin game (weak duality, Gordan).

For rows :math:`a_i = y_ix_i` (the matrix ``A``), any distribution :math:`p` on the rows and any
direction :math:`w\ne0`,

.. math::

    L(w) = \frac{\min_i (Aw)_i}{\|w\|_q} \;\le\; \gamma^*_q = \max_{\|w\|_q\le1}\min_i(Aw)_i
    = \min_{p\in\Delta_n}\|A^\top p\|_{q^*} \;\le\; U(p) = \|A^\top p\|_{q^*},

with :math:`q = 2` (so :math:`q^* = 2`) for every recipe but the p-norm one (``q = p/(p-1)``,
``q^* = p``). In a game run by :func:`gamedyn.play` on a :class:`gamedyn.Bilinear` payoff (or the
regularised one) the w-player's accumulated loss is :math:`-\sum_t\alpha_tA^\top p_t`, so the
dual bound :math:`U_t = \|A^\top\bar p_t\|_{q^*}` of the w-weighted average
:math:`\bar p_t=\sum_t\alpha_tp_t/S_t` costs O(d) per round and no matrix-vector product; the
margin of the output :math:`\sum_t\beta_tw_t` is read off the p-player's accumulated loss
:math:`\sum_t\beta_tAw_t` whenever the p-player's weights are the output weights (every recipe).
:class:`CertificateTracker` keeps the running minimum of :math:`U_t` and its witness
:math:`\bar p_t` (O(n + d) per round); ``result.certificate`` is its :class:`Certificate`.

Non-separable data: by Gordan's theorem exactly one of "some w has Aw > 0" and "0 lies in the
convex hull of the rows" holds. :meth:`CertificateTracker.confirm_infeasible` looks for a
distribution :math:`\lambda` with :math:`A^\top\lambda = 0` by a feasibility LP on the rows that
carry the most weight in :math:`\bar p_t` (Caratheodory: d + 1 rows suffice), doubling the set
until the LP succeeds or every row is in it.
"""

from __future__ import annotations

import math

import attrs
import numpy as np
import scipy.optimize
import scipy.sparse as sp

from gamedyn._numerics import add_scaled, axpy, dot

__all__ = ["BatchedCertificateTracker", "Certificate", "CertificateTracker", "certificate_of", "certify_not_separable", "dual_norm", "vector_norm"]

# An LP solution lambda certifies 0 in conv{a_i} when ||A^T lambda|| <= this times max_i ||a_i||
# (scale-invariant; HiGHS solves the equality rows to ~1e-9 of the data's scale).
_GORDAN_TOLERANCE = 1e-8


def vector_norm(z, order: float = 2.0) -> float:
    """``||z||_order`` computed on ``z / max|z|``: no overflow or underflow at any scale."""
    z = np.asarray(z, dtype=np.float64)
    scale = float(np.max(np.abs(z))) if z.size else 0.0
    if scale == 0.0 or not math.isfinite(scale):
        return scale
    unit = z / scale
    if order == 2.0:
        return scale * math.sqrt(dot(unit, unit))
    return scale * float(np.sum(np.abs(unit) ** order) ** (1.0 / order))


def _fast_norm(z, order: float) -> float:
    """``||z||_order``: one dot product for order 2, falling back to :func:`vector_norm` on overflow/underflow."""
    if order == 2.0:
        square = float(z @ z)
        if 1e-280 < square < 1e280:
            return math.sqrt(square)
    return vector_norm(z, order)


def dual_norm(q: float) -> float:
    """The exponent q* with 1/q + 1/q* = 1 (q = 2 gives 2)."""
    return 2.0 if q == 2.0 else q / (q - 1.0)


def _times(M, v) -> np.ndarray:
    """``M @ v`` as a float64 vector, without upcasting a float32 ``M`` (which would copy it)."""
    if getattr(M, "dtype", None) == np.float32:
        v = np.asarray(v, dtype=np.float32)
    return np.asarray(M @ v, dtype=np.float64).ravel()


def _rows(A, chosen) -> np.ndarray:
    """The rows ``chosen`` of A as a dense float64 array; for a matrix-free A (a LinearOperator, e.g.
    :class:`gamedyn.distributed.RowBlockedOperator`) by products with unit vectors, 64 rows per pass."""
    if isinstance(A, np.ndarray) or sp.issparse(A):
        rows = A[chosen]
        return rows.toarray() if sp.issparse(rows) else np.asarray(rows, dtype=np.float64)
    n = A.shape[0]
    pieces = []
    for start in range(0, len(chosen), 64):
        part = chosen[start:start + 64]
        units = np.zeros((n, len(part)))
        units[part, np.arange(len(part))] = 1.0
        pieces.append(np.asarray(A.T @ units, dtype=np.float64).T)
    return np.vstack(pieces)


def _row_norm_max(A) -> float:
    """max_i ||a_i||_2, on A / max|A| (overflow-safe); dense, sparse, or an operator's ``largest_row_norm()``."""
    if not (isinstance(A, np.ndarray) or sp.issparse(A)) and hasattr(A, "largest_row_norm"):
        return float(A.largest_row_norm())
    if sp.issparse(A):
        top = float(np.max(np.abs(A.data))) if A.nnz else 0.0
        if top == 0.0:
            return 0.0
        unit = A / top
        return top * float(np.sqrt(np.max(np.asarray(unit.multiply(unit).sum(axis=1)).ravel())))
    A = np.asarray(A, dtype=np.float64)
    top = float(np.max(np.abs(A)))
    return 0.0 if top == 0.0 else top * float(np.max(np.linalg.norm(A / top, axis=1)))


@attrs.frozen
class Certificate:
    r"""A certified bracket ``lower <= gamma* <= upper`` for the max margin of the rows ``A``.

    Attributes:
        lower: the output's normalised margin :math:`\min_i(Aw)_i/\|w\|_q` (0 for w = 0, which
            attains margin 0 <= gamma*).
        upper: the smallest dual bound :math:`\|A^\top p\|_{q^*}` seen, at the witness ``p``.
        separable: True when ``lower > 0``; False when an exact check (Gordan LP) found a
            distribution ``p`` with :math:`A^\top p = 0`; None while undecided.
        p: the witness distribution on the rows (:math:`\|A^\top p\|_{q^*}` = ``upper``).
        q: the norm of w (2, or q = p/(p-1) for the p-norm recipe); the bound uses q*.
        rounds: the round after which the certificate was taken.

    >>> import numpy as np
    >>> certificate = Certificate(lower=0.5, upper=0.6, separable=True, p=np.array([0.5, 0.5]))
    >>> round(certificate.gap, 12), round(certificate.relative_gap, 12)
    (0.1, 0.166666666667)
    """

    lower: float
    upper: float
    separable: bool | None
    p: np.ndarray = attrs.field(repr=False)
    q: float = 2.0
    rounds: int = 0

    @property
    def gap(self) -> float:
        """``upper - lower`` (>= 0 up to rounding)."""
        return self.upper - self.lower

    @property
    def relative_gap(self) -> float:
        """``(upper - lower) / upper``; it bounds ``(gamma* - lower) / gamma*``. Infinite unless lower > 0."""
        if not self.lower > 0:
            return math.inf
        return self.gap / self.upper

    def verdict(self) -> str:
        """One line for a person: separable with its bracket, not separable with the witness, or undecided."""
        if self.separable:
            return (f"separable: normalised margin {self.lower:.6g} <= gamma* <= {self.upper:.6g} "
                    f"(certified relative gap {self.relative_gap:.3g})")
        if self.separable is False:
            return (f"not separable: 0 lies in the convex hull of the rows (Gordan), witness p on "
                    f"{int(np.count_nonzero(self.p))} rows with ||A^T p|| = {self.upper:.3g}")
        return (f"undecided: no separator found yet; no separator has normalised margin above "
                f"{self.upper:.6g} (best margin found {self.lower:.6g})")


class CertificateTracker:
    """The running bracket of a bilinear game; :func:`gamedyn.play` feeds it every round.

    Per round (:meth:`observe`): O(n + d) work and no product with ``A``; it accumulates
    ``sum_t alpha_t p_t`` (the w-player's weights) and keeps the running minimum of
    ``U_t = ||A^T p_bar_t||_{q*}`` read off the w-player's loss sum, with its witness.
    ``margin_from_sums`` says whether the p-player's loss sum is ``A`` times the output sum (p-player
    weights = output weights); otherwise :attr:`lower` costs one product.
    """

    def __init__(self, A, q: float = 2.0, *, margin_from_sums: bool = True):
        self.A = A
        self.q = float(q)
        self.dual_exponent = dual_norm(self.q)
        self.margin_from_sums = margin_from_sums
        n = A.shape[0]
        self.t = 0
        self._dual_sum = np.zeros(n)
        self._weight_total = 0.0
        self.upper = math.inf
        self.upper_round = 0
        self._witness = np.full(n, 1.0 / n)
        self._margins = None  # A @ output sum, when free
        self._output_sum = None
        self._shares_dual_sum = False  # True: _dual_sum is the runner's p play sum (share_dual_sum)
        self.separable_exact: bool | None = None  # False once the Gordan LP succeeded

    def share_dual_sum(self, p_play_sum: np.ndarray) -> None:
        r"""Read :math:`\sum_t\alpha_tp_t` from the runner's p play sum instead of keeping a copy of it.

        Valid when the p-player's output weight is the w-player's alpha_t in every round (one
        weight sequence): the two sums are then the same axpys from zero, bit for bit.
        :func:`gamedyn.play` calls :meth:`observe` after it has added p_t to that sum.
        """
        self._dual_sum, self._shares_dual_sum = p_play_sum, True

    # -- per round ---------------------------------------------------------------------------
    def observe(self, t: int, p, w_weight: float, w_loss_linear_sum, w_weight_total: float,
                p_loss_linear_sum, w_output_sum) -> None:
        """Round t: ``p`` = p_t, ``w_weight`` = the w-player's alpha_t, the two loss sums, the output sum.

        Cost: one dot product of length d and one axpy of length n (none when the sum is shared,
        :meth:`share_dual_sum`); the witness is copied only when U_t
        stops improving (the best round's average is otherwise the running one).
        """
        self.t = t
        if self.dual_exponent == 2.0 and w_loss_linear_sum.ndim == 1:  # _fast_norm inlined: one dot product
            square = dot(w_loss_linear_sum, w_loss_linear_sum)
            norm = math.sqrt(square) if 1e-280 < square < 1e280 else vector_norm(w_loss_linear_sum)
        else:
            norm = _fast_norm(w_loss_linear_sum, self.dual_exponent)
        upper = norm / w_weight_total
        if upper < self.upper:
            self.upper, self.upper_round = upper, t
        elif self.upper_round == t - 1 and self._witness is None:  # the best was the previous round: keep it
            if self._shares_dual_sum:  # the shared sum holds p_t already: take it back out
                self._witness = (self._dual_sum - w_weight * np.asarray(p)) / self._weight_total
            else:
                self._witness = self._dual_sum / self._weight_total
        if self.upper_round == t:
            self._witness = None  # the best is now the running average (read lazily)
        if not self._shares_dual_sum:  # (a shared sum holds alpha_t p_t already: the runner added it)
            if p.__class__ is np.ndarray and p.shape == self._dual_sum.shape and p.ndim == 1:
                axpy(p, self._dual_sum, w_weight)  # our own float64 buffer, in place
            else:
                add_scaled(self._dual_sum, w_weight, p)
        self._weight_total += w_weight
        self._margins = p_loss_linear_sum if self.margin_from_sums else None
        self._output_sum = w_output_sum

    # -- reading -----------------------------------------------------------------------------
    @property
    def lower(self) -> float:
        """The current output's normalised margin (free when the sums align, else one product)."""
        if self._output_sum is None:
            return -math.inf
        norm = vector_norm(self._output_sum, self.q)
        if norm == 0.0:
            return 0.0
        margins = self._margins if self._margins is not None else _times(self.A, self._output_sum)
        return float(np.min(margins)) / norm

    @property
    def witness(self) -> np.ndarray:
        """The distribution whose dual bound is ``upper``."""
        if self._witness is None:
            return self._dual_sum / self._weight_total
        return self._witness

    def relative_gap(self) -> float:
        lower = self.lower
        return (self.upper - lower) / self.upper if lower > 0 else math.inf

    def sharpen(self, rows: int | None = None) -> float:
        """A sharper dual bound: the min-norm point of the convex hull of the ``rows`` rows that carry
        the most weight in the witness (default 2(d + 1)), by NNLS; any distribution on them is a valid
        witness, so the bound stays certified. Costs O(rows^2 d); returns the (possibly) new upper."""
        if self.q != 2.0:
            return self.upper  # the min-norm point is an l2 construction
        n, d = self.A.shape
        k = min(n, rows if rows is not None else 2 * (d + 1))
        chosen = np.argsort(-self.witness)[:k]
        A_S = _rows(self.A, chosen)
        # Least-distance programming: u >= 0 minimising ||A_S^T u||^2 + (1^T u - 1)^2 is s * pi with pi
        # the min-norm point's weights (for fixed pi the value N^2 / (1 + N^2), N = ||A_S^T pi||, grows with N).
        E = np.vstack([A_S.T, np.ones((1, k))])
        f = np.zeros(d + 1)
        f[d] = 1.0
        u, _ = scipy.optimize.nnls(E, f, maxiter=max(50 * k, 1000))
        if not np.sum(u) > 0:
            return self.upper
        candidate = np.zeros(n)
        candidate[chosen] = u / np.sum(u)
        upper = vector_norm(_times(self.A.T, candidate), self.dual_exponent)
        if upper < self.upper:
            self.upper, self.upper_round, self._witness = upper, self.t, candidate
        return self.upper

    def confirm_infeasible(self) -> bool:
        """Gordan's theorem: look for a distribution ``lam`` with ``A^T lam = 0`` on the heaviest rows of
        the witness (d + 1 rows first, doubling up to all n) by a feasibility LP (HiGHS). On success
        the witness becomes ``lam``, ``upper`` becomes ``||A^T lam||`` and the data are certified not
        separable. Returns whether it succeeded."""
        if self.separable_exact is False:
            return True
        n, d = self.A.shape
        order = np.argsort(-self.witness, kind="stable")
        scale = _row_norm_max(self.A)
        k = min(n, d + 1)
        while True:
            chosen = order[:k]
            A_S = _rows(self.A, chosen)
            equalities = np.vstack([A_S.T / scale, np.ones((1, k))])
            target = np.zeros(d + 1)
            target[d] = 1.0
            solution = scipy.optimize.linprog(np.zeros(k), A_eq=equalities, b_eq=target, bounds=(0, None),
                                              method="highs")
            if solution.status == 0:
                lam = np.clip(solution.x, 0.0, None)
                lam = lam / np.sum(lam)
                candidate = np.zeros(n)
                candidate[chosen] = lam
                residual = vector_norm(_times(self.A.T, candidate), self.dual_exponent)
                if residual <= _GORDAN_TOLERANCE * scale:
                    self.separable_exact = False
                    self._witness = candidate
                    self.upper, self.upper_round = residual, self.t
                    return True
            if k == n:
                return False
            k = min(n, 2 * k)

    def certificate(self) -> Certificate:
        """The bracket now: exact ends (one product each) at the output sum and the witness."""
        lower = -math.inf
        if self._output_sum is not None:
            norm = vector_norm(self._output_sum, self.q)
            lower = 0.0 if norm == 0.0 else float(np.min(_times(self.A, self._output_sum))) / norm
        witness = self.witness
        upper = vector_norm(_times(self.A.T, witness), self.dual_exponent)
        separable = True if lower > 0 else (False if self.separable_exact is False else None)
        return Certificate(lower=lower, upper=upper, separable=separable, p=np.array(witness, dtype=np.float64), q=self.q,
                           rounds=self.t)


def certify_not_separable(A, certificate: Certificate | None = None) -> Certificate:
    """Gordan's theorem on demand: the feasibility LP of :meth:`CertificateTracker.confirm_infeasible`,
    started from ``certificate.p`` (uniform without one). Returns the certificate with ``separable=False``
    and the exact witness when 0 lies in the convex hull of the rows, else the certificate unchanged
    (without one: ``lower = 0``, attained by w = 0, and the uniform witness).

    >>> import numpy as np
    >>> certify_not_separable(np.array([[0.6, 0.3], [-0.6, -0.3]])).separable
    False
    """
    q = 2.0 if certificate is None else certificate.q
    tracker = CertificateTracker(A, q)
    if certificate is not None:
        tracker._witness, tracker.t = np.asarray(certificate.p, dtype=np.float64), certificate.rounds
    else:
        certificate = tracker.certificate()
        certificate = attrs.evolve(certificate, lower=0.0)
    if certificate.lower > 0 or not tracker.confirm_infeasible():
        return certificate
    return attrs.evolve(certificate, upper=tracker.upper, separable=False, p=tracker.witness.copy())


def certificate_of(A, w, p, q: float = 2.0) -> Certificate:
    """The certificate of a given direction ``w`` and distribution ``p`` (two products): lower is w's
    normalised margin, upper is ||A^T p||_{q*}.

    >>> import numpy as np
    >>> c = certificate_of(np.array([[0.6, 0.0], [0.0, 0.8]]), np.array([1.0, 1.0]), np.array([0.64, 0.36]))
    >>> round(c.lower, 12), round(c.upper, 12)
    (0.424264068712, 0.48)
    """
    tracker = CertificateTracker(A, q)
    tracker._witness = check_distribution(p, A.shape[0])
    tracker._output_sum = np.asarray(w, dtype=np.float64)
    return tracker.certificate()


def check_distribution(p, n: int) -> np.ndarray:
    """``p`` as a distribution on n rows (non-negative, sums to 1 up to rounding, then renormalised)."""
    p = np.asarray(p, dtype=np.float64)
    if p.shape != (n,) or not np.all(np.isfinite(p)) or np.any(p < 0) or not abs(np.sum(p) - 1.0) <= 1e-9:
        raise ValueError(f"p must be a distribution on the {n} rows (non-negative, summing to 1), got shape {p.shape}.")
    return p / np.sum(p)


def _column_norms(Z, order: float) -> np.ndarray:
    """``||Z[:, k]||_order`` for every column: one pass for order 2 in range, else column by column
    through :func:`vector_norm` (no overflow or underflow)."""
    if order == 2.0:
        squares = np.einsum("ij,ij->j", Z, Z)
        if np.all((squares > 1e-280) & (squares < 1e280)):
            return np.sqrt(squares)
    return np.array([vector_norm(Z[:, k], order) for k in range(Z.shape[1])])


class BatchedCertificateTracker:
    r"""The running bracket of each of K batched bilinear games (:mod:`gamedyn.batched`), side by side.

    Game k has rows :math:`A_k = \operatorname{diag}(y_k)X` (or ``X``), and its own bracket
    :math:`L_t^{(k)}\le\gamma^*_k\le U_t^{(k)}` exactly as :class:`CertificateTracker` keeps it for one
    game: :meth:`observe` receives the same arrays as for one game with a trailing batch axis K
    (p: (n, K), loss sums: (d, K) and (n, K)) and costs O((n + d) K), no product. The weights are
    shared by the K games. Arrays with one entry per game: ``upper``, ``upper_round``,
    ``separable_exact`` (-1 undecided, 0 where the Gordan LP confirmed 0 in the convex hull),
    ``lower`` (a property); :meth:`certificate` returns the list of the K :class:`Certificate`\ s,
    each for its own ``A_k``. :meth:`game` gives game k's own :class:`CertificateTracker` (which copies
    ``A_k``), used by :meth:`sharpen` and :meth:`confirm_infeasible`.
    """

    def __init__(self, batch, q: float = 2.0, *, margin_from_sums: bool = True):
        self.A = batch
        self.q = float(q)
        self.dual_exponent = dual_norm(self.q)
        self.margin_from_sums = margin_from_sums
        n, K = batch.shape[0], batch.batch_size
        self.t = 0
        self._dual_sum = np.zeros((n, K))
        self._weight_total = 0.0
        self.upper = np.full(K, math.inf)
        self.upper_round = np.zeros(K, dtype=np.int64)
        self._witness = np.full((n, K), 1.0 / n)
        self._margins = None
        self._output_sum = None
        self.separable_exact = np.full(K, -1, dtype=np.int8)

    @property
    def batch_size(self) -> int:
        return self.A.batch_size

    def observe(self, t: int, p, w_weight: float, w_loss_linear_sum, w_weight_total: float,
                p_loss_linear_sum, w_output_sum) -> None:
        """Round t, as :meth:`CertificateTracker.observe` with a trailing batch axis; the witness of a
        game whose U_t improved is its new running average (O(n) per such game)."""
        self.t = t
        upper = _column_norms(w_loss_linear_sum, self.dual_exponent) / w_weight_total
        self._dual_sum += w_weight * p
        self._weight_total += w_weight
        improved = np.flatnonzero(upper < self.upper)
        if improved.size:
            self.upper[improved] = upper[improved]
            self.upper_round[improved] = t
            self._witness[:, improved] = self._dual_sum[:, improved] / self._weight_total
        self._margins = p_loss_linear_sum if self.margin_from_sums else None
        self._output_sum = w_output_sum

    @property
    def lower(self) -> np.ndarray:
        """Each game's output normalised margin (free when the sums align, else one batched product)."""
        K = self.batch_size
        if self._output_sum is None:
            return np.full(K, -math.inf)
        norms = _column_norms(self._output_sum, self.q)
        margins = self._margins if self._margins is not None else np.asarray(self.A @ self._output_sum)
        lowest = np.min(margins, axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(norms > 0, lowest / np.where(norms > 0, norms, 1.0), 0.0)

    @property
    def witness(self) -> np.ndarray:
        """(n, K): column k is the distribution whose dual bound is ``upper[k]``."""
        return self._witness

    def rows(self, k: int):
        """Game k's rows A_k (a copy of X with signed rows)."""
        X, labels = self.A.X, self.A.labels
        if labels is None:
            return X
        signs = labels[:, k]
        return sp.csr_matrix(X.multiply(signs[:, None])) if sp.issparse(X) else X * signs[:, None]

    def game(self, k: int) -> CertificateTracker:
        """Game k's own :class:`CertificateTracker`, holding its current state."""
        tracker = CertificateTracker(self.rows(k), self.q, margin_from_sums=False)
        tracker.t, tracker.upper, tracker.upper_round = self.t, float(self.upper[k]), int(self.upper_round[k])
        tracker._witness = self._witness[:, k].copy()
        tracker._output_sum = None if self._output_sum is None else self._output_sum[:, k]
        tracker.separable_exact = False if self.separable_exact[k] == 0 else None
        return tracker

    def _take(self, k: int, tracker: CertificateTracker) -> None:
        self.upper[k], self.upper_round[k] = tracker.upper, tracker.upper_round
        self._witness[:, k] = tracker.witness
        if tracker.separable_exact is False:
            self.separable_exact[k] = 0

    def sharpen(self, games=None) -> np.ndarray:
        """:meth:`CertificateTracker.sharpen` for the given games (default all); returns ``upper``."""
        for k in range(self.batch_size) if games is None else games:
            tracker = self.game(int(k))
            tracker.sharpen()
            self._take(int(k), tracker)
        return self.upper

    def confirm_infeasible(self, games=None) -> np.ndarray:
        """:meth:`CertificateTracker.confirm_infeasible` (the Gordan LP) for the given games (default
        all) not yet confirmed; returns the boolean array of games confirmed not separable."""
        for k in range(self.batch_size) if games is None else games:
            if self.separable_exact[k] != 0:
                tracker = self.game(int(k))
                if tracker.confirm_infeasible():
                    self._take(int(k), tracker)
        return self.separable_exact == 0

    def certificate(self) -> list:
        """Each game's :class:`Certificate` (exact ends: one batched product each), game k on A_k."""
        K = self.batch_size
        lower = np.full(K, -math.inf)
        if self._output_sum is not None:
            norms = _column_norms(self._output_sum, self.q)
            lowest = np.min(np.asarray(self.A @ self._output_sum, dtype=np.float64), axis=0)
            lower = np.array([0.0 if norms[k] == 0.0 else lowest[k] / norms[k] for k in range(K)])
        upper = _column_norms(np.asarray(self.A.T @ self._witness, dtype=np.float64), self.dual_exponent)
        certificates = []
        for k in range(K):
            separable = True if lower[k] > 0 else (False if self.separable_exact[k] == 0 else None)
            certificates.append(Certificate(lower=float(lower[k]), upper=float(upper[k]), separable=separable,
                                            p=self._witness[:, k].copy(), q=self.q, rounds=self.t))
        return certificates
