"""Reads one review into the export model, in a fixed number of queries."""

from __future__ import annotations

from collections import defaultdict

from django.db.models import Count

from reviewapp.contracts.models import Passage
from reviewapp.queue.models import QueueItem
from reviewapp.reviews.exports.model import (
    DraftPart,
    Issue,
    LawyerPart,
    Match,
    PassagePart,
    ReviewExport,
    VerificationPart,
)
from reviewapp.reviews.models import Draft, ModelCall, Review, RuleFiring, Verification
from reviewapp.rules.services import playbook_compiled


def review_export_model(*, review: Review) -> ReviewExport:
    """Summary, key facts and issues of a review, with the engine behind each part.

    The caller has checked that the user may see the review.
    """
    review = Review.objects.select_related(
        "contract__matter__organisation", "playbook_version"
    ).get(pk=review.pk)
    contract = review.contract
    return ReviewExport(
        review_id=review.pk,
        status=review.status,
        engine=review.engine,
        playbook_version=review.playbook_version.label,
        created_at=review.created_at,
        contract_id=contract.pk,
        contract_name=contract.original_name,
        matter=contract.matter.name,
        organisation=contract.matter.organisation.name,
        language=contract.language,
        contract_type=contract.contract_type,
        pages=contract.page_count,
        state_counts=_state_counts(review),
        draft=_draft(review),
        issues=_issues(review),
    )


def _state_counts(review: Review) -> dict[str, int]:
    rows = (
        Passage.objects.filter(contract_id=review.contract_id)
        .values("state")
        .annotate(n=Count("pk"))
        .order_by()
    )
    return {row["state"] or "UNSCANNED": row["n"] for row in rows}


def _draft(review: Review) -> DraftPart | None:
    draft = Draft.objects.filter(review=review).first()
    if draft is None:
        return None
    models = ModelCall.objects.filter(review=review, purpose="draft").values_list(
        "model", flat=True
    )
    return DraftPart(
        engine=draft.engine,
        status=draft.status,
        models=tuple(sorted(set(models))),
        summary=str(draft.data.get("summary", "")),
        key_facts=dict(draft.data.get("key_facts", {})),
        issues=list(draft.data.get("issues", [])),
        flags=list(draft.flags),
        error=draft.error,
    )


def _issues(review: Review) -> list[Issue]:
    text = review.contract.text
    firings = (
        RuleFiring.objects.filter(review=review)
        .select_related("passage")
        .order_by("passage__index", "rule_id", "match_start")
    )
    grouped: dict[tuple[int, str], list[RuleFiring]] = defaultdict(list)
    for firing in firings:
        grouped[(firing.passage_id, firing.rule_id)].append(firing)
    verifications = {
        v.passage_id: _verification(v) for v in Verification.objects.filter(review=review)
    }
    lawyers = _lawyers(review)
    compiled = playbook_compiled(review.playbook_version)
    issues = []
    for (passage_id, rule_id), fired in grouped.items():
        first = fired[0]
        rule = compiled.rules[compiled.by_id[rule_id]].rule if rule_id in compiled.by_id else None
        issues.append(
            Issue(
                passage=_passage(first.passage),
                rule_id=rule_id,
                category=first.category,
                severity=first.severity,
                action=first.action,
                question=rule.question if rule else "",
                matches=tuple(
                    Match(f.match_start, f.match_end, text[f.match_start : f.match_end])
                    for f in fired
                ),
                verification=verifications.get(passage_id),
                lawyer=lawyers.get(passage_id),
            )
        )
    return issues


def _passage(passage: Passage) -> PassagePart:
    return PassagePart(
        pk=passage.pk,
        index=passage.index,
        number=passage.number,
        heading=passage.heading,
        page=passage.page,
        start=passage.start,
        end=passage.end,
        state=passage.state or "",
        text=passage.text,
    )


def _verification(verification: Verification) -> VerificationPart:
    return VerificationPart(
        status=verification.status,
        outcome=verification.outcome,
        engine=verification.engine,
        model=verification.model,
        risk=verification.risk,
        rationale=verification.rationale,
        quote=verification.quote,
        redline=verification.redline,
        question=verification.question,
        reason=verification.reason,
        completed_at=verification.completed_at,
    )


def _lawyers(review: Review) -> dict[int, LawyerPart]:
    """The latest queue item of each passage (later items replace earlier ones)."""
    items = (
        QueueItem.objects.filter(review=review)
        .select_related("decided_by", "claimed_by")
        .order_by("created_at", "pk")
    )
    return {
        item.passage_id: LawyerPart(
            status=item.status,
            decision=item.decision,
            note=item.note,
            decided_by=item.decided_by.get_username() if item.decided_by else "",
            decided_at=item.decided_at,
            claimed_by=item.claimed_by.get_username() if item.claimed_by else "",
        )
        for item in items
    }
