"""``python -m veriplan.cli``."""

import sys

from veriplan.cli import main

sys.exit(main())
