"""Any task of the library's registry (`releval.registry.TASKS`) as a board benchmark, through the Task protocol alone.

The board needs, per benchmark task: its Config from stored settings, its gold read once (with statistics), an
upload validated when it arrives, each measure's value with its bootstrap interval, a run's full result, and the
paired p-value of two runs. A library Task provides all of it (releval.tasks.base.Task):

* the Config is `task.make_config(**settings)` (a setting the Config lacks is refused, as on the command line);
* gold is validated and described by `task.statistics` (its `to_dict()` is the benchmark's statistics line);
* an upload is validated by `task.score_files(gold, [(None, upload)], config)` — what `releval score` refuses is
  refused at upload, with the upload's name;
* a cell is the value and interval of system A in `task.compare(gold, {a: [run], b: [run]}, config, test)` — the
  same numbers `releval compare --task NAME GOLD -s a=RUN -s b=RUN` prints; a tie-group p-value is the paired
  test's p of `task.compare(gold, {best: [...], other: [...]})`;
* a measure is one of the `metrics` of that PairedTable (`task.measures` are the defaults).

The library reads files, so gold and uploads are written to a private temporary directory under their uploaded
names (errors name the upload, never the directory); a gold of several files (`Task.gold_parts`, DrugProt) is
stored as a tar archive of them and unpacked into a folder of its own (releval.data.parts). Relation
classification and end-to-end RE keep the board's own storage (aligned labels, validated documents:
releval.service.board_tasks), which is faster on large boards and gives the same numbers.

Example (the doctest of a toy task lives in tests/test_input_stage.py)::

    adapter = LibraryTask(get_task("docred"))
    spec = adapter.spec({"scorer": "codalab"}, resamples=1000, seed=12345, confidence=0.95)
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import threading
import zlib
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

from releval.core.errors import InputError, OptionError, RelevalError
from releval.service import scoring
from releval.tasks.base import Task, resolve

_LOCK = threading.Lock()
_DIR: list[Path] = []


def _workdir() -> Path:
    """A private directory for this process's files (removed when the process ends)."""
    with _LOCK:
        if not _DIR:
            path = Path(tempfile.mkdtemp(prefix="releval-board-"))
            atexit.register(shutil.rmtree, path, True)
            _DIR.append(path)
        return _DIR[0]


def _materialise(data: bytes, name: str) -> Path:
    """`data` as a file named `name` (its suffix tells the format readers what it is), in a directory of its own
    keyed by the content's digest: the same gold is written once per process."""
    folder = _workdir() / scoring.digest(data)[:32]
    path = folder / scoring.safe_name(name)
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        temporary = folder / f".{path.name}.{threading.get_ident()}"
        temporary.write_bytes(data)
        temporary.replace(path)
    return path


@contextmanager
def _uploads(*stored: bytes) -> Iterator[list[Path]]:
    """Stored runs as files (`LibraryTask.prepare_run`'s form: name, NUL, content) for the length of one call,
    then removed: a long-running worker keeps gold files only, one per benchmark."""
    folder = Path(tempfile.mkdtemp(prefix="run-", dir=_workdir()))
    try:
        paths = []
        for i, one in enumerate(stored):
            filename, _, content = zlib.decompress(one).partition(b"\0")
            path = folder / str(i) / scoring.safe_name(filename.decode(errors="replace") or "run")
            path.parent.mkdir()
            path.write_bytes(content)
            paths.append(path)
        yield paths
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _named(exc: RelevalError, folders: Sequence[Path]) -> InputError:
    """The library's error with the temporary folders taken out of its text, so it names the upload alone."""
    text = str(exc)
    for folder in folders:
        text = text.replace(f"{folder}/", "").replace(str(folder), "the uploaded file's folder")
    return InputError(text)


def _without_folder(value: Any, folder: Path) -> Any:
    """`value` (statistics as JSON) with the temporary folder's paths replaced by the upload's name: what the board
    shows and serves names the file its organiser gave, never a path on the server."""
    if isinstance(value, str):
        return value.replace(f"{folder}/", "") if str(folder) in value else value
    if isinstance(value, dict):
        return {k: _without_folder(v, folder) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_folder(v, folder) for v in value]
    return value


