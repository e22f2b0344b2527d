"""`chemprot-blue` and `chemprot-scibert`: the two files people call "ChemProt" (Kringelum et al. 2016; BioCreative VI).

`chemprot-blue` is the TSV that the BLUE benchmark's `create_chemprot_bert.py` writes (Peng et al. 2019; used by
BioBERT and BLURB): a header `index<TAB>sentence<TAB>label`, then one row per candidate (chemical, gene) pair of a
sentence, its label one of the five evaluated groups CPR:3, CPR:4, CPR:5, CPR:6, CPR:9 or `false` (no relation):

    index	sentence	label
    10047461.T1.T13	@CHEMICAL$ inhibited @GENE$ activity ...	CPR:4
    10047461.T2.T13	@CHEMICAL$ and @GENE$ ...	false

The index (`PMID.chemical.gene`) repeats when a pair has several labels, so it is no id: the rows are aligned by
position, and the index is kept in `fields["index"]` so that a prediction file in the same layout can be checked
row by row against gold (releval.tasks.chemprot). Only the `index` and `label` columns are read (a prediction file
may omit the sentence); fields are read with RFC 4180 quoting, as Python's csv module wrote them. The layout of
BLUE's own evaluation files (`create_chemprot_test_gs.py`: `id  docid  arg1  arg2  label`) is read too when the
format is named (`--task chemprot-blue` names it), its `id` column taking the index's place and its `docid`,
`arg1` and `arg2` kept in `fields`; it is not guessed, since `tsv` reads such a file by id.

`chemprot-scibert` is SciBERT's JSON lines (allenai/scibert `data/text_classification/chemprot/`): one object per
line, `{"text": ..., "label": ..., "metadata": [...]}`, with `<< >>` and `[[ ]]` marking the chemical and the gene,
and the label one of the 13 ChemProt relation labels; there is no negative class and no id, so rows are aligned by
position too.

A label outside the file's label set is refused at its line (field `label`): a misspelt group would otherwise be
scored as a class of its own.

>>> data = b"index\\tsentence\\tlabel\\n1.T1.T2\\tA @CHEMICAL$ ...\\tCPR:4\\n1.T1.T3\\tB\\tfalse\\n"
>>> f = BlueTsv().parse(data, "test.tsv", Fields())
>>> list(f.labels), list(f.fields["index"]), list(f.lines)
(['CPR:4', 'false'], ['1.T1.T2', '1.T1.T3'], [2, 3])
"""

from __future__ import annotations

from releval.core.errors import InputError
from releval.data.decoding import decode_text, excerpt, jsonl_problem
from releval.data.delimited import iter_records, text_lines
from releval.data.formats.base import Evidence, Fields, Head, LabelFile, LabelFormat
from releval.data.formats.common import make_file

#: BLUE's five evaluated ChemProt groups (its README: "the same five classes: CPR:3, CPR:4, CPR:5, CPR:6, CPR:9").
BLUE_GROUPS: tuple[str, ...] = ("CPR:3", "CPR:4", "CPR:5", "CPR:6", "CPR:9")
#: BLUE's negative label: a candidate pair with no relation of the five groups.
BLUE_NEGATIVE = "false"
BLUE_LABELS: frozenset[str] = frozenset((*BLUE_GROUPS, BLUE_NEGATIVE))
_BLUE_NAMES = {label: label for label in BLUE_LABELS}
#: The columns of BLUE's evaluation layout (`id  docid  arg1  arg2  label`) that name a row's candidate pair: kept
#: in `fields` beside the index, so that a prediction row is checked against gold's (releval.tasks.chemprot).
PAIR_COLUMNS: tuple[str, ...] = ("docid", "arg1", "arg2")

#: The 13 relation labels of SciBERT's ChemProt files (the CPR groups' member relations; no negative class).
SCIBERT_LABELS: tuple[str, ...] = (
    "ACTIVATOR",
    "AGONIST",
    "AGONIST-ACTIVATOR",
    "AGONIST-INHIBITOR",
    "ANTAGONIST",
    "DOWNREGULATOR",
    "INDIRECT-DOWNREGULATOR",
    "INDIRECT-UPREGULATOR",
    "INHIBITOR",
    "PRODUCT-OF",
    "SUBSTRATE",
    "SUBSTRATE_PRODUCT-OF",
    "UPREGULATOR",
)
_SCIBERT_SET = frozenset(SCIBERT_LABELS)
_SCIBERT_KEYS = frozenset(("text", "label", "metadata"))


