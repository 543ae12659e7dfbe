import os

from celery import Celery
from celery.signals import worker_init, worker_ready

from reviewapp.redelivery import HoldersStep

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "reviewapp.settings.local")

app = Celery("reviewapp")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
app.steps["consumer"].add(HoldersStep)  # messages of a dead worker come back at once


@worker_init.connect
def _preload_model_engine(**_kwargs: object) -> None:
    """Load the anthropic SDK once before the pool forks, not inside the first task."""
    import reviewapp.reviews.model_work  # noqa: F401


@worker_ready.connect
def _sweep_stalled_work(sender: object = None, **_kwargs: object) -> None:
    """Work left behind by a worker that died is picked up when a worker starts, not a
    beat interval later."""
    app.send_task("reviewapp.reviews.tasks.sweep_stalled_work")
