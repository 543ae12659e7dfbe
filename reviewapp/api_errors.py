"""Every API error has one shape: ``{"error": {"code": "...", "message": "..."}}``.

The views' own errors are written that way; this handler gives DRF's (authentication,
permission, not found, method, parse and validation errors) the same shape, and
``api_not_found`` answers unknown ``/api/`` paths in JSON instead of an HTML page.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, JsonResponse
from django.urls import Resolver404, resolve
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

_BY_STATUS = {403: "permission_denied", 404: "not_found"}


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    response = drf_exception_handler(exc, context)
    if response is None or _already_shaped(response.data):
        return response
    if isinstance(exc, APIException):
        code = str(exc.default_code)
    else:  # Django's Http404 and PermissionDenied, which DRF answers as 404 and 403
        code = _BY_STATUS.get(response.status_code, "error")
    if isinstance(exc, ValidationError):
        body = {"code": "INVALID", "message": "The request is not valid.", "fields": response.data}
    else:
        detail = response.data.get("detail") if isinstance(response.data, dict) else None
        body = {"code": code.upper(), "message": str(detail or response.status_text)}
    response.data = {"error": body}
    return response


def api_not_found(request: HttpRequest, path: str = "") -> JsonResponse:
    message = f"No API endpoint at /api/{path}. The list is at /api/docs/."
    if path and not path.endswith("/") and _resolves(f"/api/{path}/"):
        message = f"No API endpoint at /api/{path}: did you mean /api/{path}/ ?"
    return JsonResponse({"error": {"code": "NOT_FOUND", "message": message}}, status=404)


def _already_shaped(data: Any) -> bool:
    return isinstance(data, dict) and isinstance(data.get("error"), dict)


def _resolves(url: str) -> bool:
    try:
        return resolve(url).func is not api_not_found
    except Resolver404:
        return False
