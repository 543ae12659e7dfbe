from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from reviewapp.rules.selectors import organisations_administered
from reviewapp.rules.services import PlaybookInvalid, playbook_test

MAX_TEST_TEXT = 200_000


class PlaybookTestInput(serializers.Serializer):
    source = serializers.CharField(  # type: ignore[assignment]  # the field is named "source"
        help_text="The playbook YAML, as edited"
    )
    text = serializers.CharField(allow_blank=True, help_text="Text to run the rules on")


class PlaybookTestView(APIView):
    @extend_schema(
        summary="Run a playbook (saved or not) on pasted text and return the match spans",
        request=PlaybookTestInput,
        responses=inline_serializer(
            "PlaybookTestResult",
            {"hits": serializers.ListField(child=serializers.DictField())},
        ),
    )
    def post(self, request: Request) -> Response:
        if not organisations_administered(user=request.user).exists():
            return Response({"error": {"code": "FORBIDDEN", "message": "Admins only."}}, 403)
        form = PlaybookTestInput(data=request.data)
        if not form.is_valid():
            return Response({"error": {"code": "INVALID", "message": str(form.errors)}}, 400)
        text = form.validated_data["text"]
        if len(text) > MAX_TEST_TEXT:
            message = f"Paste at most {MAX_TEST_TEXT:,} characters."
            return Response({"error": {"code": "TOO_LARGE", "message": message}}, 400)
        try:
            hits = playbook_test(source=form.validated_data["source"], text=text)
        except PlaybookInvalid as invalid:
            problems = invalid.problems[:20]
            error = {"code": "INVALID_PLAYBOOK", "message": "; ".join(problems)[:2000]}
            return Response({"error": {**error, "problems": problems}}, 400)
        return Response({"hits": hits})
