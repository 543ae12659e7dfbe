"""All facts of a contract, and the normalisation of a fact's words read elsewhere (a playbook
extractor's match, a model's answer)."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from .amounts import find_amounts
from .competing import with_runner_up
from .dates import as_date, parse_date
from .durations import add_duration, parse_duration
from .finders import agreement_date, effective_date, governing_law
from .guess import GuessModel, guess_expiration, shipped_model
from .jurisdictions import normalise_jurisdiction
from .model import (
    AGREEMENT_DATE,
    AMOUNTS,
    DATE_FACTS,
    DOCUMENT_NAME,
    EFFECTIVE_DATE,
    EXPIRATION_DATE,
    GOVERNING_LAW,
    NOTICE_PERIOD,
    PARTIES,
    PERPETUAL,
    RENEWAL_TERM,
    Fact,
    PassageText,
)
from .parties import find_parties, parties_from, parties_shown
from .renewal import notice_period, renewal_term
from .term import expiration_date
from .title import clean_title

# Our finders read English; for facts they cover, a playbook's match stands in only in Chinese.
_CJK = re.compile(r"[\u4e00-\u9fff]")
DURATION_FACTS = (RENEWAL_TERM, NOTICE_PERIOD)


def find_facts(
    passages: Sequence[PassageText],
    raw: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    guesser: GuessModel | None | Literal["shipped"] = "shipped",
) -> dict[str, Fact]:
    """Every key fact found. ``raw`` are the playbook extractors' first matches
    (``{category: {"value", "start", "end"}}``, offsets into the text the passages cut): they
    decide the facts our finders do not look for (the document name), and
    stand in for a finder that found nothing when their words normalise to a value (a Chinese
    contract's 2024年3月1日, 甲方：...). Where nothing gives an expiration date, ``guesser``
    (the shipped model by default; None for the finders alone) may guess one (``guess.py``)."""
    passages = [p for p in passages if p.text]
    found: dict[str, Fact | None] = {}
    found[AGREEMENT_DATE] = agreement_date(passages)
    found[EFFECTIVE_DATE] = effective_date(passages, found[AGREEMENT_DATE])
    found[EXPIRATION_DATE] = expiration_date(passages, found[EFFECTIVE_DATE], found[AGREEMENT_DATE])
    found[GOVERNING_LAW] = governing_law(passages)
    found[PARTIES] = find_parties(passages)
    found[RENEWAL_TERM] = renewal_term(passages)
    found[NOTICE_PERIOD] = notice_period(passages)
    for name, match in (raw or {}).items():
        ours = name in found
        chinese = bool(_CJK.search(str(match.get("value", ""))))
        if _unread(found.get(name)) and (not ours or chinese):
            found[name] = _from_raw(name, match, passages) or found.get(name)
        if chinese and name in DATE_FACTS:
            found[name] = _with_raw_rivals(found.get(name), match, passages)
    chinese_term = raw and _CJK.search(str(raw.get(EXPIRATION_DATE, {}).get("value", "")))
    if found.get(EXPIRATION_DATE) is None and raw and chinese_term:
        found[EXPIRATION_DATE] = _term_from_raw(raw[EXPIRATION_DATE], passages, found)
    if found.get(EXPIRATION_DATE) is None:
        model = shipped_model() if guesser == "shipped" else guesser
        found[EXPIRATION_DATE] = guess_expiration(
            passages, found[EFFECTIVE_DATE], found[AGREEMENT_DATE], model
        )
    return {name: fact for name, fact in found.items() if fact is not None}


def _unread(fact: Fact | None) -> bool:
    """No fact, or an effective date the finders did not read but stood the agreement date in
    for (a Chinese contract's 自2024年4月1日起生效 is read by the playbook)."""
    return fact is None or bool(fact.extra.get("derived_from"))


def _with_raw_rivals(
    fact: Fact | None, match: Mapping[str, Any], passages: Sequence[PassageText]
) -> Fact | None:
    """A date the playbook's pattern read is unsure where the same pattern reads another date
    further on ("also"): 本补充协议于2019年3月12日签订 and 双方于2005年2月4日签订的《原合同》."""
    if fact is None or fact.value != parse_date(str(match.get("value") or "")):
        return fact
    rivals = [_from_raw(fact.name, other, passages) for other in match.get("also") or []]
    return with_runner_up(fact, [rival for rival in rivals if rival is not None])


def _term_from_raw(
    match: Mapping[str, Any], passages: Sequence[PassageText], found: Mapping[str, Fact | None]
) -> Fact | None:
    """有效期为三年 (or "a term of three years"): the end counted from the effective date."""
    words = str(match.get("value") or "")
    term = parse_duration(words)
    start = found.get(EFFECTIVE_DATE) or found.get(AGREEMENT_DATE)
    start_date = as_date(start.value) if start is not None else None
    if term is None or start is None or start_date is None or term[-1] not in "YM":
        return None
    end = add_duration(start_date, term)
    if end is None:
        return None
    passage = _passage_at(passages, int(match.get("start", -1)))
    quoted = passage is not None and words in passage.text
    return Fact(
        name=EXPIRATION_DATE,
        value=end.isoformat(),
        display=end.isoformat(),
        passage_index=passage.index if passage is not None and quoted else None,
        quote=words if quoted else "",
        extra={"computed": True, "term": term, "from": start.name},
    )


def _from_raw(name: str, match: Mapping[str, Any], passages: Sequence[PassageText]) -> Fact | None:
    words = str(match.get("value") or "")
    passage = _passage_at(passages, int(match.get("start", -1)))
    if name == PARTIES and passage is not None and words[:20] in passage.text:
        words = passage.text[passage.text.index(words[:20]) :]  # up to the last party's role
    value, extra = normalise_fact(name, words)
    if value is None and name in (*DATE_FACTS, GOVERNING_LAW):
        return None  # words that read as no date or place: saying nothing beats a fragment
    quote = words if passage is not None and words in passage.text else ""
    return Fact(
        name=name,
        value=value,
        display=_display(name, value, words),
        passage_index=passage.index if passage is not None and quote else None,
        quote=quote,
        extra=extra,
    )


def normalise_fact(name: str, words: str) -> tuple[Any, dict[str, Any]]:
    """The normalised value of a fact's words, and what else they say (``renews``, the
    jurisdiction's country, an amount's currency). ``(None, {})`` when they hold no value."""
    words = " ".join(str(words).split())
    if not words:
        return None, {}
    if name in DATE_FACTS:
        if name == EXPIRATION_DATE and _says_perpetual(words):
            return PERPETUAL, {"computed": False}
        return parse_date(words), {}
    if name == GOVERNING_LAW:
        place = normalise_jurisdiction(words)
        if place is None:
            return None, {}
        return place.name, {"country": place.country, "region": place.region}
    if name in DURATION_FACTS:
        return parse_duration(words), ({"renews": True} if name == RENEWAL_TERM else {})
    if name == PARTIES:
        return parties_from(words) or None, {}
    if name == AMOUNTS:
        return [amount.as_dict() for amount in find_amounts(words)] or None, {}
    if name == DOCUMENT_NAME:
        return clean_title(words), {}
    return words, {}


def _says_perpetual(words: str) -> bool:
    lowered = words.lower()
    return any(cue in lowered for cue in ("perpetu", "indefinite", "until terminated"))


def _display(name: str, value: Any, words: str) -> str:
    if name == PARTIES and isinstance(value, list):
        return parties_shown(value)
    if name in (GOVERNING_LAW, DOCUMENT_NAME) and value:
        return str(value)
    return words


def _passage_at(passages: Sequence[PassageText], offset: int) -> PassageText | None:
    if offset < 0 or not passages:
        return None
    starts = [p.start for p in passages]
    position = bisect_right(starts, offset) - 1
    if position < 0:
        return None
    passage = passages[position]
    return passage if passage.start <= offset < max(passage.end, passage.start + 1) else None
