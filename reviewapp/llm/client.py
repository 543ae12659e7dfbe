"""The SDK client, shared by the draft and the verification calls."""

from __future__ import annotations

import functools
import time
from typing import Any

import anthropic
import httpx2

from reviewapp.llm.config import LLMSettings
from reviewapp.llm.usage import CallUsage

SDK_ERRORS = (anthropic.APIError, httpx2.HTTPError)


@functools.lru_cache(maxsize=8)
def sdk_client(settings: LLMSettings) -> anthropic.Anthropic:
    """One client (and connection pool) per settings value."""
    return anthropic.Anthropic(
        api_key=settings.api_key,
        base_url=settings.base_url,
        timeout=anthropic.Timeout(settings.timeout_s, connect=settings.connect_timeout_s),
        max_retries=settings.max_retries,
    )


def usage_from(
    message: Any, *, model: str, started: float, ttft_ms: float | None, request_id: str | None
) -> CallUsage:
    """CallUsage from an SDK Message (or a partial stream snapshot, or nothing)."""
    usage = getattr(message, "usage", None)
    return CallUsage(
        input_tokens=getattr(usage, "input_tokens", 0) or 0,
        output_tokens=getattr(usage, "output_tokens", 0) or 0,
        cache_read_input_tokens=getattr(usage, "cache_read_input_tokens", 0) or 0,
        cache_creation_input_tokens=getattr(usage, "cache_creation_input_tokens", 0) or 0,
        latency_ms=(time.perf_counter() - started) * 1000,
        ttft_ms=ttft_ms,
        model=getattr(message, "model", None) or model,
        outcome="ok",
        request_id=request_id or getattr(message, "_request_id", None),
    )
