"""The one decision flow: bulk claims and decisions, undo, one event per change."""

from __future__ import annotations

import ast
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from reviewapp.accounts.models import Membership, Role
from reviewapp.audit.models import AuditEvent
from reviewapp.contracts.models import PassageState
from reviewapp.queue.decisions import (
    queue_decision_preview,
    queue_item_claim,
    queue_item_decide,
    queue_item_note_edit,
    queue_item_undo,
    queue_items_claim,
    queue_items_decide,
)
from reviewapp.queue.models import Decision, HistoryAction, ItemStatus, QueueItem
from reviewapp.queue.records import QueueConflict
from reviewapp.realtime.models import Event
from reviewapp.reviews.models import ActorKind, PassageTransition, Review, ReviewStatus
from reviewapp.reviews.services import passage_transition, review_scan
from reviewapp.reviews.states import TransitionNotAllowed, check_transition
from tests.factories import STRICT, active_playbook, ingested_contract

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


def mfn_contract(count: int, *, assignment: bool = False, tag: str = "") -> str:
    """A contract with ``count`` MFN clauses (each REJECTED by the strict playbook)."""
    clauses = [
        f"{n}. Pricing {n}. Customer shall receive most favored nation pricing in region {n}{tag}."
        for n in range(1, count + 1)
    ]
    if assignment:
        clauses.append(f"{count + 1}. Assignment. Neither party may assign this Agreement.")
    return "\n\n".join(clauses) + "\n"


@pytest.fixture
def lawyers(make_user, matter):
    lee, liu = make_user("lee"), make_user("liu")
    for user in (lee, liu):
        Membership.objects.create(user=user, matter=matter, role=Role.LAWYER)
    return lee, liu


@pytest.fixture
def review_of(matter):
    active_playbook(organisation=matter.organisation, source=STRICT)

    def make(count: int, *, assignment: bool = False, name: str = "mfn.txt") -> Review:
        text = mfn_contract(count, assignment=assignment)
        contract = ingested_contract(matter=matter, text=text, name=name)
        review = review_scan(contract_id=contract.pk, enqueue=False)
        assert review is not None
        return review

    return make


def status_events(review: Review) -> list[str]:
    events = Event.objects.filter(type="review.status", payload__review_id=review.pk)
    return [event.payload["status"] for event in events.order_by("pk")]


def test_bulk_override_needs_one_justification_and_publishes_the_status_once(review_of, lawyers):
    lee, _ = lawyers
    review = review_of(5)
    ids = list(QueueItem.objects.filter(review=review).values_list("pk", flat=True))
    assert review.status == ReviewStatus.BLOCKED and len(ids) == 5
    with pytest.raises(QueueConflict, match="justification"):
        queue_items_decide(item_ids=ids, user=lee, decision=Decision.ACCEPT, note="  ")
    assert not QueueItem.objects.filter(pk__in=ids, status=ItemStatus.DONE).exists()
    assert not QueueItem.objects.filter(pk__in=ids, status=ItemStatus.CLAIMED).exists()

    result = queue_items_decide(
        item_ids=ids, user=lee, decision=Decision.ACCEPT, note="Client accepts MFN here."
    )

    assert result.passages_changed == 5
    assert set(QueueItem.objects.filter(pk__in=ids).values_list("status", flat=True)) == {"DONE"}
    states = review.contract.passages.filter(queue_items__pk__in=ids).values_list(
        "state", flat=True
    )
    assert set(states) == {PassageState.CONFIRMED}
    review.refresh_from_db()
    assert review.status == ReviewStatus.COMPLETE
    assert status_events(review) == [ReviewStatus.COMPLETE]
    assert Event.objects.filter(type="passage.state", payload__review_id=review.pk).count() == 5
    overrides = AuditEvent.objects.filter(action="queue.decided", data__override=True)
    assert overrides.count() == 5
    assert AuditEvent.objects.filter(action="queue.claimed").count() == 5  # claimed on the way


def test_a_decision_that_ends_the_review_rebuilds_its_snapshot_once(
    review_of, lawyers, monkeypatch, django_capture_on_commit_callbacks
):
    from reviewapp.reviews import snapshot

    lee, _ = lawyers
    review = review_of(3)
    ids = list(QueueItem.objects.filter(review=review).values_list("pk", flat=True))
    built = []
    build = snapshot.snapshot_build
    monkeypatch.setattr(snapshot, "snapshot_build", lambda r: built.append(r.status) or build(r))
    with django_capture_on_commit_callbacks(execute=True):
        queue_items_decide(item_ids=ids, user=lee, decision=Decision.ACCEPT, note="Accepted.")
    assert built == [ReviewStatus.COMPLETE]  # once, with the status it ends on


