"""What the formats share: limits, checks of ids and labels, located errors, JSON records, end-to-end parts.

Rules every label format keeps (docs/formats.md lists each format's leniencies and refusals; issue 11):

* an id is a non-empty string without surrounding white space or control characters — in JSON also an integer,
  read exactly as its decimal digits however large (`18446744073709551617` stays itself, it does not become the
  float string two different ids share); a float, boolean, null, list or object id is refused; ids are unique;
* a label is a non-empty string without surrounding white space or control characters;
* a key that is read (the id, the label, `subj_type`/`obj_type`) may occur once per JSON record: JSON parsers keep
  the last of two silently. Keys that are not read are not checked (they cannot change a score, and checking
  every key of every record would cost a second parse);
* every problem is an InputError naming the file, the line (in a JSON list: the record) and the field, at most
  `MAX_ERRORS` per file.

The checks run on whole columns first and go item by item only to name the items at fault, so a clean file of a
million lines costs a few set and string operations.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from releval.core.errors import MAX_ERRORS, InputError, raise_all
from releval.data.decoding import CONTROL, exact_json, excerpt, keys_may_repeat, white_space_side, with_all_keys
from releval.data.formats.base import LabelFile, located

LABEL_FIELD_CANDIDATES = {
    "gold": ("label", "relation", "gold", "label_true", "y_true"),
    "pred": ("prediction", "pred", "label_pred", "predicted", "label", "relation", "y_pred"),
}
TYPE_FIELDS = ("subj_type", "obj_type")  # extra fields a JSON record may hold (the audit's type constraints)


# ----------------------------------------------------------------------------------------------- ids and labels


def text_problem(kind: str, text: str) -> str | None:
    """Why the string `text` cannot be an id or a label (`kind`), or None: empty or only white space, surrounding
    white space, or a control character — each would make two spellings of one item or class look different."""
    if not text.strip():
        return f"empty {kind}"
    if text != text.strip():
        return f"{kind} {excerpt(text)} has {white_space_side(text)} white space"
    if CONTROL.search(text):
        return f"{kind} {excerpt(text)} holds a control character"
    return None


def label_problem(label: object) -> str | None:
    """Why `label` cannot be a label, or None."""
    if not isinstance(label, str):
        return f"label must be a string, got {json_kind(label)}"
    return text_problem("label", label)


def id_problem(item_id: str) -> str | None:
    """Why the string `item_id` cannot be an id, or None."""
    return text_problem("id", item_id)


def json_kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return excerpt(str(value))


def ids_ok(ids: list[str], plain: bool = False, distinct: set[str] | None = None) -> bool:
    """True when every id is fine (`id_problem` is None for all), checked without a Python loop per id.

    When the joined ids are printable, the only white space they can hold is the ASCII space; with no space at all
    no id can have surrounding white space. `plain`: the caller knows that no id holds a control character (JSON
    that is ASCII without escapes or DEL), so only empty ids and spaces are left to look for. `distinct`: the set
    of the ids when the caller built it anyway (for uniqueness), which finds an empty id in one lookup.
    """
    if ("" in distinct) if distinct is not None else not all(ids):
        return False
    joined = "".join(ids)
    if plain or joined.isprintable():
        return " " not in joined or sum(map(len, map(str.strip, ids))) == len(joined)
    return CONTROL.search(joined) is None and sum(map(len, map(str.strip, ids))) == len(joined)


def check_labels(labels: list, numbers: Sequence[int], name: str, unit: str, fld: str) -> set[str]:
    """Every label a non-empty string without surrounding space or control characters; checked on the distinct
    values first, item by item only to locate a problem. Returns the distinct labels."""
    try:
        distinct = set(labels)
    except TypeError:
        distinct = {None}
    if all(label_problem(x) is None for x in distinct):
        return distinct
    if distinct and all(type(x) is int for x in distinct):  # every label a JSON integer: a model's argmax
        shown = ", ".join(map(str, sorted(distinct)[:5])) + (", …" if len(distinct) > 5 else "")
        raise located(
            f"every label is a JSON integer ({shown}): class indices, not labels — map them to the label names "
            "(your model's id2label) before scoring",
            name,
            unit,
            numbers[0],
            fld,
        )
    raise_problems(labels, numbers, label_problem, name, unit, fld)
    return distinct  # not reached: a label with a problem raised


def raise_problems(
    values: list, numbers: Sequence[int], problem_of: Callable[[Any], str | None], name: str, unit: str, fld: str
) -> None:
    """Every value's problem (up to the error limit) as located errors, raised together; nothing if none."""
    errors: list[InputError] = []
    for value, number in zip(values, numbers):
        problem = problem_of(value)
        if problem is not None:
            errors.append(located(problem, name, unit, number, fld))
            if len(errors) >= MAX_ERRORS:
                break
    raise_all(errors)


