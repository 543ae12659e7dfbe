from django.urls import path

from reviewapp.accounts.profile import views

urlpatterns = [
    path("account/settings/", views.account_settings, name="account-settings"),
]
