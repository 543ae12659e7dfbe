"""The status of a bulk upload's Message Batches, for scripts and the page's live status."""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from reviewapp.accounts.selectors import user_can_access_matter
from reviewapp.reviews.model_batch_models import ModelBatchRound, ModelBatchStatus
from reviewapp.reviews.model_batches import (
    model_batch_get_for_user,
    model_batch_payload,
    model_batches_for_matter,
)

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
