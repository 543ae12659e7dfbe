"""L1 drafts and L2 verifications: queued after the scan, run by the engine the review chose.

The hard rules of the state machine hold whatever an engine says: only PENDING passages are
verified, a model CONFIRMED/REJECTED needs a verbatim quote (checked in reviewapp.llm), a
contract with planted instructions gets no model CONFIRMED, and a model failure ends in
NEEDS_HUMAN_REVIEW, never CONFIRMED.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.db.models.functions import Greatest
from django.utils import timezone

from reviewapp.contracts.models import Passage, PassageState
from reviewapp.llm import (
    DEFAULT_PRICES,
    CallUsage,
    LLMSettings,
    LLMUnavailable,
    Verdict,
    VerifyItem,
    contract_prefix,
    estimate_cost_usd,
    verify_passages,
)
from reviewapp.realtime.events import event_publish
from reviewapp.reviews.acting_for.selectors import acting_sides
from reviewapp.reviews.acting_for.settle import side_settled
from reviewapp.reviews.model_flags import (
    MODEL_CATEGORY,
    MODEL_RULE_ID,
    model_flag_notes,
    model_flag_question,
)
from reviewapp.reviews.models import (
    ActorKind,
    Draft,
    DraftStatus,
    Engine,
    ModelCall,
    Review,
    RuleFiring,
    Verification,
    VerificationStatus,
)
from reviewapp.reviews.reasons import (
    CATEGORY_NOT_PRESENT,
    LLM_UNAVAILABLE,
    MODEL_RAISED,
    NO_OFFLINE_VERDICT,
    PLANTED_INSTRUCTIONS,
    RULE_REQUIRES_HUMAN,
    citation_findings,
    rationale_kind,
)
from reviewapp.reviews.slots import model_call_slot
from reviewapp.reviews.transitions import Move, passages_transition
from reviewapp.rules.services import playbook_compiled
from reviewapp.text.citations import rationale as citation_rationale
from reviewapp.text.engine import OfflineVerdict, offline_verdict
from reviewapp.text.engine.model import severity_rank

INJECTION_CATEGORY = "Prompt Injection"


def llm_settings() -> LLMSettings:
    return LLMSettings(
        api_key=settings.ANTHROPIC_API_KEY,
        model=settings.ANTHROPIC_MODEL,
        base_url=settings.ANTHROPIC_BASE_URL,
        draft_temperature=settings.LLM_DRAFT_TEMPERATURE,
        verify_temperature=settings.LLM_VERIFY_TEMPERATURE,
        draft_max_tokens=settings.LLM_DRAFT_MAX_TOKENS,
        verify_max_tokens=settings.LLM_VERIFY_MAX_TOKENS,
        timeout_s=settings.LLM_TIMEOUT_S,
        connect_timeout_s=settings.LLM_CONNECT_TIMEOUT_S,
        max_retries=settings.LLM_SDK_RETRIES,
        first_token_timeout_s=settings.LLM_FIRST_TOKEN_TIMEOUT_S,
    )


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
    if enqueue and _batch_collects(review, draft):
        return batches  # sent as a Message Batch (reviews.batches)
    if enqueue:
        transaction.on_commit(lambda: _enqueue(review.pk, batches, draft=True))
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


def verifications_enqueue(*, review: Review, queued: Sequence[tuple[int, int]]) -> None:
    """Queue the checks of passages flagged after the scan (by the draft) when it commits;
    ``queued`` holds (verification id, passage index) pairs."""
    batches = verification_batches(review, queued)
    if batches:
        transaction.on_commit(lambda: _enqueue(review.pk, batches, draft=False))


def verification_batches(review: Review, queued: Sequence[tuple[int, int]]) -> list[list[int]]:
    """Batches of at most VERIFY_BATCH_SIZE that never cross a chunk (one prefix per call).

    ``queued`` holds (verification id, passage index) pairs.
    """
    chunk_of = {
        index: number
        for number, chunk in enumerate(review_chunks(review))
        for index, _text in chunk
    }
    by_chunk: dict[int, list[int]] = {}
    for verification_id, passage_index in queued:
        by_chunk.setdefault(chunk_of[passage_index], []).append(verification_id)
    size = settings.VERIFY_BATCH_SIZE
    return [
        ids[i : i + size] for _, ids in sorted(by_chunk.items()) for i in range(0, len(ids), size)
    ]


def _by_severity(firings: Sequence[RuleFiring]) -> list[RuleFiring]:
    return sorted(firings, key=lambda f: (severity_rank(f.severity), f.rule_id))


def draft_requeue(*, review_id: int) -> None:
    """Queue a stalled draft again, now (the sweeper runs outside any transaction)."""
    _enqueue(review_id, [], draft=True)


def verifications_requeue(*, review: Review, verifications: Sequence[Verification]) -> None:
    """Queue stalled checks again, now, in the same batches a scan would make."""
    queued = [(v.pk, v.passage.index) for v in verifications]
    _enqueue(review.pk, verification_batches(review, queued), draft=False)


def _batch_collects(review: Review, draft: Draft) -> bool:
    from reviewapp.reviews.batches.polling import model_batch_collect_draft

    return model_batch_collect_draft(review=review, draft=draft)


def _enqueue(review_id: int, batches: list[list[int]], *, draft: bool) -> None:
    from reviewapp.reviews.batches.polling import review_batch_owned
    from reviewapp.reviews.tasks import draft_review, verify_batch

    if review_batch_owned(review_id=review_id):
        return  # a Message Batch holds this review's model work until its results land
    if draft:
        draft_review.delay(review_id)
    for batch in batches:
        verify_batch.delay(review_id, batch)


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
    needs_human = [v for v in queued if _requires_human(compiled, v)]
    verdicts_settle(review, [(v, _human_verdict(v)) for v in needs_human], actor="rule")
    rest = [v for v in queued if v not in needs_human]
    if rest and review.engine == Engine.OFFLINE:
        sides = acting_sides(review.contract)
        verdicts = [(v, side_settled(compiled, v, _offline(compiled, v), sides)) for v in rest]
        verdicts_settle(review, verdicts, actor="offline")
    elif rest:
        _verify_with_model(review, compiled, rest)
    return len(queued)


def _requires_human(compiled: Any, verification: Verification) -> bool:
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


def _human_verdict(verification: Verification) -> Verdict:
    why = "A rule that fired on this passage always needs a lawyer."
    return _for_a_lawyer(verification, reason=RULE_REQUIRES_HUMAN, risk="high", why=why)


def _offline(compiled: Any, verification: Verification) -> Verdict:
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


def _verify_items(review: Review, compiled: Any, batch: list[Verification]) -> list[VerifyItem]:
    """The question of the most severe rule that fired; for a passage only the draft flagged,
    the draft's own title and recommendation."""
    by_model = any(v.rule_ids[0] == MODEL_RULE_ID for v in batch)
    notes = model_flag_notes(review) if by_model else {}
    items = []
    for v in batch:
        if v.rule_ids[0] == MODEL_RULE_ID:
            note = notes.get(v.passage.index)
            category = note["category"] if note else MODEL_CATEGORY
            question = model_flag_question(note)
        else:
            rule = compiled.compiled_rule(v.rule_ids[0]).rule
            category, question = rule.category, rule.question
        items.append(
            VerifyItem(
                passage_index=v.passage.index,
                text=v.passage.text,
                rule_id=v.rule_ids[0],
                category=category,
                question=question,
            )
        )
    return items


