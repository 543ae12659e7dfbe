"""The trigger scan that fills a review's state register, and moves of passages after it.

Reviews sit below the queue (STYLE.md, "Apps depend in one direction"): this module never
imports it. A passage that needs a lawyer is announced through the hand-off that the queue
registers when Django starts (``review_handoff_register``), and a lawyer's decision is one
flow owned by the queue (``reviewapp.queue.decisions``) that calls ``passage_move`` and
``review_refresh_status`` here.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterable
from typing import Protocol

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction
from django.utils import timezone

from reviewapp.audit.recorders import audit_passage_transitions
from reviewapp.contracts.models import Contract, DocumentStatus, Passage, PassageState
from reviewapp.contracts.normalise import normalise
from reviewapp.realtime.events import event_publish
from reviewapp.reviews.models import (
    ActorKind,
    PassageTransition,
    Review,
    ReviewStatus,
    RuleFiring,
)
from reviewapp.reviews.snapshot import snapshot_refresh
from reviewapp.reviews.states import check_transition
from reviewapp.rules.detect import detect_contract_type, detect_language
from reviewapp.rules.engine import passage_states, scan
from reviewapp.rules.router.flags import merge_hits, router_hits
from reviewapp.rules.routers import router_for
from reviewapp.rules.services import playbook_compiled, playbook_version_for


class Handoff(Protocol):
    def __call__(self, *, passage: Passage, review: Review, reason: str) -> object: ...


_handoffs: list[Handoff] = []


def review_handoff_register(handoff: Handoff) -> None:
    """The app that gives lawyers their work (the queue) says how a passage reaches them."""
    if handoff not in _handoffs:
        _handoffs.append(handoff)


def _hand_to_lawyers(passage: Passage, review: Review, reason: str) -> None:
    if not _handoffs:
        raise ImproperlyConfigured(
            "No app takes passages that need a lawyer: is reviewapp.queue installed?"
        )
    for handoff in _handoffs:
        handoff(passage=passage, review=review, reason=reason)


# The queue's "decided" status, read through the passage's reverse relation (no import).
DECIDED_ITEM = "DONE"


def review_status_of(*, states: Iterable[str | None], undecided_rejection: bool) -> str:
    """The one rule for a review's status: BLOCKED while a rejected passage waits for a
    lawyer, IN_REVIEW while anything is pending or needs a lawyer, else COMPLETE."""
    if undecided_rejection:
        return ReviewStatus.BLOCKED
    if set(states) & {PassageState.PENDING, PassageState.NEEDS_HUMAN_REVIEW}:
        return ReviewStatus.IN_REVIEW
    return ReviewStatus.COMPLETE


def review_scan(
    *, contract_id: int, engine: str | None = None, enqueue: bool = True
) -> Review | None:
    """Run the trigger rules over an ingested contract, once.

    Every passage leaves CONFIRMED (no rule fired), PENDING (a verify or human rule fired) or
    REJECTED (a reject rule fired); any REJECTED passage blocks the review.
    """
    contract = Contract.objects.select_related("matter").get(pk=contract_id)
    if contract.status != DocumentStatus.INGESTED:
        return None
    existing = Review.objects.filter(contract=contract).first()
    if existing is not None:
        return existing
    # Imported here (model work imports this module), and before the transaction below: the
    # first import loads the anthropic SDK, seconds that must not be spent holding row locks.
    from reviewapp.reviews.model_work import review_queue_model_work

    started = time.perf_counter()
    language = detect_language(contract.text)
    contract_type = detect_contract_type(contract.text)
    version = playbook_version_for(
        organisation_id=contract.matter.organisation_id, language=language
    )
    compiled = playbook_compiled(version)
    passages = list(contract.passages.order_by("index"))
    hits = scan(compiled, contract.text, passages, contract_type=contract_type)
    router, router_label = None, ""
    if compiled.playbook.router.enabled:
        organisation_id = contract.matter.organisation_id
        router, router_label = router_for(organisation_id=organisation_id, language=language)
        hits = merge_hits(
            compiled, hits, router_hits(compiled, router, contract.text, passages, hits)
        )
    states = passage_states(passages, hits)
    scan_ms = round((time.perf_counter() - started) * 1000, 1)
    with transaction.atomic():
        Contract.objects.select_for_update().get(pk=contract.pk)
        if Review.objects.filter(contract=contract).exists():
            return Review.objects.get(contract=contract)
        # At the scan no lawyer has decided anything yet: every rejection is undecided.
        status = review_status_of(
            states=states, undecided_rejection=PassageState.REJECTED in states
        )
        review = Review.objects.create(
            contract=contract,
            playbook_version=version,
            status=status,
            completed_at=timezone.now() if status == ReviewStatus.COMPLETE else None,
            passage_count=len(passages),
            char_count=sum(passage.end - passage.start for passage in passages),
            scan_ms=scan_ms,
            engine=engine or settings.REVIEW_ENGINE,
            router_version=router_label,
        )
        _record_scan(review, passages, hits, states)
        for passage in passages:
            if passage.state == PassageState.REJECTED:
                _hand_to_lawyers(passage, review, "A hard rule rejected this passage.")
        # Before the model work: a draft made inline speaks the contract's language and type.
        contract.language, contract.contract_type = language, contract_type
        Contract.objects.filter(pk=contract.pk).update(
            language=language, contract_type=contract_type
        )
        review_queue_model_work(review=review, enqueue=enqueue)  # drafts and verifications
        event_publish(
            matter_id=contract.matter_id,
            type="review.scanned",
            payload={"contract_id": contract.pk, "review_id": review.pk, "status": review.status},
        )
    snapshot_refresh(review)
    return review


def review_refresh_status(*, review: Review) -> Review:
    """Store the review's status (``review_status_of``) and publish ``review.status`` once,
    only when it changed. A rejected passage counts as decided when it has a decided queue
    item and no open one."""
    passages = Passage.objects.filter(contract_id=review.contract_id)
    rejected = passages.filter(state=PassageState.REJECTED)
    undecided_rejection = (
        rejected.exclude(queue_items__status=DECIDED_ITEM).exists()
        or rejected.filter(queue_items__isnull=False)
        .exclude(queue_items__status=DECIDED_ITEM)
        .exists()
    )
    status = review_status_of(
        states=passages.values_list("state", flat=True).distinct(),
        undecided_rejection=undecided_rejection,
    )
    if status != review.status:
        review.status = status
        review.completed_at = timezone.now() if status == ReviewStatus.COMPLETE else None
        review.save(update_fields=["status", "completed_at", "updated_at"])
        transaction.on_commit(lambda: snapshot_refresh(review))
        event_publish(
            matter_id=review.contract.matter_id,
            type="review.status",
            payload={"contract_id": review.contract_id, "review_id": review.pk, "status": status},
        )
    return review


def _record_scan(review: Review, passages: list[Passage], hits, states: list[str]) -> None:
    normalised = normalise(review.contract.text)

    def within(passage: Passage, offset: int) -> int:
        """A contract offset as an offset into the passage's normalised text."""
        relative = normalised.from_source(offset) - normalised.from_source(passage.start)
        return min(max(relative, 0), len(passage.text))

    by_passage: dict[int, list] = defaultdict(list)
    for hit in hits:
        by_passage[hit.segment_index].append(hit)
    version = review.playbook_version
    RuleFiring.objects.bulk_create(
        RuleFiring(
            review=review,
            passage=passages[hit.segment_index],
            playbook_version=version,
            rule_id=hit.rule_id,
            category=hit.category,
            action=hit.action,
            severity=hit.severity,
            match_start=hit.match_start,
            match_end=hit.match_end,
            passage_state=states[hit.segment_index],
            passage_chars=passages[hit.segment_index].end - passages[hit.segment_index].start,
            passage_first=hit is by_passage[hit.segment_index][0],
            score=hit.score,
            words=list(hit.words),
            text_start=within(passages[hit.segment_index], hit.match_start),
            text_end=within(passages[hit.segment_index], hit.match_end),
        )
        for hit in hits
    )
    transitions = []
    for passage, state in zip(passages, states, strict=True):
        check_transition(None, state, ActorKind.RULE, "")
        passage.state = state
        fired = sorted({hit.rule_id for hit in by_passage[passage.index]})
        transitions.append(
            PassageTransition(
                passage=passage,
                review=review,
                from_state=None,
                to_state=state,
                actor_kind=ActorKind.RULE,
                actor=version.label,
                reason=", ".join(fired) if fired else "no rule fired",
            )
        )
    Passage.objects.bulk_update(passages, ["state"], batch_size=500)
    PassageTransition.objects.bulk_create(transitions, batch_size=500)
    audit_passage_transitions(transitions=transitions)


