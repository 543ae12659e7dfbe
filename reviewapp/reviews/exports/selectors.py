"""Reads one review into the export model, in a fixed number of queries."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from django.db.models import Count

from reviewapp.contracts.models import Passage
from reviewapp.reviews.drafting import summary_shown
from reviewapp.reviews.exports.model import (
    DraftPart,
    Issue,
    LawyerPart,
    Match,
    PassagePart,
    ReviewExport,
    VerificationPart,
)
from reviewapp.reviews.key_facts import facts_from_data
from reviewapp.reviews.model_work import (  # the engine's own verdict
    verification_offline_verdict as offline_verdict_of,
)
from reviewapp.reviews.models import Draft, Engine, ModelCall, Review, RuleFiring, Verification
from reviewapp.rules.services import playbook_compiled
from reviewapp.text.engine.compiler import CompiledPlaybook
from reviewapp.text.engine.model import SEVERITIES
from reviewapp.text.normalise import normalise


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
        summary_shown=summary_shown(draft.data),
        key_facts=facts_from_data(draft.data.get("key_facts", {})),
        issues=list(draft.data.get("issues", [])),
        flags=list(draft.flags),
        error=draft.error,
    )


def _issues(review: Review) -> list[Issue]:
    """One issue per passage and category a routing rule flagged, as the draft counts them:
    the rules of one category that fired on a passage (its `.terms`, `.heading` and `.context`
    rules) are one issue, not one each. A secondary rule of a category nothing routed only adds
    a question for the verifier: it is named on the passage (`context_rule_ids`), not an issue."""
    text = review.contract.text
    compiled = playbook_compiled(review.playbook_version)
    firings = (
        RuleFiring.objects.filter(review=review)
        .select_related("passage")
        .order_by("passage__index", "rule_id", "match_start")
    )
    grouped, context = _issue_groups(compiled, firings)
    lead_categories = _lead_categories(grouped)
    verifications = {v.passage_id: v for v in Verification.objects.filter(review=review)}
    lawyers = _lawyers(review)
    issues = []
    for (passage_id, category), fired in grouped.items():
        verification = verifications.get(passage_id)
        rule_ids = tuple(dict.fromkeys(f.rule_id for f in fired))
        lead = _lead_rule(compiled, rule_ids)
        rule = compiled.rules[compiled.by_id[lead]].rule if lead in compiled.by_id else None
        own = issue_rationale(
            compiled,
            verification=verification,
            passage=fired[0].passage,
            category=category,
            rule_ids=rule_ids,
            verified_category=lead_categories.get((passage_id, _verified_rule(verification))),
        )
        issues.append(
            Issue(
                passage=_passage(fired[0].passage, context.get(passage_id, ())),
                rule_id=lead,
                rule_ids=rule_ids,
                category=category,
                severity=max((f.severity for f in fired), key=_severity_rank),
                action=next(f.action for f in fired if f.rule_id == lead),
                question=rule.question if rule else "",
                matches=tuple(_match(f, text) for f in fired),
                verification=_verification(verification) if verification else None,
                lawyer=lawyers.get(passage_id),
                rationale=own,
            )
        )
    return issues


Groups = dict[tuple[int, str], list[RuleFiring]]


def _issue_groups(
    compiled: CompiledPlaybook, firings: Iterable[RuleFiring]
) -> tuple[Groups, dict[int, tuple[str, ...]]]:
    """Firings by (passage, category), and the secondary rules of categories nothing routed
    on each passage. A passage no routing rule flagged keeps all its categories as issues."""
    grouped: Groups = defaultdict(list)
    for firing in firings:
        grouped[(firing.passage_id, firing.category)].append(firing)
    routed = {
        key for key, fired in grouped.items() if any(compiled.routes(f.rule_id) for f in fired)
    }
    routed_passages = {passage_id for passage_id, _category in routed}
    context: dict[int, list[str]] = defaultdict(list)
    for key in [k for k in grouped if k not in routed and k[0] in routed_passages]:
        context[key[0]] += dict.fromkeys(f.rule_id for f in grouped.pop(key))
    return grouped, {passage_id: tuple(ids) for passage_id, ids in context.items()}


def _lead_rule(compiled: CompiledPlaybook, rule_ids: tuple[str, ...]) -> str:
    """The rule that routed the passage for this category (a secondary `.context` rule only
    adds a question to a passage another rule routed)."""
    return next((r for r in rule_ids if compiled.routes(r)), rule_ids[0])


def _lead_categories(grouped: Groups) -> dict[tuple[int, str], str]:
    """(passage, rule id) -> category, to know which category a verification answered."""
    return {(f.passage_id, f.rule_id): f.category for fired in grouped.values() for f in fired}


def _verified_rule(verification: Verification | None) -> str:
    return verification.rule_ids[0] if verification and verification.rule_ids else ""


def _severity_rank(severity: str) -> int:
    return SEVERITIES.index(severity) if severity in SEVERITIES else -1


def _match(firing: RuleFiring, text: str) -> Match:
    """The matched words as the passage shows them (normalised text), else as extracted."""
    passage = firing.passage
    if firing.text_start is not None and firing.text_end is not None:
        words = passage.text[firing.text_start : firing.text_end]
    else:
        words = normalise(text[firing.match_start : firing.match_end]).text
    return Match(firing.match_start, firing.match_end, words)


def _passage(passage: Passage, context_rule_ids: tuple[str, ...] = ()) -> PassagePart:
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
        context_rule_ids=context_rule_ids,
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
    """The latest queue item of each passage (later items replace earlier ones). Read through
    the review's reverse relation: the queue sits above reviews and is not imported here."""
    items = (
        review.queue_items.all()
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


def issue_rationale(
    compiled: CompiledPlaybook,
    *,
    verification: Verification | None,
    passage: Passage,
    category: str,
    rule_ids: tuple[str, ...],
    verified_category: str | None,
) -> str:
    """Why this category stands as it does on this passage.

    A passage is verified once, and the verifier's rationale answers the question of the rule
    that routed it, which may belong to another category. The offline engine's verdict is
    deterministic, so each category gets the verdict of its own rules; a model's rationale is
    kept for the category it answered, and the others say so and give their own question.
    """
    if verification is None or not verification.outcome:
        return ""
    if verification.model in ("rule", "system"):
        return verification.rationale  # the same reason holds for every category
    known = [rule_id for rule_id in rule_ids if rule_id in compiled.by_id]
    if verification.engine == Engine.OFFLINE and known:
        own = Verification(passage=passage, rule_ids=known)
        return offline_verdict_of(compiled, own).rationale
    if verified_category in (None, category):
        return verification.rationale
    question = compiled.compiled_rule(known[0]).rule.question if known else ""
    answered = f"Not verified on its own: the verifier answered the {verified_category} question."
    return f"{answered} {question}".strip()
