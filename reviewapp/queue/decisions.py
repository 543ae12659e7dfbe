"""The one decision flow: a lawyer's claim, decision (of one item or many) and undo.

A decision answers each category the item asks about: the clause is there and acceptable
(``accept``), there and not acceptable (``reject``), or not this kind of clause (``not_this``,
a false flag). One-click decisions (and bulk ones) give every unanswered category the same
answer; ``queue_item_answer`` answers categories one by one, and the item is decided once every
category is. Then the passage moves: REJECTED if any category is not acceptable, else CONFIRMED
(with the reason ``FALSE_FLAG`` when every category was a false flag), and each answer becomes
the lawyer's label on that (passage, category) (``reviews.lawyer_labels``).

Each of these owns, in one transaction, everything a decision changes: the passage's move
through the state machine (``reviews.services.passage_move``), the queue items, the review's
status (computed once, after every item is settled, so ``review.status`` is published once
per change) and the live events. The queue sits above reviews and calls down; reviews hand
work up only through the hand-off registered in ``QueueConfig.ready``.

Undo and "a passage only moves forward": an undo is not a step back in the record. It is a
new, audited move (``UNDO_FLOW`` in ``reviews.states``), allowed only to the lawyer who
decided, within ``QUEUE_UNDO_WINDOW_S`` of deciding, and only while the passage is still
where that decision left it. It returns the passage to the state the lawyer found it in and
the item to that lawyer's claim; the decision, the undo and both moves stay in the history.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from reviewapp.accounts.models import Membership, Role
from reviewapp.contracts.models import PassageState
from reviewapp.queue.models import Decision, HistoryAction, ItemStatus, QueueItem
from reviewapp.queue.records import (
    DECIDERS,
    QueueConflict,
    check_decider,
    is_override,
    item_publish,
    queue_history_add,
)
from reviewapp.reviews.lawyer_labels import passage_labels_record, passage_labels_withdraw
from reviewapp.reviews.models import ActorKind, Review
from reviewapp.reviews.reasons import FALSE_FLAG
from reviewapp.reviews.states import (
    UNDO_FLOW,
    JustificationMissing,
    justification_check,
)
from reviewapp.reviews.transitions import (
    passage_move,
    passage_state_publish,
    review_refresh_status,
)

TARGET = {
    Decision.ACCEPT: PassageState.CONFIRMED,
    Decision.REJECT: PassageState.REJECTED,
    Decision.NOT_THIS: PassageState.CONFIRMED,
}
BULK_MAX_ITEMS = 500


@dataclass
class DecisionPreview:
    """What a decision of these items would change, for the confirmation."""

    items: int = 0
    passages_changing: int = 0
    overrides: int = 0
    to_claim: int = 0
    refused: list[int] = field(default_factory=list)  # claimed by someone else, or decided


@dataclass
class DecisionResult:
    items: list[QueueItem]
    passages_changed: int


def queue_item_claim(*, item_id: int, user: Any) -> QueueItem:
    """Exactly one lawyer wins: a conditional update that must change exactly one row."""
    item = QueueItem.objects.select_related("passage").get(pk=item_id)
    check_decider(user, item)
    with transaction.atomic():
        if not _claim(item, user):
            raise QueueConflict(_("Someone else has already claimed this item."))
        item_publish(item, "queue.item.claimed")
    return item


def queue_item_release(*, item_id: int, user: Any) -> QueueItem:
    """Give a claim back: the lawyer who holds it, or an admin of the matter, opens the item
    again for everyone (its answers so far go with the claim; the history keeps them)."""
    item = QueueItem.objects.select_related("passage", "claimed_by").get(pk=item_id)
    check_decider(user, item)
    holder = item.claimed_by
    if item.status != ItemStatus.CLAIMED or holder is None:
        raise QueueConflict(_("This item is not claimed."))
    if holder.pk != user.pk and not _is_admin(user, item):
        raise PermissionDenied(
            _("Only the lawyer who claimed this item, or an admin of the matter, can release it.")
        )
    with transaction.atomic():
        released = QueueItem.objects.filter(
            pk=item.pk, status=ItemStatus.CLAIMED, claimed_by=holder
        ).update(status=ItemStatus.OPEN, claimed_by=None, claimed_at=None, decisions={})
        if released != 1:
            raise QueueConflict(_("The claim has changed meanwhile; nothing was released."))
        item.refresh_from_db()
        detail = (
            f"{user.get_username()} released the claim."
            if holder.pk == user.pk
            else f"{user.get_username()} released the claim of {holder.get_username()}."
        )
        queue_history_add(
            item=item,
            actor=user,
            action=HistoryAction.RELEASED,
            detail=detail,
            data={"released_from": holder.get_username()},
        )
        item_publish(item, "queue.item.released")
    return item


def _is_admin(user: Any, item: QueueItem) -> bool:
    return Membership.objects.filter(user=user, matter_id=item.matter_id, role=Role.ADMIN).exists()


def queue_items_claim(*, item_ids: Iterable[int], user: Any) -> list[QueueItem]:
    """Claim every open item of a selection; items someone else holds are left alone.
    Returns the items this lawyer won."""
    items = _items(item_ids)
    _check_deciders(user, items)
    won = []
    with transaction.atomic():
        for item in items:
            if item.status == ItemStatus.OPEN and _claim(item, user):
                item_publish(item, "queue.item.claimed")
                won.append(item)
    return won


def _claim(item: QueueItem, user: Any) -> bool:
    changed = QueueItem.objects.filter(pk=item.pk, status=ItemStatus.OPEN).update(
        status=ItemStatus.CLAIMED, claimed_by=user, claimed_at=timezone.now()
    )
    if changed != 1:
        return False
    item.refresh_from_db(fields=["status", "claimed_by", "claimed_at"])
    queue_history_add(item=item, actor=user, action=HistoryAction.CLAIMED)
    return True


def queue_item_decide(*, item_id: int, user: Any, decision: str, note: str = "") -> QueueItem:
    """Decide one item the lawyer has claimed: every unanswered category gets ``decision``.
    Accepting a rejected passage (or calling it a false flag) needs a written note."""
    result = queue_items_decide(
        item_ids=[item_id], user=user, decision=decision, note=note, claim_open=False
    )
    return result.items[0]


def queue_item_answer(
    *, item_id: int, user: Any, decisions: Mapping[str, str], note: str = ""
) -> QueueItem:
    """Answer some or all of the categories of an item the lawyer has claimed; once every
    category is answered the item is decided (as ``queue_items_decide`` decides)."""
    answers = _checked_answers(decisions)
    with transaction.atomic():
        item = _items([item_id], lock=True)[0]
        check_decider(user, item)
        if not _decidable_by(item, user, claim_open=False):
            raise QueueConflict(_refusal(1, 1))
        unknown = sorted(set(answers) - set(item.asked))
        if unknown or (not item.asked and answers):
            raise QueueConflict(
                _("This item does not ask about: %(categories)s.")
                % {"categories": ", ".join(unknown or sorted(answers))}
            )
        item.decisions = {**item.decisions, **answers}
        if _unanswered(item):
            item.note = note or item.note
            item.save(update_fields=["decisions", "note"])
            detail = ", ".join(f"{c}: {d}" for c, d in sorted(answers.items()))
            queue_history_add(item=item, actor=user, action=HistoryAction.ANSWERED, detail=detail)
            item_publish(item, "queue.item.answered")
            return item
        target = TARGET[Decision(_outcome(item.decisions))]
        _check_justification([item], target, note)
        moved = [item] if _settle(item, user, "", target, note) else []
        _after_decision({item.review_id: item.review}, moved)
        item_publish(item, "queue.item.decided")
    return item


def _checked_answers(decisions: Mapping[str, str]) -> dict[str, str]:
    if not decisions:
        raise QueueConflict(_("Answer at least one category."))
    wrong = [d for d in decisions.values() if d not in Decision.values]
    if wrong:
        raise QueueConflict(_("Choose whether the clause is acceptable or not."))
    return {str(category): str(decision) for category, decision in decisions.items()}


def _unanswered(item: QueueItem) -> list[str]:
    return [category for category in item.asked if category not in item.decisions]


def _answers_with(item: QueueItem, decision: str) -> dict[str, str]:
    """The item's answers once ``decision`` answers every category still open."""
    return {**item.decisions, **dict.fromkeys(_unanswered(item), decision)}


