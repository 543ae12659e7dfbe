"""A queue item's severity and due time: the most severe routing rule that fired, one step
lower for a clause that only protects our client where the playbook says ``lower``; the due time
is the item's opening plus that severity's SLA. When the party acted for is chosen or changed,
the open items of the contracts it touches are worked out again; an escalated item keeps the
severity the escalation raised it to."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction

from reviewapp.queue.models import HistoryAction, ItemStatus, QueueItem
from reviewapp.queue.questions import item_questions
from reviewapp.queue.records import item_publish, queue_history_add
from reviewapp.reviews.acting_for.clauses import severity_for_our_side
from reviewapp.reviews.acting_for.selectors import Sides, acting_sides_by_contract
from reviewapp.reviews.models import RuleFiring
from reviewapp.rules.services import playbook_compiled
from reviewapp.text.engine.model import severity_rank


def flagged_severity(compiled: Any, firings: Sequence[RuleFiring]) -> str:
    """The severity of the most severe routing rule still standing; a secondary rule's
    category does not make an item more urgent."""
    routing = [f.severity for f in firings if compiled.routes(f.rule_id) and not f.dropped]
    return min(routing, key=severity_rank, default="medium")


def item_severity(
    *, compiled: Any, firings: Sequence[RuleFiring], passage_text: str, sides: Sides | None
) -> str:
    """The severity an item on this passage has for the side we act for."""
    return severity_for_our_side(
        sides=sides,
        passage_text=passage_text,
        categories=[q["category"] for q in item_questions(compiled, firings)],
        severity=flagged_severity(compiled, firings),
        playbook=compiled.playbook,
    )


def due_at(opened_at: datetime, severity: str) -> datetime:
    """When an item of ``severity`` opened at ``opened_at`` is due (its SLA)."""
    return opened_at + timedelta(hours=settings.QUEUE_SLA_HOURS[severity])


def _opened_at(item: QueueItem) -> datetime:
    """The moment the item's due time counts from (its due time less its severity's SLA)."""
    return item.due_at - timedelta(hours=settings.QUEUE_SLA_HOURS[item.severity])


def queue_items_side_refresh(*, contract_ids: Sequence[int], actor: Any) -> list[int]:
    """Work out again the severity and due time of the undecided, unescalated items of these
    contracts for the party now acted for; each item that changes gets a history line (audited
    as ``queue.severity_set``) and a live event. Returns the ids of the items changed."""
    with transaction.atomic():
        items = list(
            QueueItem.objects.select_for_update(of=("self",))
            .filter(passage__contract_id__in=contract_ids, escalated_at__isnull=True)
            .exclude(status=ItemStatus.DONE)
            .select_related("passage", "review__playbook_version", "matter")
            .order_by("pk")
        )
        if not items:
            return []
        sides = acting_sides_by_contract(item.passage.contract_id for item in items)
        firings: dict[int, list[RuleFiring]] = {}
        for firing in RuleFiring.objects.filter(passage_id__in={i.passage_id for i in items}):
            firings.setdefault(firing.passage_id, []).append(firing)
        return [
            item.pk
            for item in items
            if _item_refresh(item, firings.get(item.passage_id, []), sides, actor)
        ]


def _item_refresh(
    item: QueueItem,
    firings: list[RuleFiring],
    sides: dict[int, Sides | None],
    actor: Any,
) -> bool:
    severity = item_severity(
        compiled=playbook_compiled(item.review.playbook_version),
        firings=firings,
        passage_text=item.passage.text,
        sides=sides.get(item.passage.contract_id),
    )
    if severity == item.severity:
        return False
    previous = item.severity
    item.severity, item.due_at = severity, due_at(_opened_at(item), severity)
    item.save(update_fields=["severity", "due_at"])
    queue_history_add(
        item=item,
        actor=actor,
        action=HistoryAction.SEVERITY_SET,
        detail=f"{previous} → {severity}",
        data={"previous_severity": previous, "due_at": item.due_at.isoformat()},
    )
    item_publish(item, "queue.item.severity_set")
    return True


def acting_for_changed_received(
    sender: Any, *, contract_ids: Sequence[int], set_by: Any, **kwargs: Any
) -> None:
    """The receiver of ``acting_for_changed`` (connected in ``apps.py``)."""
    queue_items_side_refresh(contract_ids=contract_ids, actor=set_by)
