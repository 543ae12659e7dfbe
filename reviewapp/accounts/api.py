from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from reviewapp.accounts.models import Matter
from reviewapp.accounts.selectors import matter_list_for_user


class MatterSerializer(serializers.ModelSerializer):
    organisation = serializers.CharField(source="organisation.name")

    class Meta:
        model = Matter
        fields = ["id", "name", "reference", "organisation"]


class MatterListView(APIView):
    @extend_schema(
        summary="Matters the caller is a member of", responses=MatterSerializer(many=True)
    )
    def get(self, request: Request) -> Response:
        return Response(MatterSerializer(matter_list_for_user(user=request.user), many=True).data)
