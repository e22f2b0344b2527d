"""The board's operations: what the web pages, the JSON API and the command line do, in one place.

Every function validates before it writes and writes in one transaction (a refused upload stores nothing); the
scoring itself is done by workers (`releval.service.jobs`), from jobs enqueued in the same transaction.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction

from releval.core.errors import OptionError, RelevalError
from releval.registry import DEFAULT_TASK
from releval.service import phases, queue, scoring
from releval.service.board_tasks import split_view, task_of
from releval.service.models import Benchmark, Entry, Measure, Run, RunData, Submitter
from releval.service.official import MEASURE as OFFICIAL
from releval.service.refusals import Refused

#: Runs scored per backfill job: small enough that a killed worker loses little, large enough to amortise a job.
BACKFILL_CHUNK = 25


#: Format characters refused in every text field besides the control characters: the bidirectional embeddings,
#: overrides and isolates (an RTL override shows a name reversed) and the invisible separators.
_BIDI = frozenset(
    "\u061c\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2060\u2066\u2067\u2068\u2069\ufeff"
)


def check_text(value: str, field: str, *, multiline: bool = False) -> str:
    """`value` unless it holds a control character (NUL included; newline and tab only where `multiline`), a
    surrogate or unassigned code point, or a bidirectional or invisible format character: those are refused (400)
    naming `field` and the character, before anything reaches the database (PostgreSQL refuses NUL in text; a
    page would show an override reversed).

    >>> check_text("R-BERT", "entry")
    'R-BERT'
    >>> check_text("x\u202ey", "entry")
    Traceback (most recent call last):
    ...
    releval.service.refusals.Refused: entry: character U+202E (RIGHT-TO-LEFT OVERRIDE) at position 2 is not allowed
    """
    import unicodedata

    for i, ch in enumerate(value, start=1):
        category = unicodedata.category(ch)
        if multiline and ch in "\n\t\r":
            continue
        if category in ("Cc", "Cs", "Cn", "Co") or ch in _BIDI:
            what = unicodedata.name(ch, "") or {"\x00": "NUL"}.get(ch, "control character")
            raise Refused(f"{field}: character U+{ord(ch):04X} ({what}) at position {i} is not allowed")
    return value


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def create_submitter(name: str, admin: bool = False) -> str:
    """A new submitter; returns their token (shown once: only its hash is stored)."""
    name = check_text(name, "name").strip()
    if not name or len(name) > 100:
        raise Refused("a submitter's name is 1 to 100 characters")
    token = "rlv_" + secrets.token_urlsafe(32)
    try:
        with transaction.atomic():
            Submitter.objects.create(name=name, token_hash=hash_token(token), is_admin=admin)
    except IntegrityError:
        raise Refused(f"a submitter named {name!r} exists", 409) from None
    return token


def authenticate(token: str | None) -> Submitter:
    """The submitter holding `token`; a missing or unknown token is refused (401)."""
    if not token:
        raise Refused("a token is required (header 'Authorization: Bearer <token>' or the form's token field)", 401)
    try:
        return Submitter.objects.get(token_hash=hash_token(token.strip()))
    except Submitter.DoesNotExist:
        raise Refused("unknown token", 401) from None


def spec_of(benchmark: Benchmark) -> scoring.BenchmarkSpec:
    return task_of(benchmark.task).spec(
        benchmark.settings, resamples=benchmark.resamples, seed=benchmark.seed, confidence=benchmark.confidence
    )


def create_benchmark(
    slug: str,
    title: str,
    gold: bytes,
    gold_name: str,
    settings_: dict[str, Any] | None = None,
    *,
    task: str = DEFAULT_TASK,
    measures: Sequence[str] | None = None,
    dev_gold: bytes | None = None,
    dev_gold_name: str = "dev",
    description: str = "",
    resamples: int = 1000,
    seed: int = 12345,
    confidence: float = 0.95,
    open_: bool = False,
    organiser: Submitter | None = None,
    with_phase: bool = True,
) -> Benchmark:
    """A benchmark from a gold file read by the strict loaders, with its statistics (`releval stats`). Unless it is
    `open_` (its test labels are public), it starts with one hidden phase (releval.service.phases.default_phase)."""
    from django.utils.text import slugify

    check_text(slug, "slug")
    check_text(title, "title")
    check_text(description, "description", multiline=True)
    for key, value in (settings_ or {}).items():
        if isinstance(value, str):
            check_text(value, key)
    if not slug or slugify(slug) != slug or "_" in slug or len(slug) > 60:
        raise Refused(f"benchmark slug {slug!r}: lower-case letters, digits and hyphens only (1 to 60)")
    if not title or len(title) > 200:
        raise Refused("a benchmark's title is 1 to 200 characters")
    if not 1 <= resamples <= 100_000:
        raise Refused(f"resamples {resamples}: 1 to 100000")
    try:
        kind = task_of(task)
        spec = kind.spec(settings_ or {}, resamples=resamples, seed=seed, confidence=confidence)
        names = [kind.check_measure(m, spec) for m in (kind.default_measures if measures is None else measures)]
        stored = kind.read_gold(gold, gold_name, spec)
        dev = kind.read_gold(dev_gold, dev_gold_name, spec) if dev_gold is not None else None
    except RelevalError as exc:  # InputError, InputErrors, OptionError: the message names file, line, field
        raise Refused(str(exc)) from None
    with transaction.atomic():
        if Benchmark.objects.filter(slug=slug).exists():
            raise Refused(f"benchmark {slug!r} exists", 409)
        bench = Benchmark.objects.create(
            slug=slug,
            title=title,
            task=kind.name,
            description=description,
            settings=spec.to_dict(),
            resamples=spec.resamples,
            seed=spec.seed,
            confidence=spec.confidence,
            gold_name=scoring.safe_name(gold_name),
            gold=gold,
            gold_sha256=scoring.digest(gold),
            gold_ids=scoring.pack_labels(stored.ids),
            gold_labels=scoring.pack_labels(stored.labels),
            gold_digest=stored.digest,
            n_items=stored.n_items,
            stats=stored.stats,
            open=open_,
            organiser=organiser,
        )
        if not open_ and with_phase:
            phases.default_phase(bench)
        if dev is not None and dev_gold is not None:
            bench.dev_gold, bench.dev_gold_name = dev_gold, scoring.safe_name(dev_gold_name)
            bench.dev_gold_sha256 = scoring.digest(dev_gold)
            bench.dev_gold_ids, bench.dev_gold_labels = scoring.pack_labels(dev.ids), scoring.pack_labels(dev.labels)
            bench.dev_n_items = dev.n_items
            bench.save()
        for i, name in enumerate(dict.fromkeys(names)):
            Measure.objects.create(benchmark=bench, name=name, position=i)
    return bench


def submit(
    submitter: Submitter,
    benchmark_slug: str,
    entry_name: str,
    data: bytes,
    filename: str,
    *,
    seed: str = "1",
    split: str = "test",
    paper_url: str = "",
    selection: str = "unknown",
    training_data: str = "",
    quota: bool = True,
    fmt: str | None = None,
) -> Run:
    """Validate and store one run's predictions and enqueue its scoring, in one transaction; refused (nothing
    stored) for bad input, another submitter's entry, a repeated seed, a full quota or an oversized file."""
    bench = get_benchmark(benchmark_slug)
    if bench.retired:
        raise Refused(f"benchmark {bench.slug!r} is retired", 410)
    for value, field in ((entry_name, "entry"), (str(seed), "seed"), (paper_url, "paper_url")):
        check_text(value, field)
    check_text(training_data, "training_data")
    entry_name, seed = entry_name.strip(), str(seed).strip()
    if not entry_name or len(entry_name) > 100:
        raise Refused("an entry's name is 1 to 100 characters")
    if not seed or len(seed) > 40:
        raise Refused("a run's seed is 1 to 40 characters")
    if split not in ("test", "dev"):
        raise Refused(f"split {split!r}: test or dev")
    if selection not in dict(Entry.SELECTION):
        raise Refused(f"selection {selection!r}: dev, test or unknown")
    if paper_url and not paper_url.startswith(("https://", "http://")):
        raise Refused("paper_url must be an http(s) address")
    if len(data) > settings.RELEVAL_MAX_UPLOAD:
        raise Refused(f"the file has {len(data)} bytes; the limit is {settings.RELEVAL_MAX_UPLOAD}", 413)
    if quota:
        phases.check_refusals(submitter, settings.RELEVAL_REFUSED_QUOTA)
    spec = spec_of(bench)
    try:
        gold = split_view(bench, split)
        bound = upload_bound(gold, bench, split)
        # counted while a gzip file expands, before any line is parsed: 45 MiB of blank lines in a 56 KB gzip
        # took 22 s and 800 MB to refuse line by line
        bound.check(data, scoring.safe_name(filename))
        stored = task_of(bench.task).prepare_run(gold, data, filename, spec, bound.max_bytes, fmt)
        if split == "test":
            _refuse_outside_gold(bench, gold, stored, filename, submitter)
    except (RelevalError, Refused) as exc:  # InputError, InputErrors, OptionError: the message names file, line, field
        if quota:  # a refused upload cost the server its reading: charged against the refusals' own quota
            phases.charge_refusal(submitter, bench)
        if isinstance(exc, Refused):
            raise
        raise Refused(str(exc), 413 if isinstance(exc, scoring.UploadTooLarge) else 400) from None
    with transaction.atomic():
        # The benchmark's row is locked by every submission and every measure registration, so a registration
        # either lists this run for its backfill or is visible to this run's scoring job: no cell is ever missed.
        Benchmark.objects.select_for_update().only("id").get(pk=bench.pk)
        if not Entry.objects.filter(benchmark=bench, name=entry_name).exists():
            _refuse_lookalike(bench, entry_name)
        entry, created = Entry.objects.get_or_create(
            benchmark=bench,
            name=entry_name,
            defaults={
                "owner": submitter,
                "paper_url": paper_url,
                "selection": selection,
                "training_data": training_data[:200],
                "flags": protocol_flags(selection, training_data),
            },
        )
        if entry.owner_id != submitter.pk:
            raise Refused(f"entry {entry_name!r} belongs to another submitter", 403)
        if Run.objects.filter(entry=entry, seed=seed, split=split).exists():
            raise Refused(f"entry {entry_name!r} already has a {split} run with seed {seed!r}", 409)
        if quota:  # the submitter's limits, checked and charged under a lock of their row (phases.charge)
            phases.charge(submitter, bench, split, settings.RELEVAL_DAILY_QUOTA)
        try:
            with transaction.atomic():
                run = Run.objects.create(
                    entry=entry,
                    seed=seed,
                    split=split,
                    filename=scoring.safe_name(filename),
                    sha256=scoring.digest(data),
                )
                RunData.objects.create(run=run, upload=data, aligned=stored)
        except IntegrityError:  # the same seed submitted twice at once
            raise Refused(f"entry {entry_name!r} already has a {split} run with seed {seed!r}", 409) from None
        _flag_copy(entry, bench, split, stored, submitter)
        queue.enqueue("score-run", {"run": run.pk}, key=f"score-run:{run.pk}")
        # variants follow their parent: the new run is read again under each variant's Config and scored there too
        for variant in Benchmark.objects.filter(parent=bench, retired=False).values_list("id", flat=True):
            queue.enqueue("copy-runs", {"variant": variant, "runs": [run.pk]}, key=f"copy-runs:{variant}:{run.pk}")
    return run


