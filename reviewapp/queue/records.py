"""What every change of a queue item leaves behind, written once: a line of the item's history
(with its audit event), the live event for open pages, and who may act on an item at all."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.utils.translation import gettext as _

from reviewapp.accounts.models import Membership, Role
from reviewapp.audit.models import AuditAction
from reviewapp.audit.recorders import audit_queue_event, audit_queue_events
from reviewapp.contracts.models import PassageState
from reviewapp.queue.models import Decision, HistoryAction, ItemStatus, QueueHistory, QueueItem
from reviewapp.realtime.events import NewEvent, events_publish

DECIDERS = (Role.LAWYER, Role.ADMIN)


class QueueConflict(Exception):
    """The item is not in a state that allows this (claimed by someone else, already decided)."""


def check_decider(user: Any, item: QueueItem) -> None:
    check_matter_decider(user, item.matter_id)


def check_matter_decider(user: Any, matter_id: int) -> None:
    allowed = Membership.objects.filter(user=user, matter_id=matter_id, role__in=DECIDERS).exists()
    if not allowed:
        raise PermissionDenied(_("Only the matter's lawyers can claim and decide its items."))


def queue_history_add(
    *,
    item: QueueItem,
    actor: Any,
    action: str,
    detail: str = "",
    data: dict[str, Any] | None = None,
) -> QueueHistory:
    """One line of the item's history, and the same as an audit event (``data``: references
    the event keeps beside the item's own)."""
    audited = _AUDITED[HistoryAction(action)]
    recorded = {**_audit_data(item, action), **(data or {})}
    audit_queue_event(item=item, user=actor, action=audited, data=recorded)
    return QueueHistory.objects.create(item=item, actor=actor, action=action, detail=detail[:500])


def queue_histories_add(*, items: list[QueueItem], action: str, details: list[str]) -> None:
    """``queue_history_add`` for several items of one matter by the system (a check batch
    opening its items): one insert of history lines, one append to the audit chain."""
    audit_queue_events(
        items=items,
        user=None,
        action=_AUDITED[HistoryAction(action)],
        data=[_audit_data(item, action) for item in items],
    )
    QueueHistory.objects.bulk_create(
        QueueHistory(item=item, actor=None, action=action, detail=detail[:500])
        for item, detail in zip(items, details, strict=True)
    )


_AUDITED = {
    HistoryAction.OPENED: AuditAction.QUEUE_OPENED,
    HistoryAction.CLAIMED: AuditAction.QUEUE_CLAIMED,
    HistoryAction.HANDED_OVER: AuditAction.QUEUE_HANDED_OVER,
    HistoryAction.MENTIONED: AuditAction.QUEUE_MENTIONED,
    HistoryAction.DECIDED: AuditAction.QUEUE_DECIDED,
    HistoryAction.NOTE_EDITED: AuditAction.QUEUE_NOTE_EDITED,
    HistoryAction.ESCALATED: AuditAction.QUEUE_ESCALATED,
    HistoryAction.UNDONE: AuditAction.QUEUE_UNDONE,
    HistoryAction.SEVERITY_SET: AuditAction.QUEUE_SEVERITY_SET,
    HistoryAction.ANSWERED: AuditAction.QUEUE_ANSWERED,
    HistoryAction.RELEASED: AuditAction.QUEUE_RELEASED,
    HistoryAction.FLAGGED: AuditAction.QUEUE_FLAGGED,
}


def is_override(item: QueueItem) -> bool:
    """Accepting a passage that a rule or a model had rejected (or calling it a false flag)."""
    return (
        item.decision in (Decision.ACCEPT, Decision.NOT_THIS)
        and item.state == PassageState.REJECTED
    )


def _audit_data(item: QueueItem, action: str) -> dict[str, Any]:
    data: dict[str, Any] = {"state": item.state, "severity": item.severity}
    if action in (HistoryAction.DECIDED, HistoryAction.NOTE_EDITED):
        data["decision"] = item.decision
        if is_override(item):
            data["override"] = True
            data["justification"] = item.note  # the lawyer's words, not the contract's
    if action == HistoryAction.UNDONE:
        data["undone_decision"] = item.decision  # recorded before the item is reopened
    if action in (HistoryAction.DECIDED, HistoryAction.ANSWERED):
        data["decisions"] = dict(item.decisions)
    if action in (
        HistoryAction.HANDED_OVER,
        HistoryAction.MENTIONED,
        HistoryAction.CLAIMED,
        HistoryAction.RELEASED,
    ):
        data["claimed_by"] = item.claimed_by.get_username() if item.claimed_by else None
    return data


def item_publish(item: QueueItem, event_type: str) -> None:
    """The live event of an item's change; pages fetch the item itself (lawyers only)."""
    items_publish([item], event_type)


def items_publish(items: list[QueueItem], event_type: str) -> None:
    """``item_publish`` of several items, stored in one insert."""
    events_publish([_item_event(item, event_type) for item in items])


def _item_event(item: QueueItem, event_type: str) -> NewEvent:
    return {
        "matter_id": item.matter_id,
        "type": event_type,
        "payload": {
            "item_id": item.pk,
            "contract_id": item.passage.contract_id,
            "passage": item.passage.index,
            "status": item.status,
            "severity": item.severity,
            "claimed_by": item.claimed_by.get_username() if item.claimed_by else None,
            "decision": item.decision or None,
            "note": item.note if item.status == ItemStatus.DONE else "",
            "due_at": item.due_at.isoformat(),
        },
    }
