"""Downloads of a review: the Word memo, JSON and CSV (GET /reviews/<id>/export.<fmt>)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.utils.http import content_disposition_header
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from reviewapp.reviews.exports import export_recorded
from reviewapp.reviews.exports.formats import FORMATS, REDLINE_AUDIENCES, export_filename
from reviewapp.reviews.exports.selectors import review_export_model
from reviewapp.reviews.models import Review
from reviewapp.reviews.selectors import review_get_for_user


def export_response(*, review: Review, user: Any, fmt: str) -> HttpResponse:
    """The rendered export as an attachment; records the export."""
    export_format = FORMATS[fmt]
    export = review_export_model(review=review)
    response = HttpResponse(export_format.render(export), content_type=export_format.content_type)
    response["Content-Disposition"] = content_disposition_header(
        as_attachment=True, filename=export_filename(export, fmt)
    )
    export_recorded(review=review, user=user, fmt=fmt, audience=REDLINE_AUDIENCES.get(fmt, ""))
    return response


@never_cache
@require_GET
@login_required
def review_export(request: HttpRequest, review_id: int, fmt: str) -> HttpResponse:
    review = review_get_for_user(user=request.user, review_id=review_id)
    if review is None or fmt not in FORMATS:
        raise Http404("No such review.")
    return export_response(review=review, user=request.user, fmt=fmt)
