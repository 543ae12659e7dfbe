"""Every 401/403 answer of a page or the API is an audit event."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponseBase

from reviewapp.audit.recorders import audit_access_denial

DENIED = frozenset({401, 403})


def client_ip(meta: dict) -> str | None:
    return meta.get("REMOTE_ADDR") or None


class AuditDeniedMiddleware:
    """Last in MIDDLEWARE, so it also sees refusals made by middleware above it (CSRF)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if response.status_code in DENIED:
            audit_access_denial(
                user=getattr(request, "user", None),
                ip=client_ip(request.META),
                method=request.method or "",
                path=request.path,
                status=response.status_code,
            )
        return response
