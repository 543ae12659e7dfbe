"""A claim is given back by the lawyer who holds it, or by an admin of the matter; audited."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied

from reviewapp.accounts.models import Membership, Role
from reviewapp.audit.models import AuditEvent
from reviewapp.queue.decisions import (
    queue_item_answer,
    queue_item_claim,
    queue_item_release,
)
from reviewapp.queue.models import HistoryAction, ItemStatus, QueueItem
from reviewapp.queue.records import QueueConflict
from tests.queue.test_category_decisions import BOTH, MFN, reviewed

pytestmark = pytest.mark.django_db


@pytest.fixture
def item(matter, lawyer):
    found = QueueItem.objects.get(review=reviewed(matter, BOTH))
    return queue_item_claim(item_id=found.pk, user=lawyer)


def test_the_claimer_releases_and_another_lawyer_can_claim(item, lawyer, make_user, matter):
    queue_item_answer(item_id=item.pk, user=lawyer, decisions={MFN: "reject"})
    released = queue_item_release(item_id=item.pk, user=lawyer)
    assert released.status == ItemStatus.OPEN and released.claimed_by is None
    assert released.decisions == {}  # the answers went with the claim
    event = AuditEvent.objects.get(action="queue.released")
    assert event.actor == lawyer.username and event.data["released_from"] == lawyer.username
    assert released.history.filter(action=HistoryAction.RELEASED).exists()
    colleague = make_user("liu")
    Membership.objects.create(user=colleague, matter=matter, role=Role.LAWYER)
    assert queue_item_claim(item_id=item.pk, user=colleague).claimed_by == colleague


def test_an_admin_releases_a_colleagues_claim(item, admin, lawyer):
    released = queue_item_release(item_id=item.pk, user=admin)
    assert released.status == ItemStatus.OPEN
    event = AuditEvent.objects.get(action="queue.released")
    assert event.actor == admin.username and event.data["released_from"] == lawyer.username


def test_another_lawyer_cannot_release_a_claim(item, make_user, matter):
    colleague = make_user("liu")
    Membership.objects.create(user=colleague, matter=matter, role=Role.LAWYER)
    with pytest.raises(PermissionDenied):
        queue_item_release(item_id=item.pk, user=colleague)
    item.refresh_from_db()
    assert item.status == ItemStatus.CLAIMED


def test_a_reviewer_cannot_release_and_an_open_item_has_no_claim(item, reviewer, lawyer):
    with pytest.raises(PermissionDenied):
        queue_item_release(item_id=item.pk, user=reviewer)
    queue_item_release(item_id=item.pk, user=lawyer)
    with pytest.raises(QueueConflict, match="not claimed"):
        queue_item_release(item_id=item.pk, user=lawyer)


def test_the_queue_page_offers_release_to_the_claimer_and_admins(client, item, lawyer, admin):
    client.force_login(admin)
    assert 'data-action="release"' in client.get("/queue/").content.decode()
    client.force_login(lawyer)
    page = client.get("/queue/").content.decode()
    assert "Release my claim" in page
    client.post(f"/queue/{item.pk}/release/")
    item.refresh_from_db()
    assert item.status == ItemStatus.OPEN


def test_the_contracts_history_says_who_released_whose_claim(client, item, admin, lawyer):
    queue_item_release(item_id=item.pk, user=admin)
    client.force_login(lawyer)
    page = client.get(f"/contracts/{item.passage.contract_id}/history/").content.decode()
    assert "Claim released" in page and lawyer.username in page
