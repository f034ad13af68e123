"""Test-wide settings.

Under CI (``CI`` set in the environment, as ``.ci/run`` runs) every hypothesis test is
derandomised: the same examples on every run, so a green CI means the same thing twice. Locally the
default profile explores new examples each run (and keeps failures in its database).
"""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None, deadline=None)
if os.environ.get("CI"):
    settings.load_profile("ci")


def pytest_configure(config):
    """A suite started in the background from a non-interactive shell (``cmd &``, nohup, some CI runners)
    starts with SIGINT ignored (POSIX), Python then installs no KeyboardInterrupt handler, and every
    child process inherits the ignored signal: the Ctrl-C tests (tests/test_cli.py,
    tests/test_checkpoints.py) would fail without a fault. Give the run Python's usual handler back
    (children then start with SIGINT at its default, as from a terminal)."""
    import signal

    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
