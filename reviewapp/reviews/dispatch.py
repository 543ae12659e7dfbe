"""Model work goes to the workers: the draft and check tasks are queued by their registered
names (``reviewapp.tasks_by_name``), never for a review whose work a Message Batch owns until
the batch's results have landed (``reviews.batches``)."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction

from reviewapp.reviews.batches.selectors import review_batch_owned
from reviewapp.reviews.llm_calls import verification_batches
from reviewapp.reviews.models import Review, Verification
from reviewapp.tasks_by_name import task_named


def model_work_enqueue(*, review_id: int, batches: list[list[int]], draft: bool) -> None:
    """Queue the review's draft (``draft``) and one task per batch of checks, now."""
    if review_batch_owned(review_id=review_id):
        return  # a Message Batch holds this review's model work until its results land
    if draft:
        task_named("reviewapp.reviews.tasks.draft_review").delay(review_id)
    for batch in batches:
        task_named("reviewapp.reviews.tasks.verify_batch").delay(review_id, batch)


def verifications_enqueue(*, review: Review, queued: Sequence[tuple[int, int]]) -> None:
    """Queue the checks of passages flagged after the scan (by the draft) when it commits;
    ``queued`` holds (verification id, passage index) pairs."""
    batches = verification_batches(review, queued)
    if batches:
        transaction.on_commit(
            lambda: model_work_enqueue(review_id=review.pk, batches=batches, draft=False)
        )


def draft_requeue(*, review_id: int) -> None:
    """Queue a stalled draft again, now (the sweeper runs outside any transaction)."""
    model_work_enqueue(review_id=review_id, batches=[], draft=True)


def verifications_requeue(*, review: Review, verifications: Sequence[Verification]) -> None:
    """Queue stalled checks again, now, in the same batches a scan would make."""
    queued = [(v.pk, v.passage.index) for v in verifications]
    model_work_enqueue(
        review_id=review.pk, batches=verification_batches(review, queued), draft=False
    )
