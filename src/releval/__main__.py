"""`python -m releval` runs the command line."""

import sys

from releval.cli import main

sys.exit(main())
