"""`python -m releval` runs the command line.

A Ctrl-C while the command line's own modules load (typer, rich) is one line and exit 130, as during a run; one
during `import releval` itself, which Python runs before this file, still shows Python's traceback.
"""

import sys

try:
    from releval.cli import run
except KeyboardInterrupt:
    sys.stderr.write("error: interrupted\n")
    raise SystemExit(130) from None

run()
