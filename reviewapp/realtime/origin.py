"""The websocket's Origin check: scheme, host and port must match exactly.

Channels' ``AllowedHostsOriginValidator`` compares the host only, so a page on another port of
an allowed host (another local service, a dev server) could open a signed-in user's socket.
Here an Origin is accepted when it is the socket's own origin (scheme, and the ``Host`` header
that ``ALLOWED_HOSTS`` allows, as Django's CSRF check does) or one of
``WEBSOCKET_ALLOWED_ORIGINS``; default ports are spelled out before comparing.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from channels.auth import AuthMiddlewareStack
from channels.routing import URLRouter
from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.http.request import split_domain_port, validate_host

DEFAULT_PORTS = {"http": 80, "https": 443}


def origin_normalise(origin: str) -> str | None:
    """``scheme://host:port`` in lower case, or None when ``origin`` is not an http(s) origin."""
    try:
        parts = urlsplit(origin.strip().lower())
        port = parts.port or DEFAULT_PORTS.get(parts.scheme)
    except ValueError:
        return None
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname or parts.path not in ("", "/"):
        return None
    if parts.query or parts.fragment or parts.username or parts.password:
        return None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{parts.scheme}://{host}:{port}"


def allowed_origins_parse(origins: Iterable[str]) -> frozenset[str]:
    parsed = set()
    for origin in origins:
        normal = origin_normalise(origin)
        if normal is None:
            raise ImproperlyConfigured(
                f"WEBSOCKET_ALLOWED_ORIGINS: {origin!r} is not an origin like https://host:port"
            )
        parsed.add(normal)
    return frozenset(parsed)


class ExactOriginValidator:
    """ASGI middleware: refuses a websocket whose Origin is neither its own nor listed."""

    def __init__(self, application: Any, allowed_origins: Iterable[str]) -> None:
        self.application = application
        self.allowed_origins = allowed_origins_parse(allowed_origins)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope["type"] != "websocket":
            raise ValueError("ExactOriginValidator only guards websocket connections")
        if self.origin_allowed(scope):
            return await self.application(scope, receive, send)
        return await WebsocketDenier()(scope, receive, send)

    def origin_allowed(self, scope: dict[str, Any]) -> bool:
        headers = _headers(scope)
        origin = origin_normalise(headers.get("origin", ""))
        if origin is None:
            return False
        return origin in self.allowed_origins or origin == _own_origin(scope, headers)


def _headers(scope: dict[str, Any]) -> dict[str, str]:
    headers: dict[str, str] = {}
    for name, value in scope.get("headers", []):
        headers.setdefault(name.decode("latin1").lower(), value.decode("latin1"))
    return headers


def _own_origin(scope: dict[str, Any], headers: dict[str, str]) -> str | None:
    """The origin the socket was opened on, as Django's CSRF check derives a request's."""
    host = headers.get("host", "")
    domain, _ = split_domain_port(host)
    allowed_hosts = settings.ALLOWED_HOSTS
    if settings.DEBUG and not allowed_hosts:
        allowed_hosts = [".localhost", "127.0.0.1", "[::1]"]
    if not domain or not validate_host(domain, allowed_hosts):
        return None
    return origin_normalise(f"{_scheme(scope, headers)}://{host}")


def _scheme(scope: dict[str, Any], headers: dict[str, str]) -> str:
    proxy_header = getattr(settings, "SECURE_PROXY_SSL_HEADER", None)
    if proxy_header:
        name, secure_value = proxy_header
        header = name.removeprefix("HTTP_").replace("_", "-").lower()
        if header in headers:
            forwarded = headers[header].split(",", 1)[0].strip()
            return "https" if forwarded == secure_value else "http"
    return "https" if scope.get("scheme") == "wss" else "http"


def websocket_application(urlpatterns: list[Any]) -> ExactOriginValidator:
    """The websocket stack of ``reviewapp/asgi.py``: Origin check, session user, routing."""
    return ExactOriginValidator(
        AuthMiddlewareStack(URLRouter(urlpatterns)), settings.WEBSOCKET_ALLOWED_ORIGINS
    )
