"""What a new redline proposes: the verifier's suggested wording, else the playbook rule's
standard wording (`fallback_clause`), else the clause as it stands, for the lawyer to edit.

The clause's own number and heading ("12.1 Liability.") are kept in front of a proposal, so the
tracked change covers the wording only. The playbook's standard wording replaces the sentence
the rule matched, not the whole clause: a term clause that also gives a right to terminate on
insolvency keeps that right when its duration is replaced. Standard wording names the parties
as the contract defines them (`party_terms`), once the party the firm acts for is known.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from reviewapp.contracts.models import Passage
from reviewapp.reviews.acting_for.selectors import Sides
from reviewapp.reviews.models import Engine, Review, RuleFiring, Verification
from reviewapp.reviews.redlines.models import RedlineSource
from reviewapp.rules.services import playbook_compiled
from reviewapp.text.engine.compiler import CompiledPlaybook
from reviewapp.text.engine.party_terms import Terms, deal_sides, in_contract_terms
from reviewapp.text.segmentation import is_abbreviation

_AFTER_HEADING = re.compile(r"[\s.:：。、)）-]*")


@dataclass(frozen=True)
class Proposal:
    category: str
    rule_id: str
    replacement: str
    source: str
    # the standard wording's generic role words: those put in the contract's terms, those kept
    swapped: tuple[tuple[str, str], ...] = ()
    kept: tuple[str, ...] = ()


def issue_categories(*, review: Review, passage: Passage) -> list[tuple[str, str]]:
    """(category, rule id) of each issue of the passage: one per category a routing rule (not a
    secondary `only_with` one) flagged, in the order the rules fired."""
    compiled = playbook_compiled(review.playbook_version)
    firings = RuleFiring.objects.filter(review=review, passage=passage).values_list(
        "category", "rule_id"
    )
    return categories_of(compiled, list(firings))


def categories_of(
    compiled: CompiledPlaybook, firings: list[tuple[str, str]]
) -> list[tuple[str, str]]:
    seen: dict[str, str] = {}
    for category, rule_id in sorted(firings, key=lambda f: f[1]):
        if compiled.routes(rule_id) and category not in seen:
            seen[category] = rule_id
    return list(seen.items())


def proposal_for(
    *,
    compiled: CompiledPlaybook,
    passage: Passage,
    text: str,
    category: str,
    rule_id: str,
    verification: Verification | None,
    match: tuple[int, int] | None = None,
    sides: Sides | None = None,
    preamble: str = "",
) -> Proposal:
    """`text` is the clause as it stands (contract text of the passage's span); `match` the
    rule's match (offsets into the contract text), whose sentence standard wording replaces;
    `sides` the party acted for and the counterparty (None: not chosen); `preamble` the
    contract's opening words, where a role such as 甲方 may be given its side (甲方（买方）)."""
    suggestion, source = _suggestion(compiled, category, rule_id, verification)
    if not suggestion:
        return Proposal(category, rule_id, text, RedlineSource.LAWYER)
    terms = Terms(suggestion)
    if source == RedlineSource.PLAYBOOK:
        parties = deal_sides(sides.client, sides.counterparty, preamble=preamble) if sides else {}
        terms = in_contract_terms(suggestion, parties)
    words = _in_clause(
        passage, text, terms.text, match if source == RedlineSource.PLAYBOOK else None
    )
    return Proposal(category, rule_id, words, source, terms.swapped, terms.kept)


def _in_clause(passage: Passage, text: str, suggestion: str, match: tuple[int, int] | None) -> str:
    """The clause with `suggestion` in place of the matched sentence (no match: of all its
    words), behind the clause's number and heading."""
    lead = clause_lead(passage, text)
    if match is not None:
        # a match inside the heading ("Assignment") stands for the clause's first sentence
        first = max(match[0] - passage.start, len(lead))
        start, end = sentence_around(text, first, max(match[1] - passage.start, first))
        start = max(start, len(lead))
        if start > len(lead) or end < len(text.rstrip()):
            return text[:start] + suggestion + text[end:]
    return lead + suggestion


# Chinese marks end a sentence with no space after them (限制。合同期内，...).
_SENTENCE_END = re.compile(r"[.;!?](?=\s|$)|[。；！？]|\n")


def sentence_around(text: str, start: int, end: int) -> tuple[int, int]:
    """The span of the sentence of `text` that holds [start, end): from after the end of the
    sentence before (a full stop, semicolon or line break; "e.g." and "U.S." are no ends) to
    its own end mark, inclusive."""
    start, end = max(0, min(start, len(text))), max(0, min(end, len(text)))
    begin = 0
    for mark in _SENTENCE_END.finditer(text, 0, start):
        if not _abbreviated(text, mark.start()):
            begin = mark.end()
    while begin < len(text) and text[begin].isspace():
        begin += 1
    finish = len(text)
    for mark in _SENTENCE_END.finditer(text, end):
        if not _abbreviated(text, mark.start()):
            finish = mark.end() if text[mark.start()] != "\n" else mark.start()
            break
    return begin, max(finish, begin)


def _abbreviated(text: str, dot: int) -> bool:
    return text[dot] == "." and is_abbreviation(text, dot)


def _suggestion(
    compiled: CompiledPlaybook, category: str, rule_id: str, verification: Verification | None
) -> tuple[str, str]:
    # The offline engine's "redline" is the rule's negotiating fallback, not wording.
    if verification is not None and verification.redline and verification.engine != Engine.OFFLINE:
        return verification.redline.strip(), RedlineSource.VERIFIER
    wording = _fallback_clause(compiled, category, rule_id)
    return (wording, RedlineSource.PLAYBOOK) if wording else ("", RedlineSource.LAWYER)


def _fallback_clause(compiled: CompiledPlaybook, category: str, rule_id: str) -> str:
    if rule_id in compiled.by_id and compiled.compiled_rule(rule_id).rule.fallback_clause:
        return compiled.compiled_rule(rule_id).rule.fallback_clause
    for entry in compiled.rules:
        if entry.rule.category == category and entry.rule.fallback_clause:
            return entry.rule.fallback_clause
    return ""


def clause_lead(passage: Passage, text: str) -> str:
    """The clause's number and heading as they open `text` ("2. Pricing. "), else ""."""
    for lead in (passage.heading, passage.number):
        if lead and text.startswith(lead):
            match = _AFTER_HEADING.match(text, len(lead))
            return text[: match.end() if match else len(lead)]
    return ""
