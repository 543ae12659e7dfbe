"""Hooks that end live sockets (sign-out, revoked credentials, a lost membership); no business
rule lives here."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.signals import user_logged_out
from django.db.models.signals import post_delete
from django.dispatch import receiver

from reviewapp.accounts.models import Membership
from reviewapp.accounts.revocation import credentials_revoked
from reviewapp.realtime.events import sockets_close_for_user


@receiver(user_logged_out)
def _close_sockets_on_logout(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    if user is not None:
        sockets_close_for_user(user_id=user.pk, signed_out=True)


@receiver(credentials_revoked)
def _close_sockets_on_revoked_credentials(sender: Any, user_id: int, **kwargs: Any) -> None:
    sockets_close_for_user(user_id=user_id, signed_out=True)


@receiver(post_delete, sender=Membership)
def _close_sockets_on_lost_membership(sender: Any, instance: Membership, **kwargs: Any) -> None:
    sockets_close_for_user(user_id=instance.user_id, signed_out=False)