_GOLD_SIZES: dict[tuple[int, str], tuple[int, int]] = {}


def upload_bound(gold: Any, bench: Benchmark, split: str) -> scoring.UploadBound:
    """What one upload of `split` predictions to `bench` may hold (scoring.UploadBound), from the size of the gold
    it is read against: its bytes and lines as expanded (measured once per process and gold), and its items. A
    task whose predictions need not follow gold's items (`bounded_by_gold` false: the library's tasks, ranked facts)
    has the upload limit alone."""
    ceiling = settings.RELEVAL_MAX_UPLOAD
    task = task_of(bench.task)
    if not task.bounded_by_gold:
        return scoring.UploadBound(ceiling, ceiling)  # at most one line per byte: the upload limit alone
    key = (bench.pk, str(gold.gold_sha256))
    if key not in _GOLD_SIZES:
        raw = bytes(gold.gold)
        if raw[:2] == b"\x1f\x8b":
            raw = scoring.gunzip(raw, gold.gold_name)
        _GOLD_SIZES[key] = (len(raw), raw.count(b"\n") + 1)
    size, lines = _GOLD_SIZES[key]
    items = (bench.n_items if split == "test" else bench.dev_n_items) or 0
    return scoring.UploadBound.for_gold(size, lines, items, ceiling, task.upload_lines_per_item)