def test_a_selection_with_an_item_held_by_a_colleague_decides_nothing(review_of, lawyers):
    lee, liu = lawyers
    review = review_of(3)
    ids = sorted(QueueItem.objects.filter(review=review).values_list("pk", flat=True))
    queue_item_claim(item_id=ids[1], user=liu)
    preview = queue_decision_preview(item_ids=ids, user=lee, decision=Decision.REJECT)
    assert preview.refused == [ids[1]] and preview.items == 3
    with pytest.raises(QueueConflict, match="1 of the selected items"):
        queue_items_decide(item_ids=ids, user=lee, decision=Decision.REJECT, note="No.")
    assert not QueueItem.objects.filter(pk__in=ids, status=ItemStatus.DONE).exists()


def test_bulk_claim_takes_the_open_items_and_leaves_a_colleagues(review_of, lawyers):
    lee, liu = lawyers
    review = review_of(3)
    ids = sorted(QueueItem.objects.filter(review=review).values_list("pk", flat=True))
    queue_item_claim(item_id=ids[0], user=liu)
    won = queue_items_claim(item_ids=ids, user=lee)
    assert [item.pk for item in won] == ids[1:]
    assert QueueItem.objects.get(pk=ids[0]).claimed_by == liu


def test_preview_counts_the_passages_that_change(review_of, lawyers):
    lee, _ = lawyers
    review = review_of(2, assignment=True)
    pending = review.contract.passages.get(state=PassageState.PENDING)
    passage_transition(
        passage_id=pending.pk,
        to_state=PassageState.NEEDS_HUMAN_REVIEW,
        actor_kind=ActorKind.ENGINE,
        actor="offline",
        reason="NO_OFFLINE_VERDICT",
    )
    ids = list(QueueItem.objects.filter(review=review).values_list("pk", flat=True))
    reject = queue_decision_preview(item_ids=ids, user=lee, decision=Decision.REJECT)
    accept = queue_decision_preview(item_ids=ids, user=lee, decision=Decision.ACCEPT)
    assert (reject.items, reject.passages_changing, reject.overrides) == (3, 1, 0)
    assert (accept.items, accept.passages_changing, accept.overrides) == (3, 3, 2)


def test_a_lawyer_rejecting_a_needs_review_passage_publishes_the_status_once(review_of, lawyers):
    """The passage becomes REJECTED and its item DONE in one step: the review never shows
    BLOCKED in between (it used to publish BLOCKED, then IN_REVIEW)."""
    lee, _ = lawyers
    review = review_of(1, assignment=True)
    rejected = QueueItem.objects.get(review=review)
    queue_item_claim(item_id=rejected.pk, user=lee)
    queue_item_decide(item_id=rejected.pk, user=lee, decision=Decision.REJECT, note="No MFN.")
    assert status_events(review) == [ReviewStatus.IN_REVIEW]
    pending = review.contract.passages.get(state=PassageState.PENDING)
    passage_transition(
        passage_id=pending.pk,
        to_state=PassageState.NEEDS_HUMAN_REVIEW,
        actor_kind=ActorKind.ENGINE,
        actor="offline",
        reason="NO_OFFLINE_VERDICT",
    )
    item = QueueItem.objects.get(review=review, status=ItemStatus.OPEN)
    queue_item_claim(item_id=item.pk, user=lee)
    queue_item_decide(item_id=item.pk, user=lee, decision=Decision.REJECT, note="Too wide.")
    assert status_events(review) == [ReviewStatus.IN_REVIEW, ReviewStatus.COMPLETE]


def test_undo_restores_the_passage_and_the_item_through_an_audited_move(review_of, lawyers):
    lee, _ = lawyers
    review = review_of(2)
    item = QueueItem.objects.filter(review=review).order_by("pk").first()
    queue_item_claim(item_id=item.pk, user=lee)
    queue_item_decide(item_id=item.pk, user=lee, decision=Decision.ACCEPT, note="Fine here.")
    item.passage.refresh_from_db()
    assert item.passage.state == PassageState.CONFIRMED

    undone = queue_item_undo(item_id=item.pk, user=lee)

    item.passage.refresh_from_db()
    assert item.passage.state == PassageState.REJECTED
    assert (undone.status, undone.claimed_by, undone.decision) == (ItemStatus.CLAIMED, lee, "")
    assert undone.note == "Fine here."  # kept for the next decision
    moves = PassageTransition.objects.filter(passage=item.passage).order_by("pk")
    assert [(m.from_state, m.to_state, m.actor) for m in moves][-2:] == [
        (PassageState.REJECTED, PassageState.CONFIRMED, "lee"),
        (PassageState.CONFIRMED, PassageState.REJECTED, "lee"),
    ]
    event = AuditEvent.objects.get(action="queue.undone")
    assert event.data["undone_decision"] == "accept" and event.target_id == str(item.pk)
    assert undone.history.filter(action=HistoryAction.UNDONE).count() == 1
    review.refresh_from_db()
    assert review.status == ReviewStatus.BLOCKED
    queue_item_decide(item_id=item.pk, user=lee, decision=Decision.REJECT)  # decide again
    assert QueueItem.objects.get(pk=item.pk).status == ItemStatus.DONE


