"""Clause labels: "1.", "1.1", "(a)", "ARTICLE V", "Section 12.3", "第一条", "一、", "（一）"..."""

from __future__ import annotations

import re
from typing import NamedTuple

CJK_NUMERALS = "一二三四五六七八九十百零〇两"

_ASCII_LABELS = {
    "schedule": (
        r"(?:SCHEDULE|Schedule|EXHIBIT|Exhibit|ANNEX|Annex|APPENDIX|Appendix|ATTACHMENT|Attachment)"
        r"[^\S\n]+(?:\d{1,3}(?:\.\d{1,3}){0,2}|[A-Z]{1,2}(?:-\d{1,3})?)\.?"
    ),
    "article": (
        r"(?:ARTICLE|Article|CHAPTER|Chapter|PART|Part)[^\S\n]+(?:\d{1,3}|[IVXLC]{1,7}|[A-Z])\.?"
    ),
    "section": r"(?:SECTION|Section|Sec\.|§)[^\S\n]*\d{1,3}(?:\.\d{1,3}){0,4}[A-Za-z]?\.?",
    "dotted": r"\d{1,3}(?:\.\d{1,3}){1,5}\.?(?![\d.])",
    "number": r"\d{1,3}\.(?![\d.])",
    "paren": r"\((?:[a-z]{1,2}|[ivxlc]{1,6}|[A-Z]{1,2}|[IVXLC]{1,6}|\d{1,3})\)",
    "rparen": r"(?:[a-z]|[ivx]{1,5}|\d{1,3})\)",
}
_LINE_ONLY_LABELS = {
    "roman": r"[IVX]{1,5}\.",
    "upper": r"[A-Z]\.",
    "lower": r"[a-z]\.",
}
_CJK_LABELS = {
    "cn_article": rf"第[{CJK_NUMERALS}\d]{{1,6}}[条章节编款]",
    "cn_item": rf"[{CJK_NUMERALS}]{{1,3}}、",
    "cn_paren": rf"[（(][{CJK_NUMERALS}]{{1,3}}[)）]",
    "cn_digit": r"\d{1,3}、",
    "cn_digit_paren": r"（\d{1,3}）",
}
# An ASCII label is followed by whitespace or the end of the text; "第一条" and "一、" need not be.
_ASCII_END = r"(?=\s|$)"


def _alternation(groups: dict[str, str], suffix: str = "", *, named: bool = True) -> str:
    return "|".join(
        f"(?P<{name}>{body}){suffix}" if named else f"(?:{body}){suffix}"
        for name, body in groups.items()
    )


# Unnamed, to embed in other patterns.
LABEL_SOURCE_ASCII = _alternation(_ASCII_LABELS, _ASCII_END, named=False)
LABEL_SOURCE_CJK = _alternation(_CJK_LABELS, named=False)

_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_LOWER = _UPPER.lower()
_DIGITS = "0123456789"
_FIRST_CHARS = {
    "cn_article": "第",
    "cn_item": CJK_NUMERALS,
    "cn_paren": "（(",
    "cn_digit": _DIGITS,
    "cn_digit_paren": "（",
    "schedule": "SEA",
    "article": "ACP",
    "section": "S§",
    "dotted": _DIGITS,
    "number": _DIGITS,
    "paren": "(",
    "rparen": _LOWER + _DIGITS,
    "roman": "IVX",
    "upper": _UPPER,
    "lower": _LOWER,
}
_SOURCES = {
    **{kind: f"(?P<{kind}>{body})" for kind, body in _CJK_LABELS.items()},
    **{kind: f"(?P<{kind}>{body}){_ASCII_END}" for kind, body in _ASCII_LABELS.items()},
    **{kind: f"(?P<{kind}>{body}){_ASCII_END}" for kind, body in _LINE_ONLY_LABELS.items()},
}


def _label_patterns_by_first_char() -> dict[str, re.Pattern[str]]:
    """One small pattern per possible first character: much faster than one big alternation."""
    compiled: dict[tuple[str, ...], re.Pattern[str]] = {}
    by_char = {}
    for char in "".join(_FIRST_CHARS.values()):
        kinds = tuple(kind for kind in _SOURCES if char in _FIRST_CHARS[kind])
        if kinds not in compiled:
            compiled[kinds] = re.compile("|".join(_SOURCES[kind] for kind in kinds))
        by_char[char] = compiled[kinds]
    return by_char


