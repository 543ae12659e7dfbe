"""Model work in the background: one draft per review, verifications in batches.

Retries follow reviewapp.retries (backoff with jitter, retry-after honoured); after the last
one the work ends in a documented state (passages NEEDS_HUMAN_REVIEW with reason
LLM_UNAVAILABLE, the draft FAILED), never CONFIRMED. The Message Batches' tasks live in
``reviews.batches.tasks``, imported here because autodiscovery imports an app's tasks module only.
"""

from __future__ import annotations

from typing import Any

from celery import Task, shared_task

from reviewapp.retries import INFRASTRUCTURE_RETRY, run_in_task
from reviewapp.reviews.batches import tasks as _batch_tasks  # noqa: F401  (registers them)
from reviewapp.reviews.drafting import draft_give_up, draft_run
from reviewapp.reviews.model_work import verifications_run
from reviewapp.reviews.sweeper import stalled_work_sweep
from reviewapp.reviews.verdicts import verifications_give_up


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, **INFRASTRUCTURE_RETRY)
def verify_batch(self: Task, review_id: int, verification_ids: list[int]) -> Any:
    return run_in_task(
        self,
        lambda: verifications_run(review_id=review_id, verification_ids=verification_ids),
        give_up=lambda _error: verifications_give_up(
            review_id=review_id, verification_ids=verification_ids
        ),
    )


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, **INFRASTRUCTURE_RETRY)
def draft_review(self: Task, review_id: int) -> Any:
    return run_in_task(
        self,
        lambda: draft_run(review_id=review_id).status,
        give_up=lambda error: draft_give_up(review_id=review_id, error=_kind(error)),
    )


def _kind(error: BaseException) -> str:
    return getattr(error, "kind", type(error).__name__)


@shared_task(**INFRASTRUCTURE_RETRY)
def sweep_stalled_work() -> int:
    """Beat, every minute, and once at worker start: stalled work queued again or ended."""
    return stalled_work_sweep().total
