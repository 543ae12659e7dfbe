"""Re-run a whole matter: one Celery task per reviewed contract, with progress n of N.

Each contract is a `MatterRerunItem` that its task moves out of QUEUED with a conditional
update, so a task delivered twice counts once. Progress is an event (``rerun.progress``)
after every contract, read by the grid page.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import Count
from django.utils import timezone

from reviewapp.accounts.models import Matter
from reviewapp.audit.models import AuditAction
from reviewapp.audit.services import audit_record
from reviewapp.portfolio.models import MatterRerun, MatterRerunItem, RerunItemStatus
from reviewapp.portfolio.rerun import RerunRefused, contract_rerun
from reviewapp.realtime.events import event_publish
from reviewapp.reviews.models import Review
from reviewapp.tasks_by_name import task_named


@dataclass(frozen=True)
class RerunProgress:
    rerun_id: int
    total: int
    done: int
    current: int
    failed: int

    @property
    def finished(self) -> int:
        return self.done + self.current + self.failed

    @property
    def complete(self) -> bool:
        return self.finished >= self.total

    def as_dict(self) -> dict[str, int | bool]:
        return {
            "rerun_id": self.rerun_id,
            "total": self.total,
            "done": self.done,
            "current": self.current,
            "failed": self.failed,
            "finished": self.finished,
            "complete": self.complete,
        }


def matter_rerun_start(*, matter: Matter, user: Any) -> MatterRerun:
    """Queue a re-run of every reviewed contract of the matter (the caller checked the role)."""
    contract_ids = list(
        Review.objects.filter(contract__matter=matter)
        .order_by("contract_id")
        .values_list("contract_id", flat=True)
    )
    with transaction.atomic():
        rerun = MatterRerun.objects.create(matter=matter, requested_by=user)
        items = MatterRerunItem.objects.bulk_create(
            MatterRerunItem(rerun=rerun, contract_id=contract_id) for contract_id in contract_ids
        )
        audit_record(
            organisation_id=matter.organisation_id,
            action=AuditAction.MATTER_RERUN,
            actor_kind="user",
            actor=user.get_username(),
            target_type="matter",
            target_id=matter.pk,
            data={"rerun_id": rerun.pk, "contracts": len(items)},
        )
        _publish(matter.pk, rerun_progress(rerun_id=rerun.pk))
        item_ids = [item.pk for item in items]
        transaction.on_commit(lambda: _enqueue(item_ids))
    return rerun


def _enqueue(item_ids: list[int]) -> None:
    rerun = task_named("reviewapp.portfolio.tasks.rerun_matter_contract")
    for item_id in item_ids:
        rerun.delay(item_id)


def matter_rerun_item_run(*, item_id: int) -> str:
    """Re-run one contract of a matter re-run; safe to run twice. Returns the item's status."""
    item = MatterRerunItem.objects.select_related("rerun").get(pk=item_id)
    if item.status != RerunItemStatus.QUEUED:
        return item.status
    user = item.rerun.requested_by
    status, snapshot_id, error = RerunItemStatus.DONE, None, ""
    try:
        snapshot_id = contract_rerun(contract_id=item.contract_id, user=user).pk
    except RerunRefused as refused:
        status = RerunItemStatus.CURRENT if refused.code == "CURRENT" else RerunItemStatus.FAILED
        error = str(refused)[:300]
    moved = MatterRerunItem.objects.filter(pk=item.pk, status=RerunItemStatus.QUEUED).update(
        status=status, snapshot_id=snapshot_id, error=error, finished_at=timezone.now()
    )
    if moved == 1:
        _publish(item.rerun.matter_id, rerun_progress(rerun_id=item.rerun_id))
    return status


def matter_rerun_item_fail(*, item_id: int, error: str) -> None:
    """The task gave up on this contract: it counts as failed, with the reason."""
    item = MatterRerunItem.objects.select_related("rerun").get(pk=item_id)
    moved = MatterRerunItem.objects.filter(pk=item.pk, status=RerunItemStatus.QUEUED).update(
        status=RerunItemStatus.FAILED, error=error[:300], finished_at=timezone.now()
    )
    if moved == 1:
        _publish(item.rerun.matter_id, rerun_progress(rerun_id=item.rerun_id))


def rerun_progress(*, rerun_id: int) -> RerunProgress:
    counts = dict(
        MatterRerunItem.objects.filter(rerun_id=rerun_id)
        .values_list("status")
        .annotate(n=Count("id"))
        .order_by()
    )
    return RerunProgress(
        rerun_id=rerun_id,
        total=sum(counts.values()),
        done=counts.get(RerunItemStatus.DONE, 0),
        current=counts.get(RerunItemStatus.CURRENT, 0),
        failed=counts.get(RerunItemStatus.FAILED, 0),
    )


def matter_rerun_latest(*, matter_id: int) -> RerunProgress | None:
    rerun = MatterRerun.objects.filter(matter_id=matter_id).only("id").first()
    return rerun_progress(rerun_id=rerun.pk) if rerun else None


def _publish(matter_id: int, progress: RerunProgress) -> None:
    event_publish(matter_id=matter_id, type="rerun.progress", payload=progress.as_dict())
