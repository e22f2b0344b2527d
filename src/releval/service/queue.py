"""A job queue kept in the board's own database: enqueued in the same transaction as the submission it serves,
leased by one worker at a time, retried when a lease runs out.

Why not a broker or django-tasks-db: a job row written in the submission's transaction is never lost nor sent for
a submission that was rolled back (the Codabench failure mode), its state is a SQL query away, and nothing else
needs running. django-tasks-db (0.13) stores jobs the same way but leaves a job RUNNING forever when its worker is
killed; here a worker holds a *lease* that a heartbeat renews, and a job whose lease ran out is taken again by
another worker (`max_attempts` in all). Claiming uses `SELECT … FOR UPDATE SKIP LOCKED` on PostgreSQL, so workers
on many machines never take the same job; SQLite serialises writers (IMMEDIATE transactions), which gives the
same guarantee on one machine.

Handlers must be idempotent (a retried job may find part of its work done): they upsert cells.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import traceback
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.db.models import Q
from django.utils import timezone

from releval.service.models import Job

log = logging.getLogger("releval.service")

#: Seconds a claimed job stays leased without a heartbeat (`RELEVAL_JOB_LEASE`); the heartbeat renews it at a third.
DEFAULT_LEASE = 60.0

Handler = Callable[[dict[str, Any]], None]
HANDLERS: dict[str, Handler] = {}
#: Set when a job is committed in this process: the in-process workers of `releval serve` take it at once instead
#: of at their next poll (a separate `releval worker` process polls).
_WAKE = threading.Event()
#: Called with a job's payload when it has failed for the last time (e.g. to mark its run failed).
GIVE_UP: dict[str, Handler] = {}


def handler(kind: str, give_up: Handler | None = None) -> Callable[[Handler], Handler]:
    """Register the function that does jobs of `kind` (and the one called when such a job finally fails)."""

    def register(fn: Handler) -> Handler:
        HANDLERS[kind] = fn
        if give_up is not None:
            GIVE_UP[kind] = give_up
        return fn

    return register


def lease_seconds() -> float:
    return float(os.environ.get("RELEVAL_JOB_LEASE", DEFAULT_LEASE))


def enqueue(kind: str, payload: dict[str, Any], key: str | None = None) -> Job | None:
    """Add a job (inside the caller's transaction, if any). With `key`, at most one *queued* job has it: a second
    enqueue is dropped (None), as the queued one will see the new data; a job that is running no longer holds its
    key, so a request made meanwhile is queued."""
    try:
        with transaction.atomic():
            job = Job.objects.create(kind=kind, payload=payload, key=key)
            transaction.on_commit(_WAKE.set)  # once the job is visible to the workers' transactions
            return job
    except IntegrityError:
        if key is None:
            raise
        return None


def wake_workers() -> None:
    """Make this process's idle workers look at the queue (and at their stop event) now."""
    _WAKE.set()


def claim(worker: str) -> Job | None:
    """The oldest job that is queued, or running with its lease run out, now leased to `worker`; None if none."""
    while True:
        now = timezone.now()
        with transaction.atomic():
            jobs = Job.objects.filter(Q(status="queued") | Q(status="running", lease_until__lt=now)).order_by("id")
            if connection.features.has_select_for_update_skip_locked:
                jobs = jobs.select_for_update(skip_locked=True)
            job = jobs.first()
            if job is None:
                return None
            if job.attempts >= job.max_attempts:  # its last worker died holding it: give up, say why
                Job.objects.filter(pk=job.pk).update(
                    status="failed", key=None, finished=now, error=job.error or "lease expired on every attempt"
                )
                continue
            job.status, job.worker = "running", worker
            job.attempts += 1
            job.lease_until = now + timedelta(seconds=lease_seconds())
            # its key is free again once it runs: a request made while it runs (new data) queues a new job
            job.key = None
            job.save(update_fields=["status", "worker", "attempts", "lease_until", "key"])
            return job


def _finish(job: Job, worker: str, status: str, error: str = "") -> None:
    Job.objects.filter(pk=job.pk, worker=worker, status="running").update(
        status=status, key=None, finished=timezone.now(), error=error, lease_until=None
    )


class _Heartbeat(threading.Thread):
    """Renews the lease of the job being done every third of the lease."""

    def __init__(self, job: Job, worker: str) -> None:
        super().__init__(daemon=True)
        self.job, self.worker, self.done = job, worker, threading.Event()

    def run(self) -> None:
        period = lease_seconds() / 3
        try:
            while not self.done.wait(period):
                until = timezone.now() + timedelta(seconds=lease_seconds())
                Job.objects.filter(pk=self.job.pk, worker=self.worker, status="running").update(lease_until=until)
        finally:
            connection.close()


def run_one(worker: str) -> bool:
    """Claim and do one job; False when the queue had none."""
    job = claim(worker)
    if job is None:
        return False
    beat = _Heartbeat(job, worker)
    beat.start()
    try:
        HANDLERS[job.kind](job.payload)
    except Exception:  # the job failed, the worker goes on; retried until max_attempts
        error = traceback.format_exc(limit=5)
        log.warning("job %s (%s) failed: %s", job.pk, job.kind, error)
        final = job.attempts >= job.max_attempts
        if final:
            _finish(job, worker, "failed", error)
            if job.kind in GIVE_UP:
                GIVE_UP[job.kind](job.payload)
        else:
            Job.objects.filter(pk=job.pk, worker=worker).update(status="queued", error=error, lease_until=None)
    else:
        _finish(job, worker, "done")
    finally:
        beat.done.set()
        beat.join()
    return True


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{threading.get_ident()}"


def work(stop: threading.Event | None = None, poll: float = 0.2, burst: bool = False) -> int:
    """Do jobs until `stop` is set (or, with `burst`, until the queue is empty); the number of jobs done.

    An idle worker looks at the queue every `poll` seconds, and at once when this process enqueues a job."""
    name = worker_name()
    done = 0
    stop = stop or threading.Event()
    try:
        while not stop.is_set():
            if run_one(name):
                done += 1
            elif burst:
                break
            elif _WAKE.wait(poll):  # a job enqueued here: claim at once (a clear after the set is safe: the loop
                _WAKE.clear()  # claims every committed job before it waits again)
    finally:
        connection.close()
    return done


def pending() -> int:
    """Jobs queued or running."""
    return Job.objects.filter(status__in=("queued", "running")).count()


def wait_idle(timeout: float = 60.0) -> bool:
    """Block until no job is queued or running (for tests and benchmarks); False on timeout."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if not pending():
            return True
        time.sleep(0.1)
    return False
