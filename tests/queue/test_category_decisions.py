"""Decisions per category: acceptable, not acceptable, or not this kind of clause (a false
flag), each category of an item answered, and the labels each answer leaves for retraining."""

from __future__ import annotations

import pytest

from reviewapp.audit.models import AuditEvent
from reviewapp.contracts.models import PassageState
from reviewapp.queue.decisions import (
    queue_item_answer,
    queue_item_claim,
    queue_item_decide,
    queue_item_undo,
    queue_items_decide,
)
from reviewapp.queue.models import Decision, ItemStatus, QueueItem
from reviewapp.queue.records import QueueConflict
from reviewapp.reviews.models import (
    ActorKind,
    LabelKind,
    PassageLabel,
    PassageTransition,
    Review,
)
from reviewapp.reviews.reasons import FALSE_FLAG
from reviewapp.reviews.services import passage_transition, review_scan
from reviewapp.rules.learned.training_labels import (
    NOT_ACCEPTABLE_WEIGHT,
    decided_passages,
    decision_labels,
    label_examples,
)
from tests.factories import STRICT, active_playbook, ingested_contract

pytestmark = pytest.mark.django_db

MFN = "Most Favored Nation"
ASSIGN = "Anti-Assignment"
BOTH = "1. Pricing. Customer shall receive most favored nation pricing and may assign it.\n"
ASSIGNMENT = "1. Assignment. Neither party may assign this Agreement.\n"


def reviewed(matter, text: str) -> Review:
    active_playbook(organisation=matter.organisation, source=STRICT)
    review = review_scan(contract_id=ingested_contract(matter=matter, text=text).pk, enqueue=False)
    assert review is not None
    return review


def needs_lawyer(review: Review) -> QueueItem:
    """The assignment passage (PENDING after the scan) sent to the lawyers by the verifier."""
    passage = review.contract.passages.get(text__icontains="assign")
    passage_transition(
        passage_id=passage.pk,
        to_state=PassageState.NEEDS_HUMAN_REVIEW,
        actor_kind=ActorKind.ENGINE,
        actor="offline",
    )
    return QueueItem.objects.get(passage=passage)


def claimed(item: QueueItem, lawyer) -> QueueItem:
    return queue_item_claim(item_id=item.pk, user=lawyer)


def test_an_item_asks_about_every_category_standing_most_likely_first(matter):
    item = QueueItem.objects.get(review=reviewed(matter, BOTH))
    assert item.asked == [MFN, ASSIGN]  # the routing rejection first, by severity


def test_not_this_on_a_single_category_item_confirms_it_as_a_false_flag(matter, lawyer):
    item = claimed(needs_lawyer(reviewed(matter, ASSIGNMENT)), lawyer)
    decided = queue_item_decide(item_id=item.pk, user=lawyer, decision=Decision.NOT_THIS)
    assert decided.status == ItemStatus.DONE and decided.decision == Decision.NOT_THIS
    assert decided.decisions == {ASSIGN: "not_this"}
    item.passage.refresh_from_db()
    assert item.passage.state == PassageState.CONFIRMED
    move = PassageTransition.objects.filter(passage=item.passage).last()
    assert (move.from_state, move.to_state, move.reason) == (
        PassageState.NEEDS_HUMAN_REVIEW,
        PassageState.CONFIRMED,
        FALSE_FLAG,
    )
    assert AuditEvent.objects.filter(
        action="passage.transition",
        actor=lawyer.username,
        data__to=PassageState.CONFIRMED,
        data__justification=FALSE_FLAG,
    ).exists()
    decided_event = AuditEvent.objects.filter(action="queue.decided").last()
    assert decided_event.data["decisions"] == {ASSIGN: "not_this"}
    (label,) = decision_labels(organisation_id=matter.organisation_id)
    assert (label.category, label.kind, label.positive) == (ASSIGN, "not_this", False)


def test_not_this_on_a_rule_rejected_passage_needs_a_justification(matter, lawyer):
    item = claimed(QueueItem.objects.get(review=reviewed(matter, BOTH)), lawyer)
    with pytest.raises(QueueConflict, match="justification"):
        queue_item_decide(item_id=item.pk, user=lawyer, decision=Decision.NOT_THIS)
    queue_item_decide(
        item_id=item.pk, user=lawyer, decision=Decision.NOT_THIS, note="a rebate, not MFN"
    )
    item.passage.refresh_from_db()
    assert item.passage.state == PassageState.CONFIRMED


def test_each_category_is_answered_and_the_item_is_done_when_all_are(matter, lawyer):
    item = claimed(QueueItem.objects.get(review=reviewed(matter, BOTH)), lawyer)
    half = queue_item_answer(item_id=item.pk, user=lawyer, decisions={MFN: "reject"})
    assert half.status == ItemStatus.CLAIMED and half.decisions == {MFN: "reject"}
    half.passage.refresh_from_db()
    assert half.passage.state == PassageState.REJECTED  # nothing moves before every answer
    assert not PassageLabel.objects.exists()
    done = queue_item_answer(
        item_id=item.pk, user=lawyer, decisions={ASSIGN: "not_this"}, note="no assignment"
    )
    assert done.status == ItemStatus.DONE and done.decision == Decision.REJECT
    labels = {
        (label.category, label.kind) for label in PassageLabel.objects.filter(passage=item.passage)
    }
    assert labels == {(MFN, LabelKind.REJECT), (ASSIGN, LabelKind.NOT_THIS)}
    assert AuditEvent.objects.filter(action="queue.answered").count() == 1


