"""Legacy Word (.doc) and WPS files, read by converting them to DOCX with LibreOffice.

Runs in the sandboxed child process only: LibreOffice inherits its memory and CPU limits and its
process group, which the parent kills at the wall-clock limit, so a hostile .doc costs no more
than a hostile PDF. Each conversion gets its own LibreOffice user profile in a temporary folder
(nothing of one document reaches the next, and two conversions never share a lock). The
converted DOCX is read like any other and then deleted: the uploaded original stays the file
that is stored and downloaded.

Both formats are OLE2 compound files, like old Excel and PowerPoint files; olefile reads the
container's directory so that only Word-like documents are handed to LibreOffice: a
``WordDocument`` stream (Word 97-2003, and WPS Writer, which writes the same format) or the
``CONTENTS`` stream of a Microsoft Works document.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

import olefile

from .core import SOFFICE, ExtractedDocument
from .errors import ExtractionError, Problem
from .word import extract_docx

# LibreOffice gets this share of the document's time limit, so that it is stopped here, with its
# process group, before the parent's wall-clock limit kills this process (and not LibreOffice,
# which has a group of its own).
TIME_SHARE = 0.9
_WORD_STREAMS = {"worddocument": ".doc", "contents": ".wps"}


def soffice_path() -> str | None:
    return shutil.which(SOFFICE)


def extract_legacy_word(path: str | os.PathLike[str], *, timeout_s: float) -> ExtractedDocument:
    suffix = _word_suffix(path)
    soffice = soffice_path()
    if soffice is None:
        raise ExtractionError.because(Problem.LEGACY_WORD, "soffice is not installed")
    with tempfile.TemporaryDirectory(prefix="clausewise-soffice-") as folder:
        source = Path(folder) / f"document{suffix}"
        shutil.copyfile(path, source)
        converted = _convert(soffice, source, Path(folder), timeout_s)
        document = extract_docx(converted)
    return ExtractedDocument(
        kind="doc", text=document.text, page_spans=document.page_spans, page_count=1
    )


def _word_suffix(path: str | os.PathLike[str]) -> str:
    """The extension LibreOffice is given, from the streams the container holds."""
    try:
        with olefile.OleFileIO(os.fspath(path)) as container:
            streams = {"/".join(entry).lower() for entry in container.listdir()}
    except (OSError, ValueError, IndexError, TypeError) as error:  # olefile's damaged files
        raise ExtractionError.because(Problem.DAMAGED, repr(error)[:500]) from error
    for stream, suffix in _WORD_STREAMS.items():
        if stream in streams:
            return suffix
    raise ExtractionError.because(Problem.OTHER_OFFICE, ", ".join(sorted(streams))[:500])


def _convert(soffice: str, source: Path, folder: Path, timeout_s: float) -> Path:
    out = folder / "out"
    command = [
        soffice,
        f"-env:UserInstallation={(folder / 'profile').as_uri()}",
        "--headless",
        "--norestore",
        "--nolockcheck",
        "--convert-to",
        "docx",
        "--outdir",
        str(out),
        str(source),
    ]
    # Its own process group, so that the launcher and the soffice.bin it starts die together.
    process = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "HOME": str(folder)},
        start_new_session=True,
    )
    try:
        process.wait(timeout=timeout_s * TIME_SHARE)
    except subprocess.TimeoutExpired:
        raise ExtractionError.because(Problem.TIMED_OUT, "soffice", seconds=timeout_s) from None
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    converted = out / f"{source.stem}.docx"
    if not converted.is_file():
        raise ExtractionError.because(Problem.DAMAGED, "LibreOffice wrote no DOCX")
    return converted
