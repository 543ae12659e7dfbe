"""API tokens that end with the password they were issued under, and with the user's activity.

A password change or deactivation saved through the model deletes the user's tokens
(``revocation.py``), but ``QuerySet.update()`` sends no signal. So each token keeps a
fingerprint of the password hash it was issued under (an HMAC keyed with SECRET_KEY, never the
hash itself) and is refused once the user's password no longer matches it; DRF's token class
already refuses inactive users. Rotating SECRET_KEY ends every token, as it ends every session.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ObjectDoesNotExist
from django.utils.crypto import constant_time_compare, salted_hmac
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token

from reviewapp.accounts.models import TokenFingerprint

_SALT = "clausewise.accounts.tokens.password"


def password_fingerprint(password_hash: str) -> str:
    """The keyed fingerprint of a stored password hash (frozen in migration 0005)."""
    return salted_hmac(_SALT, password_hash, algorithm="sha256").hexdigest()


def token_fingerprint_record(*, token: Token) -> TokenFingerprint:
    """Bind a newly issued token to its user's password as stored now (``token.user`` may be
    an instance read before the password last changed)."""
    users = get_user_model()._default_manager.filter(pk=token.user_id)
    stored = users.values_list("password", flat=True).get()
    fingerprint, _created = TokenFingerprint.objects.update_or_create(
        token=token, defaults={"password": password_fingerprint(stored)}
    )
    return fingerprint


def user_tokens_rebind(*, user: Any) -> int:
    """Bind the user's tokens to the password hash they have now: for a new hash of the same
    password (Django's upgrade at sign-in) or a first password, which end nothing."""
    fingerprint = password_fingerprint(user.password)
    return TokenFingerprint.objects.filter(token__user_id=user.pk).update(password=fingerprint)


class PasswordBoundTokenAuthentication(TokenAuthentication):
    """``Authorization: Token <key>``, refused once the password changed since it was issued."""

    def authenticate_credentials(self, key: str) -> tuple[Any, Token]:
        try:
            token = Token.objects.select_related("user", "fingerprint").get(key=key)
        except Token.DoesNotExist:
            raise exceptions.AuthenticationFailed(_("Invalid token.")) from None
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        try:
            issued_under = token.fingerprint.password
        except ObjectDoesNotExist:  # issued by a path that bypassed the fingerprint (bulk_create)
            issued_under = ""
        if not constant_time_compare(issued_under, password_fingerprint(token.user.password)):
            raise exceptions.AuthenticationFailed(
                _("This token was issued before the password changed: create a new one.")
            )
        return token.user, token
