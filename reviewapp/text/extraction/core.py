"""The values that extraction takes and gives, shared by the parent and the child process."""

from __future__ import annotations

from dataclasses import dataclass, field

MEBIBYTE = 1024 * 1024
# LibreOffice's program, which converts legacy Word and WPS files (legacy_word.py).
SOFFICE = "soffice"


@dataclass(frozen=True)
class ExtractionLimits:
    """How much one document may cost. `timeout_s` is wall-clock time for parsing it."""

    max_bytes: int = 25 * MEBIBYTE
    max_pages: int = 500
    timeout_s: float = 60.0
    memory_mb: int = 1024


@dataclass
class ExtractedDocument:
    """The text of a document.

    `page_spans[i]` is the (start, end) character range of page i in `text`. The spans follow each
    other without gaps and cover the whole text: the blank line that separates two PDF pages
    belongs to the page before it. DOCX, DOC and TXT files are one page. `encoding` is set for TXT
    only, and `raw_bytes.decode(encoding) == text` holds for it.
    """

    kind: str
    text: str
    page_spans: list[tuple[int, int]] = field(default_factory=list)
    page_count: int = 1
    encoding: str | None = None
