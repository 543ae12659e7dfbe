"""Text of a scanned PDF by OCR: OCRmyPDF drives Tesseract (and Ghostscript) page by page.

    problem = ocr_unavailable(languages=("eng", "chi_sim"))   # None when OCR can run here
    document = ocr_pdf(path, languages=..., on_page=callback, page_timeout_s=120)

OCRmyPDF is the well-kept standard for this job: it rasterises each page, runs Tesseract,
and writes the recognised words as a sidecar text (pages separated by form feeds), which is what
we keep. The original file stays as it was uploaded. No Django here, like the rest of the package.

Progress: OCRmyPDF reports to a progress-bar class obtained from its plugin hook; this module is
that plugin, and forwards each finished page of the "OCR" step to the ``on_page`` callback.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from .core import ExtractedDocument
from .errors import ErrorCode, ExtractionError, gettext_noop

logger = logging.getLogger(__name__)

PAGE_SEPARATOR = "\n\n"  # as pdf.py joins the pages of a text layer
# Unmappable characters become U+FFFD (PostgreSQL text cannot hold NUL), as in pdf.py.
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
PageCallback = Callable[[int, int], None]  # (pages done, pages in all)
PROGRAMS = ("tesseract", "gs")
HOW_TO_ENABLE = gettext_noop(
    "This PDF has no text layer: it looks like a scan. Text recognition (OCR) is not enabled on "
    "this server: install Tesseract with its English and Simplified Chinese data and Ghostscript "
    "(Debian: apt-get install tesseract-ocr tesseract-ocr-eng tesseract-ocr-chi-sim ghostscript) "
    "or run the Docker image, then start a worker for the ocr queue and upload the file again."
)
OCR_FAILED = gettext_noop(
    "Text recognition (OCR) could not read this scan. Upload a clearer scan, or a PDF with a "
    "text layer."
)

# The callback of the OCR in progress: OCRmyPDF creates progress bars from a class, not an
# instance, so the class finds its callback here. One OCR at a time per process.
_current_callback: PageCallback | None = None


def ocr_unavailable(*, languages: Sequence[str]) -> str | None:
    """Why OCR cannot run on this machine (a program or language missing), or None."""
    missing = [program for program in PROGRAMS if shutil.which(program) is None]
    if missing:
        return f"missing programs: {', '.join(missing)}"
    try:
        import ocrmypdf  # noqa: F401
    except ImportError:
        return "the ocrmypdf package is not installed"
    installed = _tesseract_languages()
    absent = [language for language in languages if language not in installed]
    return f"missing Tesseract languages: {', '.join(absent)}" if absent else None


def _tesseract_languages() -> set[str]:
    try:
        listing = subprocess.run(  # noqa: S603 - fixed arguments, a program found on PATH
            [shutil.which("tesseract") or "tesseract", "--list-langs"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return set()
    lines = (listing.stdout + listing.stderr).splitlines()
    return {line.strip() for line in lines if line.strip() and " " not in line.strip()}


def ocr_pdf(
    path: str | os.PathLike[str],
    *,
    languages: Sequence[str],
    page_timeout_s: float,
    on_page: PageCallback | None = None,
) -> ExtractedDocument:
    """Recognise the text of every page; raises ExtractionError (NEEDS_OCR) if it cannot."""
    # ocrmypdf is heavy and optional: imported only where OCR runs
    import ocrmypdf
    from ocrmypdf.exceptions import ExitCodeException

    with tempfile.TemporaryDirectory(prefix="clausewise-ocr-") as scratch:
        sidecar = Path(scratch) / "text.txt"
        try:
            with _reporting_to(on_page):
                ocrmypdf.ocr(
                    os.fspath(path),
                    Path(scratch) / "out.pdf",
                    language=list(languages),
                    sidecar=sidecar,
                    mode="force",  # every page, even one with a stray stamp of text
                    output_type="pdf",  # no PDF/A conversion: only the text is kept
                    optimize=0,
                    jobs=1,
                    use_threads=True,  # a Celery worker's child may not fork a process pool
                    progress_bar=False,
                    tesseract_timeout=page_timeout_s,
                    plugins=[__name__],
                )
        except ExitCodeException as error:
            raise _failed(type(error).__name__, str(error)) from error
        except (OSError, ValueError, RuntimeError) as error:
            raise _failed("error", repr(error)) from error
        text = sidecar.read_text(encoding="utf-8", errors="replace")
    return _document(text)


def _failed(reason: str, detail: str) -> ExtractionError:
    logger.warning("OCR failed (%s): %s", reason, detail[:500])
    # The reason goes to the log only: the stored message is a catalogue id, shown translated.
    return ExtractionError(
        ErrorCode.NEEDS_OCR, OCR_FAILED, problem="ocr_failed", detail=f"{reason}: {detail}"[:500]
    )


def _document(sidecar_text: str) -> ExtractedDocument:
    # Tesseract ends each page with a form feed.
    pages = sidecar_text.split("\f")
    if len(pages) > 1 and not pages[-1].strip():
        pages = pages[:-1]
    page_texts = [_UNSTORABLE.sub("\ufffd", page).strip("\n") for page in pages]
    if not any(text.strip() for text in page_texts):
        raise _failed("no words were recognised", "empty sidecar")
    spans: list[tuple[int, int]] = []
    start = 0
    for index, page_text in enumerate(page_texts):
        end = start + len(page_text) + (len(PAGE_SEPARATOR) if index < len(page_texts) - 1 else 0)
        spans.append((start, end))
        start = end
    text = PAGE_SEPARATOR.join(page_texts)
    return ExtractedDocument(kind="pdf", text=text, page_spans=spans, page_count=len(page_texts))


@contextlib.contextmanager
def _reporting_to(on_page: PageCallback | None) -> Iterator[None]:
    global _current_callback
    previous, _current_callback = _current_callback, on_page
    try:
        yield
    finally:
        _current_callback = previous


class PageProgress:
    """OCRmyPDF's progress-bar protocol; forwards the pages of its OCR step only."""

    def __init__(
        self,
        *,
        total: float | None = None,
        desc: str | None = None,
        unit: str | None = None,
        **_kwargs: Any,
    ) -> None:
        self.total = int(total or 0)
        self.counts = desc == "OCR" and unit in (None, "page")
        self.done = 0.0

    def __enter__(self) -> PageProgress:
        return self

    def __exit__(self, *_exc: object) -> None:
        return None

    def update(self, n: float = 1, *, completed: float | None = None) -> None:
        self.done = completed if completed is not None else self.done + n
        callback = _current_callback
        if self.counts and callback is not None and self.total:
            try:
                callback(min(int(self.done), self.total), self.total)
            except Exception:  # progress is a courtesy: it never stops the recognition
                logger.warning("OCR progress callback failed", exc_info=True)


def get_progressbar_class() -> type[PageProgress]:
    return PageProgress


def _register_hook() -> None:
    """Mark the hook for OCRmyPDF's plugin manager (when the package is installed)."""
    global get_progressbar_class
    with contextlib.suppress(ImportError):
        # ocrmypdf is heavy and optional: imported only where OCR runs
        from ocrmypdf import hookimpl

        get_progressbar_class = hookimpl(get_progressbar_class)


_register_hook()
