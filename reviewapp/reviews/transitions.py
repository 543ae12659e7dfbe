"""How a passage moves after the scan, and what follows a move: the review's status (one rule,
``review_status_of``), the live events, and the hand-off of a passage that needs a lawyer.

Reviews sit below the queue (STYLE.md, "Apps depend in one direction"): nothing here imports
it. A passage that needs a lawyer is announced through the hand-off the queue registers when
Django starts (``review_handoff_register``), and a lawyer's decision is one flow owned by the
queue (``reviewapp.queue.decisions``) that calls ``passage_move`` and ``review_refresh_status``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple, Protocol

from django.core.exceptions import ImproperlyConfigured
from django.db import transaction
from django.utils import timezone

from reviewapp.audit.recorders import audit_passage_transitions
from reviewapp.contracts.models import Passage, PassageState
from reviewapp.realtime.events import event_publish, events_publish
from reviewapp.reviews.models import PassageTransition, Review, ReviewStatus, RuleFiring
from reviewapp.reviews.snapshot import snapshot_refresh
from reviewapp.reviews.states import check_transition


class Handoff(Protocol):
    """Takes passages of one review that need a lawyer, each with its reason, at once."""

    def __call__(self, *, review: Review, openings: Sequence[tuple[Passage, str]]) -> object: ...


_handoffs: list[Handoff] = []


def review_handoff_register(handoff: Handoff) -> None:
    """The app that gives lawyers their work (the queue) says how a passage reaches them."""
    if handoff not in _handoffs:
        _handoffs.append(handoff)


def hand_to_lawyers(passage: Passage, review: Review, reason: str) -> None:
    hand_many_to_lawyers(review, [(passage, reason)])


def hand_many_to_lawyers(review: Review, openings: Sequence[tuple[Passage, str]]) -> None:
    """Hand passages of one review (each with its reason) to the lawyers in one go."""
    if not _handoffs:
        raise ImproperlyConfigured(
            "No app takes passages that need a lawyer: is reviewapp.queue installed?"
        )
    if openings:
        for handoff in _handoffs:
            handoff(review=review, openings=openings)


# The queue's "decided" status, read through the passage's reverse relation (no import).
DECIDED_ITEM = "DONE"


def review_status_of(*, states: Iterable[str | None], undecided_rejection: bool) -> str:
    """The one rule for a review's status: BLOCKED while a rejected passage waits for a
    lawyer, IN_REVIEW while anything is pending or needs a lawyer, else COMPLETE."""
    if undecided_rejection:
        return ReviewStatus.BLOCKED
    if set(states) & {PassageState.PENDING, PassageState.NEEDS_HUMAN_REVIEW}:
        return ReviewStatus.IN_REVIEW
    return ReviewStatus.COMPLETE


def review_refresh_status(*, review: Review) -> Review:
    """Store the review's status (``review_status_of``) and publish ``review.status`` once,
    only when it changed; rebuild the state snapshot once the transaction commits (every
    caller has just moved passages). A rejected passage counts as decided when it has a
    decided queue item and no open one."""
    passages = Passage.objects.filter(contract_id=review.contract_id)
    rejected = passages.filter(state=PassageState.REJECTED)
    undecided_rejection = (
        rejected.exclude(queue_items__status=DECIDED_ITEM).exists()
        or rejected.filter(queue_items__isnull=False)
        .exclude(queue_items__status=DECIDED_ITEM)
        .exists()
    )
    status = review_status_of(
        states=passages.values_list("state", flat=True).distinct(),
        undecided_rejection=undecided_rejection,
    )
    transaction.on_commit(lambda: snapshot_refresh(review))
    if status != review.status:
        review.status = status
        review.completed_at = timezone.now() if status == ReviewStatus.COMPLETE else None
        review.save(update_fields=["status", "completed_at", "updated_at"])
        event_publish(
            matter_id=review.contract.matter_id,
            type="review.status",
            payload={"contract_id": review.contract_id, "review_id": review.pk, "status": status},
        )
    return review


class Move(NamedTuple):
    """One passage's move in ``passages_transition``."""

    passage_id: int
    to_state: str
    reason: str = ""


def passage_transition(
    *, passage_id: int, to_state: str, actor_kind: str, actor: str, reason: str = ""
) -> Passage:
    """Move one passage along the state machine (a verifier's or the system's move), hand it
    to the lawyers if it needs one, and update its review's status."""
    (passage,) = passages_transition(
        moves=[Move(passage_id, to_state, reason)], actor_kind=actor_kind, actor=actor
    )
    return passage


