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
    """Load the model engine (reviewapp.llm, the one package that imports the anthropic SDK,
    seconds to import) once before the pool forks, not inside the first task. The apps and
    tasks modules, imported just before, normally have loaded it already; this makes sure."""
    # In the handler, not at the top: beat and the celery command line import this module too.
    import reviewapp.llm  # noqa: F401


@worker_ready.connect
def _sweep_stalled_work(sender: object = None, **_kwargs: object) -> None:
    """Work left behind by a worker that died is picked up when a worker starts, not a
    beat interval later."""
    app.send_task("reviewapp.reviews.tasks.sweep_stalled_work")
