"""The display copy of a password-protected PDF: written by the sandbox while it reads the
document with the password, stored beside the original, served to the review page's viewer,
and erased with the contract.

The password itself is never stored: it waits in the cache for the ingestion and is dropped
after it. Why a decrypted copy rather than the password (or the password encrypted at rest):
the viewer would need the password in the reader's browser on every visit, so it would have to
be kept and sent out again; the copy reveals nothing that the database does not already hold in
clear (the text and every passage read from the document), and it is reachable only through
the contract's own permission check.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

from django.core.files import File

from reviewapp.contracts.models import Contract
from reviewapp.text.extraction import ExtractedDocument, ExtractionLimits, extract_file

SUFFIX = ".unlocked.pdf"


def unlocked_name(file_name: str | None) -> str:
    return f"{file_name}{SUFFIX}"


def contract_extract(
    *, contract: Contract, limits: ExtractionLimits, password: str | None
) -> ExtractedDocument:
    """Read the contract's file; a PDF that needed ``password`` leaves its display copy."""
    if not password:
        return extract_file(contract.file.path, limits=limits)
    with _scratch_path() as scratch:
        document = extract_file(
            contract.file.path, limits=limits, password=password, unlocked_path=scratch
        )
        if os.path.getsize(scratch):
            _store(contract, scratch)
    return document


@contextmanager
def _scratch_path() -> Iterator[str]:
    """An empty file only this user can read, for the sandbox to write the copy into."""
    descriptor, path = tempfile.mkstemp(suffix=".pdf", prefix="clausewise-unlocked-")
    os.close(descriptor)
    try:
        yield path
    finally:
        os.unlink(path)


def _store(contract: Contract, path: str) -> None:
    storage, name = contract.file.storage, unlocked_name(contract.file.name)
    storage.delete(name)  # a copy left by an earlier run: the same bytes, or stale
    with open(path, "rb") as copy:
        storage.save(name, File(copy, name=os.path.basename(name)))


def contract_display_open(*, contract: Contract) -> IO[bytes]:
    """What the viewer shows: the unlocked copy where there is one, else the original."""
    storage, name = contract.file.storage, unlocked_name(contract.file.name)
    if contract.file.name and storage.exists(name):
        return storage.open(name, "rb")
    return contract.file.open("rb")


def unlocked_copy_delete(*, storage: Any, file_name: str) -> None:
    storage.delete(unlocked_name(file_name))
