"""Commit first, notify after: Redis or the broker being down never fails a committed change.

These tests commit for real (transactional_db), so the after-commit pushes and task sends run
inside the request, as they do in production.
"""

from datetime import timedelta
from pathlib import Path

import pytest
import redis
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerError

from reviewapp.accounts.models import Membership, Role
from reviewapp.contracts import tasks as contract_tasks
from reviewapp.contracts.models import Contract, DocumentStatus
from reviewapp.queue.models import ItemStatus, QueueItem
from reviewapp.realtime import events
from reviewapp.realtime.models import Event
from reviewapp.reviews.services import review_scan
from reviewapp.reviews.sweeper import stalled_work_sweep
from tests.factories import CONTRACT, STRICT, active_playbook, ingested_contract

pytestmark = pytest.mark.django_db(transaction=True)

TEXT = "1. Term. This Agreement continues for two years.\n\n2. Notices. In writing.\n"


class BrokenLayer:
    def __init__(self) -> None:
        self.tries = 0

    async def group_send(self, group, message):
        self.tries += 1
        raise redis.ConnectionError("Error 111 connecting to redis. Connection refused.")


@pytest.fixture
def redis_down(monkeypatch, settings):
    settings.REDIS_URL = settings.REDIS_URL or "redis://127.0.0.1:1/0"
    layer = BrokenLayer()
    monkeypatch.setattr(events, "get_channel_layer", lambda: layer)
    return layer


def test_event_publish_with_redis_down_commits_and_stores_the_event(matter, redis_down):
    from django.db import transaction

    with transaction.atomic():
        event = events.event_publish(matter_id=matter.pk, type="test.ping", payload={"n": 1})

    assert redis_down.tries == 1
    assert Event.objects.filter(pk=event.pk, type="test.ping").exists()


def test_queue_decision_with_redis_down_answers_success(client, matter, make_user, redis_down):
    active_playbook(organisation=matter.organisation, source=STRICT)
    contract = ingested_contract(matter=matter, text=CONTRACT)
    review = review_scan(contract_id=contract.pk, enqueue=False)
    lee = make_user("lee")
    Membership.objects.create(user=lee, matter=matter, role=Role.LAWYER)
    item = QueueItem.objects.get(review=review)
    client.force_login(lee)
    before = Event.objects.count()

    assert client.post(f"/queue/{item.pk}/claim/").status_code in (200, 302)
    response = client.post(f"/queue/{item.pk}/decide/", {"decision": "reject", "note": "No."})

    assert response.status_code in (200, 302)
    item.refresh_from_db()
    assert item.status == ItemStatus.DONE and item.decision == "reject"
    assert Event.objects.count() > before  # stored: a client catches up by sequence number
    assert redis_down.tries > 0


def test_upload_with_the_broker_down_succeeds_keeps_the_file_and_is_swept_later(
    client, matter, reviewer, monkeypatch, settings
):
    def broker_down(*_args):
        raise BrokerError("Error 111 connecting to the broker. Connection refused.")

    monkeypatch.setattr(contract_tasks.ingest_contract, "delay", broker_down)
    client.force_login(reviewer)
    upload = SimpleUploadedFile("term.txt", TEXT.encode(), content_type="text/plain")

    response = client.post(f"/api/matters/{matter.pk}/contracts/", {"file": upload})

    assert response.status_code == 201, response.content
    contract = Contract.objects.get(pk=response.json()["id"])
    assert contract.status == DocumentStatus.QUEUED
    assert Path(contract.file.path).read_text() == TEXT

    monkeypatch.undo()  # the broker is back
    settings.SWEEP_STALLED_AFTER_S = 60
    Contract.objects.filter(pk=contract.pk).update(updated_at=timezone.now() - timedelta(hours=1))
    assert stalled_work_sweep().contracts_requeued == [contract.pk]
    contract.refresh_from_db()
    assert contract.status == DocumentStatus.INGESTED
    assert contract.text == TEXT
