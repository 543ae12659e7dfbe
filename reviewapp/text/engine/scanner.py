"""Runs a compiled playbook over the passages of one document."""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Sequence
from itertools import islice
from typing import Any

from reviewapp.text.citations import problem_span as citation_problem_span
from reviewapp.text.normalise import NormalisedText, normalise

from .compiler import CompiledNear, CompiledPlaybook, CompiledRule, Prefilter, Trigger
from .model import MAX_PATTERN_CHARS, Passage, Rule, RuleHit

CONFIRMED, PENDING, REJECTED = "CONFIRMED", "PENDING", "REJECTED"

# Above this size a passage is prefiltered in overlapping chunks, looking only for literal atoms
# (the filter's atom set gives up on a DFA memory overflow, which a small chunk cannot cause),
# and the candidate rules then run on the whole passage. Atoms are literals from patterns of at
# most MAX_PATTERN_CHARS characters, so an overlap of four bytes per character catches them all.
PREFILTER_MAX_BYTES = 64 * 1024
_CHUNK_OVERLAP = MAX_PATTERN_CHARS * 4
# Matches looked at per rule and passage; past it a nearby check fails closed (the rule fires).
MAX_MATCHES = 1000
_WORD = re.compile(rb"[0-9A-Za-z]+|[\xe3-\xe9][\x80-\xbf]{2}")
_GAP_BYTES_PER_WORD = 30
_HEADING = (-1, -1)  # the span of a hit whose pattern matched the heading, not the passage
Span = tuple[int, int]
_SENTENCE_END = re.compile(r"[;；。!?！？\n]|\.\s")


class ScanTooLong(Exception):
    """The scan spent its CPU budget (the playbook test box runs on one)."""


