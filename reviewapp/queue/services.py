"""The lawyers' queue: open an item for every passage a lawyer must decide; comments,
@mentions and hand-overs. Claims, decisions and undo are one flow, in ``queue.decisions``
(re-exported here for the callers that knew them from this module)."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from functools import partial
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from reviewapp.accounts.models import Membership
from reviewapp.audit.models import AuditAction
from reviewapp.audit.recorders import audit_queue_event, sha256_text
from reviewapp.contracts.models import Passage
from reviewapp.queue.decisions import (
    queue_item_claim,
    queue_item_decide,
    queue_item_note_edit,
    queue_item_release,
    queue_item_undo,
    queue_items_claim,
    queue_items_decide,
)
from reviewapp.queue.escalation import queue_escalate_overdue
from reviewapp.queue.models import HistoryAction, ItemStatus, QueueComment, QueueItem
from reviewapp.queue.questions import item_questions
from reviewapp.queue.records import (
    DECIDERS,
    QueueConflict,
    check_decider,
    item_publish,
    items_publish,
    queue_histories_add,
    queue_history_add,
)
from reviewapp.queue.severity import due_at, item_severity
from reviewapp.realtime.events import event_publish, user_notice_push
from reviewapp.reviews.acting_for.selectors import acting_sides
from reviewapp.reviews.models import Review, RuleFiring
from reviewapp.rules.services import playbook_compiled
from reviewapp.tasks_by_name import task_named
from reviewapp.text.engine.model import SEVERITY_RANK

__all__ = [
    "DECIDERS",
    "SEVERITY_RANK",
    "CommentInvalid",
    "QueueConflict",
    "queue_comment_add",
    "queue_escalate_overdue",
    "queue_item_claim",
    "queue_item_decide",
    "queue_item_hand_over",
    "queue_item_note_edit",
    "queue_item_open",
    "queue_items_open",
    "queue_item_release",
    "queue_item_undo",
    "queue_items_claim",
    "queue_items_decide",
]


class CommentInvalid(QueueConflict):
    """An empty comment, or an @mention of someone who is not a lawyer of the matter."""


# `@name` not preceded by a word character, so e-mail addresses in a comment are not mentions.
MENTION = re.compile(r"(?<![\w@.+-])@([\w.@+-]+)")
COMMENT_MAX_CHARS = 5000


def queue_item_open(*, passage: Passage, review: Review, reason: str = "") -> QueueItem:
    """Called inside the transaction that moved the passage to NEEDS_HUMAN_REVIEW or REJECTED."""
    (item,) = queue_items_open(review=review, openings=[(passage, reason)])
    return item


def queue_items_open(*, review: Review, openings: Sequence[tuple[Passage, str]]) -> list[QueueItem]:
    """Open the items of passages of one review that a batch moved to NEEDS_HUMAN_REVIEW or
    REJECTED (each with its reason), inside that batch's transaction: a passage with an open
    item keeps it. The firings, the side the firm acts for, the history lines, the audit events
    and the live events are read and written once a batch, not once a passage."""
    passage_ids = [passage.pk for passage, _reason in openings]
    existing = {
        item.passage_id: item
        for item in QueueItem.objects.filter(passage_id__in=passage_ids)
        .exclude(status=ItemStatus.DONE)
        .select_related("passage", "claimed_by", "matter")
    }
    new = [(passage, reason) for passage, reason in openings if passage.pk not in existing]
    created = _items_create(review, new) if new else []
    by_passage = {**existing, **{item.passage_id: item for item in created}}
    return [by_passage[passage.pk] for passage, _reason in openings]


def _items_create(review: Review, openings: Sequence[tuple[Passage, str]]) -> list[QueueItem]:
    compiled = playbook_compiled(review.playbook_version)
    firings: dict[int, list[RuleFiring]] = defaultdict(list)
    for firing in RuleFiring.objects.filter(
        passage_id__in=[passage.pk for passage, _reason in openings]
    ):
        firings[firing.passage_id].append(firing)
    sides = acting_sides(review.contract)
    opened_at = timezone.now()
    items = []
    for passage, reason in openings:
        questions = item_questions(compiled, firings[passage.pk])
        severity = item_severity(
            compiled=compiled, firings=firings[passage.pk], passage_text=passage.text, sides=sides
        )
        items.append(
            QueueItem(
                passage=passage,
                review=review,
                matter_id=review.contract.matter_id,
                state=passage.state or "",
                severity=severity,
                category=questions[0]["category"] if questions else "",
                categories=[question["category"] for question in questions],
                reason=reason[:300],
                due_at=due_at(opened_at, severity),
            )
        )
    created = QueueItem.objects.bulk_create(items)
    queue_histories_add(
        items=created,
        action=HistoryAction.OPENED,
        details=[reason for _passage, reason in openings],
    )
    items_publish(created, "queue.item.opened")
    return created


def queue_comment_add(*, item: QueueItem, author: Any, body: str) -> QueueComment:
    """Comment on an item; every @mentioned colleague is handed the item (see hand-over)."""
    check_decider(author, item)
    body = body.strip()
    if not body:
        raise CommentInvalid(_("Write a comment first."))
    if len(body) > COMMENT_MAX_CHARS:
        raise CommentInvalid(
            _("A comment can be at most %(n)d characters.") % {"n": COMMENT_MAX_CHARS}
        )
    mentioned = _mentioned_users(item, body)
    with transaction.atomic():
        comment = QueueComment.objects.create(item=item, author=author, body=body)
        comment.mentions.set(mentioned)
        audit_queue_event(
            item=item,
            user=author,
            action=AuditAction.QUEUE_COMMENTED,
            data={
                "comment_id": comment.pk,
                "body_sha256": sha256_text(body),
                "mentions": [user.get_username() for user in mentioned],
            },
        )
        event_publish(
            matter_id=item.matter_id,
            type="queue.comment.added",
            payload={  # no body: the page fetches the item, which only its lawyers may read
                "item_id": item.pk,
                "comment_id": comment.pk,
                "author": author.get_username(),
                "mentions": [user.get_username() for user in mentioned],
            },
        )
        for colleague in mentioned:
            if colleague.pk != author.pk:
                queue_item_hand_over(
                    item=item, from_user=author, to_user=colleague, comment=comment
                )
    return comment


def queue_item_hand_over(
    *, item: QueueItem, from_user: Any, to_user: Any, comment: QueueComment | None = None
) -> bool:
    """Hand an item to a colleague: they are notified live and by e-mail, and if ``from_user``
    holds the claim it passes to them. Returns whether the claim moved."""
    check_decider(to_user, item)
    with transaction.atomic():
        moved = QueueItem.objects.filter(
            pk=item.pk, status=ItemStatus.CLAIMED, claimed_by=from_user
        ).update(claimed_by=to_user, claimed_at=timezone.now())
        item.refresh_from_db()
        names = {"from": from_user.get_username(), "to": to_user.get_username()}
        if moved:
            detail = "{from} handed the item over to {to}; the claim passed to {to}.".format(
                **names
            )
            action = HistoryAction.HANDED_OVER
        else:
            detail = "{from} mentioned {to}.".format(**names)
            action = HistoryAction.MENTIONED
        queue_history_add(item=item, actor=from_user, action=action, detail=detail)
        if moved:
            item_publish(item, "queue.item.handed_over")
        user_notice_push(
            user_id=to_user.pk,
            matter_id=item.matter_id,
            type="queue.mention",
            payload={
                "item_id": item.pk,
                "comment_id": comment.pk if comment else None,
                "by": names["from"],
                "claim_passed": bool(moved),
            },
        )
        transaction.on_commit(partial(_mail_mention, item.pk, from_user.pk, to_user.pk))
    return bool(moved)


def _mentioned_users(item: QueueItem, body: str) -> list[Any]:
    names = list(dict.fromkeys(name.rstrip(".") for name in MENTION.findall(body)))
    if not names:
        return []
    members = {
        m.user.get_username(): m.user
        for m in Membership.objects.filter(
            matter_id=item.matter_id, role__in=DECIDERS, user__username__in=names
        ).select_related("user")
    }
    unknown = [name for name in names if name not in members]
    if unknown:
        listed = ", ".join(f"@{name}" for name in unknown)
        raise CommentInvalid(
            _("Not a lawyer of this matter: %(names)s. Mention a lawyer or admin of the matter.")
            % {"names": listed}
        )
    return [members[name] for name in names]


def _mail_mention(item_id: int, from_user_id: int, to_user_id: int) -> None:
    task_named("reviewapp.queue.tasks.mention_mail_send").delay(item_id, from_user_id, to_user_id)
