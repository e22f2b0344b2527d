"""A gold of several files (DrugProt: relations, entities, PMID list) on the board: packed as one tar archive
(releval.data.parts), unpacked into a folder that the task reads as the original folder. Checked with the standard
library's tarfile and against `releval compare --task drugprot` on the original folder (the board's end-to-end
check is tests/service/test_library_task.py)."""

from __future__ import annotations

import contextlib
import io
import json
import tarfile
from pathlib import Path
from types import SimpleNamespace

import pytest

from releval.cli import main
from releval.core.errors import InputError
from releval.data.parts import is_parts, pack_parts, unpack_parts

GS = Path(__file__).resolve().parents[1] / "examples" / "drugprot" / "gs-data"
PRED = GS.parent / "toy-data" / "pred_relations.tsv"
FILES = sorted(GS.iterdir())


def test_packed_parts_are_the_files_flat_and_the_same_bytes_each_time() -> None:
    blob = pack_parts(FILES)
    assert blob == pack_parts(list(reversed(FILES))) and is_parts(blob)
    with tarfile.open(fileobj=io.BytesIO(blob)) as archive:
        got = {m.name: (archive.extractfile(m).read(), m.mtime) for m in archive.getmembers()}  # type: ignore[union-attr]
    assert got == {p.name: (p.read_bytes(), 0) for p in FILES}
    assert not is_parts(FILES[0].read_bytes())


def _tar(members: list[tuple[tarfile.TarInfo, bytes]]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as archive:
        for info, data in members:
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data) if info.isfile() else None)
    return out.getvalue()


def test_an_archive_of_the_folder_unpacks_flat(tmp_path: Path) -> None:
    """`tar cf gold.tar gs-data/` (the folder's name before each file, the folder itself a member) works too."""
    folder = tarfile.TarInfo("gs-data")
    folder.type = tarfile.DIRTYPE
    blob = _tar([(folder, b""), *((tarfile.TarInfo(f"gs-data/{p.name}"), p.read_bytes()) for p in FILES)])
    out = unpack_parts(blob, tmp_path / "x", "gold.tar")
    assert {p.name: p.read_bytes() for p in out.iterdir()} == {p.name: p.read_bytes() for p in FILES}


@pytest.mark.parametrize("kind", ["dotdot", "link", "twice"])
def test_an_archive_with_anything_but_files_is_refused(kind: str, tmp_path: Path) -> None:
    if kind == "link":
        link = tarfile.TarInfo("pmids.txt")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        members = [(link, b"")]
    elif kind == "dotdot":
        members = [(tarfile.TarInfo("../pmids.txt"), b"1\n")]
    else:
        members = [(tarfile.TarInfo("a/pmids.txt"), b"1\n"), (tarfile.TarInfo("b/pmids.txt"), b"2\n")]
    with pytest.raises(InputError, match="gold.tar") as info:
        unpack_parts(_tar(members), tmp_path / "x", "gold.tar")
    assert "pmids.txt" in str(info.value)
    assert not (tmp_path / "pmids.txt").exists()


def test_the_board_cell_of_a_packed_drugprot_gold_is_compare_s() -> None:
    """LibraryTask (the board's driver of library tasks) on the packed gold: micro and macro with their intervals
    are those of `releval compare --task drugprot` on the original folder, same resamples and seed."""
    import zlib

    from releval.registry import get_task
    from releval.service.library_task import LibraryTask

    adapter = LibraryTask(get_task("drugprot"))
    spec = adapter.spec({}, resamples=200, seed=12345, confidence=0.95)
    bench = SimpleNamespace(gold=pack_parts(FILES), gold_name="gs-data.tar")
    stored = adapter.prepare_run(bench, PRED.read_bytes(), PRED.name, spec, 10**8)
    assert zlib.decompress(stored).partition(b"\0")[2] == PRED.read_bytes()
    cells = adapter.cells(bench, stored, spec, ["micro", "macro"])
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(["compare", "--task", "drugprot", str(GS), "-s", f"x={PRED}", "-s", f"y={PRED}", "-R", "200",
                     "--seed", "12345", "--test", "bootstrap", "-f", "json"])  # fmt: skip
    assert code == 0
    table = json.loads(out.getvalue())["results"][0]
    rows = {r["metric"]: r for r in table["pairs"]}
    for measure in ("micro", "macro"):
        assert (cells[measure].value, [cells[measure].ci_low, cells[measure].ci_high]) == (
            table["scores"]["x"][measure],
            rows[measure]["ci_a"],
        )
    assert cells["micro"].value == pytest.approx(0.75, abs=1e-12)  # the official library's toy F1


def test_a_bad_line_in_a_packed_gold_is_the_same_located_error_as_in_the_folder(tmp_path: Path) -> None:
    """A malformed relations line: `score` and `stats` on the folder and the board's reading of the packed archive
    (what `releval benchmark` uploads) name the same file, line and reason; the archive's error has no hint to
    give a folder (it was one) — that hint is for a single file given where the task reads several."""
    from releval.registry import get_task
    from releval.service.library_task import LibraryTask

    gs = tmp_path / "gs"
    gs.mkdir()
    for f in FILES:
        (gs / f.name).write_bytes(f.read_bytes())
    with (gs / "gs_relations.tsv").open("a", encoding="utf-8") as fh:
        fh.write("bad\tline\n")
    line = len((gs / "gs_relations.tsv").read_text(encoding="utf-8").splitlines())
    reason = f":{line}: expected 4 tab-separated fields (PMID, type, Arg1:id, Arg2:id), got 2: 'bad\\tline'"
    for argv in (["score", str(gs), str(PRED)], ["stats", str(gs)]):
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            assert main([*argv, "--task", "drugprot"]) == 2
        assert err.getvalue().strip() == f"error: {gs / 'gs_relations.tsv'}{reason}", argv
    adapter = LibraryTask(get_task("drugprot"))
    blob, name = get_task("drugprot").gold_upload(gs)
    with pytest.raises(InputError) as raised:
        adapter.read_gold(blob, name, adapter.spec({}, resamples=10, seed=1, confidence=0.95))
    assert str(raised.value) == f"gs_relations.tsv{reason}"
