"""Layer 2, arrays: what a payoff's matrix A may be, and how its products are computed.

:mod:`~gamedyn.arrays.operators` (dense, sparse, LinearOperator and dask operands alike),
:mod:`~gamedyn.arrays.one_pass` (both products of a round from one read of A),
:mod:`~gamedyn.arrays.batched` (K games sharing one matrix) and :mod:`~gamedyn.arrays.distributed`
(A out of core or on a dask cluster, one task per row block; imported when first used).
"""

from gamedyn.arrays.batched import BatchedMatrix, one_vs_rest, shared_matrix
from gamedyn.arrays.operators import is_dask_array

__all__ = ["BatchedMatrix", "RowBlockedOperator", "is_dask_array", "one_vs_rest", "shared_matrix"]


def __getattr__(name: str):
    if name == "RowBlockedOperator":  # scipy.sparse.linalg, threads and dask hooks: loaded when first asked for
        from gamedyn.arrays.distributed import RowBlockedOperator

        return RowBlockedOperator
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
