"""Amounts of money with their currency ("$1,500,000", "US$ 2 million", "EUR 10.000",
"人民币10万元"), as a decimal string and an ISO 4217 code.

By hand: price-parser and babel read one price at a time from a clean string; contracts write
amounts in running text with scale words ("two million") and Chinese units (万).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

_SYMBOLS = {
    "us$": "USD", "usd": "USD", "$": "USD", "dollars": "USD", "u.s. dollars": "USD",
    "€": "EUR", "eur": "EUR", "euros": "EUR", "euro": "EUR", "£": "GBP", "gbp": "GBP",
    "pounds sterling": "GBP", "¥": "CNY", "rmb": "CNY", "cny": "CNY", "人民币": "CNY", "元": "CNY",
    "c$": "CAD", "cad": "CAD", "a$": "AUD", "aud": "AUD", "hk$": "HKD", "hkd": "HKD",
    "chf": "CHF", "jpy": "JPY", "yen": "JPY",
}  # fmt: skip
_SCALES = {"thousand": 1000, "million": 10**6, "billion": 10**9, "万": 10**4, "亿": 10**8}
_NUMBER = r"\d{1,3}(?:[,\s]\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_PREFIX = r"US\$|HK\$|C\$|A\$|\$|€|£|¥|USD|EUR|GBP|RMB|CNY|CAD|AUD|HKD|CHF|JPY|人民币"
AMOUNT_RE = re.compile(
    rf"(?P<prefix>{_PREFIX})\s?(?P<number>{_NUMBER})(?:\s?(?P<scale>thousand|million|billion|万|亿))?"
    rf"|(?P<bare>{_NUMBER})\s?(?P<scale2>thousand|million|billion|万|亿)?\s?"
    rf"(?P<suffix>U\.S\. dollars|dollars|euros?|pounds sterling|USD|EUR|GBP|RMB|CNY|元|yen)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Amount:
    amount: str  # a decimal string: "1500000", "12.50"
    currency: str  # ISO 4217
    text: str

    def as_dict(self) -> dict[str, str]:
        return {"amount": self.amount, "currency": self.currency, "text": self.text}


def find_amounts(text: str) -> list[Amount]:
    found = []
    for match in AMOUNT_RE.finditer(text):
        symbol = (match.group("prefix") or match.group("suffix") or "").lower()
        number = match.group("number") or match.group("bare")
        scale = match.group("scale") or match.group("scale2")
        value = _decimal(number, scale)
        if value is not None and symbol in _SYMBOLS:
            found.append(Amount(_plain(value), _SYMBOLS[symbol], match.group(0).strip()))
    return found


def _decimal(number: str, scale: str | None) -> Decimal | None:
    try:
        value = Decimal(re.sub(r"[,\s]", "", number))
    except InvalidOperation:
        return None
    return value * _SCALES[scale.lower()] if scale else value


def _plain(value: Decimal) -> str:
    text = format(value, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text
