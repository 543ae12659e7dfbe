"""When the contract ends: an end date it names, one counted from its term ("for five (5) years
from the Effective Date", ``computed``), or "perpetual"; and whether it renews itself.

Read from the passages that state the term (a "Term" heading, "This Agreement shall commence ...
and continue ..."), before any that merely speak of it. A term counted from an event the contract
does not date ("three years from the Launch Date") is counted from the contract's own start, as
the lawyers' answers in CUAD count it, and marked ``estimated`` with the ``event`` named: the page
says "about" that date. Measured on the held-out half of CUAD (benchmarks/facts_accuracy.py), it
turned 4 empty expirations into right ones and none into wrong ones.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .competing import with_runner_up
from .dates import as_date, find_dates, written
from .durations import add_duration, find_durations, ordinal_number, word_number
from .model import EFFECTIVE_DATE, EXPIRATION_DATE, PERPETUAL, Fact, PassageText

TERM_HEADING = re.compile(r"\bterm\b|duration|period\s+of\s+(?:the\s+)?agreement|期限|有效期", re.I)
_TERM_TEXT = re.compile(
    r"\b(?:(?:initial\s+)?term\s+of\s+this\s+\w+|this\s+(?:agreement|contract)\s+(?:shall|will|is)\s+"
    r"(?:continue|remain|expire|terminate|be\s+(?:effective|valid|in\s+effect)|valid|"
    r"commence|have\s+a\s+term|run)|initial\s+term|(?:shall|will)\s+(?:expire|end|terminate)\s+(?:on|at)\b|"
    r"the\s+term\s+(?:shall|will|is)|(?:termination|expiration|expiry)\s+date\s*:|"
    r"\bterm\s+of\s+the\s+agreement\b|duration\s+of\s+this)",
    re.IGNORECASE,
)
PERPETUAL_WORDS = re.compile(
    r"in\s+perpetuity|\bperpetu\w*|indefinite(?:ly)?|"
    r"(?:continue|remain)\w*\s+(?:to\s+be\s+)?(?:in\s+(?:full\s+)?(?:force|effect)\s+(?:and\s+effect\s+)?)?"
    r"for\s+so\s+long\s+as|"
    r"(?:until|unless\s+and\s+until)\s+(?:it\s+is\s+)?(?:terminated|either\s+party\s+terminates)|"
    r"until\s+(?:such\s+time\s+as\s+)?(?:(?:this|the)\s+(?:agreement|contract)\s+is\s+)?terminated|"
    r"(?:shall|will)\s+not\s+expire|"
    r"(?:continue|remain)\w*(?:\s+in\s+(?:full\s+)?(?:force|effect)(?:\s+and\s+effect)?)?\s+unless\s+"
    r"(?:and\s+until\s+)?terminated|"
    r"end\w*\s+on\s+the\s+\w+\s+day\s+(?:following|after)\s+(?:a\s+|the\s+)?(?:written\s+)?notice|"
    r"until\s+(?:the\s+)?(?:expiration|expiry)\s+of\s+(?:the\s+)?(?:last|royalty)|until\s+termination|"
    r"until\s+(?:either|one|a)\s+party\s+(?:gives|provides|serves)\s+(?:\w+\s+)?notice|"
    r"(?:continue|remain)\w*\s+in\s+(?:full\s+)?(?:force|effect)(?:\s+and\s+effect)?\s+until\s+"
    r"[^.;]{0,60}?\bceases?\b",
    re.IGNORECASE,
)
_NOT_PERPETUAL = re.compile(
    r"thereafter|after\s+the\s+(?:initial\s+|then[- ]current\s+)?term|licen[cs]e(?!\s+agreement)|"
    r"right(?!s?\s+agreement)|obligation|"
    r"survive",
    re.IGNORECASE,
)
# "commencing on the Effective Date and continuing thereafter": from its start, not after a term
_START_THEN = re.compile(
    r"(?:commenc|begin|start)\w*\s+(?:on|as\s+of)\s+the\s+\w+\s+date\s+and\s+continu\w*\s+thereafter",
    re.I,
)
_PERIOD_DEFINED = re.compile(r"contract\s+year|calendar\s+quarter|fiscal|royalty|quarter", re.I)
_END_CUE = re.compile(
    r"(?:until|through|thru|to|expir\w*|terminat\w*|end\w*|ceas\w*|termination\s+date\s*:|"
    r"in\s+no\s+event\s+later\s+than|"
    r"expiration\s+date\s*:|conclud\w*)\s+(?:on|at|upon|as\s+of)?\s*"
    r"(?:(?:11:59|midnight|12:00)[^,]{0,25},?\s*)?(?:the\s+)?"
    r"(?:(?:later|earlier|first)\s+(?:to\s+occur\s+)?of:?\s+(?:\(\w{1,3}\)\s+)?(?:the\s+)?)?$",
    re.IGNORECASE,
)
# "shall expire upon the later of: (a) the conclusion of the season and (b) the last day in
# February, 2023": the dated item of the list, the others being events
_LATER_OF_ITEM = re.compile(
    r"(?:expir\w*|terminat\w*|end\w*|continue\w*)\s+(?:on\s+|upon\s+|until\s+)?(?:the\s+)?"
    r"(?:later|earlier|first)\s+(?:to\s+occur\s+)?of\b[^.;]{0,100}?\s(?:and|or)\s+"
    r"\(\w{1,3}\)\s+(?:the\s+)?$",
    re.IGNORECASE,
)
_ANCHOR = re.compile(
    r"^\W{0,3}(?:(?:full\s+)?(?:calendar\s+|contract\s+)?(?:years?|months?)\s+)?"
    r"(?:(?:from(?:\s+and\s+after)?|after|following|of|commencing\s+(?:on|with)|"
    r"beginning\s+(?:on|with)|as\s+of)\s+)"
    r"(?:the\s+)?(?P<anchor>[^.;,()]{0,60})",
    re.IGNORECASE,
)
_EFFECTIVE_ANCHOR = re.compile(r"^(?:effective|commencement|start)\s+date|^execution", re.I)
_END_EVENT = re.compile(r"^(?:(?:any|such)\s+)?(?:termination|expiration|expiry|end)\b", re.I)
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
    r"\b(?:(?:this|the)\s+(?:[\w-]+\s+)?(?:agreement|contract)|term)\b(?:[^.;\[(]|\[[^\]]{0,60}\]|\([^)]{0,60}\)|(?<=\d)\.(?=\d)){0,160}"
    r"(?:for|of|be|continue|remain|valid|expire|end|"
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
# "This Section shall survive termination ... for a period of five (5) years": not the term
_SURVIVES = re.compile(r"\bsurviv", re.I)
# "for a full Contract Year": a period the contract measures things by, not its term
_ONE_PERIOD = re.compile(r"^(?:a|an|any|each)\s+(?:full\s+)?(?:contract|calendar)\s+year", re.I)
_AFTER_TERM = re.compile(
    r"^\W{0,3}(?:thereafter|after\s+(?:the\s+)?(?:expiration|termination))", re.I
)
# "shall begin on the Effective Date and continue for three (3) years thereafter": the term
# itself, counted from its start (not a renewal after it).
_FROM_ITS_START = re.compile(
    r"(?:commenc|begin|start|effective)\w*\s+(?:on|as\s+of|from)\s+[^.;]{0,60}?\s+and\s+"
    r"(?:shall\s+|will\s+)?(?:continue|remain)\w*(?:\s+in\s+(?:full\s+)?(?:force|effect)"
    r"(?:\s+and\s+effect)?)?\s+for\s+$",
    re.I,
)
_SENTENCE_START = re.compile(r"(?:^|(?<=[a-z)\]\"”][.;:])|(?<=\d\.))\s+(?=[A-Z(])")
_MAX_TERM_PASSAGES = 4
_TERM_STATED = re.compile(
    r"(?:\bterm\s+of\s+th(?:is|e)\s+\w+|\bthis\s+(?:agreement|contract)|\binitial\s+term|"
    r"\b(?:your|the\s+(?:executive|employee)[’']s)\s+employment\s+(?:here)?(?:under\s+)?"
    r"(?:shall|will)|"
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
    stating = stating_passages(passages)
    candidates = _term_passages(passages)
    for passage in candidates:
        fact = _expiration_in(passage, effective, agreement, passage.index in stating)
        if fact is not None:
            return fact
    return _open_ended(candidates, stating)


_OPEN_END = re.compile(
    r"\bthis\s+(?:agreement|contract)\s+(?:shall|will)\s+(?:(?:automatically|only)\s+)?"
    r"(?:terminate|expire|continue|remain\s+in\s+(?:full\s+)?(?:force|effect))\b",
    re.IGNORECASE,
)


_COUNTED_DAY = re.compile(r"\b\w+(?:st|nd|rd|th)\s+(?:day|anniversary)\b|\banniversary\b", re.I)


def _open_ended(candidates: Sequence[PassageText], stating: set[int]) -> Fact | None:
    """A term clause that names no date and counts no years or months ("This Agreement shall
    terminate (i) on the Business Day after the Settlement Date, (ii) ..."): it runs until an
    event or a notice, which is "perpetual" in the sense of having no fixed end."""
    clauses = [p for p in candidates[:_MAX_TERM_PASSAGES] if p.index in stating]
    if not clauses:
        return None
    for passage in clauses:
        if (
            any(d.complete for d in find_dates(passage.text))
            or any(f.value[-1] in "YM" for f in find_durations(passage.text))
            or _COUNTED_DAY.search(passage.text)
        ):
            return None
    first = next((m for p in clauses if (m := _OPEN_END.search(p.text))), None)
    if first is None:
        return None
    passage = next(p for p in clauses if _OPEN_END.search(p.text))
    return Fact(
        EXPIRATION_DATE, PERPETUAL, "Perpetual", passage.index, first.group(0),
        {"computed": False, "renews": bool(_RENEWS.search(passage.text))},
    )  # fmt: skip


def stating_passages(passages: Sequence[PassageText]) -> set[int]:
    return {
        p.index
        for p in passages
        if TERM_HEADING.search(last_heading(p)) or _TERM_STATED.search(p.text)
    }


def _term_passages(passages: Sequence[PassageText]) -> list[PassageText]:
    """The passages that state the term first (a "Term" heading, "This Agreement shall commence
    ... and continue ..."), then any that speak of it."""
    clauses = [p for p in passages if not getattr(p, "is_heading", False)]
    by_heading = [p for p in clauses if TERM_HEADING.search(last_heading(p))]
    stating = [p for p in clauses if _TERM_STATED.search(p.text)]
    by_text = [p for p in clauses if _TERM_TEXT.search(p.text)]
    return list(dict.fromkeys([*by_heading[:_MAX_TERM_PASSAGES], *stating, *by_text]))


def last_heading(passage: PassageText) -> str:
    return (passage.heading or "").rsplit(">", 1)[-1]


def _expiration_in(
    passage: PassageText, effective: Fact | None, agreement: Fact | None, stating: bool
) -> Fact | None:
    text = passage.text
    renews = bool(_RENEWS.search(text))
    named = [
        Fact(
            EXPIRATION_DATE,
            found.value,
            found.text,
            passage.index,
            found.text,
            {"computed": False, "renews": renews},
        )  # fmt: skip
        for found in find_dates(text)
        if found.complete and _names_the_end(text[max(0, found.start - 120) : found.start])
    ]
    if named:
        # another end date the same clause names is a close competitor (``competing.py``)
        return with_runner_up(named[0], named[1:])
    computed = _computed_end(passage, effective, agreement, renews)
    if computed is not None:
        return computed
    perpetual = next(
        (
            m
            for m in PERPETUAL_WORDS.finditer(text)
            if not _NOT_PERPETUAL.search(_START_THEN.sub("", text[: m.start()][-100:]))
        ),
        None,
    )
    if perpetual is not None and stating:
        return Fact(
            EXPIRATION_DATE, PERPETUAL, "Perpetual", passage.index, perpetual.group(0),
            {"computed": False, "renews": renews},
        )  # fmt: skip
    return None


def _names_the_end(before: str) -> bool:
    return bool(
        (_END_CUE.search(before[-40:]) or _LATER_OF_ITEM.search(before))
        and not _PERIOD_DEFINED.search(before)
    )


def _computed_end(
    passage: PassageText, effective: Fact | None, agreement: Fact | None, renews: bool
) -> Fact | None:
    text = passage.text
    for found in find_durations(text):
        before = text[max(0, found.start - 240) : found.start]
        sentence = _current_sentence(before)
        if (
            found.value[-1] not in "YM"
            or not _TERM_DURATION_CUE.search(before)
            or _NOT_TERM_DURATION.search(sentence[-60:])
            or _SURVIVES.search(sentence)
            or _ONE_PERIOD.search(found.text)
            or (
                _AFTER_TERM.search(text[found.end : found.end + 30])
                and not _FROM_ITS_START.search(sentence)
            )
        ):
            continue
        start_fact = _stated_start(before) or _anchor_fact(
            text[found.end : found.end + 90], effective, agreement
        )
        return _computed(passage, found.text, found.value, start_fact, renews)
    return _anniversary_end(passage, effective, agreement, renews)


def _current_sentence(before: str) -> str:
    """The words of ``before`` since its last sentence began (a heading before it, "TERM AND
    RENEWAL 2.01.", is not part of what the sentence says)."""
    starts = [m.end() for m in _SENTENCE_START.finditer(before)]
    return before[starts[-1] :] if starts else before


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
    # From a launch, a first order, ...: a date the contract does not give. Counted from the
    # contract's own start instead, as the lawyers' answers do, and said to be an estimate.
    start = effective or agreement
    if start is None or _END_EVENT.search(named):
        return None  # "two years following the termination": after the term, not its length
    return Fact(start.name, start.value, start.display, extra={"event": " ".join(named.split())})


ANNIVERSARY = re.compile(
    r"(?P<count>[\w-]+(?:\s*\(\d+(?:st|nd|rd|th)?\))?)(?:[\s-]+years?)?\s+anniversary\s+of\s+"
    r"(?:the\s+)?",
    re.IGNORECASE,
)


_ANNIVERSARY_CUE = re.compile(
    r"(?:until|through|expir\w*|terminat\w*|end\w*|conclud\w*)\s+(?:on\s+|at\s+|upon\s+)?(?:the\s+)?"
    r"(?:(?:later|earlier|first)\s+(?:to\s+occur\s+)?of:?\s+(?:\(\w{1,3}\)\s+)?(?:the\s+)?)?"
    r"(?:day\s+(?:prior|before)\s+(?:to\s+)?(?:the\s+)?)?$",
    re.IGNORECASE,
)


def anniversary_years(words: str) -> int | None:
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
            for m in ANNIVERSARY.finditer(passage.text)
            if _ANNIVERSARY_CUE.search(passage.text[max(0, m.start() - 60) : m.start()])
        ),
        None,
    )
    if match is None:
        return _nth_day_end(passage, effective, agreement, renews)
    years = anniversary_years(match.group("count"))
    start_fact = _anchor_fact(
        "of " + passage.text[match.end() : match.end() + 80], effective, agreement
    )
    if not years:
        return None
    return _computed(passage, match.group(0).strip(), f"P{years}Y", start_fact, renews)


