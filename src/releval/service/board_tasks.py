"""What differs between a classification benchmark and an end-to-end RE benchmark, behind one interface: reading
the gold and an upload (with the library's strict loaders), what a run stores, its cells, its result, its audit
flags and its paired test with another run: the board's protocol (releval.service.board_protocol.BoardTask), which
`task_of` gives for every task and mypy checks each class against (`_CHECKED` below). The board never names a task.

* Classification (`rc`): a run stores its labels aligned to gold and how they were aligned (`pack_run`): any new
  measure is re-aggregated from them without re-reading the upload.
* End-to-end RE (`e2e`, Taillé et al. 2020): a run stores its validated upload; its documents are read again
  when a new measure is computed. Measures are `criterion:average` (`strict:macro`, `boundaries:micro`,
  `ner:micro`); the criteria are fixed per benchmark (NER, Strict, Boundaries), so a cell's bootstrap draw never
  depends on which measures were computed with it.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from releval.core.errors import InputError, OptionError
from releval.service import scoring
from releval.service.board_protocol import BoardTask
from releval.service.library_task import LibraryTask
from releval.service.scoring import StoredGold

E2E_CRITERIA = ("strict", "boundaries")
E2E_DEFAULT_MEASURES: tuple[str, ...] = tuple(
    f"{c}:{a}" for c in ("strict", "boundaries") for a in scoring.DEFAULT_MEASURES
) + ("ner:micro", "ner:macro")


class RcTask:
    name = "rc"
    default_measures = scoring.DEFAULT_MEASURES
    criterion_label = ""  # what the per-class table of an entry page is of (nothing to say: the labels)
    #: An upload holds one prediction per gold item: its size is bounded by gold's (scoring.UploadBound).
    bounded_by_gold = True
    upload_lines_per_item: int | None = None  # the bound's default: one line per item
    #: Gold and runs are {id: label} mappings (`inputs`): the replicability analysis across benchmarks reads them.
    across_benchmarks = True
    ranks_entries = True  # `rank_intervals`: releval.significance.ranks over the stored aligned labels

    def average_of(self, measure: str) -> str:
        """The average (micro or a weighting) a measure computes: the measure itself."""
        return measure

    def counted(self, stats: dict[str, Any]) -> tuple[int, str]:
        """Gold's items, as its label statistics count them (Table 1's `samples`)."""
        return _count(stats.get("samples")), "items"

    def per_class_result(self, result: dict[str, Any]) -> dict[str, Any] | None:
        """The ScoreResult dict whose per-class rows an entry page shows."""
        return result

    def class_labels(self, bench: Any, spec: scoring.BenchmarkSpec) -> tuple[list[str], str | None] | None:
        """Gold's labels and the negative label, as the class weights figure weights them."""
        return rc_gold(bench).labels, spec.config.negative

    def spec(self, settings: dict[str, Any], **test: Any) -> scoring.BenchmarkSpec:
        return scoring.BenchmarkSpec.from_dict(settings, **test)

    def check_measure(self, name: str, spec: scoring.BenchmarkSpec | None = None) -> str:
        from releval.service import official

        if name.strip() == official.MEASURE:  # the SemEval-2010 scorer's score (tried on gold: SemEval's only)
            return official.MEASURE
        return scoring.check_measure(name)

    def read_gold(self, data: bytes, name: str, spec: scoring.BenchmarkSpec) -> StoredGold:
        from releval.core.signature import sequence_digest
        from releval.dataset_stats.label_distribution import label_stats
        from releval.tasks.classification import resolve_negative

        labels = scoring.read_upload(data, name, "gold", spec.config)
        if labels.ids is None:
            raise InputError("gold must give every item an id", file=scoring.safe_name(name))
        negative, _ = resolve_negative(spec.config.negative, labels.labels)
        stats = label_stats(scoring.safe_name(name), labels.labels, negative, spec.config.view).to_dict()
        stats["negative_label"] = negative  # the name (the statistics count it as `negative`)
        digest = sequence_digest(labels.labels)
        return StoredGold(list(labels.ids), list(labels.labels), digest, len(labels.labels), stats)

    def prepare_run(
        self, bench: Any, data: bytes, filename: str, spec: scoring.BenchmarkSpec, limit: int, fmt: str | None = None
    ) -> bytes:
        """The upload validated and aligned to gold: what the run stores (InputError when refused). `fmt` names the
        upload's format (as --pred-format does; `labels-lines` must be named), else it is detected."""
        from dataclasses import replace

        from releval.core.validation import check_choice
        from releval.data.labels import FORMATS, LabelFile

        gold = rc_gold(bench)
        config = spec.config
        if fmt:
            config = replace(config, pred_format=check_choice(fmt, FORMATS, "format"))
        pred = scoring.read_upload(data, filename, "pred", config, limit)
        gold_file = LabelFile(bench.gold_name, "stored", gold.ids, gold.labels, range(1, len(gold.ids) + 1))
        aligned, positional = scoring.align_upload_facts(gold_file, pred, spec.config)
        # scored once here, so that what the scorer refuses (a label gold lacks under strict_labels, a misspelt
        # negative, SemEval's direction dropped on one side) is refused at upload, with the upload's name
        try:
            scoring.score_result(gold.labels, aligned, spec, ["micro"], ids=None if positional else gold.ids)
        except InputError as exc:
            if getattr(exc, "file", None) is None:
                raise InputError(str(exc), file=scoring.safe_name(filename)) from None
            raise
        return pack_run(aligned, positional)

    def cells(self, bench: Any, stored: bytes, spec: scoring.BenchmarkSpec, measures: Sequence[str]) -> Any:
        from releval.service import official

        gold = rc_gold(bench)
        pred, positional = unpack_run(stored)
        ids = None if positional else gold.ids
        plain = [m for m in measures if m != official.MEASURE]
        out = scoring.score_cells(gold.labels, pred, spec, plain, ids=ids) if plain else {}
        if official.MEASURE in measures:
            out[official.MEASURE] = official.cell(gold.labels, pred, spec, ids)
        return out

    def result(self, bench: Any, stored: bytes, spec: scoring.BenchmarkSpec, measures: Sequence[str]) -> Any:
        from releval.service import official

        gold = rc_gold(bench)
        pred, positional = unpack_run(stored)
        ids = None if positional else gold.ids
        plain = [m for m in measures if m != official.MEASURE]
        return scoring.score_result(gold.labels, pred, spec, plain, ids=ids).to_dict()

    def flags(self, bench: Any, stored: bytes, spec: scoring.BenchmarkSpec) -> list[dict[str, str]]:
        """The audit's errors and warnings (`releval audit`), without examples (they would show items)."""
        from releval.audit.checks import audit

        gold = rc_gold(bench)
        pred = gold.mapping(unpack_run(stored)[0])
        report = audit(gold.mapping(), pred, negative=spec.config.negative)
        return _findings(report)

    def pair_p(self, bench: Any, best: bytes, other: bytes, measure: str, spec: scoring.BenchmarkSpec) -> float:
        # aligned lists, by position: the same items in the same order give the same draw and p-value as the
        # {id: label} mappings `releval compare` reads from files (tests/service check it), at half the cost
        from releval.service import official

        gold = rc_gold(bench)
        if measure == official.MEASURE:
            return official.pair_p(gold.labels, unpack_run(best)[0], unpack_run(other)[0], spec)
        return scoring.pair_p_value(gold.labels, unpack_run(best)[0], unpack_run(other)[0], measure, spec, None)

    def labels_outside_gold(self, bench: Any, stored: bytes) -> list[str]:
        """The labels a stored run predicts that gold has nowhere (its negative label excepted), sorted.

        During a hidden phase they are refused: a label gold lacks is never a hit but counts as a predicted
        positive, so decoys of it tune micro F's denominator until the rounded value shown gives away the exact
        count of correct items (issue 34)."""
        gold = rc_gold(bench)
        known = set(gold.labels)
        negative = (getattr(bench, "stats", None) or {}).get("negative_label")
        if negative:
            known.add(negative)
        return sorted(set(unpack_run(stored)[0]) - known)

    def inputs(self, bench: Any, stored: bytes) -> tuple[Any, Any]:
        """Gold and predictions as the library's functions take them ({id: label} mappings)."""
        gold = rc_gold(bench)
        return gold.mapping(), gold.mapping(unpack_run(stored)[0])

    def rank_intervals(
        self, bench: Any, systems: Mapping[str, Sequence[bytes]], measure: str, spec: scoring.BenchmarkSpec
    ) -> dict[str, list[int]]:
        """Each entry's bootstrap rank interval under `measure` ({entry: [low, high]}) from its stored runs, in
        entry order: `releval.significance.ranks.rank_intervals` (an entry with several seeds by the mean of its
        seeds in each resample) with the benchmark's resamples, seed and level — the numbers `releval compare
        --rank-intervals` gives the same files in the same order."""
        from releval.service import official
        from releval.significance.ranks import rank_intervals as ranks_of

        gold = rc_gold(bench)
        runs = {entry: [unpack_run(one)[0] for one in stored] for entry, stored in systems.items()}
        if measure == official.MEASURE:  # the scorer's macro-F1: ranked in the column's own bootstrap draws
            import numpy as np

            from releval.significance.ranks import competition_ranks, rank_bounds

            flat = [run for each in runs.values() for run in each]
            draws = iter(official.resampled(gold.labels, flat, spec))
            per_entry = np.stack([np.mean([next(draws) for _ in each], axis=0) for each in runs.values()])
            ranks = competition_ranks(per_entry)
            return {e: list(rank_bounds(ranks[i], spec.confidence)) for i, e in enumerate(runs)}
        got = ranks_of(gold.labels, runs, spec.config_for([measure]), spec.test_config())
        return {e: [r[measure].low, r[measure].high] for e, r in got.items()}


