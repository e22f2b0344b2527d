"""What a benchmark's board shows, read from the database in a few queries: one row per entry, one cell per
measure (F, interval, signature, stale or not, tie status), and for entries with several seeds mean ± sd and
Welch's t / Cohen's d against the best entry. The HTML page, the CSV and the JSON export all render this.
"""

from __future__ import annotations

import csv
import io
import math
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from releval import __version__
from releval.service.jobs import tie_key
from releval.service.models import Benchmark, Cell, Entry, Measure, Run, TieCache
from releval.service.phases import FULL, PROTOCOL_FLAGS, View


@dataclass
class BoardCell:
    """One entry under one measure. `value` is the run's F (one seed) or the mean over seeds."""

    value: float | None = None
    ci: tuple[float, float] | None = None
    signature: str = ""
    stale: bool = True
    seeds: list[float] = field(default_factory=list)
    sd: float | None = None
    tie: str = ""  # "best", "tied", "below", "undecided" (too few resamples to tell) or "" (not computed yet)
    p_adjusted: float | None = None
    welch_p: float | None = None
    cohen_d: float | None = None
    rank: int | None = None  # 1 + the entries whose shown value is higher (ties share a rank); None: no value
    #: The bootstrap rank interval (releval.significance.ranks): the range of ranks in the central share of resamples.
    rank_interval: tuple[int, int] | None = None
    tie_test: str = ""  # how the entry was compared with the best: "bootstrap" (paired) or "welch" (over seeds)
    ci_clipped: bool = False  # a t interval of the mean over seeds cut at the measure's range (MEASURE_RANGE)

    def to_dict(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "rank_interval": list(self.rank_interval) if self.rank_interval else None,
            "tie_test": self.tie_test or None,
            "value": self.value,
            "ci": list(self.ci) if self.ci else None,
            "ci_clipped": self.ci_clipped,
            "signature": self.signature,
            "stale": self.stale,
            "seeds": self.seeds,
            "sd": self.sd,
            "tie": self.tie or None,
            "p_holm": self.p_adjusted,
            "welch_p": self.welch_p,
            "cohen_d": self.cohen_d,
        }


@dataclass
class BoardRow:
    entry_id: int
    name: str
    owner: str
    paper_url: str
    selection: str
    flags: list[dict[str, str]]
    runs: int
    cells: dict[str, BoardCell]

    def to_dict(self) -> dict[str, Any]:
        return {
            "entry": self.entry_id,
            "name": self.name,
            "owner": self.owner,
            "paper_url": self.paper_url or None,
            "selection": self.selection,
            "flags": self.flags,
            "runs": self.runs,
            "cells": {m: c.to_dict() for m, c in self.cells.items()},
        }


