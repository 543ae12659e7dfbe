"""Where each key fact is stated, and its value: the fact-finding logic of the offline engine.

Each finder reads the passages in order and returns a ``Fact`` whose quote is the passage's own
words. Finders prefer saying nothing to guessing: a date is only the agreement date when the
words around it say so ("dated", "made ... this", "entered into as of", "Date:").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .dates import DateMatch, as_date, find_dates
from .durations import add_duration, find_durations, ordinal_number, word_number
from .jurisdictions import find_jurisdictions
from .model import (
    AGREEMENT_DATE,
    EFFECTIVE_DATE,
    EXPIRATION_DATE,
    GOVERNING_LAW,
    PERPETUAL,
    Fact,
    PassageText,
)

PREAMBLE_CHARS = 6000
_CONTEXT = 140
# Words right before a date that make it the agreement's date, strongest first. The first two
# need the sentence to speak of this contract ("This Agreement is made ...", not "the Supply
# Agreement dated ..."); a title block or a "Date:" line speaks for itself.
_AGREEMENT_CUES = [
    re.compile(
        r"(?:\bdated|\bmade|\bentered\s+into|\bexecuted|\bsigned|\bconcluded)(?:\s+and\s+"
        r"(?:entered\s+into|effective|executed))?(?:,?\s+(?:effective|on|as\s+of|this|the|at|in|"
        r"for\s+all\s+purposes\s+and\s+in\s+all\s+respects))*\W*$",
        re.IGNORECASE,
    ),
    re.compile(r"\b(?:as\s+of|effective(?:\s+on)?)(?:\s+(?:the|this))?\W*$", re.IGNORECASE),
    re.compile(
        r"(?:\bAGREEMENT|\bAgreement|\bCONTRACT|\bAMENDMENT|\b[Dd]ate\s*:|\bDATE\s*:|\b[Dd]ated\s*:)"
        r"(?:\s+(?:the|this))?\W*$|^\W*$"
    ),
]
_THIS_CONTRACT = re.compile(
    r"\b(?:this|these)\b|^\W*(?:dated|made|entered)|(?:AGREEMENT|CONTRACT)\W*(?:\([^)]*\))?\W*"
    r"(?:is\s+)?(?:dated|made|entered)",
    re.IGNORECASE,
)
_SENTENCE_START = re.compile(r"[.;:]\s+(?=[A-Z])|^")
_SIGNATURE_BLOCK = re.compile(r"/s/|\bBy\s*:|\bName\s*:|\bTitle\s*:|IN\s+WITNESS", re.I)
_SIGNATURE_DATE = re.compile(r"\bdate(?:d)?\s*:?\s*$", re.IGNORECASE)
_NOT_AGREEMENT = re.compile(
    r"(?:\b(?:to|under|of|with)\s+(?:the|that\s+certain|a|an)\s+[^;()]{0,100}(?:dated|entered\s+into)"
    r"\W*(?:as\s+of\s+)?(?:the\s+)?$|\bSource\b[^\n]{0,120}$|\bfiled\b[^.]{0,40}$|"
    r"(?:that\s+certain|\bWHEREAS|\bamends\b|\bthe\s+(?:original|existing|prior|underlying))"
    r"[^;]{0,160}$|(?:termination|expiration|expiry|delivery|end|closing|commencement|start|"
    r"effective)\s+date\s*:?\s*$|(?:expir\w*|terminat\w*|until|through|end\w*|cease\w*)\s+"
    r"(?:on\s+|at\s+|upon\s+)?(?:the\s+)?$|\b(?:rev\.?|revised|revision|draft|version|updated|"
    r"printed)\W[^.;]{0,30}$|which\s+was\s+(?:effective|dated|entered)[^.;]{0,20}$)",
    re.IGNORECASE,
)
_TITLE_CHARS = 600
_EFFECTIVE_DEFINED_AFTER = re.compile(
    r"^[\s,]*(?:\(|,)?\s*(?:hereinafter\s+|herein\s+)?(?:referred\s+to\s+as\s+)?(?:as\s+)?(?:the\s+|this\s+)?"
    r"[\"“”']{1,2}(?:[\w-]+\s+){0,3}(?:Effective|Commencement|Start)\s*Date",
    re.IGNORECASE,
)
_EFFECTIVE_DEFINED_BEFORE = re.compile(
    r"[\"“”']{1,2}(?:Effective|Commencement)\s*Date[\"“”']{1,2}\)?\s*(?:shall\s+)?(?:means?|be|is|:)"
    r"[^;]{0,70}$",
    re.IGNORECASE,
)
_EFFECTIVE_STATED = re.compile(
    r"\b(?:agreement|term|contract|license|amendment)\b[^.;]{0,100}?(?:commenc\w*|start\w*|begin\w*|"
    r"effective|valid|in\s+(?:force|effect))(?:\s+(?:on|as\s+of|from|upon|with\s+effect\s+from))?"
    r"(?:\s+(?:the|this))?\W*$",
    re.IGNORECASE,
)
_EFFECTIVE_LINE = re.compile(r"\beffective\s+date\s*:\s*$", re.IGNORECASE)


def agreement_date(passages: Sequence[PassageText]) -> Fact | None:
    """The date the preamble or title block says the contract was made (the first passage with
    such a date decides); else the last date of the "Date:" lines of the signature blocks (the
    day the last party signed); else a date standing in the title block."""
    for passage in _preamble(passages):
        if _SIGNATURE_BLOCK.search(passage.text):
            continue  # read by _signature_date
        best: tuple[int, DateMatch] | None = None
        for found in find_dates(passage.text):
            tier = _agreement_tier(passage.text, found)
            if tier is not None and (best is None or tier < best[0]):
                best = (tier, found)
        if best is not None:
            return _date_fact(AGREEMENT_DATE, passage, best[1])
    return _signature_date(passages) or _title_date(passages)


def _agreement_tier(text: str, found: DateMatch) -> int | None:
    before = text[max(0, found.start - _CONTEXT) : found.start]
    if _NOT_AGREEMENT.search(before):
        return None
    close = before[-50:]
    sentence = before[[m.end() for m in _SENTENCE_START.finditer(before)][-1] :]
    for tier, cue in enumerate(_AGREEMENT_CUES):
        if cue.search(close) and (tier == 2 or _THIS_CONTRACT.search(sentence)):
            return tier
    return None


def _title_date(passages: Sequence[PassageText]) -> Fact | None:
    """A date standing in the title block, before the first clause."""
    for passage in passages:
        if passage.start - passages[0].start > _TITLE_CHARS:
            break
        for found in find_dates(passage.text):
            before = passage.text[max(0, found.start - _CONTEXT) : found.start]
            if found.start < _TITLE_CHARS and not _NOT_AGREEMENT.search(before):
                return _date_fact(AGREEMENT_DATE, passage, found)
    return None


def _signature_date(passages: Sequence[PassageText]) -> Fact | None:
    if not passages:
        return None
    signed = []
    for passage in passages:
        for found in find_dates(passage.text):
            before = passage.text[max(0, found.start - _CONTEXT) : found.start]
            if (
                found.complete
                and _SIGNATURE_DATE.search(before[-12:])
                and not _NOT_AGREEMENT.search(before[-40:])
            ):
                signed.append((found.value, passage, found))
    if not signed:
        return None
    _, passage, found = max(signed, key=lambda item: item[0])
    return _date_fact(AGREEMENT_DATE, passage, found)


def effective_date(passages: Sequence[PassageText], agreement: Fact | None) -> Fact | None:
    """The date the contract defines as its effective date, else the date it says it takes
    effect or its term begins, else the agreement date (marked ``derived_from``)."""
    best: tuple[int, PassageText, DateMatch] | None = None
    for passage in passages:
        for found in find_dates(passage.text):
            tier = _effective_tier(passage.text, found)
            if tier is not None and (best is None or tier < best[0]):
                best = (tier, passage, found)
        if best is not None and best[0] == 0:
            break
    if best is not None:
        return _date_fact(EFFECTIVE_DATE, best[1], best[2])
    if agreement is None:
        return None
    return Fact(
        name=EFFECTIVE_DATE,
        value=agreement.value,
        display=agreement.display,
        passage_index=agreement.passage_index,
        quote=agreement.quote,
        extra={"derived_from": AGREEMENT_DATE},
    )


def _effective_tier(text: str, found: DateMatch) -> int | None:
    before = text[max(0, found.start - _CONTEXT) : found.start]
    if _EFFECTIVE_DEFINED_BEFORE.search(before) or _EFFECTIVE_LINE.search(before[-20:]):
        return 0
    if _NOT_AGREEMENT.search(before[-100:]):
        return None
    if _EFFECTIVE_DEFINED_AFTER.search(text[found.end : found.end + 60]):
        return 0
    if _EFFECTIVE_STATED.search(before[-110:]):
        return 1
    return None


def _preamble(passages: Sequence[PassageText]) -> list[PassageText]:
    if not passages:
        return []
    first = passages[0].start
    return [p for p in passages if p.start - first < PREAMBLE_CHARS]


def _date_fact(name: str, passage: PassageText, found: DateMatch) -> Fact:
    return Fact(
        name=name,
        value=found.value,
        display=found.text,
        passage_index=passage.index,
        quote=found.text,
    )


_LAW_CUE = re.compile(
    r"(?:govern\w*|constru\w+|interpret\w*|enforc\w+|applicable\s+law|choice\s+of\s+law|"
    r"subject\s+to)[^.;]{0,160}?\blaws?\s+(?:in\s+force\s+)?(?:of|in)\b"
    r"|\blaws?\s+of\s+[^.;]{0,80}?(?:shall|will)\s+(?:govern|apply)"
    r"|\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+){0,2}\s+law\s+(?:shall|will)\s+(?:govern|apply)"
    r"|(?:适用|受)[^。；]{0,20}法律",
    re.IGNORECASE,
)
_LAW_HEADING = re.compile(
    r"governing\s+law|applicable\s+law|choice\s+of\s+law|法律适用|适用法律", re.I
)
_INCORPORATED = re.compile(
    r"(?:organi[sz]ed|incorporated|existing|formed|registered)\s+(?:and\s+\w+\s+)?under\s+the\s+laws?",
    re.I,
)


def governing_law(passages: Sequence[PassageText]) -> Fact | None:
    """The jurisdiction whose law governs: the clause under a "Governing Law" heading first."""
    ordered = sorted(passages, key=lambda p: not _LAW_HEADING.search(p.heading or ""))
    for passage in ordered:
        for cue in _LAW_CUE.finditer(passage.text):
            if _INCORPORATED.search(passage.text, max(0, cue.start() - 40), cue.end()):
                continue
            window_end = min(len(passage.text), cue.end() + 120)
            found = find_jurisdictions(passage.text, cue.start(), window_end)
            if not found:
                continue
            start, end, place = next((f for f in found if f[2].region), found[0])
            return Fact(
                name=GOVERNING_LAW,
                value=place.name,
                display=place.name,
                passage_index=passage.index,
                quote=passage.text[start:end],
                extra={"country": place.country, "region": place.region},
            )
    return None


_TERM_HEADING = re.compile(
    r"\bterm\b|duration|period\s+of\s+(?:the\s+)?agreement|期限|有效期", re.I
)
_TERM_TEXT = re.compile(
    r"\b(?:(?:initial\s+)?term\s+of\s+this\s+\w+|this\s+(?:agreement|contract)\s+(?:shall|will|is)\s+"
    r"(?:continue|remain|expire|terminate|be\s+(?:effective|valid|in\s+effect)|valid|"
    r"commence|have\s+a\s+term|run)|initial\s+term|(?:shall|will)\s+(?:expire|end|terminate)\s+(?:on|at)\b|"
    r"the\s+term\s+(?:shall|will|is)|(?:termination|expiration|expiry)\s+date\s*:|"
    r"\bterm\s+of\s+the\s+agreement\b|duration\s+of\s+this)",
    re.IGNORECASE,
)
_PERPETUAL = re.compile(
    r"in\s+perpetuity|\bperpetu\w*|indefinite(?:ly)?|"
    r"(?:continue|remain)\w*\s+(?:in\s+(?:full\s+)?(?:force|effect)\s+(?:and\s+effect\s+)?)?for\s+so\s+long\s+as|"
    r"(?:until|unless\s+and\s+until)\s+(?:it\s+is\s+)?(?:terminated|either\s+party\s+terminates)|"
    r"until\s+(?:such\s+time\s+as\s+)?(?:this\s+agreement\s+is\s+)?terminated|"
    r"end\w*\s+on\s+the\s+\w+\s+day\s+(?:following|after)\s+(?:a\s+|the\s+)?(?:written\s+)?notice|"
    r"until\s+(?:the\s+)?(?:expiration|expiry)\s+of\s+(?:the\s+)?(?:last|royalty)|until\s+termination|"
    r"until\s+(?:either|one|a)\s+party\s+(?:gives|provides|serves)\s+(?:\w+\s+)?notice",
    re.IGNORECASE,
)
_NOT_PERPETUAL = re.compile(
    r"thereafter|after\s+the\s+(?:initial\s+|then[- ]current\s+)?term|licen[cs]e|right|obligation|"
    r"survive",
    re.IGNORECASE,
)
_PERIOD_DEFINED = re.compile(r"contract\s+year|calendar\s+quarter|fiscal|royalty|quarter", re.I)
_END_CUE = re.compile(
    r"(?:until|through|thru|to|expir\w*|terminat\w*|end\w*|ceas\w*|termination\s+date\s*:|"
    r"in\s+no\s+event\s+later\s+than|"
    r"expiration\s+date\s*:|conclud\w*)\s+(?:on|at|upon|as\s+of)?\s*"
    r"(?:(?:11:59|midnight|12:00)[^,]{0,25},?\s*)?(?:the\s+)?$",
    re.IGNORECASE,
)
_ANCHOR = re.compile(
    r"^\W{0,3}(?:(?:full\s+)?(?:calendar\s+|contract\s+)?(?:years?|months?)\s+)?"
    r"(?:(?:from|after|following|of|commencing\s+(?:on|with)|beginning\s+(?:on|with)|as\s+of)\s+)"
    r"(?:the\s+)?(?P<anchor>[^.;,()]{0,60})",
    re.IGNORECASE,
)
_EFFECTIVE_ANCHOR = re.compile(r"^(?:effective|commencement|start)\s+date|^execution", re.I)
_AGREEMENT_ANCHOR = re.compile(
    r"^(?:date\s+(?:hereof|of\s+this\s+(?:agreement|document)|first\s+(?:above\s+)?(?:written|set\s+forth|stated))|"
    r"date\s+of\s+(?:execution|signing)|"
    r"date\s+(?:on\s+which\s+)?this\s+agreement|signing|execution\s+(?:date|of\s+this))",
    re.IGNORECASE,
)
_RENEWS = re.compile(
    r"(?:automatic\w*|successive|renew\w*|extended\s+for)\s+[^.;]{0,60}?(?:renew\w*|periods?|terms?|years?)",
    re.IGNORECASE,
)
_TERM_DURATION_CUE = re.compile(
    r"\b(?:agreement|term|contract)\b[^.;]{0,100}(?:for|of|be|continue|remain|valid|expire|end|"
    r"until|terminate|is|thereafter)\s+"
    r"(?:(?:a|an|the|initial|period|term|of|further|full|for|on|date)\s+){0,4}$",
    re.IGNORECASE,
)
_NOT_TERM_DURATION = re.compile(
    r"renew|extend|additional|successive|surviv|within|month[- ]to[- ]month|after\s+the\s+initial|"
    r"after\s+(?:the\s+)?"
    r"(?:expiration|termination)",
    re.IGNORECASE,
)
_AFTER_TERM = re.compile(
    r"^\W{0,3}(?:thereafter|after\s+(?:the\s+)?(?:expiration|termination))", re.I
)
_MAX_TERM_PASSAGES = 4
_TERM_STATED = re.compile(
    r"(?:\bterm\s+of\s+th(?:is|e)\s+\w+|\bthis\s+(?:agreement|contract)|\binitial\s+term|"
    r"[\"“](?:term|contract\s+period|agreement\s+period)[\"”]\s+"
    r"(?:shall\s+)?means?|duration\s+of\s+this)[^.;]{0,120}?(?:commenc\w*|continue|remain|expire|"
    r"be\s+for|is\s+for|shall\s+be|end|terminat\w*|valid|in\s+(?:full\s+)?(?:force|effect))",
    re.IGNORECASE,
)


def expiration_date(
    passages: Sequence[PassageText], effective: Fact | None, agreement: Fact | None
) -> Fact | None:
    """When the contract ends: a date it names, a date computed from "for N years from the
    Effective Date" (``computed``), or "perpetual"; ``renews`` when it renews itself."""
    stating = _stating_passages(passages)
    for passage in _term_passages(passages):
        fact = _expiration_in(passage, effective, agreement, passage.index in stating)
        if fact is not None:
            return fact
    return None


