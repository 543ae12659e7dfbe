"""The trigger scan that fills a review's state register. Moves after it, the review's status
and the hand-off to lawyers are in ``reviews.transitions`` (re-exported here for callers)."""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from reviewapp.audit.recorders import audit_passage_transitions
from reviewapp.contracts.models import Contract, DocumentStatus, Passage, PassageState
from reviewapp.realtime.events import event_publish
from reviewapp.reviews.lawyer_labels import refused_categories
from reviewapp.reviews.model_work import review_queue_model_work
from reviewapp.reviews.models import (
    ActorKind,
    PassageTransition,
    Review,
    ReviewStatus,
    RuleFiring,
)
from reviewapp.reviews.snapshot import snapshot_refresh
from reviewapp.reviews.states import check_transition
from reviewapp.reviews.transitions import (
    hand_to_lawyers,
    passage_move,
    passage_state_publish,
    passage_transition,
    review_handoff_register,
    review_refresh_status,
    review_status_of,
)
from reviewapp.rules.checks import check_for
from reviewapp.rules.learned.versions import router_for
from reviewapp.rules.services import playbook_compiled, playbook_version_for
from reviewapp.text.check.apply import Checked, check_hits
from reviewapp.text.contract_type import detect_contract_type, detect_language
from reviewapp.text.engine import CompiledPlaybook, RuleHit, passage_states, scan
from reviewapp.text.normalise import normalise
from reviewapp.text.router.flags import merge_hits, router_scan

__all__ = [  # the moves live in reviews.transitions; these names stay importable from here
    "passage_move",
    "passage_state_publish",
    "passage_transition",
    "review_handoff_register",
    "review_refresh_status",
    "review_contract_read",
    "review_scan",
    "review_status_of",
]


def review_contract_read(
    *, contract: Contract, engine: str | None, enqueue: bool, **_: Any
) -> None:
    """The reviews app's receiver of ``contracts.signals.contract_read``: scan the stored
    contract and record how long the scan took among the contract's timings."""
    review = review_scan(contract_id=contract.pk, engine=engine, enqueue=enqueue)
    if review is not None:
        timings = {**contract.timings_ms, "scan": review.scan_ms}
        Contract.objects.filter(pk=contract.pk).update(timings_ms=timings)


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
    started = time.perf_counter()
    language = detect_language(contract.text)
    contract_type = detect_contract_type(contract.text)
    version = playbook_version_for(
        organisation_id=contract.matter.organisation_id, language=language
    )
    compiled = playbook_compiled(version)
    passages = list(contract.passages.order_by("index"))
    found = first_stage_scan(
        compiled=compiled,
        organisation_id=contract.matter.organisation_id,
        language=language,
        text=contract.text,
        passages=passages,
        contract_type=contract_type,
    )
    hits, checked = found.hits, found.checked
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
            router_version=found.router_label,
            check_version=found.check_label,
        )
        _record_scan(review, passages, hits, states, checked)
        for passage in passages:
            if passage.state == PassageState.REJECTED:
                hand_to_lawyers(passage, review, "A hard rule rejected this passage.")
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


def _record_scan(
    review: Review,
    passages: list[Passage],
    hits,
    states: list[str],
    checked: dict[tuple[int, str], Checked],
) -> None:
    by_passage: dict[int, list] = defaultdict(list)
    for hit in hits:
        by_passage[hit.segment_index].append(hit)
    version = review.playbook_version
    RuleFiring.objects.bulk_create(
        rule_firings(review=review, passages=passages, hits=hits, states=states, checked=checked),
        batch_size=500,
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
    by_state: dict[str, list[int]] = defaultdict(list)
    for passage, state in zip(passages, states, strict=True):
        by_state[state].append(passage.pk)
    for state, ids in by_state.items():  # one UPDATE a state, not a CASE over every passage
        Passage.objects.filter(pk__in=ids).update(state=state)
    PassageTransition.objects.bulk_create(transitions, batch_size=500)
    audit_passage_transitions(transitions=transitions)


@dataclass
class FirstStage:
    """What the first stage and the check made of a contract: every hit, the check's word on
    each (passage index, category), and the versions they ran with."""

    hits: list[RuleHit]
    checked: dict[tuple[int, str], Checked]
    router_label: str
    check_label: str


def first_stage_scan(
    *,
    compiled: CompiledPlaybook,
    organisation_id: int,
    language: str,
    text: str,
    passages: Sequence[Passage],
    contract_type: str | None,
) -> FirstStage:
    """Rules, the learned router where the playbook has it on, then the second-stage check
    where it has that on: the one scan that a review and a re-run both make."""
    hits = scan(compiled, text, passages, contract_type=contract_type)
    router, router_label = None, ""
    if compiled.playbook.router.enabled:
        router, router_label = router_for(organisation_id=organisation_id, language=language)
    scanned = router_scan(compiled, router, text, passages, hits)
    hits = _without_refused(merge_hits(compiled, hits, scanned.hits), passages)
    check, check_label = (None, "")
    if compiled.playbook.check.enabled:
        check, check_label = check_for(language=language, organisation_id=organisation_id)
    checked = check_hits(compiled, check, passages, hits, scanned)
    return FirstStage(hits, checked, router_label, check_label if checked else "")


def _without_refused(hits: list[RuleHit], passages: Sequence[Passage]) -> list[RuleHit]:
    """A category a lawyer called not this kind of clause on a passage is not raised there again
    (a re-run scans the same passages; a first scan finds no labels)."""
    refused = refused_categories(passage_ids=[p.pk for p in passages if p.pk is not None])
    if not refused:
        return hits
    return [hit for hit in hits if (passages[hit.segment_index].pk, hit.category) not in refused]


def rule_firings(
    *,
    review: Review,
    passages: Sequence[Passage],
    hits: Sequence[RuleHit],
    states: Sequence[str],
    checked: dict[tuple[int, str], Checked],
) -> list[RuleFiring]:
    """The firing rows of a scan (not saved), with the check's word on each."""
    normalised = normalise(review.contract.text)

    def within(passage: Passage, offset: int) -> int:
        """A contract offset as an offset into the passage's normalised text."""
        relative = normalised.from_source(offset) - normalised.from_source(passage.start)
        return min(max(relative, 0), len(passage.text))

    seen: set[int] = set()
    rows = []
    for hit in hits:
        passage = passages[hit.segment_index]
        rows.append(
            RuleFiring(
                review=review,
                passage=passage,
                playbook_version=review.playbook_version,
                rule_id=hit.rule_id,
                category=hit.category,
                action=hit.action,
                severity=hit.severity,
                match_start=hit.match_start,
                match_end=hit.match_end,
                passage_state=states[hit.segment_index],
                passage_chars=passage.end - passage.start,
                passage_first=hit.segment_index not in seen,
                score=hit.score,
                words=list(hit.words),
                text_start=within(passage, hit.match_start),
                text_end=within(passage, hit.match_end),
                **_check_fields(checked.get((hit.segment_index, hit.category))),
            )
        )
        seen.add(hit.segment_index)
    return rows


def _check_fields(checked: Checked | None) -> dict[str, Any]:
    """What a firing keeps of the check's word on its category (nothing: it stands)."""
    if checked is None:
        return {}
    return {
        "check_score": checked.score,
        "check_threshold": checked.threshold,
        "dropped": not checked.stands,
        "check_features": [list(pair) for pair in checked.features],
    }
