"""DOCX text extraction with python-docx. Runs in the sandboxed child process only.

Named `word` so that it does not shadow the `docx` package.
"""

from __future__ import annotations

import os
import zipfile
from collections.abc import Iterable, Iterator

import docx
from docx.table import Table
from docx.text.paragraph import Paragraph

from .core import MEBIBYTE, ExtractedDocument
from .errors import ExtractionError, Problem

# python-docx loads every part of the package into memory, so the package as a whole is bounded.
MAX_UNCOMPRESSED_BYTES = 200 * MEBIBYTE
MAX_ENTRIES = 10_000
# Deflate cannot compress better than about 1000:1; real documents stay far below that.
MAX_COMPRESSION_RATIO = 200
_RATIO_CHECKED_ABOVE = 10 * MEBIBYTE


def extract_docx(path: str | os.PathLike[str]) -> ExtractedDocument:
    _check_package(path)
    try:
        document = docx.Document(os.fspath(path))
        text = "\n".join(_blocks(document.iter_inner_content()))
    except MemoryError:
        raise
    except Exception as error:  # python-docx and lxml raise many kinds of errors
        raise ExtractionError.because(Problem.DAMAGED, repr(error)[:500]) from error
    if not text.strip():
        raise ExtractionError.because(Problem.IMAGES_ONLY_DOCX)
    return ExtractedDocument(kind="docx", text=text, page_spans=[(0, len(text))], page_count=1)


def _check_package(path: str | os.PathLike[str]) -> None:
    """Refuse ZIP bombs from the sizes in the ZIP directory, before anything is inflated.

    zipfile never inflates a member beyond its declared size, so the directory can be trusted.
    """
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as error:
        raise ExtractionError.because(Problem.DAMAGED, repr(error)) from error
    total = sum(member.file_size for member in members)
    if len(members) > MAX_ENTRIES or total > MAX_UNCOMPRESSED_BYTES:
        raise ExtractionError.because(Problem.BOMB, f"{len(members)} entries, {total} bytes")
    for member in members:
        ratio = member.file_size / max(member.compress_size, 1)
        if member.file_size > _RATIO_CHECKED_ABOVE and ratio > MAX_COMPRESSION_RATIO:
            raise ExtractionError.because(Problem.BOMB, f"{member.filename}: {ratio:.0f}:1")


def _blocks(content: Iterable[Paragraph | Table]) -> Iterator[str]:
    """Paragraphs and tables in document order: a table row is its cells separated by tabs."""
    for block in content:
        if isinstance(block, Paragraph):
            yield block.text
        else:
            yield from _table_rows(block)


def _table_rows(table: Table) -> Iterator[str]:
    for row in table.rows:
        cells: list[str] = []
        # A merged cell appears once per grid column it spans. Holding on to the elements
        # keeps lxml from handing out new proxies for them, so `is` compares them.
        seen: list[object] = []
        for cell in row.cells:
            if not any(cell._tc is element for element in seen):
                seen.append(cell._tc)
                cells.append("\n".join(_blocks(cell.iter_inner_content())))
        yield "\t".join(cells)
