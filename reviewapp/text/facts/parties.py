"""The parties of a contract as names and roles, without addresses or contact names.

Read from the preamble ("by and between Acme Inc., a Delaware corporation with offices at 1 Main
Street ("Licensor"), and ..."): each defined role closes one party ("("Licensor")", "hereinafter
referred to as "Customer""); its name is what comes before the first description (", a Delaware
corporation", "having its office at", "c/o", "Attn:", a street number). A role that names no
party ("the "Agreement"", "the "Effective Date"") closes nothing, and words that cannot be a name
(a sentence: "effective as of October 11", "a Nevada corporation") are not taken for one.
Chinese preambles name parties on labelled lines (甲方：..., 乙方：...).

``find_parties`` reads the contract's opening passages itself; ``parties_from`` reads words a
playbook extractor or a model gave.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .dates import MONTHS
from .model import PARTIES, Fact, PassageText

_QUOTE = "\"“”'‘’ʺ"
_ROLE = re.compile(
    # ("Licensor"), (the "Company"), (or one or more Affiliates, the "Investor"), ("Celebrity)
    rf"\((?:[^(){_QUOTE}]{{0,60}}?,\s*)?\s*(?:each\s+|together\s+|collectively\s+)?"
    r"(?:the\s+|hereinafter\s+(?:referred\s+to\s+as\s+)?|herein\s+|referred\s+to\s+(?:herein\s+)?as\s+)?"
    rf"(?:the\s+)?[{_QUOTE}]+(?P<role>[^{_QUOTE}()]{{1,60}})(?:[{_QUOTE}]+[^()]{{0,80}}?)?\)"
    # hereinafter referred to as "Customer"
    r"|\b(?:hereinafter|hereafter|herein)?\s*(?:(?:to\s+be\s+)?referred\s+to\s+"
    rf"(?:in\s+this\s+Agreement\s+|herein\s+)?as|called)\s+(?:the\s+)?[{_QUOTE}]+"
    rf"(?P<called>[^{_QUOTE}]{{1,60}})[{_QUOTE}]+"
    # (hereinafter Sabco)
    r"|\(\s*hereinafter\s+(?P<bare>[A-Z][\w&.-]*(?:\s+[A-Z][\w&.-]*){0,3})\s*\)",
    re.IGNORECASE,
)
_DESCRIPTION = re.compile(
    r",\s*(?:an?|the)\s|\s+(?:an?\s+)?(?:corporation|company|limited liability)\s+"
    r"(?:organi[sz]ed|incorporated|existing)"
    r"|,?\s+(?:having|with|whose|located|residing|domiciled|incorporated|organi[sz]ed|existing|"
    r"hereinafter|represented|acting)\b"
    r"|,?\s+(?:a|an)\s+(?:[A-Z][a-z]+\s+)?(?:corporation|company|limited|partnership|individual)"
    r"|\s+c/o\b|,?\s+attn\b|,?\s+attention\b|,\s*\d|,\s*(?:of|at)\s"
    r"|\s+\d{1,6}(?:st|nd|rd|th)?\s+(?:[A-Z][a-z]+|Floor)|,?\s+(?:P\.?\s?O\.?\s+Box|Address)\b",
    re.IGNORECASE,
)
_LEAD = re.compile(
    r"^(?:\s|and\b|&|,|;|:|between\b|among\b|by\b|\(\d\)|\([a-z]\)|\(i+\)|\d+\.|[-–—]|"
    r"ladies\s+and\s+gentlemen\s*:)+",
    re.I,
)
# A defined term that names the contract or one of its terms, not a party.
_NOT_A_ROLE = re.compile(
    r"\b(?:agreement|amendment|contract|date|services?|products?|territory|term|schedule|exhibit|"
    r"program(?:me)?|plan|software|property|act|offer|addendum|order|project|business|"
    r"information|commission|parties|party)\b",
    re.IGNORECASE,
)
_A_ROLE_ANYWAY = re.compile(r"\bparty\s+[a-d]\b", re.I)
_NOT_A_NAME = re.compile(
    r"\b(?:dated|entered|made|effective|agrees?|shall|will|hereby|between|among|this\s+agreement|"
    r"pursuant|accordance|consists?|each|register(?:ed)?|provides?)\b|"
    r"^(?:exhibit|schedule|annex|appendix|section|article|in)\b|^\d+\.?\s|[:<>\[\]]|"
    rf"\b(?:{MONTHS})\.?\s+\d",
    re.IGNORECASE,
)
# "Party A (Shipper): ZTO Express Co., Ltd. Address: ..."
_LABELLED_PARTY = re.compile(
    r"\b(?P<role>Party\s+[A-D])\s*(?:\([^)]{0,30}\))?\s*:\s*(?P<name>[^\n:]{2,120}?)"
    r"(?=\s+(?:Address|Legal\s+Representative|Registered|Domicile|Tel|Contact)\b|\s*\n|\s*$)"
)
# A title before the first party's name ("CONSULTING AGREEMENT Aduro Biotech, Inc., ...").
_TITLE_WORD = re.compile(r"\b(?:AGREEMENT|CONTRACT|AMENDMENT(?:\s+NO\.\s*\d+)?)\s+(?=\S)")
_ZH_PARTY = re.compile(
    r"(?P<role>甲方|乙方|丙方|出租方|承租方|卖方|买方|委托方|受托方|许可方|被许可方)"
    r"(?:（[^）]{0,10}）)?\s*[:：]\s*(?P<name>[^\s，,（(；;]{2,60})"
)
_INTRO = re.compile(
    r"\b(?:by\s+and\s+)?(?:between|among)\b\s*:?|\bentered\s+into\s+by\b|\bBY\s+AND\s+BETWEEN\b",
    re.IGNORECASE,
)
_PREAMBLE_END = re.compile(
    r"\bWHEREAS\b|\bRECITALS?\b|\bW\s?I\s?T\s?N\s?E\s?S\s?S\s?E\s?T\s?H|\bNOW,?\s+THEREFORE\b|"
    r"\bBACKGROUND\b|\bIN\s+CONSIDERATION\s+OF\b|\bagree\s+as\s+follows\b|\bTABLE\s+OF\s+CONTENTS\b"
)
_PREAMBLE_CHARS, _LOOK_CHARS, _INTRO_CHARS = 6000, 2500, 1500
# 北京某某有限公司（以下简称“甲方”）, （下称"许可方"）
_ZH_CALLED = re.compile(
    r"[（(]\s*(?:以下|下文|下)?(?:简称|称为|称)\s*[:：]?\s*[“\"「『]?(?P<role>[^”\"」』）)]{1,12}?)"
    r"[”\"」』]?\s*[）)]"
)
_ZH_ROLES = r"甲方|乙方|丙方|丁方|出租方|承租方|卖方|买方|委托方|受托方|许可方|被许可方"
_DEFINED_ROLE_CHARS = 250
# Where one party's introduction ends and the next begins ("organized and existing" does not).
_NEXT_PARTY = re.compile(r";|(?<!organized )(?<!organised )\band\b", re.I)
_MAX_NAME_WORDS = 12
_MAX_PARTIES = 8


def find_parties(passages: Sequence[PassageText]) -> Fact | None:
    """The parties the opening passages define, quoted from the passage naming the first."""
    opening = (
        [p for p in passages if p.start - passages[0].start < _PREAMBLE_CHARS] if passages else []
    )
    for position, passage in enumerate(opening):
        if not any(cue.search(passage.text) for cue in (_INTRO, _ROLE, _LABELLED_PARTY)):
            continue
        # a party list may run on into the next passages ("BETWEEN:" / "AND:" on lines of their own)
        joined = "\n".join(p.text for p in opening[position : position + 4])
        intro = _INTRO.search(joined, 0, _INTRO_CHARS)
        found = parties_from(_preamble_words(joined, intro.end() if intro else 0))
        if found and (len(found) >= 2 or intro is not None):
            return _fact(found, opening[position : position + 4])
    return None


def _preamble_words(text: str, start: int) -> str:
    words = text[start : start + _LOOK_CHARS]
    end = _PREAMBLE_END.search(words, 1)
    return words[: end.start()] if end else words


def _fact(found: list[dict[str, str]], passages: Sequence[PassageText]) -> Fact:
    """The fact, quoting the first party's name as the passage writes it (line breaks and all)."""
    display = parties_shown(found)
    as_written = re.compile(r"\s+".join(re.escape(word) for word in found[0]["name"].split()))
    for passage in passages:
        match = as_written.search(passage.text)
        if match is not None:
            return Fact(PARTIES, found, display, passage.index, match.group(0))
    return Fact(PARTIES, found, display)


