"""Governing-law jurisdictions as canonical names: "New York, United States", "Ontario, Canada",
"England and Wales, United Kingdom", "China".

A short table by hand: pycountry knows ISO names ("Korea, Republic of") but not how contracts
name a jurisdiction ("the State of New York", "the PRC", "中华人民共和国"), and the list of
states and provinces a contract picks is short.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

US_STATES = [
    "Alabama", "Alaska", "Arizona", "Arkansas", "California", "Colorado", "Connecticut",
    "Delaware", "Florida", "Georgia", "Hawaii", "Idaho", "Illinois", "Indiana", "Iowa", "Kansas",
    "Kentucky", "Louisiana", "Maine", "Maryland", "Massachusetts", "Michigan", "Minnesota",
    "Mississippi", "Missouri", "Montana", "Nebraska", "Nevada", "Ohio", "Oklahoma", "Oregon",
    "Pennsylvania", "Tennessee", "Texas", "Utah", "Vermont", "Virginia", "Washington", "Wisconsin",
    "Wyoming", "New Hampshire", "New Jersey", "New Mexico", "New York", "North Carolina",
    "North Dakota", "Rhode Island", "South Carolina", "South Dakota", "West Virginia",
    "District of Columbia",
]  # fmt: skip
CANADIAN_PROVINCES = [
    "Alberta", "British Columbia", "Manitoba", "New Brunswick", "Newfoundland and Labrador",
    "Nova Scotia", "Ontario", "Prince Edward Island", "Quebec", "Saskatchewan",
]  # fmt: skip
AUSTRALIAN_STATES = ["New South Wales", "Victoria", "Queensland", "Western Australia"]
UK_PARTS = ["England and Wales", "England", "Scotland", "Northern Ireland", "Wales"]
COUNTRIES = [
    "Argentina", "Australia", "Austria", "Belgium", "Bermuda", "Brazil", "British Virgin Islands",
    "Canada", "Cayman Islands", "Chile", "China", "Colombia", "Cyprus", "Czech Republic",
    "Denmark", "Finland", "France", "Germany", "Greece", "Hong Kong", "Hungary", "India",
    "Indonesia", "Ireland", "Israel", "Italy", "Japan", "Luxembourg", "Macau", "Malaysia",
    "Mexico", "Netherlands", "New Zealand", "Norway", "Philippines", "Poland", "Portugal",
    "Russia", "Singapore", "South Africa", "South Korea", "Spain", "Sweden", "Switzerland",
    "Taiwan", "Thailand", "Turkey", "United Arab Emirates", "United Kingdom", "United States",
    "Vietnam",
]  # fmt: skip
ALIASES = {
    "people's republic of china": "China",
    "peoples republic of china": "China",
    "p.r. china": "China",
    "p.r.c.": "China",
    "prc": "China",
    "mainland china": "China",
    "中华人民共和国": "China",
    "中国": "China",
    "香港": "Hong Kong",
    "hong kong sar": "Hong Kong",
    "hong kong special administrative region": "Hong Kong",
    "republic of korea": "South Korea",
    "korea": "South Korea",
    "the netherlands": "Netherlands",
    "holland": "Netherlands",
    "u.s.a.": "United States",
    "u.s.": "United States",
    "usa": "United States",
    "united states of america": "United States",
    "great britain": "United Kingdom",
    "u.k.": "United Kingdom",
    "uk": "United Kingdom",
    "republic of singapore": "Singapore",
    "state of israel": "Israel",
    "federal republic of germany": "Germany",
    "republic of ireland": "Ireland",
    "commonwealth of pennsylvania": "Pennsylvania",
    "commonwealth of massachusetts": "Massachusetts",
    "commonwealth of virginia": "Virginia",
    "commonwealth of kentucky": "Kentucky",
    "england & wales": "England and Wales",
    "new york state": "New York",
    "the district of columbia": "District of Columbia",
}
_COUNTRY_OF = (
    {name: "United States" for name in US_STATES}
    | {name: "Canada" for name in CANADIAN_PROVINCES}
    | {name: "Australia" for name in AUSTRALIAN_STATES}
    | {name: "United Kingdom" for name in UK_PARTS}
)
_NAMES = sorted([*ALIASES, *(n.lower() for n in [*_COUNTRY_OF, *COUNTRIES])], key=len, reverse=True)
JURISDICTION_RE = re.compile(
    r"(?<![A-Za-z])(?:the\s+)?(?:(?:state|province|commonwealth|republic|kingdom)\s+of\s+(?:the\s+)?)?"
    r"(?P<name>" + "|".join(re.escape(n).replace(r"\ ", r"\s+") for n in _NAMES) + r")(?![A-Za-z])",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Jurisdiction:
    region: str  # a state, province or part of the country; "" for a whole country
    country: str

    @property
    def name(self) -> str:
        return f"{self.region}, {self.country}" if self.region else self.country


def canonical(words: str) -> Jurisdiction | None:
    """The jurisdiction a name stands for: "the State of New York" -> New York, United States."""
    key = " ".join(words.split()).strip(" .,;").lower()
    key = re.sub(r"^(?:the\s+)?(?:(?:state|province|commonwealth)\s+of\s+(?:the\s+)?)", "", key)
    name = ALIASES.get(key) or ALIASES.get(f"commonwealth of {key}")
    if name is None:
        name = next((n for n in [*_COUNTRY_OF, *COUNTRIES] if n.lower() == key), None)
    if name is None:
        return None
    if name in _COUNTRY_OF:
        return Jurisdiction(region=name, country=_COUNTRY_OF[name])
    return Jurisdiction(region="", country=name)


def find_jurisdictions(
    text: str, start: int = 0, end: int | None = None
) -> list[tuple[int, int, Jurisdiction]]:
    """Each jurisdiction named in ``text[start:end]``, with its span, in order."""
    end = len(text) if end is None else end
    found = []
    for match in JURISDICTION_RE.finditer(text, start, end):
        place = canonical(match.group("name"))
        if place is not None:
            found.append((match.start(), match.end(), place))
    return found


def normalise_jurisdiction(words: str) -> Jurisdiction | None:
    """The most specific jurisdiction in a phrase: "laws of the State of Delaware, U.S.A." is
    Delaware; "the laws of the Province of Ontario and the federal laws of Canada" is Ontario."""
    found = [place for _, _, place in find_jurisdictions(words)]
    regional = [place for place in found if place.region]
    if regional:
        return regional[0]
    return found[0] if found else None