def check_ids(
    ids: list[str],
    numbers: Sequence[int],
    name: str,
    unit: str,
    fld: str,
    plain: bool = False,
    distinct: set[str] | None = None,
) -> None:
    if not ids_ok(ids, plain, distinct):
        raise_problems(ids, numbers, id_problem, name, unit, fld)


def refuse_repeated_ids(
    ids: list[str], numbers: Sequence[int], name: str, unit: str = "line", distinct: set[str] | None = None
) -> None:
    if len(set(ids) if distinct is None else distinct) == len(ids):
        return
    seen: dict[str, int] = {}
    errors = []
    for item_id, number in zip(ids, numbers):
        if item_id in seen:
            errors.append(located(f"id {item_id} repeated (first on {unit} {seen[item_id]})", name, unit, number, "id"))
            if len(errors) >= MAX_ERRORS:
                break
        else:
            seen[item_id] = number
    raise_all(errors)


def make_file(
    name: str,
    fmt: str,
    ids: list[str] | None,
    labels: list[str],
    numbers: Sequence[int],
    *,
    unit: str = "line",
    id_field: str = "id",
    label_field: str = "label",
    check_unique: bool = True,
    extras: dict[str, list[str]] | None = None,
    plain_ids: bool = False,
) -> LabelFile:
    """The checked LabelFile: labels, then ids (strings already; `plain_ids`: see `ids_ok`), then their
    uniqueness; held as compact columns (releval.data.columns)."""
    if not labels:
        raise InputError("file has no items", file=name)
    check_labels(labels, numbers, name, unit, label_field)
    if ids is not None:
        distinct = set(ids) if check_unique else None
        check_ids(ids, numbers, name, unit, id_field, plain_ids, distinct)
        if check_unique:
            refuse_repeated_ids(ids, numbers, name, unit, distinct)
    from releval.data.columns import IdColumn, LabelColumn  # numpy: imported once a file is read

    columns = {f: LabelColumn.from_strings(values) for f, values in (extras or {}).items()}
    id_column = None if ids is None else IdColumn.from_strings(ids)
    return LabelFile(name, fmt, id_column, LabelColumn.from_strings(labels), numbers, columns, unit=unit)


def _good_label(label: str) -> bool:
    return label_problem(label) is None


class BlockReader:
    """A file's items read block by block into compact columns, each block checked as `make_file` checks a whole
    file, so that no str per item of the whole file is ever held (issue 13: a 10^7-line pair took 3 GB).

    `add` says False at the first block with a problem: the caller then reads the file by its whole-file path,
    which names every problem (up to `MAX_ERRORS`). When only ids repeat, `finish` names them itself from the
    compact column (`repeated_id_errors`: the same errors the whole-file path gives, without a str per line: a
    GiB of repeated ids took 22 GiB that way), or gives None when hashes collide and the careful path must decide.
    Items are numbered by line from `first`. `plain`: see `ids_ok`.
    """

    def __init__(self, plain: bool = False, extra_fields: Sequence[str] = (), first: int = 1) -> None:
        from releval.data.columns import IdBuilder, LabelCoder

        self.plain = plain
        self.first = first
        self.extra_fields = tuple(extra_fields)
        self.n = 0
        self._ids = IdBuilder()
        self._labels = LabelCoder()
        self._extras = [LabelCoder() for _ in self.extra_fields]

    def add(self, ids: list[str], labels: list[str], extras: Sequence[list[str]] = ()) -> bool:
        """Take one block's ids, labels and extra fields (str each); False, taking nothing, if one is not fine."""
        if not ids_ok(ids, self.plain) or not self._labels.add(labels, _good_label):
            return False
        self._ids.add(ids)
        for coder, values in zip(self._extras, extras):
            coder.add(values)
        self.n += len(ids)
        return True

    def finish(self, name: str, fmt: str, check_unique: bool) -> LabelFile | None:
        """The LabelFile of every block added; None when it has no items or (`check_unique`) an id repeats."""
        if not self.n:
            return None
        from releval.data.columns import has_repeats

        ids = self._ids.column()
        if check_unique and has_repeats(ids):
            errors = repeated_id_errors(ids, self.first, name)
            if errors is None:
                return None
            raise_all(errors)
        extras = {f: coder.column() for f, coder in zip(self.extra_fields, self._extras)}
        return LabelFile(name, fmt, ids, self._labels.column(), range(self.first, self.first + self.n), extras)


