"""A bounded fuzz run per newer task family (issue 34): seeded random mutations of a bundled example through the
family's readers — ranked facts, DocRED, FewRel, DrugProt.

Every mutated input must either be read or be refused with one InputError (or InputErrors) that names the file and
a place (line, record or field) in a message of one line. Anything else raised fails the test (455 of 35,000
mutated inputs ended in "internal error" before). What is read is checked against what the format allows (ids
without surrounding white space, finite scores, mention sentences inside their document, answers in range …), so
a silent misreading of the kinds issue 34 found fails too.

Each family runs CASES mutations with a fixed seed and CASES with a random one (printed, and in the failure
message; RELEVAL_FUZZ_SEED=N replays it). A failure names the seed, the case index and the mutations, so
`_case(family, seed, index)` rebuilds the input.
"""

from __future__ import annotations

import gzip
import json
import os
import random
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from tests.conftest import EXAMPLES

from releval.core.errors import InputError, InputErrors
from releval.data import docred, drugprot, fewrel, ranked

CASES = int(os.environ.get("RELEVAL_FUZZ_CASES") or 150)  # a longer hunt: RELEVAL_FUZZ_CASES=5000
FIXED_SEED = 34
_LOCATED = re.compile(r":\d+:|\brecord \d+|\bfield '|\bline \d+")
# Problems of a whole file, which have no line to name: nothing in it, or not the JSON value the format is.
_WHOLE_FILE = re.compile(
    r"empty|\d+ \w+s for \d+ queries|expected a JSON list|is a JSON list|expected a list"
    r"|\bno (predictions|gold|episodes)"
)

# ----------------------------------------------------------------------------------------------- mutations

_HOSTILE_TOKENS = [
    b"\r",
    b"\r\n",
    b"\n",
    b"\xff",
    b"\xc3\x28",
    b"\xed\xa0\x80",
    b"\x00",
    b" ",
    "\u00a0".encode(),
    b"\t",
    b'"',
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b"100000000000000000000",
    b"9223372036854775808",
    b"-1",
    b"1e400",
    b"NaN",
    b"1" * 5000,
    b"[" * 3000 + b"]" * 3000,
]