def _refuse_outside_gold(bench: Benchmark, gold: Any, stored: bytes, filename: str, submitter: Submitter) -> None:
    """During a hidden phase (for anyone but the organiser), a test upload that predicts a label gold has nowhere
    is refused, whatever its format: such a label is never a hit but counts as a predicted positive, so decoys of
    it let a submitter tune micro F's denominator until the rounded value shown gives away the exact count of
    correct items. Outside a hidden phase it is scored (and warned about by the audit), as `releval score` does."""
    view = phases.view_for(bench, submitter)
    if not view.phase:
        return
    labels = task_of(bench.task).labels_outside_gold(gold, stored)
    if labels:
        shown = ", ".join(repr(label) for label in labels[:5]) + (", …" if len(labels) > 5 else "")
        raise Refused(
            f"{scoring.safe_name(filename)}: {len(labels)} predicted label(s) that gold does not have ({shown}): "
            f"refused while the {view.phase} phase hides the test labels (a label outside gold is never right; "
            "predict one of gold's labels, or the negative class)"
        )


def _refuse_lookalike(bench: Benchmark, name: str) -> None:
    """A new entry whose name looks like an existing entry's (the same skeleton: releval.service.names) is refused
    (409) naming it: a homoglyph copy of another's name would stand on the board looking the same."""
    from releval.service.names import skeleton

    look = skeleton(name)
    for other in Entry.objects.filter(benchmark=bench).values_list("name", flat=True).iterator():
        if skeleton(other) == look:
            raise Refused(
                f"entry {name!r} looks the same as the entry {other!r} on {bench.slug} (compared after Unicode "
                f"confusable folding): choose another name, or submit to {other!r} if it is yours",
                409,
            )


