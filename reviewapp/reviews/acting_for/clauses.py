"""What a lawyer reads of a flagged clause for the side we act for: whom it binds, and what the
playbook makes of a clause that only protects the client (a lower severity, or settled)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reviewapp.reviews.acting_for.selectors import Sides
from reviewapp.text.engine.model import Playbook
from reviewapp.text.engine.side import (
    Direction,
    obligation_direction,
    passage_policy,
    protecting_words,
    severity_for_side,
)
from reviewapp.text.facts.parties import Party


@dataclass(frozen=True)
class ClauseSide:
    """``direction`` None: the wording does not plainly bind one side. ``severity`` is the
    severity for our side when the playbook lowers it (blank: as flagged); ``policy`` is the
    playbook's for a clause that only protects the client, over the categories standing on it
    (``passage_policy``)."""

    client: Party
    direction: Direction | None
    severity: str = ""
    policy: str = "lawyer"


def clause_side(
    *,
    sides: Sides | None,
    passage_text: str,
    categories: Sequence[str],
    severity: str,
    playbook: Playbook,
) -> ClauseSide | None:
    """None until a party is chosen. ``severity`` is the item's as its rules flagged it."""
    if sides is None:
        return None
    direction = obligation_direction(
        passage_text,
        client_role=sides.client.term,
        counterparty_role=sides.counterparty.term if sides.counterparty else None,
    )
    policy = passage_policy(playbook, categories)
    lowered = severity_for_side(severity, direction=direction, policy=policy)
    return ClauseSide(
        client=sides.client,
        direction=direction,
        severity=lowered if lowered != severity else "",
        policy=policy,
    )


def severity_for_our_side(
    *,
    sides: Sides | None,
    passage_text: str,
    categories: Sequence[str],
    severity: str,
    playbook: Playbook,
) -> str:
    """The severity a queue item opens with: ``severity`` one step lower when the clause only
    protects the client and the playbook says ``lower`` for its categories; else as flagged."""
    side = clause_side(
        sides=sides,
        passage_text=passage_text,
        categories=categories,
        severity=severity,
        playbook=playbook,
    )
    return side.severity if side and side.severity else severity


def settling_words(
    *, sides: Sides | None, passage_text: str, categories: Sequence[str], playbook: Playbook
) -> str | None:
    """The passage's words showing that the clause only protects the client, when the playbook
    settles such clauses for every category standing on it; None otherwise (no party chosen,
    no counterparty, a direction that is not plain, or a category a lawyer must see)."""
    if sides is None or sides.counterparty is None or not categories:
        return None
    if passage_policy(playbook, categories) != "settle":
        return None
    return protecting_words(
        passage_text, client_role=sides.client.term, counterparty_role=sides.counterparty.term
    )
