"""Text extraction from uploads: friendly files, hostile files, the sandbox, and real contracts.

Runs without Django or a database. Hostile files are generated into tmp_path by hostile_files.
"""

from __future__ import annotations

import codecs
import itertools
import json
import re
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from io import BytesIO
from pathlib import Path

import pytest
from pypdf import PdfReader
from pypdf.generic import ContentStream

from reviewapp.text.engine import RuleHit, compile_playbook, load_playbook, scan
from reviewapp.text.extraction import (
    ExtractedDocument,
    ExtractionError,
    ExtractionLimits,
    detect_kind,
    extract_file,
    sandbox,
)
from reviewapp.text.extraction import content_stream as fast_parser
from reviewapp.text.extraction.furniture import strip_page_furniture
from reviewapp.text.extraction.quality import word_recovery
from reviewapp.text.segmentation import Segment, segment

from . import hostile_files as files

CUAD = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "cuad"
LIMITS = ExtractionLimits()
PROJECT_ROOT = Path(__file__).resolve().parents[2]


def extract(path: Path, password: str | None = None) -> ExtractedDocument:
    return extract_file(path, limits=LIMITS, password=password)


def refusal(
    path: Path, limits: ExtractionLimits = LIMITS, password: str | None = None
) -> ExtractionError:
    with pytest.raises(ExtractionError) as caught:
        extract_file(path, limits=limits, password=password)
    return caught.value


def assert_spans_cover(document: ExtractedDocument) -> None:
    assert document.page_spans[0][0] == 0
    assert document.page_spans[-1][1] == len(document.text)
    for (_, end), (start, _) in itertools.pairwise(document.page_spans):
        assert end == start
    assert len(document.page_spans) == document.page_count


# --- Hostile files: each refused with its own code and message, quickly ---------------------

HOSTILE_CASES: list[tuple[str, Callable[[Path], Path], str, str]] = [
    ("empty file", files.make_empty_file, "UNSUPPORTED_TYPE", "empty"),
    ("HTML named .pdf", files.make_html_named_pdf, "UNSUPPORTED_TYPE", "html"),
    ("truncated PDF", files.make_truncated_pdf, "PARSE_FAILED", "damaged"),
    (
        "encrypted PDF",
        lambda d: files.make_encrypted_pdf(d, "s3cret"),
        "NEEDS_PASSWORD",
        "password_required",
    ),
    ("1 GB decompression bomb", files.make_bomb_pdf, "PARSE_FAILED", "bomb"),
    ("10,000 blank pages", files.make_blank_pages_pdf, "TOO_LARGE", "too_many_pages"),
    ("30 MB file", files.make_oversized_file, "TOO_LARGE", "file_too_big"),
    ("image-only PDF", files.make_image_only_pdf, "NEEDS_OCR", "no_text_layer"),
    ("random bytes .txt", files.make_random_bytes_txt, "UNSUPPORTED_TYPE", "binary"),
    ("DOCX zip bomb", files.make_zip_bomb_docx, "PARSE_FAILED", "bomb"),
]


@pytest.mark.parametrize(
    ("make", "code", "problem"),
    [case[1:] for case in HOSTILE_CASES],
    ids=[case[0] for case in HOSTILE_CASES],
)
def test_hostile_file_is_refused_quickly_with_its_own_reason(
    tmp_path: Path, make: Callable[[Path], Path], code: str, problem: str
) -> None:
    path = make(tmp_path)
    started = time.monotonic()
    error = refusal(path)
    assert (error.code, error.problem) == (code, problem)
    assert error.message.endswith(".") and len(error.message) > 15
    assert time.monotonic() - started < 10


def test_each_refusal_reason_has_a_distinct_message(tmp_path: Path) -> None:
    problems = {problem for _, _, _, problem in HOSTILE_CASES}
    messages = {refusal(make(tmp_path)).message for _, make, _, _ in HOSTILE_CASES}
    assert len(messages) == len(problems)


def test_empty_file_says_so(tmp_path: Path) -> None:
    assert refusal(files.make_empty_file(tmp_path)).message == "The file is empty."


def test_too_many_pages_names_the_count_and_the_limit(tmp_path: Path) -> None:
    error = refusal(files.make_blank_pages_pdf(tmp_path))
    assert "10000 pages" in error.message and "500" in error.message


def test_page_limit_comes_from_the_limits(tmp_path: Path) -> None:
    error = refusal(files.make_text_pdf(tmp_path), limits=ExtractionLimits(max_pages=2))
    assert (error.code, error.problem) == ("TOO_LARGE", "too_many_pages")


