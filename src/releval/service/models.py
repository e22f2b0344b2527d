"""The board's data model (docs/service.md, "Data model").

Submitter ─< Entry >─ Benchmark ─< Measure
               │                     │
     RunData ─ Run ──────< Cell >─────┘        Job (the queue)     TieCache (tie groups per measure)
                                                    PairTest (p of two runs under a measure)

* A **Benchmark** holds its gold file (never served back), the aligned gold labels and ids, its task settings and
  the interval settings (resamples, seed, level) every cell's signature records; optionally a dev gold file.
* An **Entry** is a method (paper link, declared protocol) owned by one submitter; its **Runs** are seeds, each with
  test (or dev) predictions, stored as the uploaded bytes (content-addressed by SHA-256) and as labels aligned to
  gold: the per-item statistics every measure is re-aggregated from.
* A **Cell** is one (run, measure): F, interval, signature and the releval version that computed it. A cell that is
  missing or was computed by another version is *stale* and shown so.
"""

from __future__ import annotations

from django.db import models

from releval.registry import DEFAULT_TASK


class Submitter(models.Model):
    """Someone who submits: a name and the SHA-256 of their token (the token itself is never stored)."""

    name = models.CharField(max_length=100, unique=True)
    token_hash = models.CharField(max_length=64, unique=True)
    is_admin = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.name


class Benchmark(models.Model):
    slug = models.SlugField(max_length=60, unique=True)
    title = models.CharField(max_length=200)
    task = models.CharField(max_length=20, default=DEFAULT_TASK)
    description = models.TextField(blank=True)
    settings = models.JSONField(default=dict)  # BenchmarkSpec.to_dict(): the task Config's fields
    resamples = models.PositiveIntegerField(default=1000)
    seed = models.BigIntegerField(default=12345)
    confidence = models.FloatField(default=0.95)
    gold_name = models.CharField(max_length=200)
    gold = models.BinaryField()  # the uploaded gold file: never served
    gold_sha256 = models.CharField(max_length=64)
    gold_ids = models.BinaryField()  # zlib of newline-joined ids, in gold order
    gold_labels = models.BinaryField()  # zlib of newline-joined labels, in gold order
    gold_digest = models.CharField(max_length=16)  # the signature's `gold` field
    n_items = models.PositiveIntegerField()
    stats = models.JSONField(default=dict)  # `releval stats` of gold (LabelStats.to_dict())
    # Optional dev gold: runs may then submit dev predictions too (shown on the entry page, not on the board).
    dev_gold = models.BinaryField(null=True)
    dev_gold_name = models.CharField(max_length=200, blank=True)
    dev_gold_sha256 = models.CharField(max_length=64, blank=True)
    dev_gold_ids = models.BinaryField(null=True)
    dev_gold_labels = models.BinaryField(null=True)
    dev_n_items = models.PositiveIntegerField(null=True)
    licensed_text = models.BooleanField(default=True)  # instance text may not be shown (TACRED, ACE): never is
    # A variant: the same gold under another task Config, its runs re-scored from the parent's stored uploads.
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="variants")
    # Test labels already public (SemEval-2010, CoNLL04): every detail is shown at once, whatever the phases.
    open = models.BooleanField(default=False)
    # Who may change the benchmark's phases (and sees every detail during a hidden phase); admins may too.
    organiser = models.ForeignKey(Submitter, null=True, blank=True, on_delete=models.SET_NULL, related_name="organised")
    retired = models.BooleanField(default=False)  # a retired variant: listed no more, takes no runs
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.slug


class Phase(models.Model):
    """A period of a benchmark's competition (releval.service.phases): while a *hidden* phase runs or is still to
    come, a submitter sees only what it allows of test runs (by default the first measure, rounded, with its
    interval; no per-class table or figure), and submits at most its limits of test runs."""

    MEASURES = [("primary", "the first measure only"), ("all", "every measure")]

    benchmark = models.ForeignKey(Benchmark, on_delete=models.CASCADE, related_name="phases")
    name = models.CharField(max_length=40)
    start = models.DateTimeField()
    end = models.DateTimeField(null=True, blank=True)  # None: until the organiser closes it
    hidden = models.BooleanField(default=True)
    measures = models.CharField(max_length=10, choices=MEASURES, default="primary")
    digits = models.PositiveSmallIntegerField(null=True, blank=True, default=1)  # F (%) shown to this many decimals
    total_limit = models.PositiveIntegerField(null=True, blank=True, default=10)  # test runs per submitter
    daily_limit = models.PositiveIntegerField(null=True, blank=True, default=3)  # … in any 24 hours

    class Meta:
        ordering = ["start", "id"]

    def __str__(self) -> str:
        return self.name


class Charge(models.Model):
    """One submission charged to a submitter's quota: kept when the run is deleted (no refund), written in the
    submission's transaction after the submitter's row is locked (no race)."""

    submitter = models.ForeignKey(Submitter, on_delete=models.CASCADE, related_name="charges")
    benchmark = models.ForeignKey(Benchmark, on_delete=models.CASCADE, related_name="charges")
    split = models.CharField(max_length=10, default="test")
    created = models.DateTimeField(db_index=True)


