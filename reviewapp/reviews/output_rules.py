"""Rules run on the draft itself: citations without article and date, quotes not in the contract."""

from __future__ import annotations

import re
from typing import Any

_QUOTE = re.compile(r"[“\"]([^”\"\n]{15,400})[”\"]")
_STATUTE_EN = re.compile(
    r"\b(?:[A-Z][A-Za-z]+ ){1,6}(?:Act|Code|Regulations?|Directive|Statute)\b(?: of \d{4})?"
)
_STATUTE_ZH = re.compile(r"《[^》\n]{0,40}(?:法|法典|条例|规定|办法|规则)》")
_ARTICLE = re.compile(
    r"(?:section|sec\.|§|article|art\.)\s*\d+|第[0-9一二三四五六七八九十百千]+条", re.I
)
_DATE = re.compile(r"\b(?:19|20)\d{2}\b|\d{4}年")
_WINDOW = 60
_SPACE = re.compile(r"\s+")


def _normal(text: str) -> str:
    return _SPACE.sub(" ", text).strip().lower()


def draft_flags(draft_text: str, contract_text: str) -> list[dict[str, Any]]:
    """Findings on a draft; each is {kind, text, message}."""
    flags = []
    contract = _normal(contract_text)
    for match in _QUOTE.finditer(draft_text):
        if _normal(match.group(1)) not in contract:
            flags.append(
                {
                    "kind": "QUOTE_NOT_IN_CONTRACT",
                    "text": match.group(1),
                    "message": "This quotation does not occur in the contract.",
                }
            )
    for pattern in (_STATUTE_EN, _STATUTE_ZH):
        for match in pattern.finditer(draft_text):
            around = draft_text[match.start() : match.end() + _WINDOW]
            missing = [
                name
                for name, needed in (("article number", _ARTICLE), ("effective date", _DATE))
                if not needed.search(around)
            ]
            if missing:
                flags.append(
                    {
                        "kind": "CITATION_INCOMPLETE",
                        "text": match.group(0),
                        "message": f"Statute cited without {' and '.join(missing)}.",
                    }
                )
    return flags