def repeated_id_errors(ids: Any, first: int, name: str, unit: str = "line") -> list[InputError] | None:
    """The errors `refuse_repeated_ids` gives for an IdColumn whose item i is on line `first + i` — each repeat
    in line order naming the line of the first copy, at most MAX_ERRORS — found on the hashes (numpy) instead of a
    dict of every id; None when two different ids share a hash among the first repeats (then the caller's careful
    path decides).

    >>> from releval.data.columns import IdColumn
    >>> [str(e) for e in repeated_id_errors(IdColumn.from_strings(["a", "b", "a", "b"]), 1, "f.tsv")]
    ["f.tsv:3: field 'id': id a repeated (first on line 1)", "f.tsv:4: field 'id': id b repeated (first on line 2)"]
    """
    import numpy as np

    hashes = ids.hashes
    order = np.argsort(hashes, kind="stable")  # within equal hashes, in line order
    ordered = hashes[order]
    starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    group_first = order[np.repeat(starts, np.diff(np.append(starts, len(order))))]  # each item's first same-hash
    first_of = np.empty_like(order)
    first_of[order] = group_first  # by line: the first item with the same hash
    del ordered, starts, group_first
    positions = np.flatnonzero(first_of != np.arange(len(order)))[:MAX_ERRORS]
    errors = []
    for i in positions.tolist():
        j = int(first_of[i])
        item_id = ids[i]
        if item_id != ids[j]:
            return None
        errors.append(located(f"id {item_id} repeated (first on {unit} {first + j})", name, unit, first + i, "id"))
    return errors


# ----------------------------------------------------------------------------------------------- text formats


# ----------------------------------------------------------------------------------------------- JSON records


def record_keys(record: Mapping) -> str:
    """The keys of a JSON record, for an error saying which field was not found (at most 20 listed)."""
    keys = [excerpt(str(k), 40) for k in list(record)[:20]]
    more = f", … ({len(record) - 20} more)" if len(record) > 20 else ""
    return f"the record has {', '.join(keys) + more}" if keys else "the record is empty"


def pick_label_field(record: Mapping, role: str, name: str, number: int, unit: str = "line") -> str:
    """The first of the role's candidate label fields present in `record`; none is an error listing its keys."""
    for candidate in LABEL_FIELD_CANDIDATES[role]:
        if candidate in record:
            return candidate
    raise located(
        f"no label field found (tried {', '.join(LABEL_FIELD_CANDIDATES[role])}; {record_keys(record)}); name it "
        f"with --{role}-label-field (--label-field names both files')",
        name,
        unit,
        number,
    )


def json_ids(values: list, numbers: Sequence[int], name: str, unit: str, fld: str) -> list[str]:
    """Ids of JSON records as strings: a string as is, an integer as its decimal digits; anything else refused."""
    if all(type(x) is str for x in values):
        return values
    out: list[str] = []
    errors: list[InputError] = []
    for value, number in zip(values, numbers):
        if type(value) is str:
            out.append(value)
        elif type(value) is int:
            out.append(str(value))
        else:
            errors.append(
                located(f"id must be a string or an integer, got {json_kind(value)}", name, unit, number, fld)
            )
            if len(errors) >= MAX_ERRORS:
                break
    raise_all(errors)
    return out


def records_to_file(
    records: list[Any],
    numbers: Sequence[int],
    name: str,
    id_field: str,
    label_field: str | None,
    fmt: str,
    role: str,
    unit: str,
    check_unique: bool,
) -> LabelFile:
    if not records:
        raise InputError("file has no items", file=name)
    first = records[0]
    if not isinstance(first, dict):
        raise located(f"expected a JSON object, got {json_kind(first)}", name, unit, numbers[0])
    absent_fields(records, numbers, name, unit, role, id_field, label_field)
    lf = label_field or pick_label_field(first, role, name, numbers[0], unit)
    try:
        labels = [r[lf] for r in records]
        raw_ids = [r[id_field] for r in records]
    except (KeyError, TypeError):
        _checked_fields(records, numbers, name, unit, id_field, lf)
        raise AssertionError("unreachable: a record lacked a field but no error was found") from None
    ids = json_ids(raw_ids, numbers, name, unit, id_field)
    extras = {
        f: ["" if r.get(f) is None else str(r[f]) for r in records]
        for f in TYPE_FIELDS
        if f in first and f not in (id_field, lf)
    }
    return make_file(
        name,
        fmt,
        ids,
        labels,
        numbers,
        unit=unit,
        id_field=id_field,
        label_field=lf,
        check_unique=check_unique,
        extras=extras,
    )


