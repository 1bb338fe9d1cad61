"""``python -m mtsig``: the command line."""

import sys

from mtsig.cli import main

sys.exit(main())
