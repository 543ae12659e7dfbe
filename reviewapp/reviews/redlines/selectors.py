"""Reads of redlines, scoped to the user's matters."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from reviewapp.accounts.models import Role
from reviewapp.accounts.selectors import AnyUser, matter_list_for_user, membership_role
from reviewapp.audit.models import AuditEvent
from reviewapp.reviews.redlines.models import Redline, RedlineStatus

EDITORS = (Role.LAWYER, Role.ADMIN)


def user_may_edit_redlines(*, user: AnyUser, matter_id: int) -> bool:
    """Lawyers (and admins) of the matter write redlines; reviewers read them."""
    return membership_role(user=user, matter_id=matter_id) in EDITORS


def redlines_for_review(*, review_id: int) -> QuerySet[Redline]:
    return Redline.objects.filter(review_id=review_id).select_related(
        "passage", "author", "accepted_by"
    )


def redline_get_for_user(*, user: AnyUser, redline_id: int) -> Redline | None:
    return (
        Redline.objects.filter(
            pk=redline_id, review__contract__matter__in=matter_list_for_user(user=user)
        )
        .select_related("review__contract", "passage", "author", "accepted_by")
        .first()
    )


def accepted_redlines(*, review_id: int) -> list[Redline]:
    return list(redlines_for_review(review_id=review_id).filter(status=RedlineStatus.ACCEPTED))


def redline_history(*, redline: Redline) -> list[dict[str, Any]]:
    """The redline's audit events, oldest first: who did what, when, and the status it left."""
    events = AuditEvent.objects.filter(target_type="redline", target_id=str(redline.pk)).order_by(
        "created_at", "seq"
    )
    return [
        {
            "action": event.action,
            "actor": event.actor,
            "at": event.created_at.isoformat(),
            "status": event.data.get("status", ""),
        }
        for event in events
    ]
