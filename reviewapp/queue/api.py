"""The lawyers' queue in the REST API, so a firm can script its review: list the items, claim,
release, decide per category and undo; flag a clause the review missed. Members of the matter
read (reviewers too); its lawyers and admins write; anyone else gets 404. Token or session
authentication, like the rest of the API; every error has the one shape of ``api_errors``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.exceptions import PermissionDenied as ApiPermissionDenied
from rest_framework.pagination import PageNumberPagination
from rest_framework.parsers import JSONParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from reviewapp.contracts.models import Passage
from reviewapp.contracts.selectors import contract_get_for_user
from reviewapp.queue.decisions import (
    queue_item_answer,
    queue_item_claim,
    queue_item_decide,
    queue_item_release,
    queue_item_undo,
)
from reviewapp.queue.flags import NOTE_MAX_CHARS, passage_flag_raise
from reviewapp.queue.models import Decision, ItemStatus, QueueItem
from reviewapp.queue.payloads import queue_item_payload, queue_item_payloads
from reviewapp.queue.records import QueueConflict
from reviewapp.queue.selectors import (
    ANY_STATUS,
    ApiFilters,
    queue_item_for_api,
    queue_items_for_api,
)
from reviewapp.reviews.models import Review
from reviewapp.reviews.states import TransitionNotAllowed


class Conflict(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_code = "conflict"


class RuleSerializer(serializers.Serializer):
    rule_id = serializers.CharField()
    category = serializers.CharField()
    action = serializers.CharField()
    severity = serializers.CharField()
    router_score = serializers.FloatField(allow_null=True, help_text="The learned router's")
    check_score = serializers.FloatField(allow_null=True, help_text="The second-stage check's")
    check_threshold = serializers.FloatField(allow_null=True)
    dropped = serializers.BooleanField(help_text="The check dropped this category")


class QueueItemSerializer(serializers.Serializer):
    """The shape of ``queue_item_payload`` (documentation only)."""

    id = serializers.IntegerField()
    url = serializers.CharField()
    matter_id = serializers.IntegerField()
    contract_id = serializers.IntegerField()
    passage_id = serializers.IntegerField()
    index = serializers.IntegerField(help_text="The passage's index in its contract")
    text = serializers.CharField()
    passage_state = serializers.CharField(allow_null=True, help_text="The passage's state now")
    state = serializers.CharField(help_text="The passage's state when the item was opened")
    status = serializers.ChoiceField(choices=ItemStatus.values)
    severity = serializers.CharField()
    category = serializers.CharField(help_text="The category the item asks about first")
    categories = serializers.ListField(
        child=serializers.CharField(), help_text="Every category the item asks about"
    )
    categories_standing = serializers.ListField(
        child=serializers.CharField(),
        help_text="Categories standing on the passage (kept by the check, not called a false "
        "flag, or flagged by a lawyer)",
    )
    decisions = serializers.DictField(
        child=serializers.ChoiceField(choices=Decision.values),
        help_text="The answers so far, per category",
    )
    decision = serializers.ChoiceField(choices=Decision.values, allow_null=True)
    note = serializers.CharField(allow_blank=True)
    reason = serializers.CharField(allow_blank=True)
    claimed_by = serializers.CharField(allow_null=True)
    decided_by = serializers.CharField(allow_null=True)
    raised_by = serializers.CharField(allow_null=True, help_text="A lawyer who flagged it")
    due_at = serializers.DateTimeField()
    decided_at = serializers.DateTimeField(allow_null=True)
    rules = RuleSerializer(many=True)


class DecideSerializer(serializers.Serializer):
    one_of_fields = ("decisions", "decision")  # the schema says so too (api_errors)
    decisions = serializers.DictField(
        child=serializers.ChoiceField(choices=Decision.values),
        required=False,
        help_text='Per category: {"Non-Compete": "not_this", "Exclusivity": "accept"}',
    )
    decision = serializers.ChoiceField(
        choices=Decision.values,
        required=False,
        help_text="Instead of `decisions`: one answer for every category not yet answered",
    )
    note = serializers.CharField(required=False, allow_blank=True, default="")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if bool(attrs.get("decisions")) == bool(attrs.get("decision")):
            raise serializers.ValidationError("Give `decisions` (per category) or `decision`.")
        return attrs


class FlagSerializer(serializers.Serializer):
    category = serializers.CharField(max_length=80)
    note = serializers.CharField(required=False, allow_blank=True, max_length=NOTE_MAX_CHARS)


COMMON = {
    401: OpenApiResponse(description="No credentials (a token or a session)"),
    404: OpenApiResponse(description="No such item, or not a member of its matter"),
    429: OpenApiResponse(description="Too many requests"),
}
WRITES = {
    **COMMON,
    403: OpenApiResponse(description="A reviewer of the matter: only lawyers and admins write"),
    409: OpenApiResponse(
        description="Not allowed in the item's state (claimed by someone "
        "else, not claimed, already decided, a missing justification)"
    ),
}


def _refused(call: Callable[[], QueueItem]) -> QueueItem:
    try:
        return call()
    except PermissionDenied as denied:
        raise ApiPermissionDenied(str(denied)) from denied
    except (QueueConflict, TransitionNotAllowed) as conflict:
        raise Conflict(str(conflict)) from conflict


def _item_or_404(request: Request, item_id: int) -> QueueItem:
    item = queue_item_for_api(user=request.user, item_id=item_id)
    if item is None:
        raise Http404("No such queue item.")
    return item


def _answer(request: Request, item: QueueItem) -> Response:
    return Response(queue_item_payload(QueueItem.objects.get(pk=item.pk)))


class QueuePagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200


FILTERS = [
    OpenApiParameter("matter", OpenApiTypes.INT),
    OpenApiParameter("contract", OpenApiTypes.INT),
    OpenApiParameter("state", OpenApiTypes.STR, description="REJECTED or NEEDS_HUMAN_REVIEW"),
    OpenApiParameter("category", OpenApiTypes.STR, description="A category the item asks about"),
    OpenApiParameter("claimed_by", OpenApiTypes.STR, description="A username"),
    OpenApiParameter(
        "status",
        OpenApiTypes.STR,
        enum=[*ItemStatus.values, ANY_STATUS],
        description="Default: OPEN and CLAIMED",
    ),
    OpenApiParameter("page", OpenApiTypes.INT),
    OpenApiParameter("page_size", OpenApiTypes.INT, description="At most 200 (default 50)"),
]


STATUSES = (*ItemStatus.values, ANY_STATUS)


def _filters(request: Request) -> ApiFilters:
    def number(name: str) -> int | None:
        value = request.query_params.get(name, "")
        if value and not value.lstrip("-").isdigit():
            raise ValidationError({name: ["A whole number."]})
        if not value:
            return None
        return int(value) if abs(int(value)) < 2**63 else -1  # past any id: matches nothing

    number("page_size")  # checked here; the paginator reads it
    wanted = request.query_params.get("status", "")
    if "status" in request.query_params and wanted not in STATUSES:
        raise ValidationError({"status": [f"One of {', '.join(STATUSES)}."]})
    return ApiFilters(
        matter=number("matter"),
        contract=number("contract"),
        state=request.query_params.get("state", "")[:24],
        category=request.query_params.get("category", "")[:80],
        claimed_by=request.query_params.get("claimed_by", "")[:150],
        status=wanted,
    )


class QueueListView(APIView):
    pagination_class = QueuePagination  # the schema then wraps the items in the page's envelope

    @extend_schema(
        summary="Queue items of the matters you belong to, most urgent due first",
        parameters=FILTERS,
        responses={200: QueueItemSerializer(many=True), 401: COMMON[401], 429: COMMON[429]},
    )
    def get(self, request: Request) -> Response:
        items = queue_items_for_api(user=request.user, filters=_filters(request))
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(items, request, view=self) or []
        return paginator.get_paginated_response(queue_item_payloads(page))


class QueueItemView(APIView):
    @extend_schema(summary="One queue item", responses={200: QueueItemSerializer, **COMMON})
    def get(self, request: Request, item_id: int) -> Response:
        return Response(queue_item_payload(_item_or_404(request, item_id)))


class QueueClaimView(APIView):
    @extend_schema(
        summary="Claim an open item (exactly one lawyer wins)",
        request=None,
        responses={200: QueueItemSerializer, **WRITES},
    )
    def post(self, request: Request, item_id: int) -> Response:
        item = _item_or_404(request, item_id)
        return _answer(
            request, _refused(lambda: queue_item_claim(item_id=item.pk, user=request.user))
        )


class QueueReleaseView(APIView):
    @extend_schema(
        summary="Release a claim (the lawyer who holds it, or an admin of the matter)",
        description="Recorded in the audit log (`queue.released`).",
        request=None,
        responses={200: QueueItemSerializer, **WRITES},
    )
    def post(self, request: Request, item_id: int) -> Response:
        item = _item_or_404(request, item_id)
        return _answer(
            request, _refused(lambda: queue_item_release(item_id=item.pk, user=request.user))
        )


class QueueDecideView(APIView):
    parser_classes = [JSONParser]  # `decisions` is an object: a form cannot carry it

    @extend_schema(
        summary="Decide a claimed item, per category",
        description="`decisions` answers categories of the item: `accept` (there, acceptable), "
        "`reject` (there, not acceptable) or `not_this` (not this kind of clause: a false "
        "flag, a negative example for the organisation's retraining). The item is decided once "
        "every category is answered; until then it stays claimed, with the answers so far. "
        "Accepting a rejected passage, or calling it a false flag, needs a `note`.",
        request=DecideSerializer,
        responses={
            200: QueueItemSerializer,
            400: OpenApiResponse(
                description="Neither `decisions` nor `decision`, or a value that is not a decision"
            ),
            **WRITES,
        },
    )
    def post(self, request: Request, item_id: int) -> Response:
        item = _item_or_404(request, item_id)
        data = DecideSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = data.validated_data
        if fields.get("decisions"):
            decided = _refused(
                lambda: queue_item_answer(
                    item_id=item.pk,
                    user=request.user,
                    decisions=fields["decisions"],
                    note=fields["note"],
                )
            )
        else:
            decided = _refused(
                lambda: queue_item_decide(
                    item_id=item.pk,
                    user=request.user,
                    decision=fields["decision"],
                    note=fields["note"],
                )
            )
        return _answer(request, decided)


class QueueUndoView(APIView):
    @extend_schema(
        summary="Undo your own decision within the undo window",
        request=None,
        responses={200: QueueItemSerializer, **WRITES},
    )
    def post(self, request: Request, item_id: int) -> Response:
        item = _item_or_404(request, item_id)
        return _answer(
            request, _refused(lambda: queue_item_undo(item_id=item.pk, user=request.user))
        )


class PassageFlagsView(APIView):
    @extend_schema(
        summary="Flag a clause the review missed (a lawyer or admin of the matter)",
        description="The passage becomes a queue item claimed by you, asking about `category`; "
        "a CONFIRMED passage moves to NEEDS_HUMAN_REVIEW (reason `LAWYER_FLAGGED`). Recorded "
        "in the audit log (`queue.flagged`). A positive example for the organisation's "
        "retraining, and kept on the passage by a re-run.",
        request=FlagSerializer,
        responses={
            201: QueueItemSerializer,
            400: OpenApiResponse(description="No category"),
            **{
                **WRITES,
                404: OpenApiResponse(
                    description="No such contract or passage, not "
                    "reviewed yet, or not a member of its matter"
                ),
            },
        },
    )
    def post(self, request: Request, contract_id: int, index: int) -> Response:
        contract = contract_get_for_user(user=request.user, contract_id=contract_id)
        passage = Passage.objects.filter(contract=contract, index=index).first()
        if (
            contract is None
            or passage is None
            or not Review.objects.filter(contract=contract).exists()
        ):
            raise Http404("No such passage.")
        data = FlagSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = data.validated_data
        item = _refused(
            lambda: passage_flag_raise(
                passage_id=passage.pk,
                user=request.user,
                category=fields["category"],
                note=fields.get("note", ""),
            )
        )
        return Response(queue_item_payload(item), status=status.HTTP_201_CREATED)
