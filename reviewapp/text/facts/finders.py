"""Where the agreement and effective dates and the governing law are stated, and their values.

Each finder reads the passages in order and returns a ``Fact`` whose quote is the passage's own
words. Finders prefer saying nothing to guessing: a date is only the agreement date when the
words around it say so ("dated", "made ... this", "entered into as of", "Date:").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .competing import with_runner_up
from .dates import DateMatch, find_dates
from .jurisdictions import canonical, find_jurisdictions
from .model import (
    AGREEMENT_DATE,
    EFFECTIVE_DATE,
    GOVERNING_LAW,
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
    r"^[\s,]*(?:\(|,)?\s*(?:such\s+date,?\s+)?(?:hereinafter\s+|herein\s+)?(?:referred\s+to\s+as\s+)?"
    r"(?:as\s+)?(?:the\s+|this\s+)?"
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
# "effective on the date of signed acceptance", "as of the last date of signature below", "as of
# the later of the two signature dates below": the day the last party signed, read from the
# signature blocks' "Date:" lines.
_EFFECTIVE_ON_SIGNING = re.compile(
    r"\beffective\s+(?:on|as\s+of|upon)\s+the\s+(?:(?:later\s+|last\s+)?date\s+(?:of|on\s+which)\s+"
    r"(?:the\s+)?(?:last\s+|final\s+)?(?:signature|execution|signed|signing)|"
    r"(?:later|last)\s+of\s+the\s+(?:two\s+|parties[’']\s+)?(?:signature|execution)\s+dates)",
    re.IGNORECASE,
)
_EFFECTIVE_LINE = re.compile(r"\beffective\s+date\s*:\s*$", re.IGNORECASE)


def agreement_date(passages: Sequence[PassageText]) -> Fact | None:
    """The date the preamble or title block says the contract was made (the first passage with
    such a date decides); else the last date of the "Date:" lines of the signature blocks (the
    day the last party signed); else a date standing in the title block. Unsure
    (``competing.py``) where the passage that decides gives another date with as strong a cue,
    where the testimonium dates the contract otherwise, or, for a date read after the preamble,
    where a later passage says "dated" or "made" of another date."""
    witness = _witness_date(passages)
    for passage in _preamble(passages):
        cued = _agreement_cued(passage)
        if cued:
            tier, found = min(cued, key=lambda item: item[0])  # the first of the strongest
            rivals = [_date_fact(AGREEMENT_DATE, passage, f) for t, f in cued if t == tier]
            chosen = _date_fact(AGREEMENT_DATE, passage, found)
            return with_runner_up(chosen, [*rivals, *([witness] if witness else [])])
    fallback = witness or _signature_date(passages) or _title_date(passages)
    if fallback is None:
        return None
    return with_runner_up(fallback, _dated_after_preamble(passages))


def _agreement_cued(passage: PassageText) -> list[tuple[int, DateMatch]]:
    """The dates of a passage the words before them make the agreement's date, with their cue's
    strength (0 strongest). A signature block is read by _signature_date; what comes before it
    in the passage (PDF text may join "Date: April 7, 2020" and the first "By:" line) is read
    here."""
    block = _SIGNATURE_BLOCK.search(passage.text)
    cued = []
    for found in find_dates(passage.text, 0, block.start() if block else None):
        tier = _agreement_tier(passage.text, found)
        if tier is not None:
            cued.append((tier, found))
    return cued


def _dated_after_preamble(passages: Sequence[PassageText]) -> list[Fact]:
    """Dates past the preamble with the strongest cue ("DATED 13 OCTOBER 2005", "made on"): a
    contract whose date was read from its signatures or title may state it there."""
    preamble = {p.index for p in _preamble(passages)}
    return [
        _date_fact(AGREEMENT_DATE, passage, found)
        for passage in passages
        if passage.index not in preamble
        for tier, found in _agreement_cued(passage)
        if tier == 0
    ]


# "made this ______ day of __________, 2015": the year is the date, its day and month blank
_BLANK_DAY_OF = re.compile(r"(?<=\s)_+\s*day\s+of\s*$", re.IGNORECASE)


def _agreement_tier(text: str, found: DateMatch) -> int | None:
    before = _BLANK_DAY_OF.sub("", text[max(0, found.start - _CONTEXT) : found.start])
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


# "IN WITNESS WHEREOF, the parties execute this Agreement as of February 20, 2020."
_WITNESS_DATE = re.compile(
    r"IN\s+WITNESS\s+WHEREOF[^.;]{0,160}?\b(?:execut\w*|sign\w*|deliver\w*|dated)\b[^.;]{0,80}?"
    r"(?:\bthis|\bas\s+of|\bon|\bdated|\beffective)\W*(?:the\s+)?$",
    re.IGNORECASE,
)


def _witness_date(passages: Sequence[PassageText]) -> Fact | None:
    """The date of the testimonium ("IN WITNESS WHEREOF, ... executed this Agreement this 14th
    day of February 2020"), where the preamble gives none."""
    for passage in passages:
        if "witness" not in passage.text.lower():
            continue
        for found in find_dates(passage.text):
            before = _BLANK_DAY_OF.sub("", passage.text[max(0, found.start - 260) : found.start])
            if _WITNESS_DATE.search(before):
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
    if len(signed) < 2:
        return None  # one party's "Date:" alone is as often a form's or a filing's date
    _, passage, found = max(signed, key=lambda item: item[0])
    return _date_fact(AGREEMENT_DATE, passage, found)


def effective_date(passages: Sequence[PassageText], agreement: Fact | None) -> Fact | None:
    """The date the contract defines as its effective date, else the date it says it takes
    effect or its term begins, else the agreement date (marked ``derived_from``). Unsure
    (``competing.py``) where another date is defined as an effective date too, or, for one the
    contract says it takes effect on, where the same passage says so of another date; one defined
    under a qualified name (the "Royalty Effective Date", the "Amendment Effective Date") where
    the agreement date, which stands in for an effective date the contract does not define, is
    another; one standing in for it is as unsure as the date it stands for."""
    cued = [
        (tier, passage, found)
        for passage in passages
        for found in find_dates(passage.text)
        if (tier := _effective_tier(passage.text, found)) is not None
    ]
    defined = [item for item in cued if item[0] == 0]
    if cued:
        tier, passage, found = defined[0] if defined else cued[0]
        rivals = [
            _date_fact(EFFECTIVE_DATE, p, f)
            for t, p, f in cued
            if t == tier and (t == 0 or p is passage)
        ]
        if agreement is not None and _qualified_name(passage.text, found):
            rivals.append(agreement)
        return with_runner_up(_date_fact(EFFECTIVE_DATE, passage, found), rivals)
    if any(_EFFECTIVE_ON_SIGNING.search(p.text) for p in passages):
        signed = _signature_date(passages)
        if signed is not None:
            return Fact(
                EFFECTIVE_DATE, signed.value, signed.display, signed.passage_index, signed.quote,
                {"derived_from": "signature"},
            )  # fmt: skip
    if agreement is None:
        return None
    return Fact(
        name=EFFECTIVE_DATE,
        value=agreement.value,
        display=agreement.display,
        passage_index=agreement.passage_index,
        quote=agreement.quote,
        extra={**_unsure_part(agreement), "derived_from": AGREEMENT_DATE},
    )


# the "Royalty Effective Date": a date defined as the effective date of something in the contract
_QUALIFIED_NAME = re.compile(
    r"^[^\"“”']{0,50}[\"“”']{1,2}(?!(?:the|this)\s)(?:[\w-]+\s+){1,3}(?:Effective|Commencement|Start)"
    r"\s*Date",
    re.IGNORECASE,
)


def _qualified_name(text: str, found: DateMatch) -> bool:
    after = text[found.end : found.end + 60]
    return bool(_EFFECTIVE_DEFINED_AFTER.search(after) and _QUALIFIED_NAME.search(after))


def _unsure_part(fact: Fact) -> dict[str, object]:
    return {key: fact.extra[key] for key in ("unsure", "candidate") if key in fact.extra}


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
    r"(?:govern\w*|constru\w+|interpret\w*|enforc\w+|controll?ed\s+by|applicable\s+law|"
    r"choice\s+of\s+law|subject\s+to)[^.;]{0,160}?\blaws?(?:\s+and\s+decisions|,[^.;,]{0,40},)?\s+"
    r"(?:in\s+force\s+)?(?:of|in)\b"
    r"|\blaws?\s+of\s+[^.;]{0,80}?(?:shall\s+|will\s+)?(?:govern|apply)\b"
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


# "governed by and construed in accordance with Swiss law"
_LAW_ADJECTIVES = {
    "Swiss": "Switzerland", "English": "England", "German": "Germany", "French": "France",
    "Dutch": "Netherlands", "Italian": "Italy", "Spanish": "Spain", "Irish": "Ireland",
    "Japanese": "Japan", "Israeli": "Israel", "Singapore": "Singapore", "Swedish": "Sweden",
    "Danish": "Denmark", "Norwegian": "Norway", "Finnish": "Finland", "Belgian": "Belgium",
    "Austrian": "Austria", "Scottish": "Scotland", "Indian": "India", "Korean": "South Korea",
}  # fmt: skip
_ADJECTIVE_LAW = re.compile(
    r"(?:govern\w*|constru\w+|interpret\w*|accordance\s+with|subject\s+to)[^.;]{0,80}?\b"
    rf"(?P<adjective>{'|'.join(_LAW_ADJECTIVES)})\s+(?:substantive\s+)?law\b"
)


def governing_law(passages: Sequence[PassageText]) -> Fact | None:
    """The jurisdiction whose law governs: the clause under a "Governing Law" heading first."""
    ordered = sorted(passages, key=lambda p: not _LAW_HEADING.search(p.heading or ""))
    for passage in ordered:
        adjective = _ADJECTIVE_LAW.search(passage.text)
        if adjective is not None:
            place = canonical(_LAW_ADJECTIVES[adjective.group("adjective")])
            if place is not None:
                return Fact(
                    name=GOVERNING_LAW,
                    value=place.name,
                    display=place.name,
                    passage_index=passage.index,
                    quote=adjective.group(0)[adjective.start("adjective") - adjective.start() :],
                    extra={"country": place.country, "region": place.region},
                )
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