def _outcome(answers: Mapping[str, str]) -> str:
    """The item's decision from its answers: not acceptable if any category is, else
    acceptable if any is there, else (every category a false flag) not this."""
    values = set(answers.values())
    for decision in (Decision.REJECT, Decision.ACCEPT):
        if decision in values:
            return decision
    return Decision.NOT_THIS


def _item_target(item: QueueItem, decision: str) -> str:
    answers = _answers_with(item, decision)
    return TARGET[Decision(_outcome(answers) if answers else decision)]


def queue_decision_preview(*, item_ids: Iterable[int], user: Any, decision: str) -> DecisionPreview:
    """How many passages a decision of this selection would change (nothing is written)."""
    _target(decision)
    items = _items(item_ids)
    _check_deciders(user, items)
    preview = DecisionPreview(items=len(items))
    for item in items:
        if not _decidable_by(item, user, claim_open=True):
            preview.refused.append(item.pk)
            continue
        target = _item_target(item, decision)
        preview.to_claim += item.status == ItemStatus.OPEN
        preview.passages_changing += item.passage.state != target
        preview.overrides += _overrides(item, target)
    return preview


def _overrides(item: QueueItem, target: str) -> bool:
    return target == PassageState.CONFIRMED and item.passage.state == PassageState.REJECTED


