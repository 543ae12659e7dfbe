"""Results of a Message Batch land like interactive answers.

A succeeded draft goes through the streamed draft's validation and completion (schema, passages
that exist, output rules, flags the draft raises); succeeded checks through the verdict schema,
the quote check and the state machine's rules (``reviews.verdicts``). Every answer is
recorded as a model call at the batch price. A request that expired, errored, was canceled or
whose answer is unusable ends like a failed model call, never CONFIRMED: its checks go to a
lawyer (NEEDS_HUMAN_REVIEW with a MODEL_BATCH_* reason), its draft is FAILED with that reason.

Each request is landed in its own transaction, claimed by its ``landed_at``; landing again
skips what has landed, so a poll that died half-way is simply run again.

A batch that cannot be sent or read is polled again later (``poll_failed``, backing off by
``poll_interval``) until asking again cannot help; then its requests end the same way.
"""

from __future__ import annotations

import time
from collections import defaultdict
from datetime import timedelta
from decimal import Decimal
from functools import partial

from django.conf import settings
from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from reviewapp.llm import CallUsage, LLMUnavailable
from reviewapp.llm.batches import (
    BatchOutcome,
    batch_results,
    draft_from_message,
    verify_from_message,
)
from reviewapp.llm.draft import DraftResult
from reviewapp.reviews.batches.building import (
    checks_items,
    model_batch_collect_checks,
    queue_submit,
)
from reviewapp.reviews.batches.models import (
    ModelBatch,
    ModelBatchRequest,
    ModelBatchRequestKind,
    ModelBatchRound,
    ModelBatchStatus,
)
from reviewapp.reviews.batches.payloads import model_batch_publish
from reviewapp.reviews.drafting import draft_finish, draft_give_up, merge_drafts
from reviewapp.reviews.llm_calls import chunk_prefix, llm_settings, model_call_record, review_chunks
from reviewapp.reviews.models import (
    Draft,
    DraftStatus,
    ModelCall,
    Review,
    Verification,
    VerificationStatus,
)
from reviewapp.reviews.reasons import (
    MODEL_BATCH_CANCELED,
    MODEL_BATCH_ERRORED,
    MODEL_BATCH_EXPIRED,
    MODEL_BATCH_FAILED,
)
from reviewapp.reviews.verdicts import verdicts_settle, verifications_give_up
from reviewapp.rules.services import playbook_compiled
from reviewapp.tasks_by_name import task_named

REASONS = {
    "expired": MODEL_BATCH_EXPIRED,
    "errored": MODEL_BATCH_ERRORED,
    "canceled": MODEL_BATCH_CANCELED,
    "failed": MODEL_BATCH_FAILED,
    "skipped": MODEL_BATCH_FAILED,
}
WHY = {
    MODEL_BATCH_EXPIRED: "The batch request expired before the model answered.",
    MODEL_BATCH_ERRORED: "The batch request failed, or its answer could not be used.",
    MODEL_BATCH_CANCELED: "The batch was canceled before the model answered.",
    MODEL_BATCH_FAILED: "The batch could not be sent or read.",
}

# Past its expiry (24 h after creation) the service has ended a batch; one that still cannot
# be read this long after is given up, so no review waits forever.
GIVE_UP_AFTER_EXPIRY = timedelta(hours=2)


def model_batch_land(*, batch: ModelBatch) -> ModelBatch:
    """Land every result of an ended batch. A failed read of the results is a poll error."""
    config = llm_settings()
    try:
        outcomes = {o.custom_id: o for o in batch_results(config, batch.anthropic_id)}
    except LLMUnavailable as error:
        return poll_failed(batch, error)
    budget = settings.CELERY_TASK_SOFT_TIME_LIMIT / 2
    return _land_all(
        batch, outcomes, missing="errored", error="no result for the request", budget_s=budget
    )


def model_batch_fail(
    *, batch: ModelBatch, error: str, status: str = ModelBatchStatus.FAILED, result: str = "failed"
) -> ModelBatch:
    """End a batch that cannot be sent or read: every request that has not landed ends like
    a failed model call (``result``: failed, canceled or skipped)."""
    return _land_all(batch, {}, missing=result, error=error, status=status)