class Measure(models.Model):
    """A column of a benchmark's board: micro or a weighting (`power:0.5`), registered at a time, by someone.
    A measure whose computation fails is marked *failed* (its error kept) and left out; a retired one too."""

    STATUS = [("active", "active"), ("failed", "failed"), ("retired", "retired")]

    benchmark = models.ForeignKey(Benchmark, on_delete=models.CASCADE, related_name="measures")
    name = models.CharField(max_length=60)
    position = models.PositiveIntegerField(default=0)
    registered_by = models.ForeignKey(Submitter, null=True, blank=True, on_delete=models.SET_NULL)
    registered = models.DateTimeField(auto_now_add=True)
    status = models.CharField(max_length=10, choices=STATUS, default="active")
    error = models.TextField(blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["benchmark", "name"], name="measure_unique_name")]
        ordering = ["position", "id"]

    def __str__(self) -> str:
        return self.name


class Entry(models.Model):
    """A method on a benchmark: its runs are seeds."""

    SELECTION = [("dev", "model selected on dev"), ("test", "model selected on test"), ("unknown", "not declared")]

    benchmark = models.ForeignKey(Benchmark, on_delete=models.CASCADE, related_name="entries")
    owner = models.ForeignKey(Submitter, on_delete=models.PROTECT, related_name="entries")
    name = models.CharField(max_length=100)
    paper_url = models.URLField(blank=True)
    selection = models.CharField(max_length=10, choices=SELECTION, default="unknown")
    training_data = models.CharField(max_length=200, blank=True)
    flags = models.JSONField(default=list)  # the audit's findings and the protocol's, as [{"code", "message"}]
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["benchmark", "name"], name="entry_unique_name")]
        ordering = ["id"]

    def __str__(self) -> str:
        return self.name


class Run(models.Model):
    """One seed's predictions on one split, aligned to gold at upload."""

    STATUS = [("queued", "queued"), ("scored", "scored"), ("failed", "failed")]

    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="runs")
    seed = models.CharField(max_length=40)
    split = models.CharField(max_length=10, default="test")
    filename = models.CharField(max_length=100)
    sha256 = models.CharField(max_length=64)
    status = models.CharField(max_length=10, choices=STATUS, default="queued")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["entry", "seed", "split"], name="run_unique_seed")]
        ordering = ["id"]


class RunData(models.Model):
    """A run's large values, in a table of their own: the board's queries read runs without walking past them
    (SQLite keeps a large value in a chain of overflow pages inside the row)."""

    run = models.OneToOneField(Run, on_delete=models.CASCADE, primary_key=True, related_name="data")
    upload = models.BinaryField()  # the file as uploaded
    aligned = models.BinaryField()  # rc: the predicted label of every gold item (scoring.pack_labels); e2e: the file
    result = models.JSONField(default=dict)  # the run's full result under every measure: the entry page's source


class Cell(models.Model):
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="cells")
    measure = models.ForeignKey(Measure, on_delete=models.CASCADE, related_name="cells")
    value = models.FloatField()
    ci_low = models.FloatField(null=True)
    ci_high = models.FloatField(null=True)
    signature = models.TextField()
    version = models.CharField(max_length=40)
    computed = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "measure"], name="cell_unique")]


class Job(models.Model):
    """A unit of work in the queue (releval.service.queue): leased by one worker at a time, retried when the lease
    runs out (a killed worker), failed after `max_attempts`."""

    STATUS = [("queued", "queued"), ("running", "running"), ("done", "done"), ("failed", "failed")]

    kind = models.CharField(max_length=30)
    payload = models.JSONField(default=dict)
    key = models.CharField(max_length=200, null=True, unique=True)  # one live job per key (dedup)
    status = models.CharField(max_length=10, choices=STATUS, default="queued", db_index=True)
    attempts = models.PositiveIntegerField(default=0)
    max_attempts = models.PositiveIntegerField(default=3)
    lease_until = models.DateTimeField(null=True)
    worker = models.CharField(max_length=100, blank=True)
    error = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)
    finished = models.DateTimeField(null=True)

    class Meta:
        ordering = ["id"]


class PairTest(models.Model):
    """A paired bootstrap p-value of two runs under one measure (runs and a benchmark's settings never change, so
    the p-value never does): the tie groups reuse it until the best entry changes."""

    measure = models.ForeignKey(Measure, on_delete=models.CASCADE, related_name="pair_tests")
    run_a = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="+")
    run_b = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="+")
    p_value = models.FloatField()
    version = models.CharField(max_length=40)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["measure", "run_a", "run_b"], name="pair_test_unique")]


class TieCache(models.Model):
    """Tie groups of one measure, for one set of runs (`key`: a hash of the runs, the measure and the settings)."""

    measure = models.ForeignKey(Measure, on_delete=models.CASCADE, related_name="ties")
    key = models.CharField(max_length=64)
    data = models.JSONField(default=dict)  # {"best": entry id, "tests": {entry id: [p, p_adjusted, tied]}}
    computed = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["measure", "key"], name="tie_unique")]
