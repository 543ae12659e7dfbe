"""The JSON export: a stable, documented schema (`clausewise.review-export/1`).

Fields are only ever added under the same schema name; a rename or removal gets a new one.

    {
      "schema": "clausewise.review-export/1",
      "generated_at": "2025-01-31T12:00:00+00:00",          # UTC
      "review": {"id", "status", "in_progress", "engine", "playbook_version", "created_at"},
      "contract": {"id", "name", "matter", "organisation", "language", "contract_type", "pages"},
      "engines": {"review": "offline|anthropic", "draft": "offline|anthropic|null",
                  "draft_models": [...], "statements": {"draft", "verification", "decisions"}},
      "counts": {"passages_by_state": {"CONFIRMED": n, ...}, "pending": n, "awaiting_lawyer": n},
      "summary": "...", "key_facts": {...},
      "draft": {"status", "issues": [...], "flags": [...], "error"} | null,
      "issues": [{
        "passage": {"index", "number", "heading", "page", "start", "end", "state", "text",
                    "context_rule_ids"},                 # secondary rules of other categories
        "rule_id", "category", "severity", "action", "question",
        "firings": [{"start", "end", "text"}],                # offsets into the contract text
        "verification": {"status", "outcome", "engine", "model", "verified_by", "risk",
                         "rationale", "quote", "redline", "question", "reason",
                         "completed_at"} | null,
        "decision": {"status", "decision", "note", "decided_by", "decided_at",
                     "claimed_by"} | null
      }]
    }
"""

from __future__ import annotations

import json
from dataclasses import asdict
from datetime import datetime
from typing import Any

from reviewapp.reviews.exports.model import Issue, ReviewExport

SCHEMA = "clausewise.review-export/1"
CONTENT_TYPE = "application/json; charset=utf-8"


def json_export_render(export: ReviewExport) -> bytes:
    return json.dumps(json_export_data(export), ensure_ascii=False, indent=2).encode("utf-8")


def json_export_data(export: ReviewExport) -> dict[str, Any]:
    draft = export.draft
    return {
        "schema": SCHEMA,
        "generated_at": _iso(export.generated_at),
        "review": {
            "id": export.review_id,
            "status": export.status,
            "in_progress": export.in_progress,
            "engine": export.engine,
            "playbook_version": export.playbook_version,
            "created_at": _iso(export.created_at),
        },
        "contract": {
            "id": export.contract_id,
            "name": export.contract_name,
            "matter": export.matter,
            "organisation": export.organisation,
            "language": export.language or None,
            "contract_type": export.contract_type or None,
            "pages": export.pages,
        },
        "engines": {
            "review": export.engine,
            "draft": draft.engine if draft else None,
            "draft_models": list(draft.models) if draft else [],
            "statements": export.engine_statements(),
        },
        "counts": {
            "passages_by_state": export.state_counts,
            "pending": export.pending_count,
            "awaiting_lawyer": export.awaiting_lawyer_count,
        },
        "summary": draft.summary if draft else "",
        "key_facts": {name: f.as_dict() for name, f in draft.key_facts.items()} if draft else {},
        "draft": {
            "status": draft.status,
            "issues": draft.issues,
            "flags": draft.flags,
            "error": draft.error or None,
        }
        if draft
        else None,
        "issues": [_issue(issue) for issue in export.issues],
    }


def _issue(issue: Issue) -> dict[str, Any]:
    passage = asdict(issue.passage)
    passage.pop("pk")
    verification = issue.verification
    lawyer = issue.lawyer
    return {
        "passage": passage,
        "rule_id": issue.rule_id,
        "category": issue.category,
        "severity": issue.severity,
        "action": issue.action,
        "question": issue.question,
        "firings": [asdict(match) for match in issue.matches],
        "verification": {
            **asdict(verification),
            "verified_by": verification.verified_by,
            "completed_at": _iso(verification.completed_at),
        }
        if verification
        else None,
        "decision": {**asdict(lawyer), "decided_at": _iso(lawyer.decided_at)} if lawyer else None,
    }


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None
