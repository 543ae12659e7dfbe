"""Deterministic extraction of key facts (CUAD ``fact`` categories) for the offline draft.

``extract_facts`` returns each playbook extractor's first match as written; ``key_facts_find``
turns a contract into normalised facts (``reviewapp.text.facts``) and is what drafts store.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from reviewapp.text.facts import Fact, PassageText, find_facts
from reviewapp.text.facts.model import DATE_FACTS
from reviewapp.text.normalise import normalise

from . import regex
from .compiler import CompiledFact, CompiledPlaybook
from .model import Passage

MAX_PREFERRED = 40
MAX_ALSO = 3
_TRIM = " \t\r\n,;:.\"'“”()"


def extract_facts(
    compiled: CompiledPlaybook, text: str, segments: Sequence[Passage] = ()
) -> dict[str, dict]:
    """First match of each fact extractor: ``{category: {"value", "start", "end"}}``, and for a
    date fact the next matches of the same pattern that read other words (``"also"``: up to
    ``MAX_ALSO``, each ``{"value", "start", "end"}``), which fact finding weighs as competitors.

    Passages whose heading matches the extractor's ``prefer_headings`` (for example "Term") are
    searched before the rest of the document, so a stray match elsewhere does not shadow the
    operative clause. Patterns read the normalised text, so the value is normalised ("JOHNSON"
    where the PDF spaced it out); ``start`` and ``end`` are offsets into ``text``.
    """
    normalised = normalise(text)
    clean = normalised.text
    data = clean.encode("utf-8")
    ascii_only = len(data) == len(clean)

    def located(span: tuple[int, int]) -> dict | None:
        start, end = span
        if not ascii_only:
            start, end = _chars(data, start), _chars(data, end)
        start, end = _trim(clean, start, end)
        if end <= start:
            return None
        source_start, source_end = normalised.span_to_source(start, end)
        return {"value": clean[start:end], "start": source_start, "end": source_end}

    facts: dict[str, dict] = {}
    for fact in compiled.facts:
        category = fact.extractor.category
        if category in facts:
            continue
        ranges = _heading_ranges(fact, normalised.span_from_source, clean, segments)
        found = _first_match(fact, data, ranges)
        if found is None:
            continue
        first = located(found[0])
        if first is None:
            continue
        facts[category] = first
        if category in DATE_FACTS:
            also = [m for span in _later_matches(found, data) if (m := located(span))]
            also = [m for m in also if m["value"] != first["value"]][:MAX_ALSO]
            if also:
                first["also"] = also
    return facts


def _heading_ranges(
    fact: CompiledFact,
    to_clean: Callable[[int, int], tuple[int, int]],
    clean: str,
    segments: Sequence[Passage],
) -> list[tuple[int, int]]:
    if fact.prefer_headings is None:
        return []
    wanted = [
        to_clean(s.start, s.end)
        for s in segments
        if s.heading and fact.prefer_headings.search(s.heading.encode("utf-8"))
    ][:MAX_PREFERRED]
    if len(clean) == len(clean.encode("utf-8")):
        return wanted
    return [
        (len(clean[:start].encode("utf-8")), len(clean[:end].encode("utf-8")))
        for start, end in wanted
    ]


_Found = tuple[tuple[int, int], regex.Compiled, tuple[int, int]]


def _first_match(
    fact: CompiledFact, data: bytes, preferred: list[tuple[int, int]]
) -> _Found | None:
    """The value's span, and the pattern and range that found it."""
    limit = len(data)
    if fact.extractor.first_chars:
        limit = min(limit, fact.extractor.first_chars)
    ranges = [(s, min(e, limit)) for s, e in preferred if s < limit] + [(0, limit)]
    for start, end in ranges:
        for pattern in fact.patterns:
            match = pattern.search(data, start, end)
            span = _value_span(pattern, match)
            if span is not None:
                return span, pattern, (start, end)
    return None


def _later_matches(found: _Found, data: bytes) -> list[tuple[int, int]]:
    """The spans of the same pattern's further matches in the range of the first."""
    (_, first_end), pattern, (_, end) = found
    spans = (_value_span(pattern, m) for m in pattern.finditer(data, first_end, end))
    return [span for span in spans if span is not None][: MAX_ALSO * 2]


def _value_span(pattern: regex.Compiled, match: Any) -> tuple[int, int] | None:
    if match is None:
        return None
    names = pattern.groupindex
    group = names.get(b"value", names.get("value", 0))
    return match.span(group) if match.start(group) >= 0 else None


def _chars(data: bytes, byte_offset: int) -> int:
    return len(data[:byte_offset].decode("utf-8", errors="ignore"))


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start] in _TRIM:
        start += 1
    while end > start and text[end - 1] in _TRIM:
        end -= 1
    return start, end


def key_facts_find(
    compiled: CompiledPlaybook, text: str, passages: Sequence[PassageText]
) -> dict[str, Fact]:
    """The contract's key facts as normalised values (``reviewapp.text.facts``), the playbook's
    extractors deciding the facts our finders do not look for."""
    return find_facts(passages, raw=extract_facts(compiled, text, passages))
