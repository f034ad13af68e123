"""Layer 8, io: data sets (:mod:`~gamedyn.io.datasets`: synthetic, the papers' instances, the digits) and
the command line's data files (:mod:`~gamedyn.io.data_files`: .npz, .npy, .csv, svmlight, .npy folders).
"""

from gamedyn.io.datasets import (
    add_decoy,
    digits_pair,
    make_separable,
    make_separable_lp,
    perceptron_hard_instance,
    signed_rows,
    symmetric_pair,
)

__all__ = ["add_decoy", "digits_pair", "make_separable", "make_separable_lp", "perceptron_hard_instance",
           "signed_rows", "symmetric_pair"]