def _verify_with_model(review: Review, compiled: Any, batch: list[Verification]) -> None:
    items = _verify_items(review, compiled, batch)
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


# ---------------------------------------------------------------- shared by L1 and L2


Chunk = list[tuple[int, str]]


def review_chunks(review: Review) -> list[Chunk]:
    """The contract in consecutive runs of passages that each fit one model call.

    Most contracts are one chunk. Every call about a passage sends its chunk as the cached
    prefix, byte-identical from one call to the next.
    """
    passages = Passage.objects.filter(contract=review.contract).order_by("index")
    limit = settings.LLM_CONTEXT_CHARS
    chunks: list[Chunk] = [[]]
    size = 0
    for index, text in passages.values_list("index", "text"):
        if chunks[-1] and size + len(text) > limit:
            chunks.append([])
            size = 0
        chunks[-1].append((index, text))
        size += len(text) + 8  # the "[P<index>] " label
    return chunks


def chunk_prefix(review: Review, chunk: Chunk) -> str:
    spans = [(int(start), int(end)) for start, end in review.planted_spans]
    return contract_prefix(review.contract.text, chunk, spans)


def review_prefix(review: Review, passage_index: int = 0) -> str:
    """The cached prefix of the chunk holding ``passage_index``."""
    chunks = review_chunks(review)
    for chunk in chunks:
        if any(index == passage_index for index, _ in chunk):
            return chunk_prefix(review, chunk)
    return chunk_prefix(review, chunks[0])


def model_call_record(
    *, review: Review, purpose: str, usage: CallUsage | None, config: LLMSettings
) -> ModelCall | None:
    if usage is None:
        return None
    cost = estimate_cost_usd(usage, _prices())
    return ModelCall.objects.create(
        review=review,
        purpose=purpose,
        model=usage.model or config.model,
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cache_read_input_tokens=usage.cache_read_input_tokens,
        cache_creation_input_tokens=usage.cache_creation_input_tokens,
        latency_ms=usage.latency_ms,
        ttft_ms=usage.ttft_ms,
        outcome=usage.outcome[:40],
        cost_usd=Decimal(str(round(cost, 6))),
    )


def _prices() -> dict[str, dict[str, float]]:
    if settings.LLM_PRICES_JSON:
        return json.loads(settings.LLM_PRICES_JSON)
    return DEFAULT_PRICES
