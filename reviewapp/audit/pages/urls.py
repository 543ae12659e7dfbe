"""The audit log in the app (the admin keeps the raw view)."""

from django.urls import path

from reviewapp import converters  # noqa: F401  (registers the <id:...> converter)
from reviewapp.audit.pages import views

urlpatterns = [
    path("contracts/<id:contract_id>/history/", views.contract_history, name="contract-history"),
    path("audit/", views.audit_log, name="audit-log"),
]
