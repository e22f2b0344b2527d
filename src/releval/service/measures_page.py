"""The evaluation of a benchmark's measures (issue 33 item 3): which of its measures separate the entries and which
restate another, from the stored test runs alone, through the library's meta-evaluation (releval.significance.meta,
the numbers of `releval compare --evaluate-measures` on the same files in the same order):

* per measure, its **discriminative power** at α = 1 − the benchmark's confidence: the share of the k(k − 1)/2
  entry pairs whose paired-bootstrap difference is significant after Holm's correction over all pairs (Sakai 2006);
* per measure, its **stability** (classification): the swap rate between the two halves of SPLITS random splits of
  the test items (Voorhees and Buckley 2002);
* **Kendall's τ-b** between every two measures' rankings of the entries (SciPy's `kendalltau`), with the 95 %
  percentile interval of τ over the joint bootstrap's resamples (classification);
* the entry pairs whose order **flips** between the first measure and each other one, and whether the flip is
  significant under both.

Every active measure of the benchmark is evaluated, so the page changes as measures are contributed; each entry is
its first test run (the run its paired tests use). The result is kept per process, keyed by everything it depends
on (the runs' digests, the measures, the interval settings, gold, the releval version), and computed on the first
request after a change. Boards of more than MAX_ENTRIES entries are refused (all pairs: k(k − 1)/2 tests per
measure), and so is a benchmark in a hidden phase for a viewer who may not see every detail.

Example: `GET /b/semeval2010-task8/measures` (page), `/b/…/measures.json`, `/b/…/measures.csv`, `/b/…/measures.svg`,
`GET /api/v1/benchmarks/semeval2010-task8/measures/evaluation` (the JSON).
"""

from __future__ import annotations

import csv
import hashlib
import io
import threading
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Any

from releval import __version__
from releval.core.errors import RelevalError
from releval.service import board as ops
from releval.service import jobs, phases
from releval.service.models import Benchmark, Entry

#: Largest board evaluated: all pairs of 60 entries are 1,770 paired tests per measure.
MAX_ENTRIES = 60
#: Random splits of the items into halves for the swap rates (`releval compare --splits`' default).
SPLITS = 1000
#: Evaluations kept per process.
CACHED = 16

_LOCK = threading.Lock()
_CACHE: OrderedDict[str, Evaluated] = OrderedDict()


@dataclass(frozen=True)
class Evaluated:
    """A benchmark's evaluation of its measures: the entries (systems, in entry order), the measures evaluated, each
    entry's scores as the comparison computed them, the library's MeasureEvaluation and what was left out."""

    slug: str
    measures: list[str]
    entries: list[str]
    scores: dict[str, dict[str, float]]
    meta: Any  # releval.significance.meta.MeasureEvaluation
    alpha: float
    splits: int | None
    left_out: list[str]

    def to_dict(self) -> dict[str, Any]:
        from releval.significance.meta import meta_dict

        return {
            "benchmark": self.slug,
            "measures": self.measures,
            "entries": self.entries,
            "scores": self.scores,
            "alpha": self.alpha,
            "splits": self.splits,
            "left_out": self.left_out,
            **meta_dict(self.meta),
        }

    def to_csv(self) -> str:
        """One row per number, in long form (fractions, not percents); `section` says which table:

        * `power`: `value` the share of pairs significant, `count` of `total` pairs, `low` the smallest significant
          |Δ|;
        * `swap_rate`: `value` the rate over `total` splits; `swap_rate_bin`: the rate of the pairs whose |Δ| is in
          [`low`, `high`), `count` of them;
        * `kendall_tau_b`: τ-b of `measure` and `other`, `low`–`high` its bootstrap interval;
        * `flip`: `first` above `second` under `measure`, below under `other` (`delta_a`, `delta_b`; `p_a`, `p_b`
          Holm-adjusted; `significant` under both)."""
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(["section", "measure", "other", "first", "second", "value", "low", "high", "count", "total",
                    "delta_a", "delta_b", "p_a", "p_b", "significant"])  # fmt: skip
        blank = [""] * 5
        for p in self.meta.power:
            smallest = "" if p.smallest is None else p.smallest
            w.writerow(["power", p.metric, "", "", "", p.share, smallest, "", p.significant, p.pairs, *blank])
        for s in self.meta.stability:
            w.writerow(["swap_rate", s.metric, "", "", "", s.rate, "", "", "", s.splits, *blank])
            for low, high, rate, count in s.bins:
                w.writerow(["swap_rate_bin", s.metric, "", "", "", rate, low, "" if high is None else high, count, "",
                            *blank])  # fmt: skip
        for g in self.meta.agreement:
            low, high = g.interval or ("", "")
            w.writerow(["kendall_tau_b", g.a, g.b, "", "", g.tau, low, high, "", "", *blank])
        for f in self.meta.flips:
            w.writerow(["flip", f.a, f.b, f.first, f.second, "", "", "", "", "", f.delta_a, f.delta_b, f.p_a, f.p_b,
                        f.significant])  # fmt: skip
        return out.getvalue()


