"""Where a bulk upload stands: one overall count (n of N) and the failures with their reasons.

Below the upload services on purpose: contracts.services announces a document that finished
through ``intake_progress_publish``; this module imports no service.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db.models import Count, Q
from django.utils import timezone

from reviewapp.contracts.intake.codes import FailureCode
from reviewapp.contracts.models import (
    FAILED_STATUSES,
    WORKING_STATUSES,
    IntakeBatch,
    IntakeStatus,
)
from reviewapp.realtime.events import event_publish

LISTED_FAILURES = 200  # a page lists this many; the counts are always complete


@dataclass
class IntakeProgress:
    batch: IntakeBatch
    total: int
    done: int
    failed: int
    failures: list[dict[str, Any]] = field(default_factory=list)
    missing: list[dict[str, Any]] = field(default_factory=list)  # announced, never received
    stalled: bool = False  # the browser stopped sending: the upload did not finish

    @property
    def finished(self) -> bool:
        return self.batch.status != IntakeStatus.RECEIVING and self.done >= self.total

    @property
    def percent(self) -> int:
        return 100 if not self.total else round(100 * self.done / self.total)


def intake_progress(*, batch: IntakeBatch) -> IntakeProgress:
    """Counts in one aggregate query, failed documents in one more."""
    counts = batch.contracts.aggregate(
        received=Count("id"),
        working=Count("id", filter=Q(status__in=sorted(WORKING_STATUSES))),
        failed=Count("id", filter=Q(status__in=sorted(FAILED_STATUSES))),
    )
    refused = list(batch.failures)
    failures = refused + _failed_documents(batch)
    missing = list(batch.expected)
    received = counts["received"] + len(refused)
    total = max(batch.total, received + len(missing))
    done = counts["received"] - counts["working"] + len(refused)
    failed = counts["failed"] + sum(
        1 for item in refused if item.get("code") != FailureCode.DUPLICATE
    )
    return IntakeProgress(
        batch=batch,
        total=total,
        done=done,
        failed=failed,
        failures=failures[:LISTED_FAILURES],
        missing=missing[:LISTED_FAILURES],
        stalled=_stalled(batch, missing),
    )


def _failed_documents(batch: IntakeBatch) -> list[dict[str, Any]]:
    rows = (
        batch.contracts.filter(status__in=sorted(FAILED_STATUSES))
        .order_by("id")
        .values("id", "original_name", "folder_path", "status", "error_message")[:LISTED_FAILURES]
    )
    return [
        {
            "name": row["original_name"],
            "path": row["folder_path"],
            "code": row["status"],
            "message": row["error_message"],
            "contract_id": row["id"],
        }
        for row in rows
    ]


def _stalled(batch: IntakeBatch, missing: list[dict[str, Any]]) -> bool:
    if batch.status != IntakeStatus.RECEIVING or not (missing or batch.source == "zip"):
        return False
    quiet_for = timezone.now() - batch.updated_at
    return quiet_for > timedelta(seconds=settings.INTAKE_STALLED_AFTER_S)


def intake_payload(progress: IntakeProgress) -> dict[str, Any]:
    batch = progress.batch
    return {
        "batch_id": batch.pk,
        "status": batch.status,
        "total": progress.total,
        "done": progress.done,
        "failed": progress.failed,
        "finished": progress.finished,
    }


def intake_progress_publish(*, batch_id: int) -> None:
    """Announce the batch's counts to the matter's pages (they fetch the panel to show it)."""
    batch = IntakeBatch.objects.filter(pk=batch_id).first()
    if batch is not None:
        payload = intake_payload(intake_progress(batch=batch))
        event_publish(matter_id=batch.matter_id, type="intake.progress", payload=payload)
