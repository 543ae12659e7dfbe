"""What a lawyer needs to decide an item: its neighbours, the rules and why they fired, the
verifier, the comments and the item's history. Read for a whole page of items at once, in a
fixed number of queries however many items the page shows."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from functools import reduce
from operator import or_
from typing import Any

from django.db.models import Q, prefetch_related_objects
from django.utils import timezone

from reviewapp.contracts.models import Passage
from reviewapp.queue.models import ItemStatus, QueueComment, QueueHistory, QueueItem
from reviewapp.queue.questions import item_questions
from reviewapp.queue.severity import flagged_severity
from reviewapp.reviews.acting_for.clauses import clause_side
from reviewapp.reviews.acting_for.selectors import Sides, acting_sides_by_contract
from reviewapp.reviews.models import RuleFiring, Verification
from reviewapp.reviews.reasons import rationale_for_side
from reviewapp.rules.models import PlaybookVersion
from reviewapp.rules.services import playbook_compiled
from reviewapp.text.engine.model import ROUTER_CONTEXT_SUFFIX
from reviewapp.text.engine.side import speak_for

MODEL_DRAFT_RULE = "model.draft"


def queue_item_context(item: QueueItem) -> dict[str, Any]:
    """One item's context (the live fragment)."""
    return queue_items_context(queue_items_with_playbooks([item]))[0]


def queue_items_with_playbooks(items: list[QueueItem]) -> list[QueueItem]:
    """Load each playbook version once for a page of items (a version's source is large)."""
    ids = {item.review.playbook_version_id for item in items}
    versions = {v.pk: v for v in PlaybookVersion.objects.filter(pk__in=ids)}
    for item in items:
        item.review.playbook_version = versions[item.review.playbook_version_id]
    return items


def queue_items_context(items: list[QueueItem]) -> list[dict[str, Any]]:
    """The context of each item, in the items' order."""
    if not items:
        return []
    passage_ids = [item.passage_id for item in items]
    neighbours = _neighbours(items)
    firings: dict[int, list[RuleFiring]] = defaultdict(list)
    for firing in RuleFiring.objects.filter(passage_id__in=passage_ids):
        firings[firing.passage_id].append(firing)
    verifications: dict[int, Verification] = {}
    for verification in Verification.objects.filter(passage_id__in=passage_ids).order_by("-pk"):
        verifications[verification.passage_id] = verification  # the first, as .first() did
    comments: dict[int, list[QueueComment]] = defaultdict(list)
    for comment in (
        QueueComment.objects.filter(item__in=items)
        .select_related("author")
        .prefetch_related("mentions")
    ):
        comments[comment.item_id].append(comment)
    history: dict[int, list[QueueHistory]] = defaultdict(list)
    for line in QueueHistory.objects.filter(item__in=items).select_related("actor"):
        history[line.item_id].append(line)
    if any(f.rule_id == MODEL_DRAFT_RULE for fs in firings.values() for f in fs):
        prefetch_related_objects([item.review for item in items], "draft")
    now = timezone.now()
    sides = acting_sides_by_contract(item.passage.contract_id for item in items)
    contexts = [
        _context(
            item,
            neighbours,
            firings[item.passage_id],
            verifications.get(item.passage_id),
            comments[item.pk],
            history[item.pk],
            now,
        )
        for item in items
    ]
    for context in contexts:
        here = sides[context["item"].passage.contract_id]
        context.update(_side(context, firings[context["item"].passage_id], here))
        if here is not None:
            other = here.counterparty.term if here.counterparty else None
            for question in context["questions"]:
                question["question"] = speak_for(
                    question["question"], client=here.client.term, counterparty=other
                )
    return contexts


def _side(
    context: dict[str, Any], firings: list[RuleFiring], sides: Sides | None
) -> dict[str, Any]:
    """The item's words for the side we act for: whom the clause binds, the lower severity it
    opened with when it only protects the client (not once escalation raised it), and the
    rationale naming the parties (the template shows ``rationale``)."""
    item, verification = context["item"], context["v"]
    compiled = playbook_compiled(item.review.playbook_version)
    side = clause_side(
        sides=sides,
        passage_text=item.passage.text,
        categories=[question["category"] for question in context["questions"]],
        severity=flagged_severity(compiled, firings),
        playbook=compiled.playbook,
    )
    if side is not None and side.severity != item.severity:
        side = replace(side, severity="")
    return {
        "side": side,
        "rationale": rationale_for_side(verification, sides) if verification else "",
    }


def _neighbours(items: list[QueueItem]) -> dict[tuple[int, int], Passage]:
    wanted: dict[int, set[int]] = defaultdict(set)
    for item in items:
        wanted[item.passage.contract_id] |= {item.passage.index - 1, item.passage.index + 1}
    where = reduce(or_, (Q(contract_id=c, index__in=sorted(i)) for c, i in wanted.items()))
    rows = Passage.objects.filter(where).only("id", "contract_id", "index", "text")
    return {(p.contract_id, p.index): p for p in rows}


def _context(
    item: QueueItem,
    neighbours: dict[tuple[int, int], Passage],
    firings: list[RuleFiring],
    verification: Verification | None,
    comments: list[QueueComment],
    history: list[QueueHistory],
    now: Any,
) -> dict[str, Any]:
    passage = item.passage
    before = neighbours.get((passage.contract_id, passage.index - 1))
    after = neighbours.get((passage.contract_id, passage.index + 1))
    on_heading = _heading_hits(item, passage, firings)
    return {
        "item": item,
        "before": [before] if before else [],
        "after": [after] if after else [],
        "segments": passage_segments(
            passage,
            [
                _span_in_passage(f, passage)
                for f in firings
                if f.pk not in on_heading and f.score is None and not f.dropped  # router: no words
            ],
        ),
        "firings": [
            _firing(firing, passage, firing.pk in on_heading)
            for firing in firings
            if not firing.dropped and not firing.rule_id.endswith(ROUTER_CONTEXT_SUFFIX)
        ],
        "questions": _questions(item, firings),
        "dropped": sorted({f.category for f in firings if f.dropped}),
        "v": verification,
        "comments": comments,
        "history": history,
        "overdue": item.status != ItemStatus.DONE and item.due_at < now,
    }


def _questions(item: QueueItem, firings: list[RuleFiring]) -> list[dict[str, Any]]:
    """The item's questions, one per category it asks about (a category a lawyer flagged
    has no rule's question), each with the lawyer's answer so far."""
    asked = item.asked
    found = item_questions(playbook_compiled(item.review.playbook_version), firings)
    by_category = {question["category"]: question for question in found}
    questions = [
        by_category.get(category)
        or {"category": category, "question": "", "score": None, "rule_id": ""}
        for category in asked
    ] or found
    for question in questions:
        question["answer"] = item.decisions.get(question["category"], "")
    return questions


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
        "check_score": firing.check_score,
    }


def _router_reason(firing: RuleFiring) -> dict[str, Any] | None:
    """Why the learned router fired: its score and the words that weighed most."""
    if firing.score is None:
        return None
    return {"score": firing.score, "percent": round(firing.score * 100), "words": firing.words}
