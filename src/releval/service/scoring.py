"""What the board computes, as calls of releval's public API: no database, no web, no I/O.

The service stores, per run, the predictions aligned to the benchmark's gold items (the per-item statistics every
measure is re-aggregated from) and, per (run, measure), one cell: F, its bootstrap percentile interval and the
cell's signature. Each number here is the number `releval score` or `releval compare` prints for the same files:

* F of a measure is `releval.score(...)[measure].f`;
* the interval is the interval of system A in `releval compare GOLD -s a=PRED -s b=PRED` (a system paired with
  itself: the bootstrap of that one system's items, with the benchmark's resamples, seed and level);
* a tie-group p-value is the paired bootstrap p of `releval compare GOLD -s best=… -s entry=…`, adjusted with Holm's
  method across the entries compared with the best (`releval.significance.compare.adjust`).

A cell's signature is the comparison's signature with `average` naming the cell's measure alone, so the same
measure computed at submission time or by a later backfill signs the same (the draws depend on the seed and the
items, not on which other measures were computed with it; tests/service check this).

Example
-------
>>> spec = BenchmarkSpec.from_dict({"negative": "Other"}, resamples=200)
>>> gold = ["A", "B", "Other", "A"]
>>> cells = score_cells(gold, ["A", "Other", "Other", "B"], spec, ["micro", "macro"])
>>> round(cells["micro"].value, 4)
0.4
"""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from releval.core.errors import InputError, OptionError
from releval.core.signature import Signature
from releval.data.decoding import to_utf8
from releval.data.labels import LabelFile, parse_labels, resolve_format
from releval.metrics.weightings import get_weighting
from releval.tasks.classification import ClassificationConfig

#: The measures every classification benchmark starts with (Harbecke et al. 2022, §3: micro and four weightings).
DEFAULT_MEASURES: tuple[str, ...] = ("micro", "weighted", "dodrans", "entropy", "macro")
#: ClassificationConfig fields a benchmark may set; the rest (file formats, fields of the upload) are per upload.
BENCHMARK_FIELDS = ("negative", "beta", "zero_division", "entropy_n", "view", "strict_labels", "allow_absent_negative")
#: E2EConfig fields an end-to-end benchmark may set (its criteria are fixed: releval.service.board_tasks).
E2E_FIELDS = ("macro_classes", "beta", "zero_division")


@dataclass(frozen=True)
class BenchmarkSpec:
    """A benchmark's task Config and the settings of its intervals and tests (stored with the benchmark)."""

    config: Any = field(default_factory=ClassificationConfig)  # ClassificationConfig, E2EConfig, any task's Config
    resamples: int = 1000
    seed: int = 12345
    confidence: float = 0.95
    #: The settings the benchmark stores (its task's board object gives them: releval.service.board_tasks,
    #: .library_task); None: a classification benchmark's, `BENCHMARK_FIELDS` of its Config.
    settings: dict[str, Any] | None = field(default=None, compare=False, hash=False)

    @classmethod
    def from_dict(cls, settings: Mapping[str, Any], **test: Any) -> BenchmarkSpec:
        """From stored settings: a refused field or value is an OptionError naming it."""
        unknown = sorted(set(settings) - set(BENCHMARK_FIELDS))
        if unknown:
            raise OptionError(f"unknown benchmark setting(s): {', '.join(unknown)}", option=unknown[0])
        spec = cls(ClassificationConfig(weightings=(), **settings), **test)
        spec.test_config()  # validates resamples, seed and confidence
        return spec

    def to_dict(self) -> dict[str, Any]:
        """The settings the benchmark stores: those its task's board object gave, else a classification Config's."""
        if self.settings is not None:
            return dict(self.settings)
        return {name: getattr(self.config, name) for name in BENCHMARK_FIELDS}

    def test_config(self) -> Any:
        from releval.significance.config import SignificanceConfig

        return SignificanceConfig(
            tests=("bootstrap",), resamples=self.resamples, seed=self.seed, confidence=self.confidence
        )

    def config_for(self, measures: Sequence[str]) -> ClassificationConfig:
        """The Config that computes micro and `measures`' weightings."""
        return replace(self.config, weightings=tuple(m for m in measures if m != "micro"))


@dataclass(frozen=True)
class StoredGold:
    """What a benchmark keeps besides the gold file: item (or document) ids, rc labels, digest, statistics."""

    ids: list[str]
    labels: list[str]
    digest: str
    n_items: int
    stats: dict[str, Any]


