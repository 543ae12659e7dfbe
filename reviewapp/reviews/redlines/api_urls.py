"""The redline endpoints, included under /api/ by reviewapp.urls."""

from django.urls import URLPattern, path

from reviewapp.reviews.redlines import api

urlpatterns: list[URLPattern] = [
    path(
        "reviews/<int:review_id>/redlines/", api.ReviewRedlinesView.as_view(), name="api-redlines"
    ),
    path("redlines/<int:redline_id>/", api.RedlineDetailView.as_view(), name="api-redline"),
    path(
        "redlines/<int:redline_id>/accept/",
        api.RedlineAcceptView.as_view(),
        name="api-redline-accept",
    ),
    path(
        "redlines/<int:redline_id>/withdraw/",
        api.RedlineWithdrawView.as_view(),
        name="api-redline-withdraw",
    ),
]