def queue_items_decide(
    *, item_ids: Iterable[int], user: Any, decision: str, note: str = "", claim_open: bool = True
) -> DecisionResult:
    """Decide a selection with one note, all or nothing. Open items are claimed on the way
    (each claim recorded) when ``claim_open``; an item held by someone else, or already
    decided, refuses the whole decision."""
    _target(decision)
    with transaction.atomic():
        items = _items(item_ids, lock=True)
        _check_deciders(user, items)
        refused = [item for item in items if not _decidable_by(item, user, claim_open=claim_open)]
        if refused:
            raise QueueConflict(_refusal(len(refused), len(items)))
        targets = {item.pk: _item_target(item, decision) for item in items}
        overrides = sum(_overrides(item, targets[item.pk]) for item in items)
        if overrides:
            _justified(PassageState.REJECTED, note, count=overrides)
        moved = [item for item in items if _settle(item, user, decision, targets[item.pk], note)]
        reviews = {item.review_id: item.review for item in items}
        _after_decision(reviews, moved)
        for item in items:
            item_publish(item, "queue.item.decided")
    return DecisionResult(items=items, passages_changed=len(moved))


def _settle(item: QueueItem, user: Any, decision: str, target: str, note: str) -> bool:
    """Claim if open, answer the categories still open with ``decision`` ("" when every one
    is answered), move the passage if the decision changes it, record the lawyer's labels and
    close the item."""
    if item.status == ItemStatus.OPEN and not _claim(item, user):
        raise QueueConflict(_("Someone else has already claimed this item."))
    item.decisions = _answers_with(item, decision) if decision else dict(item.decisions)
    outcome = _outcome(item.decisions) if item.decisions else decision
    moved = item.passage.state != target
    if moved:
        passage_move(
            passage=item.passage,
            review=item.review,
            to_state=target,
            actor_kind=ActorKind.USER,
            actor=user.get_username(),
            reason=note if note.strip() or outcome != Decision.NOT_THIS else FALSE_FLAG,
        )
    passage_labels_record(
        passage=item.passage,
        review=item.review,
        answers=item.decisions,
        item_id=item.pk,
        user=user,
        note=note,
    )
    item.status = ItemStatus.DONE
    item.decision = outcome
    item.note = note
    item.decided_by = user
    item.decided_at = timezone.now()
    item.save()
    queue_history_add(
        item=item,
        actor=user,
        action=HistoryAction.DECIDED,
        detail=_decided_detail(item),
    )
    return moved


def _decided_detail(item: QueueItem) -> str:
    if len(item.decisions) < 2:
        return item.decision
    return ", ".join(f"{c}: {d}" for c, d in sorted(item.decisions.items()))


def _after_decision(reviews: dict[int, Review], moved: list[QueueItem]) -> None:
    """Status once per review, after every item is settled; then each moved passage's event."""
    for review in reviews.values():
        review_refresh_status(review=review)
    for item in moved:
        passage_state_publish(review=reviews[item.review_id], passage=item.passage)


def queue_item_undo(*, item_id: int, user: Any) -> QueueItem:
    """Take back one's own decision within the window: the passage returns to the state the
    lawyer found it in, the item to their claim (see the module docstring)."""
    with transaction.atomic():
        item = _items([item_id], lock=True)[0]
        check_decider(user, item)
        _check_undoable(item, user)
        moved = item.passage.state != item.state
        if moved:
            passage_move(
                passage=item.passage,
                review=item.review,
                to_state=item.state,
                actor_kind=ActorKind.USER,
                actor=user.get_username(),
                reason=f"undo of the decision on queue item {item.pk}",
                flow=UNDO_FLOW,
            )
        queue_history_add(item=item, actor=user, action=HistoryAction.UNDONE, detail=item.decision)
        passage_labels_withdraw(item_id=item.pk)
        item.status = ItemStatus.CLAIMED
        item.claimed_by, item.claimed_at = user, timezone.now()
        item.decision, item.decided_by, item.decided_at = "", None, None
        item.decisions = {}
        item.save()  # the note stays, so the lawyer can decide again without retyping it
        _after_decision({item.review_id: item.review}, [item] if moved else [])
        item_publish(item, "queue.item.undone")
    return item


