"""Deprecated: ``gamedyn.learners`` moved to :mod:`gamedyn.core.learners`, :mod:`gamedyn.core.weights` (issue
17).

Importing ``gamedyn.learners`` still works for one release: it warns once (a ``DeprecationWarning`` naming
the new path) and gives the same objects as the new modules.
"""

from gamedyn.core.deprecation import moved

moved(__name__, "gamedyn.learners", {
    "BestResponse": "gamedyn.core.learners",
    "FTL": "gamedyn.core.learners",
    "FTRL": "gamedyn.core.learners",
    "FTRLPlayer": "gamedyn.core.learners",
    "FTRLPlus": "gamedyn.core.learners",
    "FTRLState": "gamedyn.core.learners",
    "FollowTheRegularizedLeader": "gamedyn.core.learners",
    "MirrorDescent": "gamedyn.core.learners",
    "OFTL": "gamedyn.core.learners",
    "OFTRL": "gamedyn.core.learners",
    "OMD": "gamedyn.core.learners",
    "OMDPlayer": "gamedyn.core.learners",
    "OMDState": "gamedyn.core.learners",
    "StepSchedule": "gamedyn.core.weights",
}, also={
    "Ball": "gamedyn.core.domains",
    "Box": "gamedyn.core.domains",
    "CurrentLoss": "gamedyn.core.hints",
    "Entropy": "gamedyn.core.regularizers",
    "L1Ball": "gamedyn.core.domains",
    "LastLoss": "gamedyn.core.hints",
    "Loss": "gamedyn.core.loss",
    "NoHint": "gamedyn.core.hints",
    "QNorm": "gamedyn.core.regularizers",
    "Reals": "gamedyn.core.domains",
    "Regularizer": "gamedyn.core.regularizers",
    "Simplex": "gamedyn.core.domains",
    "SquaredEuclidean": "gamedyn.core.regularizers",
    "Zero": "gamedyn.core.regularizers",
    "add_scaled": "gamedyn.core.kernels",
    "axpy": "gamedyn.core.kernels",
    "check_positive": "gamedyn.core.validation",
    "check_vector": "gamedyn.core.validation",
    "plus_scaled": "gamedyn.core.kernels",
})
