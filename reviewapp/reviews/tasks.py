"""Model work in the background: one draft per review, verifications in batches.

Retries use backoff with jitter; after the last one the work ends in a documented state
(passages NEEDS_HUMAN_REVIEW with reason LLM_UNAVAILABLE, the draft FAILED), never CONFIRMED.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from celery import Task, shared_task
from django.conf import settings
from django.db import OperationalError

from reviewapp.llm import LLMUnavailable
from reviewapp.reviews.drafting import draft_give_up, draft_run
from reviewapp.reviews.model_work import verifications_give_up, verifications_run
from reviewapp.reviews.slots import SlotsBusy
from reviewapp.reviews.sweeper import stalled_work_sweep


def backoff(attempt: int, retry_after: float | None) -> float:
    base = settings.LLM_RETRY_BACKOFF_S * (2**attempt)
    return max(retry_after or 0.0, base) * (0.5 + random.random())  # noqa: S311 - jitter


def _run_with_retries(task: Task, run: Callable[[], Any], give_up: Callable[[str], Any]) -> Any:
    attempt = int(task.request.retries or 0)
    try:
        return run()
    except SlotsBusy as busy:
        return _again(task, attempt, countdown=0.5 + random.random(), error=busy)  # noqa: S311
    except LLMUnavailable as error:
        if error.retryable and attempt < settings.LLM_TASK_RETRIES:
            countdown = backoff(attempt, error.retry_after_s)
            return _again(task, attempt + 1, countdown=countdown, error=error)
        return give_up(error.kind)


def _again(task: Task, retries: int, *, countdown: float, error: Exception) -> Any:
    if task.request.is_eager:  # in-process runs (tests) cannot be re-queued: wait here
        time.sleep(countdown)
        result = task.apply(args=tuple(task.request.args or ()), retries=retries, throw=True)
        return result.get(disable_sync_subtasks=False)
    raise task.retry(countdown=countdown, exc=error, max_retries=None)


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=None)
def verify_batch(self: Task, review_id: int, verification_ids: list[int]) -> Any:
    return _run_with_retries(
        self,
        lambda: verifications_run(review_id=review_id, verification_ids=verification_ids),
        lambda _kind: verifications_give_up(review_id=review_id, verification_ids=verification_ids),
    )


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=None)
def draft_review(self: Task, review_id: int) -> Any:
    return _run_with_retries(
        self,
        lambda: draft_run(review_id=review_id).status,
        lambda kind: draft_give_up(review_id=review_id, error=kind),
    )


@shared_task(
    autoretry_for=(OperationalError,), retry_backoff=True, retry_jitter=True, max_retries=3
)
def sweep_stalled_work() -> int:
    """Beat, every minute, and once at worker start: stalled work queued again or ended."""
    return stalled_work_sweep().total
