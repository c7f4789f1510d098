"""``python -m lib``: run notebooks, redraw figures, list statuses (see lib.runner)."""

import sys

from lib.runner import main

sys.exit(main())
