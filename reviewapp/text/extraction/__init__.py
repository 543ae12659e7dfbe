"""Safe text extraction from uploaded contracts (PDF, DOCX, plain text, and legacy Word and WPS
files where LibreOffice is installed). Pure Python, no Django.

    document = extract_file(path, limits=ExtractionLimits(), password=None)

The type is decided by content, never by file name. Size is checked here; parsing runs in a
sandboxed child process with a wall-clock and a memory limit (see `sandbox.py`, `worker.py`), so
a hostile file can neither hang nor exhaust the calling Celery worker. Failures raise
`ExtractionError` with a `code` for the program and a `message` for the user. A missing or
unreadable file raises `OSError`, as it is not the uploader's fault and worth a retry.

This module imports neither pypdf, python-docx nor olefile: only the child process needs them.
"""

from __future__ import annotations

import os
import shutil
from typing import Any

from . import sandbox
from .core import MEBIBYTE, SOFFICE, ExtractedDocument, ExtractionLimits
from .errors import ErrorCode, ExtractionError, Problem
from .filetype import detect_kind, sniff_file

__all__ = [
    "ErrorCode",
    "ExtractedDocument",
    "ExtractionError",
    "ExtractionLimits",
    "detect_kind",
    "extract_file",
]


def extract_file(
    path: str | os.PathLike[str],
    *,
    limits: ExtractionLimits,
    password: str | None = None,
    unlocked_path: str | None = None,
) -> ExtractedDocument:
    """With a ``password`` that opened an encrypted PDF, a decrypted copy is written to
    ``unlocked_path`` (see `unlock.py`)."""
    path = os.fspath(path)
    size = os.stat(path).st_size
    if size == 0:
        raise ExtractionError.because(Problem.EMPTY)
    if size > limits.max_bytes:
        limit_mb = f"{limits.max_bytes / MEBIBYTE:g}"
        raise ExtractionError.because(Problem.FILE_TOO_BIG, f"{size} bytes", limit_mb=limit_mb)
    sniffed = sniff_file(path)
    if sniffed.kind == "unsupported":
        raise ExtractionError.because(sniffed.problem or Problem.BINARY)
    if sniffed.kind == "doc" and shutil.which(SOFFICE) is None:
        raise ExtractionError.because(Problem.LEGACY_WORD, "soffice is not installed")
    job = {
        "kind": sniffed.kind,
        "path": os.path.abspath(path),
        "password": password,
        "unlocked_path": unlocked_path,
        "max_pages": limits.max_pages,
        "memory_mb": limits.memory_mb,
        "timeout_s": limits.timeout_s,
    }
    return _document_from(sandbox.run_job(job, timeout_s=limits.timeout_s))


def _document_from(reply: dict[str, Any]) -> ExtractedDocument:
    if "error" in reply:
        error = reply["error"]
        raise ExtractionError(
            error["code"], error["message"], problem=error["problem"], detail=error["detail"]
        )
    fields = reply["document"]
    return ExtractedDocument(
        kind=fields["kind"],
        text=fields["text"],
        page_spans=[(start, end) for start, end in fields["page_spans"]],
        page_count=fields["page_count"],
        encoding=fields["encoding"],
    )
