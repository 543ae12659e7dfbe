"""Which passages are headings, clause titles, and the heading path in force."""

from __future__ import annotations

import re

_MAX_HEADING_CHARS = 150
_MAX_PATH_CHARS = 200
_MAX_PATH_PART_CHARS = 80
_SMALL_WORDS = frozenset({
    "a", "an", "and", "as", "at", "by", "for", "from", "in", "into", "of", "on", "or", "per",
    "the", "to", "under", "upon", "with", "without", "its", "their", "vs", "non", "not",
})  # fmt: skip
_WORD_RE = re.compile(r"[^\W\d_][\w'’\-]*")
_SENTENCE_INSIDE_RE = re.compile(r"[.!?;。！？；][\"'”’)\]]*\s+\S")
_CJK_RE = re.compile(r"[\u3400-\u9fff]")
_CJK_PUNCTUATION_RE = re.compile(r"[。，；：！？,;:!?]")
_TITLE_RE = re.compile(r"([^.:;!?\n]{1,80}?)(?:[.:]|[^\S\n]+[–—-])[^\S\n]+(?=\S)")
_CJK_TITLE_RE = re.compile(
    r"([^\s。，；：、,.;:]{1,20})[^\S\n]*\n|([^\s。，；：、,.;:]{1,20})[^\S\n]+"
)


def is_heading_text(rest: str, *, labelled: bool, structural: bool) -> bool:
    """Whether ``rest`` (a passage without its label) reads as a title rather than a sentence."""
    if len(rest) > 2 * _MAX_HEADING_CHARS:
        return False
    rest = rest.strip()
    if not rest:
        return structural
    if not labelled and rest[0].islower():
        return False
    if len(rest) > _MAX_HEADING_CHARS or rest[-1] in ",;" or _SENTENCE_INSIDE_RE.search(rest):
        return False
    if _CJK_RE.search(rest):
        limit = 25 if labelled else 15
        return len(rest) <= limit and not _CJK_PUNCTUATION_RE.search(rest)
    words = _WORD_RE.findall(rest)
    if not words or len(words) > (15 if labelled else 10):
        return False
    if not labelled and (":" in rest[:-1] or any(map(str.isdigit, rest))):
        return False
    letters = sum(map(str.isalpha, rest))
    if letters >= 3 and sum(map(str.isupper, rest)) >= 0.85 * letters:
        return True
    if not _is_title_case(words):
        return False
    return labelled or rest[-1] != "."


def clause_title(rest: str) -> str:
    """The short title opening a clause body ("Termination for Cause. Either party may...")."""
    if _CJK_RE.match(rest):
        match = _CJK_TITLE_RE.match(rest)
        return (match.group(1) or match.group(2)) if match else ""
    match = _TITLE_RE.match(rest)
    if match is None:
        return ""
    title = match.group(1).strip()
    words = _WORD_RE.findall(title)
    if not words or len(words) > 10:
        return ""
    return title if title.upper() == title or _is_title_case(words) else ""


def heading_display(text: str) -> str:
    return " ".join(text.split()).rstrip(".:：")


def _is_title_case(words: list[str]) -> bool:
    capitalised = 0
    for word in words:
        if word[0].isupper():
            capitalised += 1
        elif word.lower() not in _SMALL_WORDS:
            return False
    return capitalised > 0


class HeadingPath:
    """A stack of (rank, title) entries; entries without a title keep the nesting but are hidden."""

    def __init__(self) -> None:
        self._stack: list[tuple[int, str]] = []
        self._rendered: str | None = ""

    def enter(self, rank: int, title: str) -> None:
        while self._stack and self._stack[-1][0] >= rank:
            self._rendered = None if self._stack.pop()[1] else self._rendered
        self._stack.append((rank, title))
        if title:
            self._rendered = None

    def render(self) -> str:
        if self._rendered is None:
            self._rendered = self._render()
        return self._rendered

    def _render(self) -> str:
        parts = [_shorten(title) for _, title in self._stack if title]
        while len(parts) > 1 and sum(map(len, parts)) + 3 * (len(parts) - 1) > _MAX_PATH_CHARS:
            parts.pop(0)
        return " > ".join(parts)[:_MAX_PATH_CHARS]


def _shorten(title: str) -> str:
    if len(title) <= _MAX_PATH_PART_CHARS:
        return title
    return title[: _MAX_PATH_PART_CHARS - 1].rstrip() + "…"