def parties_shown(parties: Iterable[Mapping[str, str]]) -> str:
    """The parties for people: "Acme Inc. (Licensor); Beta LLC (Licensee)"."""
    return "; ".join(f"{p['name']} ({p['role']})" if p.get("role") else p["name"] for p in parties)


def parties_from(words: str) -> list[dict[str, str]]:
    """``[{"name", "role"}]`` for each party the words define, in order."""
    zh = chinese_parties(words)
    if zh:
        return _unique(zh)
    labelled = [
        {"name": name, "role": m.group("role")}
        for m in _LABELLED_PARTY.finditer(words)
        if (name := _name(m.group("name")))
    ]
    if len(labelled) >= 2:
        return _unique(labelled)
    parties: list[dict[str, str]] = []
    cursor = 0
    for match in _ROLE.finditer(words):
        said = match.group("role") or match.group("called") or match.group("bare") or ""
        role = " ".join(said.split()).strip(" .,")
        chunk, cursor = words[cursor : match.start()], match.end()
        if not _is_role(role):
            continue  # a defined term of the contract ("Agreement"), not a party's role
        name = _name(chunk)
        if name:
            parties.append({"name": name, "role": role})
        elif len(parties) >= 2:
            break  # past the list of parties: the preamble has gone on to other defined terms
        if len(parties) >= _MAX_PARTIES:
            break
    return _unique(parties)


