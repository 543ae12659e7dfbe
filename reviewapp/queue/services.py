"""The lawyers' queue: open an item for every passage a lawyer must decide, claim, decide."""

from __future__ import annotations

from datetime import timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.core.mail import send_mail
from django.db import transaction
from django.utils import timezone

from reviewapp.accounts.models import Membership, Role
from reviewapp.contracts.models import Passage, PassageState
from reviewapp.queue.models import Decision, ItemStatus, QueueItem
from reviewapp.realtime.events import event_publish
from reviewapp.reviews.models import ActorKind, Review, RuleFiring

SEVERITY_RANK = {"critical": 0, "high": 1, "medium": 2, "low": 3}
DECIDERS = (Role.LAWYER, Role.ADMIN)


class QueueConflict(Exception):
    """The item is not in a state that allows this (claimed by someone else, already decided)."""


def queue_item_open(*, passage: Passage, review: Review, reason: str = "") -> QueueItem:
    """Called inside the transaction that moved the passage to NEEDS_HUMAN_REVIEW or REJECTED."""
    existing = QueueItem.objects.filter(passage=passage).exclude(status=ItemStatus.DONE).first()
    if existing is not None:
        return existing
    severities = RuleFiring.objects.filter(passage=passage).values_list("severity", flat=True)
    severity = min(severities, key=lambda s: SEVERITY_RANK.get(s, 9), default="medium")
    item = QueueItem.objects.create(
        passage=passage,
        review=review,
        matter_id=review.contract.matter_id,
        state=passage.state or "",
        severity=severity,
        reason=reason[:300],
        due_at=timezone.now() + timedelta(hours=settings.QUEUE_SLA_HOURS[severity]),
    )
    _publish(item, "queue.item.opened")
    return item


def queue_item_claim(*, item_id: int, user: Any) -> QueueItem:
    """Exactly one lawyer wins: a conditional update that must change exactly one row."""
    item = QueueItem.objects.select_related("passage").get(pk=item_id)
    _check_decider(user, item)
    changed = QueueItem.objects.filter(pk=item_id, status=ItemStatus.OPEN).update(
        status=ItemStatus.CLAIMED, claimed_by=user, claimed_at=timezone.now()
    )
    if changed != 1:
        raise QueueConflict("Someone else has already claimed this item.")
    item.refresh_from_db()
    with transaction.atomic():
        _publish(item, "queue.item.claimed")
    return item


def queue_item_decide(*, item_id: int, user: Any, decision: str, note: str = "") -> QueueItem:
    """Accept (CONFIRMED) or reject (REJECTED) the passage; overriding a rejection needs a note."""
    from reviewapp.reviews.services import passage_transition, review_refresh_status

    if decision not in Decision.values:
        raise QueueConflict("Choose accept or reject.")
    with transaction.atomic():
        item = QueueItem.objects.select_for_update().select_related("passage").get(pk=item_id)
        _check_decider(user, item)
        if item.status != ItemStatus.CLAIMED or item.claimed_by_id != user.pk:
            raise QueueConflict("Claim the item before deciding it.")
        target = PassageState.CONFIRMED if decision == Decision.ACCEPT else PassageState.REJECTED
        if item.passage.state != target:
            passage_transition(
                passage_id=item.passage_id,
                to_state=target,
                actor_kind=ActorKind.USER,
                actor=user.get_username(),
                reason=note,
            )
        item.status = ItemStatus.DONE
        item.decision = decision
        item.note = note
        item.decided_by = user
        item.decided_at = timezone.now()
        item.save()
        review_refresh_status(review=Review.objects.get(pk=item.review_id))
        _publish(item, "queue.item.decided")
    return item


def _check_decider(user: Any, item: QueueItem) -> None:
    allowed = Membership.objects.filter(
        user=user, matter_id=item.matter_id, role__in=DECIDERS
    ).exists()
    if not allowed:
        raise PermissionDenied("Only the matter's lawyers can claim and decide its items.")


def _publish(item: QueueItem, event_type: str) -> None:
    event_publish(
        matter_id=item.matter_id,
        type=event_type,
        payload={
            "item_id": item.pk,
            "contract_id": item.passage.contract_id,
            "passage": item.passage.index,
            "status": item.status,
            "severity": item.severity,
            "claimed_by": item.claimed_by.get_username() if item.claimed_by else None,
            "decision": item.decision or None,
            "due_at": item.due_at.isoformat(),
        },
    )


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
            _publish(item, "queue.item.escalated")
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
