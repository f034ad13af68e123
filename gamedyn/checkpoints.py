"""Deprecated: ``gamedyn.checkpoints`` moved to :mod:`gamedyn.engine.checkpoints` (issue 17).

Importing ``gamedyn.checkpoints`` still works for one release: it warns once (a ``DeprecationWarning`` naming
the new path) and gives the same objects as the new modules.
"""

from gamedyn.core.deprecation import moved

moved(__name__, "gamedyn.checkpoints", {
    "CHECKPOINT_VERSION": "gamedyn.engine.checkpoints",
    "CheckpointError": "gamedyn.engine.checkpoints",
    "CheckpointMismatchError": "gamedyn.engine.checkpoints",
    "InterruptFlag": "gamedyn.engine.checkpoints",
    "RunInterrupted": "gamedyn.engine.checkpoints",
    "check_every": "gamedyn.engine.checkpoints",
    "check_options": "gamedyn.engine.checkpoints",
    "check_writable": "gamedyn.engine.checkpoints",
    "checkpoint_info": "gamedyn.engine.checkpoints",
    "describe": "gamedyn.engine.checkpoints",
    "fingerprint": "gamedyn.engine.checkpoints",
    "read": "gamedyn.engine.checkpoints",
    "read_header": "gamedyn.engine.checkpoints",
    "write": "gamedyn.engine.checkpoints",
}, also={
    "Loss": "gamedyn.core.loss",
})
