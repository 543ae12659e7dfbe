"""Which reviews a Message Batch owns, and which batches a user may see."""

from __future__ import annotations

from typing import Any

from reviewapp.accounts.selectors import matter_list_for_user, user_can_access_matter
from reviewapp.reviews.batches.models import ModelBatch, ModelBatchRequest
from reviewapp.reviews.models import Review


def review_batch_owned(*, review_id: int) -> bool:
    """Whether a Message Batch still owns the review's model work (nothing else may queue it)."""
    return ModelBatchRequest.objects.filter(review_id=review_id, landed_at__isnull=True).exists()


def batch_owned_reviews() -> Any:
    """The ids of every review whose model work a Message Batch owns (a subquery)."""
    return ModelBatchRequest.objects.filter(landed_at__isnull=True).values("review_id")


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
