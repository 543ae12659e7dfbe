from django.urls import path

from reviewapp import converters  # noqa: F401  (registers the <id:...> converter)
from reviewapp.accounts.two_factor import views

urlpatterns = [
    path("account/two-factor/", views.account, name="two-factor"),
    path("account/two-factor/verify/", views.verify, name="two-factor-verify"),
    path("account/two-factor/setup/", views.setup, name="two-factor-setup"),
    path(
        "matters/<id:matter_id>/members/<id:membership_id>/two-factor-reset/",
        views.member_reset,
        name="member-two-factor-reset",
    ),
    path(
        "organisations/<id:organisation_id>/two-factor/",
        views.organisation_requirement,
        name="organisation-two-factor",
    ),
]
