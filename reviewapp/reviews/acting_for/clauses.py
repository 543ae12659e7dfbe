"""What a lawyer reads of a flagged clause for the side we act for: whom it binds, and the
severity the playbook gives a clause that only protects the client."""

from __future__ import annotations

from dataclasses import dataclass

from reviewapp.reviews.acting_for.selectors import Sides
from reviewapp.rules.engine.model import Playbook
from reviewapp.rules.engine.side import (
    Direction,
    obligation_direction,
    protects_client_policy,
    severity_for_side,
)
from reviewapp.rules.facts.parties import Party


@dataclass(frozen=True)
class ClauseSide:
    """``direction`` None: the wording does not plainly bind one side. ``severity`` is the
    severity for our side when the playbook lowers it (blank: as flagged); ``policy`` is the
    playbook's for a clause that only protects the client (``settle`` is for the state machine
    to act on: see ``protects_client_policy``)."""

    client: Party
    direction: Direction | None
    severity: str = ""
    policy: str = "lawyer"


def clause_side(
    *, sides: Sides | None, passage_text: str, category: str, severity: str, playbook: Playbook
) -> ClauseSide | None:
    """None until a party is chosen."""
    if sides is None:
        return None
    direction = obligation_direction(
        passage_text,
        client_role=sides.client.term,
        counterparty_role=sides.counterparty.term if sides.counterparty else None,
    )
    policy = protects_client_policy(playbook, category)
    lowered = severity_for_side(severity, direction=direction, policy=policy)
    return ClauseSide(
        client=sides.client,
        direction=direction,
        severity=lowered if lowered != severity else "",
        policy=policy,
    )
