"""The format registry (releval.data.formats): a minimal example of every registered format, written out here with
what it must give — which sniffs answer on it and how surely, what it parses to, where its records are.

The sniff matrix is written by hand: a new format's example must be claimed by its own sniff and taken by no other
(an answer from another format is only allowed where it is weaker, or equally sure and registered later), and the
existing examples must not be taken by the new format. The worked example of docs/formats.md ("Adding a format")
runs here too, registered for the length of one test.
"""

from __future__ import annotations

import re
import subprocess
import sys
import types
from pathlib import Path

import pytest
from tests.conftest import REPO

from releval.audit.loading import load_tolerant
from releval.core.errors import InputError
from releval.data import e2e, formats, labels
from releval.data.formats import E2E_FORMATS, LABEL_FORMATS, Evidence, Head
from releval.data.formats.base import Document, Fields

SEMEVAL = (
    b'1\t"The system as described above has its greatest application in an arrayed <e1>configuration</e1> of '
    b'antenna <e2>elements</e2>."\n'
    b"Component-Whole(e2,e1)\n"
    b"Comment: Not a collection: there is structure here, organisation.\n"
    b"\n"
    b'2\t"The <e1>child</e1> was carefully wrapped and bound into the <e2>cradle</e2> by means of a cord."\n'
    b"Other\n"
    b"Comment:\n"
    b"\n"
)
SPERT = (
    b'[{"tokens": ["John", "works", "for", "Acme", "."], '
    b'"entities": [{"type": "Peop", "start": 0, "end": 1}, {"type": "Org", "start": 3, "end": 4}], '
    b'"relations": [{"type": "Work_For", "head": 0, "tail": 1}], "orig_id": "s1"}]\n'
)
DYGIE = (
    b'{"doc_key": "d1", "sentences": [["John", "works", "for", "Acme", "."]], '
    b'"ner": [[[0, 0, "Peop"], [3, 3, "Org"]]], "relations": [[[0, 0, 3, 3, "Work_For"]]]}\n'
)

# format -> (file name, bytes): the smallest file that is plainly of that format.
EXAMPLES = {
    "semeval": ("TEST_FILE_FULL.TXT", SEMEVAL),
    "semeval-tsv": ("answer_key.txt", b"8001\tMessage-Topic(e1,e2)\n8002\tOther\n"),
    "id-tsv": ("preds.txt", b"a1\tper:title\na2\tno_relation\n"),
    "tacred-json": ("test.json", b'[{"id": "a1", "relation": "per:title"}, {"id": "a2", "relation": "no_relation"}]'),
    "id-label-json": ("test_id2label.json", b'{"a1": "per:title", "a2": "no_relation"}\n'),
    "chemprot-scibert": (
        "chemprot_test.txt",
        b'{"text": "<< A >> binds [[ B ]].", "label": "INHIBITOR", "metadata": []}\n'
        b'{"text": "<< C >> on [[ D ]].", "label": "SUBSTRATE", "metadata": []}\n',
    ),
    "tacrev-jsonl": (
        "tacrev.jsonl",
        b'{"id": "a1", "label_true": "per:title", "label_pred": "per:title"}\n'
        b'{"id": "a2", "label_true": "no_relation", "label_pred": "per:title"}\n',
    ),
    "jsonl": ("preds.jsonl", b'{"id": "a1", "label": "per:title"}\n{"id": "a2", "label": "no_relation"}\n'),
    "chemprot-blue": ("test.tsv", b"index\tsentence\tlabel\n1.T1.T2\t@CHEMICAL$ on @GENE$\tCPR:4\n1.T1.T3\tx\tfalse\n"),
    "csv": ("preds.csv", b"id,label\na1,per:title\na2,no_relation\n"),
    "wide-tsv": (
        "results.tsv",
        b"id\tgold\tcnn\trbert\na1\tper:title\tper:title\tno_relation\na2\tno_relation\tper:title\tno_relation\n",
    ),
    "tsv": ("preds.tsv", b"id\tlabel\na1\tper:title\na2\tno_relation\n"),
    "labels-lines": ("preds.txt", b"per:title\nno_relation\n"),
    "spert": ("conll04_test.json", SPERT),
    "dygie": ("test.jsonl", DYGIE),
}

