"""Phases, visibility and quotas: what a benchmark's hidden test labels allow a submitter to see and to submit
(docs/service.md, "Phases and what a submitter sees").

A benchmark has phases (`Phase`: name, start, end, what is shown, limits). While a *hidden* phase runs or is still to
come, and the benchmark is not marked open, a viewer who is neither its organiser nor an admin sees of test runs
only the phase's measures (by default the first), each F rounded to the phase's decimals (by default one decimal
of a percentage point) with its interval, and no per-class table, figure, p-value or audit finding. Once every
hidden phase has ended everything is shown. A new benchmark that is not open gets one hidden phase `test` from its
creation, without an end: the organiser closes it (`PUT /api/v1/benchmarks/SLUG/phases`).

Each test submission is a `Charge` (kept when the run is deleted); the running phase's total and per-day limits
count the submitter's charges on the benchmark (its variants included), inside the submission's transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Q
from django.utils import timezone

from releval.service.models import Benchmark, Charge, Phase, Submitter

#: Flags an entry's declared protocol raises (releval.service.board.protocol_flags) or a variant's copy: shown
#: during a hidden phase; the audit's findings are not (they are computed against the hidden labels).
PROTOCOL_FLAGS = frozenset(
    {"test-selected", "selection-undeclared", "train-dev", "not-rescored", "equals-gold", "same-predictions"}
)


@dataclass(frozen=True)
class View:
    """What one viewer may see of a benchmark's test runs now."""

    detail: bool  # per-class tables and figures, p-values, audit findings
    measures: str  # "all" or "primary"
    digits: int | None  # F (%) rounded to this many decimals; None: exact
    phase: str = ""  # the name of the hidden phase that governs, "" when none

    def shown(self, names: list[str]) -> list[str]:
        """The measures shown of `names` (the benchmark's, in order)."""
        return names if self.measures == "all" else names[:1]

    def value(self, x: float | None) -> float | None:
        """`x` (a fraction) as shown: rounded to `digits` decimals of a percentage.

        >>> View(False, "primary", 1).value(0.80051757)
        0.801
        """
        if x is None or self.digits is None or x != x:
            return x
        return round(round(100 * x, self.digits) / 100, self.digits + 2)


FULL = View(True, "all", None)


def root(bench: Benchmark) -> Benchmark:
    """The benchmark whose gold a variant shares (its phases, open flag and quotas govern the variant)."""
    seen = set()
    while bench.parent_id is not None and bench.pk not in seen:
        seen.add(bench.pk)
        bench = Benchmark.objects.get(pk=bench.parent_id)
    return bench


def is_organiser(bench: Benchmark, viewer: Submitter | None) -> bool:
    if viewer is None:
        return False
    return viewer.is_admin or root(bench).organiser_id == viewer.pk


def governing(bench: Benchmark, now: datetime | None = None) -> Phase | None:
    """The hidden phase that governs now: the running one, else the next to come; None once all have ended."""
    now = now or timezone.now()
    live = Phase.objects.filter(benchmark=root(bench), hidden=True).filter(Q(end__isnull=True) | Q(end__gt=now))
    running = live.filter(start__lte=now).order_by("-start", "-id").first()
    return running or live.order_by("start", "id").first()


def running(bench: Benchmark, now: datetime | None = None) -> Phase | None:
    """The phase running now (the latest started), hidden or not."""
    now = now or timezone.now()
    return (
        Phase.objects.filter(benchmark=root(bench), start__lte=now)
        .filter(Q(end__isnull=True) | Q(end__gt=now))
        .order_by("-start", "-id")
        .first()
    )


def view_for(bench: Benchmark, viewer: Submitter | None, now: datetime | None = None) -> View:
    """What `viewer` (None: anyone) may see of `bench`'s test runs now."""
    top = root(bench)
    if top.open or is_organiser(top, viewer):
        return FULL
    phase = governing(top, now)
    if phase is None:
        return FULL
    return View(False, phase.measures, phase.digits, phase.name)


def default_phase(bench: Benchmark) -> Phase:
    """The phase a new hidden benchmark starts with: `test`, hidden, from now until the organiser closes it."""
    return Phase.objects.create(benchmark=bench, name="test", start=timezone.now())


def charge(submitter: Submitter, bench: Benchmark, split: str, daily_quota: int) -> None:
    """Check the submitter's limits and charge one submission; call inside the submission's transaction. The
    submitter's row is locked first, so concurrent submissions of one submitter are counted one after another.
    Admins and the organiser are not limited (their submissions are charged all the same)."""
    from releval.service.refusals import Refused

    Submitter.objects.select_for_update().only("id").get(pk=submitter.pk)
    top = root(bench)
    now = timezone.now()
    if not submitter.is_admin:
        used = (
            Charge.objects.filter(submitter=submitter, created__gt=now - timedelta(days=1))
            .exclude(split=REFUSED)
            .count()
        )
        if used >= daily_quota:
            raise Refused(f"daily quota reached: {used} submissions in the last 24 hours", 429)
    if split == "test" and not is_organiser(top, submitter) and not top.open:
        phase = running(top, now)
        if phase is None and governing(top, now) is not None:
            upcoming = governing(top, now)
            assert upcoming is not None
            raise Refused(f"the {upcoming.name} phase of {top.slug} opens at {upcoming.start.isoformat()}", 403)
        if phase is not None:
            mine = Charge.objects.filter(submitter=submitter, benchmark=top, split="test", created__gte=phase.start)
            if phase.total_limit is not None and (n := mine.count()) >= phase.total_limit:
                raise Refused(f"the {phase.name} phase allows {phase.total_limit} test submissions; you made {n}", 429)
            day = mine.filter(created__gt=now - timedelta(days=1)).count()
            if phase.daily_limit is not None and day >= phase.daily_limit:
                raise Refused(
                    f"the {phase.name} phase allows {phase.daily_limit} test submissions a day; you made {day} in "
                    "the last 24 hours",
                    429,
                )
    Charge.objects.create(submitter=submitter, benchmark=top, split=split, created=now)


