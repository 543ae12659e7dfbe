from django.urls import path

from reviewapp.accounts.two_factor import views

urlpatterns = [
    path("account/two-factor/", views.account, name="two-factor"),
    path("account/two-factor/verify/", views.verify, name="two-factor-verify"),
    path("account/two-factor/setup/", views.setup, name="two-factor-setup"),
    path(
        "matters/<int:matter_id>/members/<int:membership_id>/two-factor-reset/",
        views.member_reset,
        name="member-two-factor-reset",
    ),
    path(
        "organisations/<int:organisation_id>/two-factor/",
        views.organisation_requirement,
        name="organisation-two-factor",
    ),
]
