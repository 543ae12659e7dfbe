"""Deleting a contract: who may, what is erased, what the audit log keeps, and the legal hold."""

from __future__ import annotations

import io
import json

import pytest
from django.core.exceptions import PermissionDenied
from django.core.files.storage import default_storage

from reviewapp.accounts.models import Role
from reviewapp.accounts.services import matter_legal_hold_lift, matter_legal_hold_set
from reviewapp.audit.models import AuditAction, AuditEvent
from reviewapp.audit.recorders import sha256_text
from reviewapp.contracts.deletion import (
    DELETED_NAME,
    ContractDeletionRefused,
    contract_delete,
)
from reviewapp.contracts.models import Contract, DocumentStatus, Passage
from reviewapp.contracts.services import contract_ingest, contract_upload
from reviewapp.queue.models import QueueItem
from reviewapp.realtime.events import event_publish
from reviewapp.realtime.models import Event
from reviewapp.reviews.models import Review, RuleFiring, Verification
from tests.factories import CONTRACT, STRICT, active_playbook

pytestmark = pytest.mark.django_db

NAME = "project-falcon-secret-deal.txt"


@pytest.fixture
def reviewed(matter, reviewer, django_capture_on_commit_callbacks):
    """A contract uploaded, read and scanned: passages, a review, firings and a queue item."""
    active_playbook(organisation=matter.organisation, source=STRICT)
    body = CONTRACT.encode()
    with django_capture_on_commit_callbacks(execute=False):
        contract, _ = contract_upload(
            matter=matter, file=io.BytesIO(body), name=NAME, size=len(body), uploaded_by=reviewer
        )
    contract_ingest(contract_id=contract.pk, enqueue=False)
    contract.refresh_from_db()
    assert contract.status == DocumentStatus.INGESTED
    assert QueueItem.objects.filter(passage__contract=contract).exists()
    return contract


def failed_upload(matter, user, name="broken.pdf", status=DocumentStatus.PARSE_FAILED):
    body = f"%PDF-1.7 not really a pdf: {name}".encode()
    contract, _ = contract_upload(
        matter=matter, file=io.BytesIO(body), name=name, size=len(body),
        uploaded_by=user, enqueue=False,
    )  # fmt: skip
    Contract.objects.filter(pk=contract.pk).update(status=status)
    contract.refresh_from_db()
    return contract


def test_deletion_erases_rows_file_and_name_and_keeps_an_audit_fact(
    reviewed, admin, django_capture_on_commit_callbacks
):
    file_name, pk = reviewed.file.name, reviewed.pk
    passages = reviewed.passages.count()
    assert default_storage.exists(file_name)
    quoted = {
        "contract_id": pk,
        "passage": 1,
        "outcome": "REJECTED",
        "quote": "most favored nation",
    }
    event_publish(matter_id=reviewed.matter_id, type="verification.done", payload=quoted)
    assert NAME in json.dumps(list(Event.objects.values_list("payload", flat=True)))

    with django_capture_on_commit_callbacks(execute=True):
        contract_delete(contract=reviewed, deleted_by=admin, reason="wrong_file")

    assert not Contract.objects.filter(pk=pk).exists()
    assert not Passage.objects.filter(contract_id=pk).exists()
    assert not Review.objects.filter(contract_id=pk).exists()
    assert not RuleFiring.objects.filter(passage__contract_id=pk).exists()
    assert not Verification.objects.filter(passage__contract_id=pk).exists()
    assert not QueueItem.objects.filter(passage__contract_id=pk).exists()
    assert not default_storage.exists(file_name)

    stored = json.dumps(list(Event.objects.values_list("payload", flat=True)))
    assert NAME not in stored and "most favored nation" not in stored.lower()
    progress = Event.objects.filter(type="document.progress", payload__contract_id=pk).first()
    assert progress is not None and progress.payload["name"] == DELETED_NAME
    verified = Event.objects.get(type="verification.done")
    assert verified.payload == {
        "contract_id": pk,
        "passage": 1,
        "outcome": "REJECTED",
        "deleted": True,
    }

    [event] = AuditEvent.objects.filter(action=AuditAction.CONTRACT_DELETED)
    assert (event.actor_kind, event.actor, event.target_id) == ("user", "ada", str(pk))
    assert event.data["sha256"] == reviewed.sha256 and event.data["size"] == reviewed.size
    assert event.data["passage_count"] == passages and event.data["reason"] == "wrong_file"
    assert event.data["name_sha256"] == sha256_text(NAME)
    assert event.data["matter_id"] == reviewed.matter_id
    audit_text = json.dumps(event.data)
    assert NAME not in audit_text and "Assignment" not in audit_text