def _stating_passages(passages: Sequence[PassageText]) -> set[int]:
    return {
        p.index
        for p in passages
        if _TERM_HEADING.search(_last_heading(p)) or _TERM_STATED.search(p.text)
    }


def _term_passages(passages: Sequence[PassageText]) -> list[PassageText]:
    """The passages that state the term first (a "Term" heading, "This Agreement shall commence
    ... and continue ..."), then any that speak of it."""
    clauses = [p for p in passages if not getattr(p, "is_heading", False)]
    by_heading = [p for p in clauses if _TERM_HEADING.search(_last_heading(p))]
    stating = [p for p in clauses if _TERM_STATED.search(p.text)]
    by_text = [p for p in clauses if _TERM_TEXT.search(p.text)]
    return list(dict.fromkeys([*by_heading[:_MAX_TERM_PASSAGES], *stating, *by_text]))


def _last_heading(passage: PassageText) -> str:
    return (passage.heading or "").rsplit(">", 1)[-1]


def _expiration_in(
    passage: PassageText, effective: Fact | None, agreement: Fact | None, stating: bool
) -> Fact | None:
    text = passage.text
    renews = bool(_RENEWS.search(text))
    for found in find_dates(text):
        before = text[max(0, found.start - 120) : found.start]
        if found.complete and _END_CUE.search(before[-40:]) and not _PERIOD_DEFINED.search(before):
            return Fact(
                EXPIRATION_DATE, found.value, found.text, passage.index, found.text,
                {"computed": False, "renews": renews},
            )  # fmt: skip
    computed = _computed_end(passage, effective, agreement, renews)
    if computed is not None:
        return computed
    perpetual = next(
        (
            m
            for m in _PERPETUAL.finditer(text)
            if not _NOT_PERPETUAL.search(text[: m.start()][-100:])
        ),
        None,
    )
    if perpetual is not None and stating:
        return Fact(
            EXPIRATION_DATE, PERPETUAL, "Perpetual", passage.index, perpetual.group(0),
            {"computed": False, "renews": renews},
        )  # fmt: skip
    return None


