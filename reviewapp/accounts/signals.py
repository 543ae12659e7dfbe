"""Framework hooks on the user model that end a user's sessions, tokens and sockets.

One place sees every path: the user's own save. A password counts as changed when
``set_password`` was called or the stored hash differs, except for Django's hash upgrade at
sign-in (same password, new hash, saved with ``update_fields=["password"]`` after Django clears
``_password``), and for the first password of a user who never signed in (nothing to end):
then the user's API tokens are bound to the new hash.
``QuerySet.update()`` sends no signal and is not seen here; what it changes is caught where
the credentials are used: Django's session check, the token's password fingerprint
(``tokens.py``) and the socket's check before each event (``realtime/credentials.py``).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.hashers import is_password_usable
from django.db.models.signals import post_save, pre_delete, pre_save
from django.dispatch import receiver
from rest_framework.authtoken.models import Token, TokenProxy

from reviewapp.accounts.revocation import RevocationReason, user_credentials_revoke
from reviewapp.accounts.tokens import token_fingerprint_record, user_tokens_rebind

_PENDING = "_clausewise_revocation"
_WATCHED = frozenset({"password", "is_active"})
_NEW_HASH = "new_hash"  # the hash changed, nothing ends: a hash upgrade or a first password


def _revocation_reason(user: Any, update_fields: frozenset[str] | None) -> str | None:
    if user.pk is None or (update_fields is not None and not update_fields & _WATCHED):
        return None
    stored = type(user)._default_manager.filter(pk=user.pk).values("password", "is_active")
    before = stored.first()
    if before is None:
        return None
    raw = getattr(user, "_password", None)  # set by set_password until the save ends
    hash_upgrade = raw is None and update_fields == frozenset({"password"})
    unset = not before["password"] or not is_password_usable(before["password"])
    first_password = unset and user.last_login is None
    changed = raw is not None or (before["password"] != user.password and not hash_upgrade)
    if changed and not first_password:
        return RevocationReason.PASSWORD_CHANGED
    if before["is_active"] and not user.is_active:
        return RevocationReason.DEACTIVATED
    if before["password"] != user.password:
        return _NEW_HASH
    return None


@receiver(pre_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="revocation-pre-save")
def _note_revocation(sender: Any, instance: Any, update_fields: Any = None, **kwargs: Any) -> None:
    fields = frozenset(update_fields) if update_fields is not None else None
    setattr(instance, _PENDING, _revocation_reason(instance, fields))


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="revocation-post-save")
def _revoke_after_save(sender: Any, instance: Any, created: bool, **kwargs: Any) -> None:
    reason = instance.__dict__.pop(_PENDING, None)
    if created or not reason:
        return
    if reason == _NEW_HASH:
        user_tokens_rebind(user=instance)
    else:
        user_credentials_revoke(user=instance, reason=reason)


@receiver(pre_delete, sender=settings.AUTH_USER_MODEL, dispatch_uid="revocation-pre-delete")
def _revoke_before_delete(sender: Any, instance: Any, **kwargs: Any) -> None:
    # Before the delete cascades: the audit event goes to the chains of the user's memberships.
    user_credentials_revoke(user=instance, reason=RevocationReason.DELETED)


@receiver(post_save, sender=Token, dispatch_uid="token-fingerprint")
@receiver(post_save, sender=TokenProxy, dispatch_uid="token-proxy-fingerprint")
def _fingerprint_new_token(sender: Any, instance: Token, created: bool, **kwargs: Any) -> None:
    # Every path that issues a token saves it: drf_create_token, Token.objects.create, and the
    # admin, which saves DRF's proxy model (a signal names the proxy, not Token).
    if created:
        token_fingerprint_record(token=instance)
