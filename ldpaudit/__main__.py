"""``python -m ldpaudit``: the command line."""

import sys

from ldpaudit.cli import main

sys.exit(main())
