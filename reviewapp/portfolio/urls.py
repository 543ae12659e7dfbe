"""The portfolio grid, its downloads and re-runs (pages, outside the JSON API)."""

from django.urls import path

from reviewapp import converters  # noqa: F401  (registers the <id:...> converter)
from reviewapp.portfolio import views

urlpatterns = [
    path("matters/<id:matter_id>/grid/", views.grid_page, name="portfolio-grid"),
    path(
        "matters/<id:matter_id>/grid/export.xlsx",
        views.grid_export,
        {"fmt": "xlsx"},
        name="portfolio-export-xlsx",
    ),
    path(
        "matters/<id:matter_id>/grid/export.csv",
        views.grid_export,
        {"fmt": "csv"},
        name="portfolio-export-csv",
    ),
    path("matters/<id:matter_id>/rerun/", views.matter_rerun_view, name="portfolio-matter-rerun"),
    path(
        "contracts/<id:contract_id>/rerun/",
        views.contract_rerun_view,
        name="portfolio-contract-rerun",
    ),
    path(
        "contracts/<id:contract_id>/rerun/<id:snapshot_id>/",
        views.comparison_page,
        name="portfolio-comparison",
    ),
]
