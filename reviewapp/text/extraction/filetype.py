"""Telling file types apart by their content (magic bytes), never by their name.

`detect_kind(head, path=None)` looks at the first bytes of a file. A ZIP file is a DOCX only if
it holds `word/document.xml`: given `path`, that is checked in the ZIP directory; without it,
`head` must mention the part (Word writes it among the first entries, but not every tool does).
`sniff` gives the same answer plus the reason a file is unsupported, for the error message.
An OLE2 compound file is "doc" here (a legacy Word or WPS file, converted by LibreOffice): the
sandboxed reader looks inside it, and refuses the other Office files that share the container.
"""

from __future__ import annotations

import os
import re
import zipfile
from dataclasses import dataclass

from .errors import ExtractionError, Problem
from .text import decode_text

HEAD_BYTES = 4096
# Some PDFs start with junk (mail headers, a BOM) before the header; readers accept that.
PDF_HEADER_WINDOW = 1024

_ZIP_MAGIC = b"PK\x03\x04"
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_WORD_MAIN_PART = re.compile(r"word/document\d*\.xml")
_SIGNATURES: tuple[tuple[bytes, Problem], ...] = (
    (b"\x89PNG\r\n\x1a\n", Problem.IMAGE),
    (b"\xff\xd8\xff", Problem.IMAGE),
    (b"GIF87a", Problem.IMAGE),
    (b"GIF89a", Problem.IMAGE),
    (b"II*\x00", Problem.IMAGE),
    (b"MM\x00*", Problem.IMAGE),
    (b"PK\x05\x06", Problem.OTHER_ZIP),
    (b"PK\x07\x08", Problem.OTHER_ZIP),
)
_MARKUP_STARTS = (b"<!doctype", b"<html", b"<head", b"<body", b"<?xml", b"<svg", b"<!--")

PathLike = str | os.PathLike[str]


@dataclass(frozen=True)
class Sniffed:
    kind: str  # "pdf" | "docx" | "doc" | "txt" | "unsupported"
    problem: Problem | None = None  # why an unsupported file is unsupported


def detect_kind(head: bytes, path: PathLike | None = None) -> str:
    """Return "pdf", "docx", "doc", "txt" or "unsupported" for a file starting with `head`."""
    return sniff(head, path).kind


def sniff_file(path: PathLike) -> Sniffed:
    with open(path, "rb") as file:
        return sniff(file.read(HEAD_BYTES), path)


def sniff(head: bytes, path: PathLike | None = None) -> Sniffed:
    if not head:
        return Sniffed("unsupported", Problem.EMPTY)
    if b"%PDF-" in head[:PDF_HEADER_WINDOW]:
        return Sniffed("pdf")
    if head.startswith(_ZIP_MAGIC):
        return Sniffed("docx") if _is_word_zip(head, path) else _unsupported(Problem.OTHER_ZIP)
    if head.startswith(_OLE_MAGIC):
        return Sniffed("doc")
    for magic, problem in _SIGNATURES:
        if head.startswith(magic):
            return _unsupported(problem)
    if _is_image_container(head):
        return _unsupported(Problem.IMAGE)
    return _sniff_text(head)


def _sniff_text(head: bytes) -> Sniffed:
    try:
        text, _ = decode_text(head, complete=False)
    except ExtractionError as error:
        return _unsupported(Problem(error.problem))
    start = text.lstrip("\ufeff \t\r\n").lower()
    if start.startswith(tuple(marker.decode() for marker in _MARKUP_STARTS)):
        return _unsupported(Problem.HTML)
    if start.startswith("{\\rtf"):
        return _unsupported(Problem.RTF)
    return Sniffed("txt")


def _is_image_container(head: bytes) -> bool:
    """WebP, HEIC and AVIF photos: the format name sits after a length field."""
    return (head[:4] == b"RIFF" and head[8:12] == b"WEBP") or head[4:12] in (
        b"ftypheic",
        b"ftypheix",
        b"ftypmif1",
        b"ftypavif",
    )


def _is_word_zip(head: bytes, path: PathLike | None) -> bool:
    if path is None:
        return b"word/document" in head
    try:
        with zipfile.ZipFile(path) as archive:
            return any(_WORD_MAIN_PART.fullmatch(name) for name in archive.namelist())
    except (zipfile.BadZipFile, OSError, ValueError):
        # A damaged DOCX is still a DOCX; reading it will say that it is damaged.
        return b"word/" in head


def _unsupported(problem: Problem) -> Sniffed:
    return Sniffed("unsupported", problem)
