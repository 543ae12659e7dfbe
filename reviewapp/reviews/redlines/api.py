"""Redlines in the REST API: members of the contract's matter read them, its lawyers write."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import APIException
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from reviewapp.contracts.models import Passage
from reviewapp.reviews.redlines.models import Redline, RedlineSource, RedlineStatus
from reviewapp.reviews.redlines.payloads import redline_payload
from reviewapp.reviews.redlines.selectors import (
    redline_get_for_user,
    redline_history,
    redlines_for_review,
)
from reviewapp.reviews.redlines.services import (
    MAX_COMMENT_CHARS,
    MAX_REPLACEMENT_CHARS,
    RedlineConflict,
    redline_accept,
    redline_save,
    redline_withdraw,
)
from reviewapp.reviews.selectors import review_get_for_user


class RedlineSerializer(serializers.Serializer):
    """The shape of `redline_payload` (documentation only)."""

    id = serializers.IntegerField()
    url = serializers.CharField()
    review_id = serializers.IntegerField()
    passage = serializers.IntegerField()
    passage_index = serializers.IntegerField()
    category = serializers.CharField()
    rule_id = serializers.CharField()
    span_start = serializers.IntegerField()
    span_end = serializers.IntegerField()
    original = serializers.CharField()
    replacement = serializers.CharField()
    counterparty_comment = serializers.CharField(
        allow_blank=True,
        help_text="The lawyer's comment for the other side: the only comment of the "
        "counterparty's `redline.docx`, on this redline's change",
    )
    source = serializers.ChoiceField(choices=RedlineSource.values)  # type: ignore[assignment]
    status = serializers.ChoiceField(choices=RedlineStatus.values)
    status_label = serializers.CharField()
    source_label = serializers.CharField(
        help_text="Who wrote the words, for people: 'standard wording, not yet reviewed', "
        "'edited by <full name>'"
    )
    author = serializers.CharField(allow_null=True)
    accepted_by = serializers.CharField(allow_null=True)
    accepted_label = serializers.CharField(
        allow_blank=True, help_text="'accepted by <full name>'; blank when not accepted"
    )
    accepted_at = serializers.DateTimeField(allow_null=True)
    updated_at = serializers.DateTimeField()
    diff = serializers.ListField(child=serializers.DictField(), help_text="op: same, del, ins")
    history = serializers.ListField(child=serializers.DictField(), required=False)


REFUSALS = {
    403: OpenApiResponse(description="Not a lawyer of the contract's matter (reviewers read)"),
    404: OpenApiResponse(
        description="No such review, redline or passage of the review's contract, or not a "
        "member of its matter"
    ),
    409: OpenApiResponse(
        description="Not allowed from the redline's status, overlapping, or refused by the "
        "review's data: a category no rule flagged on the passage, words outside the passage, "
        "a replacement that changes nothing"
    ),
}


class RedlineSaveSerializer(serializers.Serializer):
    passage = serializers.IntegerField(help_text="The passage id")
    category = serializers.CharField(max_length=80, help_text="A category flagged on it")
    replacement = serializers.CharField(
        allow_blank=True, trim_whitespace=False, max_length=MAX_REPLACEMENT_CHARS
    )
    counterparty_comment = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=MAX_COMMENT_CHARS,
        help_text="A comment for the counterparty, sent with the change in `redline.docx` "
        "(omitted: kept as it was; changing it makes an accepted redline a draft again)",
    )
    span_start = serializers.IntegerField(required=False, min_value=0)
    span_end = serializers.IntegerField(required=False, min_value=0)


class Conflict(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_code = "conflict"


def _refused(call: Any) -> Any:
    """The service's refusals depend on the review's data, not on the request's form (a
    category no rule flagged there, words outside the passage, a replacement that changes
    nothing): 409, as a schema cannot say them; a malformed request is the serializer's 400."""
    try:
        return call()
    except DjangoValidationError as invalid:
        raise Conflict(" ".join(invalid.messages)) from invalid
    except RedlineConflict as conflict:
        raise Conflict(str(conflict)) from conflict