def test_undo_of_an_upheld_rejection_only_reopens_the_item(review_of, lawyers):
    lee, _ = lawyers
    review = review_of(1)
    item = QueueItem.objects.get(review=review)
    queue_item_claim(item_id=item.pk, user=lee)
    queue_item_decide(item_id=item.pk, user=lee, decision=Decision.REJECT)
    before = PassageTransition.objects.filter(passage=item.passage).count()
    queue_item_undo(item_id=item.pk, user=lee)
    assert PassageTransition.objects.filter(passage=item.passage).count() == before
    assert status_events(review) == [ReviewStatus.COMPLETE, ReviewStatus.BLOCKED]


def test_only_the_deciding_lawyer_undoes_and_only_within_the_window(review_of, lawyers, settings):
    lee, liu = lawyers
    review = review_of(1)
    item = QueueItem.objects.get(review=review)
    queue_item_claim(item_id=item.pk, user=lee)
    queue_item_decide(item_id=item.pk, user=lee, decision=Decision.REJECT)
    with pytest.raises(QueueConflict, match="Only the lawyer who decided"):
        queue_item_undo(item_id=item.pk, user=liu)
    QueueItem.objects.filter(pk=item.pk).update(
        decided_at=timezone.now() - timedelta(seconds=settings.QUEUE_UNDO_WINDOW_S + 1)
    )
    with pytest.raises(QueueConflict, match="time to undo"):
        queue_item_undo(item_id=item.pk, user=lee)
    assert QueueItem.objects.get(pk=item.pk).status == ItemStatus.DONE


def test_reopening_moves_exist_only_in_the_undo_flow():
    for from_state, to_state in [
        (PassageState.CONFIRMED, PassageState.NEEDS_HUMAN_REVIEW),
        (PassageState.CONFIRMED, PassageState.REJECTED),
        (PassageState.REJECTED, PassageState.NEEDS_HUMAN_REVIEW),
    ]:
        with pytest.raises(TransitionNotAllowed):
            check_transition(from_state, to_state, ActorKind.USER, "reason")
        with pytest.raises(TransitionNotAllowed):
            check_transition(from_state, to_state, ActorKind.MODEL, "reason", flow="undo")
        check_transition(from_state, to_state, ActorKind.USER, "", flow="undo")


def test_the_override_rule_holds_for_one_item_many_and_a_changed_note(review_of, lawyers):
    lee, _ = lawyers
    review = review_of(2)
    first, second = QueueItem.objects.filter(review=review).order_by("pk")
    queue_item_claim(item_id=first.pk, user=lee)
    with pytest.raises(QueueConflict, match="justification"):
        queue_item_decide(item_id=first.pk, user=lee, decision=Decision.ACCEPT, note="")
    with pytest.raises(QueueConflict, match="justification"):
        queue_items_decide(item_ids=[second.pk], user=lee, decision=Decision.ACCEPT)
    queue_item_decide(item_id=first.pk, user=lee, decision=Decision.ACCEPT, note="Agreed.")
    with pytest.raises(QueueConflict, match="justification"):
        queue_item_note_edit(item_id=first.pk, user=lee, note=" ")


def test_the_override_rule_and_the_severity_ranking_are_written_once():
    """No module defines its own severity ordering or its own override check."""
    rankings, overrides = [], []
    for path in (ROOT / "reviewapp").rglob("*.py"):
        if "migrations" in path.parts:
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Dict) and _is_severity_ranking(node):
                rankings.append(str(path.relative_to(ROOT)))
            if isinstance(node, ast.BoolOp) and _checks_a_note_on_a_rejection(node):
                overrides.append(str(path.relative_to(ROOT)))
    assert rankings == []  # the one ranking: rules.engine.model.SEVERITY_RANK
    assert overrides == [], "check the override with reviews.states.justification_check"


def _is_severity_ranking(node: ast.Dict) -> bool:
    keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
    numbers = all(isinstance(v, ast.Constant) and isinstance(v.value, int) for v in node.values)
    return {"critical", "high", "medium", "low"} <= keys and numbers


def _checks_a_note_on_a_rejection(node: ast.BoolOp) -> bool:
    """``state == REJECTED and not note.strip()``: the shape of the second, older check."""
    source = ast.unparse(node)
    return "REJECTED" in source and ("not note" in source or "not reason" in source)


def test_scan_and_refresh_compute_the_same_status(review_of):
    review = review_of(1, assignment=True)
    assert review.status == ReviewStatus.BLOCKED
    from reviewapp.reviews.services import review_refresh_status

    review_refresh_status(review=review)
    assert status_events(review) == []  # nothing changed, nothing published
