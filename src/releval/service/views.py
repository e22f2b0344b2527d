"""HTTP: the pages (board, entry, submission form) and the JSON API (docs/service.md, "API"), each a thin layer
over `releval.service.board` and `releval.service.standings`. Refusals answer 4xx with one message and store
nothing; no response carries a traceback (DEBUG is off, and `server_error` answers a plain line)."""

from __future__ import annotations

import html
import json
import math
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt, ensure_csrf_cookie
from django.views.decorators.http import require_http_methods

from releval import __version__
from releval.registry import DEFAULT_TASK
from releval.service import board as ops
from releval.service import phases, standings
from releval.service.board_tasks import task_of
from releval.service.models import Benchmark, Entry, Job, Run, Submitter

View = Callable[..., HttpResponse]


def api(view: View) -> View:
    """A JSON API view: token-authenticated (no cookies, so no CSRF), Refused → {"error": …} with its status."""

    @csrf_exempt
    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            _check_length(request)
            return view(request, *args, **kwargs)
        except ops.Refused as exc:
            return JsonResponse({"error": str(exc)}, status=exc.status)

    return wrapped


def _check_length(request: HttpRequest) -> None:
    """Refuse a body over the upload limit before reading it (413)."""
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        raise ops.Refused("bad Content-Length") from None
    if length > settings.RELEVAL_MAX_UPLOAD + 65536:
        raise ops.Refused(f"the request has {length} bytes; the limit is {settings.RELEVAL_MAX_UPLOAD}", 413)


