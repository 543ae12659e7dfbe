"""Message Batches in the background: sent when their round is complete, polled by beat
(``poll-model-batches``), results landed as they end. Every task is safe to run twice."""

from __future__ import annotations

from celery import shared_task

from reviewapp.retries import INFRASTRUCTURE_RETRY
from reviewapp.reviews.batches.polling import (
    model_batch_poll,
    model_batch_submit,
    model_batches_due,
)


@shared_task(acks_late=True, **INFRASTRUCTURE_RETRY)
def submit_model_batch(batch_id: int) -> str:
    """Queued when a contract joins a batch: sends it if its round is now complete."""
    return model_batch_submit(batch_id=batch_id).status


@shared_task(acks_late=True, **INFRASTRUCTURE_RETRY)
def poll_model_batch(batch_id: int) -> str:
    return model_batch_poll(batch_id=batch_id).status


@shared_task(**INFRASTRUCTURE_RETRY)
def poll_model_batches() -> int:
    """Beat: every batch that is due is looked at once."""
    due = model_batches_due()
    for batch_id in due:
        poll_model_batch.delay(batch_id)
    return len(due)