def test_memory_cap_stops_a_greedy_file_without_harm_to_the_caller(tmp_path: Path) -> None:
    path = files.make_bomb_pdf(tmp_path, inflated_bytes=70 * files.MIB)
    error = refusal(path, limits=ExtractionLimits(memory_mb=100))
    assert (error.code, error.problem) == ("PARSE_FAILED", "out_of_memory")
    assert extract(files.make_text_pdf(tmp_path)).page_count == 3


def test_slow_file_times_out_and_its_processes_are_killed(tmp_path: Path) -> None:
    extract(files.make_text_pdf(tmp_path))  # a warm worker to watch
    worker = sandbox.worker_pid()
    assert worker is not None
    started = time.monotonic()
    error = refusal(files.make_slow_pdf(tmp_path), limits=ExtractionLimits(timeout_s=0.5))
    assert time.monotonic() - started < 10  # far below a hang; the machine may be busy
    assert (error.code, error.problem) == ("PARSE_FAILED", "timed_out")
    assert "0.5 seconds" in error.message
    assert sandbox.worker_pid() is None
    # SIGKILL went to the whole group; the worker's fork may need a moment to finish dying.
    deadline = time.monotonic() + 2
    while live_processes_in_group(worker) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert live_processes_in_group(worker) == []
    assert extract(files.make_text_pdf(tmp_path)).page_count == 3  # a new worker takes over


def live_processes_in_group(group: int) -> list[int]:
    """Processes of a process group that still run (zombies awaiting their reaper do not)."""
    pids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        state, process_group = fields[0], int(fields[2])
        if process_group == group and state != "Z":
            pids.append(int(stat.parent.name))
    return pids


# --- PDF ----------------------------------------------------------------------------------


def test_pdf_text_comes_page_by_page_with_spans(tmp_path: Path) -> None:
    document = extract(files.make_text_pdf(tmp_path))
    assert (document.kind, document.page_count, document.encoding) == ("pdf", 3, None)
    assert_spans_cover(document)
    pages = [document.text[start:end] for start, end in document.page_spans]
    for page, lines in zip(pages, files.CONTRACT_PAGES, strict=True):
        assert page.rstrip("\n") == "\n".join(lines)


def test_correct_password_opens_encrypted_pdf(tmp_path: Path) -> None:
    document = extract(files.make_encrypted_pdf(tmp_path, "s3cret"), password="s3cret")
    assert document.text.startswith("SUPPLY AGREEMENT\n")


def test_wrong_password_is_told_apart_from_a_missing_one(tmp_path: Path) -> None:
    path = files.make_encrypted_pdf(tmp_path, "s3cret")
    missing, wrong = refusal(path), refusal(path, password="guess")
    assert missing.code == wrong.code == "NEEDS_PASSWORD"
    assert missing.message == "This PDF is password-protected. Enter its password and try again."
    assert wrong.message != missing.message


def test_pdf_protected_only_against_editing_opens_without_password(tmp_path: Path) -> None:
    assert extract(files.make_encrypted_pdf(tmp_path, "")).text.startswith("SUPPLY AGREEMENT")


def test_pdf_header_after_junk_is_still_a_pdf(tmp_path: Path) -> None:
    pdf = files.make_text_pdf(tmp_path).read_bytes()
    path = tmp_path / "with-junk"
    path.write_bytes(b"Content-Type: application/pdf\r\n\r\n" + pdf)
    assert extract(path).page_count == 3


# --- DOCX and TXT -------------------------------------------------------------------------


def test_docx_paragraphs_and_table_cells_in_document_order(tmp_path: Path) -> None:
    document = extract(files.make_docx(tmp_path))
    assert document.text == (
        "Licence Agreement\n"
        "1. Grant. Licensor grants Licensee a non-exclusive licence.\n"
        "Party\tRole\n"
        "Initech\tLicensee\n"
        "2. Term. This Agreement lasts three years."
    )
    assert (document.kind, document.page_spans, document.page_count) == (
        "docx",
        [(0, len(document.text))],
        1,
    )


CONTRACT_TEXT = "Clause 1.\r\nThe Supplier — “Acme” — pays €5,000.\n\n\tClause 2. Fin.\n"
CHINESE_TEXT = (
    "第一条 违约金\n本合同任何一方违约，应向对方支付违约金人民币壹万元。\r\n第二条 争议解决"
)


