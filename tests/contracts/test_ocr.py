"""Scanned PDFs are read by OCR (OCRmyPDF + Tesseract) on the ocr queue, or say how to enable it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from django.test import override_settings

from reviewapp.contracts import ocr_settings
from reviewapp.contracts.models import DocumentStatus
from reviewapp.contracts.ocr_settings import ocr_page_count, ocr_time_limit_s
from reviewapp.realtime.models import Event
from reviewapp.text.extraction.quality import word_recovery
from tests.factories import upload_and_ingest
from tests.text import hostile_files as hf
from tests.tools import need_program

pytestmark = pytest.mark.django_db


@pytest.fixture
def _tesseract_and_gs() -> None:
    need_program("tesseract", "tesseract-ocr tesseract-ocr-eng tesseract-ocr-chi-sim")
    need_program("gs", "ghostscript")


needs_tesseract = pytest.mark.usefixtures("_tesseract_and_gs")


@pytest.fixture(autouse=True)
def _fresh_availability():
    ocr_settings._unavailable.cache_clear()
    yield
    ocr_settings._unavailable.cache_clear()


def scanned_cuad_page(cuad_dir: Path, directory: Path) -> tuple[Path, str]:
    """Page 1 of a CUAD contract rendered at 300 dpi and wrapped in a PDF with no text layer;
    returns the scan and the page's own text."""
    pdfium = pytest.importorskip("pypdfium2")
    record = json.loads((cuad_dir / "labels.jsonl").read_text().splitlines()[3])
    document = pdfium.PdfDocument(str(cuad_dir / record["pdf"]))
    page = document[0]
    reference = page.get_textpage().get_text_range()
    image = page.render(scale=300 / 72).to_pil().convert("L")
    path = directory / "scanned page.pdf"
    image.save(path, "PDF", resolution=300.0)
    assert len(reference.split()) > 100, "the chosen page should hold a page of text"
    return path, reference


@needs_tesseract
def test_scanned_cuad_page_comes_back_with_its_words(matter, cuad_dir, tmp_path):
    path, reference = scanned_cuad_page(cuad_dir, tmp_path)
    contract = upload_and_ingest(matter, path)
    contract.refresh_from_db()
    assert contract.status == DocumentStatus.INGESTED, contract.error_message
    recovery = word_recovery(contract.text, reference)
    assert recovery >= 0.95, recovery
    assert contract.ocr_pages == 1
    passages = list(contract.passages.all())
    assert passages and all(passage.from_ocr for passage in passages)
    assert hasattr(contract, "review"), "an OCR'd contract is scanned like any other"


@needs_tesseract
def test_ocr_reports_progress_per_page(matter, tmp_path):
    contract = upload_and_ingest(matter, hf.make_image_only_pdf(tmp_path, pages=3))
    pages_seen = [
        (event.payload.get("page"), event.payload.get("pages"))
        for event in Event.objects.filter(type="document.progress").order_by("pk")
        if event.payload.get("contract_id") == contract.pk and event.payload.get("stage") == "ocr"
    ]
    assert (3, 3) in pages_seen and (0, 3) in pages_seen
    # Grey noise holds no words: it stays NEEDS_OCR, saying OCR found nothing to read.
    assert contract.status == DocumentStatus.NEEDS_OCR
    assert "could not read this scan" in contract.error_message


def test_without_tesseract_a_scan_stays_needs_ocr_saying_how_to_enable_it(
    matter, tmp_path, monkeypatch
):
    monkeypatch.setattr(shutil, "which", lambda name, *args, **kwargs: None)
    contract = upload_and_ingest(matter, hf.make_image_only_pdf(tmp_path))
    assert contract.status == DocumentStatus.NEEDS_OCR
    assert "apt-get install tesseract-ocr" in contract.error_message
    assert "ocr queue" in contract.error_message


@override_settings(OCR_ENABLED=False)
def test_ocr_switched_off_says_so(matter, tmp_path):
    contract = upload_and_ingest(matter, hf.make_image_only_pdf(tmp_path))
    assert contract.status == DocumentStatus.NEEDS_OCR
    assert "not enabled on this server" in contract.error_message


@override_settings(OCR_BASE_TIME_S=60, OCR_SECONDS_PER_PAGE=30, CELERY_VISIBILITY_TIMEOUT=3600)
def test_time_limit_grows_with_pages_and_stays_under_the_visibility_timeout():
    assert ocr_time_limit_s(1) == 90
    assert ocr_time_limit_s(10) == 360
    assert ocr_time_limit_s(1000) == 3600 - 30
    assert ocr_page_count("12 pages") == 12
    assert ocr_page_count("") == 1


def test_the_ocr_task_has_its_own_queue(settings):
    from celery import current_app

    route = current_app.amqp.router.route({}, "reviewapp.contracts.tasks.ocr_contract")
    assert route["queue"].name == "ocr"
