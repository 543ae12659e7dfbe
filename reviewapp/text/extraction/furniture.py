"""Page furniture off the edges of PDF pages: page numbers and running headers and footers.

A clause that runs over a page break otherwise reads "know-how, 2 show-how" in the queue, the
redline box and the exports (issue 25), and SEC filings add "Source: ACME CORP., 10-K,
3/1/2019" to every page. Only the first and last few lines of a page are looked at, and a
line goes only when the document itself shows it is furniture:

- a page number: "Page 3 of 49", "- 3 -", "3/49", "第3页", or a bare number that counts the
  pages: the page's own number, or the number minus the page's position is the same on most
  pages that carry one (a body numbered from 1 after a cover and contents);
- a running line: worded, and the same (digits aside) at the same edge of at least three
  pages and of a fifth of them. The first page keeps its top running lines (often the title).

A line of text among the edge lines does not shield the furniture beyond it: the reader often
puts a page number above the last lines of the page, or a superscript ("th") below it.

Pure Python over the page texts, so it runs in the extraction sandbox with the reader.
"""

from __future__ import annotations

import re
from collections import Counter

EDGE_LINES = 3  # lines looked at on each edge of a page
RUNNING_MAX_CHARS = 300  # a legend of confidential treatment runs to 160
RUNNING_MIN_PAGES = 3
RUNNING_MIN_SHARE = 0.2

_PAGE_NUMBER = re.compile(
    r"(?:page|p\.)\s*\d{1,4}(?:\s*(?:of|/)\s*\d{1,4})?"
    r"|[-–—]\s*\d{1,4}\s*[-–—]"
    r"|\d{1,4}\s*(?:of|/)\s*\d{1,4}"
    r"|第\s*\d{1,4}\s*页(?:\s*[,，/]?\s*共\s*\d{1,4}\s*页)?"
    r"|共\s*\d{1,4}\s*页\s*第\s*\d{1,4}\s*页",
    re.IGNORECASE,
)
OWN_NUMBER = 1  # the offset of a page number that counts from 1: page 3 (index 2) reads "3"
_BARE_NUMBER = re.compile(r"\d{1,4}")
_DIGITS = re.compile(r"\d+")
_SPACES = re.compile(r"\s+")


def strip_page_furniture(pages: list[str]) -> list[str]:
    """The pages without their furniture lines; a page keeps its other text as it was."""
    if len(pages) < 2:
        return pages
    lines = [page.split("\n") for page in pages]
    running = _running_lines(lines)
    offsets = _page_number_offsets(lines)
    kept = []
    for index, page_lines in enumerate(lines):
        drop = _furniture(index, page_lines, running, offsets)
        kept.append("\n".join(line for n, line in enumerate(page_lines) if n not in drop))
    return kept


def _edges(page_lines: list[str]) -> tuple[list[int], list[int]]:
    """The indexes of the first and last EDGE_LINES non-blank lines."""
    filled = [n for n, line in enumerate(page_lines) if line.strip()]
    return filled[:EDGE_LINES], filled[::-1][:EDGE_LINES]


def _key(line: str) -> str:
    return _SPACES.sub(" ", _DIGITS.sub("#", line.strip().lower()))


def _running_lines(lines: list[list[str]]) -> dict[str, set[str]]:
    """For each edge, the keys of lines repeated there on enough pages."""
    needed = max(RUNNING_MIN_PAGES, int(RUNNING_MIN_SHARE * len(lines) + 0.999))
    found: dict[str, set[str]] = {}
    for edge, side in (("top", 0), ("bottom", 1)):
        counts: Counter[str] = Counter()
        for page_lines in lines:
            keys = {_key(page_lines[n]) for n in _edges(page_lines)[side]}
            counts.update(k for k in keys if len(k) <= RUNNING_MAX_CHARS and _wordy(k))
        found[edge] = {key for key, count in counts.items() if count >= needed}
    return found


def _wordy(key: str) -> bool:
    """Four letters at least: a lone list label such as "(a)" is no running header."""
    return sum(map(str.isalpha, key)) >= 4


def _bare_number(line: str) -> int | None:
    text = line.strip()
    return int(text) if _BARE_NUMBER.fullmatch(text) else None


def _page_number_offsets(lines: list[list[str]]) -> dict[str, int | None]:
    """For each edge, the number minus the page's position that most bare numbers there share,
    if most pages carrying a bare number at that edge agree on it."""
    offsets: dict[str, int | None] = {}
    for edge, side in (("top", 0), ("bottom", 1)):
        seen: Counter[int] = Counter()
        pages_with_number = 0
        for index, page_lines in enumerate(lines):
            numbers = {_bare_number(page_lines[n]) for n in _edges(page_lines)[side]}
            numbers.discard(None)
            pages_with_number += bool(numbers)
            seen.update(number - index for number in numbers if number is not None)
        best = seen.most_common(1)
        agreed = best and best[0][1] >= 2 and 2 * best[0][1] > pages_with_number
        offsets[edge] = best[0][0] if agreed else None
    return offsets


def _furniture(
    index: int,
    page_lines: list[str],
    running: dict[str, set[str]],
    offsets: dict[str, int | None],
) -> set[int]:
    drop: set[int] = set()
    for edge, edge_lines in zip(("top", "bottom"), _edges(page_lines), strict=True):
        title_page = edge == "top" and index == 0
        for n in edge_lines:
            line = page_lines[n]
            number = _bare_number(line)
            if (
                (_key(line) in running[edge] and not title_page)
                or _PAGE_NUMBER.fullmatch(line.strip())
                or (number is not None and number - index in (OWN_NUMBER, offsets[edge]))
            ):
                drop.add(n)
    return drop
