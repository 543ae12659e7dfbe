"""A decrypted copy of a password-protected PDF, for the review page's viewer. Runs in the
sandboxed child process only, on a file that `extract_pdf` has just opened with the password.

Why a copy: pdf.js in the reader's browser needs the document's password to show an encrypted
PDF, and the password must never be stored (it lives in the cache only until the ingestion has
used it). The copy reveals nothing the database does not already hold in clear (the extracted
text and every passage); it lives in the same storage as the original, is served only to the
contract's members through the same permission check, and is erased with the contract (see
`reviewapp.contracts.unlocked`).
"""

from __future__ import annotations

import os

from pypdf import PasswordType, PdfReader, PdfWriter


def needs_password(path: str | os.PathLike[str]) -> bool:
    """Encrypted and not readable with the empty user password (pdf.js opens those itself)."""
    reader = PdfReader(os.fspath(path))
    return reader.is_encrypted and reader.decrypt("") == PasswordType.NOT_DECRYPTED


def write_unlocked_pdf(
    path: str | os.PathLike[str], *, password: str, out_path: str | os.PathLike[str]
) -> bool:
    """Write the document without its encryption to ``out_path``; False if it needs none."""
    if not needs_password(path):
        return False
    reader = PdfReader(os.fspath(path))
    if reader.decrypt(password) == PasswordType.NOT_DECRYPTED:
        return False  # extract_pdf refused it already; never write a copy of nothing
    writer = PdfWriter(clone_from=reader)
    with open(out_path, "wb") as file:
        writer.write(file)
    return True
