"""The fake bills prompt caching the way the service does, so cache tests mean something."""

from __future__ import annotations

from typing import Any

import anthropic
import pytest

from tests.fakes import fake_messages_server  # noqa: F401 - a fixture
from tests.fakes.messages_server import count_tokens, running_server


def call(server, *, system_blocks, tools=None, tool_choice=None, user="Go.", model="m-1"):
    client = anthropic.Anthropic(api_key="k", base_url=server.url, max_retries=0)
    extra = {}
    if tools is not None:
        extra["tools"] = tools
    if tool_choice is not None:
        extra["tool_choice"] = tool_choice
    message = client.messages.create(
        model=model,
        max_tokens=512,
        system=system_blocks,
        messages=[{"role": "user", "content": user}],
        **extra,
    )
    return message.usage


CONTRACT = "The Supplier shall deliver the goods. " * 40
CACHED: list[dict[str, Any]] = [
    {"type": "text", "text": "You review contracts."},
    {"type": "text", "text": CONTRACT, "cache_control": {"type": "ephemeral"}},
]
TOOL = {"name": "t", "input_schema": {"type": "object", "properties": {}}}


def test_first_call_writes_the_prefix_and_the_next_reads_it():
    with running_server() as server:
        first = call(server, system_blocks=CACHED, user="First question.")
        second = call(server, system_blocks=CACHED, user="A different question.")

    prefix_tokens = count_tokens("You review contracts.") + count_tokens(CONTRACT)
    assert (first.cache_creation_input_tokens, first.cache_read_input_tokens) == (prefix_tokens, 0)
    assert (second.cache_creation_input_tokens, second.cache_read_input_tokens) == (
        0,
        prefix_tokens,
    )
    assert second.input_tokens == count_tokens("user:A different question.")
    assert server.usage_totals()["cache_read_input_tokens"] == prefix_tokens


@pytest.mark.parametrize(
    ("changed", "hit"),
    [
        ({"model": "m-2"}, False),
        ({"tools": [TOOL]}, False),
        ({"system_blocks": [{**CACHED[0], "text": "You review leases."}, CACHED[1]]}, False),
        ({"user": "Another question."}, True),
    ],
    ids=["model", "tools", "earlier-system-block", "user-message"],
)
def test_only_a_change_after_the_breakpoint_keeps_the_cache(changed, hit):
    with running_server() as server:
        call(server, system_blocks=CACHED)
        again = call(server, **{"system_blocks": CACHED, **changed})

    assert (again.cache_read_input_tokens > 0) is hit


def test_changing_tool_choice_keeps_tools_and_system_cached():
    with running_server() as server:
        call(server, system_blocks=CACHED, tools=[TOOL], tool_choice={"type": "none"})
        again = call(server, system_blocks=CACHED, tools=[TOOL], tool_choice={"type": "auto"})

    assert again.cache_creation_input_tokens == 0 and again.cache_read_input_tokens > 0


def test_prefix_below_the_minimum_is_not_cached():
    with running_server(min_cache_tokens=10_000) as server:
        call(server, system_blocks=CACHED)
        again = call(server, system_blocks=CACHED)

    assert again.cache_read_input_tokens == again.cache_creation_input_tokens == 0


def test_more_than_four_breakpoints_is_a_bad_request():
    blocks = [
        {"type": "text", "text": f"b{i}", "cache_control": {"type": "ephemeral"}} for i in range(5)
    ]
    with running_server() as server, pytest.raises(anthropic.BadRequestError):
        call(server, system_blocks=blocks)


def test_server_records_headers_and_bodies():
    with running_server() as server:
        call(server, system_blocks=CACHED)

    recorded = server.requests[0]
    assert recorded.headers["authorization"] == "Bearer k"
    assert recorded.headers["anthropic-version"]
    assert recorded.body["system"] == CACHED
    assert recorded.cached_blocks == [CONTRACT]
    server.reset()
    assert server.requests == []


def test_fixture_serves_the_default_brain(request):
    server = request.getfixturevalue("fake_messages_server")

    usage = call(server, system_blocks=CACHED)

    assert usage.output_tokens > 0
    assert len(server.requests) == 1