def undo_deadline(item: QueueItem) -> Any:
    """Until when the lawyer who decided the item may undo it (None: not undoable)."""
    if item.status != ItemStatus.DONE or item.decided_at is None:
        return None
    return item.decided_at + timedelta(seconds=settings.QUEUE_UNDO_WINDOW_S)


def _check_undoable(item: QueueItem, user: Any) -> None:
    if item.status != ItemStatus.DONE or item.decided_by_id != user.pk:
        raise QueueConflict(_("Only the lawyer who decided this item can undo the decision."))
    deadline = undo_deadline(item)
    if deadline is None or timezone.now() > deadline:
        raise QueueConflict(
            _("The time to undo this decision has passed; change its note instead.")
        )
    reopened = QueueItem.objects.filter(passage_id=item.passage_id).exclude(status=ItemStatus.DONE)
    if item.passage.state != TARGET[Decision(item.decision)] or reopened.exists():
        raise QueueConflict(_("The passage has moved on since this decision; it cannot be undone."))


def queue_item_note_edit(*, item_id: int, user: Any, note: str) -> QueueItem:
    """The lawyer who decided an item changes its note; an override keeps a justification."""
    with transaction.atomic():
        item = QueueItem.objects.select_for_update().select_related("passage").get(pk=item_id)
        check_decider(user, item)
        if item.status != ItemStatus.DONE or item.decided_by_id != user.pk:
            raise QueueConflict(_("Only the lawyer who decided this item can change its note."))
        if is_override(item):
            _justified(PassageState.REJECTED, note, count=1)
        item.note = note
        item.save(update_fields=["note"])
        queue_history_add(item=item, actor=user, action=HistoryAction.NOTE_EDITED)
        item_publish(item, "queue.item.note_edited")
    return item


def _target(decision: str) -> str:
    if decision not in Decision.values:
        raise QueueConflict(_("Choose whether the clause is acceptable or not."))
    return TARGET[Decision(decision)]


def _items(item_ids: Iterable[int], *, lock: bool = False) -> list[QueueItem]:
    ids = sorted({int(pk) for pk in item_ids})
    if not ids:
        raise QueueConflict(_("Select at least one item."))
    if len(ids) > BULK_MAX_ITEMS:
        raise QueueConflict(_("Select at most %(n)d items at a time.") % {"n": BULK_MAX_ITEMS})
    query = QueueItem.objects.filter(pk__in=ids).select_related("passage", "review", "matter")
    if lock:  # rows in id order, so two decisions of overlapping selections cannot deadlock
        query = query.select_for_update(of=("self", "passage", "review"))
    items = list(query.order_by("pk"))
    if len(items) != len(ids):
        raise QueueItem.DoesNotExist(_("Some of these items no longer exist."))
    return items


def _check_deciders(user: Any, items: list[QueueItem]) -> None:
    """One query for the whole selection: the user decides in every matter it touches."""
    matters = {item.matter_id for item in items}
    allowed = set(
        Membership.objects.filter(user=user, matter_id__in=matters, role__in=DECIDERS).values_list(
            "matter_id", flat=True
        )
    )
    if matters - allowed:
        check_decider(user, next(i for i in items if i.matter_id not in allowed))


def _decidable_by(item: QueueItem, user: Any, *, claim_open: bool) -> bool:
    return (claim_open and item.status == ItemStatus.OPEN) or (
        item.status == ItemStatus.CLAIMED and item.claimed_by_id == user.pk
    )


def _refusal(refused: int, total: int) -> str:
    if total == 1:
        return _("Claim the item before deciding it.")
    return ngettext(
        "%(n)d of the selected items is claimed by someone else or already decided; "
        "nothing was decided.",
        "%(n)d of the selected items are claimed by someone else or already decided; "
        "nothing was decided.",
        refused,
    ) % {"n": refused}


def _check_justification(items: list[QueueItem], target: str, note: str) -> None:
    overrides = sum(_overrides(item, target) for item in items)
    if overrides:
        _justified(PassageState.REJECTED, note, count=overrides)


def _justified(from_state: str, note: str, *, count: int) -> None:
    """The override rule is the state machine's (``justification_check``); here only its
    message is said in the lawyer's language."""
    try:
        justification_check(from_state, PassageState.CONFIRMED, note)
    except JustificationMissing:
        raise QueueConflict(
            ngettext(
                "Accepting a clause that was rejected needs a written justification: "
                "write it in the note.",
                "%(n)d of these clauses were rejected: accepting them needs a written "
                "justification in the note.",
                count,
            )
            % {"n": count}
        ) from None