def absent_fields(
    records: Sequence[Any],
    numbers: Sequence[int],
    name: str,
    unit: str,
    role: str,
    id_field: str,
    label_field: str | None,
) -> None:
    """One error, at the first record, when no record has the id field (or the named label field; with no label
    field named, the first record has none of the candidates either): the field names are another's, which a
    line-by-line "missing field" would repeat on every record. It names the fields the records have and the
    options that name them.

    >>> try:
    ...     absent_fields([{"sent_id": "1", "rel": "Other"}], [1], "p.jsonl", "line", "pred", "id", None)
    ... except InputError as error:
    ...     print(error.message.split(" (")[0], "…", error.message.split("; ")[-1].split(" (")[0])
    no record has the id field 'id' nor a label field … name them with --pred-id-field and --pred-label-field
    """
    dicts = [r for r in records if isinstance(r, dict)]
    if not dicts:
        return
    first = dicts[0]
    no_id = not any(id_field in r for r in dicts)
    if label_field is not None:
        no_label = not any(label_field in r for r in dicts)
        label_text = f"the label field {label_field!r}"
    else:
        no_label = not any(c in first for c in LABEL_FIELD_CANDIDATES[role])
        label_text = f"a label field (tried {', '.join(LABEL_FIELD_CANDIDATES[role])}"
    if not no_id:
        return  # a missing label field alone: pick_label_field or the per-record check names it
    what = f"the id field {id_field!r}" + (f" nor {label_text}" if no_label else "")
    keys = record_keys(first)
    keys = f"; {keys})" if no_label and label_field is None else f" ({keys})"
    options = (
        f"--{role}-id-field and --{role}-label-field (--id-field and --label-field name both files')"
        if no_label
        else f"--{role}-id-field (--id-field names both files')"
    )
    raise located(
        f"no record has {what}{keys}; name {'them' if no_label else 'it'} with {options}",
        name,
        unit,
        numbers[records.index(first)],
        id_field,
    )


def _checked_fields(
    records: list[Any], numbers: Sequence[int], name: str, unit: str, id_field: str, label_field: str
) -> None:
    errors: list[InputError] = []
    for rec, number in zip(records, numbers):
        if not isinstance(rec, dict):
            errors.append(located(f"expected a JSON object, got {json_kind(rec)}", name, unit, number))
        else:
            errors += [
                located(f"missing field ({record_keys(rec)})", name, unit, number, f)
                for f in (id_field, label_field)
                if f not in rec
            ]
        if len(errors) >= MAX_ERRORS:
            break
    raise_all(errors)


def repeated_key_errors(
    data: bytes,
    records: list[Any],
    numbers: Sequence[int],
    raws: list[bytes] | None,
    keys: Sequence[str],
    name: str,
    unit: str,
) -> list[InputError]:
    """A read key twice in one record is an error at that record: JSON parsers silently keep the last value.

    Cheap unless the byte counts of `keys_may_repeat` leave doubt; then the records are read again with the
    standard library's `json` (which shows every key) — line by line for JSON lines (`raws`), whole for a list.
    """
    keys = [k for k in dict.fromkeys(keys) if k]
    present = {k: sum(1 for r in records if isinstance(r, dict) and k in r) for k in keys}
    if not keys_may_repeat(data, keys, present):
        return []
    if raws is not None:
        found = [(number, getattr(with_all_keys(raw), "repeated", [])) for raw, number in zip(raws, numbers)]
    else:
        whole = with_all_keys(data)
        if not isinstance(whole, list):
            return []
        found = [(n, getattr(r, "repeated", [])) for n, r in zip(numbers, whole)]
    return [
        located("key written twice in one record (a JSON parser keeps only the last value)", name, unit, n, k)
        for n, repeated in found
        for k in repeated
        if k in keys
    ][:MAX_ERRORS]


# ----------------------------------------------------------------------------------------------- end-to-end parts


TWICE = "key written twice in one object (a JSON parser keeps only the last value)"


def exact_ids(value: Any, raw: bytes, keys: tuple[str, ...]) -> Any:
    """`value` re-read with exact integers when one of `keys` (or any, for `()`) holds a float: orjson reads an
    integer beyond 64 bits as a float, and two such ids could print alike."""
    if keys and not any(isinstance(value, dict) and type(value.get(k)) is float for k in keys):
        return value
    exact = exact_json(raw)
    return value if exact is None else exact


def type_name_problem(value: Any) -> str | None:
    """Why `value` cannot be an entity or relation type: not a string, empty, or holding a control character."""
    if not isinstance(value, str):
        return f"must be a string, got {json_kind(value)}"
    if not value.strip():
        return "is empty"
    if CONTROL.search(value):
        return f"{excerpt(value)} holds a control character"
    return None


def doc_id(value: Any) -> tuple[str | None, str | None]:
    """(id, None) for a sentence/document id — a string without surrounding white space or control characters, or
    an integer as its decimal digits — else (None, why not). Null is no id: (None, None)."""
    if value is None:
        return None, None
    if type(value) is int:
        return str(value), None
    if not isinstance(value, str):
        return None, f"must be a string or an integer, got {json_kind(value)}"
    if not value or value != value.strip() or CONTROL.search(value):
        return None, f"{excerpt(value)} is empty, has surrounding white space or holds a control character"
    return value, None
