"""The lawyers' queue: open an item for every passage a lawyer must decide, claim, decide."""

from __future__ import annotations

import re
from datetime import timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.core.mail import send_mail
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from reviewapp.accounts.models import Membership, Role
from reviewapp.audit.models import AuditAction
from reviewapp.audit.recorders import audit_queue_event, sha256_text
from reviewapp.contracts.models import Passage, PassageState
from reviewapp.queue.models import (
    Decision,
    HistoryAction,
    ItemStatus,
    QueueComment,
    QueueHistory,
    QueueItem,
)
from reviewapp.realtime.events import event_publish, user_notice_push
from reviewapp.reviews.models import ActorKind, Review, RuleFiring
from reviewapp.rules.services import playbook_compiled

SEVERITY_RANK = {"critical": 0, "high": 1, "medium": 2, "low": 3}
DECIDERS = (Role.LAWYER, Role.ADMIN)


class QueueConflict(Exception):
    """The item is not in a state that allows this (claimed by someone else, already decided)."""


class CommentInvalid(QueueConflict):
    """An empty comment, or an @mention of someone who is not a lawyer of the matter."""


# `@name` not preceded by a word character, so e-mail addresses in a comment are not mentions.
MENTION = re.compile(r"(?<![\w@.+-])@([\w.@+-]+)")
COMMENT_MAX_CHARS = 5000


def queue_item_open(*, passage: Passage, review: Review, reason: str = "") -> QueueItem:
    """Called inside the transaction that moved the passage to NEEDS_HUMAN_REVIEW or REJECTED."""
    existing = QueueItem.objects.filter(passage=passage).exclude(status=ItemStatus.DONE).first()
    if existing is not None:
        return existing
    routes = playbook_compiled(review.playbook_version).routes
    severities = [
        severity
        for rule_id, severity in RuleFiring.objects.filter(passage=passage).values_list(
            "rule_id", "severity"
        )
        if routes(rule_id)  # a secondary rule's category does not make an item more urgent
    ]
    severity = min(severities, key=lambda s: SEVERITY_RANK.get(s, 9), default="medium")
    item = QueueItem.objects.create(
        passage=passage,
        review=review,
        matter_id=review.contract.matter_id,
        state=passage.state or "",
        severity=severity,
        reason=reason[:300],
        due_at=timezone.now() + timedelta(hours=settings.QUEUE_SLA_HOURS[severity]),
    )
    queue_history_add(item=item, actor=None, action=HistoryAction.OPENED, detail=reason)
    _publish(item, "queue.item.opened")
    return item


def queue_item_claim(*, item_id: int, user: Any) -> QueueItem:
    """Exactly one lawyer wins: a conditional update that must change exactly one row."""
    item = QueueItem.objects.select_related("passage").get(pk=item_id)
    _check_decider(user, item)
    with transaction.atomic():
        changed = QueueItem.objects.filter(pk=item_id, status=ItemStatus.OPEN).update(
            status=ItemStatus.CLAIMED, claimed_by=user, claimed_at=timezone.now()
        )
        if changed != 1:
            raise QueueConflict("Someone else has already claimed this item.")
        item.refresh_from_db()
        queue_history_add(item=item, actor=user, action=HistoryAction.CLAIMED)
        _publish(item, "queue.item.claimed")
    return item


def queue_item_decide(*, item_id: int, user: Any, decision: str, note: str = "") -> QueueItem:
    """Accept (CONFIRMED) or reject (REJECTED) the passage; overriding a rejection needs a note."""
    from reviewapp.reviews.services import passage_transition, review_refresh_status

    if decision not in Decision.values:
        raise QueueConflict("Choose accept or reject.")
    with transaction.atomic():
        item = QueueItem.objects.select_for_update().select_related("passage").get(pk=item_id)
        _check_decider(user, item)
        if item.status != ItemStatus.CLAIMED or item.claimed_by_id != user.pk:
            raise QueueConflict("Claim the item before deciding it.")
        target = PassageState.CONFIRMED if decision == Decision.ACCEPT else PassageState.REJECTED
        if item.passage.state != target:
            passage_transition(
                passage_id=item.passage_id,
                to_state=target,
                actor_kind=ActorKind.USER,
                actor=user.get_username(),
                reason=note,
            )
        item.status = ItemStatus.DONE
        item.decision = decision
        item.note = note
        item.decided_by = user
        item.decided_at = timezone.now()
        item.save()
        queue_history_add(item=item, actor=user, action=HistoryAction.DECIDED, detail=decision)
        review_refresh_status(review=Review.objects.get(pk=item.review_id))
        _publish(item, "queue.item.decided")
    return item


def queue_item_note_edit(*, item_id: int, user: Any, note: str) -> QueueItem:
    """The lawyer who decided an item changes its note; an override keeps a justification."""
    with transaction.atomic():
        item = QueueItem.objects.select_for_update().select_related("passage").get(pk=item_id)
        _check_decider(user, item)
        if item.status != ItemStatus.DONE or item.decided_by_id != user.pk:
            raise QueueConflict(_("Only the lawyer who decided this item can change its note."))
        if (
            item.decision == Decision.ACCEPT
            and item.state == PassageState.REJECTED
            and not note.strip()
        ):
            raise QueueConflict(
                _(
                    "Accepting a rejected passage needs a written justification: "
                    "the note cannot be empty."
                )
            )
        item.note = note
        item.save(update_fields=["note"])
        queue_history_add(item=item, actor=user, action=HistoryAction.NOTE_EDITED)
        _publish(item, "queue.item.note_edited")
    return item


