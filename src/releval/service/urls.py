"""The board's URLs (docs/service.md, "API")."""

from django.urls import path

from releval.service import measures_views, views

handler400 = "releval.service.views.bad_request"
handler500 = "releval.service.views.server_error"

urlpatterns = [
    path("", views.index, name="index"),
    path("benchmarks/new", views.new_benchmark_page, name="new-benchmark"),
    path("replicability", views.replicability_page, name="replicability"),
    path("b/<slug:slug>/", views.board_page, name="board"),
    path("b/<slug:slug>/board.csv", views.board_csv, name="board-csv"),
    path("b/<slug:slug>/board.json", views.api_board, name="board-json"),
    path("b/<slug:slug>/weights.svg", views.weights_figure, name="weights"),
    path("b/<slug:slug>/submit", views.submit_page, name="submit"),
    path("b/<slug:slug>/measures", measures_views.measures, name="measure"),
    path("b/<slug:slug>/measures.json", measures_views.measures_json, name="measures-json"),
    path("b/<slug:slug>/measures.csv", measures_views.measures_csv, name="measures-csv"),
    path("b/<slug:slug>/measures.svg", measures_views.measures_figure, name="measures-figure"),
    path("b/<slug:slug>/viewer", views.viewer_page, name="viewer"),
    path("b/<slug:slug>/entry/<int:entry_id>/", views.entry_page, name="entry"),
    path("b/<slug:slug>/entry/<int:entry_id>/figure.svg", views.entry_figure, name="entry-figure"),
    path("api/v1/benchmarks", views.api_benchmarks),
    path("api/v1/benchmarks/<slug:slug>", views.api_benchmark),
    path("api/v1/benchmarks/<slug:slug>/runs", views.api_submit),
    path("api/v1/benchmarks/<slug:slug>/entries", views.api_entries),
    path("api/v1/benchmarks/<slug:slug>/measures", views.api_measures),
    path("api/v1/benchmarks/<slug:slug>/measures/evaluation", measures_views.api_evaluation),
    path("api/v1/benchmarks/<slug:slug>/measures/<str:name>", views.api_measure),
    path("api/v1/benchmarks/<slug:slug>/variants", views.api_variants),
    path("api/v1/benchmarks/<slug:slug>/board", views.api_board),
    path("api/v1/benchmarks/<slug:slug>/phases", views.api_phases),
    path("api/v1/runs/<int:run_id>", views.api_run),
    path("api/v1/queue", views.api_queue),
    path("api/v1/replicability", views.api_replicability),
]