class CpuBudget:
    """CPU seconds of the calling thread a scan may spend, checked between rules and passages.

    Each RE2 search is linear in its passage, so the time between two checks is bounded; a
    check is one clock read, so a budget costs nothing measurable."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.until = time.thread_time() + seconds

    def spend(self) -> None:
        if time.thread_time() > self.until:
            raise ScanTooLong(self.seconds)


def scan(
    compiled: CompiledPlaybook,
    text: str,
    segments: Sequence[Passage],
    *,
    contract_type: str | None = None,
    budget: CpuBudget | None = None,
) -> list[RuleHit]:
    """One hit per rule that fires on a passage, in passage then rule order.

    Rules limited to other contract types than ``contract_type`` are skipped; with no type
    every rule applies. Secondary rules (``only_with``) run after the primary ones of the same
    passage. Patterns read the normalised text (``reviewapp.text.normalise``); segments
    and hits carry offsets into ``text`` itself.
    """
    active = compiled.active_rules(contract_type)
    normalised = normalise(text)
    by_heading: dict[str, frozenset[int]] = {}
    hits: list[RuleHit] = []
    for segment in segments:
        if budget is not None:
            budget.spend()
        start, end = normalised.span_from_source(segment.start, segment.end)
        chunk = _Chunk(normalised, start, normalised.text[start:end])
        data = chunk.text.encode("utf-8")
        heading = segment.heading or ""
        if heading not in by_heading:
            by_heading[heading] = _heading_rules(compiled, heading)
        triggers = _passage_triggers(compiled, data, active)
        in_heading = by_heading[heading]
        found: list[RuleHit] = []
        for i in sorted((triggers.keys() | in_heading | compiled.citation_rules) & active):
            if budget is not None:
                budget.spend()
            if compiled.rules[i].rule.only_with:
                continue
            span = _fire(compiled.rules[i], data, triggers.get(i, ()), i in in_heading)
            if span is None and compiled.rules[i].rule.citation_check:
                span = _wrong_citation(compiled.rules[i], chunk.text, data)
            if span is not None:
                found.append(_hit(compiled.rules[i].rule, segment, chunk, data, span))
        # A bare heading (a table of contents, a title) is no clause: only a hard rule (reject,
        # e.g. text addressed to an AI) holds there. A definition that only names a term is no
        # clause to verify: reject and human rules still hold.
        if found and getattr(segment, "is_heading", False):
            found = [hit for hit in found if hit.action == "reject"]
        elif found and only_defines_a_term(chunk.text):
            found = [hit for hit in found if hit.action != "verify"]
        if found and compiled.secondary:
            found += _secondary_hits(compiled, active, found, segment, chunk, data, in_heading)
        hits.extend(sorted(found, key=lambda h: compiled.by_id[h.rule_id]))
    return hits


# '"Purchase Order" means ...' names a term; the clause that uses it carries the risk.
_DEFINITION = re.compile(
    r"^\W{0,3}(?:\d+(?:\.\d+)*\.?|\(?[a-z0-9]{1,4}\))?\s*[\"“”'‘’]([^\"“”]{1,100})[\"“”'’]"
    r"\s*(?:shall mean|will mean|means|mean|shall have the meaning|has the meaning|refers to|"
    r"is defined)\b",
    re.IGNORECASE,
)
_OBLIGATION = re.compile(
    r"\b(?:shall(?! mean| have the meaning)|must|agrees?|undertakes?|covenants?|warrants?|"
    r"may not|will not|is not permitted|prohibited|exclusive(?:ly)?|sole(?:ly)?|"
    r"irrevocabl[ey]|perpetual|royalt(?:y|ies)|liab(?:le|ility)|terminat\w+|assign\w*)\b",
    re.IGNORECASE,
)


def only_defines_a_term(text: str) -> bool:
    """A definition that only names a term: no verify rule routes it (reject and human rules,
    a lawyer's hard lines, still do)."""
    match = _DEFINITION.match(text)
    return match is not None and _OBLIGATION.search(text, match.end()) is None


class _Chunk:
    """A passage's normalised text, and where it starts in the normalised document."""

    __slots__ = ("normalised", "start", "text")

    def __init__(self, normalised: NormalisedText, start: int, text: str) -> None:
        self.normalised, self.start, self.text = normalised, start, text


def _secondary_hits(
    compiled: CompiledPlaybook,
    active: frozenset[int],
    primary: list[RuleHit],
    segment: Passage,
    chunk: _Chunk,
    data: bytes,
    in_heading: frozenset[int],
) -> list[RuleHit]:
    """Secondary rules (``only_with``) fire only on a passage a primary rule of one of the
    listed categories already flagged: they add a question, never a passage to verify."""
    categories = {hit.category for hit in primary}
    candidates = _secondary_candidates(compiled, data) | in_heading
    hits = []
    for i in compiled.secondary:
        crule = compiled.rules[i]
        if i not in active or categories.isdisjoint(crule.rule.only_with):
            continue
        if i not in candidates and not crule.near:
            continue
        span = _fire_secondary(crule, data, i, i in in_heading)
        if span is not None:
            hits.append(_hit(crule.rule, segment, chunk, data, span))
    return hits


def _secondary_candidates(compiled: CompiledPlaybook, data: bytes) -> frozenset[int]:
    """Secondary rules with a pattern that may match ``data``: one filter pass instead of one
    search per rule (each candidate is still checked by ``_fire_secondary``)."""
    if compiled.secondary_filter is None:
        return frozenset()
    if len(data) > PREFILTER_MAX_BYTES:
        return frozenset(t.rule for t in _chunked_potential(compiled.secondary_filter, data))
    return frozenset(t.rule for t in compiled.secondary_filter.match(data))


def _fire_secondary(crule: CompiledRule, data: bytes, index: int, in_heading: bool) -> Span | None:
    """Like ``_fire``, but tests all of the rule's patterns with one search."""
    if crule.requires_nearby or crule.unless_nearby is not None:
        triggers = [Trigger(index, "pattern", n) for n in range(len(crule.patterns))]
        return _fire(crule, data, triggers, in_heading)
    match = None
    if crule.rule.scope != "heading" and crule.any_pattern is not None:
        match = crule.any_pattern.search(data)
    if match is not None:
        if crule.exception is not None and crule.exception.search(data):
            return None
        return match.span()
    triggers = [Trigger(index, "near", n) for n in range(len(crule.near))]
    return _fire(crule, data, triggers, in_heading)


def passage_states(segments: Iterable[Passage], hits: Iterable[RuleHit]) -> list[str]:
    """State of each segment after a scan: a reject rule wins over verify and human rules."""
    actions: dict[int, set[str]] = {}
    for hit in hits:
        actions.setdefault(hit.segment_index, set()).add(hit.action)
    states = []
    for segment in segments:
        fired = actions.get(segment.index, set())
        states.append(REJECTED if "reject" in fired else PENDING if fired else CONFIRMED)
    return states


def _passage_triggers(
    compiled: CompiledPlaybook, data: bytes, active: frozenset[int]
) -> dict[int, list[Trigger]]:
    if compiled.passage_filter is None or not data:
        return {}
    if len(data) > PREFILTER_MAX_BYTES:
        found = _chunked_potential(compiled.passage_filter, data)
    else:
        found = compiled.passage_filter.match(data)
    triggers: dict[int, list[Trigger]] = {}
    for trigger in found:
        if trigger.rule in active:
            triggers.setdefault(trigger.rule, []).append(trigger)
    return triggers


def _chunked_potential(prefilter: Prefilter, data: bytes) -> list[Trigger]:
    found: set[Trigger] = set()
    step = PREFILTER_MAX_BYTES - _CHUNK_OVERLAP
    for offset in range(0, len(data), step):
        found.update(prefilter.potential(data[offset : offset + PREFILTER_MAX_BYTES]))
    return sorted(found, key=lambda t: (t.rule, t.kind, t.position))


def _heading_rules(compiled: CompiledPlaybook, heading: str) -> frozenset[int]:
    if compiled.heading_filter is None or not heading:
        return frozenset()
    data = heading.encode("utf-8")[:PREFILTER_MAX_BYTES]
    return frozenset(trigger.rule for trigger in compiled.heading_filter.match(data))


def _fire(
    crule: CompiledRule, data: bytes, triggers: Sequence[Trigger], in_heading: bool
) -> Span | None:
    """Byte span of what fired, ``_HEADING`` for a heading match, or None."""
    span: Span | None = None
    for trigger in sorted(triggers, key=lambda t: (t.kind != "pattern", t.position)):
        if trigger.kind == "pattern":
            span = _pattern_span(crule, crule.patterns[trigger.position], data)
        else:
            span = _near_span(crule.near[trigger.position], data)
        if span is not None:
            break
    if span is None and in_heading:
        span = _HEADING
    if span is None or (crule.exception is not None and crule.exception.search(data)):
        return None
    return span


def _wrong_citation(crule: CompiledRule, text: str, data: bytes) -> Span | None:
    """A rule with ``citation_check`` also fires where a passage cites a law that is no longer
    (or not yet) in force, or an article beyond the law's last, whatever its patterns say: a
    repealed law cited with article and date lacks nothing the patterns look for."""
    if crule.exception is not None and crule.exception.search(data):
        return None
    span = citation_problem_span(text)
    if span is None:
        return None
    start = len(text[: span[0]].encode("utf-8"))
    return start, start + len(text[span[0] : span[1]].encode("utf-8"))


def _pattern_span(crule: CompiledRule, pattern: Any, data: bytes) -> Span | None:
    if not (crule.requires_nearby or crule.unless_nearby is not None):
        match = pattern.search(data)
        return match.span() if match else None
    spans = [m.span() for m in islice(pattern.finditer(data), MAX_MATCHES + 1)]
    for i, (start, end) in enumerate(spans[:MAX_MATCHES]):
        low = spans[i - 1][1] if i else 0
        high = spans[i + 1][0] if i + 1 < len(spans) else len(data)
        if _still_a_finding(crule, data, start, end, low, high):
            return (start, end)
    if len(spans) > MAX_MATCHES:
        return spans[MAX_MATCHES]
    return None


def _still_a_finding(
    crule: CompiledRule, data: bytes, start: int, end: int, low: int, high: int
) -> bool:
    """A match fires unless something in ``unless_nearby`` is near it, or everything in
    ``requires_nearby`` is. "Near" stops at the neighbouring matches, so one citation cannot
    borrow the article number of the next."""
    window = _window(data, start, end, low, high, crule.rule.nearby_chars)
    if crule.unless_nearby is not None and crule.unless_nearby.search(window):
        return False
    if not crule.requires_nearby:
        return True
    return any(required.search(window) is None for required in crule.requires_nearby)


def _window(data: bytes, start: int, end: int, low: int, high: int, chars: int) -> bytes:
    """Up to ``chars`` characters either side of a match, within its sentence."""
    reach = chars * 4  # a UTF-8 character takes at most four bytes
    before = data[max(low, start - reach) : start].decode("utf-8", errors="ignore")[-chars:]
    after = data[end : min(high, end + reach)].decode("utf-8", errors="ignore")[:chars]
    before = _SENTENCE_END.split(before)[-1]
    after = _SENTENCE_END.split(after, maxsplit=1)[0]
    return before.encode("utf-8") + data[start:end] + after.encode("utf-8")


def _near_span(near: CompiledNear, data: bytes) -> Span | None:
    firsts = [(m.start(), m.end(), 0) for m in islice(near.terms_a.finditer(data), MAX_MATCHES)]
    if not firsts:
        return None
    seconds = [(m.start(), m.end(), 1) for m in islice(near.terms_b.finditer(data), MAX_MATCHES)]
    last: list[tuple[int, int] | None] = [None, None]
    for start, end, side in sorted(firsts + seconds):
        other = last[1 - side]
        if other is not None and _close_enough(data, other[1], start, near.within):
            return (min(other[0], start), max(other[1], end))
        last[side] = (start, end)
    return None


def _close_enough(data: bytes, start: int, end: int, within: int) -> bool:
    """At most ``within`` words between two matches (and a bounded number of bytes)."""
    if end - start > _GAP_BYTES_PER_WORD * within:
        return False
    return end <= start or len(_WORD.findall(data, start, end)) <= within


def _hit(rule: Rule, segment: Passage, chunk: _Chunk, data: bytes, span: Span) -> RuleHit:
    if span == _HEADING:
        start, end = segment.start, segment.end
    else:
        start, end = chunk.normalised.span_to_source(
            chunk.start + _char_offset(chunk.text, data, span[0]),
            chunk.start + _char_offset(chunk.text, data, span[1]),
        )
    return RuleHit(
        rule_id=rule.id,
        category=rule.category,
        action=rule.action,
        severity=rule.severity,
        segment_index=segment.index,
        match_start=start,
        match_end=end,
    )


def _char_offset(chunk: str, data: bytes, byte_offset: int) -> int:
    if len(chunk) == len(data):
        return byte_offset
    return len(data[:byte_offset].decode("utf-8", errors="ignore"))
