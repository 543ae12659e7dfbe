"""A bulk upload's model work through the Message Batches API: half the price, answers within
24 hours, instead of one interactive call per draft and per group of checks.

Two rounds, because the draft can flag passages (``model_flags``) whose checks must follow it:

1. **Drafts.** When a contract of an intake batch with ``use_model_batch`` (Claude engine) is
   scanned, its draft joins the intake's collecting drafts batch (one request per chunk, the
   same parameters as the streamed draft) instead of a Celery task; checks that a rule sends
   straight to a lawyer are settled at once. The batch is sent when every document of the
   intake has been read and scanned (or ``MODEL_BATCH_COLLECT_MAX_S`` after it was opened).
2. **Verifications.** As each draft lands (through the same validation and state changes as a
   streamed one), the review's queued checks, those of the rules and those the draft raised,
   join a verifications batch that follows the drafts batch, in the groups an interactive run
   makes; it is sent once the drafts batch has landed.

A review's work belongs to its batches while any of its requests has not landed: the sweeper
skips it and nothing queues it interactively. Polling (``model_batch_poll``) is claimed with a
conditional update, and landing a request is claimed per request, so running either twice
changes nothing. Results are landed in ``reviews.batches.results``.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from reviewapp.accounts.selectors import matter_list_for_user, user_can_access_matter
from reviewapp.contracts.models import DocumentStatus, IntakeBatch, IntakeStatus
from reviewapp.llm import LLMUnavailable, VerifyItem, estimate_cost_usd
from reviewapp.llm.batches import (
    DRAFT_OUTPUT_TOKENS,
    VERDICT_OUTPUT_TOKENS,
    BatchRequest,
    BatchStatus,
    batch_cancel,
    batch_create,
    batch_retrieve,
    draft_params,
    estimate_usage,
    verify_params,
)
from reviewapp.realtime.events import event_publish
from reviewapp.reviews.batches.models import (
    UNFINISHED_BATCH_STATUSES,
    ModelBatch,
    ModelBatchRequest,
    ModelBatchRequestKind,
    ModelBatchRound,
    ModelBatchStatus,
)
from reviewapp.reviews.drafting import draft_instructions
from reviewapp.reviews.llm_calls import (
    chunk_prefix,
    llm_prices,
    llm_settings,
    review_chunks,
    review_prefix,
    verification_batches,
    verify_items,
)
from reviewapp.reviews.models import Draft, Engine, Review, Verification, VerificationStatus
from reviewapp.reviews.verdicts import human_verdict, requires_human, verdicts_settle
from reviewapp.rules.services import playbook_compiled

POLLED_STATUSES = (
    ModelBatchStatus.SUBMITTING,
    ModelBatchStatus.IN_PROGRESS,
    ModelBatchStatus.CANCELING,
    ModelBatchStatus.ENDED,
)
# Past its expiry (24 h after creation) the service has ended a batch; one that still cannot
# be read this long after is given up, so no review waits forever.
GIVE_UP_AFTER_EXPIRY = timedelta(hours=2)


def review_batch_intake(review: Review) -> IntakeBatch | None:
    """The intake batch whose model work goes through Message Batches, if this review's does."""
    intake = review.contract.intake_batch
    if intake is None or not intake.use_model_batch or review.engine != Engine.ANTHROPIC:
        return None
    return intake


def review_batch_owned(*, review_id: int) -> bool:
    """Whether a Message Batch still owns the review's model work (nothing else may queue it)."""
    return ModelBatchRequest.objects.filter(review_id=review_id, landed_at__isnull=True).exists()


def batch_owned_reviews() -> Any:
    """The ids of every review whose model work a Message Batch owns (a subquery)."""
    return ModelBatchRequest.objects.filter(landed_at__isnull=True).values("review_id")


# ---------------------------------------------------------------- collecting


def model_batch_collect_draft(*, review: Review, draft: Draft) -> bool:
    """Put the review's draft into its intake's drafts batch instead of a task; False when the
    review's model work is interactive. Runs inside the scan's transaction."""
    intake = review_batch_intake(review)
    if intake is None:
        return False
    batch = _collecting(intake, ModelBatchRound.DRAFTS)
    lawyers_settle(review=review)
    config = llm_settings()
    instructions = draft_instructions(review)
    for number, chunk in enumerate(review_chunks(review)):
        params = draft_params(config, prefix=chunk_prefix(review, chunk), instructions=instructions)
        _add_request(
            batch,
            custom_id=f"draft-{draft.pk}-{number}",
            kind=ModelBatchRequestKind.DRAFT,
            review=review,
            draft=draft,
            chunk=number,
            estimate=_estimate(params, prefix_cached=False, output=DRAFT_OUTPUT_TOKENS),
        )
    transaction.on_commit(lambda: _queue_submit(batch.pk))
    return True


