"""L1 drafts and L2 verifications: queued after the scan, run by the engine the review chose.

The hard rules of the state machine hold whatever an engine says: only PENDING passages are
verified, a model CONFIRMED/REJECTED needs a verbatim quote (checked in reviewapp.llm), a
contract with planted instructions gets no model CONFIRMED, and a model failure ends in
NEEDS_HUMAN_REVIEW, never CONFIRMED. Verdicts are settled in ``reviews.verdicts``; what a model
call is made of (chunks, prefixes, items, the recorded usage) is in ``reviews.llm_calls``; the
tasks are queued in ``reviews.dispatch``, or a bulk upload's work joins its Message Batches.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import transaction
from django.db.models import F
from django.db.models.functions import Greatest
from django.utils import timezone

from reviewapp.contracts.models import PassageState
from reviewapp.llm import LLMUnavailable, Verdict, verify_passages
from reviewapp.reviews.acting_for.selectors import acting_sides
from reviewapp.reviews.acting_for.settle import side_settled
from reviewapp.reviews.batches.building import model_batch_collect_draft
from reviewapp.reviews.dispatch import model_work_enqueue
from reviewapp.reviews.llm_calls import (
    llm_settings,
    model_call_record,
    review_prefix,
    verification_batches,
    verify_items,
)
from reviewapp.reviews.models import (
    ActorKind,
    Draft,
    DraftStatus,
    Engine,
    Review,
    RuleFiring,
    Verification,
    VerificationStatus,
)
from reviewapp.reviews.reasons import CATEGORY_NOT_PRESENT, NO_OFFLINE_VERDICT
from reviewapp.reviews.slots import model_call_slot
from reviewapp.reviews.transitions import Move, passages_transition
from reviewapp.reviews.verdicts import human_verdict, requires_human, verdicts_settle
from reviewapp.rules.services import playbook_compiled
from reviewapp.text.citations import rationale as citation_rationale
from reviewapp.text.engine import OfflineVerdict, offline_verdict
from reviewapp.text.engine.model import severity_rank

INJECTION_CATEGORY = "Prompt Injection"


def review_queue_model_work(*, review: Review, enqueue: bool = True) -> list[list[int]]:
    """Create the draft and one verification per PENDING passage; returns the batches.

    Runs inside the scan's transaction; the Celery tasks go out when it commits.
    """
    firings = list(RuleFiring.objects.filter(review=review).select_related("passage"))
    review.planted_spans = sorted(
        {(f.passage.start, f.passage.end) for f in firings if f.category == INJECTION_CATEGORY}
    )
    review.save(update_fields=["planted_spans", "engine"])
    draft = Draft.objects.create(review=review, engine=review.engine, status=DraftStatus.QUEUED)
    by_passage: dict[int, list[RuleFiring]] = {}
    for firing in firings:
        if firing.passage.state == PassageState.PENDING:
            by_passage.setdefault(firing.passage_id, []).append(firing)
    check_settle(review=review, by_passage=by_passage)
    by_passage = {
        passage_id: [f for f in fired if not f.dropped]
        for passage_id, fired in by_passage.items()
        if not all(f.dropped for f in fired)
    }
    verifications = Verification.objects.bulk_create(
        Verification(
            review=review,
            passage_id=passage_id,
            rule_ids=[f.rule_id for f in _by_severity(fired)],
            engine=review.engine,
        )
        for passage_id, fired in sorted(by_passage.items())
    )
    index_of = {f.passage_id: f.passage.index for f in firings}
    batches = verification_batches(review, [(v.pk, index_of[v.passage_id]) for v in verifications])
    if enqueue and model_batch_collect_draft(review=review, draft=draft):
        return batches  # sent as a Message Batch (reviews.batches)
    if enqueue:
        transaction.on_commit(
            lambda: model_work_enqueue(review_id=review.pk, batches=batches, draft=True)
        )
    return batches


def check_settle(*, review: Review, by_passage: dict[int, list[RuleFiring]]) -> None:
    """Settle the PENDING passages whose every flagged category the second-stage check dropped:
    CONFIRMED by the check (its version the actor), reason CATEGORY_NOT_PRESENT with the
    scores, a done verification to show it; a lawyer may reopen them (``flag_reopen``)."""
    settled = {pid: fired for pid, fired in by_passage.items() if all(f.dropped for f in fired)}
    if not settled:
        return
    actor = review.check_version or "check"
    rows = Verification.objects.bulk_create(
        Verification(
            review=review,
            passage_id=passage_id,
            rule_ids=[f.rule_id for f in _by_severity(fired)],
            engine=review.engine,
            status=VerificationStatus.DONE,
            outcome=PassageState.CONFIRMED,
            reason=CATEGORY_NOT_PRESENT,
            rationale=check_rationale(fired),
            model=actor,
            completed_at=timezone.now(),
        )
        for passage_id, fired in sorted(settled.items())
    )
    moves = [Move(row.passage_id, PassageState.CONFIRMED, row.rationale[:500]) for row in rows]
    passages_transition(moves=moves, actor_kind=ActorKind.ENGINE, actor=actor)


def check_rationale(fired: Sequence[RuleFiring]) -> str:
    """The check's scores as stored on the verification: "Exclusivity 0.03 < 0.12; ..."."""
    best: dict[str, RuleFiring] = {}
    for firing in fired:
        best.setdefault(firing.category, firing)
    parts = [
        f"{category} {firing.check_score or 0:.2f} < {firing.check_threshold or 0:.2f}"
        for category, firing in sorted(best.items())
    ]
    return f"{CATEGORY_NOT_PRESENT}: " + "; ".join(parts)


