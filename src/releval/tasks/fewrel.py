"""Few-shot relation classification on FewRel episodes: accuracy per N-way K-shot setting (with or without
none-of-the-above), its bootstrap interval over episodes, and per-relation accuracy.

Gold is one file of episodes with their answers (releval.data.fewrel: the official test input with an 'answer' per
entry, or {"episodes": ..., "answers": ...} pointing to the official input and answer lists); predictions are the
official submission, a JSON list of integers (0..N-1, or N for none-of-the-above). A setting's accuracy is the mean
over its episodes of each episode's share of correct queries (Han et al. 2018; `fewshot_re_kit`'s evaluation);
the interval is the percentile bootstrap over episodes (Efron & Tibshirani 1993), drawn with the resampling
machinery of releval.metrics.cells, so `compare --task fewrel` resamples the same unit. Per-relation accuracy is
the share of the queries of each gold relation answered correctly, pooled over episodes.

A prediction that is no answer of its episode (an index outside 0..N-1, or N outside a none-of-the-above setting),
a wrong count or a value that is not an integer is refused by the reader (releval.data.fewrel); gold's own answers
file given as the predictions is warned (`prediction_notices`).

>>> config = FewRelConfig()
>>> config.signature_fields()["task"], config.resamples
('fewrel', 10000)
"""

from __future__ import annotations

import filecmp
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from releval.core.notices import Notice
from releval.core.options import DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES, DEFAULT_SEED
from releval.core.schema import check_schema, header
from releval.core.signature import Signature, parse
from releval.core.table import Column, Table, attach
from releval.core.validation import check_confidence, check_resamples, check_seed
from releval.data.fewrel import NOTA, Episodes, load_episodes, load_predictions
from releval.metrics.cells import bootstrap_totals, cells_from_rows
from releval.metrics.episodes import episode_accuracies, measure_rows, ratios
from releval.tasks.base import BoardExample, Task, build_signature
from releval.tasks.vocabulary import identical_notice

FewRelInput = str | os.PathLike[str] | Episodes
#: The headline measure (the mean of per-episode accuracies over every episode of the file).
ACCURACY = "accuracy"


@dataclass(frozen=True)
class FewRelConfig:
    """Every setting of FewRel scoring: the bootstrap interval's resamples, seed and level (the score's interval
    over episodes; `compare` takes its own from its test settings)."""

    task: ClassVar[str] = "fewrel"

    resamples: int = DEFAULT_RESAMPLES
    seed: int | None = DEFAULT_SEED
    confidence: float = DEFAULT_CONFIDENCE

    def __post_init__(self) -> None:
        object.__setattr__(self, "resamples", check_resamples(self.resamples))
        object.__setattr__(self, "seed", check_seed(self.seed))
        object.__setattr__(self, "confidence", check_confidence(self.confidence))

    def signature_fields(self) -> dict[str, object]:
        """The Config's part of the signature: the task and the measure."""
        return {"task": self.task, "criterion": "accuracy:mean-over-episodes"}

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def setting_name(n_way: int, k_shot: int, nota: bool) -> str:
    """'5-way 1-shot', '5-way 1-shot NOTA'."""
    return f"{n_way}-way {k_shot}-shot" + (" NOTA" if nota else "")


def setting_key(n_way: int, k_shot: int, nota: bool) -> str:
    """The measure name of one setting's accuracy: 'accuracy:5-1', 'accuracy:5-1-nota'."""
    return f"{ACCURACY}:{n_way}-{k_shot}" + ("-nota" if nota else "")


@dataclass(frozen=True)
class EpisodeStats:
    """One system's per-episode accuracies on gold episodes, and what measures they make.

    `measures` are "accuracy" (every episode) followed, when the file holds several settings, by one per setting
    (`setting_key`); `rows` are the (E, 2M) per-episode statistics of releval.metrics.episodes."""

    accuracy: NDArray[np.float64]
    setting: NDArray[np.int64]
    settings: list[tuple[int, int, bool]]
    measures: tuple[str, ...]
    rows: NDArray[np.float64]

    def values(self) -> dict[str, float]:
        return dict(zip(self.measures, ratios(self.rows.sum(axis=0)).tolist()))


