"""The portfolio grid, its downloads and re-runs (pages, outside the JSON API)."""

from django.urls import path

from reviewapp.portfolio import views

urlpatterns = [
    path("matters/<int:matter_id>/grid/", views.grid_page, name="portfolio-grid"),
    path(
        "matters/<int:matter_id>/grid/export.xlsx",
        views.grid_export,
        {"fmt": "xlsx"},
        name="portfolio-export-xlsx",
    ),
    path(
        "matters/<int:matter_id>/grid/export.csv",
        views.grid_export,
        {"fmt": "csv"},
        name="portfolio-export-csv",
    ),
    path("matters/<int:matter_id>/rerun/", views.matter_rerun_view, name="portfolio-matter-rerun"),
    path(
        "contracts/<int:contract_id>/rerun/",
        views.contract_rerun_view,
        name="portfolio-contract-rerun",
    ),
    path(
        "contracts/<int:contract_id>/rerun/<int:snapshot_id>/",
        views.comparison_page,
        name="portfolio-comparison",
    ),
]
