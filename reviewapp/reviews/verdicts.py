"""Verdicts land on a review's checks, whoever gave them (a rule, the offline engine, the model
called interactively or in a Message Batch): one transaction stores them and moves their
passages, and the state machine's hard rules hold whatever the verdict says (planted
instructions and a flag the model raised itself never end CONFIRMED by the model). A check
that gets no verdict goes to a lawyer, never to CONFIRMED.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import transaction
from django.utils import timezone

from reviewapp.contracts.models import PassageState
from reviewapp.llm import Verdict
from reviewapp.realtime.events import event_publish
from reviewapp.reviews.model_flags import MODEL_RULE_ID
from reviewapp.reviews.models import ActorKind, Engine, Review, Verification, VerificationStatus
from reviewapp.reviews.reasons import (
    LLM_UNAVAILABLE,
    MODEL_RAISED,
    PLANTED_INSTRUCTIONS,
    RULE_REQUIRES_HUMAN,
    citation_findings,
    rationale_kind,
)
from reviewapp.reviews.transitions import Move, passages_transition


def requires_human(compiled: Any, verification: Verification) -> bool:
    """A routing rule with action ``human`` sends the passage to a lawyer. Secondary rules
    (``only_with``) only add questions: their action never decides where a passage goes."""
    return any(
        rule_id in compiled.by_id
        and compiled.routes(rule_id)
        and compiled.compiled_rule(rule_id).rule.action == "human"
        for rule_id in verification.rule_ids
    )


def _for_a_lawyer(verification: Verification, *, reason: str, risk: str, why: str) -> Verdict:
    return Verdict(
        passage_index=verification.passage.index,
        outcome=PassageState.NEEDS_HUMAN_REVIEW,
        risk=risk,
        rationale=why,
        quote="",
        redline="",
        question="",
        reason=reason,
    )


def human_verdict(verification: Verification) -> Verdict:
    why = "A rule that fired on this passage always needs a lawyer."
    return _for_a_lawyer(verification, reason=RULE_REQUIRES_HUMAN, risk="high", why=why)


def verifications_give_up(
    *,
    review_id: int,
    verification_ids: Sequence[int],
    reason: str = LLM_UNAVAILABLE,
    why: str = "The model could not be reached after every retry.",
) -> None:
    """After the last retry: the passages go to a lawyer, never to CONFIRMED."""
    review = Review.objects.get(pk=review_id)
    queued = Verification.objects.filter(
        pk__in=verification_ids, status=VerificationStatus.QUEUED
    ).select_related("passage")
    verdicts = [(v, _for_a_lawyer(v, reason=reason, risk="medium", why=why)) for v in queued]
    verdicts_settle(review, verdicts, actor="system")


_SETTLED_FIELDS = [
    "status", "outcome", "reason", "risk", "rationale", "quote", "redline", "question", "model",
    "completed_at",
]  # fmt: skip


def verdicts_settle(
    review: Review, settled: Sequence[tuple[Verification, Verdict]], *, actor: str
) -> None:
    """Store the verdicts of a batch and move their passages, in one transaction; a
    verification settled already (a task delivered twice) is skipped."""
    with transaction.atomic():
        rows = Verification.objects.select_for_update(of=("self",)).select_related("passage")
        locked = {row.pk: row for row in rows.filter(pk__in=[v.pk for v, _ in settled])}
        done: list[Verification] = []
        moves: list[Move] = []
        for verification, verdict in settled:
            row = locked.get(verification.pk)
            if row is None or row.status == VerificationStatus.DONE:
                continue
            outcome, reason = _outcome(review, row, verdict)
            row.status = VerificationStatus.DONE
            row.outcome = outcome
            row.reason = reason
            row.risk = verdict.risk
            row.rationale = verdict.rationale
            row.quote = verdict.quote
            row.redline = verdict.redline
            row.question = verdict.question
            row.model = actor
            row.completed_at = timezone.now()
            done.append(row)
            moves.append(Move(row.passage_id, outcome, reason or verdict.rationale[:500]))
        if not done:
            return
        Verification.objects.bulk_update(done, _SETTLED_FIELDS)
        passages_transition(moves=moves, actor_kind=_actor_kind(review, actor), actor=actor)
        for row in done:
            event_publish(
                matter_id=review.contract.matter_id,
                type="verification.done",
                payload=verification_payload(row),
            )


def _outcome(review: Review, verification: Verification, verdict: Verdict) -> tuple[str, str]:
    outcome, reason = verdict.outcome, verdict.reason or ""
    if review.planted_spans and outcome == PassageState.CONFIRMED:
        return PassageState.NEEDS_HUMAN_REVIEW, PLANTED_INSTRUCTIONS
    if outcome == PassageState.CONFIRMED and set(verification.rule_ids) == {MODEL_RULE_ID}:
        # Only the draft flagged it: the model that raised the flag cannot clear it too.
        return PassageState.NEEDS_HUMAN_REVIEW, MODEL_RAISED
    return outcome, reason


def _actor_kind(review: Review, actor: str) -> str:
    if actor in ("system", "rule"):
        return ActorKind.SYSTEM
    return ActorKind.ENGINE if review.engine == Engine.OFFLINE else ActorKind.MODEL


def verification_payload(verification: Verification) -> dict[str, Any]:
    kind = rationale_kind(
        model=verification.model,
        outcome=verification.outcome,
        reason=verification.reason,
        rationale=verification.rationale,
    )
    findings = citation_findings(verification) if kind == "citation" else []
    return {
        "id": verification.pk,
        "url": f"/api/verifications/{verification.pk}/",
        "contract_id": verification.passage.contract_id,
        "passage": verification.passage.index,
        "status": verification.status,
        "outcome": verification.outcome,
        "engine": verification.engine,
        "risk": verification.risk,
        "rationale": verification.rationale,
        "rationale_kind": kind,
        "quote": verification.quote,
        "redline": verification.redline,
        "question": verification.question,
        "reason": verification.reason or None,
        # The citation check's findings, for the page to say in its reader's language.
        "citations": [finding.as_dict() for finding in findings],
    }
