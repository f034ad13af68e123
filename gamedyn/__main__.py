"""``python -m gamedyn``: the same command line as the ``gamedyn`` script (see :mod:`gamedyn.cli`)."""

import sys

from gamedyn.cli import main

if __name__ == "__main__":
    sys.exit(main())