#: The `split` of a Charge that records a refused upload: counted by the refusals' quota only, never by the
#: daily quota or a phase's limits.
REFUSED = "refused"


def check_refusals(submitter: Submitter, quota: int) -> None:
    """Refuse (429) a submitter whose refused uploads in the last 24 hours reached `quota`, before their upload is
    read: reading a refused file costs the server as much as reading a good one, and a refusal charged nothing, so
    the same costly file could be sent again and again. Admins are not limited."""
    from releval.service.refusals import Refused

    if submitter.is_admin:
        return
    used = Charge.objects.filter(
        submitter=submitter, split=REFUSED, created__gt=timezone.now() - timedelta(days=1)
    ).count()
    if used >= quota:
        raise Refused(
            f"refused-upload quota reached: {used} refused uploads in the last 24 hours (the limit is {quota}); "
            "check a file with `releval score GOLD PRED` on your side first",
            429,
        )


def charge_refusal(submitter: Submitter, bench: Benchmark) -> None:
    """Record one refused upload of `submitter` (its own transaction: nothing else of the refused request is kept)."""
    from django.db import transaction

    with transaction.atomic():
        Charge.objects.create(submitter=submitter, benchmark=root(bench), split=REFUSED, created=timezone.now())


# ---------------------------------------------------------------- the organiser's phases

_FIELDS = {"name", "start", "end", "hidden", "measures", "digits", "total_limit", "daily_limit"}


def _when(value: Any, where: str) -> datetime | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"{where}: an ISO 8601 date-time with its time zone, e.g. 2026-12-01T00:00:00Z")
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"{where} {value!r}: an ISO 8601 date-time, e.g. 2026-12-01T00:00:00Z") from None
    if parsed.tzinfo is None:
        raise ValueError(f"{where} {value!r}: give the time zone (Z or +HH:MM)")
    return parsed


def _limit(value: Any, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 1_000_000:
        raise ValueError(f"{where} {value!r}: a whole number 0 to 1000000, or null for none")
    return value


def parse_phases(body: Any) -> list[dict[str, Any]]:
    """The organiser's phases from `{"phases": [{"name", "start", "end", "hidden", "measures", "digits",
    "total_limit", "daily_limit"}, …]}` (omitted fields take the model's defaults); ValueError naming the field.

    >>> parse_phases({"phases": [{"name": "test", "start": "2026-01-01T00:00:00Z"}]})[0]["start"].year
    2026
    """
    if not isinstance(body, dict) or not isinstance(body.get("phases"), list):
        raise ValueError('the body must be JSON: {"phases": [{"name": "test", "start": "…Z", "end": "…Z"}]}')
    out = []
    for i, item in enumerate(body["phases"]):
        where = f"phases[{i}]"
        if not isinstance(item, dict):
            raise ValueError(f"{where}: an object")
        unknown = sorted(set(item) - _FIELDS)
        if unknown:
            raise ValueError(f"{where}: unknown field {unknown[0]!r} (known: {', '.join(sorted(_FIELDS))})")
        name = item.get("name")
        if not isinstance(name, str) or not 1 <= len(name.strip()) <= 40 or not name.isprintable():
            raise ValueError(f"{where}.name: 1 to 40 printable characters")
        start = _when(item.get("start"), f"{where}.start")
        if start is None:
            raise ValueError(f"{where}.start: required")
        end = _when(item.get("end"), f"{where}.end")
        if end is not None and end <= start:
            raise ValueError(f"{where}.end must be after its start")
        phase: dict[str, Any] = {"name": name.strip(), "start": start, "end": end}
        if "hidden" in item:
            if not isinstance(item["hidden"], bool):
                raise ValueError(f"{where}.hidden: true or false")
            phase["hidden"] = item["hidden"]
        if "measures" in item:
            if item["measures"] not in dict(Phase.MEASURES):
                raise ValueError(f"{where}.measures: 'primary' or 'all'")
            phase["measures"] = item["measures"]
        if "digits" in item:
            digits = _limit(item["digits"], f"{where}.digits")
            if digits is not None and digits > 6:
                raise ValueError(f"{where}.digits {digits}: 0 to 6, or null for exact values")
            phase["digits"] = digits
        for key in ("total_limit", "daily_limit"):
            if key in item:
                phase[key] = _limit(item[key], f"{where}.{key}")
        out.append(phase)
    return out


def phase_json(p: Phase) -> dict[str, Any]:
    return {
        "name": p.name,
        "start": p.start.isoformat(),
        "end": p.end.isoformat() if p.end else None,
        "hidden": p.hidden,
        "measures": p.measures,
        "digits": p.digits,
        "total_limit": p.total_limit,
        "daily_limit": p.daily_limit,
    }
