"""Queue items as the REST API gives them: the passage (id, index, text), the categories the
item asks about and those standing on the passage, the lawyer's answers, and every rule that
fired there with its scores (the router's and the second-stage check's). A page of items is
read in a fixed number of queries."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from reviewapp.queue.models import QueueItem
from reviewapp.reviews.lawyer_labels import categories_standing
from reviewapp.reviews.models import RuleFiring


def queue_item_payloads(items: Sequence[QueueItem]) -> list[dict[str, Any]]:
    passage_ids = [item.passage_id for item in items]
    firings: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for firing in RuleFiring.objects.filter(passage_id__in=passage_ids).order_by("pk"):
        firings[firing.passage_id].append(_firing(firing))
    standing = categories_standing(passage_ids=passage_ids)
    return [
        _payload(item, firings[item.passage_id], standing.get(item.passage_id, []))
        for item in items
    ]


def queue_item_payload(item: QueueItem) -> dict[str, Any]:
    return queue_item_payloads([item])[0]


def _payload(item: QueueItem, firings: list[dict[str, Any]], standing: list[str]) -> dict:
    passage = item.passage
    return {
        "id": item.pk,
        "url": f"/api/queue/{item.pk}/",
        "matter_id": item.matter_id,
        "contract_id": passage.contract_id,
        "passage_id": passage.pk,
        "index": passage.index,
        "text": passage.text,
        "passage_state": passage.state,
        "state": item.state,
        "status": item.status,
        "severity": item.severity,
        "category": item.category,
        "categories": item.asked,
        "categories_standing": standing,
        "decisions": dict(item.decisions),
        "decision": item.decision or None,
        "note": item.note,
        "reason": item.reason,
        "claimed_by": _name(item.claimed_by),
        "decided_by": _name(item.decided_by),
        "raised_by": _name(item.raised_by),
        "due_at": item.due_at,
        "decided_at": item.decided_at,
        "rules": firings,
    }


def _firing(firing: RuleFiring) -> dict[str, Any]:
    return {
        "rule_id": firing.rule_id,
        "category": firing.category,
        "action": firing.action,
        "severity": firing.severity,
        "router_score": firing.score,
        "check_score": firing.check_score,
        "check_threshold": firing.check_threshold,
        "dropped": firing.dropped,
    }


def _name(user: Any) -> str | None:
    return user.get_username() if user is not None else None
