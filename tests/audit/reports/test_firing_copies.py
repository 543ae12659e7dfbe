"""Firings carry their passage's state and length so the reports never join the passages."""

import pytest

from reviewapp.accounts.models import Membership, Role
from reviewapp.contracts.models import PassageState
from reviewapp.queue.models import QueueItem
from reviewapp.queue.services import queue_item_claim, queue_item_decide
from reviewapp.reviews.models import RuleFiring
from reviewapp.reviews.services import review_scan
from tests.factories import STRICT, active_playbook, ingested_contract

pytestmark = pytest.mark.django_db

TEXT = "1. Pricing. Customer shall receive most favored nation pricing.\n"


def test_the_scan_copies_state_and_length_onto_one_first_firing_per_passage(matter):
    active_playbook(organisation=matter.organisation, source=STRICT)
    review = review_scan(contract_id=ingested_contract(matter=matter, text=TEXT).pk, enqueue=False)
    firings = list(RuleFiring.objects.filter(review=review).select_related("passage"))
    assert firings
    for firing in firings:
        assert firing.passage_state == firing.passage.state == PassageState.REJECTED
        assert firing.passage_chars == firing.passage.end - firing.passage.start
    firsts = [firing.passage_id for firing in firings if firing.passage_first]
    assert sorted(firsts) == sorted({firing.passage_id for firing in firings})


def test_a_lawyers_decision_moves_the_firings_state_with_the_passage(matter, make_user):
    lee = make_user("lee")
    Membership.objects.create(user=lee, matter=matter, role=Role.LAWYER)
    active_playbook(organisation=matter.organisation, source=STRICT)
    review = review_scan(contract_id=ingested_contract(matter=matter, text=TEXT).pk, enqueue=False)
    item = QueueItem.objects.get(review=review)
    queue_item_claim(item_id=item.pk, user=lee)
    queue_item_decide(item_id=item.pk, user=lee, decision="accept", note="Fine for this client.")
    firing = RuleFiring.objects.select_related("passage").get(passage_id=item.passage_id)
    assert firing.passage.state == firing.passage_state == PassageState.CONFIRMED