def chinese_parties(words: str) -> list[dict[str, str]]:
    """The parties of labelled lines (甲方：..., 乙方：...), which need no "between" to read."""
    found = [
        {"name": m.group("name").strip(), "role": m.group("role")}
        for m in _ZH_PARTY.finditer(words)
    ]
    return _unique(found)


def party_name(words: str) -> str:
    """A party's name as someone else gave it (a model's answer), without the address or
    description that came with it; the words as given when no name can be told from them."""
    return _name(words) or " ".join(words.split())


def _is_role(role: str) -> bool:
    lowered = role.lower()
    if not role or lowered in {"each a party", "collectively, the parties"}:
        return False
    return not _NOT_A_ROLE.search(role) or bool(_A_ROLE_ANYWAY.search(role))


def _name(chunk: str) -> str:
    chunk = re.split(r"\b(?:between|among)\b", " ".join(chunk.split()), flags=re.I)[-1]
    titles = list(_TITLE_WORD.finditer(chunk))
    if titles:
        chunk = chunk[titles[-1].end() :]
    chunk = _LEAD.sub("", chunk)
    if chunk[:1].islower() and not _branded(chunk):
        # ", a Nevada corporation, and WPD Pharmaceuticals, a Polish company": the party after
        # the previous one's description
        after = list(re.finditer(r"(?:^|[,;]?\s)and\s+(?:the\s+)?(?=[A-Z0-9\"“])", chunk))
        if not after:
            return ""
        chunk = chunk[after[-1].end() :]
    cut = _DESCRIPTION.search(chunk)
    if cut is not None and cut.start() > 1:
        chunk = chunk[: cut.start()]
    name = chunk.strip(" ,;:.\"“”'(")
    if chunk.rstrip().endswith("."):
        name += "."  # "Inc." keeps its point
    if _NOT_A_NAME.search(name) or len(name.split()) > _MAX_NAME_WORDS:
        return ""
    if not 1 < len(name) <= 150 or (name[:1].islower() and not _branded(name)):
        return ""
    return name


def _branded(words: str) -> bool:
    """ "iShip.com, Inc.", "eGain": a name may start in lower case when its first word does not
    read as a word of the sentence."""
    first = words.split(" ", 1)[0] if words else ""
    return any(c.isupper() for c in first[1:]) or "." in first.rstrip(".,")


def _unique(parties: list[dict[str, str]]) -> list[dict[str, str]]:
    seen, kept = set(), []
    for party in parties:
        key = party["name"].lower()
        if key not in seen:
            seen.add(key)
            kept.append(party)
    return kept


@dataclass(frozen=True)
class Party:
    """A party of a contract: its name as extracted and the role the contract defines for it
    ("Buyer", "Licensee", "甲方"), blank when the contract defines none."""

    name: str
    role: str = ""

    @property
    def term(self) -> str:
        """How the contract speaks of the party: its defined role, else its name."""
        return self.role or self.name

    def shown(self) -> str:
        """ "Borealis Retail Ltd. (Buyer)"."""
        return parties_shown([{"name": self.name, "role": self.role}])


def same_name(one: str, other: str) -> bool:
    """Whether two spellings name the same party (case and runs of spaces aside)."""
    return " ".join(one.split()).casefold() == " ".join(other.split()).casefold()


def party_named(parties: Iterable[Party], name: str) -> Party | None:
    return next((party for party in parties if same_name(party.name, name)), None)


def defined_role(text: str, name: str) -> str:
    """The role the contract defines for the party called ``name`` where it introduces it:
    ``Borealis Retail Ltd. ("Buyer")``, ``... hereinafter referred to as "Licensee"``,
    ``甲方：某某公司``, ``某某公司（以下简称“甲方”）``; blank when it defines none."""
    words = [re.escape(word) for word in name.split()]
    if not words:
        return ""
    written = re.compile(r"\s*".join(words) if _is_chinese(name) else r"\s+".join(words), re.I)
    for match in written.finditer(text):
        labelled = re.search(
            rf"(?P<role>{_ZH_ROLES})(?:（[^）]{{0,10}}）)?\s*[:：]\s*$", text[: match.start()][-20:]
        )
        if labelled is not None:
            return labelled.group("role")
        after = text[match.end() : match.end() + _DEFINED_ROLE_CHARS]
        role = _role_after(after)
        if role:
            return role
    return ""


def _role_after(after: str) -> str:
    called = _ZH_CALLED.search(after)
    if called is not None and called.start() < 80:
        return called.group("role").strip()
    for found in _ROLE.finditer(after):
        if _NEXT_PARTY.search(after, 0, found.start()):
            break  # past this party: the role defined next is another party's
        said = found.group("role") or found.group("called") or found.group("bare") or ""
        role = " ".join(said.split()).strip(" .,")
        if _is_role(role):
            return role
    return ""


def _is_chinese(words: str) -> bool:
    return any("\u4e00" <= char <= "\u9fff" for char in words)
