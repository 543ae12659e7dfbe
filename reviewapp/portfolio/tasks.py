"""Re-runs in the background: one task per contract of a matter re-run."""

from __future__ import annotations

import logging

from celery import Task, shared_task
from django.db import OperationalError

from reviewapp.portfolio.matter_rerun import matter_rerun_item_fail, matter_rerun_item_run

logger = logging.getLogger(__name__)


@shared_task(
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    retry_jitter=True,
    max_retries=3,
)
def rerun_matter_contract(self: Task, item_id: int) -> str:
    """Re-run one contract; after the last retry (or an unexpected error) it counts as failed."""
    try:
        return matter_rerun_item_run(item_id=item_id)
    except OperationalError:
        if self.request.retries >= (self.max_retries or 0):
            matter_rerun_item_fail(item_id=item_id, error="DATABASE_UNAVAILABLE")
            return "FAILED"
        raise
    except Exception as error:  # one contract never stops the rest: it counts as failed
        logger.exception("re-run of matter item %s failed", item_id)
        matter_rerun_item_fail(item_id=item_id, error=type(error).__name__)
        return "FAILED"
