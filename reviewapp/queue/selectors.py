from __future__ import annotations

from typing import Any

from django.db.models import Case, IntegerField, QuerySet, Value, When
from django.utils import timezone

from reviewapp.accounts.models import Membership
from reviewapp.accounts.selectors import AnyUser
from reviewapp.contracts.models import Passage
from reviewapp.queue.models import ItemStatus, QueueComment, QueueItem
from reviewapp.queue.services import DECIDERS, SEVERITY_RANK
from reviewapp.reviews.models import RuleFiring, Verification
from reviewapp.rules.models import PlaybookVersion
from reviewapp.rules.services import playbook_compiled


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
        .select_related("passage__contract", "claimed_by", "matter", "review")
        # A contract's text can run to megabytes; the queue needs its name, not its text.
        .defer("passage__contract__text", "passage__contract__page_spans")
        .annotate(rank=rank)
        .order_by("rank", "due_at", "pk")
    )


def queue_item_for_user(*, user: AnyUser, item_id: int) -> QueueItem | None:
    """One open or claimed item, if the user decides in its matter (else None)."""
    return queue_items_for_user(user=user).filter(pk=item_id).first()


def queue_items_decided_by(*, user: AnyUser, limit: int = 20) -> QuerySet[QueueItem]:
    """The user's latest decisions, whose notes they may still change."""
    if not user.is_authenticated:
        return QueueItem.objects.none()
    matters = Membership.objects.filter(user=user, role__in=DECIDERS).values("matter")
    return (
        QueueItem.objects.filter(matter__in=matters, status=ItemStatus.DONE, decided_by=user)
        .select_related("passage__contract")
        .order_by("-decided_at", "-pk")[:limit]
    )


def queue_items_with_playbooks(items: list[QueueItem]) -> list[QueueItem]:
    """Load each playbook version once for a page of items (a version's source is large)."""
    ids = {item.review.playbook_version_id for item in items}
    versions = {v.pk: v for v in PlaybookVersion.objects.filter(pk__in=ids)}
    for item in items:
        item.review.playbook_version = versions[item.review.playbook_version_id]
    return items


def queue_item_context(item: QueueItem) -> dict[str, Any]:
    """What a lawyer needs to decide: neighbours, the rules and why they fired, the verifier,
    the comments and the item's history."""
    passage = item.passage
    neighbours = list(
        Passage.objects.filter(
            contract_id=passage.contract_id, index__in=[passage.index - 1, passage.index + 1]
        ).order_by("index")
    )
    firings = list(RuleFiring.objects.filter(passage=passage))
    on_heading = _heading_hits(item, passage, firings)
    comments = QueueComment.objects.filter(item=item).select_related("author")
    return {
        "item": item,
        "before": [n for n in neighbours if n.index < passage.index],
        "after": [n for n in neighbours if n.index > passage.index],
        "segments": passage_segments(
            passage,
            [
                _span_in_passage(f, passage)
                for f in firings
                if f.pk not in on_heading and f.score is None  # a router flag marks no words
            ],
        ),
        "firings": [_firing(firing, passage, firing.pk in on_heading) for firing in firings],
        "v": Verification.objects.filter(passage=passage).first(),
        "comments": comments.prefetch_related("mentions"),
        "history": item.history.select_related("actor"),
        "overdue": item.status != ItemStatus.DONE and item.due_at < timezone.now(),
    }


def _span_in_passage(firing: RuleFiring, passage: Passage) -> tuple[int, int]:
    """Offsets into ``passage.text`` (normalised): stored by the scan; older firings kept only
    contract offsets, which match the passage text where normalisation changed no length."""
    if firing.text_start is not None and firing.text_end is not None:
        return firing.text_start, firing.text_end
    return firing.match_start - passage.start, firing.match_end - passage.start


def passage_segments(passage: Passage, spans: list[tuple[int, int]]) -> list[dict[str, Any]]:
    """The passage's text cut into plain and matched pieces (spans are offsets into it)."""
    text = passage.text
    inside = sorted(
        (max(start, 0), min(end, len(text)))
        for start, end in spans
        if end > 0 and start < len(text)
    )
    segments: list[dict[str, Any]] = []
    cursor = 0
    for start, end in inside:
        if end <= cursor:
            continue
        start = max(start, cursor)
        if start > cursor:
            segments.append({"text": text[cursor:start], "hit": False})
        segments.append({"text": text[start:end], "hit": True})
        cursor = end
    if cursor < len(text):
        segments.append({"text": text[cursor:], "hit": False})
    return segments


def _heading_hits(item: QueueItem, passage: Passage, firings: list[RuleFiring]) -> set[int]:
    """Firings whose rule matched the heading in force: the engine records them as spanning
    the whole passage, but what the lawyer should see is the heading that matched."""
    whole = [f for f in firings if (f.match_start, f.match_end) == (passage.start, passage.end)]
    if not whole or not passage.heading:
        return set()
    compiled = playbook_compiled(item.review.playbook_version)
    return {
        f.pk
        for f in whole
        if f.rule_id in compiled.by_id and compiled.compiled_rule(f.rule_id).rule.scope != "passage"
    }


def _firing(firing: RuleFiring, passage: Passage, on_heading: bool) -> dict[str, Any]:
    # Matches lie inside their passage: cut them from it, not from the whole contract's text.
    start, end = _span_in_passage(firing, passage)
    text = passage.heading if on_heading else passage.text[max(start, 0) : max(end, 0)]
    return {
        "rule_id": firing.rule_id,
        "category": firing.category,
        "action": firing.action,
        "severity": firing.severity,
        "match": text[:200],
        "on_heading": on_heading,
        "router": _router_reason(firing),
    }


def _router_reason(firing: RuleFiring) -> dict[str, Any] | None:
    """Why the learned router fired: its score and the words that weighed most."""
    if firing.score is None:
        return None
    return {"score": firing.score, "percent": round(firing.score * 100), "words": firing.words}
