"""A lawyer flags a clause the review missed ("flag this clause").

The passage becomes a queue item already claimed by that lawyer, asking about the category
they named, and recorded as a lawyer-raised flag (``QueueItem.raised_by``, ``queue.flagged`` in
the audit log, a ``PassageLabel`` with ``raised``: a positive example for retraining that a
re-run keeps). A CONFIRMED passage moves to NEEDS_HUMAN_REVIEW, actor the lawyer, reason
``LAWYER_FLAGGED``, in the ``flag`` flow of the state table (``reviews.states``): the second
backward move the design allows. A passage already with the lawyers (NEEDS_HUMAN_REVIEW or
REJECTED) does not move; its undecided item, if any, asks about the category too.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from reviewapp.contracts.models import Passage, PassageState
from reviewapp.queue.models import HistoryAction, ItemStatus, QueueItem
from reviewapp.queue.records import (
    QueueConflict,
    check_matter_decider,
    item_publish,
    queue_history_add,
)
from reviewapp.queue.severity import due_at
from reviewapp.reviews.lawyer_labels import categories_standing, passage_flag_record
from reviewapp.reviews.models import ActorKind, Review
from reviewapp.reviews.reasons import LAWYER_FLAGGED
from reviewapp.reviews.states import FLAG_FLOW
from reviewapp.reviews.transitions import (
    passage_move,
    passage_state_publish,
    review_refresh_status,
)
from reviewapp.rules.selectors import flaggable_categories
from reviewapp.rules.services import playbook_compiled
from reviewapp.text.engine.model import severity_rank

NOTE_MAX_CHARS = 5000


def passage_flag_raise(*, passage_id: int, user: Any, category: str, note: str = "") -> QueueItem:
    """Flag ``category`` on the passage for the lawyer (see the module docstring). Refused
    (QueueConflict) for a category not known here, one already standing on the passage, a
    passage still being checked, or one whose item a colleague holds; PermissionDenied for
    anyone but the matter's lawyers and admins."""
    category, note = category.strip(), note.strip()
    with transaction.atomic():
        passage = Passage.objects.select_for_update().select_related("contract").get(pk=passage_id)
        review = Review.objects.select_for_update().get(contract_id=passage.contract_id)
        item = _undecided_item(passage)
        _check_flag(passage, review, user, category, note, item)
        if passage.state == PassageState.CONFIRMED:
            passage_move(
                passage=passage,
                review=review,
                to_state=PassageState.NEEDS_HUMAN_REVIEW,
                actor_kind=ActorKind.USER,
                actor=user.get_username(),
                reason=LAWYER_FLAGGED,
                flow=FLAG_FLOW,
            )
        item = _flagged_item(passage, review, user, category, note, item)
        passage_flag_record(
            passage=passage,
            review=review,
            category=category,
            item_id=item.pk,
            user=user,
            note=note,
        )
        review_refresh_status(review=review)
        passage_state_publish(review=review, passage=passage)
        item_publish(item, "queue.item.claimed")
    return item


def _undecided_item(passage: Passage) -> QueueItem | None:
    return (
        QueueItem.objects.select_for_update()
        .filter(passage=passage)
        .exclude(status=ItemStatus.DONE)
        .first()
    )


def _check_flag(
    passage: Passage,
    review: Review,
    user: Any,
    category: str,
    note: str,
    item: QueueItem | None,
) -> None:
    check_matter_decider(user, passage.contract.matter_id)
    if category not in flaggable_categories(playbook_version=review.playbook_version):
        raise QueueConflict(_("Not a kind of clause this review knows: %(c)s.") % {"c": category})
    if len(note) > NOTE_MAX_CHARS:
        raise QueueConflict(_("A note can be at most %(n)d characters.") % {"n": NOTE_MAX_CHARS})
    standing = categories_standing(passage_ids=[passage.pk])[passage.pk]
    if category in standing or (item is not None and category in item.asked):
        raise QueueConflict(_("This passage is already flagged as that kind of clause."))
    if passage.state == PassageState.PENDING:
        raise QueueConflict(_("The passage is still being checked; flag it once that is done."))
    if item is not None and item.status == ItemStatus.CLAIMED and item.claimed_by_id != user.pk:
        raise QueueConflict(_("A colleague holds this passage's item; mention them on it."))


def _flagged_item(
    passage: Passage,
    review: Review,
    user: Any,
    category: str,
    note: str,
    item: QueueItem | None,
) -> QueueItem:
    now = timezone.now()
    if item is None:
        severity = _severity(review, category)
        item = QueueItem.objects.create(
            passage=passage,
            review=review,
            matter_id=passage.contract.matter_id,
            state=passage.state or "",
            severity=severity,
            category=category,
            categories=[category],
            reason=LAWYER_FLAGGED,
            due_at=due_at(now, severity),
            raised_by=user,
        )
    else:
        item.categories = [*item.asked, category]
        item.raised_by = user
    item.status, item.claimed_by, item.claimed_at = ItemStatus.CLAIMED, user, now
    item.save()
    queue_history_add(
        item=item,
        actor=user,
        action=HistoryAction.FLAGGED,
        detail=note,
        data={"category": category, "note": note, "claimed_by": user.get_username()},
    )
    return item


def _severity(review: Review, category: str) -> str:
    """The playbook's most severe rule of the category (a lawyer's flag is as urgent)."""
    compiled = playbook_compiled(review.playbook_version)
    severities = [rule.severity for rule in compiled.playbook.rules if rule.category == category]
    return min(severities, key=severity_rank, default="medium")