def evaluated(bench: Benchmark, viewer: Any) -> Evaluated:
    """The evaluation of `bench`'s active measures from its stored test runs (see the module); ops.Refused when it
    cannot be shown."""
    view = phases.view_for(bench, viewer)
    if view != phases.FULL:
        raise ops.Refused(
            f"the evaluation of the measures shows every entry's scores and tests: shown once the {view.phase} phase "
            "ends",
            403,
        )
    all_runs = jobs.test_runs(bench)
    if not 2 <= len(all_runs) <= MAX_ENTRIES:
        raise ops.Refused(
            f"the measures are evaluated on boards of 2 to {MAX_ENTRIES} entries (all pairs of entries are tested); "
            f"{bench.slug} has {len(all_runs)}",
            404,
        )
    names = dict(Entry.objects.filter(pk__in=list(all_runs)).values_list("pk", "name"))
    first = {names[e]: runs[0] for e, runs in sorted(all_runs.items())}
    spec = ops.spec_of(bench)
    active = [m.name for m in jobs.active_measures(bench)]
    measures = [m for m in active if m != ops.OFFICIAL]
    left_out = [m for m in active if m == ops.OFFICIAL]
    if len(measures) < 2:
        raise ops.Refused(f"{bench.slug} has {len(measures)} measure(s) to evaluate: agreement needs two", 404)
    parts = [f"{n}:{r.sha256}" for n, r in first.items()] + measures
    parts += [str(spec.to_dict()), str(bench.resamples), str(bench.seed), str(bench.confidence), bench.gold_sha256]
    parts += [bench.task, __version__, str(SPLITS), "measures-1"]
    key = hashlib.sha256("|".join(parts).encode()).hexdigest()
    with _LOCK:
        if key in _CACHE:
            _CACHE.move_to_end(key)
            return _CACHE[key]
    try:
        result = _evaluate(bench, spec, first, measures, left_out)
    except RelevalError as exc:  # the library refuses to compare these runs: said, as `releval compare` says it
        raise ops.Refused(f"the measures of {bench.slug} cannot be evaluated: {exc}", 409) from None
    with _LOCK:
        _CACHE[key] = result
        while len(_CACHE) > CACHED:
            _CACHE.popitem(last=False)
    return result


def _evaluate(
    bench: Benchmark, spec: Any, first: dict[str, Any], measures: list[str], left_out: list[str]
) -> Evaluated:
    from releval.registry import get_task
    from releval.service.board_systems import stored_systems
    from releval.significance.meta import evaluate_measures
    from releval.tasks.base import resolve

    task = get_task(bench.task)
    assert task.compare is not None  # a board's task has a comparison (board_tasks.task_of)
    test = spec.test_config()
    alpha = round(1.0 - float(bench.confidence), 12)
    stored = {name: jobs.stored_predictions(run.pk) for name, run in first.items()}
    with stored_systems(bench, stored, spec, measures) as s:
        systems = {name: [run] for name, run in s.runs.items()}
        table = resolve(task.compare)(s.gold, systems, s.config, test)
        draws = halves = None
        if task.measure_draws is not None:
            draws, halves = resolve(task.measure_draws)(s.gold, systems, s.config, test, SPLITS)
    kept = tuple(m for m in measures if m in table.metrics)
    table = replace(table, metrics=kept, rows=[r for r in table.rows if r.metric in kept])
    meta = evaluate_measures(table, draws, alpha=alpha, halves=halves)
    scores = {name: {m: float(table.scores[name][m]) for m in kept} for name in first}
    return Evaluated(
        bench.slug, list(kept), list(first), scores, meta, alpha, SPLITS if halves is not None else None, left_out
    )