def _flag_copy(entry: Entry, bench: Benchmark, split: str, stored: bytes, submitter: Submitter) -> None:
    """Flag `entry` when its run's predictions, as stored (aligned to gold), are another submitter's on the same
    benchmark: a copy of another's file, however renamed or re-encoded."""
    other = (
        RunData.objects.filter(run__entry__benchmark=bench, run__split=split, aligned=stored)
        .exclude(run__entry__owner=submitter)
        .values_list("run__entry__name", flat=True)
        .first()
    )
    if other is None:
        return
    flag = {
        "code": "same-predictions",
        "severity": "warning",
        "message": f"the same {split} predictions as the entry {other!r} of another submitter",
    }
    if flag not in entry.flags:
        entry.flags = [*entry.flags, flag]
        entry.save(update_fields=["flags"])


def protocol_flags(selection: str, training_data: str) -> list[dict[str, str]]:
    """What an entry's declared protocol says that a reader must see: test-set model selection, dev in training."""
    flags = []
    if selection == "test":
        flags.append({"code": "test-selected", "severity": "warning", "message": "model selected on the test set"})
    elif selection == "unknown":
        flags.append({"code": "selection-undeclared", "severity": "info", "message": "model selection not declared"})
    if re.search(r"\bdev\b", training_data, re.IGNORECASE):
        flags.append({"code": "train-dev", "severity": "info", "message": f"trained on {training_data}"})
    return flags


