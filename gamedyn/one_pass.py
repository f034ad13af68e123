"""Deprecated: ``gamedyn.one_pass`` moved to :mod:`gamedyn.arrays.one_pass`, :mod:`gamedyn.engine.rounds`
(issue 17).

Importing ``gamedyn.one_pass`` still works for one release: it warns once (a ``DeprecationWarning`` naming
the new path) and gives the same objects as the new modules.
"""

from gamedyn.core.deprecation import moved

moved(__name__, "gamedyn.one_pass", {
    "EntropyLeaderRound": "gamedyn.engine.rounds",
    "GROUP_BYTES": "gamedyn.arrays.one_pass",
    "InMemoryRows": "gamedyn.arrays.one_pass",
    "ONE_PASS_MIN_BYTES": "gamedyn.arrays.one_pass",
    "Round": "gamedyn.engine.rounds",
    "one_pass_round": "gamedyn.engine.rounds",
}, also={
    "Bilinear": "gamedyn.engine.payoffs",
    "CurrentLoss": "gamedyn.core.hints",
    "Entropy": "gamedyn.core.regularizers",
    "FollowTheRegularizedLeader": "gamedyn.core.learners",
    "LastLoss": "gamedyn.core.hints",
    "Loss": "gamedyn.core.loss",
    "RegularizedBilinear": "gamedyn.engine.payoffs",
    "StepSchedule": "gamedyn.core.weights",
})
