"""Bulk intake: a zip or a folder is one batch; bad entries are listed, hostile zips refused."""

from __future__ import annotations

import io
import warnings
import zipfile
from datetime import timedelta

import pytest
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from django.utils import timezone

from reviewapp.contracts.intake.archive import ZipLimits, ZipRefused, zip_entries
from reviewapp.contracts.intake.services import _zip_name
from reviewapp.contracts.models import Contract, DocumentStatus, IntakeBatch, IntakeStatus
from reviewapp.contracts.services import contract_ingest
from reviewapp.realtime.models import Event

pytestmark = pytest.mark.django_db


def contract_text(number: int) -> bytes:
    return (
        f"SERVICES AGREEMENT NUMBER {number}\n\n1. Term\n\n1.1 This Agreement starts on the "
        f"Effective Date and continues for {number} years.\n\n2. Governing law\n\n2.1 This "
        "Agreement is governed by the laws of England.\n"
    ).encode()


def make_zip(entries: dict[str, bytes], compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    return make_zip_of(list(entries.items()), compression)


def make_zip_of(entries: list[tuple[str, bytes]], compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    """A zip of these entries in this order; a name may come twice."""
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # zipfile warns of a duplicate name
        with zipfile.ZipFile(buffer, "w", compression=compression) as archive:
            for name, data in entries:
                archive.writestr(name, data)
    return buffer.getvalue()


@pytest.fixture
def api(client, reviewer):
    client.force_login(reviewer)
    return client


def post_zip(api, matter, data: bytes, name: str = "data room.zip", **fields):
    file = SimpleUploadedFile(name, data, content_type="application/zip")
    return api.post(f"/api/matters/{matter.pk}/intake/", {"file": file, **fields})


def test_zip_becomes_a_batch_with_folders_kept_and_bad_entries_listed(
    api, matter, django_capture_on_commit_callbacks
):
    inner = make_zip({"x.txt": b"inner"})
    data = make_zip(
        {
            "Leases/2019/lease one.txt": contract_text(1),
            "Leases/2019/lease two.txt": contract_text(2),
            "Supply/合同.txt": contract_text(3),
            "Supply/old.zip": inner,
            "Supply/noise.txt": bytes(range(256)) * 400,
            "__MACOSX/Supply/._合同.txt": b"litter",
            ".DS_Store": b"litter",
        }
    )
    with django_capture_on_commit_callbacks(execute=True):
        response = post_zip(api, matter, data)
    assert response.status_code == 201, response.content
    batch_id = response.json()["id"]
    body = api.get(f"/api/intake/{batch_id}/").json()
    assert (body["done"], body["total"]) == (5, 5), body
    assert body["status"] == IntakeStatus.RECEIVED and body["finished"]
    assert body["failed"] == 2
    reasons = {item["name"]: (item["code"], item["message"]) for item in body["failures"]}
    assert reasons["old.zip"] == (
        "NESTED_ARCHIVE",
        "An archive inside the zip is not opened: unpack it and upload its files.",
    )
    assert reasons["noise.txt"][0] == DocumentStatus.UNSUPPORTED_TYPE
    contracts = Contract.objects.filter(intake_batch_id=batch_id)
    folders = dict(contracts.values_list("original_name", "folder_path"))
    assert folders["lease one.txt"] == "Leases/2019" and folders["合同.txt"] == "Supply"
    assert contracts.filter(status=DocumentStatus.INGESTED).count() == 3
    progress = [e.payload for e in Event.objects.filter(type="intake.progress").order_by("pk")]
    assert progress[-1]["done"] == 5 and progress[-1]["finished"]
    assert any(p["done"] < 5 for p in progress), "progress is published as documents finish"


@pytest.mark.parametrize(
    ("entries", "code", "words"),
    [
        ({"../../etc/cron.d/evil.txt": b"x"}, "PATH_TRAVERSAL", "points outside"),
        ({"/abs/evil.txt": b"x"}, "PATH_TRAVERSAL", "points outside"),
        ({"C:/windows/evil.txt": b"x"}, "PATH_TRAVERSAL", "points outside"),
        ({"bomb.txt": b"\0" * (20 * 1024 * 1024)}, "ZIP_BOMB", "zip bomb"),
        ({}, "EMPTY", "no files"),
    ],
)
def test_hostile_zip_is_refused_with_a_clear_message_and_nothing_stored(
    api, matter, entries, code, words
):
    response = post_zip(api, matter, make_zip(entries))
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == code and words in error["message"], error
    assert not Contract.objects.exists()
    batch = IntakeBatch.objects.get()
    assert batch.status == IntakeStatus.REFUSED and batch.error_code == code


@override_settings(INTAKE_MAX_ENTRIES=3)
def test_too_many_entries_are_refused(api, matter):
    data = make_zip({f"c{i}.txt": contract_text(i) for i in range(4)})
    response = post_zip(api, matter, data)
    assert response.status_code == 400
    assert response.json()["error"]["message"] == (
        "The zip holds 4 files; at most 3 are accepted in one upload."
    )


@override_settings(INTAKE_MAX_UNCOMPRESSED_BYTES=2 * 1024 * 1024)
def test_total_unpacked_size_is_limited(api, matter):
    data = make_zip({f"c{i}.txt": bytes(range(256)) * 5000 for i in range(2)}, zipfile.ZIP_STORED)
    response = post_zip(api, matter, data)
    assert response.json()["error"]["code"] == "ZIP_TOO_BIG"


def test_not_a_zip_is_refused(api, matter):
    response = post_zip(api, matter, b"%PDF-1.4 not a zip at all")
    assert response.json()["error"]["code"] == "NOT_A_ZIP"


def test_an_entry_that_lies_about_its_size_fails_alone(
    api, matter, django_capture_on_commit_callbacks
):
    good, bad = contract_text(1), contract_text(2)
    data = bytearray(make_zip({"good.txt": good, "bad.txt": bad}, zipfile.ZIP_STORED))
    where = data.find(bad)
    data[where : where + 8] = b"XXXXXXXX"  # its CRC no longer matches
    with django_capture_on_commit_callbacks(execute=True):
        response = post_zip(api, matter, bytes(data))
    body = api.get(f"/api/intake/{response.json()['id']}/").json()
    assert (body["done"], body["total"], body["failed"]) == (2, 2, 1)
    assert body["failures"][0]["code"] == "UNREADABLE"
    assert Contract.objects.get().original_name == "good.txt"


def test_unpacking_twice_adds_nothing(api, matter, django_capture_on_commit_callbacks):
    from reviewapp.contracts.intake.services import intake_zip_expand

    data = make_zip({"a.txt": contract_text(1), "b.txt": contract_text(2)})
    with django_capture_on_commit_callbacks(execute=True):
        batch_id = post_zip(api, matter, data).json()["id"]
    IntakeBatch.objects.filter(pk=batch_id).update(status=IntakeStatus.RECEIVING)
    intake_zip_expand(batch_id=batch_id)
    assert Contract.objects.count() == 2


def test_a_folder_is_announced_then_sent_file_by_file_and_an_unfinished_one_says_so(
    api, matter, django_capture_on_commit_callbacks
):
    manifest = [{"name": "a.txt", "path": "Deals/A"}, {"name": "b.txt", "path": "Deals/B"}]
    announced = api.post(
        f"/api/matters/{matter.pk}/intake/",
        {"manifest": manifest, "kind": "folder", "name": "Deals"},
        content_type="application/json",
    )
    assert announced.status_code == 201, announced.content
    batch_id = announced.json()["id"]
    assert announced.json()["total"] == 2
    file = SimpleUploadedFile("a.txt", contract_text(1))
    with django_capture_on_commit_callbacks(execute=True):
        sent = api.post(
            f"/api/matters/{matter.pk}/contracts/",
            {"file": file, "batch": batch_id, "path": "Deals/A"},
        )
    assert sent.status_code == 201
    assert Contract.objects.get().folder_path == "Deals/A"
    body = api.get(f"/api/intake/{batch_id}/").json()
    assert (body["done"], body["total"]) == (1, 2) and not body["upload_incomplete"]
    IntakeBatch.objects.filter(pk=batch_id).update(updated_at=timezone.now() - timedelta(hours=1))
    body = api.get(f"/api/intake/{batch_id}/").json()
    assert body["upload_incomplete"] and body["missing"] == [{"name": "b.txt", "path": "Deals/B"}]
    body = api.post(f"/api/intake/{batch_id}/dismiss/").json()
    assert (body["done"], body["total"]) == (2, 2)
    assert body["failures"][-1]["message"] == "Upload did not finish"


def test_a_duplicate_in_a_batch_is_listed_not_added(
    api, matter, django_capture_on_commit_callbacks
):
    data = make_zip({"a.txt": contract_text(1), "copy/a.txt": contract_text(1)})
    with django_capture_on_commit_callbacks(execute=True):
        batch_id = post_zip(api, matter, data).json()["id"]
    body = api.get(f"/api/intake/{batch_id}/").json()
    assert (body["done"], body["total"], body["failed"]) == (2, 2, 0)
    assert body["failures"][0]["message"] == "Already in this matter"
    assert Contract.objects.count() == 1


def test_model_batch_is_kept_only_with_the_claude_engine(api, matter, settings):
    data = make_zip({"a.txt": contract_text(1)})
    settings.REVIEW_ENGINE = "offline"
    offline = post_zip(api, matter, data, use_model_batch="true").json()
    assert offline["use_model_batch"] is False
    settings.REVIEW_ENGINE = "anthropic"
    claude = post_zip(api, matter, make_zip({"b.txt": contract_text(2)}), use_model_batch="true")
    assert claude.json()["use_model_batch"] is True


def test_other_members_batches_are_not_visible(client, make_user, matter, api):
    data = make_zip({"a.txt": contract_text(1)})
    batch_id = post_zip(api, matter, data).json()["id"]
    client.force_login(make_user("outsider"))
    assert client.get(f"/api/intake/{batch_id}/").status_code == 404


def test_zip_limits_are_checked_before_decompressing():
    data = make_zip({"a/b.txt": b"x" * 10})
    entries = zip_entries(io.BytesIO(data), limits=ZipLimits(10, 100, 100.0))
    assert [(e.folder, e.name) for e in entries] == [("a", "b.txt")]
    with pytest.raises(ZipRefused):
        zip_entries(io.BytesIO(data), limits=ZipLimits(10, 5, 100.0))


def test_the_intake_url_gets_the_zip_body_limit(settings):
    from reviewapp.asgi import _body_limit

    settings.INTAKE_MAX_ZIP_BYTES = 500
    settings.UPLOAD_MAX_BYTES = 100
    assert _body_limit({"path": "/api/matters/3/intake/"}) == 500
    assert _body_limit({"path": "/api/matters/3/contracts/"}) == 100


def test_the_openapi_schema_documents_the_zip_upload():
    from django.core.management import call_command

    out = io.StringIO()
    call_command("spectacular", "--validate", "--fail-on-warn", stdout=out)
    schema = out.getvalue()
    assert "/api/matters/{matter_id}/intake/:" in schema
    assert "/api/intake/{batch_id}/:" in schema
    assert "use_model_batch" in schema and "ZIP_BOMB" in schema


def test_a_zip_of_small_entries_that_unpacks_to_far_more_than_its_size_is_refused_whole(
    api, matter
):
    # The bomb: each entry is 1 MiB (never ratio-checked alone), 200 MiB in all.
    data = make_zip({f"zeros/{i:03}.txt": bytes(2**20) for i in range(200)})
    assert len(data) < 250_000
    response = post_zip(api, matter, data)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "ZIP_BOMB", error
    assert "would unpack to 200 MB" in error["message"]
    assert "zip bomb" in error["message"]
    assert IntakeBatch.objects.get().status == IntakeStatus.REFUSED
    assert not Contract.objects.exists()
    assert not default_storage.exists(_zip_name(IntakeBatch.objects.get()))


def test_a_small_zip_of_text_that_compresses_well_is_not_a_bomb(api, matter):
    data = make_zip({"spaces.txt": contract_text(1) + b" " * 500_000})
    assert post_zip(api, matter, data).status_code == 201


def test_a_zip_or_a_file_over_the_matters_storage_quota_is_refused(
    api, matter, settings, django_capture_on_commit_callbacks
):
    first = contract_text(1)
    settings.MATTER_STORAGE_QUOTA_BYTES = len(first) + 100
    with django_capture_on_commit_callbacks(execute=True):
        assert post_zip(api, matter, make_zip({"a.txt": first})).status_code == 201
    response = post_zip(api, matter, make_zip({"b.txt": contract_text(2)}), name="more.zip")
    assert response.status_code == 413
    error = response.json()["error"]
    assert error["code"] == "QUOTA_EXCEEDED"
    assert error["message"].startswith("The matter's storage is full")
    assert IntakeBatch.objects.get(name="more.zip").status == IntakeStatus.REFUSED
    one = SimpleUploadedFile("c.txt", contract_text(3))
    single = api.post(f"/api/matters/{matter.pk}/contracts/", {"file": one})
    assert single.status_code == 413 and single.json()["error"]["code"] == "QUOTA_EXCEEDED"
    assert Contract.objects.count() == 1


def test_a_name_that_comes_twice_is_kept_for_both_even_when_the_unpacking_runs_again(
    api, matter, django_capture_on_commit_callbacks, monkeypatch
):
    from reviewapp.contracts.intake import services

    data = make_zip_of(
        [
            ("Leases/lease.txt", contract_text(1)),
            ("Leases/lease.txt", contract_text(2)),
            ("Leases/LEASE.txt", contract_text(3)),
        ]
    )
    real_receive, calls = services.intake_file_receive, []

    def dies_on_the_second_entry(**kwargs):
        calls.append(kwargs["name"])
        if len(calls) == 2:
            raise SystemExit("the worker was killed")  # the task dies; Celery runs it again
        return real_receive(**kwargs)

    monkeypatch.setattr(services, "intake_file_receive", dies_on_the_second_entry)
    with pytest.raises(SystemExit), django_capture_on_commit_callbacks(execute=True):
        post_zip(api, matter, data)
    batch_id = IntakeBatch.objects.get().pk
    assert Contract.objects.count() == 1
    monkeypatch.setattr(services, "intake_file_receive", real_receive)
    for _run in range(2):  # the redelivered task, then once more: nothing changes
        with django_capture_on_commit_callbacks(execute=True):
            services.intake_zip_expand(batch_id=batch_id)
    for queued in Contract.objects.filter(status=DocumentStatus.QUEUED):  # as the sweeper does
        contract_ingest(contract_id=queued.pk)
    body = api.get(f"/api/intake/{batch_id}/").json()
    assert (body["done"], body["total"], body["failed"]) == (3, 3, 0), body
    assert body["finished"] and body["failures"] == []
    names = sorted(Contract.objects.values_list("original_name", flat=True))
    assert names == ["LEASE (3).txt", "lease (2).txt", "lease.txt"]


def test_the_same_name_and_bytes_twice_is_one_contract_and_one_listed_duplicate(
    api, matter, django_capture_on_commit_callbacks
):
    from reviewapp.contracts.intake.services import intake_zip_expand

    text = contract_text(1)
    data = make_zip_of([("a.txt", text), ("a.txt", text)])
    with django_capture_on_commit_callbacks(execute=True):
        batch_id = post_zip(api, matter, data).json()["id"]
    IntakeBatch.objects.filter(pk=batch_id).update(status=IntakeStatus.RECEIVING)
    intake_zip_expand(batch_id=batch_id)
    body = api.get(f"/api/intake/{batch_id}/").json()
    assert (body["done"], body["total"], body["failed"]) == (2, 2, 0)
    assert [(f["name"], f["code"]) for f in body["failures"]] == [("a (2).txt", "DUPLICATE")]
    assert Contract.objects.get().original_name == "a.txt"


def test_an_entry_without_a_file_name_is_refused_alone(
    api, matter, django_capture_on_commit_callbacks
):
    data = make_zip_of([("Leases\\", b"made on Windows"), ("Leases\\lease.txt", contract_text(1))])
    with django_capture_on_commit_callbacks(execute=True):
        batch_id = post_zip(api, matter, data).json()["id"]
    body = api.get(f"/api/intake/{batch_id}/").json()
    assert (body["done"], body["total"], body["failed"]) == (2, 2, 1)
    [failure] = body["failures"]
    assert (failure["path"], failure["code"]) == ("Leases", "EMPTY_NAME")
    assert failure["message"].startswith("This entry has no file name")
    contract = Contract.objects.get()
    assert (contract.original_name, contract.folder_path) == ("lease.txt", "Leases")


def test_every_listed_failure_has_a_code_of_the_fixed_list_and_a_chinese_message(
    api, matter, django_capture_on_commit_callbacks
):
    from reviewapp.contracts.intake.codes import FailureCode

    data = make_zip_of(
        [
            ("inner.zip", make_zip({"x.txt": b"x"})),
            ("folder/", b""),
            ("folder\\", b""),
            ("noise.txt", bytes(range(256)) * 400),
            ("ok.txt", contract_text(1)),
            ("again.txt", contract_text(1)),
        ]
    )
    with django_capture_on_commit_callbacks(execute=True):
        batch_id = post_zip(api, matter, data).json()["id"]
    body = api.get(f"/api/intake/{batch_id}/", HTTP_ACCEPT_LANGUAGE="zh-hans").json()
    codes = {failure["code"] for failure in body["failures"]}
    assert codes == {"NESTED_ARCHIVE", "EMPTY_NAME", "UNSUPPORTED_TYPE", "DUPLICATE"}
    assert codes <= set(FailureCode.values)
    by_code = {failure["code"]: failure["message"] for failure in body["failures"]}
    assert by_code["NESTED_ARCHIVE"] == "zip 内的压缩包不会被打开：请先解压，再上传其中的文件。"
    assert "文件名" in by_code["EMPTY_NAME"]
