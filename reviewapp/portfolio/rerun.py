"""Re-run a reviewed contract on the playbook (and router) now in force, keeping the earlier
register as a `ReviewSnapshot` to compare with.

The review stays the same row (much code reads ``contract.review``): before the new scan its
register (per passage: state, words, categories, rule ids, whether a lawyer decided it) is
stored as a snapshot, then firings, verifications and the draft are replaced and the draft and
verifications run again through the usual model work.

A re-run is a new trigger scan, so it may move a passage any way the first scan could
(recorded as a rule transition from the old state, with the new version as actor). What it
does not throw away: **a lawyer's decision**, nor a lawyer's labels (a category called "not
this kind of clause" is not raised on that passage again, by ``first_stage_scan``; a clause a
lawyer flagged stays with the lawyers until decided). A passage whose last state a lawyer set, whose
words did not change, and on which the new playbook raises no category the old one did not,
keeps the lawyer's state (no transition, no new verification). A new concern on a decided
passage sends it through the new scan's path again, and the comparison shows why.
Open queue items of passages the new scan settles without a lawyer are withdrawn (deleted;
their history is in the audit log); decided items stay.
"""

from __future__ import annotations

import hashlib
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.db.models import Max
from django.utils.translation import gettext

from reviewapp.accounts.models import Role
from reviewapp.accounts.selectors import membership_role
from reviewapp.audit.models import AuditAction
from reviewapp.audit.recorders import audit_passage_transitions
from reviewapp.audit.services import audit_record
from reviewapp.contracts.models import Contract, Passage, PassageState
from reviewapp.portfolio.ranks import worse_severity
from reviewapp.queue.models import ItemStatus, QueueItem
from reviewapp.queue.services import queue_item_open
from reviewapp.realtime.events import event_publish
from reviewapp.reviews.key_facts import facts_of
from reviewapp.reviews.lawyer_labels import raised_categories
from reviewapp.reviews.model_work import review_queue_model_work
from reviewapp.reviews.models import (
    ActorKind,
    Draft,
    DraftStatus,
    PassageTransition,
    Review,
    ReviewSnapshot,
    RuleFiring,
    Verification,
    VerificationStatus,
)
from reviewapp.reviews.services import first_stage_scan, review_refresh_status, rule_firings
from reviewapp.rules.models import PlaybookVersion
from reviewapp.rules.services import playbook_compiled, playbook_version_for
from reviewapp.text.contract_type import detect_contract_type, detect_language
from reviewapp.text.engine import passage_states

RERUN_ROLES = frozenset({Role.ADMIN, Role.REVIEWER})
LAWYER_STATES = frozenset({PassageState.NEEDS_HUMAN_REVIEW, PassageState.REJECTED})


