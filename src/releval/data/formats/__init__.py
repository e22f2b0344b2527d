"""The format registry: every input format releval reads, by name, each in a module of its own.

`LABEL_FORMATS` (one label per item) and `E2E_FORMATS` (entity mentions and relations) map a format's name to
"module.Class" in this package, in the order the formats are listed to users (`releval.data.labels.FORMATS`) and
asked by `detect`. A format's module is imported the first time the format is used, so importing the registry
imports no parser. Adding a format is one module plus one line here (docs/formats.md, "Adding a format").

Detection (`detect`, when no format is named) reads the first 64 KiB: end-to-end formats are asked first (their
files hold JSON objects that a label format would take), then every label format's `sniff` says how surely the
head is its own (`Evidence`); the surest wins, and among equally sure ones the format listed first. A blank file,
a first line too long to tell, and lines that no format claims are InputErrors.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from releval.core.errors import InputError
from releval.data.formats.base import HEAD_BYTES, E2EFormat, Evidence, Head, LabelFormat

if TYPE_CHECKING:
    import orjson

    from releval.data.io import PathLike

#: (format name, "module.Class"), in the order users see them. Two names are also the names of the ChemProt tasks
#: (`--input-format chemprot-blue` reads the files of `--task chemprot-blue`): a format is named here by what it
#: reads, and no task is chosen by it.
_LABEL_TABLE: tuple[tuple[str, str], ...] = (
    ("semeval", "semeval.SemevalBlocks"),
    ("semeval-tsv", "id_tsv.SemevalTsv"),
    ("id-tsv", "id_tsv.IdTsv"),
    ("tacred-json", "tacred.TacredJson"),
    ("id-label-json", "id_label_json.IdLabelJson"),
    ("chemprot-scibert", "chemprot.SciBertJsonl"),
    ("tacrev-jsonl", "jsonl.TacrevJsonl"),
    ("jsonl", "jsonl.Jsonl"),
    ("chemprot-blue", "chemprot.BlueTsv"),
    ("csv", "tables.Csv"),
    ("wide-tsv", "wide_tsv.WideTsv"),
    ("tsv", "tables.Tsv"),
    ("labels-lines", "labels_lines.LabelLines"),
)
LABEL_FORMATS: dict[str, str] = dict(_LABEL_TABLE)
E2E_FORMATS: dict[str, str] = {
    "spert": "spert.Spert",
    "dygie": "dygie.Dygie",
}
END_TO_END_MESSAGE = "looks like an end-to-end RE file (entities and relations); use --task e2e"

_instances: dict[str, Any] = {}


def _instance(table: dict[str, str], name: str) -> Any:
    if name not in _instances:
        module, cls = table[name].rsplit(".", 1)
        _instances[name] = getattr(importlib.import_module(f"{__name__}.{module}"), cls)()
    return _instances[name]


def label_format(name: str) -> LabelFormat:
    """The label format called `name` (KeyError for a name that is not registered)."""
    fmt: LabelFormat = _instance(LABEL_FORMATS, name)
    return fmt


def e2e_format(name: str) -> E2EFormat:
    """The end-to-end format called `name` (KeyError for a name that is not registered)."""
    fmt: E2EFormat = _instance(E2E_FORMATS, name)
    return fmt


def label_formats() -> list[LabelFormat]:
    """Every label format, in registry order."""
    return [label_format(name) for name in LABEL_FORMATS]


def e2e_formats() -> list[E2EFormat]:
    """Every end-to-end format, in registry order."""
    return [e2e_format(name) for name in E2E_FORMATS]


# ----------------------------------------------------------------------------------------------- detection


def detect(data: bytes, path: PathLike, header_fields: Sequence[str] = ()) -> LabelFormat | E2EFormat:
    """The format of a file's UTF-8 bytes (`read_utf8`), from its first 64 KiB and its name; `header_fields` are
    the id and label field names the caller will look for (they mark a header row).

    An end-to-end file gives its E2EFormat (the caller tells the user to use `--task e2e`, or reads it as one). A
    blank file, a first line longer than 64 KiB (unless it opens a JSON list) and content that no label format
    claims — most likely one label per line, which is only read by position when asked for — are InputErrors.
    """
    name = str(path)
    head = Head(data, name, header_fields)
    for e2e in e2e_formats():
        if e2e.sniff(head) is not None:
            return e2e
    if not head.stripped:
        raise InputError("file is empty", file=name)
    answers = [(evidence, k, fmt) for k, fmt in enumerate(label_formats()) if (evidence := fmt.sniff(head)) is not None]
    best = min(answers, key=lambda answer: answer[:2], default=None)
    if best is not None and best[0] == Evidence.OPENING:
        return best[2]
    if "\n" not in head.text.rstrip("\n") and len(data) > HEAD_BYTES:
        raise InputError(
            "the first line is longer than 64 KiB, too long to guess the format: name it", file=name, line=1
        )
    if best is not None:
        return best[2]
    from releval.data.decoding import excerpt

    lines = head.text.split("\n")
    line = lines.index(next(ln for ln in lines if ln.strip())) + 1
    if space_separated(head.lines):
        raise space_separated_error(name, head.first_line, line)
    raise InputError(
        f"no tab-separated id on this line ({excerpt(head.first_line)}): looks like one label per line without ids; "
        "read it with --pred-format labels-lines to align it with gold by position (the TACRED scorer's "
        "convention: `releval score test.json predictions.txt --pred-format labels-lines`), or name the file's "
        "format with --pred-format / --gold-format",
        file=name,
        line=line,
    )


_SPACED = re.compile(r"^(\S*\d\S*) +(\S.*)$")


def space_separated(lines: Sequence[str]) -> bool:
    """Whether `lines` look like `<id> <label>` lines with a space where a tab belongs: nearly every line is a word
    with a digit in it (the id), spaces and the rest (the label), and the ids are distinct — a label per line
    repeats its words.

    >>> space_separated(["8001 Message-Topic(e1,e2)", "8002 Other"]), space_separated(["Other", "Other"])
    (True, False)
    """
    found = [m[1] for ln in lines if (m := _SPACED.match(ln.strip()))]
    return len(lines) >= 2 and len(found) * 10 >= len(lines) * 9 and len(set(found)) == len(found)


def space_separated_error(name: str, first_line: str, line: int) -> InputError:
    """The error for `<id> <label>` lines (`space_separated`): the space named, and the command that puts a tab
    in its place."""
    from releval.data.decoding import excerpt

    return InputError(
        f"the id and the label on this line are separated by a space ({excerpt(first_line)}), where releval reads "
        f"'<id>\\t<label>' lines (a tab between them): put a tab after each id, e.g. `{tab_command(name)}`, and "
        "score that file",
        file=name,
        line=line,
    )


def tab_command(path: str) -> str:
    """The shell command that writes `path`'s `<id> <label>` lines with a tab after the id, beside it
    (`preds.txt` → `preds.tabs.txt`).

    >>> print(tab_command("out/preds.txt"))
    sed 's/ \\+/\\t/' out/preds.txt > out/preds.tabs.txt
    """
    import shlex
    from pathlib import PurePath

    source = PurePath(path)
    suffixes = "".join(s for s in source.suffixes if s != ".gz") or ".txt"
    stem = source.name.split(".", 1)[0]
    target = shlex.quote(str(source.with_name(f"{stem}.tabs{suffixes}")))
    if path.endswith(".gz"):
        return f"zcat {shlex.quote(path)} | sed 's/ \\+/\\t/' > {target}"
    return f"sed 's/ \\+/\\t/' {shlex.quote(path)} > {target}"


# ----------------------------------------------------------------------------------------------- end-to-end content


def _first_value(data: bytes) -> Any:
    """The first non-blank line as JSON, or None when it is not JSON."""
    import orjson

    first = next(line for line in data.split(b"\n") if line.strip())
    try:
        return orjson.loads(first)
    except orjson.JSONDecodeError:
        return None


def _split_first_record(
    data: bytes, whole: orjson.JSONDecodeError, candidates: Sequence[E2EFormat]
) -> E2EFormat | None:
    """The JSON-lines format whose first record was broken over several lines, or None.

    The first line alone is no JSON, but the file opens with one complete value that spans lines and another value
    follows it: that is a JSON lines file whose first record is split (a second record follows), not one document
    with trailing data. Its reader then reports the line where the record breaks, instead of the whole-file
    parser's complaint at the next record."""
    import orjson

    if not whole.msg.startswith(("trailing characters", "unexpected content after document")):
        return None
    try:  # the lines before the one where the second value starts (whole.pos counts characters, not bytes)
        first = orjson.loads(b"\n".join(data.split(b"\n", whole.lineno - 1)[: whole.lineno - 1]))
    except orjson.JSONDecodeError:
        return None
    return next((c for c in candidates if c.claims_lines(first)), None)


