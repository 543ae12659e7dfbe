import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from reviewapp.accounts.models import Role
from reviewapp.contracts.models import Contract, DocumentStatus

pytestmark = pytest.mark.django_db

CONTRACT_TEXT = (
    "MASTER SERVICES AGREEMENT\n\n"
    "1. Definitions\n\n"
    '1.1 "Services" means the services described in Schedule A.\n\n'
    "2. Term\n\n"
    "2.1 This Agreement starts on the Effective Date and continues for two years.\n"
)


def upload(client, matter, name, data, content_type="application/octet-stream"):
    file = SimpleUploadedFile(name, data, content_type=content_type)
    return client.post(f"/api/matters/{matter.pk}/contracts/", {"file": file})


@pytest.fixture
def api(client, reviewer):
    client.force_login(reviewer)
    return client


def test_upload_txt_is_ingested_into_passages_with_offsets(
    api, matter, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(api, matter, "msa.txt", CONTRACT_TEXT.encode())
    assert response.status_code == 201, response.content
    contract = Contract.objects.get(pk=response.json()["id"])
    assert contract.status == DocumentStatus.INGESTED
    assert contract.text == CONTRACT_TEXT
    passages = api.get(f"/api/contracts/{contract.pk}/passages/").json()
    assert passages, "no passages"
    for passage in passages:
        assert CONTRACT_TEXT[passage["start"] : passage["end"]] == passage["text"]
        assert passage["page"] == 1


def test_same_file_twice_links_to_existing_contract(api, matter):
    first = upload(api, matter, "a.txt", CONTRACT_TEXT.encode())
    second = upload(api, matter, "renamed.txt", CONTRACT_TEXT.encode())
    assert first.status_code == 201
    assert second.status_code == 200
    assert second.json()["id"] == first.json()["id"]
    assert second.json()["duplicate"] is True
    assert Contract.objects.count() == 1


def test_type_is_decided_by_content_not_name(api, matter, django_capture_on_commit_callbacks):
    html = b"<!DOCTYPE html><html><body>Not a contract</body></html>"
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(api, matter, "contract.pdf", html)
    contract = Contract.objects.get(pk=response.json()["id"])
    assert contract.status == DocumentStatus.UNSUPPORTED_TYPE
    assert contract.error_message
    assert not contract.passages.exists()


def test_file_over_limit_is_refused_and_nothing_is_stored(api, matter, settings):
    settings.UPLOAD_MAX_BYTES = 1000
    response = upload(api, matter, "big.txt", b"x" * 1001)
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "TOO_LARGE"
    assert "limit" in response.json()["error"]["message"]
    assert not Contract.objects.exists()


def test_upload_without_file_explains(api, matter):
    response = api.post(f"/api/matters/{matter.pk}/contracts/", {})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "INVALID"


def test_stranger_cannot_upload_or_read(client, make_user, matter):
    client.force_login(make_user("mallory"))
    assert upload(client, matter, "a.txt", b"hello").status_code == 404
    assert client.get(f"/api/matters/{matter.pk}/contracts/").status_code == 404


def test_anonymous_is_refused(client, matter):
    assert upload(client, matter, "a.txt", b"hello").status_code in (401, 403)


def test_original_downloads_as_attachment_under_its_name(api, matter):
    data = CONTRACT_TEXT.encode()
    contract_id = upload(api, matter, "Supply “Agreement”.txt", data).json()["id"]
    stored = Contract.objects.get(pk=contract_id).file.name
    assert "Agreement" not in stored  # stored under a generated name
    response = api.get(f"/api/contracts/{contract_id}/download/")
    assert response.status_code == 200
    assert response["Content-Disposition"].startswith("attachment")
    assert b"".join(response.streaming_content) == data


def test_lawyer_of_another_matter_cannot_read_contract(client, make_user, make_matter, api, matter):
    contract_id = upload(api, matter, "a.txt", CONTRACT_TEXT.encode()).json()["id"]
    other = make_user("larry")
    make_matter("Elsewhere", members=[(other, Role.LAWYER)])
    client.force_login(other)
    assert client.get(f"/api/contracts/{contract_id}/").status_code == 404
    assert client.get(f"/contracts/{contract_id}/").status_code == 404


def test_openapi_schema_and_docs_page(api):
    schema = api.get("/api/schema/")
    assert schema.status_code == 200
    assert b"/api/matters/{matter_id}/contracts/" in schema.content
    docs = api.get("/api/docs/")
    assert docs.status_code == 200
    assert b"swagger" in docs.content.lower()


def test_events_api_returns_progress_after_seq(api, matter, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        upload(api, matter, "a.txt", CONTRACT_TEXT.encode())
    events = api.get("/api/events/?after=0").json()
    statuses = [e["payload"]["status"] for e in events if e["type"] == "document.progress"]
    assert statuses[0] == "QUEUED"
    assert statuses[-1] == "INGESTED"
    seqs = [e["seq"] for e in events]
    assert seqs == sorted(seqs)
    assert api.get(f"/api/events/?after={seqs[-1]}").json() == []
    assert api.get("/api/events/?after=x").status_code == 400


def test_upload_via_stream_object(matter, reviewer):
    from reviewapp.contracts.services import contract_upload

    contract, created = contract_upload(
        matter=matter, file=io.BytesIO(b"abc"), name="x.txt", size=3, enqueue=False
    )
    assert created and contract.status == DocumentStatus.QUEUED