class ReviewRedlinesView(APIView):
    @extend_schema(
        summary="The review's redlines (draft, accepted, withdrawn), clause order",
        responses={200: RedlineSerializer(many=True), 404: REFUSALS[404]},
    )
    def get(self, request: Request, review_id: int) -> Response:
        review = review_get_for_user(user=request.user, review_id=review_id)
        if review is None:
            raise Http404("No such review.")
        return Response([redline_payload(r) for r in redlines_for_review(review_id=review.pk)])

    @extend_schema(
        summary="Write or change the draft redline of one issue (a lawyer of the matter)",
        description="One redline per passage and category. `span_start`/`span_end` (offsets "
        "into the contract text) default to the whole passage. Saving an accepted redline with "
        "new words makes it a draft again. Recorded in the audit log (`redline.saved`).",
        request=RedlineSaveSerializer,
        responses={200: RedlineSerializer, 400: OpenApiResponse(description="Malformed")}
        | REFUSALS,
    )
    def post(self, request: Request, review_id: int) -> Response:
        review = review_get_for_user(user=request.user, review_id=review_id)
        if review is None:
            raise Http404("No such review.")
        data = RedlineSaveSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = data.validated_data
        passage = Passage.objects.filter(pk=fields["passage"], contract=review.contract).first()
        if passage is None:
            raise Http404("No such passage in this review's contract.")
        span = None
        if "span_start" in fields or "span_end" in fields:
            span = (fields.get("span_start", passage.start), fields.get("span_end", passage.end))
        redline = _refused(
            lambda: redline_save(
                review=review,
                passage=passage,
                category=fields["category"],
                replacement=fields["replacement"],
                user=request.user,
                span=span,
                counterparty_comment=fields.get("counterparty_comment"),
            )
        )
        return Response(redline_payload(redline))


def _redline_for(request: Request, redline_id: int) -> Redline:
    redline = redline_get_for_user(user=request.user, redline_id=redline_id)
    if redline is None:
        raise Http404("No such redline.")
    return redline


class RedlineDetailView(APIView):
    @extend_schema(
        summary="One redline, with its history (its audit events)",
        responses={200: RedlineSerializer, 404: REFUSALS[404]},
    )
    def get(self, request: Request, redline_id: int) -> Response:
        redline = _redline_for(request, redline_id)
        return Response(redline_payload(redline, history=redline_history(redline=redline)))


class RedlineAcceptView(APIView):
    @extend_schema(
        summary="Accept a draft redline into the review (a lawyer of the matter)",
        description="From then on the `redline.docx` and `redline-internal.docx` exports "
        "carry it as tracked changes by this lawyer, dated now, with its "
        "`counterparty_comment` on them. Recorded in the audit log (`redline.accepted`).",
        request=None,
        responses={200: RedlineSerializer, 400: OpenApiResponse(description="Changes nothing")}
        | REFUSALS,
    )
    def post(self, request: Request, redline_id: int) -> Response:
        redline = _redline_for(request, redline_id)
        redline = _refused(lambda: redline_accept(redline_id=redline.pk, user=request.user))
        return Response(redline_payload(redline))


class RedlineWithdrawView(APIView):
    @extend_schema(
        summary="Withdraw a redline from the review (a lawyer of the matter)",
        description="Kept with its history; saving it again makes it a draft. "
        "Recorded in the audit log (`redline.withdrawn`).",
        request=None,
        responses={200: RedlineSerializer} | REFUSALS,
    )
    def post(self, request: Request, redline_id: int) -> Response:
        redline = _redline_for(request, redline_id)
        redline = _refused(lambda: redline_withdraw(redline_id=redline.pk, user=request.user))
        return Response(redline_payload(redline))
