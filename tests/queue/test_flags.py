"""A lawyer flags a clause the review missed: a queue item already claimed by them, a
lawyer-raised flag (CONFIRMED -> NEEDS_HUMAN_REVIEW, audited), a positive example, kept by a
re-run."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied

from reviewapp.audit.models import AuditEvent
from reviewapp.contracts.models import PassageState
from reviewapp.queue.decisions import queue_item_decide, queue_item_undo
from reviewapp.queue.flags import passage_flag_raise
from reviewapp.queue.models import Decision, ItemStatus, QueueItem
from reviewapp.queue.records import QueueConflict
from reviewapp.reviews.lawyer_labels import categories_standing
from reviewapp.reviews.models import ActorKind, PassageLabel, PassageTransition
from reviewapp.reviews.reasons import LAWYER_FLAGGED
from reviewapp.reviews.states import FLAG_FLOW, TransitionNotAllowed, check_transition
from reviewapp.rules.learned.training_labels import decision_labels, label_examples
from tests.queue.test_category_decisions import reviewed

pytestmark = pytest.mark.django_db

TEXT = (
    "1. Counterparts. This Agreement may be executed in counterparts.\n\n"
    "2. Rebates. Supplier shall refund any difference if it charges another customer less.\n"
)
MFN = "Most Favored Nation"


def missed(matter):
    review = reviewed(matter, TEXT)
    passage = review.contract.passages.get(text__icontains="refund")
    assert passage.state == PassageState.CONFIRMED  # no rule of the strict playbook fired
    return passage


def test_a_flag_is_a_claimed_item_and_moves_the_passage_back_to_the_lawyers(matter, lawyer):
    passage = missed(matter)
    item = passage_flag_raise(
        passage_id=passage.pk, user=lawyer, category=MFN, note="price parity, reworded"
    )
    assert item.status == ItemStatus.CLAIMED and item.claimed_by == lawyer
    assert item.raised_by == lawyer and item.asked == [MFN] and item.reason == LAWYER_FLAGGED
    passage.refresh_from_db()
    assert passage.state == PassageState.NEEDS_HUMAN_REVIEW
    move = PassageTransition.objects.filter(passage=passage).last()
    assert (move.from_state, move.to_state, move.actor_kind, move.actor, move.reason) == (
        PassageState.CONFIRMED,
        PassageState.NEEDS_HUMAN_REVIEW,
        ActorKind.USER,
        lawyer.username,
        LAWYER_FLAGGED,
    )
    flagged = AuditEvent.objects.get(action="queue.flagged")
    assert flagged.actor == lawyer.username and flagged.data["category"] == MFN
    assert AuditEvent.objects.filter(
        action="passage.transition", actor=lawyer.username, data__to="NEEDS_HUMAN_REVIEW"
    ).exists()
    assert categories_standing(passage_ids=[passage.pk])[passage.pk] == [MFN]


def test_the_flag_move_is_only_allowed_in_the_flag_flow():
    check_transition("CONFIRMED", "NEEDS_HUMAN_REVIEW", ActorKind.USER, "", flow=FLAG_FLOW)
    with pytest.raises(TransitionNotAllowed):
        check_transition("CONFIRMED", "NEEDS_HUMAN_REVIEW", ActorKind.USER, "")
    with pytest.raises(TransitionNotAllowed):
        check_transition("CONFIRMED", "NEEDS_HUMAN_REVIEW", ActorKind.MODEL, "", flow=FLAG_FLOW)


def test_a_flag_is_a_positive_example_and_stays_one_when_decided(matter, lawyer):
    passage = missed(matter)
    item = passage_flag_raise(passage_id=passage.pk, user=lawyer, category=MFN)
    (label,) = decision_labels(organisation_id=matter.organisation_id)
    assert (label.category, label.kind, label.positive) == (MFN, "flagged", True)
    queue_item_decide(item_id=item.pk, user=lawyer, decision=Decision.REJECT)
    (example,) = label_examples(decision_labels(organisation_id=matter.organisation_id))
    assert example.labels == [frozenset({MFN})] and list(example.view_weights) == [2.0]
    queue_item_undo(item_id=item.pk, user=lawyer)
    label = PassageLabel.objects.get(passage=passage)
    assert label.kind == "flagged" and label.raised  # the flag itself is not undone


def test_who_may_flag_and_what(matter, lawyer, reviewer):
    passage = missed(matter)
    with pytest.raises(PermissionDenied):
        passage_flag_raise(passage_id=passage.pk, user=reviewer, category=MFN)
    with pytest.raises(QueueConflict, match="knows"):
        passage_flag_raise(passage_id=passage.pk, user=lawyer, category="Astrology")
    passage_flag_raise(passage_id=passage.pk, user=lawyer, category=MFN)
    with pytest.raises(QueueConflict, match="already flagged"):
        passage_flag_raise(passage_id=passage.pk, user=lawyer, category=MFN)


def test_flagging_a_passage_a_colleague_holds_is_refused(matter, lawyer, admin):
    passage = missed(matter)
    passage_flag_raise(passage_id=passage.pk, user=admin, category=MFN)
    with pytest.raises(QueueConflict, match="colleague"):
        passage_flag_raise(passage_id=passage.pk, user=lawyer, category="Exclusivity")
    assert QueueItem.objects.filter(passage=passage).count() == 1


def test_the_review_page_flags_a_passage(client, matter, lawyer, reviewer):
    passage = missed(matter)
    contract = passage.contract
    client.force_login(reviewer)
    page = client.get(f"/contracts/{contract.pk}/?passage={passage.index}").content.decode()
    assert 'data-role="flag-form"' not in page
    assert (
        client.post(
            f"/contracts/{contract.pk}/passages/{passage.index}/flag/", {"category": MFN}
        ).status_code
        == 302
    )
    assert not QueueItem.objects.filter(passage=passage).exists()
    client.force_login(lawyer)
    page = client.get(f"/contracts/{contract.pk}/?passage={passage.index}").content.decode()
    assert 'data-role="flag-form"' in page and "may-flag" in page
    client.post(
        f"/contracts/{contract.pk}/passages/{passage.index}/flag/",
        {"category": MFN, "note": "missed"},
    )
    item = QueueItem.objects.get(passage=passage)
    assert item.claimed_by == lawyer and item.raised_by == lawyer
    page = client.get(f"/contracts/{contract.pk}/?passage={passage.index}").content.decode()
    assert "flagged by a lawyer: Most Favored Nation" in page
