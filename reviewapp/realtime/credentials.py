"""Whether a socket's user is still signed in, read from the database, batched.

A deactivation, a password change or a sign-out closes the user's sockets through the channel
layer (``accounts/revocation.py``), which misses when Redis is away at that moment, and a row
changed with ``QuerySet.update()`` sends no signal at all. So each socket also asks, before it
delivers, whether its user is still active, its session still stored and unexpired, and the
session made under the current password (Django keeps the password's session auth hash in the
session). The checks that arrive together share one query per table (``batched.py``).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib.auth import HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.sessions.backends.base import SessionBase
from django.utils import timezone
from django.utils.crypto import constant_time_compare

from reviewapp.realtime.batched import BatchedCheck

Key = tuple[int, str | None]  # (user id, session key)


def _session_data(keys: set[str]) -> dict[str, dict[str, Any]]:
    store_class: type[SessionBase] = import_module(settings.SESSION_ENGINE).SessionStore
    model = getattr(store_class, "get_model_class", None)
    if model is None:  # cache or cookie sessions: each store reads its own
        return {key: store_class(session_key=key).load() for key in keys}
    # Database sessions (also cached_db, past its cache): the stored row is the truth.
    rows = model().objects.filter(session_key__in=keys, expire_date__gt=timezone.now())
    return {row.session_key: row.get_decoded() for row in rows}


def _signed_in(keys: list[Key]) -> set[Key]:
    users = {
        user.pk: user
        for user in get_user_model()
        ._default_manager.filter(pk__in={user_id for user_id, _ in keys}, is_active=True)
        .only("pk", "password")
    }
    sessions = _session_data({key for _, key in keys if key})
    valid = set()
    for user_id, session_key in keys:
        user = users.get(user_id)
        if user is None:
            continue
        data = sessions.get(session_key or "")
        if session_key is None or (
            data is not None
            and data.get(SESSION_KEY) == str(user_id)
            and constant_time_compare(data.get(HASH_SESSION_KEY, ""), user.get_session_auth_hash())
        ):
            valid.add((user_id, session_key))
    return valid


_signed_in_check = BatchedCheck(_signed_in)


async def socket_signed_in(*, user_id: int, session_key: str | None) -> bool:
    """Whether the user is active and this session still valid, read from the database now.

    ``session_key`` None (a consumer mounted without Channels' session middleware) checks the
    user alone.
    """
    return await _signed_in_check((user_id, session_key))
