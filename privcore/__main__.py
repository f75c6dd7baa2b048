"""``python -m privcore``: see :mod:`privcore.cli.main`."""

import sys

from privcore.cli.main import main

sys.exit(main())
