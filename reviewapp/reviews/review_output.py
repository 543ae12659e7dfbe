"""The stable per-document record of `manage.py review` (batch use and measurement).

Later capabilities add fields; they never rename these.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from reviewapp.contracts.models import Contract
from reviewapp.reviews.drafting import draft_payload
from reviewapp.reviews.models import (
    Draft,
    ModelCall,
    PassageTransition,
    Review,
    RuleFiring,
    Verification,
)


def document_record(
    *, document: str, contract: Contract | None, with_text: bool, timings_ms: dict[str, float]
) -> dict[str, Any]:
    if contract is None:
        return error_record(document=document, code="NOT_FOUND", message="No such file.")
    firings = _firings_by_passage(contract)
    trigger_states = dict(
        PassageTransition.objects.filter(passage__contract=contract, from_state=None).values_list(
            "passage_id", "to_state"
        )
    )
    verifications = {
        v.passage_id: v for v in Verification.objects.filter(passage__contract=contract)
    }
    passages = []
    for passage in contract.passages.order_by("index"):
        fired = firings.get(passage.pk, [])
        verification = verifications.get(passage.pk)
        passages.append(
            {
                "index": passage.index,
                "page": passage.page,
                "start": passage.start,
                "end": passage.end,
                "state": passage.state,
                # What the first stage named, and what still stands after the check.
                "categories": sorted({c for c, _, dropped in fired if not dropped}),
                "trigger_categories": sorted({category for category, _, _ in fired}),
                "dropped_categories": sorted(
                    {c for c, _, dropped in fired if dropped}
                    - {c for c, _, dropped in fired if not dropped}
                ),
                "rules": sorted({rule_id for _, rule_id, _ in fired}),
                "trigger_state": trigger_states.get(passage.pk),
                "verification": _verification(verification) if verification else None,
                **({"text": passage.text} if with_text else {}),
            }
        )
    error = (
        {"code": contract.error_code, "message": contract.error_message}
        if contract.error_code
        else None
    )
    return {
        "document": document,
        "status": contract.status,
        "error": error,
        "pages": contract.page_count,
        "chars": len(contract.text),
        "contract_type": contract.contract_type or None,
        "language": contract.language or None,
        "check_version": _check_version(contract),
        **_review_fields(contract),
        "passages": passages,
        "timings_ms": {**contract.timings_ms, **timings_ms},
    }


def _review_fields(contract: Contract) -> dict[str, Any]:
    review = Review.objects.filter(contract=contract).select_related("playbook_version__playbook")
    found = review.first()
    draft = Draft.objects.filter(review=found).first() if found else None
    calls = ModelCall.objects.filter(review=found).order_by("pk") if found else []
    return {
        "review_status": found.status if found else None,
        "playbook_version": found.playbook_version.label if found else None,
        "engine": found.engine if found else None,
        "draft": draft_payload(draft) if draft else None,
        "model_calls": [
            {
                "purpose": call.purpose,
                "model": call.model,
                "input_tokens": call.input_tokens,
                "output_tokens": call.output_tokens,
                "cache_read_input_tokens": call.cache_read_input_tokens,
                "cache_creation_input_tokens": call.cache_creation_input_tokens,
                "latency_ms": call.latency_ms,
                "ttft_ms": call.ttft_ms,
                "outcome": call.outcome,
                "cost_usd": float(call.cost_usd),
            }
            for call in calls
        ],
    }


def _verification(verification: Verification) -> dict[str, Any]:
    return {
        "outcome": verification.outcome or None,
        "engine": verification.engine,
        "quote": verification.quote,
        "reason": verification.reason or None,
        "rationale": verification.rationale,
        "redline": verification.redline,
        "question": verification.question,
        "url": f"/api/verifications/{verification.pk}/",
    }


def _firings_by_passage(contract: Contract) -> dict[int, list[tuple[str, str, bool]]]:
    grouped: dict[int, list[tuple[str, str, bool]]] = defaultdict(list)
    rows = RuleFiring.objects.filter(passage__contract=contract).values_list(
        "passage_id", "category", "rule_id", "dropped"
    )
    for passage_id, category, rule_id, dropped in rows:
        grouped[passage_id].append((category, rule_id, dropped))
    return grouped


def _check_version(contract: Contract) -> str | None:
    found = Review.objects.filter(contract=contract).values_list("check_version", flat=True)
    return next(iter(found), None) or None


def error_record(*, document: str, code: str, message: str) -> dict[str, Any]:
    return {
        "document": document,
        "status": code,
        "error": {"code": code, "message": message},
        "pages": 0,
        "chars": 0,
        "contract_type": None,
        "passages": [],
        "timings_ms": {},
    }


def iter_documents(paths: list[str]) -> list[str]:
    """Files named on the command line, and every file under named directories, in order."""
    found: list[str] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found.extend(
                str(child)
                for child in sorted(path.rglob("*"))
                if child.is_file() and not child.name.startswith(".")
            )
        else:
            found.append(raw)
    return found


def table_row(record: dict[str, Any]) -> str:
    error = record["error"]["message"] if record["error"] else ""
    return (
        f"{record['status']:<17} {record['pages']:>5} {len(record['passages']):>8} "
        f"{record['document']}{'  — ' + error if error else ''}"
    )


TABLE_HEADER = f"{'STATUS':<17} {'PAGES':>5} {'PASSAGES':>8} DOCUMENT"