@dataclass
class Board:
    benchmark: Benchmark
    measures: list[str]
    rows: list[BoardRow]
    ties_current: dict[str, bool]
    stale: int
    phase: str = ""  # the hidden phase whose view this board is redacted to (releval.service.phases), "" if none

    def to_dict(self) -> dict[str, Any]:
        b = self.benchmark
        return {
            "schema_version": 1,
            "kind": "board",
            "benchmark": b.slug,
            "title": b.title,
            "gold_sha256": b.gold_sha256,
            "n": b.n_items,
            "resamples": b.resamples,
            "seed": b.seed,
            "confidence": b.confidence,
            "measures": self.measures,
            "stale_cells": self.stale,
            "hidden_phase": self.phase or None,
            "ties_current": self.ties_current,
            "version": __version__,
            "rows": [r.to_dict() for r in self.rows],
        }

    def to_csv(self) -> str:
        """One line per (entry, measure): the numbers with their signature."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(
            [
                "entry",
                "owner",
                "measure",
                "f",
                "ci_low",
                "ci_high",
                "seeds",
                "sd",
                "tie",
                "p_holm",
                "stale",
                "signature",
                "rank",
                "rank_low",
                "rank_high",
            ]
        )
        for row in self.rows:
            for m in self.measures:
                c = row.cells[m]
                writer.writerow(
                    [
                        row.name,
                        row.owner,
                        m,
                        _num(c.value),
                        _num(c.ci[0] if c.ci else None),
                        _num(c.ci[1] if c.ci else None),
                        len(c.seeds),
                        _num(c.sd),
                        c.tie,
                        _num(c.p_adjusted),
                        "yes" if c.stale else "no",
                        c.signature,
                        "" if c.rank is None else c.rank,
                        c.rank_interval[0] if c.rank_interval else "",
                        c.rank_interval[1] if c.rank_interval else "",
                    ]
                )
        return out.getvalue()


def redact(b: Board, view: View) -> Board:
    """`b` as `view` allows (releval.service.phases): its measures only, values rounded, and without a detail view
    no p-value, no seed test and no audit finding. The ★/≈ marks stay (the organiser's tie groups)."""
    if view == FULL:
        return b
    shown = view.shown(b.measures)
    for row in b.rows:
        row.cells = {m: _redact_cell(row.cells[m], view) for m in shown}
        if not view.detail:
            row.flags = [f for f in row.flags if f.get("code") in PROTOCOL_FLAGS]
    b.measures = shown
    b.ties_current = {m: b.ties_current.get(m, False) for m in shown}
    b.phase = view.phase
    _rank(b)  # by the values shown: rounded values that are equal share a rank
    if view.digits is not None:
        _best_shown(b)
    return b


def _best_shown(b: Board) -> None:
    """★ on every entry whose value shown is the highest shown, not only on the highest exact value: two entries
    showing the same rounded value get the same mark, so the mark does not tell apart what rounding hides. The
    others keep ≈ or nothing from the tie test against the best."""
    for m in b.measures:
        marked = [row.cells[m] for row in b.rows if row.cells[m].tie and row.cells[m].value is not None]
        values = [c.value for c in marked if c.value == c.value]
        if not values:
            continue
        top = max(values)  # type: ignore[type-var]
        for c in marked:
            if c.value == top:
                c.tie = "best"
            elif c.tie == "best":  # cannot happen (rounding keeps order), kept consistent all the same
                c.tie = "tied"


def _redact_cell(c: BoardCell, view: View) -> BoardCell:
    r = view.value
    ci = (r(c.ci[0]), r(c.ci[1])) if c.ci else None
    out = BoardCell(
        value=r(c.value),
        ci=ci,  # type: ignore[arg-type]
        signature=c.signature,
        stale=c.stale,
        seeds=[r(v) for v in c.seeds],  # type: ignore[misc]
        sd=r(c.sd),
        tie=c.tie,
        ci_clipped=c.ci_clipped,
    )
    if view.detail:
        out.p_adjusted, out.welch_p, out.cohen_d = c.p_adjusted, c.welch_p, c.cohen_d
        out.rank_interval, out.tie_test = c.rank_interval, c.tie_test
    return out


def _num(x: float | None) -> str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else repr(float(x))


def _sd(values: list[float]) -> float | None:
    if len(values) < 2:
        return None
    mean = sum(values) / len(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))


#: The range of every measure's value (an F, an accuracy: a fraction); a t interval of a mean is clipped to it.
MEASURE_RANGE = (0.0, 1.0)


def _mean_interval(values: list[float], confidence: float) -> tuple[tuple[float, float], bool] | None:
    """The t interval of the mean over seeds (releval.significance.seeds.mean_interval) clipped to MEASURE_RANGE,
    and whether it was clipped; None if not finite. With two seeds t₀.₉₇₅,₁ is 12.7, so seeds 0.8005 and 0.9219
    give [0.0899, 1.6325]: an F above 1 is no value the measure can take.

    >>> _mean_interval([0.8005, 0.9219], 0.95)
    ((0.0899..., 1.0), True)
    >>> _mean_interval([0.80, 0.84, 0.82], 0.95)
    ((0.7703..., 0.8696...), False)
    """
    from releval.significance.seeds import mean_interval

    if not all(math.isfinite(v) for v in values):
        return None
    low, high = mean_interval(values, confidence)
    bottom, top = MEASURE_RANGE
    clipped = (max(low, bottom), min(high, top))
    return clipped, clipped != (low, high)