def model_batch_collect_checks(*, drafts_batch: ModelBatch, review: Review) -> int:
    """Put the review's queued checks that no batch holds yet into the verifications batch
    that follows ``drafts_batch``; returns how many requests were added."""
    lawyers_settle(review=review)
    held = {
        pk
        for ids in ModelBatchRequest.objects.filter(
            review=review, kind=ModelBatchRequestKind.VERIFY
        ).values_list("verification_ids", flat=True)
        for pk in ids
    }
    queued = Verification.objects.filter(review=review, status=VerificationStatus.QUEUED)
    pairs = [
        (pk, index)
        for pk, index in queued.order_by("passage__index").values_list("pk", "passage__index")
        if pk not in held
    ]
    if not pairs:
        return 0
    intake = drafts_batch.intake_batch
    batch = _collecting(intake, ModelBatchRound.VERIFICATIONS, follows=drafts_batch)
    config = llm_settings()
    compiled = playbook_compiled(review.playbook_version)
    seen_prefixes: set[str] = set()
    groups = verification_batches(review, pairs)
    for ids in groups:
        items = checks_items(review, compiled, ids)
        prefix = review_prefix(review, items[0].passage_index)
        params = verify_params(config, prefix=prefix, items=items)
        output = VERDICT_OUTPUT_TOKENS * len(items)
        _add_request(
            batch,
            custom_id=f"verify-{review.pk}-{ids[0]}",
            kind=ModelBatchRequestKind.VERIFY,
            review=review,
            verification_ids=ids,
            estimate=_estimate(params, prefix_cached=prefix in seen_prefixes, output=output),
        )
        seen_prefixes.add(prefix)
    return len(groups)


def lawyers_settle(*, review: Review) -> None:
    """Checks a rule with action ``human`` routed need no model: settled now, as the
    interactive run settles them before it calls the model."""
    compiled = playbook_compiled(review.playbook_version)
    queued = Verification.objects.filter(
        review=review, status=VerificationStatus.QUEUED
    ).select_related("passage")
    human = [(v, human_verdict(v)) for v in queued if requires_human(compiled, v)]
    verdicts_settle(review, human, actor="rule")


def checks_items(review: Review, compiled: Any, ids: list[int]) -> list[VerifyItem]:
    """The verifier's items for a group of checks, in the group's order (as sent)."""
    rows = Verification.objects.filter(pk__in=ids).select_related("passage")
    by_pk = {row.pk: row for row in rows}
    return verify_items(review, compiled, [by_pk[pk] for pk in ids if pk in by_pk])


def _collecting(
    intake: IntakeBatch | None, round: str, follows: ModelBatch | None = None
) -> ModelBatch:
    """The open batch of this intake and round, made when there is none (the intake row is
    locked, so two contracts scanned at once share one)."""
    if intake is not None:
        IntakeBatch.objects.select_for_update().filter(pk=intake.pk).first()
    found = ModelBatch.objects.filter(
        intake_batch=intake, round=round, follows=follows, status=ModelBatchStatus.COLLECTING
    ).first()
    if found is not None:
        return found
    matter_id = intake.matter_id if intake is not None else follows.matter_id  # type: ignore[union-attr]
    return ModelBatch.objects.create(
        matter_id=matter_id, intake_batch=intake, round=round, follows=follows
    )


def _add_request(batch: ModelBatch, *, estimate: Decimal, **fields: Any) -> ModelBatchRequest:
    request = ModelBatchRequest.objects.create(batch=batch, estimated_cost_usd=estimate, **fields)
    ModelBatch.objects.filter(pk=batch.pk).update(
        request_count=F("request_count") + 1,
        estimated_cost_usd=F("estimated_cost_usd") + estimate,
        updated_at=timezone.now(),
    )
    batch.refresh_from_db()
    model_batch_publish(batch)
    return request


def _estimate(params: dict[str, Any], *, prefix_cached: bool, output: int) -> Decimal:
    usage = estimate_usage(
        params, prefix_cached=prefix_cached, output_tokens=output, model=params["model"]
    )
    return Decimal(str(round(estimate_cost_usd(usage, llm_prices()), 6)))


def _queue_submit(batch_id: int) -> None:
    from reviewapp.reviews.batches.tasks import submit_model_batch

    submit_model_batch.delay(batch_id)


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
    from reviewapp.reviews.batches.results import model_batch_fail

    requests = batch_requests_build(batch)
    if not requests:
        return model_batch_fail(batch=batch, error="", status=ModelBatchStatus.LANDED)
    try:
        status = batch_create(llm_settings(), requests)
    except LLMUnavailable as error:
        return _poll_failed(batch, error)
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


