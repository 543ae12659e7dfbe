"""Requests join a batch: a review's draft when its contract is scanned, its checks when its
draft has landed, each with its cost estimated from the request's text. The same builders make
the requests again, byte for byte, when the batch is sent."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from reviewapp.contracts.models import IntakeBatch
from reviewapp.llm import VerifyItem, estimate_cost_usd
from reviewapp.llm.batches import (
    DRAFT_OUTPUT_TOKENS,
    VERDICT_OUTPUT_TOKENS,
    BatchRequest,
    draft_params,
    estimate_usage,
    verify_params,
)
from reviewapp.reviews.batches.models import (
    ModelBatch,
    ModelBatchRequest,
    ModelBatchRequestKind,
    ModelBatchRound,
    ModelBatchStatus,
)
from reviewapp.reviews.batches.payloads import model_batch_publish
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
from reviewapp.tasks_by_name import task_named


def review_batch_intake(review: Review) -> IntakeBatch | None:
    """The intake batch whose model work goes through Message Batches, if this review's does."""
    intake = review.contract.intake_batch
    if intake is None or not intake.use_model_batch or review.engine != Engine.ANTHROPIC:
        return None
    return intake


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
    transaction.on_commit(lambda: queue_submit(batch.pk))
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


def queue_submit(batch_id: int) -> None:
    """Queue the task that sends the batch once its round is complete."""
    task_named("reviewapp.reviews.batches.tasks.submit_model_batch").delay(batch_id)


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
