from __future__ import annotations

from typing import Any

from django.db.models import Case, IntegerField, QuerySet, Value, When

from reviewapp.accounts.models import Membership
from reviewapp.accounts.selectors import AnyUser
from reviewapp.contracts.models import Passage
from reviewapp.queue.models import ItemStatus, QueueItem
from reviewapp.queue.services import DECIDERS, SEVERITY_RANK
from reviewapp.reviews.models import RuleFiring, Verification


def queue_items_for_user(*, user: AnyUser) -> QuerySet[QueueItem]:
    """Open and claimed items of the matters where the user decides, most urgent first."""
    if not user.is_authenticated:
        return QueueItem.objects.none()
    matters = Membership.objects.filter(user=user, role__in=DECIDERS).values("matter")
    rank = Case(
        *[When(severity=name, then=Value(value)) for name, value in SEVERITY_RANK.items()],
        default=Value(9),
        output_field=IntegerField(),
    )
    return (
        QueueItem.objects.filter(matter__in=matters)
        .exclude(status=ItemStatus.DONE)
        .select_related("passage__contract", "claimed_by", "matter")
        .annotate(rank=rank)
        .order_by("rank", "due_at", "pk")
    )


def queue_item_context(item: QueueItem) -> dict[str, Any]:
    """What a lawyer needs to decide: neighbours, the rules and why they fired, the verifier."""
    passage = item.passage
    neighbours = Passage.objects.filter(
        contract_id=passage.contract_id, index__in=[passage.index - 1, passage.index + 1]
    ).order_by("index")
    text = passage.contract.text
    firings = [
        {
            "rule_id": firing.rule_id,
            "category": firing.category,
            "action": firing.action,
            "severity": firing.severity,
            "match": text[firing.match_start : firing.match_end][:200],
        }
        for firing in RuleFiring.objects.filter(passage=passage)
    ]
    verification = Verification.objects.filter(passage=passage).first()
    return {"item": item, "neighbours": list(neighbours), "firings": firings, "v": verification}
