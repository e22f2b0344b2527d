"""The one interface the board has to a task: `BoardTask`, what releval.service.board, .jobs, .views and .across
call on the task object of a benchmark (`releval.service.board_tasks.task_of`). Every kind of evaluation the board
offers is one such object — relation classification and end-to-end RE with the board's own storage
(`board_tasks.RcTask`, `board_tasks.E2ETask`), every other task of the library's registry through its `Task`
(`library_task.LibraryTask`) — and mypy checks each against this protocol (`board_tasks`' module-level checks).
The board never names a task: it asks the object what it computes and what it can do.

What a board task declares (its capabilities):

* `name`: the library task it evaluates (releval.registry.TASKS);
* `default_measures`: the columns a new benchmark starts with, headline first;
* `criterion_label`: what an entry page's per-class table is of ("" for the labels themselves);
* `bounded_by_gold`: an upload holds at most one prediction per gold item, so its size is bounded by gold's
  (`scoring.UploadBound.for_gold`); `upload_lines_per_item`: the lines an upload may spend per gold item (None:
  the bound's default);
* `across_benchmarks`: `inputs` gives gold and a run as the library's classification functions take them, so the
  replicability analysis across benchmarks (releval.service.across) reads its benchmarks;
* `ranks_entries`: `rank_intervals` ranks entries from what this board task stores (classification); a task
  without it is ranked by its library Task's `rank_intervals` over the stored runs (`jobs.rank_intervals`).

Example:

>>> from releval.service.board_tasks import task_of
>>> isinstance(task_of("rc"), BoardTask), task_of("rc").default_measures[0]
(True, 'micro')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from releval.service.scoring import BenchmarkSpec, Cell, StoredGold


@runtime_checkable
class BoardTask(Protocol):
    """What the board calls on a task object. `bench` is a benchmark (releval.service.models.Benchmark) or its dev
    gold (`board_tasks.split_view`); `stored` is what `prepare_run` returned for a run (the board keeps it)."""

    @property
    def name(self) -> str: ...

    @property
    def default_measures(self) -> tuple[str, ...]: ...

    @property
    def criterion_label(self) -> str: ...

    @property
    def bounded_by_gold(self) -> bool: ...

    @property
    def upload_lines_per_item(self) -> int | None: ...

    @property
    def across_benchmarks(self) -> bool: ...

    @property
    def ranks_entries(self) -> bool: ...

    # -- settings and measures
    def spec(self, settings: dict[str, Any], **test: Any) -> BenchmarkSpec:
        """The benchmark's Config and test settings from its stored settings (an OptionError naming a bad one)."""
        ...

    def check_measure(self, name: str, spec: BenchmarkSpec | None = None) -> str:
        """`name` as a measure of this task (normalised), or an OptionError listing what is known; `spec`: the
        benchmark's, whose Config may compute more than the task's defaults (a ranked benchmark's `p@10%`)."""
        ...

    def average_of(self, measure: str) -> str:
        """The average (micro or a weighting) a measure computes, as the class weights figure names it."""
        ...

    # -- files
    def read_gold(self, data: bytes, name: str, spec: BenchmarkSpec) -> StoredGold:
        """Gold read by the library's strict loaders: what the benchmark stores besides the file."""
        ...

    def counted(self, stats: dict[str, Any]) -> tuple[int, str]:
        """How much gold holds, and of what (items, documents, episodes …), from its statistics."""
        ...

    def prepare_run(
        self, bench: Any, data: bytes, filename: str, spec: BenchmarkSpec, limit: int, fmt: str | None = None
    ) -> bytes:
        """The upload validated (an InputError naming it when refused): what the run stores."""
        ...

    def labels_outside_gold(self, bench: Any, stored: bytes) -> list[str]:
        """The labels a run predicts that gold has nowhere (refused during a hidden phase); [] for a task
        without labels of its own."""
        ...

    # -- numbers
    def cells(self, bench: Any, stored: bytes, spec: BenchmarkSpec, measures: Sequence[str]) -> dict[str, Cell]:
        """Each measure's value, interval and signature for one run."""
        ...

    def result(self, bench: Any, stored: bytes, spec: BenchmarkSpec, measures: Sequence[str]) -> Any:
        """The run's whole result as the library's `to_dict()` gives it."""
        ...

    def per_class_result(self, result: dict[str, Any]) -> dict[str, Any] | None:
        """The ScoreResult dict whose per-class rows an entry page shows, or None."""
        ...

    def class_labels(self, bench: Any, spec: BenchmarkSpec) -> tuple[list[str], str | None] | None:
        """Gold's labels and the negative label for the class weights figure, or None (no such figure)."""
        ...

    def flags(self, bench: Any, stored: bytes, spec: BenchmarkSpec) -> list[dict[str, str]]:
        """The run's audit errors and warnings ({code, severity, message})."""
        ...

    def pair_p(self, bench: Any, best: bytes, other: bytes, measure: str, spec: BenchmarkSpec) -> float:
        """The paired bootstrap p-value of two runs under `measure`."""
        ...

    def inputs(self, bench: Any, stored: bytes) -> tuple[Any, Any]:
        """Gold and a run as the library's functions take them (`across_benchmarks` tasks)."""
        ...

    def rank_intervals(
        self, bench: Any, systems: Mapping[str, Sequence[bytes]], measure: str, spec: BenchmarkSpec
    ) -> dict[str, list[int]]:
        """Each entry's bootstrap rank interval under `measure` ({} when the task has none: `ranks_entries`)."""
        ...