# example -> {format: evidence} for every sniff that answers on it (all others answer None).
MATRIX = {
    "semeval": {"semeval": Evidence.SIGNATURE, "tsv": Evidence.HINT},
    "semeval-tsv": {"semeval-tsv": Evidence.MAJORITY, "id-tsv": Evidence.MAJORITY, "tsv": Evidence.HINT},
    "id-tsv": {"id-tsv": Evidence.MAJORITY, "tsv": Evidence.HINT},
    "tacred-json": {"tacred-json": Evidence.OPENING},
    "id-label-json": {"id-label-json": Evidence.OPENING, "jsonl": Evidence.SYNTAX, "tacred-json": Evidence.NAME},
    "chemprot-scibert": {"chemprot-scibert": Evidence.SYNTAX, "jsonl": Evidence.SYNTAX},
    "tacrev-jsonl": {"tacrev-jsonl": Evidence.SYNTAX, "jsonl": Evidence.SYNTAX},
    "jsonl": {"jsonl": Evidence.SYNTAX},
    "chemprot-blue": {"chemprot-blue": Evidence.SIGNATURE, "id-tsv": Evidence.MAJORITY, "tsv": Evidence.SIGNATURE},
    "csv": {"csv": Evidence.NAME},
    "wide-tsv": {"wide-tsv": Evidence.SIGNATURE, "tsv": Evidence.SIGNATURE, "id-tsv": Evidence.MAJORITY},
    "tsv": {"tsv": Evidence.SIGNATURE, "id-tsv": Evidence.MAJORITY},
    "labels-lines": {},
    "spert": {"spert": Evidence.SIGNATURE, "tacred-json": Evidence.OPENING},
    "dygie": {"dygie": Evidence.SIGNATURE, "jsonl": Evidence.SYNTAX},
}

# label format -> (ids, labels, line or record numbers) of its example, read as gold.
PARSED = {
    "semeval": (["1", "2"], ["Component-Whole(e2,e1)", "Other"], [1, 5]),
    "semeval-tsv": (["8001", "8002"], ["Message-Topic(e1,e2)", "Other"], [1, 2]),
    "id-tsv": (["a1", "a2"], ["per:title", "no_relation"], [1, 2]),
    "tacred-json": (["a1", "a2"], ["per:title", "no_relation"], [1, 2]),
    "id-label-json": (["a1", "a2"], ["per:title", "no_relation"], [1, 2]),
    "chemprot-scibert": (None, ["INHIBITOR", "SUBSTRATE"], [1, 2]),
    "tacrev-jsonl": (["a1", "a2"], ["per:title", "no_relation"], [1, 2]),
    "jsonl": (["a1", "a2"], ["per:title", "no_relation"], [1, 2]),
    "chemprot-blue": (None, ["CPR:4", "false"], [2, 3]),
    "csv": (["a1", "a2"], ["per:title", "no_relation"], [2, 3]),
    "wide-tsv": (["a1", "a2"], ["per:title", "no_relation"], [2, 3]),
    "tsv": (["a1", "a2"], ["per:title", "no_relation"], [2, 3]),
    "labels-lines": (None, ["per:title", "no_relation"], [1, 2]),
}
JOHN = ("John", "works", "for", "Acme", ".")
DOCUMENTS = {
    "spert": [Document("s1", JOHN, ((0, 1, "Peop"), (3, 4, "Org")), ((0, 1, "Work_For"),))],
    "dygie": [Document("d1", JOHN, ((0, 1, "Peop"), (3, 4, "Org")), ((0, 1, "Work_For"),))],
}


def _sniffs(fmt_name: str) -> dict[str, Evidence]:
    path, data = EXAMPLES[fmt_name]
    head = Head(data, path)
    answers = {f.name: f.sniff(head) for f in [*formats.label_formats(), *formats.e2e_formats()]}
    return {name: evidence for name, evidence in answers.items() if evidence is not None}


def test_every_registered_format_has_an_example() -> None:
    assert list(EXAMPLES) == [*LABEL_FORMATS, *E2E_FORMATS]
    assert list(PARSED) == list(LABEL_FORMATS) and list(DOCUMENTS) == list(E2E_FORMATS)


