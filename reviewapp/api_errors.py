"""Every API error has one shape: ``{"error": {"code": "...", "message": "..."}}``.

The views' own errors are written that way; this handler gives DRF's (authentication,
permission, not found, method, parse and validation errors) the same shape, and
``api_not_found`` answers unknown ``/api/`` paths in JSON instead of an HTML page.
``ErrorsDocumentedSchema`` writes the errors every view can answer into the OpenAPI schema
(400 where there is input, 401, 403, 404 where the path names an object or a page, 429), so a client
generated from it, or Schemathesis, knows each status it may get.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, JsonResponse
from django.urls import Resolver404, resolve
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

_BY_STATUS = {403: "permission_denied", 404: "not_found"}


class ErrorSerializer(serializers.Serializer):
    code = serializers.CharField()
    message = serializers.CharField()


class ErrorResponseSerializer(serializers.Serializer):
    error = ErrorSerializer()


_ERRORS = {
    "400": "Not valid: the message (and `fields`, for a form) says what is wrong",
    "401": "No credentials, or a token that no longer works",
    "403": "Not allowed for your role on this matter (or a session request without CSRF)",
    "404": "No such object, or not one you are a member of",
    "429": "Too many requests: try again after the `Retry-After` seconds",
}


class ErrorsDocumentedSchema(AutoSchema):
    def _map_basic_serializer(self, serializer: Any, direction: Any) -> dict[str, Any]:
        """An uploaded file is binary and not empty. A serializer's ``one_of_fields`` (the
        request must give exactly one of them, which its ``validate`` enforces) becomes a
        ``oneOf`` of required fields; an object among them must not be empty."""
        schema: dict[str, Any] = super()._map_basic_serializer(serializer, direction)
        if direction == "request":  # every upload refuses an empty file
            for name, field in serializer.fields.items():
                if isinstance(field, serializers.FileField) and name in schema["properties"]:
                    schema["properties"][name].update(format="binary", minLength=1)
        fields = getattr(serializer, "one_of_fields", ())
        if fields and direction == "request":
            schema["oneOf"] = [{"required": [name]} for name in fields]
            for name in fields:
                field_schema = schema.get("properties", {}).get(name, {})
                if field_schema.get("type") == "object":
                    field_schema["minProperties"] = 1
        return schema

    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        responses: dict[str, Any] = super()._get_response_bodies(direction)
        for code in self._errors_possible():
            if code not in responses:
                error = OpenApiResponse(ErrorResponseSerializer, description=_ERRORS[code])
                responses[code] = self._get_response_for_code(error, code, direction=direction)
        return responses

    def _errors_possible(self) -> list[str]:
        codes = ["401", "403", "429"]
        query = {p["name"] for p in self._get_parameters() if p.get("in") == "query"}
        if self.method in ("POST", "PUT", "PATCH") or self.get_filter_backends() or query:
            codes.append("400")
        if "{" in self.path or "page" in query:  # a page past the last is not found
            codes.append("404")
        return sorted(codes)


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


@csrf_exempt  # it changes nothing: a POST to an unknown path gets the 404, not a CSRF page
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
