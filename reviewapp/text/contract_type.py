"""Language and contract-type detection, run before a scan to pick the playbook and its mode."""

from __future__ import annotations

import re

CJK_SHARE_FOR_CHINESE = 0.2
TITLE_WINDOW = 3000

# Title keyword (English or Chinese) -> CUAD contract type. In a combined title ("Supply and
# Marketing Agreement", "软件许可及技术服务合同") the keyword nearest to "Agreement" (合同, 协议)
# names the type, as it does in CUAD's own file names.
_TYPE_KEYWORDS = (
    (r"non[- ]?compet|non[- ]?solicit|竞业限制|竞业禁止|不竞争", "Non-Compete/Non-Solicit"),
    (r"intellectual property|知识产权", "IP"),
    (r"strategic alliance|alliance|战略合作|战略联盟", "Strategic Alliance"),
    (r"joint venture|joint filing|合资|合营", "Joint Venture"),
    (r"co-?branding|联合品牌", "Co-Branding"),
    (r"co-?hosting|hosting|托管", "Hosting"),
    (r"collaborat|cooperation|co-operation|合作", "Collaboration"),
    (r"outsourc|外包", "Outsourcing"),
    (r"transportation|transport|shipping|carriage|运输|物流", "Transportation"),
    (r"franchis|特许经营|加盟", "Franchise"),
    (r"endorsement|代言", "Endorsement"),
    (r"sponsorship|赞助", "Sponsorship"),
    (r"reseller|resale|value[- ]added|转售", "Reseller"),
    (r"distribut|经销|分销", "Distributor"),
    (r"manufactur|制造|加工|代工", "Manufacturing"),
    (r"supply|purchase|供货|供应|采购|购销|买卖", "Supply"),
    (r"maintenance|support|维护|维保|运维", "Maintenance"),
    (r"consult|咨询|顾问", "Consulting"),
    (r"promotion|推广", "Promotion"),
    (r"marketing|advertising|营销|广告", "Marketing"),
    (r"affiliat", "Affiliate"),
    (r"agency|代理|委托", "Agency"),
    (r"develop|开发|研发", "Development"),
    (r"licen[cs]|许可|授权", "License"),
    (r"servic|服务", "Service"),
)
_KEYWORD = re.compile("|".join(f"(?P<t{i}>{p})" for i, (p, _t) in enumerate(_TYPE_KEYWORDS)), re.I)
_TITLE = re.compile(r"^[^\n]{0,160}?(?:\b(?:agreement|contract)\b|合同|协议)", re.I | re.M)
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
