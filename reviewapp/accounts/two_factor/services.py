"""Setting up, passing and resetting two-factor sign-in, and an organisation's requirement.

Wrong codes at sign-in go to django-axes through Django's ``user_login_failed`` signal, the way
a wrong password does, so ``AXES_FAILURE_LIMIT`` wrong codes lock the username and the address
out. Failures are cleared only by a complete sign-in: a right code, or a right password for a
user who needs no second factor (``AXES_RESET_ON_SUCCESS`` is off, see settings).
"""

from __future__ import annotations

import enum
from typing import Any

from axes.handlers.proxy import AxesProxyHandler
from django.contrib.auth.signals import user_login_failed
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import HttpRequest
from django_otp import login as otp_login
from django_otp import verify_token
from django_otp.plugins.otp_static.models import StaticDevice, StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

from reviewapp.accounts.models import Membership, Organisation, OrganisationMember, Role
from reviewapp.audit.models import AuditAction
from reviewapp.audit.recorders import audit_two_factor_event, audit_two_factor_policy

RECOVERY_CODE_COUNT = 10
APP_DEVICE_NAME = "Authenticator app"
RECOVERY_DEVICE_NAME = "Recovery codes"


class Verification(enum.Enum):
    PASSED = "passed"
    WRONG = "wrong"
    LOCKED_OUT = "locked_out"


def normalise_code(code: str) -> str:
    """What people type: spaces and dashes between groups, capitals from a printout."""
    return "".join(code.split()).replace("-", "").lower()[:32]


def two_factor_device_pending(*, user: Any) -> TOTPDevice:
    """The authenticator app being set up: the same secret until it is confirmed, so that a
    reload of the set-up page does not invalidate what the app already scanned."""
    device = TOTPDevice.objects.filter(user=user, confirmed=False).order_by("pk").first()
    return device or TOTPDevice.objects.create(user=user, name=APP_DEVICE_NAME, confirmed=False)


@transaction.atomic
def two_factor_enrol(*, request: HttpRequest, code: str) -> list[str] | None:
    """Confirm the pending authenticator app with a code from it.

    On success the session counts as verified, the user's recovery codes are replaced by
    ``RECOVERY_CODE_COUNT`` new ones, which are returned to be shown once, and it is audited.
    A wrong code returns None; it does not count towards the lockout (nothing is protected by
    the app yet), django-otp's throttle still applies.
    """
    user = request.user
    device = TOTPDevice.objects.select_for_update().filter(user=user, confirmed=False).first()
    if device is None or not device.verify_token(normalise_code(code)):
        return None
    TOTPDevice.objects.filter(user=user, confirmed=True).delete()
    device.confirmed = True
    device.save(update_fields=["confirmed"])
    codes = _recovery_codes_replace(user=user)
    otp_login(request, device)
    sign_in_failures_clear(request=request, user=user)
    audit_two_factor_event(
        user=user, action=AuditAction.TWO_FACTOR_ENROLLED, by=user, data={"ip": _ip(request)}
    )
    return codes


def _recovery_codes_replace(*, user: Any) -> list[str]:
    StaticDevice.objects.filter(user=user).delete()
    device = StaticDevice.objects.create(user=user, name=RECOVERY_DEVICE_NAME, confirmed=True)
    codes: set[str] = set()
    while len(codes) < RECOVERY_CODE_COUNT:
        codes.add(StaticToken.random_token())
    StaticToken.objects.bulk_create(StaticToken(device=device, token=code) for code in codes)
    return sorted(codes)


