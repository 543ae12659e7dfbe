from __future__ import annotations

from django.db.models import Max
from django.http import HttpRequest

from reviewapp.realtime.models import Event


def last_event_seq(request: HttpRequest) -> dict[str, int]:
    """The sequence number a page's live client resumes from."""
    if not request.user.is_authenticated:
        return {"last_event_seq": 0}
    return {"last_event_seq": Event.objects.aggregate(seq=Max("id"))["seq"] or 0}
