"""A password-protected PDF, once unlocked, has a decrypted display copy for the review page's
viewer; the password itself is stored nowhere, and the copy goes with the contract."""

from __future__ import annotations

import io

import pytest
from django.core.cache import cache
from pypdf import PdfReader, PdfWriter

from reviewapp.contracts.deletion import contract_delete
from reviewapp.contracts.models import Contract, DocumentStatus
from reviewapp.contracts.services import (
    _password_key,
    contract_ingest,
    contract_retry_with_password,
    contract_upload,
)
from reviewapp.contracts.unlocked import unlocked_name
from tests.text import hostile_files as hf

pytestmark = pytest.mark.django_db

PASSWORD = "s3cret-Password"


def _upload(matter, path) -> Contract:
    data = path.read_bytes()
    contract, _ = contract_upload(
        matter=matter, file=io.BytesIO(data), name=path.name, size=len(data), enqueue=False
    )
    return contract_ingest(contract_id=contract.pk, enqueue=False)


def _unlocked(matter, tmp_path) -> Contract:
    contract = _upload(matter, hf.make_encrypted_pdf(tmp_path, PASSWORD))
    assert contract.status == DocumentStatus.NEEDS_PASSWORD
    contract_retry_with_password(contract=contract, password=PASSWORD)
    contract = contract_ingest(contract_id=contract.pk, enqueue=False)
    assert contract.status == DocumentStatus.INGESTED
    return contract


def _inline(client, contract) -> bytes:
    response = client.get(f"/api/contracts/{contract.pk}/download/?inline=1")
    assert response["Content-Type"] == "application/pdf"
    return b"".join(response.streaming_content)


def test_unlocked_pdf_is_shown_from_a_decrypted_copy(client, reviewer, matter, tmp_path):
    contract = _unlocked(matter, tmp_path)
    client.force_login(reviewer)
    shown = PdfReader(io.BytesIO(_inline(client, contract)))
    assert not shown.is_encrypted  # pdf.js opens it without asking for a password
    assert shown.pages[0].extract_text().startswith("SUPPLY AGREEMENT")
    assert len(shown.pages) == contract.page_count
    # The download is still the file as uploaded, encrypted.
    original = client.get(f"/api/contracts/{contract.pk}/download/")
    assert PdfReader(io.BytesIO(b"".join(original.streaming_content))).is_encrypted


def test_the_password_is_stored_nowhere(client, reviewer, matter, tmp_path):
    contract = _unlocked(matter, tmp_path)
    assert cache.get(_password_key(contract.pk)) is None
    row = Contract.objects.filter(pk=contract.pk).values().get()
    assert not any(PASSWORD in str(value) for value in row.values())
    storage = contract.file.storage
    with storage.open(unlocked_name(contract.file.name), "rb") as copy:
        assert PASSWORD.encode() not in copy.read()


def test_a_wrong_password_leaves_no_copy(matter, tmp_path):
    contract = _upload(matter, hf.make_encrypted_pdf(tmp_path, PASSWORD))
    contract_retry_with_password(contract=contract, password="wrong")
    contract = contract_ingest(contract_id=contract.pk, enqueue=False)
    assert contract.status == DocumentStatus.NEEDS_PASSWORD
    assert not contract.file.storage.exists(unlocked_name(contract.file.name))


def test_a_pdf_that_opens_without_a_password_needs_no_copy(client, reviewer, matter, tmp_path):
    plain = hf.make_text_pdf(tmp_path)
    writer = PdfWriter(clone_from=PdfReader(plain))
    writer.encrypt(user_password="", owner_password="owner-only", algorithm="AES-256")
    restricted = tmp_path / "restricted.pdf"
    with restricted.open("wb") as file:
        writer.write(file)
    contract = _upload(matter, restricted)
    assert contract.status == DocumentStatus.INGESTED
    assert not contract.file.storage.exists(unlocked_name(contract.file.name))
    client.force_login(reviewer)
    assert _inline(client, contract) == restricted.read_bytes()


def test_deleting_the_contract_erases_the_copy(
    matter, admin, tmp_path, django_capture_on_commit_callbacks
):
    contract = _unlocked(matter, tmp_path)
    storage, name = contract.file.storage, contract.file.name
    assert storage.exists(unlocked_name(name))
    with django_capture_on_commit_callbacks(execute=True):
        contract_delete(contract=contract, deleted_by=admin, reason="wrong_file")
    assert not storage.exists(name) and not storage.exists(unlocked_name(name))