def episode_stats(gold: Episodes, pred: NDArray[np.int64]) -> EpisodeStats:
    """Per-episode accuracies of `pred` on `gold` and the measure rows (see EpisodeStats)."""
    correct = pred == gold.answers
    accuracy = episode_accuracies(gold.episode, correct)
    settings = gold.settings()
    index = {(n, k): s for s, (n, k, _) in enumerate(settings)}
    first = np.unique(gold.episode, return_index=True)[1]  # each episode's first query
    setting = np.array([index[(int(gold.n_way[i]), int(gold.k_shot[i]))] for i in first], dtype=np.int64)
    several = len(settings) > 1
    measures = (ACCURACY, *(setting_key(*s) for s in settings)) if several else (ACCURACY,)
    rows = measure_rows(accuracy, setting, len(settings), overall=several)
    return EpisodeStats(accuracy, setting, settings, measures, rows)


def signature(config: FewRelConfig, gold: Episodes, extra: dict[str, object] | None = None) -> Signature:
    """THE FewRel signature: the Config's fields, the settings (`labels`), the gold episodes' digest and their
    number."""
    return build_signature(
        {
            **config.signature_fields(),
            "labels": ",".join(setting_name(*s).replace(" ", "-") for s in gold.settings()),
            "gold": gold.digest,
            "n": gold.n_episodes,
            **(extra or {}),
        }
    )


@dataclass(frozen=True)
class SettingRow:
    """Accuracy of one setting (or of all episodes, `name` 'all'), with its bootstrap interval."""

    name: str
    episodes: int
    queries: int
    nota_queries: int
    accuracy: float
    ci: tuple[float, float] | None

    def to_dict(self) -> dict[str, Any]:
        out = dict(self.__dict__)
        out["ci"] = None if self.ci is None else list(self.ci)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SettingRow:
        ci = data.get("ci")
        return cls(
            str(data["name"]),
            int(data["episodes"]),
            int(data["queries"]),
            int(data["nota_queries"]),
            float(data["accuracy"]),
            None if ci is None else (float(ci[0]), float(ci[1])),
        )


@dataclass(frozen=True)
class RelationRow:
    """Accuracy on the queries of one gold relation (NOTA: the none-of-the-above queries), pooled over episodes."""

    relation: str
    queries: int
    correct: int

    @property
    def accuracy(self) -> float:
        return self.correct / self.queries if self.queries else math.nan


