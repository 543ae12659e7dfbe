"""The review exports in the REST API (token or session): GET /api/reviews/<id>/export.<fmt>."""

from __future__ import annotations

from django.http import Http404, HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.views import APIView

from reviewapp.reviews.export_views import export_response
from reviewapp.reviews.exports.formats import FORMATS
from reviewapp.reviews.selectors import review_get_for_user


def _body(content_type: str) -> OpenApiTypes:
    """A JSON export is an object (clients and Schemathesis parse it); the others are files."""
    return (
        OpenApiTypes.OBJECT if content_type.startswith("application/json") else OpenApiTypes.BINARY
    )


class ReviewExportView(APIView):
    @extend_schema(
        summary="Export a review: Word memo (docx), JSON, CSV of issues, or the redlined "
        "contract for the counterparty (redline.docx) or for the firm (redline-internal.docx)",
        description="`docx`: a review memo with summary, key facts, an issue table and each "
        "issue as a Word comment anchored on its clause. `json`: schema "
        "`clausewise.review-export/1`. `csv`: one row per issue, UTF-8 with a byte-order mark, "
        "cells that a spreadsheet would read as a formula prefixed with a quote. "
        "`redline.docx`, for the counterparty: the contract itself (the uploaded Word file; a "
        "generated one for PDF and text) with each accepted redline as tracked changes cut to "
        "the words that differ, by its lawyer and the firm, and only the lawyers' comments for "
        "the counterparty (`counterparty_comment`), each on its change; no internal notes. "
        "`redline-internal.docx`, for the firm: the same file with every issue as a comment "
        "on its words as well. "
        "Every export is recorded in the audit log.",
        parameters=[
            OpenApiParameter("fmt", OpenApiTypes.STR, OpenApiParameter.PATH, enum=list(FORMATS))
        ],
        responses={
            (200, fmt.content_type.split(";")[0]): OpenApiResponse(_body(fmt.content_type))
            for fmt in FORMATS.values()
        }
        | {404: OpenApiResponse(description="No such review, or not a member of its matter")},
    )
    def get(self, request: Request, review_id: int, fmt: str) -> HttpResponse:
        review = review_get_for_user(user=request.user, review_id=review_id)
        if review is None or fmt not in FORMATS:
            raise Http404("No such review.")
        return export_response(review=review, user=request.user, fmt=fmt)
