"""Judges each citation against the table as of a date (today, by default)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from .finder import Citation, find_citations
from .table import LawTable, law_table

# The kinds of finding. A lawyer must hear of the first three (the citation is wrong); the next
# three leave the citation unsettled (no article, a law not in the table, or no law named);
# the last says the citation is right.
REPEALED = "repealed"
NOT_YET_IN_FORCE = "not_yet_in_force"
BEYOND_LAST_ARTICLE = "beyond_last_article"
NO_ARTICLE = "no_article"
UNKNOWN_LAW = "unknown_law"
NO_LAW_NAMED = "no_law_named"
IN_FORCE = "in_force"
PROBLEMS = (REPEALED, NOT_YET_IN_FORCE, BEYOND_LAST_ARTICLE)

# How the offline engine's rationale for a citation verdict begins (``reviews.reasons`` reads
# the findings again, from the quote, to say them in the reader's language).
RATIONALE_PREFIX = "Citation check:"


# Each finding in English, by ``Finding.wording``; ``reviews.reasons`` marks the same sentences
# for translation (a test keeps the two alike).
WORDING = {
    REPEALED: "%(law)s is no longer in force since %(date)s, replaced by %(successor)s.",
    "repealed_chain": (
        "%(law)s is no longer in force since %(date)s, replaced by %(successor)s; "
        "the law in force now is %(current)s."
    ),
    "repealed_alone": "%(law)s is no longer in force since %(date)s.",
    NOT_YET_IN_FORCE: "%(law)s takes effect on %(date)s; it is not yet in force.",
    BEYOND_LAST_ARTICLE: "%(citation)s: beyond the last article (%(last)s) of %(law)s.",
    NO_ARTICLE: "%(citation)s: cites %(law)s without an article number.",
    UNKNOWN_LAW: "%(citation)s: not in the table of laws, so not checked.",
    NO_LAW_NAMED: "%(citation)s: names no law, so there is nothing to check.",
    IN_FORCE: "%(citation)s: %(law)s is in force and has %(last)s articles.",
    "in_force_uncounted": (
        "%(citation)s: %(law)s is in force (its number of articles is not in the table)."
    ),
}


@dataclass(frozen=True)
class Finding:
    citation: Citation
    kind: str
    law: str = ""  # the law as cited, 《合同法》
    date: str = ""  # repealed on / takes effect on, ISO
    successor: str = ""  # 《民法典》
    current: str = ""  # the end of the successor chain, when it is not the successor itself
    article: int = 0  # the highest article cited
    last_article: int = 0  # the law's last article, where the table knows it

    @property
    def is_problem(self) -> bool:
        return self.kind in PROBLEMS

    @property
    def wording(self) -> str:
        """Which sentence of ``WORDING`` says this finding."""
        if self.kind == REPEALED:
            return (
                "repealed_chain"
                if self.current
                else REPEALED
                if self.successor
                else "repealed_alone"
            )
        if self.kind == IN_FORCE and not self.last_article:
            return "in_force_uncounted"
        return self.kind

    def describe(self) -> str:
        """The finding in English, for the stored rationale (the API and exports)."""
        return WORDING[self.wording] % self.as_dict()

    def as_dict(self) -> dict[str, Any]:
        """The finding for a page script, which says it in the reader's language."""
        return {
            "kind": self.kind,
            "wording": self.wording,
            "citation": self.citation.text,
            "law": self.law,
            "date": self.date,
            "successor": self.successor,
            "current": self.current,
            "article": self.article,
            "last": self.last_article,
        }


def judge(
    citation: Citation, *, today: date | None = None, table: LawTable | None = None
) -> Finding:
    """What is wrong with ``citation`` as of ``today``, if anything."""
    table = table or law_table()
    today = today or date.today()
    law = citation.law
    if not citation.named:
        return Finding(citation, NO_LAW_NAMED)
    if law is None:
        return Finding(citation, UNKNOWN_LAW, law=citation.statute)
    cited = citation.statute
    article = max(citation.articles, default=0)
    if law.repealed is not None and law.repealed <= today:
        successor = table.successor(law)
        current = table.current(law)
        return Finding(
            citation,
            REPEALED,
            law=cited,
            date=law.repealed.isoformat(),
            successor=f"《{successor.short}》" if successor else "",
            current=f"《{current.short}》" if successor and current is not successor else "",
            article=article,
            last_article=law.articles or 0,
        )
    if law.effective > today:
        return Finding(citation, NOT_YET_IN_FORCE, law=cited, date=law.effective.isoformat())
    if not article:
        return Finding(citation, NO_ARTICLE, law=cited)
    if law.articles is not None and article > law.articles:
        return Finding(
            citation, BEYOND_LAST_ARTICLE, law=cited, article=article, last_article=law.articles
        )
    return Finding(citation, IN_FORCE, law=cited, article=article, last_article=law.articles or 0)


def check_citations(
    text: str, *, today: date | None = None, table: LawTable | None = None
) -> list[Finding]:
    """Every citation of ``text`` with its finding, in order."""
    table = table or law_table()
    return [judge(c, today=today, table=table) for c in find_citations(text, table)]


@dataclass(frozen=True)
class CitationVerdict:
    """What the findings settle: ``REJECTED`` (a citation is wrong), ``CONFIRMED`` (every law
    named is in force and cited with a valid article) or None (a lawyer must look). ``start``
    and ``end`` span the citations the verdict rests on; ``findings`` are those citations'."""

    state: str | None
    start: int
    end: int
    findings: tuple[Finding, ...]


def citation_verdict(findings: Sequence[Finding]) -> CitationVerdict:
    problems = [f for f in findings if f.is_problem]
    named = [f for f in findings if f.kind != NO_LAW_NAMED]
    if problems:
        return _verdict("REJECTED", problems)
    if named and all(f.kind == IN_FORCE for f in named):
        return _verdict("CONFIRMED", named)
    return CitationVerdict(None, 0, 0, tuple(named))


def _verdict(state: str, findings: list[Finding]) -> CitationVerdict:
    start = min(f.citation.start for f in findings)
    end = max(f.citation.end for f in findings)
    return CitationVerdict(state, start, end, tuple(findings))


def rationale(findings: Sequence[Finding]) -> str:
    """The stored English rationale of a citation verdict."""
    return " ".join([RATIONALE_PREFIX, *(f.describe() for f in findings)])


def problem_span(text: str, *, today: date | None = None) -> tuple[int, int] | None:
    """Where the first wrong citation of ``text`` is (for a rule that fires on one), if any."""
    for finding in check_citations(text, today=today):
        if finding.is_problem:
            return finding.citation.start, finding.citation.end
    return None