def batch_requests_build(batch: ModelBatch) -> list[BatchRequest]:
    """Every request of the batch, built again from the rows (the same builders, so the same
    bytes as the estimate and as an interactive call)."""
    config = llm_settings()
    built: list[BatchRequest] = []
    rows = batch.requests.filter(landed_at__isnull=True).select_related(
        "review__contract__matter", "review__playbook_version"
    )
    for row in rows:
        review = row.review
        if row.kind == ModelBatchRequestKind.DRAFT:
            chunks = review_chunks(review)
            prefix = chunk_prefix(review, chunks[min(row.chunk, len(chunks) - 1)])
            params = draft_params(config, prefix=prefix, instructions=draft_instructions(review))
        else:
            items = checks_items(
                review, playbook_compiled(review.playbook_version), row.verification_ids
            )
            if not items:
                continue
            prefix = review_prefix(review, items[0].passage_index)
            params = verify_params(config, prefix=prefix, items=items)
        built.append(BatchRequest(custom_id=row.custom_id, params=params))
    return built


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
        .update(next_poll_at=now + _interval(batch.polls), polls=F("polls") + 1)
    )
    if not claimed:
        return batch
    batch.refresh_from_db()
    if batch.status == ModelBatchStatus.SUBMITTING:
        return _send(batch)
    if batch.status in (ModelBatchStatus.IN_PROGRESS, ModelBatchStatus.CANCELING):
        batch = _refresh(batch)
    if batch.status == ModelBatchStatus.ENDED:
        from reviewapp.reviews.batches.results import model_batch_land

        return model_batch_land(batch=batch)
    return batch


def _interval(polls: int) -> timedelta:
    """From MODEL_BATCH_POLL_S, doubling per poll up to MODEL_BATCH_POLL_MAX_S."""
    seconds = settings.MODEL_BATCH_POLL_S * (2 ** min(polls, 10))
    return timedelta(seconds=min(seconds, settings.MODEL_BATCH_POLL_MAX_S))


def _refresh(batch: ModelBatch) -> ModelBatch:
    try:
        status = batch_retrieve(llm_settings(), batch.anthropic_id)
    except LLMUnavailable as error:
        return _poll_failed(batch, error)
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


def _poll_failed(batch: ModelBatch, error: LLMUnavailable) -> ModelBatch:
    """A failed call keeps the batch for the next poll, unless asking again cannot help, or
    it failed MODEL_BATCH_MAX_ERRORS times in a row, or the batch is long past its expiry:
    then every request ends like a failed model call (a lawyer decides)."""
    from reviewapp.reviews.batches.results import model_batch_fail

    batch.poll_errors += 1
    batch.error = str(error)[:500]
    expired = batch.expires_at is not None and timezone.now() > (
        batch.expires_at + GIVE_UP_AFTER_EXPIRY
    )
    if not error.retryable or batch.poll_errors >= settings.MODEL_BATCH_MAX_ERRORS or expired:
        return model_batch_fail(batch=batch, error=batch.error)
    delay = max(error.retry_after_s or 0.0, _interval(batch.poll_errors).total_seconds())
    batch.next_poll_at = timezone.now() + timedelta(seconds=delay)
    batch.save(update_fields=["poll_errors", "error", "next_poll_at", "updated_at"])
    model_batch_publish(batch)
    return batch


def model_batch_cancel(*, batch_id: int) -> ModelBatch:
    """Ask the service to stop a sent batch; what it did not process ends canceled (a lawyer
    decides those checks). A batch not yet sent is sent no more: its requests end canceled."""
    from reviewapp.reviews.batches.results import model_batch_fail

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


# ---------------------------------------------------------------- what the page shows


def model_batch_payload(batch: ModelBatch) -> dict[str, Any]:
    actual = batch.actual_cost_usd
    return {
        "id": batch.pk,
        "url": f"/api/model-batches/{batch.pk}/",
        "matter_id": batch.matter_id,
        "intake_batch_id": batch.intake_batch_id,
        "round": batch.round,
        "status": batch.status,
        "anthropic_id": batch.anthropic_id or None,
        "requests": batch.request_count,
        "counts": {
            "processing": batch.processing_count,
            "succeeded": batch.succeeded_count,
            "errored": batch.errored_count,
            "canceled": batch.canceled_count,
            "expired": batch.expired_count,
        },
        "estimated_cost_usd": str(batch.estimated_cost_usd),
        "actual_cost_usd": None if actual is None else str(actual),
        "submitted_at": batch.submitted_at.isoformat() if batch.submitted_at else None,
        "ended_at": batch.ended_at.isoformat() if batch.ended_at else None,
        "landed_at": batch.landed_at.isoformat() if batch.landed_at else None,
        "error": batch.error or None,
    }


def model_batch_publish(batch: ModelBatch) -> None:
    event_publish(
        matter_id=batch.matter_id, type="model_batch.status", payload=model_batch_payload(batch)
    )


# ---------------------------------------------------------------- selectors


def model_batches_for_matter(*, user: Any, matter_id: int) -> list[ModelBatch]:
    """The matter's batches, newest first, for a member of the matter (else none)."""
    if not user_can_access_matter(user=user, matter_id=matter_id):
        return []
    return list(ModelBatch.objects.filter(matter_id=matter_id)[:50])


def model_batch_get_for_user(*, user: Any, batch_id: int) -> ModelBatch | None:
    return ModelBatch.objects.filter(
        pk=batch_id, matter__in=matter_list_for_user(user=user)
    ).first()


def model_batches_for_review(*, review: Review) -> list[ModelBatch]:
    """The batches that carried (or carry) this review's draft or checks."""
    ids = ModelBatchRequest.objects.filter(review=review).values("batch_id")
    return list(ModelBatch.objects.filter(pk__in=ids).order_by("created_at", "pk"))
