"""Clausewise. The Celery app is loaded with the package (Celery's layout for Django), so that
shared tasks bind to it in every process: web, worker, beat and management commands."""

from reviewapp.celery import app as celery_app

__all__ = ("celery_app",)
