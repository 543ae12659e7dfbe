"""Finds the laws a passage cites, in the forms Chinese contracts write them.

《中华人民共和国合同法》, 《合同法》第一百零七条, 依据《民法典》第584条, 《合同法》第107条第2款,
《民法典》第五百八十四条、第五百八十五条, 第577条至第584条, several laws in one sentence, a known
name without 《》 where it is plainly a citation (民法典第584条, 中华人民共和国合同法, 公司法的规定;
not 公司法定代表人), and references that name no law (国家有关规定, 有关法律、法规的规定).

Plain ``re`` on patterns without nested repetition, each bounded, so the time is linear in the
passage whatever it holds.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from reviewapp.text.numerals import NUMERAL_CHARS, chinese_number

from .table import STATE_PREFIX, Law, LawTable, law_table

_N = f"[{NUMERAL_CHARS}]"
# 《…》 with at most one 《…》 or 〈…〉 inside (an interpretation names the law it interprets).
_BRACKETED = re.compile(r"《([^《》\n]{0,60}(?:[《〈][^《》〈〉\n]{1,40}[》〉][^《》\n]{0,40})?)》")
# What makes a name in 《》 a statute even when the table does not know it.
_STATUTE_SUFFIX = re.compile(
    r"(?:法|法典|条例|规定|办法|解释|细则|通则|规则)(?:[（(][^（）()]{1,12}[)）])?$"
)
_ARTICLE = rf"第\s*({_N}{{1,12}})\s*条(?:之[一二三四五六七八九十])?"
_DETAIL = rf"(?:\s*第\s*{_N}{{1,4}}\s*款)?(?:\s*第\s*[（(]?{_N}{{1,4}}[)）]?\s*项)?"
# Between a law and its first article: 的, 中, a book, chapter or section (合同编, 第三编 第八章).
_PART = rf"(?:(?:第\s*{_N}{{1,6}}\s*(?:分编|编|章|节)|[\u4e00-\u9fff]{{1,6}}?编)\s*)"
_FIRST = re.compile(rf"\s*(?:的|中|之)?\s*{_PART}{{0,3}}{_ARTICLE}{_DETAIL}")
_MORE = re.compile(rf"\s*(?:、|和|及|以及|与|或|至|到|－|—|~|～|-)\s*{_ARTICLE}{_DETAIL}")
_SAYS = re.compile(r"\s*(?:的|之)?(?:有关|相关)?(?:规定|条款)")
_UNNAMED = re.compile(
    r"(?:国家|我国|中国)(?:的)?(?:有关|相关|现行)(?:的)?"
    r"(?:法律、行政法规|法律、法规|法律法规|法律|法规|规定|政策)(?:的规定)?"
    r"|(?:有关|相关)(?:法律、行政法规|法律、法规|法律法规|法律|法规)(?:的)?规定"
)
_MAX_ARTICLES = 20  # article numbers read after one law


@dataclass(frozen=True)
class Citation:
    """One citation: where it is, the name as written, the law it resolves to (None: not in
    the table, or no law named at all) and the article numbers it gives (in order)."""

    start: int
    end: int
    text: str
    name: str
    law: Law | None
    articles: tuple[int, ...] = ()
    named: bool = True  # False: 国家有关规定, a reference that names no law

    @property
    def statute(self) -> str:
        """The law as a reader would write it: 《合同法》."""
        return f"《{self.name}》"


def find_citations(text: str, table: LawTable | None = None) -> list[Citation]:
    """Every citation in ``text``, in order of position."""
    table = table or law_table()
    found = [*_bracketed(text, table), *_unbracketed(text, table)]
    taken = [(c.start, c.end) for c in found]
    for match in _UNNAMED.finditer(text):
        if not any(s < match.end() and match.start() < e for s, e in taken):
            found.append(
                Citation(match.start(), match.end(), match.group(), match.group(), None, (), False)
            )
    return sorted(found, key=lambda c: c.start)


def _bracketed(text: str, table: LawTable) -> list[Citation]:
    citations = []
    for match in _BRACKETED.finditer(text):
        name = match.group(1).strip()
        law = table.resolve(name)
        if law is None and not _STATUTE_SUFFIX.search(name):
            continue  # 《风险揭示书》, 《招标书》: a document, not a statute
        citations.append(_with_articles(text, match.start(), match.end(), name, law))
    return citations


def _unbracketed(text: str, table: LawTable) -> list[Citation]:
    """A known name without 《》, when plainly cited: 中华人民共和国 before it, or an article
    number or 的规定 after it. 公司法定代表人 holds 公司法 and is no citation."""
    citations = []
    for match in _names_pattern(table).finditer(text):
        if _inside_brackets(text, match.start()):
            continue
        name = match.group("name")
        prefixed = match.group("prefix") is not None
        citation = _with_articles(text, match.start(), match.end(), name, table.resolve(name))
        if prefixed or citation.articles or _SAYS.match(text, match.end()):
            citations.append(citation)
    return citations


def _with_articles(text: str, start: int, end: int, name: str, law: Law | None) -> Citation:
    articles: list[int] = []
    first = _FIRST.match(text, end)
    if first is not None:
        articles.append(_number(first.group(1)))
        end = first.end()
        while len(articles) < _MAX_ARTICLES and (more := _MORE.match(text, end)) is not None:
            articles.append(_number(more.group(1)))
            end = more.end()
    return Citation(start, end, text[start:end], name, law, tuple(a for a in articles if a > 0))


def _number(numeral: str) -> int:
    value = chinese_number(numeral)
    return value if value is not None else 0


def _inside_brackets(text: str, position: int) -> bool:
    opened = text.rfind("《", max(0, position - 80), position)
    return opened >= 0 and text.find("》", opened, position) < 0


@functools.lru_cache(maxsize=4)
def _names_pattern(table: LawTable) -> re.Pattern[str]:
    names = [name for name in table.names() if len(name) >= 3]
    alternatives = "|".join(re.escape(name) for name in names)
    return re.compile(rf"(?P<prefix>{STATE_PREFIX})?(?P<name>{alternatives})")