def _by_severity(firings: Sequence[RuleFiring]) -> list[RuleFiring]:
    return sorted(firings, key=lambda f: (severity_rank(f.severity), f.rule_id))


# ---------------------------------------------------------------- L2 verification


def verifications_run(*, review_id: int, verification_ids: Sequence[int]) -> int:
    """Verify a batch; safe to run twice (settled verifications are skipped). Returns the count.

    Raises LLMUnavailable (from the model engine) or SlotsBusy for the task to retry.
    """
    review = Review.objects.select_related("contract__matter", "playbook_version").get(pk=review_id)
    queued = list(
        Verification.objects.filter(
            pk__in=verification_ids, review=review, status=VerificationStatus.QUEUED
        ).select_related("passage")
    )
    if not queued:
        return 0
    compiled = playbook_compiled(review.playbook_version)
    needs_human = [v for v in queued if requires_human(compiled, v)]
    verdicts_settle(review, [(v, human_verdict(v)) for v in needs_human], actor="rule")
    rest = [v for v in queued if v not in needs_human]
    if rest and review.engine == Engine.OFFLINE:
        sides = acting_sides(review.contract)
        verdicts = [
            (v, side_settled(compiled, v, verification_offline_verdict(compiled, v), sides))
            for v in rest
        ]
        verdicts_settle(review, verdicts, actor="offline")
    elif rest:
        _verify_with_model(review, compiled, rest)
    return len(queued)


def verification_offline_verdict(compiled: Any, verification: Verification) -> Verdict:
    """reject_if of any firing rule rejects; confirm_if of every primary firing rule confirms.

    Secondary rules (``only_with``) only add questions to a passage a primary rule routed, so
    they never hold back a confirmation the routing rules agree on.
    """
    text = verification.passage.text
    rules = [compiled.compiled_rule(rule_id).rule for rule_id in verification.rule_ids]
    verdicts = [offline_verdict(compiled, rule_id, text) for rule_id in verification.rule_ids]
    primary = [v for v, r in zip(verdicts, rules, strict=True) if not r.only_with] or verdicts
    rule = next((r for r in rules if not r.only_with), rules[0])
    rejected = next((v for v in verdicts if v and v.state == PassageState.REJECTED), None)
    confirmed = all(v and v.state == PassageState.CONFIRMED for v in primary)
    settled = rejected or (verdicts[0] if confirmed else None)
    return Verdict(
        passage_index=verification.passage.index,
        outcome=settled.state if settled else PassageState.NEEDS_HUMAN_REVIEW,
        risk=rule.severity,
        rationale=rule.question if not settled else _settled_rationale(settled),
        quote=settled.quote if settled else "",
        redline=rule.fallback_clause or rule.fallback,  # the standard wording, where there is one
        question="",
        reason=None if settled else NO_OFFLINE_VERDICT,
    )


def _settled_rationale(verdict: OfflineVerdict) -> str:
    if verdict.findings:
        return citation_rationale(verdict.findings)
    return f"Matched the rule's {verdict.state.lower()} pattern: {verdict.quote!r}"


def _verify_with_model(review: Review, compiled: Any, batch: list[Verification]) -> None:
    items = verify_items(review, compiled, batch)
    config = llm_settings()
    # At least one: the sweeper's count of re-queues (reviews.sweeper) is kept, not reset.
    Verification.objects.filter(pk__in=[v.pk for v in batch]).update(
        attempts=Greatest(F("attempts"), 1)
    )
    with model_call_slot(review.contract.matter.organisation_id):
        try:
            prefix = review_prefix(review, items[0].passage_index)
            result = verify_passages(config, prefix=prefix, items=items)
        except LLMUnavailable as error:
            model_call_record(review=review, purpose="verify", usage=error.usage, config=config)
            raise
    model_call_record(review=review, purpose="verify", usage=result.usage, config=config)
    verdicts_settle(review, list(zip(batch, result.verdicts, strict=True)), actor=config.model)
