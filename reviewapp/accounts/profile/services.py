"""Saving a person's own settings."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from reviewapp.accounts.models import Profile
from reviewapp.accounts.profile.selectors import time_zone_names
from reviewapp.audit.recorders import audit_time_zone_set


class ProfileChangeRefused(ValueError):
    """A setting that cannot be saved; the message says why, to the person."""


@transaction.atomic
def profile_time_zone_set(*, user: Any, time_zone: str) -> Profile:
    """Show ``user``'s due times in ``time_zone``, an IANA name ("Asia/Shanghai"); "" goes back
    to UTC with the browser's clock. A name the tz database does not know is refused. A change
    is audited; saving the same choice again is not."""
    time_zone = time_zone.strip()
    if time_zone and time_zone not in time_zone_names():
        message = _("“%(name)s” is not a time zone name (for example Europe/London).")
        raise ProfileChangeRefused(message % {"name": time_zone[:64]})
    profile, _created = Profile.objects.select_for_update().get_or_create(user=user)
    previous = profile.time_zone
    if time_zone != previous:
        profile.time_zone = time_zone
        profile.save(update_fields=["time_zone"])
        audit_time_zone_set(user=user, time_zone=time_zone, previous=previous)
    return profile
