"""The page a locked-out sign-in gets (django-axes calls it): the sign-in form, a plain message
saying for how long, status 429; no word on whether the username exists."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render


def lockout_response(
    request: HttpRequest, original_response: Any = None, credentials: Any = None
) -> HttpResponse:
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    if request.path.startswith("/api/"):
        message = f"Too many failed sign-ins. Try again in {minutes} minutes."
        return JsonResponse({"error": {"code": "LOCKED_OUT", "message": message}}, status=429)
    context = {"locked_out": True, "minutes": minutes, "next": request.POST.get("next", "")}
    return render(request, "registration/login.html", context, status=429)
