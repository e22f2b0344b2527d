"""Prove that the interpreter running this is a virtualenv that sees nothing of the machine's own packages.

Run by .ci/run with each leg's interpreter, right after its test run: exit 1 with the reason when the
interpreter is not a virtualenv, includes system site-packages, has the user site enabled, or can import a
distribution installed outside the virtualenv. Prints one line of evidence otherwise.
"""

from __future__ import annotations

import importlib.metadata as md
import site
import sys
from pathlib import Path


def main() -> int:
    prefix = Path(sys.prefix).resolve()
    if prefix == Path(sys.base_prefix).resolve():
        print(f"not a virtualenv: sys.prefix is the base interpreter's ({prefix})")
        return 1
    cfg = (prefix / "pyvenv.cfg").read_text(encoding="utf-8").lower()
    if "include-system-site-packages = true" in cfg:
        print(f"{prefix}/pyvenv.cfg includes the system site-packages")
        return 1
    if site.ENABLE_USER_SITE:
        print("the user site-packages directory is enabled")
        return 1
    outside = []
    dists = list(md.distributions())
    for dist in dists:
        location = Path(str(dist.locate_file(""))).resolve()
        if not location.is_relative_to(prefix):
            outside.append(f"{dist.metadata['Name']} at {location}")
    if outside:
        print("distributions from outside the virtualenv are importable: " + "; ".join(sorted(outside)))
        return 1
    versions = {d.metadata["Name"].lower(): d.version for d in dists}
    direct = ("numpy", "scipy", "msgspec", "orjson", "click", "rich", "statsmodels")
    shown = ", ".join(f"{name} {versions.get(name, 'absent')}" for name in direct)
    print(f"isolated virtualenv {prefix} (Python {sys.version.split()[0]}, {len(dists)} distributions): {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