class RerunRefused(Exception):
    """Nothing to re-run: no review yet, or it already ran with the playbook in force."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class NewScan:
    version: PlaybookVersion
    router_label: str
    language: str
    contract_type: str
    passages: list[Passage]
    hits: list[Any]
    states: list[str]
    scan_ms: float
    checked: dict[tuple[int, str], Any] = field(default_factory=dict)
    check_label: str = ""


def user_may_rerun(*, user: Any, matter_id: int) -> bool:
    return membership_role(user=user, matter_id=matter_id) in RERUN_ROLES


def text_sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def contract_rerun(*, contract_id: int, user: Any = None) -> ReviewSnapshot:
    """Snapshot the review, scan again with the playbook in force, and queue the model work.

    Raises RerunRefused when there is no review or nothing newer to run with.
    """
    contract = Contract.objects.select_related("matter").get(pk=contract_id)
    review = Review.objects.filter(contract=contract).select_related("playbook_version").first()
    if review is None:
        raise RerunRefused("NOT_REVIEWED", gettext("This contract has not been reviewed yet."))
    if _model_work_running(review):
        raise RerunRefused(
            "BUSY",
            gettext("The review is still being drafted or checked; re-run it when that is done."),
        )
    new = _scan(contract)
    if (
        new.version.pk == review.playbook_version_id
        and new.router_label == review.router_version
        and new.check_label == review.check_version
    ):
        raise RerunRefused(
            "CURRENT",
            gettext("Already reviewed with %(version)s, the playbook in force.")
            % {"version": new.version.label},
        )
    with transaction.atomic():
        review = Review.objects.select_for_update().get(pk=review.pk)
        snapshot = snapshot_take(review=review, user=user)
        _apply(review, snapshot, new)
        snapshot.rerun_playbook_label = new.version.label
        snapshot.save(update_fields=["rerun_playbook_label"])
        _audit(contract, review, snapshot, user)
        event_publish(
            matter_id=contract.matter_id,
            type="review.scanned",
            payload={
                "contract_id": contract.pk,
                "review_id": review.pk,
                "status": review.status,
                "rerun_snapshot_id": snapshot.pk,
            },
        )
    return snapshot


def _model_work_running(review: Review) -> bool:
    """A draft or check still on its way would land on the replaced register."""
    drafting = Draft.objects.filter(
        review=review, status__in=(DraftStatus.QUEUED, DraftStatus.STREAMING)
    ).exists()
    return drafting or review.verifications.filter(status=VerificationStatus.QUEUED).exists()


def _scan(contract: Contract) -> NewScan:
    """The trigger scan as `review_scan` runs it, with the playbook and router now in force."""
    started = time.perf_counter()
    language = detect_language(contract.text)
    contract_type = detect_contract_type(contract.text)
    organisation_id = contract.matter.organisation_id
    version = playbook_version_for(organisation_id=organisation_id, language=language)
    compiled = playbook_compiled(version)
    passages = list(contract.passages.order_by("index"))
    found = first_stage_scan(
        compiled=compiled,
        organisation_id=organisation_id,
        language=language,
        text=contract.text,
        passages=passages,
        contract_type=contract_type,
    )
    states = list(passage_states(passages, found.hits))
    scan_ms = round((time.perf_counter() - started) * 1000, 1)
    return NewScan(
        version,
        found.router_label,
        language,
        contract_type,
        passages,
        found.hits,
        states,
        scan_ms,
        found.checked,
        found.check_label,
    )


def snapshot_take(*, review: Review, user: Any = None) -> ReviewSnapshot:
    """The review's register as it stands, stored."""
    flags: dict[int, dict[str, str]] = defaultdict(dict)
    rule_ids: dict[int, set[str]] = defaultdict(set)
    for passage_id, category, severity, rule_id in RuleFiring.objects.filter(
        review=review
    ).values_list("passage_id", "category", "severity", "rule_id"):
        flags[passage_id][category] = worse_severity(flags[passage_id].get(category), severity)
        rule_ids[passage_id].add(rule_id)
    decided = _decided_by_lawyer(review)
    passages = [
        {
            "index": index,
            "state": state,
            "text_sha": text_sha(text),
            "heading": heading,
            "flags": flags.get(pk, {}),
            "rule_ids": sorted(rule_ids.get(pk, ())),
            "decided": pk in decided,
        }
        for pk, index, state, text, heading in review.contract.passages.order_by(
            "index"
        ).values_list("pk", "index", "state", "text", "heading")
    ]
    facts = {name: fact.display for name, fact in facts_of(review).items()}
    return ReviewSnapshot.objects.create(
        review=review,
        playbook_version=review.playbook_version,
        playbook_label=review.playbook_version.label,
        router_version=review.router_version,
        engine=review.engine,
        status=review.status,
        passages=passages,
        key_facts=facts,
        created_by=user if getattr(user, "is_authenticated", False) else None,
    )


def _decided_by_lawyer(review: Review) -> set[int]:
    """Passages a lawyer settled last: the latest transition is a lawyer's, or a decided queue
    item is newer than it (rejecting a passage a rule rejected changes no state)."""
    last_ids = (
        PassageTransition.objects.filter(review=review)
        .values("passage_id")
        .annotate(last=Max("id"))
        .values_list("last", flat=True)
    )
    last = {
        passage_id: (kind, at)
        for passage_id, kind, at in PassageTransition.objects.filter(
            id__in=list(last_ids)
        ).values_list("passage_id", "actor_kind", "created_at")
    }
    decided_at = dict(
        QueueItem.objects.filter(review=review, status=ItemStatus.DONE)
        .values_list("passage_id")
        .annotate(at=Max("decided_at"))
        .order_by()
    )
    decided = {pk for pk, (kind, _at) in last.items() if kind == ActorKind.USER}
    for passage_id, at in decided_at.items():
        moved = last.get(passage_id)
        if at is not None and (moved is None or at >= moved[1]):
            decided.add(passage_id)
    return decided


