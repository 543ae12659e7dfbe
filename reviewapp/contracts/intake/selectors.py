from __future__ import annotations

from datetime import timedelta

from django.db.models import Q, QuerySet
from django.utils import timezone

from reviewapp.accounts.selectors import AnyUser, matter_list_for_user
from reviewapp.contracts.models import IntakeBatch, IntakeStatus

RECENT_DAYS = 7
SHOWN_BATCHES = 10


def intake_batch_get_for_user(*, user: AnyUser, batch_id: int) -> IntakeBatch | None:
    matters = matter_list_for_user(user=user)
    return IntakeBatch.objects.filter(matter__in=matters, pk=batch_id).first()


def intake_batches_shown(*, matter_id: int) -> QuerySet[IntakeBatch]:
    """The matter page's batches: any still receiving, and those of the last week."""
    since = timezone.now() - timedelta(days=RECENT_DAYS)
    recent = Q(created_at__gte=since) | Q(status=IntakeStatus.RECEIVING)
    return IntakeBatch.objects.filter(recent, matter_id=matter_id).order_by("-created_at", "-id")[
        :SHOWN_BATCHES
    ]