class E2ETask:
    name = "e2e"
    default_measures = E2E_DEFAULT_MEASURES
    criterion_label = "Strict"
    bounded_by_gold = True  # one predicted document per gold document
    #: Lines an upload may spend per gold document: pretty-printed JSON puts each token on a line of its own.
    upload_lines_per_item: int | None = 1024
    across_benchmarks = False  # the analysis across benchmarks reads classification benchmarks
    ranks_entries = False

    def average_of(self, measure: str) -> str:
        """The average of a `criterion:average` measure (strict:power:0.5 → power:0.5)."""
        return measure.partition(":")[2]

    def counted(self, stats: dict[str, Any]) -> tuple[int, str]:
        """Gold's documents (the items its bootstrap resamples), as its dataset statistics count them."""
        total = stats.get("total")
        return _count(total.get("sentences") if isinstance(total, dict) else None), "items"

    def labels_outside_gold(self, bench: Any, stored: bytes) -> list[str]:
        """[]: a relation type gold lacks is refused by the scorer at upload (`--types`), phase or not."""
        return []

    def rank_intervals(
        self, bench: Any, systems: Mapping[str, Sequence[bytes]], measure: str, spec: scoring.BenchmarkSpec
    ) -> dict[str, list[int]]:
        return {}  # ranked by the library Task instead (`ranks_entries` False: jobs.rank_intervals)

    def per_class_result(self, result: dict[str, Any]) -> dict[str, Any] | None:
        """The Strict criterion's ScoreResult dict: the per-type rows an entry page shows."""
        return dict(result["criteria"]["strict"])

    def class_labels(self, bench: Any, spec: scoring.BenchmarkSpec) -> tuple[list[str], str | None] | None:
        """The relation types of gold's relations, as Strict and Boundaries weight them (no negative class)."""
        return [r[2] for doc in e2e_gold(bench).documents for r in doc.relations], None

    def spec(self, settings: dict[str, Any], **test: Any) -> scoring.BenchmarkSpec:
        from releval.tasks.e2e import E2EConfig

        unknown = sorted(set(settings) - set(scoring.E2E_FIELDS))
        if unknown:
            raise OptionError(f"unknown end-to-end benchmark setting(s): {', '.join(unknown)}", option=unknown[0])
        config = E2EConfig(criteria=E2E_CRITERIA, ner=True, weightings=(), **settings)
        stored = {name: getattr(config, name) for name in scoring.E2E_FIELDS}
        spec = scoring.BenchmarkSpec(config, settings=stored, **test)  # type: ignore[arg-type]
        spec.test_config()
        return spec

    def check_measure(self, name: str, spec: scoring.BenchmarkSpec | None = None) -> str:
        criterion, colon, average = name.strip().partition(":")
        if not colon or criterion not in ("ner", *E2E_CRITERIA):
            raise OptionError(
                f"unknown measure {name!r}: CRITERION:AVERAGE with a criterion of ner, {', '.join(E2E_CRITERIA)} "
                "(e.g. strict:macro, boundaries:power:0.5)",
                option="measure",
            )
        return f"{criterion}:{scoring.check_measure(average)}"

    def _read(self, data: bytes, name: str, role: str, limit: int = scoring.MAX_EXPANDED) -> Any:
        from releval.data.decoding import to_utf8
        from releval.data.formats import read_e2e

        name = scoring.safe_name(name)
        if data[:2] == b"\x1f\x8b":
            data = scoring.gunzip(data, name, limit)
        data = to_utf8(data, name)
        fmt, content = read_e2e(data, name)
        return fmt.load(content, data, name, role)

    def read_gold(self, data: bytes, name: str, spec: scoring.BenchmarkSpec) -> StoredGold:
        from releval.core.signature import short_hash
        from releval.dataset_stats.e2e_dataset import dataset_stats

        dataset = self._read(data, name, "gold")
        docs = dataset.documents
        ids = [str(getattr(d, "id", None) or i) for i, d in enumerate(docs)]
        stats = dataset_stats(dataset).to_dict()
        return StoredGold(ids, [], short_hash(data), len(docs), stats)

    def prepare_run(
        self, bench: Any, data: bytes, filename: str, spec: scoring.BenchmarkSpec, limit: int, fmt: str | None = None
    ) -> bytes:
        from releval.api import score_e2e
        from releval.data.e2e import align_documents

        if fmt:
            raise OptionError("format: an end-to-end file's format is detected (SpERT or DyGIE JSON)", option="format")

        pred = self._read(data, filename, "pred", limit)
        align_documents(e2e_gold(bench), pred)  # ids and tokens must match gold's: an InputError otherwise
        score_e2e(e2e_gold(bench), pred, self._config(spec, ["strict:micro"]))  # what the scorer refuses, refused now
        return zlib.compress(data, 6)

    def _pred(self, stored: bytes) -> Any:
        return self._read(zlib.decompress(stored), "run", "pred")

    def _config(self, spec: scoring.BenchmarkSpec, measures: Sequence[str]) -> Any:
        from dataclasses import replace

        averages = dict.fromkeys(m.partition(":")[2] for m in measures)
        return replace(spec.config, weightings=tuple(a for a in averages if a != "micro"))

    def cells(self, bench: Any, stored: bytes, spec: scoring.BenchmarkSpec, measures: Sequence[str]) -> Any:
        from releval.api import score_e2e
        from releval.significance.compare import paired_table

        gold, pred = e2e_gold(bench), self._pred(stored)
        config = self._config(spec, measures)
        result = score_e2e(gold, pred, config, system="run")
        table = paired_table(gold, {"a": pred, "b": pred}, config, spec.test_config())
        intervals = {row.metric: row.ci_a for row in table.rows}
        out = {}
        for measure in measures:
            criterion, _, average = measure.partition(":")
            low, high = intervals[measure] or (float("nan"), float("nan"))
            signature = scoring.Signature({**table.signature.fields, "criterion": criterion, "average": average})
            out[measure] = scoring.Cell(
                float(result[criterion].averages[average].f), float(low), float(high), signature.format()
            )
        return out

    def result(self, bench: Any, stored: bytes, spec: scoring.BenchmarkSpec, measures: Sequence[str]) -> Any:
        from releval.api import score_e2e

        return score_e2e(e2e_gold(bench), self._pred(stored), self._config(spec, measures), system="run").to_dict()

    def flags(self, bench: Any, stored: bytes, spec: scoring.BenchmarkSpec) -> list[dict[str, str]]:
        from releval.audit.e2e_checks import audit_e2e

        return _findings(audit_e2e(e2e_gold(bench), self._pred(stored)))

    def pair_p(self, bench: Any, best: bytes, other: bytes, measure: str, spec: scoring.BenchmarkSpec) -> float:
        from releval.significance.compare import paired_table

        config = self._config(spec, [measure])
        systems = {"best": self._pred(best), "other": self._pred(other)}
        table = paired_table(e2e_gold(bench), systems, config, spec.test_config())
        return float(next(r for r in table.rows if r.metric == measure).p_value)

    def inputs(self, bench: Any, stored: bytes) -> tuple[Any, Any]:
        return e2e_gold(bench), self._pred(stored)