@dataclass(frozen=True)
class Cell:
    """One measure of one run: F, its percentile interval and the signature of both."""

    value: float
    ci_low: float
    ci_high: float
    signature: str


def check_measure(name: str) -> str:
    """A measure name the library knows (micro or a weighting such as `power:0.5`), normalised; else OptionError."""
    name = name.strip()
    if name == "micro":
        return name
    try:
        return get_weighting(name).name
    except (KeyError, ValueError) as exc:
        raise OptionError(f"unknown measure {name!r}: micro or a weighting ({exc})", option="measure") from None


def safe_name(filename: str) -> str:
    """The last path component of an uploaded file's name, printable ASCII only: what errors name the upload by.

    >>> safe_name("../../etc/passwd"), safe_name("C:\\\\x\\\\pred.jsonl"), safe_name("")
    ('passwd', 'pred.jsonl', 'upload')
    """
    base = filename.replace("\\", "/").rsplit("/", 1)[-1]
    base = "".join(c for c in base if c.isascii() and c.isprintable() and c not in "<>\"'`")[:100].strip(". ")
    return base or "upload"


#: Largest size a gzipped upload may expand to (a small "zip bomb" must not fill the server's memory).
MAX_EXPANDED = 500_000_000


def gunzip(data: bytes, name: str, limit: int = MAX_EXPANDED) -> bytes:
    """The content of a gzip upload, refused (InputError) past `limit` bytes or when it is not valid gzip."""
    out = zlib.decompressobj(wbits=47)  # 32 + 15: a gzip header, the largest window
    try:
        content = out.decompress(data, limit + 1)
    except zlib.error as exc:
        raise InputError(f"not a readable gzip file ({exc})", file=name) from None
    if len(content) > limit:
        raise InputError(f"the gzip file expands to more than {limit} bytes", file=name)
    if not out.eof:
        raise InputError("not a readable gzip file (truncated)", file=name)
    return content


@dataclass(frozen=True)
class UploadBound:
    """What one upload to a benchmark may hold, derived from its gold: `max_bytes` (expanded, for a gzip file) and
    `max_lines`. A prediction file is the size of its gold or smaller in the same format; the bounds leave room for
    a more verbose format (2 KB and 64 lines per item: pretty-printed JSON with the tokens), so a valid upload is
    never refused, while 45 MiB of blank lines in a 56 KB gzip (read line by line, 22 s and 800 MB) are refused
    after the first few hundred thousand lines, unread.

    >>> b = UploadBound.for_gold(gold_bytes=90_000, gold_lines=2717, items=2717, ceiling=50_000_000)
    >>> b.max_bytes, b.max_lines
    (6744416, 189322)
    """

    max_bytes: int
    max_lines: int

    #: Per gold item: bytes and lines an upload may spend on it, besides twice the gold's own size.
    BYTES_PER_ITEM = 2048
    LINES_PER_ITEM = 64
    #: Floors: a small gold still takes a header, comments, trailing blank lines.
    BYTES_FLOOR = 1_000_000
    LINES_FLOOR = 10_000

    @classmethod
    def for_gold(
        cls, gold_bytes: int, gold_lines: int, items: int, ceiling: int, lines_per_item: int | None = None
    ) -> UploadBound:
        """The bound for a gold of `gold_bytes` (expanded), `gold_lines` and `items`, at most `ceiling` bytes;
        `lines_per_item` for a task whose predictions take more lines per item (default LINES_PER_ITEM)."""
        per_item = cls.LINES_PER_ITEM if lines_per_item is None else lines_per_item
        max_bytes = 2 * gold_bytes + cls.BYTES_PER_ITEM * items + cls.BYTES_FLOOR
        max_lines = 2 * gold_lines + per_item * items + cls.LINES_FLOOR
        return cls(min(max_bytes, ceiling), max_lines)

    def check(self, data: bytes, name: str) -> None:
        """Refuse (UploadTooLarge) an upload past the bound, counting bytes and lines while a gzip file expands
        (1 MB at a time: it stops at the bound, never expanding the rest); a plain file is counted in C.

        >>> import gzip
        >>> UploadBound(10_000, 100).check(gzip.compress(b"x\\n" * 50 + b"\\n" * 10_000_000), "p.txt.gz")
        Traceback (most recent call last):
        ...
        releval.service.scoring.UploadTooLarge: p.txt.gz: more than 100 lines (this benchmark takes at most ...)
        """
        if data[:2] != b"\x1f\x8b":
            self._within(len(data), data.count(b"\n"), name)
            return
        stream = zlib.decompressobj(wbits=47)
        size = lines = 0
        rest = data
        try:
            while rest and not stream.eof:
                chunk = stream.decompress(rest, 1 << 20)
                rest = stream.unconsumed_tail
                size += len(chunk)
                lines += chunk.count(b"\n")
                self._within(size, lines, name)
                if not chunk and not rest:
                    break
        except zlib.error:
            return  # not readable gzip: the reader says so, with its message

    def _within(self, size: int, lines: int, name: str) -> None:
        what = (
            f"more than {self.max_lines} lines"
            if lines > self.max_lines
            else f"more than {self.max_bytes} bytes"
            if size > self.max_bytes
            else ""
        )
        if what:
            raise UploadTooLarge(
                f"{what} (this benchmark takes at most {self.max_lines} lines and {self.max_bytes} bytes per upload, "
                "from its gold's size)",
                file=name,
            )


