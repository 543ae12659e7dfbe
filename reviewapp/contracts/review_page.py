"""Reads for the contract review page: passages with their rules, verifications and decisions."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Max

from reviewapp.contracts.models import Contract, Passage, PassageState
from reviewapp.queue.models import QueueItem
from reviewapp.queue.services import SEVERITY_RANK
from reviewapp.realtime.models import Event
from reviewapp.reviews.models import Review, RuleFiring
from reviewapp.reviews.selectors import verifications_by_passage
from reviewapp.rules.services import playbook_compiled

PDF_KIND = "pdf"


@dataclass
class ReviewPage:
    """Everything the review page shows, read once."""

    passages: list[Passage]
    counts: dict[str, int]  # every state, zero included, in PassageState order
    categories: list[str]
    severities: list[str]
    viewer: dict[str, Any] = field(default_factory=dict)


def last_event_seq() -> int:
    """Read before the page's data, so an event racing the render is replayed, not lost."""
    return Event.objects.aggregate(seq=Max("id"))["seq"] or 0


def review_page_build(*, contract: Contract, review: Review | None) -> ReviewPage:
    passages = list(Passage.objects.filter(contract=contract).order_by("index"))
    firings = _firings_by_passage(review)
    verifications = verifications_by_passage(review=review) if review else {}
    queue_items = _queue_items_by_passage(review)
    routes = playbook_compiled(review.playbook_version).routes if review else (lambda _id: True)
    for passage in passages:
        rows = firings.get(passage.pk, [])
        routing = [row for row in rows if routes(row.rule_id)]
        categories = sorted({row.category for row in routing})
        passage.categories = categories  # type: ignore[attr-defined]
        # Categories that only secondary rules attached: questions the verifier also answered.
        related = sorted({row.category for row in rows} - set(categories))
        passage.related_categories = related  # type: ignore[attr-defined]
        passage.rule_ids = sorted({row.rule_id for row in rows})  # type: ignore[attr-defined]
        passage.router_flags = [  # type: ignore[attr-defined]
            {"category": row.category, "percent": round(row.score * 100), "words": row.words}
            for row in rows
            if row.score is not None
        ]
        passage.severity = _highest_severity(routing)  # type: ignore[attr-defined]
        passage.flagged = bool(rows)  # type: ignore[attr-defined]
        passage.verification_row = verifications.get(passage.pk)  # type: ignore[attr-defined]
        passage.queue_item = queue_items.get(passage.pk)  # type: ignore[attr-defined]
    return ReviewPage(
        passages=passages,
        counts=_counts(passages),
        categories=sorted(
            {c for p in passages for c in [*p.categories, *p.related_categories]}  # type: ignore[attr-defined]
        ),
        severities=sorted(
            {p.severity for p in passages if p.severity},  # type: ignore[attr-defined]
            key=lambda s: SEVERITY_RANK.get(s, 9),
        ),
        viewer=_viewer_data(contract, passages),
    )


def _firings_by_passage(review: Review | None) -> dict[int, list[RuleFiring]]:
    by_passage: dict[int, list[RuleFiring]] = defaultdict(list)
    if review is not None:
        for firing in RuleFiring.objects.filter(review=review).only(
            "passage_id", "rule_id", "category", "severity", "score", "words"
        ):
            by_passage[firing.passage_id].append(firing)
    return by_passage


def _queue_items_by_passage(review: Review | None) -> dict[int, QueueItem]:
    if review is None:
        return {}
    items = QueueItem.objects.filter(review=review).select_related("decided_by", "claimed_by")
    return {item.passage_id: item for item in items.order_by("pk")}  # the latest item wins


def _highest_severity(rows: list[RuleFiring]) -> str:
    severities = [row.severity for row in rows]
    return min(severities, key=lambda s: SEVERITY_RANK.get(s, 9), default="")


def _counts(passages: list[Passage]) -> dict[str, int]:
    counts = dict.fromkeys(PassageState.values, 0)
    for passage in passages:
        if passage.state:
            counts[passage.state] += 1
    return counts


def _viewer_data(contract: Contract, passages: list[Passage]) -> dict[str, Any]:
    """What the document viewer needs to place highlights: flagged passages and page offsets."""
    is_pdf = contract.kind == PDF_KIND
    flagged = [
        {
            "index": p.index,
            "page": p.page,
            "start": p.start,
            "end": p.end,
            "state": p.state,
            "text": p.text,
        }
        for p in passages
        if p.flagged  # type: ignore[attr-defined]
    ]
    data: dict[str, Any] = {
        "kind": contract.kind,
        "isPdf": is_pdf,
        "pageSpans": contract.page_spans,
        "flagged": flagged,
        # Every passage's character range, so the text view can scroll to any of them.
        "spans": [[p.index, p.start, p.end] for p in passages],
    }
    if not is_pdf:
        data["text"] = Contract.objects.values_list("text", flat=True).get(pk=contract.pk)
    return data