_NTH_DAY = re.compile(
    r"(?P<count>\d+)(?:st|nd|rd|th)\s+(?:calendar\s+)?day\s+(?:after|following)\s+(?:the\s+)?",
    re.I,
)


_DAY_END_CUE = re.compile(r"\b(?:terminat|expir|end)\w*\b", re.I)


def _nth_day_end(
    passage: PassageText, effective: Fact | None, agreement: Fact | None, renews: bool
) -> Fact | None:
    """ "shall terminate ... on the 30th day after the Effective Date": counted in days."""
    for match in _NTH_DAY.finditer(passage.text):
        before = passage.text[max(0, match.start() - 140) : match.start()]
        if not (_DAY_END_CUE.search(before) and re.search(r"\bon\s+(?:the\s+)?$", before)):
            continue
        after = "after " + passage.text[match.end() : match.end() + 80]
        start_fact = _anchor_fact(after, effective, agreement)
        if start_fact is not None and not start_fact.extra.get("event"):
            term = f"P{match.group('count')}D"
            return _computed(passage, match.group(0).strip(), term, start_fact, renews)
    return None


def computed_end(passage: PassageText, quote: str, term: str, start: Fact) -> Fact | None:
    """The end of ``term`` counted from ``start`` (what the learned guess scores)."""
    return _computed(passage, quote, term, start, False)


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
        if end is None:
            return None
        value, display = end.isoformat(), written(end)
    elif term.endswith("Y") and re.fullmatch(r"\d{4}(?:-\d\d)?", start_fact.value):
        year = int(start_fact.value[:4]) + int(term[1:-1])
        value = display = f"{year}{start_fact.value[4:]}"
    elif term.endswith("M") and re.fullmatch(r"\d{4}-\d\d", start_fact.value):
        months = int(start_fact.value[:4]) * 12 + int(start_fact.value[5:]) - 1 + int(term[1:-1])
        value = display = f"{months // 12}-{months % 12 + 1:02d}"
    else:
        return None
    if not re.match(r"\d{4}(?!\d)", value):
        return None  # past year 9999: a typo or a hostile text, not a term
    extra = {"computed": True, "term": term, "from": start_fact.name, "renews": renews}
    if start_fact.extra.get("event"):
        extra.update(estimated=True, event=start_fact.extra["event"])
    return Fact(EXPIRATION_DATE, value, display, passage.index, quote, extra)
