"""Overdue items: raise their priority once and tell the matter's admins (beat task)."""

from __future__ import annotations

from functools import partial

from django.core.mail import send_mail
from django.db import transaction
from django.utils import timezone

from reviewapp.accounts.models import Membership, Role
from reviewapp.queue.models import HistoryAction, ItemStatus, QueueItem
from reviewapp.queue.records import item_publish, queue_history_add

ESCALATED_SEVERITY = {"low": "medium", "medium": "high", "high": "critical", "critical": "critical"}


def queue_escalate_overdue() -> list[int]:
    """Overdue items: raise their priority once and tell the matter's admins by e-mail."""
    now = timezone.now()
    overdue = list(
        QueueItem.objects.filter(due_at__lt=now, escalated_at__isnull=True)
        .exclude(status=ItemStatus.DONE)
        .select_related("passage__contract")
    )
    for item in overdue:
        with transaction.atomic():
            changed = QueueItem.objects.filter(pk=item.pk, escalated_at__isnull=True).update(
                escalated_at=now, severity=ESCALATED_SEVERITY[item.severity]
            )
            if changed != 1:
                continue  # another beat run got there first
            item.refresh_from_db()
            queue_history_add(
                item=item, actor=None, action=HistoryAction.ESCALATED, detail=item.severity
            )
            item_publish(item, "queue.item.escalated")
            transaction.on_commit(partial(_mail_admins, item))
    return [item.pk for item in overdue]


def _mail_admins(item: QueueItem) -> None:
    admins = Membership.objects.filter(matter_id=item.matter_id, role=Role.ADMIN)
    recipients = [m.user.email for m in admins.select_related("user") if m.user.email]
    if recipients:
        send_mail(
            subject=f"Overdue: {item.passage.contract.original_name} #{item.passage.index}",
            message=(
                f"A {item.severity} queue item was due at {item.due_at:%Y-%m-%d %H:%M} UTC and "
                f"is still {item.get_status_display().lower()}."
            ),
            from_email=None,
            recipient_list=recipients,
        )
