"""The export formats: renderer, content type and file name of each."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePath

from django.utils import translation

from reviewapp.reviews.exports import csv_export, docx_memo, json_export
from reviewapp.reviews.exports.model import ReviewExport
from reviewapp.reviews.redlines import export as redline_export


@dataclass(frozen=True)
class ExportFormat:
    name: str
    content_type: str
    render: Callable[[ReviewExport], bytes]


def in_english(render: Callable[[ReviewExport], bytes]) -> Callable[[ReviewExport], bytes]:
    """A machine-read format (JSON, CSV) says the same whoever downloads it: its sentences
    (who verified, the engine statements) in English, as its codes and category names are."""

    def rendered(export: ReviewExport) -> bytes:
        with translation.override("en"):
            return render(export)

    return rendered


FORMATS = {
    # The memo is read by people: in the reader's language.
    "docx": ExportFormat("docx", docx_memo.CONTENT_TYPE, docx_memo.docx_memo_render),
    "json": ExportFormat(
        "json", json_export.CONTENT_TYPE, in_english(json_export.json_export_render)
    ),
    "csv": ExportFormat("csv", csv_export.CONTENT_TYPE, in_english(csv_export.csv_export_render)),
    # The contract itself, with accepted redlines as tracked changes (reviews.redlines): for the
    # counterparty (only the lawyers' comments for the other side) and for the firm (every
    # issue as a comment as well).
    "redline.docx": ExportFormat(
        "redline.docx", redline_export.CONTENT_TYPE, redline_export.redline_counterparty_render
    ),
    "redline-internal.docx": ExportFormat(
        "redline-internal.docx",
        redline_export.CONTENT_TYPE,
        redline_export.redline_internal_render,
    ),
}
# Who each redline export is for, as the audit log records it.
REDLINE_AUDIENCES = {"redline.docx": "counterparty", "redline-internal.docx": "firm"}

_UNSAFE_IN_NAME = re.compile(r"[^\w.\- ]+")


def export_filename(export: ReviewExport, fmt: str) -> str:
    """`<contract name without extension>-review-<id>.<fmt>`; CJK names are kept."""
    stem = _UNSAFE_IN_NAME.sub("_", PurePath(export.contract_name).stem).strip(" ._") or "contract"
    return f"{stem[:80]}-review-{export.review_id}.{fmt}"