def _token(request: HttpRequest) -> str | None:
    auth = request.META.get("HTTP_AUTHORIZATION", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip()
    return request.POST.get("token") or None


def _viewer(request: HttpRequest) -> Submitter | None:
    """Who reads a page or an answer: the holder of the request's bearer token (the organiser and admins see every
    detail during a hidden phase), None without one; an unknown token is refused (401)."""
    auth = request.META.get("HTTP_AUTHORIZATION", "")
    if not auth.lower().startswith("bearer "):
        return None
    return ops.authenticate(auth[7:].strip())


#: The signed cookie the sign-in form of a page sets (`viewer_page`): who reads the pages of this browser, so the
#: organiser sees the full view of their benchmark's pages during a hidden phase. Pages only: the API takes tokens.
VIEWER_COOKIE = "releval_viewer"
VIEWER_SALT = "releval.service.viewer"
VIEWER_AGE = 8 * 3600


def _page_viewer(request: HttpRequest) -> Submitter | None:
    """Who reads a page: the bearer token's holder, else the submitter the signed sign-in cookie names (a cookie
    that is forged, altered or older than VIEWER_AGE names nobody)."""
    viewer = _viewer(request)
    if viewer is not None:
        return viewer
    pk = request.get_signed_cookie(VIEWER_COOKIE, default=None, salt=VIEWER_SALT, max_age=VIEWER_AGE)
    if pk is None or not pk.isdigit():
        return None
    return Submitter.objects.filter(pk=int(pk)).first()


def _upload(request: HttpRequest) -> tuple[bytes, str]:
    f = request.FILES.get("file")
    if f is None:
        raise ops.Refused("no file: send the predictions as the multipart field 'file'")
    if f.size is not None and f.size > settings.RELEVAL_MAX_UPLOAD:
        raise ops.Refused(f"the file has {f.size} bytes; the limit is {settings.RELEVAL_MAX_UPLOAD}", 413)
    return f.read(), f.name or "upload"


def _submit_from(request: HttpRequest, slug: str) -> Run:
    submitter = ops.authenticate(_token(request))
    data, name = _upload(request)
    p = request.POST
    return ops.submit(
        submitter,
        slug,
        p.get("entry", ""),
        data,
        name,
        seed=p.get("seed", "1") or "1",
        split=p.get("split", "test") or "test",
        paper_url=p.get("paper_url", ""),
        selection=p.get("selection", "unknown") or "unknown",
        training_data=p.get("training_data", ""),
        fmt=p.get("format") or None,
    )


def _run_json(run: Run, viewer: Submitter | None) -> dict[str, Any]:
    """A run as `viewer` may see it: during a hidden phase a test run shows the phase's measures, rounded."""
    view = phases.view_for(run.entry.benchmark, viewer) if run.split == "test" else phases.FULL
    cells = {c.measure.name: c for c in run.cells.select_related("measure")}
    shown = view.shown([m.name for m in run.entry.benchmark.measures.filter(status="active")])
    out = {
        "run": run.pk,
        "entry": run.entry.name,
        "benchmark": run.entry.benchmark.slug,
        "seed": run.seed,
        "split": run.split,
        "sha256": run.sha256,
        "status": run.status,
        "hidden_phase": view.phase or None,
        "cells": {
            c.measure.name: {
                "value": view.value(c.value),
                "ci": [view.value(c.ci_low), view.value(c.ci_high)],
                "signature": c.signature,
                "stale": c.version != __version__,
            }
            for c in (cells[m] for m in shown if m in cells)
        },
    }
    return out


# ---------------------------------------------------------------- JSON API

#: Items per page of a list answer unless `limit` says otherwise, and the largest `limit` taken (docs/service.md).
PAGE_DEFAULT = 100
PAGE_MAX = 1000
#: The board's rows per page by default: a whole board of up to this many entries in one answer.
BOARD_PAGE_DEFAULT = 1000


def _page(request: HttpRequest, total: int, default: int = PAGE_DEFAULT) -> tuple[slice, dict[str, Any]]:
    """The slice of a list that `?page=P&limit=L` asks for (page from 1, limit 1 to PAGE_MAX) and what the answer
    says about it: page, limit, total, and `next` / `previous` as paths with the same query (None at either end).
    A page past the end is an empty list (its `previous` is the last page); a bad number is refused (400)."""
    from urllib.parse import urlencode

    values = {}
    for name, fallback, top in (("page", 1, None), ("limit", default, PAGE_MAX)):
        raw = request.GET.get(name, "")
        try:
            value = int(raw) if raw != "" else fallback
        except ValueError:
            value = 0
        if value < 1 or (top is not None and value > top):
            bound = f"1 to {top}" if top is not None else "1 or more"
            raise ops.Refused(f"{name} {raw!r}: a whole number, {bound}")
        values[name] = value
    page, limit = values["page"], values["limit"]
    start = min((page - 1) * limit, total)  # past the end: an empty slice (an offset past 2^63 was a 500)
    last = max(1, -(-total // limit))

    def link(p: int) -> str:
        query = {**request.GET.dict(), "page": str(p), "limit": str(limit)}
        return f"{request.path}?{urlencode(query)}"

    meta = {
        "page": page,
        "limit": limit,
        "total": total,
        "next": link(page + 1) if (page - 1) * limit + limit < total else None,
        "previous": link(min(page - 1, last)) if page > 1 else None,
    }
    return slice(start, start + limit), meta


@api
@require_http_methods(["GET", "POST"])
def api_benchmarks(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        bench = _benchmark_from(request)
        return JsonResponse(_benchmark_json(bench), status=201)
    listed = Benchmark.objects.order_by("id")
    part, meta = _page(request, listed.count())
    return JsonResponse({"benchmarks": [_benchmark_json(b) for b in listed[part]], **meta})


def _benchmark_from(request: HttpRequest) -> Benchmark:
    """A new benchmark from a multipart request (admins only): slug, title, description, negative, resamples and
    the gold file as `file`."""
    submitter = ops.authenticate(_token(request))
    if not submitter.is_admin:
        raise ops.Refused("only an admin may create a benchmark", 403)
    open_ = request.POST.get("open", "false").strip().lower()
    if open_ not in ("true", "false", "1", "0", "on", ""):
        raise ops.Refused(f"open {open_!r}: true or false")
    data, name = _upload(request)
    dev = request.FILES.get("dev_file")
    if dev is not None and dev.size is not None and dev.size > settings.RELEVAL_MAX_UPLOAD:
        raise ops.Refused(f"the dev file has {dev.size} bytes; the limit is {settings.RELEVAL_MAX_UPLOAD}", 413)
    p = request.POST
    negative = p.get("negative", "auto").strip() or "auto"
    task = p.get("task", DEFAULT_TASK).strip() or DEFAULT_TASK
    try:
        resamples = int(p.get("resamples", "1000") or 1000)
    except ValueError:
        raise ops.Refused("resamples must be a whole number") from None
    return ops.create_benchmark(
        p.get("slug", "").strip(),
        p.get("title", "").strip() or p.get("slug", "").strip(),
        data,
        name,
        _task_settings(task, p.get("settings", ""), negative),
        task=task,
        dev_gold=dev.read() if dev is not None else None,
        dev_gold_name=(dev.name or "dev") if dev is not None else "dev",
        description=p.get("description", "")[:2000],
        resamples=resamples,
        open_=open_ in ("true", "1", "on"),
        organiser=submitter,
    )


def _task_settings(task: str, text: str, negative: str) -> dict[str, Any]:
    """The `settings` form field (a JSON object of the task Config's settings) with the `negative` field for a
    task that has a negative class; a refusal naming the field otherwise."""
    from releval.core.errors import OptionError
    from releval.registry import get_task

    try:
        settings = parse_json(text, "settings") if text.strip() else {}
    except TooDeep as exc:
        raise ops.Refused(str(exc)) from None
    except ValueError as exc:
        raise ops.Refused(f"settings: not JSON ({exc})") from None
    if not isinstance(settings, dict):
        raise ops.Refused("settings: a JSON object of the task's settings")
    try:
        the_task = get_task(task)
    except OptionError as exc:
        raise ops.Refused(str(exc)) from None
    if "negative" in the_task.settings:
        settings.setdefault("negative", None if negative == "none" else negative)
    elif negative != "auto":
        raise ops.Refused(f"negative: task {task!r} has no negative class")
    return settings


def _benchmark_json(b: Benchmark) -> dict[str, Any]:
    return {
        "slug": b.slug,
        "title": b.title,
        "task": b.task,
        "settings": b.settings,
        "n": b.n_items,
        "dev_n": b.dev_n_items,
        "gold_sha256": b.gold_sha256,
        "gold_digest": b.gold_digest,
        "resamples": b.resamples,
        "seed": b.seed,
        "confidence": b.confidence,
        "measures": [m.name for m in b.measures.all() if m.status == "active"],
        "measures_off": [
            {"name": m.name, "status": m.status, "error": m.error} for m in b.measures.all() if m.status != "active"
        ],
        "retired": b.retired,
        "parent": b.parent.slug if b.parent else None,
        "stats": b.stats,
        "open": b.open,
        "phases": [phases.phase_json(p) for p in b.phases.all()],
        "hidden_phase": phases.view_for(b, None).phase or None,
    }


@api
@require_http_methods(["GET", "DELETE"])
def api_benchmark(request: HttpRequest, slug: str) -> HttpResponse:
    """One benchmark; DELETE retires a variant (the organiser's)."""
    if request.method == "DELETE":
        return JsonResponse(_benchmark_json(ops.retire_variant(ops.authenticate(_token(request)), slug)))
    return JsonResponse(_benchmark_json(ops.get_benchmark(slug)))


@api
@require_http_methods(["GET", "POST"])
def api_submit(request: HttpRequest, slug: str) -> HttpResponse:
    """POST: a new run. GET: the benchmark's runs, a page at a time (each run's cells: GET /api/v1/runs/ID)."""
    if request.method == "GET":
        bench = ops.get_benchmark(slug)
        runs = Run.objects.filter(entry__benchmark=bench).order_by("id")
        part, meta = _page(request, runs.count())
        fields = ("id", "entry_id", "entry__name", "seed", "split", "status", "sha256", "created")
        listed = [
            {
                "run": r[0],
                "entry": r[1],
                "entry_name": r[2],
                "seed": r[3],
                "split": r[4],
                "status": r[5],
                "sha256": r[6],
                "created": r[7].isoformat(),
            }
            for r in runs.values_list(*fields)[part]
        ]
        return JsonResponse({"benchmark": bench.slug, "runs": listed, **meta})
    run = _submit_from(request, slug)
    return JsonResponse(_run_json(run, run.entry.owner), status=201)


@api
@require_http_methods(["GET"])
def api_entries(request: HttpRequest, slug: str) -> HttpResponse:
    """The benchmark's entries, a page at a time, withdrawn ones (no run left) included and said so."""
    from django.db.models import Count

    bench = ops.get_benchmark(slug)
    entries = Entry.objects.filter(benchmark=bench).order_by("id").annotate(n_runs=Count("runs"))
    part, meta = _page(request, entries.count())
    listed = [
        {
            "entry": e.pk,
            "name": e.name,
            "owner": e.owner.name,
            "paper_url": e.paper_url or None,
            "selection": e.selection,
            "runs": e.n_runs,
            "withdrawn": e.n_runs == 0,
            "flags": e.flags,
        }
        for e in entries.select_related("owner")[part]
    ]
    return JsonResponse({"benchmark": bench.slug, "entries": listed, **meta})


@api
@require_http_methods(["GET", "DELETE"])
def api_run(request: HttpRequest, run_id: int) -> HttpResponse:
    if request.method == "DELETE":
        ops.delete_run(ops.authenticate(_token(request)), run_id)
        return JsonResponse({"deleted": run_id})
    try:
        run = Run.objects.select_related("entry__benchmark").get(pk=run_id)
    except Run.DoesNotExist:
        raise ops.Refused(f"no run {run_id}", 404) from None
    return JsonResponse(_run_json(run, _viewer(request)))


#: The deepest nesting of arrays and objects a JSON body or field may have: the board's bodies need 4 levels
#: (`{"phases": [{…}]}`, a variant's settings); 5,000 levels made the parser raise RecursionError (a 500).
JSON_DEPTH = 32


def _json_depth(value: Any) -> int:
    """How deep arrays and objects nest in a parsed JSON value, counted without recursion.

    >>> _json_depth({"phases": [{"name": "test"}]}), _json_depth(3)
    (3, 0)
    """
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in children)
    return deepest


class TooDeep(ValueError):
    """JSON nested deeper than JSON_DEPTH."""


def parse_json(raw: str | bytes, what: str) -> Any:
    """`raw` parsed as JSON; ValueError when it is not JSON, TooDeep naming `what` when it nests deeper than
    JSON_DEPTH.

    >>> parse_json(b'{"name": "micro"}', "the body")
    {'name': 'micro'}
    >>> parse_json("[" * 5000, "the body")
    Traceback (most recent call last):
    ...
    releval.service.views.TooDeep: the body nests arrays and objects deeper than 32 levels
    """
    too_deep = TooDeep(f"{what} nests arrays and objects deeper than {JSON_DEPTH} levels")
    try:
        value = json.loads(raw)
    except RecursionError:
        raise too_deep from None
    if _json_depth(value) > JSON_DEPTH:
        raise too_deep
    return value


def _json_body(request: HttpRequest, key: str, example: str) -> dict[str, Any]:
    """The request's JSON object with a string `key`; anything else is refused with `example` of what to send (a
    body nested too deep: with that reason)."""
    try:
        body = parse_json(request.body or b"{}", "the body")
    except TooDeep as exc:
        raise ops.Refused(str(exc)) from None
    except ValueError:
        body = None
    if not isinstance(body, dict) or not isinstance(body.get(key), str):
        raise ops.Refused(f"the body must be JSON: {example}")
    return body


@api
@require_http_methods(["GET", "POST"])
def api_measures(request: HttpRequest, slug: str) -> HttpResponse:
    """POST: register a measure (the organiser's). GET: the benchmark's measures, retired and failed ones too."""
    if request.method == "GET":
        bench = ops.get_benchmark(slug)
        measures = bench.measures.order_by("position", "id")
        part, meta = _page(request, measures.count())
        listed = [{"name": m.name, "status": m.status, "error": m.error or None} for m in measures[part]]
        return JsonResponse({"benchmark": bench.slug, "measures": listed, **meta})
    submitter = ops.authenticate(_token(request))
    body = _json_body(request, "name", '{"name": "power:0.5"}')
    measure = ops.register_measure(submitter, slug, body["name"])
    return JsonResponse({"measure": measure.name, "benchmark": slug}, status=201)


@api
@require_http_methods(["DELETE"])
def api_measure(request: HttpRequest, slug: str, name: str) -> HttpResponse:
    """Retire a measure (the organiser's)."""
    measure = ops.retire_measure(ops.authenticate(_token(request)), slug, name)
    return JsonResponse({"measure": measure.name, "benchmark": slug, "status": measure.status})


@api
@require_http_methods(["POST"])
def api_variants(request: HttpRequest, slug: str) -> HttpResponse:
    submitter = ops.authenticate(_token(request))
    body = _json_body(request, "slug", '{"slug": "new-slug", "settings": {"view": "undirected"}}')
    bench = ops.create_variant(submitter, slug, body["slug"], str(body.get("title") or ""), body.get("settings"))
    return JsonResponse(_benchmark_json(bench), status=201)


@api
@require_http_methods(["GET", "PUT"])
def api_phases(request: HttpRequest, slug: str) -> HttpResponse:
    """A benchmark's phases; PUT replaces them (its organiser or an admin): `{"open": false, "phases": […]}`."""
    if request.method == "PUT":
        submitter = ops.authenticate(_token(request))
        try:
            body = parse_json(request.body or b"null", "the body")
        except TooDeep as exc:
            raise ops.Refused(str(exc)) from None
        except ValueError:
            body = None
        bench = ops.set_phases(submitter, slug, body)
    else:
        bench = ops.get_benchmark(slug)
    return JsonResponse(
        {
            "benchmark": bench.slug,
            "open": bench.open,
            "phases": [phases.phase_json(p) for p in bench.phases.all()],
            "hidden_phase": phases.view_for(bench, None).phase or None,
        }
    )


@api
@require_http_methods(["GET"])
def api_board(request: HttpRequest, slug: str) -> HttpResponse:
    import orjson

    bench = ops.get_benchmark(slug)
    b = standings.redact(standings.board(bench), phases.view_for(bench, _viewer(request)))
    part, meta = _page(request, len(b.rows), BOARD_PAGE_DEFAULT)
    doc = b.to_dict()
    doc["rows"] = doc["rows"][part]  # ranks, ties and intervals are the whole board's
    doc.update(meta)
    # orjson writes NaN and infinities as null (JSON has none), in C
    return HttpResponse(orjson.dumps(doc), content_type="application/json")


def _finite(o: Any) -> Any:
    """NaN and infinities as null (JSON has none)."""
    if isinstance(o, float):
        return o if math.isfinite(o) else None
    if isinstance(o, dict):
        return {k: _finite(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_finite(v) for v in o]
    return o


@require_http_methods(["GET"])
def board_csv(request: HttpRequest, slug: str) -> HttpResponse:
    try:
        bench = ops.get_benchmark(slug)
        b = standings.redact(standings.board(bench), phases.view_for(bench, _page_viewer(request)))
    except ops.Refused as exc:
        return _page_error(request, exc)
    response = HttpResponse(b.to_csv(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{slug}-board.csv"'
    return response


@api
@require_http_methods(["GET"])
def api_queue(request: HttpRequest) -> HttpResponse:
    from django.db.models import Count, Q

    counts = {s: Job.objects.filter(status=s).count() for s in ("queued", "running", "done", "failed")}
    kinds = Job.objects.values("kind").annotate(
        done=Count("id", filter=Q(status="done")), retried=Count("id", filter=Q(attempts__gt=1))
    )
    counts["by_kind"] = {k["kind"]: {"done": k["done"], "retried": k["retried"]} for k in kinds}
    return JsonResponse(counts)


@api
@require_http_methods(["GET"])
def api_replicability(request: HttpRequest) -> HttpResponse:
    from releval.service.across import replicability

    a, b = request.GET.get("a", ""), request.GET.get("b", "")
    measure = request.GET.get("measure", "micro")
    try:
        alpha = float(request.GET.get("alpha", "0.05"))
    except ValueError:
        raise ops.Refused("alpha must be a number in (0, 1)") from None
    return JsonResponse(_finite(replicability(a, b, measure, alpha)))


# ---------------------------------------------------------------- pages


def _page_error(request: HttpRequest, exc: ops.Refused) -> HttpResponse:
    return render(request, "board/error.html", {"message": str(exc)}, status=exc.status)


@require_http_methods(["GET"])
def index(request: HttpRequest) -> HttpResponse:
    benchmarks = Benchmark.objects.filter(retired=False).order_by("id")
    return render(request, "board/index.html", {"benchmarks": benchmarks, "version": __version__})


def _counted(bench: Benchmark) -> str:
    """What the benchmark's item count counts: items, or a library task's resampling units (documents, …)."""
    return task_of(bench.task).counted(bench.stats or {})[1]


@ensure_csrf_cookie
@require_http_methods(["GET"])
def board_page(request: HttpRequest, slug: str) -> HttpResponse:
    try:
        bench = ops.get_benchmark(slug)
        b = standings.redact(standings.board(bench), phases.view_for(bench, _page_viewer(request)))
    except ops.Refused as exc:
        return _page_error(request, exc)
    context = {
        "bench": bench,
        "board": b,
        "viewer": _page_viewer(request),
        "head": _head_html(b),
        "rows": _rows_html(b),
        "stats": bench.stats,
        "counted": _counted(bench),
        "version": __version__,
        "pending": any(not v for v in b.ties_current.values()) or b.stale > 0,
    }
    return render(request, "board/board.html", context)


@require_http_methods(["POST"])
def viewer_page(request: HttpRequest, slug: str) -> HttpResponse:
    """The sign-in form of a benchmark's page (CSRF-protected): the token's holder reads this browser's pages as
    themselves for VIEWER_AGE seconds (a signed, HTTP-only cookie naming them; the token itself is not kept) — the
    organiser sees every detail during a hidden phase. `leave` signs out."""
    from django.shortcuts import redirect

    try:
        ops.get_benchmark(slug)
        response = redirect(f"/b/{slug}/")
        if request.POST.get("leave"):
            response.delete_cookie(VIEWER_COOKIE)
            return response
        submitter = ops.authenticate(request.POST.get("token"))
    except ops.Refused as exc:
        return _page_error(request, exc)
    response.set_signed_cookie(
        VIEWER_COOKIE,
        str(submitter.pk),
        salt=VIEWER_SALT,
        max_age=VIEWER_AGE,
        httponly=True,
        samesite="Lax",
        secure=request.is_secure(),
    )
    return response


def _pct(x: float | None) -> str:
    return "–" if x is None or not math.isfinite(x) else f"{100 * x:.2f}"


def _head_html(b: standings.Board) -> str:
    """The board's header: rank (under the first measure) first, then entry, seeds, the measures and flags — so a
    board wider than the screen shows the rank and the entry name at its left (both stay there when the table is
    scrolled sideways: `th.sticky`, `td.sticky` in base.html); each sortable header's data-col is its cell index."""
    cells = []
    if b.measures:
        first = html.escape(b.measures[0])
        cells.append(
            f'<th class="sticky rank" data-col="0" data-type="num" title="rank under {first} (ties share a rank)">'
            "rank</th>"
        )
    at = len(cells)
    cells.append(f'<th class="sticky entry" data-col="{at}" data-type="text">entry</th>')
    cells.append(f'<th data-col="{at + 1}" data-type="num">seeds</th>')
    for i, m in enumerate(b.measures, start=at + 2):
        note = "" if b.ties_current.get(m) else " (tie groups being computed)"
        cells.append(
            f'<th data-col="{i}" data-type="num" title="F (%) under {html.escape(m)}{note}">{html.escape(m)}</th>'
        )
    cells.append("<th>flags</th>")
    return "".join(cells)


def _escape_tip(tip: list[str], escaped: dict[str, str]) -> str:
    """A tooltip's lines escaped for an attribute; the last line, the signature, escaped once per distinct one."""
    *head, last = tip
    if last not in escaped:
        escaped[last] = html.escape(last)
    return html.escape("\n".join(head)) + ("\n" if head else "") + escaped[last]


def _rows_html(b: standings.Board) -> str:
    """The table body, built as text: a thousand entries render in milliseconds, not in template tags."""
    esc = html.escape
    escaped: dict[str, str] = {}  # a column's cells mostly share one signature: escaped once
    out = []
    slug = esc(b.benchmark.slug)
    for row in b.rows:
        parts = [f'<tr data-entry="{row.entry_id}">']
        if b.measures:  # the rank under the first measure, first (see _head_html)
            first = row.cells[b.measures[0]]
            rank = first.rank
            span = (
                f' <span class="ci">({first.rank_interval[0]}–{first.rank_interval[1]})</span>'
                if first.rank_interval
                else ""
            )
            parts.append(
                f'<td class="sticky rank" data-v="{rank if rank is not None else ""}">'
                f"{rank if rank is not None else '–'}{span}</td>"
            )
        parts.append(
            f'<td class="sticky entry" data-v="{esc(row.name)}">'
            f'<a href="/b/{slug}/entry/{row.entry_id}/">{esc(row.name)}</a></td>'
            f'<td data-v="{row.runs}">{row.runs}</td>'
        )
        for m in b.measures:
            c = row.cells[m]
            value = "" if c.value is None else repr(c.value)
            text = _pct(c.value)
            if c.sd is not None:
                text += f" ± {_pct(c.sd)}"
            tip = [f"{m}: {text}" + (f" (rank {c.rank} of {len(b.rows)})" if c.rank is not None else "")]
            if c.rank_interval:
                tip.append(
                    f"{b.benchmark.confidence:.0%} bootstrap rank interval {c.rank_interval[0]}–{c.rank_interval[1]}"
                )
            if c.ci:
                what = "t interval of the mean" if len(c.seeds) > 1 else "CI"
                clipped = " (clipped to the measure's range, 0–100)" if c.ci_clipped else ""
                tip.append(f"{b.benchmark.confidence:.0%} {what} [{_pct(c.ci[0])}, {_pct(c.ci[1])}]{clipped}")
            if len(c.seeds) > 1:
                tip.append(f"{len(c.seeds)} seeds: " + ", ".join(_pct(v) for v in c.seeds))
                if c.welch_p is not None:
                    tip.append(f"vs best (seeds): Welch p = {c.welch_p:.3g}, Cohen's d = {c.cohen_d:.2f}")
            if c.p_adjusted is not None:
                test = "Welch's t over seeds" if c.tie_test == "welch" else "paired bootstrap"
                tip.append(f"vs best: {test} p (Holm) = {c.p_adjusted:.3g}")
            if c.stale:
                tip.append("stale: being computed")
            if c.signature:
                tip.append(c.signature)
            classes = ["cell", c.tie] if c.tie else ["cell"]
            if c.stale:
                classes.append("stale")
            mark = {"best": " ★", "tied": " ≈", "undecided": " ?"}.get(c.tie, "")
            ci = f'<span class="ci">[{_pct(c.ci[0])}, {_pct(c.ci[1])}]</span>' if c.ci else ""
            parts.append(
                f'<td class="{" ".join(classes)}" data-v="{value}" title="{_escape_tip(tip, escaped)}">'
                f"{text}{mark}{ci}</td>"
            )
        flags = " ".join(
            f'<span class="flag {esc(f.get("severity", "info"))}" title="{esc(f.get("message", ""))}">'
            f"{esc(f.get('code', ''))}</span>"
            for f in row.flags
        )
        parts.append(f"<td>{flags}</td>")
        parts.append("</tr>")
        out.append("".join(parts))
    return "\n".join(out)


@require_http_methods(["GET"])
def entry_page(request: HttpRequest, slug: str, entry_id: int) -> HttpResponse:
    try:
        entry = Entry.objects.select_related("benchmark", "owner").get(pk=entry_id, benchmark__slug=slug)
        view = phases.view_for(entry.benchmark, _page_viewer(request))
    except Entry.DoesNotExist:
        return _page_error(request, ops.Refused(f"no entry {entry_id} on {slug!r}", 404))
    except ops.Refused as exc:
        return _page_error(request, exc)
    runs = list(entry.runs.order_by("id"))
    first = _detail_run(runs, view)
    shown_result = task_of(entry.benchmark.task).per_class_result(first.data.result) if first else None
    per_class = (shown_result or {}).get("per_class", [])
    cells = {r.pk: {c.measure.name: c for c in r.cells.select_related("measure")} for r in runs}
    measures = view.shown([m.name for m in entry.benchmark.measures.filter(status="active")])
    run_rows = [
        {
            "run": r,
            "cells": [
                (m, _cell_text(cells[r.pk].get(m), view if r.split == "test" else phases.FULL)) for m in measures
            ],
        }
        for r in runs
    ]
    per_class = [
        {
            "label": c.get("label"),
            "p": _pct(c.get("precision")),
            "r": _pct(c.get("recall")),
            "f": _pct(c.get("f")),
            "support": c.get("support"),
        }
        for c in per_class
    ]
    context = {
        "entry": entry,
        "flags": entry.flags if view.detail else [f for f in entry.flags if f.get("code") in phases.PROTOCOL_FLAGS],
        "hidden_phase": view.phase,
        "detail_split": first.split if first else "",
        "bench": entry.benchmark,
        "runs": run_rows,
        "measures": measures,
        "per_class": per_class,
        "criterion": task_of(entry.benchmark.task).criterion_label,
        "has_figure": first is not None,
        "version": __version__,
    }
    return render(request, "board/entry.html", context)


def _detail_run(runs: list[Run], view: phases.View) -> Run | None:
    """The run whose per-class result an entry's page and figure show: its first scored run, a dev run only while
    a hidden phase keeps test runs' detail back."""
    return next((r for r in runs if r.status == "scored" and (view.detail or r.split != "test")), None)


def _cell_text(cell: Any, view: phases.View) -> dict[str, str] | None:
    if cell is None:
        return None
    v = view.value
    ci = f"[{_pct(v(cell.ci_low))}, {_pct(v(cell.ci_high))}]" if cell.ci_low is not None else ""
    stale = "" if cell.version == __version__ else " (stale)"
    return {"text": _pct(v(cell.value)) + stale, "ci": ci, "signature": cell.signature}


@require_http_methods(["GET"])
def entry_figure(request: HttpRequest, slug: str, entry_id: int) -> HttpResponse:
    """Per-class F of the entry's first run under each weighting of the benchmark (releval.report.figures)."""
    from releval.report.figures import figure_bytes, per_class_figure
    from releval.result import ScoreResult

    try:
        entry = Entry.objects.select_related("benchmark").get(pk=entry_id, benchmark__slug=slug)
        view = phases.view_for(entry.benchmark, _page_viewer(request))
    except Entry.DoesNotExist:
        return _page_error(request, ops.Refused(f"no entry {entry_id} on {slug!r}", 404))
    except ops.Refused as exc:
        return _page_error(request, exc)
    run = _detail_run(list(entry.runs.order_by("id").select_related("data")), view)
    if run is None:
        hidden = f"; test runs' detail is shown once the {view.phase} phase ends" if view.phase else ""
        return _page_error(request, ops.Refused(f"this entry has no scored run to show yet{hidden}", 404))
    shown = task_of(entry.benchmark.task).per_class_result(run.data.result)
    if shown is None:
        return _page_error(request, ops.Refused(f"task {entry.benchmark.task!r} has no per-class figure", 404))
    result = _named(ScoreResult.from_dict(shown), entry.name)
    _, fig = per_class_figure([result], dataset=entry.benchmark.title)
    return HttpResponse(figure_bytes(fig, "svg"), content_type="image/svg+xml")


def _named(result: Any, name: str) -> Any:
    from dataclasses import replace

    return replace(result, system=name)


@require_http_methods(["GET"])
def weights_figure(request: HttpRequest, slug: str) -> HttpResponse:
    """The class weights of the benchmark under each weighting (Harbecke et al. 2022, Fig. 1)."""
    from releval.report.figures import figure_bytes
    from releval.report.figures import weights_figure as draw

    try:
        bench = ops.get_benchmark(slug)
    except ops.Refused as exc:
        return _page_error(request, exc)
    task = task_of(bench.task)
    labels_negative = task.class_labels(bench, ops.spec_of(bench))
    if labels_negative is None:
        return _page_error(request, ops.Refused(f"task {bench.task!r} has no class weights figure", 404))
    labels, negative = labels_negative
    averages = [task.average_of(m.name) for m in bench.measures.filter(status="active") if m.name != ops.OFFICIAL]
    weightings = list(dict.fromkeys(a for a in averages if a != "micro"))  # the official score weighs no class
    _, fig = draw(labels, weightings, negative, dataset=bench.title)
    return HttpResponse(figure_bytes(fig, "svg"), content_type="image/svg+xml")


def _see_other(path: str, **query: str) -> HttpResponse:
    """POST-redirect-GET: a form's success answered with 303 See Other to a page that says what was done, so
    reloading that page (or going back to it) shows it again instead of sending the form a second time."""
    from urllib.parse import urlencode

    response = HttpResponse(status=303)
    response["Location"] = f"{path}?{urlencode(query)}" if query else path
    return response


def _query_pk(request: HttpRequest, name: str) -> int | None:
    raw = request.GET.get(name, "")
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) < 19 else None


@require_http_methods(["GET", "POST"])
def submit_page(request: HttpRequest, slug: str) -> HttpResponse:
    """The submission form. A run stored answers 303 to `?run=ID`, which says so (POST-redirect-GET); a refusal
    shows the form again with the reason and the refusal's status."""
    try:
        bench = ops.get_benchmark(slug)
    except ops.Refused as exc:
        return _page_error(request, exc)
    context: dict[str, Any] = {"bench": bench, "version": __version__, "form": request.POST}
    status = 200
    if request.method == "POST":
        try:
            _check_length(request)
            run = _submit_from(request, slug)
        except ops.Refused as exc:
            context["error"] = str(exc)
            status = exc.status
        else:
            return _see_other(f"/b/{bench.slug}/submit", run=str(run.pk))
    else:
        pk = _query_pk(request, "run")
        if pk is not None:
            context["submitted"] = Run.objects.select_related("entry").filter(pk=pk, entry__benchmark=bench).first()
    return render(request, "board/submit.html", context, status=status)


@require_http_methods(["GET", "POST"])
def new_benchmark_page(request: HttpRequest) -> HttpResponse:
    """The form that creates a benchmark from a gold file (admins); created: 303 to `?created=SLUG`. Its task is
    one of those the board evaluates (`board_tasks`), each described by its own help."""
    from releval.registry import get_task
    from releval.service.board_tasks import board_tasks

    tasks = [(name, get_task(name).help) for name in board_tasks()]
    context: dict[str, Any] = {"version": __version__, "form": request.POST, "tasks": tasks}
    status = 200
    if request.method == "POST":
        try:
            _check_length(request)
            created = _benchmark_from(request)
        except ops.Refused as exc:
            context["error"] = str(exc)
            status = exc.status
        else:
            return _see_other("/benchmarks/new", created=created.slug)
    elif request.GET.get("created"):
        context["created"] = Benchmark.objects.filter(slug=request.GET["created"][:100]).first()
    return render(request, "board/new_benchmark.html", context, status=status)


@require_http_methods(["GET", "POST"])
def measure_page(request: HttpRequest, slug: str) -> HttpResponse:
    """A measure registered from the board page's form: 303 to `?registered=NAME`, which says so."""
    try:
        if request.method == "GET":
            bench = ops.get_benchmark(slug)
            measure = bench.measures.filter(name=request.GET.get("registered", "")[:100]).first()
            if measure is None:
                raise ops.Refused(f"no measure {request.GET.get('registered', '')!r} on {slug}", 404)
            return render(request, "board/measure.html", {"measure": measure, "bench": bench})
        submitter = ops.authenticate(_token(request))
        measure = ops.register_measure(submitter, slug, request.POST.get("measure", ""))
    except ops.Refused as exc:
        return _page_error(request, exc)
    return _see_other(f"/b/{slug}/measures", registered=measure.name)


@require_http_methods(["GET"])
def replicability_page(request: HttpRequest) -> HttpResponse:
    """Two entries across the benchmarks both are on: Dror et al.'s k̂ and the benchmarks identified."""
    from releval.service.across import replicability

    a, b = request.GET.get("a", ""), request.GET.get("b", "")
    measure = request.GET.get("measure", "micro") or "micro"
    context: dict[str, Any] = {"a": a, "b": b, "measure": measure, "version": __version__}
    status = 200
    if a or b:
        try:
            context["result"] = replicability(a, b, measure)
        except ops.Refused as exc:
            context["error"] = str(exc)
            status = exc.status
    return render(request, "board/replicability.html", context, status=status)


class ApiJsonErrors:
    """Middleware: every error under /api/ answers JSON `{"error": …}` — Django's own refusals too (a malformed
    multipart body, too many fields, an unknown path, a method not allowed), which it answers in HTML or empty."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if not request.path.startswith("/api/") or response.status_code < 400:
            return response
        if response.get("Content-Type", "").startswith("application/json"):
            return response
        reason = response.reason_phrase or "error"
        if response.status_code == 405:
            allowed = response.get("Allow", "")
            reason = f"method {request.method} not allowed here (allowed: {allowed})"
        elif response.status_code == 404:
            reason = f"no such address: {request.path}"
        out = JsonResponse({"error": reason}, status=response.status_code)
        if response.has_header("Allow"):
            out["Allow"] = response["Allow"]
        return out

    def process_exception(self, request: HttpRequest, exc: Exception) -> HttpResponse | None:
        from django.core.exceptions import BadRequest, RequestDataTooBig, SuspiciousOperation, TooManyFieldsSent
        from django.http.multipartparser import MultiPartParserError

        if not request.path.startswith("/api/"):
            return None
        if isinstance(exc, MultiPartParserError):
            return JsonResponse({"error": f"the body is not readable multipart/form-data ({exc})"}, status=400)
        if isinstance(exc, RequestDataTooBig):
            return JsonResponse({"error": "the request is larger than the upload limit"}, status=413)
        if isinstance(exc, TooManyFieldsSent):
            return JsonResponse({"error": "the request has too many fields"}, status=400)
        if isinstance(exc, (BadRequest, SuspiciousOperation)):
            return JsonResponse({"error": f"bad request ({exc})"}, status=400)
        return None


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """400 for what Django refuses before any view runs (a Host header not in RELEVAL_ALLOWED_HOSTS, a malformed
    cookie or body): JSON under /api/, Django's page elsewhere; no traceback either way."""
    from django.core.exceptions import DisallowedHost
    from django.views import defaults

    if not request.path.startswith("/api/"):
        return defaults.bad_request(request, exception or Exception())
    if isinstance(exception, DisallowedHost):
        detail = "the Host header names a host this board does not answer to"
    else:
        detail = " ".join(str(exception or "").split())[:300]
    return JsonResponse({"error": f"bad request ({detail})" if detail else "bad request"}, status=400)


def server_error(request: HttpRequest) -> HttpResponse:
    """500: one line, no traceback."""
    if request.path.startswith("/api/"):
        return JsonResponse({"error": "internal error"}, status=500)
    return HttpResponse("internal error", status=500, content_type="text/plain")
