"""The CSV export: one row per issue (a passage and a category), with a header row.

`rule_id` is the rule that routed the passage for the category, `rule_ids` every rule of the
category that fired on it; `rationale` is the category's own; `context_rules` the secondary
rules of other categories (questions for the verifier, not issues) that fired on the passage.
Cells quoting the contract are printed with `export_text` (no PDF line breaks or runs of
spaces); people's notes as written.

Encoded as UTF-8 with a byte-order mark so that Excel opens Chinese text correctly. Cells go
through the app's one formula guard (``reviewapp.csv_safety``).
"""

from __future__ import annotations

import io

from reviewapp.csv_safety import SafeWriter
from reviewapp.reviews.exports.model import Issue, ReviewExport, export_text

CONTENT_TYPE = "text/csv; charset=utf-8"

COLUMNS = [
    "review_id",
    "contract",
    "passage",
    "number",
    "page",
    "start",
    "end",
    "state",
    "category",
    "rule_id",
    "rule_ids",
    "severity",
    "action",
    "question",
    "context_rules",
    "matched_text",
    "verification_outcome",
    "verification_reason",
    "verified_by",
    "rationale",
    "quote",
    "suggested_redline",
    "counterparty_question",
    "lawyer_status",
    "lawyer_decision",
    "decided_by",
    "decided_at",
    "lawyer_note",
    "passage_text",
]


def csv_export_render(export: ReviewExport) -> bytes:
    buffer = io.StringIO()
    writer = SafeWriter(buffer, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    for issue in export.issues:
        writer.writerow(_row(export, issue))
    return buffer.getvalue().encode("utf-8-sig")


def _row(export: ReviewExport, issue: Issue) -> list[object]:
    passage, verification, lawyer = issue.passage, issue.verification, issue.lawyer
    return [
        export.review_id,
        export.contract_name,
        passage.index,
        passage.number,
        passage.page,
        passage.start,
        passage.end,
        passage.state,
        issue.category,
        issue.rule_id,
        " ".join(issue.rule_ids),
        issue.severity,
        issue.action,
        issue.question,
        " ".join(passage.context_rule_ids),
        export_text(" … ".join(match.text for match in issue.matches)),
        verification.outcome if verification else "",
        verification.reason if verification else "",
        verification.verified_by if verification else "",
        export_text(issue.rationale),
        export_text(verification.quote) if verification else "",
        verification.redline if verification else "",
        verification.question if verification else "",
        lawyer.status if lawyer else "",
        lawyer.decision if lawyer else "",
        lawyer.decided_by if lawyer else "",
        lawyer.decided_at.isoformat() if lawyer and lawyer.decided_at else "",
        lawyer.note if lawyer else "",
        export_text(passage.text),
    ]
