"""``python -m privcore``: see :mod:`privcore.cli`."""

import sys

from privcore.cli import main

sys.exit(main())
