"""Review pages and downloads outside the JSON API."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
