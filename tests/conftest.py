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
