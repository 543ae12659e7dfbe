from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from reviewapp.realtime.events import event_message
from reviewapp.realtime.selectors import event_list_for_user

EventListSerializer = inline_serializer(
    "Event",
    {
        "seq": serializers.IntegerField(),
        "matter_id": serializers.IntegerField(),
        "type": serializers.CharField(),
        "payload": serializers.JSONField(),
        "created_at": serializers.DateTimeField(),
    },
    many=True,
)


class EventListView(APIView):
    @extend_schema(
        summary="Events after a sequence number (what a reconnecting client missed)",
        parameters=[OpenApiParameter("after", OpenApiTypes.INT, default=0)],
        responses=EventListSerializer,
    )
    def get(self, request: Request) -> Response:
        try:
            after = max(int(request.query_params.get("after", "0")), 0)
        except ValueError:
            return Response(
                {"error": {"code": "INVALID", "message": "`after` must be a whole number."}},
                status=400,
            )
        events = event_list_for_user(user=request.user, after=after)
        return Response([event_message(event) for event in events])
