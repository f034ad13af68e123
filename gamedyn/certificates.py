"""Deprecated: ``gamedyn.certificates`` moved to :mod:`gamedyn.certify.certificates`,
:mod:`gamedyn.certify.gordan` (issue 17).

Importing ``gamedyn.certificates`` still works for one release: it warns once (a ``DeprecationWarning``
naming the new path) and gives the same objects as the new modules.
"""

from gamedyn.core.deprecation import moved

moved(__name__, "gamedyn.certificates", {
    "BatchedCertificateTracker": "gamedyn.certify.certificates",
    "Certificate": "gamedyn.certify.certificates",
    "CertificateTracker": "gamedyn.certify.certificates",
    "EXACT_LP_SIZE_CAP": "gamedyn.certify.gordan",
    "EXACT_LP_WORK_CAP": "gamedyn.certify.gordan",
    "EXACT_WORK_CAP": "gamedyn.certify.gordan",
    "VERIFIED_ROWS_CAP": "gamedyn.certify.gordan",
    "certificate_of": "gamedyn.certify.certificates",
    "certify_not_separable": "gamedyn.certify.certificates",
    "check_distribution": "gamedyn.certify.certificates",
    "dual_norm": "gamedyn.certify.certificates",
    "gordan_proof": "gamedyn.certify.certificates",
    "margin_is_certified": "gamedyn.certify.certificates",
    "vector_norm": "gamedyn.certify.certificates",
}, also={
    "add_scaled": "gamedyn.core.kernels",
    "axpy": "gamedyn.core.kernels",
    "check_matrix": "gamedyn.core.validation",
    "check_q": "gamedyn.core.validation",
    "check_vector": "gamedyn.core.validation",
    "dot": "gamedyn.core.kernels",
})