class UploadTooLarge(InputError):
    """An upload past its benchmark's UploadBound (the board answers 413)."""


def read_upload(
    data: bytes, filename: str, role: str, config: ClassificationConfig, expand_limit: int = MAX_EXPANDED
) -> LabelFile:
    """An uploaded label file read with the library's strict loaders (the same located InputErrors as the command
    line): format detected from the name and content, or the Config's; a gzip file is expanded (to `expand_limit`
    bytes at most)."""
    name = safe_name(filename)
    if data[:2] == b"\x1f\x8b":
        data = gunzip(data, name, expand_limit)
    data = to_utf8(data, name)
    fmt_name = config.gold_read_format if role == "gold" else config.pred_format
    fields = config.side_fields(role)
    id_field, label_field = fields.get("id_field", "id"), fields.get("label_field")
    fmt = resolve_format(name, data, fmt_name, id_field, label_field)
    return parse_labels(data, name, fmt, role=role, id_field=id_field, label_field=label_field)


def align_upload(gold: LabelFile, pred: LabelFile, config: ClassificationConfig) -> list[str]:
    """The predictions aligned to gold's items as `releval score` aligns them: a missing, duplicate or unknown id
    is an InputError (or filled as the Config's `on_missing` says); a file without ids (one label per line) is
    aligned by position, as the command line does."""
    return align_upload_facts(gold, pred, config)[0]


def align_upload_facts(gold: LabelFile, pred: LabelFile, config: ClassificationConfig) -> tuple[list[str], bool]:
    """`align_upload` and whether the alignment was by position (the signature's `alignment` field)."""
    from releval.significance.compare import align_systems

    _, runs, facts = align_systems(gold, {"upload": [pred]}, config)
    return runs["upload"][0], bool(facts.by_position)


def pack_labels(labels: Sequence[str]) -> bytes:
    """Aligned labels (or ids) as stored: a JSON array, zlib-compressed (a label may hold any character, a
    newline too: a JSONL file can say so).

    >>> unpack_labels(pack_labels(["A", "x\\ny", ""]))
    ['A', 'x\\ny', '']
    """
    import orjson

    return zlib.compress(orjson.dumps(list(labels)), 6)


def unpack_labels(data: bytes) -> list[str]:
    import orjson

    out: list[str] = orjson.loads(zlib.decompress(data))
    return out


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _inputs(gold: Sequence[str], pred: Sequence[str], ids: Sequence[str] | None) -> tuple[Any, Any]:
    """Gold and predictions as the library takes them: {id: label} mappings when the items have ids (aligned by
    id, as `releval score GOLD PRED` aligns files, and signed so), else lists (aligned by position)."""
    if ids is None:
        return list(gold), list(pred)
    return dict(zip(ids, gold)), dict(zip(ids, pred))


def score_result(
    gold: Sequence[str],
    pred: Sequence[str],
    spec: BenchmarkSpec,
    measures: Sequence[str],
    ids: Sequence[str] | None = None,
) -> Any:
    """`releval.score` of one run under the benchmark's Config with `measures` (a ScoreResult)."""
    from releval.api import score

    g, p = _inputs(gold, pred, ids)
    return score(g, p, spec.config_for(measures), system="run")


