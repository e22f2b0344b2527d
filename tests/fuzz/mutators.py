"""Structure-aware mutators: from a well-formed seed to an input that is slightly or badly wrong (or still right).

Three levels, combined by `mutate`:

- JSON values (JSON seeds): a value of the wrong type (string, integer, list, null, boolean, object, NaN, 1e400,
  a lone surrogate, an escaped NUL, an integer of 2^64 or more, a 128 KiB string), a missing or extra key, a
  duplicate key, a duplicate / empty / space-padded id, nesting a thousand levels deep, records dropped, repeated or
  swapped, e2e spans shifted and relation indices pointing nowhere; re-serialised compact or indented, ASCII or not;
- lines and fields (text seeds, and JSON text): lines joined (two JSON objects on one line) or split (a record
  across lines), dropped, repeated, swapped, blank lines, ids and labels emptied, padded, repeated, re-cased,
  unknown, huge (> 128 KiB), with NUL, lone CR or other control characters, extra fields, bad CSV quoting;
- bytes and encodings: bit flips, insertions, deletions, truncation, UTF-8 BOM (once or twice), UTF-16, invalid
  UTF-8, NUL, lone CR / CR-only / CRLF / LF line ends, and a gzip layer, intact or corrupted (flipped, truncated,
  trailing garbage, twice gzipped).

Every mutator is a plain function of a `random.Random`, so a case is replayed from its seed and index alone.
"""

from __future__ import annotations

import copy
import gzip
import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.fuzz.seeds import Seed

HUGE = 131072 + 64  # just over Python csv's field_size_limit (128 KiB)