def pack_run(aligned: Sequence[str], positional: bool) -> bytes:
    """What a classification run stores: its aligned labels and how they were aligned (by id or by position)."""
    return scoring.pack_labels(["position" if positional else "id", *aligned])


def unpack_run(stored: bytes) -> tuple[list[str], bool]:
    how, *aligned = scoring.unpack_labels(stored)
    return aligned, how == "position"


def _findings(report: Any) -> list[dict[str, str]]:
    return [
        {"code": f.code, "severity": f.severity, "message": f.message}
        for f in report.findings
        if f.severity in ("error", "warning")
    ]


def _count(n: Any) -> int:
    return n if isinstance(n, int) else 0


#: Each class checked by mypy against the board's protocol (an instance of a class missing a member, or with one of
#: another signature, is refused here); LibraryTask is checked by `task_of`'s return type.
_CHECKED: tuple[BoardTask, ...] = (RcTask(), E2ETask())
#: The board tasks that keep the board's own storage (aligned labels; validated documents), by the library task
#: each evaluates (its `name`); every other task of the library's registry is a board task through its Task
#: (releval.service.library_task).
OWN_STORAGE: dict[str, BoardTask] = {own.name: own for own in _CHECKED}


@dataclass(frozen=True)
class SplitGold:
    """A benchmark's dev gold in the shape the task methods read a benchmark's (test) gold."""

    pk: int
    gold_sha256: str
    gold: bytes
    gold_name: str
    gold_ids: bytes
    gold_labels: bytes


