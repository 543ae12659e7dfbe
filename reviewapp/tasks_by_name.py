"""A Celery task found by its registered name, for services that queue work.

Tasks import services, never the reverse (the import-linter contracts in pyproject.toml): a
service that must queue work (ingest a contract, run its OCR, submit a Message Batch) names
the task instead of importing its module, so no service module imports a tasks module, at the
top or inside a function. The worker imports every app's ``tasks`` module when it starts; a web
process has them imported here on first use (Celery's autodiscovery over INSTALLED_APPS).
``tests/test_tasks_by_name.py`` checks that every name the services use is a registered task.
"""

from __future__ import annotations

from typing import Any

from reviewapp.celery import app


def task_named(name: str) -> Any:
    """The registered task called ``name`` (a dotted ``reviewapp.<app>.tasks.<function>``).

    Returns Celery's task object (``delay``, ``apply_async``; eager under tests)."""
    if name not in app.tasks:
        app.loader.import_default_modules()  # autodiscovery: every app's tasks module
    return app.tasks[name]