_LABEL_BY_FIRST_CHAR = _label_patterns_by_first_char()
# "第三条" followed by one of these is a cross-reference ("依照第三条的约定"), not a clause.
CN_REFERENCE_FOLLOWERS = frozenset("的规之所中第款项及和或与、，,。）)")

STRUCTURAL_KINDS = frozenset({"schedule", "article", "section", "cn_article", "roman"})
ENUMERATION_KINDS = frozenset({"paren", "rparen", "upper", "lower", "cn_digit_paren"})

UNNUMBERED_HEADING_RANK = 2
_ENUMERATION_BASE_RANK = 10
_FIXED_RANKS = {"schedule": 0, "article": 1, "roman": 1, "cn_item": 3, "cn_paren": 4, "cn_digit": 5}
_CN_ARTICLE_RANKS = {"编": 0, "章": 1, "节": 1, "条": 2, "款": 3}

_ROMAN_RE = re.compile(r"(?=[ivxlc])(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})\Z", re.IGNORECASE)
_NUMBER_IN_SECTION_RE = re.compile(r"\d{1,3}(?:\.\d{1,3})*")


class Label(NamedTuple):
    kind: str
    text: str  # as written, e.g. "1.1." or "ARTICLE  V"
    end: int  # offset just after the label


def match_label(text: str, pos: int, endpos: int) -> Label | None:
    """The clause label starting exactly at ``pos``, if any."""
    pattern = _LABEL_BY_FIRST_CHAR.get(text[pos]) if pos < endpos else None
    match = pattern.match(text, pos, endpos) if pattern is not None else None
    if match is None:
        return None
    kind = match.lastgroup or ""
    if (
        kind == "cn_article"
        and match.end() < endpos
        and text[match.end()] in CN_REFERENCE_FOLLOWERS
    ):
        return None
    return Label(kind, match.group(), match.end())


def normalise(label: Label) -> str:
    """The label as a passage number: single spaces, no trailing dot except on "1." or "A."."""
    text = " ".join(label.text.split())
    if label.kind in {"number", "upper", "lower", "roman"}:
        return text
    return text[:-1] if text.endswith(".") else text


class RankTracker:
    """Gives each label a nesting rank: lower ranks enclose higher ones.

    Enumerations such as (a), (i), (A) nest in the order their styles first appear below the
    nearest numbered clause, the way drafters use them.
    """

    def __init__(self) -> None:
        self._styles: list[str] = []
        self._last_letter: dict[str, str] = {}

    def reset(self) -> None:
        self._styles.clear()
        self._last_letter.clear()

    def rank(self, label: Label) -> int:
        if label.kind not in ENUMERATION_KINDS:
            self.reset()
            return _structural_rank(label)
        style, core = self._enumeration_style(label)
        if style not in self._styles:
            self._styles.append(style)
        if len(core) == 1 and "letter" in style:
            self._last_letter[style] = core
        return _ENUMERATION_BASE_RANK + self._styles.index(style)

    def _enumeration_style(self, label: Label) -> tuple[str, str]:
        core = label.text.strip("().（）")
        shape = label.kind
        if core.isdigit():
            return f"{shape}-digit", core
        case = "upper" if core.isupper() else "lower"
        letter_style = f"{shape}-{case}-letter"
        if label.kind not in {"upper", "lower"} and _ROMAN_RE.match(core):
            follows_letter = self._last_letter.get(letter_style) == chr(ord(core[0]) - 1)
            if len(core) > 1 or (core.lower() in "ivx" and not follows_letter):
                return f"{shape}-{case}-roman", core
        return letter_style, core


def _structural_rank(label: Label) -> int:
    if label.kind in _FIXED_RANKS:
        return _FIXED_RANKS[label.kind]
    if label.kind == "cn_article":
        return _CN_ARTICLE_RANKS[label.text[-1]]
    number = _NUMBER_IN_SECTION_RE.search(label.text)
    depth = number.group().count(".") + 1 if number else 1
    return 1 + depth
