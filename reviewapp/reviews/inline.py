"""Model work run in the calling process (`manage.py review`), with the tasks' retry policy
(reviewapp.retries)."""

from __future__ import annotations

from django.db import transaction

from reviewapp.retries import run_in_process
from reviewapp.reviews.drafting import draft_give_up, draft_run
from reviewapp.reviews.llm_calls import verification_batches
from reviewapp.reviews.model_work import verifications_run
from reviewapp.reviews.models import (
    Draft,
    DraftStatus,
    Review,
    Verification,
    VerificationStatus,
)
from reviewapp.reviews.verdicts import verifications_give_up


def review_model_work_run(*, review_id: int) -> None:
    """Draft the review and settle every queued verification, retries included."""
    run_in_process(
        lambda: draft_run(review_id=review_id),
        give_up=lambda error: draft_give_up(
            review_id=review_id, error=getattr(error, "kind", type(error).__name__)
        ),
    )
    queued = Verification.objects.filter(review_id=review_id, status=VerificationStatus.QUEUED)
    pairs = list(queued.order_by("passage__index").values_list("pk", "passage__index"))
    for batch in verification_batches(Review.objects.get(pk=review_id), pairs):
        _verify_batch(review_id, batch)


def _verify_batch(review_id: int, batch: list[int]) -> None:
    run_in_process(
        lambda: verifications_run(review_id=review_id, verification_ids=batch),
        give_up=lambda _error: verifications_give_up(review_id=review_id, verification_ids=batch),
    )


def review_use_engine(*, review_id: int, engine: str) -> Review:
    """The review's unfinished model work runs with ``engine`` from now on: a draft that is not
    complete is made again with it and queued verifications use it. Finished work keeps the
    engine that did it (each draft and verification records its own)."""
    with transaction.atomic():
        review = Review.objects.select_for_update().get(pk=review_id)
        if review.engine == engine:
            return review
        review.engine = engine
        review.save(update_fields=["engine", "updated_at"])
        Draft.objects.filter(review=review).exclude(status=DraftStatus.COMPLETE).update(
            engine=engine, status=DraftStatus.QUEUED, error="", text=""
        )
        Verification.objects.filter(review=review, status=VerificationStatus.QUEUED).update(
            engine=engine
        )
    return review
