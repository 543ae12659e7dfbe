"""Dates as written in contracts, read into ISO 8601 values (whole or partial).

Finding a date in running text is ours (regular expressions for the forms contracts use, blanks
included: "March __, 2019" is a month, "____, 2019" a year); reading the matched words into a
calendar date is python-dateutil's parser, which already knows month abbreviations, ordinals and
day-first numeric forms. Chinese dates (2019年3月1日) are read by hand: dateutil does not know them.

A value is ``YYYY-MM-DD``, or ``YYYY-MM`` / ``YYYY`` when the contract leaves the rest blank.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, datetime

from dateutil import parser as date_parser

MONTHS = (
    "January|February|March|April|May|June|July|August|September|October|November|December|"
    "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec"
)
_MONTH = rf"(?P<month>(?:{MONTHS})\.?)"
_ORDINAL = r"(?:\s?(?:st|nd|rd|th|t\s?h|s\s?t|n\s?d|r\s?d))?"
_DAY = rf"(?P<day>[0-3]?\d){_ORDINAL}"
_YEAR = r"(?P<year>(?:19|20)\d\d|(?:19|20)\s?\d\s?\d)"
_BLANK = r"(?:_{2,}|\[\s*[_\s•●·]*\]|\(\s*_*\s*\)|\*{2,}|\s_+)"
_SEP = r"[,\s]*"
_FORMS = [
    # March 1, 2019 / March 1st 2019 / March 1 , 2019
    rf"\b{_MONTH}\s*{_DAY}\s*,?\s*(?:A\.D\.\s*)?{_YEAR}\b",
    # the 1st day of March, 2019 / 1 day of March 2019 / 1st day of Friday, March 2020
    rf"\b{_DAY}\s+day\s+of\s+(?:[A-Z][a-z]+day,?\s+)?{_MONTH}{_SEP}(?:A\.D\.\s*|in\s+the\s+year\s+)?{_YEAR}\b",
    # 1 March 2019 / 1st March, 2019
    rf"\b{_DAY}\s+{_MONTH}{_SEP}{_YEAR}\b",
    # the last day of February, 2023 / the last day in February 2023
    rf"\b(?P<last>last\s+(?:calendar\s+)?day)\s+(?:of|in)\s+{_MONTH}{_SEP}{_YEAR}\b",
    # 2019-03-01
    r"\b(?P<iso>(?:19|20)\d\d-[01]\d-[0-3]\d)\b",
    # 03/01/2019, 3-5-98 (US order, as SEC filings write them)
    r"(?<![\d/.-])(?P<numeric>[0-3]?\d[/.-][0-3]?\d[/.-](?:(?:19|20)\d\d|\d\d))(?![\d/.-])",
    # March __, 2019 / March [ ], 2019 -> a month
    rf"\b{_MONTH}\s*{_BLANK}\s*,?\s*{_YEAR}\b",
    # the __ day of March, 2019 -> a month
    rf"{_BLANK}\s*(?:day\s+)?(?:day\s+)?of\s+{_MONTH}{_SEP}{_YEAR}\b",
    # March 2019 (no day at all)
    rf"\b{_MONTH}{_SEP}{_YEAR}\b",
    # ______, 2019 / [ ], 2019 / day of ______, 2019 -> a year
    rf"(?P<blank>{_BLANK}\s*,?\s*|\bday\s+of\s*,\s*){_YEAR}\b",
    # 2019年3月1日
    r"(?P<zh_year>(?:19|20)\d\d)\s*年\s*(?P<zh_month>[01]?\d)\s*月(?:\s*(?P<zh_day>[0-3]?\d)\s*日)?",
]
_PATTERNS = [re.compile(form, re.IGNORECASE) for form in _FORMS]
_CAPITALISED_MONTH = re.compile(rf"^(?:{MONTHS})", re.IGNORECASE)
_TWO_DIGIT_PIVOT = 50  # '06 is 2006, '99 is 1999
_DEFAULTS = (datetime(2000, 1, 1), datetime(2004, 2, 2))  # tell a parsed day from a default one


@dataclass(frozen=True)
class DateMatch:
    start: int
    end: int
    value: str  # ISO 8601, whole or partial
    text: str  # the words it was read from

    @property
    def complete(self) -> bool:
        return len(self.value) == 10


def find_dates(text: str, start: int = 0, end: int | None = None) -> list[DateMatch]:
    """Every date written in ``text[start:end]``, in order, without overlaps (longest wins)."""
    end = len(text) if end is None else end
    found: list[DateMatch] = []
    for pattern in _PATTERNS:
        for match in pattern.finditer(text, start, end):
            value = _value(match)
            if value is not None:
                words = match.group(0).strip(" ,")
                offset = match.start() + match.group(0).index(words)
                found.append(DateMatch(offset, offset + len(words), value, words))
    found.sort(key=lambda m: (m.start, -(m.end - m.start)))
    kept: list[DateMatch] = []
    for candidate in found:
        if not kept or candidate.start >= kept[-1].end:
            kept.append(candidate)
    return kept


def parse_date(words: str) -> str | None:
    """The ISO value of a date written alone ("1st day of March, 2019", "2019年3月1日")."""
    dates = find_dates(words)
    return dates[0].value if dates else None


def as_date(value: str | None) -> date | None:
    """A whole ISO value as a ``date``; None for partial values and anything else (a fact's
    value may be a place of ten letters, "Luxembourg")."""
    if not value or len(value) != 10:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        return None


def written(day: date) -> str:
    """A date we computed, as an English contract writes it ("March 1, 2022")."""
    return f"{day:%B} {day.day}, {day.year}"


def _value(match: re.Match[str]) -> str | None:
    groups = match.groupdict()
    if groups.get("zh_year"):
        return _iso(int(groups["zh_year"]), int(groups["zh_month"]), groups.get("zh_day"))
    if groups.get("iso"):
        return _checked(groups["iso"])
    if groups.get("numeric"):
        return _numeric(groups["numeric"])
    year = int(re.sub(r"\s", "", groups["year"]))
    if groups.get("blank") is not None or not groups.get("month"):
        return f"{year:04d}"
    month = _month_number(groups["month"])
    if month is None:
        return None
    if groups.get("last"):
        return _iso(year, month, str(calendar.monthrange(year, month)[1]))
    return _iso(year, month, groups.get("day"))


def _month_number(words: str) -> int | None:
    try:
        parsed = date_parser.parse(words.rstrip("."), default=_DEFAULTS[0])
    except (ValueError, OverflowError):
        return None
    return parsed.month


def _numeric(words: str) -> str | None:
    month, day, year = (int(part) for part in re.split(r"[/.-]", words))
    if month > 12 >= day or "." in words:  # 18/9/2008 and 1.3.2019: day first
        month, day = day, month
    if year < 100:
        year += 1900 if year >= _TWO_DIGIT_PIVOT else 2000
    return _iso(year, month, str(day))


def _iso(year: int, month: int, day: str | None) -> str | None:
    if not 1 <= month <= 12:
        return None
    if day is None:
        return f"{year:04d}-{month:02d}"
    return _checked(f"{year:04d}-{month:02d}-{int(day):02d}")


def _checked(value: str) -> str | None:
    try:
        return date.fromisoformat(value).isoformat()
    except ValueError:
        return None
