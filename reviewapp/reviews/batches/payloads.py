"""A batch as the page and the API show it, and the live event that carries it."""

from __future__ import annotations

from typing import Any

from reviewapp.realtime.events import event_publish
from reviewapp.reviews.batches.models import ModelBatch


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
