"""Language and contract-type detection, run before a scan to pick the playbook and its mode."""

from __future__ import annotations

import re

CJK_SHARE_FOR_CHINESE = 0.2
TITLE_WINDOW = 3000

# Title keyword -> CUAD contract type. In a combined title ("Supply and Marketing Agreement")
# the keyword nearest to "Agreement" names the type, as it does in CUAD's own file names.
_TYPE_KEYWORDS = (
    (r"non[- ]?compet|non[- ]?solicit", "Non-Compete/Non-Solicit"),
    (r"intellectual property", "IP"),
    (r"strategic alliance|alliance", "Strategic Alliance"),
    (r"joint venture|joint filing", "Joint Venture"),
    (r"co-?branding", "Co-Branding"),
    (r"co-?hosting|hosting", "Hosting"),
    (r"collaborat|cooperation|co-operation", "Collaboration"),
    (r"outsourc", "Outsourcing"),
    (r"transportation|transport|shipping|carriage", "Transportation"),
    (r"franchis", "Franchise"),
    (r"endorsement", "Endorsement"),
    (r"sponsorship", "Sponsorship"),
    (r"reseller|resale|value[- ]added", "Reseller"),
    (r"distribut", "Distributor"),
    (r"manufactur", "Manufacturing"),
    (r"supply|purchase", "Supply"),
    (r"maintenance|support", "Maintenance"),
    (r"consult", "Consulting"),
    (r"promotion", "Promotion"),
    (r"marketing|advertising", "Marketing"),
    (r"affiliat", "Affiliate"),
    (r"agency", "Agency"),
    (r"develop", "Development"),
    (r"licen[cs]", "License"),
    (r"servic", "Service"),
)
_KEYWORD = re.compile("|".join(f"(?P<t{i}>{p})" for i, (p, _t) in enumerate(_TYPE_KEYWORDS)), re.I)
_TITLE = re.compile(r"^[^\n]{0,160}?\b(?:agreement|contract)\b", re.I | re.M)
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z]")


def detect_language(text: str) -> str:
    """ "zh" when CJK characters make up a fair share of the letters, else "en"."""
    sample = text[:20000]
    cjk = len(_CJK.findall(sample))
    latin = len(_LATIN.findall(sample))
    if cjk == 0:
        return "en"
    # A Chinese character carries about a word; an English word is about five letters.
    return "zh" if cjk / (cjk + latin / 5) >= CJK_SHARE_FOR_CHINESE else "en"


def detect_contract_type(text: str) -> str:
    """CUAD contract type from the title (first agreement line), else from the opening text."""
    head = text[:TITLE_WINDOW]
    for title in _TITLE.finditer(head):
        found = _type_in(title.group())
        if found:
            return found
    return _type_in(head, nearest_end=False) or "Other"


def _type_in(fragment: str, *, nearest_end: bool = True) -> str | None:
    found = list(_KEYWORD.finditer(fragment))
    if not found:
        return None
    match = found[-1] if nearest_end else _most_frequent(found)
    return _TYPE_KEYWORDS[int((match.lastgroup or "t0")[1:])][1]


def _most_frequent(found: list[re.Match]) -> re.Match:
    counts: dict[str | None, int] = {}
    for match in found:
        counts[match.lastgroup] = counts.get(match.lastgroup, 0) + 1
    best = max(counts, key=lambda name: counts[name])
    return next(m for m in found if m.lastgroup == best)
