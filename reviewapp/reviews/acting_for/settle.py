"""The offline engine settling a clause that only protects the client, where the playbook's
``side`` policy is ``settle`` for every category standing on the passage.

The settled passage is CONFIRMED with reason PROTECTS_CLIENT, and its quote is the passage's own
words that show the direction ("Seller shall not sell ..."). A ``human`` or ``reject`` rule
that fired on it, or a party not chosen yet, leaves the verdict as it was.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from reviewapp.contracts.models import PassageState
from reviewapp.llm import Verdict
from reviewapp.reviews.acting_for.clauses import settling_words
from reviewapp.reviews.acting_for.selectors import Sides
from reviewapp.reviews.models import Verification
from reviewapp.reviews.reasons import PROTECTS_CLIENT

HARD_ACTIONS = frozenset({"human", "reject"})


def side_settled(
    compiled: Any, verification: Verification, verdict: Verdict, sides: Sides | None
) -> Verdict:
    """``verdict`` (the offline engine's), or CONFIRMED for the side we act for when it left the
    passage to a lawyer and the playbook settles a clause that only protects the client."""
    if verdict.outcome != PassageState.NEEDS_HUMAN_REVIEW or sides is None:
        return verdict
    rules = [compiled.compiled_rule(rule_id).rule for rule_id in verification.rule_ids]
    if not rules or any(rule.action in HARD_ACTIONS for rule in rules):
        return verdict
    quote = settling_words(
        sides=sides,
        passage_text=verification.passage.text,
        categories=sorted({rule.category for rule in rules}),
        playbook=compiled.playbook,
    )
    if quote is None or sides.counterparty is None:
        return verdict
    rationale = (
        f"The clause binds only {sides.counterparty.term} and so protects "
        f"{sides.client.term}, our client: “{quote}”"
    )
    return replace(
        verdict,
        outcome=PassageState.CONFIRMED,
        rationale=rationale,
        quote=quote,
        redline="",
        reason=PROTECTS_CLIENT,
    )
