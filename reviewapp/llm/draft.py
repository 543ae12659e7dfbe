"""The L1 draft: one streaming Messages request whose text is passed on as it arrives."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anthropic

from reviewapp.llm.client import SDK_ERRORS, sdk_client, usage_from
from reviewapp.llm.config import LLMSettings
from reviewapp.llm.errors import LLMUnavailable, classify_error
from reviewapp.llm.prompts import draft_user_message, passage_indexes, shared_tools, system_blocks
from reviewapp.llm.schemas import (
    DRAFT_VALIDATOR,
    KEY_FACT_LISTS,
    KEY_FACT_SINGLE,
    schema_errors,
)
from reviewapp.llm.usage import CallUsage

_FENCE = re.compile(r"```(?:json)?\s*\n(.*?)\n\s*```", re.DOTALL)


@dataclass
class DraftResult:
    text: str  # the raw streamed text
    draft: dict[str, Any]  # validated; key_facts always carries every known key
    usage: CallUsage
    dropped_issues: list[dict[str, Any]] = field(default_factory=list)  # cited unknown passages


def stream_draft(
    settings: LLMSettings, *, prefix: str, instructions: str, on_delta: Callable[[str], None]
) -> DraftResult:
    """Stream the draft review, passing text deltas to ``on_delta`` as they arrive.

    Raises LLMUnavailable on any failure. A failure after text was already passed on is
    ``stream_interrupted``: the caller must discard what it showed; no partial draft is returned.
    The first text must arrive within ``first_token_timeout_s``, which is also the stream's read
    timeout (the longest silence tolerated between two chunks). Exceptions raised by
    ``on_delta`` propagate unchanged.
    """
    client = sdk_client(settings)
    watch = _StreamWatch(settings)
    try:
        with client.messages.stream(**draft_request(settings, prefix, instructions)) as stream:
            watch.request_id = stream.request_id
            for event in stream:
                watch.see(event, on_delta)
            message = stream.get_final_message()
    except LLMUnavailable as exc:
        raise exc.with_usage(watch.usage()) from exc
    except SDK_ERRORS as exc:
        raise watch.failure(exc) from exc
    usage = watch.usage(message)
    if not watch.stopped:
        raise LLMUnavailable(
            "stream_interrupted", retryable=True, detail="stream ended before message_stop"
        ).with_usage(usage)
    check_stop_reason(message.stop_reason, usage)
    text = "".join(watch.parts)
    draft, dropped = parse_draft(text, passage_indexes(prefix), usage)
    return DraftResult(text=text, draft=draft, usage=usage, dropped_issues=dropped)


def draft_request(settings: LLMSettings, prefix: str, instructions: str) -> dict[str, Any]:
    """The Messages API request for a draft (streamed call or batch entry)."""
    request: dict[str, Any] = {
        "model": settings.model,
        "max_tokens": settings.draft_max_tokens,
        "system": system_blocks(prefix),
        "tools": shared_tools(),
        "tool_choice": {"type": "none"},
        "messages": [{"role": "user", "content": draft_user_message(instructions)}],
        "timeout": anthropic.Timeout(
            settings.timeout_s,
            connect=settings.connect_timeout_s,
            read=min(settings.timeout_s, settings.first_token_timeout_s),
        ),
    }
    if settings.draft_temperature is not None:
        request["extra_body"] = {"temperature": settings.draft_temperature}
    return request


class _StreamWatch:
    """Collects text, timing and partial usage while a stream runs."""

    def __init__(self, settings: LLMSettings) -> None:
        self.settings = settings
        self.started = time.perf_counter()
        self.first_text_at: float | None = None
        self.parts: list[str] = []
        self.stopped = False
        self.request_id: str | None = None
        self.snapshot: Any = None

    def see(self, event: Any, on_delta: Callable[[str], None]) -> None:
        if event.type == "message_start":
            self.snapshot = event.message
        elif event.type == "content_block_delta" and event.delta.type == "text_delta":
            if self.first_text_at is None:
                self.first_text_at = time.perf_counter()
            self.parts.append(event.delta.text)
            on_delta(event.delta.text)
        elif event.type == "message_stop":
            self.stopped = True
            self.snapshot = event.message
        if self.first_text_at is None and self._elapsed() > self.settings.first_token_timeout_s:
            raise LLMUnavailable(
                "timeout", retryable=True, detail="no text within first_token_timeout_s"
            )

    def failure(self, exc: BaseException) -> LLMUnavailable:
        error = classify_error(exc)
        if self.parts:
            error = LLMUnavailable(
                "stream_interrupted",
                retryable=True,
                detail=f"after {len(self.parts)} deltas: {error}",
                retry_after_s=error.retry_after_s,
            )
        if self.request_id is None:
            self.request_id = getattr(exc, "request_id", None)
        return error.with_usage(self.usage())

    def usage(self, message: Any = None) -> CallUsage:
        source = message if message is not None else self.snapshot
        ttft = None if self.first_text_at is None else (self.first_text_at - self.started) * 1000
        return usage_from(
            source,
            model=self.settings.model,
            started=self.started,
            ttft_ms=ttft,
            request_id=self.request_id,
        )

    def _elapsed(self) -> float:
        return time.perf_counter() - self.started


def check_stop_reason(stop_reason: str | None, usage: CallUsage) -> None:
    """Raise LLMUnavailable unless the draft ended as an answer should."""
    if stop_reason in ("end_turn", "stop_sequence"):
        return
    # A refusal or a draft longer than draft_max_tokens would most likely recur on a retry.
    retryable = stop_reason not in ("refusal", "max_tokens")
    raise LLMUnavailable(
        "bad_response", retryable=retryable, detail=f"stop_reason {stop_reason}"
    ).with_usage(usage)


def parse_draft(
    text: str, known_passages: set[int], usage: CallUsage | None = None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The validated draft and the issues dropped for citing passages that do not exist."""
    try:
        draft = json.loads(_json_part(text))
    except ValueError as exc:
        raise _bad_response(f"draft is not JSON: {exc}", usage) from exc
    errors = schema_errors(draft, DRAFT_VALIDATOR)
    if errors:
        raise _bad_response("draft does not match the schema: " + "; ".join(errors[:5]), usage)
    facts = draft["key_facts"]
    for name in KEY_FACT_LISTS:
        facts.setdefault(name, [])
    for name in KEY_FACT_SINGLE:
        facts.setdefault(name, None)
    kept: list[dict[str, Any]] = []
    dropped: list[dict[str, Any]] = []
    for issue in draft["issues"]:
        issue["passage"] = int(issue["passage"])
        (kept if issue["passage"] in known_passages else dropped).append(issue)
    draft["issues"] = kept
    return draft, dropped


def _json_part(text: str) -> str:
    fenced = _FENCE.search(text)
    if fenced:
        return fenced.group(1)
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        raise ValueError("no JSON object in the answer")
    return text[start : end + 1]


def _bad_response(detail: str, usage: CallUsage | None) -> LLMUnavailable:
    error = LLMUnavailable("bad_response", retryable=True, detail=detail)
    return error.with_usage(usage) if usage is not None else error
