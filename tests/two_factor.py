"""Second factors in tests: an enrolled authenticator app and the codes it would show."""

from __future__ import annotations

import time
from base64 import b32decode
from typing import Any

from django_otp import DEVICE_ID_SESSION_KEY
from django_otp.oath import TOTP
from django_otp.plugins.otp_totp.models import TOTPDevice


def enrolled_device(user: Any) -> TOTPDevice:
    device = TOTPDevice.objects.filter(user=user, confirmed=True).first()
    return device or TOTPDevice.objects.create(user=user, name="Test app", confirmed=True)


def verify_session(client: Any, user: Any) -> TOTPDevice:
    """Mark the client's signed-in session as having passed its second factor, as
    ``django_otp.login`` does after a right code."""
    device = enrolled_device(user)
    session = client.session
    session[DEVICE_ID_SESSION_KEY] = device.persistent_id
    session.save()
    return device


def next_code(device: TOTPDevice) -> str:
    """A code the device accepts now: django-otp takes one step back or ahead of the clock, but
    never a step it accepted before, so a test that signs in twice gets a fresh one."""
    device.refresh_from_db()
    totp = TOTP(device.bin_key, device.step, device.t0, device.digits, device.drift)
    while device.last_t >= totp.t() + 1:
        time.sleep(0.5)
    step = max(totp.t(), device.last_t + 1)
    totp.time = device.t0 + step * device.step
    return f"{totp.token():0{device.digits}d}"


def wrong_code(device: TOTPDevice) -> str:
    right = {next_code(device)}
    totp = TOTP(device.bin_key, device.step, device.t0, device.digits, device.drift)
    for offset in (-1, 0, 1):
        totp.time = time.time() + offset * device.step
        right.add(f"{totp.token():0{device.digits}d}")
    return next(code for code in ("000000", "111111", "222222", "333333") if code not in right)


def code_from_secret(secret: str) -> str:
    """The code an authenticator app shows now for the base32 secret of the set-up page."""
    key = b32decode("".join(secret.split()))
    return f"{TOTP(key).token():06d}"
