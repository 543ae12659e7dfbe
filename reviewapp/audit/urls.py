"""The audit log in the app (the admin keeps the raw view)."""

from django.urls import path

from reviewapp.audit import views

urlpatterns = [
    path("contracts/<int:contract_id>/history/", views.contract_history, name="contract-history"),
    path("audit/", views.audit_log, name="audit-log"),
]
