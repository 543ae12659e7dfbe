"""Scanned PDFs: whether this machine can read them by OCR, how long it may take, and the read.

The recognition itself is in extraction/ocr.py (OCRmyPDF and Tesseract); this module adds the
settings. The task runs on its own Celery queue, ``ocr``, so that a 200-page scan never holds
up the ingestion of typed documents; its time limit grows with the page count.
"""

from __future__ import annotations

import functools
import re

from django.conf import settings

from reviewapp.text.extraction.core import ExtractedDocument
from reviewapp.text.extraction.ocr import HOW_TO_ENABLE, PageCallback, ocr_pdf, ocr_unavailable

_PAGES = re.compile(r"^(\d+) pages")
# A time limit must stay under the broker's visibility timeout, or the task is delivered twice.
VISIBILITY_MARGIN_S = 30


@functools.cache
def _unavailable(languages: tuple[str, ...]) -> str | None:
    return ocr_unavailable(languages=languages)


def ocr_missing_message() -> str | None:
    """None when scans can be read here; otherwise the message (a catalogue id) that says how
    to enable OCR. Checked once per process: installing Tesseract means restarting workers."""
    if not settings.OCR_ENABLED:
        return HOW_TO_ENABLE
    return HOW_TO_ENABLE if _unavailable(tuple(settings.OCR_LANGUAGES)) else None


def ocr_page_count(detail: str) -> int:
    """The page count the text-layer check reported (extraction/pdf.py), at least 1."""
    match = _PAGES.match(detail or "")
    return max(1, int(match[1])) if match else 1


def ocr_time_limit_s(pages: int) -> int:
    """OCR_BASE_TIME_S plus OCR_SECONDS_PER_PAGE for each page, under the visibility timeout."""
    wanted = settings.OCR_BASE_TIME_S + settings.OCR_SECONDS_PER_PAGE * max(pages, 1)
    ceiling = settings.CELERY_VISIBILITY_TIMEOUT - VISIBILITY_MARGIN_S
    return int(max(10, min(wanted, ceiling)))


def ocr_read(path: str, *, on_page: PageCallback | None = None) -> ExtractedDocument:
    return ocr_pdf(
        path,
        languages=settings.OCR_LANGUAGES,
        page_timeout_s=settings.OCR_SECONDS_PER_PAGE,
        on_page=on_page,
    )