def get_benchmark(slug: str) -> Benchmark:
    try:
        return Benchmark.objects.get(slug=slug)
    except Benchmark.DoesNotExist:
        raise Refused(f"no benchmark {slug!r}", 404) from None


def check_organiser(submitter: Submitter, bench: Benchmark, action: str) -> None:
    """Only the benchmark's organiser (of its parent, for a variant) or an admin may `action` (403)."""
    if not phases.is_organiser(bench, submitter):
        raise Refused(f"only the organiser of {phases.root(bench).slug} (or an admin) may {action}", 403)
    if bench.retired:
        raise Refused(f"benchmark {bench.slug!r} is retired", 410)


def trial(bench: Benchmark, spec: scoring.BenchmarkSpec, measures: Sequence[str], what: str) -> None:
    """Score gold itself under `spec` and `measures` with the task's own reading and scoring, before anything is
    stored or queued: the library's validators refuse what they know (a negative label gold lacks), and a setting
    or measure outside what the scorer can compute (`power:1e9`: the class weights overflow; `beta: 1e308`: β²
    does) shows as gold not scoring 1 — every submission would fail or score nonsense, so it is refused (400)."""
    import math
    import warnings

    task = task_of(bench.task)
    try:
        with warnings.catch_warnings():  # gold read as predictions "equals gold": by design here, not for the log
            warnings.simplefilter("ignore")
            stored = task.prepare_run(bench, bytes(bench.gold), bench.gold_name, spec, scoring.MAX_EXPANDED)
            cells = task.cells(bench, stored, spec, list(measures))
    except RelevalError as exc:
        raise Refused(f"{what}: {exc}") from None
    except (ArithmeticError, ValueError, KeyError) as exc:  # what the library has no message for
        raise Refused(f"{what}: scoring gold itself fails ({type(exc).__name__}: {exc})") from None
    for name, cell in cells.items():
        finite = all(math.isfinite(v) for v in (cell.value, cell.ci_low, cell.ci_high))
        if not finite or abs(cell.value - 1.0) > 1e-9:
            raise Refused(
                f"{what}: gold scored against itself gets {name} F = {cell.value!r} with interval "
                f"[{cell.ci_low!r}, {cell.ci_high!r}], not 1: a number outside what the scorer can compute "
                "(class weights or β² overflow)"
            )


