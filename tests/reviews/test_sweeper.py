import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from reviewapp import broker
from reviewapp.contracts.models import Contract, DocumentStatus, PassageState
from reviewapp.reviews import sweeper, tasks
from reviewapp.reviews.models import Draft, DraftStatus, Review, Verification, VerificationStatus
from reviewapp.reviews.reasons import WORK_STALLED, reason_label
from reviewapp.reviews.services import review_scan
from reviewapp.reviews.sweeper import DRAFT_STALLED, stalled_work_sweep
from tests.factories import CONTRACT, STRICT, active_playbook, ingested_contract

pytestmark = pytest.mark.django_db

LIMIT_S = 60
MAX_ATTEMPTS = 2


@pytest.fixture(autouse=True)
def _limits(settings):
    settings.SWEEP_STALLED_AFTER_S = LIMIT_S
    settings.SWEEP_MAX_ATTEMPTS = MAX_ATTEMPTS


@pytest.fixture
def review(matter):
    active_playbook(organisation=matter.organisation, source=STRICT)
    contract = ingested_contract(matter=matter, text=CONTRACT)
    return review_scan(contract_id=contract.pk, enqueue=False)


@pytest.fixture
def queued(monkeypatch):
    """The tasks the sweeper sends, recorded instead of run."""
    sent: dict[str, list[tuple]] = {"draft": [], "verify": []}
    monkeypatch.setattr(tasks.draft_review, "delay", lambda *a: sent["draft"].append(a))
    monkeypatch.setattr(tasks.verify_batch, "delay", lambda *a: sent["verify"].append(a))
    return sent


def _long_ago() -> object:
    return timezone.now() - timedelta(seconds=LIMIT_S + 5)


def _stall_verification(verification: Verification) -> None:
    Verification.objects.filter(pk=verification.pk).update(
        created_at=_long_ago(), requeued_at=_long_ago() if verification.requeued_at else None
    )


def test_contract_ingested_but_never_scanned_is_scanned(matter):
    active_playbook(organisation=matter.organisation, source=STRICT)
    contract = ingested_contract(matter=matter, text=CONTRACT)
    Contract.objects.filter(pk=contract.pk).update(updated_at=_long_ago())

    assert stalled_work_sweep().contracts_requeued == [contract.pk]

    assert Review.objects.filter(contract=contract).exists()
    contract.refresh_from_db()
    assert contract.status == DocumentStatus.INGESTED
    assert stalled_work_sweep().total == 0


def test_recently_ingested_contract_is_left_alone(matter):
    contract = ingested_contract(matter=matter, text=CONTRACT)
    assert stalled_work_sweep().total == 0
    assert not Review.objects.filter(contract=contract).exists()


def test_contract_stalled_after_its_last_attempt_cannot_be_read(matter):
    contract = ingested_contract(matter=matter, text=CONTRACT)
    Contract.objects.filter(pk=contract.pk).update(
        status=DocumentStatus.INGESTING, ingest_attempts=MAX_ATTEMPTS, updated_at=_long_ago()
    )

    stalled_work_sweep()

    contract.refresh_from_db()
    assert contract.status == DocumentStatus.PARSE_FAILED
    assert (
        contract.error_message == f"This document could not be read after {MAX_ATTEMPTS} attempts."
    )
    assert not contract.passages.exists()
    assert stalled_work_sweep().total == 0


def test_stalled_verification_is_queued_again_then_goes_to_a_lawyer(review, queued):
    verification = Verification.objects.get(review=review)
    _stall_verification(verification)

    assert stalled_work_sweep().verifications_requeued == [verification.pk]
    assert queued["verify"] == [(review.pk, [verification.pk])]
    assert stalled_work_sweep().total == 0  # a second sweep right after changes nothing
    assert len(queued["verify"]) == 1

    for _ in range(MAX_ATTEMPTS - 1):
        verification.refresh_from_db()
        _stall_verification(verification)
        stalled_work_sweep()
    verification.refresh_from_db()
    assert verification.attempts == MAX_ATTEMPTS
    assert verification.status == VerificationStatus.QUEUED
    _stall_verification(verification)

    assert stalled_work_sweep().verifications_given_up == [verification.pk]

    verification.refresh_from_db()
    assert verification.status == VerificationStatus.DONE
    assert verification.outcome == PassageState.NEEDS_HUMAN_REVIEW
    assert verification.reason == WORK_STALLED
    assert "did not finish" in reason_label(verification.reason)
    assert verification.passage.state == PassageState.NEEDS_HUMAN_REVIEW
    assert len(queued["verify"]) == MAX_ATTEMPTS
    assert stalled_work_sweep().total == 0


