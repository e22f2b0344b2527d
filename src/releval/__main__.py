"""`python -m releval` runs the command line.

A Ctrl-C while the command line's own modules load is one line and exit 130, as during a run (click and the command
modules load inside `main`, under its handler; the guard below covers `releval.cli` itself); one during
`import releval`, which Python runs before this file, still shows Python's traceback.
"""

import sys

try:
    from releval.cli import run
except KeyboardInterrupt:
    sys.stderr.write("error: interrupted\n")
    raise SystemExit(130) from None

run()
