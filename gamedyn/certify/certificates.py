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

Verdicts are proofs. ``separable=True`` only when the computed margins of the output exceed their
rounding bound (Higham's :math:`\gamma_{d+3}\,\max_i\|a_i\|_{q^*}\|w\|_q`, so every exact
:math:`a_i\cdot w` is > 0). ``separable=False`` only with Gordan's theorem checked exactly: by
Gordan exactly one of "some w has Aw > 0" and "0 lies in the convex hull of the rows" holds, and
:func:`gordan_proof` accepts a distribution :math:`\lambda` only when :math:`A_S^\top\lambda = 0`,
:math:`\lambda\ge0` is proved for the rows' float64 values (dyadic rationals), either

* by a verified solve (Rump's a-posteriori bound, every rounding error bounded) of the square
  system :math:`[A_S^\top; 1^\top]\lambda = e` when the support S has one row more than the
  coordinates it uses (the generic case), showing every exact :math:`\lambda_i > 0`; or
* exactly, in integers (fraction-free Bareiss elimination on the rows written as integers times
  powers of two), when the support spans fewer dimensions (a and -a, integer rows with an integer
  combination 0), then checked equation by equation in exact integer arithmetic;
* for small problems whose LP vertex fails both (the LP's tolerance admits wrong vertices), by the
  simplex method in exact rational arithmetic (Bland's rule), which decides them completely.

The support comes from a vertex of the feasibility LP (HiGHS dual simplex, at most d + 1 rows)
on the rows that carry the most weight in :math:`\bar p_t`, doubling the set until the LP succeeds
or every row is in it. No tolerance decides a verdict: data with a margin of 1e-300 are never
called "not separable", and when neither proof is found (a margin below rounding, or a support
beyond the caps :data:`gamedyn.certify.gordan.VERIFIED_ROWS_CAP`, ``EXACT_WORK_CAP`` and ``EXACT_LP_SIZE_CAP``) the certificate stays
undecided, ``separable=None``, with its bracket.
"""

from __future__ import annotations

import math
import numbers

import attrs
import numpy as np
import scipy.sparse as sp

from gamedyn.arrays.operators import dense_rows, largest_row_norm, matvec, unit_of
from gamedyn.core import capped_simplex
from gamedyn.core.kernels import add_scaled, axpy, backend_of, dot, is_numpy, to_host_scalar, to_numpy
from gamedyn.core.numerics import UNIT64, rounding_factor, safe_norm
from gamedyn.core.validation import check_matrix, check_q, check_vector, describe, is_operator

__all__ = [
    "BatchedCertificateTracker",
    "Certificate",
    "CertificateTracker",
    "certificate_of",
    "certify_not_separable",
    "dual_norm",
    "on_float64_rows",
    "gordan_proof",
    "margin_is_certified",
    "vector_norm",
]



def _check_order(order) -> float:
    if isinstance(order, bool) or not isinstance(order, numbers.Real) or not (1.0 <= float(order) < math.inf):
        raise ValueError(f"order must be a real number >= 1 (the exponent of the norm), got {describe(order)}; "
                         "pass e.g. order=2.")
    return float(order)


def vector_norm(z, order: float = 2.0) -> float:
    """``||z||_order`` computed on ``z / max|z|``: no overflow or underflow at any scale.

    Parameters
    ----------
    z : array_like
        A vector (any shape is flattened by the sum).
    order : float, default 2
        The exponent of the norm, >= 1.

    Returns
    -------
    float
        The norm; 0 for an empty or zero ``z``, inf when it exceeds the float64 range.

    Raises
    ------
    ValueError
        If ``order`` is not a real number >= 1, or ``z`` holds NaN.

    Examples
    --------
    >>> vector_norm([3e-200, 4e-200])
    5e-200
    """
    order = _check_order(order)
    value = safe_norm(z, order)
    if math.isnan(value):
        raise ValueError("z contains NaN; its norm is undefined. Remove or impute the NaN entries first.")
    return value


def _fast_norm(z, order: float) -> float:
    """``||z||_order``: one dot product for order 2, falling back to :func:`safe_norm` on overflow/underflow."""
    if order == 2.0:
        square = float(z @ z)
        if 1e-280 < square < 1e280:
            return math.sqrt(square)
    return safe_norm(z, order)


def dual_norm(q: float) -> float:
    """The exponent q* with 1/q + 1/q* = 1 for the norm q of w, q in (1, 2] (q = 2 gives 2).

    Raises
    ------
    TypeError, ValueError
        If ``q`` is not a real number in (1, 2].

    Examples
    --------
    >>> dual_norm(1.5)
    3.0
    """
    q = check_q(q)
    return 2.0 if q == 2.0 else q / (q - 1.0)


def margin_is_certified(lower: float, row_norm_max: float, d: int, *, unit: float = UNIT64) -> bool:
    r"""Whether a computed normalised margin proves that every exact margin is positive.

    ``lower`` is ``min_i fl(a_i . w) / ||w||_q`` as computed in floating point; each computed
    product is within :math:`\gamma_{d+3}\sum_j|a_{ij}w_j| \le \gamma_{d+3}\|a_i\|_{q^*}\|w\|_q`
    of the exact one (Higham, Thm 3.1; the 3 covers a cast of w to float32 and a row factor), so
    ``lower > 2 gamma_{d+4} row_norm_max`` shows :math:`\min_i a_i\cdot w > 0` exactly (the factor 2
    covers the rounding of the two computed norms and of the division).

    Parameters
    ----------
    lower : float
        The computed normalised margin.
    row_norm_max : float
        The computed max_i ||a_i||_{q*} (an upper bound of it is fine).
    d : int
        The number of columns of A (terms per product).
    unit : float, default 2**-53
        The unit roundoff of the products (2**-24 for float32 data).

    Returns
    -------
    bool

    Examples
    --------
    >>> margin_is_certified(1e-9, 1.0, 10), margin_is_certified(1e-16, 1.0, 10)
    (True, False)
    """
    return bool(lower > 2.0 * rounding_factor(d + 4, unit) * row_norm_max)


def gordan_proof(rows, weights=None):
    """A proved distribution ``lambda`` on ``rows`` with ``sum_i lambda_i a_i = 0``, or None.

    See :func:`gamedyn.certify.gordan.gordan_proof` (the proofs live there, imported when first needed).

    Examples
    --------
    >>> gordan_proof([[1.0, 2.0], [-1.0, -2.0]]).tolist()
    [0.5, 0.5]
    """
    from gamedyn.certify import gordan

    return gordan.gordan_proof(rows, weights)


def _check_tracker_cap(cap, n: int):
    """None (the hard margin) or a cap in [1/n, 1] for n rows."""
    if cap is None:
        return None
    cap = capped_simplex.check_cap(cap)
    capped_simplex.check_size(n, cap, "CertificateTracker(cap=...)")
    return None if cap == 1.0 else cap


def _check_rows(A, name: str = "A"):
    """A as a validated matrix (lists become arrays; NaN, empty and non-numeric input are refused)."""
    return check_matrix(A, name, allow_operator=True, sparse_formats=("csr", "csc"))


@attrs.frozen
class Certificate:
    r"""A certified bracket ``lower <= gamma* <= upper`` for the max margin of the rows ``A``.

    Attributes:
        lower: the output's normalised margin :math:`\min_i(Aw)_i/\|w\|_q` (0 for w = 0, which
            attains margin 0 <= gamma*).
        upper: the smallest dual bound :math:`\|A^\top p\|_{q^*}` seen, at the witness ``p``
            (never below ``lower``: the two agree to rounding when the gap closes).
        separable: True when the output's margins are proved positive (``lower`` above its
            rounding bound, :func:`margin_is_certified`); False when 0 is proved to lie in the
            convex hull of the rows (Gordan, :func:`gordan_proof`: an exact check, ``p`` is the
            proved distribution); None otherwise (undecided, with the bracket).
        p: the witness distribution on the rows (:math:`\|A^\top p\|_{q^*}` = ``upper``).
        q: the norm of w (2, or q = p/(p-1) for the p-norm recipe); the bound uses q*.
        rounds: the round after which the certificate was taken.
        cap: None for the hard margin; the cap c = 1/(nu n) of the soft-margin game, whose bracket is
            ``CVaR_c(A w)/||w|| <= gamma_c* = min_{p in Delta_c} ||A^T p|| <= ||A^T p||`` (the lower end
            the average of the 1/c smallest margins, the fractional one in part; ``p`` in Delta_c).
            ``separable`` then reads: True, gamma_c* > 0 proved (the CVaR of the margins is positive);
            False, 0 proved to lie in the reduced convex hull A^T Delta_c (nu too small for these data).
        hulls: 1 for one capped simplex over all the rows; 2 for the two classes' reduced hulls (the free
            bias, :class:`gamedyn.certify.dual.TwoHulls`): then ``cap`` is the larger of the two classes' caps
            (``2/(nu n)`` unless a class is its centroid), the value half the distance between the hulls and
            the lower end ``(CVaR_{c+}(m_P) + CVaR_{c-}(m_N)) / (2 ||w||)``; ``separable`` False: the hulls meet.
        penalty: None, or ``C`` of the 2-norm soft margin (:mod:`gamedyn.certify.squared_hinge`): the bracket is
            then on gamma_C*, the hard margin of the augmented rows ``(z_i, s_i e_i / sqrt(2C))`` (between the
            two classes' hulls when ``hulls`` is 2), positive for any data; ``separable`` True: its lower end is
            positive (a statement about the augmented rows, not a separator of the data); ``p`` the
            multipliers normalised per class. ``hulls`` 0 with a penalty: the Weston-Watkins game
            (:func:`gamedyn.certify.squared_hinge.weston_watkins_margin`) on the pair rows, ``p`` the pairs'
            circulation (n K entries, row by row, 0 at each row's own class).

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
    cap: float | None = None
    hulls: int = 1
    penalty: float | None = None

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
        """One line for a person: separable with its bracket, not separable with the proof, or undecided."""
        if self.penalty is not None:
            where = {2: "between the two classes' augmented hulls",
                     0: "of the Weston-Watkins augmented pair rows"}.get(self.hulls, "of the augmented rows")
            return (f"2-norm soft margin (C = {self.penalty:g}): the margin {where} {self.lower:.6g} <= gamma_C* <= "
                    f"{self.upper:.6g} (certified relative gap {self.relative_gap:.3g})")
        if self.cap is not None:
            return self._soft_verdict(self.cap)
        if self.separable:
            return (f"separable: normalised margin {self.lower:.6g} <= gamma* <= {self.upper:.6g} "
                    f"(certified relative gap {self.relative_gap:.3g})")
        if self.separable is False:
            return (f"not separable: 0 lies in the convex hull of the rows (Gordan), proved exactly on "
                    f"{int(np.count_nonzero(self.p))} rows; the float64 witness p has ||A^T p|| = {self.upper:.3g}")
        return (f"undecided: neither a separator nor an exact Gordan proof was found; "
                f"{max(self.lower, 0.0):.6g} <= gamma* <= {self.upper:.6g} "
                f"(best normalised margin found {self.lower:.6g})")


    def _soft_verdict(self, cap: float) -> str:
        nu = self.hulls / (cap * self.p.size) if self.p.size else math.nan
        if self.hulls == 2:
            name = "two-hull soft margin"
            if self.separable is False:
                return (f"{name} (nu = {nu:.4g}) zero: the two classes' reduced hulls meet, proved exactly on "
                        f"{int(np.count_nonzero(self.p))} rows; raise nu")
            if self.separable:
                return (f"{name} (nu = {nu:.4g}) positive: half the CVaRs' sum {self.lower:.6g} <= gamma_nu* <= "
                        f"{self.upper:.6g} (certified relative gap {self.relative_gap:.3g})")
        if self.separable:
            return (f"soft margin (nu = {nu:.4g}) positive: normalised CVaR of the margins {self.lower:.6g} "
                    f"<= gamma_nu* <= {self.upper:.6g} (certified relative gap {self.relative_gap:.3g})")
        if self.separable is False:
            return (f"soft margin (nu = {nu:.4g}) zero: 0 lies in the reduced convex hull of the rows, proved "
                    f"exactly on {int(np.count_nonzero(self.p))} rows; raise nu")
        return (f"undecided (nu = {nu:.4g}): {max(self.lower, 0.0):.6g} <= gamma_nu* <= {self.upper:.6g} "
                f"(best normalised CVaR found {self.lower:.6g})")


def _decided(lower: float, upper: float, proved_infeasible: bool, certified_positive: bool):
    """(upper, separable) of a final certificate: a verdict only with its proof; upper >= lower."""
    upper = max(upper, lower)  # both ends are exact values up to rounding: keep lower <= upper
    if proved_infeasible:
        return upper, False
    return upper, (True if certified_positive else None)


class _TrackerState:
    """The public state API of the certificate trackers: what a checkpoint saves and a resumed run restores."""

    margin_from_sums: bool  # set by each tracker's __init__

    _STATE_FIELDS = ("t", "_dual_sum", "_weight_total", "upper", "upper_round", "_witness", "separable_exact")

    def state(self) -> dict:
        """Every number the tracker carries into the next round (the runner's sums it reads are not in it)."""
        return {field.lstrip("_"): getattr(self, field) for field in self._STATE_FIELDS}

    def restore(self, state: dict, *, margins=None, output_sum=None) -> None:
        """Take back a :meth:`state` (a checkpoint's), and the runner's sums the tracker reads as after its
        last ``observe``: ``margins`` (the p-player's loss sum, A times the output sum) and ``output_sum``."""
        for field in self._STATE_FIELDS:
            setattr(self, field, state[field.lstrip("_")])
        self._margins = margins if self.margin_from_sums else None
        self._output_sum = output_sum


class CertificateTracker(_TrackerState):
    """The running bracket of a bilinear game; :func:`gamedyn.play` feeds it every round.

    Per round (:meth:`observe`): O(n + d) work and no product with ``A``; it accumulates
    ``sum_t alpha_t p_t`` (the w-player's weights) and keeps the running minimum of
    ``U_t = ||A^T p_bar_t||_{q*}`` read off the w-player's loss sum, with its witness.
    ``margin_from_sums`` says whether the p-player's loss sum is ``A`` times the output sum (p-player
    weights = output weights); otherwise :attr:`lower` costs one product.

    Parameters
    ----------
    A : array, sparse matrix or operator, shape (n, d)
        The rows (a numpy array, a scipy.sparse matrix, or an operator with ``largest_row_norm()``;
        lists are converted). Its entries are read once, at :meth:`certificate` and in the checks.
    q : float, default 2
        The norm of w, in (1, 2].
    margin_from_sums : bool, default True
    cap : float, optional
        The soft-margin game's cap c (the p-player on :class:`gamedyn.CappedSimplex`): ``lower`` is
        then the normalised CVaR of the output's margins (:func:`gamedyn.core.capped_simplex.cvar`,
        O(n)), ``upper`` the same ``||A^T p_bar||`` (``p_bar`` in Delta_c). None: the hard margin.

    Raises
    ------
    TypeError, ValueError
        If ``A`` is not 2-D with at least one row and column, ``q`` is not in (1, 2], or ``cap`` not in [1/n, 1].
    """

    def __init__(self, A, q: float = 2.0, *, margin_from_sums: bool = True, row_norm_bound: float | None = None,
                 cap: float | None = None):
        if isinstance(A, (list, tuple)):
            A = _check_rows(A)
        shape = getattr(A, "shape", None)
        if shape is None or len(shape) != 2 or shape[0] == 0 or shape[1] == 0:
            raise ValueError(f"A must be a 2-D matrix with at least one row and one column, got shape {shape}; "
                             "pass the rows a_i = y_i x_i as an (n, d) array.")
        self.A = A
        self.q = check_q(q)
        self.dual_exponent = dual_norm(self.q)
        self.margin_from_sums = margin_from_sums
        n = A.shape[0]
        self.cap = _check_tracker_cap(cap, n)
        self.t = 0
        self._dual_sum = np.zeros(n)
        self._weight_total = 0.0
        self.upper = math.inf
        self.upper_round = 0
        self._witness: np.ndarray | None = np.full(n, 1.0 / n)  # None: the running average
        self._margins: np.ndarray | None = None  # A @ output sum, when free
        self._output_sum = None
        self._shares_dual_sum = False  # True: _dual_sum is the runner's p play sum (share_dual_sum)
        self._row_norm_max: float | None = None  # max_i ||a_i||_{q*}, computed once when first needed
        self.row_norm_bound = row_norm_bound  # a stated bound on max_i ||a_i||_2 (matrix-free A)
        self.separable_exact: bool | None = None  # False once Gordan's theorem is proved (gordan_proof)

    @property
    def knows_row_norms(self) -> bool:
        """Whether :attr:`row_norm_max` can be had: A's entries, ``A.largest_row_norm()`` or a stated bound."""
        A = self.A
        return (self.row_norm_bound is not None or isinstance(A, np.ndarray) or sp.issparse(A)
                or hasattr(A, "largest_row_norm") or getattr(A, "batch_size", None) is not None)

    @property
    def row_norm_max(self) -> float:
        """max_i ||a_i||_{q*}, computed once (one pass over A) when first read; for a matrix-free A,
        ``A.largest_row_norm()`` or the stated ``row_norm_bound`` (an l2 bound, which bounds the
        q*-norm for q* >= 2 and, times d^(1/q* - 1/2), for q* < 2)."""
        if self._row_norm_max is None:
            if not self.knows_row_norms:
                raise ValueError(
                    f"the largest row norm of this matrix-free A ({type(self.A).__name__}) is unknown: it has no "
                    f"largest_row_norm() and no bound was stated. Pass one: Bilinear(A, row_norm_bound=b) with "
                    f"b >= max_i ||a_i||_2 (e.g. 1.0 for rows normalised to unit length).")
            if self.row_norm_bound is not None:
                d = self.A.shape[1]
                factor = 1.0 if self.dual_exponent >= 2.0 else d ** (1.0 / self.dual_exponent - 0.5)
                self._row_norm_max = float(self.row_norm_bound) * factor * (1.0 + 4 * UNIT64)
                return self._row_norm_max
            value = largest_row_norm(self.A, self.dual_exponent)
            if not math.isfinite(value):
                raise ValueError("A contains NaN or infinite entries (its largest row norm is not finite); "
                                 "remove or impute them first.")
            self._row_norm_max = value
        return self._row_norm_max

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
            norm = math.sqrt(square) if 1e-280 < square < 1e280 else safe_norm(w_loss_linear_sum)
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
            if is_numpy(p) and p.shape == self._dual_sum.shape and p.ndim == 1:
                axpy(p, self._dual_sum, w_weight)  # our own float64 buffer, in place
            else:
                self._dual_sum = add_scaled(self._dual_sum, w_weight, p)
        self._weight_total += w_weight
        self._margins = p_loss_linear_sum if self.margin_from_sums else None
        self._output_sum = w_output_sum

    # -- reading -----------------------------------------------------------------------------
    @property
    def lower(self) -> float:
        """The current output's normalised margin (free when the sums align, else one product)."""
        if self._output_sum is None:
            return -math.inf
        norm = safe_norm(self._output_sum, self.q)
        if norm == 0.0:
            return 0.0
        margins = self._margins if self._margins is not None else matvec(self.A, self._output_sum)
        if self.cap is not None:
            return capped_simplex.cvar(margins, self.cap) / norm
        return float(np.min(margins)) / norm

    @property
    def witness(self) -> np.ndarray:
        """The distribution whose dual bound is ``upper``."""
        if self._witness is None:
            return self._dual_sum / self._weight_total
        return self._witness

    def relative_gap(self) -> float:
        """(U_t - L_t)/U_t, the certified relative gap (inf while L_t <= 0)."""
        lower = self.lower
        return (self.upper - lower) / self.upper if lower > 0 else math.inf

    def sharpen(self, rows: int | None = None) -> float:
        """A sharper dual bound: the min-norm point of the convex hull of the ``rows`` rows that carry
        the most weight in the witness (default 2(d + 1)), by NNLS; any distribution on them is a valid
        witness, so the bound stays certified. Costs O(rows^2 d); returns the (possibly) new upper."""
        import scipy.optimize  # here, not at import: a first import loads no optimiser
        if self.q != 2.0 or self.cap is not None:
            return self.upper  # the min-norm point is an l2 construction on the plain simplex
        n, d = self.A.shape
        k = min(n, rows if rows is not None else 2 * (d + 1))
        chosen = np.argsort(-self.witness)[:k]
        A_S = dense_rows(self.A, chosen)
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
        upper = safe_norm(matvec(self.A.T, candidate), self.dual_exponent)
        if upper < self.upper:
            self.upper, self.upper_round, self._witness = upper, self.t, candidate
        return self.upper

    def confirm_infeasible(self) -> bool:
        """Gordan's theorem, proved: look for a distribution ``lam`` with ``A^T lam = 0`` on the heaviest
        rows of the witness (d + 1 rows first, doubling up to all n): a vertex of the feasibility LP
        (HiGHS dual simplex), whose support :func:`gordan_proof` checks exactly. On success the
        witness becomes the proved ``lam`` (as float64), ``upper`` becomes ``||A^T lam||`` and the data
        are certified not separable. Returns whether it succeeded (False: no proof, no verdict)."""
        if self.separable_exact is False:
            return True
        if self.cap is not None:  # 0 in the reduced hull A^T Delta_c: an exact proof on small problems
            from gamedyn.certify.soft_margin import reduced_hull_proof

            witness = reduced_hull_proof(self.A, self.cap)
        else:
            from gamedyn.certify.gordan import find_witness

            witness = find_witness(self.A, np.argsort(-self.witness, kind="stable"))
        if witness is None:
            return False
        self.separable_exact = False
        self._witness = witness
        self.upper, self.upper_round = safe_norm(matvec(self.A.T, witness), self.dual_exponent), self.t
        return True

    def certificate(self) -> Certificate:
        """The bracket now: exact ends (one product each) at the output sum and the witness.

        ``separable`` is True only when the output's margins are proved positive
        (:func:`margin_is_certified`, one pass for the largest row norm), False only after
        :meth:`confirm_infeasible` proved Gordan's alternative; otherwise None.
        """
        lower = -math.inf
        if self._output_sum is not None:
            norm = safe_norm(self._output_sum, self.q)
            if norm == 0.0:
                lower = 0.0
            elif self.cap is not None:
                lower = capped_simplex.cvar(np.asarray(matvec(self.A, self._output_sum), dtype=np.float64), self.cap) / norm
            else:
                lower = float(np.min(matvec(self.A, self._output_sum))) / norm
        witness = self.witness
        upper = safe_norm(matvec(self.A.T, witness), self.dual_exponent)
        if math.isnan(lower) or math.isnan(upper):
            raise ValueError("the certificate is NaN: A (or the run's iterates) holds NaN or infinite entries; "
                             "remove or impute them, and check the rows have norm <= 1.")
        positive = (lower > 0 and self.knows_row_norms  # without the norm no verdict: undecided, never wrong
                    and margin_is_certified(lower, self.row_norm_max, self.A.shape[1], unit=unit_of(self.A)))
        upper, separable = _decided(lower, upper, self.separable_exact is False, positive)
        return Certificate(lower=lower, upper=upper, separable=separable, p=np.array(witness, dtype=np.float64),
                           q=self.q, rounds=self.t, cap=self.cap)


def certify_not_separable(A, certificate: Certificate | None = None) -> Certificate:
    """Gordan's theorem on demand, proved: :meth:`CertificateTracker.confirm_infeasible` started from
    ``certificate.p`` (uniform without one).

    Parameters
    ----------
    A : array_like, sparse matrix or operator, shape (n, d)
        The rows a_i = y_i x_i (lists are converted).
    certificate : Certificate, optional
        A run's certificate of these rows; its witness orders the rows the LP tries first.

    Returns
    -------
    Certificate
        With ``separable=False`` and the proved witness when 0 lies in the convex hull of the rows;
        otherwise the certificate unchanged (without one: ``lower = 0``, attained by w = 0, the
        uniform witness and ``separable=None``). Separable data are never called not separable.

    Raises
    ------
    TypeError, ValueError
        If ``A`` is not a finite non-empty 2-D array, or ``certificate`` is not a Certificate of ``A``.

    Examples
    --------
    >>> import numpy as np
    >>> certify_not_separable(np.array([[0.6, 0.3], [-0.6, -0.3]])).separable
    False
    >>> from gamedyn.io.datasets import signed_rows, symmetric_pair
    >>> print(certify_not_separable(signed_rows(*symmetric_pair(1e-9))).separable)  # margin 1e-9
    None
    """
    A = _check_rows(A)
    if certificate is not None and not isinstance(certificate, Certificate):
        raise TypeError(f"certificate must be a gamedyn.certify.certificates.Certificate (e.g. result.certificate), "
                        f"got {describe(certificate)}.")
    q = 2.0 if certificate is None else certificate.q
    if certificate is not None and certificate.cap is not None and not certificate.separable:
        # A soft-margin certificate: 0 in the convex hull says nothing of the reduced hull A^T Delta_c; its
        # proof is a point of Delta_c with A^T p = 0, exactly (small problems; else unchanged, undecided).
        from gamedyn.certify.soft_margin import reduced_hull_proof

        if is_operator(A):
            return certificate
        proof = reduced_hull_proof(dense_rows(A, np.arange(A.shape[0])), certificate.cap)
        return certificate if proof is None else attrs.evolve(certificate, separable=False, p=proof)
    tracker = CertificateTracker(A, q)
    if certificate is not None:
        p = np.asarray(certificate.p, dtype=np.float64)
        if p.shape != (A.shape[0],):
            raise ValueError(f"certificate.p has shape {p.shape}, but A has {A.shape[0]} rows; pass the "
                             "certificate of these rows.")
        tracker._witness, tracker.t = p, certificate.rounds
    else:
        certificate = tracker.certificate()
        certificate = attrs.evolve(certificate, lower=0.0)
    if certificate.separable or not tracker.confirm_infeasible():
        return certificate
    return attrs.evolve(certificate, upper=tracker.upper, separable=False, p=tracker.witness.copy())


def certificate_of(A, w, p, q: float = 2.0, *, cap: float | None = None) -> Certificate:
    """The certificate of a given direction ``w`` and distribution ``p`` (two products).

    Parameters
    ----------
    A : array_like, sparse matrix or operator, shape (n, d)
    w : array_like, shape (d,)
        Any direction; ``lower`` is its normalised margin.
    p : array_like, shape (n,)
        A distribution on the rows; ``upper`` is ``||A^T p||_{q*}``.
    q : float, default 2
        The norm of w, in (1, 2].
    cap : float, optional
        The soft margin's cap c (``p`` must then lie in Delta_c): ``lower`` is the normalised CVaR.

    Returns
    -------
    Certificate
        ``separable`` is True when w's margins (their CVaR, with ``cap``) are proved positive, else
        None (no Gordan check).

    Raises
    ------
    TypeError, ValueError
        For a bad ``A``, ``w`` of another length or not finite, ``p`` not a distribution, ``q`` not in (1, 2].

    Examples
    --------
    >>> import numpy as np
    >>> c = certificate_of(np.array([[0.6, 0.0], [0.0, 0.8]]), np.array([1.0, 1.0]), np.array([0.64, 0.36]))
    >>> round(c.lower, 12), round(c.upper, 12)
    (0.424264068712, 0.48)
    """
    A = _check_rows(A)
    tracker = CertificateTracker(A, q, cap=cap)
    tracker._witness = check_distribution(p, A.shape[0], cap=tracker.cap)
    tracker._output_sum = check_vector(w, "w", size=A.shape[1])
    return tracker.certificate()


def on_float64_rows(certificate: Certificate, w, rows) -> Certificate:
    r"""``certificate``'s bracket and verdict recomputed in float64 on ``rows``, the rows the user gave.

    A computation often plays on rows other than the user's: ``Z = A / r`` rounded to float32 (a
    ``normalize=True`` recipe, ``MarginClassifier``, on float32 data) is ``2^-24`` relative from the
    user's ``A / r`` in every entry, and a certificate of ``Z`` was false for the user's rows by up to
    9e-8 relative (issue 30). Here the output ``w`` and the witness ``certificate.p`` are evaluated on
    ``rows`` (a :class:`gamedyn.certify.dual.GameRows` of one game, e.g. ``SignedRows(A, signs, b, r)``:
    float32 entries are read exactly, in float64, a row block at a time, never copied whole): ``lower``
    is w's normalised margin (its normalised CVaR with ``certificate.cap``), ``upper`` is
    ``||rows^T p||_{q*}``; ``separable=True`` when that margin is proved positive beyond the float64
    products' rounding (:func:`margin_is_certified`), ``False`` when the certificate's exact proof (a
    Gordan / reduced-hull witness) holds on the rows' exact entries, checked in rationals, or a new one
    is found there; ``None`` otherwise.

    Parameters
    ----------
    certificate : Certificate
        A certificate of the rows the computation saw (same number of rows).
    w : array_like, shape (d',)
        The output whose normalised margin ``certificate.lower`` is.
    rows : GameRows
        The user's rows (one game).

    Returns
    -------
    Certificate

    Examples
    --------
    >>> import numpy as np
    >>> from gamedyn.certify.dual import SignedRows
    >>> A = np.array([[0.6, 0.2], [0.3, -0.5]], dtype=np.float32)
    >>> c = Certificate(lower=0.2, upper=0.3, separable=True, p=np.array([0.5, 0.5]))
    >>> again = on_float64_rows(c, np.array([1.0, 0.0]), SignedRows(A, np.ones((2, 1)), None, 0.7))
    >>> round(again.lower, 7), again.separable
    (0.4285714, True)
    """
    from gamedyn.certify.dual import row_norm_bound

    w = np.asarray(w, dtype=np.float64).reshape(-1)
    p = np.asarray(certificate.p, dtype=np.float64)
    q, cap = certificate.q, certificate.cap
    dual = dual_norm(q)
    margins = rows.times(w[:, None])[:, 0]
    norm = vector_norm(w, q)
    if norm > 0:
        lower = (capped_simplex.cvar(margins, cap) if cap is not None else float(np.min(margins))) / norm
    else:
        lower = 0.0  # w = 0 attains margin 0 <= gamma*
    upper = vector_norm(rows.transpose_times(p[:, None])[:, 0], dual)
    d = rows.shape[1]
    row_norm = row_norm_bound(rows)  # (an l2 bound, so one of every ||.||_{q*}, q* >= 2)
    separable: bool | None = None
    if norm > 0 and margin_is_certified(lower, row_norm, d):
        separable = True
    elif certificate.separable is False:
        exact = rows.exact_rows(0) if callable(getattr(rows, "exact_rows", None)) else None
        if exact is not None:
            if _proves_zero(exact, p, cap):
                separable = False
            elif cap is None:
                proved = certify_not_separable(exact, attrs.evolve(certificate, separable=None, q=2.0))
                separable, p = (False, proved.p) if proved.separable is False else (None, p)
            else:
                from gamedyn.certify.soft_margin import reduced_hull_proof

                proof = reduced_hull_proof(exact, cap)
                separable, p = (False, proof) if proof is not None else (None, p)
    return attrs.evolve(certificate, lower=lower, upper=max(upper, lower), separable=separable, p=p)


def _proves_zero(A, p, cap) -> bool:
    """Whether ``p`` is exactly a point of the simplex (of ``Delta_cap``) with ``A^T p = 0``, in rationals on its support."""
    from fractions import Fraction

    support = np.flatnonzero(p)
    weights = [Fraction(float(v)) for v in p[support]]
    if any(w < 0 for w in weights) or sum(weights) != 1 or (cap is not None and any(w > Fraction(cap) for w in weights)):
        return False
    rows = dense_rows(A, support)
    return all(sum((w * Fraction(float(v)) for w, v in zip(weights, rows[:, j])), Fraction(0)) == 0
               for j in range(rows.shape[1]))


def check_distribution(p, n: int, cap: float | None = None) -> np.ndarray:
    """``p`` as a distribution on n rows (non-negative, sums to 1 up to rounding, then renormalised);
    with ``cap``, also ``p_i <= cap`` up to rounding (a point of the capped simplex)."""
    p = np.asarray(p, dtype=np.float64)
    if p.shape != (n,) or not np.all(np.isfinite(p)) or np.any(p < 0) or not abs(np.sum(p) - 1.0) <= 1e-9:
        raise ValueError(f"p must be a distribution on the {n} rows (non-negative, summing to 1), got shape {p.shape}.")
    if cap is not None and np.any(p > cap * (1 + 1e-9)):
        raise ValueError(f"p must lie in the capped simplex (every p_i <= cap = {cap!r}), got max p_i = {float(p.max())!r}; "
                         "project it with CappedSimplex(cap).project(p).")
    return p / np.sum(p)


def _column_norms(Z, order: float) -> np.ndarray:
    """``||Z[:, k]||_order`` for every column: one pass for order 2 in range, else column by column
    through :func:`safe_norm` (no overflow or underflow)."""
    if order == 2.0:
        squares = np.einsum("ij,ij->j", Z, Z)
        if np.all((squares > 1e-280) & (squares < 1e280)):
            return np.sqrt(squares)
    return np.array([safe_norm(Z[:, k], order) for k in range(Z.shape[1])])


class BatchedCertificateTracker(_TrackerState):
    r"""The running bracket of each of K batched bilinear games (:mod:`gamedyn.arrays.batched`), side by side.

    Game k has rows :math:`A_k = \operatorname{diag}(y_k)X` (or ``X``), and its own bracket
    :math:`L_t^{(k)}\le\gamma^*_k\le U_t^{(k)}` exactly as :class:`CertificateTracker` keeps it for one
    game: :meth:`observe` receives the same arrays as for one game with a trailing batch axis K
    (p: (n, K), loss sums: (d, K) and (n, K)) and costs O((n + d) K), no product. The weights are
    shared by the K games. Arrays with one entry per game: ``upper``, ``upper_round``,
    ``separable_exact`` (-1 undecided, 0 where Gordan's alternative was proved), ``lower`` (a
    property); :meth:`certificate` returns the list of the K :class:`Certificate`\ s, each for its
    own ``A_k``. :meth:`game` gives game k's own :class:`CertificateTracker` (which copies ``A_k``),
    used by :meth:`sharpen` and :meth:`confirm_infeasible`. ``row_norm_max`` is shared: the rows of
    every game have the norms of X's rows.
    """

    def __init__(self, batch, q: float = 2.0, *, margin_from_sums: bool = True, cap: float | None = None):
        self.A = batch
        self.q = check_q(q)
        self.dual_exponent = dual_norm(self.q)
        self.margin_from_sums = margin_from_sums
        n, K = batch.shape[0], batch.batch_size
        self.cap = _check_tracker_cap(cap, n)
        self.t = 0
        self._dual_sum = np.zeros((n, K))
        self._weight_total = 0.0
        self.upper = np.full(K, math.inf)
        self.upper_round = np.zeros(K, dtype=np.int64)
        self._witness = np.full((n, K), 1.0 / n)
        self._margins = None
        self._output_sum = None
        self._row_norm_max: float | None = None
        self.separable_exact = np.full(K, -1, dtype=np.int8)

    @property
    def batch_size(self) -> int:
        """K, the number of games in the batch."""
        return self.A.batch_size

    @property
    def row_norm_max(self) -> float:
        """max_i ||x_i||_{q*} (every game's largest row norm), computed once when first read."""
        if self._row_norm_max is None:
            value = largest_row_norm(self.A, self.dual_exponent)
            if not math.isfinite(value):
                raise ValueError("X contains NaN or infinite entries (its largest row norm is not finite); "
                                 "remove or impute them first.")
            self._row_norm_max = value
        return self._row_norm_max

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
        lowest = self._lowest(margins)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(norms > 0, lowest / np.where(norms > 0, norms, 1.0), 0.0)

    def _lowest(self, margins) -> np.ndarray:
        """Each column's smallest margin, or its CVaR_c on the capped simplex."""
        margins = np.asarray(margins, dtype=np.float64)
        if self.cap is None:
            return np.min(margins, axis=0)
        return np.array([capped_simplex.cvar(margins[:, k], self.cap) for k in range(margins.shape[1])])

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
        tracker = CertificateTracker(self.rows(k), self.q, margin_from_sums=False, cap=self.cap)
        tracker.t, tracker.upper, tracker.upper_round = self.t, float(self.upper[k]), int(self.upper_round[k])
        tracker._witness = self._witness[:, k].copy()
        tracker._output_sum = None if self._output_sum is None else self._output_sum[:, k]
        tracker._row_norm_max = self._row_norm_max
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
        """:meth:`CertificateTracker.confirm_infeasible` (Gordan, proved) for the given games (default
        all) not yet confirmed; returns the boolean array of games proved not separable."""
        for k in range(self.batch_size) if games is None else games:
            if self.separable_exact[k] != 0:
                tracker = self.game(int(k))
                if tracker.confirm_infeasible():
                    self._take(int(k), tracker)
        return self.separable_exact == 0

    def certificate(self) -> list:
        """Each game's :class:`Certificate` (exact ends: one batched product each), game k on A_k;
        ``separable`` as in :meth:`CertificateTracker.certificate`."""
        K = self.batch_size
        lower = np.full(K, -math.inf)
        if self._output_sum is not None:
            norms = _column_norms(self._output_sum, self.q)
            lowest = self._lowest(self.A @ self._output_sum)
            lower = np.array([0.0 if norms[k] == 0.0 else lowest[k] / norms[k] for k in range(K)])
        upper = _column_norms(np.asarray(self.A.T @ self._witness, dtype=np.float64), self.dual_exponent)
        if np.any(np.isnan(lower)) or np.any(np.isnan(upper)):
            raise ValueError("the certificate is NaN: X (or the run's iterates) holds NaN or infinite entries; "
                             "remove or impute them, and check the rows have norm <= 1.")
        certificates = []
        d, unit = self.A.shape[1], unit_of(self.A)
        for k in range(K):
            positive = lower[k] > 0 and margin_is_certified(float(lower[k]), self.row_norm_max, d, unit=unit)
            upper_k, separable = _decided(float(lower[k]), float(upper[k]), self.separable_exact[k] == 0, positive)
            certificates.append(Certificate(lower=float(lower[k]), upper=upper_k, separable=separable,
                                            p=self._witness[:, k].copy(), q=self.q, rounds=self.t, cap=self.cap))
        return certificates


class DeviceCertificateTracker:
    r""":class:`CertificateTracker` for a torch, JAX, CuPy or array-API A: the rounds stay on A's device.

    :meth:`observe` keeps :math:`U_t=\|A^\top\bar p_t\|_{q^*}`'s running minimum, its round and its witness
    :math:`\bar p_t` as arrays on the device (``xp.where``: O(n + d) a round, no host synchronisation). Every
    reading (``upper``, ``lower``, ``certificate()``, ``sharpen()``, ``confirm_infeasible()``, ``state()``)
    is a verdict: it copies the sums and, once, A to the host (:func:`gamedyn.core.kernels.to_numpy`) and asks
    a numpy :class:`CertificateTracker` built from them, so the exact oracles (NNLS, the Gordan LP) and the
    rounding-safe verdicts are those of numpy. Its results are host numbers and numpy witnesses.
    """

    _HOST_BACK = ("upper", "upper_round", "_witness", "separable_exact")

    def __init__(self, A, q: float = 2.0, *, margin_from_sums: bool = True, row_norm_bound: float | None = None):
        self.A = A
        self.backend = backend_of(A)
        self.q = check_q(q)
        self.dual_exponent = dual_norm(self.q)
        self.margin_from_sums = margin_from_sums
        self.row_norm_bound = row_norm_bound
        backend = self.backend
        n = A.shape[0]
        self.t = 0
        self._dual_sum = backend.zeros((n,))
        self._weight_total = 0.0
        self._best = backend.asarray(math.inf)
        self._best_round = backend.asarray(0.0)
        self._best_witness = backend.asarray(np.full(n, 1.0 / n))
        self._margins = self._output_sum = None
        self._shares_dual_sum = False
        self._host_A = None
        self._host_tracker: CertificateTracker | None = None  # the numpy tracker of the last reading, kept while nothing was observed since
        self.separable_exact = None
        self._overrides: dict = {}  # what a host reading changed (sharpen, confirm_infeasible), until the next round

    # No sharing of the runner's p play sum: an immutable namespace (JAX) makes a new sum array each round, so a
    # shared reference would go stale; the tracker keeps its own sum (one O(n) update a round, on the device).
    share_dual_sum = None

    def observe(self, t: int, p, w_weight, w_loss_linear_sum, w_weight_total, p_loss_linear_sum, w_output_sum) -> None:
        """Round t on the device (see :meth:`CertificateTracker.observe`): no host synchronisation."""
        xp = self.backend.xp
        self.t = t
        z = w_loss_linear_sum
        if self.dual_exponent == 2.0:
            norm = xp.sqrt(xp.sum(z * z))
        else:
            top = xp.max(xp.abs(z))
            safe = xp.where(top > 0, top, xp.ones_like(top))
            norm = top * xp.sum(xp.abs(z / safe) ** self.dual_exponent) ** (1.0 / self.dual_exponent)
        upper = norm / w_weight_total
        if not self._shares_dual_sum:
            self._dual_sum = add_scaled(self._dual_sum, w_weight, p)
        self._weight_total += w_weight
        improved = upper < self._best
        self._best = xp.where(improved, upper, self._best)
        self._best_round = xp.where(improved, xp.asarray(float(t), dtype=self._best_round.dtype,
                                                         device=self.backend.device), self._best_round)
        self._best_witness = xp.where(improved, self._dual_sum / self._weight_total, self._best_witness)
        self._margins = p_loss_linear_sum if self.margin_from_sums else None
        self._output_sum = w_output_sum
        self._host_tracker, self._overrides = None, {}

    def _host(self) -> CertificateTracker:
        """The numpy tracker of the state now (the host copies of a verdict)."""
        if self._host_tracker is not None:
            return self._host_tracker
        if self._host_A is None:
            self._host_A = to_numpy(self.A)
        tracker = CertificateTracker(self._host_A, self.q, margin_from_sums=self.margin_from_sums,
                                     row_norm_bound=self.row_norm_bound)
        tracker.t = self.t
        tracker._dual_sum = np.array(to_numpy(self._dual_sum), dtype=np.float64)
        tracker._weight_total = float(self._weight_total)
        tracker.upper = to_host_scalar(self._best)
        tracker.upper_round = int(to_host_scalar(self._best_round))
        tracker._witness = np.array(to_numpy(self._best_witness), dtype=np.float64)
        tracker._margins = None if self._margins is None else np.array(to_numpy(self._margins), dtype=np.float64)
        tracker._output_sum = None if self._output_sum is None else np.array(to_numpy(self._output_sum), dtype=np.float64)
        tracker.separable_exact = self.separable_exact
        for name, value in self._overrides.items():
            setattr(tracker, name, value)
        self._host_tracker = tracker
        return tracker

    def _keep(self, tracker) -> None:
        self._overrides = {name: getattr(tracker, name) for name in self._HOST_BACK}
        self.separable_exact = tracker.separable_exact

    @property
    def upper(self) -> float:
        return self._host().upper

    @property
    def upper_round(self) -> int:
        return self._host().upper_round

    @property
    def lower(self) -> float:
        return self._host().lower

    @property
    def witness(self):
        return self._host().witness

    @property
    def knows_row_norms(self) -> bool:
        return True

    @property
    def row_norm_max(self) -> float:
        return self._host().row_norm_max

    def relative_gap(self) -> float:
        return self._host().relative_gap()

    def sharpen(self, rows: int | None = None) -> float:
        tracker = self._host()
        value = tracker.sharpen(rows)
        self._keep(tracker)
        return value

    def confirm_infeasible(self) -> bool:
        tracker = self._host()
        value = tracker.confirm_infeasible()
        self._keep(tracker)
        return value

    def certificate(self) -> Certificate:
        return self._host().certificate()

    def state(self) -> dict:
        """A checkpoint's state, as numpy (see :meth:`CertificateTracker.state`)."""
        return self._host().state()

    def restore(self, state: dict, *, margins=None, output_sum=None) -> None:
        """A checkpoint's (numpy) state back onto the device."""
        backend = self.backend
        self.t = state["t"]
        self._dual_sum = backend.asarray(state["dual_sum"])
        self._weight_total = float(state["weight_total"])
        self._best = backend.asarray(float(state["upper"]))
        self._best_round = backend.asarray(float(state["upper_round"]))
        n = self.A.shape[0]
        witness = state["witness"]
        self._best_witness = backend.asarray(state["dual_sum"] / self._weight_total if witness is None else witness) \
            if self._weight_total else backend.asarray(np.full(n, 1.0 / n))
        self.separable_exact = state["separable_exact"]
        self._margins = margins if self.margin_from_sums else None
        self._output_sum = output_sum
        self._host_tracker, self._overrides = None, {}