def split_view(bench: Any, split: str) -> Any:
    """What the task methods read as `bench` for a run of `split`: the benchmark (test) or its dev gold."""
    if split == "test":
        return bench
    if split != "dev" or bench.dev_gold is None:
        raise InputError(f"benchmark {bench.slug!r} has no {split} gold: submit test predictions")
    return SplitGold(
        bench.pk,
        bench.dev_gold_sha256,
        bytes(bench.dev_gold),
        bench.dev_gold_name,
        bytes(bench.dev_gold_ids),
        bytes(bench.dev_gold_labels),
    )


def task_of(name: str) -> BoardTask:
    """The board's interface to the task called `name`: one of the library's registry (`releval.registry.TASKS`;
    an OptionError listing them for any other name, or saying why the board cannot evaluate it)."""
    from releval.registry import get_task

    task = get_task(name)  # refuses a name the registry lacks
    if name in OWN_STORAGE:
        return OWN_STORAGE[name]
    if task.compare is None:
        raise OptionError(f"task {name!r} has no paired comparison, so it cannot be a board's task", option="task")
    return LibraryTask(task)


def board_tasks() -> dict[str, BoardTask]:
    """Every task of the library's registry the board evaluates (those with a paired comparison), by name.

    >>> tasks = board_tasks()
    >>> "rc" in tasks and all(isinstance(t, BoardTask) for t in tasks.values())
    True
    """
    from releval.registry import TASKS, get_task

    return {name: task_of(name) for name in TASKS if name in OWN_STORAGE or get_task(name).compare is not None}


@dataclass(frozen=True)
class RcGold:
    """A classification benchmark's gold as the scorers read it: ids and labels in gold order."""

    ids: list[str]
    labels: list[str]

    def mapping(self, labels: Sequence[str] | None = None) -> dict[str, str]:
        return dict(zip(self.ids, self.labels if labels is None else labels))


@lru_cache(maxsize=16)
def _rc_gold(pk: int, sha: str, ids: bytes, labels: bytes) -> RcGold:
    return RcGold(scoring.unpack_labels(ids), scoring.unpack_labels(labels))


def rc_gold(bench: Any) -> RcGold:
    """The gold of a classification benchmark, unpacked once per process (keyed by its content)."""
    return _rc_gold(bench.pk, bench.gold_sha256, bytes(bench.gold_ids), bytes(bench.gold_labels))


@lru_cache(maxsize=8)
def _e2e_gold(pk: int, sha: str, data: bytes, name: str) -> Any:
    return E2ETask()._read(data, name, "gold")


def e2e_gold(bench: Any) -> Any:
    """The gold documents of an end-to-end benchmark, read once per process (keyed by its content)."""
    return _e2e_gold(bench.pk, bench.gold_sha256, bytes(bench.gold), bench.gold_name)
