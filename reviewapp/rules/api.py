from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import AnonRateThrottle, SimpleRateThrottle, UserRateThrottle
from rest_framework.views import APIView

from reviewapp.rules.selectors import organisations_administered
from reviewapp.rules.services import PlaybookInvalid, PlaybookTestTooLong, playbook_test

MAX_TEST_TEXT = 200_000


class PlaybookTestInput(serializers.Serializer):
    source = serializers.CharField(  # type: ignore[assignment]  # the field is named "source"
        help_text="The playbook YAML, as edited"
    )
    text = serializers.CharField(allow_blank=True, help_text="Text to run the rules on")


class PerOrganisationThrottle(SimpleRateThrottle):
    """``PLAYBOOK_TEST_THROTTLE`` tests per organisation, shared by all its admins: the test box
    runs in the web processes every tenant shares. An admin of several organisations spends
    from each of them."""

    def __init__(self) -> None:
        super().__init__()
        limit, window = self.parse_rate(self.get_rate())
        self.limit, self.window = limit or 0, window or 60

    def get_rate(self) -> str:
        return str(settings.PLAYBOOK_TEST_THROTTLE)

    def allow_request(self, request: Request, view: Any) -> bool:
        organisations = organisations_administered(user=request.user).order_by("pk")
        keys = [f"throttle_playbook_test_{pk}" for pk in organisations.values_list("pk", flat=True)]
        self.now = self.timer()
        histories = {key: self._recent(key) for key in keys}
        spent = [history for history in histories.values() if len(history) >= self.limit]
        if spent:
            self.history = spent[0]  # what wait() reads
            return False
        for key, history in histories.items():
            self.cache.set(key, [self.now, *history], self.window)
        return True

    def _recent(self, key: str) -> list[float]:
        return [at for at in self.cache.get(key, []) if at > self.now - self.window]

    def get_cache_key(self, request: Request, view: Any) -> str | None:  # one key per organisation
        return None


def _error(code: str, message: str, status: int, **more: Any) -> Response:
    return Response({"error": {"code": code, "message": message, **more}}, status)


class PlaybookTestView(APIView):
    throttle_classes = [AnonRateThrottle, UserRateThrottle, PerOrganisationThrottle]

    @extend_schema(
        summary="Run a playbook (saved or not) on pasted text and return the match spans",
        request=PlaybookTestInput,
        responses={
            200: inline_serializer(
                "PlaybookTestResult",
                {"hits": serializers.ListField(child=serializers.DictField())},
            ),
            400: OpenApiResponse(
                description="Not valid (INVALID, INVALID_PLAYBOOK), text too long (TOO_LARGE) "
                "or the test spent its CPU budget (TOO_SLOW)"
            ),
            403: OpenApiResponse(description="Not an admin of any organisation"),
            429: OpenApiResponse(description="The organisation's tests per minute are spent"),
        },
    )
    def post(self, request: Request) -> Response:
        if not organisations_administered(user=request.user).exists():
            return _error("FORBIDDEN", "Admins only.", 403)
        form = PlaybookTestInput(data=request.data)
        if not form.is_valid():
            return _error("INVALID", str(form.errors), 400)
        text = form.validated_data["text"]
        if len(text) > MAX_TEST_TEXT:
            return _error("TOO_LARGE", f"Paste at most {MAX_TEST_TEXT:,} characters.", 400)
        try:
            hits = playbook_test(source=form.validated_data["source"], text=text)
        except PlaybookInvalid as invalid:
            problems = invalid.problems[:20]
            message = "; ".join(problems)[:2000]
            return _error("INVALID_PLAYBOOK", message, 400, problems=problems)
        except PlaybookTestTooLong as slow:
            message = (
                f"The test stopped after {slow.args[0]:g} s of CPU: "
                "test fewer rules or a shorter text."
            )
            return _error("TOO_SLOW", message, 400)
        return Response({"hits": hits})
