"""Review pages and downloads outside the JSON API."""

from django.urls import URLPattern, path

from reviewapp import converters  # noqa: F401  (registers the <id:...> converter)
from reviewapp.reviews import export_views

urlpatterns: list[URLPattern] = [
    path(
        f"reviews/<id:review_id>/export.{fmt}",
        export_views.review_export,
        {"fmt": fmt},
        name=f"review-export-{fmt}",
    )
    for fmt in ("docx", "json", "csv", "redline.docx", "redline-internal.docx")
]
