"""A review's key facts as one shape, whichever engine drafted them.

``facts_of(review)`` is what pages, exports and the portfolio grid read. A fact carries its
normalised ``value`` (an ISO date, a jurisdiction, a list of parties, an ISO 8601 duration, an
amount with currency), the human ``display`` text, the passage it came from and the words it was
read from. Names are CUAD category names ("Agreement Date", "Governing Law"). Drafts stored before
facts were normalised hold a bare string per fact (offline) or snake-case keys (Claude): those
come back under the CUAD names with ``display`` set and ``value`` left ``None``.

``model_key_facts`` turns the facts of a Claude draft into the stored shape: each quote is checked
against its passage (whitespace-insensitive), and the words go through the offline engine's
normalisation (``reviewapp.text.facts.normalise_fact``); a fact whose quote is not in its passage
keeps its words but no value, and says ``verified: false``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date
from typing import Any

from django.utils import formats
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString
from django.utils.translation import get_language, gettext

from reviewapp.rules.display_labels import category_label
from reviewapp.text.facts import normalise_fact
from reviewapp.text.facts.dates import as_date
from reviewapp.text.facts.durations import add_duration, parse_duration
from reviewapp.text.facts.jurisdictions import name_in_chinese
from reviewapp.text.facts.model import (
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
)
from reviewapp.text.facts.parties import parties_shown, party_name

from .models import Review

# The model's keys (reviewapp.llm.schemas), and the older ones of drafts stored before.
MODEL_NAMES = {
    "agreement_date": AGREEMENT_DATE,
    "effective_date": EFFECTIVE_DATE,
    "expiration_date": EXPIRATION_DATE,
    "renewal_term": RENEWAL_TERM,
    "notice_period": NOTICE_PERIOD,
    "governing_law": GOVERNING_LAW,
    "parties": PARTIES,
    "amounts": AMOUNTS,
    "term": EXPIRATION_DATE,
    "renewal": RENEWAL_TERM,
    "dates": "Dates",
}
_KNOWN = {"value", "display", "passage_index", "quote"}


# A date read far from the contract's opening is often another document's (an amendment, a
# schedule, a royalty period): on the CUAD contracts the finders were not tuned on (odd
# index), 7 of 13 wrong agreement dates and 5 of 8 wrong effective dates were read after the
# fifth passage, against 11 of 116 and 13 of 97 right ones. Such a date says so.
FAR_FROM_OPENING = 5
CHECKED_WHERE_READ = (AGREEMENT_DATE, EFFECTIVE_DATE)


def fact_shown(fact: Fact, *, as_value: bool = False) -> str:
    """What a reader sees of a fact: the contract's own words, except where the words are ours
    (a date counted from the term, "about" it when the term runs from an event the contract does
    not date, "perpetual", "unsure" after a learned guess or beside a close competing value, an
    effective date the contract does not state on its own), said in the reader's language.
    ``as_value`` shows every date as its value in the reader's format ("Nov. 3, 2005" for "3rd
    day of November, 2005", "2020" for "[ ], 2020"), as a column of many contracts' dates must
    read; the qualifiers stay."""
    shown = fact.display
    value = fact.value if isinstance(fact.value, str) else ""
    computed = bool(fact.extra.get("computed") and as_date(value))
    if value == PERPETUAL:
        shown = gettext("Perpetual")
    elif fact.name == GOVERNING_LAW and shown == value and get_language().startswith("zh"):
        shown = name_in_chinese(value)  # our canonical name, not the contract's words
    elif computed or (as_value and fact.name in DATE_FACTS):
        shown = date_value_shown(value) or shown
    if computed and fact.extra.get("estimated"):
        # counted from the contract's start: its term runs from an undated event
        shown = gettext("about %(date)s") % {"date": shown}
    derived = derived_labels().get(fact.extra.get("derived_from") or "")
    if derived:  # an effective date the contract does not state on its own
        shown = derived % {"value": shown}
    if fact.extra.get("guessed"):
        return gettext("%(value)s (unsure)") % {"value": shown}  # the learned guess's
    candidate = candidate_shown(fact, as_value=as_value)
    if candidate:  # a close competing value (reviewapp.text.facts.competing), named
        return gettext("%(value)s (unsure: also %(candidate)s)") % {
            "value": shown,
            "candidate": candidate,
        }
    if _far_from_opening(fact) and not derived and not computed:
        return gettext("%(value)s (check: read from passage #%(index)s)") % {
            "value": shown,
            "index": fact.passage_index,
        }
    return shown


def candidate_shown(fact: Fact, *, as_value: bool = False) -> str:
    """The competing value of an unsure fact and where it was read ("February 4, 2005, passage
    #3"); empty for a fact without one."""
    candidate = fact.extra.get("candidate")
    if not fact.extra.get("unsure") or not isinstance(candidate, dict):
        return ""
    value = candidate.get("value")
    words = str(candidate.get("display") or value or "")
    if as_value and isinstance(value, str):
        words = date_value_shown(value) or words
    index = candidate.get("passage_index")
    if not isinstance(index, int):
        return words
    return gettext("%(date)s, passage #%(index)s") % {"date": words, "index": index}


def fact_html(fact: Fact) -> SafeString:
    """``fact_shown`` for the review page: an unsure fact's competing value links to its
    passage."""
    shown = fact_shown(fact)
    candidate = candidate_shown(fact)
    index = (fact.extra.get("candidate") or {}).get("passage_index")
    if not candidate or not isinstance(index, int) or candidate not in shown:
        return conditional_escape(shown)
    before, after = shown.rsplit(candidate, 1)
    return format_html(
        '{}<a class="fact-candidate" href="?passage={}#passage-{}">{}</a>{}',
        before, index, index, candidate, after,
    )  # fmt: skip


def _far_from_opening(fact: Fact) -> bool:
    index = fact.passage_index
    return fact.name in CHECKED_WHERE_READ and isinstance(index, int) and index > FAR_FROM_OPENING


_PARTIAL_DATE = re.compile(r"(\d{4})(?:-(\d\d))?")


def date_value_shown(value: str) -> str | None:
    """An ISO date value, whole or partial, in the reader's format; None for anything else."""
    day = as_date(value)
    if day is not None:
        return formats.date_format(day, "DATE_FORMAT")
    partial = _PARTIAL_DATE.fullmatch(value)
    if partial is None:
        return None
    year, month = partial.groups()
    if month is None:
        return year
    if not 1 <= int(month) <= 12:
        return None
    return formats.date_format(date(int(year), int(month), 1), "YEAR_MONTH_FORMAT")


FACT_NAMES = (
    AGREEMENT_DATE, EFFECTIVE_DATE, EXPIRATION_DATE, RENEWAL_TERM, NOTICE_PERIOD, GOVERNING_LAW,
    PARTIES, AMOUNTS, DOCUMENT_NAME,
)  # fmt: skip


def derived_labels() -> dict[str, str]:
    """What an effective date is when the contract states none of its own (its ``derived_from``):
    the agreement date, or the day the last party signed. For the page and page scripts."""
    return {
        AGREEMENT_DATE: gettext("%(value)s (the agreement date)"),
        "signature": gettext("%(value)s (the last signature)"),
    }


def fact_name_labels() -> dict[str, str]:
    """The key facts' names in the active language (for page scripts)."""
    return {name: category_label(name) for name in FACT_NAMES}


def fact_shown_raw(name: str, raw: Any) -> str:
    """``fact_shown`` of a fact as a draft stores it (a dict, or an older draft's text)."""
    return fact_shown(_fact(name, raw))


def fact_html_raw(name: str, raw: Any) -> SafeString:
    """``fact_html`` of a fact as a draft stores it."""
    return fact_html(_fact(name, raw))


def facts_of(review: Review) -> dict[str, Fact]:
    draft = getattr(review, "draft", None)
    return facts_from_data(draft.data.get("key_facts", {}) if draft is not None else {})


def facts_from_data(data: Mapping[str, Any]) -> dict[str, Fact]:
    """The facts of a draft's stored ``key_facts`` (for callers that loaded the draft's data)."""
    facts: dict[str, Fact] = {}
    for key, raw in data.items():
        if raw in (None, "", []):
            continue
        name = MODEL_NAMES.get(key, key)
        if name not in facts:
            facts[name] = _fact(name, raw)
    return facts


def _fact(name: str, raw: Any) -> Fact:
    if isinstance(raw, dict) and "display" in raw:
        return Fact(
            name=name,
            value=raw.get("value"),
            display=str(raw.get("display") or ""),
            passage_index=raw.get("passage_index"),
            quote=str(raw.get("quote") or ""),
            extra={k: v for k, v in raw.items() if k not in _KNOWN},
        )
    if isinstance(raw, list):
        return Fact(name=name, display="; ".join(_words(item) for item in raw))
    return Fact(name=name, display=_words(raw))


def _words(item: Any) -> str:
    if isinstance(item, dict):
        return str(item.get("text") or item.get("name") or "")
    return str(item)


def model_key_facts(facts: Mapping[str, Any], passages: Mapping[int, str]) -> dict[str, Any]:
    """The stored key facts of a model's draft: ``{CUAD name: {"value", "display",
    "passage_index", "quote", "verified", ...}}``; ``passages`` maps index to stored text."""
    stored: dict[str, Any] = {}
    for key, raw in facts.items():
        name = MODEL_NAMES.get(key)
        if name is None or raw in (None, [], ""):
            continue
        if name == PARTIES:
            stored[name] = _model_parties(raw, passages)
        elif name == AMOUNTS:
            stored[name] = _model_amounts(raw, passages)
        elif isinstance(raw, dict):
            stored[name] = _model_fact(name, raw, passages)
    _compute_expiration(stored)
    return stored


def _model_fact(name: str, raw: Mapping[str, Any], passages: Mapping[int, str]) -> dict[str, Any]:
    words = str(raw.get("text") or raw.get("quote") or "")
    index, quote = raw.get("passage"), str(raw.get("quote") or "")
    verified = isinstance(index, int) and quoted(quote, passages.get(index, ""))
    value, extra = normalise_fact(name, words) if verified else (None, {})
    if verified and value is None:
        value, extra = normalise_fact(name, quote)
    return {
        "value": value,
        "display": words,
        "passage_index": index if isinstance(index, int) else None,
        "quote": quote,
        **extra,
        "verified": verified,
    }


def _model_parties(raw: Any, passages: Mapping[int, str]) -> dict[str, Any]:
    parties, quotes, indexes, unverified = [], [], [], []
    for item in raw if isinstance(raw, list) else []:
        if not isinstance(item, dict) or not item.get("name"):
            continue
        index, quote = item.get("passage"), str(item.get("quote") or "")
        # the name without the address or description a model may give with it, as ours
        party = {"name": party_name(str(item["name"])), "role": str(item.get("role") or "")}
        if isinstance(index, int) and quoted(quote, passages.get(index, "")):
            parties.append(party)
            quotes.append(quote)
            indexes.append(index)
        else:
            unverified.append(party)
    shown = parties or unverified
    return {
        "value": parties or None,
        "display": parties_shown(shown),
        "passage_index": indexes[0] if indexes else None,
        "quote": quotes[0] if quotes else "",
        "verified": bool(parties) and not unverified,
    }


def _model_amounts(raw: Any, passages: Mapping[int, str]) -> dict[str, Any]:
    items = [
        _model_fact(AMOUNTS, item, passages) for item in (raw if isinstance(raw, list) else [])
    ]
    items = [item for item in items if isinstance(item, dict)]
    values = [amount for item in items for amount in (item["value"] or [])]
    first = next((item for item in items if item["verified"]), items[0] if items else {})
    return {
        "value": values or None,
        "display": "; ".join(item["display"] for item in items),
        "passage_index": first.get("passage_index"),
        "quote": first.get("quote", ""),
        "verified": all(item["verified"] for item in items),
    }


def _compute_expiration(stored: dict[str, Any]) -> None:
    """ "five (5) years from the Effective Date": the model's words name a term, not a date."""
    expiration = stored.get(EXPIRATION_DATE)
    if not expiration or expiration["value"] is not None or not expiration["verified"]:
        return
    term = parse_duration(expiration["display"])
    start_fact = stored.get(EFFECTIVE_DATE) or stored.get(AGREEMENT_DATE) or {}
    start: date | None = as_date(start_fact.get("value"))
    if term is None or start is None or term[-1] not in "YMWD" or not term[1:-1].isdigit():
        return
    end = add_duration(start, term)
    if end is None:
        return
    expiration["value"] = end.isoformat()
    expiration.update(computed=True, term=term)


def quoted(quote: str, passage_text: str) -> bool:
    """Whether ``quote`` occurs in the passage, runs of whitespace collapsed. Unlike a verdict's
    quote (``reviewapp.llm.quote_found``), a fact's may be one short word ("Texas")."""
    needle = " ".join(quote.split())
    return bool(needle) and needle in " ".join(passage_text.split())
