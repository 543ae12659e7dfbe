"""What a new redline proposes: the verifier's suggested wording, else the playbook rule's
standard wording (`fallback_clause`), else the clause as it stands, for the lawyer to edit.

The clause's own number and heading ("12.1 Liability.") are kept in front of a proposal, so the
tracked change covers the wording only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from reviewapp.contracts.models import Passage
from reviewapp.reviews.models import Engine, Review, RuleFiring, Verification
from reviewapp.reviews.redlines.models import RedlineSource
from reviewapp.rules.services import playbook_compiled
from reviewapp.text.engine.compiler import CompiledPlaybook

_AFTER_HEADING = re.compile(r"[\s.:：。、)）-]*")


@dataclass(frozen=True)
class Proposal:
    category: str
    rule_id: str
    replacement: str
    source: str


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
) -> Proposal:
    """`text` is the clause as it stands (contract text of the passage's span)."""
    suggestion, source = _suggestion(compiled, category, rule_id, verification)
    if not suggestion:
        return Proposal(category, rule_id, text, RedlineSource.LAWYER)
    return Proposal(category, rule_id, clause_lead(passage, text) + suggestion, source)


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
