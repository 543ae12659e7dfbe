"""The passage state machine, in one table (see DESIGN.md, "state register")."""

from __future__ import annotations

from reviewapp.contracts.models import PassageState as S
from reviewapp.reviews.models import ActorKind as A

# The flow that may raise a flag: the L1 draft naming a passage no rule flagged.
DRAFT_FLOW = "draft"
# The flow that takes back a lawyer's own decision, within QUEUE_UNDO_WINDOW_S of making it.
UNDO_FLOW = "undo"
# A lawyer reopening a flag the second-stage check dropped (reviews.reopen).
REOPEN_FLOW = "reopen"
# A lawyer flagging a clause the review missed (queue.flags): the design's second backward move.
FLAG_FLOW = "flag"

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
    # The backward moves that add a flag, never clear one: the model's draft names a passage
    # (reviews.model_flags), or a lawyer flags a clause the review missed (queue.flags, the
    # flag flow of CONFIRMED -> NEEDS_HUMAN_REVIEW below).
    (S.CONFIRMED, S.PENDING): frozenset({A.MODEL}),
    # A lawyer's undo: not a step back in the review, but a new recorded move that returns
    # the passage to the state the lawyer found it in (see ONLY_IN_FLOW and queue.decisions);
    # a lawyer reopening a flag the check dropped; a lawyer flagging a missed clause.
    (S.CONFIRMED, S.NEEDS_HUMAN_REVIEW): frozenset({A.USER}),
    (S.REJECTED, S.NEEDS_HUMAN_REVIEW): frozenset({A.USER}),
    (S.CONFIRMED, S.REJECTED): frozenset({A.USER}),
}

# Moves that only one flow may make, whoever the actor: a verifier's result is a model's
# too, and must never reopen a passage; a lawyer reopens a passage only by undoing their own
# decision within the window, by reopening a flag the second-stage check dropped, or by flagging
# a clause the review missed.
ONLY_IN_FLOW: dict[tuple[str | None, str], frozenset[str]] = {
    (S.CONFIRMED, S.PENDING): frozenset({DRAFT_FLOW}),
    (S.CONFIRMED, S.NEEDS_HUMAN_REVIEW): frozenset({UNDO_FLOW, REOPEN_FLOW, FLAG_FLOW}),
    (S.REJECTED, S.NEEDS_HUMAN_REVIEW): frozenset({UNDO_FLOW}),
    (S.CONFIRMED, S.REJECTED): frozenset({UNDO_FLOW}),
}

# Overriding a rejection needs a written justification.
NEEDS_JUSTIFICATION = frozenset({(S.REJECTED, S.CONFIRMED)})


class TransitionNotAllowed(Exception):
    pass


class JustificationMissing(TransitionNotAllowed):
    """Accepting a passage that a rule or a model rejected, without saying why."""


def justification_check(from_state: str | None, to_state: str, note: str) -> None:
    """The one place the override rule is checked: the decision, a bulk decision and a
    changed note all ask here."""
    if (from_state, to_state) in NEEDS_JUSTIFICATION and not note.strip():
        raise JustificationMissing("Overriding a rejected passage needs a written justification.")


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
    if only_in is not None and flow not in only_in:
        raise TransitionNotAllowed(
            f"Only the {' or '.join(sorted(only_in))} may move a passage from {from_state} "
            f"to {to_state}."
        )
    if flow != UNDO_FLOW:
        justification_check(from_state, to_state, reason)