class LibraryTask:
    """The board's interface (releval.service.board_protocol.BoardTask) over one library Task."""

    criterion_label = ""
    #: A library task's predictions need not follow gold's items (ranked facts list every candidate): its uploads
    #: are bounded by RELEVAL_MAX_UPLOAD alone, not by gold's size.
    bounded_by_gold = False
    upload_lines_per_item: int | None = None
    across_benchmarks = False  # `inputs` is refused: the analysis across benchmarks reads classification benchmarks
    ranks_entries = False

    def __init__(self, task: Task) -> None:
        self.task = task
        self.name = task.name
        # a task that names no measures: micro, and the default weightings when its Config has weightings
        self.default_measures: tuple[str, ...] = task.measures or (
            scoring.DEFAULT_MEASURES if self._weighting_field() else ("micro",)
        )

    def average_of(self, measure: str) -> str:
        return measure

    def per_class_result(self, result: dict[str, Any]) -> dict[str, Any] | None:
        """The run's result when it is a ScoreResult's dict (per-class rows an entry page shows), else None."""
        from releval.result import ScoreResult

        try:
            ScoreResult.from_dict(result)
        except (KeyError, TypeError, ValueError, AttributeError):
            return None
        return result

    def class_labels(self, bench: Any, spec: scoring.BenchmarkSpec) -> tuple[list[str], str | None] | None:
        """None: the class weights figure needs gold's labels, which a library task does not give the board."""
        return None

    # -- settings and measures -------------------------------------------------------------------------------
    def spec(self, settings: dict[str, Any], **test: Any) -> scoring.BenchmarkSpec:
        config = self.task.make_config(**dict(settings))
        spec = scoring.BenchmarkSpec(config, settings=dict(settings), **test)
        spec.test_config()
        return spec

    def _weighting_field(self) -> bool:
        return "weightings" in {f.name for f in fields(self.task.config)}

    def check_measure(self, name: str, spec: scoring.BenchmarkSpec | None = None) -> str:
        """One of the task's measures: a default, one the benchmark's Config computes (`Task.measure_names` of
        `spec.config`: a ranked benchmark with `at_recall` 10,30 computes `p@10%` and `p@30%`), or — for a task
        with weightings that declares no `measure_names` — micro or a weighting the library knows."""
        name = name.strip()
        if name in self.task.measures:
            return name
        computed = self._computed(spec.config) if spec is not None else ()
        if name in computed:
            return name
        if self._weighting_field() and self.task.measure_names is None:
            return scoring.check_measure(name)
        known = ", ".join(dict.fromkeys((*self.task.measures, *computed))) or "none"
        where = " under this benchmark's settings" if spec is not None else ""
        raise OptionError(f"unknown measure {name!r} of task {self.name!r}{where}: one of {known}", option="measure")

    def _computed(self, config: Any) -> tuple[str, ...]:
        """The measures `config` computes, as the Task declares them (`Task.measure_names`); () when it does not."""
        if self.task.measure_names is None:
            return ()
        return tuple(resolve(self.task.measure_names)(config))

    def _config(self, spec: scoring.BenchmarkSpec, measures: Sequence[str]) -> Any:
        """The benchmark's Config computing `measures`, with no weighting they do not need: for a task declaring
        `measure_names`, the weightings whose measures (what adding one to the Config adds) are asked; otherwise
        the weightings named by the measures."""
        if not self._weighting_field():
            return spec.config
        if self.task.measure_names is not None:
            bare = set(self._computed(replace(spec.config, weightings=())))
            own = tuple(
                w.name
                for w in spec.config.weightings
                if (set(self._computed(replace(spec.config, weightings=(w,)))) - bare) & set(measures)
            )
            return replace(spec.config, weightings=own)
        wanted = tuple(dict.fromkeys(m for m in measures if m not in self.task.measures and m != "micro"))
        own = tuple(w.name for w in spec.config.weightings if w.name in measures)
        return replace(spec.config, weightings=tuple(dict.fromkeys((*own, *wanted))))

    # -- files -----------------------------------------------------------------------------------------------
    def _gold_path(self, data: bytes, name: str) -> Path:
        """Gold as the task reads it: its file, or — for a task whose gold is several files (`Task.gold_parts`),
        stored as a tar archive of them — their folder (releval.data.parts)."""
        if self.task.gold_parts is not None:
            from releval.data.parts import is_parts, unpack_parts

            if is_parts(data):
                folder = _workdir() / scoring.digest(data)[:32] / "gold"
                if not folder.is_dir():
                    staging = folder.parent / f".gold.{threading.get_ident()}"
                    shutil.rmtree(staging, ignore_errors=True)
                    unpack_parts(data, staging, name)
                    try:
                        staging.replace(folder)
                    except OSError:  # another thread unpacked it first
                        shutil.rmtree(staging, ignore_errors=True)
                return folder
        return _materialise(data, name)

    def read_gold(self, data: bytes, name: str, spec: scoring.BenchmarkSpec) -> scoring.StoredGold:
        from releval.core.signature import short_hash

        path = self._gold_path(data, name)
        stats: dict[str, Any] = {}
        try:
            if self.task.statistics is not None:
                found = resolve(self.task.statistics)([path], spec.config).to_dict()
                stats = found if isinstance(found, dict) else {"files": found}  # a list: one table per file
        except RelevalError as exc:
            error = _named(exc, [path if path.is_dir() else path.parent])
            if self.task.gold_parts is not None and not path.is_dir():  # one file where the task reads several
                error = InputError(
                    f"{error}; task {self.name!r} reads its gold from several files: give `releval benchmark` "
                    "their folder (or the main file with the others beside it), or upload a tar archive of them"
                )
            raise error from None
        stats = _without_folder(stats, path if path.is_dir() else path.parent)
        return scoring.StoredGold([], [], short_hash(data), self.counted(stats)[0], stats)

    def counted(self, stats: dict[str, Any]) -> tuple[int, str]:
        """How much gold holds, and of what, from its statistics: the resampling units (documents, episodes, bags)
        where the statistics count them (`episodes`, `n_items`, the files' `documents`), else the items they count
        (`n`, Table 1's samples, the files' samples).

        >>> from releval.registry import get_task
        >>> LibraryTask(get_task("docred")).counted({"files": [{"documents": 40}, {"documents": 60}]})
        (100, 'documents')
        >>> LibraryTask(get_task("ranked")).counted({"n_items": 150, "bags": [150]})
        (150, 'bags')
        >>> LibraryTask(get_task("drugprot")).counted({"table1": {"samples": 466}})
        (466, 'items')
        >>> LibraryTask(get_task("rc")).counted({"files": [{"samples": 2717}]})  # label statistics, one per file
        (2717, 'items')
        """
        plural, files = f"{self.task.unit}s", stats.get("files")
        n = stats.get(plural) if isinstance(stats.get(plural), int) else stats.get("n_items")
        if not isinstance(n, int) and isinstance(files, list) and files:
            counts = [f.get(plural) if isinstance(f, dict) else None for f in files]
            n = sum(counts) if all(isinstance(c, int) for c in counts) else None  # type: ignore[arg-type]
        if isinstance(n, int) and n:
            return n, plural
        table1 = stats.get("table1")
        n = stats.get("n", table1.get("samples", 0) if isinstance(table1, dict) else 0)
        if not n and isinstance(files, list) and files:
            counts = [f.get("samples") if isinstance(f, dict) else None for f in files]
            n = sum(counts) if all(isinstance(c, int) for c in counts) else 0  # type: ignore[arg-type]
        return (n if isinstance(n, int) else 0), "items"

    def _gold(self, bench: Any) -> Path:
        return self._gold_path(bytes(bench.gold), bench.gold_name)

    def prepare_run(
        self, bench: Any, data: bytes, filename: str, spec: scoring.BenchmarkSpec, limit: int, fmt: str | None = None
    ) -> bytes:
        """The upload, validated by scoring it once (InputError naming the upload when refused); gzip expanded
        within `limit` bytes. What the run stores: its name and content."""
        if fmt:
            raise OptionError(f"format: task {self.name!r} detects its upload's format", option="format")
        name = scoring.safe_name(filename)
        if data[:2] == b"\x1f\x8b":
            data = scoring.gunzip(data, name, limit)
            name = name.removesuffix(".gz") or "upload"
        stored = zlib.compress(name.encode() + b"\0" + data, 6)
        gold = self._gold(bench)
        with _uploads(stored) as (path,):
            try:
                self.task.score_files(gold, [(None, path)], spec.config)
            except RelevalError as exc:
                raise _named(exc, [path.parent, gold if gold.is_dir() else gold.parent]) from None
        return stored

    # -- numbers ---------------------------------------------------------------------------------------------
    def _table(self, bench: Any, systems: dict[str, Path], spec: scoring.BenchmarkSpec, measures: Sequence[str]) -> Any:
        if self.task.compare is None:
            raise OptionError(f"task {self.name!r} has no paired comparison: it cannot be a board", option="task")
        config = self._config(spec, measures)
        table = resolve(self.task.compare)(
            self._gold(bench), {name: [path] for name, path in systems.items()}, config, spec.test_config()
        )
        missing = [m for m in measures if m not in table.metrics]
        if missing:
            raise OptionError(f"task {self.name!r} computes no measure {', '.join(missing)}", option="measure")
        return table

    def cells(self, bench: Any, stored: bytes, spec: scoring.BenchmarkSpec, measures: Sequence[str]) -> Any:
        with _uploads(stored) as (run,):
            table = self._table(bench, {"a": run, "b": run}, spec, measures)
        out = {}
        for measure in measures:
            row = next(r for r in table.rows if r.metric == measure)
            low, high = row.ci_a or (float("nan"), float("nan"))
            signature = scoring.Signature({**table.signature.fields, "average": measure})
            out[measure] = scoring.Cell(float(table.scores["a"][measure]), float(low), float(high), signature.format())
        return out

    def result(self, bench: Any, stored: bytes, spec: scoring.BenchmarkSpec, measures: Sequence[str]) -> Any:
        with _uploads(stored) as (run,):
            (result,) = self.task.score_files(self._gold(bench), [("run", run)], self._config(spec, measures))
        return result.to_dict()

    def flags(self, bench: Any, stored: bytes, spec: scoring.BenchmarkSpec) -> list[dict[str, str]]:
        """The run's warnings from scoring (a library task has no audit of its own)."""
        with _uploads(stored) as (run,):
            (result,) = self.task.score_files(self._gold(bench), [("run", run)], spec.config)
        out = []
        for notice in getattr(result, "warnings", []):
            code = getattr(notice, "code", "") or "warning"
            out.append({"code": code, "severity": "warning", "message": str(notice)})
        return out

    def pair_p(self, bench: Any, best: bytes, other: bytes, measure: str, spec: scoring.BenchmarkSpec) -> float:
        with _uploads(best, other) as (a, b):
            table = self._table(bench, {"best": a, "other": b}, spec, [measure])
        return float(next(r for r in table.rows if r.metric == measure).p_value)

    def inputs(self, bench: Any, stored: bytes) -> tuple[Any, Any]:
        """Refused: the comparisons across benchmarks (releval.service.across) are of classification benchmarks."""
        raise OptionError(f"task {self.name!r}: no comparison across benchmarks", option="task")

    def labels_outside_gold(self, bench: Any, stored: bytes) -> list[str]:
        """[]: the board does not read a library task's labels (its files are the task's to read)."""
        return []

    def rank_intervals(
        self, bench: Any, systems: Mapping[str, Sequence[bytes]], measure: str, spec: scoring.BenchmarkSpec
    ) -> dict[str, list[int]]:
        return {}  # ranked by the library Task instead (`ranks_entries` False: jobs.rank_intervals)