def test_file_stays_when_the_deletion_rolls_back(reviewed, admin, monkeypatch):
    from reviewapp.contracts import deletion

    def broken(*args, **kwargs):
        raise RuntimeError("audit down")

    monkeypatch.setattr(deletion, "audit_record", broken)
    with pytest.raises(RuntimeError):
        contract_delete(contract=reviewed, deleted_by=admin, reason="requested")
    assert Contract.objects.filter(pk=reviewed.pk).exists()
    assert default_storage.exists(reviewed.file.name)


def test_lawyer_and_reviewer_cannot_delete_a_read_contract(client, reviewed, lawyer, reviewer):
    for user in (lawyer, reviewer):
        with pytest.raises(PermissionDenied):
            contract_delete(contract=reviewed, deleted_by=user, reason="requested")
        client.force_login(user)
        assert client.post(f"/contracts/{reviewed.pk}/delete/").status_code == 403
        response = client.delete(f"/api/contracts/{reviewed.pk}/")
        assert response.status_code == 403
        assert response.json()["error"]["code"] == "PERMISSION_DENIED"
        page = client.get(f"/matters/{reviewed.matter_id}/").content.decode()
        assert f"/contracts/{reviewed.pk}/delete/" not in page
    assert Contract.objects.filter(pk=reviewed.pk).exists()


def test_uploader_deletes_their_failed_upload_but_not_someone_elses(
    client, matter, reviewer, lawyer
):
    own = failed_upload(matter, reviewer)
    theirs = failed_upload(matter, lawyer, name="other.pdf", status=DocumentStatus.NEEDS_OCR)
    client.force_login(reviewer)
    page = client.get(f"/matters/{matter.pk}/").content.decode()
    assert f"/contracts/{own.pk}/delete/" in page
    assert f"/contracts/{theirs.pk}/delete/" not in page
    assert client.delete(f"/api/contracts/{theirs.pk}/").status_code == 403
    assert client.delete(f"/api/contracts/{own.pk}/?reason=wrong_file").status_code == 204
    assert not Contract.objects.filter(pk=own.pk).exists()
    event = AuditEvent.objects.get(action=AuditAction.CONTRACT_DELETED)
    assert (event.actor, event.data["reason"]) == ("rita", "wrong_file")


def test_another_organisations_admin_gets_404(client, reviewed, make_user, make_matter):
    outsider = make_user("oscar")
    make_matter(name="Theirs", organisation="Other LLP", members=[(outsider, Role.ADMIN)])
    client.force_login(outsider)
    assert client.get(f"/contracts/{reviewed.pk}/delete/").status_code == 404
    assert client.post(f"/contracts/{reviewed.pk}/delete/").status_code == 404
    response = client.delete(f"/api/contracts/{reviewed.pk}/")
    assert response.status_code == 404 and response.json()["error"]["code"] == "NOT_FOUND"
    assert Contract.objects.filter(pk=reviewed.pk).exists()


def test_admin_of_the_organisation_not_on_the_matter_may_delete(
    client, reviewed, make_user, make_matter
):
    boss = make_user("bea")
    organisation = reviewed.matter.organisation.name
    make_matter(name="Another", organisation=organisation, members=[(boss, Role.ADMIN)])
    client.force_login(boss)
    assert client.delete(f"/api/contracts/{reviewed.pk}/").status_code == 204
    assert not Contract.objects.filter(pk=reviewed.pk).exists()


