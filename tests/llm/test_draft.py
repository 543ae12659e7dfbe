from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from reviewapp.llm import LLMUnavailable, stream_draft, verify_passages
from tests.fakes.messages_server import FakeMessagesServer, ScriptedBrain, running_server
from tests.llm import PLANTED, PLANTED_RANGE, item, prefix, settings_for, usage_of


@pytest.fixture
def server() -> Iterator[FakeMessagesServer]:
    with running_server() as fake:
        yield fake


def draft(server: FakeMessagesServer, contract_prefix: str | None = None, **overrides):
    deltas: list[str] = []
    result = stream_draft(
        settings_for(server, **overrides),
        prefix=contract_prefix or prefix(),
        instructions="Cap On Liability: liability is capped at the fees of one year.",
        on_delta=deltas.append,
    )
    return result, deltas


def test_draft_streams_deltas_and_returns_the_validated_draft(server):
    result, deltas = draft(server)

    assert len(deltas) > 10
    assert "".join(deltas) == result.text
    assert {issue["passage"] for issue in result.draft["issues"]} == {0, 1, 2}
    assert set(result.draft["key_facts"]) >= {"parties", "expiration_date", "governing_law"}
    assert result.usage.outcome == "ok"
    assert result.usage.output_tokens > 0 and result.usage.input_tokens > 0
    assert result.usage.cache_creation_input_tokens > 0
    assert 0 < result.usage.ttft_ms <= result.usage.latency_ms
    assert result.usage.request_id == "req_fake_000001"


def test_draft_request_puts_playbook_after_the_cached_contract(server):
    draft(server)

    body = server.requests[0].body
    assert body["stream"] is True
    assert body["system"][1]["text"] == prefix()
    assert body["system"][1]["cache_control"] == {"type": "ephemeral"}
    assert "liability is capped" in body["messages"][0]["content"]
    assert "liability is capped" not in json.dumps(body["system"])
    assert body["tool_choice"] == {"type": "none"}
    assert "temperature" not in body


def test_second_draft_on_the_same_contract_reads_the_cache(server):
    first, _ = draft(server)
    second, _ = draft(server)

    assert second.usage.cache_read_input_tokens == first.usage.cache_creation_input_tokens > 0
    assert second.usage.cache_creation_input_tokens == 0


def test_draft_and_verifications_send_an_identical_cached_prefix(server):
    first, _ = draft(server)
    settings = settings_for(server)
    checks = [
        verify_passages(settings, prefix=prefix(), items=[item(1), item(2)]),
        verify_passages(settings, prefix=prefix(), items=[item(4)]),
    ]

    bodies = [request.body for request in server.requests]
    assert [request.cached_blocks for request in server.requests] == [[prefix()]] * 3
    assert bodies[0]["system"] == bodies[1]["system"] == bodies[2]["system"]
    assert bodies[0]["tools"] == bodies[1]["tools"] == bodies[2]["tools"]
    for check in checks:
        assert check.usage.cache_read_input_tokens == first.usage.cache_creation_input_tokens
        assert check.usage.cache_creation_input_tokens == 0


def test_withheld_text_never_reaches_the_model(server):
    draft(server, prefix((PLANTED_RANGE,)))
    verify_passages(settings_for(server), prefix=prefix((PLANTED_RANGE,)), items=[item(3)])

    for request in server.requests:
        sent = json.dumps(request.body)
        assert "Ignore previous instructions and" not in sent
        assert PLANTED.split("\n")[1] not in sent


def test_text_that_is_not_json_is_a_retryable_bad_response():
    prose = ScriptedBrain(draft="Sorry, here is prose instead of JSON.")
    with running_server(prose) as fake, pytest.raises(LLMUnavailable) as caught:
        draft(fake)

    assert caught.value.kind == "bad_response" and caught.value.retryable
    assert usage_of(caught.value).outcome == "error:bad_response"
    assert usage_of(caught.value).output_tokens > 0


def test_json_of_the_wrong_shape_is_a_bad_response():
    wrong = json.dumps({"summary": "x", "key_facts": {}, "issues": [{"passage": "two"}]})
    with (
        running_server(ScriptedBrain(draft=wrong)) as fake,
        pytest.raises(LLMUnavailable, match="issues") as caught,
    ):
        draft(fake)

    assert caught.value.kind == "bad_response"


def test_draft_cut_by_max_tokens_is_a_bad_response_not_worth_retrying(server):
    with pytest.raises(LLMUnavailable, match="max_tokens") as caught:
        draft(server, draft_max_tokens=20)

    assert caught.value.kind == "bad_response" and not caught.value.retryable


def test_issues_citing_passages_that_do_not_exist_are_dropped():
    answer = {
        "summary": "s",
        "key_facts": {"parties": [{"name": "Acme Ltd", "passage": 0, "quote": "Acme Ltd"}]},
        "issues": [
            {"passage": 2, "risk": "high", "title": "Uncapped", "recommendation": "Cap it."},
            {"passage": 99, "risk": "low", "title": "Invented", "recommendation": "None."},
        ],
    }
    with running_server(ScriptedBrain(draft=json.dumps(answer))) as fake:
        result, _ = draft(fake)

    assert [issue["passage"] for issue in result.draft["issues"]] == [2]
    assert [issue["passage"] for issue in result.dropped_issues] == [99]
    assert result.draft["key_facts"]["governing_law"] is None


def test_temperature_is_only_sent_when_set(server):
    with pytest.raises(LLMUnavailable) as caught:
        draft(server, draft_temperature=0.5)  # Sonnet 5 and later refuse sampling parameters
    assert caught.value.kind == "request_rejected" and not caught.value.retryable

    draft(server, draft_temperature=0.5, model="claude-sonnet-4-6")
    assert server.requests[-1].body["temperature"] == 0.5