def _label_error(label: str, allowed: list[str], what: str, name: str, line: int) -> InputError:
    """The refusal of a label outside the file's set, naming the likely slip: letter case or white space.

    >>> _label_error("cpr:4", ["CPR:4", "false"], "BLUE ChemProt", "p.tsv", 2).message.split(" (")[0]
    "'cpr:4' is not a BLUE ChemProt label: it differs from 'CPR:4' only in letter case or white space"
    """
    same = [x for x in allowed if x.casefold() == label.strip().casefold()]
    hint = f": it differs from {same[0]!r} only in letter case or white space" if same else ""
    return InputError(
        f"{excerpt(label)} is not a {what} label{hint} (expected one of {', '.join(allowed)})",
        file=name,
        line=line,
        field="label",
    )


class BlueTsv(LabelFormat):
    """BLUE's ChemProt TSV: a header naming `index` and `label`, then CPR:3/4/5/6/9 or `false` per row."""

    name = "chemprot-blue"

    def sniff(self, head: Head) -> Evidence | None:
        """A first line that is the BLUE header (`index`, then `sentence` or `label`): no other format writes it."""
        columns = head.first_line.split("\t")
        return Evidence.SIGNATURE if columns[:1] == ["index"] and "label" in columns else None

    def parse(self, data: bytes, name: str, fields: Fields) -> LabelFile:
        # one record at a time (a list of every row and its sentence took 9 times the file at 10^6 rows)
        records = (r for r in iter_records(decode_text(data, name), "\t", name) if r[2])
        head = next(records, None)
        if head is None:
            raise InputError("file is empty", file=name)
        first, _, header = head
        key = "index" if "index" in header else "id"
        if key not in header or "label" not in header:
            raise InputError(
                "expected BLUE's header 'index<TAB>sentence<TAB>label' (or its evaluation files' "
                f"'id<TAB>docid<TAB>arg1<TAB>arg2<TAB>label'), got {excerpt(chr(9).join(header))}",
                file=name,
                line=first,
            )
        at_index, at_label = header.index(key), header.index("label")
        # the evaluation layout's pair columns, kept so that a prediction row can be checked against gold's
        pair = {column: header.index(column) for column in PAIR_COLUMNS if column in header}
        columns: dict[str, list[str]] = {column: [] for column in pair}
        index: list[str] = []
        labels: list[str] = []
        numbers: list[int] = []
        allowed = [*BLUE_GROUPS, BLUE_NEGATIVE]
        for start, _, row in records:
            if len(row) != len(header):
                raise InputError(
                    f"{len(row)} tab-separated field(s), but the header has {len(header)}: {excerpt(chr(9).join(row))}",
                    file=name,
                    line=start,
                )
            label = row[at_label]
            if label not in BLUE_LABELS:
                raise _label_error(label, allowed, "BLUE ChemProt", name, start)
            index.append(row[at_index])
            for column, at in pair.items():
                columns[column].append(row[at])
            labels.append(_BLUE_NAMES[label])  # one str per label, not one per row
            numbers.append(start)
        if not labels:
            raise InputError("the file has a header but no rows", file=name, line=first)
        return make_file(name, self.name, None, labels, numbers, extras={"index": index, **columns})


class SciBertJsonl(LabelFormat):
    """SciBERT's ChemProt JSON lines: `{"text", "label", "metadata"}` per line, one of 13 labels, no negative."""

    name = "chemprot-scibert"

    def sniff(self, head: Head) -> Evidence | None:
        """A first line that is a JSON object with exactly the keys text, label and metadata."""
        import orjson

        try:
            first = orjson.loads(head.first_line)
        except orjson.JSONDecodeError:
            return None
        return Evidence.SYNTAX if isinstance(first, dict) and set(first) == _SCIBERT_KEYS else None

    def parse(self, data: bytes, name: str, fields: Fields) -> LabelFile:
        import orjson

        labels: list[str] = []
        numbers: list[int] = []
        for n, line in enumerate(text_lines(decode_text(data, name), name), 1):
            if not line.strip():
                continue
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError as exc:
                raise InputError(jsonl_problem(exc), file=name, line=n) from None
            if not isinstance(record, dict) or "label" not in record:
                raise InputError(
                    'expected an object with a "label" (SciBERT: text, label, metadata)', file=name, line=n
                )
            label = record["label"]
            if not isinstance(label, str) or label not in _SCIBERT_SET:
                raise _label_error(str(label), list(SCIBERT_LABELS), "SciBERT ChemProt", name, n)
            labels.append(label)
            numbers.append(n)
        return make_file(name, self.name, None, labels, numbers)
