"""Ingestion through the services: every bad file gets its own status and leaves nothing behind."""

from __future__ import annotations

import pytest

from reviewapp.contracts.models import Contract, DocumentStatus, Passage
from reviewapp.contracts.services import (
    UploadRejected,
    contract_ingest,
    contract_retry_with_password,
    contract_upload,
)
from reviewapp.reviews.models import Review
from tests.factories import upload_and_ingest
from tests.text import hostile_files as hf

pytestmark = pytest.mark.django_db


HOSTILE = [
    (hf.make_empty_file, DocumentStatus.UNSUPPORTED_TYPE),
    (hf.make_html_named_pdf, DocumentStatus.UNSUPPORTED_TYPE),
    (hf.make_truncated_pdf, DocumentStatus.PARSE_FAILED),
    (lambda d: hf.make_encrypted_pdf(d, "s3cret"), DocumentStatus.NEEDS_PASSWORD),
    (hf.make_bomb_pdf, DocumentStatus.PARSE_FAILED),
    (hf.make_blank_pages_pdf, DocumentStatus.TOO_LARGE),
    (hf.make_image_only_pdf, DocumentStatus.NEEDS_OCR),
    (hf.make_random_bytes_txt, DocumentStatus.UNSUPPORTED_TYPE),
]


def test_each_hostile_file_gets_its_status_and_the_next_document_still_ingests(matter, tmp_path):
    seen_messages = set()
    for make, expected in HOSTILE:
        contract = upload_and_ingest(matter, make(tmp_path))
        assert contract.status == expected, (make, contract.error_message)
        assert contract.error_code == expected
        assert contract.error_message and contract.error_message not in seen_messages
        seen_messages.add(contract.error_message)
        assert not Passage.objects.filter(contract=contract).exists()
        assert not Review.objects.filter(contract=contract).exists()
    good = upload_and_ingest(matter, hf.make_text_pdf(tmp_path))
    assert good.status == DocumentStatus.INGESTED
    assert good.passages.exists()


def test_oversized_file_is_refused_before_storage(matter, tmp_path):
    path = hf.make_oversized_file(tmp_path)
    with pytest.raises(UploadRejected) as rejected, path.open("rb") as handle:
        contract_upload(matter=matter, file=handle, name="big.pdf", size=path.stat().st_size)
    assert rejected.value.code == DocumentStatus.TOO_LARGE
    assert "30.0 MB" in rejected.value.message
    assert not Contract.objects.exists()


def test_password_protected_pdf_ingests_after_the_right_password(matter, tmp_path):
    contract = upload_and_ingest(matter, hf.make_encrypted_pdf(tmp_path, "s3cret"))
    assert contract.status == DocumentStatus.NEEDS_PASSWORD
    contract_retry_with_password(contract=contract, password="wrong")
    contract = contract_ingest(contract_id=contract.pk)
    assert contract.status == DocumentStatus.NEEDS_PASSWORD
    contract_retry_with_password(contract=contract, password="s3cret")
    contract = contract_ingest(contract_id=contract.pk)
    assert contract.status == DocumentStatus.INGESTED
    assert contract.passages.exists()


def test_pdf_passages_carry_pages_and_offsets(matter, tmp_path):
    contract = upload_and_ingest(matter, hf.make_text_pdf(tmp_path))
    assert contract.page_count == len(hf.CONTRACT_PAGES)
    pages = sorted(set(contract.passages.values_list("page", flat=True)))
    assert pages == list(range(1, len(hf.CONTRACT_PAGES) + 1))
    for passage in contract.passages.all():
        assert contract.text[passage.start : passage.end] == passage.text
        start, end = contract.page_spans[passage.page - 1]
        assert start <= passage.start < end


def test_docx_and_chinese_text_ingest(matter, tmp_path):
    docx_contract = upload_and_ingest(matter, hf.make_docx(tmp_path))
    assert docx_contract.status == DocumentStatus.INGESTED
    text = (
        "第一条 定义\n本合同中的术语含义如下。\n\n第二条 违约金\n乙方逾期交货的，应支付违约金。\n"
    )
    path = hf.make_text_file(tmp_path, text, "gb18030", "合同.txt")
    contract = upload_and_ingest(matter, path)
    assert contract.status == DocumentStatus.INGESTED
    assert contract.text == text
    assert contract.language == "zh"
    assert contract.review.playbook_version.playbook.name == "commercial-zh"


def test_ingesting_twice_does_not_duplicate_passages(matter, tmp_path):
    contract = upload_and_ingest(matter, hf.make_text_pdf(tmp_path))
    count = contract.passages.count()
    Contract.objects.filter(pk=contract.pk).update(status=DocumentStatus.INGESTING)
    contract_ingest(contract_id=contract.pk)
    assert contract.passages.count() == count
    assert Review.objects.filter(contract=contract).count() == 1
