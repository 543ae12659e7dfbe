"""The parties of a contract as names and roles, without addresses or contact names.

Read from the preamble ("by and between Acme Inc., a Delaware corporation with offices at 1 Main
Street ("Licensor"), and ..."): each defined role closes one party; its name is what comes before
the first description (", a Delaware corporation", "having its office at", "c/o", "Attn:").
Chinese preambles name parties on labelled lines (甲方：..., 乙方：...).
"""

from __future__ import annotations

import re

_ROLE = re.compile(
    r"\(\s*(?:each\s+|together\s+|collectively\s+)?(?:the\s+|hereinafter\s+(?:referred\s+to\s+as\s+)?|"
    r"herein\s+|referred\s+to\s+(?:herein\s+)?as\s+)?(?:the\s+)?[\"“”']+(?P<role>[^\"“”']{1,60})[\"“”']+"
    r"[^()]{0,80}?\)",
    re.IGNORECASE,
)
_DESCRIPTION = re.compile(
    r",\s*(?:an?|the)\s|\s+(?:an?\s+)?(?:corporation|company|limited liability)\s+"
    r"(?:organi[sz]ed|incorporated|existing)"
    r"|,?\s+(?:having|with|whose|located|residing|domiciled|incorporated|organi[sz]ed|existing)\b"
    r"|,?\s+(?:a|an)\s+(?:[A-Z][a-z]+\s+)?(?:corporation|company|limited|partnership|individual)"
    r"|\s+c/o\b|,?\s+attn\b|,?\s+attention\b|,\s*\d|,\s*(?:of|at)\s",
    re.IGNORECASE,
)
_LEAD = re.compile(r"^(?:\s|and\b|&|,|;|:|between\b|among\b|by\b|\(\d\)|\([a-z]\)|\d+\.)+", re.I)
_ZH_PARTY = re.compile(
    r"(?P<role>甲方|乙方|丙方|出租方|承租方|卖方|买方|委托方|受托方|许可方|被许可方)"
    r"(?:（[^）]{0,10}）)?\s*[:：]\s*(?P<name>[^\s，,（(；;]{2,60})"
)
_GENERIC_ROLES = {"party", "parties", "each a party", "collectively, the parties"}
_MAX_PARTIES = 8


def parties_from(words: str) -> list[dict[str, str]]:
    """``[{"name", "role"}]`` for each party the words define, in order."""
    zh = [
        {"name": m.group("name").strip(), "role": m.group("role")}
        for m in _ZH_PARTY.finditer(words)
    ]
    if zh:
        return _unique(zh)
    parties: list[dict[str, str]] = []
    cursor = 0
    for match in _ROLE.finditer(words):
        role = " ".join(match.group("role").split())
        chunk, cursor = words[cursor : match.start()], match.end()
        if role.lower().strip(" .") in _GENERIC_ROLES or role.lower().startswith(
            ("party", "parties")
        ):
            continue
        name = _name(chunk)
        if name:
            parties.append({"name": name, "role": role})
        if len(parties) >= _MAX_PARTIES:
            break
    return _unique(parties)


def _name(chunk: str) -> str:
    chunk = re.split(r"\b(?:between|among)\b", " ".join(chunk.split()), flags=re.I)[-1]
    chunk = _LEAD.sub("", chunk)
    cut = _DESCRIPTION.search(chunk)
    if cut is not None and cut.start() > 1:
        chunk = chunk[: cut.start()]
    name = chunk.strip(" ,;:.\"“”'(")
    if chunk.rstrip().endswith("."):
        name += "."  # "Inc." keeps its point
    return name if 1 < len(name) <= 150 else ""


def _unique(parties: list[dict[str, str]]) -> list[dict[str, str]]:
    seen, kept = set(), []
    for party in parties:
        key = party["name"].lower()
        if key not in seen:
            seen.add(key)
            kept.append(party)
    return kept
