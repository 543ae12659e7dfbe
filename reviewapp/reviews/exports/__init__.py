"""Review exports: a Word memo with anchored comments, JSON and CSV, from one export model.

`selectors.review_export_model` reads a review once; `docx_memo`, `json_export` and
`csv_export` each render that model to bytes. Views call `export_recorded` for every download.
"""

from __future__ import annotations

from typing import Any

from reviewapp.audit.recorders import audit_export
from reviewapp.reviews.models import Review

EXPORT_FORMATS = ("docx", "json", "csv")


def export_recorded(*, review: Review, user: Any, fmt: str, audience: str = "") -> None:
    """Record in the audit log that `user` exported `review` as `fmt` ("docx", "json", "csv",
    "redline.docx", "redline-internal.docx"); `audience` says who a redline file is for
    ("counterparty" or "firm")."""
    audit_export(review=review, user=user, fmt=fmt, audience=audience)
