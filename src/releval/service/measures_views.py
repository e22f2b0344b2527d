"""HTTP of the evaluation of a benchmark's measures (releval.service.measures_page): the page, its JSON, CSV and SVG
figure, and the API's JSON — a thin layer, like releval.service.views, whose helpers it uses."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_http_methods

from releval import __version__
from releval.service import board as ops
from releval.service import measures_page, views


def _evaluated(request: HttpRequest, slug: str, viewer: object) -> measures_page.Evaluated:
    return measures_page.evaluated(ops.get_benchmark(slug), viewer)


@require_http_methods(["GET", "POST"])
def measures(request: HttpRequest, slug: str) -> HttpResponse:
    """GET: the evaluation of the benchmark's measures; `?registered=NAME` and POST: a measure contributed from the
    board page's form (releval.service.views.measure_page)."""
    if request.method == "POST" or "registered" in request.GET:
        return views.measure_page(request, slug)
    try:
        bench = ops.get_benchmark(slug)
        result = measures_page.evaluated(bench, views._page_viewer(request))
    except ops.Refused as exc:
        return views._page_error(request, exc)
    power = {p.metric: p for p in result.meta.power}
    swap = {s.metric: s for s in result.meta.stability}
    rows = [
        {
            "measure": m,
            "share": 100 * power[m].share,
            "significant": power[m].significant,
            "pairs": power[m].pairs,
            "smallest": None if power[m].smallest is None else 100 * power[m].smallest,
            "swap": None if m not in swap else 100 * swap[m].rate,
        }
        for m in result.measures
        if m in power
    ]
    agreement = [
        {"a": g.a, "b": g.b, "tau": g.tau, "low": g.interval[0] if g.interval else None,
         "high": g.interval[1] if g.interval else None}
        for g in result.meta.agreement
    ]  # fmt: skip
    flips = [
        {"a": f.a, "b": f.b, "first": f.first, "second": f.second, "delta_a": 100 * f.delta_a,
         "delta_b": 100 * f.delta_b, "p_a": f.p_a, "p_b": f.p_b, "significant": f.significant}
        for f in result.meta.flips
    ]  # fmt: skip
    context = {
        "bench": bench,
        "result": result,
        "rows": rows,
        "agreement": agreement,
        "flips": flips,
        "alpha": result.alpha,
        "version": __version__,
    }
    return render(request, "board/measures.html", context)


@require_http_methods(["GET"])
def measures_json(request: HttpRequest, slug: str) -> HttpResponse:
    import orjson

    try:
        result = _evaluated(request, slug, views._page_viewer(request))
    except ops.Refused as exc:
        return views._page_error(request, exc)
    return HttpResponse(orjson.dumps(result.to_dict()), content_type="application/json")


@require_http_methods(["GET"])
def measures_csv(request: HttpRequest, slug: str) -> HttpResponse:
    try:
        result = _evaluated(request, slug, views._page_viewer(request))
    except ops.Refused as exc:
        return views._page_error(request, exc)
    response = HttpResponse(result.to_csv(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{slug}-measures.csv"'
    return response


@require_http_methods(["GET"])
def measures_figure(request: HttpRequest, slug: str) -> HttpResponse:
    """Discriminative power and swap rate per measure, and τ-b between them (releval.report.figures.measures)."""
    from releval.report.figures.base import figure_bytes
    from releval.report.figures.measures import measures_figure as draw

    try:
        bench = ops.get_benchmark(slug)
        result = measures_page.evaluated(bench, views._page_viewer(request))
    except ops.Refused as exc:
        return views._page_error(request, exc)
    fig = draw(result.meta, result.measures, dataset=bench.title)
    return HttpResponse(figure_bytes(fig, "svg"), content_type="image/svg+xml")


@views.api
@require_http_methods(["GET"])
def api_evaluation(request: HttpRequest, slug: str) -> HttpResponse:
    """The evaluation of the measures as JSON (NaN as null); a token lets the organiser read it in a hidden phase."""
    import orjson

    result = _evaluated(request, slug, views._viewer(request))
    return HttpResponse(orjson.dumps(result.to_dict()), content_type="application/json")
