from __future__ import annotations

from typing import Any

import anthropic
import httpx2
import pytest

from reviewapp.llm import (
    DEFAULT_MODEL,
    DEFAULT_PRICES,
    CallUsage,
    classify_error,
    estimate_cost_usd,
)


def usage(**tokens: Any) -> CallUsage:
    return CallUsage(model=DEFAULT_MODEL, **tokens)


def test_cost_counts_each_kind_of_token_at_its_price():
    prices = {DEFAULT_MODEL: {"input": 3.0, "output": 15.0, "cache_read": 0.3, "cache_write": 3.75}}
    call = usage(
        input_tokens=1_000,
        output_tokens=2_000,
        cache_read_input_tokens=10_000,
        cache_creation_input_tokens=4_000,
    )

    assert estimate_cost_usd(call, prices) == pytest.approx(
        (1_000 * 3 + 2_000 * 15 + 10_000 * 0.3 + 4_000 * 3.75) / 1_000_000
    )


def test_default_prices_cover_the_default_model_and_dated_ids():
    assert estimate_cost_usd(usage(output_tokens=1_000_000), DEFAULT_PRICES) == 15.0
    dated = CallUsage(model=f"{DEFAULT_MODEL}-20260101", input_tokens=1_000_000)
    assert estimate_cost_usd(dated, DEFAULT_PRICES) == 3.0


def test_cache_prices_default_to_the_usual_multipliers():
    prices = {DEFAULT_MODEL: {"input": 2.0, "output": 10.0}}
    call = usage(cache_read_input_tokens=1_000_000, cache_creation_input_tokens=1_000_000)

    assert estimate_cost_usd(call, prices) == pytest.approx(0.2 + 2.5)


def test_unknown_model_has_no_price():
    with pytest.raises(KeyError):
        estimate_cost_usd(CallUsage(model="some-other-model"), DEFAULT_PRICES)


def status_error(status: int, body: object, headers: dict[str, str] | None = None):
    request = httpx2.Request("POST", "http://fake.invalid/v1/messages")
    response = httpx2.Response(status, headers=headers or {}, request=request)
    return anthropic.APIStatusError("boom", response=response, body=body)


@pytest.mark.parametrize(
    ("status", "error_type", "kind"),
    [
        (200, "overloaded_error", "overloaded"),  # an `event: error` inside a 200 stream
        (200, "rate_limit_error", "rate_limited"),
        (200, "api_error", "server_error"),
        (503, None, "server_error"),
        (408, None, "timeout"),
        (404, "not_found_error", "request_rejected"),
    ],
)
def test_status_errors_map_by_status_and_error_type(status, error_type, kind):
    body = {"type": "error", "error": {"type": error_type, "message": "m"}} if error_type else None

    assert classify_error(status_error(status, body)).kind == kind


def test_retry_after_is_read_in_milliseconds_first():
    error = status_error(429, None, {"retry-after-ms": "1500", "retry-after": "9"})

    assert classify_error(error).retry_after_s == 1.5


def test_transport_errors_raised_mid_stream_are_classified():
    request = httpx2.Request("POST", "http://fake.invalid/v1/messages")

    assert classify_error(httpx2.ReadTimeout("slow", request=request)).kind == "timeout"
    assert classify_error(httpx2.RemoteProtocolError("cut", request=request)).kind == "connection"
