"""The status of a bulk upload's Message Batches, for scripts and the page's live status."""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.exceptions import APIException, PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from reviewapp.accounts.models import Role
from reviewapp.accounts.selectors import membership_role, user_can_access_matter
from reviewapp.llm import LLMUnavailable
from reviewapp.reviews.batches.models import ModelBatchRound, ModelBatchStatus
from reviewapp.reviews.batches.payloads import model_batch_payload
from reviewapp.reviews.batches.polling import model_batch_cancel
from reviewapp.reviews.batches.selectors import model_batch_get_for_user, model_batches_for_matter

_FIELDS: dict[str, serializers.Field] = {
    "id": serializers.IntegerField(),
    "url": serializers.CharField(),
    "matter_id": serializers.IntegerField(),
    "intake_batch_id": serializers.IntegerField(allow_null=True),
    "round": serializers.ChoiceField(choices=ModelBatchRound.values),
    "status": serializers.ChoiceField(choices=ModelBatchStatus.values),
    "anthropic_id": serializers.CharField(allow_null=True),
    "requests": serializers.IntegerField(),
    "counts": inline_serializer(
        "ModelBatchCounts",
        {
            name: serializers.IntegerField()
            for name in ("processing", "succeeded", "errored", "canceled", "expired")
        },
    ),
    "estimated_cost_usd": serializers.DecimalField(max_digits=12, decimal_places=6),
    "actual_cost_usd": serializers.DecimalField(max_digits=12, decimal_places=6, allow_null=True),
    "submitted_at": serializers.DateTimeField(allow_null=True),
    "ended_at": serializers.DateTimeField(allow_null=True),
    "landed_at": serializers.DateTimeField(allow_null=True),
    "error": serializers.CharField(allow_null=True),
}
ModelBatchSerializer = inline_serializer("ModelBatch", _FIELDS)

_DESCRIPTION = (
    "A bulk upload sent through the Message Batches API has a drafts batch, then a "
    "verifications batch (the checks of the rules and those the drafts raised). `counts` are "
    "the service's request counts; `estimated_cost_usd` is computed from the requests' text "
    "and the price table before sending, `actual_cost_usd` from the recorded usage once the "
    "results are in (batch price: half). Changes are pushed live as `model_batch.status`."
)


class MatterModelBatchesView(APIView):
    @extend_schema(
        summary="A matter's Message Batches: status, request counts, estimated and actual cost",
        description=_DESCRIPTION,
        responses=inline_serializer("ModelBatch", _FIELDS, many=True),
    )
    def get(self, request: Request, matter_id: int) -> Response:
        batches = model_batches_for_matter(user=request.user, matter_id=matter_id)
        if not batches and not _member(request, matter_id):
            raise Http404("No such matter.")
        return Response([model_batch_payload(batch) for batch in batches])


class ModelBatchDetailView(APIView):
    @extend_schema(
        summary="One Message Batch: status, request counts, estimated and actual cost",
        description=_DESCRIPTION,
        responses=ModelBatchSerializer,
    )
    def get(self, request: Request, batch_id: int) -> Response:
        batch = model_batch_get_for_user(user=request.user, batch_id=batch_id)
        if batch is None:
            raise Http404("No such model batch.")
        return Response(model_batch_payload(batch))


def _member(request: Request, matter_id: int) -> bool:
    return user_can_access_matter(user=request.user, matter_id=matter_id)


class ServiceUnavailable(APIException):
    status_code = 503
    default_detail = "The model service could not be reached; try again."
    default_code = "MODEL_UNAVAILABLE"


class ModelBatchCancelView(APIView):
    @extend_schema(
        summary="Stop a Message Batch (the matter's reviewers and admins)",
        description="A batch not yet sent is not sent; a sent one is canceled at the service. "
        "Requests it did not answer end canceled: their checks go to a lawyer (reason "
        "`MODEL_BATCH_CANCELED`), their drafts fail. Checks of a canceled drafts batch still "
        "go out in the verifications batch; cancel that one too to stop them.",
        request=None,
        responses=ModelBatchSerializer,
    )
    def post(self, request: Request, batch_id: int) -> Response:
        batch = model_batch_get_for_user(user=request.user, batch_id=batch_id)
        if batch is None:
            raise Http404("No such model batch.")
        role = membership_role(user=request.user, matter_id=batch.matter_id)
        if role not in (Role.REVIEWER, Role.ADMIN):
            raise PermissionDenied("Only the matter's reviewers and admins can cancel a batch.")
        try:
            batch = model_batch_cancel(batch_id=batch.pk)
        except LLMUnavailable as error:
            raise ServiceUnavailable() from error
        return Response(model_batch_payload(batch))
