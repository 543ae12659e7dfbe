from __future__ import annotations

from django.http import Http404
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from reviewapp.reviews.selectors import review_get_for_user
from reviewapp.reviews.snapshot import snapshot_get

SnapshotSerializer = inline_serializer(
    "ReviewStateSnapshot",
    {
        "review_id": serializers.IntegerField(),
        "contract_id": serializers.IntegerField(),
        "status": serializers.CharField(),
        "playbook_version": serializers.CharField(),
        "counts": serializers.DictField(child=serializers.IntegerField()),
        "passages": serializers.ListField(child=serializers.DictField()),
    },
)


class ReviewStateView(APIView):
    @extend_schema(
        summary="A review's state register: counts per state and each passage's state",
        description="Served from a Redis snapshot (`state:{review_id}`, 300 s).",
        responses=SnapshotSerializer,
    )
    def get(self, request: Request, review_id: int) -> Response:
        review = review_get_for_user(user=request.user, review_id=review_id)
        if review is None:
            raise Http404("No such review.")
        return Response(snapshot_get(review))
