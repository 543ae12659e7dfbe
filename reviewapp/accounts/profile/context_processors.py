from __future__ import annotations

from django.http import HttpRequest

from reviewapp.accounts.profile.selectors import FIRM_TIME_ZONE, time_zone_chosen


def reader_time_zone(request: HttpRequest) -> dict[str, str]:
    """The zone due times are written in (``reader_time_zone``) and the reader's own choice
    (``time_zone_chosen``, "" for none: the page script then adds the browser's clock)."""
    chosen = time_zone_chosen(user=request.user)
    return {"reader_time_zone": chosen or FIRM_TIME_ZONE, "time_zone_chosen": chosen}
