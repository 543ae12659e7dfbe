"""Who must sign in with a second factor, and whether a session has passed it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Exists, OuterRef, Q
from django_otp import DEVICE_ID_SESSION_KEY
from django_otp.models import Device
from django_otp.plugins.otp_static.models import StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

from reviewapp.accounts.models import Membership, OrganisationMember, Role


def two_factor_required(*, user: Any) -> bool:
    """Site staff (Django admin), admins of an organisation's matters, and every person of an
    organisation that requires it."""
    return _any_rule(user, _required_rules())


def two_factor_enrolled(*, user: Any) -> bool:
    """The user has a confirmed authenticator app."""
    if not getattr(user, "is_authenticated", False):
        return False
    return TOTPDevice.objects.filter(user=user, confirmed=True).exists()


def two_factor_needed(*, user: Any) -> bool:
    """A code is asked at sign-in: the user must use a second factor or chose to. One query,
    since the middleware asks it on every page of a session not yet verified."""
    enrolled = Exists(TOTPDevice.objects.filter(user=OuterRef("pk"), confirmed=True))
    return _any_rule(user, [*_required_rules(), enrolled])


def _required_rules() -> list[Exists]:
    admin_or_required = Q(role=Role.ADMIN) | Q(matter__organisation__require_two_factor=True)
    return [
        Exists(Membership.objects.filter(admin_or_required, user=OuterRef("pk"))),
        Exists(
            OrganisationMember.objects.filter(
                user=OuterRef("pk"), organisation__require_two_factor=True
            )
        ),
    ]


def _any_rule(user: Any, rules: list[Exists]) -> bool:
    if not getattr(user, "is_authenticated", False):
        return False
    if user.is_staff or user.is_superuser:
        return True
    condition = Q()
    for rule in rules:
        condition |= Q(rule)
    return get_user_model().objects.filter(condition, pk=user.pk).exists()


def recovery_codes_left(*, user: Any) -> int:
    return StaticToken.objects.filter(device__user=user, device__confirmed=True).count()


def request_verified(*, request: Any) -> bool:
    """The request's session passed a second factor (django-otp's middleware tells)."""
    is_verified = getattr(request.user, "is_verified", None)
    return bool(is_verified and is_verified())


def session_passes_two_factor(*, user: Any, session: Mapping[str, Any]) -> bool:
    """The same answer as django-otp's middleware, for a session read elsewhere (a websocket):
    a user who needs no second factor passes; one who does, only with the session's verified
    device still theirs."""
    if not two_factor_needed(user=user):
        return True
    persistent_id = session.get(DEVICE_ID_SESSION_KEY)
    device = Device.from_persistent_id(persistent_id) if persistent_id else None
    return device is not None and device.user_id == user.pk and device.confirmed
