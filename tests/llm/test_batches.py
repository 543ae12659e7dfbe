"""Message Batches in the model engine, the real SDK against the local server's batch endpoints."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest

from reviewapp.llm import DEFAULT_PRICES, CallUsage, LLMSettings, LLMUnavailable, estimate_cost_usd
from reviewapp.llm.batches import (
    BatchRequest,
    batch_cancel,
    batch_create,
    batch_results,
    batch_retrieve,
    draft_from_message,
    draft_params,
    estimate_usage,
    verify_from_message,
    verify_params,
)
from reviewapp.llm.draft import draft_request
from reviewapp.llm.verify import QUOTE_NOT_FOUND, verify_request
from tests.fakes.message_batches import BatchFault, every
from tests.fakes.messages_server import BogusQuoteBrain, Fault, count_tokens, running_server
from tests.llm import item, prefix, settings_for


def wait_ended(settings, batch_id, limit_s=5.0):
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        status = batch_retrieve(settings, batch_id)
        if status.ended:
            return status
        time.sleep(0.02)
    raise AssertionError("the batch did not end")


def test_batch_params_are_the_interactive_requests_without_stream_options():
    config = LLMSettings(api_key="k", base_url="http://127.0.0.1:9")
    live = draft_request(config, prefix(), "Standard positions.")
    live.pop("timeout")
    assert draft_params(config, prefix=prefix(), instructions="Standard positions.") == live
    items = [item(1), item(2)]
    assert verify_params(config, prefix=prefix(), items=items) == verify_request(
        config, prefix(), items
    )


def test_a_batch_is_answered_like_interactive_calls_and_priced_at_half():
    with running_server() as server:
        config = settings_for(server)
        requests = [
            BatchRequest("draft-1-0", draft_params(config, prefix=prefix(), instructions="")),
            BatchRequest("verify-1-1", verify_params(config, prefix=prefix(), items=[item(1)])),
        ]
        created = batch_create(config, requests)
        assert created.processing_status == "in_progress" and created.processing == 2
        ended = wait_ended(config, created.id)
        assert (ended.succeeded, ended.errored, ended.expired) == (2, 0, 0)
        outcomes = {o.custom_id: o for o in batch_results(config, created.id)}
        processed = server.batches.processed
    draft = draft_from_message(config, outcomes["draft-1-0"].message, prefix=prefix())
    assert draft.draft["issues"] and draft.usage.batch
    verdicts = verify_from_message(config, outcomes["verify-1-1"].message, items=[item(1)])
    assert verdicts.verdicts[0].outcome == "CONFIRMED"
    # The second request read the contract the first one wrote to the cache.
    assert processed[1].usage["cache_read_input_tokens"] > 0
    live = replace(verdicts.usage, batch=False)
    assert estimate_cost_usd(verdicts.usage, DEFAULT_PRICES) == pytest.approx(
        estimate_cost_usd(live, DEFAULT_PRICES) / 2
    )


def test_batch_verdicts_still_need_a_quote_from_the_passage():
    with running_server(brain=BogusQuoteBrain()) as server:
        config = settings_for(server)
        params = verify_params(config, prefix=prefix(), items=[item(2)])
        created = batch_create(config, [BatchRequest("v-2", params)])
        wait_ended(config, created.id)
        (outcome,) = batch_results(config, created.id)
    verdict = verify_from_message(config, outcome.message, items=[item(2)]).verdicts[0]
    assert (verdict.outcome, verdict.reason) == ("NEEDS_HUMAN_REVIEW", QUOTE_NOT_FOUND)


def test_expired_errored_and_invalid_requests_say_so():
    with running_server() as server:
        server.batches.inject(BatchFault.expired(lambda custom_id: custom_id == "b"))
        server.batches.inject(BatchFault.errored(every(100, start=2), "overloaded_error"))
        config = settings_for(server)
        good = verify_params(config, prefix=prefix(), items=[item(1)])
        bad = {**good, "max_tokens": 0}
        created = batch_create(
            config,
            [BatchRequest("a", good), BatchRequest("b", good), BatchRequest("c", good)]
            + [BatchRequest("d", bad)],
        )
        wait_ended(config, created.id)
        outcomes = {o.custom_id: o for o in batch_results(config, created.id)}
    assert outcomes["a"].type == "succeeded"
    assert outcomes["b"].type == "expired"
    assert outcomes["c"].type == "errored" and "overloaded_error" in outcomes["c"].error
    assert outcomes["d"].type == "errored" and "invalid_request_error" in outcomes["d"].error


def test_a_canceled_batch_ends_with_its_requests_canceled():
    with running_server() as server:
        server.batches.delay_s = 30
        config = settings_for(server)
        params = verify_params(config, prefix=prefix(), items=[item(1)])
        created = batch_create(config, [BatchRequest("a", params)])
        assert batch_cancel(config, created.id).processing_status == "canceling"
        ended = wait_ended(config, created.id)
        (outcome,) = batch_results(config, created.id)
    assert ended.canceled == 1 and outcome.type == "canceled"


def test_service_errors_on_the_batch_endpoints_are_classified():
    with running_server() as server:
        server.faults.add(Fault.rate_limited(retry_after=3))
        config = settings_for(server)
        params = verify_params(config, prefix=prefix(), items=[item(1)])
        with pytest.raises(LLMUnavailable) as raised:
            batch_create(config, [BatchRequest("a", params)])
        assert raised.value.kind == "rate_limited" and raised.value.retry_after_s == 3
        with pytest.raises(LLMUnavailable) as missing:
            batch_retrieve(config, "msgbatch_nope")
    assert missing.value.kind == "request_rejected"


def test_estimate_from_the_text_is_close_to_what_the_fake_bills():
    with running_server() as server:
        config = settings_for(server)
        params = draft_params(config, prefix=prefix(), instructions="")
        created = batch_create(config, [BatchRequest("a", params)])
        wait_ended(config, created.id)
        billed = server.batches.processed[0].usage
    estimate = estimate_usage(params, prefix_cached=False, output_tokens=10**6, model="m")
    assert estimate.batch and estimate.output_tokens == params["max_tokens"]
    input_billed = billed["input_tokens"] + billed["cache_creation_input_tokens"]
    input_estimated = estimate.input_tokens + estimate.cache_creation_input_tokens
    assert input_billed <= input_estimated <= input_billed * 1.4
    assert count_tokens(prefix()) <= estimate.cache_creation_input_tokens


def test_batch_usage_costs_half_of_every_token_kind():
    usage = CallUsage(
        input_tokens=1000,
        output_tokens=500,
        cache_read_input_tokens=2000,
        cache_creation_input_tokens=3000,
        model="claude-sonnet-5-5",
    )
    full = estimate_cost_usd(usage, DEFAULT_PRICES)
    assert estimate_cost_usd(replace(usage, batch=True), DEFAULT_PRICES) == pytest.approx(full / 2)
    custom = {"claude-sonnet-5-5": {**DEFAULT_PRICES["claude-sonnet-5-5"], "batch_factor": 0.6}}
    assert estimate_cost_usd(replace(usage, batch=True), custom) == pytest.approx(full * 0.6)