class Raw:
    """Text written into the JSON as is (NaN, 1e400, "\\ud800", deep nesting): json.dumps cannot write these."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return f"Raw({self.text[:30]!r})"


def _pool(rng: random.Random) -> Any:
    """A value of some type, often the wrong one for where it lands."""
    choices: list[Any] = [
        "", " ", "x", " x", "x ", "\x00", "a\x00b", "\ufeff", "\r", "a\nb", "\u2028", "Öther", "no_relation",
        0, 1, -1, 7, 2**63 - 1, 2**63, 2**64, 2**64 + 1, -(2**63) - 1, 10**30,
        True, False, None, [], [5], ["x"], [None], {}, {"a": 1}, [[]], [[5]],
        Raw("1.5"), Raw("1.0"), Raw("1e2"), Raw("-0"), Raw("NaN"), Raw("Infinity"), Raw("-Infinity"), Raw("1e400"),
        Raw('"\\ud800"'), Raw('"a\\udc00"'), Raw('"\\u0000"'), Raw('"\\u001f"'), Raw("9" * 5000),
    ]  # fmt: skip
    if rng.random() < 0.04:
        return "x" * (HUGE + rng.randrange(2000))
    return rng.choice(choices)


def _deep(rng: random.Random) -> Raw:
    depth = rng.choice([100, 257, 600, 1000, 1023, 1024, 1025, 2000, 5000])
    if rng.random() < 0.5:
        return Raw("[" * depth + "]" * depth)
    return Raw('{"a":' * depth + "1" + "}" * depth)


# ----------------------------------------------------------------------------------------------- JSON values


def _paths(value: Any) -> list[tuple[Any, Any]]:
    """Every (container, key or index) in the value, found without recursion."""
    out: list[tuple[Any, Any]] = []
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, child in node.items():
                out.append((node, key))
                stack.append(child)
        elif isinstance(node, list):
            for index, child in enumerate(node):
                out.append((node, index))
                stack.append(child)
    return out


def _records(value: Any) -> list[dict[str, Any]]:
    """The records (objects) at the top of a JSON seed: list items, or the items of every split list."""
    if isinstance(value, list):
        return [r for r in value if isinstance(r, dict)]
    if isinstance(value, dict):
        return [r for v in value.values() if isinstance(v, list) for r in v if isinstance(r, dict)]
    return []


@dataclass
class JsonState:
    """A JSON value being mutated, plus the textual edits json.dumps cannot make (duplicate keys)."""

    value: Any
    dup_keys: dict[str, str] = field(default_factory=dict)  # sentinel key -> the existing key it repeats


def j_wrong_type(rng: random.Random, st: JsonState, seed: Seed) -> str | None:
    paths = _paths(st.value)
    hot = [p for p in paths if p[1] in seed.hot_keys]
    if not paths:
        return None
    parent, key = rng.choice(hot) if hot and rng.random() < 0.7 else rng.choice(paths)
    parent[key] = _pool(rng)
    return f"json-wrong-type({key})" if isinstance(key, str) else "json-wrong-type([i])"


def j_delete_key(rng: random.Random, st: JsonState, seed: Seed) -> str | None:
    paths = [p for p in _paths(st.value) if isinstance(p[0], dict)]
    hot = [p for p in paths if p[1] in seed.hot_keys]
    if not paths:
        return None
    parent, key = rng.choice(hot) if hot and rng.random() < 0.7 else rng.choice(paths)
    del parent[key]
    return f"json-delete-key({key})"


def j_add_key(rng: random.Random, st: JsonState, seed: Seed) -> str | None:
    recs = _records(st.value)
    if not recs:
        return None
    rng.choice(recs)[rng.choice(["extra", "note", "x"])] = _pool(rng)
    return "json-add-key"


def j_dup_key(rng: random.Random, st: JsonState, seed: Seed) -> str | None:
    dicts = [p[0][p[1]] for p in _paths(st.value) if isinstance(p[0][p[1]], dict) and p[0][p[1]]]
    dicts += _records(st.value)
    dicts = [d for d in dicts if d]
    if not dicts:
        return None
    target = rng.choice(dicts)
    hot = [k for k in target if k in seed.hot_keys]
    key = rng.choice(hot) if hot and rng.random() < 0.8 else rng.choice(list(target))
    sentinel = f"\x01DUP{len(st.dup_keys)}\x01"
    st.dup_keys[sentinel] = key
    value = copy.deepcopy(target[key]) if rng.random() < 0.3 else _pool(rng)
    if rng.random() < 0.5:
        target[sentinel] = value  # after: the last value wins in most parsers
    else:
        items = list(target.items())
        target.clear()
        target[sentinel] = value
        target.update(items)
    return f"json-dup-key({key})"


def _id_key(seed: Seed) -> str:
    return {"spert": "orig_id", "dygie": "doc_key"}.get(seed.format, seed.id_field)


def j_id(rng: random.Random, st: JsonState, seed: Seed) -> str | None:
    """An id made duplicate, empty, space-padded, an integer, a big integer, or a float."""
    recs = [r for r in _records(st.value) if _id_key(seed) in r]
    if not recs:
        return None
    key = _id_key(seed)
    rec = rng.choice(recs)
    kind = rng.choice(["dup", "empty", "space", "int", "big", "big-neg", "float", "int-str-clash", "null"])
    if kind == "dup":
        rec[key] = copy.deepcopy(rng.choice(recs)[key])
    elif kind == "empty":
        rec[key] = ""
    elif kind == "space":
        rec[key] = rng.choice([" ", "  ", "\t"]) + str(rec[key]) if rng.random() < 0.5 else str(rec[key]) + " "
    elif kind == "int":
        rec[key] = rng.randrange(10**6)
    elif kind == "big":
        rec[key] = 2**64 + rng.randrange(1000)
    elif kind == "big-neg":
        rec[key] = -(2**63) - 1 - rng.randrange(1000)
    elif kind == "float":
        rec[key] = Raw(rng.choice(["1.0", "1e3", "12.5"]))
    elif kind == "int-str-clash":
        a, b = rng.choice(recs), rng.choice(recs)
        a[key], b[key] = 4242, "4242"
    else:
        rec[key] = None
    return f"json-id-{kind}"


def j_deep(rng: random.Random, st: JsonState, seed: Seed) -> str | None:
    recs = _records(st.value)
    if not recs:
        return None
    rec = rng.choice(recs)
    keys = [k for k in rec if k in seed.hot_keys]
    key = rng.choice(keys) if keys and rng.random() < 0.4 else "extra"
    rec[key] = _deep(rng)
    return f"json-deep-nesting({key})"


def j_records(rng: random.Random, st: JsonState, seed: Seed) -> str | None:
    """A record dropped, repeated, swapped; all records dropped; the top value replaced."""
    if isinstance(st.value, list):
        lists = [st.value]
    elif isinstance(st.value, dict):
        lists = [v for v in st.value.values() if isinstance(v, list)]
    else:
        return None
    lists = [x for x in lists if x]
    if not lists:
        return None
    target = rng.choice(lists)
    kind = rng.choice(["drop", "dup", "swap", "empty", "top"])
    i, j = rng.randrange(len(target)), rng.randrange(len(target))
    if kind == "drop":
        del target[i]
    elif kind == "dup":
        target.insert(j, copy.deepcopy(target[i]))
    elif kind == "swap":
        target[i], target[j] = target[j], target[i]
    elif kind == "empty":
        target.clear()
    elif seed.jsonl:
        target[i] = rng.choice([5, "x", None, [], [target[i]], True])
    else:
        st.value = rng.choice([{}, {"data": st.value}, "x", 5, None, True, [st.value]])
    return f"json-records-{kind}"


def j_e2e(rng: random.Random, st: JsonState, seed: Seed) -> str | None:
    """e2e: a span shifted or emptied, a relation index or argument span pointing nowhere, an item shortened."""
    recs = _records(st.value)
    if not recs:
        return None
    rec = rng.choice(recs)
    if seed.format == "spert":
        ents, rels = rec.get("entities"), rec.get("relations")
        if rng.random() < 0.6 and isinstance(ents, list) and ents and isinstance(ents[0], dict):
            ent = rng.choice(ents)
            which = rng.choice(["start", "end"])
            if isinstance(ent.get(which), int):
                tokens = rec.get("tokens")
                ent[which] += rng.choice([-2, -1, 1, 2, len(tokens) if isinstance(tokens, list) else 5, -100])
                return f"e2e-span-shift({which})"
        if isinstance(rels, list) and rels and isinstance(rels[0], dict):
            rel = rng.choice(rels)
            rel[rng.choice(["head", "tail"])] = rng.choice([-1, len(ents) if isinstance(ents, list) else 99, 99])
            return "e2e-index"
        return None
    keys = [k for k in ("ner", "relations", "predicted_ner", "predicted_relations") if isinstance(rec.get(k), list)]
    if not keys:
        return None
    key = rng.choice(keys)
    items = [
        it
        for sent in rec[key]
        if isinstance(sent, list)
        for it in sent
        if isinstance(it, list) and len(it) >= 2 and all(type(x) is int for x in it[:2])
    ]
    if not items:
        return None
    item = rng.choice(items)
    kind = rng.choice(["shift", "short", "swap-ends", "far"])
    if kind == "shift":
        item[rng.randrange(2)] += rng.choice([-1, 1, 3])
    elif kind == "short":
        del item[2 if "ner" in key else 4 :]
    elif kind == "swap-ends":
        item[0], item[1] = item[1], item[0]
    else:
        item[0] += 1000
        item[1] += 1000
    return f"dygie-{kind}({key})"


JSON_MUTATORS: list[Callable[[random.Random, JsonState, Seed], str | None]] = [
    j_wrong_type, j_wrong_type, j_wrong_type, j_delete_key, j_add_key, j_dup_key, j_id, j_id, j_deep, j_records,
    j_e2e, j_e2e,
]  # fmt: skip


def dumps(st: JsonState, seed: Seed, rng: random.Random) -> bytes:
    """Serialise compact or indented, ASCII or not; then write the raw values and duplicate keys in."""
    raws: dict[str, str] = {}

    def default(obj: Any) -> Any:
        if isinstance(obj, Raw):
            sentinel = f"\x01RAW{len(raws)}\x01"
            raws[json.dumps(sentinel)] = obj.text
            return sentinel
        raise TypeError(type(obj).__name__)

    ascii_ = rng.random() < 0.3
    compact = rng.random() < 0.3
    seps = (",", ":") if compact else None
    if seed.jsonl:
        records = st.value if isinstance(st.value, list) else [st.value]
        text = "".join(json.dumps(r, ensure_ascii=ascii_, separators=seps, default=default) + "\n" for r in records)
    else:
        indent = seed.indent if rng.random() < 0.7 else rng.choice([None, 1, 2])
        text = json.dumps(st.value, ensure_ascii=ascii_, separators=seps, indent=indent, default=default)
    for sentinel, raw in raws.items():
        text = text.replace(sentinel, raw)
    for sentinel, key in st.dup_keys.items():
        text = text.replace(json.dumps(sentinel), json.dumps(key, ensure_ascii=ascii_))
    return text.encode("utf-8", errors="surrogatepass")


# ----------------------------------------------------------------------------------------------- lines and fields


def _sep(seed: Seed) -> str:
    return "," if seed.format == "csv" else "\t"


def l_join(rng: random.Random, lines: list[str], seed: Seed) -> str | None:
    if len(lines) < 2:
        return None
    i = rng.randrange(len(lines) - 1)
    lines[i : i + 2] = [lines[i] + rng.choice(["", " ", "\t"]) + lines[i + 1]]
    return "jsonl-two-on-one-line" if seed.jsonl else "join-lines"


def l_split(rng: random.Random, lines: list[str], seed: Seed) -> str | None:
    cands = [i for i, ln in enumerate(lines) if len(ln) > 1]
    if not cands:
        return None
    i = rng.choice(cands)
    line = lines[i]
    structural = [k + 1 for k, c in enumerate(line) if c in ",:{["] if seed.jsonl else []
    cut = rng.choice(structural) if structural and rng.random() < 0.7 else rng.randrange(1, len(line))
    lines[i : i + 1] = [line[:cut], line[cut:]]
    return "jsonl-record-split" if seed.jsonl else "split-line"


def l_reorder(rng: random.Random, lines: list[str], seed: Seed) -> str | None:
    if not lines:
        return None
    kind = rng.choice(["drop", "dup", "swap", "blank", "blank-ws", "final-blanks"])
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    if kind == "drop":
        del lines[i]
    elif kind == "dup":
        lines.insert(j, lines[i])
    elif kind == "swap":
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == "blank":
        lines.insert(i, "")
    elif kind == "blank-ws":
        lines.insert(i, rng.choice([" ", "\t", "  \t"]))
    else:
        lines.extend(["", ""])
    return f"line-{kind}"


def _field_lines(lines: list[str], seed: Seed) -> list[int]:
    """Indices of lines holding an item (not the CSV/TSV header, not SemEval comment or blank lines)."""
    if seed.format == "semeval":
        return [i for i, ln in enumerate(lines) if ln[:1].isdigit()]
    start = 1 if seed.format in ("csv", "tsv") else 0
    return [i for i in range(start, len(lines)) if lines[i].strip()]


def l_field(rng: random.Random, lines: list[str], seed: Seed) -> str | None:
    """An id or label made empty, padded, repeated, re-cased, unknown, huge, or given a control character."""
    idx = _field_lines(lines, seed)
    if not idx:
        return None
    i = rng.choice(idx)
    sep = _sep(seed)
    if seed.format == "labels-lines":
        parts, which = [lines[i]], 0
    elif seed.format == "semeval":
        if rng.random() < 0.5 and i + 1 < len(lines):
            i, parts, which = i + 1, [lines[i + 1]], 0  # the label line
        else:
            parts, which = lines[i].split("\t", 1), 0
    else:
        parts = lines[i].split(sep)
        which = rng.randrange(min(len(parts), 2))
    target = parts[which]
    kinds = ["empty", "space-before", "space-after", "dup", "case", "unknown", "huge", "nul", "cr", "control",
             "unicode", "extra-field", "tab-space", "bigint", "unicode-digit", "quote", "bad-quote",
             "number"]  # fmt: skip
    kind = rng.choice(kinds)
    if kind == "empty":
        target = ""
    elif kind == "space-before":
        target = rng.choice([" ", "\t", "\u00a0", "\u3000"]) + target
    elif kind == "space-after":
        target = target + rng.choice([" ", "  ", "\x0b", "\x1c"])
    elif kind == "dup":
        other = lines[rng.choice(idx)]
        target = other.split(sep)[0] if seed.format not in ("labels-lines",) else other
    elif kind == "case":
        target = target.lower() if target != target.lower() else target.upper()
    elif kind == "unknown":
        target = rng.choice(["Foo", "per:nothing", "Other(e1,e2)", "Cause-Effect", "Cause-Effect(e1,e1)"])
    elif kind == "huge":
        target = target + "x" * (HUGE + rng.randrange(1000))
    elif kind == "nul":
        k = rng.randrange(len(target) + 1)
        target = target[:k] + "\x00" + target[k:]
    elif kind == "cr":
        k = rng.randrange(len(target) + 1)
        target = target[:k] + "\r" + target[k:]
    elif kind == "control":
        k = rng.randrange(len(target) + 1)
        target = target[:k] + rng.choice(["\x01", "\x1f", "\x7f", "\x85", "\ufeff", "\u200b"]) + target[k:]
    elif kind == "unicode":
        target = target + rng.choice(["é", "ß", "漢", "😀", "\u0301"])
    elif kind == "extra-field":
        target = target + sep + rng.choice(["x", "", "Other"])
    elif kind == "tab-space":
        parts = [sep.join(parts).replace(sep, " ", 1)]
        which, target = 0, parts[0]
    elif kind == "bigint":
        target = str(2**64 + rng.randrange(100)) if which == 0 else target
    elif kind == "unicode-digit":
        target = target.replace("0", "\u0660", 1).replace("1", "\u0661", 1)
    elif kind == "number":  # numerals, good and bad (p-value and effect columns)
        target = rng.choice(["1.5", "-0.1", "nan", "inf", "1e-400", "1e400", "0x1", "5%", "0,05", " 0.5 ", "0.5_0",
                             "\u0660.\u0665", "1", "0", ".5", "5.", "+0.5", "1e-3", "-0", "0.05\t"])  # fmt: skip
    elif kind == "quote":
        target = '"' + target.replace('"', '""') + '"'
    else:
        target = rng.choice(['"' + target, target + '"', '"' + target + '"x', '"' + target + '" '])
    parts[which] = target
    lines[i] = (sep if seed.format != "semeval" else "\t").join(parts)
    return f"field-{kind}"


LINE_MUTATORS: list[Callable[[random.Random, list[str], Seed], str | None]] = [
    l_join, l_split, l_reorder, l_field, l_field, l_field,
]  # fmt: skip


# ----------------------------------------------------------------------------------------------- bytes


def _at(rng: random.Random, data: bytes) -> int:
    return rng.randrange(len(data) + 1)


def b_flip(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    if not data:
        return data, "byte-flip(empty)"
    buf = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        k = rng.randrange(len(buf))
        buf[k] = buf[k] ^ (1 << rng.randrange(8)) if rng.random() < 0.7 else rng.randrange(256)
    return bytes(buf), "byte-flip"


def b_edit(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    kind = rng.choice(["insert", "delete", "dup", "truncate", "truncate"])
    k = _at(rng, data)
    if kind == "insert":
        return data[:k] + bytes(rng.randrange(256) for _ in range(rng.randint(1, 8))) + data[k:], "byte-insert"
    if kind == "delete":
        return data[:k] + data[k + rng.randint(1, 64) :], "byte-delete"
    if kind == "dup":
        return data[:k] + data[k : k + rng.randint(1, 200)] + data[k:], "byte-dup"
    return data[: rng.choice([0, k, k, max(0, len(data) - 1)])], "truncate"


def b_encoding(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    kind = rng.choice(["bom", "bom-twice", "utf16", "utf16be", "invalid-utf8", "nul", "nul", "bom-inside"])
    k = _at(rng, data)
    if kind == "bom":
        return b"\xef\xbb\xbf" + data, "bom-utf8"
    if kind == "bom-twice":
        return b"\xef\xbb\xbf\xef\xbb\xbf" + data, "bom-utf8-twice"
    if kind in ("utf16", "utf16be"):
        text = data.decode("utf-8", errors="replace")
        return (text.encode("utf-16") if kind == "utf16" else text.encode("utf-16-be")), kind
    if kind == "invalid-utf8":
        bad = rng.choice([b"\xff", b"\xc0\x80", b"\xed\xa0\x80", b"\xc3", b"\x80", b"\xf4\x90\x80\x80"])
        return data[:k] + bad + data[k:], "invalid-utf8"
    if kind == "bom-inside":
        nl = [i + 1 for i, b in enumerate(data) if b == 10]
        k = rng.choice(nl) if nl else k
        return data[:k] + b"\xef\xbb\xbf" + data[k:], "bom-inside"
    return data[:k] + b"\x00" + data[k:], "nul-byte"


def b_line_ends(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    kind = rng.choice(["lone-cr", "lone-cr", "cr-only", "crlf", "lf", "no-final", "cr-cr-lf"])
    if kind == "lone-cr":
        nl = [i for i, b in enumerate(data) if b == 10]
        if nl and rng.random() < 0.5:
            k = rng.choice(nl)
            return data[:k] + b"\r" + data[k + 1 :], "lone-cr(replaces-lf)"
        k = _at(rng, data)
        return data[:k] + b"\r" + data[k:], "lone-cr"
    if kind == "cr-only":
        return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r"), "cr-only"
    if kind == "crlf":
        return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"), "crlf"
    if kind == "lf":
        return data.replace(b"\r\n", b"\n"), "lf"
    if kind == "cr-cr-lf":
        return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\r\n"), "cr-cr-lf"
    return data.rstrip(b"\r\n"), "no-final-newline"


BYTE_MUTATORS = [b_flip, b_flip, b_edit, b_edit, b_encoding, b_encoding, b_line_ends]


def gzip_layer(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    """gzip the file, intact or corrupted: a flipped header, body or trailer byte, truncated, garbage after it,
    zero padding after it (valid), gzipped twice, two members."""
    gz = gzip.compress(data, mtime=0)
    kind = rng.choice(["ok", "ok", "flip-header", "flip-body", "flip-trailer", "truncate", "garbage", "zeros",
                       "twice", "two-members"])  # fmt: skip
    buf = bytearray(gz)
    if kind == "flip-header":
        k = rng.randrange(2, 10)
        buf[k] ^= 1 << rng.randrange(8)
    elif kind == "flip-body" and len(buf) > 18:
        k = rng.randrange(10, len(buf) - 8)
        buf[k] ^= 1 << rng.randrange(8)
    elif kind == "flip-trailer":
        k = rng.randrange(len(buf) - 8, len(buf))
        buf[k] ^= 1 << rng.randrange(8)
    elif kind == "truncate":
        buf = buf[: rng.randrange(2, len(buf))]
    elif kind == "garbage":
        buf += bytes(rng.randrange(1, 256) for _ in range(rng.randint(1, 12)))
    elif kind == "zeros":
        buf += b"\x00" * rng.randint(1, 16)
    elif kind == "twice":
        buf = bytearray(gzip.compress(gz, mtime=0))
    elif kind == "two-members":
        buf += gz
    return bytes(buf), f"gzip-{kind}"


# ----------------------------------------------------------------------------------------------- the plan


@dataclass(frozen=True)
class Mutated:
    """A mutated input: its bytes, the mutators applied in order, and whether it is gzipped (name ends in .gz)."""

    data: bytes
    names: tuple[str, ...]
    gzipped: bool


def _split_text(data: bytes, newline: str) -> tuple[list[str], bool]:
    text = data.decode("utf-8")
    final = text.endswith(newline)
    lines = text.split(newline)
    if final:
        lines.pop()
    return lines, final


def _guarded(mutator: Callable[..., str | None], *args: Any) -> str | None:
    """Run a mutator; one that meets an odd value left by an earlier mutation gives up (deterministically)."""
    try:
        return mutator(*args)
    except (TypeError, ValueError, KeyError, IndexError, AttributeError):
        return None


def mutate(rng: random.Random, seed: Seed) -> Mutated:
    """1-4 mutations of the seed: maybe JSON values, maybe lines and fields, maybe bytes, maybe a gzip layer."""
    names: list[str] = []
    data = seed.data
    if seed.value is not None and rng.random() < 0.55:
        st = JsonState(copy.deepcopy(seed.value))
        for _ in range(1 if rng.random() < 0.8 else 2):
            name = _guarded(rng.choice(JSON_MUTATORS), rng, st, seed)
            if name:
                names.append(name)
        data = dumps(st, seed, rng)
    if rng.random() < (0.5 if seed.value is None else 0.2):
        try:
            lines, final = _split_text(data, seed.newline)
        except UnicodeDecodeError:
            lines, final = [], True
        if lines:
            choices = LINE_MUTATORS if seed.value is None else LINE_MUTATORS[:3]  # JSON text: lines only
            for _ in range(1 if rng.random() < 0.75 else 2):
                name = _guarded(rng.choice(choices), rng, lines, seed)
                if name:
                    names.append(name)
            text = seed.newline.join(lines) + (seed.newline if final else "")
            data = text.encode("utf-8", errors="surrogatepass")
    if not names or rng.random() < 0.35:
        for _ in range(1 if rng.random() < 0.8 else 2):
            data, name = rng.choice(BYTE_MUTATORS)(rng, data)
            names.append(name)
    gzipped = False
    if rng.random() < 0.1:
        data, name = gzip_layer(rng, data)
        names.append(name)
        gzipped = True
    return Mutated(data, tuple(names), gzipped)