def test_the_readme_input_format_table_lists_every_label_format() -> None:
    """Issue 34: README's "Input formats and checks" table lacked `id-label-json` and `wide-tsv`; every registered
    label format is a row (or part of one) of it."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    table = readme.split("### Input formats and checks", 1)[1].split("\n\n", 2)[1]
    listed = {name for row in table.splitlines()[2:] for name in re.findall(r"`([a-z0-9-]+)`", row.split("|")[1])}
    assert set(LABEL_FORMATS) <= listed, sorted(set(LABEL_FORMATS) - listed)


def test_formats_tuples_are_the_registry_names_in_order() -> None:
    assert (
        labels.FORMATS
        == tuple(LABEL_FORMATS)
        == (
            "semeval",
            "semeval-tsv",
            "id-tsv",
            "tacred-json",
            "id-label-json",
            "chemprot-scibert",
            "tacrev-jsonl",
            "jsonl",
            "chemprot-blue",
            "csv",
            "wide-tsv",
            "tsv",
            "labels-lines",
        )
    )
    assert e2e.FORMATS == tuple(E2E_FORMATS) == ("spert", "dygie")
    assert [f.name for f in formats.label_formats()] == list(LABEL_FORMATS)
    assert [f.name for f in formats.e2e_formats()] == list(E2E_FORMATS)


@pytest.mark.parametrize("example", list(EXAMPLES))
def test_sniff_matrix(example: str) -> None:
    """Which sniffs answer on each example, and how surely, exactly as written in MATRIX."""
    assert _sniffs(example) == MATRIX[example]


@pytest.mark.parametrize("example", list(EXAMPLES))
def test_each_example_is_its_own_format_and_no_other(example: str) -> None:
    """Its own sniff answers (labels-lines is never guessed), and every other answer loses to it: end-to-end formats
    are asked first, then the surest label format wins, ties going to the format registered first."""
    answers = _sniffs(example)
    e2e_answers = [name for name in answers if name in E2E_FORMATS]
    if example in E2E_FORMATS:
        assert e2e_answers == [example]
        return
    assert e2e_answers == []
    if example == "labels-lines":
        assert answers == {}
        return
    order = list(LABEL_FORMATS)
    own = (answers[example], order.index(example))
    assert all(own < (evidence, order.index(name)) for name, evidence in answers.items() if name != example)


@pytest.mark.parametrize("example", list(EXAMPLES))
def test_detect_takes_the_examples_own_format(example: str) -> None:
    path, data = EXAMPLES[example]
    if example == "labels-lines":
        with pytest.raises(InputError, match="--pred-format labels-lines") as info:
            formats.detect(data, path)
        assert info.value.line == 1
        return
    assert formats.detect(data, path).name == example
    if example in E2E_FORMATS:
        with pytest.raises(labels.EndToEndFile, match="use --task e2e"):
            labels.detect_format(path, data)
    else:
        assert labels.detect_format(path, data) == example


@pytest.mark.parametrize("fmt", list(LABEL_FORMATS))
def test_parse_gives_the_examples_ids_and_labels(fmt: str) -> None:
    path, data = EXAMPLES[fmt]
    parsed = formats.label_format(fmt).parse(data, path, Fields())
    assert (parsed.ids, parsed.labels, list(parsed.lines)) == PARSED[fmt]
    assert parsed.format == fmt and parsed.unit == ("record" if fmt in ("tacred-json", "id-label-json") else "line")
    through_labels = labels.parse_labels(data, path, fmt)
    assert (through_labels.ids, through_labels.labels) == PARSED[fmt][:2] and through_labels.digest


def test_tacrev_reads_the_prediction_for_role_pred() -> None:
    path, data = EXAMPLES["tacrev-jsonl"]
    parsed = formats.label_format("tacrev-jsonl").parse(data, path, Fields(role="pred"))
    assert parsed.labels == ["per:title", "per:title"]


@pytest.mark.parametrize("fmt", list(E2E_FORMATS))
def test_e2e_parse_gives_the_examples_documents(fmt: str) -> None:
    path, data = EXAMPLES[fmt]
    dataset = formats.e2e_format(fmt).parse(data, path)
    assert (dataset.format, dataset.documents) == (fmt, DOCUMENTS[fmt])
    chosen, content = formats.read_e2e(data, path)
    assert chosen.name == fmt and formats.e2e_format_of(data) is chosen
    assert chosen.load(content, data, path, "gold").documents == DOCUMENTS[fmt]


# format -> (file name, bytes, record spans): records over several lines and repeated ids, counted by hand.
SPANS = {
    "semeval": ("f.txt", SEMEVAL + SEMEVAL[:-1], [("1", 1, 4), ("2", 5, 8), ("1", 9, 12), ("2", 13, 15)]),
    "semeval-tsv": (
        "f.txt",
        b"8001\tOther\n8002\tOther\n8001\tOther\n",
        [("8001", 1, 1), ("8002", 2, 2), ("8001", 3, 3)],
    ),
    "id-tsv": ("f.txt", b"a1\tx\na1\ty\n", [("a1", 1, 1), ("a1", 2, 2)]),
    "tacred-json": (
        "f.json",
        b'[\n {"id": "a1", "relation": "x"},\n {"id": "a2", "relation": "y"},\n {"id": "a1", "relation": "z"}\n]\n',
        [("a1", 1, 1), ("a2", 2, 2), ("a1", 3, 3)],  # records, not lines
    ),
    "id-label-json": (
        "f.json",
        b'{\n "a1": "x",\n "a2": "y",\n "a1": "z"\n}\n',
        [("a1", 1, 1), ("a2", 2, 2), ("a1", 3, 3)],  # members, not lines; the parser would keep the last a1 only
    ),
    "chemprot-scibert": ("f.txt", b'{"text": "x", "label": "AGONIST", "metadata": []}\n', []),  # no ids
    "tacrev-jsonl": (
        "f.jsonl",
        b'{"id": 7, "label_true": "x", "label_pred": "y"}\n{"id": "7", "label_true": "x", "label_pred": "y"}\n',
        [("7", 1, 1), ("7", 2, 2)],  # an integer id is its digits
    ),
    "jsonl": (
        "f.jsonl",
        b'{"id": "a1", "label": "x"}\n{"id": "a2", "label": "y"}\n{"id": "a1", "label": "z"}\n',
        [("a1", 1, 1), ("a2", 2, 2), ("a1", 3, 3)],
    ),
    "chemprot-blue": ("f.tsv", b"index\tsentence\tlabel\n1.T1.T2\tx\tCPR:3\n", []),  # positional
    "csv": (
        "f.csv",
        b'label,note,id\nx,"a note\nover two lines",a1\ny,short,a2\nz,"and\nagain\nhere",a1\n',
        [("a1", 2, 3), ("a2", 4, 4), ("a1", 5, 7)],
    ),
    "wide-tsv": ("f.tsv", b"id\tgold\tA\na1\tx\ty\na1\tz\tz\n", [("a1", 2, 2), ("a1", 3, 3)]),
    "tsv": ("f.tsv", b"id\tlabel\na1\tx\n\na1\ty\n", [("a1", 2, 2), ("a1", 4, 4)]),  # the blank row has no id
    "labels-lines": ("f.txt", b"x\ny\n", []),  # no ids, no records to repeat
}


@pytest.mark.parametrize("fmt", list(LABEL_FORMATS))
def test_record_spans(fmt: str) -> None:
    path, data, spans = SPANS[fmt]
    assert formats.label_format(fmt).record_spans(data, path, Fields()) == spans


def test_audit_drops_repeated_multi_line_records(tmp_path: Path) -> None:
    """The audit lists each repetition by its record's first line and reads the rest (record_spans and
    without_records of the format), the lines mapped back to the file."""
    path = tmp_path / SPANS["csv"][0]
    path.write_bytes(SPANS["csv"][1])
    loaded = load_tolerant(path, "gold", label_field="label")
    assert [(r.id, r.line, r.first_line) for r in loaded.repeats] == [("a1", 5, 2)]
    assert loaded.file is not None and (loaded.file.ids, list(loaded.file.lines)) == (["a1", "a2"], [2, 4])
    path = tmp_path / SPANS["tacred-json"][0]
    path.write_bytes(SPANS["tacred-json"][1])
    loaded = load_tolerant(path, "gold")
    assert [(r.id, r.line, r.first_line) for r in loaded.repeats] == [("a1", 3, 1)]
    assert loaded.file is not None and (loaded.file.labels, list(loaded.file.lines)) == (["x", "y"], [1, 2])


def test_a_repeated_id_of_an_id_label_object_is_refused_and_listed_by_the_audit(tmp_path: Path) -> None:
    """A JSON parser keeps the last of two values of one key: the id → label format finds the repetition in the
    bytes, refuses it, and the audit lists it and reads the first value."""
    path = tmp_path / SPANS["id-label-json"][0]
    path.write_bytes(SPANS["id-label-json"][1])
    with pytest.raises(InputError, match=r"id a1 repeated \(first on record 1\)"):
        labels.load_labels(path)
    loaded = load_tolerant(path, "gold")
    assert [(r.id, r.line, r.first_line) for r in loaded.repeats] == [("a1", 3, 1)]
    assert loaded.file is not None and (loaded.file.labels, list(loaded.file.lines)) == (["x", "y"], [1, 2])


def test_end_to_end_files_are_detected_not_raised(tmp_path: Path) -> None:
    path = tmp_path / EXAMPLES["dygie"][0]
    path.write_bytes(EXAMPLES["dygie"][1])
    loaded = load_tolerant(path, "gold")
    assert loaded.end_to_end and loaded.file is None
    assert [e.message for e in loaded.errors] == [formats.END_TO_END_MESSAGE]
    with pytest.raises(InputError, match=re.escape(formats.END_TO_END_MESSAGE)):
        labels.load_labels(path)


def test_importing_the_registry_imports_no_parser_and_no_numpy() -> None:
    """`import releval` itself loads the scoring API (numpy), so the top-level package is stood in for by an empty
    one: what is measured is the registry and what it imports. Format modules load on first use, numpy not even
    then (only when a large JSON lines file is parsed)."""
    code = (
        "import importlib.util, sys, types\n"
        "spec = importlib.util.find_spec('releval')\n"
        "package = types.ModuleType('releval')\n"
        "package.__path__ = list(spec.submodule_search_locations)\n"
        "sys.modules['releval'] = package\n"
        "import releval.data.formats as formats\n"
        "heavy = ('numpy', 'msgspec', 'orjson', 'scipy', 'pandas')\n"
        "parsers = [m for m in sys.modules if m.startswith('releval.data.formats.') and not m.endswith('.base')]\n"
        "print(sorted(m for m in heavy if m in sys.modules), parsers)\n"
        "formats.label_format('jsonl')\n"
        "print('numpy' in sys.modules, 'releval.data.formats.jsonl' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["[] []", "False True"]


# ----------------------------------------------------------------------------------------------- the docs' example


def _docs_example() -> types.ModuleType:
    """The module of docs/formats.md's worked example (the first python block after "## Adding a format")."""
    text = (REPO / "docs" / "formats.md").read_text(encoding="utf-8")
    section = text[text.index("## Adding a format") :]
    source = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert source is not None
    module = types.ModuleType("releval.data.formats.id_psv")
    exec(compile(source.group(1), "docs/formats.md", "exec"), module.__dict__)
    return module


def test_the_docs_example_format_works_with_one_registry_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    module = _docs_example()
    monkeypatch.setitem(sys.modules, "releval.data.formats.id_psv", module)
    monkeypatch.setattr(formats, "_instances", {})
    monkeypatch.setitem(LABEL_FORMATS, "id-psv", "id_psv.IdPsv")  # the one registry line
    path = tmp_path / "preds.txt"
    path.write_bytes(b"a1|per:title\na2|no_relation\n")
    loaded = labels.load_labels(path)
    assert (loaded.format, loaded.ids, loaded.labels) == ("id-psv", ["a1", "a2"], ["per:title", "no_relation"])
    assert [f.name for f in formats.label_formats()][-1] == "id-psv"
    for example in EXAMPLES:  # the new format takes none of the registered formats' examples
        assert "id-psv" not in _sniffs(example)
    path.write_bytes(b"a1|per:title\na1|x\na2\n")
    with pytest.raises(InputError, match=re.escape("expected '<id>|<label>'")) as info:
        labels.load_labels(path, format="id-psv")
    assert info.value.line == 3
    path.write_bytes(b"a1|per:title\na1|x\n")
    assert [(r.id, r.line) for r in load_tolerant(path, "gold").repeats] == [("a1", 2)]
