"""The passage state machine, in one table (see DESIGN.md, "state register")."""

from __future__ import annotations

from reviewapp.contracts.models import PassageState as S
from reviewapp.reviews.models import ActorKind as A

# The flow that may raise a flag: the L1 draft naming a passage no rule flagged.
DRAFT_FLOW = "draft"

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
    # The one backward move: the model adds a flag (reviews.model_flags), never clears one.
    (S.CONFIRMED, S.PENDING): frozenset({A.MODEL}),
}

# Moves that only one flow may make, whoever the actor: a verifier's result is a model's
# too, and must never reopen a passage.
ONLY_IN_FLOW: dict[tuple[str | None, str], str] = {(S.CONFIRMED, S.PENDING): DRAFT_FLOW}

# Overriding a rejection needs a written justification.
NEEDS_JUSTIFICATION = frozenset({(S.REJECTED, S.CONFIRMED)})


class TransitionNotAllowed(Exception):
    pass


def check_transition(
    from_state: str | None, to_state: str, actor_kind: str, reason: str, *, flow: str = ""
) -> None:
    allowed = TRANSITIONS.get((from_state, to_state))
    if allowed is None:
        raise TransitionNotAllowed(f"A passage cannot move from {from_state} to {to_state}.")
    if actor_kind not in allowed:
        raise TransitionNotAllowed(
            f"A {actor_kind} may not move a passage from {from_state} to {to_state}."
        )
    only_in = ONLY_IN_FLOW.get((from_state, to_state))
    if only_in is not None and flow != only_in:
        raise TransitionNotAllowed(
            f"Only the {only_in} may move a passage from {from_state} to {to_state}."
        )
    if (from_state, to_state) in NEEDS_JUSTIFICATION and not reason.strip():
        raise TransitionNotAllowed("Overriding a rejected passage needs a written justification.")
