"""Ending everything a user is signed in with: sessions, API tokens and live sockets.

A password change, a deactivation or the removal of a user ends all of them at once, whichever
path made the change (Django's password change, the admin, ``changepassword``, a shell): the
user model's save and delete signals call ``user_credentials_revoke`` (see ``signals.py``).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib.sessions.backends.base import SessionBase
from django.db import transaction
from django.dispatch import Signal
from django.utils import timezone
from rest_framework.authtoken.models import Token

from reviewapp.audit.models import AuditAction, AuditActorKind
from reviewapp.audit.recorders import user_chains
from reviewapp.audit.services import audit_record

# Sent inside the revocation's transaction with ``user_id``: the realtime app closes the user's
# live sockets on it once the transaction commits (accounts sits below realtime).
credentials_revoked = Signal()


class RevocationReason:
    PASSWORD_CHANGED = "password_changed"
    DEACTIVATED = "deactivated"
    DELETED = "deleted"


def user_credentials_revoke(*, user: Any, reason: str) -> dict[str, int]:
    """Delete the user's sessions and API tokens, close their sockets, and audit it.

    Returns how many sessions and tokens were deleted. The sockets close once the surrounding
    transaction commits; a new token can be created afterwards as usual.
    """
    with transaction.atomic():
        counts = {
            "sessions": _sessions_delete(user_id=user.pk),
            "tokens": Token.objects.filter(user_id=user.pk).delete()[1].get(Token._meta.label, 0),
        }
        credentials_revoked.send(sender=RevocationReason, user_id=user.pk)
        for organisation_id in user_chains(user):
            audit_record(
                organisation_id=organisation_id,
                action=AuditAction.SESSIONS_REVOKED,
                actor_kind=AuditActorKind.SYSTEM,
                actor="system",
                target_type="user",
                target_id=user.pk,
                data={"reason": reason, **counts},
            )
    return counts


def _sessions_delete(*, user_id: int) -> int:
    """Delete the user's stored sessions; a session names its user only in its encoded data."""
    store_class: type[SessionBase] = import_module(settings.SESSION_ENGINE).SessionStore
    model = getattr(store_class, "get_model_class", None)
    if model is None:  # cookie or cache sessions: the session auth hash check still ends them
        return 0
    wanted = str(user_id)
    keys = [
        session.session_key
        for session in model().objects.filter(expire_date__gt=timezone.now()).iterator()
        if str(session.get_decoded().get("_auth_user_id")) == wanted
    ]
    for key in keys:
        store_class(session_key=key).delete()  # also drops a cached_db session's cache entry
    return len(keys)
