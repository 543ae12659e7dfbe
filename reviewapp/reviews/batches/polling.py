"""A batch at the service: sent once its round is complete, polled until it has ended, canceled
when asked. Polling is claimed with a conditional update of ``next_poll_at``, so two polls at
once act once; what an ended batch answered lands in ``batches.results``."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db.models import F, Q
from django.utils import timezone

from reviewapp.contracts.models import DocumentStatus, IntakeStatus
from reviewapp.llm import LLMUnavailable
from reviewapp.llm.batches import BatchStatus, batch_cancel, batch_create, batch_retrieve
from reviewapp.reviews.batches.building import batch_requests_build
from reviewapp.reviews.batches.models import (
    UNFINISHED_BATCH_STATUSES,
    ModelBatch,
    ModelBatchRound,
    ModelBatchStatus,
)
from reviewapp.reviews.batches.payloads import model_batch_publish
from reviewapp.reviews.batches.results import (
    model_batch_fail,
    model_batch_land,
    poll_failed,
    poll_interval,
)
from reviewapp.reviews.llm_calls import llm_settings

POLLED_STATUSES = (
    ModelBatchStatus.SUBMITTING,
    ModelBatchStatus.IN_PROGRESS,
    ModelBatchStatus.CANCELING,
    ModelBatchStatus.ENDED,
)


# ---------------------------------------------------------------- sending


def model_batch_submit(*, batch_id: int, force: bool = False) -> ModelBatch:
    """Send a collecting batch once its round is complete (``force``: now). Safe to run twice:
    the batch is claimed with a conditional update before anything is sent."""
    batch = ModelBatch.objects.select_related("intake_batch", "follows").get(pk=batch_id)
    if batch.status != ModelBatchStatus.COLLECTING:
        return batch
    if not (force or model_batch_ready(batch) or _collected_long_enough(batch)):
        return batch
    lease = timezone.now() + timedelta(seconds=settings.MODEL_BATCH_POLL_MAX_S)
    claimed = ModelBatch.objects.filter(pk=batch.pk, status=ModelBatchStatus.COLLECTING).update(
        status=ModelBatchStatus.SUBMITTING, next_poll_at=lease
    )
    if not claimed:
        return ModelBatch.objects.get(pk=batch.pk)
    batch.refresh_from_db()
    return _send(batch)


def model_batch_ready(batch: ModelBatch) -> bool:
    """Drafts: every document of the intake has been read and scanned. Verifications: the
    drafts batch they follow has landed."""
    if batch.round == ModelBatchRound.VERIFICATIONS:
        return batch.follows is None or batch.follows.status not in UNFINISHED_BATCH_STATUSES
    intake = batch.intake_batch
    if intake is None:
        return True
    if intake.status == IntakeStatus.RECEIVING:
        return False
    contracts = intake.contracts.all()
    reading = (DocumentStatus.QUEUED, DocumentStatus.INGESTING)
    return not (
        contracts.filter(status__in=reading).exists()
        or contracts.filter(status=DocumentStatus.INGESTED, review__isnull=True).exists()
    )


def _collected_long_enough(batch: ModelBatch) -> bool:
    age = timezone.now() - batch.created_at
    return age.total_seconds() >= settings.MODEL_BATCH_COLLECT_MAX_S


def _send(batch: ModelBatch) -> ModelBatch:
    requests = batch_requests_build(batch)
    if not requests:
        return model_batch_fail(batch=batch, error="", status=ModelBatchStatus.LANDED)
    try:
        status = batch_create(llm_settings(), requests)
    except LLMUnavailable as error:
        return poll_failed(batch, error)
    now = timezone.now()
    batch.anthropic_id = status.id
    batch.status = ModelBatchStatus.IN_PROGRESS
    batch.submitted_at = now
    batch.expires_at = status.expires_at
    batch.error = ""
    batch.poll_errors = 0
    batch.next_poll_at = now + timedelta(seconds=settings.MODEL_BATCH_POLL_S)
    _take_counts(batch, status)
    batch.save()
    model_batch_publish(batch)
    return batch


# ---------------------------------------------------------------- polling


def model_batches_due() -> list[int]:
    """Batches to look at now: sent ones whose next poll is due, and collecting ones that may
    be complete (the beat's work list)."""
    now = timezone.now()
    due = ModelBatch.objects.filter(status__in=POLLED_STATUSES).filter(
        Q(next_poll_at__isnull=True) | Q(next_poll_at__lte=now)
    )
    collecting = ModelBatch.objects.filter(status=ModelBatchStatus.COLLECTING)
    return list(due.values_list("pk", flat=True)) + list(collecting.values_list("pk", flat=True))


def model_batch_poll(*, batch_id: int) -> ModelBatch:
    """Look at a batch once: send it, read its status, or land its results. Two polls at once
    act once (the poll is claimed by moving ``next_poll_at``)."""
    batch = ModelBatch.objects.get(pk=batch_id)
    if batch.status == ModelBatchStatus.COLLECTING:
        return model_batch_submit(batch_id=batch_id)
    now = timezone.now()
    claimed = (
        ModelBatch.objects.filter(pk=batch_id, status__in=POLLED_STATUSES)
        .filter(Q(next_poll_at__isnull=True) | Q(next_poll_at__lte=now))
        .update(next_poll_at=now + poll_interval(batch.polls), polls=F("polls") + 1)
    )
    if not claimed:
        return batch
    batch.refresh_from_db()
    if batch.status == ModelBatchStatus.SUBMITTING:
        return _send(batch)
    if batch.status in (ModelBatchStatus.IN_PROGRESS, ModelBatchStatus.CANCELING):
        batch = _refresh(batch)
    if batch.status == ModelBatchStatus.ENDED:
        return model_batch_land(batch=batch)
    return batch


def _refresh(batch: ModelBatch) -> ModelBatch:
    try:
        status = batch_retrieve(llm_settings(), batch.anthropic_id)
    except LLMUnavailable as error:
        return poll_failed(batch, error)
    _take_counts(batch, status)
    batch.poll_errors = 0
    if status.ended:
        batch.status = ModelBatchStatus.ENDED
        batch.ended_at = status.ended_at or timezone.now()
    elif status.processing_status == "canceling":
        batch.status = ModelBatchStatus.CANCELING
    batch.save()
    model_batch_publish(batch)
    return batch


def _take_counts(batch: ModelBatch, status: BatchStatus) -> None:
    batch.processing_count = status.processing
    batch.succeeded_count = status.succeeded
    batch.errored_count = status.errored
    batch.canceled_count = status.canceled
    batch.expired_count = status.expired


def model_batch_cancel(*, batch_id: int) -> ModelBatch:
    """Ask the service to stop a sent batch; what it did not process ends canceled (a lawyer
    decides those checks). A batch not yet sent is sent no more: its requests end canceled."""
    batch = ModelBatch.objects.get(pk=batch_id)
    if batch.status == ModelBatchStatus.COLLECTING:
        claimed = ModelBatch.objects.filter(pk=batch.pk, status=ModelBatchStatus.COLLECTING).update(
            status=ModelBatchStatus.CANCELING
        )
        if claimed:
            batch.refresh_from_db()
            return model_batch_fail(batch=batch, error="canceled", result="canceled")
        batch.refresh_from_db()
    if batch.status != ModelBatchStatus.IN_PROGRESS:
        return batch
    try:
        status = batch_cancel(llm_settings(), batch.anthropic_id)
    except LLMUnavailable as error:
        batch.error = str(error)[:500]
        batch.save(update_fields=["error", "updated_at"])
        raise
    _take_counts(batch, status)
    batch.status = ModelBatchStatus.ENDED if status.ended else ModelBatchStatus.CANCELING
    batch.next_poll_at = timezone.now()
    batch.save()
    model_batch_publish(batch)
    return batch