def _computed_end(
    passage: PassageText, effective: Fact | None, agreement: Fact | None, renews: bool
) -> Fact | None:
    text = passage.text
    for found in find_durations(text):
        before = text[max(0, found.start - 120) : found.start]
        if (
            found.value[-1] not in "YM"
            or not _TERM_DURATION_CUE.search(before)
            or _NOT_TERM_DURATION.search(before[-60:])
            or _AFTER_TERM.search(text[found.end : found.end + 30])
        ):
            continue
        start_fact = _stated_start(before) or _anchor_fact(
            text[found.end : found.end + 90], effective, agreement
        )
        return _computed(passage, found.text, found.value, start_fact, renews)
    return _anniversary_end(passage, effective, agreement, renews)


_STARTS_ON = re.compile(
    r"(?:commenc\w*|begin\w*|start\w*|effective)\s+(?:on|as\s+of|from)\s+(?:the\s+)?$", re.I
)


def _stated_start(before: str) -> Fact | None:
    """ "shall begin on January 1, 2000 and continue for five years": the term counts from there."""
    for found in find_dates(before):
        if _STARTS_ON.search(before[max(0, found.start - 30) : found.start]):
            return Fact(EFFECTIVE_DATE, found.value, found.text)
    return None


def _anchor_fact(after: str, effective: Fact | None, agreement: Fact | None) -> Fact | None:
    anchor = _ANCHOR.search(after)
    if anchor is None:
        return effective or agreement
    named = anchor.group("anchor")
    if _AGREEMENT_ANCHOR.search(named):
        return agreement or effective
    if _EFFECTIVE_ANCHOR.search(named):
        return effective or agreement
    return None  # from a launch, a first order, ...: not a date the contract gives