def test_admin_deletes_from_the_pages_after_confirming(client, reviewed, admin):
    client.force_login(admin)
    matter_page = client.get(f"/matters/{reviewed.matter_id}/").content.decode()
    assert f"/contracts/{reviewed.pk}/delete/" in matter_page
    contract_page = client.get(f"/contracts/{reviewed.pk}/").content.decode()
    assert 'id="delete-contract-link"' in contract_page
    confirm = client.get(f"/contracts/{reviewed.pk}/delete/").content.decode()
    assert 'id="confirm-delete"' in confirm and "csrfmiddlewaretoken" in confirm
    assert Contract.objects.filter(pk=reviewed.pk).exists()  # a GET deletes nothing

    response = client.post(
        f"/contracts/{reviewed.pk}/delete/", {"reason": "duplicate"}, follow=True
    )
    assert response.redirect_chain[-1][0] == f"/matters/{reviewed.matter_id}/"
    page = response.content.decode()
    assert "are deleted" in page and NAME not in page
    assert not Contract.objects.filter(pk=reviewed.pk).exists()


def test_an_unknown_reason_is_refused(client, reviewed, admin):
    client.force_login(admin)
    response = client.delete(f"/api/contracts/{reviewed.pk}/?reason=because")
    assert response.status_code == 400 and response.json()["error"]["code"] == "INVALID"
    with pytest.raises(ContractDeletionRefused):
        contract_delete(contract=reviewed, deleted_by=admin, reason="retention")
    assert Contract.objects.filter(pk=reviewed.pk).exists()


def test_legal_hold_blocks_page_and_api_deletion_until_lifted(client, reviewed, admin):
    matter = reviewed.matter
    matter_legal_hold_set(matter=matter, reason="Litigation with Acme", by=admin)
    client.force_login(admin)

    with pytest.raises(ContractDeletionRefused) as refused:
        contract_delete(contract=reviewed, deleted_by=admin, reason="requested")
    assert refused.value.code == "LEGAL_HOLD"
    response = client.delete(f"/api/contracts/{reviewed.pk}/")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "LEGAL_HOLD"
    assert "legal hold" in response.json()["error"]["message"]
    page = client.post(
        f"/contracts/{reviewed.pk}/delete/", {"reason": "requested"}, follow=True
    ).content.decode()
    assert "legal hold" in page
    matter_page = client.get(f"/matters/{matter.pk}/").content.decode()
    assert 'id="legal-hold-banner"' in matter_page
    assert f"/contracts/{reviewed.pk}/delete/" not in matter_page
    assert Contract.objects.filter(pk=reviewed.pk).exists()
    assert not AuditEvent.objects.filter(action=AuditAction.CONTRACT_DELETED).exists()

    matter_legal_hold_lift(matter=matter, by=admin)
    assert client.delete(f"/api/contracts/{reviewed.pk}/").status_code == 204
    assert not Contract.objects.filter(pk=reviewed.pk).exists()


def test_delete_is_documented_in_the_schema(client, admin):
    client.force_login(admin)
    schema = client.get("/api/schema/", {"format": "json"}).json()
    operation = schema["paths"]["/api/contracts/{contract_id}/"]["delete"]
    assert {"204", "403", "404", "409"} <= set(operation["responses"])


def test_the_audit_log_filters_on_a_deleted_contract_and_says_why_it_went(
    client, reviewed, admin, django_capture_on_commit_callbacks
):
    pk, digest = reviewed.pk, reviewed.sha256
    with django_capture_on_commit_callbacks(execute=True):
        contract_delete(contract=reviewed, deleted_by=admin, reason="wrong_file")
    client.force_login(admin)
    response = client.get("/audit/", {"contract": pk})
    assert response.status_code == 200
    html = response.content.decode()
    assert f'<option value="{pk}" selected>Contract {pk} (deleted)</option>' in html
    assert f"Wrong file uploaded; file SHA-256 {digest[:12]}…" in html
    assert f"contract {pk} (deleted)" in html  # its earlier events keep a label
    assert html.count('<tr class="audit-event"') >= 3  # uploaded, scanned passages, deleted
