"""``python -m core``: the quire command line."""

import sys

from core.cli import main

sys.exit(main())