_ANNIVERSARY = re.compile(
    r"(?P<count>[\w-]+(?:\s*\(\d+(?:st|nd|rd|th)?\))?)(?:[\s-]+years?)?\s+anniversary\s+of\s+"
    r"(?:the\s+)?",
    re.IGNORECASE,
)


_ANNIVERSARY_CUE = re.compile(
    r"(?:until|through|expir\w*|terminat\w*|end\w*|conclud\w*)\s+(?:on\s+|at\s+|upon\s+)?(?:the\s+)?"
    r"(?:day\s+(?:prior|before)\s+(?:to\s+)?(?:the\s+)?)?$",
    re.IGNORECASE,
)


def _anniversary_years(words: str) -> int | None:
    digits = re.search(r"\((\d+)", words)
    if digits:
        return int(digits.group(1))
    return ordinal_number(words) or word_number(words.split()[0])


def _anniversary_end(
    passage: PassageText, effective: Fact | None, agreement: Fact | None, renews: bool
) -> Fact | None:
    match = next(
        (
            m
            for m in _ANNIVERSARY.finditer(passage.text)
            if _ANNIVERSARY_CUE.search(passage.text[max(0, m.start() - 40) : m.start()])
        ),
        None,
    )
    if match is None:
        return None
    years = _anniversary_years(match.group("count"))
    start_fact = _anchor_fact(
        "of " + passage.text[match.end() : match.end() + 80], effective, agreement
    )
    if not years:
        return None
    return _computed(passage, match.group(0).strip(), f"P{years}Y", start_fact, renews)


def _computed(
    passage: PassageText, quote: str, term: str, start_fact: Fact | None, renews: bool
) -> Fact | None:
    """The end of a term counted from a date: whole, or as partial as the start when the
    contract leaves its day blank ("____ 2019" plus three years is 2022)."""
    if start_fact is None or not isinstance(start_fact.value, str):
        return None
    start = as_date(start_fact.value)
    if start is not None:
        end = add_duration(start, term)
        value, display = end.isoformat(), f"{end:%B} {end.day}, {end.year}"
    elif term.endswith("Y") and re.fullmatch(r"\d{4}(?:-\d\d)?", start_fact.value):
        year = int(start_fact.value[:4]) + int(term[1:-1])
        value = display = f"{year}{start_fact.value[4:]}"
    else:
        return None
    extra = {"computed": True, "term": term, "from": start_fact.name, "renews": renews}
    return Fact(EXPIRATION_DATE, value, display, passage.index, quote, extra)