@pytest.mark.parametrize(
    ("text", "encoding", "bom"),
    [
        (CONTRACT_TEXT, "utf-8", b""),
        (CONTRACT_TEXT, "utf-8", codecs.BOM_UTF8),
        (CONTRACT_TEXT, "utf-16-le", codecs.BOM_UTF16_LE),
        (CONTRACT_TEXT, "utf-16-be", codecs.BOM_UTF16_BE),
        (CONTRACT_TEXT, "utf-16-le", b""),
        (CHINESE_TEXT, "gb18030", b""),
        (CHINESE_TEXT, "utf-8", b""),
    ],
    ids=[
        "utf-8",
        "utf-8-bom",
        "utf-16-le-bom",
        "utf-16-be-bom",
        "utf-16-le",
        "gb18030",
        "zh-utf-8",
    ],
)
def test_text_file_is_decoded_unchanged(
    tmp_path: Path, text: str, encoding: str, bom: bytes
) -> None:
    raw = bom + text.encode(encoding)
    path = tmp_path / "contract.txt"
    path.write_bytes(raw)
    document = extract(path)
    assert document.text == text
    assert document.encoding is not None and raw.decode(document.encoding) == text
    assert (document.kind, document.page_spans, document.page_count) == ("txt", [(0, len(text))], 1)


def test_a_small_program_file_is_called_unreadable_not_a_badly_encoded_text(tmp_path: Path) -> None:
    path = tmp_path / "setup.txt"
    path.write_bytes(b"MZ\x90\x00\x03\x00\x00\x00This program cannot be run in DOS mode.")
    error = refusal(path)
    assert (error.code, error.problem) == ("UNSUPPORTED_TYPE", "binary")


def test_legacy_code_page_text_is_refused_with_advice_not_mojibake(tmp_path: Path) -> None:
    path = files.make_text_file(
        tmp_path, "The Buyer shall pay the Seller’s costs.\n" * 50, "cp1252", "legacy.txt"
    )
    error = refusal(path)
    assert (error.code, error.problem) == ("UNSUPPORTED_TYPE", "unknown_encoding")
    assert "UTF-8" in error.message


def test_whitespace_only_text_file_has_no_text(tmp_path: Path) -> None:
    path = files.make_text_file(tmp_path, " \n\t\n", "utf-8", "blank.txt")
    assert refusal(path).message == "The file contains no text."


# --- Detection by content -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("head", "kind"),
    [
        (b"%PDF-1.7\n", "pdf"),
        (b"\xef\xbb\xbfjunk before the header\n%PDF-1.4\n", "pdf"),
        (b"<!DOCTYPE html><html><body>%PDF-1.4 is a version</body></html>" + b" " * 2000, "pdf"),
        (b"<!doctype html><html></html>", "unsupported"),
        (b"  <?xml version='1.0'?><root/>", "unsupported"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "unsupported"),
        (b"\xff\xd8\xff\xe0\x00\x10JFIF", "unsupported"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1\x00\x00", "doc"),
        (b"{\\rtf1\\ansi Contract}", "unsupported"),
        (b"PK\x03\x04\x14\x00\x00\x00word/document.xml", "docx"),
        (b"PK\x03\x04\x14\x00\x00\x00xl/workbook.xml", "unsupported"),
        (b"AGREEMENT\nThis Agreement is made", "txt"),
        (b"\xff\xfeA\x00g\x00r\x00", "txt"),
        ("第一条 违约金".encode("gb18030"), "txt"),
        (b"", "unsupported"),
    ],
)
def test_kind_is_detected_from_content(head: bytes, kind: str) -> None:
    assert detect_kind(head) == kind


def test_docx_is_detected_from_its_zip_directory_whatever_its_name(tmp_path: Path) -> None:
    path = files.make_docx(tmp_path).rename(tmp_path / "contract.pdf")
    assert detect_kind(path.read_bytes()[:4096], path) == "docx"
    assert extract(path).kind == "docx"


@pytest.mark.slow  # starts a Python process
def test_parent_does_not_import_the_parsers() -> None:
    code = (
        "import sys, reviewapp.text.extraction;print('pypdf' in sys.modules, 'docx' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.split() == ["False", "False"]


# --- The fast content-stream parser agrees with pypdf's ---------------------------------------

CONTENT_STREAMS = [
    b"BT /F1 12 Tf 72 700 Td (Hello \\(world\\) \\\\ \\101\\102\\7 \\777 \\q) Tj ET",
    b"q 1 0 0 1 5 5 cm q 0 0 m 10 10 l S Q BT /F1 9 Tf [(A) -250 (B) 3.5 <4344>] TJ ET Q",
    b"BT /F1 9 Tf (one (nested) level) Tj (line\\\r\ncontinued) Tj 2 0 0 2 0 0 Tm T* (x) ' ET",
    b'/Span << /ActualText (Hi) /MCID 3 >> BDC BT /F#31 9 Tf 1 2 (q) " ET EMC % comment\n',
]
# Left to pypdf's own parser: deeper nesting, inline images, comments among operands.
UNUSUAL_STREAMS = [
    b"BT /F1 9 Tf ((deeply (nested)) parens) Tj ET",
    b"BI /W 1 /H 1 /CS /G /BPC 8 ID \x00 EI BT /F1 9 Tf (after image) Tj ET",
    b"BT /F1 9 Tf 1 2 %c\n Td (comment among operands) Tj ET",
]


@pytest.mark.parametrize("data", CONTENT_STREAMS)
def test_fast_parser_gives_pypdfs_text_operations(data: bytes) -> None:
    assert typed(fast_text_operations(data)) == typed(stock_text_operations(data))


def typed(value: object) -> object:
    """Values with their types, so that 1 == 1.0 == NumberObject(1) cannot hide a difference."""
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [typed(item) for item in value])
    return (type(value).__name__, value)


