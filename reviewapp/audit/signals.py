"""Sign-ins, sign-outs and failed sign-ins, from Django's auth signals, to the audit log; and
the first audit checkpoint after a `migrate` (connected in AuditConfig.ready)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.signals import user_logged_in, user_logged_out, user_login_failed
from django.db import DEFAULT_DB_ALIAS, connections
from django.dispatch import receiver

from reviewapp.audit.checkpoints import audit_checkpoint_first
from reviewapp.audit.middleware import client_ip
from reviewapp.audit.models import AuditChain, AuditEvent
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


def first_checkpoint_after_migrate(
    sender: Any,
    using: str = DEFAULT_DB_ALIAS,
    plan: list[Any] | None = None,
    verbosity: int = 1,
    stdout: Any = None,
    **kwargs: Any,
) -> None:
    """A `migrate` forwards (not `flush`, which passes no plan) writes the first checkpoint
    when AUDIT_CHECKPOINT_DIR holds none."""
    if using != DEFAULT_DB_ALIAS or plan is None or any(backwards for _, backwards in plan):
        return
    tables = connections[using].introspection.table_names()
    if AuditEvent._meta.db_table not in tables or AuditChain._meta.db_table not in tables:
        return
    path = audit_checkpoint_first()
    if path is not None and verbosity >= 1 and stdout is not None:
        stdout.write(f"  First audit checkpoint written: {path}")
