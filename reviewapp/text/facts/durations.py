"""Periods as written in contracts ("five (5) years", "thirty (30) days", "一年") as ISO 8601
durations ("P5Y", "P30D").

Written by hand: isodate and dateutil format and add durations but do not read English number
words or Chinese numerals; adding a duration to a date is dateutil's ``relativedelta``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

from dateutil.relativedelta import relativedelta

from reviewapp.text.numerals import chinese_number

_UNITS = {
    "year": "Y",
    "yr": "Y",
    "annual": "Y",
    "month": "M",
    "week": "W",
    "day": "D",
    "business day": "D",
    "calendar day": "D",
    "年": "Y",
    "个月": "M",
    "月": "M",
    "周": "W",
    "日": "D",
    "天": "D",
}
_ONES = [
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen",
]  # fmt: skip
_TENS = ["_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "fifteenth": 15,
    "twentieth": 20, "thirtieth": 30,
}  # fmt: skip
WORDS = {word: n for n, word in enumerate(_ONES)} | {
    word: 10 * n for n, word in enumerate(_TENS) if word != "_"
}
_TENS_WORD = "twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
_DIGIT_WORD = "one|two|three|four|five|six|seven|eight|nine"
_TEEN_WORD = "ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen"
_NUMBER_WORD = (
    rf"(?:(?:{_TENS_WORD})(?:[- ](?:{_DIGIT_WORD}))?|zero|{_DIGIT_WORD}|{_TEEN_WORD}|a|an|"
    r"one hundred(?: and)?(?: \w+)?)"
)
_ZH_DIGITS = "零一二两三四五六七八九十百"
_EN_UNIT = r"(?P<unit>(?:business |calendar )?days?|weeks?|months?|years?|yrs?)"
DURATION_RE = re.compile(
    rf"\b(?:(?P<word>{_NUMBER_WORD})[\s-]*(?:\(\s*(?P<paren>\d+)\s*\)[\s-]*)?"
    rf"|(?P<digits>\d+)[\s-]*(?:\(\s*{_NUMBER_WORD}\s*\)[\s-]*)?)"
    rf"(?:(?:full|consecutive|calendar|additional|successive|contract)\s+)*{_EN_UNIT}(?![a-z])"
    rf"|(?P<zh>[\d{_ZH_DIGITS}]+)\s*(?P<zh_unit>个月|年|周|日|天)",
    re.IGNORECASE,
)
_ORDINAL_RE = re.compile(r"\b(?P<ordinal>" + "|".join(_ORDINALS) + r"|\d+(?:st|nd|rd|th))\b", re.I)


@dataclass(frozen=True)
class DurationMatch:
    start: int
    end: int
    value: str  # ISO 8601: P5Y, P30D
    text: str


def find_durations(text: str, start: int = 0, end: int | None = None) -> list[DurationMatch]:
    end = len(text) if end is None else end
    found = []
    for match in DURATION_RE.finditer(text, start, end):
        value = _value(match)
        if value is not None:
            found.append(DurationMatch(match.start(), match.end(), value, match.group(0)))
    return found


def parse_duration(words: str) -> str | None:
    """The ISO 8601 duration of a period written alone: "five (5) years" is "P5Y"."""
    found = find_durations(words)
    if found:
        return found[0].value
    if re.search(r"\b(?:annual|yearly|one[- ]year)\b", words, re.I):
        return "P1Y"
    return None


def ordinal_number(words: str) -> int | None:
    match = _ORDINAL_RE.search(words)
    if match is None:
        return None
    ordinal = match.group("ordinal").lower()
    return _ORDINALS.get(ordinal) or int(re.sub(r"\D", "", ordinal))


def add_duration(start: date, duration: str) -> date | None:
    """``start`` plus an ISO duration of one unit, as contracts count ("five years from 10
    February 2014" ends on 10 February 2019); None when that is past the calendar's end (a
    contract's, or a model's, "99999 years")."""
    match = re.fullmatch(r"P(\d+)([YMWD])", duration)
    if match is None:
        raise ValueError(f"not a one-unit duration: {duration}")
    count, unit = int(match.group(1)), match.group(2)
    try:
        if unit == "Y":
            return start + relativedelta(years=count)
        if unit == "M":
            return start + relativedelta(months=count)
        return start + timedelta(days=count * (7 if unit == "W" else 1))
    except (OverflowError, ValueError):
        return None


def _value(match: re.Match[str]) -> str | None:
    if match.group("zh"):
        count = chinese_number(match.group("zh"))
        unit = _UNITS[match.group("zh_unit")]
    else:
        count = _count(match)
        unit = _UNITS[_unit_key(match.group("unit"))]
    if count is None or count <= 0:
        return None
    return f"P{count}{unit}"


def _count(match: re.Match[str]) -> int | None:
    if match.group("paren"):
        return int(match.group("paren"))
    if match.group("digits"):
        return int(match.group("digits"))
    return word_number(match.group("word"))


def word_number(words: str) -> int | None:
    words = words.lower().replace("-", " ").replace(" and", "")
    if words in ("a", "an"):
        return 1
    total = 0
    for part in words.split():
        if part == "hundred":
            total = max(total, 1) * 100
        elif part in WORDS:
            total += WORDS[part]
        else:
            return None
    return total


def _unit_key(unit: str) -> str:
    unit = unit.lower().rstrip("s")
    for key in ("business day", "calendar day", "year", "yr", "month", "week", "day"):
        if unit.endswith(key):
            return key
    return unit
