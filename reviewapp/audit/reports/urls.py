"""Admins' audit reports."""

from django.urls import path

from reviewapp.audit.reports import views

urlpatterns = [
    path("", views.reports_page, name="reports"),
    path("report.csv", views.reports_csv, name="reports-csv"),
    path("report.pdf", views.reports_pdf, name="reports-pdf"),
]
