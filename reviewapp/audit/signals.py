"""Sign-ins, sign-outs and failed sign-ins, from Django's auth signals, to the audit log."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.signals import user_logged_in, user_logged_out, user_login_failed
from django.dispatch import receiver

from reviewapp.audit.middleware import client_ip
from reviewapp.audit.recorders import audit_sign_in, audit_sign_in_failure


def _ip(request: Any) -> str | None:
    return client_ip(request.META) if request is not None else None


@receiver(user_logged_in, dispatch_uid="audit-signed-in")
def _signed_in(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    audit_sign_in(user=user, ip=_ip(request))


@receiver(user_logged_out, dispatch_uid="audit-signed-out")
def _signed_out(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    if user is not None:
        audit_sign_in(user=user, ip=_ip(request), signed_out=True)


@receiver(user_login_failed, dispatch_uid="audit-sign-in-failed")
def _sign_in_failed(
    sender: Any, credentials: dict[str, Any], request: Any = None, **kw: Any
) -> None:
    if credentials.get("second_factor"):  # a wrong code: accounts.two_factor audits it itself
        return
    audit_sign_in_failure(username=str(credentials.get("username") or ""), ip=_ip(request))