def poll_interval(polls: int) -> timedelta:
    """From MODEL_BATCH_POLL_S, doubling per poll up to MODEL_BATCH_POLL_MAX_S."""
    seconds = settings.MODEL_BATCH_POLL_S * (2 ** min(polls, 10))
    return timedelta(seconds=min(seconds, settings.MODEL_BATCH_POLL_MAX_S))


def poll_failed(batch: ModelBatch, error: LLMUnavailable) -> ModelBatch:
    """A failed call keeps the batch for the next poll, unless asking again cannot help, or
    it failed MODEL_BATCH_MAX_ERRORS times in a row, or the batch is long past its expiry:
    then every request ends like a failed model call (a lawyer decides)."""
    batch.poll_errors += 1
    batch.error = str(error)[:500]
    expired = batch.expires_at is not None and timezone.now() > (
        batch.expires_at + GIVE_UP_AFTER_EXPIRY
    )
    if not error.retryable or batch.poll_errors >= settings.MODEL_BATCH_MAX_ERRORS or expired:
        return model_batch_fail(batch=batch, error=batch.error)
    delay = max(error.retry_after_s or 0.0, poll_interval(batch.poll_errors).total_seconds())
    batch.next_poll_at = timezone.now() + timedelta(seconds=delay)
    batch.save(update_fields=["poll_errors", "error", "next_poll_at", "updated_at"])
    model_batch_publish(batch)
    return batch


def _land_all(
    batch: ModelBatch,
    outcomes: dict[str, BatchOutcome],
    *,
    missing: str,
    error: str,
    status: str = ModelBatchStatus.LANDED,
    budget_s: float | None = None,
) -> ModelBatch:
    """Land what has not landed. With ``budget_s``, stop once that time is spent (at least one
    draft or group of checks lands per call) and queue the next poll to go on, so a large
    batch never runs into the task's time limit."""
    deadline = None if budget_s is None else time.monotonic() + budget_s
    rows = list(batch.requests.filter(landed_at__isnull=True).order_by("chunk", "pk"))
    absent = {row.custom_id: BatchOutcome(row.custom_id, missing, error=error) for row in rows}
    found = {**absent, **{k: v for k, v in outcomes.items() if k in absent}}
    drafts: dict[int, list[ModelBatchRequest]] = defaultdict(list)
    for row in rows:
        if row.kind == ModelBatchRequestKind.DRAFT:
            drafts[row.draft_id or 0].append(row)
    for group in drafts.values():
        _land_draft(batch, group, [found[row.custom_id] for row in group])
        if deadline is not None and time.monotonic() > deadline:
            return _go_on_later(batch)
    for row in rows:
        if row.kind == ModelBatchRequestKind.VERIFY:
            _land_checks(row, found[row.custom_id])
            if deadline is not None and time.monotonic() > deadline:
                return _go_on_later(batch)
    return _close(batch, status=status, error=error if status == ModelBatchStatus.FAILED else "")


def _go_on_later(batch: ModelBatch) -> ModelBatch:
    ModelBatch.objects.filter(pk=batch.pk).update(next_poll_at=timezone.now())
    poll = task_named("reviewapp.reviews.batches.tasks.poll_model_batch")
    transaction.on_commit(partial(poll.delay, batch.pk))
    return batch


def _claim(rows: list[ModelBatchRequest]) -> bool:
    """Lock the rows; False when another landing already took them."""
    locked = ModelBatchRequest.objects.select_for_update().filter(
        pk__in=[row.pk for row in rows], landed_at__isnull=True
    )
    return len(list(locked)) == len(rows)


