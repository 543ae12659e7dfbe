"""Message Batches: many draft and verification requests sent at once, answered within 24 hours
at half the price (``client.messages.batches``).

A batch request carries the same parameters as the interactive call it replaces (the same
builders, so the cached contract prefix and the verdict tool are byte-identical), and its answer
goes through the same checks: the draft's schema, the verdict tool's schema, the quote check.
Plain values in, plain values out; the app decides what a result means for its rows.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

import anthropic

from reviewapp.llm.client import SDK_ERRORS, sdk_client, usage_from
from reviewapp.llm.config import LLMSettings
from reviewapp.llm.draft import DraftResult, check_stop_reason, draft_request, parse_draft
from reviewapp.llm.errors import LLMUnavailable, classify_error
from reviewapp.llm.prompts import passage_indexes
from reviewapp.llm.usage import CallUsage
from reviewapp.llm.verify import (
    VerifyItem,
    VerifyResult,
    enforce_verdicts,
    tool_input,
    verify_request,
)

ENDED = "ended"
RESULT_TYPES = ("succeeded", "errored", "canceled", "expired")
# Token estimates before a batch is sent: UTF-8 bytes per token, on the safe side of what the
# tokenizer gives for English (about 4) and Chinese (about 3 per character).
BYTES_PER_TOKEN = 3.5
# Output is unknown before the model answers: a draft is assumed to use this many tokens (or
# its max_tokens if lower), a verification this many per passage.
DRAFT_OUTPUT_TOKENS = 1200
VERDICT_OUTPUT_TOKENS = 200


@dataclass(frozen=True)
class BatchRequest:
    custom_id: str  # ^[a-zA-Z0-9_-]{1,64}$, unique in its batch
    params: dict[str, Any]


@dataclass(frozen=True)
class BatchStatus:
    id: str
    processing_status: str  # in_progress | canceling | ended
    processing: int
    succeeded: int
    errored: int
    canceled: int
    expired: int
    created_at: datetime | None = None
    ended_at: datetime | None = None
    expires_at: datetime | None = None

    @property
    def ended(self) -> bool:
        return self.processing_status == ENDED


@dataclass(frozen=True)
class BatchOutcome:
    """One line of a batch's results: ``message`` is the SDK Message of a succeeded request,
    ``error`` what went wrong with an errored one."""

    custom_id: str
    type: str  # succeeded | errored | canceled | expired
    message: Any = None
    error: str = ""


def draft_params(settings: LLMSettings, *, prefix: str, instructions: str) -> dict[str, Any]:
    """The interactive draft request without what only a live call has (stream, timeout)."""
    params = draft_request(settings, prefix, instructions)
    params.pop("timeout", None)
    return _flatten_extra_body(params)


def verify_params(
    settings: LLMSettings, *, prefix: str, items: Sequence[VerifyItem]
) -> dict[str, Any]:
    return _flatten_extra_body(verify_request(settings, prefix, items))


def _flatten_extra_body(params: dict[str, Any]) -> dict[str, Any]:
    # The SDK merges extra_body into a live request; a batch sends the params as they are.
    extra = params.pop("extra_body", None) or {}
    return {**params, **extra}


def batch_create(settings: LLMSettings, requests: Sequence[BatchRequest]) -> BatchStatus:
    """Send the requests as one Message Batch. Raises LLMUnavailable."""
    if not requests:
        raise ValueError("A Message Batch needs at least one request.")
    body: list[Any] = [{"custom_id": r.custom_id, "params": r.params} for r in requests]
    return _status(_call(lambda: sdk_client(settings).messages.batches.create(requests=body)))


def batch_retrieve(settings: LLMSettings, batch_id: str) -> BatchStatus:
    return _status(_call(lambda: sdk_client(settings).messages.batches.retrieve(batch_id)))


def batch_cancel(settings: LLMSettings, batch_id: str) -> BatchStatus:
    return _status(_call(lambda: sdk_client(settings).messages.batches.cancel(batch_id)))


def batch_results(settings: LLMSettings, batch_id: str) -> list[BatchOutcome]:
    """Every result of an ended batch (the JSONL file, read whole so a broken connection
    fails the read, not half of the landing). Raises LLMUnavailable."""
    return _call(lambda: list(_outcomes(sdk_client(settings), batch_id)))


def _outcomes(client: Any, batch_id: str) -> Iterator[BatchOutcome]:
    for line in client.messages.batches.results(batch_id):
        result = line.result
        error = ""
        if result.type == "errored":
            inner = getattr(result.error, "error", None)
            error = f"{getattr(inner, 'type', 'error')}: {getattr(inner, 'message', '')}"
        yield BatchOutcome(
            custom_id=line.custom_id,
            type=result.type,
            message=getattr(result, "message", None),
            error=error.strip(": "),
        )


def _call(run: Any) -> Any:
    try:
        return run()
    except SDK_ERRORS as exc:
        raise classify_error(exc) from exc
    except anthropic.AnthropicError as exc:  # e.g. "no results_url" for a batch not ended
        raise LLMUnavailable("bad_response", retryable=True, detail=str(exc)[:200]) from exc


def _status(batch: Any) -> BatchStatus:
    counts = batch.request_counts
    return BatchStatus(
        id=batch.id,
        processing_status=batch.processing_status,
        processing=counts.processing,
        succeeded=counts.succeeded,
        errored=counts.errored,
        canceled=counts.canceled,
        expired=counts.expired,
        created_at=getattr(batch, "created_at", None),
        ended_at=getattr(batch, "ended_at", None),
        expires_at=getattr(batch, "expires_at", None),
    )


# ------------------------------------------------------------------ answers of succeeded requests


def batch_usage(message: Any, *, model: str) -> CallUsage:
    """The usage of a batch answer, marked for the batch price (no latency of its own)."""
    usage = usage_from(message, model=model, started=0.0, ttft_ms=None, request_id=None)
    return replace(usage, latency_ms=0.0, batch=True, request_id=getattr(message, "id", None))


def draft_from_message(settings: LLMSettings, message: Any, *, prefix: str) -> DraftResult:
    """The validated draft of a succeeded batch request, as ``stream_draft`` returns it.

    Raises LLMUnavailable (``bad_response``, with the usage) when it is unusable.
    """
    usage = batch_usage(message, model=settings.model)
    check_stop_reason(message.stop_reason, usage)
    text = "".join(block.text for block in message.content if block.type == "text")
    draft, dropped = parse_draft(text, passage_indexes(prefix), usage)
    return DraftResult(text=text, draft=draft, usage=usage, dropped_issues=dropped)


def verify_from_message(
    settings: LLMSettings, message: Any, *, items: Sequence[VerifyItem]
) -> VerifyResult:
    """The verdicts of a succeeded batch request, after the same checks as ``verify_passages``
    (schema, one verdict per item, the quote check). Raises LLMUnavailable when unusable."""
    usage = batch_usage(message, model=settings.model)
    answer = tool_input(message, usage)
    return VerifyResult(verdicts=enforce_verdicts(items, answer["verdicts"]), usage=usage)


# ------------------------------------------------------------------ estimates


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text.encode("utf-8")) / BYTES_PER_TOKEN)


def estimate_usage(
    params: dict[str, Any], *, prefix_cached: bool, output_tokens: int, model: str
) -> CallUsage:
    """What a request will probably use, from its text: tools and system blocks (the cached
    prefix) are a cache read when an earlier request of the batch wrote them, else a write."""
    prefix = json.dumps(params.get("tools") or [], ensure_ascii=False) + "".join(
        block.get("text", "") for block in params.get("system") or []
    )
    rest = json.dumps(params.get("messages") or [], ensure_ascii=False)
    prefix_tokens = estimate_tokens(prefix)
    return CallUsage(
        input_tokens=estimate_tokens(rest),
        output_tokens=min(output_tokens, int(params.get("max_tokens") or output_tokens)),
        cache_read_input_tokens=prefix_tokens if prefix_cached else 0,
        cache_creation_input_tokens=0 if prefix_cached else prefix_tokens,
        model=model,
        batch=True,
    )