@pytest.mark.parametrize("data", UNUSUAL_STREAMS)
def test_fast_parser_hands_unusual_streams_to_pypdf(data: bytes) -> None:
    with pytest.raises(fast_parser._NeedsStockParser):
        fast_text_operations(data)


def stock_text_operations(data: bytes) -> list[tuple[list[object], bytes]]:
    stream = ContentStream(None, None, "bytes")
    stream._operations = []
    ContentStream._parse_content_stream(stream, BytesIO(data))
    wanted = fast_parser.text_operators()
    kept: list[tuple[list[object], bytes]] = []
    for operands, operator in stream.operations:
        if operator not in wanted:
            continue
        if operator == b"Q" and kept and kept[-1] == ([], b"q"):
            kept.pop()  # the fast parser drops empty q/Q pairs
        else:
            kept.append((list(operands), operator))
    return kept


def fast_text_operations(data: bytes) -> list[tuple[list[object], bytes]]:
    wanted = fast_parser.text_operators()
    operations = fast_parser.parse_text_operations(data, "bytes", wanted, 10**6)
    return [(list(operands), operator) for operands, operator in operations]


# --- PDF text reads like the same contract typed as text -------------------------------------

PLAYBOOK = PROJECT_ROOT / "reviewapp" / "rules" / "playbooks" / "commercial-en.yaml"
# (font, line as drawn in the PDF, the same line as typed in a .txt). "Helvetica" lines are
# written byte for byte, so a no-break space stays one (WinAnsi 240).
PDF_LINES = [
    ("Vera", "MASTER SERVICES AGREEMENT", "MASTER SERVICES AGREEMENT"),
    ("Vera", "W I T N E S S E T H:", "WITNESSETH:"),
    (
        "Vera",
        "WHEREAS, the parties wish to work together.",
        "WHEREAS, the parties wish to work together.",
    ),
    ("Helvetica", "9.\xa0LIMITATION\xa0OF\xa0LIABILITY", "9. LIMITATION OF LIABILITY"),
    (
        "Helvetica",
        "In\xa0no\xa0event\xa0shall\xa0either\xa0party\xa0be\xa0liable\xa0for\xa0any\xa0indirect\xa0or",
        "In no event shall either party be liable for any indirect or",
    ),
    ("Helvetica", "consequential\xa0damages.", "consequential damages."),
    ("Vera", "10. CONFIDENTIALITY", "10. CONFIDENTIALITY"),
    (
        "Vera",
        "Each party shall keep the con\ufb01dential information of the other party secret.",
        "Each party shall keep the confidential information of the other party secret.",
    ),
    ("Vera", "11. TERMINATION", "11. TERMINATION"),
    (
        "Vera",
        "Either party may terminate this Agreement for convenience upon thirty days' no-",
        "Either party may terminate this Agreement for convenience upon thirty days' notice",
    ),
    (
        "Vera",
        "tice to the other party. Any notice shall be in writing.",
        "to the other party. Any notice shall be in writing.",
    ),
    ("Vera", "12. A S S I G N M E N T", "12. ASSIGNMENT"),
    (
        "Vera",
        "Neither party may assign this Agreement without the prior written consent of the other.",
        "Neither party may assign this Agreement without the prior written consent of the other.",
    ),
]


def make_layout_pdf(path: Path) -> Path:
    """A PDF with what PDF text layers carry: no-break spaces, a ligature glyph, a word
    hyphenated at a line end and a letter-spaced heading."""
    import reportlab
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont
    from reportlab.pdfgen import canvas

    pdfmetrics.registerFont(
        TTFont("Vera", str(Path(reportlab.__file__).parent / "fonts" / "Vera.ttf"))
    )
    pdf = canvas.Canvas(str(path))
    pdf.setFont("Helvetica", 10)
    for number, (font, drawn, _) in enumerate(PDF_LINES):
        y = 800 - 14 * number
        if font == "Helvetica":
            pdf._code.append(
                f"BT /F1 10 Tf 60 {y} Td ({drawn.replace(chr(0xA0), chr(92) + '240')}) Tj ET"
            )
        else:
            pdf.setFont(font, 10)
            pdf.drawString(60, y, drawn)
    pdf.save()
    return path


