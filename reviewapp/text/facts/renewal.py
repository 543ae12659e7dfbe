"""How a contract renews, and the notice that stops it: the renewal term ("shall automatically
renew for successive one (1) year periods", "from year to year", "month to month") and the notice
period to end a renewal ("unless either party gives notice at least sixty (60) days prior to the
end of the then-current term"), each as an ISO 8601 duration.

Both are read from the sentences that speak of renewing or extending the contract, passages under
a "Term" heading first: a period the sentence renews *for* is the renewal term; a period of notice
*before* the end of a term is the notice period. The playbooks' extractors, which these replace,
stand in for Chinese contracts.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from .durations import DurationMatch, find_durations
from .model import NOTICE_PERIOD, RENEWAL_TERM, Fact, PassageText
from .term import TERM_HEADING, last_heading

_SENTENCE = re.compile(r"(?<=[.;])\s+(?=[A-Z(\"“])|\n\s*\n")
# The contract renews: "renew", "extend the Term", "from year to year".
_RENEWS = re.compile(
    r"\brenew\w*|\b(?:extend\w*|extension)\b[^.;]{0,60}\b(?:term|agreement|contract)\b|"
    r"\b(?:term|agreement|contract)\b[^.;]{0,60}\b(?:extend\w*|extension)\b|"
    r"\b(?:year|month)[\s-]+to[\s-]+(?:year|month)\b",
    re.I,
)
# It runs until a party ends it: "shall remain in effect until terminated by either party".
_EVERGREEN = re.compile(
    r"\b(?:continue|remain)\w*\b[^.;]{0,80}\buntil\s+terminated\b|"
    r"\bthereafter\b[^.;]{0,80}\buntil\s+terminated\b",
    re.I,
)
# "from year to year", "on a month-to-month basis", "renew automatically each year"
_ROLLING = re.compile(
    r"\b(?:(?:from\s+)?year[\s-]+to[\s-]+year|annually|each\s+year|yearly|(?:from\s+)?month[\s-]+"
    r"to[\s-]+month|each\s+month)\b",
    re.I,
)
# What comes right before a period the contract renews for.
_RENEWS_FOR = re.compile(
    r"(?:\bfor|\bby|\bof|\binto|\badditional|\bsuccessive|\bsubsequent|\bfurther|\bconsecutive|"
    r"\brenewal|\bextension|\blike|\bsimilar|\bsame|\bup\s+to|\bmaximum\s+of|\bone\s*\(1\))"
    r"(?:\s+(?:an?|one|the|each|additional|successive|subsequent|further|consecutive|renewal|"
    r"extension|identical|like|similar|same|automatic|one\s*\(1\)|\(\d\)|\w+\s+\(\d+\)|"
    r"(?:term|period)s?\s+of))*\s*$",
    re.I,
)
# A period of notice, not of renewal: "sixty (60) days prior to", "at least 90 days' notice".
_NOTICE_AFTER = re.compile(
    r"^\s*(?:[’']s?)?\s*(?:\)\s*)?(?:advance\s+|prior\s+)?(?:written\s+)?(?:notice|prior|before|"
    r"in\s+advance|preceding|ahead|advance)",
    re.I,
)
_NOTICE_BEFORE = re.compile(
    r"(?:at\s+least|not\s+less\s+than|no\s+less\s+than|no\s+later\s+than|not\s+later\s+than|"
    r"minimum\s+of|within|upon|giving|gives|provides?|with|by|least)\s*$",
    re.I,
)
_NOTICE = re.compile(r"\bnoti(?:ce|fy|fies|fied|fication)\b|\bin\s+writing\b|\bterminat", re.I)
# The notice stops a renewal or the term's end: not a termination for breach or convenience.
_ENDS_RENEWAL = re.compile(
    r"\bnon[\s-]?renewal\b|\bnot\s+(?:to\s+)?(?:be\s+)?(?:renew|extend)|\bintent\w*\s+(?:not\s+)?to\s+"
    r"(?:renew|extend|terminate)|\b(?:end|expir\w*|expiry)\s+of\s+(?:the|any|such|each|its)\s+"
    r"(?:then[\s-]+)?(?:current|initial|renewal|extended|applicable|existing|original|relevant)?\s*"
    r"(?:term|period|year)|\bautomatic\w*\s+(?:be\s+)?renew|\bshall\s+(?:be\s+)?renew|"
    r"\banniversary\b",
    re.I,
)
# Notice given to take up a renewal ("if Distributor wishes to extend the term, it must notify
# Airspan at least six months prior"), not to stop one.
_TO_RENEW = re.compile(
    r"\b(?:wish\w*|elect\w*|election|desire\w*|intent\w*|intention|option|request\w*|propos\w*)\s+"
    r"(?:of\s+|for\s+)?(?:\w+\s+){0,2}(?:to\s+)?(?:seek\s+to\s+)?(?:renew|extend|renewal|extension)",
    re.I,
)
_STOPS = re.compile(r"\bnot\b|\bnon[\s-]?renewal|\bterminat|\bunless\b|\bcancel", re.I)
# A policy's cancellation notice (insurance), not the contract's.
_NOT_THE_CONTRACT = re.compile(r"\b(?:insurance|polic(?:y|ies)|insurer|certificates?)\b", re.I)
_AFTER_CHARS, _BEFORE_CHARS = 40, 70


def renewal_term(passages: Sequence[PassageText]) -> Fact | None:
    """The period each renewal runs for."""
    for passage, start, sentence, _ in _sentences(passages):
        if not _RENEWS.search(sentence):
            continue
        for found in find_durations(sentence):
            if _is_renewal_period(sentence, found):
                return _fact(RENEWAL_TERM, passage, start, found.start, found.end, found.value)
        rolling = _ROLLING.search(sentence)
        if rolling is not None:
            value = "P1M" if "month" in rolling.group(0).lower() else "P1Y"
            return _fact(RENEWAL_TERM, passage, start, rolling.start(), rolling.end(), value)
    return None


def notice_period(passages: Sequence[PassageText]) -> Fact | None:
    """The notice a party must give, before a term ends, to stop the contract renewing (or to
    end one that runs until terminated)."""
    for passage, start, sentence, before in _sentences(passages):
        if not _NOTICE.search(sentence) or _NOT_THE_CONTRACT.search(sentence):
            continue
        if _TO_RENEW.search(sentence) and not _STOPS.search(sentence):
            continue  # notice to take up a renewal, not to stop one
        said = before + " " + sentence  # "Such notice must be given ninety (90) days prior ..."
        if not (_ENDS_RENEWAL.search(said) or _EVERGREEN.search(sentence)):
            continue
        for found in find_durations(sentence):
            if found.value[-1] in "DWM" and _is_notice_period(sentence, found):
                return _fact(NOTICE_PERIOD, passage, start, found.start, found.end, found.value)
    return None


def _sentences(passages: Sequence[PassageText]) -> Iterator[tuple[PassageText, int, str, str]]:
    """Each sentence of the passages that speak of renewing or of running until terminated
    (under a "Term" heading first): its passage, offset in the passage text, and the sentence
    before it."""
    headed = {p.index for p in passages if TERM_HEADING.search(last_heading(p))}
    ordered = sorted(passages, key=lambda p: p.index not in headed)  # stable: in order otherwise
    for passage in ordered:
        text = passage.text
        if not (_RENEWS.search(text) or _EVERGREEN.search(text)):
            continue
        start, before = 0, ""
        for cut in [*_SENTENCE.finditer(text), None]:
            end = cut.start() if cut is not None else len(text)
            yield passage, start, text[start:end], before
            before = text[start:end]
            start = cut.end() if cut is not None else end


def _is_renewal_period(sentence: str, found: DurationMatch) -> bool:
    after = sentence[found.end : found.end + _AFTER_CHARS]
    before = sentence[max(0, found.start - _BEFORE_CHARS) : found.start]
    if _NOTICE_AFTER.search(after) or _NOTICE_BEFORE.search(before):
        return False
    said_before = sentence[: found.start]
    return bool(_RENEWS_FOR.search(before)) and bool(
        _RENEWS.search(said_before) or re.search(r"\b(?:renew|extend)", said_before, re.I)
    )


def _is_notice_period(sentence: str, found: DurationMatch) -> bool:
    after = sentence[found.end : found.end + _AFTER_CHARS]
    before = sentence[max(0, found.start - _BEFORE_CHARS) : found.start]
    return bool(_NOTICE_AFTER.search(after) or _NOTICE_BEFORE.search(before))


def _fact(name: str, passage: PassageText, offset: int, start: int, end: int, value: str) -> Fact:
    quote = passage.text[offset + start : offset + end]
    extra = {"renews": True} if name == RENEWAL_TERM else {}
    return Fact(name, value, quote, passage.index, quote, extra)
