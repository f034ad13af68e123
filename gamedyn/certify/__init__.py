"""Layer 3, certify: margins, certified brackets on the max margin, and the stop rules that read them.

:mod:`~gamedyn.certify.margins` (the exact max-margin oracles), :mod:`~gamedyn.certify.certificates`
(the running bracket L_t <= gamma* <= U_t and its certificate), :mod:`~gamedyn.certify.gordan`
(exact proofs that 0 lies in the convex hull of the rows), :mod:`~gamedyn.certify.stops` and
:mod:`~gamedyn.certify.sequence_form` (the value bracket, Nash gap and exploitability of extensive-form games).
"""

from gamedyn.certify.certificates import (
    BatchedCertificateTracker,
    Certificate,
    CertificateTracker,
    certificate_of,
    certify_not_separable,
    dual_norm,
    gordan_proof,
    margin_is_certified,
    vector_norm,
)
from gamedyn.certify.margins import (
    MarginUndecidedError,
    MaxMargin,
    NotSeparableError,
    QNormMargin,
    margin,
    max_margin,
    max_margin_q,
    normalized_margin,
)
from gamedyn.certify.sequence_form import ExploitabilityStop, SequenceFormBracket, sequence_form_bracket
from gamedyn.certify.stops import any_of, infeasible, margin_within, positive_margin, separated

__all__ = [
    "BatchedCertificateTracker", "Certificate", "CertificateTracker", "ExploitabilityStop", "MarginUndecidedError",
    "MaxMargin", "SequenceFormBracket", "sequence_form_bracket",
    "NotSeparableError", "QNormMargin", "any_of", "certificate_of", "certify_not_separable", "dual_norm",
    "gordan_proof", "infeasible", "margin", "margin_is_certified", "margin_within", "max_margin", "max_margin_q",
    "normalized_margin", "positive_margin", "separated", "vector_norm",
]
