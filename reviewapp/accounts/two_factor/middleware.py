"""Until a session has passed its second factor, a user who needs one gets only the code and
set-up pages, sign-in and sign-out (and static files, the language switch): any other page
sends them to the code page, any API request with the session is refused (403)."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlencode

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase, HttpResponseRedirect, JsonResponse
from django.urls import reverse
from django.utils.translation import gettext as _

from reviewapp.accounts.two_factor.selectors import (
    request_verified,
    two_factor_enrolled,
    two_factor_needed,
)

OPEN_URL_NAMES = ("two-factor-verify", "two-factor-setup", "login", "logout", "set_language")
OPEN_PREFIXES = ("/jsi18n/", "/healthz", "/favicon.ico")


class TwoFactorRequiredMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response
        self._open: tuple[str, ...] | None = None

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        user = request.user
        if (
            user.is_authenticated
            and not request_verified(request=request)
            and not request.path.startswith(self._open_paths())
            and not _token_request(request)
            and two_factor_needed(user=user)
        ):
            return _refusal(request)
        return self.get_response(request)

    def _open_paths(self) -> tuple[str, ...]:
        if self._open is None:
            named = tuple(reverse(name) for name in OPEN_URL_NAMES)
            self._open = (*named, *OPEN_PREFIXES, settings.STATIC_URL or "/static/")
        return self._open


def _token_request(request: HttpRequest) -> bool:
    """An API call with a token: the token decides (see authentication.py), not the session."""
    return request.path.startswith("/api/") and "HTTP_AUTHORIZATION" in request.META


def _refusal(request: HttpRequest) -> HttpResponseBase:
    if request.path.startswith("/api/"):
        message = _("Enter the code of your second factor in the browser first.")
        return JsonResponse(
            {"error": {"code": "TWO_FACTOR_REQUIRED", "message": message}}, status=403
        )
    enrolled = two_factor_enrolled(user=request.user)
    target = reverse("two-factor-verify" if enrolled else "two-factor-setup")
    return HttpResponseRedirect(f"{target}?{urlencode({'next': request.get_full_path()})}")
