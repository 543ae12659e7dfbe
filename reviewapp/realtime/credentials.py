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

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.sessions.backends.base import SessionBase
from django.utils import timezone
from django.utils.crypto import constant_time_compare

from reviewapp.realtime.batched import BatchedCheck

# (user id, session key, the password's session auth hash the session was made with)
Key = tuple[int, str | None, str | None]


def _stored_sessions(keys: set[str]) -> set[str]:
    store_class: type[SessionBase] = import_module(settings.SESSION_ENGINE).SessionStore
    model = getattr(store_class, "get_model_class", None)
    if model is None:  # cache or cookie sessions: each store reads its own
        return {key for key in keys if store_class(session_key=key).load()}
    # Database sessions (also cached_db, past its cache): the stored row is the truth. Not
    # decoded: the key is random, so the row with it is the session the socket was opened with.
    rows = model().objects.filter(session_key__in=keys, expire_date__gt=timezone.now())
    return set(rows.values_list("session_key", flat=True))


def _signed_in(keys: list[Key]) -> set[Key]:
    user_model = get_user_model()
    passwords = dict(
        user_model._default_manager.filter(
            pk__in={user_id for user_id, _, _ in keys}, is_active=True
        ).values_list("pk", "password")
    )
    sessions = _stored_sessions({key for _, key, _ in keys if key})
    current = {
        pk: user_model(pk=pk, password=pw).get_session_auth_hash() for pk, pw in passwords.items()
    }
    valid = set()
    for user_id, session_key, session_hash in keys:
        if user_id not in current:
            continue
        if session_key is None or (
            session_key in sessions and constant_time_compare(session_hash or "", current[user_id])
        ):
            valid.add((user_id, session_key, session_hash))
    return valid


_signed_in_check = BatchedCheck(_signed_in)


async def socket_signed_in(
    *, user_id: int, session_key: str | None, session_hash: str | None
) -> bool:
    """Whether the user is active, the session still stored and made under the password the
    user has now (``session_hash``: the session's HASH_SESSION_KEY), read from the database now.

    ``session_key`` None (a consumer mounted without Channels' session middleware) checks the
    user alone.
    """
    return await _signed_in_check((user_id, session_key, session_hash))