def test_an_answer_about_a_category_the_item_does_not_ask_is_refused(matter, lawyer):
    item = claimed(QueueItem.objects.get(review=reviewed(matter, BOTH)), lawyer)
    with pytest.raises(QueueConflict, match="does not ask about: Cap On Liability"):
        queue_item_answer(item_id=item.pk, user=lawyer, decisions={"Cap On Liability": "accept"})
    with pytest.raises(QueueConflict):
        queue_item_answer(item_id=item.pk, user=lawyer, decisions={MFN: "maybe"})


def test_a_one_click_decision_answers_every_open_category(matter, lawyer):
    item = claimed(QueueItem.objects.get(review=reviewed(matter, BOTH)), lawyer)
    queue_item_answer(item_id=item.pk, user=lawyer, decisions={ASSIGN: "not_this"})
    done = queue_item_decide(item_id=item.pk, user=lawyer, decision="accept", note="fine for us")
    assert done.decisions == {MFN: "accept", ASSIGN: "not_this"}
    assert done.decision == Decision.ACCEPT
    done.passage.refresh_from_db()
    assert done.passage.state == PassageState.CONFIRMED


def test_bulk_not_this_confirms_every_selected_false_flag(matter, lawyer):
    first = needs_lawyer(reviewed(matter, ASSIGNMENT))
    result = queue_items_decide(item_ids=[first.pk], user=lawyer, decision="not_this")
    assert result.passages_changed == 1 and result.items[0].decision == Decision.NOT_THIS


def test_labels_say_which_categories_are_there_and_not_acceptable_weighs_more(matter, lawyer):
    item = claimed(QueueItem.objects.get(review=reviewed(matter, BOTH)), lawyer)
    queue_item_answer(item_id=item.pk, user=lawyer, decisions={MFN: "reject", ASSIGN: "not_this"})
    labels = decision_labels(organisation_id=matter.organisation_id)
    assert {(label.category, label.positive) for label in labels} == {
        (MFN, True),
        (ASSIGN, False),
    }
    (router_example,) = label_examples(labels)
    assert router_example.labels == [frozenset({MFN})]  # Anti-Assignment: a negative here
    assert list(router_example.view_weights) == [NOT_ACCEPTABLE_WEIGHT]
    (check_passage,) = decided_passages(labels)
    assert set(check_passage.labels) == {MFN}
    assert check_passage.judged == frozenset({MFN, ASSIGN})


def test_accepted_and_rejected_clauses_stay_positive_examples(matter, lawyer):
    item = claimed(needs_lawyer(reviewed(matter, ASSIGNMENT)), lawyer)
    queue_item_decide(item_id=item.pk, user=lawyer, decision="accept")
    (example,) = label_examples(decision_labels(organisation_id=matter.organisation_id))
    assert example.labels == [frozenset({ASSIGN})] and list(example.view_weights) == [1.0]


def test_undo_takes_back_the_labels_of_the_decision(matter, lawyer):
    item = claimed(needs_lawyer(reviewed(matter, ASSIGNMENT)), lawyer)
    queue_item_decide(item_id=item.pk, user=lawyer, decision="not_this")
    undone = queue_item_undo(item_id=item.pk, user=lawyer)
    assert undone.status == ItemStatus.CLAIMED and undone.decisions == {}
    assert not PassageLabel.objects.exists()
    assert decision_labels(organisation_id=matter.organisation_id) == []
    undone.passage.refresh_from_db()
    assert undone.passage.state == PassageState.NEEDS_HUMAN_REVIEW


def test_the_queue_page_answers_each_category_and_offers_not_this(client, matter, lawyer):
    item = claimed(QueueItem.objects.get(review=reviewed(matter, BOTH)), lawyer)
    client.force_login(lawyer)
    page = client.get("/queue/").content.decode()
    assert 'data-action="not_this"' in page and f'name="answer:{ASSIGN}"' in page
    client.post(
        f"/queue/{item.pk}/decide/", {"decision": "answers", f"answer:{ASSIGN}": "not_this"}
    )
    item.refresh_from_db()
    assert item.status == ItemStatus.CLAIMED and item.decisions == {ASSIGN: "not_this"}
    page = client.get("/queue/").content.decode()
    assert f'name="answer:{ASSIGN}" value="not_this" checked' in page
    client.post(f"/queue/{item.pk}/decide/", {"decision": "answers", f"answer:{MFN}": "reject"})
    item.refresh_from_db()
    assert item.status == ItemStatus.DONE and item.decision == Decision.REJECT


def test_a_single_category_item_is_decided_not_this_in_one_click(client, matter, lawyer):
    item = claimed(needs_lawyer(reviewed(matter, ASSIGNMENT)), lawyer)
    client.force_login(lawyer)
    page = client.get("/queue/").content.decode()
    assert 'name="answer:' not in page  # one category: the three buttons are the answer
    client.post(f"/queue/{item.pk}/decide/", {"decision": "not_this"})
    item.refresh_from_db()
    assert item.status == ItemStatus.DONE and item.decision == Decision.NOT_THIS
    contract = item.passage.contract_id
    review_page = client.get(f"/contracts/{contract}/").content.decode()
    assert "not this kind of clause: Anti-Assignment" in review_page
    assert "Lawyer decision: not this kind of clause, by lee" in review_page