def register_measure(submitter: Submitter, benchmark_slug: str, name: str) -> Measure:
    """A new column (the organiser's): checked by a trial on gold, then its computation for every stored run is
    enqueued, in chunks, in the same transaction."""
    bench = get_benchmark(benchmark_slug)
    check_organiser(submitter, bench, "register a measure")
    check_text(name, "name")
    try:
        name = task_of(bench.task).check_measure(name, spec_of(bench))
    except OptionError as exc:
        raise Refused(str(exc)) from None
    if Measure.objects.filter(benchmark=bench, name=name).exists():
        raise Refused(f"measure {name!r} is registered on {bench.slug}", 409)
    if name == OFFICIAL and bench.parent is not None:
        raise Refused(
            f"measure {name!r} refused: the SemEval-2010 scorer reads the 19 directed labels whatever a variant's "
            f"settings, so its score is the same on every variant; it is a column of {bench.parent.slug}"
        )
    trial(bench, spec_of(bench), [name], f"measure {name!r} refused")
    with transaction.atomic():
        Benchmark.objects.select_for_update().only("id").get(pk=bench.pk)  # see `submit`
        if Measure.objects.filter(benchmark=bench, name=name).exists():
            raise Refused(f"measure {name!r} is registered on {bench.slug}", 409)
        position = Measure.objects.filter(benchmark=bench).count()
        measure = Measure.objects.create(benchmark=bench, name=name, position=position, registered_by=submitter)
        run_ids = list(Run.objects.filter(entry__benchmark=bench).order_by("id").values_list("id", flat=True))
        for start in range(0, len(run_ids), BACKFILL_CHUNK):
            chunk = run_ids[start : start + BACKFILL_CHUNK]
            queue.enqueue("cells", {"measure": measure.pk, "runs": chunk})
        queue.enqueue("ties", {"benchmark": bench.pk}, key=f"ties:{bench.pk}")
    return measure


def delete_run(submitter: Submitter, run_id: int) -> None:
    """Withdraw a run: its owner (or an admin) only."""
    try:
        run = Run.objects.select_related("entry").get(pk=run_id)
    except Run.DoesNotExist:
        raise Refused(f"no run {run_id}", 404) from None
    if run.entry.owner_id != submitter.pk and not submitter.is_admin:
        raise Refused("this run belongs to another submitter", 403)
    with transaction.atomic():
        bench_id = run.entry.benchmark_id
        # its copies on the benchmark's variants go with it (the same entry, owner, seed and split)
        copies = Run.objects.filter(
            entry__benchmark__parent_id=bench_id,
            entry__name=run.entry.name,
            entry__owner_id=run.entry.owner_id,
            seed=run.seed,
            split=run.split,
        )
        variants = set(copies.values_list("entry__benchmark_id", flat=True))
        # the runs' rows first, as a job storing a run's scores takes them (releval.service.jobs.withdrawn): a job
        # storing one of them finishes first; deleting the stored data before the run would deadlock with it
        doomed = [run.pk, *copies.values_list("pk", flat=True)]
        list(Run.objects.select_for_update().filter(pk__in=doomed).order_by("pk").values_list("pk", flat=True))
        copies.delete()
        run.delete()
        for changed in (bench_id, *sorted(variants)):
            queue.enqueue("ties", {"benchmark": changed}, key=f"ties:{changed}")


def create_variant(submitter: Submitter, parent_slug: str, slug: str, title: str, changes: Any) -> Benchmark:
    """A task Config (the organiser's): a benchmark with the parent's gold, measures and interval settings and its
    task settings changed by `changes` (e.g. {"view": "undirected"}), checked by a trial on gold; every stored run
    of the parent is re-read from its upload under the new Config and scored (jobs enqueued in the same
    transaction)."""
    parent = get_benchmark(parent_slug)
    check_organiser(submitter, parent, "add a variant")
    if not isinstance(changes, dict) or not changes:
        raise Refused('a variant changes at least one setting: {"settings": {"view": "undirected"}}')
    if changes.get("view") == "official":  # the scorer's view is a score of its own, not a label view
        raise Refused(
            "the official SemEval-2010 score is a measure of the benchmark, not a variant: register it with "
            f'POST /api/v1/benchmarks/{parent.slug}/measures {{"name": "semeval-official"}}'
        )
    merged = {**parent.settings, **changes}
    if merged == parent.settings:
        raise Refused("the settings are the parent's: a variant must change one")
    with transaction.atomic():
        bench = create_benchmark(
            slug,
            title or slug,
            bytes(parent.gold),
            parent.gold_name,
            merged,
            task=parent.task,
            # the official SemEval score reads the directed labels whatever the Config: the parent's column already
            # shows it, and under an undirected view it cannot be computed (the variant was refused for it)
            measures=[m.name for m in parent.measures.filter(status="active") if m.name != OFFICIAL],
            description=f"{parent.title} with {', '.join(f'{k}={v}' for k, v in changes.items())}",
            dev_gold=bytes(parent.dev_gold) if parent.dev_gold is not None else None,
            dev_gold_name=parent.dev_gold_name or "dev",
            resamples=parent.resamples,
            seed=parent.seed,
            confidence=parent.confidence,
            open_=parent.open,
            organiser=parent.organiser,
            with_phase=False,  # the parent's phases govern it (phases.root)
        )
        bench.parent = parent
        bench.save(update_fields=["parent"])
        measures = [m.name for m in bench.measures.all()]
        trial(bench, spec_of(bench), measures, f"variant {slug!r} refused")  # refused: the transaction rolls back
        Benchmark.objects.select_for_update().only("id").get(pk=parent.pk)  # no parent run slips past the copy
        run_ids = list(Run.objects.filter(entry__benchmark=parent).order_by("id").values_list("id", flat=True))
        for start in range(0, len(run_ids), BACKFILL_CHUNK):
            queue.enqueue("copy-runs", {"variant": bench.pk, "runs": run_ids[start : start + BACKFILL_CHUNK]})
    return bench


