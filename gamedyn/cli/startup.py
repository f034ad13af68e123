"""Ctrl-C while the ``gamedyn`` command line starts up prints one line and exits with status 130.

The command line imports numpy, scipy and the library (a second or more on a cold start) before
:func:`gamedyn.cli.main` can catch anything, so an interrupt there would print a traceback. When the
process is the command line (the ``gamedyn`` script or ``python -m gamedyn``), :func:`install` (run
first thing by ``gamedyn/cli/__init__.py``, the command line's entry point) puts a SIGINT handler in
place for the start-up; ``main`` calls :func:`restore` and handles Ctrl-C itself from then on.
``import gamedyn`` itself sets no handler, and any other program that imports gamedyn is left alone.
"""

from __future__ import annotations

import os
import signal
import sys


def _is_command_line() -> bool:
    arguments = list(getattr(sys, "orig_argv", []))
    if "-m" in arguments[:-1] and arguments[arguments.index("-m") + 1] in ("gamedyn", "gamedyn.cli"):
        return True
    script = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return script in ("gamedyn", "gamedyn.exe", "gamedyn-script.py")


def _interrupted(signum, frame):  # pragma: no cover - runs in a subprocess (tests/test_cli.py)
    try:
        sys.stderr.write("gamedyn: interrupted while starting\n")
        sys.stderr.flush()
    finally:
        os._exit(130)


def install() -> None:
    """Quiet Ctrl-C during the imports, for the command line only."""
    if not _is_command_line():
        return
    try:
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, _interrupted)
    except ValueError:  # pragma: no cover - not the main thread
        pass


def restore() -> None:
    """Back to Python's KeyboardInterrupt, which ``gamedyn.cli.main`` turns into one line and 130."""
    try:
        if signal.getsignal(signal.SIGINT) is _interrupted:
            signal.signal(signal.SIGINT, signal.default_int_handler)
    except ValueError:  # pragma: no cover - not the main thread
        pass
