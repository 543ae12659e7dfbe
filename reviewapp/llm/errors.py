"""The one exception the rest of the app sees when the model fails, and how errors map to it."""

from __future__ import annotations

import email.utils
import time
from dataclasses import replace
from typing import Any

import anthropic
import httpx2  # the SDK's HTTP layer: stream reads raise its errors unwrapped

from reviewapp.llm.usage import CallUsage
from reviewapp.retries import MaybeRetryable

KINDS = (
    "rate_limited",
    "overloaded",
    "server_error",
    "timeout",
    "connection",
    "bad_response",
    "stream_interrupted",
    "request_rejected",
)


class LLMUnavailable(MaybeRetryable):
    """The model gave no usable answer. ``retryable`` says whether asking again may help.

    Kinds: rate_limited, overloaded, server_error, timeout, connection, stream_interrupted
    (retryable), bad_response (retryable unless the model refused or ran out of max_tokens) and
    request_rejected (a 4xx other than 429: key, model name or request are wrong; never
    retryable).
    """

    def __init__(
        self,
        kind: str,
        *,
        retryable: bool,
        detail: str = "",
        retry_after_s: float | None = None,
        usage: CallUsage | None = None,
    ) -> None:
        if kind not in KINDS:
            raise ValueError(f"Unknown LLMUnavailable kind {kind!r}.")
        super().__init__(f"{kind}: {detail}" if detail else kind)
        self.kind = kind
        self.retryable = retryable
        self.detail = detail
        self.retry_after_s = retry_after_s
        self.usage = usage

    def __reduce__(self) -> tuple[Any, ...]:
        # Celery pickles exceptions; keyword-only arguments need an explicit recipe.
        return (_rebuild, (self.kind, self.retryable, self.detail, self.retry_after_s, self.usage))

    def with_usage(self, usage: CallUsage) -> LLMUnavailable:
        return LLMUnavailable(
            self.kind,
            retryable=self.retryable,
            detail=self.detail,
            retry_after_s=self.retry_after_s,
            usage=replace(usage, outcome=f"error:{self.kind}"),
        )


def _rebuild(
    kind: str,
    retryable: bool,
    detail: str,
    retry_after_s: float | None,
    usage: CallUsage | None,
) -> LLMUnavailable:
    return LLMUnavailable(
        kind, retryable=retryable, detail=detail, retry_after_s=retry_after_s, usage=usage
    )


def classify_error(exc: BaseException) -> LLMUnavailable:
    """Map an SDK or transport error to LLMUnavailable (without usage; callers attach it)."""
    if isinstance(exc, LLMUnavailable):
        return exc
    if isinstance(exc, anthropic.APITimeoutError | httpx2.TimeoutException):
        return LLMUnavailable("timeout", retryable=True, detail=type(exc).__name__)
    if isinstance(exc, anthropic.APIConnectionError | httpx2.TransportError):
        return LLMUnavailable("connection", retryable=True, detail=type(exc).__name__)
    if isinstance(exc, anthropic.APIResponseValidationError):
        return LLMUnavailable("bad_response", retryable=True, detail="response failed validation")
    if isinstance(exc, anthropic.APIStatusError):
        return _from_status(exc)
    return LLMUnavailable("bad_response", retryable=False, detail=f"{type(exc).__name__}: {exc}")


def _from_status(exc: anthropic.APIStatusError) -> LLMUnavailable:
    status = exc.status_code
    error_type = getattr(exc, "type", None) or _body_error_type(exc.body)
    detail = f"HTTP {status} {error_type or ''}".strip()
    retry_after = retry_after_seconds(exc.response.headers)
    if status == 429 or error_type == "rate_limit_error":
        return LLMUnavailable(
            "rate_limited", retryable=True, detail=detail, retry_after_s=retry_after
        )
    if status == 529 or error_type == "overloaded_error":
        return LLMUnavailable(
            "overloaded", retryable=True, detail=detail, retry_after_s=retry_after
        )
    if status == 408 or error_type == "timeout_error":
        return LLMUnavailable("timeout", retryable=True, detail=detail)
    if status >= 500 or error_type == "api_error":
        return LLMUnavailable(
            "server_error", retryable=True, detail=detail, retry_after_s=retry_after
        )
    return LLMUnavailable("request_rejected", retryable=False, detail=f"{detail}: {exc.message}")


def _body_error_type(body: object) -> str | None:
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        value = body["error"].get("type")
        return value if isinstance(value, str) else None
    return None


def retry_after_seconds(headers: Any) -> float | None:
    """``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date), as the SDK reads them."""
    if headers is None:
        return None
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return max(float(millis) / 1000, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        parsed = email.utils.parsedate_tz(value)
        if parsed is None:
            return None
        return max(float(email.utils.mktime_tz(parsed)) - time.time(), 0.0)
