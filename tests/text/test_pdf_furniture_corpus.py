"""Page furniture over the CUAD dev PDFs (issue 25): no passage of an uploaded PDF holds a page
number or a running header or footer, and the rules find as much in the PDFs as in the .txt.

The furniture is found here in the raw page text of stock pypdf, by rules of this test's own,
not by asking extraction/furniture.py: a line among the first or last EDGE_LINES non-blank lines
of a page is furniture when it is

- a page number: a bare number equal to its page's number, "Page N", "Page N of M", "- N -" or
  "N/M";
- a running line: worded, and the same (digits aside) at that edge of at least three pages and
  of a fifth of them (the attachments of a supply agreement each open with the agreement's name
  on their first page: three of 25 pages is a title, not a running header). The first page's
  top lines are its title, not a running header.

CUAD's .txt keeps the running lines ("Source: ..., 10-K, ...") as text, so it cannot tell
furniture from body; it is the reference for the recall only. A page's line that is furniture
at its edge but also stands in its body counts as left only when the extracted page holds it
more often than the body does.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from pypdf import PdfReader

from reviewapp.text.evaluation import evaluate, load_documents
from reviewapp.text.extraction import ExtractedDocument, ExtractionLimits, extract_file
from reviewapp.text.segmentation import Segment, segment

ROOT = Path(__file__).resolve().parents[2]
CUAD = ROOT.parent / "shared" / "data" / "cuad"
PLAYBOOK = ROOT / "reviewapp" / "rules" / "playbooks" / "commercial-en.yaml"
sys.path.insert(0, str(ROOT / "benchmarks"))

from pdf_parity import paired_documents  # noqa: E402

pytestmark = [pytest.mark.cuad, pytest.mark.slow]

SAMPLE_STEP = 8  # every 8th of the 311 dev PDFs sorted by name: 39, spread over the list
EDGE_LINES = 3
RUNNING_MIN_PAGES = 3
RUNNING_MIN_SHARE = 0.2
MAX_RECALL_GAP = 0.02

_NUMBERED_PAGE = re.compile(
    r"page\s*\d{1,4}(?:\s*of\s*\d{1,4})?|[-–—]\s*\d{1,4}\s*[-–—]|\d{1,4}\s*/\s*\d{1,4}",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W\d_]{3}")


@dataclass
class Contract:
    name: str
    txt_id: str
    raw_pages: list[str]
    document: ExtractedDocument
    passages: list[Segment]


def dev_rows() -> list[dict]:
    if not (CUAD / "labels.jsonl").exists():
        pytest.skip(f"CUAD data not found at {CUAD} (expected ../shared/data/cuad)")
    lines = (CUAD / "labels.jsonl").read_text(encoding="utf-8").splitlines()
    return sorted((json.loads(line) for line in lines if line.strip()), key=lambda r: r["pdf"])


def read_contract(row: dict) -> Contract:
    """The PDF as the app reads it (sandboxed, furniture stripped) and as stock pypdf does."""
    path = CUAD / row["pdf"]
    raw = [page.extract_text().replace("\x00", "\ufffd") for page in PdfReader(path).pages]
    document = extract_file(path, limits=ExtractionLimits())
    passages = segment(document.text, document.page_spans)
    return Contract(Path(row["pdf"]).name, row["id"], raw, document, passages)


@pytest.fixture(scope="module")
def sample() -> list[Contract]:
    return [read_contract(row) for row in dev_rows()[::SAMPLE_STEP]]


def edges(page: str) -> tuple[list[str], list[str]]:
    filled = [line.strip() for line in page.split("\n") if line.strip()]
    return filled[:EDGE_LINES], filled[::-1][:EDGE_LINES]


def shape(line: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"\d+", "#", line.lower()))


def is_page_number(line: str, page_number: int) -> bool:
    return line == str(page_number) or bool(_NUMBERED_PAGE.fullmatch(line))


def running_shapes(pages: list[str]) -> tuple[set[str], set[str]]:
    """For the top and the bottom edge, the shapes of lines that run there."""
    needed = max(RUNNING_MIN_PAGES, RUNNING_MIN_SHARE * len(pages))
    found = []
    for side in (0, 1):
        counts = Counter(s for page in pages for s in {shape(x) for x in edges(page)[side]})
        found.append({s for s, count in counts.items() if count >= needed and _WORD.search(s)})
    return found[0], found[1]


def page_furniture(pages: list[str]) -> list[tuple[Counter[str], Counter[str]]]:
    """Per page, the furniture lines at its top and at its bottom, with how often each stands."""
    running = running_shapes(pages)
    furniture = []
    for index, page in enumerate(pages):
        found: tuple[Counter[str], Counter[str]] = (Counter(), Counter())
        for side, lines in enumerate(edges(page)):
            title = side == 0 and index == 0
            for line in lines:
                if is_page_number(line, index + 1) or (not title and shape(line) in running[side]):
                    found[side][line] += 1
        furniture.append(found)
    return furniture


def furniture_left(contract: Contract) -> list[str]:
    """'document, passage N: line' for each furniture line that a passage still holds."""
    left = []
    pages = zip(
        contract.document.page_spans,
        contract.raw_pages,
        page_furniture(contract.raw_pages),
        strict=True,
    )
    for span, raw, furniture in pages:
        for line, offset in _left_on_page(contract.document.text, span, raw, furniture):
            left += [
                f"{contract.name}, passage {p.index}: {line!r}"
                for p in contract.passages
                if p.start <= offset < p.end
            ]
    return left


def _left_on_page(
    text: str,
    span: tuple[int, int],
    raw: str,
    furniture: tuple[Counter[str], Counter[str]],
) -> Iterator[tuple[str, int]]:
    """The furniture lines that the extracted page holds more often than the raw page's body,
    with their offsets: the first ones for the top edge, the last ones for the bottom."""
    in_raw = Counter(line.strip() for line in raw.split("\n"))
    starts = _line_starts(text, *span)
    for side, lines in enumerate(furniture):
        for line, count in lines.items():
            offsets = starts.get(line, [])
            extra = len(offsets) - (in_raw[line] - count)
            if extra > 0:
                yield from (
                    (line, at) for at in (offsets[:extra] if side == 0 else offsets[-extra:])
                )


def _line_starts(text: str, start: int, end: int) -> dict[str, list[int]]:
    """Each stripped line of text[start:end], with the offsets where it stands."""
    starts: dict[str, list[int]] = {}
    for match in re.finditer(r"[^\n]+", text[start:end]):
        line = match.group().strip()
        offset = start + match.start() + len(match.group()) - len(match.group().lstrip())
        starts.setdefault(line, []).append(offset)
    return starts


def test_no_passage_of_the_sampled_pdfs_holds_a_page_number_or_running_line(sample):
    assert len(sample) == 39
    left = [found for contract in sample for found in furniture_left(contract)]
    assert not left, f"{len(left)} furniture lines left in passages:\n" + "\n".join(left[:40])


def test_the_rules_above_find_furniture_in_the_raw_pages(sample):
    """The check above means something only if its rules find furniture to look for: many of
    the sampled PDFs number their pages, and the SEC filings carry "Source: ..." footers."""
    numbered = sourced = 0
    for contract in sample:
        lines = [x for top, bottom in page_furniture(contract.raw_pages) for x in top + bottom]
        numbered += any(not _WORD.search(line) for line in lines)
        sourced += any(line.startswith("Source:") for line in lines)
    assert numbered >= 15 and sourced >= 10, (numbered, sourced)


def test_rules_recall_on_the_pdfs_stays_within_two_points_of_the_txt(sample):
    documents, categories = load_documents(CUAD)
    by_id = {doc.id: doc for doc in documents}
    pairs = [paired_documents(by_id[c.txt_id], c.document.text) for c in sample]
    scoring = {"categories": categories, "router": None}
    txt = evaluate([txt for txt, _ in pairs], PLAYBOOK, **scoring)
    pdf = evaluate([pdf for _, pdf in pairs], PLAYBOOK, **scoring)
    gap = txt["overall_recall"] - pdf["overall_recall"]
    figures = f"txt {txt['overall_recall']:.3f}, PDF {pdf['overall_recall']:.3f}"
    assert txt["labelled"] == pdf["labelled"] >= 500, figures
    assert abs(gap) <= MAX_RECALL_GAP, figures
