"""Flags the model adds: a passage that the L1 draft names as an issue, and that no rule
flagged, goes from CONFIRMED back to PENDING (actor: the model) and is verified like any other.

The model adds flags, it never clears one: an issue on a passage that a rule flagged, or that
was already checked or decided, changes nothing, and nothing here moves a passage anywhere but
CONFIRMED -> PENDING. An issue naming a passage that does not exist is dropped and noted.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from reviewapp.audit.recorders import audit_passage_transitions
from reviewapp.contracts.models import Passage, PassageState
from reviewapp.reviews.models import (
    ActorKind,
    PassageTransition,
    Review,
    RuleFiring,
    Verification,
)
from reviewapp.reviews.states import DRAFT_FLOW, check_transition
from reviewapp.reviews.transitions import passage_state_publish, review_refresh_status
from reviewapp.rules.services import playbook_compiled
from reviewapp.text.engine import SEVERITIES

logger = logging.getLogger(__name__)

MODEL_RULE_ID = "model.draft"  # the "rule" of a flag the draft raised
MODEL_CATEGORY = "Model-raised"  # when the issue's title is none of the playbook's categories
TITLE_CHARS = 200


@dataclass
class RaisedFlags:
    """What the draft changed: stored on the draft (``model_flags``, ``dropped_issues``)."""

    issues: list[dict[str, Any]] = field(default_factory=list)  # those naming a passage
    notes: list[dict[str, Any]] = field(default_factory=list)  # one per passage sent to PENDING
    dropped: list[dict[str, Any]] = field(default_factory=list)  # issues naming no passage
    queued: list[tuple[int, int]] = field(default_factory=list)  # (verification id, index)


def draft_flags_raise(
    *,
    review: Review,
    issues: Sequence[dict[str, Any]],
    dropped: Sequence[dict[str, Any]] = (),
    model: str,
) -> RaisedFlags:
    """Send every CONFIRMED passage that the draft names, and that no rule flagged, back to
    PENDING with a verification queued (the caller enqueues ``queued`` when it commits).

    Runs inside the transaction that completes the draft; ``dropped`` are issues the model
    engine already found naming passages outside the contract.
    """
    by_index = _most_severe_by_passage(issues)
    existing = set(
        Passage.objects.filter(contract_id=review.contract_id, index__in=by_index).values_list(
            "index", flat=True
        )
    )
    raised = RaisedFlags(
        issues=[issue for issue in issues if issue["passage"] in existing],
        dropped=[*dropped, *(issue for issue in issues if issue["passage"] not in existing)],
    )
    for issue in raised.dropped:
        logger.warning(
            "Draft of review %s names passage %r, which does not exist: issue dropped.",
            review.pk,
            issue.get("passage"),
        )
    candidates = _unflagged(review, [index for index in by_index if index in existing])
    if not candidates:
        return raised
    locked = Review.objects.select_for_update().get(pk=review.pk)
    categories = _known_categories(review)
    transitions = []
    for passage in candidates:
        issue = by_index[passage.index]
        note = _note(passage, issue, categories)
        transitions.append(_flag(locked, passage, note, model))
        verification = Verification.objects.create(
            review=locked, passage=passage, rule_ids=[MODEL_RULE_ID], engine=locked.engine
        )
        raised.notes.append(note)
        raised.queued.append((verification.pk, passage.index))
    audit_passage_transitions(transitions=transitions)
    review_refresh_status(review=locked)
    for passage in candidates:
        passage_state_publish(review=locked, passage=passage)
    return raised


def _most_severe_by_passage(issues: Iterable[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    by_index: dict[int, dict[str, Any]] = {}
    for issue in issues:
        index = issue["passage"]
        kept = by_index.get(index)
        if kept is None or _rank(issue) > _rank(kept):
            by_index[index] = issue
    return by_index


def _rank(issue: dict[str, Any]) -> int:
    risk = issue.get("risk")
    return SEVERITIES.index(risk) if risk in SEVERITIES else 0


def _unflagged(review: Review, indexes: list[int]) -> list[Passage]:
    """The named passages, locked, that are CONFIRMED and were never flagged or checked: no
    rule fired on them and no verification exists (a lawyer's or a verifier's CONFIRMED
    stays)."""
    if not indexes:
        return []
    return list(
        Passage.objects.select_for_update()
        .filter(contract_id=review.contract_id, index__in=indexes, state=PassageState.CONFIRMED)
        .exclude(pk__in=RuleFiring.objects.filter(review=review).values("passage_id"))
        .exclude(pk__in=Verification.objects.filter(review=review).values("passage_id"))
        .order_by("index")
    )


def _known_categories(review: Review) -> dict[str, str]:
    compiled = playbook_compiled(review.playbook_version)
    return {c.rule.category.casefold(): c.rule.category for c in compiled.rules}


def _note(passage: Passage, issue: dict[str, Any], categories: dict[str, str]) -> dict[str, Any]:
    title = " ".join(str(issue.get("title", "")).split())[:TITLE_CHARS]
    return {
        "passage": passage.index,
        "title": title,
        "risk": issue["risk"],
        "category": categories.get(title.casefold(), MODEL_CATEGORY),
        "recommendation": str(issue.get("recommendation", "")),
    }


def _flag(review: Review, passage: Passage, note: dict[str, Any], model: str) -> PassageTransition:
    reason = f"raised by the model's draft: {note['title']} (risk: {note['risk']})"
    check_transition(passage.state, PassageState.PENDING, ActorKind.MODEL, reason, flow=DRAFT_FLOW)
    transition = PassageTransition.objects.create(
        passage=passage,
        review=review,
        from_state=passage.state,
        to_state=PassageState.PENDING,
        actor_kind=ActorKind.MODEL,
        actor=model,
        reason=reason,
    )
    passage.state = PassageState.PENDING
    passage.save(update_fields=["state"])
    RuleFiring.objects.create(
        review=review,
        passage=passage,
        playbook_version=review.playbook_version,
        rule_id=MODEL_RULE_ID,
        category=note["category"],
        action="verify",
        severity=note["risk"],
        # No words matched: an empty span at the passage's start, so nothing is highlighted.
        match_start=passage.start,
        match_end=passage.start,
        passage_state=PassageState.PENDING,
        passage_chars=passage.end - passage.start,
        passage_first=True,
    )
    return transition


def model_flag_notes(review: Review) -> dict[int, dict[str, Any]]:
    """The draft's notes on the passages it flagged, by passage index."""
    data = Review.objects.filter(pk=review.pk).values_list("draft__data", flat=True).first()
    notes = (data or {}).get("model_flags", [])
    return {int(note["passage"]): note for note in notes}


def model_flag_question(note: dict[str, Any] | None) -> str:
    """The verifier's question for a passage only the draft flagged: the draft's own words."""
    if not note:
        return (
            "The firm's draft review named this passage as an issue; no trigger rule flagged "
            "it. Is the passage acceptable as written against the firm's standard positions?"
        )
    return (
        f"The firm's draft review named this passage as a {note['risk']}-risk issue: "
        f"{note['title']}. {note['recommendation']} No trigger rule flagged it. Is the passage "
        "acceptable as written against the firm's standard positions?"
    )