def board(bench: Benchmark) -> Board:
    """The board of a benchmark (test runs only), rows by rank under the first measure (entry order among equals).
    Four queries of plain values (no model instances: a thousand entries are read and shaped in tens of
    milliseconds)."""
    measures = list(Measure.objects.filter(benchmark=bench, status="active"))
    columns = [(m.pk, m.name) for m in measures]
    entries = Entry.objects.filter(benchmark=bench).order_by("id")
    run_entry: dict[int, int] = {}
    runs_of: dict[int, list[int]] = defaultdict(list)
    shas: dict[int, str] = {}
    for run_id, entry_id, sha in (
        Run.objects.filter(entry__benchmark=bench, split="test").order_by("id").values_list("id", "entry_id", "sha256")
    ):
        run_entry[run_id] = entry_id
        runs_of[entry_id].append(run_id)
        shas[run_id] = sha
    per: dict[tuple[int, int], dict[int, tuple[Any, ...]]] = defaultdict(dict)
    for run_id, measure_id, value, low, high, sig, version in Cell.objects.filter(
        run__entry__benchmark=bench, run__split="test"
    ).values_list("run_id", "measure_id", "value", "ci_low", "ci_high", "signature", "version"):
        per[(run_entry[run_id], measure_id)][run_id] = (value, low, high, sig, version)
    rows = []
    stale_total = 0
    empty: dict[int, tuple[Any, ...]] = {}
    for entry_id, name, paper_url, selection, flags, owner in entries.values_list(
        "id", "name", "paper_url", "selection", "flags", "owner__name"
    ):
        run_ids = runs_of.get(entry_id, [])
        if not run_ids and not any(f.get("code") == "not-rescored" for f in flags):
            continue  # withdrawn (every test run deleted) or dev runs only: not a row of the board
        cells = {}
        for measure_id, measure_name in columns:
            got = per.get((entry_id, measure_id), empty)
            ordered = [got[r] for r in run_ids if r in got]
            fresh = sum(c[4] == __version__ for c in ordered)
            stale_total += len(run_ids) - fresh
            cell = BoardCell(stale=fresh < len(run_ids))
            if ordered:
                first = ordered[0]
                cell.signature = first[3]
                if len(ordered) == 1:
                    cell.value = first[0]
                    cell.seeds = [first[0]]
                    cell.ci = (first[1], first[2]) if first[1] is not None else None
                else:
                    values = [c[0] for c in ordered]
                    cell.seeds = values
                    cell.value = sum(values) / len(values)
                    cell.sd = _sd(values)
                    interval = _mean_interval(values, bench.confidence)
                    if interval is not None:
                        cell.ci, cell.ci_clipped = interval
            cells[measure_name] = cell
        rows.append(BoardRow(entry_id, name, owner, paper_url, selection, list(flags), len(run_ids), cells))
    ties_current = _ties(bench, measures, rows, runs_of, shas)
    board = Board(bench, [name for _, name in columns], rows, ties_current, stale_total)
    _rank(board)
    return board


def _rank(b: Board) -> None:
    """Each cell's rank under its measure by the value shown: standard competition ranking (values 0.9, 0.5, 0.5,
    0.4 rank 1, 2, 2, 4), as in sports tables; a cell without a value has none."""
    for m in b.measures:
        values = [row.cells[m].value for row in b.rows]
        shown = [v for v in values if v is not None and v == v]
        for row in b.rows:
            v = row.cells[m].value
            row.cells[m].rank = None if v is None or v != v else 1 + sum(x > v for x in shown)
    if b.measures:  # rows in the order of the first measure's rank (ties and entries without a value: entry order)
        first = b.measures[0]
        # entry order among equal ranks, not the exact values' order: that would tell apart equal rounded values
        b.rows.sort(key=lambda row: (row.cells[first].rank is None, row.cells[first].rank or 0, row.entry_id))


def _ties(
    bench: Benchmark,
    measures: list[Measure],
    rows: list[BoardRow],
    runs_of: dict[int, list[int]],
    shas: dict[int, str],
) -> dict[str, bool]:
    """Mark each cell best / tied / below and add the seed tests, from the cache of the current runs; False for a
    measure whose tie groups are not computed for these runs yet."""
    runs = {e: [_Sha(shas[r]) for r in ids] for e, ids in runs_of.items() if ids}
    current = {}
    keys = {m.pk: tie_key(bench, m, runs) for m in measures}
    cached = {
        (t.measure_id, t.key): t.data
        for t in TieCache.objects.filter(measure__in=measures, key__in=list(keys.values()))
    }
    by_id = {r.entry_id: r for r in rows}
    for m in measures:
        data = cached.get((m.pk, keys[m.pk]))
        current[m.name] = data is not None
        if data is None:
            continue
        best = by_id.get(int(data["best"]))
        if best is not None:
            best.cells[m.name].tie = "best"
        for entry_id, (_, p_adjusted, tied, *how) in data["tests"].items():
            row = by_id.get(int(entry_id))
            if row is not None:
                row.cells[m.name].tie = "undecided" if tied is None else "tied" if tied else "below"
                row.cells[m.name].p_adjusted = p_adjusted
                row.cells[m.name].tie_test = how[0] if how else "bootstrap"
        for entry_id, (low, high) in data.get("ranks", {}).items():
            row = by_id.get(int(entry_id))
            if row is not None:
                row.cells[m.name].rank_interval = (int(low), int(high))
        for entry_id, (p, d) in data.get("seeds", {}).items():
            row = by_id.get(int(entry_id))
            if row is not None:
                row.cells[m.name].welch_p, row.cells[m.name].cohen_d = p, d
    return current


@dataclass(frozen=True)
class _Sha:
    """What `tie_key` reads of a run."""

    sha256: str
