from __future__ import annotations

from django.conf import settings
from django.db.models import Max
from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from reviewapp.realtime.models import Event


def last_event_seq(request: HttpRequest) -> dict[str, object]:
    """The sequence number a page's live client resumes from, and how often it reads what it
    may have missed while connected (a push lost while Redis was away)."""
    catch_up_ms = int(settings.LIVE_CATCH_UP_S * 1000)
    if not request.user.is_authenticated:
        return {"last_event_seq": 0, "live_catch_up_ms": catch_up_ms}
    # Read only if the page shows it: a page that read its own (before its data) shadows it.
    seq = SimpleLazyObject(lambda: Event.objects.aggregate(seq=Max("id"))["seq"] or 0)
    return {"last_event_seq": seq, "live_catch_up_ms": catch_up_ms}
