"""A gold standard of several files (DrugProt's relations, entities and PMID list) as one stored blob: a tar archive
of its files, flat, in name order, with fixed metadata — the same files give the same bytes, so the same digest.

A task whose gold is several files names the function that lists them (`Task.gold_parts`, e.g.
releval.data.drugprot.gold_files); `releval benchmark` packs them with `pack_parts`, and the board unpacks them
into one folder (`unpack_parts`), which the task reads as it reads the original folder. Gzipped parts are stored
as they are (the readers detect gzip).

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "b.txt").write_text("2"), (d / "a.txt").write_text("1")
>>> blob = pack_parts([d / "b.txt", d / "a.txt"])
>>> is_parts(blob), pack_parts([d / "a.txt", d / "b.txt"]) == blob
(True, True)
>>> out = unpack_parts(blob, d / "out", "gold.tar")
>>> sorted(p.name for p in out.iterdir()), (out / "b.txt").read_text()
(['a.txt', 'b.txt'], '2')
"""

from __future__ import annotations

import io
import os
import tarfile
from collections.abc import Sequence
from pathlib import Path

from releval.core.errors import InputError
from releval.data.io import read_bytes

#: The bytes 257..262 of a POSIX tar archive's first header.
_USTAR = b"ustar"


def is_parts(data: bytes) -> bool:
    """Whether `data` is a tar archive (a gold of several files) rather than one file."""
    return len(data) >= 512 and data[257:262] == _USTAR


def pack_parts(paths: Sequence[str | os.PathLike[str]]) -> bytes:
    """The files as one tar archive: flat (their names only), in name order, mode 0644, time 0, no owner; each
    read as every input is (bounded, releval.data.io.read_bytes, gzip kept as stored). Two files with one name are
    refused."""
    named: dict[str, bytes] = {}
    for path in paths:
        name = Path(path).name
        if name in named:
            raise InputError(
                f"two gold files are called {name!r}: a gold's files need distinct names", file=os.fspath(path)
            )
        with open(path, "rb") as handle:
            gzipped = handle.read(2) == b"\x1f\x8b"
        named[name] = Path(path).read_bytes() if gzipped else read_bytes(path)
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.USTAR_FORMAT) as archive:
        for name in sorted(named):
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(named[name]), 0o644, 0
            archive.addfile(info, io.BytesIO(named[name]))
    return out.getvalue()


def unpack_parts(data: bytes, folder: Path, name: str) -> Path:
    """The archive's files written into `folder` (made if missing), each under its base name (an archive of a
    folder, `tar cf gold.tar gs-data/`, works as well as `pack_parts`'s flat one); returns the folder. Folders in
    the archive are skipped; a link, a device, a `..` in a path or two files with one base name are refused
    (InputError naming the archive `name`)."""
    folder.mkdir(parents=True, exist_ok=True)
    seen: set[str] = set()
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as archive:
            for member in archive.getmembers():
                parts = member.name.replace("\\", "/").split("/")
                if member.isdir() and ".." not in parts:
                    continue
                base = parts[-1]
                if not member.isfile() or ".." in parts or base in ("", "."):
                    raise InputError(
                        f"member {member.name!r}: a gold archive holds the gold's files only (regular files)", file=name
                    )
                if base in seen:
                    raise InputError(
                        f"two members are called {base!r}: the gold's files need distinct names", file=name
                    )
                seen.add(base)
                handle = archive.extractfile(member)
                assert handle is not None
                temporary = folder / f".{base}.part"
                temporary.write_bytes(handle.read())
                temporary.replace(folder / base)
    except tarfile.TarError as exc:
        raise InputError(f"not a readable tar archive of the gold's files ({exc})", file=name) from None
    return folder
