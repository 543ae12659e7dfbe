"""PDF text extraction with pypdf. Runs in the sandboxed child process only."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence

from pypdf import PageObject, PasswordType, PdfReader
from pypdf.errors import DependencyError, FileNotDecryptedError, LimitReachedError
from pypdf.generic import DictionaryObject, PdfObject

from .core import ExtractedDocument
from .errors import ExtractionError, Problem
from .furniture import strip_page_furniture

PAGE_SEPARATOR = "\n\n"
# A page with fewer letters and digits than this has no real text layer (scans often carry a
# stray page number or a scanner's stamp).
MIN_CHARACTERS_PER_TEXT_PAGE = 20

_WORD_CHARACTER = re.compile(r"[^\W_]")
# PostgreSQL text cannot hold NUL, and lone surrogates cannot be encoded; both stand for
# characters that a broken font could not map, so they become U+FFFD, keeping offsets.
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def extract_pdf(
    path: str | os.PathLike[str], *, password: str | None, max_pages: int
) -> ExtractedDocument:
    try:
        reader = PdfReader(os.fspath(path))
        _unlock(reader, password)
        _check_page_count(reader, max_pages)
        page_texts = list(_page_texts(reader))
    except ExtractionError:
        raise
    except FileNotDecryptedError as error:
        raise ExtractionError.because(Problem.PASSWORD_REQUIRED, repr(error)) from error
    except DependencyError as error:
        raise ExtractionError.because(Problem.UNSUPPORTED_ENCRYPTION, repr(error)) from error
    except LimitReachedError as error:
        raise ExtractionError.because(Problem.BOMB, repr(error)) from error
    except MemoryError:
        raise
    except Exception as error:  # pypdf raises many kinds of errors on damaged files
        raise ExtractionError.because(Problem.DAMAGED, repr(error)[:500]) from error
    if _lacks_text_layer(reader.pages, page_texts):
        # The page count lets the OCR step size its time limit (see contracts/ocr.py).
        raise ExtractionError.because(Problem.NO_TEXT_LAYER, f"{len(reader.pages)} pages")
    return _join_pages(strip_page_furniture(page_texts))


def _check_page_count(reader: PdfReader, max_pages: int) -> None:
    """Check the count the file states first: counting a huge page tree is slow in itself."""
    page_tree = _dictionary(reader.root_object.get("/Pages"))
    stated = page_tree.get("/Count") if page_tree is not None else None
    _refuse_over(stated if isinstance(stated, int) else 0, max_pages)
    _refuse_over(len(reader.pages), max_pages)
    if not reader.pages:
        raise ExtractionError.because(Problem.NO_PAGES)


def _refuse_over(page_count: int, max_pages: int) -> None:
    if page_count > max_pages:
        raise ExtractionError.because(Problem.TOO_MANY_PAGES, pages=page_count, limit=max_pages)


def _unlock(reader: PdfReader, password: str | None) -> None:
    """Open an encrypted PDF; many only restrict printing and open with an empty password."""
    if not reader.is_encrypted or reader.decrypt("") != PasswordType.NOT_DECRYPTED:
        return
    if not password:
        raise ExtractionError.because(Problem.PASSWORD_REQUIRED)
    if reader.decrypt(password) == PasswordType.NOT_DECRYPTED:
        raise ExtractionError.because(Problem.WRONG_PASSWORD)


def _page_texts(reader: PdfReader) -> Iterator[str]:
    for page in reader.pages:
        yield _UNSTORABLE.sub("\ufffd", page.extract_text())


def _lacks_text_layer(pages: Sequence[PageObject], page_texts: list[str]) -> bool:
    """True when every page is textless, or most are and at least one of those shows a picture.

    Real contracts have the odd blank or picture-only page (a logo, a signature scan), but never
    most of them.
    """
    textless = [
        page
        for page, text in zip(pages, page_texts, strict=True)
        if len(_WORD_CHARACTER.findall(text)) < MIN_CHARACTERS_PER_TEXT_PAGE
    ]
    if len(textless) == len(pages):
        return True
    return 2 * len(textless) > len(pages) and any(_draws_xobject(page) for page in textless)


def _draws_xobject(page: PageObject) -> bool:
    resources = _dictionary(page.get("/Resources"))
    xobjects = _dictionary(resources.get("/XObject")) if resources is not None else None
    return xobjects is not None and len(xobjects) > 0


def _dictionary(value: object) -> DictionaryObject | None:
    """`value` resolved, if it is a dictionary: damaged files have other things where it goes."""
    resolved = value.get_object() if isinstance(value, PdfObject) else value
    return resolved if isinstance(resolved, DictionaryObject) else None


def _join_pages(page_texts: list[str]) -> ExtractedDocument:
    """Join pages with a blank line; each page's span includes the separator after it."""
    spans: list[tuple[int, int]] = []
    start = 0
    for index, page_text in enumerate(page_texts):
        end = start + len(page_text)
        if index < len(page_texts) - 1:
            end += len(PAGE_SEPARATOR)
        spans.append((start, end))
        start = end
    text = PAGE_SEPARATOR.join(page_texts)
    return ExtractedDocument(kind="pdf", text=text, page_spans=spans, page_count=len(page_texts))
