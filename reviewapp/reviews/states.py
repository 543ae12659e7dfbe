"""The passage state machine, in one table (see DESIGN.md, "state register")."""

from __future__ import annotations

from reviewapp.contracts.models import PassageState as S
from reviewapp.reviews.models import ActorKind as A

# (from, to) -> actors allowed to make that move. A passage only moves forward; the model
# (or offline engine) never clears what a rule rejected; only a lawyer settles the rest.
TRANSITIONS: dict[tuple[str | None, str], frozenset[str]] = {
    (None, S.CONFIRMED): frozenset({A.RULE}),
    (None, S.PENDING): frozenset({A.RULE}),
    (None, S.REJECTED): frozenset({A.RULE}),
    (S.PENDING, S.CONFIRMED): frozenset({A.MODEL, A.ENGINE}),
    (S.PENDING, S.REJECTED): frozenset({A.MODEL, A.ENGINE}),
    (S.PENDING, S.NEEDS_HUMAN_REVIEW): frozenset({A.MODEL, A.ENGINE, A.SYSTEM}),
    (S.NEEDS_HUMAN_REVIEW, S.CONFIRMED): frozenset({A.USER}),
    (S.NEEDS_HUMAN_REVIEW, S.REJECTED): frozenset({A.USER}),
    (S.REJECTED, S.CONFIRMED): frozenset({A.USER}),
}

# Overriding a rejection needs a written justification.
NEEDS_JUSTIFICATION = frozenset({(S.REJECTED, S.CONFIRMED)})


class TransitionNotAllowed(Exception):
    pass


def check_transition(from_state: str | None, to_state: str, actor_kind: str, reason: str) -> None:
    allowed = TRANSITIONS.get((from_state, to_state))
    if allowed is None:
        raise TransitionNotAllowed(f"A passage cannot move from {from_state} to {to_state}.")
    if actor_kind not in allowed:
        raise TransitionNotAllowed(
            f"A {actor_kind} may not move a passage from {from_state} to {to_state}."
        )
    if (from_state, to_state) in NEEDS_JUSTIFICATION and not reason.strip():
        raise TransitionNotAllowed("Overriding a rejected passage needs a written justification.")
