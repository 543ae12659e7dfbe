"""Legacy Word and WPS files: converted by LibreOffice in the sandbox where it is installed, read
with their passages, the original kept as the download; without it, the clear message."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import docx
import pytest

from reviewapp.contracts.models import DocumentStatus, IntakeBatch
from tests.contracts.test_intake import make_zip, post_zip
from tests.factories import upload_and_ingest
from tests.tools import need_program

pytestmark = pytest.mark.django_db

OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
CLAUSES = [
    "SUPPLY AGREEMENT",
    "1. Term",
    "1.1 This Agreement starts on the Effective Date and continues for three years.",
    "2. Governing law",
    "2.1 This Agreement is governed by the laws of England.",
]


def make_doc(directory: Path, name: str, paragraphs: list[str]) -> Path:
    """A Word 97-2003 file, written by LibreOffice from a DOCX made here."""
    soffice = need_program("soffice", "libreoffice-writer-nogui")
    source = directory / f"{Path(name).stem}.docx"
    document = docx.Document()
    for paragraph in paragraphs:
        document.add_paragraph(paragraph)
    document.save(str(source))
    subprocess.run(
        [
            soffice,
            f"-env:UserInstallation={(directory / 'profile').as_uri()}",
            "--headless",
            "--convert-to",
            "doc:MS Word 97",
            "--outdir",
            str(directory),
            str(source),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    written = directory / f"{source.stem}.doc"
    assert written.read_bytes().startswith(OLE_MAGIC)
    return written.rename(directory / name)


@pytest.mark.slow  # LibreOffice runs twice
def test_a_doc_contract_is_read_with_its_passages_and_the_original_stays_the_download(
    client, reviewer, matter, tmp_path
):
    path = make_doc(tmp_path, "supply.doc", CLAUSES)
    contract = upload_and_ingest(matter, path)
    assert contract.status == DocumentStatus.INGESTED, contract.error_message
    assert contract.kind == "doc"
    passages = [passage.text for passage in contract.passages.order_by("index")]
    assert any("governed by the laws of England" in text for text in passages), passages
    assert any("continues for three years" in text for text in passages), passages
    client.force_login(reviewer)
    download = client.get(f"/api/contracts/{contract.pk}/download/")
    assert b"".join(download.streaming_content) == path.read_bytes()


@pytest.mark.slow  # LibreOffice runs four times
def test_a_doc_and_a_wps_in_a_zip_are_converted_too(
    client, reviewer, matter, tmp_path, django_capture_on_commit_callbacks
):
    lease = make_doc(tmp_path, "lease.doc", [*CLAUSES[:2], "1.1 The lease runs for ten years."])
    # WPS Writer writes the Word 97-2003 format; the name alone says .wps.
    supply = make_doc(tmp_path, "supply.wps", CLAUSES)
    data = make_zip({"Old/lease.doc": lease.read_bytes(), "Old/supply.wps": supply.read_bytes()})
    client.force_login(reviewer)
    with django_capture_on_commit_callbacks(execute=True):
        response = post_zip(client, matter, data)
    assert response.status_code == 201, response.content
    batch = IntakeBatch.objects.get()
    read = {c.original_name: (c.status, c.text) for c in batch.contracts.all()}
    assert read["lease.doc"][0] == DocumentStatus.INGESTED
    assert "The lease runs for ten years." in read["lease.doc"][1]
    assert read["supply.wps"][0] == DocumentStatus.INGESTED
    assert "governed by the laws of England" in read["supply.wps"][1]


def test_without_libreoffice_a_doc_gets_the_clear_message(matter, tmp_path, monkeypatch):
    path = tmp_path / "old.doc"
    path.write_bytes(OLE_MAGIC + bytes(4096))
    monkeypatch.setattr(shutil, "which", lambda name, *args, **kwargs: None)
    contract = upload_and_ingest(matter, path)
    assert contract.status == DocumentStatus.UNSUPPORTED_TYPE
    assert contract.error_message == (
        "This is an older Word or Office file (.doc). Open it in Word, save it as .docx or PDF, "
        "and upload that."
    )


@pytest.mark.slow  # LibreOffice runs once
def test_an_old_office_file_that_is_no_word_document_is_refused_as_such(matter, tmp_path):
    path = make_doc(tmp_path, "book.xls", CLAUSES)
    # The same container without Word's main stream, as an old Excel file has none.
    data = path.read_bytes()
    path.write_bytes(
        data.replace("WordDocument".encode("utf-16-le"), "Workbook0000".encode("utf-16-le"))
    )
    contract = upload_and_ingest(matter, path)
    assert contract.status == DocumentStatus.UNSUPPORTED_TYPE
    assert contract.error_message.startswith("This is an older Office file other than a Word")
