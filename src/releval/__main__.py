"""`python -m releval` runs the command line."""

from releval.cli import run

run()