def passage_transition(
    *, passage_id: int, to_state: str, actor_kind: str, actor: str, reason: str = ""
) -> Passage:
    """Move one passage along the state machine (a verifier's or the system's move), hand it
    to the lawyers if it needs one, and update its review's status."""
    with transaction.atomic():
        passage = Passage.objects.select_for_update().get(pk=passage_id)
        review = Review.objects.select_for_update().get(contract_id=passage.contract_id)
        passage_move(
            passage=passage,
            review=review,
            to_state=to_state,
            actor_kind=actor_kind,
            actor=actor,
            reason=reason,
        )
        if to_state in (PassageState.NEEDS_HUMAN_REVIEW, PassageState.REJECTED):
            _hand_to_lawyers(passage, review, reason)
        review_refresh_status(review=review)
        passage_state_publish(review=review, passage=passage)
        transaction.on_commit(lambda: snapshot_refresh(review))
    return passage


def passage_move(
    *,
    passage: Passage,
    review: Review,
    to_state: str,
    actor_kind: str,
    actor: str,
    reason: str = "",
    flow: str = "",
) -> PassageTransition:
    """Record one move of a locked passage (checked against the state table, audited) and
    nothing else: the caller decides when the review's status and the live events follow,
    so a decision of many passages publishes each of them once."""
    check_transition(passage.state, to_state, actor_kind, reason, flow=flow)
    transition = PassageTransition.objects.create(
        passage=passage,
        review=review,
        from_state=passage.state,
        to_state=to_state,
        actor_kind=actor_kind,
        actor=actor,
        reason=reason,
    )
    passage.state = to_state
    passage.save(update_fields=["state"])
    RuleFiring.objects.filter(passage_id=passage.pk).update(passage_state=to_state)
    audit_passage_transitions(transitions=[transition])
    return transition


def passage_state_publish(*, review: Review, passage: Passage) -> None:
    """The live event of a passage's new state (and its review's), for open pages."""
    event_publish(
        matter_id=review.contract.matter_id,
        type="passage.state",
        payload={
            "contract_id": passage.contract_id,
            "review_id": review.pk,
            "passage": passage.index,
            "state": passage.state,
            "review_status": review.status,
        },
    )