def passages_transition(*, moves: Sequence[Move], actor_kind: str, actor: str) -> list[Passage]:
    """Move passages of one review, each as ``passage_transition`` would (checked, recorded,
    audited, handed to the lawyers if it needs one), then refresh the review's status once,
    publish each passage's state with it (the status refresh rebuilds the snapshot once, after
    the commit).
    A verification batch settles in one go: per passage, the status and the snapshot would
    each read the whole contract again."""
    if not moves:
        return []
    with transaction.atomic():
        locked = Passage.objects.select_for_update().filter(pk__in={m.passage_id for m in moves})
        passages = {p.pk: p for p in locked.order_by("pk")}  # one lock order: passages, review
        if len(passages) < len({m.passage_id for m in moves}):
            raise Passage.DoesNotExist("a passage to move is gone (its contract was deleted?)")
        (contract_id,) = {p.contract_id for p in passages.values()}
        review = Review.objects.select_for_update().get(contract_id=contract_id)
        moved = [passages[move.passage_id] for move in moves]
        passages_move(
            review=review,
            moves=[(passages[m.passage_id], m.to_state, m.reason) for m in moves],
            actor_kind=actor_kind,
            actor=actor,
        )
        hand_many_to_lawyers(
            review,
            [
                (passages[move.passage_id], move.reason)
                for move in moves
                if move.to_state in (PassageState.NEEDS_HUMAN_REVIEW, PassageState.REJECTED)
            ],
        )
        review_refresh_status(review=review)
        passages_state_publish(review=review, passages=moved)
    return moved


def passages_move(
    *,
    review: Review,
    moves: Sequence[tuple[Passage, str, str]],
    actor_kind: str,
    actor: str,
    flow: str = "",
) -> list[PassageTransition]:
    """``passage_move`` for locked passages of one review, each ``(passage, to_state, reason)``:
    every move checked against the state table first, then the transitions, the passages'
    states, their firings' copy of the state and the audit events written in one statement
    each (a check batch moves tens of passages)."""
    for passage, to_state, reason in moves:
        check_transition(passage.state, to_state, actor_kind, reason, flow=flow)
    transitions = PassageTransition.objects.bulk_create(
        PassageTransition(
            passage=passage,
            review=review,
            from_state=passage.state,
            to_state=to_state,
            actor_kind=actor_kind,
            actor=actor,
            reason=reason,
        )
        for passage, to_state, reason in moves
    )
    by_state: dict[str, list[int]] = {}
    for passage, to_state, _ in moves:
        passage.state = to_state
        by_state.setdefault(to_state, []).append(passage.pk)
    for to_state, ids in by_state.items():  # one UPDATE a state: a check batch has two or three
        Passage.objects.filter(pk__in=ids).update(state=to_state)
        RuleFiring.objects.filter(passage_id__in=ids).update(passage_state=to_state)
    audit_passage_transitions(transitions=transitions)
    return transitions


def passage_move(
    *,
    passage: Passage,
    review: Review,
    to_state: str,
    actor_kind: str,
    actor: str,
    reason: str = "",
    flow: str = "",
) -> PassageTransition:
    """Record one move of a locked passage (checked against the state table, audited) and
    nothing else: the caller decides when the review's status and the live events follow,
    so a decision of many passages publishes each of them once."""
    (transition,) = passages_move(
        review=review,
        moves=[(passage, to_state, reason)],
        actor_kind=actor_kind,
        actor=actor,
        flow=flow,
    )
    return transition


def passage_state_publish(*, review: Review, passage: Passage) -> None:
    """The live event of a passage's new state (and its review's), for open pages."""
    passages_state_publish(review=review, passages=[passage])


def passages_state_publish(*, review: Review, passages: Sequence[Passage]) -> None:
    """``passage_state_publish`` of several passages, stored in one insert."""
    events_publish(
        [
            {
                "matter_id": review.contract.matter_id,
                "type": "passage.state",
                "payload": {
                    "contract_id": passage.contract_id,
                    "review_id": review.pk,
                    "passage": passage.index,
                    "state": passage.state,
                    "review_status": review.status,
                },
            }
            for passage in passages
        ]
    )