@dataclass(frozen=True)
class FewRelResult:
    """Scores of one system on FewRel episodes: accuracy per setting (and over all episodes when there are
    several), each with its bootstrap interval over episodes; per-relation accuracy."""

    system: str
    settings: list[SettingRow]
    relations: list[RelationRow]
    signature: Signature
    confidence: float
    notes: list[str] = field(default_factory=list)
    warnings: list[Notice] = field(default_factory=list)

    task: ClassVar[str] = "fewrel"

    @property
    def accuracy(self) -> float:
        """The headline accuracy: over every episode of the file."""
        return self.settings[0].accuracy

    def __getitem__(self, name: str) -> SettingRow:
        """A setting's row by name ('all', '5-way 1-shot', …) or measure ('accuracy', 'accuracy:5-1')."""
        for row in self.settings:
            if name in (row.name, _measure_of(row.name)):
                return row
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        return {
            **header("fewrel-score"),
            "task": "fewrel",
            "system": self.system,
            "settings": [s.to_dict() for s in self.settings],
            "relations": [
                {"relation": r.relation, "queries": r.queries, "correct": r.correct, "accuracy": r.accuracy}
                for r in self.relations
            ],
            "confidence": self.confidence,
            **self.signature.to_json(),
            "notes": list(self.notes),
            "warnings": [w.to_dict() for w in self.warnings],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FewRelResult:
        check_schema(data, "FewRel result", "fewrel-score")
        return cls(
            str(data["system"]),
            [SettingRow.from_dict(s) for s in data["settings"]],
            [RelationRow(str(r["relation"]), int(r["queries"]), int(r["correct"])) for r in data["relations"]],
            parse(data["signature"]),
            float(data["confidence"]),
            list(data.get("notes", [])),
            [Notice.from_dict(w) for w in data.get("warnings", [])],
        )

    def to_tables(self) -> list[Table]:
        return FewRelResult.tables_of([self])

    @classmethod
    def tables_of(cls, results: Sequence[FewRelResult], per_class: bool | None = None) -> list[Table]:
        """Accuracy per setting of every system with its interval; per-relation accuracy for one system (or with
        `per_class`)."""
        if per_class is None:
            per_class = len(results) == 1
        conf = int(round(100 * results[0].confidence)) if results else 95
        columns = (
            Column("system"),
            Column("setting", align="left"),
            Column("episodes", "count"),
            Column("queries", "count"),
            Column("NOTA %", "number", key="nota_percent", spec=".1f"),
            Column("accuracy", "percent"),
            Column(f"{conf}% CI", "percent-interval", key="ci"),
        )
        rows = [
            (
                r.system,
                s.name,
                s.episodes,
                s.queries,
                100.0 * s.nota_queries / s.queries if s.queries else None,
                s.accuracy,
                s.ci,
            )
            for r in results
            for s in r.settings
        ]
        notes = [
            "accuracy = mean over episodes of each episode's share of correct queries; "
            f"CI: percentile bootstrap over episodes ({results[0].signature.get('resamples', '?')} resamples)"
            if results
            else "",
            *dict.fromkeys(n for r in results for n in r.notes),
        ]
        signatures = {r.signature.format(short=True) for r in results}
        sig: Any = (
            next(iter(signatures)) if len(signatures) == 1 else [(r.system, r.signature.format(True)) for r in results]
        )
        warnings = [f"{r.system}: {w}" for r in results for w in r.warnings]
        out = [Table("FewRel accuracy per setting", columns, rows)]
        if per_class:
            for r in results:
                rel_rows = [(x.relation, x.queries, x.correct, x.accuracy) for x in r.relations]
                out.append(
                    Table(
                        f"{r.system}: accuracy per gold relation (queries pooled over episodes)",
                        (
                            Column("relation"),
                            Column("queries", "count"),
                            Column("correct", "count"),
                            Column("accuracy", "percent"),
                        ),
                        rel_rows,
                    )
                )
        return attach(out, signature=sig, warnings=warnings, notes=[n for n in notes if n])


def _measure_of(name: str) -> str:
    if name == "all":
        return ACCURACY
    parts = name.replace("-way", "").replace("-shot", "").split()
    return f"{ACCURACY}:{parts[0]}-{parts[1]}" + ("-nota" if len(parts) > 2 else "")


def bootstrap_intervals(rows: NDArray[np.float64], config: FewRelConfig) -> list[tuple[float, float]]:
    """The percentile bootstrap interval of each measure of the per-episode `rows` (episodes resampled with
    replacement, `config.resamples` times from `config.seed`)."""
    cells = cells_from_rows(rows, rows)
    rng = np.random.default_rng(config.seed)
    draws = np.concatenate([ratios(a) for a, _ in bootstrap_totals(cells, config.resamples, rng)])
    tail = (1.0 - config.confidence) / 2.0
    lo, hi = np.nanquantile(draws, [tail, 1.0 - tail], axis=0)
    return [(float(a), float(b)) for a, b in zip(lo, hi)]


def score(gold: FewRelInput, pred: Any, config: FewRelConfig | None = None, system: str | None = None) -> FewRelResult:
    """Score one system's predictions (a file or a list of integers) on gold episodes."""
    config = config or FewRelConfig()
    episodes = gold if isinstance(gold, Episodes) else load_episodes(gold)
    values = load_predictions(pred, episodes)
    stats = episode_stats(episodes, values)
    intervals = bootstrap_intervals(stats.rows, config)
    accuracy = stats.values()
    nota = episodes.nota
    query_setting = stats.setting[episodes.episode]
    rows: list[SettingRow] = []
    if len(stats.settings) > 1:
        rows.append(
            SettingRow(
                "all", episodes.n_episodes, episodes.n_queries, int(nota.sum()), accuracy[ACCURACY], intervals[0]
            )
        )
    offset = 1 if len(stats.settings) > 1 else 0
    for s, (n, k, has_nota) in enumerate(stats.settings):
        member = query_setting == s
        measure = stats.measures[s + offset]
        rows.append(
            SettingRow(
                setting_name(n, k, has_nota),
                int((stats.setting == s).sum()),
                int(member.sum()),
                int((nota & member).sum()),
                accuracy[measure],
                intervals[s + offset],
            )
        )
    relations = _relation_rows(episodes, values == episodes.answers)
    notes = []
    if not relations:
        notes.append("the episodes name no relations ('relation' lists): no per-relation accuracy")
    extra = {"resamples": config.resamples, "seed": config.seed if config.seed is not None else "none"}
    sig = signature(config, episodes, {**extra, "confidence": float(config.confidence)})
    name = system or _system_name(pred)
    return FewRelResult(
        name, rows, relations, sig, config.confidence, notes, prediction_notices(episodes, pred, values)
    )


def prediction_notices(gold: Episodes, pred: Any, values: NDArray[np.int64]) -> list[Notice]:
    """The warning for gold's own answers given as the predictions: every answer right AND the prediction file is
    gold's answers file (the same file, or a byte-for-byte copy) — `{"episodes": ..., "answers": "answers.json"}`
    points to it, and passing it again as the system is an easy slip. Every answer right alone is not warned: a
    strong system can answer a small set of 5-way 5-shot episodes perfectly. (Swapped files need no warning: the
    gold reader refuses a list of integers, and the prediction reader a list of episodes.)

    >>> import numpy as np
    >>> gold = Episodes("g.json", np.array([5]), np.array([1]), np.array([0]), [None], np.array([3]), "d", "a.json")
    >>> prediction_notices(gold, [3], np.array([3]))  # in-memory predictions: no file to compare
    []
    """
    if not isinstance(pred, (str, os.PathLike)) or gold.answers_path is None or gold.answers_path.startswith("<"):
        return []
    if values.shape != gold.answers.shape or not bool(np.array_equal(values, gold.answers)):
        return []
    try:
        if os.path.samefile(pred, gold.answers_path):
            what = f"{os.fspath(pred)} (gold's answers file)"
        elif filecmp.cmp(pred, gold.answers_path, shallow=False):
            what = f"{os.fspath(pred)} (a copy of gold's answers file {gold.answers_path})"
        else:
            return []
    except OSError:
        return []
    return identical_notice(what, gold.n_queries, "queries")


def _relation_rows(gold: Episodes, correct: NDArray[np.bool_]) -> list[RelationRow]:
    counts: dict[str, list[int]] = {}
    for i in range(gold.n_queries):
        relation = gold.gold_relation(i)
        if relation is None:
            continue
        c = counts.setdefault(relation, [0, 0])
        c[0] += 1
        c[1] += int(correct[i])
    order = sorted(r for r in counts if r != NOTA) + ([NOTA] if NOTA in counts else [])
    return [RelationRow(r, counts[r][0], counts[r][1]) for r in order]


def _system_name(pred: Any) -> str:
    if not isinstance(pred, (str, os.PathLike)):
        return "system"
    name = Path(pred).name
    for suffix in (".gz", ".json"):
        name = name.removesuffix(suffix)
    return name


def score_files(
    gold: FewRelInput, systems: Sequence[tuple[str | None, Any]], config: FewRelConfig
) -> list[FewRelResult]:
    """Score several systems' predictions against one gold file (read once) under `config`."""
    episodes = gold if isinstance(gold, Episodes) else load_episodes(gold)
    return [score(episodes, pred, config, name) for name, pred in systems]


TASK = Task(
    name="fewrel",
    help="few-shot RE on FewRel episodes: accuracy per N-way K-shot setting, bootstrap over episodes",
    config=FewRelConfig,
    unit="episode",
    score_files=score_files,
    measures=(ACCURACY,),
    example=BoardExample(
        slug="fewrel-wiki-5-1",
        folder="fewrel",
        gold="gold-5-1.json.gz",
        title="FewRel val_wiki, 50 episodes of 5-way 1-shot",
        description="Han et al. (2018): accuracy as the mean of per-episode accuracies; intervals resample episodes.",
        position=3,
    ),
)
