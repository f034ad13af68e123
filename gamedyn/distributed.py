"""Deprecated: ``gamedyn.distributed`` moved to :mod:`gamedyn.arrays.distributed`,
:mod:`gamedyn.arrays.operators` (issue 17).

Importing ``gamedyn.distributed`` still works for one release: it warns once (a ``DeprecationWarning`` naming
the new path) and gives the same objects as the new modules.
"""

from gamedyn.core.deprecation import moved

moved(__name__, "gamedyn.distributed", {
    "ChunkFileError": "gamedyn.arrays.distributed",
    "READ_BYTES": "gamedyn.arrays.distributed",
    "RECOVERY_ATTEMPTS": "gamedyn.arrays.distributed",
    "RowBlockedOperator": "gamedyn.arrays.distributed",
    "SLAB_BYTES": "gamedyn.arrays.distributed",
    "WORKER_WAIT_S": "gamedyn.arrays.distributed",
    "WorkerLostError": "gamedyn.arrays.distributed",
    "is_dask_array": "gamedyn.arrays.operators",
    "npy_folder_layout": "gamedyn.arrays.distributed",
})