def _land_draft(
    batch: ModelBatch, rows: list[ModelBatchRequest], outcomes: list[BatchOutcome]
) -> None:
    config = llm_settings()
    with transaction.atomic():
        if not _claim(rows):
            return
        review = Review.objects.select_related("contract__matter", "playbook_version").get(
            pk=rows[0].review_id
        )
        draft = Draft.objects.get(review=review)
        chunks = review_chunks(review)
        results: list[DraftResult] = []
        failure = ""
        for row, outcome in zip(rows, outcomes, strict=True):
            result = _draft_part(review, row, outcome, chunks)
            if result is None:
                failure = failure or REASONS.get(row.result, MODEL_BATCH_ERRORED)
            else:
                results.append(result)
        if draft.status != DraftStatus.COMPLETE:
            if failure:
                draft_give_up(review_id=review.pk, error=failure)
            else:
                draft_finish(
                    review,
                    draft,
                    text="\n\n".join(result.text for result in results),
                    data=merge_drafts([result.draft for result in results]),
                    model=config.model,
                    dropped=[issue for result in results for issue in result.dropped_issues],
                )
        model_batch_collect_checks(drafts_batch=batch, review=review)


def _draft_part(
    review: Review, row: ModelBatchRequest, outcome: BatchOutcome, chunks: list
) -> DraftResult | None:
    """One chunk's draft, or None (the row says why); its usage is recorded either way."""
    config = llm_settings()
    row.landed_at, row.result, row.error = timezone.now(), outcome.type, outcome.error[:300]
    result = None
    usage: CallUsage | None
    if outcome.type == "succeeded":
        prefix = chunk_prefix(review, chunks[min(row.chunk, len(chunks) - 1)])
        try:
            result = draft_from_message(config, outcome.message, prefix=prefix)
            usage = result.usage
        except LLMUnavailable as error:
            usage, row.result, row.error = error.usage, "errored", str(error)[:300]
        row.model_call = model_call_record(
            review=review, purpose="draft", usage=usage, config=config
        )
    row.save()
    return result


def _land_checks(row: ModelBatchRequest, outcome: BatchOutcome) -> None:
    config = llm_settings()
    with transaction.atomic():
        if not _claim([row]):
            return
        review = Review.objects.select_related("contract__matter", "playbook_version").get(
            pk=row.review_id
        )
        row.landed_at, row.result, row.error = timezone.now(), outcome.type, outcome.error[:300]
        items = checks_items(
            review, playbook_compiled(review.playbook_version), row.verification_ids
        )
        reason = REASONS.get(outcome.type, MODEL_BATCH_ERRORED)
        if outcome.type == "succeeded" and items:
            try:
                result = verify_from_message(config, outcome.message, items=items)
            except LLMUnavailable as error:
                row.result, row.error = "errored", str(error)[:300]
                row.model_call = model_call_record(
                    review=review, purpose="verify", usage=error.usage, config=config
                )
            else:
                row.model_call = model_call_record(
                    review=review, purpose="verify", usage=result.usage, config=config
                )
                verifications = _queued_in_order(row.verification_ids)
                by_index = {verdict.passage_index: verdict for verdict in result.verdicts}
                settled = [
                    (v, by_index[v.passage.index])
                    for v in verifications
                    if v.passage.index in by_index
                ]
                verdicts_settle(review, settled, actor=config.model)
                reason = ""
        if reason:
            verifications_give_up(
                review_id=review.pk,
                verification_ids=row.verification_ids,
                reason=reason,
                why=WHY[reason],
            )
        row.save()


def _queued_in_order(ids: list[int]) -> list:
    rows = Verification.objects.filter(pk__in=ids, status=VerificationStatus.QUEUED)
    by_pk = {row.pk: row for row in rows.select_related("passage")}
    return [by_pk[pk] for pk in ids if pk in by_pk]


def _close(batch: ModelBatch, *, status: str, error: str) -> ModelBatch:
    calls = ModelCall.objects.filter(
        pk__in=batch.requests.exclude(model_call=None).values("model_call_id")
    )
    total = calls.aggregate(total=Sum("cost_usd"))["total"] or Decimal(0)
    batch.status = status
    batch.actual_cost_usd = total
    batch.landed_at = timezone.now()
    batch.next_poll_at = None
    if error:
        batch.error = error[:500]
    batch.save()
    model_batch_publish(batch)
    if batch.round == ModelBatchRound.DRAFTS:
        for follower in batch.followers.filter(status=ModelBatchStatus.COLLECTING):
            transaction.on_commit(partial(queue_submit, follower.pk))
    return batch