def _flip(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    at = rng.randrange(len(data))
    return data[:at] + bytes([data[at] ^ (1 << rng.randrange(8))]) + data[at + 1 :], f"flip@{at}"


def _insert(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    at = rng.randrange(len(data) + 1)
    token = rng.choice(_HOSTILE_TOKENS)
    return data[:at] + token + data[at:], f"insert {token[:12]!r}@{at}"


def _number(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    """A number of the file replaced by a hostile one (huge, negative, past the document)."""
    spots = [m.span() for m in re.finditer(rb"(?<![\w.])\d+(?![\w.])", data)]
    if not spots:
        return _insert(rng, data)
    start, end = rng.choice(spots)
    token = rng.choice([b"100000000000000000000", b"9223372036854775808", b"-1", b"999", b"1" * 5000, b"1.5"])
    return data[:start] + token + data[end:], f"number {token[:12]!r}@{start}"


def _key_twice(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    """A JSON key written again in its object, with another value."""
    spots = [m for m in re.finditer(rb'"(\w+)": ', data)]
    if not spots:
        return _insert(rng, data)
    m = rng.choice(spots)
    value = rng.choice([b"0", b'"x"', b"0.5", b"[]"])
    return data[: m.start()] + m.group(0) + value + b", " + data[m.start() :], f"key twice {m.group(1)!r}"


def _pad(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    """White space around a cell of a tab-separated line or inside a JSON string's quotes."""
    spots = [m.start() for m in re.finditer(rb'\t|"', data)]
    if not spots:
        return _insert(rng, data)
    at = rng.choice(spots) + 1
    pad = rng.choice([b" ", "\u00a0".encode()])
    return data[:at] + pad + data[at:], f"pad {pad!r}@{at}"


def _lines(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    """A line dropped, repeated, split in two or joined to the next."""
    lines = data.split(b"\n")
    i = rng.randrange(len(lines))
    kind = rng.choice(["drop", "repeat", "split", "join"])
    if kind == "drop":
        del lines[i]
    elif kind == "repeat":
        lines.insert(i, lines[i])
    elif kind == "split" and lines[i]:
        at = rng.randrange(len(lines[i]))
        lines[i : i + 1] = [lines[i][:at], lines[i][at:]]
    elif i + 1 < len(lines):
        lines[i : i + 2] = [lines[i] + lines[i + 1]]
    return b"\n".join(lines), f"{kind} line {i + 1}"


def _truncate(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    at = rng.randrange(len(data))
    return data[:at], f"truncate@{at}"


MUTATORS = [_flip, _insert, _insert, _number, _number, _key_twice, _pad, _lines, _truncate]


def mutate(rng: random.Random, data: bytes) -> tuple[bytes, list[str]]:
    done = []
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        data, what = (rng.choice(MUTATORS) if data else _insert)(rng, data)
        done.append(what)
    return data, done


# ----------------------------------------------------------------------------------------------- families


@dataclass(frozen=True)
class Family:
    """A family's seed files (name → bytes), and a reader of one case: it writes the files into a folder, reads
    them with the family's readers and checks what was read (an AssertionError is a misreading)."""

    name: str
    seeds: Callable[[], dict[str, bytes]]
    read: Callable[[Path], None]


def _clean(text: str) -> bool:
    return bool(text) and text == text.strip() and not re.search("[\x00-\x1f\x7f-\x9f]", text)


def ranked_seeds() -> dict[str, bytes]:
    gold = b"".join((EXAMPLES / "ranked" / "gold.jsonl").read_bytes().splitlines(keepends=True)[:25])
    pred = b"".join((EXAMPLES / "ranked" / "pcnn.jsonl").read_bytes().splitlines(keepends=True)[:25])
    tsv = b"".join((EXAMPLES / "ranked" / "cnn.tsv").read_bytes().splitlines(keepends=True)[:25])
    return {"gold.jsonl": gold, "pred.jsonl": pred, "pred.tsv": tsv}


def ranked_read(folder: Path) -> None:
    gold = ranked.load_gold(folder / "gold.jsonl")
    assert all(map(_clean, gold.heads + gold.tails + gold.sentence_relations))
    for name in ("pred.jsonl", "pred.tsv"):
        pred = ranked.load_predictions(folder / name)
        assert all(map(_clean, pred.heads + pred.tails + pred.relations))
        assert not np.isnan(pred.scores).any() and len(pred.lines) == len(pred.heads)


def docred_seeds() -> dict[str, bytes]:
    docs = json.loads(gzip.decompress((EXAMPLES / "docred" / "redocred_dev_first40.json.gz").read_bytes()))[:2]
    titles = {d["title"] for d in docs}
    preds = [p for p in json.loads(gzip.decompress((EXAMPLES / "docred" / "system_a.json.gz").read_bytes()))]
    preds = [p for p in preds if p["title"] in titles][:20]
    return {"gold.json": json.dumps(docs, indent=1).encode(), "pred.json": json.dumps(preds, indent=1).encode()}


def docred_read(folder: Path) -> None:
    gold = docred.load_gold(folder / "gold.json")
    for doc in gold.documents:
        assert all(0 <= s < doc.n_sentences for sents in doc.sentences for s in sents), doc.title
        assert all(0 <= h < len(doc.names) and 0 <= t < len(doc.names) for h, t, _, _ in doc.labels)
    sub = docred.load_submission(folder / "pred.json", gold)
    by_title = gold.by_title()
    for p in sub.predictions:
        if p.title in by_title:
            assert 0 <= p.h < len(by_title[p.title].names) and 0 <= p.t < len(by_title[p.title].names)


def fewrel_seeds() -> dict[str, bytes]:
    entries = json.loads(gzip.decompress((EXAMPLES / "fewrel" / "gold-5-1.json.gz").read_bytes()))[:4]
    for entry in entries:  # short tokens keep the cases small
        for support in entry["meta_train"]:
            for instance in support:
                instance["tokens"] = instance["tokens"][:6]
        entry["meta_test"]["tokens"] = entry["meta_test"]["tokens"][:6]
    preds = json.loads((EXAMPLES / "fewrel" / "pred-bow-5-1.json").read_bytes())[:4]
    return {"gold.json": json.dumps(entries).encode(), "pred.json": json.dumps(preds).encode()}


def fewrel_read(folder: Path) -> None:
    gold = fewrel.load_episodes(folder / "gold.json")
    assert ((gold.answers >= 0) & (gold.answers <= gold.n_way)).all()
    pred = fewrel.load_predictions(folder / "pred.json", gold)
    assert ((pred >= 0) & (pred <= gold.n_way)).all() and len(pred) == gold.n_queries


def drugprot_seeds() -> dict[str, bytes]:
    gs = EXAMPLES / "drugprot" / "gs-data"
    return {
        "entities.tsv": gs.joinpath("gs_entities.tsv").read_bytes(),
        "relations.tsv": gs.joinpath("gs_relations.tsv").read_bytes(),
        "pmids.txt": gs.joinpath("pmids.txt").read_bytes(),
        "pred.tsv": (EXAMPLES / "drugprot" / "toy-data" / "pred_relations.tsv").read_bytes(),
    }


def drugprot_read(folder: Path) -> None:
    pmids = drugprot.read_pmids(folder / "pmids.txt")
    assert all(p.isascii() and p.isdigit() for p in pmids)
    entities = drugprot.read_entities(folder / "entities.tsv")
    assert all(_clean(m) for mentions in entities.values() for m in mentions)
    for name, role in (("relations.tsv", "gold"), ("pred.tsv", "pred")):
        rows = drugprot.read_relations(folder / name, entities, set(pmids), role)
        for pmid, chemical, gene, kind in rows.relations:
            assert pmid in pmids and kind in drugprot.RELATION_TYPES
            assert entities[pmid][chemical] == "CHEMICAL" and entities[pmid][gene] == "GENE"


FAMILIES = {
    "ranked": Family("ranked", ranked_seeds, ranked_read),
    "docred": Family("docred", docred_seeds, docred_read),
    "fewrel": Family("fewrel", fewrel_seeds, fewrel_read),
    "drugprot": Family("drugprot", drugprot_seeds, drugprot_read),
}


def _case(family: Family, seed: int, index: int, seeds: dict[str, bytes]) -> tuple[dict[str, bytes], str]:
    """Case `index` of run `seed`: one seed file mutated (a function of the two numbers only)."""
    rng = random.Random(f"releval-fuzz-families:{family.name}:{seed}:{index}")
    name = rng.choice(sorted(seeds))
    data, done = mutate(rng, seeds[name])
    return {**seeds, name: data}, f"{name}: {', '.join(done)}"


def _seed(which: str) -> int:
    if which == "fixed":
        return FIXED_SEED
    return int(os.environ.get("RELEVAL_FUZZ_SEED") or secrets.randbelow(2**31))


@pytest.mark.parametrize("which", ["fixed", "random"])
@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_mutated_inputs_are_read_or_refused_with_a_located_error(name: str, which: str, tmp_path: Path) -> None:
    family = FAMILIES[name]
    seed = _seed(which)
    print(f"{name}: seed {seed}, {CASES} cases")
    seeds = family.seeds()
    intact = tmp_path / "intact"
    intact.mkdir()
    for file, data in seeds.items():
        (intact / file).write_bytes(data)
    family.read(intact)  # the seeds themselves are read
    failures: list[str] = []
    outcomes = {"read": 0, "refused": 0}
    for index in range(CASES):
        files, what = _case(family, seed, index, seeds)
        folder = tmp_path / str(index)
        folder.mkdir()
        for file, data in files.items():
            (folder / file).write_bytes(data)
        try:
            family.read(folder)
            outcomes["read"] += 1
        except (InputError, InputErrors) as exc:
            outcomes["refused"] += 1
            errors = exc.errors if isinstance(exc, InputErrors) else [exc]
            for error in errors:
                text = str(error)
                located = _LOCATED.search(text) or _WHOLE_FILE.search(text)
                if str(folder) not in text or "\n" in text or not located or len(text) > 2000:
                    failures.append(f"case {index} ({what}): unlocated or long error: {text[:300]!r}")
        except AssertionError as exc:
            failures.append(f"case {index} ({what}): misread: {exc}")
        except Exception as exc:  # noqa: BLE001 (any other exception is the failure being looked for)
            failures.append(f"case {index} ({what}): {type(exc).__name__}: {str(exc)[:200]}")
    assert not failures, (
        f"{name}, seed {seed} (replay: RELEVAL_FUZZ_SEED={seed}): {len(failures)} of {CASES} cases failed\n"
        + "\n".join(failures[:20])
    )
    assert outcomes["refused"] > CASES // 4, outcomes  # the mutations bite
