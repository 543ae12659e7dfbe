from __future__ import annotations

from django.db.models import QuerySet

from reviewapp.accounts.selectors import AnyUser, matter_list_for_user
from reviewapp.realtime.models import Event


def event_list_for_user(*, user: AnyUser, after: int, limit: int = 500) -> QuerySet[Event]:
    matters = matter_list_for_user(user=user).values("pk")
    return Event.objects.filter(matter_id__in=matters, pk__gt=after).order_by("pk")[:limit]
