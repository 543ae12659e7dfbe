"""Every injected fault ends in the documented outcome, and never in a partial draft."""

from __future__ import annotations

import pickle
import time
from collections.abc import Iterator

import pytest

from reviewapp.llm import LLMUnavailable, stream_draft, verify_passages
from tests.fakes.messages_server import FakeMessagesServer, Fault, Pacing, running_server
from tests.llm import item, prefix, settings_for, usage_of


@pytest.fixture
def server() -> Iterator[FakeMessagesServer]:
    with running_server() as fake:
        yield fake


def run_draft(server: FakeMessagesServer, deltas: list[str] | None = None, **overrides):
    sink = deltas if deltas is not None else []
    return stream_draft(
        settings_for(server, **overrides), prefix=prefix(), instructions="", on_delta=sink.append
    )


def run_verify(server: FakeMessagesServer, **overrides):
    return verify_passages(settings_for(server, **overrides), prefix=prefix(), items=[item(2)])


def failure(call, *args, **kwargs) -> LLMUnavailable:
    with pytest.raises(LLMUnavailable) as caught:
        call(*args, **kwargs)
    return caught.value


def test_rate_limit_with_retry_after_is_retried_by_the_sdk(server):
    server.faults.add(Fault.rate_limited(retry_after=0.01))

    result = run_draft(server, max_retries=2)

    assert result.usage.outcome == "ok"
    assert [r.status for r in server.requests] == [429, 200]


def test_rate_limit_that_outlasts_the_retries_is_reported_with_retry_after(server):
    server.faults.always(Fault.rate_limited(retry_after=0.05))

    error = failure(run_verify, server, max_retries=1)

    assert (error.kind, error.retryable, error.retry_after_s) == ("rate_limited", True, 0.05)
    assert len(server.requests) == 2
    assert usage_of(error).outcome == "error:rate_limited"
    assert usage_of(error).request_id == "req_fake_000002"


@pytest.mark.parametrize(
    ("fault", "kind"),
    [
        (Fault.overloaded(), "overloaded"),
        (Fault.server_error(), "server_error"),
        (Fault.reset(), "connection"),
        (Fault.bad_request(), "request_rejected"),
    ],
)
@pytest.mark.parametrize("call", [run_draft, run_verify], ids=["draft", "verify"])
def test_failed_request_maps_to_its_kind(server, fault, kind, call):
    server.faults.add(fault)

    error = failure(call, server)

    assert error.kind == kind
    assert error.retryable is (kind != "request_rejected")
    assert usage_of(error).outcome == f"error:{kind}"


def test_overloaded_then_success_is_retried_by_the_sdk(server):
    server.faults.add(Fault.overloaded(retry_after=0.01), times=2)

    result = run_verify(server, max_retries=2)

    assert result.verdicts[0].outcome == "CONFIRMED"
    assert [r.status for r in server.requests] == [529, 529, 200]


def test_slow_first_byte_beyond_the_timeout_is_a_timeout(server):
    server.faults.add(Fault.slow_first_byte(6.0), times=2)
    started = time.perf_counter()

    draft_error = failure(run_draft, server, timeout_s=0.3)
    verify_error = failure(run_verify, server, timeout_s=0.3)

    assert (draft_error.kind, verify_error.kind) == ("timeout", "timeout")
    assert draft_error.retryable and verify_error.retryable
    assert time.perf_counter() - started < 4.0  # not the 6 s the server stalls


def test_stream_that_sends_headers_then_stalls_is_a_timeout(server):
    server.faults.add(Fault.slow_first_event(3.0))

    error = failure(run_draft, server, first_token_timeout_s=0.3)

    assert error.kind == "timeout"


def test_first_token_later_than_its_limit_is_a_timeout():
    with running_server(pacing=Pacing(first_token_s=2.0)) as slow:
        deltas: list[str] = []
        error = failure(run_draft, slow, deltas, first_token_timeout_s=0.3)

    assert error.kind == "timeout" and deltas == []


def test_overloaded_error_mid_stream_gives_no_draft(server):
    server.faults.add(Fault.midstream_overloaded(after_deltas=3))
    deltas: list[str] = []

    error = failure(run_draft, server, deltas)

    assert len(deltas) == 3
    assert (error.kind, error.retryable) == ("stream_interrupted", True)
    assert "overloaded" in error.detail
    assert usage_of(error).outcome == "error:stream_interrupted"
    assert usage_of(error).cache_creation_input_tokens > 0  # billed before it broke


def test_overloaded_error_before_any_text_is_overloaded(server):
    server.faults.add(Fault.midstream_overloaded(after_deltas=0))

    assert failure(run_draft, server).kind == "overloaded"


def test_connection_dropped_mid_stream_gives_no_draft(server):
    server.faults.add(Fault.midstream_drop(after_deltas=2))
    deltas: list[str] = []

    error = failure(run_draft, server, deltas)

    assert error.kind == "stream_interrupted" and len(deltas) == 2


def test_streaming_faults_wait_for_a_stream(server):
    server.faults.add(Fault.midstream_overloaded(after_deltas=1))

    assert run_verify(server).verdicts[0].outcome == "CONFIRMED"
    assert server.faults.pending == 1
    assert failure(run_draft, server).kind == "stream_interrupted"


def test_always_failing_server_fails_every_call_until_cleared(server):
    server.faults.always(Fault.server_error())
    assert failure(run_verify, server).kind == "server_error"
    assert failure(run_draft, server).kind == "server_error"

    server.faults.clear()

    assert run_verify(server).usage.outcome == "ok"


def test_wrong_api_key_is_rejected_and_not_retryable():
    with running_server(api_key="test-key") as guarded:
        assert run_verify(guarded).usage.outcome == "ok"
        error = failure(run_verify, guarded, api_key="wrong-key")

    assert (error.kind, error.retryable) == ("request_rejected", False)
    assert "authentication_error" in error.detail


def test_llm_unavailable_survives_pickling(server):
    server.faults.add(Fault.rate_limited(retry_after=3))
    error = failure(run_verify, server)

    copy = pickle.loads(pickle.dumps(error))

    assert (copy.kind, copy.retryable, copy.retry_after_s) == ("rate_limited", True, 3.0)
    assert copy.usage == error.usage and str(copy) == str(error)
