"""The portfolio grid in the REST API: GET /api/matters/<id>/grid/ (token or session)."""

from __future__ import annotations

from typing import Any

from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    inline_serializer,
)
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from reviewapp.accounts.selectors import matter_get_for_user
from reviewapp.portfolio.selectors import Grid, grid_columns, portfolio_grid

GridSerializer = inline_serializer(
    "PortfolioGrid",
    {
        "matter_id": serializers.IntegerField(),
        "columns": inline_serializer(
            "GridColumn",
            {
                "key": serializers.CharField(
                    help_text="`status`, `fact:<name>` or `category:<name>`"
                ),
                "label": serializers.CharField(help_text="in the reader's language"),
                "kind": serializers.ChoiceField(choices=["field", "fact", "category"]),
                "name": serializers.CharField(
                    help_text="a fact's or category's own name, the key into a row's `facts` "
                    "or `categories` (empty for a field)"
                ),
            },
            many=True,
        ),
        "rows": inline_serializer(
            "GridRow",
            {
                "contract_id": serializers.IntegerField(),
                "name": serializers.CharField(),
                "url": serializers.CharField(help_text="The contract's review page"),
                "status": serializers.CharField(help_text="The document's status"),
                "status_label": serializers.CharField(),
                "review_status": serializers.CharField(allow_null=True),
                "review_status_label": serializers.CharField(allow_null=True),
                "playbook_version": serializers.CharField(allow_null=True),
                "open_items": serializers.IntegerField(),
                "comparison_url": serializers.CharField(
                    allow_null=True, help_text="What the latest re-run changed"
                ),
                "facts": serializers.DictField(
                    child=serializers.JSONField(),
                    help_text="Per fact name: `display` (a date as its value, in the reader's "
                    "format), the contract's own `words`, normalised `value` (or null), `sort`, "
                    "`date` (the ISO date of a date stated plainly, else null) and "
                    "`passage_index` (open it at `url` + `#passage-<index>`).",
                ),
                "categories": serializers.DictField(
                    child=serializers.JSONField(),
                    help_text="Per category found: `state` (the worst of its passages), "
                    "`severity` (the worst), `passages`, `open_items` and `passage_index` (the "
                    "first passage in the worst state). A category missing from a reviewed "
                    "contract was not found in it.",
                ),
            },
            many=True,
        ),
    },
)


def grid_payload(matter_id: int, grid: Grid) -> dict[str, Any]:
    return {
        "matter_id": matter_id,
        "columns": [vars(column) for column in grid_columns(grid)],
        "rows": grid.rows,
    }


MAX_ID = 2**63 - 1


class MatterGridView(APIView):
    @extend_schema(
        summary="A matter's portfolio grid: a row per contract, key facts and categories",
        description="Members of the matter only. `contract` (repeatable) limits the rows to "
        "those contracts, as the grid page does when a document finishes.",
        parameters=[
            OpenApiParameter("contract", OpenApiTypes.INT, many=True, required=False),
        ],
        responses={
            200: GridSerializer,
            400: OpenApiResponse(description="`contract` is not a whole number"),
            404: OpenApiResponse(description="No such matter, or not a member"),
        },
    )
    def get(self, request: Request, matter_id: int) -> Response:
        if matter_get_for_user(user=request.user, matter_id=matter_id) is None:
            raise Http404("No such matter.")
        raw = request.query_params.getlist("contract")
        try:
            contract_ids = [int(value) for value in raw] if raw else None
        except ValueError:
            return Response(
                {"error": {"code": "INVALID", "message": "`contract` must be a whole number."}},
                status=400,
            )
        if contract_ids is not None:  # no row has an id past the database's integers
            contract_ids = [pk for pk in contract_ids if 0 < pk <= MAX_ID]
        grid = portfolio_grid(matter_id=matter_id, contract_ids=contract_ids)
        return Response(grid_payload(matter_id, grid))
