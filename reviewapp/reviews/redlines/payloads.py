"""Redlines as JSON for the API and the page's script."""

from __future__ import annotations

from typing import Any

from reviewapp.reviews.redlines.diff import redline_diff
from reviewapp.reviews.redlines.labels import accepted_label, source_label
from reviewapp.reviews.redlines.models import Redline


def redline_payload(
    redline: Redline, *, history: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "id": redline.pk,
        "url": f"/api/redlines/{redline.pk}/",
        "review_id": redline.review_id,
        "passage": redline.passage_id,
        "passage_index": redline.passage.index,
        "category": redline.category,
        "rule_id": redline.rule_id,
        "span_start": redline.span_start,
        "span_end": redline.span_end,
        "original": redline.original_text,
        "replacement": redline.replacement,
        "counterparty_comment": redline.counterparty_comment,
        "source": redline.source,
        "status": redline.status,
        "status_label": str(redline.get_status_display()),
        "source_label": source_label(
            source=redline.source,
            unchanged=redline.replacement == redline.original_text,
            status=redline.status,
            author=redline.author,
        ),
        "author": _username(redline.author),
        "accepted_by": _username(redline.accepted_by),
        "accepted_label": accepted_label(redline.accepted_by),
        "accepted_at": redline.accepted_at.isoformat() if redline.accepted_at else None,
        "updated_at": redline.updated_at.isoformat(),
        "diff": [
            {"op": s.op, "text": s.text}
            for s in redline_diff(redline.original_text, redline.replacement)
        ],
    }
    if history is not None:
        payload["history"] = history
    return payload


def _username(user: Any) -> str | None:
    return user.get_username() if user is not None else None
