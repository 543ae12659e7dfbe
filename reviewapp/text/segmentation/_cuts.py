"""Where passages start: blank lines, clause labels, headings, paragraph ends in wrapped text.

Text extracted from PDFs wraps lines mid-sentence, and some extractions put a whole page on one
line. A line break therefore only starts a passage with a cue that the previous line is finished;
inside a line, a label only starts a passage right after a sentence end or a capitalised heading.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter

from ._headings import is_heading_text
from ._labels import (
    CJK_NUMERALS,
    ENUMERATION_KINDS,
    LABEL_SOURCE_ASCII,
    LABEL_SOURCE_CJK,
    STRUCTURAL_KINDS,
    Label,
    match_label,
)
from ._sentences import is_number_prefix

_LINE_RE = re.compile(r"\S(?:[^\n]*\S)?")
_OPENERS = "\"'“‘([«"
_CLOSERS = "\"'”’)\\]»」』）"
# U+037E (Greek question mark) is how some PDF text extractors spell ";".
_CLOSE_CHARS = frozenset(".;:!?。；：！？…\u037e")
_CLOSES_RE = re.compile(
    rf"(?:[.;:!?。；：！？…\u037e]|[;,\u037e][^\S\n]*(?:and|or|and/or))[{_CLOSERS}]*\Z",
    re.IGNORECASE,
)
_SENTENCE_END_RE = re.compile(rf"[.!?:。！？：][{_CLOSERS}]*\Z")
_PAGE_NUMBER_RE = re.compile(r"(?:page\s*)?[-–\s]*[\divxlc]{1,4}[-–\s]*(?:of\s*\d+)?\Z", re.I)
_FOLLOWER = r"(?:[A-Z\"“‘'(\[]|[\u3400-\u9fff])"
_CAPS_RUN = (
    r"(?!(?:ARTICLES?|SECTIONS?|SCHEDULE|EXHIBIT|ANNEX|APPENDIX|ATTACHMENT|PART|CHAPTER)\b)"
    r"(?:[A-Z][A-Z&'’\-]+[^\S\n]+){0,6}[A-Z][A-Z&'’\-]{2,}[.:]?"
)
# After a sentence end: a clause label, or what may be a capitalised heading ("RECITALS").
# The pattern starts with a character class so the scan skips ahead quickly.
_INLINE_RE = re.compile(
    rf"[.!?:][{_CLOSERS}]*[^\S\n]+(?=[(\dA-Z§])"
    rf"(?:(?=(?:{LABEL_SOURCE_ASCII})[^\S\n]*{_FOLLOWER})|(?P<caps>(?=[A-Z][A-Z])))"
)
_CJK_STOPS = "。！？；："
_CJK_INLINE_LABEL_RE = re.compile(
    rf"[{_CJK_STOPS}][{_CLOSERS}]*[^\S\n]*(?=[(（\d第{CJK_NUMERALS}])"
    rf"(?=(?:{LABEL_SOURCE_CJK}|{LABEL_SOURCE_ASCII})[^\S\n]*{_FOLLOWER})"
)
# A capitalised title run-in with its text: "ARTICLE 1 DEFINITIONS 1.1 ...", "RECITALS A. ...".
_RUN_IN_HEADING_RE = re.compile(
    rf"(?P<label>(?:{LABEL_SOURCE_ASCII})[^\S\n]+)?(?P<run>{_CAPS_RUN})[^\S\n]+"
    rf"(?=[\"“]?[A-Z][a-z]|[A-Z]\.[^\S\n]|(?:{LABEL_SOURCE_ASCII})[^\S\n]+[A-Z\"“(])"
)
_CJK_RE = re.compile(r"[\u3400-\u9fff]")
_WRAP_SHARE = 0.8
_LABEL_WORDS = (
    "Article", "Section", "Sec.", "Schedule", "Exhibit", "Annex", "Appendix", "Attachment", "Part",
    "Chapter",
)  # fmt: skip
_WRAPPED_LINE_CHARS = 60
_MID_SENTENCE_ENDINGS = frozenset("abcdefghijklmnopqrstuvwxyz,-–(")
_FURNITURE_CHARS = 80
_FURNITURE_REPEATS = 3
_WITHOUT_DIGITS_OR_SPACES = str.maketrans("", "", "0123456789 \t\u00a0")


def find_cuts(text: str, page_starts: list[int]) -> list[int]:
    """Sorted offsets where a passage may start (each at a non-space character)."""
    cuts = set(_line_cuts(text, page_starts))
    cuts.update(_inline_cuts(text))
    cuts.update(_run_in_heading_ends(text, list(cuts)))
    return sorted(cuts)


def label_opens_clause(text: str, label: Label, end: int, *, lowercase_ok: bool) -> bool:
    """Whether what follows ``label`` looks like a clause body rather than a number in prose."""
    pos = label.end
    while pos < end and text[pos] != "\n" and text[pos].isspace():
        pos += 1
    if pos >= end or label.kind.startswith("cn_") or match_label(text, pos, end) is not None:
        return True
    char = text[pos]
    if label.kind in STRUCTURAL_KINDS:
        return not char.islower()
    if char.isupper() or char in _OPENERS or "\u3400" <= char <= "\u9fff":
        return True
    return lowercase_ok and char.islower() and label.kind in ENUMERATION_KINDS


def _line_cuts(text: str, page_starts: list[int]) -> list[int]:
    lines = _Lines(text, page_starts)
    cuts = []
    for index, start in enumerate(lines.starts):
        previous = lines.content_before(index)
        if previous < 0:
            cuts.append(start)
        elif lines.is_furniture(index):
            # A running footer inside a sentence that goes on over the page stays inside it.
            if lines.finished(previous):
                cuts.append(start)
        elif lines.after_blank(index):
            if not lines.continues_sentence(previous, index):
                cuts.append(start)
        elif lines.starts_passage(previous, index):
            cuts.append(start)
    return cuts


class _Lines:
    """The non-blank lines of a text and what they look like, computed when first asked."""

    def __init__(self, text: str, page_starts: list[int]) -> None:
        self.text = text
        spans = [match.span() for match in _LINE_RE.finditer(text)]
        self.starts = [start for start, _ in spans]
        self.ends = [end for _, end in spans]
        self._page_tops = {bisect_left(self.starts, start) for start in page_starts if start > 0}
        self._furniture = self._repeated_lines()
        self._labels: dict[int, Label | None] = {}
        self._headings: dict[int, bool] = {}
        self._wrap_width = -1

    def _repeated_lines(self) -> set[int]:
        """Running headers and footers: short lines repeated on several pages."""
        keys = {}
        for index, (start, end) in enumerate(zip(self.starts, self.ends, strict=True)):
            if end - start <= _FURNITURE_CHARS:
                keys[index] = self.text[start:end].translate(_WITHOUT_DIGITS_OR_SPACES)
        counts = Counter(keys.values())
        most = max(_FURNITURE_REPEATS, len(self.starts) // 5)
        return {
            index
            for index, key in keys.items()
            if _FURNITURE_REPEATS <= counts[key] <= most and sum(map(str.isalpha, key)) >= 4
        }

    def content_before(self, index: int) -> int:
        """The nearest line above that is not a running header or footer (-1 if none)."""
        previous = index - 1
        while previous >= 0 and previous in self._furniture and index - previous <= 4:
            previous -= 1
        return previous

    def is_furniture(self, index: int) -> bool:
        return index in self._furniture

    def after_blank(self, index: int) -> bool:
        gap = self.text[self.ends[index - 1] : self.starts[index]]
        return gap.count("\n") >= 2 or "\f" in gap

    def finished(self, index: int) -> bool:
        return self.closes(index) or self.heading(index)

    def continues_sentence(self, previous: int, index: int) -> bool:
        """After a blank line or a page break: whether the line goes on with an unfinished one."""
        if self.finished(previous):
            return False
        text, start = self.text, self.starts[index]
        if text[start].islower():
            return True
        label = self.label(index)
        end = self.ends[index]
        if label is not None and label_opens_clause(text, label, end, lowercase_ok=True):
            return False
        long_previous = self.ends[previous] - self.starts[previous] >= _WRAPPED_LINE_CHARS
        ends_mid_sentence = text[self.ends[previous] - 1] in _MID_SENTENCE_ENDINGS
        return long_previous and ends_mid_sentence and not self.heading(index)

    def starts_passage(self, previous: int, index: int) -> bool:
        """Whether line ``index`` starts a passage, given the line ``previous`` above it."""
        text, start = self.text, self.starts[index]
        if text[start].islower() and not _may_open_with_label(text, start):
            return False
        label, previous_label = self.label(index), self.label(previous)
        if previous_label is not None and self._label_only(previous):
            # "1.1" alone goes with the line below; "ARTICLE V" alone with a title below only.
            structural = previous_label.kind in STRUCTURAL_KINDS
            return structural and not self.heading(index) and not text[start].islower()
        previous_done = index in self._page_tops or self.finished(previous)
        if label is not None:
            opens = label_opens_clause(text, label, self.ends[index], lowercase_ok=previous_done)
            # "ARTICLE V" starts a passage even after an unfinished line; "Schedule A" may be
            # the end of a cross-reference wrapped onto its own line.
            shouted = label.kind in STRUCTURAL_KINDS and label.text.isupper()
            if opens and (previous_done or (shouted and self.heading(index))):
                return True
            # "Attention: T. Desbiens" then "10. Term and Termination.": a numbered title
            # after a short line (an address, a table cell) that did not wrap into it.
            if opens and self.heading(index) and self._short(previous):
                return True
        if text[start].islower():
            return False
        if previous_done and self.heading(index) and not self._continues_below(index):
            return True
        if self.heading(previous):
            # A short Chinese line may just be a sentence wrapped early, not a title.
            return self.label(previous) is not None or not _CJK_RE.match(
                text, self.starts[previous]
            )
        return self._ends_sentence(previous) and self._short(previous)

    def closes(self, index: int) -> bool:
        """Whether the line ends a sentence, a list item or a heading-like number."""
        start, end = self.starts[index], self.ends[index]
        tail = self.text[max(start, end - 12) : end]
        if tail[-1] in _CLOSE_CHARS or _CLOSES_RE.search(tail):
            return True
        return end - start <= 16 and bool(_PAGE_NUMBER_RE.match(self.text, start, end))

    def label(self, index: int) -> Label | None:
        if index not in self._labels:
            self._labels[index] = match_label(self.text, self.starts[index], self.ends[index])
        return self._labels[index]

    def heading(self, index: int) -> bool:
        cached = self._headings.get(index)
        if cached is None:
            label = self.label(index)
            rest = self.text[label.end if label else self.starts[index] : self.ends[index]]
            structural = label is not None and label.kind in STRUCTURAL_KINDS
            cached = is_heading_text(rest, labelled=label is not None, structural=structural)
            self._headings[index] = cached
        return cached

    def _label_only(self, index: int) -> bool:
        label = self.label(index)
        return label is not None and not self.text[label.end : self.ends[index]].strip()

    def _continues_below(self, index: int) -> bool:
        following = index + 1
        return following < len(self.starts) and self.text[self.starts[following]].islower()

    def _ends_sentence(self, index: int) -> bool:
        end = self.ends[index]
        return bool(_SENTENCE_END_RE.search(self.text, max(self.starts[index], end - 8), end))

    def _short(self, index: int) -> bool:
        """Much shorter than the width lines wrap at, so the line ended its paragraph."""
        if self._wrap_width < 0:
            lengths = sorted(end - start for start, end in zip(self.starts, self.ends, strict=True))
            self._wrap_width = lengths[int(0.9 * (len(lengths) - 1))]
        return self.ends[index] - self.starts[index] < _WRAP_SHARE * self._wrap_width


def _may_open_with_label(text: str, start: int) -> bool:
    """Lowercase labels are short and end with "." or ")": "a.", "b)", "iv)"."""
    return text[start + 1 : start + 2] == "." or ")" in text[start + 1 : start + 6]


def _inline_cuts(text: str) -> list[int]:
    cuts = []
    for match in _INLINE_RE.finditer(text):
        if match.group("caps") is not None:
            heading = _RUN_IN_HEADING_RE.match(text, match.end())
            if heading is not None and _is_run_in_heading(heading):
                cuts.append(match.end())
        elif text[match.start()] != "." or not is_number_prefix(text, match.start()):
            cuts.append(match.end())
    if any(stop in text for stop in _CJK_STOPS):
        cuts.extend(match.end() for match in _CJK_INLINE_LABEL_RE.finditer(text))
    return cuts


def _run_in_heading_ends(text: str, cuts: list[int]) -> list[int]:
    """Where the body starts after a capitalised title that opens a passage."""
    ends = []
    for cut in cuts:
        # Cheap test first: capitals ("RECITALS"), a number, or a word like "Section".
        head = text[cut : cut + 2]
        if head.isupper() or head[0] in "(§0123456789" or text.startswith(_LABEL_WORDS, cut):
            heading = _RUN_IN_HEADING_RE.match(text, cut)
            if heading is not None and _is_run_in_heading(heading):
                ends.append(heading.end())
    return ends


def _is_run_in_heading(heading: re.Match[str]) -> bool:
    """Several capitalised words, or one long one: "GOVERNING LAW", "RECITALS"; not "ISA"."""
    words = heading.group("run").split()
    return len(words) > 1 or len(words[0].rstrip(".:")) >= (4 if heading.group("label") else 7)
