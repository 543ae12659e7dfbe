"""The L2 verification call: one forced tool call for a batch of passages of one contract.

The model's verdicts are checked in code, not trusted: a CONFIRMED or REJECTED verdict needs a
quote that occurs in that passage (whitespace-insensitive), verdicts for passages outside the
batch are dropped, and a passage without a verdict needs a human.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from reviewapp.llm.client import SDK_ERRORS, sdk_client, usage_from
from reviewapp.llm.config import LLMSettings
from reviewapp.llm.errors import LLMUnavailable, classify_error
from reviewapp.llm.prompts import shared_tools, system_blocks, verify_user_message
from reviewapp.llm.schemas import RECORD_VERDICTS_TOOL, VERDICTS_VALIDATOR, schema_errors
from reviewapp.llm.usage import CallUsage

NEEDS_HUMAN_REVIEW = "NEEDS_HUMAN_REVIEW"
QUOTE_NOT_FOUND = "QUOTE_NOT_FOUND"
NO_VERDICT = "NO_VERDICT"
CONFLICTING_VERDICTS = "CONFLICTING_VERDICTS"
MIN_QUOTE_CHARS = 8  # or the whole passage, when it is shorter


@dataclass(frozen=True)
class VerifyItem:
    passage_index: int
    text: str  # the passage as stored; quotes are checked against it
    rule_id: str
    category: str
    question: str


@dataclass(frozen=True)
class Verdict:
    passage_index: int
    outcome: str  # CONFIRMED | REJECTED | NEEDS_HUMAN_REVIEW
    risk: str
    rationale: str
    quote: str
    redline: str
    question: str
    reason: str | None = None  # why the code overrode the model, e.g. QUOTE_NOT_FOUND


@dataclass
class VerifyResult:
    verdicts: list[Verdict]  # one per item, in the order of the items
    usage: CallUsage


def verify_passages(
    settings: LLMSettings, *, prefix: str, items: Sequence[VerifyItem]
) -> VerifyResult:
    """Verify a batch of flagged passages of the contract whose prefix is ``prefix``.

    Raises LLMUnavailable when the call fails or the tool input does not match the schema.
    """
    indexes = [item.passage_index for item in items]
    if not items or len(set(indexes)) != len(indexes):
        raise ValueError("verify_passages needs a non-empty batch of distinct passages.")
    client = sdk_client(settings)
    started = time.perf_counter()
    try:
        message = client.messages.create(**verify_request(settings, prefix, items))
    except SDK_ERRORS as exc:
        failed = CallUsage(
            model=settings.model,
            latency_ms=(time.perf_counter() - started) * 1000,
            request_id=getattr(exc, "request_id", None),
        )
        raise classify_error(exc).with_usage(failed) from exc
    usage = usage_from(
        message, model=settings.model, started=started, ttft_ms=None, request_id=None
    )
    answer = tool_input(message, usage)
    return VerifyResult(verdicts=enforce_verdicts(items, answer["verdicts"]), usage=usage)


def verify_request(
    settings: LLMSettings, prefix: str, items: Sequence[VerifyItem]
) -> dict[str, Any]:
    """The Messages API request that verifies ``items`` (interactive call or batch entry)."""
    request: dict[str, Any] = {
        "model": settings.model,
        "max_tokens": settings.verify_max_tokens,
        "system": system_blocks(prefix),
        "tools": shared_tools(),
        "tool_choice": {"type": "tool", "name": RECORD_VERDICTS_TOOL["name"]},
        "messages": [{"role": "user", "content": verify_user_message(items)}],
    }
    if settings.verify_temperature is not None:
        request["extra_body"] = {"temperature": settings.verify_temperature}
    return request


def tool_input(message: Any, usage: CallUsage) -> dict[str, Any]:
    """The verdict tool's input of a model answer, checked against its schema; raises
    LLMUnavailable for a refusal, an answer without the tool call or one off the schema."""
    if message.stop_reason == "refusal":
        raise LLMUnavailable("bad_response", retryable=False, detail="refusal").with_usage(usage)
    calls = [
        block
        for block in message.content
        if block.type == "tool_use" and block.name == RECORD_VERDICTS_TOOL["name"]
    ]
    if not calls:
        detail = f"no record_verdicts call (stop_reason {message.stop_reason})"
        raise LLMUnavailable("bad_response", retryable=True, detail=detail).with_usage(usage)
    answer = calls[0].input
    errors = schema_errors(answer, VERDICTS_VALIDATOR)
    if errors:
        detail = "tool input does not match the schema: " + "; ".join(errors[:5])
        raise LLMUnavailable("bad_response", retryable=True, detail=detail).with_usage(usage)
    return answer


def enforce_verdicts(
    items: Sequence[VerifyItem], answers: Sequence[dict[str, Any]]
) -> list[Verdict]:
    """One verdict per item, in item order, after the hard rules (see module docstring)."""
    by_passage: dict[int, list[dict[str, Any]]] = {}
    for answer in answers:
        by_passage.setdefault(int(answer["passage"]), []).append(answer)
    return [_settle(item, by_passage.get(item.passage_index, [])) for item in items]


def _settle(item: VerifyItem, answers: list[dict[str, Any]]) -> Verdict:
    if not answers:
        return _needs_human(item, NO_VERDICT, rationale="The model gave no verdict.")
    if len({answer["outcome"] for answer in answers}) > 1:
        return _needs_human(item, CONFLICTING_VERDICTS, rationale="The model contradicted itself.")
    answer = answers[0]
    verdict = Verdict(
        passage_index=item.passage_index,
        outcome=answer["outcome"],
        risk=answer["risk"],
        rationale=answer["rationale"],
        quote=answer["quote"],
        redline=answer["redline"],
        question=answer["question"],
    )
    if verdict.outcome != NEEDS_HUMAN_REVIEW and not quote_found(verdict.quote, item.text):
        return replace(verdict, outcome=NEEDS_HUMAN_REVIEW, reason=QUOTE_NOT_FOUND)
    return verdict


def _needs_human(item: VerifyItem, reason: str, *, rationale: str) -> Verdict:
    return Verdict(
        passage_index=item.passage_index,
        outcome=NEEDS_HUMAN_REVIEW,
        risk="medium",
        rationale=rationale,
        quote="",
        redline="",
        question="",
        reason=reason,
    )


def quote_found(quote: str, passage_text: str) -> bool:
    """Whether ``quote`` occurs in the passage, comparing with runs of whitespace collapsed.
    An empty or trivially short quote (under MIN_QUOTE_CHARS, unless the passage is as short)
    does not count."""
    needle, haystack = _collapse(quote), _collapse(passage_text)
    if len(needle) < min(MIN_QUOTE_CHARS, len(haystack)) or not needle:
        return False
    return needle in haystack


def _collapse(value: str) -> str:
    return " ".join(value.split())
