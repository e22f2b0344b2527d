"""DrugProt (BioCreative VII Track 1, Miranda et al. 2021) files: entities, relations and the PMID list.

The corpus and the official evaluation library (tonifuc3m/drugprot-evaluation-library) use three tab-separated
files without headers:

* entities — `PMID  T1  CHEMICAL|GENE|GENE-Y|GENE-N  start  end  text` (one mention per line);
* relations — `PMID  TYPE  Arg1:T1  Arg2:T52` (gold and predictions alike), TYPE one of the 13 DrugProt types;
* PMIDs — one PubMed id per line: the abstracts that are evaluated.

A relation holds between one CHEMICAL and one GENE mention of its abstract (the official library accepts the
arguments in either order and keys the relation by (chemical, gene)); so the candidate pairs of an abstract are its
chemical × gene mention pairs, and a relation is (PMID, chemical, gene, type).

What the official library drops silently is refused here, at its line: an argument that is no entity of its
abstract, two chemicals or two genes, and in gold a relation type that is not one of the 13. A predicted relation
of another type is dropped as the official library drops it (its toy predictions hold two such lines), but with a
warning that names each line: a misspelt type lowers recall, and the user must see why. What the library drops by
design is dropped with a note: predictions for PMIDs outside the list (participants predicted on a larger
background set), and repeated relations (counted once, with a warning; the arguments may come in either order).

>>> from releval.data.drugprot import parse_relations
>>> entities = {"1": {"T1": "CHEMICAL", "T2": "GENE"}}
>>> rows = parse_relations(b"1\\tINHIBITOR\\tArg1:T2\\tArg2:T1\\n", "r.tsv", entities, {"1"}, "pred")
>>> rows.relations
[('1', 'T1', 'T2', 'INHIBITOR')]
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from releval.core.errors import InputError
from releval.data.decoding import CONTROL, decode_text, digits_int, excerpt, read_utf8, white_space_side
from releval.data.delimited import iter_text_lines

#: The 13 DrugProt relation types, in the official library's order.
RELATION_TYPES: tuple[str, ...] = (
    "INDIRECT-DOWNREGULATOR",
    "INDIRECT-UPREGULATOR",
    "DIRECT-REGULATOR",
    "ACTIVATOR",
    "INHIBITOR",
    "AGONIST",
    "AGONIST-ACTIVATOR",
    "AGONIST-INHIBITOR",
    "ANTAGONIST",
    "PRODUCT-OF",
    "SUBSTRATE",
    "SUBSTRATE_PRODUCT-OF",
    "PART-OF",
)
_TYPES = frozenset(RELATION_TYPES)
#: Each type's one str: a relation holds it instead of the str its line was split into (issue 34's memory bound).
_TYPE_NAMES = {name: name for name in RELATION_TYPES}
CHEMICAL = "CHEMICAL"
GENE_TYPES = frozenset(("GENE", "GENE-Y", "GENE-N"))

Relation = tuple[str, str, str, str]  # (pmid, chemical mention id, gene mention id, relation type)


class _Shared(dict[str, str]):
    """One str object per distinct value while a file is read: the mention ids T1, T2, … repeat in every abstract,
    and a PMID in each of its relations; a str per line cost about 50 bytes each (issue 34's memory bound).

    >>> shared = _Shared()
    >>> a, b = shared("T1"), shared("".join(["T", "1"]))
    >>> a == b and a is b
    True
    """

    def __call__(self, value: str) -> str:
        return self.setdefault(value, value)


def _lines(path: str | os.PathLike[str]) -> tuple[str, Iterator[str]]:
    """The file's name and its lines, one at a time (a list of every line took about 70 bytes a line)."""
    name = os.fspath(path)
    return name, iter_text_lines(decode_text(read_utf8(path), name), name)


def _clean(value: str, what: str, name: str, line: int, field: str) -> str:
    """`value` as written, when it has no surrounding white space (a space, a tab, a no-break space…) and no control
    character; else an InputError at its line and field. Ids and types are compared exactly, as in every family:
    stripping them silently would read ` INHIBITOR` as `INHIBITOR` here and refuse it in the label readers.

    >>> _clean("T1", "entity id", "f.tsv", 3, "id")
    'T1'
    >>> _clean("T1\\u00a0", "entity id", "f.tsv", 3, "id")
    Traceback (most recent call last):
    releval.core.errors.InputError: f.tsv:3: field 'id': entity id 'T1\\xa0' has trailing white space
    """
    if value != value.strip():
        side = white_space_side(value)
        raise InputError(f"{what} {excerpt(value)} has {side} white space", file=name, line=line, field=field)
    if CONTROL.search(value):
        raise InputError(f"{what} {excerpt(value)} holds a control character", file=name, line=line, field=field)
    return value


def _pmid(value: str, name: str, line: int) -> str:
    """A PubMed id: ASCII digits only (no white space around them), else an InputError at its line."""
    _clean(value, "PMID", name, line, "PMID")
    if not (value.isascii() and value.isdigit()):
        raise InputError(f"{excerpt(value)} is not a PubMed id", file=name, line=line, field="PMID")
    return value


def read_pmids(path: str | os.PathLike[str]) -> list[str]:
    """The PMIDs of the list, in file order (blank lines skipped; a repeated or non-numeric PMID is refused)."""
    name, lines = _lines(path)
    seen: dict[str, int] = {}
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        pmid = _clean(line, "PMID", name, n, "PMID")
        if not (pmid.isascii() and pmid.isdigit()):
            raise InputError(f"expected one PubMed id per line, got {excerpt(line)}", file=name, line=n, field="PMID")
        if pmid in seen:
            raise InputError(f"PMID {pmid} repeated (first on line {seen[pmid]})", file=name, line=n, field="PMID")
        seen[pmid] = n
    if not seen:
        raise InputError("the PMID list is empty", file=name)
    return list(seen)


def read_entities(path: str | os.PathLike[str], pmids: list[str] | None = None) -> dict[str, dict[str, str]]:
    """{PMID: {mention id: CHEMICAL or GENE}} (GENE-Y and GENE-N are genes); every line checked, located. The keys
    are the str objects of `pmids` (the PMID list), when given, rather than one more str per abstract."""
    name, lines = _lines(path)
    out: dict[str, dict[str, str]] = {}
    shared = _Shared()
    for pmid in pmids or ():
        shared(pmid)
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        parts = line.split("\t")
        if len(parts) != 6:
            raise InputError(
                f"expected 6 tab-separated fields (PMID, id, type, start, end, text), got {len(parts)}: "
                f"{excerpt(line)}",
                file=name,
                line=n,
            )
        pmid, mention, kind, start, end, _ = parts
        _pmid(pmid, name, n)
        if not mention.strip():
            raise InputError("empty entity id", file=name, line=n, field="id")
        _clean(mention, "entity id", name, n, "id")
        _clean(kind, "entity type", name, n, "type")
        if kind != CHEMICAL and kind not in GENE_TYPES:
            raise InputError(
                f"entity type {excerpt(kind)} is not CHEMICAL, GENE, GENE-Y or GENE-N", file=name, line=n, field="type"
            )
        first, last = digits_int(start), digits_int(end)  # length checked before conversion: 5,000 digits refused
        if first is None or last is None or first > last:
            raise InputError(
                f"offsets {excerpt(start, 20)}–{excerpt(end, 20)} are not a span (two whole numbers, start <= end)",
                file=name,
                line=n,
                field="start",
            )
        mentions = out.get(pmid)
        if mentions is None:
            mentions = out[shared(pmid)] = {}
        if mention in mentions:
            raise InputError(f"entity {mention} of PMID {pmid} repeated", file=name, line=n, field="id")
        mentions[shared(mention)] = CHEMICAL if kind == CHEMICAL else "GENE"
    if not out:
        raise InputError("the entities file is empty", file=name)
    return out


@dataclass(frozen=True)
class Relations:
    """The relations of one file as (PMID, chemical, gene, type), repeated ones dropped, and what was dropped."""

    path: str
    #: The relations as the keys of a dict (a set that keeps the file's order): membership is tested there, and no
    #: list or set of every relation is built again (issue 34's memory bound)
    distinct: dict[Relation, None]
    duplicates: int = 0
    outside: int = 0  # predicted relations on PMIDs outside the list (dropped, as the official library does)
    #: (line, type) of predicted relations whose type is none of the 13 (dropped with a warning, as the official
    #: library drops them; in gold such a type is refused)
    invalid: list[tuple[int, str]] = field(default_factory=list)

    @property
    def relations(self) -> list[Relation]:
        """The relations in file order (a new list each time)."""
        return list(self.distinct)


def parse_relations(
    data: bytes, name: str, entities: dict[str, dict[str, str]], pmids: set[str], role: str
) -> Relations:
    """Every relation of a relations file's bytes, checked against the gold entities; `role` "gold" refuses a PMID
    outside the list, "pred" drops it (counted in `outside`)."""
    return _parse_lines(iter_text_lines(decode_text(data, name), name), name, entities, pmids, role)


def _parse_lines(
    lines: Iterator[str], name: str, entities: dict[str, dict[str, str]], pmids: set[str], role: str
) -> Relations:
    """`parse_relations` of a file's lines."""
    seen: dict[Relation, None] = {}
    shared = _Shared()
    for pmid in pmids:  # the PMIDs' str objects of the list (a set of them), rather than one more per abstract
        shared(pmid)
    duplicates = outside = 0
    invalid: list[tuple[int, str]] = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        parts = line.split("\t")
        if len(parts) != 4:
            raise InputError(
                f"expected 4 tab-separated fields (PMID, type, Arg1:id, Arg2:id), got {len(parts)}: {excerpt(line)}",
                file=name,
                line=n,
            )
        pmid, kind, arg1, arg2 = parts
        _clean(pmid, "PMID", name, n, "PMID")  # not one of the list: dropped below, as the official library does
        _clean(kind, "relation type", name, n, "type")
        _clean(arg1, "argument", name, n, "Arg1")
        _clean(arg2, "argument", name, n, "Arg2")
        if pmid not in pmids:
            if role == "gold":
                raise InputError(f"PMID {excerpt(pmid)} is not in the PMID list", file=name, line=n, field="PMID")
            outside += 1
            continue
        if kind not in _TYPES and role != "gold":
            invalid.append((n, kind))
            continue
        if kind not in _TYPES:
            raise InputError(
                f"{excerpt(kind)} is not a DrugProt relation type (expected one of {', '.join(RELATION_TYPES)})",
                file=name,
                line=n,
                field="type",
            )
        mentions = entities.get(pmid, {})
        ids = []
        for column, arg in (("Arg1", arg1), ("Arg2", arg2)):
            mention = arg.split(":", 1)[1] if ":" in arg else arg
            if mention not in mentions:
                raise InputError(
                    f"{excerpt(arg)} is not an entity of PMID {pmid} in the gold entities file",
                    file=name,
                    line=n,
                    field=column,
                )
            ids.append(mention)
        kinds = [mentions[m] for m in ids]
        if sorted(kinds) != [CHEMICAL, "GENE"]:
            raise InputError(
                f"a relation holds between one CHEMICAL and one GENE, not {kinds[0]} and {kinds[1]}",
                file=name,
                line=n,
                field="Arg2",
            )
        chemical, gene = ids if kinds[0] == CHEMICAL else ids[::-1]
        key = (shared(pmid), shared(chemical), shared(gene), _TYPE_NAMES[kind])
        if key in seen:
            duplicates += 1
            continue
        seen[key] = None
    return Relations(name, seen, duplicates, outside, invalid)


def read_relations(
    path: str | os.PathLike[str], entities: dict[str, dict[str, str]], pmids: set[str], role: str
) -> Relations:
    """`parse_relations` of a file (gzip or plain, bounded like every input); its bytes are dropped once decoded."""
    name, lines = _lines(path)
    return _parse_lines(lines, name, entities, pmids, role)


@dataclass(frozen=True)
class GoldSet:
    """A DrugProt gold standard: the three files, the PMIDs evaluated, the entities, the gold relations."""

    relations_path: str
    entities_path: str
    pmids_path: str
    pmids: list[str]
    entities: dict[str, dict[str, str]]
    gold: Relations

    def candidate_pairs(self) -> int:
        """Chemical × gene mention pairs over the evaluated abstracts (the official library's candidates)."""
        total = 0
        for pmid in self.pmids:
            kinds = list(self.entities.get(pmid, {}).values())
            total += kinds.count(CHEMICAL) * (len(kinds) - kinds.count(CHEMICAL))
        return total


def _one(folder: Path, patterns: tuple[str, ...], what: str, given: str) -> Path:
    for pattern in patterns:
        found = sorted(p for p in folder.glob(pattern) if p.is_file())
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            raise InputError(
                f"{len(found)} files match {pattern} in {folder}: {', '.join(p.name for p in found)}; keep one "
                f"{what} file beside the gold relations",
                file=given,
            )
    raise InputError(f"no {what} file ({' or '.join(patterns)}) in {folder}", file=given)


def gold_files(gold: str | os.PathLike[str]) -> tuple[Path, Path, Path]:
    """(relations, entities, PMID list) of a gold standard given as its folder (the official `gs-data/`: one
    `*relations*.tsv`, one `*entities*.tsv` and `pmids.txt`) or as its relations file, the others beside it."""
    path = Path(gold)
    given = os.fspath(gold)
    if path.is_dir():
        folder = path
        relations = _one(folder, ("*relations*.tsv", "*relations*.tsv.gz"), "relations", given)
    elif path.is_file():
        folder, relations = path.parent, path
    else:
        raise InputError("no such file or folder", file=given)
    entities = _one(folder, ("*entities*.tsv", "*entities*.tsv.gz"), "entities", given)
    pmids = _one(folder, ("pmids.txt", "*pmids*.txt"), "PMID list", given)
    return relations, entities, pmids


def load_gold(gold: str | os.PathLike[str] | GoldSet) -> GoldSet:
    """A DrugProt gold standard (`gold_files`) read and checked."""
    if isinstance(gold, GoldSet):
        return gold
    relations, entities_path, pmids_path = gold_files(gold)
    pmids = read_pmids(pmids_path)
    entities = read_entities(entities_path, pmids)
    rows = read_relations(relations, entities, set(pmids), "gold")
    return GoldSet(str(relations), str(entities_path), str(pmids_path), pmids, entities, rows)