def test_draft_stuck_streaming_ends_failed_after_the_last_attempt(review, queued):
    draft = Draft.objects.get(review=review)
    for attempt in range(1, MAX_ATTEMPTS + 1):
        Draft.objects.filter(pk=draft.pk).update(
            status=DraftStatus.STREAMING, updated_at=_long_ago()
        )
        assert stalled_work_sweep().drafts_requeued == [draft.pk]
        assert stalled_work_sweep().total == 0
        assert len(queued["draft"]) == attempt
    Draft.objects.filter(pk=draft.pk).update(updated_at=_long_ago())

    assert stalled_work_sweep().drafts_failed == [draft.pk]

    draft.refresh_from_db()
    assert draft.status == DraftStatus.FAILED
    assert draft.error == DRAFT_STALLED
    assert len(queued["draft"]) == MAX_ATTEMPTS
    assert stalled_work_sweep().total == 0


def test_sweep_with_the_broker_down_waits_for_the_next_sweep(review, monkeypatch):
    def broker_down(*_args):
        raise ConnectionError("broker down")

    monkeypatch.setattr(tasks.draft_review, "delay", broker_down)
    Draft.objects.filter(review=review).update(updated_at=_long_ago())

    assert tasks.sweep_stalled_work() >= 1

    draft = Draft.objects.get(review=review)
    assert draft.status == DraftStatus.QUEUED
    assert draft.attempts == 1


def test_worker_start_sends_one_sweep(monkeypatch):
    from reviewapp import celery

    sent = []
    monkeypatch.setattr(celery.app, "send_task", lambda name, **_kw: sent.append(name))
    celery._sweep_stalled_work()
    assert sent == ["reviewapp.reviews.tasks.sweep_stalled_work"]


def test_work_waiting_behind_a_backlog_is_left_alone_but_a_stopped_draft_is_not(
    review, queued, monkeypatch
):
    monkeypatch.setattr(sweeper, "backlog", lambda task_name: True)
    verification = Verification.objects.get(review=review)
    _stall_verification(verification)
    Draft.objects.filter(review=review).update(updated_at=_long_ago())

    assert stalled_work_sweep().total == 0  # queued for longer than the limit, but in line
    verification.refresh_from_db()
    assert verification.attempts == 0

    Draft.objects.filter(review=review).update(status=DraftStatus.STREAMING)
    assert stalled_work_sweep().drafts_requeued == [review.draft.pk]  # it started and stopped


def test_a_scan_waiting_behind_the_ocr_backlog_is_left_alone_until_that_queue_drains(
    matter, monkeypatch
):
    from reviewapp.contracts import services
    from reviewapp.contracts.services import OCR_QUEUED_PROGRESS

    sent: list[int] = []
    monkeypatch.setattr(services, "_enqueue_ingest", sent.append)
    contract = ingested_contract(matter=matter, text=CONTRACT)
    Contract.objects.filter(pk=contract.pk).update(
        status=DocumentStatus.INGESTING, progress=OCR_QUEUED_PROGRESS, updated_at=_long_ago()
    )
    ocr_busy = True
    monkeypatch.setattr(sweeper, "backlog", lambda task: ocr_busy and task == sweeper.OCR_TASK)

    assert stalled_work_sweep().total == 0 and not sent  # in line for the OCR, not lost
    contract.refresh_from_db()
    assert contract.ingest_attempts == 0

    ocr_busy = False  # the OCR queue drained and the scan is still waiting: its message is lost
    assert stalled_work_sweep().contracts_requeued == [contract.pk] and sent == [contract.pk]


def test_a_sweep_takes_on_a_bounded_number_of_rows(review, queued, monkeypatch):
    monkeypatch.setattr(sweeper, "SWEEP_LIMIT", 1)
    other = ingested_contract(matter=review.contract.matter, text=CONTRACT + "\n9. Misc.\n")
    review_scan(contract_id=other.pk, enqueue=False)
    assert Verification.objects.count() == 2
    Verification.objects.update(created_at=_long_ago())

    assert len(stalled_work_sweep().verifications_requeued) == 1
    assert len(stalled_work_sweep().verifications_requeued) == 1
    assert stalled_work_sweep().total == 0


@pytest.mark.filterwarnings("ignore::celery.exceptions.AlwaysEagerIgnored")
def test_the_broker_counts_the_messages_waiting_in_a_queue():
    from reviewapp.celery import app

    queue = f"test-backlog-{uuid.uuid4().hex}"
    assert broker.queue_waiting(queue) == 0
    app.send_task("clausewise.test.nothing", queue=queue)
    try:
        assert broker.queue_waiting(queue) == 1
    finally:
        with app.connection_for_write() as connection:
            connection.default_channel.queue_purge(queue)
    assert broker.queue_waiting(queue) == 0