def flags(document: ExtractedDocument) -> tuple[set[str], list[Segment], list[RuleHit]]:
    segments = segment(document.text, document.page_spans)
    hits = scan(compile_playbook(load_playbook(PLAYBOOK)), document.text, segments)
    return {hit.rule_id for hit in hits}, segments, hits


def test_pdf_with_layout_characters_gets_the_flags_of_the_same_text_file(tmp_path: Path) -> None:
    pdf = extract(make_layout_pdf(tmp_path / "contract.pdf"))
    assert "\xa0" in pdf.text and "\ufb01" in pdf.text and "no-\ntice" in pdf.text  # as drawn
    txt_path = tmp_path / "contract.txt"
    txt_path.write_text("\n".join(typed for _, _, typed in PDF_LINES) + "\n", encoding="utf-8")
    txt = extract(txt_path)
    pdf_rules, pdf_segments, pdf_hits = flags(pdf)
    txt_rules, txt_segments, _ = flags(txt)
    assert pdf_rules == txt_rules
    assert len(pdf_rules) >= 3
    assert [s.heading for s in pdf_segments] == [s.heading for s in txt_segments]
    assert not any(s.is_heading for s in pdf_segments)  # each heading opens its clause
    # Highlights cover the words as they stand in the PDF's text.
    matched = {hit.rule_id: pdf.text[hit.match_start : hit.match_end] for hit in pdf_hits}
    assert matched["en.cap-on-liability.terms"] == "indirect\xa0or\nconsequential\xa0damages"
    assert matched["en.anti-assignment.context"] == "A S S I G N M E N T"


# --- Real contracts (CUAD) ----------------------------------------------------------------


def cuad_contracts() -> list[dict[str, str]]:
    if not (CUAD / "labels.jsonl").exists():
        pytest.skip(f"CUAD data not found at {CUAD} (expected ../shared/data/cuad)")
    with open(CUAD / "labels.jsonl", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


@pytest.mark.cuad
def test_cuad_sample_recovers_99_percent_of_words() -> None:
    sample = cuad_contracts()[::39]  # 8 of the 311 contracts, spread over the list
    assert len(sample) == 8
    for contract in sample:
        document = extract(CUAD / contract["pdf"])
        reference = without_furniture((CUAD / contract["txt"]).read_text(encoding="utf-8"))
        assert word_recovery(document.text, reference) >= 0.99, contract["pdf"]
        assert_spans_cover(document)


def without_furniture(reference: str) -> str:
    """CUAD's text keeps the page numbers and running lines ("Source: …, 10-K, …") that the
    extractor drops on purpose (extraction/furniture.py): lines that are a bare number or that
    recur (digits aside) on three lines or more are not words to recover."""
    lines = reference.split("\n")
    keys = [re.sub(r"\d+", "#", line.strip().lower()) for line in lines]
    counts = Counter(keys)
    kept = [
        line
        for line, key in zip(lines, keys, strict=True)
        if not re.fullmatch(r"[\W#]*(?:page)?[\W#]*", key)
        and not (counts[key] >= 3 and len(key) <= 150)
    ]
    return "\n".join(kept)


@pytest.mark.cuad
@pytest.mark.parametrize("index", [0, 84, 126])
def test_cuad_pages_equal_stock_pypdf(index: int) -> None:
    """The sandbox's speed-ups must not change a character of pypdf's output (the page
    furniture it drops aside)."""
    path = CUAD / cuad_contracts()[index]["pdf"]
    document = extract(path)
    stock = [page.extract_text() for page in PdfReader(path).pages]
    sandboxed = [document.text[start:end] for start, end in document.page_spans]
    sandboxed = [
        page.removesuffix("\n\n") if number < len(stock) else page
        for number, page in enumerate(sandboxed, 1)
    ]
    assert sandboxed == strip_page_furniture([page.replace("\x00", "\ufffd") for page in stock])


def test_word_recovery_counts_repeats_and_line_end_hyphens() -> None:
    reference = "The termination of the then-current term."
    assert word_recovery("The termi-\nnation of the then-\ncurrent term.", reference) == 1.0
    assert word_recovery("The termination of the term.", reference) == pytest.approx(5 / 7)
