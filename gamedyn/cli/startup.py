"""Ctrl-C (SIGINT) or SIGTERM while the ``gamedyn`` command line starts up prints one line and exits with
status 130 or 143.

The command line imports numpy, scipy and the library (a second or more on a cold start) before
:func:`gamedyn.cli.main` can catch anything, so an interrupt there would print a traceback. When the
process is the command line (the ``gamedyn`` script or ``python -m gamedyn``), :func:`install` (run
first thing by ``gamedyn/cli/__init__.py``, the command line's entry point) puts a SIGINT handler in
place for the start-up (and one for SIGTERM); ``main`` calls :func:`restore` and handles Ctrl-C itself
from then on.
``import gamedyn`` itself sets no handler, and any other program that imports gamedyn is left alone.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Any


def _is_command_line() -> bool:
    arguments = list(getattr(sys, "orig_argv", []))
    if "-m" in arguments[:-1] and arguments[arguments.index("-m") + 1] in ("gamedyn", "gamedyn.cli"):
        return True
    script = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return script in ("gamedyn", "gamedyn.exe", "gamedyn-script.py")


def _interrupted(signum, frame):  # pragma: no cover - runs in a subprocess (tests/test_cli.py)
    terminated = signum == getattr(signal, "SIGTERM", None)
    try:
        sys.stderr.write("gamedyn: terminated (SIGTERM) while starting\n" if terminated
                         else "gamedyn: interrupted while starting\n")
        sys.stderr.flush()
    finally:
        os._exit(143 if terminated else 130)


# SIGINT's handler during the imports replaces Python's KeyboardInterrupt; SIGTERM's, the default (a silent
# exit -15, issue 30): both print one line and exit 128 + the signal, as a run does.
_DEFAULTS: dict[str, Any] = {"SIGINT": signal.default_int_handler, "SIGTERM": signal.SIG_DFL}


def install() -> None:
    """One line for Ctrl-C (SIGINT) and SIGTERM during the imports, for the command line only."""
    if not _is_command_line():
        return
    for name, default in _DEFAULTS.items():
        signum = getattr(signal, name, None)
        try:
            if signum is not None and signal.getsignal(signum) is default:
                signal.signal(signum, _interrupted)
        except ValueError:  # pragma: no cover - not the main thread
            pass


def restore() -> None:
    """Back to Python's KeyboardInterrupt (which ``gamedyn.cli.main`` turns into one line and 130) and to
    SIGTERM's default (a run with ``--checkpoint`` handles it: a checkpoint, one line, 143)."""
    for name, default in _DEFAULTS.items():
        signum = getattr(signal, name, None)
        try:
            if signum is not None and signal.getsignal(signum) is _interrupted:
                signal.signal(signum, default)
        except ValueError:  # pragma: no cover - not the main thread
            pass