def two_factor_verify(*, request: HttpRequest, code: str) -> Verification:
    """Check a code from the authenticator app (digits) or a recovery code (used up by it).

    A right code marks the session verified and clears the sign-in failures. A wrong one is a
    failed sign-in for django-axes; at ``AXES_FAILURE_LIMIT`` (or already locked out) the
    answer is LOCKED_OUT and the caller signs the session out.
    """
    user = request.user
    credentials = {"username": user.get_username()}
    if not AxesProxyHandler.is_allowed(request, credentials):
        return Verification.LOCKED_OUT
    code = normalise_code(code)
    method = "totp" if code.isdigit() else "recovery"
    device = _device_matching(user=user, code=code, method=method)
    data: dict[str, Any] = {"ip": _ip(request), "method": method}
    if device is None:
        user_login_failed.send(
            sender=__name__, credentials={**credentials, "second_factor": True}, request=request
        )
        locked = bool(getattr(request, "axes_locked_out", False))
        data["locked_out"] = locked
        audit_two_factor_event(user=user, action=AuditAction.TWO_FACTOR_FAILED, by=user, data=data)
        return Verification.LOCKED_OUT if locked else Verification.WRONG
    otp_login(request, device)
    sign_in_failures_clear(request=request, user=user)
    if method == "recovery":
        data["recovery_codes_left"] = StaticToken.objects.filter(device__user=user).count()
    audit_two_factor_event(user=user, action=AuditAction.TWO_FACTOR_VERIFIED, by=user, data=data)
    return Verification.PASSED


def _device_matching(*, user: Any, code: str, method: str) -> Any:
    model = TOTPDevice if method == "totp" else StaticDevice
    for device in model.objects.filter(user=user, confirmed=True):
        # django-otp's verify_token locks the device row and applies its throttle; a TOTP code
        # is accepted once, a recovery code is deleted by its use.
        verified = verify_token(user, device.persistent_id, code)
        if verified is not None:
            return verified
    return None


def sign_in_failures_clear(*, request: HttpRequest, user: Any) -> None:
    """A complete sign-in: what ``AXES_RESET_ON_SUCCESS`` did (the username's failures and the
    address's) before sign-in had a second step."""
    AxesProxyHandler.update_request(request)
    AxesProxyHandler.reset_attempts(username=user.get_username())
    if request.axes_ip_address:  # type: ignore[attr-defined]
        AxesProxyHandler.reset_attempts(ip_address=request.axes_ip_address)  # type: ignore[attr-defined]


def _ip(request: HttpRequest) -> str | None:
    return request.META.get("REMOTE_ADDR") or None


@transaction.atomic
def two_factor_reset(*, user: Any, by: Any) -> int:
    """Remove the user's authenticator app and recovery codes (a lost phone): at their next page
    a session of theirs is no longer verified, and they set it up again if they must.

    ``by`` is a site admin, or an admin of an organisation the user belongs to (not themselves);
    None is a site operator's command. Returns how many devices were removed; audited.
    """
    if by is not None:
        _require_reset_permission(user=user, by=by)
    removed = TOTPDevice.objects.filter(user=user).delete()[1].get("otp_totp.TOTPDevice", 0)
    StaticDevice.objects.filter(user=user).delete()
    audit_two_factor_event(
        user=user, action=AuditAction.TWO_FACTOR_RESET, by=by, data={"devices_removed": removed}
    )
    return removed


def _require_reset_permission(*, user: Any, by: Any) -> None:
    if getattr(by, "is_superuser", False):
        return
    administered = Membership.objects.filter(user=by, role=Role.ADMIN).values(
        "matter__organisation"
    )
    shares = (
        OrganisationMember.objects.filter(user=user, organisation__in=administered).exists()
        or Membership.objects.filter(user=user, matter__organisation__in=administered).exists()
    )
    if by.pk == user.pk or not shares:
        raise PermissionDenied("Only an admin of the person's organisation can reset it.")


@transaction.atomic
def organisation_two_factor_set(*, organisation: Organisation, required: bool, by: Any) -> bool:
    """Ask (or stop asking) a second factor of every person of the organisation; ``by`` is its
    admin. Returns whether anything changed; a change is audited."""
    administers = Membership.objects.filter(
        user=by, role=Role.ADMIN, matter__organisation=organisation
    ).exists()
    if not administers:
        raise PermissionDenied("Only an admin of the organisation can do this.")
    changed = (
        Organisation.objects.filter(pk=organisation.pk)
        .exclude(require_two_factor=required)
        .update(require_two_factor=required)
    )
    if changed:
        audit_two_factor_policy(organisation_id=organisation.pk, required=required, by=by)
    return bool(changed)