def set_phases(submitter: Submitter, benchmark_slug: str, body: Any) -> Benchmark:
    """Replace a benchmark's phases (and optionally its `open` flag) with the organiser's, from
    `{"open": false, "phases": [{"name", "start", "end", …}]}` (releval.service.phases.parse_phases). Charges are
    kept: a phase's limits count every test submission since its start."""
    from releval.service.models import Phase

    bench = get_benchmark(benchmark_slug)
    if bench.parent_id is not None:
        raise Refused(f"{bench.slug} is a variant: its parent's phases govern it")
    if not phases.is_organiser(bench, submitter):
        raise Refused(f"only the organiser of {bench.slug} (or an admin) may change its phases", 403)
    if isinstance(body, dict) and "open" in body and not isinstance(body["open"], bool):
        raise Refused("open: true or false")
    try:
        parsed = phases.parse_phases(body)
    except ValueError as exc:
        raise Refused(str(exc)) from None
    with transaction.atomic():
        Benchmark.objects.select_for_update().only("id").get(pk=bench.pk)
        Phase.objects.filter(benchmark=bench).delete()
        for phase in parsed:
            Phase.objects.create(benchmark=bench, **phase)
        if "open" in body:
            bench.open = body["open"]
            bench.save(update_fields=["open"])
    return bench


def retire_measure(submitter: Submitter, benchmark_slug: str, name: str) -> Measure:
    """Take a column off the board (the organiser's): its cells are kept, no more are computed."""
    bench = get_benchmark(benchmark_slug)
    check_organiser(submitter, bench, "retire a measure")
    try:
        measure = Measure.objects.get(benchmark=bench, name=name)
    except Measure.DoesNotExist:
        raise Refused(f"no measure {name!r} on {bench.slug}", 404) from None
    if measure.status != "failed" and Measure.objects.filter(benchmark=bench, status="active").count() == 1:
        raise Refused(f"{name!r} is the last measure of {bench.slug}: a board needs one", 409)
    with transaction.atomic():
        measure.status = "retired"
        measure.save(update_fields=["status"])
        queue.enqueue("ties", {"benchmark": bench.pk}, key=f"ties:{bench.pk}")
    return measure


def retire_variant(submitter: Submitter, slug: str) -> Benchmark:
    """Retire a variant (the organiser's): listed no more, takes no runs; its page and numbers stay readable."""
    bench = get_benchmark(slug)
    if bench.parent_id is None:
        raise Refused(f"{slug} is not a variant: only a variant can be retired", 409)
    check_organiser(submitter, bench, "retire a variant")
    bench.retired = True
    bench.save(update_fields=["retired"])
    return bench
