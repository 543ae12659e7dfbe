"""What a reader chose for themselves, read for the pages that show it."""

from __future__ import annotations

import zoneinfo
from functools import cache
from typing import Any

from reviewapp.accounts.models import Profile

FIRM_TIME_ZONE = "UTC"  # due times without a choice: one clock for the whole firm


@cache
def time_zone_names() -> tuple[str, ...]:
    """The IANA names this server knows (its tz database), sorted: the only names accepted."""
    return tuple(sorted(zoneinfo.available_timezones()))


def time_zone_chosen(*, user: Any) -> str:
    """The reader's chosen IANA time zone, or "" for none (UTC, with the browser's clock)."""
    if not getattr(user, "is_authenticated", False):
        return ""
    chosen = Profile.objects.filter(user=user).values_list("time_zone", flat=True).first()
    return chosen if chosen in time_zone_names() else ""


def reader_time_zone(*, user: Any) -> str:
    """The zone the server writes the reader's due times in: their choice, else UTC."""
    return time_zone_chosen(user=user) or FIRM_TIME_ZONE
