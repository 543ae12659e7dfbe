"""Sentence ends, abbreviations, and splitting an over-long passage at sentence ends."""

from __future__ import annotations

import re
from math import ceil

_CLOSERS = "\"'”’)\\]»」』）"
_SENTENCE_END_RE = re.compile(
    rf"[.!?][{_CLOSERS}]*(?=[^\S\n]*\n|\s+[\"'“‘(\[]?[A-Z])|[。！？；][{_CLOSERS}]*"
)
# Past this many abbreviations in a row ("A. B. C. ..."), give up looking for a sentence end.
_MAX_CANDIDATES = 64
_EVEN_SLACK = 1.15
_WORD_BEFORE_DOT_RE = re.compile(r"[A-Za-z][A-Za-z.]*\Z")
_INITIALISM_RE = re.compile(r"(?:[a-z]\.)+[a-z]\Z")
# Abbreviations that are usually followed by a number ("No. 5", "Sec. 2.1", "Jan. 1").
NUMBER_PREFIXES = frozenset({
    "no", "nos", "sec", "secs", "art", "arts", "para", "paras", "p", "pp", "ch", "cl", "vol",
    "fig", "ref", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov",
    "dec",
})  # fmt: skip
_ABBREVIATIONS = NUMBER_PREFIXES | {
    "inc", "ltd", "co", "corp", "llc", "plc", "bros", "mr", "mrs", "ms", "dr", "jr", "sr", "st",
    "vs", "v", "cf", "approx", "dept", "est", "av", "ave",
}  # fmt: skip


def is_abbreviation(text: str, dot: int) -> bool:
    """Whether the "." at ``text[dot]`` closes an abbreviation or an initial, not a sentence."""
    word = _word_before(text, dot)
    lowered = word.lower()
    if lowered in _ABBREVIATIONS:
        return True
    return (len(word) == 1 and word.isupper()) or bool(_INITIALISM_RE.match(lowered))


def is_number_prefix(text: str, dot: int) -> bool:
    """Whether the "." at ``text[dot]`` closes a word such as "No." that a number follows."""
    return _word_before(text, dot).lower() in NUMBER_PREFIXES


def _word_before(text: str, dot: int) -> str:
    match = _WORD_BEFORE_DOT_RE.search(text, max(0, dot - 12), dot)
    return match.group() if match else ""


def split_points(text: str, start: int, end: int, limit: int, sentence_limit: int) -> list[int]:
    """Offsets where ``text[start:end]`` should be cut so pieces stay within ``limit`` chars.

    Pieces are packed with whole sentences. A single sentence longer than ``limit``
    stays whole unless it passes ``sentence_limit`` (a table, or text without punctuation);
    then it is cut at a semicolon, a comma or a space.
    """
    cuts: list[int] = []
    # Aim at pieces of even size, so that no short scrap is left at the end.
    even = min(limit, ceil((end - start) / ceil((end - start) / limit) * _EVEN_SLACK))
    piece = start
    while end - piece > limit:
        cut = _last_sentence_end(text, piece + 1, piece + even)
        if cut is None:
            cut = _first_sentence_end(text, piece + even, piece + limit)
        if cut is None:
            cut = _first_sentence_end(text, piece + limit, min(end, piece + sentence_limit))
        if cut is None and end - piece <= sentence_limit:
            break
        if cut is None:
            cut = _run_on_cut(text, piece, piece + sentence_limit)
        cuts.append(cut)
        piece = cut
    return cuts


def _last_sentence_end(text: str, lowest: int, highest: int) -> int | None:
    """The last sentence end in ``text[lowest:highest]``."""
    matches = list(_SENTENCE_END_RE.finditer(text, lowest, highest + 8))
    checked = 0
    for match in reversed(matches):
        if match.end() > highest:
            continue
        if _ends_sentence(text, match):
            return match.end()
        checked += 1
        if checked == _MAX_CANDIDATES:
            break
    return None


def _first_sentence_end(text: str, lowest: int, highest: int) -> int | None:
    for checked, match in enumerate(_SENTENCE_END_RE.finditer(text, lowest, highest)):
        if _ends_sentence(text, match):
            return match.end()
        if checked == _MAX_CANDIDATES:
            break
    return None


def _ends_sentence(text: str, match: re.Match[str]) -> bool:
    return text[match.start()] != "." or not is_abbreviation(text, match.start())


def _run_on_cut(text: str, start: int, highest: int) -> int:
    lowest = (start + highest) // 2
    for separator in ("; ", ", ", " "):
        found = text.rfind(separator, lowest, highest)
        if found >= 0:
            return found + len(separator)
    return highest
