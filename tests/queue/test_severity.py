"""A clause that only protects our client opens one severity step lower where the playbook says
``lower``, and its due time follows that severity's SLA; choosing or changing the party later
works the open items out again (audited), and an escalated item keeps its raised severity."""

from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from reviewapp.audit.models import AuditAction, AuditEvent
from reviewapp.queue.escalation import queue_escalate_overdue
from reviewapp.queue.models import HistoryAction, ItemStatus, QueueItem
from reviewapp.reviews.acting_for.services import contract_acting_for_set, matter_acting_for_set
from reviewapp.reviews.model_work import verifications_run
from reviewapp.reviews.models import Verification
from reviewapp.reviews.services import review_scan
from tests.factories import active_playbook, ingested_contract

pytestmark = pytest.mark.django_db

SUPPLY = (
    "SUPPLY AGREEMENT\n\n"
    "This Supply Agreement is made between Borealis Retail Ltd., a company organized and existing "
    'under the laws of England ("Buyer"), and Acme Widgets Inc., a Delaware corporation '
    '("Seller").\n\n'
    "1. Payment. Buyer shall pay each invoice within 30 days.\n\n"
    "2. Exclusivity. Seller shall not sell the Products to any other retailer in the Territory.\n"
)
PLAYBOOK = """
name: side-lower
version: "1"
language: en
side:
  protects_client: {policy}
rules:
  - id: en.side.exclusivity
    category: Exclusivity
    severity: high
    action: verify
    patterns: ['shall not sell']
    question: Does the restriction protect our client?
  - id: en.side.payment
    category: Late Payment Interest
    severity: high
    action: verify
    patterns: ['shall pay']
    question: Can our client pay within the period?
"""
BUYER = "Borealis Retail Ltd."
SELLER = "Acme Widgets Inc."


@pytest.fixture
def supply(matter):
    return ingested_contract(matter=matter, text=SUPPLY, name="supply.txt")


def _reviewed(contract, policy: str = "lower", *, capture=None) -> None:
    """Scanned and checked offline; with ``capture`` (the on-commit fixture) the draft is
    written too, whose parties a matter's choice is made from."""
    source = PLAYBOOK.format(policy=policy)
    active_playbook(organisation=contract.matter.organisation, source=source, name="side")
    if capture is not None:
        with capture(execute=True):
            review_scan(contract_id=contract.pk)
        return
    review = review_scan(contract_id=contract.pk, enqueue=False)
    pending = list(Verification.objects.filter(review=review).values_list("pk", flat=True))
    verifications_run(review_id=review.pk, verification_ids=pending)


def _item(words: str) -> QueueItem:
    return QueueItem.objects.get(passage__text__contains=words)


def _sla_hours(item: QueueItem) -> float:
    return (item.due_at - item.created_at).total_seconds() / 3600


def test_a_clause_that_only_protects_the_client_opens_one_step_lower_and_due_later(supply, lawyer):
    contract_acting_for_set(contract=supply, name=BUYER, role="", set_by=lawyer)
    _reviewed(supply)
    protects, binds = _item("Seller shall not"), _item("Buyer shall pay")
    assert (protects.severity, binds.severity) == ("medium", "high")
    assert _sla_hours(protects) == pytest.approx(settings.QUEUE_SLA_HOURS["medium"], abs=0.01)
    assert _sla_hours(binds) == pytest.approx(settings.QUEUE_SLA_HOURS["high"], abs=0.01)


def test_the_playbook_s_lawyer_policy_keeps_the_severity_as_flagged(supply, lawyer):
    contract_acting_for_set(contract=supply, name=BUYER, role="", set_by=lawyer)
    _reviewed(supply, policy="lawyer")
    assert _item("Seller shall not").severity == "high"


def test_choosing_the_party_later_lowers_the_open_item_and_audits_it(
    supply, lawyer, django_capture_on_commit_callbacks
):
    _reviewed(supply)
    before = _item("Seller shall not")
    assert before.severity == "high"
    with django_capture_on_commit_callbacks(execute=True):
        contract_acting_for_set(contract=supply, name=BUYER, role="", set_by=lawyer)
    after = _item("Seller shall not")
    assert after.severity == "medium"
    lengthened = settings.QUEUE_SLA_HOURS["medium"] - settings.QUEUE_SLA_HOURS["high"]
    assert after.due_at - before.due_at == timedelta(hours=lengthened)
    assert _item("Buyer shall pay").severity == "high"  # it binds our client
    line = after.history.get(action=HistoryAction.SEVERITY_SET)
    assert (line.actor, line.detail) == (lawyer, "high → medium")
    event = AuditEvent.objects.get(action=AuditAction.QUEUE_SEVERITY_SET)
    assert event.target_id == str(after.pk) and event.actor == lawyer.get_username()
    assert event.data["previous_severity"] == "high" and event.data["severity"] == "medium"
    assert event.data["due_at"] == after.due_at.isoformat()


def test_acting_for_the_other_side_raises_it_back_and_a_matter_choice_counts_too(
    supply, lawyer, django_capture_on_commit_callbacks
):
    _reviewed(supply, capture=django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        matter_acting_for_set(matter=supply.matter, name=BUYER, role="", set_by=lawyer)
    assert _item("Seller shall not").severity == "medium"
    with django_capture_on_commit_callbacks(execute=True):
        contract_acting_for_set(contract=supply, name=SELLER, role="", set_by=lawyer)
    assert (_item("Seller shall not").severity, _item("Buyer shall pay").severity) == (
        "high",
        "medium",
    )
    assert QueueItem.objects.filter(history__action=HistoryAction.SEVERITY_SET).count() == 3


def test_an_escalated_item_keeps_the_severity_escalation_raised_it_to(
    supply, lawyer, django_capture_on_commit_callbacks
):
    _reviewed(supply)
    item = _item("Seller shall not")
    QueueItem.objects.filter(pk=item.pk).update(due_at=timezone.now() - timedelta(minutes=1))
    with django_capture_on_commit_callbacks(execute=True):
        queue_escalate_overdue()
    escalated = QueueItem.objects.get(pk=item.pk)
    assert escalated.severity == "critical"
    with django_capture_on_commit_callbacks(execute=True):
        contract_acting_for_set(contract=supply, name=BUYER, role="", set_by=lawyer)
    kept = QueueItem.objects.get(pk=item.pk)
    assert (kept.severity, kept.due_at) == ("critical", escalated.due_at)
    assert not kept.history.filter(action=HistoryAction.SEVERITY_SET).exists()


def test_a_decided_item_is_not_worked_out_again(supply, lawyer, django_capture_on_commit_callbacks):
    _reviewed(supply)
    QueueItem.objects.filter(passage__text__contains="Seller shall not").update(
        status=ItemStatus.DONE
    )
    with django_capture_on_commit_callbacks(execute=True):
        contract_acting_for_set(contract=supply, name=BUYER, role="", set_by=lawyer)
    assert _item("Seller shall not").severity == "high"


def test_the_history_line_reads_in_english_and_chinese(
    client, supply, lawyer, django_capture_on_commit_callbacks
):
    _reviewed(supply)
    with django_capture_on_commit_callbacks(execute=True):
        contract_acting_for_set(contract=supply, name=BUYER, role="", set_by=lawyer)
    client.force_login(lawyer)
    english = client.get("/queue/").content.decode()
    assert "Severity set for our side" in english and "high → medium" in english
    chinese = client.get("/queue/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "已按我方调整严重程度" in chinese
