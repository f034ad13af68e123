"""NumPy files read safely: the format's signature checked first, never a pickle, one-line errors.

Shared by the out-of-core operator (:mod:`gamedyn.arrays.distributed`: a folder's ``y.npy``) and
the command line's data files (:mod:`gamedyn.io.data_files`).
"""

from __future__ import annotations

import numpy as np

__all__ = ["load_numpy", "numpy_error"]

_MAGIC = {".npy": (b"\x93NUMPY",), ".npz": (b"PK\x03\x04", b"PK\x05\x06")}  # NumPy / zip signatures


def numpy_error(path: str, kind: str, error: BaseException) -> ValueError:
    """One line naming the file; never numpy's advice to load pickled data."""
    text = " ".join(str(error).split())
    if "pickle" in text.lower() or "object arrays" in text.lower():
        reason = "it holds Python objects (pickled data), which gamedyn never loads"
    else:
        reason = f"corrupt or truncated ({type(error).__name__}: {text})" if text else "corrupt or truncated"
    return ValueError(f"{path}: cannot be read as a {kind} file: {reason}; save numeric arrays with numpy.save / numpy.savez.")


def load_numpy(path: str, kind: str):
    """The arrays of a ``.npy`` or ``.npz`` file (``kind``), never pickled objects; a one-line ``ValueError``
    naming the file when it is not of that format, corrupt, truncated or holds Python objects."""
    with open(path, "rb") as handle:
        head = handle.read(6)
    if not head.startswith(_MAGIC[kind]):
        what = "a zip archive" if kind == ".npz" else "the NumPy format"
        raise ValueError(f"{path}: cannot be read as a {kind} file: it is not {what} (its first bytes are "
                         f"{head!r}); write it with numpy.save / numpy.savez, or give the right extension.")
    try:
        return np.load(path, allow_pickle=False)
    except Exception as error:  # numpy raises ValueError, OSError, EOFError or BadZipFile on a bad file
        raise numpy_error(path, kind, error) from None
