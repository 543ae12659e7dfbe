"""``{% model_batch_status matter=matter %}`` or ``review=review``: the Message Batches of a
matter, or those carrying one review's work, as a live-updating table."""

from __future__ import annotations

from typing import Any

from django import template

from reviewapp.reviews.batches.models import ModelBatch, ModelBatchRound, ModelBatchStatus
from reviewapp.reviews.batches.selectors import model_batches_for_review
from reviewapp.reviews.models import Engine

register = template.Library()


@register.inclusion_tag("reviews/_model_batch.html")
def model_batch_status(matter: Any = None, review: Any = None) -> dict[str, Any]:
    """The page has checked access to the matter or the review already. A contract page shows
    the table only for a contract of a bulk upload that uses Message Batches."""
    if review is not None and review.engine == Engine.OFFLINE:
        return {"show": False}  # the offline engine sends nothing to the model
    if review is not None:
        batches = model_batches_for_review(review=review)
        intake = review.contract.intake_batch
        if not batches and not (intake and intake.use_model_batch):
            return {"show": False}
        scope = {"intake": intake.pk if intake else "-", "matter": ""}
    elif matter is not None:
        batches = list(ModelBatch.objects.filter(matter=matter)[:20])
        scope = {"intake": "", "matter": matter.pk}
    else:
        batches, scope = [], {"intake": "", "matter": ""}
    return {
        "show": True,
        "batches": batches,
        "scope": scope,
        "status_labels": {value: str(label) for value, label in ModelBatchStatus.choices},
        "round_labels": {value: str(label) for value, label in ModelBatchRound.choices},
    }