def _choose(
    data: bytes, candidates: Sequence[E2EFormat]
) -> tuple[E2EFormat | None, Any, orjson.JSONDecodeError | None]:
    """(the candidate that claims the non-blank `data`, its whole-file JSON document, the error of parsing it)."""
    import orjson

    try:
        document = orjson.loads(data)
    except orjson.JSONDecodeError as whole:
        first = _first_value(data)
        return next((c for c in candidates if c.claims_lines(first)), None), None, whole
    return next((c for c in candidates if c.claims(document)), None), document, None


def read_e2e(data: bytes, name: str, fmt: E2EFormat | None = None) -> tuple[E2EFormat, Any]:
    """(format, content) of an end-to-end file's UTF-8 bytes, parsed once: the format `fmt`, or the one that claims
    the content. When the whole file is no JSON document, it is JSON lines if a format claims its first non-blank
    line; otherwise it is one document with a syntax error, reported at the line and column where the parser
    stopped (a pretty-printed SpERT file used to be blamed on line 1)."""
    from releval.data.decoding import check_utf8, json_problem

    if not data.strip():
        raise InputError("file is empty", file=name)
    candidates = [fmt] if fmt is not None else e2e_formats()
    chosen, document, whole = _choose(data, candidates)
    if whole is not None:
        if "UTF-8" in whole.msg:
            check_utf8(data, name)  # orjson blames the first byte: the decoder names the bad byte and its line
        if chosen is None:
            chosen = _split_first_record(data, whole, candidates)
        if chosen is None:
            raise InputError(json_problem(whole), file=name, line=whole.lineno) from None
        return chosen, chosen.read_lines(data, name)
    chosen = fmt or chosen
    if chosen is None:
        raise InputError("not an end-to-end file of a known format", file=name)
    return chosen, chosen.content(document, data)


def e2e_format_of(data: bytes) -> E2EFormat | None:
    """The end-to-end format `read_e2e` would read `data` as, or None when it would refuse it before reading."""
    return _choose(data, e2e_formats())[0] if data.strip() else None


__all__ = [
    "E2E_FORMATS",
    "END_TO_END_MESSAGE",
    "LABEL_FORMATS",
    "E2EFormat",
    "Evidence",
    "Head",
    "LabelFormat",
    "detect",
    "e2e_format",
    "e2e_format_of",
    "e2e_formats",
    "label_format",
    "label_formats",
    "read_e2e",
]
