"""The sandbox process: `python -m reviewapp.text.extraction.worker`.

The parent starts it once and keeps it warm, so that Python and the parsers are imported once
rather than once per document. For each job it reads from stdin it forks a process that caps
its own memory and CPU time, reads the document and hands the result back through a pipe; this
process relays it to stdout. A fresh fork per document means that nothing of one document
(memory, caches) reaches the next, and a crash costs only that fork. Forking is safe here: this
process is a fresh interpreter with no threads, connections or open files. The parent enforces
the wall-clock limit by killing the whole process group.
"""

from __future__ import annotations

import dataclasses
import gc
import logging
import math
import os
import resource
import signal
import sys
import warnings
from io import BytesIO
from typing import Any

import docx
from pypdf import PdfReader

from . import speedups
from .core import MEBIBYTE, ExtractedDocument
from .errors import ExtractionError, Problem
from .legacy_word import extract_legacy_word
from .pdf import extract_pdf
from .protocol import encode_frame, read_frame, write_frame
from .text import decode_text
from .unlock import write_unlocked_pdf
from .word import extract_docx

# A contract's text is a few MB; far more can only come from a file built to exhaust memory.
MAX_TEXT_CHARACTERS = 50_000_000
# The CPU limit backs up the parent's wall-clock limit, in case the parent dies mid-job.
CPU_SECONDS_MARGIN = 2


def main() -> None:
    logging.disable(logging.CRITICAL)  # pypdf warns about every oddity of damaged files
    warnings.simplefilter("ignore")
    speedups.install()
    _warm_up()
    # Forks share this process's memory until they write to it; keeping the collector away
    # from what exists now saves every fork from copying it.
    gc.freeze()
    requests, replies = sys.stdin.buffer, sys.stdout.buffer
    try:
        write_frame(replies, {"ready": True})
        while (job := read_frame(requests)) is not None:
            replies.write(run_forked(job))
            replies.flush()
    except BrokenPipeError:
        pass  # the parent has gone away, and so do we


def run_forked(job: dict[str, Any]) -> bytes:
    """Return the frame of the job's result, relayed as the forked process wrote it."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        _run_child(job, write_end)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        reply = pipe.read()
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) == 0 and reply:
        return reply
    return encode_frame(_error_reply(_crash_error(status, job)))


def _run_child(job: dict[str, Any], write_end: int) -> None:
    """Never returns: the forked process must not fall back into the relay loop."""
    exit_code = 1
    try:
        # The cycle collector would cost a quarter of the time on large contracts, and reading
        # a document leaves no garbage cycles; this process ends after one document anyway.
        gc.disable()
        _limit_resources(memory_mb=job["memory_mb"], timeout_s=job["timeout_s"])
        reply = _reply_for(job)
        with os.fdopen(write_end, "wb") as pipe:
            pipe.write(reply)
        exit_code = 0
    finally:
        os._exit(exit_code)


def _limit_resources(*, memory_mb: int, timeout_s: float) -> None:
    memory = memory_mb * MEBIBYTE
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core files from a crash or SIGXCPU
    cpu_seconds = math.ceil(timeout_s) + CPU_SECONDS_MARGIN
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))


def _reply_for(job: dict[str, Any]) -> bytes:
    try:
        document = extract(job)
        return encode_frame({"document": dataclasses.asdict(document)})
    except ExtractionError as error:
        return encode_frame(_error_reply(error))
    except MemoryError:
        return encode_frame(_error_reply(ExtractionError.because(Problem.OUT_OF_MEMORY)))
    except Exception as error:
        failure = ExtractionError.because(Problem.DAMAGED, repr(error)[:500])
        return encode_frame(_error_reply(failure))


def extract(job: dict[str, Any]) -> ExtractedDocument:
    kind, path = job["kind"], job["path"]
    if kind == "pdf":
        document = extract_pdf(path, password=job.get("password"), max_pages=job["max_pages"])
        if job.get("password") and job.get("unlocked_path"):
            write_unlocked_pdf(path, password=job["password"], out_path=job["unlocked_path"])
    elif kind == "docx":
        document = extract_docx(path)
    elif kind == "doc":
        document = extract_legacy_word(path, timeout_s=job["timeout_s"])
    elif kind == "txt":
        document = _extract_txt(path)
    else:
        raise ExtractionError.because(Problem.BINARY, f"unknown kind {kind!r}")
    if len(document.text) > MAX_TEXT_CHARACTERS:
        raise ExtractionError.because(Problem.BOMB, f"{len(document.text)} characters of text")
    return document


def _extract_txt(path: str) -> ExtractedDocument:
    with open(path, "rb") as file:
        text, encoding = decode_text(file.read())
    if not text.strip():
        raise ExtractionError.because(Problem.NO_TEXT)
    return ExtractedDocument(
        kind="txt", text=text, page_spans=[(0, len(text))], page_count=1, encoding=encoding
    )


def _warm_up() -> None:
    """Read one tiny PDF and DOCX, so that the readers' lazy imports and tables are loaded
    once here rather than in every fork (this halves the cost of a fork)."""
    PdfReader(BytesIO(_tiny_pdf())).pages[0].extract_text()
    buffer = BytesIO()
    docx.Document().save(buffer)
    list(docx.Document(buffer).iter_inner_content())


def _tiny_pdf() -> bytes:
    content = b"BT /F1 9 Tf 9 9 Td (warm) Tj [(up) -250 (!)] TJ ET"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    pdf, offsets = b"%PDF-1.7\n", []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(pdf))
        pdf += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    trailer = b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n"
    size = len(objects) + 1
    return pdf + b"xref\n0 %d\n0000000000 65535 f \n" % size + xref + trailer % (size, len(pdf))


def _crash_error(status: int, job: dict[str, Any]) -> ExtractionError:
    detail = f"reader exited with wait status {status}"
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGXCPU:
        return ExtractionError.because(Problem.TIMED_OUT, detail, seconds=job["timeout_s"])
    return ExtractionError.because(Problem.DAMAGED, detail)


def _error_reply(error: ExtractionError) -> dict[str, Any]:
    fields = ("code", "message", "problem", "detail")
    return {"error": {name: str(getattr(error, name)) for name in fields}}


if __name__ == "__main__":
    main()