def _final_states(snapshot: ReviewSnapshot, new: NewScan) -> list[str]:
    """The new scan's states, except where a lawyer's decision still answers the question."""
    before = {entry["index"]: entry for entry in snapshot.passages}
    categories: dict[int, set[str]] = defaultdict(set)
    for hit in new.hits:
        categories[hit.segment_index].add(hit.category)
    raised = raised_categories(passage_ids=[passage.pk for passage in new.passages])
    final = []
    for passage, state in zip(new.passages, new.states, strict=True):
        old = before.get(passage.index)
        flagged = raised.get(passage.pk, set())
        kept = (
            old is not None
            and old["text_sha"] == text_sha(passage.text)
            and (
                (old["decided"] and categories[passage.index] <= set(old["flags"]) | flagged)
                # a clause a lawyer flagged stays with the lawyers until they decide it
                or (bool(flagged) and old["state"] in LAWYER_STATES)
            )
        )
        final.append(old["state"] if kept and old is not None else state)
    return final


def _apply(review: Review, snapshot: ReviewSnapshot, new: NewScan) -> None:
    """Replace the register with the new scan's, inside the caller's transaction."""
    states = _final_states(snapshot, new)
    before = {entry["index"]: entry["state"] for entry in snapshot.passages}
    Verification.objects.filter(review=review).delete()
    Draft.objects.filter(review=review).delete()
    RuleFiring.objects.filter(review=review).delete()
    _withdraw_items(review, new.passages, states)
    _record_firings(review, new, states)
    changed = [
        (passage, before.get(passage.index), state)
        for passage, state in zip(new.passages, states, strict=True)
        if before.get(passage.index) != state
    ]
    _record_transitions(review, new, changed)
    review.playbook_version = new.version
    review.router_version = new.router_label
    review.check_version = new.check_label
    review.scan_ms = new.scan_ms
    review.save(
        update_fields=[
            "playbook_version",
            "router_version",
            "check_version",
            "scan_ms",
            "updated_at",
        ]
    )
    Contract.objects.filter(pk=review.contract_id).update(
        language=new.language, contract_type=new.contract_type
    )
    for passage, _old, state in changed:
        if state == PassageState.REJECTED:
            queue_item_open(
                passage=passage, review=review, reason="A hard rule rejected this passage."
            )
    review_queue_model_work(review=review)
    review_refresh_status(review=review)


def _withdraw_items(review: Review, passages: list[Passage], states: list[str]) -> None:
    """Open items of passages that no longer wait for a lawyer go; decided items stay."""
    settled = [
        p.pk for p, state in zip(passages, states, strict=True) if state not in LAWYER_STATES
    ]
    QueueItem.objects.filter(
        review=review, passage_id__in=settled, status__in=(ItemStatus.OPEN, ItemStatus.CLAIMED)
    ).delete()


def _record_firings(review: Review, new: NewScan, states: list[str]) -> None:
    rows = rule_firings(
        review=review, passages=new.passages, hits=new.hits, states=states, checked=new.checked
    )
    RuleFiring.objects.bulk_create(rows, batch_size=500)


def _record_transitions(
    review: Review, new: NewScan, changed: list[tuple[Passage, str | None, str]]
) -> None:
    fired: dict[int, set[str]] = defaultdict(set)
    for hit in new.hits:
        fired[hit.segment_index].add(hit.rule_id)
    transitions = []
    for passage, old, state in changed:
        rules = ", ".join(sorted(fired[passage.index])) or "no rule fired"
        passage.state = state
        transitions.append(
            PassageTransition(
                passage=passage,
                review=review,
                from_state=old,
                to_state=state,
                actor_kind=ActorKind.RULE,
                actor=new.version.label,
                reason=f"re-run on {new.version.label}: {rules}",
            )
        )
    Passage.objects.bulk_update([p for p, _old, _state in changed], ["state"], batch_size=500)
    PassageTransition.objects.bulk_create(transitions, batch_size=500)
    audit_passage_transitions(transitions=transitions)


def _audit(contract: Contract, review: Review, snapshot: ReviewSnapshot, user: Any) -> None:
    signed_in = getattr(user, "is_authenticated", False)
    audit_record(
        organisation_id=contract.matter.organisation_id,
        action=AuditAction.REVIEW_RERUN,
        actor_kind="user" if signed_in else "system",
        actor=user.get_username() if signed_in else "system",
        target_type="review",
        target_id=review.pk,
        data={
            "contract_id": contract.pk,
            "snapshot_id": snapshot.pk,
            "from_version": snapshot.playbook_label,
            "to_version": snapshot.rerun_playbook_label,
            "from_router": snapshot.router_version,
            "to_router": review.router_version,
        },
    )