def queue_history_add(
    *, item: QueueItem, actor: Any, action: str, detail: str = ""
) -> QueueHistory:
    """One line of the item's history, and the same as an audit event."""
    audited = _AUDITED[HistoryAction(action)]
    audit_queue_event(item=item, user=actor, action=audited, data=_audit_data(item, action))
    return QueueHistory.objects.create(item=item, actor=actor, action=action, detail=detail[:500])


_AUDITED = {
    HistoryAction.OPENED: AuditAction.QUEUE_OPENED,
    HistoryAction.CLAIMED: AuditAction.QUEUE_CLAIMED,
    HistoryAction.HANDED_OVER: AuditAction.QUEUE_HANDED_OVER,
    HistoryAction.MENTIONED: AuditAction.QUEUE_MENTIONED,
    HistoryAction.DECIDED: AuditAction.QUEUE_DECIDED,
    HistoryAction.NOTE_EDITED: AuditAction.QUEUE_NOTE_EDITED,
    HistoryAction.ESCALATED: AuditAction.QUEUE_ESCALATED,
}


def _audit_data(item: QueueItem, action: str) -> dict[str, Any]:
    data: dict[str, Any] = {"state": item.state, "severity": item.severity}
    if action in (HistoryAction.DECIDED, HistoryAction.NOTE_EDITED):
        data["decision"] = item.decision
        if item.decision == Decision.ACCEPT and item.state == PassageState.REJECTED:
            data["override"] = True
            data["justification"] = item.note  # the lawyer's words, not the contract's
    if action in (HistoryAction.HANDED_OVER, HistoryAction.MENTIONED, HistoryAction.CLAIMED):
        data["claimed_by"] = item.claimed_by.get_username() if item.claimed_by else None
    return data


def queue_comment_add(*, item: QueueItem, author: Any, body: str) -> QueueComment:
    """Comment on an item; every @mentioned colleague is handed the item (see hand-over)."""
    _check_decider(author, item)
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
    _check_decider(to_user, item)
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
            _publish(item, "queue.item.handed_over")
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
    from reviewapp.queue.tasks import mention_mail_send

    mention_mail_send.delay(item_id, from_user_id, to_user_id)


def queue_mention_mail_send(*, item_id: int, from_user_id: int, to_user_id: int) -> bool:
    """E-mail a colleague that they were mentioned (handed the item). False without an address."""
    item = QueueItem.objects.select_related("passage__contract", "claimed_by").get(pk=item_id)
    sender = get_user_model().objects.get(pk=from_user_id)
    recipient = get_user_model().objects.get(pk=to_user_id)
    if not recipient.email:
        return False
    contract = item.passage.contract
    claim = (
        "The item is now claimed by you."
        if item.claimed_by_id == recipient.pk
        else "The item is not claimed by you; claim it on the queue page to decide it."
    )
    send_mail(
        subject=f"{sender.get_username()} mentioned you: {contract.original_name} "
        f"#{item.passage.index}",
        message=(
            f"{sender.get_username()} mentioned you in a comment on a {item.severity} queue item "
            f"({contract.original_name}, passage #{item.passage.index}).\n{claim}\n\n"
            f"Open your queue: /queue/#item-{item.pk}"
        ),
        from_email=None,
        recipient_list=[recipient.email],
    )
    return True


def _check_decider(user: Any, item: QueueItem) -> None:
    allowed = Membership.objects.filter(
        user=user, matter_id=item.matter_id, role__in=DECIDERS
    ).exists()
    if not allowed:
        raise PermissionDenied("Only the matter's lawyers can claim and decide its items.")


def _publish(item: QueueItem, event_type: str) -> None:
    event_publish(
        matter_id=item.matter_id,
        type=event_type,
        payload={
            "item_id": item.pk,
            "contract_id": item.passage.contract_id,
            "passage": item.passage.index,
            "status": item.status,
            "severity": item.severity,
            "claimed_by": item.claimed_by.get_username() if item.claimed_by else None,
            "decision": item.decision or None,
            "note": item.note if item.status == ItemStatus.DONE else "",
            "due_at": item.due_at.isoformat(),
        },
    )


ESCALATED_SEVERITY = {"low": "medium", "medium": "high", "high": "critical", "critical": "critical"}


def queue_escalate_overdue() -> list[int]:
    """Overdue items: raise their priority once and tell the matter's admins by e-mail."""
    now = timezone.now()
    overdue = list(
        QueueItem.objects.filter(due_at__lt=now, escalated_at__isnull=True)
        .exclude(status=ItemStatus.DONE)
        .select_related("passage__contract")
    )
    for item in overdue:
        with transaction.atomic():
            changed = QueueItem.objects.filter(pk=item.pk, escalated_at__isnull=True).update(
                escalated_at=now, severity=ESCALATED_SEVERITY[item.severity]
            )
            if changed != 1:
                continue  # another beat run got there first
            item.refresh_from_db()
            queue_history_add(
                item=item, actor=None, action=HistoryAction.ESCALATED, detail=item.severity
            )
            _publish(item, "queue.item.escalated")
            transaction.on_commit(partial(_mail_admins, item))
    return [item.pk for item in overdue]


def _mail_admins(item: QueueItem) -> None:
    admins = Membership.objects.filter(matter_id=item.matter_id, role=Role.ADMIN)
    recipients = [m.user.email for m in admins.select_related("user") if m.user.email]
    if recipients:
        send_mail(
            subject=f"Overdue: {item.passage.contract.original_name} #{item.passage.index}",
            message=(
                f"A {item.severity} queue item was due at {item.due_at:%Y-%m-%d %H:%M} UTC and "
                f"is still {item.get_status_display().lower()}."
            ),
            from_email=None,
            recipient_list=recipients,
        )
