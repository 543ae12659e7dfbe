"""The party acted for in the REST API: members of the matter read it, lawyers and admins set it.

A name that is no party of the contract (or of any contract of the matter) is answered 400 with
the reason: ``{"error": {"code": "NOT_A_PARTY", "message": "..."}}``.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from reviewapp.accounts.selectors import matter_get_for_user
from reviewapp.contracts.selectors import contract_get_for_user
from reviewapp.reviews.acting_for.selectors import (
    ActingForPanel,
    contract_acting_for_panel,
    matter_acting_for_panel,
)
from reviewapp.reviews.acting_for.services import (
    ActingForRefused,
    contract_acting_for_set,
    matter_acting_for_set,
)
from reviewapp.text.facts.parties import Party


class PartySerializer(serializers.Serializer):
    name = serializers.CharField()
    role = serializers.CharField(allow_blank=True)


class ActingForSerializer(serializers.Serializer):
    """The shape of `_payload` (documentation only)."""

    acting_for = PartySerializer(allow_null=True)
    from_matter = serializers.BooleanField()
    choices = PartySerializer(many=True)
    may_choose = serializers.BooleanField()


class ActingForSetSerializer(serializers.Serializer):
    name = serializers.CharField(
        max_length=200, allow_blank=True, help_text="A party's name as extracted; blank clears"
    )
    role = serializers.CharField(
        max_length=80, allow_blank=True, required=False, default="", help_text="Blank: its own"
    )


RESPONSES = {
    200: ActingForSerializer,
    400: OpenApiResponse(description="Invalid"),
    409: OpenApiResponse(
        description="Not a party the contract's (or matter's) text names (NOT_A_PARTY)"
    ),
    403: OpenApiResponse(description="Not a lawyer or admin of the matter (reviewers read)"),
    404: OpenApiResponse(description="No such contract or matter, or not a member of it"),
}


def _party(party: Party | None) -> dict[str, str] | None:
    return {"name": party.name, "role": party.role} if party else None


def _payload(panel: ActingForPanel) -> dict[str, Any]:
    return {
        "acting_for": _party(panel.party),
        "from_matter": panel.from_matter,
        "choices": [_party(party) for party in panel.choices],
        "may_choose": panel.may_choose,
    }


def _not_a_party(refused: ActingForRefused) -> Response:
    # 409: the name is well formed, but the contract's parties (read from its text) disagree.
    return Response({"error": {"code": "NOT_A_PARTY", "message": str(refused)}}, status=409)


class ContractActingForView(APIView):
    @extend_schema(summary="The party the firm acts for in the contract", responses=RESPONSES)
    def get(self, request: Request, contract_id: int) -> Response:
        contract = self._contract(request, contract_id)
        return Response(_payload(contract_acting_for_panel(contract=contract, user=request.user)))

    @extend_schema(
        summary="Choose the party the firm acts for in the contract (over the matter's)",
        description="Recorded in the audit log (`contract.acting_for_set`).",
        request=ActingForSetSerializer,
        responses=RESPONSES,
    )
    def post(self, request: Request, contract_id: int) -> Response:
        contract = self._contract(request, contract_id)
        data = ActingForSetSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            contract_acting_for_set(contract=contract, set_by=request.user, **data.validated_data)
        except ActingForRefused as refused:
            return _not_a_party(refused)
        return Response(_payload(contract_acting_for_panel(contract=contract, user=request.user)))

    def _contract(self, request: Request, contract_id: int) -> Any:
        contract = contract_get_for_user(user=request.user, contract_id=contract_id)
        if contract is None:
            raise Http404("No such contract.")
        return contract


class MatterActingForView(APIView):
    @extend_schema(summary="The party the firm acts for in the matter", responses=RESPONSES)
    def get(self, request: Request, matter_id: int) -> Response:
        matter = self._matter(request, matter_id)
        return Response(_payload(matter_acting_for_panel(matter=matter, user=request.user)))

    @extend_schema(
        summary="Choose the matter's default party (for contracts without a choice of their own)",
        description="Recorded in the audit log (`matter.acting_for_set`).",
        request=ActingForSetSerializer,
        responses=RESPONSES,
    )
    def post(self, request: Request, matter_id: int) -> Response:
        matter = self._matter(request, matter_id)
        data = ActingForSetSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            matter_acting_for_set(matter=matter, set_by=request.user, **data.validated_data)
        except ActingForRefused as refused:
            return _not_a_party(refused)
        return Response(_payload(matter_acting_for_panel(matter=matter, user=request.user)))

    def _matter(self, request: Request, matter_id: int) -> Any:
        matter = matter_get_for_user(user=request.user, matter_id=matter_id)
        if matter is None:
            raise Http404("No such matter.")
        return matter
