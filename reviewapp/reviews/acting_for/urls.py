"""The page forms of the party acted for, included at the root by reviewapp.urls."""

from django.urls import URLPattern, path

from reviewapp import converters  # noqa: F401  (registers the <id:...> converter)
from reviewapp.reviews.acting_for import api, views

urlpatterns: list[URLPattern] = [
    path(
        "contracts/<id:contract_id>/acting-for/",
        views.contract_acting_for,
        name="contract-acting-for",
    ),
    path("matters/<id:matter_id>/acting-for/", views.matter_acting_for, name="matter-acting-for"),
]

api_urlpatterns: list[URLPattern] = [
    path(
        "contracts/<id:contract_id>/acting-for/",
        api.ContractActingForView.as_view(),
        name="api-contract-acting-for",
    ),
    path(
        "matters/<id:matter_id>/acting-for/",
        api.MatterActingForView.as_view(),
        name="api-matter-acting-for",
    ),
]