def score_cells(
    gold: Sequence[str],
    pred: Sequence[str],
    spec: BenchmarkSpec,
    measures: Sequence[str],
    ids: Sequence[str] | None = None,
) -> dict[str, Cell]:
    """Every measure's cell of one run (F from `releval.score`, the interval from the self-paired bootstrap).

    `pred` is already aligned to `gold`; `ids` given means it was aligned by id (at upload). The library reads the
    aligned lists by position — the same items in the same order, so the same F, cells and draws as the {id: label}
    mappings `releval score` and `compare` read from the files (tests/service/test_scoring.py checks it) at half
    the cost, which a backfill of a thousand runs pays a thousand times — and the signature says how the upload
    was aligned."""
    from releval.significance.compare import paired_table

    config = spec.config_for(measures)
    result = score_result(gold, pred, spec, measures)
    table = paired_table(list(gold), {"a": list(pred), "b": list(pred)}, config, spec.test_config())
    intervals = {row.metric: row.ci_a for row in table.rows}
    alignment = "position" if ids is None else "id"
    cells = {}
    for measure in measures:
        low, high = intervals[measure] or (float("nan"), float("nan"))
        signature = cell_signature(table.signature, measure, alignment)
        cells[measure] = Cell(float(result.averages[measure].f), float(low), float(high), signature)
    return cells


def cell_signature(signature: Signature, measure: str, alignment: str | None = None) -> str:
    """The comparison's signature narrowed to one measure (its `average` field), in the long form; `alignment`
    (id or position) says how the run's upload was matched to gold, when the scores were computed on aligned
    lists."""
    fields = {**signature.fields, "average": measure}
    if alignment is not None:
        fields["alignment"] = alignment
    return Signature(fields).format()


@dataclass(frozen=True)
class TieTest:
    """One entry compared with the best under one measure: raw and Holm-adjusted p, tied at the level — or None,
    undecided, when the resamples cannot give it an adjusted p below the level (releval.significance.ties)."""

    entry: str
    p_value: float
    p_adjusted: float
    tied: bool | None


def pair_p_value(
    gold: Sequence[str],
    best: Sequence[str],
    other: Sequence[str],
    measure: str,
    spec: BenchmarkSpec,
    ids: Sequence[str] | None = None,
) -> float:
    """The paired bootstrap p-value of `best` against `other` under `measure`: the pair engine of
    `releval compare GOLD -s best=… -s other=…` (two systems), with the benchmark's resamples and seed."""
    from releval.significance.compare import paired_table

    g, best_pred = _inputs(gold, best, ids)
    table = paired_table(
        g, {"best": best_pred, "other": _inputs(gold, other, ids)[1]}, spec.config_for([measure]), spec.test_config()
    )
    return float(next(r for r in table.rows if r.metric == measure).p_value)


def tie_groups(
    raw: Mapping[str, float],
    spec: BenchmarkSpec,
    alpha: float | None = None,
    resampled: Collection[str] | None = None,
) -> list[TieTest]:
    """Holm's correction across the comparisons with the best (`raw`: entry → p); an entry is tied with the best
    when its adjusted p is at least the level (1 − confidence unless `alpha` is given).

    `resampled`: the entries whose p comes from the paired bootstrap (default: all), floored at 1/(R + 1): when
    Holm over the m comparisons cannot bring even that floor below the level (m/(R + 1) ≥ level), those entries are
    undecided (`tied` None), never "tied" for want of resamples (releval.significance.ties).

    >>> [(t.entry, round(t.p_adjusted, 3), t.tied) for t in tie_groups({"a": 0.01, "b": 0.04}, BenchmarkSpec())]
    [('a', 0.02, False), ('b', 0.04, False)]
    >>> [t.tied for t in tie_groups({"a": 0.001, "b": 0.5}, BenchmarkSpec(resamples=20))]
    [None, None]
    """
    from releval.significance.compare import adjust
    from releval.significance.ties import floor_of

    level = 1 - spec.confidence if alpha is None else alpha
    names = list(raw)
    adjusted = adjust([raw[n] for n in names], "holm") if names else []
    floored = set(names if resampled is None else resampled)
    undecided = bool(floored) and floor_of(len(names), spec.resamples, "holm") >= level
    return [
        TieTest(n, raw[n], float(a), None if undecided and n in floored else float(a) >= level)
        for n, a in zip(names, adjusted)
    ]


def tie_tests(
    gold: Sequence[str],
    runs: Mapping[str, Sequence[str]],
    best: str,
    measure: str,
    spec: BenchmarkSpec,
    alpha: float | None = None,
    ids: Sequence[str] | None = None,
) -> list[TieTest]:
    """Which entries are not significantly different from `best` under `measure`: a paired bootstrap of each with
    the best (`pair_p_value`), Holm's correction across the comparisons (`tie_groups`).

    `runs` maps an entry's name to its aligned predictions (one run per entry: its first seed).
    """
    raw = {
        name: pair_p_value(gold, runs[best], pred, measure, spec, ids) for name, pred in runs.items() if name != best
    }
    return tie_groups(raw, spec, alpha)
