"""The redline endpoints, included under /api/ by reviewapp.urls."""

from django.urls import URLPattern, path

from reviewapp import converters  # noqa: F401  (registers the <id:...> converter)
from reviewapp.reviews.redlines import api

urlpatterns: list[URLPattern] = [
    path("reviews/<id:review_id>/redlines/", api.ReviewRedlinesView.as_view(), name="api-redlines"),
    path("redlines/<id:redline_id>/", api.RedlineDetailView.as_view(), name="api-redline"),
    path(
        "redlines/<id:redline_id>/accept/",
        api.RedlineAcceptView.as_view(),
        name="api-redline-accept",
    ),
    path(
        "redlines/<id:redline_id>/withdraw/",
        api.RedlineWithdrawView.as_view(),
        name="api-redline-withdraw",
    ),
]
