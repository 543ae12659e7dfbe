"""Review.completed_at, the end of the upload-to-completion turnaround in the reports."""

import pytest

from reviewapp.accounts.models import Membership, Role
from reviewapp.queue.models import QueueItem
from reviewapp.queue.services import queue_item_claim, queue_item_decide
from reviewapp.reviews.models import ReviewStatus
from reviewapp.reviews.services import review_scan
from tests.factories import STRICT, active_playbook, ingested_contract

pytestmark = pytest.mark.django_db


def test_a_review_with_nothing_to_check_is_complete_at_the_scan(matter):
    active_playbook(organisation=matter.organisation, source=STRICT)
    contract = ingested_contract(matter=matter, text="1. Notices. Notices shall be in writing.\n")
    review = review_scan(contract_id=contract.pk, enqueue=False)
    assert review.status == ReviewStatus.COMPLETE
    assert review.completed_at is not None and review.completed_at >= contract.created_at


def test_completed_at_is_set_when_the_last_decision_completes_the_review(matter, make_user):
    lee = make_user("lee")
    Membership.objects.create(user=lee, matter=matter, role=Role.LAWYER)
    active_playbook(organisation=matter.organisation, source=STRICT)
    text = "1. Pricing. Customer shall receive most favored nation pricing.\n"
    review = review_scan(contract_id=ingested_contract(matter=matter, text=text).pk, enqueue=False)
    assert review.status == ReviewStatus.BLOCKED and review.completed_at is None
    item = QueueItem.objects.get(review=review)
    queue_item_claim(item_id=item.pk, user=lee)
    queue_item_decide(item_id=item.pk, user=lee, decision="accept", note="Fine for this client.")
    review.refresh_from_db()
    assert review.status == ReviewStatus.COMPLETE
    assert review.completed_at is not None and review.completed_at >= item.created_at
